# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Shared by bench/bench_readlink.sh and bench/demo_readlink.sh (sourced
# after bench/lib.sh).
#
# Reproducing the seed on Linux.  The seed is illumos: pfiles stats
# /proc/<pid>/fd/<n>, then readlinks /proc/<pid>/path/<n>, and for a socket
# that readlink scans the kernel's whole name cache (~44 ms each in the seed)
# before failing with ENOENT.  Here:
#   - the target is a real process holding real sockets (readlink_hold);
#   - the illumos /proc layout is a fixture whose <pid>/fd and <pid>/path
#     are both links to the real /proc/<pid>/fd, so every stat and readlink
#     reaches the real kernel objects;
#   - fastpath runs its illumos policy on that root (the test aids
#     FASTPATH_TEST_PROC_ROOT and FASTPATH_TEST_POLICY=illumos);
#   - the name-cache scan is played by readlink_delay.so, preloaded after
#     fastpath.so: every readlink that reaches it for a socket, a pipe or
#     an epoll fd (an event port's stand-in) spins FP_BENCH_DELAY_US, then
#     fails with ENOENT as illumos did.
# What is measured is therefore how many slow kernel calls fastpath avoids,
# and what its own stat costs; the size of the delay is our choice.

# rl_setup NSOCKETS [PIPE_ENDS [PORTS]]: starts the holder (10 pipe ends
# and no port unless told; a port is an epoll fd here, Linux's counterpart
# of an illumos event port, with no name either), builds the fixture; sets
# RL_PID, RL_ROOT, RL_LISTER, RL_ENV, RL_DELAY.
rl_setup() {
	RL_DIR=$(mktemp -d) || exit 2
	"$BENCHBIN/readlink_hold" -e "${3:-0}" "$1" "${2:-10}" "$RL_DIR" sleep 3600 \
		</dev/null >/dev/null 2>&1 &
	RL_PID=$!
	i=0
	while [ "$(find "/proc/$RL_PID/fd/" -mindepth 1 2>/dev/null | wc -l)" -lt $(($1 + ${3:-0})) ] ||
		[ "$(readlink /proc/$RL_PID/exe)" != "$(command -v sleep | xargs readlink -f)" ]; do
		i=$((i + 1))
		[ "$i" -lt 200 ] || { echo "holder did not start" >&2; exit 2; }
		sleep 0.05
	done
	RL_ROOT=$RL_DIR/proc
	mkdir -p "$RL_ROOT/$RL_PID"
	ln -s "/proc/$RL_PID/fd" "$RL_ROOT/$RL_PID/fd"
	ln -s "/proc/$RL_PID/fd" "$RL_ROOT/$RL_PID/path"
	# shellcheck disable=SC2034 # used by the scripts that source this
	RL_LISTER="$BENCHBIN/readlink_lister $RL_ROOT $RL_PID"
	# shellcheck disable=SC2034
	RL_ENV="FASTPATH_TEST_PROC_ROOT=$RL_ROOT FASTPATH_TEST_POLICY=illumos"
	# shellcheck disable=SC2034
	RL_DELAY=$BENCHBIN/readlink_delay.so
	trap 'rl_cleanup' EXIT
}

rl_cleanup() {
	kill "$RL_PID" 2>/dev/null
	wait "$RL_PID" 2>/dev/null
	rm -rf "$RL_DIR" "$TMPB" "$TMPB.n" "$TMPB.f"
}

rl_note() {
	echo "note: the illumos name-cache scan is played by readlink_delay.so, a test-only"
	echo "      preload after fastpath.so: ${FP_BENCH_DELAY_US:-1000} us of CPU, then ENOENT, per"
	echo "      readlink of a socket, pipe or port (here an epoll fd) that reaches the 'kernel'"
	echo "      (the seed: ~44 ms per call)"
}
