#!/bin/sh
# make check-hardening: every hardening target in turn (those that exist),
# each one's own summary, then one total "N passed, N failed" line.
cd "$(dirname "$0")/.." || exit 2
passed=0
failed=0
bad=
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
for t in lint check-illumos check-musl check-m32 check-valgrind check-sanitize check-fault \
	check-eatmydata check-stress; do
	s=tests/h_${t#check-}.sh
	[ "$t" = check-musl ] || [ "$t" = check-m32 ] && s=tests/h_port.sh
	[ -f "$s" ] || { echo "== $t: $s is missing"; bad="$bad $t"; failed=$((failed + 1)); continue; }
	echo "== $t"
	start=$(date +%s)
	${MAKE:-make} --no-print-directory "$t" >"$out" 2>&1
	rc=$?
	grep -v '^ok - ' "$out"
	echo "   ($(($(date +%s) - start)) s)"
	p=$(sed -n 's/^\([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$out" | tail -n 1)
	f=$(sed -n 's/^[0-9]* passed, \([0-9][0-9]*\) failed.*/\1/p' "$out" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ $rc -ne 0 ] || [ -z "$p" ]; then
		bad="$bad $t"
		[ "${f:-0}" -ne 0 ] || failed=$((failed + 1))
	fi
done
echo
[ -n "$bad" ] && echo "failing targets:$bad"
echo "hardening: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$bad" ]
