#!/bin/sh
# SPDX-License-Identifier: MIT
# cpus_fuzz (fuzz/cpus_fuzz.c), make check's share: generated programs of
# affinity and counting operations, each run natively and under
# interpose --cpus R (R the real count: the machine is the real one, and
# every answer must be native's), then, at N = 2R + 1 and N = 1, on every
# CPU and on one alone (one N-CPU machine whatever backs it), each checked
# in the program against a model of N CPUs.  Negative control: the capped
# side told another count must fail.  The fuzzer started on a part of the
# machine cannot have the identity machine: forced with taskset, that is
# its exit 77 with the reason.  And what its first run found: interpose
# hands the machine down, so that the shell a pinned program's system()
# starts sees the pin (natively {1}; it saw {0,1} at N = R).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

CF=$TESTBIN/cpus_fuzz
SEED=${CPUSFUZZ_SEED:-1}
CASES=${CPUSFUZZ_CASES:-300}
# Under a composed preload (check-eatmydata runs every t_*.sh twice so) a
# smaller share: the full one has run in make check already.
case $FASTPATH_SO in *:*) CASES=${CPUSFUZZ_CASES:-60} ;; esac

precond "cpus_fuzz is built" [ -x "$CF" ]
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
online=$(cat /sys/devices/system/cpu/online 2>/dev/null)
if [ -z "$allowed" ] || [ "$allowed" != "$online" ]; then
	skip "cpus_fuzz" "this shell runs on CPUs $allowed of $online: the identity machine needs all"
	finish
	exit
fi
real=$(getconf _NPROCESSORS_ONLN)
last=$(printf '%s\n' "$allowed" | tr ',' '\n' | tail -n 1 | sed 's/.*-//')

# share NAME WHAT ARG...: a run of the share, which must say WHAT (a
# pattern: "COUNT programs on N CPUs") and 0 differences.
share() {
	sh_name=$1 sh_count=$2
	shift 2
	"$CF" --so "$FASTPATH_SO" --interpose "$INTERPOSE" --seed "$SEED" "$@" >"$T_TMP/run" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^cpus_fuzz: seed $SEED: $sh_count in .* 0 differences" "$T_TMP/run"; then
		ok "$sh_name"
	else
		fail "$sh_name" "exit $rc: $(head -c 2000 "$T_TMP/run")"
	fi
}
share "cpus_fuzz: $CASES programs (seed $SEED), native vs interpose --cpus $real: the same answers" \
	"$CASES programs on $real CPUs" --cases "$CASES"
for n in $((2 * real + 1)) 1; do
	[ "$n" -ne "$real" ] || continue
	share "cpus_fuzz: --cpus $n on CPUs $allowed and on CPU $last alone: one machine, as the model says" \
		"[1-9][0-9]* programs on $n CPUs" --cases $((CASES * 2 / 3)) --cpus "$n"
done

# Negative control: the capped side told R + 1 CPUs differs, and says so.
"$CF" --so "$FASTPATH_SO" --seed "$SEED" --cases 5 --lie-count $((real + 1)) >"$T_TMP/liar" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q '^not ok - seed ' "$T_TMP/liar" && grep -q 'shrunk to [0-9]* ops' "$T_TMP/liar"; then
	ok "cpus_fuzz: a capped side told another count is a difference (exit 1, shrunk)"
else
	fail "cpus_fuzz: a capped side told another count is a difference (exit 1, shrunk)" \
		"exit $rc: $(head -c 1500 "$T_TMP/liar")"
fi

# The branch this machine does not take: the fuzzer started on part of it.
if command -v taskset >/dev/null 2>&1 && [ "$real" -gt 1 ]; then
	taskset -c "$last" "$CF" --so "$FASTPATH_SO" --cases 1 >"$T_TMP/part" 2>&1
	rc=$?
	if [ $rc -eq 77 ] && grep -q '^cpus_fuzz: not run: started on 1 CPUs of ' "$T_TMP/part"; then
		ok "cpus_fuzz: started on one CPU of $real, it does not run (77) and says why"
	else
		fail "cpus_fuzz: started on one CPU of $real, it does not run (77) and says why" "exit $rc: $(cat "$T_TMP/part")"
	fi
else
	skip "cpus_fuzz started on part of the machine" "no taskset, or one CPU"
fi

# What cpus_fuzz found first: interpose decides the machine and hands it
# down in FASTPATH_CPUS_MAP (its shell's CPUs), an inherited one is left
# alone, and none is made for quota.
got=$("$INTERPOSE" --quiet --cpus 3 -- env | grep '^FASTPATH_CPUS_MAP=')
check "interpose --cpus 3 hands down the machine: 3 CPUs on $allowed" \
	[ "$got" = "FASTPATH_CPUS_MAP=3:$allowed" ]
got=$(FASTPATH_CPUS_MAP=3:0 "$INTERPOSE" --quiet --cpus 3 -- env | grep '^FASTPATH_CPUS_MAP=')
check "interpose leaves an inherited map alone" [ "$got" = "FASTPATH_CPUS_MAP=3:0" ]
got=$("$INTERPOSE" --quiet --cpus quota -- env | grep -c '^FASTPATH_CPUS_MAP=')
check "interpose --cpus quota makes no map (the object reads the count)" [ "$got" = 0 ]
if [ -n "$PYTHON" ] && [ "$real" -gt 1 ]; then
	# shellcheck disable=SC2016 # python's own text
	prog='import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
os.system("grep Cpus_allowed_list /proc/self/status")'
	nat=$("$PYTHON" -c "$prog" "$last")
	cap=$("$INTERPOSE" --quiet --cpus "$real" -- "$PYTHON" -c "$prog" "$last")
	check "a program pinned to CPU $last under interpose --cpus $real: its system() shell sees the pin, as natively ($nat)" \
		[ "$nat" = "$cap" ]
else
	skip "a pinned program's system() under interpose" "no python3, or one CPU"
fi
finish
