#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the seed (pfiles on a process with many sockets) on Linux, and
# the per-call gain on real Linux.  See bench/readlink_lib.sh.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/readlink_lib.sh
. bench/readlink_lib.sh
: "${FP_BENCH_DELAY_US:=1000}"
export FP_BENCH_DELAY_US
# A node-like process (the seed's own case): its sockets, the pipes of its
# children's stdio and of libuv's wake-ups, and libuv's event ports (on
# Linux, epoll fds stand in for the ports: neither has a name).
rl_setup 600 390 10
rl_note >&2
compare "pfiles-like lister, node-like: 600 sockets, 390 pipe ends, 10 ports (illumos)" \
	"env $RL_ENV LD_PRELOAD=$RL_DELAY $RL_LISTER" \
	"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $RL_LISTER" \
	"env $RL_ENV LD_PRELOAD=$RL_DELAY $RL_LISTER" \
	"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $RL_LISTER"
compare "readlink /proc/self/fd/<socket> x100k (Linux)" \
	"$BENCHBIN/readlink_micro self-socket 100000" \
	"env LD_PRELOAD=$FASTPATH_SO $BENCHBIN/readlink_micro self-socket 100000"
