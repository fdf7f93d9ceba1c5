#!/bin/sh
# SPDX-License-Identifier: MIT
# The stack budget (issue 24): no function of fastpath.so has a frame of
# more than STACK_BUDGET bytes (default 1024), and none a frame of unbounded
# size (alloca, a variable-length array).  A wrapper may run on a 16 KiB
# thread stack (PTHREAD_STACK_MIN) or on a signal's alternate stack, under
# a program that leaves little of it; big work belongs in memory that is
# not the stack.  Each library source is compiled as the Makefile does,
# with -fstack-usage added, by each compiler there is (gcc and clang lay
# frames out differently).  tests/t_robust.sh runs the small-stack programs.
# STACK_SRC: another tree's sources to check (default: this one).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

: "${STACK_BUDGET:=1024}"
: "${STACK_SRC:=$TOP}"
# Frames of a size the caller chooses, as the C library's own are: execl,
# execlp and execle build their argv array on the stack from the caller's
# argument list (glibc does the same; no allocation, for exec after vfork).
# fp_cpus_exec_with (the CPU cap, cpus_shim.c) copies the environment the
# caller passes, one pointer an entry, 4 KiB at most (512 entries; more are
# passed as they are), for the same reason; on an alternate signal stack,
# none (the copy is made in pages of its own).
VARIABLE="execl execlp execle fp_cpus_exec_with"

# budget CC: compiles every unit with CC; one check per compiler.
budget() {
	cc=$1
	dir=$T_TMP/su-$cc
	mkdir -p "$dir"
	if ! echo 'int f(void){return 0;}' | "$cc" -fstack-usage -x c -c -o "$dir/probe.o" - 2>/dev/null; then
		skip "stack budget ($cc)" "$cc has no -fstack-usage"
		return
	fi
	for f in "$STACK_SRC"/*.c; do
		u=${f##*/}
		if ! (cd "$dir" && "$cc" -D_GNU_SOURCE -DFASTPATH_VERSION='"test"' -std=gnu11 -fPIC \
			-pthread -fvisibility=hidden -O2 -g -fstack-usage -I"$STACK_SRC" \
			-c -o "${u%.c}.o" "$f") >"$dir/cc.log" 2>&1; then
			fail "stack budget ($cc): $u compiles" "$(head -c 2000 "$dir/cc.log")"
			return
		fi
	done
	# "file:line:col:function<TAB>bytes<TAB>static|dynamic[,bounded]"; only
	# our sources (an inline function of a system header is listed too, at
	# its header, and counted: it is part of our frame).
	over=$(cat "$dir"/*.su | awk -F '\t' -v max="$STACK_BUDGET" -v var="$VARIABLE" '
		BEGIN { n = split(var, v, " "); for (i = 1; i <= n; i++) ok[v[i]] = 1 }
		{ k = split($1, w, ":"); fn = w[k]; sub(/\..*/, "", fn) }
		$2 + 0 > max || ($3 == "dynamic" && !(fn in ok)) {
			n = split($1, w, "/"); print "  " w[n] " " $2 " bytes (" $3 ")" }')
	if [ -z "$over" ]; then
		ok "stack budget ($cc): every frame is at most $STACK_BUDGET bytes and bounded"
	else
		fail "stack budget ($cc): every frame is at most $STACK_BUDGET bytes and bounded" \
			"over budget:
$over"
	fi
}

budget "${CC:-cc}"
if command -v clang >/dev/null 2>&1; then
	case $("${CC:-cc}" --version 2>/dev/null) in
	*clang*) ;;
	*) budget clang ;;
	esac
else
	skip "stack budget (clang)" "clang is not installed"
fi
finish
