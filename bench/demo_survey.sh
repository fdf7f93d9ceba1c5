#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo, last: interpose --survey on the seed workloads, each report's
# reason and suggestion (the full reports: interpose --survey COMMAND).
# Printed after the table (ROW lines only are tabled; these pass through).
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/readlink_lib.sh
. bench/readlink_lib.sh
: "${FP_BENCH_DELAY_US:=1000}"
export FP_BENCH_DELAY_US
rep=$(mktemp) || exit 2
# show TITLE COMMAND...: the survey's findings for one workload.
show() {
	t=$1
	shift
	"$@" >/dev/null 2>"$rep"
	echo
	echo "survey: $t"
	grep -E '^(fastpath survey of|processes|readlink|urandom|getrandom|cpus|  |note|caveat|reason|suggest):? ?' "$rep" |
		grep -v -E '^(readlink|urandom|getrandom|cpus) +0 calls' | sed 's/^/  /'
}
echo
echo "== does it need fastpath?  interpose --survey on the seed workloads"
show "seed 001, urandom loop" "$INTERPOSE" --survey "$BENCHBIN/urandom_loop" seed 30000
rl_setup 300
show "seed 000, pfiles-like lister under the slow-readlink stand-in" \
	env "FASTPATH_TEST_PROC_ROOT=$RL_ROOT" FASTPATH_TEST_POLICY=illumos "LD_PRELOAD=$RL_DELAY" \
	"$INTERPOSE" --survey "$BENCHBIN/readlink_lister" "$RL_ROOT" "$RL_PID"
show "seed 002, find_elf-like pool told it has 256 CPUs" \
	"$INTERPOSE" --survey --cpus 256 "$BENCHBIN/findelf" 120 64
show "ls -l" "$INTERPOSE" --survey ls -l /
rm -f "$rep"
