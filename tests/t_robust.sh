#!/bin/sh
# SPDX-License-Identifier: MIT
# What real programs do to a preload (issue 24): small stacks, signal
# handlers and fork children call us, and callers pass sizes larger than
# their buffers.  Each case of tests/prog_robust runs natively (the
# oracle) and under fastpath.so with every setting, bounded by timeout.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_robust
if ! command -v timeout >/dev/null 2>&1; then
	skip "prog_robust" "timeout is not installed (Debian: coreutils)"
	finish
	exit
fi
mkdir -p "$T_TMP/survey"
FILTER=

# Every setting a program may run under: one assignment list each.
SETTINGS="unset|FASTPATH_CPUS=4|FASTPATH_CPUS=64|FASTPATH_URANDOM=exact|FASTPATH_URANDOM=reserve|FASTPATH_URANDOM=reserve FASTPATH_CPUS=4|FASTPATH_GETRANDOM=1|FASTPATH_SURVEY=$T_TMP/survey|FASTPATH_SURVEY=$T_TMP/survey FASTPATH_CPUS=4|FASTPATH_DEBUG=1 FASTPATH_CPUS=4"

# robust MODE [ARG...]: the same lines and exit status as natively, in time
# (each run under $FILTER, a command and its arguments, where set).
robust() {
	# shellcheck disable=SC2086 # the filter's command and arguments
	native=$(timeout 20 $FILTER "$P" "$@" 2>&1)
	nrc=$?
	precond "prog_robust $*${FILTER:+ (${FILTER##* })}: runs natively" [ "$nrc" -eq 0 ] || return 0
	old_ifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086 # one setting per field
	set -- "$@" -- $SETTINGS
	IFS=$old_ifs
	args=
	while [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	shift
	for s in "$@"; do
		# shellcheck disable=SC2086 # the settings and the arguments, a word each
		got=$(env LD_PRELOAD="$FASTPATH_SO" ${s#unset} timeout 20 $FILTER "$P" $args 2>/dev/null)
		rc=$?
		[ "$s" = unset ] && s="no setting"
		s=$(printf "%s" "$s" | sed "s|$T_TMP/|T/|g")
		label="$s${FILTER:+, ${FILTER##* }}"
		expect_eq "prog_robust$args [$label]: exit status" 0 "$rc"
		expect_eq "prog_robust$args [$label]: as natively" "$(expected "$native" "$s")" "$got"
	done
}

# What a run under setting $2 says where the native run ($1) says the
# machine's CPU count: the count the setting gives.
expected() {
	case $2 in
	*FASTPATH_CPUS=*)
		n=${2#*FASTPATH_CPUS=}
		n=${n%% *}
		printf '%s\n' "$1" | sed "s/^[0-9][0-9]* [0-9][0-9]*\$/$n $n/"
		;;
	*) printf '%s\n' "$1" ;;
	esac
}

robust thread
robust altstack
# A handler's siglongjmp out of every async-signal-safe call a mitigation
# answers (readlink, the CPU files and their seeks, the CPU count and
# masks, the device): no descriptor of ours left, no mask, no errno, no
# lock (the object before a5cecc5 left 296 /proc/stat descriptors from
# 3000 seeks under FASTPATH_CPUS=4).
robust jumps
# The stack a handler's calls take where they are the process's first (a
# 64 KiB sigaltstack; the bytes of it touched): under every setting within
# DEPTH_BUDGET of native's.  Where a first call makes the loader bind an
# import of ours, it takes 2 KiB more (the vector registers it saves): a
# handler on a small alternate stack then crashes where native runs.  The
# shipped object only: a sanitizer's or another compiler's frames are not
# its frames.
: "${DEPTH_BUDGET:=1536}"
# What the loader saves is the CPU's vector state: 2.5 KB with AVX-512,
# under 1 KB without, where a lazy link would stay within the budget.  So
# the link itself is checked too, on every machine: imports bound at load.
if [ "$FASTPATH_SO" = "$TOP/fastpath.so" ] && command -v readelf >/dev/null 2>&1; then
	expect_eq "fastpath.so binds its imports at load (BIND_NOW: no lazy resolution on a handler's stack)" yes \
		"$(readelf -d "$FASTPATH_SO" | grep -q 'FLAGS.*BIND_NOW\|FLAGS_1.*NOW' && echo yes)"
fi
native=$(timeout 20 "$P" altdepth 2>&1)
if [ "$FASTPATH_SO" != "$TOP/fastpath.so" ]; then
	skip "prog_robust altdepth" "not the shipped object ($FASTPATH_SO): its frames are another build's"
elif precond "prog_robust altdepth: runs natively" expr "$native" : 'handler ok depth [0-9]*$'; then
	nd=${native##* }
	old_ifs=$IFS
	IFS='|'
	for s in $SETTINGS; do
		IFS=$old_ifs
		# shellcheck disable=SC2086 # the setting's assignments, a word each
		got=$(env LD_PRELOAD="$FASTPATH_SO" ${s#unset} timeout 20 "$P" altdepth 2>/dev/null)
		[ "$s" = unset ] && s="no setting"
		s=$(printf "%s" "$s" | sed "s|$T_TMP/|T/|g")
		case $got in
		"handler ok depth "*) d=${got##* } ;;
		*) d= ;;
		esac
		if [ -n "$d" ] && [ "$d" -le $((nd + DEPTH_BUDGET)) ]; then
			ok "prog_robust altdepth [$s]: $d bytes of stack, native $nd (budget +$DEPTH_BUDGET)"
		else
			fail "prog_robust altdepth [$s]: within $DEPTH_BUDGET bytes of native's $nd" "$got"
		fi
	done
	IFS=$old_ifs
fi
robust sigalrm
# The C library's own dup2 onto 0 (forkpty's login_tty): the child's
# read(0) is its terminal's, not the device's (a cold review).
robust forkpty
robust login_tty
robust login_tty_fails
robust bigset
robust nsfd
# Masks and sizes the kernel refuses: EFAULT and EINVAL, as natively (a
# NULL or unmapped mask segfaulted under the cap).  A NULL path is the
# kernel's EFAULT under every setting.
robust badmask
case $FASTPATH_SO in
*:*)
	# A sanitizer runtime preloaded first (check-sanitize) reads the
	# path in its own interceptors of fopen and readlink, and faults.
	skip "prog_robust badpath" "a runtime that must come first is preloaded with fastpath.so (ASan): its interceptors read the path"
	;;
*)
	robust badpath null
	# An invalid non-NULL path: EFAULT natively; with every mitigation
	# that reads paths off, fastpath never reads it (it segfaulted).
	# With one on, it faults: a documented difference (fastpath(7)).
	native=$(timeout 20 "$P" badpath bad 2>&1)
	for s in "FASTPATH_DISABLE=urandom,readlink" "FASTPATH_DISABLE=urandom,readlink FASTPATH_URANDOM=reserve"; do
		# shellcheck disable=SC2086 # the settings, a word each
		expect_eq "prog_robust badpath bad [$s]: as natively" "$native" \
			"$(env LD_PRELOAD="$FASTPATH_SO" $s timeout 20 "$P" badpath bad 2>&1)"
	done
	expect_eq "prog_robust badpath bad [interpose --no-urandom --no-readlink]: as natively" "$native" \
		"$(timeout 20 "$INTERPOSE" --no-urandom --no-readlink -- "$P" badpath bad 2>&1)"
	;;
esac
# A child hung in 1-5% of attempts before: 300 attempts fail on that object.
robust forkask 300
# The same programs once the main thread has exited (pthread_exit), every
# setting: /proc/self has no descriptors and process_vm_readv(getpid())
# fails then, which froze a served copy (a434032) and failed a good mask
# with EFAULT under the cap (18e140a: orphan badmask's size-4 cells).
robust orphan thread
robust orphan badmask
robust orphan jumps
robust orphan forkask 100
# Under a filter that kills what a hardened service's filter denies
# (prog_urandom_seccomp SERVICE: systemd's @debug set, process_vm_readv/
# writev among it, and what @system-service leaves out), the same: no call
# of ours is one of those (an exec under the cap was killed, a434032:
# t_cpus); and where the same calls are refused with EPERM (REFUSE, as
# Docker's profile answers process_vm_*), the same again.
"$TESTBIN/prog_urandom_seccomp" SERVICE true >/dev/null 2>&1
if [ $? -eq 77 ]; then
	skip "prog_robust under a service's seccomp filter" "no seccomp filter here"
else
	FILTER="$TESTBIN/prog_urandom_seccomp SERVICE"
	for m in thread altstack sigalrm badmask jumps "orphan badmask" "orphan jumps"; do
		# shellcheck disable=SC2086 # the mode and its argument, a word each
		robust $m
	done
	FILTER="$TESTBIN/prog_urandom_seccomp REFUSE"
	for m in badmask jumps "orphan badmask"; do
		# shellcheck disable=SC2086 # the mode and its argument, a word each
		robust $m
	done
	FILTER=
fi

# Any preload order an operator writes: with the C library listed before
# fastpath.so, nothing comes after us to bind (dlsym(RTLD_NEXT) is NULL)
# and a NULL was called; now the real functions come from the global
# scope, programs run exactly as natively (libc's functions come first, so
# the cap is not reached either), and FASTPATH_DEBUG says so once.
case $FASTPATH_SO in
*:*) order_skip="a runtime that must come first is preloaded with fastpath.so (ASan)" ;;
*) order_skip= ;;
esac
if ! ldd /bin/sh 2>/dev/null | grep -q 'libc\.so\.6'; then
	skip "LD_PRELOAD=\"libc.so.6 fastpath.so\"" "the C library here is not libc.so.6 (glibc)"
elif [ -n "$order_skip" ]; then
	skip "LD_PRELOAD=\"libc.so.6 fastpath.so\"" "$order_skip"
else
	for cmd in "sh -c 'echo hi; exit 3'" "ls -d /" "$P thread" "getconf _NPROCESSORS_ONLN"; do
		native=$(sh -c "$cmd" 2>&1)
		nrc=$?
		got=$(env LD_PRELOAD="libc.so.6 $FASTPATH_SO" FASTPATH_CPUS=4 sh -c "$cmd" 2>&1)
		grc=$?
		expect_eq "LD_PRELOAD=\"libc.so.6 fastpath.so\" $cmd: exit status" "$nrc" "$grc"
		expect_eq "LD_PRELOAD=\"libc.so.6 fastpath.so\" $cmd: output" "$native" "$got"
	done
	env LD_PRELOAD="libc.so.6 $FASTPATH_SO" FASTPATH_DEBUG=1 "$P" thread >/dev/null 2>"$T_TMP/order"
	expect_eq "LD_PRELOAD=\"libc.so.6 fastpath.so\": FASTPATH_DEBUG says so once" 1 \
		"$(grep -c 'come before fastpath.so in the search order' "$T_TMP/order")"
fi

# A survey record's program name is the exec'd file's (issue 40), not
# argv[0]: a hostile argv[0] (an escape sequence, a newline and a forged
# line, however long: the sanitiser was once skipped past 190 bytes) must
# leave the record of /bin/true named "true", with one pid line and no
# escape byte, and the report must print no escape to the operator.
if [ -z "$PYTHON" ]; then
	skip "survey record of a hostile argv[0]" "python3 is not installed"
else
	for len in 20 185 191 400; do
		d=$T_TMP/sv-$len
		mkdir -p "$d"
		env LD_PRELOAD="$FASTPATH_SO" FASTPATH_SURVEY="$d" "$PYTHON" -c '
import os, sys
os.execv("/bin/true", ["x\x1b[2J\npid 1" + "A" * int(sys.argv[1])])' "$len"
		rec=$(grep -l '^prog true$' "$d"/*.rec 2>/dev/null | head -n 1)
		if [ -z "$rec" ]; then
			fail "survey record of a hostile argv[0] ($len): written" "$(ls -a "$d")"
			continue
		fi
		expect_eq "survey record of a hostile argv[0] ($len): one pid line" 1 \
			"$(grep -c '^pid ' "$rec")"
		expect_eq "survey record of a hostile argv[0] ($len): no escape byte" 0 \
			"$(tr -cd '\033' <"$rec" | wc -c | tr -d ' ')"
		expect_eq "survey records of a hostile argv[0] ($len): none carries it" "" \
			"$(grep -l 'AAAA' "$d"/*.rec 2>/dev/null)"
		"$INTERPOSE" --survey-report "$d" >"$T_TMP/rep" 2>&1
		expect_eq "survey report of a hostile argv[0] ($len): no escape byte" 0 \
			"$(tr -cd '\033' <"$T_TMP/rep" | wc -c | tr -d ' ')"
	done
fi

# /proc of another pid namespace: in `unshare -p -f` without a /proc of
# its own, getpid() is 1 and /proc/1 is the parent namespace's init, not
# us; /proc/self is still us (test_readlink forces both answers where this
# cannot run).
if [ "$(id -u)" -ne 0 ]; then
	skip "nsfd in a new pid namespace" "needs root (unshare -p)"
elif ! unshare -p -f --kill-child true 2>/dev/null; then
	skip "nsfd in a new pid namespace" "unshare -p -f --kill-child is not permitted here"
else
	native=$(timeout 20 unshare -p -f --kill-child "$P" nsfd 2>&1)
	precond "nsfd in a new pid namespace: /proc/<getpid()> is not us natively ($native)" \
		expr "$native" : 'pid other.* self ours$'
	for s in unset FASTPATH_CPUS=4; do
		# shellcheck disable=SC2086 # the setting, a word
		expect_eq "nsfd in a new pid namespace [$s]: as natively" "$native" \
			"$(timeout 20 unshare -p -f --kill-child env LD_PRELOAD="$FASTPATH_SO" ${s#unset} \
				"$P" nsfd 2>&1)"
	done
fi

# An endless file bound over /proc/stat (a chroot with /dev/zero there):
# a program that reads 4 KiB of it gets them, as natively; the cap's copy
# must not read it to the end (it once grew its buffer until mmap failed,
# here bounded by ulimit -v, elsewhere by the OOM killer).
if [ "$(id -u)" -ne 0 ]; then
	skip "endless /proc/stat" "needs root for a mount namespace (unshare -m)"
elif ! unshare -m true 2>/dev/null; then
	skip "endless /proc/stat" "unshare -m is not permitted here"
else
	for s in unset FASTPATH_CPUS=4 FASTPATH_CPUS=64; do
		# shellcheck disable=SC2016,SC3045 # the inner shell expands these;
		# ulimit -v: dash, bash and busybox sh have it (not under ASan,
		# whose shadow memory is a reservation of terabytes)
		got=$(case $FASTPATH_SO in *asan*) ;; *) ulimit -v 4000000 ;; esac
			timeout 20 unshare -m sh -c \
			'mount --bind /dev/zero /proc/stat && exec env "$@"' sh \
			LD_PRELOAD="$FASTPATH_SO" ${s#unset} "$P" endless 2>&1)
		expect_eq "endless /proc/stat [$s]: the program reads 4 KiB" "read 4096" "$got"
	done
fi
finish
