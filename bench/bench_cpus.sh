#!/bin/sh
# SPDX-License-Identifier: MIT
# The find_elf experiment of seed 002 on this machine: one worker pool sized
# from sysconf(_SC_NPROCESSORS_ONLN), each worker fork+exec'ing /bin/true
# with 256 MiB of touched heap, at every CPU count the seed reported.  All
# rows come from the same run.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# `sh bench/bench_cpus.sh files` runs only the second table (issue 12).
if [ "${1:-}" != files ]; then
ITEMS=${ITEMS:-200}
HEAP=${HEAP:-256}
printf '%-10s %8s %10s %10s\n' setting threads "wall s" "forks/s"
row() {
	# row LABEL [--cpus N]
	label=$1
	shift
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(${1:+"$INTERPOSE"} "$@" "$BENCHBIN/findelf" "$ITEMS" "$HEAP")
	# findelf prints exactly one line of four numbers; anything else is a
	# failed run, shown as such and left out of the ratio.
	if [ $# -ne 4 ]; then
		printf '%-10s failed: [%s]\n' "$label" "$*"
		return
	fi
	printf '%-10s %8s %10s %10s\n' "$label" "$1" "$3" "$4"
	echo "$label $3" >>"$TMPB"
}
: >"$TMPB"
row native
for n in 1 2 4 8 16 32 256; do
	row "--cpus $n" --cpus "$n"
done
awk '$1 == "--cpus" && $2 == 8 { a = $3 } $1 == "--cpus" && $2 == 256 { b = $3 }
	END {
		if (a > 0 && b > 0) printf "--cpus 8 is %.1fx faster than --cpus 256 (target: 2x)\n", b / a
		else print "--cpus 8 vs --cpus 256: no ratio (a run failed) MISSED"
	}' "$TMPB"
fi

# Issue 12: what the CPU files cost.  One open + read to the end + close,
# in ns (bench/cpufile_loop), median of FREPS alternating runs.  Targets:
# /proc/cpuinfo with the cap set at most 2x native, at --cpus 3 (issue 12)
# and at --cpus 64 (issue 37; the floor row says what any copy costs); an
# unrelated file without the cap within noise of native (one branch).
ITER=${ITER:-3000}
: "${FREPS:=9}"
# alternate FORMAT LABEL ENVS PROGRAM ARGS...: FREPS alternating runs of
# PROGRAM, natively and preloaded with ENVS (assignments, space-separated),
# each printing its own figure; one row of the two medians and their ratio.
alternate() {
	fmt=$1 label=$2 envs=$3
	shift 3
	: >"$TMPB.n"
	: >"$TMPB.f"
	i=0
	while [ "$i" -lt "$FREPS" ]; do
		"$@" >>"$TMPB.n"
		# shellcheck disable=SC2086 # one assignment per word
		env LD_PRELOAD="$FASTPATH_SO" $envs "$@" >>"$TMPB.f"
		i=$((i + 1))
	done
	awk -v l="$label" -v f="$fmt" -v a="$(median <"$TMPB.n")" -v b="$(median <"$TMPB.f")" \
		'BEGIN { printf "%-46s " f " " f " %6.2fx\n", l, a, b, b / a }'
}
filerow() {
	# filerow LABEL PATH ENV...: ns per open+read+close, native vs under ENV
	label=$1 p=$2
	shift 2
	alternate %9d "$label" "$*" "$BENCHBIN/cpufile_loop" "$p" "$ITER"
}
# targetrow MAX LABEL PATH ENV...: filerow, and its ratio against MAX.
targetrow() {
	max=$1
	shift
	filerow "$@" | awk -v t="$max" '{ r = $NF; sub(/x$/, "", r)
		printf "%s  %s (target <= %sx)\n", $0, r + 0 <= t + 0 ? "ok" : "MISSED", t }'
}
# The floor (issue 37): what one served copy of the 64-CPU text costs by
# itself (bench/cpufile_floor: memfd, write, reopen, read; nothing made,
# no kernel file read), against native /proc/cpuinfo.  A capped open reads
# the kernel's file too, so it costs at least 1 + this ratio.  Then the
# same copy made once and only reopened: what a copy kept for the process
# would cost (not taken: it would hold a descriptor, fastpath(7)).
floorrow() {
	size=$(env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=64 cat /proc/cpuinfo | wc -c)
	: >"$TMPB.n"
	: >"$TMPB.f"
	: >"$TMPB.o"
	i=0
	while [ "$i" -lt "$FREPS" ]; do
		"$BENCHBIN/cpufile_loop" /proc/cpuinfo "$ITER" >>"$TMPB.n"
		"$BENCHBIN/cpufile_floor" "$size" "$ITER" >>"$TMPB.f"
		"$BENCHBIN/cpufile_floor" "$size" "$ITER" once >>"$TMPB.o"
		i=$((i + 1))
	done
	awk -v l="a copy of the --cpus 64 text ($size B), floor" -v a="$(median <"$TMPB.n")" \
		-v b="$(median <"$TMPB.f")" \
		'BEGIN { printf "%-46s %9d %9d %6.2fx  (least capped: %.2fx)\n", l, a, b, b / a, 1 + b / a }'
	awk -v l="the same copy made once, reopened each time" -v a="$(median <"$TMPB.n")" \
		-v b="$(median <"$TMPB.o")" \
		'BEGIN { printf "%-46s %9d %9d %6.2fx  (informational: a kept copy)\n", l, a, b, b / a }'
}
echo
printf '%-46s %9s %9s %7s\n' "open+read+close, ns per round" native fastpath ratio
targetrow 2 "/proc/cpuinfo, --cpus 3" /proc/cpuinfo FASTPATH_CPUS=3
filerow "/proc/cpuinfo, --cpus $(getconf _NPROCESSORS_ONLN) (the real count)" /proc/cpuinfo \
	FASTPATH_CPUS="$(getconf _NPROCESSORS_ONLN)"
targetrow 2 "/proc/cpuinfo, --cpus 64" /proc/cpuinfo FASTPATH_CPUS=64
floorrow
filerow "/proc/stat, --cpus 3" /proc/stat FASTPATH_CPUS=3
filerow "/sys/devices/system/cpu/online, --cpus 3" /sys/devices/system/cpu/online FASTPATH_CPUS=3
filerow "/etc/hostname, cap unset (target: noise)" /etc/hostname
filerow "/etc/hostname, --cpus 3 (one prefix test)" /etc/hostname FASTPATH_CPUS=3
# Issue 28: a relative name, "stat" under a /proc/1 descriptor (htop's
# way): a load and a branch, no readlink.  Target: native/fastpath >= 0.97
# (FREPS alternating runs; the verdict on the ratio of the medians).
relrow() {
	# relrow LABEL ENV...
	label=$1
	shift
	line=$(alternate %9d "$label" "$*" "$BENCHBIN/cpufile_loop" stat "$ITER" /proc/1)
	# The speed from the two medians, not from the rounded ratio column.
	echo "$line" | awk '{ s = $(NF - 2) / $(NF - 1)
		printf "%s  %.3fx native %s\n", $0, s, s >= 0.97 ? "ok" : "MISSED" }'
}
mkdir -p "$TMPB.sv"
relrow "open(\"stat\") under /proc/1, cap unset" FASTPATH_CPUS=
relrow "open(\"stat\") under /proc/1, --cpus 3" FASTPATH_CPUS=3
relrow "open(\"stat\") under /proc/1, survey" FASTPATH_SURVEY="$TMPB.sv"
rm -rf "$TMPB.sv"

# sched_getcpu(): without the cap the rseq read libc makes; with a cap below
# the real count, the answer folded onto a CPU the cap shows.  ns per call
# (bench/getcpu_loop, 20M calls), median of FREPS alternating runs.
callrow() {
	# callrow LABEL ENV...: ns per sched_getcpu(), native vs under ENV
	label=$1
	shift
	alternate %9.2f "$label" "$*" "$BENCHBIN/getcpu_loop" 20000000
}
echo
printf '%-46s %9s %9s %7s\n' "sched_getcpu(), ns per call" native fastpath ratio
callrow "sched_getcpu, cap unset (not ours)"
callrow "sched_getcpu, --cpus 1 (folded)" FASTPATH_CPUS=1

# Issue 12: every common way of counting CPUs, native and under --cpus 3
# and --cpus 64, from one run (tests/cpus_probe.sh).
echo
sh tests/cpus_probe.sh >"$TMPB.n"
"$INTERPOSE" --cpus 3 sh tests/cpus_probe.sh >"$TMPB.f"
"$INTERPOSE" --cpus 64 sh tests/cpus_probe.sh >"$TMPB"
echo '| program | native | --cpus 3 | --cpus 64 |'
echo '| --- | --- | --- | --- |'
awk 'FILENAME == ARGV[1] { a[FNR] = $0; next } FILENAME == ARGV[2] { b[FNR] = $0; next }
	{ n = split(a[FNR], x, " "); split(b[FNR], y, " "); split($0, z, " ")
	  printf "| `%s` | %s | %s | %s |\n", x[1], x[2], y[2], z[2] }' "$TMPB.n" "$TMPB.f" "$TMPB"
