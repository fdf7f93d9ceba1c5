#!/bin/sh
# SPDX-License-Identifier: MIT
# urandom_shim: every entry point against native behaviour, the system-call
# savings (strace), forks, threads, signals, and a statistical check of the
# served stream.  What depends on the mode (FASTPATH_URANDOM) runs once per
# mode, tagged [exact] or [reserve]; the rest (the kernel's /dev/random
# rule, getrandom pooling, the stream's statistics) once.
# shellcheck disable=SC3045 # ulimit -H and -S: dash, bash and busybox sh have them
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_urandom
S=$TESTBIN/prog_urandom_stress
F=$TESTBIN/prog_urandom_fortify
C=$TESTBIN/prog_urandom_closed
W=$TESTBIN/prog_urandom_seen
STALL=$TESTBIN/prog_urandom_stall
# bash takes a high number of its own (once where the hidden descriptor
# sat, 4080, below the limit; now at the limit, where no one can).
BASH_CASE='ulimit -n 4096 2>/dev/null; exec 5</dev/urandom; exec 5<&-; exec 4080>x; echo hi >&4080'
pre() { LD_PRELOAD=$FASTPATH_SO "$@"; }
# Exact mode's hidden descriptor sits at the soft descriptor limit, where
# that is below the hard one (fastpath(7)): the suite runs as on a systemd
# system, 1024 under a higher hard limit.  The soft == hard branch (no
# hidden descriptor, real opens) has its own checks (prog_urandom_limit).
HARD_NOFILE=$(ulimit -Hn)
case $HARD_NOFILE in unlimited) HARD_NOFILE=1048576 ;; esac
[ "$HARD_NOFILE" -gt 1024 ] && ulimit -Sn 1024
# count FILE PATTERN: trace lines matching PATTERN
count() { grep -c "$2" "$1"; }
HAVE_STRACE=
command -v strace >/dev/null 2>&1 && HAVE_STRACE=1
K=$TESTBIN/prog_urandom_core
# The source that serves reads in this run (UR_SOURCE, tests/lib.sh):
# what the system-call counts below expect depends on it.
stats_run "$T_TMP/src" env LD_PRELOAD="$FASTPATH_SO" sh -c :
SRC=$(sed -n 's/.*, source \([a-z]*\), mode.*/\1/p' "$T_TMP/src")
precond "the stats line names the source (${SRC:-none})" [ -n "$SRC" ]

"$P" >"$T_TMP/native" 2>&1
precond "prog_urandom passes natively" [ $? -eq 0 ]
"$C" >"$T_TMP/cnative" 2>&1
precond "prog_urandom_closed runs natively" [ $? -eq 0 ]
"$W" >"$T_TMP/wn" 2>&1
precond "prog_urandom_seen runs natively" [ $? -eq 0 ]
"$W" procfd >"$T_TMP/pn" 2>&1
for c in "longjmp 5" cancel system "execrace 1000" "handlers 100000" "movejump 2000" "execjump 2000" firstexec vforkrace "twospawn 200"; do
	# shellcheck disable=SC2086
	precond "prog_urandom_stall $c runs natively" timeout 60 "$STALL" $c
done
syms=$(nm -D "$F" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')
calls() { case " $syms " in *" $1@"* | *" $1 "*) ;; *) echo "nm: $syms"; return 1 ;; esac; }
for s in __open_2 __open64_2 __openat_2 __openat64_2 __read_chk; do
	precond "fortified program calls $s" calls "$s"
done
precond "fortified program passes natively" "$F"

# ---- the mode setting --------------------------------------------------------
stats_run "$T_TMP/m0" env LD_PRELOAD="$FASTPATH_SO" sh -c :
check "default mode: exact" grep -q ', mode exact;' "$T_TMP/m0"
stats_run "$T_TMP/m1" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_URANDOM=bogus sh -c : 2>"$T_TMP/m1.err"
check "FASTPATH_URANDOM=bogus: mode exact" grep -q ', mode exact;' "$T_TMP/m1"
expect_eq "FASTPATH_URANDOM=bogus: one warning line" 1 "$(grep -c 'FASTPATH_URANDOM' "$T_TMP/m1.err")"
stats_run "$T_TMP/m2" "$INTERPOSE" --urandom=reserve sh -c :
check "interpose --urandom=reserve: mode reserve" grep -q ', mode reserve;' "$T_TMP/m2"

for M in exact reserve; do
T_TAG=$M
export FASTPATH_URANDOM=$M

# ---- after a close: every call on the number, and the next open's number ----
pre "$C" >"$T_TMP/cfast" 2>&1
expect_eq "prog_urandom_closed under fastpath runs" 0 $?
if [ $M = exact ]; then
	if [ "$(wc -l <"$T_TMP/cnative")" -gt 100 ] && cmp -s "$T_TMP/cnative" "$T_TMP/cfast"; then
		ok "closed numbers, next open's number: identical to native, both flag styles, after a fork ($(wc -l <"$T_TMP/cnative") lines)"
	else
		fail "closed numbers differ from native" "$(diff "$T_TMP/cnative" "$T_TMP/cfast" | head -20)"
	fi
else
	# The documented differences of reserve mode (fastpath(7), URANDOM): the number
	# stays open until the next open takes it.
	check "reserve: fstat on the closed number: EBADF, as native" \
		grep -q '^O_RDONLY: fstat = -1 EBADF$' "$T_TMP/cfast"
	check "reserve: the next open gets the number after it (documented)" \
		grep -q "^O_RDONLY: next open's number = 4$" "$T_TMP/cfast"
	# read, close, dup, dup2 and fcntl on it are native in both modes.
	grep -E 'closed =' "$T_TMP/cnative" >"$T_TMP/cn2"
	grep -E 'closed =' "$T_TMP/cfast" >"$T_TMP/cf2"
	if [ -s "$T_TMP/cn2" ] && cmp -s "$T_TMP/cn2" "$T_TMP/cf2"; then
		ok "reserve: read, close, dup, dup2, fcntl on the closed number as native"
	else
		fail "reserve: calls on the closed number" "$(diff "$T_TMP/cn2" "$T_TMP/cf2" | head)"
	fi
fi
# Exact mode: one hidden descriptor of each device, however many threads
# cycle.  Reserve mode: with threads, a slot per CPU they ran on, up to
# four per device (with one thread, one: test_reserve_slots, and the
# next open's number above).  Counted through readlink of /proc/self/fd/N,
# to which the readlink mitigation answers ENOENT for them, as for any
# closed number: off here.
h=$(FASTPATH_DISABLE=readlink pre "$C" hidden 8 2000)
most=1
[ $M = reserve ] && most=4
case $h in
[1-$most]" "[0-$most]) ok "8 threads x 2,000 cycles of each device: kept descriptors per pooled device ($h, at most $most)" ;;
*) fail "kept descriptors per device (at most $most)" "$h" ;;
esac
expect_eq "natively none is left" "0 0" "$("$C" hidden 2 10)"

# The descriptor table at start-up: as native in every setting (exact mode
# made its hidden descriptor there once, FDSize 4096: issue 36, defect 11).
# After a first open of the device, exact mode's table reaches the power
# of two above the soft limit, where its hidden descriptor sits (2048
# under 1024, fastpath(7)); reserve mode's stays as native.
fdsize() { "$@" sed -n 's/^FDSize:[[:space:]]*//p' /proc/self/status; }
n_fds=$(fdsize env)
expect_eq "the table at start-up as native" "$n_fds" "$(fdsize env LD_PRELOAD="$FASTPATH_SO")"
expect_eq "urandom off: the table left as native" "$n_fds" \
	"$(fdsize env LD_PRELOAD="$FASTPATH_SO" FASTPATH_DISABLE=urandom)"
LIM=$TESTBIN/prog_urandom_limit
soft=$(ulimit -Sn)
p2=256
while [ $p2 -le "$soft" ]; do p2=$((p2 * 2)); done
if [ $M = exact ] && [ "$soft" -lt "$HARD_NOFILE" ] && [ "$soft" -lt 16382 ]; then
	want=$p2
else
	want=$("$LIM" fdsize | sed -n 's/^after an open of the device: FDSize //p')
fi
expect_eq "FDSize at start and after a first open of the device (soft limit $soft)" \
	"start: FDSize $n_fds|after an open of the device: FDSize $want" \
	"$(pre "$LIM" fdsize | tr '\n' '|' | sed 's/|$//')"

# Numbering to the limit, pooled opens among the program's own: native by
# construction (defect 9: the program's opens went 1007, 1009), under the
# soft limit below the hard one (a hidden descriptor at 1024) and with
# both equal (none: real opens, the stats line says why).  Then the soft
# limit raised through each call: the hidden number it passes goes (also
# prlimit on a thread's tid, the process's limit too).
"$LIM" numbers >"$T_TMP/ln" 2>&1
pre "$LIM" numbers >"$T_TMP/lp" 2>&1
if [ "$(wc -l <"$T_TMP/ln")" -gt 1000 ] && cmp -s "$T_TMP/ln" "$T_TMP/lp"; then
	ok "soft limit $soft: opens of /dev/null and the device to EMFILE, numbers as native ($(wc -l <"$T_TMP/ln") lines)"
else
	fail "soft limit $soft: numbers to EMFILE as native" "$(diff "$T_TMP/ln" "$T_TMP/lp" | head -8)"
fi
for c in setrlimit setrlimit64 prlimit prlimit64 prlimit-tid; do
	"$LIM" raise $c >"$T_TMP/ln" 2>&1
	pre "$LIM" raise $c >"$T_TMP/lp" 2>&1
	if grep -q '^raise: skipped' "$T_TMP/ln"; then
		skip "$c raises the soft limit past the hidden number" "$(cat "$T_TMP/ln")"
	elif [ "$(wc -l <"$T_TMP/ln")" -gt 1000 ] && cmp -s "$T_TMP/ln" "$T_TMP/lp"; then
		ok "$c raises the soft limit past the hidden number: numbers to EMFILE as native"
	else
		fail "$c raises the soft limit: numbers as native" "$(diff "$T_TMP/ln" "$T_TMP/lp" | head -8)"
	fi
done
# Numbers kept from before the program lowered its limit: a change
# through one pooled open needs a copy with no number free below the
# limit, put onto a number above it; a closed one is no reserve there.
"$LIM" lowered >"$T_TMP/ln" 2>&1
pre "$LIM" lowered >"$T_TMP/lp" 2>&1
if grep -q '^lowered: skipped' "$T_TMP/ln"; then
	skip "a limit lowered below pooled numbers" "$(cat "$T_TMP/ln")"
elif grep -q 'EMFILE\|Too many' "$T_TMP/ln" && cmp -s "$T_TMP/ln" "$T_TMP/lp"; then
	ok "a limit lowered below pooled numbers: F_SETFL through one, close, open: as native"
else
	fail "a limit lowered below pooled numbers: as native" "$(diff "$T_TMP/ln" "$T_TMP/lp" | head -8)"
fi
# An open and a fork that overlap: what the child inherited shares its
# description with the parent's (prog_urandom_forkrace: a thread's opens,
# and a signal handler's fork inside an open, which on 059b61a missed the
# child's flag in 907 of 908 descriptors checked in exact mode; reserve
# mode a few in 250,000 and 1 in 87, to 58d661e: a reserve closed by an
# open while the fork copied the table, and not yet its memory).
FR=$TESTBIN/prog_urandom_forkrace
# Reserve mode still misses a few in 250,000 (docs/design.md: the child
# held the reserve the parent's open then closed and opened afresh; 3 of
# 15 runs on 12288d0, and CI's): at most 1 in 20,000 is that known race,
# said so; more is a defect.
for how in thread:4000 signal:2000; do
	r=$(pre "$FR" "${how%:*}" "${how#*:}" 2>&1)
	c=$(echo "$r" | sed -n 's/.*checked \([0-9]*\), missed \([0-9]*\), strays 0$/\1 \2/p')
	case $r in
	*", checked 0, "*) skip "$how: an open and a fork overlapping" "they never overlapped here: $r" ;;
	*", missed 0, strays 0") ok "$how: what a fork's child inherited mid-open shares the parent's description, and it holds nothing of ours ($r)" ;;
	*)
		if [ "$M" = reserve ] && [ -n "$c" ] && [ $((${c#* } * 20000)) -le "${c% *}" ]; then
			skip "$how: what a fork's child inherited mid-open shares the parent's description" \
				"the known rare race of reserve mode (docs/design.md), at most 1 in 20,000: $r"
		else
			fail "$how: what a fork's child inherited mid-open shares the parent's description" "$r"
		fi
		;;
	esac
done
# What the pool leaves for the forks under way as it closes a reserve (or
# exact mode's hidden descriptor) is for those forks only: on 4e668c5 a
# later fork's child closed the program's own unpooled descriptor of the
# device at that number (10 of 200 rounds).
r=$(pre "$FR" leftover 100 2>&1)
case $r in
*", lost 0") ok "a fork's child keeps the program's unpooled descriptors after forks raced the pool's closes ($r)" ;;
*) fail "a fork's child keeps the program's unpooled descriptors after forks raced the pool's closes" "$r" ;;
esac
expect_eq "an open in a nested fork's window: a lock goes with its close (as natively)" \
	"$("$FR" nested 2>&1)" "$(pre "$FR" nested 2>&1)"
(ulimit -n "$soft" && "$LIM" numbers) >"$T_TMP/ln" 2>&1
(ulimit -n "$soft" && FASTPATH_STATS=stderr pre "$LIM" numbers) >"$T_TMP/lp" 2>"$T_TMP/ls"
if [ "$(wc -l <"$T_TMP/ln")" -gt 1000 ] && cmp -s "$T_TMP/ln" "$T_TMP/lp"; then
	ok "soft limit = hard limit = $soft: numbers to EMFILE as native"
else
	fail "soft = hard: numbers to EMFILE as native" "$(diff "$T_TMP/ln" "$T_TMP/lp" | head -8)"
fi
if [ $M = exact ]; then
	# root with CAP_SYS_RESOURCE may place one above the hard limit too
	if grep -q 'opens real: the soft descriptor limit is the hard one' "$T_TMP/ls"; then
		ok "soft = hard: no hidden descriptor, the stats line says why"
	elif grep -q "^urandom $soft\$" "$T_TMP/lp" 2>/dev/null || ! grep -q 'opens real' "$T_TMP/ls"; then
		skip "soft = hard: no hidden descriptor" "placed above the hard limit here (CAP_SYS_RESOURCE)"
	else
		fail "soft = hard: the stats line says why opens are real" "$(cat "$T_TMP/ls")"
	fi
fi
# A second thread's getrlimit never sees another limit while the first
# opens and copies at the limit (a stretch of the process's limit did).
expect_eq "a second thread's getrlimit: the limit it set, while opens and copies run at it" \
	"another limit seen by a second thread in 0 of 200 children (0 skipped)" "$(pre "$LIM" seen 200)"
# A fork by another thread while the first open places the hidden
# descriptor: the child never holds that number unrecorded (it stayed
# open there, at or above the soft limit, in /proc/self/fd).
expect_eq "a fork while the hidden descriptor is placed: no number above the limit in the child" \
	"a number at or above the soft limit in a fork's child in 0 of 100 (0 skipped)" "$(pre "$LIM" forkseen 100)"
# A thread no C library knows of (a raw clone, x86-64) counts too: the
# kernel's count decides (on fec97aa it saw the raised limit in 21 of 50
# children), also in a threaded parent's children.
for how in raw threaded raw,threaded; do
	r=$(pre "$LIM" seen 100 $how)
	case $r in
	*"in 0 of 100 children (0 skipped)") ok "seen 100 $how: a second thread's getrlimit sees the limit it set ($r)" ;;
	*"(100 skipped)") skip "seen 100 $how: a raw clone's thread" "x86-64 only: $r" ;;
	*) fail "seen 100 $how: a second thread's getrlimit sees the limit it set" "$r" ;;
	esac
done
# Child processes on our memory or our table (clone without CLONE_THREAD;
# a nineteenth cold review): a CLONE_VM child reads and sets our limit by
# our pid (it saw the raised limit in 99 of 100 on 5965235), and a
# CLONE_FILES child's file put on the hidden number stays its file (the
# parent read EBADF there, and its next open of the device was a
# duplicate of that file).
KIN=$TESTBIN/prog_urandom_kin
for c in "vmlimit 100" "vmlimit 100 set" filesown "filesown vm"; do
	# shellcheck disable=SC2086 # the mode and its arguments
	expect_eq "a child process on our memory or table: prog_urandom_kin $c as native" \
		"$("$KIN" $c 2>&1)" "$(pre "$KIN" $c 2>&1)"
done
# A threaded parent's fork child has one thread, by the kernel's count:
# its first open of the device makes no clone (on fec97aa one each, 15 ms
# a child, native 0.3: fastpath(7)); as many clones as natively.
if [ -n "$HAVE_STRACE" ]; then
	strace -f -qq -e trace=clone,clone3 -o "$T_TMP/st.fn" "$LIM" forkopen 20 >/dev/null
	strace -f -qq -e trace=clone,clone3 -o "$T_TMP/st.ff" env LD_PRELOAD="$FASTPATH_SO" "$LIM" forkopen 20 >/dev/null
	expect_eq "a threaded parent's 20 fork children open the device: clones as natively" \
		"$(grep -c clone "$T_TMP/st.fn")" "$(grep -c clone "$T_TMP/st.ff")"
else
	skip "a threaded parent's fork children: clones as natively" "strace not installed"
fi
# Under valgrind, which ends a program at a clone that is neither a
# thread's nor vfork's ("does not support general clone"): no placing
# child, the program runs on (seen sets soft 64 under the hard limit, so
# a placing with threads is due).
# Natively first: on this session's machine valgrind 3.19 did not finish
# the program itself in most runs (30 s, no preload; 0.6 s in others),
# and a run that cannot finish natively says nothing of ours: a skip
# with the reason then, the check wherever valgrind runs it.
VG_WANT="another limit seen by a second thread in 0 of 1 children (0 skipped)"
if ! command -v valgrind >/dev/null 2>&1; then
	skip "under valgrind, a threaded program's first open" "valgrind not installed (Debian: valgrind)"
else
	# once for both modes
	[ -n "${VG_NATIVE+set}" ] ||
		VG_NATIVE=$(timeout 30 valgrind -q --trace-children=no "$LIM" seen 1 2>&1 | tail -n 3)
	if [ "$VG_NATIVE" != "$VG_WANT" ]; then
		skip "under valgrind, a threaded program's first open" \
			"valgrind does not run it natively here (in 30 s: ${VG_NATIVE:-nothing}; soft descriptor limit $(ulimit -Sn) of $(ulimit -Hn))"
	else
		expect_eq "under valgrind, a threaded program's first open: no clone valgrind cannot run" "$VG_WANT" \
			"$(LD_PRELOAD=$FASTPATH_SO timeout 300 valgrind -q --trace-children=no "$LIM" seen 1 2>&1 | tail -n 3)"
	fi
fi

# ---- entry points: native and preloaded runs log the same observations --
pre "$P" >"$T_TMP/fast" 2>&1
expect_eq "prog_urandom under fastpath passes" 0 $?
grep -v 'passed,' "$T_TMP/native" >"$T_TMP/n"
grep -v 'passed,' "$T_TMP/fast" >"$T_TMP/f"
if [ "$(wc -l <"$T_TMP/n")" -gt 60 ] && cmp -s "$T_TMP/n" "$T_TMP/f"; then
	ok "every observation identical to native ($(wc -l <"$T_TMP/n") lines)"
else
	fail "observations differ from native" "$(diff "$T_TMP/n" "$T_TMP/f" | head -20)"
fi

# ---- record locks: any close of the device drops them, kept or not ---------
# Each case names the modes it runs in: once, in the exact pass.
if [ $M = exact ]; then
# locks-rw: the lock taken through a descriptor fastpath does not pool;
# locks-null: a request without its struct (EFAULT, not a fault);
# locks-lockf: lockf(3), through the C library's own fcntl.
# locks_native CASE LIMIT MARK TEXT: prog_urandom CASE under the soft
# descriptor limit LIMIT ("-": as it is), natively and then in each mode:
# the same output, and MARK in it (the case ran to its end).
locks_native() {
	(if [ "$2" != - ]; then ulimit -Sn "$2"; fi && exec "$P" "$1") >"$T_TMP/ln" 2>&1
	for m in exact reserve; do
		(if [ "$2" != - ]; then ulimit -Sn "$2"; fi &&
			FASTPATH_URANDOM=$m pre "$P" "$1") >"$T_TMP/lf" 2>&1
		if grep -q "$3" "$T_TMP/ln" && cmp -s "$T_TMP/ln" "$T_TMP/lf"; then
			ok "$m: $1: $4"
		else
			fail "$m: $1: $4" "$(diff "$T_TMP/ln" "$T_TMP/lf" | head)"
		fi
	done
}
for w in locks locks-rw locks-null locks-lockf; do
	locks_native $w - 'after the close: none' "a close drops the process's record locks on the device, as native"
done
# cancel-lock: a thread cancelled at its first lock request through a
# pooled open (F_SETLKW, a cancellation point): the pooling that request
# ends is not left halfway (a reserve left open, inherited by an exec).
"$P" cancel-lock >"$T_TMP/ln" 2>&1
for m in exact reserve; do
	FASTPATH_URANDOM=$m pre "$P" cancel-lock >"$T_TMP/lf" 2>&1
	if grep -q 'thread cancelled: yes' "$T_TMP/ln" && cmp -s "$T_TMP/ln" "$T_TMP/lf"; then
		ok "$m: a thread cancelled at its first lock request leaves what native leaves"
	else
		fail "$m: a thread cancelled at its first lock request" "$(diff "$T_TMP/ln" "$T_TMP/lf" | head)"
	fi
done
# The cases below hold a step of fastpath's up with tests/libslow.so
# (200 ms), preloaded after fastpath and natively alike, so that another
# thread acts inside it.  slow_case MODE WANT WHAT ARGS...: the native
# output has WANT, and fastpath's in MODE is the same.
SLOW=$TESTBIN/libslow.so
slow_case() {
	m=$1 want=$2 what=$3
	shift 3
	if [ ! -f "$SLOW" ]; then
		fail "$m: $what" "no $SLOW: make check builds it"
		return
	fi
	LD_PRELOAD=$SLOW "$P" "$@" >"$T_TMP/ln" 2>&1
	FASTPATH_URANDOM=$m LD_PRELOAD="$FASTPATH_SO $SLOW" "$P" "$@" >"$T_TMP/lf" 2>&1
	if grep -q "$want" "$T_TMP/ln" && cmp -s "$T_TMP/ln" "$T_TMP/lf"; then
		ok "$m: $what, as native"
	else
		fail "$m: $what" "$(diff "$T_TMP/ln" "$T_TMP/lf" | head)"
	fi
}
# split-race: one thread's lock request through a pooled open ends the
# pooling, whose closes are held up, while the main thread takes a lock
# through a read-write open: no close of fastpath's comes after that
# lock (the request waits for the first split's closes), as natively,
# where none comes at all.  Reserve mode only: in exact mode a lock
# through a descriptor fastpath does not pool is released by what it
# closes (fastpath(7)).
slow_case reserve 'request: kept' "a lock taken while another thread's request ends the pooling stays" split-race
# fork-split: a fork whose prepare step ran before another thread's lock
# request ended the pooling, and whose system call came during that
# request's closes: the child finishes the split, so its own lock request
# returns (it spun for ever, every signal blocked, on 426bd45 in reserve
# mode), and holds no copy of what was being closed.  fork-closing: a
# fork while another thread's call makes fastpath close a descriptor of
# its own, a reserve given back for an open at the limit (reserve mode)
# or the hidden descriptor retired for a raised soft limit (exact mode;
# reserve mode shows its held number in /proc, fastpath(7)): the child
# has no copy of it (it had on 426bd45).
for m in exact reserve; do
	slow_case $m 'child: exit 0' "a fork amid another thread's split leaves the child as native" fork-split
done
slow_case reserve 'child: exit 0' "a fork amid another thread's give-back has no copy of the reserve" fork-closing emfile
slow_case exact 'child: exit 0' "a fork amid another thread's retire has no copy of the hidden descriptor" fork-closing limit
# fork-closing reopened: the give-back's close done but not yet over
# (SLOW_AFTER), its number opened again and kept as a reserve in another
# slot, then a fork: the child keeps that reserve (on f4edad6 it closed
# it, and its open of the device then closed the child's /dev/null, which
# had taken the number).
export SLOW_AFTER=1
slow_case reserve '/dev/null kept' "a fork amid a give-back whose number was kept again keeps that reserve" fork-closing reopened
unset SLOW_AFTER
# split-setfl: two opens made below the numbers another thread's lock
# request is copying as it ends the pooling (each pooled open gets its
# own description first; each copy held up): O_NONBLOCK set on one does
# not reach the other, as natively (it did on b424bb7 and before, exact
# mode: the opens were forgotten still sharing one).
for m in exact reserve; do
	slow_case $m 'on the other: no' "opens made while another thread ends the pooling share no description" split-setfl
done
# split-open: an exact-mode open's duplicate of the hidden descriptor is
# made, then held up (SLOW_DUP) while another thread's lock request ends
# the pooling and takes its lock: the open keeps what it duplicated (the
# device), and the lock stays, as natively (on 7241826 and before the
# open closed its duplicate and the lock was gone).
export SLOW_DUP=1
for m in exact reserve; do
	slow_case $m 'after the open: kept' "an open under way as another thread's lock ends the pooling closes nothing" split-open
done
unset SLOW_DUP
# first-jump: a timer's handler jumps out of the first pooled open, 50
# processes: a descriptor the open left behind has a description of its
# own, as natively (review 38: on 8d79c01 the open's copy was recorded
# after the window that held the signal, and 97 of 100 shared the hidden
# descriptor's with every later open).
for m in exact reserve; do
	expect_eq "$m: a jump out of the first open leaves nothing that shares the next open's description" \
		"shared 0 of 50" "$(FASTPATH_URANDOM=$m LD_PRELOAD=$FASTPATH_SO "$P" first-jump 50 2>&1)"
done
# split-place: one thread's open places a new hidden descriptor while
# another thread's lock request ends the pooling, 300 rounds, each in a
# process of its own: the lock stays and nothing of ours is left open, as
# natively (on 5bc2fd5 and before the lock was dropped in 5 to 30% of rounds and the
# hidden descriptor outlived the end in some).  Exact mode: reserve mode
# places none.
"$P" split-place 300 >"$T_TMP/ln" 2>&1
FASTPATH_URANDOM=exact pre "$P" split-place 300 >"$T_TMP/lf" 2>&1
if grep -q 'the lock held, 3 descriptors of the device: 300 of 300' "$T_TMP/ln" && cmp -s "$T_TMP/ln" "$T_TMP/lf"; then
	ok "exact: an open placing the hidden descriptor while another thread's lock ends the pooling: as native, 300 rounds"
else
	fail "exact: an open placing the hidden descriptor while another thread's lock ends the pooling" "$(diff "$T_TMP/ln" "$T_TMP/lf" | head)"
fi
# A lock through a descriptor fastpath does not pool ends the pooling
# before it is made, in both modes (before the first pooled open, at it):
# locks-limit: after a close kept in reserve, an open at the limit, where
# reserve mode gives its kept close back and exact mode moves the hidden
# descriptor; locks-untracked: through a read-write open's dup, then
# another through a pooled open (exact mode's copy-on-write dropped the
# first on 52c6218); locks-first: before any pooled open, then a pooled
# open's F_SETFL (its copy-on-write, on 52c6218) and close.
# Each with the soft limit at 1024 (exact mode's hidden descriptors above
# it) and at the hard one (none: every open real, the reserve's kept).
for lim in 1024 $(ulimit -Hn); do
	for w in locks-limit locks-untracked locks-first; do
		locks_native $w "$lim" ': kept' \
			"(soft limit $lim): a lock through a descriptor fastpath does not pool stays as long as natively"
	done
done
fi

# ---- fortified forms --------------------------------------------------------
# (That the compiler made the program call the _2/_chk forms is checked
# above, as a precondition.)
stats_run "$T_TMP/fs" env LD_PRELOAD="$FASTPATH_SO" "$F" >"$T_TMP/out" 2>&1
expect_eq "fortified program, fastpath" 0 $?
expect_eq "fortified opens were pooled" 12 "$(stats_get "$T_TMP/fs" ur_opens)"

# ---- a threaded parent's fork children ----------------------------------
# glibc never says one thread again in a fork's child, so each child's
# first pooled open places the hidden descriptor through a task sharing
# its table (an RCU grace period, 10 ms here): a thread glibc makes for
# itself there (timer_create's) would see a limit raised in place (a
# fifteenth cold review of a form that did).  The children work.
expect_eq "a threaded parent's 5 fork children open and read the device" "5 children" \
	"$(FASTPATH_URANDOM=exact LD_PRELOAD="$FASTPATH_SO" "$P" fork-threaded 5)"

# ---- system calls: 10,000 open/read/close cycles -------------------------
if [ -n "$HAVE_STRACE" ]; then
	strace -f -qq -e trace=open,openat,read,close,getrandom,fcntl -o "$T_TMP/st.n" "$S" cycles 10000
	strace -f -qq -e trace=open,openat,read,close,getrandom,fcntl -o "$T_TMP/st.f" \
		env LD_PRELOAD="$FASTPATH_SO" "$S" cycles 10000
	nn=$(count "$T_TMP/st.n" 'open.*"/dev/urandom"')
	nf=$(count "$T_TMP/st.f" 'open.*"/dev/urandom"')
	precond "native: strace sees the $nn device opens" [ "$nn" -ge 10000 ]
	# Bounds from both sides: an empty trace (strace or the program
	# failing) must not pass as "few calls".  The first open is real.
	[ "$nf" -ge 1 ] && [ "$nf" -le 2 ] && ok "fastpath: $nf device opens in 10,000 cycles" ||
		fail "fastpath device opens" "$nf"
	# After the program's own start-up (ld.so reads the libraries), every
	# read or getrandom is the pool's: a 64 KiB refill per 4,096 reads.
	# Source vdso: one getrandom of 32 bytes, the key of the thread's new
	# state (the vDSO's own; again when the kernel reseeds); kernel: each read.
	rf=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.f" | grep -c -E '(^| )(read|getrandom)\(')
	case $SRC in
	vdso) lo=1 hi=2 per=0 ;;
	kernel) lo=10000 hi=10004 per=1 ;;
	*) lo=1 hi=5 per=0 ;;
	esac
	[ "$rf" -ge $lo ] && [ "$rf" -le $hi ] && ok "fastpath, source $SRC: $rf reads/getrandom for 160,000 bytes" ||
		fail "fastpath reads, source $SRC" "$rf: $(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.f" | head -5)"
	tf=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.f" | wc -l)
	tf=$((tf - per * rf))
	dups=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.f" | grep -c 'F_DUPFD_CLOEXEC, 0)')
	if [ $M = exact ]; then
		# Exact: an open is one fcntl(F_DUPFD_CLOEXEC), a close is real;
		# the first is the program's own open, which the hidden
		# descriptor is placed from.
		expect_eq "exact: one F_DUPFD_CLOEXEC per open but the first" 9999 "$dups"
		[ "$tf" -ge 20000 ] && [ "$tf" -le 20016 ] &&
			ok "exact: $tf traced calls after the first open (dup and close per cycle)" ||
			fail "exact traced calls" "$tf"
	else
		[ "$tf" -ge 1 ] && [ "$tf" -le 12 ] && ok "fastpath: $tf traced calls in total after the first open" ||
			fail "fastpath traced calls" "$tf"
	fi
	# Without O_CLOEXEC: exact, an F_DUPFD a cycle; reserve, nothing (the
	# reserve keeps the state its last close left it in).
	strace -f -qq -e trace=open,openat,read,close,fcntl,dup -o "$T_TMP/st.c" \
		env LD_PRELOAD="$FASTPATH_SO" "$S" cycles 1000 noclo
	expect_eq "noclo: device opens" 1 "$(count "$T_TMP/st.c" 'open.*"/dev/urandom"')"
	c=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.c" | grep -c -E '^[0-9]+ +(read)\(')
	[ "$c" -le $((3 + per * 1000)) ] && ok "noclo: $c reads in 1,000 cycles (source $SRC)" ||
		fail "noclo reads" "$c"
	fc=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.c" | grep -c -E '^[0-9]+ +fcntl\(')
	if [ $M = exact ]; then
		expect_eq "noclo, exact: one dup (F_DUPFD from 0) a cycle but the first" 999 \
			"$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.c" | grep -c -E '^[0-9]+ +dup\([0-9]+\)')"
	else
		[ "$fc" -le 3 ] && ok "noclo, reserve: $fc fcntl in 1,000 cycles (none per cycle)" ||
			fail "noclo, reserve fcntl" "$fc"
	fi
fi

# ---- the stats line ----------------------------------------------------
stats_field urandom "[0-9]+ opens, [0-9]+ reads, [0-9]+ getrandom \(off\), [0-9]+ syscalls, [0-9]+ refills, [0-9]+ slice fills, source $SRC, mode $M"
stats_field urandom "[0-9]+ opens, [0-9]+ reads, [0-9]+ getrandom, [0-9]+ syscalls, [0-9]+ refills, [0-9]+ slice fills, source $SRC, mode $M" \
	FASTPATH_GETRANDOM=1
stats_run "$T_TMP/sl" env LD_PRELOAD="$FASTPATH_SO" "$S" cycles 10000
expect_eq "stats line counts opens, reads, getrandom" "10000 10000 0" \
	"$(stats_get "$T_TMP/sl" ur_opens) $(stats_get "$T_TMP/sl" ur_reads) $(stats_get "$T_TMP/sl" ur_getrandom)"
check "stats line says getrandom is off" grep -q ' 0 getrandom (off), ' "$T_TMP/sl"

# ---- forks, threads, signals -----------------------------------------------
check "1,000 forks: no block shared by parent and children" pre "$S" forks 1000
check "8 threads x 100,000 reads: no repeated block" pre "$S" threads 8 100000
check "1,000 raw clones (no atfork handlers): no block shared" pre "$S" clones 1000
check "8 threads x 50,000 open/read/close cycles at once: no repeated block" \
	pre "$S" tcycles 8 50000
check "200 readers cancelled at random moments (often in a refill): no reader stuck" \
	pre "$S" cancel 200
# A cancel no preload sees (libc's own handle, as ctypes and JNA call it):
# a pooled read finds it all the same (it asks the C library every time).
"$S" cancel_handle 1 >/dev/null 2>&1
if [ $? -eq 77 ]; then
	skip "cancellation through libc's own handle" "no libc.so.6 or libpthread.so.0 handle to dlsym here (not glibc)"
else
	check "50 readers cancelled through libc's own handle: each read acts on it" \
		pre "$S" cancel_handle 50
fi
# The timeouts bound a hang only (forklock 300: under a second here; signal:
# SECONDS and until 101 handler reads, at most 600 s more, then a failure).
check "fork while another thread holds the pool lock" timeout 120 env LD_PRELOAD="$FASTPATH_SO" "$S" forklock 300
check "signal handler reads while the main loop reads" timeout 900 env LD_PRELOAD="$FASTPATH_SO" "$S" signal 2
# No thread waits for another, and nothing a jump or a cancellation leaves
# behind stops a later call (docs/design.md): each a hang or a stall before
# (issue 36, defects 1-3); the timeouts bound a hang only.
for c in "longjmp 40" cancel system; do
	# shellcheck disable=SC2086 # the mode and its count
	check "no stall: prog_urandom_stall $c" timeout 300 env LD_PRELOAD="$FASTPATH_SO" "$STALL" $c
done
check "no stall: prog_urandom_stall cancel, F_DUPFD_CLOEXEC refused" \
	timeout 60 env LD_PRELOAD="$FASTPATH_SO" FASTPATH_TEST_NO_DUPFD_CLOEXEC=1 "$STALL" cancel
# A jump out of a reserve's move (between its take and its adoption, or a
# close's keep and its slot) held the reserve for good: one number fewer
# at the limit, and, not close-on-exec, passed to a spawned program (1 of
# 29 numbers in every run of 20,000 jumps before); a handler's own open
# and close inside a move, returning to it, ends that move.
for m in reserve exact; do
	check "$m mode: 20,000 jumps out of opens and closes, nothing held, nothing passed on" \
		timeout 300 env LD_PRELOAD="$FASTPATH_SO" FASTPATH_URANDOM=$m "$STALL" movejump 20000
	# A handler's open and close inside a move, returning to it, leave
	# that move be (a cold review's reproducer, lost at once on 5a0bc62).
	n=2000000
	[ $m = exact ] && n=200000  # each a system call: 10x the time
	check "$m mode: a handler's opens and closes inside $n others lose nothing" \
		timeout 300 env LD_PRELOAD="$FASTPATH_SO" FASTPATH_URANDOM=$m "$STALL" handlers $n
done
# An exec's copy step claims each number first (defect 5: it replaced a
# /dev/null another thread had just opened there, 34-49 times in 100,000).
# Reserve mode's guard leaves an adoption's flag the program's (on 52c6218
# a plain open was left close-on-exec about 5,000 times in 100,000).
for m in exact reserve; do
	check "$m mode: 100,000 failed execs: another thread's /dev/null never the device, its plain opens never left close-on-exec" \
		timeout 300 env LD_PRELOAD="$FASTPATH_SO" FASTPATH_URANDOM=$m "$STALL" execrace 100000
done
# The process's first exec, before the device was ever opened, while a
# thread opens and closes it: the new program never holds that number (a
# cold review's reproducer: 27 of 60 on 9364b09, where reserve mode's
# guard did not run before the device's first open).  A run where the
# thread had not closed it yet says "unknown".  (Exact mode keeps nothing
# a close leaves, and its first open is too slow to close in time here.)
r=$(i=0; while [ $i -lt 40 ]; do FASTPATH_URANDOM=reserve pre "$STALL" firstexec; i=$((i + 1)); done 2>&1 |
	sed 's/^leak .*/leak/' | sort | uniq -c | tr -s ' \n' '  ')
case $r in
*leak* | *prog_urandom_stall*) fail "reserve mode: the first exec passes on a number another thread closed before it" "$r" ;;
*" ok "*) ok "reserve mode: the first exec never passes on a number another thread closed before it ($r)" ;;
*) skip "reserve mode: the first exec and another thread's close" "the close never came before the exec here: $r" ;;
esac
# A vfork child's exec while a thread of the parent opens the device (which
# drops the reserve the vfork shared): the new program never holds the
# number the program closed before the vfork (a cold review's reproducer,
# ordered by pipes: 3 of 3 on a1542a5, where the child's guard read the
# parent's emptied slot).
for m in exact reserve; do
	expect_eq "$m mode: a vfork child's exec beside a thread's open: the number closed before stays closed" \
		closed "$(FASTPATH_URANDOM=$m pre "$STALL" vforkrace 2>&1)"
done
# Two threads spawning at once: neither's program holds the number of a
# plain open closed before (a fourth cold review's reproducer: 8 in 1,000
# on 6bf0d08, where the first unguard put the flag back under the other's
# spawn; the guard now gives a plain reserve back instead).
for m in exact reserve; do
	check "$m mode: 2 threads x 2,000 spawns at once: none holds the number closed before" \
		env FASTPATH_URANDOM=$m LD_PRELOAD="$FASTPATH_SO" "$STALL" twospawn 2000
done
# The same races with a jump out of the other thread's cycles, a handler's
# cycle inside them and a record lock under way (a generator's gap: neither
# fd_fuzz nor execrace put a jump or a lock beside another thread's exec).
# Each jump out of an open leaks what natively it leaks: room for them.
# With libeatmydata in the chain, the handler's open is its open too:
# Debian's 130 calls eatmydata_init, so dlsym, from open
# at run time, in the handler as well (gdb: 4 of 300 cycles), and a jump
# out of dlsym strands the loader's lock: the next hangs, with libeatmydata
# alone too (2 runs of 3 here; with ours 1 of 8; CI on ec0f550).
for m in exact reserve; do
	case $FASTPATH_SO in
	*libeatmydata*)
		skip "$m mode: 20,000 execs and spawns beside jumps and a record lock" \
			"libeatmydata in the chain ($FASTPATH_SO): its open is the handler's too, and is not async-signal-safe (dlsym)"
		continue
		;;
	esac
	check "$m mode: 20,000 execs and spawns beside jumps and a record lock: no device descriptor passed on, nothing replaced or stranded" \
		sh -c 'ulimit -Sn 4096 2>/dev/null; exec "$@"' sh \
		timeout 300 env LD_PRELOAD="$FASTPATH_SO" FASTPATH_URANDOM=$m "$STALL" execjump 20000
done
# One thread, the process's only one (fastpath's one-thread paths: no locked
# instruction), and a handler that makes cycles of its own, landing inside
# ours: every open and read counted exactly, no block served twice (the
# program bounds its own run: SECS and SIG_LATE).
if stats_run "$T_TMP/sc" env LD_PRELOAD="$FASTPATH_SO" "$S" sigcycles 2 >"$T_TMP/sc.out" 2>&1; then
	ok "one thread, handler cycles inside the main loop's: no repeated block"
else
	fail "one thread, handler cycles inside the main loop's" "$(tail -n 5 "$T_TMP/sc.out")"
fi
expect_eq "one thread, handler cycles: the stats line counts every open and read" \
	"$(sed -n 's/^counts: opens \([0-9]*\) reads \([0-9]*\) .*/\1 \2/p' "$T_TMP/sc.out")" \
	"$(stats_get "$T_TMP/sc" ur_opens) $(stats_get "$T_TMP/sc" ur_reads)"

# ---- real programs -----------------------------------------------------------
n=$(pre dd if=/dev/urandom bs=16 count=1000 2>/dev/null | wc -c)
expect_eq "dd bs=16 count=1000 through the pool" 16000 "$n"
stats_run "$T_TMP/dd" env LD_PRELOAD="$FASTPATH_SO" dd if=/dev/urandom of=/dev/null bs=16 count=1000 2>/dev/null
expect_eq "dd's reads (on fd 0, after its dup2) were served: opens, reads" "1 1000" \
	"$(stats_get "$T_TMP/dd" ur_opens) $(stats_get "$T_TMP/dd" ur_reads)"
if [ -n "$PYTHON" ]; then
	out=$(pre "$PYTHON" -c '
import os
s = set()
for i in range(2000):
    fd = os.open("/dev/urandom", os.O_RDONLY)
    s.add(os.read(fd, 16))
    os.close(fd)
with open("/dev/urandom", "rb") as f:
    s.add(f.read(16))
print(len(s))' 2>&1)
	expect_eq "python: 2001 distinct tokens" 2001 "$out"
else
	skip "python tokens" "python3 not installed"
fi

# ---- a vfork child's closes (Python's subprocess) ------------------------
# Python 3.10+ starts a child with vfork and closes every descriptor with
# close_range in it: the child's table, not the parent's records.  Each
# round opens, reads and closes the device, then runs a child.  Natively
# nothing stays open; in exact mode at most the hidden descriptor, closed
# to the program; in reserve mode the kept number, closed too.
if command -v python3 >/dev/null 2>&1; then
	vfork_py='import os, subprocess
for i in range(6):
    fd = os.open("/dev/urandom", os.O_RDONLY | os.O_CLOEXEC)
    os.read(fd, 16)
    os.close(fd)
    subprocess.run(["true"])
fds = [int(x) for x in os.listdir("/proc/self/fd")]
seen = []
for fd in sorted(fds):
    try:
        os.fstat(fd)
        seen.append(fd)
    except OSError:
        pass
print(seen)'
	native=$(python3 -c "$vfork_py" 2>&1)
	got=$(LD_PRELOAD=$FASTPATH_SO python3 -c "$vfork_py" 2>&1)
	expect_eq "python subprocess (vfork, close_range) x6: what the program sees is native's" \
		"$native" "$got"
	# Its exec fails: the vfork child's _exit, on its parent's counters,
	# writes no summary line (only the parent's counts its open).
	vfork_stats='import os, subprocess
fd = os.open("/dev/urandom", os.O_RDONLY)
os.read(fd, 16)
os.close(fd)
try:
    subprocess.run(["/nonexistent/x"])
except OSError:
    pass'
	n=$(FASTPATH_STATS=1 LD_PRELOAD=$FASTPATH_SO python3 -c "$vfork_stats" 2>&1 | grep -c 'urandom 1 opens')
	expect_eq "python: a vfork child whose exec fails writes no summary line of its parent's counts" 1 "$n"
else
	skip "python subprocess (vfork)" "python3 not installed"
fi

# ---- a vfork child's table is its own ----------------------------------
# prog_vfork: a vfork child closes, dups onto 0, opens, unshares or clears
# close-on-exec; its parent must see what it sees natively, in each mode.
# Before vfork.c the child's calls rewrote the parent's records: a read
# of its own stdin returned the device's bytes, a closed open came back.
[ -x "$TESTBIN/prog_vfork" ] || fail "prog_vfork is built" "$TESTBIN/prog_vfork"
for c in close setfl dup dupfd open unshare dup2exec baddup2exec rangeexec limit dup2on nest nestdup2 nestuse nestlimit raise nestraise raisefork clonevmraise forkin depth3 clonefiles openfork forkonly clonedup2 clonethread clonestack cloneexec cloneopen taken setfd full clonerace; do
	# One output file for both: the listing names it.
	"$TESTBIN/prog_vfork" "$c" </dev/null >"$T_TMP/vf.out" 2>&1
	native=$(cat -v "$T_TMP/vf.out")
	for m in $M; do
		FASTPATH_URANDOM=$m LD_PRELOAD=$FASTPATH_SO "$TESTBIN/prog_vfork" "$c" \
			</dev/null >"$T_TMP/vf.out" 2>&1
		expect_eq "vfork child's $c ($m): what its parent sees is native's" \
			"$native" "$(cat -v "$T_TMP/vf.out")"
	done
done
# After a vfork the pool keeps working: reserve mode's later cycles make
# no system call (an odd fork count once marked every later open shared,
# one real open and close per cycle: about 2000 here).
if [ "$M" = reserve ]; then
	FASTPATH_STATS=1 LD_PRELOAD=$FASTPATH_SO "$TESTBIN/prog_vfork" cycles >/dev/null 2>"$T_TMP/vf.err"
	sys=$(sed -n 's/.*urandom 2000 opens, .* \([0-9]*\) syscalls,.*/\1/p' "$T_TMP/vf.err")
	# Source kernel: each of the 2000 reads is the kernel's, on top.
	[ -n "$sys" ] && [ "$SRC" = kernel ] && sys=$((sys - 2000))
	if [ -n "$sys" ] && [ "$sys" -ge 0 ] && [ "$sys" -le 20 ]; then
		ok "reserve: 2000 cycles around a vfork, $sys system calls of the pool's own"
	else
		fail "reserve: 2000 cycles around a vfork, at most 20 system calls" "$(cat "$T_TMP/vf.err")"
	fi
fi
if command -v python3 >/dev/null 2>&1; then
	# os.set_inheritable is ioctl(FIONCLEX): a kept reserve must not
	# come back from an O_CLOEXEC open without the flag.
	ioc_py='import os
f = os.open("/dev/urandom", os.O_RDONLY | os.O_CLOEXEC)
os.set_inheritable(f, True)
os.close(f)
g = os.open("/dev/urandom", os.O_RDONLY | os.O_CLOEXEC)
print(os.get_inheritable(g))
os.set_inheritable(g, False)
os.close(g)
g = os.open("/dev/urandom", os.O_RDONLY)
print(os.get_inheritable(g))'
	native=$(python3 -c "$ioc_py" 2>&1)
	for m in $M; do
		got=$(FASTPATH_URANDOM=$m LD_PRELOAD=$FASTPATH_SO python3 -c "$ioc_py" 2>&1)
		expect_eq "python os.set_inheritable (FIONCLEX, FIOCLEX) then a new open ($m): native's" \
			"$native" "$got"
	done
else
	skip "python os.set_inheritable" "python3 not installed"
fi

# ---- issue 25: what fastpath holds looks closed; descriptions are own ----
# prog_urandom_seen: two live opens' flags and locks, an epoll entry after
# close, copies past our table, _Fork, SCM_RIGHTS, every call on the
# numbers we may hold, spawn dup2 actions, O_LARGEFILE.
pre "$W" >"$T_TMP/wf" 2>&1
if [ "$(wc -l <"$T_TMP/wn")" -gt 100 ] && cmp -s "$T_TMP/wn" "$T_TMP/wf"; then
	ok "descriptions, copies, held numbers, spawn actions: identical to native ($(wc -l <"$T_TMP/wn") lines)"
else
	fail "prog_urandom_seen differs from native" "$(diff "$T_TMP/wn" "$T_TMP/wf" | head -20)"
fi
# A program built against glibc < 2.33 calls __fxstat64@GLIBC_2.2.5 for
# fstat (node here): that versioned reference must bind to our wrapper.
NODE=$(command -v node 2>/dev/null)
if [ -z "$NODE" ]; then
	skip "node binds __fxstat64 to fastpath.so" "node not installed"
elif ! nm -D "$NODE" 2>/dev/null | grep -q ' U __fxstat64@'; then
	skip "node binds __fxstat64 to fastpath.so" "this node does not import __fxstat64"
else
	LD_DEBUG=bindings LD_PRELOAD=$FASTPATH_SO "$NODE" -e 0 >"$T_TMP/nb" 2>&1
	check "node's __fxstat64@GLIBC_* binds to fastpath.so" \
		grep -q "binding file [^ ]*node \[0\] to [^ ]*fastpath.so \[0\]: normal symbol .__fxstat64'" "$T_TMP/nb"
fi
# /proc/self/fd: the one documented difference, in each setting: the
# hidden descriptors (exact, at the soft limit and the next number) or the
# closed numbers kept (reserve: the two lowest free, 3 and 4).
# prog_urandom_seen sets its soft limit to 8192 (4096 under a hard limit
# of 8192 or less); with none below the hard one, no hidden descriptor.
w_soft=$soft
[ "$HARD_NOFILE" -ge 4096 ] && w_soft=4096
[ "$HARD_NOFILE" -gt 8192 ] && w_soft=8192
want="$w_soft $((w_soft + 1))"
[ "$w_soft" -ge "$HARD_NOFILE" ] && want=  # CAP_SYS_RESOURCE aside
[ $M = reserve ] && want="3 4"
for G in 0 1; do
	FASTPATH_GETRANDOM=$G pre "$W" procfd >"$T_TMP/pf" 2>&1
	extra=$(sort "$T_TMP/pn" "$T_TMP/pn" "$T_TMP/pf" | uniq -u | sed 's/^procfd: //' | sort -n | tr '\n' ' ')
	expect_eq "/proc/self/fd, FASTPATH_GETRANDOM=$G: only the documented extra numbers" "$want" "${extra% }"
done
# bash takes an open close-on-exec number for one of its own.
if command -v bash >/dev/null 2>&1; then
	for r in native fast; do
		rm -f "$T_TMP/x"
		if [ $r = native ]; then
			(cd "$T_TMP" && bash -c "$BASH_CASE") 2>"$T_TMP/b.err"
		else
			(cd "$T_TMP" && pre bash -c "$BASH_CASE") 2>"$T_TMP/b.err"
		fi
		echo "rc=$? x=$(cat "$T_TMP/x" 2>/dev/null) err=$(cat "$T_TMP/b.err")" >"$T_TMP/b.$r"
	done
	expect_eq "bash: exec 5</dev/urandom; exec 5<&-; exec 4080>x; echo hi >&4080: as native" \
		"$(cat "$T_TMP/b.native")" "$(cat "$T_TMP/b.fast")"
else
	skip "bash and the hidden number" "bash not installed"
fi
# A change of root or of mounts: the next open goes through the path.
if [ "$(id -u)" -eq 0 ]; then
	for r in native fast; do
		rm -rf "$T_TMP/jail"
		mkdir -p "$T_TMP/jail/dev"
		printf jail >"$T_TMP/jail/dev/urandom"
		if [ $r = native ]; then "$W" roots "$T_TMP/jail"; else pre "$W" roots "$T_TMP/jail"; fi \
			>"$T_TMP/r.$r" 2>&1
		echo "rc=$?" >>"$T_TMP/r.$r"
	done
	if grep -q '^rc=77$' "$T_TMP/r.native"; then
		skip "chroot, mount, move_mount" "not permitted here: $(head -1 "$T_TMP/r.native")"
	elif [ "$(wc -l <"$T_TMP/r.native")" -gt 10 ] && cmp -s "$T_TMP/r.native" "$T_TMP/r.fast"; then
		ok "chroot, a tmpfs on /dev, move_mount onto /proc: the device and readlink as native"
	else
		fail "after a change of root or mounts" "$(diff "$T_TMP/r.native" "$T_TMP/r.fast" | head)"
	fi
else
	skip "chroot, mount, move_mount" "needs root"
fi
# A change of credentials or sandbox after the pool is in use: the next
# open goes through the path again, and is refused as natively
# (prog_sandbox; roots.c).  Each kind where this machine permits it.
# thread-KIND: one thread gives up its access (each of these is the
# calling thread's alone but setresuid's) while another, which still has
# it, fills the pool again; strict and allowlist: a seccomp filter after
# which any call of ours would kill the program (review 54: after them,
# the hooks' calls did); chroot and unshare-chroot, a root without dev/.
# Each holds two pooled opens across the change, then makes one
# non-blocking: the other keeps its flags (fd_fuzz's drops: the
# copy-on-write, a fresh open made after the change, was refused, and the
# change reached both), and closes the other, which is not handed out
# again (reserve mode kept it: review 56).  race-setuid: 200 processes
# whose second thread opens while the first calls setuid (review 56: the
# pool's access reached it until setuid returned).  first-KIND: the
# change before the pool's first use (review 57: only that use was held
# off, and another thread then filled the pool for the one that gave up
# its access; an allow-list filter then killed the pool's calls);
# first-clone-chroot, a thread made by clone() without CLONE_FS, whose
# chroot is its own (review 58).  Every
# change is sealed before its call (roots.c).
for k in setuid seteuid setreuid setresuid setfsuid syscall-setresuid capset \
	setgid setegid setregid setresgid setfsgid setgroups prctl-seccomp syscall-seccomp landlock \
	syscall-setfsuid thread-setfsuid thread-syscall-setresuid thread-capset thread-prctl-seccomp \
	thread-syscall-seccomp thread-landlock thread-setresuid strict allowlist chroot unshare-chroot \
	thread-unshare-chroot race-setuid first-allowlist first-thread-setfsuid \
	first-thread-syscall-setresuid first-thread-capset first-thread-prctl-seccomp \
	first-thread-syscall-seccomp first-thread-landlock first-thread-unshare-chroot first-clone-chroot; do
	"$TESTBIN/prog_sandbox" $k "$T_TMP" >"$T_TMP/sb.native" 2>&1
	echo "rc=$?" >>"$T_TMP/sb.native"
	pre "$TESTBIN/prog_sandbox" $k "$T_TMP" >"$T_TMP/sb.fast" 2>&1
	echo "rc=$?" >>"$T_TMP/sb.fast"
	case $k in
	strict | allowlist) want="^$k: alive in the sandbox" what="alive in the sandbox" ;;
	thread-* | first-thread-* | first-clone-*) want="^$k: worker after: open -1 E" what="the thread's next open refused" ;;
	first-allowlist) want="^$k: alive after 3 opens" what="alive, the pool never started" ;;
	race-setuid) want="^$k: 0 of 200 runs" what="no other thread's open after it, no flag shared" ;;
	*) want="^$k: after: open -1 E" what="the next open refused" ;;
	esac
	when="after the pool is in use"
	case $k in first-*) when="before the pool's first use" ;; esac
	if grep -q '^rc=77$' "$T_TMP/sb.native"; then
		skip "$k $when" "$(head -n 1 "$T_TMP/sb.native")"
	elif grep -q "$want" "$T_TMP/sb.native" &&
		case $k in race-setuid | first-*) ;; *) grep -q "^$k: before again: open ok" "$T_TMP/sb.native" ;; esac &&
		cmp -s "$T_TMP/sb.native" "$T_TMP/sb.fast"; then
		ok "$k $when: $what, as native ($(grep -c . "$T_TMP/sb.native") lines)"
	else
		fail "$k $when: $what, as native" \
			"$(diff "$T_TMP/sb.native" "$T_TMP/sb.fast" | head)"
	fi
done
done
T_TAG=
unset FASTPATH_URANDOM

# ---- exec and spawn: a closed descriptor never reaches the new program -----
# Reserve mode keeps a plain open's descriptor without FD_CLOEXEC; every
# exported way to start a program must mark it first.
E=$TESTBIN/prog_urandom_exec
for via in execve execv execvp execvpe execl execlp execle fexecve execveat \
	posix_spawn posix_spawnp system popen; do
	precond "native, $via: nothing inherited" [ "$("$E" "$via" "$E")" = "inherited 0" ]
	expect_eq "reserve, $via: the device is not open in the new program" "inherited 0" \
		"$(pre env FASTPATH_URANDOM=reserve "$E" "$via" "$E" 2>&1)"
done
expect_eq "exact, execve: nothing inherited" "inherited 0" "$(pre "$E" execve "$E" 2>&1)"
# The documented hole: a raw execve system call passes no wrapper.
expect_eq "reserve, raw execve system call: the reserve leaks (documented hole)" "inherited 1" \
	"$(pre env FASTPATH_URANDOM=reserve "$E" raw "$E" 2>&1)"
expect_eq "exact, raw execve system call: nothing inherited" "inherited 0" "$(pre "$E" raw "$E" 2>&1)"
"$E" failed "$E" >"$T_TMP/xn" 2>&1
precond "native: failed exec, vfork child" [ "$(wc -l <"$T_TMP/xn")" -eq 3 ]
for M in exact reserve; do
	pre env FASTPATH_URANDOM=$M "$E" failed "$E" >"$T_TMP/xf" 2>&1
	if cmp -s "$T_TMP/xn" "$T_TMP/xf"; then
		ok "$M: a failed exec (and a vfork child's) leaves FD_CLOEXEC and the guard as native"
	else
		fail "$M: failed exec" "$(diff "$T_TMP/xn" "$T_TMP/xf")"
	fi
done

# ---- a kernel without F_DUPFD_CLOEXEC (forced) ---------------------------------
# illumos before 2013-2015 refuses it with EINVAL (urandom_cloexec.c); the
# test aid FASTPATH_TEST_NO_DUPFD_CLOEXEC=1 makes this kernel's run take the
# same fallback: F_DUPFD then F_SETFD, with no fork or exec in between.
T_TAG="no F_DUPFD_CLOEXEC"
env FASTPATH_TEST_NO_DUPFD_CLOEXEC=1 LD_PRELOAD="$FASTPATH_SO" "$P" >"$T_TMP/ncf" 2>&1
expect_eq "prog_urandom passes" 0 $?
grep -v 'passed,' "$T_TMP/ncf" >"$T_TMP/ncf2"
if [ "$(wc -l <"$T_TMP/n")" -gt 60 ] && cmp -s "$T_TMP/n" "$T_TMP/ncf2"; then
	ok "every observation identical to native, FD_CLOEXEC included ($(wc -l <"$T_TMP/n") lines)"
else
	fail "observations differ from native" "$(diff "$T_TMP/n" "$T_TMP/ncf2" | head -20)"
fi
stats_run "$T_TMP/ncs" env FASTPATH_TEST_NO_DUPFD_CLOEXEC=1 LD_PRELOAD="$FASTPATH_SO" "$S" cycles 1000
expect_eq "open pooling still works: 1,000 opens and reads served" "1000 1000" \
	"$(stats_get "$T_TMP/ncs" ur_opens) $(stats_get "$T_TMP/ncs" ur_reads)"
check "the stats line names the fallback" grep -q ', mode exact, cloexec dups F_DUPFD+F_SETFD;' "$T_TMP/ncs"
stats_run "$T_TMP/ncs0" env LD_PRELOAD="$FASTPATH_SO" "$S" cycles 10
check "(and says nothing of it where F_DUPFD_CLOEXEC works)" \
	sh -c "grep -q ', mode exact;' '$T_TMP/ncs0' && ! grep -q 'cloexec dups' '$T_TMP/ncs0'"
if [ -n "$HAVE_STRACE" ]; then
	strace -f -qq -e trace=openat,fcntl -o "$T_TMP/st.nc" \
		env FASTPATH_TEST_NO_DUPFD_CLOEXEC=1 LD_PRELOAD="$FASTPATH_SO" "$S" cycles 1000
	a=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.nc" | grep -c 'F_DUPFD, 0)')
	b=$(sed -n '\|/dev/urandom|,$p' "$T_TMP/st.nc" | grep -c 'F_SETFD, FD_CLOEXEC)')
	c=$(grep -c 'F_DUPFD_CLOEXEC' "$T_TMP/st.nc")
	o=$(grep -c 'open.*"/dev/urandom"' "$T_TMP/st.nc")
	if [ "$a" -eq 999 ] && [ "$b" -ge 999 ] && [ "$c" -eq 0 ] && [ "$o" -ge 1 ] && [ "$o" -le 2 ]; then
		ok "strace: an F_DUPFD and an F_SETFD(FD_CLOEXEC) per open but the first, no F_DUPFD_CLOEXEC, $o device opens"
	else
		fail "strace of the fallback" "F_DUPFD $a, F_SETFD $b, F_DUPFD_CLOEXEC $c, opens $o"
	fi
else
	skip "strace of the fallback" "strace not installed (Debian package strace)"
fi
# 4 threads cycle O_CLOEXEC opens while the main one forks and execs 200
# times: a fork or exec between the two calls would hand a descriptor on.
expect_eq "fork+exec during two-call duplicates: nothing inherited" "inherited 0" \
	"$(env FASTPATH_TEST_NO_DUPFD_CLOEXEC=1 LD_PRELOAD="$FASTPATH_SO" "$E" race 200 "$E" 2>&1)"
T_TAG=

if [ -n "$HAVE_STRACE" ]; then
	# /dev/random: pooled where the kernel made it the urandom generator,
	# Linux 5.6, which also brought getrandom's GRND_INSECURE (4).  The
	# expectation comes from probing that, not from a release number.
	# random_opens [PREFIX...]: device opens in 1000 /dev/random cycles
	random_opens() {
		strace -f -qq -e trace=openat,read -o "$T_TMP/st.r" \
			"$@" env LD_PRELOAD="$FASTPATH_SO" "$S" cycles 1000 random &&
			count "$T_TMP/st.r" 'open.*"/dev/random"'
	}
	if [ -z "$PYTHON" ]; then
		skip "/dev/random on this kernel" "python3 not installed (the GRND_INSECURE probe)"
	elif "$PYTHON" -c 'import os; os.getrandom(1, 4)' 2>/dev/null; then
		expect_eq "/dev/random pooled (this kernel has GRND_INSECURE: Linux >= 5.6)" 1 "$(random_opens)"
	else
		expect_eq "/dev/random not pooled (no GRND_INSECURE: Linux < 5.6)" 1000 "$(random_opens)"
	fi
	# The other branch, whatever this kernel is: the UNAME26 personality
	# makes uname report 2.6.x, and the documented rule (uname, >= 5.6)
	# must then pass /dev/random through.
	is26() { setarch "$(uname -m)" --uname-2.6 uname -r | grep '^2\.6\.'; }
	if ! command -v setarch >/dev/null 2>&1; then
		skip "/dev/random on an old kernel" "setarch not installed (Debian: util-linux)"
	elif precond "setarch --uname-2.6 makes uname report 2.6" is26; then
		expect_eq "/dev/random not pooled when uname reports 2.6" 1000 \
			"$(random_opens setarch "$(uname -m)" --uname-2.6)"
	fi
	# getrandom pooling: off by default, on with FASTPATH_GETRANDOM=1
	# and with interpose --getrandom.
	strace -f -qq -e trace=getrandom -o "$T_TMP/st.g0" \
		env LD_PRELOAD="$FASTPATH_SO" "$S" cycles 1000 getrandom
	g0=$(count "$T_TMP/st.g0" 'getrandom(')
	[ "$g0" -ge 1000 ] && ok "getrandom not pooled by default ($g0 calls)" || fail "getrandom default" "$g0"
	strace -f -qq -e trace=getrandom -o "$T_TMP/st.g1" \
		env LD_PRELOAD="$FASTPATH_SO" FASTPATH_GETRANDOM=1 "$S" cycles 10000 getrandom
	g1=$(count "$T_TMP/st.g1" 'getrandom(')
	# Less the process's own start-up calls, none of the program's (a
	# sanitizer's runtime seeds itself so).
	strace -f -qq -e trace=getrandom -o "$T_TMP/st.gb" \
		env LD_PRELOAD="$FASTPATH_SO" FASTPATH_GETRANDOM=1 "$S" cycles 0 getrandom
	g1=$((g1 - $(count "$T_TMP/st.gb" 'getrandom(')))
	case $SRC in
	vdso) lo=1 hi=2 ;;
	kernel) lo=10000 hi=10004 ;;
	*) lo=1 hi=6 ;;
	esac
	[ "$g1" -ge $lo ] && [ "$g1" -le $hi ] && ok "FASTPATH_GETRANDOM=1, source $SRC: $g1 getrandom calls for 10,000 (past start-up)" ||
		fail "getrandom pooled, source $SRC" "$g1"
	# --quiet: interpose's own look at the program (od, awk: mawk seeds
	# itself with getrandom) is no call of the program's.
	strace -f -qq -e trace=getrandom -o "$T_TMP/st.g2" "$INTERPOSE" --quiet --getrandom "$S" cycles 10000 getrandom
	g2=$(count "$T_TMP/st.g2" 'getrandom(')
	[ "$g2" -ge "$lo" ] && [ "$g2" -le $((hi + 6)) ] && ok "interpose --getrandom: $g2 getrandom calls" || fail "interpose --getrandom" "$g2"
	strace -f -qq -e trace=openat -o "$T_TMP/st.d" \
		env LD_PRELOAD="$FASTPATH_SO" FASTPATH_DISABLE=urandom "$S" cycles 1000
	expect_eq "FASTPATH_DISABLE=urandom: every open real" 1000 "$(count "$T_TMP/st.d" 'open.*"/dev/urandom"')"
else
	skip "system-call counts" "strace not installed"
fi
precond "native: 100 forks (the test's own sanity)" "$S" forks 100
precond "native: 100 raw clones (the test's own sanity)" "$S" clones 100
precond "native: the cancel test's own sanity" "$S" cancel 50

# ---- the source of the bytes (issue 20) ---------------------------------------
# vdso where the vDSO has getrandom (Linux 6.11 on), kernel on 5.18 to
# 6.10, reservoir before 5.18 (the kernel cannot tell VM clones apart
# either), on illumos, or when asked.  Each forced here, whatever UR_SOURCE
# says: the vDSO absent (the test aid FASTPATH_TEST_NO_VDSO), an old kernel
# (setarch --uname-2.6), and asked (FASTPATH_URANDOM_SOURCE, interpose).
T_TAG=source
# From here on each run says its source itself.
unset FASTPATH_TEST_NO_VDSO FASTPATH_URANDOM_SOURCE
src_of() {
	stats_run "$T_TMP/so" "$@" sh -c : 2>"$T_TMP/so.err"
	sed -n 's/.*, source \([a-z]*\), mode.*/\1/p' "$T_TMP/so"
}
rel=$(uname -r | sed -n 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
# shellcheck disable=SC2086 # two numbers
set -- $rel
want=reservoir
[ "${1:-0}" -gt 5 ] || { [ "${1:-0}" -eq 5 ] && [ "${2:-0}" -ge 18 ]; } && want=kernel
if [ "${1:-0}" -gt 6 ] || { [ "${1:-0}" -eq 6 ] && [ "${2:-0}" -ge 11 ]; }; then
	[ "$(uname -m)" = x86_64 ] && want=vdso
fi
expect_eq "default on Linux $1.$2 ($(uname -m)): $want" "$want" "$(src_of env LD_PRELOAD="$FASTPATH_SO")"
if [ "$want" != reservoir ]; then
	expect_eq "the vDSO forced absent (FASTPATH_TEST_NO_VDSO=1): kernel" kernel \
		"$(src_of env FASTPATH_TEST_NO_VDSO=1 LD_PRELOAD="$FASTPATH_SO")"
fi
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" --uname-2.6 true 2>/dev/null; then
	expect_eq "uname says 2.6 (setarch --uname-2.6): reservoir" reservoir \
		"$(src_of setarch "$(uname -m)" --uname-2.6 env LD_PRELOAD="$FASTPATH_SO")"
else
	skip "an old kernel's source" "setarch --uname-2.6 unavailable (Debian: util-linux)"
fi
expect_eq "FASTPATH_URANDOM_SOURCE=reservoir" reservoir \
	"$(src_of env FASTPATH_URANDOM_SOURCE=reservoir LD_PRELOAD="$FASTPATH_SO")"
expect_eq "FASTPATH_URANDOM_SOURCE=kernel" kernel \
	"$(src_of env FASTPATH_URANDOM_SOURCE=kernel LD_PRELOAD="$FASTPATH_SO")"
expect_eq "FASTPATH_URANDOM_SOURCE=bogus: the default, one warning" "$want 1" \
	"$(src_of env FASTPATH_URANDOM_SOURCE=bogus LD_PRELOAD="$FASTPATH_SO") $(grep -c FASTPATH_URANDOM_SOURCE "$T_TMP/so.err")"
expect_eq "interpose --urandom-source=reservoir" reservoir \
	"$(src_of "$INTERPOSE" --quiet --urandom-source=reservoir)"

# What a core dump would hold of the bytes not yet read: prog_urandom_core
# copies its readable mappings, reads 16 bytes more and looks for them in
# the copy.  Natively nothing; with the vDSO, only its states (the kernel's
# flags: wf dd dp); from the kernel, nothing; the reservoir only in memory
# left out of dumps ("dd"), where the scan must find them (or it proves
# nothing).
"$K" >"$T_TMP/core.n" 2>&1
precond "prog_urandom_core natively: no byte held before it is read" \
	grep -qx 'hits dd 0 nodd 0' "$T_TMP/core.n"
for how in vdso kernel reservoir old; do
	case $how in
	vdso) [ "$want" = vdso ] || { skip "core dump, source vdso" "no vDSO getrandom here"; continue; }
		run="env" ;;
	kernel) run="env FASTPATH_TEST_NO_VDSO=1" ;;
	reservoir) run="env FASTPATH_URANDOM_SOURCE=reservoir" ;;
	old) command -v setarch >/dev/null 2>&1 || { skip "core dump, uname 2.6" "no setarch"; continue; }
		run="setarch $(uname -m) --uname-2.6 env" ;;
	esac
	for mode in exact reserve getrandom; do
		what=read M=$mode G=0
		[ $mode = getrandom ] && what=getrandom M=exact G=1
		# shellcheck disable=SC2086 # the command words
		$run FASTPATH_URANDOM=$M FASTPATH_GETRANDOM=$G LD_PRELOAD="$FASTPATH_SO" "$K" $what \
			>"$T_TMP/core.f" 2>&1
		last=$(tail -1 "$T_TMP/core.f")
		case $how in
		vdso) if grep -q '^hits dd [0-9]* nodd 0$' "$T_TMP/core.f" &&
			! grep '^hit ' "$T_TMP/core.f" | grep -qv ' wf dd dp'; then
				ok "core dump, source vdso, $mode: unread bytes only in the vDSO's states ($last)"
			else
				fail "core dump, source vdso, $mode" "$(cat "$T_TMP/core.f")"
			fi ;;
		kernel) expect_eq "core dump, source kernel, $mode: no unread byte anywhere" \
			"hits dd 0 nodd 0" "$last" ;;
		*) if grep -q '^hits dd [1-9][0-9]* nodd 0$' "$T_TMP/core.f"; then
				ok "core dump, source reservoir ($how), $mode: unread bytes only in dd memory ($last)"
			else
				fail "core dump, source reservoir ($how), $mode" "$(cat "$T_TMP/core.f")"
			fi ;;
		esac
	done
done

# A signal handler that re-enters the vDSO state its thread is using: the
# vDSO answers it with the system call (its in_use flag), so that under
# strace every getrandom of 16 bytes is a handler's read that found the
# state busy; the main loop makes none.  No block may repeat.
if [ "$want" != vdso ]; then
	skip "signal re-entry into a vDSO state" "no vDSO getrandom here"
elif [ -z "$HAVE_STRACE" ]; then
	skip "signal re-entry into a vDSO state" "strace not installed"
else
	if timeout 900 strace -f -qq -e trace=getrandom -o "$T_TMP/st.sig" \
		env LD_PRELOAD="$FASTPATH_SO" "$S" signal 2 >"$T_TMP/sig.out" 2>&1; then
		ok "signal handler reads inside the main loop's vDSO reads: all served, none repeated"
	else
		fail "signal re-entry into a vDSO state" "$(tail -3 "$T_TMP/sig.out")"
	fi
	n=$(grep -c 'getrandom(.*, 16, GRND_NONBLOCK)' "$T_TMP/st.sig")
	[ "$n" -ge 1 ] && ok "the re-entered state fell back to the system call ($n times)" ||
		fail "no handler read met a state in use" "strace log of $(wc -l <"$T_TMP/st.sig") lines, first: $(head -3 "$T_TMP/st.sig"); program: $(tail -2 "$T_TMP/sig.out"); source: $(src_of env LD_PRELOAD="$FASTPATH_SO")"
fi
T_TAG=

# ---- getrandom refused by a seccomp filter (issue 36, "where the pattern lives")
# Debian's libuuid opens the device per UUID only where getrandom is refused.
# The vDSO then makes the refused call twice per read, for ever: the first
# refusal ends the vdso source (kernel from then on, the stats line says
# why), and the program's own getrandom stays refused.  Each source (vdso
# where the kernel has it, kernel and reservoir forced) and both errnos.
G=$TESTBIN/prog_urandom_seccomp
"$G" ENOSYS "$G" probe >"$T_TMP/gp.n" 2>&1
case $? in
77) skip "getrandom refused by a filter" "no seccomp filter here: $(head -1 "$T_TMP/gp.n")" ;;
*)
for e in ENOSYS EPERM; do
	"$G" $e "$G" probe >"$T_TMP/gp.n" 2>&1
	env LD_PRELOAD="$FASTPATH_SO" FASTPATH_GETRANDOM=1 "$G" $e "$G" probe >"$T_TMP/gp.f" 2>&1
	check "getrandom refused ($e): the program's own getrandom and getentropy refused as natively" \
		cmp -s "$T_TMP/gp.n" "$T_TMP/gp.f"
	for how in auto kernel reservoir; do
		case $how in
		auto) run="env" ;;
		kernel) run="env FASTPATH_TEST_NO_VDSO=1" ;;
		reservoir) run="env FASTPATH_URANDOM_SOURCE=reservoir" ;;
		esac
		# shellcheck disable=SC2086 # the command words
		stats_run "$T_TMP/gs" $run LD_PRELOAD="$FASTPATH_SO" "$G" $e "$S" cycles 2000
		got=$(sed -n 's/.*, source \([a-z]*\), mode.*/\1/p' "$T_TMP/gs")
		case $how in
		auto | kernel) want_src=kernel ;;
		*) want_src=reservoir ;;
		esac
		expect_eq "getrandom refused ($e), source $how: reads served by" "$want_src" "$got"
		if [ "$how" != kernel ]; then
			check "getrandom refused ($e), source $how: the stats line says why" \
				grep -q "getrandom refused ($e)" "$T_TMP/gs"
		fi
		if [ -n "$HAVE_STRACE" ]; then
			# shellcheck disable=SC2086
			strace -f -qq -e trace=getrandom -o "$T_TMP/gst" \
				$run LD_PRELOAD="$FASTPATH_SO" "$G" $e "$S" cycles 2000 >/dev/null 2>&1
			n=$(grep -c 'getrandom(' "$T_TMP/gst")
			# Those the program makes natively (a sanitizer's runtime does)
			# are not ours.
			strace -f -qq -e trace=getrandom -o "$T_TMP/gsn" "$G" $e "$S" cycles 2000 >/dev/null 2>&1
			n=$((n - $(grep -c 'getrandom(' "$T_TMP/gsn")))
			[ "$n" -le 4 ] && ok "getrandom refused ($e), source $how: $n getrandom calls of ours in 2,000 reads" ||
				fail "getrandom refused ($e), source $how: getrandom tried again and again" "$n calls of ours"
		fi
	done
done
;;
esac

# ---- statistics of the served stream (rng-tools5's rngtest) ----------------
# 20 MB through each source: 8,000 blocks of 20,000 bits; FIPS 140-2 false
# alarms are about 1 in 1,000 blocks for a perfect source (native's rate).
if command -v rngtest >/dev/null 2>&1; then
	fails() { sed -n 's/.*FIPS 140-2 failures: \([0-9]*\).*/\1/p'; }
	z=$(head -c 500000 /dev/zero | rngtest -c 100 2>&1 | fails)
	precond "rngtest rejects a bad stream ($z of 100)" [ "${z:-0}" -ge 90 ]
	nf=$("$S" stream 20000000 | rngtest -c 8000 2>&1 | fails)
	for how in vdso kernel reservoir; do
		case $how in
		vdso) [ "$want" = vdso ] || continue; run="env" ;;
		kernel) run="env FASTPATH_TEST_NO_VDSO=1" ;;
		reservoir) run="env FASTPATH_URANDOM_SOURCE=reservoir" ;;
		esac
		# shellcheck disable=SC2086 # the command words
		ff=$($run LD_PRELOAD="$FASTPATH_SO" "$S" stream 20000000 | rngtest -c 8000 2>&1 | fails)
		[ "${ff:-99}" -le 24 ] && ok "rngtest on 20 MB, source $how: $ff FIPS failures of 8000 (native $nf)" ||
			fail "rngtest on 20 MB, source $how" "fastpath $ff, native $nf"
	done
else
	skip "rngtest" "rng-tools5 not installed"
fi

finish
