#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench for urandom_shim: the full targets of issue 3 (seed 001).
# Each row is native vs fastpath from the same run; the syscall columns
# come from a smaller run of the same workload under strace -f -c.
# shellcheck disable=SC3045 # ulimit -H and -S: dash, bash and busybox sh have them
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
L=$BENCHBIN/urandom_loop
P="env LD_PRELOAD=$FASTPATH_SO"
G="env LD_PRELOAD=$FASTPATH_SO FASTPATH_GETRANDOM=1"
PY='import os, sys
for i in range(int(sys.argv[1])):
    fd = os.open("/dev/urandom", os.O_RDONLY)
    os.read(fd, 16)
    os.close(fd)'
PYB='import sys
for i in range(int(sys.argv[1])):
    with open("/dev/urandom", "rb") as f:
        f.read(16)'
F=$(mktemp) || exit 2
head -c 4096 /dev/urandom >"$F"

# The seed loop in both modes (FASTPATH_URANDOM), both flag styles, 1, 2
# and 8 threads; 200k uuids (400k open/read/close cycles) per row, median
# of 7 alternating runs (this 2-core machine is shared: 3 leave noise).
E="env LD_PRELOAD=$FASTPATH_SO FASTPATH_URANDOM=exact"
R="env LD_PRELOAD=$FASTPATH_SO FASTPATH_URANDOM=reserve"
seed_rows() {
	# seed_rows MODE PREFIX
	for t in 1 2 8; do
		for how in cloexec noclo; do
			label="O_CLOEXEC"
			[ $how = noclo ] && label="plain O_RDONLY"
			REPS=7 compare "seed loop, 200k uuids, $label, $t thr, $1" \
				"$L seed 200000 $t $how" "$2 $L seed 200000 $t $how" \
				"$L seed 2000 $t $how" "$2 $L seed 2000 $t $how"
		done
	done
}
# Exact mode keeps its hidden descriptor above the soft descriptor limit,
# where that is below the hard one (fastpath(7)): the rows run under
# systemd's default soft limit, 1024, where the hard one is higher.  With
# the two equal (a container's 1048576:1048576, this machine's
# 20000:20000) there is no such number and exact mode's opens are real:
# the informational row after says what that costs.
HARD_NOFILE=$(ulimit -Hn)
case $HARD_NOFILE in unlimited) HARD_NOFILE=1048576 ;; esac
[ "$HARD_NOFILE" -gt 1024 ] && ulimit -Sn 1024
echo "# target >= 5x (exact, the default; soft descriptor limit $(ulimit -Sn), hard $HARD_NOFILE)"
seed_rows exact "$E"
echo "# informational: exact mode with the soft limit at the hard one (no hidden descriptor: real opens)"
REPS=5 compare "seed loop, 200k uuids, O_CLOEXEC, 1 thr, exact, soft = hard" \
	"sh -c 'ulimit -n $HARD_NOFILE; exec $L seed 200000 1 cloexec'" \
	"sh -c 'ulimit -n $HARD_NOFILE; exec $E $L seed 200000 1 cloexec'"
# What exact mode can reach at best here: the native seed loop against
# the kernel's part of exact mode alone (a duplicate of one descriptor and
# its close per cycle, no read, no fastpath).
echo "# informational: exact mode's ceiling (native seed loop vs its two kernel calls alone)"
for t in 1 2 8; do
	REPS=5 compare "ceiling: F_DUPFD_CLOEXEC + close, $t thr" \
		"$L seed 200000 $t" "$L floor 200000 $t"
	REPS=5 compare "ceiling: dup + close, $t thr" \
		"$L seed 200000 $t noclo" "$L floor 200000 $t noclo"
done
# Is it the one hidden descriptor the threads share (each duplicate takes a
# reference on it)?  The same kernel calls on one descriptor per thread:
# a ratio near 1x says the sharing costs nothing; the threads meet in the
# descriptor table, as native opens do.
echo "# informational: one shared descriptor (floor) vs one per thread (floorpt), kernel calls alone"
for t in 2 8; do
	REPS=5 compare "shared vs per-thread: F_DUPFD_CLOEXEC + close, $t thr" \
		"$L floor 200000 $t" "$L floorpt 200000 $t"
done
# What exact mode can reach once reads cost what the kernel's vDSO
# generator costs: the native seed loop against a duplicate, a vDSO
# getrandom(16) and a close per cycle (the floor with its read), then exact
# mode against that floor directly (target: exact mode's time within
# 1/0.9 of the floor's, a ratio >= 0.9x).  Skipped without a vDSO getrandom.
if $L vdso 1 2>/dev/null; then
	echo "# informational: the floor with its read (native seed loop vs its kernel calls and a vDSO read)"
	for t in 1 2 8; do
		REPS=5 compare "floor+read: F_DUPFD_CLOEXEC + vDSO(16) + close, $t thr" \
			"$L seed 200000 $t" "$L floorread 200000 $t"
		REPS=5 compare "floor+read: dup + vDSO(16) + close, $t thr" \
			"$L seed 200000 $t noclo" "$L floorread 200000 $t noclo"
	done
	echo "# target >= 0.9x: exact mode against the floor with its read (floor s / exact s)"
	for t in 1 2 8; do
		REPS=5 compare "exact vs floor+read, O_CLOEXEC, $t thr" \
			"$L floorread 200000 $t" "$E $L seed 200000 $t"
		REPS=5 compare "exact vs floor+read, plain O_RDONLY, $t thr" \
			"$L floorread 200000 $t noclo" "$E $L seed 200000 $t noclo"
	done
else
	echo "# skipped: the floor with its read (no vDSO getrandom: Linux before 6.11)"
fi
echo "# target >= 30x (reserve)"
seed_rows reserve "$R"
# What reserve mode can reach at best: the native seed loop against its
# reads alone, each a bare vDSO getrandom(16) (open and close free, two
# reads a uuid).  Where this is below 30x, so is reserve mode.
if $L vdso 1 2>/dev/null; then
	echo "# informational: reserve mode's ceiling (native seed loop vs its vDSO reads alone)"
	REPS=5 compare "ceiling: vDSO(16) x 400k alone, 1 thr" \
		"$L seed 200000" "$L vdso 400000"
fi
echo "# informational: against the system call (reads are the vDSO's: their target is the vDSO rows below)"
# 3M reads: at 1M a preloaded process's fixed start-up is a tenth of the run.
compare "read(16) x 3M on a kept-open fd" "$L kept 3000000" "$P $L kept 3000000" \
	"$L kept 10000" "$P $L kept 10000"
echo "# target >= 1.8x"
compare "dd if=/dev/urandom bs=16 count=1000000" \
	"dd if=/dev/urandom of=/dev/null bs=16 count=1000000" \
	"$P dd if=/dev/urandom of=/dev/null bs=16 count=1000000" \
	"dd if=/dev/urandom of=/dev/null bs=16 count=10000" \
	"$P dd if=/dev/urandom of=/dev/null bs=16 count=10000"
if command -v python3 >/dev/null 2>&1; then
	echo "# target >= 2x"
	compare "python: os.open/os.read(16)/os.close x 200k" \
		"python3 -c '$PY' 200000" "$P python3 -c '$PY' 200000" \
		"python3 -c '$PY' 2000" "$P python3 -c '$PY' 2000"
	echo "# informational: buffered open() reads 4 KiB per token (generation-bound)"
	compare "python: open(rb).read(16) x 100k" \
		"python3 -c '$PYB' 100000" "$P python3 -c '$PYB' 100000" \
		"python3 -c '$PYB' 2000" "$P python3 -c '$PYB' 2000"
fi
echo "# informational: FASTPATH_GETRANDOM=1 (as interpose --getrandom) against the system call"
# 3M calls: at 1M the fixed start-up of a preloaded process still shows.
compare "getrandom(16) x 3M, pooled" "$L getrandom 3000000" "$G $L getrandom 3000000" \
	"$L getrandom 10000" "$G $L getrandom 10000"
if $L vdso 1 2>/dev/null; then
	echo "# informational: a bare vDSO getrandom(16) loop against the system call"
	compare "bare vDSO getrandom(16) x 3M (vs syscall)" "$L getrandom 3000000" "$L vdso 3000000"
	echo "# target >= 0.77x (within 1.3x of the bare vDSO row)"
	compare "pooled read(16) x 3M vs bare vDSO" "$L vdso 3000000" "$P $L kept 3000000"
	compare "pooled getrandom(16) x 3M vs bare vDSO" "$L vdso 3000000" "$G $L getrandom 3000000"
else
	echo "# skipped: the bare vDSO getrandom rows (no vDSO getrandom: Linux before 6.11)"
fi
# A threaded program's fork children, each opening the device once: the
# child has one thread, by the kernel's count, and places its hidden
# descriptor in place (a placing clone and its wait, 15 ms a child, until
# 9ec4dd6).
echo "# target >= 0.6x (the preload's own fork handlers are most of it: 0.7x with urandom off too; 9ec4dd6's parent 0.03x)"
REPS=5 compare "threaded parent, 500 fork children each one open/read/close" \
	"$L forkopen 500" "$P $L forkopen 500" "$L forkopen 20" "$P $L forkopen 20"
echo "# target >= 0.97x (not ours: one branch per call); 7 runs, the effect is within noise"
REPS=7 compare "regular file open/read(16)/close x 500k" "$L file 500000 $F" "$P $L file 500000 $F" \
	"$L file 2000 $F" "$P $L file 2000 $F"
# Real libuuid where the pattern lives (issue 36): under a seccomp filter
# refusing getrandom with ENOSYS (an old container profile; the filter is
# tests/prog_urandom_seccomp's) it opens, reads and closes the device per
# uuid.  The survey's suggested command there (interpose
# --urandom-source=reservoir, its caveat above it: t_survey.sh) against
# native, under the soft descriptor limit set above (with soft = hard,
# exact mode's opens would be real); the default source (kernel) beside
# it.  Then 2 processes at once under the suggestion, 200k uuids each: all
# distinct (sort | uniq -d empty).
U=$BENCHBIN/uuid_loop
S=$TOP/tests/bin/prog_urandom_seccomp
SUG="$S ENOSYS $INTERPOSE --urandom-source=reservoir --"
if [ -x "$S" ] && [ -x "$U" ] && "$S" ENOSYS "$U" 1 >/dev/null 2>&1; then
	echo "# target >= 2.5x (real libuuid, getrandom refused (ENOSYS), the survey's suggestion; soft descriptor limit $(ulimit -Sn), hard $HARD_NOFILE)"
	REPS=5 compare "libuuid, 200k uuids, getrandom refused, --urandom-source=reservoir" \
		"$S ENOSYS $U 200000" "$SUG $U 200000" "$S ENOSYS $U 2000" "$SUG $U 2000"
	echo "# informational: the default source there (kernel: every read a system call)"
	REPS=5 compare "libuuid, 200k uuids, getrandom refused, default source" \
		"$S ENOSYS $U 200000" "$S ENOSYS $INTERPOSE -- $U 200000" \
		"$S ENOSYS $U 2000" "$S ENOSYS $INTERPOSE -- $U 2000"
	$SUG "$U" 200000 print >"$TMPB.n" 2>/dev/null &
	$SUG "$U" 200000 print >"$TMPB.f" 2>/dev/null
	wait
	n=$(sort "$TMPB.n" "$TMPB.f" | uniq | wc -l)
	d=$(sort "$TMPB.n" "$TMPB.f" | uniq -d | wc -l)
	if [ "$n" -eq 400000 ] && [ "$d" -eq 0 ]; then
		echo "# libuuid, getrandom refused, --urandom-source=reservoir: 2 processes at once, 400000 uuids, all distinct"
	else
		echo "# FAILED: libuuid, getrandom refused, --urandom-source=reservoir: 2 processes at once: $n distinct of 400000, $d repeated"
	fi
else
	echo "# skipped: real libuuid under a filter refusing getrandom (no libuuid.so.1, no seccomp filter, or tests/bin/prog_urandom_seccomp not built)"
fi
rm -f "$F"
