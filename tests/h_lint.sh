#!/bin/sh
# SPDX-License-Identifier: MIT
# make lint: shellcheck on every shell script, cppcheck and clang-tidy on the
# C sources of fastpath.so.  The check sets are documented where they live:
# .clang-tidy (clang-tidy), .ci/cppcheck.supp (cppcheck), and below.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

SRCS=$(echo ./*.c tools/*.c)

# ---- shellcheck -----------------------------------------------------------
# Sourced helper files have no shebang: they are POSIX sh (-s sh).
# SC2015 ("A && B || C is not if-then-else") is off for the test scripts
# only: there B is always ok/skip, which end in echo and cannot fail.
if command -v shellcheck >/dev/null 2>&1; then
	for f in interpose .ci/run .ci/deps tests/*.sh bench/*.sh tools/*.sh; do
		[ -f "$f" ] || continue
		set --
		case $f in
		*/lib.sh) set -- -s sh ;;
		esac
		case $f in
		tests/*) set -- "$@" -e SC2015 ;;
		esac
		check "shellcheck $f" shellcheck -x "$@" "$f"
	done
else
	skip shellcheck "not installed (Debian: shellcheck)"
fi

# ---- the awk files (survey.awk, interpose.awk) -------------------------------
# gawk's lint, on the program as parsed and as run on an empty directory
# (tests/t_survey_report.sh runs it on every case it makes), and --posix:
# no gawk extension.  Clean means no warning at all.
if command -v gawk >/dev/null 2>&1; then
	lint_awk() { echo // | LC_ALL=C gawk "$@" -f survey.awk 2>&1 >/dev/null | grep . && return 1; return 0; }
	check "gawk --lint survey.awk" lint_awk --lint
	check "gawk --posix survey.awk" lint_awk --posix
	# interpose.awk, each job on empty input (tests/t_interpose_awk.sh
	# runs every case of each under --lint).
	lint_parser() {
		for j in elf_header elf_interp unit_env unit_key dropins cpu_list psrinfo_online; do
			: | LC_ALL=C gawk "$@" -f interpose.awk -v job=$j -v var=X -v key=X -v phent=0 -v phnum=0 -v endian=1 \
				2>&1 >/dev/null | grep . && return 1
		done
		return 0
	}
	check "gawk --lint interpose.awk" lint_parser --lint
	check "gawk --posix interpose.awk" lint_parser --posix
else
	skip "gawk --lint survey.awk" "gawk is not installed (Debian: gawk)"
	skip "gawk --lint interpose.awk" "gawk is not installed (Debian: gawk)"
fi

# ---- cppcheck -------------------------------------------------------------
# warning, style, portability, performance: everything but "information"
# (missing system headers, which cppcheck does not need) and unusedFunction
# (every export is used by programs cppcheck never sees).  Checked once per
# platform configuration we build: glibc x86-64, i386, musl (no __GLIBC__).
if command -v cppcheck >/dev/null 2>&1; then
	for cfg in "glibc-x86_64 -D__GLIBC__=2 -D__GLIBC_MINOR__=36 -D__x86_64__ -D_LP64" \
	           "glibc-i386 -D__GLIBC__=2 -D__GLIBC_MINOR__=36 -D__i386__" \
	           "musl -D__x86_64__ -D_LP64"; do
		name=${cfg%% *}
		# shellcheck disable=SC2086 # one word per -D
		check "cppcheck ($name)" cppcheck -q --std=c11 --error-exitcode=1 \
			--enable=warning,style,portability,performance --inline-suppr \
			--suppressions-list=.ci/cppcheck.supp -D__linux__ -D__GNUC__ \
			-D_GNU_SOURCE ${cfg#* } -I. $SRCS
	done
else
	skip cppcheck "not installed (Debian: cppcheck)"
fi

# ---- the illumos branch: does it still compile? ---------------------------
# No illumos machine here: the sources are compiled as if for illumos
# (__sun, not __linux__) against this machine's headers, 64- and 32-bit,
# warnings as errors.  It catches what a head cannot: a missing include, a
# type or a name used only on that side.  tests/h_illumos_stand_in.h gives
# what illumos's headers declare and glibc's do not (issetugid, memcntl);
# make check-illumos goes further (old headers, symbol eras).
ICC=${CC:-cc}
for bits in 64 32; do
	# shellcheck disable=SC2086 # CC may carry its own options
	if ! echo 'int x;' | $ICC -m$bits -fsyntax-only -x c - 2>/dev/null; then
		skip "illumos branch, ${bits}-bit" "$ICC -m$bits cannot build here (Debian: gcc-multilib)"
		continue
	fi
	for f in $SRCS; do
		# shellcheck disable=SC2086
		pcheck "illumos branch compiles, ${bits}-bit: $f" $ICC -m$bits -c -o /dev/null -O2 \
			-std=gnu11 -D_GNU_SOURCE -U__linux__ -D__sun -Wall -Wextra -Werror \
			-include "$TOP/tests/h_illumos_stand_in.h" -I. "$f"
	done
	pcheck_end
done

# ---- clang-tidy -----------------------------------------------------------
if command -v clang-tidy >/dev/null 2>&1; then
	for f in $SRCS; do
		pcheck "clang-tidy $f" clang-tidy --quiet "$f" -- -D_GNU_SOURCE -std=gnu11 -I.
	done
	pcheck_end
else
	skip clang-tidy "not installed (Debian: clang-tidy)"
fi

finish
