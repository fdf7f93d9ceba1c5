#!/bin/sh
# SPDX-License-Identifier: MIT
# The hardening targets in turn, each one's own summary, then one total
# "N passed, N failed, K skipped" line.  h_all.sh quick: those make check
# runs (lint, the ports, illumos, fault injection: minutes); h_all.sh
# slow: make check-hardening, which .ci/run runs after make check (the
# package installed and purged, valgrind, the sanitizers, eatmydata, the
# stress and watchdog runs, the forced urandom sources); no argument: all.  Each target's output is shown but for its "ok - " lines; its skip
# lines stay, so that tests/run.sh can list them.
cd "$(dirname "$0")/.." || exit 2
passed=0
failed=0
skipped=0
bad=
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
quick="lint check-illumos check-musl check-m32 check-m32-build-only check-fault"
slow="check-deb check-valgrind check-sanitize check-eatmydata check-stress check-urandom-sources"
case ${1:-all} in
quick) targets=$quick ;;
slow) targets=$slow ;;
all) targets="$quick $slow" ;;
*) echo "usage: h_all.sh [quick|slow|all]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086 # one target a word
for t in $targets; do
	s=tests/h_${t#check-}.sh
	case $t in check-musl | check-m32*) s=tests/h_port.sh ;; check-urandom-sources) s=tests/h_sources.sh ;; esac
	[ -f "$s" ] || { echo "== $t: $s is missing"; bad="$bad $t"; failed=$((failed + 1)); continue; }
	echo "== $t"
	start=$(date +%s)
	# The forced sources only (the default one is everybody else's),
	# without their stress runs: about a minute and a half.
	set --
	[ "$t" = check-urandom-sources ] &&
		set -- UR_SOURCES="kernel reservoir" UR_SUITES="tests/t_urandom.sh tests/h_fault.sh"
	env "$@" "${MAKE:-make}" --no-print-directory "$t" >"$out" 2>&1
	rc=$?
	grep -v '^ok - ' "$out"
	echo "   ($(($(date +%s) - start)) s)"
	# The target's own summary is its last line (tests/lib.sh finish); make
	# adds a line of its own after a failure, so look at the last two.
	# shellcheck disable=SC2046 # three numbers
	set -- $(tail -n 2 "$out" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed, \([0-9][0-9]*\) skipped$/\1 \2 \3/p' | tail -n 1)
	if [ $# -eq 3 ]; then
		passed=$((passed + $1))
		failed=$((failed + $2))
		skipped=$((skipped + $3))
	fi
	if [ $rc -ne 0 ] || [ $# -ne 3 ]; then
		bad="$bad $t"
		# A target that died without a summary still counts as a failure.
		[ "${2:-0}" -ne 0 ] || failed=$((failed + 1))
	fi
done
echo
[ -n "$bad" ] && echo "failing targets:$bad"
echo "hardening: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ -z "$bad" ]
