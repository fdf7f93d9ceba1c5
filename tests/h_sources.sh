#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-urandom-sources: the urandom suite under each source of its
# bytes (issue 20): vdso (this kernel's default where the vDSO has
# getrandom), kernel (the vDSO forced absent) and reservoir (asked for),
# through UR_SOURCE (tests/lib.sh), which every suite reads.  UR_SUITES
# (default: t_urandom, the stress run, the fault injection) may name more,
# e.g. "tests/h_valgrind.sh tests/h_sanitize.sh" for the whole of it;
# UR_SOURCES (default: all three) which sources.  make check runs it with
# the two forced ones and no stress run (tests/h_all.sh): the default
# source is what the rest of make check runs under.
# Each suite's own summary line is one check per source.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

suites=${UR_SUITES:-tests/t_urandom.sh tests/h_stress.sh tests/h_fault.sh}
for s in ${UR_SOURCES:-vdso kernel reservoir}; do
	T_TAG=$s
	# shellcheck disable=SC2119 # no settings: this kernel's default
	if [ "$s" = vdso ] && [ "$(unset FASTPATH_TEST_NO_VDSO FASTPATH_URANDOM_SOURCE; ur_source_now)" != vdso ]; then
		skip "source vdso" "no vDSO getrandom on this kernel (Linux < 6.11, or its architecture)"
		continue
	fi
	for t in $suites; do
		env -u FASTPATH_TEST_NO_VDSO -u FASTPATH_URANDOM_SOURCE UR_SOURCE="$s" \
			STRESS_SECONDS="${STRESS_SECONDS:-20}" sh "$t" >"$T_TMP/out" 2>&1
		rc=$?
		last=$(tail -n 1 "$T_TMP/out")
		if [ $rc -eq 0 ] && printf '%s\n' "$last" | grep -q '^[0-9]* passed, 0 failed'; then
			ok "$(basename "$t"): $last"
		else
			fail "$(basename "$t"): exit $rc" "$(grep '^FAIL' "$T_TMP/out" | head -n 10; echo "$last")"
		fi
	done
done
T_TAG=
finish
