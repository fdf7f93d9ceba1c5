#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo rows for urandom_shim (seed 001): kept under ~20 s on 2 cores.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
L=$BENCHBIN/urandom_loop
P="env LD_PRELOAD=$FASTPATH_SO"
compare "urandom: seed-001 loop, 60k uuids" "$L seed 60000" "$P $L seed 60000" \
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
