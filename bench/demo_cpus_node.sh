#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo row for the cpus mitigation's files (issue 12): a node service
# sized the usual node way, one cluster worker per os.cpus() entry, forks
# as many workers as the machine has natively, and N under --cpus N (node's
# os.cpus() reads /proc/stat and /proc/cpuinfo, not sysconf).
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
if ! command -v node >/dev/null 2>&1; then
	echo "node cluster under --cpus: skipped: node is not installed (Debian: nodejs)"
	exit 0
fi
js=$TOP/tests/cpus_probe.js
echo "node cluster, one worker per os.cpus() entry: native $(node "$js" cluster) workers online;" \
	"--cpus 3: $("$INTERPOSE" --cpus 3 node "$js" cluster);" \
	"--cpus 16: $("$INTERPOSE" --cpus 16 node "$js" cluster)"
