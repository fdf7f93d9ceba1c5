#!/bin/sh
# Runs every test suite: the cmocka unit tests (tests/bin/test_*), the
# integration scripts (tests/t_*.sh) and, with --hardening, every hardening
# target (tests/h_all.sh).  Prints each suite's own summary, then one total
# line; exits non-zero if anything failed.
cd "$(dirname "$0")/.." || exit 2
top=$(pwd -P)
# The suites must see the environment a user would, not the caller's tuning:
# every FASTPATH_* setting, whichever mitigation reads it, is dropped.
# shellcheck disable=SC2046 # one variable name per word
unset LD_PRELOAD OMP_NUM_THREADS $(env | sed -n 's/^\(FASTPATH_[A-Za-z0-9_]*\)=.*/\1/p')
FASTPATH_SO=$top/fastpath.so
TESTBIN=$top/tests/bin
export FASTPATH_SO TESTBIN

passed=0
failed=0
bad_suites=

tally() {
	# $1: suite name, $2: its output file, $3: its exit status
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p; s/^\([a-z]*: \)\{0,1\}\([0-9][0-9]*\) passed, [0-9]* failed.*/\2/p' "$2" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p; s/^\([a-z]*: \)\{0,1\}[0-9]* passed, \([0-9][0-9]*\) failed.*/\2/p' "$2" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$3" -ne 0 ] || [ "${f:-0}" -ne 0 ] || [ -z "$p" ]; then
		bad_suites="$bad_suites $1"
		# A suite that died without a summary still counts as a failure.
		[ "${f:-0}" -ne 0 ] || failed=$((failed + 1))
	fi
}

out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT

# suite NAME COMMAND...: runs one suite, shows its output, adds it up.
suite() {
	name=$1
	shift
	echo "== $name"
	"$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	tally "$name" "$out" "$rc"
}

for t in tests/bin/test_*; do
	[ -x "$t" ] && suite "${t##*/}" "$t"
done
for t in tests/t_*.sh; do
	[ -f "$t" ] && suite "${t##*/}" sh "$t"
done
[ "${1:-}" = --hardening ] && suite hardening sh tests/h_all.sh

echo
if [ -n "$bad_suites" ]; then
	echo "failing suites:$bad_suites"
fi
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$bad_suites" ]
