#!/bin/sh
# SPDX-License-Identifier: MIT
# interpose.awk as a unit (issue 22): each parser that interpose starts
# (elf_header, elf_interp, unit_env, unit_key, dropins, cpu_list, psrinfo_online) on
# made-up input, every branch, under every awk this machine has (mawk, gawk
# --lint, the one true awk, busybox), each a [tag]; gawk --lint clean on all
# of it.
# Then that interpose itself holds no awk program: every awk it runs is
# `awk -f FILE`.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
AWKS=$T_TMP/awks
PARSER=$TOP/interpose.awk

# run JOB [-v NAME=VALUE]...: the parser on stdin; "OUT|STATUS", each line
# of the output ended by a space instead of a newline.
run() {
	_j=$1
	shift
	"$AWKS/$AWK_NAME/awk" -f "$PARSER" -v job="$_j" "$@" >"$T_TMP/out" 2>>"$T_TMP/lint.$AWK_NAME"
	_rc=$?
	printf '%s|%s' "$(tr '\n' ' ' <"$T_TMP/out")" "$_rc"
}
# bytes N [OFFSET=VALUE]...: N bytes, zero but those given, as od -An -tu1
# prints them (sixteen a line).
bytes() {
	_n=$1
	shift
	awk -v n="$_n" -v set="$*" 'BEGIN {
		k = split(set, pairs, " ")
		for (i = 1; i <= k; i++) { split(pairs[i], kv, "="); b[kv[1]] = kv[2] }
		for (i = 0; i < n; i++) { printf " %3d", b[i] + 0; if (i % 16 == 15) print "" }
		if (n % 16) print ""
	}'
}

units() {
	# ---- elf_header ----
	expect_eq "elf_header: 64-bit little-endian x86-64" "64 62 64 56 13 1 |0" \
		"$(bytes 64 0=127 1=69 2=76 3=70 4=2 5=1 18=62 32=64 54=56 56=13 | run elf_header)"
	expect_eq "elf_header: 32-bit big-endian (MIPS), multi-byte fields" "32 8 52 32 263 2 |0" \
		"$(bytes 64 0=127 1=69 2=76 3=70 4=1 5=2 19=8 31=52 43=32 44=1 45=7 | run elf_header)"
	expect_eq "elf_header: 32-bit little-endian i386" "32 3 52 32 9 1 |0" \
		"$(bytes 64 0=127 1=69 2=76 3=70 4=1 5=1 18=3 28=52 42=32 44=9 | run elf_header)"
	expect_eq "elf_header: not ELF (a script): status 1, nothing" "|1" \
		"$(bytes 64 0=35 1=33 | run elf_header)"
	expect_eq "elf_header: fewer than 64 bytes: status 1" "|1" \
		"$(bytes 40 0=127 1=69 2=76 3=70 4=2 5=1 | run elf_header)"
	expect_eq "elf_header: an unknown class: status 1" "|1" \
		"$(bytes 64 0=127 1=69 2=76 3=70 4=3 5=1 | run elf_header)"
	expect_eq "elf_header: empty input: status 1" "|1" "$(: | run elf_header)"

	# ---- elf_interp ----
	expect_eq "elf_interp: PT_INTERP among the headers (little-endian)" "1 |0" \
		"$(bytes 24 0=1 8=3 16=1 | run elf_interp -v phent=8 -v phnum=3 -v endian=1)"
	expect_eq "elf_interp: PT_INTERP, big-endian" "1 |0" \
		"$(bytes 16 3=1 11=3 | run elf_interp -v phent=8 -v phnum=2 -v endian=2)"
	expect_eq "elf_interp: big-endian bytes read as little-endian: not 3" "0 |0" \
		"$(bytes 16 3=1 11=3 | run elf_interp -v phent=8 -v phnum=2 -v endian=1)"
	expect_eq "elf_interp: none (a static program)" "0 |0" \
		"$(bytes 24 0=1 8=6 16=4 | run elf_interp -v phent=8 -v phnum=3 -v endian=1)"
	expect_eq "elf_interp: more headers claimed than read: only those read" "0 |0" \
		"$(bytes 8 0=1 | run elf_interp -v phent=8 -v phnum=4000 -v endian=1)"
	expect_eq "elf_interp: a type of 3 in a higher byte is not PT_INTERP" "0 |0" \
		"$(bytes 8 1=3 | run elf_interp -v phent=8 -v phnum=1 -v endian=1)"

	# ---- unit_env ----
	u() { printf '%b' "$1" | run unit_env -v var="${2:-LD_PRELOAD}"; }
	expect_eq "unit_env: one assignment among others" "/a.so |0" \
		"$(u '[Service]\nEnvironment=FOO=1 LD_PRELOAD=/a.so BAR=2\n')"
	expect_eq "unit_env: double and single quotes, a space inside" "/a b.so |0" \
		"$(u "[Service]\nEnvironment=\"LD_PRELOAD=/a b.so\" 'X=2'\n")"
	expect_eq "unit_env: quotes inside a word" "/a.so:/b.so |0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD="/a.so":/b.so\n')"
	expect_eq "unit_env: an unclosed quote runs to the end" "/a.so x |0" \
		"$(u '[Service]\nEnvironment="LD_PRELOAD=/a.so x\n')"
	expect_eq "unit_env: the last line wins" "/b.so |0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD=/a.so\nEnvironment=LD_PRELOAD=/b.so\n')"
	expect_eq "unit_env: an empty Environment= resets" "|0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD=/a.so\nEnvironment=\n')"
	expect_eq "unit_env: ... and a later one sets again" "/c.so |0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD=/a.so\nEnvironment=\nEnvironment=LD_PRELOAD=/c.so\n')"
	expect_eq "unit_env: set to empty is a value" " |0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD=\n')"
	expect_eq "unit_env: outside [Service]: ignored" "|0" \
		"$(u '[Unit]\nEnvironment=LD_PRELOAD=/a.so\n[Install]\nEnvironment=LD_PRELOAD=/b.so\n')"
	expect_eq "unit_env: [Service] again after another section" "/b.so |0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD=/a.so\n[Unit]\nX=1\n  [Service]\nEnvironment=LD_PRELOAD=/b.so\n')"
	expect_eq "unit_env: spaces around '=' and before the key" "/a.so |0" \
		"$(u '[Service]\n  Environment = LD_PRELOAD=/a.so\n')"
	# ---- unit_key ----
	k() { printf '%b' "$1" | run unit_key -v key="$2"; }
	expect_eq "unit_key: the last value in [Service], blanks trimmed" "bob |0" \
		"$(k '[Unit]\nUser=x\n[Service]\nUser = bob \nUserX=1\n' User)"
	expect_eq "unit_key: a key that only starts with it is another" "|0" \
		"$(k '[Service]\nUserX=1\n' User)"
	expect_eq "unit_key: an empty assignment resets" "|0" \
		"$(k '[Service]\nProtectSystem=strict\nProtectSystem=\n' ProtectSystem)"
	expect_eq "unit_key: outside [Service]: ignored" "|0" \
		"$(k '[Install]\nDynamicUser=yes\n' DynamicUser)"
	expect_eq "unit_env: another key (EnvironmentFile=) is not Environment=" "|0" \
		"$(u '[Service]\nEnvironmentFile=LD_PRELOAD=/a.so\n')"
	expect_eq "unit_env: a longer name is not the variable" "|0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD_64=/a.so XLD_PRELOAD=/b.so\n')"
	expect_eq "unit_env: another variable asked" "8 |0" \
		"$(u '[Service]\nEnvironment=LD_PRELOAD=/a.so OMP_NUM_THREADS=8\n' OMP_NUM_THREADS)"
	expect_eq "unit_env: tabs between words" "/a.so |0" \
		"$(u '[Service]\nEnvironment=X=1\tLD_PRELOAD=/a.so\t\n')"
	expect_eq "unit_env: no unit files: nothing" "|0" "$(: | run unit_env -v var=LD_PRELOAD)"

	# ---- dropins ----
	expect_eq "dropins: ours dropped, the first of each name kept, order kept" \
		"b.conf//etc/x/b.conf a.conf//etc/x/a.conf c.conf//lib/c.conf |0" \
		"$(printf '%s\n' b.conf//etc/x/b.conf fastpath.conf//etc/x/fastpath.conf a.conf//etc/x/a.conf \
			b.conf//lib/b.conf c.conf//lib/c.conf a.conf//lib/a.conf | run dropins)"
	expect_eq "dropins: nothing in, nothing out" "|0" "$(: | run dropins)"

	# ---- cpu_list ----
	expect_eq "cpu_list: ranges and single ids" "0 1 2 3 8 10 11 |0" "$(echo 0-3,8,10-11 | run cpu_list)"
	expect_eq "cpu_list: one id" "5 |0" "$(echo 5 | run cpu_list)"
	expect_eq "cpu_list: empty" "|0" "$(echo | run cpu_list)"
	expect_eq "cpu_list: junk parts are skipped" "7 |0" "$(echo 'a-b,x,7,1-2-3' | run cpu_list)"

	# ---- psrinfo_online ----
	expect_eq "psrinfo_online: on-line and no-intr, in order; off-line, spare, faulted not" "0 2 5 |0" \
		"$(printf '%s\n' '0	on-line   since 11/30/2026 09:12:01' '1	off-line  since 11/30/2026 09:12:01' \
			'2	no-intr   since 11/30/2026 09:12:01' '3	spare     since 11/30/2026 09:12:01' \
			'4	faulted   since 11/30/2026 09:12:01' '5	on-line   since 11/30/2026 09:12:01' \
			'x	on-line   since 11/30/2026' '' | run psrinfo_online)"
	expect_eq "psrinfo_online: no psrinfo output: nothing" "|0" "$(: | run psrinfo_online)"

	# ---- an unknown job ----
	expect_eq "an unknown job: status 2, nothing" "|2" "$(echo x | run bogus)"
	expect_eq "no job: status 2" "|2" "$(echo x | "$AWKS/$AWK_NAME/awk" -f "$PARSER" 2>/dev/null; echo "|$?")"
}

for_each_awk "interpose.awk" units
if [ -f "$T_TMP/lint.gawk" ]; then
	if grep -q 'warning' "$T_TMP/lint.gawk"; then
		fail "gawk --lint: interpose.awk is clean on every case above" "$(sort -u "$T_TMP/lint.gawk" | head -n 20)"
	else
		ok "gawk --lint: interpose.awk is clean on every case above"
	fi
	check "gawk --posix: interpose.awk is POSIX awk" sh -c ': | gawk --posix -f interpose.awk -v job=cpu_list'
fi

# ---- interpose holds no awk program ------------------------------------------
# Every line (but comments) that runs awk runs a file: `awk -f "$..."`.
inline=$(grep -vE '^[[:space:]]*#' interpose | grep -E '(^|[^.A-Za-z_])awk([^.A-Za-z_]|$)' |
	grep -v 'awk -f "\$' | grep -v "printf '%s: the survey report failed (awk exit")
expect_eq "interpose: every awk it runs is a program file (awk -f)" "" "$inline"
# ... and no awk program text waits in a variable for one.
progtext=$(grep -nE "(BEGIN|END) *\{|\{ *print |\\\$[0-9] *(==|!=)|for *\(.*;.*;.*\) *print" interpose)
expect_eq "interpose: no awk program text in a string" "" "$progtext"

finish
