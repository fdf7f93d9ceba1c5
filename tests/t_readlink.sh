#!/bin/sh
# SPDX-License-Identifier: MIT
# readlink shim, integration: the kernel as oracle on a process holding
# 10,000 sockets and 1,000 pipes, the fortified _chk entry points, `ls -l`
# and `lsof` unchanged, debug and disable settings, and the illumos policy
# on a fixture laid over the real /proc.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# stat_line FILE: "SHORT CALLS" from the one summary line in FILE (as left
# by stats_run: the record of the process started, no other), split on
# purpose; nothing if FILE does not hold exactly one such line.
stat_line() {
	_s=$(stats_get "$1" rl_short)
	[ -n "$_s" ] && echo "$_s $(stats_get "$1" rl_calls)"
}

stats_field readlink '[0-9]+ short-circuited of [0-9]+'

# ---- the oracle ------------------------------------------------------------
"$TESTBIN/prog_readlink_oracle" >"$T_TMP/o.native" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	skip "oracle, 10000 sockets" "$(cat "$T_TMP/o.native")"
else
	precond "oracle program agrees with itself natively" [ "$rc" -eq 0 ]
	stats_run "$T_TMP/o.stats" env LD_PRELOAD="$FASTPATH_SO" \
		"$TESTBIN/prog_readlink_oracle" >"$T_TMP/o.fp" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then ok "oracle: every readlink of 11,000+ fds byte-identical to the kernel's"
	else fail "oracle under fastpath" "$(head -c 2000 "$T_TMP/o.fp")"; fi
	# shellcheck disable=SC2046
	set -- $(stat_line "$T_TMP/o.stats")
	# 6 spellings of 11,000 socket and pipe fds minus the truncating size
	# 0 case: at least 5 x 11,000 answered without the kernel.
	if [ "${1:-0}" -ge 55000 ]; then ok "oracle: ${1} of ${2} calls short-circuited"
	else fail "oracle: too few short-circuited" "$(cat "$T_TMP/o.stats")"; fi
fi

# ---- fortified entry points ------------------------------------------------
if command -v nm >/dev/null 2>&1; then
	# What the compiler emitted: a precondition of the checks below.
	syms=$(nm -D "$TESTBIN/prog_readlink_fortify" | grep -c -e ' __readlink_chk' -e ' __readlinkat_chk')
	precond "fortified program calls __readlink_chk and __readlinkat_chk" [ "$syms" -eq 2 ]
else
	skip "fortify symbols" "nm not found"
fi
precond "fortify program passes natively" "$TESTBIN/prog_readlink_fortify"
# It forks (the abort case runs in a child): stats_run keeps the parent's record.
stats_run "$T_TMP/f.stats" env LD_PRELOAD="$FASTPATH_SO" \
	"$TESTBIN/prog_readlink_fortify" >"$T_TMP/f.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok "fortify program under fastpath (incl. abort on len > buflen)"
else fail "fortify program under fastpath" "$(head -c 2000 "$T_TMP/f.out")"; fi
# shellcheck disable=SC2046
set -- $(stat_line "$T_TMP/f.stats")
if [ "${1:-0}" -gt 0 ]; then ok "_chk forms short-circuited ($1 of $2)"
else fail "_chk forms not short-circuited" "$(cat "$T_TMP/f.stats")"; fi

# ---- ls -l and lsof, with and without the shim -----------------------------
# ls lists its own fds (inherited sockets, pipes, a FIFO): the shim answers.
LS="ls -l --time-style=+ /proc/self/fd/"
mkdir "$T_TMP/h1"
# The preloaded ls is exec'd by a shell that wrote its pid first: its
# record, and no other, is the one read.
"$TESTBIN/prog_readlink_hold" 200 100 "$T_TMP/h1" sh -c "
	$LS >'$T_TMP/ls.native' 2>&1
	echo \$\$ >'$T_TMP/ls.pid'
	exec env FASTPATH_STATS='$T_TMP/ls.all' LD_PRELOAD='$FASTPATH_SO' $LS >'$T_TMP/ls.fp' 2>&1"
grep "^fastpath\[$(cat "$T_TMP/ls.pid")\]: " "$T_TMP/ls.all" >"$T_TMP/ls.stats"
# ls's stdout is its output file, and its own directory fd names its pid.
for f in native fp; do
	sed -e "s|ls\.$f\$|ls.out|" -e 's|/proc/[0-9]*/fd$|/proc/PID/fd|' "$T_TMP/ls.$f" >"$T_TMP/ls.$f.n"
done
if cmp -s "$T_TMP/ls.native.n" "$T_TMP/ls.fp.n" && [ "$(grep -c 'socket:\[' "$T_TMP/ls.fp")" -ge 200 ]; then
	ok "ls -l /proc/self/fd identical with and without the shim"
else
	fail "ls -l /proc/self/fd differs" "$(diff "$T_TMP/ls.native.n" "$T_TMP/ls.fp.n" | head -20)"
fi
# shellcheck disable=SC2046
set -- $(stat_line "$T_TMP/ls.stats")
# 200 sockets and 100 pipes: all but the first of each kind, whose answer
# is the kernel's and teaches fastpath which device is sockfs's and
# pipefs's.
if [ "${1:-0}" -ge 298 ]; then ok "ls: $1 of $2 readlinks short-circuited"
else fail "ls: too few short-circuited" "$(cat "$T_TMP/ls.stats")"; fi

# Another process's fds: `ls -l /proc/<pid>/fd` and `lsof -p <pid>`.
mkdir "$T_TMP/h2"
# its stdout must not be a file that grows while we compare listings
"$TESTBIN/prog_readlink_hold" -e 4 200 100 "$T_TMP/h2" sleep 300 </dev/null >/dev/null 2>&1 &
hp=$!
# Ready: its FIFO made and the command exec'd (every descriptor open).
held() { [ -p "$T_TMP/h2/fifo" ] && [ "$(readlink "/proc/$hp/exe")" = "$(command -v sleep | xargs readlink -f)" ]; }
wait_for 60 "the descriptor holder" held
$LS >/dev/null 2>&1  # warm
ls -l --time-style=+ "/proc/$hp/fd/" >"$T_TMP/ols.native" 2>&1
LD_PRELOAD=$FASTPATH_SO ls -l --time-style=+ "/proc/$hp/fd/" >"$T_TMP/ols.fp" 2>&1
if cmp -s "$T_TMP/ols.native" "$T_TMP/ols.fp" && grep -q fifo "$T_TMP/ols.fp"; then
	ok "ls -l /proc/<pid>/fd identical with and without the shim"
else
	fail "ls -l /proc/<pid>/fd differs" "$(diff "$T_TMP/ols.native" "$T_TMP/ols.fp" | head -20)"
fi
if command -v lsof >/dev/null 2>&1; then
	lsof -w -n -P -p "$hp" >"$T_TMP/lsof.native" 2>&1
	LD_PRELOAD=$FASTPATH_SO lsof -w -n -P -p "$hp" >"$T_TMP/lsof.fp" 2>&1
	if cmp -s "$T_TMP/lsof.native" "$T_TMP/lsof.fp" && [ "$(grep -c unix "$T_TMP/lsof.fp")" -ge 200 ]; then
		ok "lsof -p <pid> identical with and without the shim"
	else
		fail "lsof -p <pid> differs" "$(diff "$T_TMP/lsof.native" "$T_TMP/lsof.fp" | head -20)"
	fi
else
	skip "lsof -p <pid>" "lsof not installed (Debian package lsof)"
fi

# ---- the illumos policy on a fixture over the real /proc --------------------
# <root>/<pid>/fd and <root>/<pid>/path both lead to /proc/<pid>/fd, so the
# policy's stat reaches the holder's real sockets.
root=$T_TMP/proc
mkdir -p "$root/$hp"
ln -s "/proc/$hp/fd" "$root/$hp/fd"
ln -s "/proc/$hp/fd" "$root/$hp/path"
stats_run "$T_TMP/il.stats" env FASTPATH_TEST_PROC_ROOT="$root" FASTPATH_TEST_POLICY=illumos \
	LD_PRELOAD="$FASTPATH_SO" "$TESTBIN/prog_readlink_lister" "$root" "$hp" >"$T_TMP/il.fp" 2>&1
"$TESTBIN/prog_readlink_lister" "$root" "$hp" >"$T_TMP/il.native" 2>&1
# Natively every socket, pipe and epoll line is followed by its
# "socket:[ino]", "pipe:[ino]", "anon_inode:[eventpoll]" name; under the
# illumos policy those readlinks fail with ENOENT, as illumos answers for a
# socket, a pipe and an event port (the epoll fds stand for the ports), and
# nothing else changes: the named FIFO keeps its path.
grep -v -e 'socket:\[' -e 'pipe:\[' -e 'anon_inode:\[eventpoll\]' "$T_TMP/il.native" \
	>"$T_TMP/il.native.noname"
if cmp -s "$T_TMP/il.native.noname" "$T_TMP/il.fp" && grep -q "$T_TMP/h2/fifo" "$T_TMP/il.fp" &&
	[ "$(grep -c 'anon_inode:\[eventpoll\]' "$T_TMP/il.native")" -eq 4 ]; then
	ok "illumos policy: socket, pipe and port (epoll) paths absent (ENOENT), the FIFO's kept, all else unchanged"
else
	fail "illumos policy lister output" "$(diff "$T_TMP/il.native.noname" "$T_TMP/il.fp" | head -20)"
fi
# shellcheck disable=SC2046
set -- $(stat_line "$T_TMP/il.stats")
# (at least 304: the holder also inherits whatever pipes the test runner left open)
n_noname=$(grep -c -e 'socket:\[' -e 'pipe:\[' -e 'anon_inode:\[eventpoll\]' "$T_TMP/il.native")
[ "$n_noname" -ge 304 ] || fail "illumos policy: the holder's sockets, pipes and ports" "only $n_noname listed"
expect_eq "illumos policy: one short-circuit per socket, pipe end and port" "$n_noname" "${1:-0}"
# The test aids are ignored without the policy name: Linux policy, other pid.
stats_run "$T_TMP/il2.stats" env FASTPATH_TEST_PROC_ROOT="$root" \
	LD_PRELOAD="$FASTPATH_SO" "$TESTBIN/prog_readlink_lister" "$root" "$hp" >"$T_TMP/il2.fp" 2>&1
check "Linux policy on that root: output unchanged" diff "$T_TMP/il.native" "$T_TMP/il2.fp"
expect_eq "Linux policy on that root: nothing short-circuited" 0 "$(stats_get "$T_TMP/il2.stats" rl_short)"
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null

# ---- settings ----------------------------------------------------------------
FASTPATH_DEBUG=1 LD_PRELOAD=$FASTPATH_SO "$TESTBIN/prog_readlink_oracle" 20 10 >/dev/null 2>"$T_TMP/dbg"
if grep -q '^fastpath\[[0-9]*\]: readlink: /proc/self/fd/[0-9]*: answered "socket:\[[0-9]*\]" from fstat$' "$T_TMP/dbg"; then
	ok "FASTPATH_DEBUG: one line per short-circuited call"
else
	fail "FASTPATH_DEBUG line" "$(head -5 "$T_TMP/dbg")"
fi
stats_run "$T_TMP/d.stats" env FASTPATH_DISABLE=readlink LD_PRELOAD="$FASTPATH_SO" \
	"$TESTBIN/prog_readlink_oracle" 20 10 >"$T_TMP/d.out" 2>&1
expect_eq "FASTPATH_DISABLE=readlink: still byte-identical (exit status)" 0 $?
check "FASTPATH_DISABLE=readlink: still byte-identical (its checks)" \
	grep -q '^[1-9][0-9]* passed, 0 failed$' "$T_TMP/d.out"
check "FASTPATH_DISABLE=readlink: reported off" grep -q '^fastpath\[[0-9]*\]: readlink off; ' "$T_TMP/d.stats"

# A first readlink learns pipefs's and sockfs's devices in a thread of
# ours: a close the program makes right after ends its file there and then
# (fd_fuzz seed 431 case 26883: the thread's copy of the table held the
# pipe's read end a moment past its exit, and poll said no POLLERR; on
# that object 57 of 100 runs differed).  100 processes, each learning once.
lastref() {
	for _ in $(seq 100); do
		env ${1:+LD_PRELOAD=$1} "$TESTBIN/prog_readlink_oracle" lastref
	done | sort | uniq -c
}
expect_eq "a close right after the first readlink of a pipe and a socket: poll as native, 100 runs" \
	"$(lastref "")" "$(lastref "$FASTPATH_SO")"

finish
