#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-stress: prog_stress_mixed (threads opening, reading, copying
# and closing the device; forks; execs; signal handlers that read it;
# readlink of /proc/self/fd) for STRESS_SECONDS (default 60) under
# fastpath.so, and for STRESS_NATIVE_SECONDS (default 10) natively, which
# proves the test itself; each run lasts longer where a thread needs it to
# make its minimum of iterations.  The program checks: no stall
# (watchdog), every thread's minimum, no fd leak, no 16-byte block twice.
# Here: fastpath's FASTPATH_STATS counters for the process agree with what
# the program counted.  Then the watchdog harness (t_watchdog.sh) runs as
# long as each mode did.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_stress_mixed
secs=${STRESS_SECONDS:-60}
nsecs=${STRESS_NATIVE_SECONDS:-10}
# The program runs SECONDS and until each thread made its minimum (at most
# 300 s more), and its own alarm ends it 120 s after that; this is for a
# hang neither can see.  It bounds a hang only: no verdict is by the clock.
limit=$((secs + 480))
to=
command -v timeout >/dev/null 2>&1 && to="timeout -s KILL $limit"

run() {
	# run ok|pre NAME SECONDS [env ...]: the program passes its own checks;
	# "pre": the native run, which proves the test (a precondition).
	kind=$1 name=$2 s=$3
	shift 3
	# shellcheck disable=SC2086 # to is a word list
	$to env "$@" "$P" "$s" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$kind" = pre ]; then
		echo "pre - $name: $(grep -E '^(ran|blocks|extra)' "$T_TMP/out" | tr '\n' ';' | sed 's/;$//')"
	elif [ $rc -eq 0 ]; then
		ok "$name: $(grep -E '^(ran|blocks|extra)' "$T_TMP/out" | tr '\n' ';' | sed 's/;$//')"
	else
		fail "$name: exit $rc" "$(head -c 3000 "$T_TMP/err"; tail -n 5 "$T_TMP/out")"
	fi
}

run pre "native, $nsecs s" "$nsecs"
# shellcheck disable=SC2119 # no settings: the run's own
SRC=$(ur_source_now)

# mode_run MODE SECONDS: the program under fastpath.so in that urandom mode,
# and its counts against the stats line.
mode_run() {
T_TAG=$1
rm -f "$T_TMP/stats"
# Its readlink threads race to learn sockfs's and pipefs's devices (the
# counted run below learns them first: a call made while another thread
# learns is the kernel's, not counted as short-circuited).
run ok "fastpath, 5 s, first readlinks in two threads at once" 5 LD_PRELOAD="$FASTPATH_SO" \
	FASTPATH_URANDOM="$1"
run ok "fastpath, $2 s" "$2" LD_PRELOAD="$FASTPATH_SO" FASTPATH_STATS="$T_TMP/stats" \
	FASTPATH_URANDOM="$1" STRESS_LEARN_FIRST=1

# counts: pid P opens O reads R handlers H readlinks L short S
# shellcheck disable=SC2046 # one word per number
set -- $(sed -n 's/^counts: pid \([0-9]*\) opens \([0-9]*\) reads \([0-9]*\) handlers \([0-9]*\) readlinks \([0-9]*\) short \([0-9]*\)$/\1 \2 \3 \4 \5 \6/p' "$T_TMP/out")
if [ $# -ne 6 ]; then
	fail "program printed its counts" "$(tail -n 3 "$T_TMP/out")"
	return
fi
pid=$1 opens=$2 reads=$3 handlers=$4 rl=$5 short=$6
# fastpath[P]: readlink S short-circuited of C; urandom O opens, R reads,
# G getrandom (off), Y syscalls, F refills; cpus off.  Children write their
# own lines (each counts from zero at its fork): take the parent's, by the
# pid the program printed, and exactly one line of it.
line=$(grep "^fastpath\[$pid\]: " "$T_TMP/stats" 2>/dev/null)
# shellcheck disable=SC2046 # one word per number
set -- $(printf '%s\n' "$line" |
	sed -n 's/.*readlink \([0-9]*\) short-circuited of \([0-9]*\); urandom \([0-9]*\) opens, \([0-9]*\) reads, [0-9]* getrandom[^,]*, \([0-9]*\) syscalls, \([0-9]*\) refills, \([0-9]*\) slice fills.*/\1 \2 \3 \4 \5 \6 \7/p')
if [ $# -ne 7 ]; then
	fail "FASTPATH_STATS line for pid $pid" "[$line] ($(wc -l <"$T_TMP/stats") lines)"
	return
fi
s_short=$1 s_rl=$2 s_opens=$3 s_reads=$4 s_sys=$5 s_refills=$6 s_slices=$7
expect_eq "stats: every device open counted ($opens)" "$opens" "$s_opens"
expect_eq "stats: every device read counted ($reads)" "$reads" "$s_reads"
expect_eq "stats: every /proc fd readlink counted ($rl)" "$rl" "$s_rl"
# The /proc scans also readlink the numbers fastpath holds (the hidden
# ones, the reserve), which it answers with ENOENT itself, as for a closed
# number: those add to the count, at most one per scanned readlink.
if [ "$s_short" -ge "$short" ] && [ "$s_short" -le "$rl" ]; then
	ok "stats: own pipes/sockets via thread-self short-circuited ($short, +$((s_short - short)) held numbers)"
else
	fail "stats: own pipes/sockets via thread-self short-circuited" "program $short, stats $s_short"
fi
# Each refill is 64 KiB, and every read is 16 bytes.  Only a handler's read
# that interrupted the pool goes to the kernel instead; a signal can cut a
# refill short (getrandom returns what it had), so each may add one.  A
# slice the kernel filled while another thread refilled (1 KiB) served
# bytes that no refill gave.
lo=$(((reads - handlers) * 16 / 65536 - s_slices / 64 - 1))
[ "$lo" -lt 0 ] && lo=0
hi=$((reads * 16 / 65536 + handlers + 1))
# From the vDSO or the kernel (tests/lib.sh, UR_SOURCE): no reservoir.
[ "$SRC" = reservoir ] || lo=0 hi=0
if [ "$s_refills" -ge "$lo" ] && [ "$s_refills" -le "$hi" ]; then
	ok "stats, source $SRC: $s_refills refills for $reads reads of 16 bytes (between $lo and $hi)"
else
	fail "stats: refills" "$s_refills not between $lo and $hi"
fi
# At most: open (openat, fstat, or two fcntl and a close of a bad reserve),
# close (fcntl), one kernel read per read, the refills, the slice fills,
# and a thread's first state or slice (an mmap, and two madvise).
max=$((6 * opens + reads + s_refills + s_slices + 3 * opens))
if [ "$s_sys" -ge "$s_slices" ] && [ "$s_sys" -le "$max" ]; then
	ok "stats: $s_sys system calls by the pool (refills $s_refills, slice fills $s_slices, at most $max)"
else
	fail "stats: system calls" "$s_sys, refills $s_refills, at most $max"
fi
}

# The time is shared between the two modes, not doubled.
half=$(((secs + 1) / 2))
mode_run exact "$half"
mode_run reserve "$half"
T_TAG=
# The watchdog harness (tests/t_watchdog.sh) for as long, its counts ours.
WATCHDOG_SECONDS=$half sh tests/t_watchdog.sh >"$T_TMP/wd" 2>&1
grep -v '^ok - ' "$T_TMP/wd" | sed '$d'
# shellcheck disable=SC2046 # three numbers
set -- $(tail -n 1 "$T_TMP/wd" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
if [ $# -eq 3 ]; then
	T_PASSED=$((T_PASSED + $1)) T_FAILED=$((T_FAILED + $2)) T_SKIPPED=$((T_SKIPPED + $3))
	[ "$1" -gt 0 ] && echo "ok - watchdog harness, ${half}s a run: $1 runs made progress"
else
	fail "watchdog harness, ${half}s a run" "$(tail -n 5 "$T_TMP/wd")"
fi
finish
