#!/bin/sh
# cpus: real programs see the CPU count set with --cpus / FASTPATH_CPUS,
# their native count without it, and a malformed value changes nothing.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

native=$(getconf _NPROCESSORS_ONLN)

stats_field cpus '[0-9]+ reported \(real ([0-9]+|\?)\) to [0-9]+ queries' FASTPATH_CPUS=3

cmd_for() {
	case $1 in
	getconf) echo 'getconf _NPROCESSORS_ONLN' ;;
	nproc) echo 'nproc' ;;
	python) echo "python3 -c 'import os; print(os.cpu_count())'" ;;
	python-affinity) echo "python3 -c 'import os; print(len(os.sched_getaffinity(0)))'" ;;
	node) echo "node -e 'console.log(require(\"os\").availableParallelism())'" ;;
	esac
}

for p in getconf nproc python python-affinity node; do
	cmd=$(cmd_for "$p")
	if ! command -v "${cmd%% *}" >/dev/null 2>&1; then
		skip "$p" "${cmd%% *} is not installed"
		continue
	fi
	# What the tool says natively is the machine's (a cpuset or taskset can
	# make it differ from getconf): the baseline, not a pass of ours.
	own=$(sh -c "$cmd")
	precond "$p: reports a CPU count natively ($own)" expr "$own" : '[1-9][0-9]*$'
	expect_eq "$p: preloaded, unset" "$own" "$(LD_PRELOAD=$FASTPATH_SO sh -c "$cmd")"
	for n in 1 64; do
		expect_eq "$p: interpose --cpus $n" "$n" "$("$INTERPOSE" --cpus "$n" sh -c "$cmd")"
		# Without interpose there is no OMP_NUM_THREADS: our wrappers alone.
		expect_eq "$p: FASTPATH_CPUS=$n" "$n" \
			"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n sh -c "$cmd")"
	done
	for bad in 0 -1 abc 65537 " 4" 4x 99999999999999999999; do
		out=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$bad sh -c "$cmd" 2>"$T_TMP/err")
		expect_eq "$p: FASTPATH_CPUS='$bad' reports native" "$own" "$out"
	done
done

# Malformed: one warning line per process, naming the variable.
LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=lots getconf _NPROCESSORS_ONLN >/dev/null 2>"$T_TMP/err"
expect_eq "malformed FASTPATH_CPUS: one line" 1 "$(wc -l <"$T_TMP/err" | tr -d ' ')"
if grep -q 'FASTPATH_CPUS="lots": not a whole number from 1 to 65536; the real CPU count is reported' "$T_TMP/err"; then
	ok "malformed FASTPATH_CPUS: the line says what and what instead"
else
	fail "malformed FASTPATH_CPUS: the line says what and what instead" "$(cat "$T_TMP/err")"
fi
"$INTERPOSE" --cpus lots true 2>/dev/null
expect_eq "interpose --cpus lots: usage error" 125 $?
"$INTERPOSE" --cpus 65537 true 2>/dev/null
expect_eq "interpose --cpus 65537: usage error" 125 $?

# FASTPATH_DISABLE=cpus wins over a count.
expect_eq "FASTPATH_DISABLE=cpus wins" "$native" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 FASTPATH_DISABLE=cpus getconf _NPROCESSORS_ONLN)"

# find_elf asked a getconf child: the setting reaches grandchildren.
expect_eq "reaches a grandchild" 5 \
	"$("$INTERPOSE" --cpus 5 sh -c 'sh -c "getconf _NPROCESSORS_ONLN"')"

# interpose sets OMP_NUM_THREADS only when the operator has not.
# shellcheck disable=SC2016 # expanded by the inner shell, on purpose
expect_eq "OMP_NUM_THREADS set when unset" 6 "$("$INTERPOSE" --cpus 6 sh -c 'echo "$OMP_NUM_THREADS"')"
# shellcheck disable=SC2016
expect_eq "OMP_NUM_THREADS kept when set" 2 \
	"$(OMP_NUM_THREADS=2 "$INTERPOSE" --cpus 6 sh -c 'echo "$OMP_NUM_THREADS"')"

# The affinity mask for N below the real count: the first N CPUs we may use.
if command -v python3 >/dev/null 2>&1 && command -v taskset >/dev/null 2>&1; then
	mask="python3 -c 'import os; print(sorted(os.sched_getaffinity(0)))'"
	first=$(sh -c "$mask" | tr -d '[] ' | cut -d, -f1)
	expect_eq "mask for --cpus 1" "[$first]" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=1 sh -c "$mask")"
	last=$(sh -c "$mask" | tr -d '[] ' | awk -F, '{ print $NF }')
	if [ "$last" != "$first" ]; then
		expect_eq "mask for --cpus 1 under taskset -c $last" "[$last]" \
			"$(taskset -c "$last" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=1 sh -c "$mask")"
	else
		skip "mask for --cpus 1 under taskset" "this process may run on one CPU only ($first)"
	fi
	# Above the real count: real ids first, then made-up ones past them.
	out=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=64 sh -c "$mask")
	expect_eq "mask for --cpus 64 holds 64 ids" 64 "$(echo "$out" | tr ',' '\n' | wc -l | tr -d ' ')"
	# A program pinning itself to a made-up CPU keeps running, where
	# natively (the kernel's answer, a precondition) it fails.
	pin() {
		python3 -c '
import os, sys
try:
    os.sched_setaffinity(0, {int(sys.argv[1])}); print("ok")
except OSError as e:
    print("EINVAL" if e.errno == 22 else e)' "$1" 2>&1
	}
	precond "pinning to CPU 1000 fails natively with EINVAL" [ "$(pin 1000)" = EINVAL ]
	expect_eq "pinning to a made-up CPU works" ok \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=64 python3 -c 'import os; os.sched_setaffinity(0, {63}); print("ok")' 2>&1)"
else
	skip "affinity masks" "python3 or taskset is not installed"
fi

finish
