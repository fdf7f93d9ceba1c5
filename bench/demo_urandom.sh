#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck disable=SC3045 # ulimit -H and -S: dash, bash and busybox sh have them
# make demo rows for urandom_shim (seed 001): kept under ~20 s on 2 cores.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
L=$BENCHBIN/urandom_loop
P="env LD_PRELOAD=$FASTPATH_SO"
# Exact mode keeps its descriptor above the soft descriptor limit, so it
# pools only where the soft limit is below the hard one (README); the rows
# run under systemd's soft limit for services, 1024, where the hard one is
# higher (here it may be both: some containers set soft = hard).
hard=$(ulimit -Hn)
case $hard in unlimited) hard=1048576 ;; esac
[ "$hard" -gt 1024 ] && ulimit -Sn 1024
compare "urandom: seed-001 loop, 60k uuids (ulimit -Sn $(ulimit -Sn))" "$L seed 60000" "$P $L seed 60000" \
	"$L seed 1000" "$P $L seed 1000"
compare "urandom: seed-001 loop, 60k uuids, 2 threads" "$L seed 60000 2" "$P $L seed 60000 2" \
	"$L seed 1000 2" "$P $L seed 1000 2"
compare "urandom: read(16) x 600k, kept-open fd" "$L kept 600000" "$P $L kept 600000" \
	"$L kept 10000" "$P $L kept 10000"
compare "urandom: dd bs=16 count=100k" \
	"dd if=/dev/urandom of=/dev/null bs=16 count=100000" \
	"$P dd if=/dev/urandom of=/dev/null bs=16 count=100000" \
	"dd if=/dev/urandom of=/dev/null bs=16 count=1000" \
	"$P dd if=/dev/urandom of=/dev/null bs=16 count=1000"
