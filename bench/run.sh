#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: the full benchmarks, each bench/bench_*.sh in turn.  Every
# figure is native vs fastpath from the same run.  The raw output is kept
# in bench/out/bench.raw, and bench/chart.sh draws bench/out/bench.svg.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
mkdir -p bench/out
: >bench/out/bench.raw
for b in bench/bench_*.sh; do
	[ -f "$b" ] || continue
	echo "== ${b##*/}"
	sh "$b" | tee -a bench/out/bench.raw | table
	echo
done
sh bench/chart.sh bench/out/bench.raw bench/out/bench.svg
