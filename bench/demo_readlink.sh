#!/bin/sh
# make demo: the seed (pfiles on a process with many sockets) on Linux, and
# the per-call gain on real Linux.  See bench/readlink_lib.sh.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/readlink_lib.sh
. bench/readlink_lib.sh
: "${FP_BENCH_DELAY_US:=1000}"
export FP_BENCH_DELAY_US
rl_setup 1000
rl_note >&2
compare "pfiles-like lister, 1000 sockets (illumos)" \
	"env $RL_ENV LD_PRELOAD=$RL_DELAY $RL_LISTER" \
	"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $RL_LISTER" \
	"env $RL_ENV LD_PRELOAD=$RL_DELAY $RL_LISTER" \
	"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $RL_LISTER"
compare "readlink /proc/self/fd/<socket> x100k (Linux)" \
	"$BENCHBIN/readlink_micro self-socket 100000" \
	"env LD_PRELOAD=$FASTPATH_SO $BENCHBIN/readlink_micro self-socket 100000"
