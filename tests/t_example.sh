#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/design.md's example mitigation (tests/mit_example.c), preloaded from the
# test variant of the object that registers it (tests/bin/fastpath_example.so):
# with its one line in mitigations.h and no edit to the core, its setting
# and its summary field work.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

EX=$TESTBIN/fastpath_example.so
PROG=$TESTBIN/prog_example
# make check and check-core build both; the hardening runs over other
# builds (TESTBIN elsewhere) do not.
if [ ! -f "$EX" ] || [ ! -x "$PROG" ]; then
	# ... but make check and check-core build them in tests/bin: missing
	# there, the build is broken, and that is no skip.
	if [ "$(cd "$TESTBIN" 2>/dev/null && pwd -P)" = "$(cd "$(dirname "$0")/bin" && pwd -P)" ]; then
		fail example "no $EX or $PROG: make check builds both"
	else
		skip example "no $EX or $PROG in this build"
	fi
	finish
	exit
fi

# docs/design.md, "Adding a mitigation", shows this very code: each line of its block (but comments)
# is in the file.
missing=$(sed -n '/^\/\* tests\/mit_example.c \*\/$/,/^```$/p' docs/design.md | sed '1d;$d' |
	while IFS= read -r l; do
		case $l in '' | '/*'* | ' *'*) continue ;; esac
		grep -qxF -- "$l" tests/mit_example.c || printf '%s\n' "$l"
	done)
expect_eq "docs/design.md's example is tests/mit_example.c" "" "$missing"

native=$("$PROG" 3)
out=$(LD_PRELOAD=$EX FASTPATH_STATS=1 "$PROG" 3 2>"$T_TMP/err")
expect_eq "example: the program's answer unchanged" "$native" "$out"
expect_eq "example: its field counts the calls, last on the line" 1 \
	"$(grep -Ec '^fastpath\[[0-9]+\]: readlink .*; cpus [^;]*; example 3 calls$' "$T_TMP/err")"

LD_PRELOAD=$EX FASTPATH_STATS=1 FASTPATH_DISABLE=example "$PROG" 3 >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "example: FASTPATH_DISABLE=example still answers" "$native" "$(cat "$T_TMP/out")"
expect_eq "example: FASTPATH_DISABLE=example turns it off" 1 \
	"$(grep -Ec '; example off$' "$T_TMP/err")"
expect_eq "example: the others stay on" 1 "$(grep -Ec ': readlink [0-9]' "$T_TMP/err")"

LD_PRELOAD=$EX FASTPATH_DISABLE=nope "$PROG" 1 >/dev/null 2>"$T_TMP/err"
expect_eq "example: FASTPATH_DISABLE lists it" 1 \
	"$(grep -c 'accepted: readlink, urandom, cpus, example, all' "$T_TMP/err")"

# Not in fastpath.so itself.
LD_PRELOAD=$FASTPATH_SO FASTPATH_STATS=1 "$PROG" 3 >/dev/null 2>"$T_TMP/err"
expect_eq "fastpath.so has no example" 0 "$(grep -c example "$T_TMP/err")"

finish
