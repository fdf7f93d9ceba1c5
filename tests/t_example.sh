#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/design.md's example mitigation (tests/mit_example.c), preloaded from the
# test variant of the object that registers it (tests/bin/fastpath_example.so):
# with its one line in mitigations.h and no edit to the core, its setting
# and its summary field work; and its descriptor (tests/mit_example.def)
# gives the test variants of interpose and the man pages that the build
# makes from it (tests/bin/example/: Makefile, EXAMPLE_GEN) its option,
# its help, its man page entries and its section, with no other edit.
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
# ... and its descriptor is tests/mit_example.def, but for the comments.
expect_eq "docs/design.md's descriptor is tests/mit_example.def" \
	"$(grep -v '^#' tests/mit_example.def)" \
	"$(sed -n '/^name example$/,/^```$/p' docs/design.md | sed '$d')"

native=$("$PROG" 3)
out=$(LD_PRELOAD=$EX FASTPATH_STATS=1 "$PROG" 3 2>"$T_TMP/err")
expect_eq "example: the program's answer unchanged" "$native" "$out"
expect_eq "example: its field counts the calls, last on the line" 1 \
	"$(grep -Ec '^fastpath\[[0-9]+\]: readlink .*; example 3 calls$' "$T_TMP/err")"

LD_PRELOAD=$EX FASTPATH_STATS=1 FASTPATH_DISABLE=example "$PROG" 3 >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "example: FASTPATH_DISABLE=example still answers" "$native" "$(cat "$T_TMP/out")"
expect_eq "example: FASTPATH_DISABLE=example turns it off" 1 \
	"$(grep -Ec '; example off$' "$T_TMP/err")"
expect_eq "example: the others stay on" 1 "$(grep -Ec ': readlink [0-9]' "$T_TMP/err")"

# The registry's names (mitigations.h), then the example's.
names=$(sed -n 's/^[[:space:]]*X(\([a-z0-9_]*\)).*/\1/p' mitigations.h | tr '\n' ',' | sed 's/,/, /g')
LD_PRELOAD=$EX FASTPATH_DISABLE=nope "$PROG" 1 >/dev/null 2>"$T_TMP/err"
expect_eq "example: FASTPATH_DISABLE lists it" 1 \
	"$(grep -c "accepted: ${names}example, all" "$T_TMP/err")"

# --- what the build makes of its descriptor ----------------------------------
G=$TESTBIN/example
if [ ! -x "$G/interpose" ] || [ ! -f "$G/fastpath.7" ] || [ ! -f "$G/interpose.1" ] || [ ! -f "$G/survey.awk" ]; then
	fail "example: descriptor" "no $G/{interpose,fastpath.7,interpose.1,survey.awk}: make check builds them"
else
	"$G/interpose" --help >"$T_TMP/help"
	expect_eq "example: interpose --help has its option and help line" 1 \
		"$(grep -cxF '  --no-example      do not count getppid() calls (docs/design.md'"'"'s example)' "$T_TMP/help")"
	# ... and everything else the same, in the same order.
	"$INTERPOSE" --help >"$T_TMP/help0"
	expect_eq "example: the rest of --help unchanged" "" \
		"$(grep -v -- '--no-example' "$T_TMP/help" | diff "$T_TMP/help0" - | head -3)"
	# The generated interpose, beside the example object.
	mkdir -p "$T_TMP/ex" && cp "$G/interpose" "$TOP/interpose.awk" "$T_TMP/ex/" &&
		ln -s "$EX" "$T_TMP/ex/fastpath.so"
	"$T_TMP/ex/interpose" --quiet --no-readlink --no-example --stats "$PROG" 3 >"$T_TMP/out" 2>"$T_TMP/err"
	expect_eq "example: --no-example answers as natively" "$native" "$(cat "$T_TMP/out")"
	expect_eq "example: --no-example turns it off (FASTPATH_DISABLE=readlink,example)" 1 \
		"$(grep -Ec '^fastpath\[[0-9]+\]: readlink off; .*; example off$' "$T_TMP/err")"
	# shellcheck disable=SC2016 # the child's expansion
	"$T_TMP/ex/interpose" --quiet --no-example sh -c 'printf %s "$FASTPATH_DISABLE"' >"$T_TMP/out" 2>&1
	expect_eq "example: --no-example sets FASTPATH_DISABLE=example" example "$(cat "$T_TMP/out")"
	"$INTERPOSE" --no-example true 2>"$T_TMP/err"
	expect_eq "example: interpose made without its descriptor has no --no-example" \
		"125 interpose: unknown option '--no-example'" "$? $(head -n 1 "$T_TMP/err")"
	# interpose(1): its entry, with what it sets.
	expect_eq "example: interpose(1) has its entry" 1 \
		"$(sed -n '/^\.B \\-\\-no\\-example$/,/^\.TP/p' "$G/interpose.1" | grep -c '^\.BR FASTPATH_DISABLE \.$')"
	# fastpath(7): its section, its name in FASTPATH_DISABLE's list, its
	# field in the summary template, which the object's line matches.
	expect_eq "example: fastpath(7) has its section" 1 "$(grep -c '^\.SH EXAMPLE$' "$G/fastpath.7")"
	expect_eq "example: fastpath(7)'s FASTPATH_DISABLE lists it" 1 \
		"$(sed -n '/^\.BR FASTPATH_DISABLE =/,/^\.TP/p' "$G/fastpath.7" | grep -c '^\.BR example ,$')"
	expect_eq "example: fastpath(7)'s 'off' list has it" 1 "$(grep -c '^\.BR "example off" \.$' "$G/fastpath.7")"
	template=$(sed -n 's/^fastpath\[PID\]: //p' "$G/fastpath.7" | sed 's/\\-/-/g')
	case $template in
	*'; example N calls') ok "example: fastpath(7)'s summary template ends with its field" ;;
	*) fail "example: fastpath(7)'s summary template ends with its field" "$template" ;;
	esac
	# its example line: the template's shape (as t_docs.sh checks ours)
	stats_re=$(printf '%s' "$template" | sed -e 's/[.+*?(){}|^$]/\\&/g' -e 's/\[\([^]]*\)\]/(\1)?/g' \
		-e 's/\b[A-Z]\b/[^ ,;]+/g')
	ex=$(sed -n 's/\\-/-/g; /^fastpath\[[0-9][0-9]*\]: /p' "$G/fastpath.7" | sed 's/ (off)//g')
	if printf '%s\n' "$ex" | grep -Eqx "fastpath\[[0-9]+\]: $stats_re" && [ "${ex%; example 3 calls}" != "$ex" ]; then
		ok "example: fastpath(7)'s example line has its field, in the template's shape"
	else
		fail "example: fastpath(7)'s example line has its field, in the template's shape" "[$ex]"
	fi
	for f in interpose.1 fastpath.7; do
		expect_eq "example: the build's $f has none of it" 0 "$(grep -c 'no\\-example\|^\.SH EXAMPLE$\|example off' "$TOP/man/$f")"
	done
	# survey.awk: the example has no report row; the registry line is the same.
	expect_eq "example: survey.awk's registry line unchanged" "" "$(diff "$TOP/survey.awk" "$G/survey.awk")"
fi

# --- every kind of option a descriptor can give ------------------------------
# A made-up mitigation's descriptor (no C: interpose and fastpath(7) only),
# through the build's generator (the Makefile's MITGEN) with the registry's.
regdefs=$(sed -n 's|^[[:space:]]*X(\([a-z0-9_]*\)).*|mit/\1.def|p' mitigations.h)
Z=$T_TMP/zz
mkdir -p "$Z/root" "$Z/bad"
cat >"$Z/mit_zz.def" <<'EOF'
# SPDX-License-Identifier: MIT
name zz
summary zz N things
option --no-zz
	kind disable
	help do not zz
option --zz-loud
	kind flag
	var zz_loud
	env FASTPATH_ZZ_LOUD
	help be loud
option --zz-mode
	kind value
	arg MODE
	var zz_mode
	env FASTPATH_ZZ_MODE
	values fast slow
	what a mode: fast or slow
	help fast or slow
record
	man zz.calls \fIn\fR   its calls
variable FASTPATH_ZZ_MODE
	man Fast or slow.
EOF
# shellcheck disable=SC2086 # the registry's descriptors
awk -f tools/mitgen.awk -v template=interpose.in $regdefs "$Z/mit_zz.def" >"$Z/interpose" &&
	awk -f tools/mitgen.awk -v template=man/fastpath.7.in $regdefs "$Z/mit_zz.def" >"$Z/fastpath.7"
expect_eq "descriptor: the generator takes every kind" 0 $?
# The tree's own object beside it: these are interpose's option checks, and
# FASTPATH_SO may be a list (check-sanitize's libasan.so:fastpath.so).
chmod +x "$Z/interpose" && cp "$TOP/interpose.awk" "$Z/" && ln -s "$TOP/fastpath.so" "$Z/fastpath.so"
zz() {
	# shellcheck disable=SC2016 # the child's expansions
	"$Z/interpose" --quiet "$@" sh -c 'printf "%s|%s|%s" "$FASTPATH_DISABLE" "$FASTPATH_ZZ_LOUD" "$FASTPATH_ZZ_MODE"' 2>&1
	echo " $?"
}
# (the object's warning, "unknown feature zz", aside)
expect_eq "descriptor: disable, flag, value=" "zz|1|fast 0" "$(zz --no-zz --zz-loud --zz-mode=fast | grep -v '^fastpath\[')"
expect_eq "descriptor: value in the next word" "||slow 0" "$(zz --zz-mode slow)"
expect_eq "descriptor: a value not listed" "interpose: --zz-mode needs fast or slow, not 'bad'" \
	"$(zz --zz-mode=bad | head -n 1)"
expect_eq "descriptor: an empty value" "interpose: option '--zz-mode' needs a mode: fast or slow, not an empty value" \
	"$(zz --zz-mode= | head -n 1)"
"$Z/interpose" --zz-mode >/dev/null 2>"$T_TMP/err"
expect_eq "descriptor: no value" "125 interpose: option '--zz-mode' needs a mode: fast or slow" \
	"$? $(head -n 1 "$T_TMP/err")"
expect_eq "descriptor: --help lists each" 3 "$("$Z/interpose" --help | grep -Ec '^  --(no-zz|zz-loud|zz-mode MODE) +[a-z]')"
"$Z/interpose" --unit zz --dry-run --root "$Z/root" --zz-mode=slow --zz-loud >"$T_TMP/out" 2>/dev/null
expect_eq "descriptor: --unit's drop-in sets them" "Environment=FASTPATH_ZZ_LOUD=1 Environment=FASTPATH_ZZ_MODE=slow" \
	"$(grep '^Environment=FASTPATH_ZZ' "$T_TMP/out" | tr '\n' ' ' | sed 's/ $//')"
"$Z/interpose" --unit zz --remove --zz-loud >/dev/null 2>"$T_TMP/err"
expect_eq "descriptor: --unit --remove takes no option of it" \
	"125 interpose: --unit NAME --remove takes no other option: it removes the whole drop-in" "$? $(head -n 1 "$T_TMP/err")"
expect_eq "descriptor: fastpath(7)'s ENVIRONMENT has its variable" 1 \
	"$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH SURVEY/p' "$Z/fastpath.7" | grep -c '^\.B FASTPATH_ZZ_MODE$')"
expect_eq "descriptor: fastpath(7)'s SURVEY RECORD has its keys, last" 'zz.calls \fIn\fR   its calls' \
	"$(sed -n '/^\.SH SURVEY RECORD/,/^end 0$/p' "$Z/fastpath.7" | sed -n '$!p' | tail -n 1)"
sed 's/kind flag/kind flog/' "$Z/mit_zz.def" >"$Z/bad/mit_zz.def"
# shellcheck disable=SC2086
out=$(awk -f tools/mitgen.awk -v template=interpose.in $regdefs "$Z/bad/mit_zz.def" 2>&1 >/dev/null)
expect_eq "descriptor: a wrong kind is refused, by file" "1 mitgen: $Z/bad/mit_zz.def: --zz-loud: kind 'flog'" "$? $out"

# Not in fastpath.so itself.
LD_PRELOAD=$FASTPATH_SO FASTPATH_STATS=1 "$PROG" 3 >/dev/null 2>"$T_TMP/err"
expect_eq "fastpath.so has no example" 0 "$(grep -c example "$T_TMP/err")"

finish
