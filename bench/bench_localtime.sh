#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench rows for the localtime mitigation (interpose --tz), TZ unset:
# a localtime() loop (issue 42's target: 10x), and a logger's loop.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
L=$BENCHBIN/localtime_loop
P="env -u TZ LD_PRELOAD=$FASTPATH_SO FASTPATH_TZ=1"
compare "localtime: localtime() x 2M, TZ unset (--tz)" "env -u TZ $L localtime 2000000" \
	"$P $L localtime 2000000" "env -u TZ $L localtime 1000" "$P $L localtime 1000"
compare "localtime: 1M log lines stamped, TZ unset (--tz)" "env -u TZ $L log 1000000" \
	"$P $L log 1000000" "env -u TZ $L log 1000" "$P $L log 1000"
