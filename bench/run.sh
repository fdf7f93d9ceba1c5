#!/bin/sh
# make bench: the full benchmarks, each bench/bench_*.sh in turn.  Every
# figure is native vs fastpath from the same run.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
for b in bench/bench_*.sh; do
	[ -f "$b" ] || continue
	echo "== ${b##*/}"
	sh "$b" | table
	echo
done
