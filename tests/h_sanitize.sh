#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-sanitize: fastpath under the compiler's sanitizers.
#   UBSan  fastpath.so and the integration programs built with
#          -fsanitize=undefined -fno-sanitize-recover=all; the programs run
#          directly and through the integration scripts (tests/t_*.sh).
#   ASan   fastpath.so built with -fsanitize=address,undefined and loaded
#          as cwrap does, LD_PRELOAD=libasan.so:fastpath.so (the runtime
#          first), into the ordinary programs and the integration scripts;
#          the cmocka unit tests built with -fsanitize=address,undefined.
# Reports go to files (log_path), so a report from a process whose stderr a
# script hides, or from a system tool the scripts run preloaded, still
# fails the check.  Builds live under tests/bin/san/.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

CC=${CC:-gcc}
B=$TOP/tests/bin/san
R=$T_TMP/reports
mkdir -p "$B/ubsan" "$B/asan" "$B/unit" "$R"

if ! echo 'int main(void){return 0;}' |
	$CC -fsanitize=address,undefined -x c - -o "$T_TMP/probe" 2>/dev/null; then
	skip sanitize "$CC cannot build with -fsanitize=address,undefined (Debian: gcc, libasan, libubsan)"
	finish
	exit
fi
LIBASAN=$($CC -print-file-name=libasan.so)
case $LIBASAN in
/*) ;;
*) LIBASAN= ;;
esac

UB="-fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
AS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# The test programs pass NULL to open, read and readlink on purpose (libc's
# EFAULT contract): UBSan's nonnull-attribute check would stop them at the
# call site, in their own code.  So it is off for the programs and the unit
# tests (which compile the call sites and our code as one unit), and on for
# fastpath.so, whose every call with a caller's pointer it still checks.
TESTSAN=-fno-sanitize=nonnull-attribute
W="-Wall -Wextra -Werror"
SRCS="$(echo ./*.c)"
PROGS="prog_survey_jump prog_seccomp_exit prog_urandom prog_urandom_limit prog_urandom_kin prog_syscall prog_urandom_fortify prog_urandom_stress prog_urandom_closed prog_urandom_exec prog_urandom_seen prog_urandom_core
	prog_readlink_oracle prog_readlink_fortify prog_readlink_hold prog_readlink_lister prog_early
	prog_cpus prog_cpus_fortify prog_robust prog_children prog_pooln prog_vfork prog_urandom_stall prog_urandom_seccomp
	prog_watchdog prog_localtime prog_firstcall prog_urandom_forkrace prog_sandbox"

so() {
	# so OUT FLAGS: fastpath.so with these sanitizer flags
	out=$1
	shift
	# shellcheck disable=SC2086 # word lists
	$CC -D_GNU_SOURCE -DFASTPATH_VERSION='"sanitize"' -std=gnu11 -fPIC -pthread \
		$W -O1 -g "$@" -shared -fvisibility=hidden -Wl,-z,now -o "$out" $SRCS -ldl
}

progs() {
	# progs DIR FLAGS: the integration programs, as the Makefile builds them
	d=$1
	shift
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g -pthread $W "$@" -fPIC -shared \
		-o "$d/libearly.so" tests/libearly.c || return 1
	# The preload t_cpus puts after ours (a wrapper of sched_getcpu).
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g $W "$@" -fPIC -shared \
		-o "$d/libgetcpu_wrap.so" tests/libgetcpu_wrap.c -ldl || return 1
	# t_fdfuzz.sh's fuzzer and its negative control.
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g $W "$@" -fPIC -shared \
		-o "$d/libfdfuzz_liar.so" tests/libfdfuzz_liar.c -ldl || return 1
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g -pthread $W "$@" -o "$d/fd_fuzz" fuzz/fd_fuzz.c || return 1
	# t_cpusfuzz.sh's fuzzer.
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g -pthread $W "$@" -o "$d/cpus_fuzz" fuzz/cpus_fuzz.c || return 1
	# t_urandom.sh's split-race: a close held up after ours.
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g $W "$@" -fPIC -shared \
		-o "$d/libslow.so" tests/libslow.c -ldl || return 1
	# t_firstcall.sh's negative control, and its early runs' library.
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g $W "$@" -fPIC -shared \
		-o "$d/libfirstcall_liar.so" tests/libfirstcall_liar.c -ldl || return 1
	# shellcheck disable=SC2086
	$CC -D_GNU_SOURCE -std=gnu11 -O1 -g $W "$@" -fPIC -shared \
		-o "$d/libfirstcall_early.so" tests/libfirstcall_early.c || return 1
	for p in $PROGS; do
		case $p in
		*_fortify) extra="-O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2" ;;
		*) extra= ;;
		esac
		lib=
		[ "$p" = prog_early ] && lib="-L$d -Wl,-rpath,$d -learly"
		# fc_early, which libfirstcall_early.so's constructor calls.
		[ "$p" = prog_firstcall ] && lib=-rdynamic
		# shellcheck disable=SC2086
		$CC -D_GNU_SOURCE -std=gnu11 -O1 -g -pthread $W "$@" $extra \
			-o "$d/$p" "tests/$p.c" $lib -ldl || return 1
	done
}

units() {
	# units DIR FLAGS: the cmocka suites, which #include the sources
	d=$1
	shift
	for t in tests/test_*.c; do
		n=${t##*/}
		# shellcheck disable=SC2086
		$CC -D_GNU_SOURCE -DFP_UNIT_TEST -std=gnu11 -O1 -g -pthread -fPIC $W "$@" -I. \
			-o "$d/${n%.c}" "$t" -lcmocka -ldl || return 1
	done
}

# reports NAME: passes when no sanitizer report was written since the last
# call; a report fails NAME with its first lines, and is then cleared.
reports() {
	set -- "$1" "$R"/*
	if [ ! -e "$2" ]; then
		ok "$1: no sanitizer report"
		return
	fi
	fail "$1: sanitizer report" "$(cat "$R"/* | head -c 3000)"
	rm -f "$R"/*
}

export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$R/ubsan"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:log_path=$R/asan"

# ---- the harness catches a report (else silence proves nothing) -----------
printf 'int main(int c, char **v){ int x = 0x7fffffff; (void)v; return x + c > 0; }\n' >"$T_TMP/ub.c"
# shellcheck disable=SC2086
$CC $UB -x c "$T_TMP/ub.c" -o "$T_TMP/ub"
"$T_TMP/ub" >/dev/null 2>&1
set -- "$R"/ubsan.*
# A fact about the harness, not a pass of fastpath.
precond "harness: a deliberate signed overflow is reported to a file" \
	grep -q 'signed integer overflow' "$1"
rm -f "$R"/*

# ---- builds ------------------------------------------------------------------
# shellcheck disable=SC2086
check "ubsan: fastpath.so builds warning-free" so "$B/ubsan/fastpath.so" $UB
# shellcheck disable=SC2086
check "ubsan: integration programs build warning-free" progs "$B/ubsan" $UB $TESTSAN
# shellcheck disable=SC2086
check "asan: fastpath.so builds warning-free" so "$B/asan/fastpath.so" $AS
if [ -f /usr/include/cmocka.h ]; then
	# shellcheck disable=SC2086
	check "asan+ubsan: cmocka unit tests build warning-free" units "$B/unit" $AS $TESTSAN
else
	skip "asan+ubsan: unit tests" "cmocka not installed (Debian: libcmocka-dev)"
fi

# ---- UBSan: the programs, natively and preloaded -----------------------------
UBSO=$B/ubsan/fastpath.so
if [ -x "$B/ubsan/prog_early" ] && [ -f "$UBSO" ]; then
	d=$B/ubsan
	u() { env LD_PRELOAD="$UBSO" "$@"; }
	"$d/prog_urandom" >"$T_TMP/n" 2>&1
	precond "ubsan: prog_urandom passes natively" [ $? -eq 0 ]
	FASTPATH_STATS=1 FASTPATH_DEBUG=1 u "$d/prog_urandom" >"$T_TMP/f" 2>"$T_TMP/fe"
	expect_eq "ubsan: prog_urandom preloaded (stats, debug)" 0 $?
	grep -v passed, "$T_TMP/n" >"$T_TMP/nu"
	grep -v passed, "$T_TMP/f" >"$T_TMP/fu"
	if cmp -s "$T_TMP/nu" "$T_TMP/fu"; then ok "ubsan: prog_urandom observations identical to native"
	else fail "ubsan: prog_urandom observations differ" "$(diff "$T_TMP/nu" "$T_TMP/fu" | head)"; fi
	check "ubsan: prog_urandom_fortify" u "$d/prog_urandom_fortify"
	check "ubsan: readlink oracle 3000 300" u "$d/prog_readlink_oracle" 3000 300
	check "ubsan: readlink oracle, debug" env FASTPATH_DEBUG=1 LD_PRELOAD="$UBSO" \
		"$d/prog_readlink_oracle" 50 10
	check "ubsan: prog_readlink_fortify" u "$d/prog_readlink_fortify"
	check "ubsan: stress forks 50" u "$d/prog_urandom_stress" forks 50
	check "ubsan: stress threads 4 20000" u "$d/prog_urandom_stress" threads 4 20000
	check "ubsan: stress forklock 30" u "$d/prog_urandom_stress" forklock 30
	check "ubsan: stress signal 1" u "$d/prog_urandom_stress" signal 1
	check "ubsan: stress cycles noclo" u "$d/prog_urandom_stress" cycles 3000 noclo
	check "ubsan: stress cycles random" u "$d/prog_urandom_stress" cycles 3000 random
	check "ubsan: getrandom pooled" env FASTPATH_GETRANDOM=1 LD_PRELOAD="$UBSO" \
		"$d/prog_urandom_stress" cycles 3000 getrandom
	out=$(FASTPATH_CPUS=3 FASTPATH_STATS=1 u "$d/prog_early" 2>/dev/null)
	case $out in
	"ncpus=3 urandom_read=16 link=socket:["*) ok "ubsan: early constructor: $out" ;;
	*) fail "ubsan: early constructor" "$out" ;;
	esac
	# Malformed settings reach every parser and the warning formatter.
	long=$(printf '%0300d' 7)
	check "ubsan: malformed settings" env FASTPATH_CPUS="$long" FASTPATH_DISABLE="x,$long" \
		FASTPATH_DEBUG="$long" FASTPATH_STATS="/$long/$long/$long/$long/$long" \
		LD_PRELOAD="$UBSO" "$d/prog_early"
	reports "ubsan: the programs"

	# ---- UBSan: the integration scripts over the UBSan builds ---------------
	for t in tests/t_*.sh; do
		# t_interpose*.sh test how `interpose` finds fastpath.so itself.
		case $t in tests/t_interpose*.sh) continue ;; esac
		# t_survey_report.sh is the awk report's: no object of ours in it.
		[ "$t" = tests/t_survey_report.sh ] && continue
		FASTPATH_SO=$UBSO TESTBIN=$d sh "$t" >"$T_TMP/out" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then ok "ubsan: ${t##*/}: $(tail -n 1 "$T_TMP/out")"
		else fail "ubsan: ${t##*/}" "$(grep -A3 FAIL "$T_TMP/out" | head -30)"; fi
		reports "ubsan: ${t##*/}"
	done
fi

# ---- ASan: LD_PRELOAD=libasan.so:fastpath.so, as cwrap runs ----------------
ASO=$B/asan/fastpath.so
if [ -z "$LIBASAN" ] || [ ! -f "$LIBASAN" ]; then
	skip asan "libasan.so not found ($CC -print-file-name=libasan.so)"
elif [ -f "$ASO" ]; then
	AP=$LIBASAN:$ASO
	a() { env LD_PRELOAD="$AP" "$@"; }
	# Proof that our object is live under the ASan runtime: the pool serves.
	stats_run "$T_TMP/ast" env LD_PRELOAD="$AP" "$TESTBIN/prog_urandom_stress" cycles 1000 >/dev/null 2>&1
	expect_eq "asan: fastpath.so active after libasan.so (pooled opens)" 1000 \
		"$(stats_get "$T_TMP/ast" ur_opens)"
	"$TESTBIN/prog_urandom" >"$T_TMP/n" 2>&1
	a "$TESTBIN/prog_urandom" >"$T_TMP/f" 2>&1
	expect_eq "asan: prog_urandom" 0 $?
	grep -v passed, "$T_TMP/n" >"$T_TMP/nu"
	grep -v passed, "$T_TMP/f" >"$T_TMP/fu"
	if cmp -s "$T_TMP/nu" "$T_TMP/fu"; then ok "asan: prog_urandom observations identical to native"
	else fail "asan: prog_urandom observations differ" "$(diff "$T_TMP/nu" "$T_TMP/fu" | head)"; fi
	check "asan: stress threads 4 20000" a "$TESTBIN/prog_urandom_stress" threads 4 20000
	check "asan: stress signal 1" a "$TESTBIN/prog_urandom_stress" signal 1
	check "asan: stress forks 50" a "$TESTBIN/prog_urandom_stress" forks 50
	check "asan: stress forklock 30" a "$TESTBIN/prog_urandom_stress" forklock 30
	check "asan: stress cycles noclo" a "$TESTBIN/prog_urandom_stress" cycles 3000 noclo
	# Both urandom modes: descriptors, the hidden one, the reserve, exec.
	"$TESTBIN/prog_urandom_closed" >"$T_TMP/cn" 2>&1
	for M in exact reserve; do
		export FASTPATH_URANDOM=$M
		a "$TESTBIN/prog_urandom_closed" >"$T_TMP/cf" 2>&1
		expect_eq "asan, $M: prog_urandom_closed" 0 $?
		[ $M = exact ] && check "asan, exact: closed numbers as native" cmp "$T_TMP/cn" "$T_TMP/cf"
		# /dev/random is pooled on Linux >= 5.6 only: "1 1" or "1 0".
		# readlink of a held number says ENOENT while that mitigation is on.
		# Reserve mode with threads: a slot per CPU, up to four a device.
		# Under soft descriptor limit 1024 (the hard one here may equal the
		# soft one: exact mode then keeps no descriptor, fastpath(7)).
		# shellcheck disable=SC3045 # ulimit -S: dash, bash and busybox sh have it
		h=$(ulimit -Sn 1024 2>/dev/null; FASTPATH_DISABLE=readlink a "$TESTBIN/prog_urandom_closed" hidden 4 2000 2>&1)
		most=1
		[ $M = reserve ] && most=4
		case $h in
		[1-$most]" "[0-$most]) ok "asan, $M: kept descriptors per pooled device ($h, at most $most)" ;;
		*) fail "asan, $M: kept descriptors per device (at most $most)" "$h" ;;
		esac
		check "asan, $M: stress tcycles 4 5000" a "$TESTBIN/prog_urandom_stress" tcycles 4 5000
		check "asan, $M: stress forks 50" a "$TESTBIN/prog_urandom_stress" forks 50
		for via in execve execl posix_spawn system popen; do
			expect_eq "asan, $M: $via leaves nothing open" "inherited 0" \
				"$(a "$TESTBIN/prog_urandom_exec" $via "$TESTBIN/prog_urandom_exec" 2>&1)"
		done
	done
	unset FASTPATH_URANDOM
	check "asan: getrandom pooled" env FASTPATH_GETRANDOM=1 LD_PRELOAD="$AP" \
		"$TESTBIN/prog_urandom_stress" cycles 3000 getrandom
	check "asan: prog_urandom_fortify" a "$TESTBIN/prog_urandom_fortify"
	check "asan: readlink oracle 3000 300" a "$TESTBIN/prog_readlink_oracle" 3000 300
	check "asan: prog_readlink_fortify" a "$TESTBIN/prog_readlink_fortify"
	if [ -n "$PYTHON" ]; then
		check "asan: python uuid4 x 2000" a "$PYTHON" -c \
			'import os, uuid; [uuid.uuid4() for _ in range(2000)]; [os.urandom(16) for _ in range(2000)]'
	fi
	expect_eq "asan: getconf with FASTPATH_CPUS=3" 3 \
		"$(FASTPATH_CPUS=3 a getconf _NPROCESSORS_ONLN 2>&1)"
	expect_eq "asan: nproc with FASTPATH_CPUS=2" 2 "$(FASTPATH_CPUS=2 a nproc 2>&1)"
	if [ -n "$PYTHON" ]; then
		expect_eq "asan: python cpu_count, affinity, sysconf with FASTPATH_CPUS=5" "5 5 5" \
			"$(FASTPATH_CPUS=5 a "$PYTHON" -c 'import os; print(os.cpu_count(), len(os.sched_getaffinity(0)), os.sysconf("SC_NPROCESSORS_ONLN"))' 2>&1)"
	fi
	reports "asan: the programs"
	for t in tests/t_*.sh; do
		case $t in tests/t_interpose*.sh) continue ;; esac
		[ "$t" = tests/t_survey_report.sh ] && continue
		# t_urandom.sh runs coreutils dd, whose aligned_alloc(4096, 16)
		# (allowed by C17 and glibc) ASan's allocator refuses and aborts:
		# a report about dd, not us.  Its programs ran above instead.
		[ "$t" = tests/t_urandom.sh ] && continue
		# t_cpus.sh starts some 500 processes: a minute under ASan's
		# start-up.  Its entry points run below, and under UBSan above.
		[ "$t" = tests/t_cpus.sh ] && continue
		# PostgreSQL's postgres -V hangs on a futex with libasan.so
		# preloaded alone (Debian 12: ASan 12 and postgres 15), before
		# any fastpath.so is in the process; a skip where it does.
		if [ "$t" = tests/t_survey_pg.sh ]; then
			pg=
			for f in /usr/lib/postgresql/*/bin/postgres; do [ -x "$f" ] && pg=$f; done
			if [ -n "$pg" ] && ! timeout 10 env LD_PRELOAD="$LIBASAN" "$pg" -V >/dev/null 2>&1; then
				skip "asan: ${t##*/}" "libasan.so alone hangs or fails $pg -V (no fastpath.so loaded)"
				continue
			fi
		fi
		FASTPATH_SO=$AP sh "$t" >"$T_TMP/out" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then ok "asan: ${t##*/}: $(tail -n 1 "$T_TMP/out")"
		else fail "asan: ${t##*/}" "$(grep -A3 FAIL "$T_TMP/out" | head -30)"; fi
		reports "asan: ${t##*/}"
	done
fi

# ---- ASan+UBSan: the unit tests, which hold fastpath's code itself ----------
# ASan's own readlink interceptor reads the path with strlen() before the
# call, so readlink(NULL, ...) crashes under ASan with or without us (the
# program below shows it).  test_readlink's test_odd_arguments makes that
# call on purpose; it alone may fail, and only when ASan is shown to crash.
printf '#include <unistd.h>\nint main(void){ char b[8]; const char *volatile p = 0; return readlink(p, b, 8) == -1 ? 0 : 1; }\n' >"$T_TMP/rl.c"
asan_rl_null=ok
# shellcheck disable=SC2086
if $CC $AS -x c "$T_TMP/rl.c" -o "$T_TMP/rl" 2>/dev/null && ! "$T_TMP/rl" >/dev/null 2>&1; then
	asan_rl_null=crashes
fi
rm -f "$R"/*
for t in "$B"/unit/test_*; do
	[ -x "$t" ] || continue
	"$t" >"$T_TMP/out" 2>&1
	rc=$?
	failed=$(sed -n 's/^\[  FAILED  \] \(test_[a-z0-9_]*\)$/\1/p' "$T_TMP/out" | sort -u | tr '\n' ' ')
	if [ $rc -eq 0 ]; then
		ok "asan+ubsan: ${t##*/}: $(grep PASSED "$T_TMP/out" | tail -n 1)"
	elif [ "${t##*/}:$failed:$asan_rl_null" = "test_readlink:test_odd_arguments :crashes" ]; then
		ok "asan+ubsan: ${t##*/}: all but test_odd_arguments"
		skip "asan+ubsan: test_readlink: test_odd_arguments" "readlink(NULL) crashes in this ASan's own interceptor"
	else
		fail "asan+ubsan: ${t##*/}" "$(grep -E 'FAIL|ERROR|error' "$T_TMP/out" | head -20)"
	fi
	reports "asan+ubsan: ${t##*/}"
done
finish
