#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo rows for the cost of being there (issue 39): 200 execs of
# /bin/true with an empty preloaded object against fastpath.so, and
# interpose -- true against env true.  A ratio under 1x is a cost; the
# full rows (native, FASTPATH_DISABLE=all, medians of 7) are
# bench/bench_startup.sh's.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
E="env LD_PRELOAD=$BENCHBIN/empty_preload.so"
P="env LD_PRELOAD=$FASTPATH_SO"
# shellcheck disable=SC2016 # expanded by the shell that runs the loop
L='i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done'
compare "startup: 200 execs, empty preload vs fastpath.so" \
	"$E sh -c '$L'" "$P sh -c '$L'" "$E /bin/true" "$P /bin/true"
# shellcheck disable=SC2016
R='i=0; while [ $i -lt 50 ]; do "$@"; i=$((i + 1)); done'
compare "startup: env true vs interpose -- true, 50 runs" \
	"sh -c '$R' sh env true" "sh -c '$R' sh $INTERPOSE -- true"
