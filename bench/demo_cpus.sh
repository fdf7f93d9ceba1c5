#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo row for the cpus mitigation (seed 002, find_elf).  A pool sized
# for a 256-CPU machine is what the tool does natively there; --cpus 8 is
# the mitigation.  One run each: this is the slowest row of the demo.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
REPS=1
compare "find_elf-like pool: 256 CPUs vs --cpus 8" \
	"$INTERPOSE --cpus 256 $BENCHBIN/findelf 60 128" \
	"$INTERPOSE --cpus 8 $BENCHBIN/findelf 60 128"
