#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-musl / check-m32: fastpath.so and the integration programs
# built by another C library or for another ABI, then run natively and under
# LD_PRELOAD of that build's fastpath.so (a musl object loads only into musl
# programs, an i386 one only into i386 ones: system tools are not used).
#   h_port.sh musl    Debian's musl-gcc (musl-tools)
#   h_port.sh m32     gcc -m32 (gcc-multilib), plain and with 64-bit
#                     off_t/time_t (open64, pread64, fcntl64 and friends)
# Whether this kernel runs i386 programs decides whether they are run, or
# only built and checked against what the object exports.  Both branches
# run in make check: FASTPATH_TEST_NO_I386=1 (make check-m32-build-only)
# takes the build-only branch on a kernel that could run them; the run
# branch on a kernel that cannot is a skip with that reason.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: h_port.sh musl|m32}
B=$TOP/tests/bin/$flavour
W="-Wall -Wextra -Werror"
case $flavour in
musl)
	RUN=yes
	command -v musl-gcc >/dev/null 2>&1 || { skip musl "musl-gcc not installed (Debian: musl-tools)"; finish; exit; }
	# Debian's musl-gcc sees none of the kernel's headers (Alpine's has
	# linux-headers): give it those alone, for <linux/magic.h>.
	KH=$T_TMP/kernel-headers
	mkdir -p "$KH"
	ln -s /usr/include/linux /usr/include/asm-generic "$KH/"
	ln -s "/usr/include/$(gcc -print-multiarch 2>/dev/null)/asm" "$KH/asm"
	CC="musl-gcc -idirafter $KH"
	VARIANTS="plain"
	;;
m32)
	CC="${CC:-gcc} -m32"
	if ! echo 'int main(void){return 0;}' | $CC -x c - -o "$T_TMP/probe" 2>/dev/null; then
		skip m32 "cannot build i386 programs (Debian: gcc-multilib)"
		finish
		exit
	fi
	# Kernels built without IA32 emulation (or booted ia32_emulation=0)
	# cannot run them: build and link checks only, then.
	RUN=yes
	if [ -n "${FASTPATH_TEST_NO_I386:-}" ]; then
		RUN=
		NORUN_WHY="FASTPATH_TEST_NO_I386 is set: the build-only branch, as on a kernel without IA32 emulation"
	elif ! "$T_TMP/probe" 2>/dev/null; then
		RUN=
		NORUN_WHY="this kernel cannot execute i386 programs (no IA32 emulation)"
	fi
	VARIANTS="plain lfs"
	;;
*) echo "unknown flavour $flavour" >&2; exit 2 ;;
esac
mkdir -p "$B"

# ---- build: warnings are errors, for the object and the programs ---------
# Linked as the Makefile links the object it ships (no DT_FINI, full RELRO).
SO=$B/fastpath.so
# shellcheck disable=SC2086 # CC and W are word lists
check "$flavour: fastpath.so builds warning-free" $CC -D_GNU_SOURCE \
	-DFASTPATH_VERSION='"hardening"' -std=gnu11 -fPIC -pthread $W -O2 -g -shared \
	-fvisibility=hidden -Wl,-z,now -Wl,-z,relro -Wl,--fini=fp_no_dt_fini -o "$SO" ./*.c -ldl
if [ ! -f "$SO" ]; then finish; exit; fi

PROGS="prog_urandom prog_urandom_stress prog_urandom_seen prog_readlink_oracle prog_early prog_localtime
	prog_firstcall"
[ "$flavour" = m32 ] && PROGS="$PROGS prog_urandom_fortify prog_readlink_fortify"

build() {
	# build VARIANT: every program into $B/VARIANT/
	d=$B/$1
	mkdir -p "$d"
	extra=
	[ "$1" = lfs ] && extra="-D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64"
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O2 -g -pthread $W $extra -fPIC -shared \
		-o "$d/libearly.so" tests/libearly.c || return 1
	for p in $PROGS; do
		set -- -include tests/h_musl_compat.h
		case $p in
		*_fortify) set -- "$@" -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 ;;
		prog_early) set -- "$@" -L"$d" -Wl,-rpath,"$d" ;;
		esac
		lib=
		[ "$p" = prog_early ] && lib=-learly
		# shellcheck disable=SC2086
		$CC -D_GNU_SOURCE -std=gnu11 -O2 -g -pthread $W $extra "$@" \
			-o "$d/$p" "tests/$p.c" $lib || return 1
	done
}

pre() { LD_PRELOAD=$SO "$@"; }

for v in $VARIANTS; do
	d=$B/$v
	t="$flavour/$v"
	check "$t: integration programs build warning-free" build "$v"
	[ -x "$d/prog_early" ] || continue
	if [ "$flavour" = m32 ]; then
		# What a 32-bit large-file program calls must be what we export.
		exp=" $(nm -D --defined-only "$SO" | awk '{print $3}' | tr '\n' ' ') "
		for p in prog_urandom prog_urandom_fortify prog_readlink_fortify prog_localtime; do
			seen=0
			for sym in $(nm -D --undefined-only "$d/$p" | awk '{print $2}' | sed 's/@.*//'); do
				# fopen is left to stdio on purpose (urandom_stdio.c).
				case $sym in
				fopen*) ;;
				open*|__open*|read*|__read*|pread*|close*|dup*|fcntl*|__fcntl*|fdopen|fclose|freopen*|daemon|getrandom|getentropy|\
				localtime|__localtime64|mktime|__mktime64|timelocal|ctime|__ctime64|tzset)
					seen=$((seen + 1))
					case $exp in
					*" $sym "*) ok "$t: $p calls $sym, which fastpath.so exports" ;;
					*) fail "$t: $p calls $sym, which fastpath.so does not wrap" ;;
					esac ;;
				esac
			done
			# An empty nm listing must not pass by checking nothing.
			[ "$seen" -ge 2 ] || fail "$t: $p: only $seen wrapped calls found by nm" \
				"$(nm -D --undefined-only "$d/$p" 2>&1 | head -5)"
		done
	fi
	if [ -z "$RUN" ]; then
		if [ -n "${FASTPATH_TEST_NO_I386:-}" ]; then
			# Forced: make check-m32 ran them; not a skip of this machine.
			echo "not run - $t: $NORUN_WHY"
		else
			skip "$t: running" "$NORUN_WHY"
		fi
		continue
	fi

	# Every entry point, observation by observation, native vs preloaded.
	# On musl two of its exec checks fail natively too (a device fd that
	# musl leaves to the exec'd child); what matters is the same result.
	"$d/prog_urandom" >"$T_TMP/n" 2>&1
	rc=$?
	[ "$flavour" = musl ] || precond "$t: prog_urandom passes natively" [ "$rc" -eq 0 ]
	stats_run "$T_TMP/st" env LD_PRELOAD="$SO" "$d/prog_urandom" >"$T_TMP/f" 2>&1
	expect_eq "$t: prog_urandom: same exit status as native" $rc $?
	expect_eq "$t: prog_urandom: same checks failed as native" \
		"$(sed -n 's/.* passed, //p' "$T_TMP/n")" "$(sed -n 's/.* passed, //p' "$T_TMP/f")"
	grep -v passed, "$T_TMP/n" >"$T_TMP/nu"
	grep -v passed, "$T_TMP/f" >"$T_TMP/fu"
	if [ "$(wc -l <"$T_TMP/nu")" -gt 60 ] && cmp -s "$T_TMP/nu" "$T_TMP/fu"; then
		ok "$t: prog_urandom observations identical to native"
	else
		fail "$t: prog_urandom observations differ" "$(diff "$T_TMP/nu" "$T_TMP/fu" | head -20)"
	fi
	# Its own record, not its children's: the parent opens the device too.
	n=$(stats_get "$T_TMP/st" ur_opens)
	if [ "${n:-0}" -gt 0 ]; then ok "$t: the pool served $n opens (the shim is active)"
	else fail "$t: the shim did not act" "$(cat "$T_TMP/st" 2>/dev/null)"; fi

	# Issue 25's cases in both modes; on i386 without large-file
	# support (m32/plain) F_GETFL and fdinfo show no O_LARGEFILE.
	"$d/prog_urandom_seen" >"$T_TMP/sn" 2>&1
	for M in exact reserve; do
		FASTPATH_URANDOM=$M pre "$d/prog_urandom_seen" >"$T_TMP/sf" 2>&1
		if [ "$(wc -l <"$T_TMP/sn")" -gt 100 ] && cmp -s "$T_TMP/sn" "$T_TMP/sf"; then
			ok "$t: prog_urandom_seen ($M) identical to native"
		else
			fail "$t: prog_urandom_seen ($M) differs" "$(diff "$T_TMP/sn" "$T_TMP/sf" | head -20)"
		fi
	done

	S=$d/prog_urandom_stress
	check "$t: forks share no block" pre "$S" forks 200
	check "$t: 4 threads, no repeated block" pre "$S" threads 4 20000
	check "$t: fork while the pool lock is held" timeout 120 env LD_PRELOAD="$SO" "$S" forklock 100
	check "$t: signal handler reads" timeout 900 env LD_PRELOAD="$SO" "$S" signal 1
	check "$t: noclo cycles" pre "$S" cycles 2000 noclo

	# readlink: the kernel as oracle (small: 2000 sockets, 200 pipes).
	"$d/prog_readlink_oracle" 2000 200 >"$T_TMP/o" 2>&1
	rc=$?
	if [ $rc -eq 77 ]; then
		skip "$t: readlink oracle" "$(cat "$T_TMP/o")"
	else
		precond "$t: readlink oracle passes natively" [ "$rc" -eq 0 ]
		stats_run "$T_TMP/ost" env LD_PRELOAD="$SO" "$d/prog_readlink_oracle" 2000 200 \
			>"$T_TMP/o" 2>&1
		expect_eq "$t: readlink oracle under fastpath" 0 $?
		s=$(stats_get "$T_TMP/ost" rl_short)
		if [ "${s:-0}" -gt 2000 ]; then ok "$t: $s readlinks short-circuited"
		else fail "$t: readlink not short-circuited" "$(cat "$T_TMP/ost")"; fi
	fi

	# cpus, and wrappers called from a library constructor before ours.
	out=$(FASTPATH_CPUS=3 pre "$d/prog_early")
	case $out in
	"ncpus=3 urandom_read=16 link=socket:["*) ok "$t: early constructor: $out" ;;
	*) fail "$t: early constructor" "$out" ;;
	esac

	# localtime: glibc's (m32, its 64-bit time too in lfs) takes TZ and
	# counts every call; musl reads the zone once: nothing to do there.
	env -u TZ "$d/prog_localtime" all >"$T_TMP/ltn" 2>&1
	stats_run "$T_TMP/lst" env -u TZ LD_PRELOAD="$SO" FASTPATH_TZ=1 "$d/prog_localtime" all \
		>"$T_TMP/ltf" 2>&1
	if [ "$(wc -l <"$T_TMP/ltn")" -gt 40 ] && cmp -s "$T_TMP/ltn" "$T_TMP/ltf"; then
		ok "$t: prog_localtime all: as natively under FASTPATH_TZ=1"
	else
		fail "$t: prog_localtime all differs" "$(diff "$T_TMP/ltn" "$T_TMP/ltf" | head -10)"
	fi
	zone=$(zone_of /etc/localtime)
	want="TZ $zone" field='localtime [1-9][0-9]* calls, TZ set'
	[ -n "$zone" ] || want="TZ (unset)" field='localtime [1-9][0-9]* calls, TZ unnamed'
	[ "$flavour" = musl ] && want="TZ (unset)" field='localtime 0 calls, TZ native'
	expect_eq "$t: FASTPATH_TZ=1: the program's TZ" "$want" \
		"$(env -u TZ LD_PRELOAD="$SO" FASTPATH_TZ=1 "$d/prog_localtime" env)"
	if grep -Eq "; $field\$" "$T_TMP/lst"; then ok "$t: summary: $field"
	else fail "$t: summary field: want $field" "$(cat "$T_TMP/lst")"; fi

	# First calls (t_firstcall.sh's check, on this build): every name the
	# object exports has an entry, and each entry's first call leaves
	# dlerror, errno and the environment as natively.  On musl, system()
	# starts the system's shell, a glibc program our musl object cannot
	# be preloaded into (exit 127): its line is left out.
	"$d/prog_firstcall" list | sort -u >"$T_TMP/fcl"
	missing=$(nm -D --defined-only "$SO" | awk '$2 ~ /^[TWi]$/ { print $3 }' | sort -u | comm -23 - "$T_TMP/fcl")
	if [ "$(wc -l <"$T_TMP/fcl")" -gt 50 ] && [ -z "$missing" ]; then
		ok "$t: every export of fastpath.so has an entry in prog_firstcall"
	else
		fail "$t: every export of fastpath.so has an entry in prog_firstcall" "none for: $(echo "$missing" | tr '\n' ' ')"
	fi
	drop='^$'
	[ "$flavour" = musl ] && drop='^system '
	env -u TZ "$d/prog_firstcall" all 2>/dev/null | grep -v "$drop" >"$T_TMP/fcn"
	for s in "" FASTPATH_TZ=1 FASTPATH_GETRANDOM=1 FASTPATH_URANDOM=reserve FASTPATH_CPUS=2; do
		env -u TZ LD_PRELOAD="$SO" $s "$d/prog_firstcall" all 2>/dev/null | grep -v "$drop" >"$T_TMP/fcf"
		if [ "$(grep -c ' ret=' "$T_TMP/fcn")" -gt 80 ] && cmp -s "$T_TMP/fcn" "$T_TMP/fcf"; then
			ok "$t: first calls${s:+ ($s)}: dlerror, errno and the environment as natively"
		else
			fail "$t: first calls${s:+ ($s)} differ from native" "$(diff "$T_TMP/fcn" "$T_TMP/fcf" | head -10)"
		fi
	done

	if [ "$flavour" = m32 ]; then
		check "$t: fortified urandom program" pre "$d/prog_urandom_fortify"
		check "$t: fortified readlink program" pre "$d/prog_readlink_fortify"
	fi
done
finish
