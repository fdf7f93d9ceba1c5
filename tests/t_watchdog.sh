#!/bin/sh
# SPDX-License-Identifier: MIT
# The concurrency harness with a watchdog (tests/prog_watchdog.c, issue
# 36): short-lived threads that open, read, dup, lock, close, fork, vfork,
# spawn, run system() and exec, signalled by a timer each (a handler that
# siglongjmps out of read, open or close, or uses the device itself) and
# cancelled inside system() and read.  Natively first, which must make
# progress (else the harness, not fastpath, is wrong), then under
# fastpath.so in both urandom modes: any operation in progress longer
# than WATCHDOG_STALL_MS (default 10000: a hang lasts for good, and a
# loaded machine must not pass for one), a join that does not return, or
# no thread finishing, fails the run with its first stall named.
# WATCHDOG_SECONDS per run (default 6; make check-stress runs it longer),
# WATCHDOG_SEED replays a run's choices (each failure names its seed).
# shellcheck disable=SC3045 # ulimit -H and -S: dash, bash and busybox sh have them
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_watchdog
# Exact mode's hidden descriptor exists where the soft descriptor limit is
# below the hard one (fastpath(7)): as on a systemd system, 1024, so that
# its making (a clone child, once threads run) is in the harness too.
hard=$(ulimit -Hn)
case $hard in unlimited) hard=1048576 ;; esac
[ "$hard" -gt 1024 ] && ulimit -Sn 1024
secs=${WATCHDOG_SECONDS:-6}
stall=${WATCHDOG_STALL_MS:-10000}
seed=${WATCHDOG_SEED:-$(($(date +%s) % 100000))}
if [ ! -x "$P" ]; then
	fail "watchdog harness" "no $P: make check builds it"
	finish
	exit
fi

# watch LABEL [VAR=VALUE...]: one run; its verdict and first stall.
watch() {
	label=$1
	shift
	timeout $((secs + 3 * stall / 1000 + 30)) env "$@" "$P" "$secs" "$stall" "$seed" \
		>"$T_TMP/w.out" 2>"$T_TMP/w.err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^2 passed, 0 failed$' "$T_TMP/w.out"; then
		ok "$label: ${secs}s, every thread made progress ($(sed -n 's/^watchdog: //p' "$T_TMP/w.err"))"
		return 0
	fi
	why=$(grep -m 3 '^STALL' "$T_TMP/w.out" | tr '\n' ';')
	[ $rc -eq 124 ] && why="$why the run itself did not end (timeout)"
	fail "$label: every thread makes progress" "status $rc, seed $seed (WATCHDOG_SEED=$seed to replay): ${why:-$(tail -n 3 "$T_TMP/w.out" "$T_TMP/w.err")}"
	return 1
}

if watch "native"; then
	echo "pre - the harness makes progress natively (seed $seed)"
	watch "fastpath.so, exact mode" LD_PRELOAD="$FASTPATH_SO"
	watch "fastpath.so, reserve mode" LD_PRELOAD="$FASTPATH_SO" FASTPATH_URANDOM=reserve
fi
finish
