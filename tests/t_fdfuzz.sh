#!/bin/sh
# SPDX-License-Identifier: MIT
# fd_fuzz (fuzz/fd_fuzz.c), make check's share: FDFUZZ_CASES generated
# programs of descriptor operations (default 1500, 8 to 30 s here) from
# the fixed seed FDFUZZ_SEED, each run natively and under fastpath.so in
# exact and in reserve mode, some with threads.  A difference that recurs
# on its rerun fails, with its shrunk program (one that does not is
# reported as flaky).  Negative control: a preload that lies about getrlimit(2)
# must be caught as unknown, and one that lies to threads only (F_GETFL)
# must be caught by the threads operation.  The devices of its own each
# configuration gets (root) and the shared ones (forced) both run.
# F_DUPFD_QUERY's absence (before Linux 6.10)
# is forced once, so that branch runs here too.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

FZ=$TESTBIN/fd_fuzz
LIAR=$TESTBIN/libfdfuzz_liar.so
SEED=${FDFUZZ_SEED:-36}
CASES=${FDFUZZ_CASES:-1500}
# Under a composed preload (check-eatmydata runs every t_*.sh twice so) a
# smaller share: the full one has run in make check already.
case $FASTPATH_SO in *:*) CASES=${FDFUZZ_CASES:-400} ;; esac

precond "fd_fuzz is built" [ -x "$FZ" ]
precond "the liar preload is built" [ -f "$LIAR" ]

# Cases long runs found, replayed (SEED:CASE:HEAVY, each failed on the
# object before its fix): 430:209843:4, readlink's learning pipe made in
# the program's full table doubled it (FDSize 8192 where native has 4096;
# the filter dimension now runs it under a filter refusing the learning
# thread's clone, whose fallback did so again on 36751a2, every time);
# 431:26883:4, a close right after that learning did not end the pipe's
# file at once (a race: t_readlink.sh's lastref repeats it); 467:34137:4,
# the generator's own: after a fill, an exec'd checker listed its first
# 64 numbers only, so the reserve's open at a kept number far up was not
# listed where native's at 3 was; 476:405223:4, the same after a fill of
# the device itself, whose thousands of lines cut the listing before the
# reserve's open at 4089 (now the first 64 of each target and flags,
# of every number: 481:421967 met the same cut at 4096 numbers read).
# The first three were drawn before threads drew drops (the fourth number:
# FDFUZZ_DROPS=0, the same programs; the next three before the program
# drew drops of its own: FDFUZZ_DROPS=1).  471:14211:4 and 471:11672:4, a
# thread's drop (its raw setfsuid) after pooled opens, then a change of
# one of them reached the other: the copy-on-write was a fresh open of
# the device, refused after the drop (now made before it, roots.c).
FOUND="430:209843:4:0 431:26883:4:0 467:34137:4:0 471:14211:4:1 471:11672:4:1 476:405223:4:1"
for c in $FOUND; do
	old_ifs=$IFS
	IFS=:
	# shellcheck disable=SC2086 # the four numbers, a field each
	set -- $c
	IFS=$old_ifs
	FDFUZZ_DROPS=$4 "$FZ" --so "$FASTPATH_SO" --seed "$1" --case "$2" --heavy "$3" >"$T_TMP/found" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^DIFF - ' "$T_TMP/found"; then
		ok "fd_fuzz: seed $1 case $2 (found by a long run): no unknown difference"
	else
		fail "fd_fuzz: seed $1 case $2 (found by a long run): no unknown difference" \
			"exit $rc; $(grep -A12 '^DIFF - ' "$T_TMP/found" | head -n 20)"
	fi
done

# The share: fd_fuzz prints the shrunk program of every difference, a
# "skip - ..." line for each call this kernel lacks, and its total line.
"$FZ" --so "$FASTPATH_SO" --seed "$SEED" --cases "$CASES" >"$T_TMP/run" 2>&1
rc=$?
grep -v '^skip - \|^[0-9]* passed, ' "$T_TMP/run"
grep '^skip - ' "$T_TMP/run" | while IFS= read -r l; do
	echo "$l"
done
nskip=$(grep -c '^skip - ' "$T_TMP/run")
T_SKIPPED=$((T_SKIPPED + nskip))
if grep -q "^fd_fuzz: seed $SEED: $CASES programs" "$T_TMP/run" && [ $rc -eq 0 ] &&
	! grep -q '^DIFF - ' "$T_TMP/run"; then
	ok "fd_fuzz: $CASES programs (seed $SEED), native vs exact and reserve: no unknown difference"
else
	fail "fd_fuzz: $CASES programs (seed $SEED), native vs exact and reserve: no unknown difference" \
		"exit $rc; replay one with: $FZ --so $FASTPATH_SO --seed $SEED --case K --dump MASK"
fi

# Negative control: an unknown difference fails (exit 1, a DIFF report).
"$FZ" --so "$LIAR" --seed "$SEED" --cases 3 >"$T_TMP/liar" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q '^DIFF - fd_fuzz exact: seed ' "$T_TMP/liar" &&
	grep -q '^0 passed, [1-9][0-9]* failed' "$T_TMP/liar"; then
	ok "fd_fuzz: a preload whose getrlimit lies is an unknown difference (exit 1)"
else
	fail "fd_fuzz: a preload whose getrlimit lies is an unknown difference (exit 1)" "exit $rc: $(head -c 1500 "$T_TMP/liar")"
fi

# The threads operation compares what threads see: a preload that turns
# O_NONBLOCK over in F_GETFL for threads other than the first (and lies
# nowhere else) is an unknown difference, shrunk to a threads operation.
FDFUZZ_LIAR=threads "$FZ" --so "$LIAR" --seed "$SEED" --cases 40 >"$T_TMP/tliar" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q '^DIFF - fd_fuzz exact: seed ' "$T_TMP/tliar" &&
	grep -A1 '^DIFF - fd_fuzz exact: ' "$T_TMP/tliar" | grep -q '^ *[0-9]* threads ' &&
	grep -q ' thread[0-9] ' "$T_TMP/tliar"; then
	ok "fd_fuzz: a preload that lies to threads only is an unknown difference, shrunk to the threads"
else
	fail "fd_fuzz: a preload that lies to threads only is an unknown difference, shrunk to the threads" \
		"exit $rc: $(head -c 1500 "$T_TMP/tliar")"
fi
if grep -q '^fd_fuzz: [0-9]* programs/s; [1-9][0-9]* with threads' "$T_TMP/run"; then
	ok "fd_fuzz: the share has programs with threads"
else
	fail "fd_fuzz: the share has programs with threads" "$(grep '^fd_fuzz:' "$T_TMP/run")"
fi
# A thread's drop (a seccomp filter, a Landlock ruleset or a root of its
# own, that thread's alone): a preload that answers a refused open with
# a dup of one the program holds, as a pool that outlived a sandbox did
# (review 54), is an unknown difference at a drop.
if grep -q "^fd_fuzz: .*with threads ([1-9][0-9]* with a thread's drop)" "$T_TMP/run"; then
	ok "fd_fuzz: the share has threads that drop their access"
else
	fail "fd_fuzz: the share has threads that drop their access" "$(grep '^fd_fuzz:' "$T_TMP/run")"
fi
if grep -q "^fd_fuzz: .* [1-9][0-9]* with a drop of the program's" "$T_TMP/run"; then
	ok "fd_fuzz: the share has programs that drop their whole access"
else
	fail "fd_fuzz: the share has programs that drop their whole access" "$(grep '^fd_fuzz:' "$T_TMP/run")"
fi
# Seed 36 whatever FDFUZZ_SEED is: its first 60 programs have drops where
# the lie shows (another seed's may have one, or none: review 56).
FDFUZZ_LIAR=pool "$FZ" --so "$LIAR" --seed 36 --cases 60 >"$T_TMP/pliar" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -A4 '^DIFF - fd_fuzz exact: ' "$T_TMP/pliar" | grep -q '^ *native: .* thread[0-9] .* drop '; then
	ok "fd_fuzz: a preload whose opens outlive a thread's sandbox is an unknown difference at the drop"
else
	fail "fd_fuzz: a preload whose opens outlive a thread's sandbox is an unknown difference at the drop" \
		"exit $rc: $(head -c 1500 "$T_TMP/pliar")"
fi
# ... and the program's own drop (seteuid, chroot, capset...: case 2)
if [ $rc -eq 1 ] && grep -A4 '^DIFF - fd_fuzz exact: ' "$T_TMP/pliar" | grep -q '^ *native: [0-9]* drop .*, open = E'; then
	ok "fd_fuzz: a preload whose opens outlive the program's sandbox is an unknown difference at its drop"
else
	fail "fd_fuzz: a preload whose opens outlive the program's sandbox is an unknown difference at its drop" \
		"exit $rc: $(head -c 1500 "$T_TMP/pliar")"
fi

# Devices of its own per configuration (a mount namespace each: root) and,
# forced, the shared ones, where programs that take locks run one
# configuration at a time: both compare without an unknown difference.
if grep -q '^fd_fuzz: .*devices private' "$T_TMP/run"; then
	ok "fd_fuzz: each configuration had devices of its own (a mount namespace)"
elif [ "$(id -u)" -ne 0 ]; then
	skip "fd_fuzz: devices of its own per configuration" "not root: no mount namespace, shared devices"
elif ! unshare -m true 2>/dev/null; then
	skip "fd_fuzz: devices of its own per configuration" "unshare -m fails here (no CAP_SYS_ADMIN?): shared devices"
else
	fail "fd_fuzz: each configuration had devices of its own (a mount namespace)" "$(grep '^fd_fuzz:' "$T_TMP/run")"
fi
FDFUZZ_SHARED_DEV=1 "$FZ" --so "$FASTPATH_SO" --seed "$SEED" --cases 100 >"$T_TMP/shared" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^fd_fuzz: .*devices shared' "$T_TMP/shared" && ! grep -q '^DIFF - ' "$T_TMP/shared"; then
	ok "fd_fuzz: with the machine's devices (forced), 100 programs: no unknown difference"
else
	fail "fd_fuzz: with the machine's devices (forced), 100 programs: no unknown difference" "exit $rc: $(head -c 1500 "$T_TMP/shared")"
fi

# The same case replays alone, with the same verdict and shrunk program
# (the seed and the case number are all it takes).
K=$(sed -n "s/^DIFF - fd_fuzz exact: seed $SEED case \([0-9]*\) .*/\1/p" "$T_TMP/liar" | head -n 1)
"$FZ" --so "$LIAR" --seed "$SEED" --case "${K:-0}" >"$T_TMP/one" 2>&1
sed -n "/^DIFF - fd_fuzz exact: seed $SEED case ${K:-0} /,/^DIFF\|^fd_fuzz:/p" "$T_TMP/liar" >"$T_TMP/one.a"
sed -n "/^DIFF - fd_fuzz exact: seed $SEED case ${K:-0} /,/^DIFF\|^fd_fuzz:/p" "$T_TMP/one" >"$T_TMP/one.b"
if [ -n "$K" ] && [ -s "$T_TMP/one.a" ] && cmp -s "$T_TMP/one.a" "$T_TMP/one.b"; then
	ok "fd_fuzz: --seed S --case K replays one case, shrunk to the same program"
else
	fail "fd_fuzz: --seed S --case K replays one case, shrunk to the same program" "$(head -c 1500 "$T_TMP/one")"
fi

# A kernel without F_DUPFD_QUERY (forced): the operation is skipped with
# its reason, in every worker, and the run still compares the rest.
FDFUZZ_NO_DUPQ=1 "$FZ" --so "$FASTPATH_SO" --seed "$SEED" --cases 20 >"$T_TMP/nodupq" 2>&1
if grep -q '^skip - fd_fuzz: F_DUPFD_QUERY: this kernel has none' "$T_TMP/nodupq" &&
	grep -q "^fd_fuzz: seed $SEED: 20 programs" "$T_TMP/nodupq" && ! grep -q '^DIFF - ' "$T_TMP/nodupq"; then
	ok "fd_fuzz: without F_DUPFD_QUERY (forced) the operation is a skip with its reason"
else
	fail "fd_fuzz: without F_DUPFD_QUERY (forced) the operation is a skip with its reason" "$(head -c 1500 "$T_TMP/nodupq")"
fi

finish
