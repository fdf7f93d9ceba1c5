#!/bin/sh
# SPDX-License-Identifier: MIT
# The tree's layout (issue 42): no import cycle between the core and a
# mitigation, no library file over 700 lines, and docs/design.md's layout
# table true to the tree.  A mitigation is what the registry lists
# (mitigations.h): its files are <name>.h and <name>_*.c; the registry
# itself (mitigations.h, mitigations.c) names every descriptor and is
# neither; every other *.c and *.h at the top is the core.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 2
mits=$(sed -n 's/^[[:space:]]*X(\([a-z_]*\)).*/\1/p' mitigations.h)
mit_re=$(echo "$mits" | tr '\n' '|' | sed 's/|$//')
expect_eq "the registry lists mitigations, readlink first" readlink "${mit_re%%|*}"
core=$(printf '%s\n' ./*.c ./*.h | sed 's|^\./||' | grep -v -E "^($mit_re)(_[a-z_]*)?\.[ch]\$|^mitigations\.[ch]\$")
mitfiles=$(printf '%s\n' ./*.c ./*.h | sed 's|^\./||' | grep -E "^($mit_re)(_[a-z_]*)?\.[ch]\$")

# --- no core file includes a mitigation's header ---------------------------
# shellcheck disable=SC2086 # a file list
bad=$(grep -n -E "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"($mit_re)(_[a-z_]*)?\.[ch]\"" $core)
expect_eq "no core file includes a mitigation's header or unit" "" "$bad"

# --- ... nor names a symbol a mitigation defines ---------------------------
# What each mitigation unit defines (functions, variables, statics too), as
# its object says, less what the core's own objects define (the core's
# inline functions a unit instantiates) and the exported names (the C
# library's: a wrapper's real function is the C library's, see below).
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	skip "no core file names a mitigation's symbol" "needs $cc and nm"
else
	o=$T_TMP/obj
	mkdir -p "$o"
	for f in $(printf '%s\n' ./*.c | sed 's|^\./||'); do
		"$cc" -std=gnu11 -D_GNU_SOURCE -fPIC -O0 -w -I. -c -o "$o/$f.o" "$f" || fail "$f compiles alone"
	done
	syms() { for f in "$@"; do case $f in *.c) nm --defined-only "$o/$f.o" ;; esac; done |
		awk 'NF == 3 && $3 !~ /\./ { print $3 }' | sort -u; }
	# Every inline function of the core's headers, kept.
	echo '#include "fastpath.h"' | "$cc" -std=gnu11 -D_GNU_SOURCE -fPIC -O0 -w -I. \
		-fkeep-inline-functions -x c -c -o "$o/headers.c.o" - || fail "fastpath.h compiles alone"
	# shellcheck disable=SC2086 # file lists
	syms $core headers.c >"$T_TMP/core_syms"
	# shellcheck disable=SC2086
	syms $mitfiles >"$T_TMP/mit_syms"
	# The tree's own object: FASTPATH_SO may be a list (check-sanitize,
	# check-eatmydata), and the names are the same in every build.
	nm -D --defined-only "$TOP/fastpath.so" | awk '{ print $3 }' | sort -u >"$T_TMP/exported"
	comm -23 "$T_TMP/mit_syms" "$T_TMP/core_syms" | comm -23 - "$T_TMP/exported" >"$T_TMP/mit_own"
	n=$(wc -l <"$T_TMP/mit_own" | tr -d ' ')
	if [ "$n" -lt 100 ]; then
		fail "the mitigations' own symbols found" "only $n: the object listing did not work"
	else
		named=
		while read -r s; do
			# shellcheck disable=SC2086
			hit=$(grep -l -w -- "$s" $core | tr '\n' ' ')
			[ -n "$hit" ] && named="$named $s ($hit)"
		done <"$T_TMP/mit_own"
		expect_eq "no core file names any of the $n symbols the mitigations define" "" "$named"
	fi
fi

# --- the core's table of real functions is the core's own ------------------
# Each row of FP_REAL_CORE (fp_real.h) is a function a core unit itself
# calls or wraps; a mitigation's rows are in its own header (FP_REAL_DECLARE).
rows=$(sed -n '/^#define FP_REAL_CORE_[A-Z]*(X)/,/^#/p' fp_real.h |
	sed -n 's/^[[:space:]]*X([^,]*, *\([A-Za-z_0-9]*\),.*/\1/p')
expect_eq "the core's table has its rows" yes "$(echo "$rows" | grep -qx vfork && echo "$rows" | grep -qx _exit && echo yes)"
corec=$(echo "$core" | grep '\.c$')
for r in $rows; do
	# shellcheck disable=SC2086
	if grep -q -E "FP_REAL\($r\)|fp_real_core\.r_$r\b|^[A-Za-z_ ]*\b$r\(|\(\b$r," $corec fp_real.h; then
		ok "core row $r: the core calls or wraps it"
	else
		fail "core row $r: no core unit calls or wraps it (a mitigation's row belongs in its header)"
	fi
done
for m in $mits; do
	# shellcheck disable=SC2086
	# A table of its own (FP_REAL_DECLARE), or, for a few functions, rows
	# of its own in its one file (FP_REAL_OWN), handed over as .syms.
	if grep -qs "FP_REAL_DECLARE($m," $m.h ${m}_*.h && grep -q "FP_REAL_SYMS($m)" ${m}_*.c; then
		ok "$m declares its own table of real functions and hands it to the core"
	elif grep -q "^FP_REAL_OWN(\|^[[:space:]]*FP_REAL_OWN(" ${m}_*.c && grep -q "\.syms = " ${m}_*.c; then
		ok "$m declares its own real functions (FP_REAL_OWN) and hands them to the core"
	else
		fail "$m declares its own real functions and hands them to the core"
	fi
done

# --- no library file over 700 lines ----------------------------------------
long=$(wc -l ./*.c ./*.h | awk '$2 != "total" && $1 > 700 { sub("^./", "", $2); print $2 " " $1 }')
expect_eq "no library file (*.c, *.h) over 700 lines" "" "$long"

# --- docs/design.md's layout table is the tree -----------------------------
# Every name in the table's first column exists; every library source, awk
# program and top-level directory of the tree is in it.
# shellcheck disable=SC2016 # backquotes, not an expansion
table=$(sed -n '/^## Layout/,/^## /p' docs/design.md | sed -n 's/^| \([^|]*\) |.*/\1/p' | grep -v '^file *$' |
	grep -o '`[^`]*`' | tr -d '`' | sed 's|/$||')
missing=
for f in $table; do
	[ -e "$f" ] || missing="$missing $f"
done
expect_eq "every file the layout table names exists" "" "$missing"
unlisted=
for f in $(git ls-files 2>/dev/null | sed -n -e 's|^\([^/]*\)/.*|\1|p' -e '/^[^/]*\.\(c\|h\|awk\|in\)$/p' | sort -u); do
	echo "$table" | grep -q -x -e "$f" -e "$f/.*" || unlisted="$unlisted $f"
done
expect_eq "every library source, awk program and directory is in the layout table" "" "$unlisted"

finish
