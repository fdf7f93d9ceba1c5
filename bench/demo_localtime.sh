#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo row for the localtime mitigation (interpose --tz): a logger's
# loop with TZ unset, where glibc stats /etc/localtime at every line.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
L=$BENCHBIN/localtime_loop
P="env -u TZ LD_PRELOAD=$FASTPATH_SO FASTPATH_TZ=1"
compare "localtime: 300k log lines stamped, TZ unset (--tz)" "env -u TZ $L log 300000" "$P $L log 300000" \
	"env -u TZ $L log 1000" "$P $L log 1000"
