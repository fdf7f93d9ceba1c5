#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: each mitigation on a small realistic workload, native vs
# fastpath, in one table.  Each bench/demo_*.sh prints ROW lines (see
# compare in bench/lib.sh); this runs them all.  Kept under a minute on two
# cores: the full-size runs are in make bench.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
echo "fastpath demo: native vs LD_PRELOAD=fastpath.so, median of $REPS alternating runs"
echo "(\"syscalls saved\" is counted with strace -f -c on the same workload)"
echo
for d in bench/demo_*.sh; do
	[ "$d" = bench/demo_survey.sh ] && continue
	[ -f "$d" ] || continue
	sh "$d"
done | table
# Last: the survey of the same seed workloads, with its suggestions.
sh bench/demo_survey.sh
