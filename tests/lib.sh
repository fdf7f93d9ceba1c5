# SPDX-License-Identifier: MIT
# Shared helpers for tests/t_*.sh and tests/h_*.sh (POSIX sh).  Each script
# sources this, calls `ok`/`fail` (or `check`), `skip` for what this machine
# cannot run (never a pass), `precond` for what the checks rely on in the
# harness or the kernel (never a pass of fastpath either), and ends with
# `finish`, whose "N passed, N failed, K skipped" line is the script's last
# and the one that tests/run.sh adds up.
set -u
cd "$(dirname "$0")/.." || exit 2
TOP=$(pwd -P)
: "${FASTPATH_SO:=$TOP/fastpath.so}"
: "${TESTBIN:=$TOP/tests/bin}"
# shellcheck disable=SC2034 # used by the scripts that source this
INTERPOSE=$TOP/interpose
# What interpose puts in LD_PRELOAD for this tree: the object, or, where
# make built the i386 one too (libdirs: what $LIB is per class), the
# loader's token, DIR/$LIB/fastpath.so (interpose's both_classes).
# LIB_NATIVE and LIB_M32: those two directories, or empty.
LIB_NATIVE='' LIB_M32=''
if [ -f "$TOP/libdirs" ]; then
	LIB_NATIVE=$(sed -n 's/^native //p' "$TOP/libdirs")
	LIB_M32=$(sed -n 's/^m32 //p' "$TOP/libdirs")
fi
if [ -n "$LIB_NATIVE" ] && [ -n "$LIB_M32" ] && [ -f "$TOP/$LIB_NATIVE/fastpath.so" ] &&
	[ -f "$TOP/$LIB_M32/fastpath.so" ]; then
	# shellcheck disable=SC2016 # the loader's token
	FASTPATH_ENTRY=$TOP/'$LIB'/fastpath.so
else
	LIB_NATIVE='' LIB_M32=''
	# shellcheck disable=SC2034 # used by the scripts that source this
	FASTPATH_ENTRY=$TOP/fastpath.so
fi
# The real interpreter, not a version manager's shim script (pyenv's runs a
# dozen processes, each of which would print its own summary line).
PYTHON=
if command -v python3 >/dev/null 2>&1; then
	PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
fi
export PYTHON
T_PASSED=0
T_FAILED=0
T_SKIPPED=0
T_TMP=$(mktemp -d) || exit 2
trap 'rm -rf "$T_TMP"' EXIT

# UR_SOURCE: the urandom source the suites run under (make
# check-urandom-sources loops over them): unset or vdso, this kernel's
# default; kernel, the vDSO's getrandom forced absent (the test aid
# FASTPATH_TEST_NO_VDSO); reservoir, asked for (FASTPATH_URANDOM_SOURCE).
case ${UR_SOURCE:-} in
'' | vdso) ;;
kernel) export FASTPATH_TEST_NO_VDSO=1 ;;
reservoir) export FASTPATH_URANDOM_SOURCE=reservoir ;;
*) echo "UR_SOURCE: vdso, kernel or reservoir, not '$UR_SOURCE'" >&2; exit 2 ;;
esac

# ur_source_now [VAR=VALUE...]: the source the summary line names for a run
# under fastpath.so with those settings (vdso, kernel or reservoir).
ur_source_now() {
	env LD_PRELOAD="$FASTPATH_SO" FASTPATH_STATS=1 "$@" sh -c : 2>&1 >/dev/null |
		sed -n 's/.*, source \([a-z]*\), mode.*/\1/p'
}

# T_TAG, when set, prefixes every name ("[reserve] ..."): a script that runs
# its checks once per setting tells the runs apart.
T_TAG=
ok() { T_PASSED=$((T_PASSED + 1)); echo "ok - ${T_TAG:+[$T_TAG] }$1"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "FAIL - ${T_TAG:+[$T_TAG] }$1"; [ $# -gt 1 ] && printf '    %s\n' "$2"; return 0; }

# check NAME COMMAND...: passes when COMMAND exits 0.
check() {
	name=$1
	shift
	if "$@" >"$T_TMP/check.out" 2>&1; then
		ok "$name"
	else
		fail "$name" "$(head -c 2000 "$T_TMP/check.out")"
	fi
}

# pcheck NAME COMMAND...: check, in the background, T_JOBS at a time (the
# machine's CPUs: compile and lint checks, no timing in them);
# pcheck_end waits for them and reports each in the order given, as check
# does.  Nothing else may run in the background between the two.
T_JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
T_PN=0
pcheck() {
	T_PN=$((T_PN + 1))
	printf '%s\n' "$1" >"$T_TMP/pc.$T_PN.name"
	shift
	(
		"$@" >"$T_TMP/pc.$T_PN.out" 2>&1
		echo $? >"$T_TMP/pc.$T_PN.rc"
	) &
	[ $((T_PN % T_JOBS)) -ne 0 ] || wait
}
pcheck_end() {
	wait
	_i=1
	while [ "$_i" -le "$T_PN" ]; do
		if [ "$(cat "$T_TMP/pc.$_i.rc" 2>/dev/null)" = 0 ]; then
			ok "$(cat "$T_TMP/pc.$_i.name")"
		else
			fail "$(cat "$T_TMP/pc.$_i.name")" "$(head -c 2000 "$T_TMP/pc.$_i.out")"
		fi
		rm -f "$T_TMP/pc.$_i.name" "$T_TMP/pc.$_i.out" "$T_TMP/pc.$_i.rc"
		_i=$((_i + 1))
	done
	T_PN=0
}

# zone_of FILE: the zone name the localtime mitigation gives TZ for FILE
# (/etc/localtime): what it links to under a zoneinfo directory, as Java
# and ICU read it too; nothing for a copied file.
zone_of() { readlink "$1" 2>/dev/null | sed -n 's|.*zoneinfo/||p'; }

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected [$2], got [$3]"; fi
}

# skip NAME WHY: what this machine cannot run, with the reason; counted as
# skipped, never as passed.  tests/run.sh lists every skip at the end.
skip() { T_SKIPPED=$((T_SKIPPED + 1)); echo "skip - ${T_TAG:+[$T_TAG] }$1: $2"; }

# precond NAME COMMAND...: something the checks after it rely on that is a
# property of the harness, a tool or the kernel, not of fastpath (a native
# run of a test program, strace seeing a call).  When it holds it is shown
# as "pre - NAME" and counted nowhere; when it does not, it fails: the
# checks that rely on it would prove nothing.
precond() {
	name=$1
	shift
	if "$@" >"$T_TMP/check.out" 2>&1; then
		echo "pre - ${T_TAG:+[$T_TAG] }$name"
	else
		fail "precondition: $name" "$(head -c 2000 "$T_TMP/check.out")"
		return 1
	fi
}

# The summary line of one fastpath process (FASTPATH_STATS): "; "-separated
# fields, each a mitigation's name then "off" or its figures.  Which names,
# in which order, is the object's own registry (t_core.sh); each field's
# exact shape is its mitigation's script's (stats_field).
# shellcheck disable=SC2034 # used by the scripts that source this
FP_STATS_RE='^fastpath\[[0-9]+\]: [a-z]+ (off|[0-9][^;]*)(; [a-z]+ (off|[0-9][^;]*))*$'

# stats_run FILE COMMAND [ARG...]: runs COMMAND with FASTPATH_STATS set to
# FILE.all, a file made fresh for this run, and leaves in FILE the summary
# lines of the process it started and of no other: not its children's (a
# forked child writes its own), not an earlier run's.  COMMAND is exec'd by
# a shell that first writes its pid to FILE.pid, so the pid is known, not
# guessed.  Returns COMMAND's exit status.  Put LD_PRELOAD and other
# settings in COMMAND (env VAR=... PROGRAM).
stats_run() {
	_sf=$1
	shift
	rm -f "$_sf" "$_sf.all" "$_sf.pid"
	# shellcheck disable=SC2016 # the inner shell expands these
	FASTPATH_STATS=$_sf.all sh -c 'echo $$ >"$0" && exec "$@"' "$_sf.pid" "$@"
	_src=$?
	_spid=$(cat "$_sf.pid" 2>/dev/null)
	grep "^fastpath\[${_spid:-none}\]: " "$_sf.all" >"$_sf" 2>/dev/null
	return $_src
}

# stats_get FILE FIELD: one number from the summary line in FILE, or
# nothing unless FILE holds exactly one line and it has the documented
# shape.  FIELD: rl_short rl_calls ur_opens ur_reads ur_getrandom ur_sys
# ur_refills cpus_reported cpus_real cpus_queries.
stats_get() {
	[ -f "$1" ] && [ "$(wc -l <"$1")" -eq 1 ] && grep -Eq "$FP_STATS_RE" "$1" || return 0
	n='\([0-9][0-9]*\)'
	case $2 in
	rl_short) re="readlink $n short-circuited" ;;
	rl_calls) re="short-circuited of $n;" ;;
	ur_opens) re="urandom $n opens," ;;
	ur_reads) re="opens, $n reads," ;;
	ur_getrandom) re="reads, $n getrandom" ;;
	ur_sys) re=" $n syscalls," ;;
	ur_refills) re="syscalls, $n refills," ;;
	cpus_reported) re="cpus $n reported" ;;
	cpus_real) re="(real $n)" ;;
	cpus_queries) re=") to $n queries" ;;
	*) echo "stats_get: unknown field $2" >&2; return 2 ;;
	esac
	sed -n "s/.*$re.*/\1/p" "$1"
}

# stats_field NAME ERE [VAR=VALUE...]: the summary line of a program run
# under fastpath.so (with those settings) has the field "NAME <ERE>" whole,
# between "; " or the line's ends, and "NAME off" under FASTPATH_DISABLE=NAME.
stats_field() {
	sf_name=$1 sf_re=$2
	shift 2
	sf_line=$(env LD_PRELOAD="$FASTPATH_SO" FASTPATH_STATS=1 "$@" sh -c : 2>&1 >/dev/null)
	if printf '%s\n' "$sf_line" | grep -Eq "(: |; )$sf_name $sf_re(;|\$)"; then
		ok "summary field \"$sf_name\" has the documented shape"
	else
		fail "summary field \"$sf_name\" has the documented shape" "$sf_line"
	fi
	sf_line=$(env LD_PRELOAD="$FASTPATH_SO" FASTPATH_STATS=1 FASTPATH_DISABLE="$sf_name" "$@" \
		sh -c : 2>&1 >/dev/null)
	if printf '%s\n' "$sf_line" | grep -Eq "(: |; )$sf_name off(;|\$)"; then
		ok "summary field \"$sf_name\": off when disabled"
	else
		fail "summary field \"$sf_name\": off when disabled" "$sf_line"
	fi
}

# wait_for LIMIT WHAT COMMAND...: polls COMMAND every 0.05 s until it
# succeeds: an event the next checks need (a background process ready), not
# a sleep that hopes for it.  LIMIT (seconds of polls, more under load)
# bounds a hang only: then it fails, naming WHAT, and returns 1.
wait_for() {
	_wf_lim=$1 _wf_n=$(($1 * 20)) _wf_what=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		_wf_n=$((_wf_n - 1))
		if [ "$_wf_n" -le 0 ]; then
			fail "waiting for $_wf_what" "not after $_wf_lim s of polls: $*"
			return 1
		fi
		sleep 0.05
	done
}

# for_each_awk WHAT FUNC: FUNC once for every awk installed here (mawk,
# gawk --lint, original-awk, busybox awk), each with a directory $AWKS/NAME
# that puts it first in PATH as awk; AWK_NAME and T_TAG name it meanwhile,
# and gawk's lint warnings collect in $T_TMP/lint.NAME.  One not installed
# is a skip of "WHAT under NAME".
for_each_awk() {
	_fa_what=$1 _fa_fn=$2
	mkdir -p "$AWKS"
	for a in mawk gawk original-awk busybox; do
		command -v "$a" >/dev/null 2>&1 || { skip "$_fa_what under $a" "$a is not installed"; continue; }
		[ "$a" = busybox ] && { busybox awk 'BEGIN {}' >/dev/null 2>&1 || { skip "$_fa_what under busybox awk" "this busybox has no awk"; continue; }; }
		mkdir -p "$AWKS/$a"
		case $a in
		busybox) printf '#!/bin/sh\nexec busybox awk "$@"\n' ;;
		gawk) printf '#!/bin/sh\nexec gawk --lint "$@"\n' ;;
		*) printf '#!/bin/sh\nexec %s "$@"\n' "$a" ;;
		esac >"$AWKS/$a/awk"
		chmod +x "$AWKS/$a/awk"
		# shellcheck disable=SC2034  # read by FUNC
		AWK_NAME=$a T_TAG=$a
		: >"$T_TMP/lint.$a"
		"$_fa_fn"
		T_TAG=
	done
}

# ns_refused SCRIPT: why a private mount namespace in which the sh
# script SCRIPT succeeds (a mount in it) cannot be had here; nothing when
# it can.
ns_refused() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "not root: unshare -m and mount need it"
	elif ! command -v unshare >/dev/null 2>&1; then
		echo "unshare not installed (Debian: util-linux)"
	elif ! unshare -m sh -c "$1" >/dev/null 2>&1; then
		echo "unshare -m or mount refused here ($(unshare -m true 2>&1 | head -n 1))"
	fi
}

finish() {
	echo "$T_PASSED passed, $T_FAILED failed, $T_SKIPPED skipped"
	[ "$T_FAILED" -eq 0 ]
}
