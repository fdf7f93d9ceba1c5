#!/bin/sh
# SPDX-License-Identifier: MIT
# Every common way of counting CPUs, one line each: "NAME VALUE", or
# "NAME skip: REASON" when the program is not installed.  Run it under
# the setting to measure (t_cpus.sh; bench/bench_cpus.sh builds the
# program | native | --cpus 3 | --cpus 64 table from it).
here=$(cd "$(dirname "$0")" && pwd -P)
py=${PYTHON:-python3}

probe() {
	# probe NAME TOOL COMMAND
	if ! command -v "$2" >/dev/null 2>&1; then
		echo "$1 skip: $2 is not installed"
		return
	fi
	echo "$1 $(sh -c "$3" 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
}

probe "getconf_NPROCESSORS_ONLN" getconf 'getconf _NPROCESSORS_ONLN'
probe "getconf_NPROCESSORS_CONF" getconf 'getconf _NPROCESSORS_CONF'
probe "nproc" nproc 'nproc'
probe "nproc_--all" nproc 'nproc --all'
probe "grep_-c_^processor_/proc/cpuinfo" grep 'grep -c ^processor /proc/cpuinfo'
probe "/proc/stat_cpuN_lines" grep 'grep -c "^cpu[0-9]" /proc/stat'
probe "/sys/.../cpu/online_count" awk "awk -F, '{ for (i = 1; i <= NF; i++) { n = split(\$i, r, \"-\"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/online"
probe "lscpu_CPU(s)" lscpu "lscpu | awk -F: '/^CPU\\(s\\):/ { gsub(/ /, \"\", \$2); print \$2 }'"
probe "lscpu_-p_rows" lscpu 'lscpu -p | grep -vc "^#"'
probe "python_os.cpu_count()" "$py" "$py -c 'import os; print(os.cpu_count())'"
probe "python_os.sched_getaffinity(0)" "$py" "$py -c 'import os; print(len(os.sched_getaffinity(0)))'"
probe "python_multiprocessing.Pool()" "$py" "$py -c 'import multiprocessing as m
p = m.Pool(); print(p._processes); p.terminate()'"
if command -v node >/dev/null 2>&1; then
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(node "$here/cpus_probe.js" 2>&1)
	echo "node_os.cpus().length $1"
	echo "node_os.availableParallelism() $2"
	echo "node_cluster_workers_online $(node "$here/cpus_probe.js" cluster 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
else
	for n in "node_os.cpus().length" "node_os.availableParallelism()" node_cluster_workers_online; do
		echo "$n skip: node is not installed (Debian: nodejs)"
	done
fi
