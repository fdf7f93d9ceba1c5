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

# ---- issue 12: every common way of counting CPUs ------------------------
# tests/cpus_probe.sh asks getconf, nproc, /proc/cpuinfo, /proc/stat, /sys,
# lscpu, Python, node and a node cluster; each line must say N.
sh tests/cpus_probe.sh >"$T_TMP/native"
LD_PRELOAD=$FASTPATH_SO sh tests/cpus_probe.sh >"$T_TMP/unset"
while read -r name value; do
	case $value in
	skip:*) skip "$name" "${value#skip: }" ;;
	*) expect_eq "$name: preloaded, unset, equals native" "$value" \
		"$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' "$T_TMP/unset")" ;;
	esac
done <"$T_TMP/native"
for n in 1 3 64; do
	LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n sh tests/cpus_probe.sh >"$T_TMP/cap$n"
	while read -r name value; do
		case $value in
		skip:*) ;;
		*) expect_eq "$name: FASTPATH_CPUS=$n" "$n" "$value" ;;
		esac
	done <"$T_TMP/cap$n"
done

# At the real count the files are the kernel's, byte for byte, but for
# what the kernel itself changes between two reads: cpu MHz, and the
# counters of /proc/stat (compared with every number masked).
same_file() {
	# same_file NAME FILE FILTER
	a=$(sh -c "$3" <"$2")
	b=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$native sh -c "cat $2" | sh -c "$3")
	expect_eq "$1 at FASTPATH_CPUS=$native (the real count) is the kernel's" "$a" "$b"
}
for f in online possible present; do
	same_file "/sys/devices/system/cpu/$f" "/sys/devices/system/cpu/$f" cat
done
same_file /proc/cpuinfo /proc/cpuinfo "grep -v '^cpu MHz'"
same_file /proc/stat /proc/stat "sed 's/[0-9][0-9]*/N/g'"
# The virtual file is really in use at the real count too.
expect_eq "/proc/cpuinfo at the real count is a generated copy" "regular file" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$native $PYTHON -c '
import os, stat; fd = os.open("/proc/cpuinfo", os.O_RDONLY)
print("regular file" if os.fstat(fd).st_size > 0 else "procfs")' 2>&1)"

# /proc/stat: the cpu total is the sum of the lines shown.
for n in 1 3 64; do
	expect_eq "/proc/stat total is the sum of the cpuN lines at $n" ok \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n awk '
			$1 == "cpu" { for (i = 2; i <= NF; i++) t[i] = $i; nf = NF }
			$1 ~ /^cpu[0-9]/ { for (i = 2; i <= NF; i++) s[i] += $i }
			END { for (i = 2; i <= nf; i++) if (t[i] != s[i]) { print "column " i; exit } print "ok" }' /proc/stat)"
done
# /proc/cpuinfo ids are exactly the mask's.
if [ -n "$PYTHON" ]; then
	for n in 1 3 64; do
		expect_eq "/proc/cpuinfo ids are the affinity mask's at $n" \
			"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$PYTHON" -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')" \
			"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n awk '/^processor/ { printf "%s%s", s, $3; s = " " } END { print "" }' /proc/cpuinfo)"
	done
fi

# Every open entry point and fopen reach the files; a relative openat too.
for n in 1 3 64; do
	expect_eq "every open entry point sees $n CPUs" \
		"open=$n openat=$n open64=$n openat64=$n __open_2=$n __open64_2=$n __openat_2=$n __openat64_2=$n fopen=$n fopen64=$n openat-dirfd=$n" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$TESTBIN/prog_cpus" entries)"
done
n=$native
expect_eq "unset: every open entry point sees the real file" \
	"open=$n openat=$n open64=$n openat64=$n __open_2=$n __open64_2=$n __openat_2=$n __openat64_2=$n fopen=$n fopen64=$n openat-dirfd=$n" \
	"$(LD_PRELOAD=$FASTPATH_SO "$TESTBIN/prog_cpus" entries)"

# Other paths pass through, /proc/self/stat among them.
for f in /proc/version /proc/self/comm /sys/devices/system/cpu/kernel_max; do
	expect_eq "$f untouched under the cap" "$(cat $f)" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 cat $f)"
done
expect_eq "/proc/self/stat untouched under the cap (its own pid)" ok \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 sh -c 'read -r p _ </proc/self/stat; [ "$p" = $$ ] && echo ok')"
# Writes fail as on procfs.
expect_eq "a write to /proc/cpuinfo fails as natively" \
	"$(sh -c 'echo x >/proc/cpuinfo' 2>&1 | sed 's/^.*: //')" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 sh -c 'echo x >/proc/cpuinfo' 2>&1 | sed 's/^.*: //')"

# The affinity round trip: get, remove one, set, get gives what was set,
# below, at and above the real count, in a thread and a forked child.
for n in 1 "$native" 3 64; do
	expect_eq "affinity round trip at $n" "thread ok main ok child ok" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n WANT=$n "$TESTBIN/prog_cpus" roundtrip)"
done
expect_eq "affinity round trip natively" "thread ok main ok child ok" \
	"$(WANT=$native "$TESTBIN/prog_cpus" roundtrip)"

# sched_getcpu()/getcpu() on the last CPU we may run on: under a cap below
# it, a CPU of the machine the cap shows (an array of N per-CPU slots stays
# in bounds); at or above the real count, the kernel's own id.
last=$("$TESTBIN/prog_cpus" getcpu)
case $last in
"0 0") skip "sched_getcpu under a cap" "one CPU to run on, none to fold (test_cpus forces the fold)" ;;
*)
	l=${last%% *}
	expect_eq "sched_getcpu/getcpu natively: the last CPU, twice" "$l $l" "$last"
	expect_eq "sched_getcpu/getcpu at 1 on CPU $l: CPU 0" "0 0" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=1 "$TESTBIN/prog_cpus" getcpu)"
	for n in "$native" 64; do
		expect_eq "sched_getcpu/getcpu at $n on CPU $l: its own id" "$l $l" \
			"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$TESTBIN/prog_cpus" getcpu)"
	done
	expect_eq "sched_getcpu/getcpu, cap unset: its own id" "$l $l" \
		"$(LD_PRELOAD=$FASTPATH_SO "$TESTBIN/prog_cpus" getcpu)" ;;
esac

finish
