// SPDX-License-Identifier: MIT
// Run by tests/cpus_probe.sh: node's ways of counting CPUs, and the usual
// way of sizing a service, one cluster worker per os.cpus() entry, counted
// as they come online (each worker leaves at once).
const os = require('os');
const cluster = require('cluster');
if (cluster.isPrimary) {
	const want = os.cpus().length;
	let online = 0;
	if (process.argv[2] !== 'cluster') {
		console.log(os.cpus().length + ' ' + os.availableParallelism());
		process.exit(0);
	}
	cluster.on('online', () => {
		if (++online === want)
			console.log(online);
	});
	for (let i = 0; i < want; i++)
		cluster.fork();
} else {
	process.exit(0);
}
