#!/bin/sh
# make check-valgrind: integration programs under memcheck (no error, no
# definite or indirect leak) all with
# fastpath.so preloaded.  Any report fails the check (--error-exitcode).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	skip valgrind "not installed (Debian: valgrind)"
	finish
	exit
fi
MC="valgrind -q --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --trace-children=no"

vg() {
	# vg NAME TOOL PROGRAM ARGS...: the program passes and the tool is silent.
	name=$1 tool=$2
	shift 2
	# shellcheck disable=SC2086 # tool is a word list
	if LD_PRELOAD=$FASTPATH_SO $tool --log-file="$T_TMP/vg.log" "$@" >"$T_TMP/vg.out" 2>&1 &&
	   [ ! -s "$T_TMP/vg.log" ]; then
		ok "$name"
	else
		fail "$name" "$(head -c 3000 "$T_TMP/vg.log"; tail -n 5 "$T_TMP/vg.out")"
	fi
}
# prog_urandom passes NULL buffers on purpose (EFAULT checks): memcheck
# reports those natively too.  Preloaded, it must report exactly as many.
nerr() { valgrind --tool=memcheck "$@" 2>&1 >/dev/null | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p'; }
n=$(nerr "$TESTBIN/prog_urandom")
f=$(LD_PRELOAD=$FASTPATH_SO nerr "$TESTBIN/prog_urandom")
expect_eq "memcheck: prog_urandom reports as many errors as natively ($n, the NULL-buffer checks)" "$n" "$f"
vg "memcheck: prog_urandom_fortify" "$MC" "$TESTBIN/prog_urandom_fortify"
vg "memcheck: prog_readlink_oracle 500 50" "$MC" "$TESTBIN/prog_readlink_oracle" 500 50
vg "memcheck: prog_readlink_fortify" "$MC" "$TESTBIN/prog_readlink_fortify"
vg "memcheck: prog_early (wrappers before our constructor)" "$MC" "$TESTBIN/prog_early"
vg "memcheck: stress cycles 2000 noclo" "$MC" "$TESTBIN/prog_urandom_stress" cycles 2000 noclo
vg "memcheck: stress forks 20" "$MC" "$TESTBIN/prog_urandom_stress" forks 20
finish
