#!/bin/sh
# SPDX-License-Identifier: MIT
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
# strace must be there and must see the fsyncs natively, or "no fsync seen"
# would prove nothing.
PROOF=
if ! command -v strace >/dev/null 2>&1; then
	skip "eatmydata active" "strace not installed (Debian: strace)"
elif [ -z "$PYTHON" ]; then
	skip "eatmydata active" "python3 not installed"
else
	PROOF=yes
fi
# fsyncs ORDER: the fsync calls strace saw (of 10), with ORDER preloaded.
fsyncs() {
	rm -f "$T_TMP/st"
	strace -f -qq -o "$T_TMP/st" -e trace=fsync env LD_PRELOAD="$1" "$PYTHON" -c \
		'import os, sys; f=open(sys.argv[1],"w"); [os.fsync(f.fileno()) for _ in range(10)]' \
		"$T_TMP/synced" &&
		grep -c '^[0-9]* *fsync(' "$T_TMP/st"
}
[ -n "$PROOF" ] && precond "strace sees 10 fsyncs natively" [ "$(fsyncs "")" = 10 ]
for order in "$EMD:$FP" "$FP:$EMD"; do
	name="fastpath first"
	[ "${order%%:*}" = "$EMD" ] && name="eatmydata first"
	[ -n "$PROOF" ] && expect_eq "$name: eatmydata active (no fsync reaches the kernel)" 0 "$(fsyncs "$order")"
	for t in tests/t_*.sh; do
		# t_interpose*.sh check how `interpose` composes LD_PRELOAD from
		# the path of fastpath.so: a colon list there is not a path.
		case $t in tests/t_interpose*.sh) continue ;; esac
		# The watchdog harness's signal handlers open files: with
		# libeatmydata alone (no fastpath.so) an open there never returns
		# (3 runs of 15 s out of 3, WATCHDOG_SEED 71918-71920): a hang of
		# eatmydata's, which would be reported as ours.
		if [ "$t" = tests/t_watchdog.sh ]; then
			skip "$name: t_watchdog.sh" "libeatmydata alone hangs its signal handlers' open (no fastpath.so loaded)"
			continue
		fi
		# The fuzzer's thread jumps likewise: a jump out of libeatmydata's
		# per-thread start (its TLS init_running, then dlsym) leaves that
		# thread's later opens EFAULT, or the next thread's dlsym waiting
		# for ever on the loader's lock, with no fastpath.so loaded.
		jumps=
		if [ "$t" = tests/t_fdfuzz.sh ]; then
			skip "$name: t_fdfuzz.sh's thread jumps" "libeatmydata's per-thread start is not safe to jump out of (no fastpath.so loaded)"
			jumps=0
		fi
		FDFUZZ_THREAD_JUMPS=${jumps:-${FDFUZZ_THREAD_JUMPS-}} FASTPATH_SO=$order sh "$t" >"$T_TMP/out" 2>&1
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
