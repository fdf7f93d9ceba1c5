#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every test suite: the cmocka unit tests (tests/bin/test_*), the
# integration scripts (tests/t_*.sh), the fuzz smoke run and, with
# --hardening [quick|slow|all], those hardening targets (tests/h_all.sh).  Prints each
# suite's own output, then every skip with its reason, then one total line
# "check: N passed, N failed, K skipped"; exits non-zero if anything failed.
cd "$(dirname "$0")/.." || exit 2
top=$(pwd -P)
# RUN_ONLY is read first: it is the caller's choice of suites.
run_only=${RUN_ONLY:-}
# The suites must see the environment a user would, not the caller's tuning:
# every FASTPATH_* setting, whichever mitigation reads it, is dropped.
# shellcheck disable=SC2046 # one variable name per word
unset RUN_ONLY LD_PRELOAD OMP_NUM_THREADS GOMAXPROCS UR_SOURCE UR_SOURCES UR_SUITES $(env | sed -n 's/^\(FASTPATH_[A-Za-z0-9_]*\)=.*/\1/p')
FASTPATH_SO=$top/fastpath.so
TESTBIN=$top/tests/bin
export FASTPATH_SO TESTBIN

passed=0
failed=0
skipped=0
bad_suites=

out=$(mktemp) || exit 2
skips=$(mktemp) || exit 2
trap 'rm -f "$out" "$skips"' EXIT

# cmocka NAME FILE: "P F S" from a cmocka run, counted record by record: each
# "[ RUN      ] t" must be closed by an OK, SKIPPED or FAILED line for t; a
# test that never closed (the binary died) is a failure, and so is a final
# "[  PASSED  ] N" that disagrees with the OK lines counted.  Skips go to
# the skip list, with the reason a test prints first ("skip: WHY").
cmocka() {
	awk -v suite="$1" -v skips="$skips" '
	function name() { return substr($0, 14) }
	/^\[ RUN      \] / { open_[name()] = 1; runs++; next }
	/^\[       OK \] / { if (name() in open_) { ok++; delete open_[name()] } next }
	/^skip: / { why = substr($0, 7); next }
	/^\[  SKIPPED \] / { if (name() in open_) { sk++; delete open_[name()]
		print "skip - " suite ": " name() ": " (why != "" ? why : "skip() without a reason") >>skips
		why = "" } next }
	/^\[  (FAILED|ERROR)  ?\] / { if (name() in open_) { bad++; delete open_[name()] } next }
	/^\[  PASSED  \] [0-9]+ test/ { summary = $4 }
	END {
		for (t in open_) bad++
		if (runs == 0 || summary == "" || summary + 0 != ok + 0) bad++
		print ok + 0, bad + 0, sk + 0
	}' "$2"
}

# ours FILE: "P F S" from the last line of a script's output (tests/lib.sh
# finish, or the "NAME: " total of h_all.sh); nothing if it is not one.
ours() {
	tail -n 1 "$1" | sed -n 's/^\([a-z-]*: \)\{0,1\}\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed, \([0-9][0-9]*\) skipped$/\2 \3 \4/p'
}

# suite KIND NAME COMMAND...: runs one suite, shows its output, adds it up.
suite() {
	kind=$1 name=$2
	shift 2
	echo "== $name"
	t0=$(date +%s)
	"$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	echo "   ($(($(date +%s) - t0)) s)"
	if [ "$kind" = cmocka ]; then
		# shellcheck disable=SC2046 # three numbers
		set -- $(cmocka "$name" "$out")
	else
		# shellcheck disable=SC2046
		set -- $(ours "$out")
		# Its skips, nested targets' included, each with its reason.
		grep '^skip - ' "$out" | sed "s|^skip - |skip - $name: |" >>"$skips"
		if [ $# -eq 3 ] && [ "$(grep -c '^skip - ' "$out")" -ne "$3" ]; then
			echo "$name: $3 skips counted but $(grep -c '^skip - ' "$out") reported"
			set -- "$1" "$(($2 + 1))" "$3"
		fi
	fi
	if [ $# -eq 3 ]; then
		passed=$((passed + $1))
		failed=$((failed + $2))
		skipped=$((skipped + $3))
	fi
	if [ "$rc" -ne 0 ] || [ $# -ne 3 ] || [ "$2" -ne 0 ]; then
		bad_suites="$bad_suites $name"
		# A suite that died without a summary still counts as a failure.
		[ $# -eq 3 ] && [ "$2" -ne 0 ] || failed=$((failed + 1))
	fi
}

# RUN_ONLY: suite names (shell patterns) to run, the others not (make
# check-readlink and its like: one mitigation's suites).
wanted() {
	[ -z "$run_only" ] && return 0
	for w in $run_only; do
		# shellcheck disable=SC2254 # a pattern
		case $1 in $w) return 0 ;; esac
	done
	return 1
}
for t in tests/bin/test_*; do
	wanted "${t##*/}" && [ -x "$t" ] && suite cmocka "${t##*/}" "$t"
done
for t in tests/t_*.sh; do
	wanted "${t##*/}" && [ -f "$t" ] && suite sh "${t##*/}" sh "$t"
done
wanted fuzz-smoke && suite sh fuzz-smoke "${MAKE:-make}" --no-print-directory -s fuzz-smoke
[ "${1:-}" = --hardening ] && suite sh hardening sh tests/h_all.sh "${2:-all}"

echo
if [ -s "$skips" ]; then
	echo "skipped (not run on this machine, with the reason):"
	sed 's/^skip - /  /' "$skips"
fi
if [ -n "$bad_suites" ]; then
	echo "failing suites:$bad_suites"
fi
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ -z "$bad_suites" ]
