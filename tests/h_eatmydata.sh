#!/bin/sh
# make check-eatmydata: the integration scripts (tests/t_*.sh) with Debian's
# libeatmydata in LD_PRELOAD before and after fastpath.so.  The scripts put
# $FASTPATH_SO into LD_PRELOAD, which takes a colon list: so the order is
# chosen here and every preloaded run in them gets both libraries.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

EMD=
for f in /usr/lib/*/libeatmydata.so.1 /usr/lib/libeatmydata.so.1 /usr/lib/*/libeatmydata.so; do
	[ -f "$f" ] && { EMD=$f; break; }
done
if [ -z "$EMD" ]; then
	skip eatmydata "libeatmydata not installed (Debian: eatmydata)"
	finish
	exit
fi
FP=$TOP/fastpath.so
# Proof that eatmydata is active in the combined preload: fsync is a no-op.
for order in "$EMD:$FP" "$FP:$EMD"; do
	name="eatmydata ${order%%:*}"
	[ "${order%%:*}" = "$FP" ] && name="fastpath first"
	[ "${order%%:*}" = "$EMD" ] && name="eatmydata first"
	n=$(LD_PRELOAD=$order strace -f -qq -c -e trace=fsync "${PYTHON:-python3}" -c \
		'import os; f=open(os.devnull,"w"); [os.fsync(f.fileno()) for _ in range(10)]' 2>&1 |
		awk '$NF=="fsync"{print $4}')
	expect_eq "$name: eatmydata active (no fsync reaches the kernel)" "" "$n"
	for t in tests/t_*.sh; do
		# t_interpose.sh checks how `interpose` composes LD_PRELOAD from
		# the path of fastpath.so: a colon list there is not a path.
		[ "$t" = tests/t_interpose.sh ] && continue
		FASTPATH_SO=$order sh "$t" >"$T_TMP/out" 2>&1
		rc=$?
		line=$(tail -n 1 "$T_TMP/out")
		if [ $rc -eq 0 ]; then
			ok "$name: ${t##*/}: $line"
		else
			fail "$name: ${t##*/}" "$(grep -A3 FAIL "$T_TMP/out" | head -30)"
		fi
	done
done
finish
