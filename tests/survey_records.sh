#!/bin/sh
# SPDX-License-Identifier: MIT
# survey_records.sh DIR OBJECT: 100,000 whole survey records of the present
# format in DIR, a parent (pid 1000) and its 99,999 children, each the body
# of a real record that OBJECT writes, with its own pid, ppid and count of
# forks.  tests/t_survey_report.sh checks the report of them exact;
# bench/bench_survey.sh times it.
set -u
dir=$1 so=$2
sv=$(mktemp -d) || exit 2
env LD_PRELOAD="$so" FASTPATH_SURVEY="$sv" sh -c 'exit 0'
tpl=$(find "$sv" -name '*.rec' | head -n 1)
(cd "$dir" && awk -v tpl="$tpl" 'BEGIN {
	while ((getline l < tpl) > 0) if (l !~ /^(fastpath-survey|pid|ppid|cpus\.forks|spawns|vforks) /) body[++n] = l
	for (p = 1000; p < 101000; p++) {
		f = p ".rec"
		printf "fastpath-survey 1\npid %d\nppid %d\ncpus.forks %d\n", p, p == 1000 ? 1 : 1000, p == 1000 ? 99999 : 0 > f
		for (i = 1; i <= n; i++) print body[i] > f
		close(f)
	}
}')
rc=$?
rm -rf "$sv"
exit $rc
