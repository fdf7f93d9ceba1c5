#!/bin/sh
# SPDX-License-Identifier: MIT
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
		# A real 1-CPU machine has only CPU 0, whichever CPU it is.
		expect_eq "mask for --cpus 1 under taskset -c $last" "[0]" \
			"$(taskset -c "$last" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=1 sh -c "$mask")"
	else
		skip "mask for --cpus 1 under taskset" "this process may run on one CPU only ($first)"
	fi
	# Above the real count: CPUs 0..63.
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
# readdir_r from four threads on one stream lists each virtual cpuK once
# (a cold review: the next one to list was not claimed whole).
expect_eq "FASTPATH_CPUS=4000: readdir_r from 4 threads on one stream, 10 rounds: each cpuK once" "ok" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=4000 "$TESTBIN/prog_cpus" readdir_r 4000 10 2>&1)"
# enabled (Linux 6.10) tells the same story as online: 0-N-1; where the
# kernel has none, its ENOENT under the cap too (a cold review: it stayed
# the real machine's).
for n in 1 5; do
	if [ -e /sys/devices/system/cpu/enabled ]; then
		want="0-$((n - 1))"
		[ "$n" -eq 1 ] && want=0
	else
		want=$(head -n 1 /sys/devices/system/cpu/enabled 2>&1 | sed 's/.*: //')
	fi
	expect_eq "FASTPATH_CPUS=$n: /sys/devices/system/cpu/enabled" "$want" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n head -n 1 /sys/devices/system/cpu/enabled 2>&1 | sed 's/.*: //')"
done
same_file /proc/cpuinfo /proc/cpuinfo "grep -v '^cpu MHz'"
same_file /proc/stat /proc/stat "sed 's/[0-9][0-9]*/N/g'"
# At the real count, on every CPU the process may use (the identity map),
# the kernel's own file, not a copy of its bytes: a seek, fstat and
# /proc/self/fd are procfs's (a cold review: a copy re-read after a seek
# kept the counters of its open).
if [ "$(nproc)" = "$native" ]; then
	expect_eq "/proc/cpuinfo at the real count is the kernel's file" "procfs" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$native $PYTHON -c '
import os, stat; fd = os.open("/proc/cpuinfo", os.O_RDONLY)
print("regular file" if os.fstat(fd).st_size > 0 else "procfs")' 2>&1)"
	expect_eq "/proc/stat at the real count is the kernel's file" "/proc/stat" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$native sh -c 'exec 3</proc/stat; exec readlink /proc/self/fd/3')"
else
	skip "the real count: the kernel's file" "this process may not use every CPU (nproc $(nproc) of $native)"
fi

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
	# CPU $l is the last of those we may use: at or above that count,
	# the virtual CPU of the same number.
	for n in "$native" 64; do
		expect_eq "sched_getcpu/getcpu at $n on CPU $l: its own id" "$l $l" \
			"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$TESTBIN/prog_cpus" getcpu)"
	done
	expect_eq "sched_getcpu/getcpu, cap unset: its own id" "$l $l" \
		"$(LD_PRELOAD=$FASTPATH_SO "$TESTBIN/prog_cpus" getcpu)"
	# A preload after ours that wraps sched_getcpu sees the calls: the
	# rseq area is read directly only where the bound one is libc's.
	if [ -f "$TESTBIN/libgetcpu_wrap.so" ]; then
		expect_eq "sched_getcpu, cap unset, a wrapping preload after ours: through it" \
			"$((l + 1000)) $l" \
			"$(LD_PRELOAD="$FASTPATH_SO $TESTBIN/libgetcpu_wrap.so" "$TESTBIN/prog_cpus" getcpu)"
	else
		fail "sched_getcpu and a wrapping preload" "no $TESTBIN/libgetcpu_wrap.so (make builds it)"
	fi
	# The same with no rseq area registered (glibc's tunable): the cap
	# unset reads the area's cpu_id where glibc registered one, and asks
	# libc's sched_getcpu (the vDSO) where it did not.
	expect_eq "sched_getcpu/getcpu, no rseq area, natively: the last CPU" "$l $l" \
		"$(GLIBC_TUNABLES=glibc.pthread.rseq=0 "$TESTBIN/prog_cpus" getcpu)"
	for n in "" 1; do
		want="$l $l"
		[ "$n" = 1 ] && want="0 0"
		expect_eq "sched_getcpu/getcpu, no rseq area, cap ${n:-unset}" "$want" \
			"$(env GLIBC_TUNABLES=glibc.pthread.rseq=0 LD_PRELOAD="$FASTPATH_SO" \
			   ${n:+FASTPATH_CPUS=$n} "$TESTBIN/prog_cpus" getcpu)"
	done ;;
esac

# ---- issue 28: one machine of N CPUs numbered 0..N-1, whatever the real
# affinity (taskset, a container's cpuset, a raw sched_setaffinity).
# prog_cpus vm checks what holds on any real machine (its counts, lists,
# /proc/cpuinfo and /proc/stat numbering, masks by every way of asking,
# sched_getcpu in the mask): natively first, the oracle, under the same
# restriction; then every cap.
P=$TESTBIN/prog_cpus
lastcpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //; s/.*[,-]//')
if ! command -v taskset >/dev/null 2>&1; then
	skip "issue 28 matrix" "taskset is not installed"
else
	[ "$lastcpu" = 0 ] && skip "taskset -c $lastcpu" "one CPU to run on: the same as no restriction (test_cpus forces a cpuset's map)"
	for how in plain taskset raw; do
		case $how in
		plain) pre="" arg="" ;;
		taskset) pre="taskset -c $lastcpu" arg="" ;;
		raw) pre="" arg=raw ;;
		esac
		expect_eq "natively ($how): one machine" "vm $native ok" "$($pre "$P" vm ${arg:+"$arg"} 2>&1)"
		slot=$($pre "$P" slot ${arg:+"$arg"})
		expect_eq "natively ($how): sched_getcpu below get_nprocs ($slot)" yes \
			"$([ "${slot#* }" -lt "${slot% *}" ] && echo yes)"
		case $($pre "$P" pin ${arg:+"$arg"}) in
		"pin "*" ok") ok "natively ($how): every pin lands" ;;
		*) fail "natively ($how): every pin lands" "$($pre "$P" pin ${arg:+"$arg"})" ;;
		esac
		for n in 1 2 3 64 8192 10000; do
			w=$n
			[ "$n" -gt 8192 ] && w=8192
			run() { $pre env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=$n "$P" "$@" 2>/dev/null; }
			expect_eq "FASTPATH_CPUS=$n ($how): one machine of $w" "vm $w ok" "$(run vm ${arg:+"$arg"})"
			slot=$(run slot ${arg:+"$arg"})
			expect_eq "FASTPATH_CPUS=$n ($how): slot $slot in bounds" yes \
				"$([ "${slot% *}" = "$w" ] && [ "${slot#* }" -lt "$w" ] && echo yes)"
			# Every pin of a big machine is seconds of migrations: the
			# unrestricted one only.
			[ "$n" -ge 8192 ] && [ "$how" != plain ] && continue
			case $(run pin ${arg:+"$arg"}) in
			"pin "*" ok") ok "FASTPATH_CPUS=$n ($how): every pin lands" ;;
			*) fail "FASTPATH_CPUS=$n ($how): every pin lands" "$(run pin ${arg:+"$arg"})" ;;
			esac
		done
	done
	# The issue's cases, with a real 1-, 2- and 3-CPU machine's numbers.
	expect_eq "taskset -c $lastcpu, --cpus 1: slot" "1 0" \
		"$(taskset -c "$lastcpu" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=1 "$P" slot)"
	# shellcheck disable=SC2016 # awk's own fields
	expect_eq "taskset -c $lastcpu, --cpus 1: cpuinfo holds processor 0 only" "0" \
		"$(taskset -c "$lastcpu" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=1 awk '/^processor/ { printf "%s", $3 }' /proc/cpuinfo)"
	expect_eq "taskset -c $lastcpu, --cpus 1: online" "0" \
		"$(taskset -c "$lastcpu" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=1 cat /sys/devices/system/cpu/online)"
	# shellcheck disable=SC2016 # awk's own fields
	expect_eq "taskset -c $lastcpu, --cpus 2: cpuinfo processors 0 1" "0 1" \
		"$(taskset -c "$lastcpu" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=2 awk '/^processor/ { printf "%s%s", s, $3; s = " " }' /proc/cpuinfo)"
fi

# Runtimes that size per-CPU state from the count: OpenMP (libgomp asks
# the affinity mask at start-up) and jemalloc's per-CPU arenas (sized from
# the count, picked by sched_getcpu(): arena N is its arena for huge
# allocations, and a CPU id past the count lands there or beyond).
if [ -x "$TESTBIN/prog_omp" ]; then
	expect_eq "OpenMP natively" "procs $native threads $native" "$("$TESTBIN/prog_omp")"
	for n in 1 3 64; do
		expect_eq "OpenMP omp_get_num_procs at $n" "procs $n threads $n" \
			"$(env -u OMP_NUM_THREADS LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=$n "$TESTBIN/prog_omp")"
		expect_eq "OpenMP omp_get_num_procs at $n under taskset -c $lastcpu" "procs $n threads $n" \
			"$(taskset -c "$lastcpu" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=$n "$TESTBIN/prog_omp")"
	done
else
	skip "OpenMP" "the compiler has no OpenMP (-fopenmp): tests/bin/prog_omp was not built"
fi
JEMALLOC=$(for d in /usr/lib/*-linux-gnu /usr/lib /usr/lib64; do
	[ -e "$d/libjemalloc.so.2" ] && echo "$d/libjemalloc.so.2" && break; done)
if [ -n "$JEMALLOC" ]; then
	jm() { MALLOC_CONF=percpu_arena:percpu,tcache:false "$@" "$P" jemalloc 2>&1; }
	expect_eq "jemalloc percpu natively: an arena per CPU" \
		"percpu percpu arenas $native max $((native - 1)) cpus $native" "$(jm env LD_PRELOAD="$JEMALLOC")"
	for n in 1 2 3 64; do
		expect_eq "jemalloc percpu at $n: arenas 0..$((n - 1))" \
			"percpu percpu arenas $n max $((n - 1)) cpus $n" \
			"$(jm env LD_PRELOAD="$FASTPATH_SO $JEMALLOC" FASTPATH_CPUS=$n)"
		expect_eq "jemalloc percpu at $n under taskset -c $lastcpu: arenas 0..$((n - 1))" \
			"percpu percpu arenas $n max $((n - 1)) cpus $n" \
			"$(jm taskset -c "$lastcpu" env LD_PRELOAD="$FASTPATH_SO $JEMALLOC" FASTPATH_CPUS=$n)"
	done
else
	skip "jemalloc percpu_arena" "libjemalloc2 is not installed"
fi

# Made-up blocks are those of a consistent machine: at 64, siblings and
# cpu cores 64 everywhere, 64 distinct apicids (x86 only has them).
if grep -q '^apicid' /proc/cpuinfo; then
	expect_eq "cpuinfo at 64: siblings, cores, distinct apicids" "64 64 64" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=64 awk -F': ' '
			/^siblings/ { s[$2] = 1 } /^cpu cores/ { c[$2] = 1 } /^apicid/ { a[$2] = 1 }
			END { for (k in s) ss = ss k; for (k in c) cc = cc k; n = 0; for (k in a) n++; print ss, cc, n }' /proc/cpuinfo)"
else
	skip "cpuinfo topology at 64" "no apicid lines on this architecture"
fi

# N above what Linux allows: 8192, with one line saying so; kernel_max and
# lscpu follow N past the kernel's own kernel_max.
LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=10000 getconf _NPROCESSORS_ONLN >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "FASTPATH_CPUS=10000: 8192" 8192 "$(cat "$T_TMP/out")"
expect_eq "FASTPATH_CPUS=10000: one warning line" \
	'FASTPATH_CPUS="10000": Linux has at most 8192 CPUs; 8192 are reported' \
	"$(sed 's/^fastpath\[[0-9]*\]: //' "$T_TMP/err")"
# interpose --cpus 10000 says so once and exports 8192: the processes the
# command starts (a shell that runs another) say nothing more.
# shellcheck disable=SC2016 # the inner shell expands it
"$INTERPOSE" --cpus 10000 -- sh -c 'echo "$FASTPATH_CPUS"; sh -c "getconf _NPROCESSORS_ONLN"' \
	>"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "interpose --cpus 10000: 8192 exported and reported" "8192 8192" \
	"$(tr '\n' ' ' <"$T_TMP/out" | sed 's/ $//')"
expect_eq "interpose --cpus 10000: one warning line, from interpose" \
	'interpose: --cpus 10000: Linux has at most 8192 CPUs; 8192 are reported' "$(cat "$T_TMP/err")"
kmax=$(cat /sys/devices/system/cpu/kernel_max)
big=$((kmax + 2))
expect_eq "kernel_max at $big (past the kernel's $kmax)" 8191 \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$big cat /sys/devices/system/cpu/kernel_max)"
if command -v lscpu >/dev/null 2>&1; then
	expect_eq "lscpu at $big: CPU(s) and the on-line list" "$big 0-$((big - 1))" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$big lscpu | awk -F: '
			/^CPU\(s\)/ { gsub(/ /, "", $2); c = $2 } /^On-line/ { gsub(/ /, "", $2); o = $2 }
			END { print c, o }')"
else
	skip "lscpu at $big" "lscpu is not installed"
fi
if command -v node >/dev/null 2>&1; then
	expect_eq "node at 10000: os.cpus() and availableParallelism agree" "8192 8192" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=10000 node -e 'const os = require("os"); console.log(os.cpus().length, os.availableParallelism())' 2>/dev/null)"
else
	skip "node at 10000" "node is not installed"
fi

# A thread attribute's mask reads back as it was set, on any machine.
want=$("$P" attrback)
for n in 2 4; do
	expect_eq "N=$n: pthread_attr_getaffinity_np gives back what was set, as native" "$want" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$P" attrback)"
done

# Another process's mask asked under the cap: a success leaves errno
# alone (a cold review: the probe for a thread of ours left ESRCH).
expect_eq "sched_getaffinity of another process: errno as native" "$("$P" errno)" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" errno)"

# The CPU files as procfs and sysfs: read-only (even with one descriptor
# left), lseek and mmap as theirs (a status file's mmap is ENODEV, not
# cpuinfo's EIO: a cold review).  Native is the oracle.
for f in /proc/cpuinfo /proc/stat /proc/self/status /proc/thread-self/status /sys/devices/system/cpu/online /sys/devices/system/cpu/kernel_max; do
	want=$("$P" file "$f")
	expect_eq "$f under the cap: access, write, seeks, mmap as native" "$want" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" file "$f")"
	expect_eq "$f under the cap, ulimit -n 4: as native" "$(sh -c "ulimit -n 4; exec $P file $f")" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 sh -c "ulimit -n 4; exec $P file $f")"
done
# Read again on the same descriptor or stream (a seek back, a pread from
# 0, a stream's rewind): procfs makes the text afresh, and so must the
# copy (a cold review: vmstat and top saw no interrupt, no context switch,
# an idle machine, from the second round on).  Native is the oracle:
# /proc/stat's counters move.  (A status keeps the text of its open:
# fastpath(7).)
for f in /proc/stat /proc/cpuinfo /sys/devices/system/cpu/online; do
	want=$("$P" reread "$f")
	for n in 1 3; do
		expect_eq "$f under the cap ($n): read again after a seek, a pread, a rewind: as native" \
			"$want" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$P" reread "$f")"
	done
done
# Made again with every signal held: a handler's siglongjmp out of the
# seeks strands no descriptor (a cold review: 1018 left, to the limit).
expect_eq "/proc/stat under the cap: jumps out of seeks that make it again" \
	"$("$P" rereadjump)" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" rereadjump)"
# The exec under the cap reads the program's envp as the kernel does: an
# invalid one is the call's EFAULT, never our fault (a review: SIGSEGV).
for l in "" learnt; do
	expect_eq "exec and spawn with an unreadable envp under the cap${l:+ (machine learnt)}: EFAULT as native" \
		"$("$P" badenv $l)" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" badenv $l 2>&1)"
done
# A crash handler that execs on a small alternate stack (a review: the
# machine learnt on it, and the environment copied onto it: SIGSEGV; cold
# review 33: 4 KiB with 300 entries).  Stacks by entries, the machine
# learnt or not, or pinned to one CPU (its nproc: review 35, 3 where the
# copy was skipped), the stack armed plainly or with SS_AUTODISARM (which
# the kernel disarms inside the handler, and then does not report), and
# so after a first handler armed another and returned (the kernel puts
# the first back) or jumped out (the other stays, and the exec is on it),
# or by a call that failed writing the old stack (EFAULT, armed all the
# same): on an alternate stack the copy is made apart (before 4eddc42, 20
# of the 45 plain ones were killed by SIGSEGV; on 914343e, which did not
# keep the stack armed with SS_AUTODISARM, 21 of those 45; on 78d562e, 42
# of the 90 rearm and efault ones; on 470261a, 21 of the 45 rearmjump
# ones: review 40).
for a in 3072 4096 8192; do
	for l in plain learnt pinned; do
		for d in "" autodisarm rearm rearmjump efault; do
			nat='' fp=''
			for k in 0 100 200 300 400; do
				e=$(seq -f 'FILLER%g=1' 1 $k | tr '\n' ' ')
				[ "$k" = 0 ] && e=
				# shellcheck disable=SC2086 # the words of e and d
				nat="$nat $k: $(env $e "$P" altexec $a $l $d)"
				# shellcheck disable=SC2086 # the words of e and d
				fp="$fp $k: $(env $e LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" altexec $a $l $d 2>&1)"
			done
			expect_eq "execv from a handler on a $a-byte alternate stack ($l${d:+, $d}), 0 to 400 more variables, under the cap" \
				"$nat" "$fp"
		done
	done
done
# The same, generated (prog_cpus altgen): arms of a pool of stacks, a
# first stack, handlers on the main stack that arm one of the pool and
# return, then up to three handlers, on it or not, each arming another
# stack or not and returning, raising the next or jumping out, and the
# crash handler's exec (of nproc, pinned to CPU 0, in one case in four:
# its count) inside or at the top, on stacks of 3 to 64 KiB.  Differing
# cases of the 1,200 below: 103 on fe31f01 (the first stack armed with SS_AUTODISARM, another
# armed in a handler that returned: the kernel put the first back, and the
# wrapper had dropped it for the new one: SIGSEGV), 8 on cd0468b (which
# kept the last four armed: review 42's rearm and loop), 0 on 16 kept by
# last use.
for seed in 1 2 3 4; do
	nat=$("$P" altgen $seed 300)
	expect_eq "300 generated sequences of alternate stacks and handlers ending in an exec (seed $seed), under the cap: native statuses" \
		"$nat" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" altgen $seed 300 2>&1)"
	case $nat in *.*) ;; *) fail "altgen seed $seed: no case exec'd natively" "$nat" ;; esac
done
# Made again apart from the program's table: a fork in another thread
# copies none of the descriptors that takes (a cold review's count: 1784
# of 3000 children had one more).
for n in 1 3; do
	expect_eq "/proc/stat under the cap ($n) read again beside forks: the children's tables as native" \
		"$("$P" forkreread 1000)" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$P" forkreread 1000)"
done
# ...in a thread of ours, not a child process: nothing for the program's
# wait(__WALL) to reap, nothing in its RUSAGE_CHILDREN (a cold review).
expect_eq "/proc/stat under the cap read again beside a __WALL reaper: no child of ours" \
	"$("$P" kin 1000)" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" kin 1000)"
# The caller's memory read through this thread's id: the process's is
# refused once the main thread has exited (a cold review: EFAULT).
if [ "$native" -ge 2 ]; then
	expect_eq "the main thread exited, a thread's set of its mask under the cap: as native" \
		"$("$P" leaderexit)" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" leaderexit)"
else
	skip "a set after the main thread exited" "one CPU here: {1} is no mask of this machine"
fi
# ...and once the main thread has exited (its /proc/self is gone: the
# copy froze, a cold review), through /proc/thread-self.
expect_eq "/proc/stat under the cap read again after the main thread exited: as native" \
	"$("$P" leaderreread)" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" leaderreread)"
# A filter that kills what systemd's @system-service leaves out (a
# debugger's process_vm_readv among them): an exec under the cap makes
# none of those calls (a cold review: SIGSYS, 159, on a434032).  The
# exec'd program prints its machine.
"$TESTBIN/prog_urandom_seccomp" SERVICE true >/dev/null 2>&1
if [ $? -eq 77 ]; then
	skip "an exec under the cap beside a @system-service filter" "no seccomp filter here"
else
	expect_eq "an exec under the cap beside a @system-service filter: the program runs" 3 \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$TESTBIN/prog_urandom_seccomp" SERVICE "$P" where 2>&1 |
			cut -d' ' -f1)"
	# The unit tests' branches no machine here takes (a set smaller than
	# a machine past 64 CPUs: its writability probe) under both filters.
	if [ -x "$TESTBIN/test_cpus" ]; then
		for f in SERVICE REFUSE; do
			check "test_cpus under a filter that $([ $f = SERVICE ] && echo kills || echo refuses) a debugger's calls" \
				"$TESTBIN/prog_urandom_seccomp" $f "$TESTBIN/test_cpus"
		done
	else
		skip "test_cpus under a service's filter" "no $TESTBIN/test_cpus (make check builds it)"
	fi
fi
case $("$P" reread /proc/stat) in
*same*) skip "/proc/stat read again: the text moved natively" "natively one way read the same text (a clock that did not tick?)" ;;
esac
expect_eq "ulimit -n 4: still the machine's numbers" 3 \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 sh -c 'ulimit -n 4; exec grep -c ^processor /proc/cpuinfo')"
# There the copy goes through a named file in /dev/shm or /tmp: names
# nobody can guess (a cold review planted the pid and a count's, as
# another user, and the open failed with EMFILE), and none left behind.
# shellcheck disable=SC2016 # the inner shell's $$
got=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 sh -c '
	for n in 0 1 2 3; do : >"/dev/shm/.fastpath-cpus-$$-$n"; : >"/tmp/.fastpath-cpus-$$-$n"; done
	ulimit -n 4; exec grep -c ^processor /proc/cpuinfo' 2>&1)
left=$(find /dev/shm /tmp -maxdepth 1 -name '.fastpath-cpus-*' ! -name '.fastpath-cpus-*-[0-3]' 2>/dev/null | head -n 3)
find /dev/shm /tmp -maxdepth 1 -name '.fastpath-cpus-*-[0-3]' -newer "$T_TMP" -exec rm -f {} + 2>/dev/null
expect_eq "ulimit -n 4, the old names planted: the copy's names are not guessed, none left" "3 " "$got $left"

# Relative names: lscpu's (a descriptor of the directory) are ours, and
# "stat" under /proc/<pid> (htop's) or under the working directory are not.
expect_eq "openat(/proc dirfd, \"cpuinfo\") under the cap" "openat-dirfd=3" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" entries | sed 's/.* //')"
# ... and cost no system call of ours: 450 more opens make as many more
# readlinks and stats as natively, none (the old lookup made a readlink
# of /proc/self/fd/N per open).
if command -v strace >/dev/null 2>&1 && [ -x "$TOP/bench/bin/cpufile_loop" ]; then
	calls() {
		strace -f -qq -e trace=readlink,readlinkat,fstat,newfstatat,statx -o "$T_TMP/st" "$@" >/dev/null
		grep -c . "$T_TMP/st"
	}
	more() {
		# more ENV: the calls 500 opens make beyond 50
		a=$(calls env LD_PRELOAD="$FASTPATH_SO" "$1" "$TOP/bench/bin/cpufile_loop" stat 50 /proc/1)
		b=$(calls env LD_PRELOAD="$FASTPATH_SO" "$1" "$TOP/bench/bin/cpufile_loop" stat 500 /proc/1)
		echo $((b - a))
	}
	want=$(($(calls "$TOP/bench/bin/cpufile_loop" stat 500 /proc/1) - $(calls "$TOP/bench/bin/cpufile_loop" stat 50 /proc/1)))
	mkdir -p "$T_TMP/sv"
	for e in FASTPATH_CPUS=3 "FASTPATH_SURVEY=$T_TMP/sv"; do
		expect_eq "open(\"stat\") under /proc/1, 450 more [${e%%=*}]: no readlink or stat of ours" \
			"$want" "$(more "$e")"
	done
else
	skip "relative opens: system calls" "strace or bench/bin/cpufile_loop is missing"
fi
expect_eq "cd /proc; cat cpuinfo: the kernel's" "$(cd /proc && grep -c ^processor cpuinfo)" \
	"$(cd /proc && LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 grep -c ^processor cpuinfo)"

# Open flags as native (issue 37): a served file opens with the checks the
# kernel makes on the real one.  O_NOATIME by a non-owner is EPERM; root
# owns nothing here but may (CAP_FOWNER), so the check runs as nobody.
want=$("$P" flags)
expect_eq "open flags (O_NOATIME, O_DIRECTORY, O_PATH, write modes) under the cap, as native" \
	"$want" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=3 "$P" flags)"
if [ "$(id -u)" -ne 0 ]; then
	case $want in
	*cpuinfo:noatime=EPERM*) ok "O_NOATIME on /proc/cpuinfo by a non-owner: EPERM natively" ;;
	*) skip "O_NOATIME by a non-owner" "this user may open /proc/cpuinfo with O_NOATIME natively" ;;
	esac
elif command -v setpriv >/dev/null 2>&1 && setpriv --reuid=nobody --regid=nogroup --clear-groups "$P" flags >/dev/null 2>&1; then
	asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	want=$(asnobody "$P" flags)
	precond "as nobody, O_NOATIME on /proc/cpuinfo is EPERM natively" expr "$want" : '.*cpuinfo:noatime=EPERM'
	expect_eq "open flags as nobody under the cap (O_NOATIME: EPERM), as native" "$want" \
		"$(asnobody env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=3 "$P" flags)"
	# A non-owner's copy is made again through a reopen root never sees
	# refused: its errno must not outlive the program's successful call
	# (a cold review: EACCES after a pread or lseek that succeeded).
	for f in /proc/stat /proc/cpuinfo; do
		expect_eq "$f as nobody under the cap: read again, each way's errno as native" \
			"$(asnobody "$P" reread "$f")" \
			"$(asnobody env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=3 "$P" reread "$f")"
	done
else
	skip "O_NOATIME by a non-owner" "running as root without setpriv (util-linux) to become nobody, or nobody cannot run $P"
fi

# The map is the process's (issue 37, defect 4): a worker that pinned
# itself to the last CPU with the raw system call and asked the count
# first no longer makes that CPU the machine; the main thread's pin to {0}
# then lands on real CPU 0, as natively.
want=$("$P" learnt)
if [ "$native" -lt 2 ] || [ "$want" != "real=0" ]; then
	skip "map learnt from the process's mask" "needs 2 CPUs or more, CPU 0 among them (natively: $want)"
else
	for n in 1 2 3; do
		expect_eq "FASTPATH_CPUS=$n: a worker's raw pin, asked first, is not the machine" "$want" \
			"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$P" learnt)"
	done
fi

# Affinity in a thread attribute (issue 37, defect 3): glibc's
# pthread_create applies it with an internal call; worker i pinned to CPU i
# at creation reads back {i} everywhere and runs inside the real mask.
want=$("$P" attrpin)
precond "attrpin natively: $want" expr "$want" : "attrpin $native ok"
expect_eq "FASTPATH_CPUS=$native: attribute pins as native" "$want" \
	"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$native "$P" attrpin)"
for n in 1 3 4 $((2 * native + 1)); do
	got=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$P" attrpin)
	case $got in
	"attrpin $n ok real="*) ok "FASTPATH_CPUS=$n: worker i pinned to {i} by its attribute reads back {i}" ;;
	*) fail "FASTPATH_CPUS=$n: worker i pinned to {i} by its attribute reads back {i}" "$got" ;;
	esac
done
# A fork child of a program whose other threads set attributes' affinity:
# the table's lock one of them held at the fork is not the child's to wait
# for (its pthread_create with an attribute hung, one fork in some 50).
expect_eq "attribute affinity set in other threads: fork children make threads, none hangs (native)" \
	"attrfork ok" "$("$P" attrfork)"
expect_eq "attribute affinity set in other threads: fork children make threads, none hangs" \
	"attrfork ok" "$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=2 "$P" attrfork)"
last=$((native - 1))
if [ "$native" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	expect_eq "taskset -c $last, FASTPATH_CPUS=1: the attribute's pin stays inside the taskset" \
		"attrpin 1 ok real=$last" \
		"$(taskset -c $last env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS=1 "$P" attrpin)"
else
	skip "attribute pin inside a taskset" "needs 2 CPUs or more and taskset (util-linux)"
fi
if [ -x "$TESTBIN/prog_omp" ]; then
	expect_eq "OpenMP OMP_PROC_BIND=true OMP_PLACES={0},{1},{2},{3} under FASTPATH_CPUS=4" \
		"procs 4 threads 4" "$(OMP_PROC_BIND=true OMP_PLACES='{0},{1},{2},{3}' OMP_NUM_THREADS=4 \
			LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=4 "$TESTBIN/prog_omp" 2>&1)"
else
	skip "OpenMP with OMP_PLACES" "the compiler has no OpenMP (-fopenmp): tests/bin/prog_omp was not built"
fi


# The topology (issue 37 defect 6): the machine's directories tell the
# story of N CPUs, one package of N cores without SMT.  Real CPUs here:
# $native; N = 1 hides some when there are more, N = 2 x native + 2 adds
# virtual ones backed by real ones.
cap() { n=$1; shift; LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$n "$@"; }
seqcpu() { i=0; out=; while [ "$i" -lt "$1" ]; do out="$out${out:+ }cpu$i"; i=$((i + 1)); done; echo "$out"; }
S=/sys/devices/system
if [ -d $S/cpu/cpu0/topology ] && [ -d $S/node/node0 ]; then
	# shellcheck disable=SC2012 # ls -f: readdir's own order is what is compared
	expect_eq "FASTPATH_CPUS=$native (the identity): the cpu directory's listing is the kernel's" \
		"$(ls -f $S/cpu | tr '\n' ' ')" "$(cap "$native" ls -f $S/cpu | tr '\n' ' ')"
	big=$((2 * native + 2))
	for n in 1 "$big"; do
		for d in $S/cpu $S/node/node0; do
			expect_eq "FASTPATH_CPUS=$n: readdir of $d lists cpu0..cpu$((n - 1))" "$(seqcpu "$n")" \
				"$(cap "$n" ls -f "$d" | sed -n 's/^\(cpu[0-9][0-9]*\)$/\1/p' | sort -V | tr '\n' ' ' | sed 's/ $//')"
		done
		k=$((n - 1)) all=0-$((n - 1))
		[ "$n" = 1 ] && all=0
		t=$S/cpu/cpu$k/topology
		expect_eq "FASTPATH_CPUS=$n: cpu$k's topology (core_id, package, thread and core siblings)" \
			"$k 0 $k $all" \
			"$(cap "$n" sh -c "echo \$(cat $t/core_id $t/physical_package_id $t/thread_siblings_list $t/core_siblings_list)")"
		expect_eq "FASTPATH_CPUS=$n: node0's cpulist, status's Cpus_allowed_list" "$all $all" \
			"$(cap "$n" sh -c "echo \$(cat $S/node/node0/cpulist) \$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)")"
		expect_eq "FASTPATH_CPUS=$n: cpu$n does not exist (stat, access, open)" "no no no" \
			"$(cap "$n" sh -c "stat $S/cpu/cpu$n >/dev/null 2>&1 && echo yes || echo no; test -r $S/cpu/cpu$n/topology/core_id && echo yes || echo no; cat $S/cpu/cpu$n/uevent >/dev/null 2>&1 && echo yes || echo no" | tr '\n' ' ' | sed 's/ $//')"
	done
	# A virtual CPU past the real ones: the real one it runs on, named as
	# itself (stat's inode, readlink of the node's link, realpath).
	k=$((big - 1)) r=$(((big - 1) % native))
	expect_eq "FASTPATH_CPUS=$big: cpu$k is real cpu$r's directory; the node's link and realpath say cpu$k" \
		"$(stat -L -c %i $S/cpu/cpu$r) ../../cpu/cpu$k $S/cpu/cpu$k/topology" \
		"$(cap "$big" sh -c "stat -L -c %i $S/cpu/cpu$k; readlink $S/node/node0/cpu$k; realpath $S/node/node0/cpu$k/topology" | tr '\n' ' ' | sed 's/ $//')"
	if command -v python3 >/dev/null 2>&1; then
		# shellcheck disable=SC2016 # python's, not the shell's
		expect_eq "FASTPATH_CPUS=$big: open(cpu$k, O_DIRECTORY), then openat(it, \"topology/core_id\")" "$k" \
			"$(cap "$big" python3 -c 'import os, sys; d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY); print(os.read(os.open("topology/core_id", os.O_RDONLY, dir_fd=d), 32).decode().strip())' "$S/cpu/cpu$k" 2>&1)"
	else
		skip "FASTPATH_CPUS=$big: openat under a cpuK descriptor" "python3 is not installed"
	fi
	expect_eq "FASTPATH_CPUS=$big, ulimit -f 0: cpu$k's core_id served, exit 0" "$k 0" \
		"$(cap "$big" sh -c "ulimit -f 0; cat $S/cpu/cpu$k/topology/core_id; echo \$?" | tr '\n' ' ' | sed 's/ $//')"
else
	skip "the topology files" "no $S/cpu/cpu0/topology or $S/node/node0 here"
fi
# The C library's other names for those calls (cold review 51: each
# answered for the real machine): fortified realpath (__realpath_chk),
# canonicalize_file_name, the __xstat family of programs built before
# glibc 2.33, euidaccess and eaccess, readdir_r and readdir64_r.  At 4,
# cpu3 exists (beyond the real CPUs on a smaller machine) and resolves to
# itself; at 1, cpu1 is ENOENT; each listing has N cpuK entries.
F=$TESTBIN/prog_cpus_fortify
if [ ! -x "$F" ]; then
	fail "the C library's other names of the directory calls" "$F was not built (a harness's own build of the programs must list it)"
elif [ ! -d $S/cpu/cpu0 ]; then
	skip "the C library's other names of the directory calls" "no $S/cpu/cpu0 here"
elif [ "$("$F" 0 2>&1)" = "prog_cpus_fortify: glibc only" ]; then
	skip "the C library's other names of the directory calls" "glibc's names: not this C library"
else
	if nm -D "$F" 2>/dev/null | grep -q ' realpath@'; then
		skip "realpath into a PATH_MAX array is __realpath_chk" "${CC:-cc} did not fortify it (called by name too)"
	fi
	for nk in "4 3 yes" "1 1 ENOENT"; do
		# shellcheck disable=SC2086 # three words
		set -- $nk
		got=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=$1 "$F" "$2" 2>&1)
		for name in stat __xstat __lxstat __fxstatat '__fxstatat(dirfd)' __xstat64 __lxstat64 \
			__fxstatat64 '__fxstatat64(dirfd)' euidaccess eaccess 'realpath(fortified)' \
			__realpath_chk canonicalize_file_name; do
			expect_eq "FASTPATH_CPUS=$1: $name of cpu$2" "$name $3" \
				"$(printf '%s\n' "$got" | awk -v n="$name" '$1 == n')"
		done
		expect_eq "FASTPATH_CPUS=$1: readdir, readdir_r and readdir64_r list $1 cpuK, alike" \
			"cpuN readdir=$1 readdir_r=$1 readdir64_r=$1;readdir_r yes;readdir64_r yes" \
			"$(printf '%s\n' "$got" | awk '$1 ~ /^(cpuN|readdir_r|readdir64_r)$/' | tr '\n' ';' | sed 's/;$//')"
	done
	# A buffer said to be shorter than PATH_MAX: glibc's abort (SIGABRT).
	expect_eq "FASTPATH_CPUS=4: __realpath_chk of cpu3 into a short buffer aborts, as glibc's" 134 \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=4 "$F" short 3 >/dev/null 2>&1; echo $?)"
fi
# A real program: GNU make built against glibc before 2.33 stats its
# targets with __xstat, and its $(wildcard) lists the directory.
if command -v make >/dev/null 2>&1 && nm -D "$(command -v make)" 2>/dev/null | grep -q ' __xstat@'; then
	# shellcheck disable=SC2016 # make's, not the shell's
	printf 'all: %s\n\t@echo found $(words $(wildcard %s))\n' $S/cpu/cpu3 "$S/cpu/cpu[0-9]*" >"$T_TMP/cpus.mk"
	expect_eq "make (__xstat), FASTPATH_CPUS=4: target $S/cpu/cpu3 is there, the wildcard finds 4" "found 4" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=4 make -s -f "$T_TMP/cpus.mk" 2>&1)"
	printf 'all: %s\n\t@echo found\n' $S/cpu/cpu1 >"$T_TMP/cpus1.mk"
	expect_eq "make (__xstat), FASTPATH_CPUS=1: no rule to make $S/cpu/cpu1" "no rule" \
		"$(LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=1 make -s -f "$T_TMP/cpus1.mk" 2>&1 | grep -o 'No rule' | sed 's/No/no/')"
else
	skip "GNU make's __xstat under the cap" "make is missing or calls stat itself (built against glibc 2.33 or later)"
fi
if command -v lscpu >/dev/null 2>&1; then
	for n in 1 4; do
		expect_eq "lscpu at $n: sockets x cores x threads, L1d instances" "$n $n" \
			"$(cap "$n" lscpu | awk -F: '
				/^Thread\(s\) per core/ { t = $2 + 0 } /^Core\(s\) per socket/ { c = $2 + 0 }
				/^Socket\(s\)/ { s = $2 + 0 } /^L1d/ { sub(/.*\(/, "", $2); l = $2 + 0 }
				END { print s * c * t, l }')"
	done
else
	skip "lscpu's topology" "lscpu is not installed"
fi
# Erlang reads the node's listing and each CPU's topology, and binds its
# schedulers by them: "no cpu topology available" when they disagree.
if command -v erl >/dev/null 2>&1; then
	erlq='io:format("~p ~p~n", [erlang:system_info(schedulers_online), length([B || B <- tuple_to_list(erlang:system_info(scheduler_bindings)), B =/= unbound])]), halt().'
	for n in 1 4; do
		expect_eq "erl +sbt db, FASTPATH_CPUS=$n: $n schedulers, $n bound" "$n $n" \
			"$(cap "$n" erl +sbt db -noshell -eval "$erlq" 2>&1 | tail -n 1)"
		expect_eq "erl +sbt db, interpose --cpus $n: $n schedulers, $n bound" "$n $n" \
			"$("$INTERPOSE" --quiet --cpus "$n" erl +sbt db -noshell -eval "$erlq" 2>&1 | tail -n 1)"
	done
	expect_eq "erl +sbt db, interpose --pin --cpus 1: 1 scheduler, bound" "1 1" \
		"$("$INTERPOSE" --quiet --pin --cpus 1 erl +sbt db -noshell -eval "$erlq" 2>&1 | tail -n 1)"
else
	skip "Erlang's scheduler binding" "erl is not installed (erlang-base)"
fi
# GNU parallel counts cores from lscpu and the active CPUs from
# /proc/self/status's Cpus_allowed.
if command -v parallel >/dev/null 2>&1; then
	for n in 1 4; do
		expect_eq "parallel --number-of-cores/--number-of-threads, FASTPATH_CPUS=$n" "$n $n" \
			"$(cap "$n" parallel --number-of-cores) $(cap "$n" parallel --number-of-threads)"
		expect_eq "parallel --number-of-cores/--number-of-threads, interpose --cpus $n" "$n $n" \
			"$("$INTERPOSE" --quiet --cpus "$n" parallel --number-of-cores) $("$INTERPOSE" --quiet --cpus "$n" parallel --number-of-threads)"
		# Its default job count: the highest job slot of 2N jobs that each
		# outlast the start of the others.
		expect_eq "parallel's default job count, FASTPATH_CPUS=$n" "$n" \
			"$(cap "$n" parallel 'sleep 0.3; echo {%}' ::: $(seq 1 $((2 * n))) | sort -n | tail -n 1)"
	done
else
	skip "GNU parallel's core count" "parallel is not installed"
fi

# ---- issue 37 defect 2: the machine is decided once, at the top of the
# tree, and handed down across exec with the exec'ing thread's virtual
# mask (FASTPATH_CPUS_MAP).  prog_cpus where: "<get_nprocs> <affinity>
# <sched_getcpu>"; a machine of N CPUs with a pin to k says "N k k".
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
if ! command -v taskset >/dev/null 2>&1 || [ "$native" -lt 2 ] || [ "$allowed" != "0-$((native - 1))" ]; then
	skip "the machine across exec" "needs taskset, 2 CPUs or more, and all of them allowed (here: ${allowed:-?} of $native)"
else
	cap() { n=$1; shift; env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS="$n" "$@" 2>&1; }
	last=$((native - 1))
	expect_eq "taskset -c $last under FASTPATH_CPUS=$native: as native" \
		"$(taskset -c $last "$P" where)" "$(cap "$native" taskset -c $last "$P" where)"
	for n in $((native + 1)) $((2 * native)); do
		k=$((n - 1))
		expect_eq "taskset -c $k under FASTPATH_CPUS=$n: the exec'd program is pinned to $k, on $k" \
			"$n $k $k" "$(cap "$n" taskset -c $k "$P" where)"
	done
	# A new thread starts with its creator's pin, and answers from it.
	for n in $((native + 1)) $((2 * native)); do
		k=$((n - 1))
		expect_eq "FASTPATH_CPUS=$n: a thread made after the main thread pinned itself to $k is on $k" \
			"$n $k $k" "$(cap "$n" "$P" inherit $k)"
	done
	n=$((2 * native)) k=$((2 * native - 1))
	# Two levels: a fork and exec, then an exec; a shell in a shell.
	expect_eq "FASTPATH_CPUS=$n taskset -c $k: two levels of exec" "$n $k $k;$n $k $k;" \
		"$(cap "$n" taskset -c $k sh -c "$P where; exec env $P where" | tr '\n' ';')"
	expect_eq "FASTPATH_CPUS=$n taskset -c $k: sh -c 'sh -c prog'" "$n $k $k" \
		"$(cap "$n" taskset -c $k sh -c "sh -c '$P where'")"
	# A pin made again below is the one handed down, once.
	expect_eq "FASTPATH_CPUS=$n taskset -c $k taskset -c 1: the last pin" "$n 1 1" \
		"$(cap "$n" taskset -c $k taskset -c 1 "$P" where)"
	# A long virtual mask (every third of 256 CPUs: 300 bytes of list) is
	# handed down whole (a review: cut at 256 bytes, the child read all).
	expect_eq "FASTPATH_CPUS=256 taskset -c 0-255:3: the exec'd program keeps the mask" \
		"256 $(seq -s, 0 3 255)" "$(cap 256 taskset -c 0-255:3 "$P" where | cut -d' ' -f1-2)"
	expect_eq "FASTPATH_CPUS=$n taskset -c $k: one FASTPATH_CPUS_MAP in the environment" 1 \
		"$(cap "$n" taskset -c $k env | grep -c '^FASTPATH_CPUS_MAP=')"
	expect_eq "uncapped: no FASTPATH_CPUS_MAP handed down" 0 \
		"$(LD_PRELOAD=$FASTPATH_SO sh -c env | grep -c '^FASTPATH_CPUS_MAP=')"
	if [ -n "$PYTHON" ]; then
		expect_eq "FASTPATH_CPUS=$n taskset -c $k: posix_spawn" "$n $k $k" \
			"$(cap "$n" taskset -c $k "$PYTHON" -c "import os, sys; os.waitpid(os.posix_spawn('$P', ['$P', 'where'], os.environ), 0)")"
	else
		skip "posix_spawn across the cap" "python3 is not installed"
	fi
	# A child that clears its environment: not preloaded, the real machine;
	# preloaded and capped again (env -i LD_PRELOAD=... FASTPATH_CPUS=N), the
	# exec through us hands the machine down all the same.
	expect_eq "env -i below the cap: the real machine" "$(taskset -c $((k % native)) "$P" where)" \
		"$(cap "$n" taskset -c $k env -i "$P" where)"
	expect_eq "env -i LD_PRELOAD FASTPATH_CPUS=$n below the cap: the same machine" "$n $k $k" \
		"$(cap "$n" taskset -c $k env -i LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS="$n" "$P" where)"
	# Another count for the child: a machine of its own, learnt from its
	# mask (none handed down).
	expect_eq "FASTPATH_CPUS=$n, the child's FASTPATH_CPUS=2: nothing handed down" 0 \
		"$(cap "$n" taskset -c $k env FASTPATH_CPUS=2 env | grep -c '^FASTPATH_CPUS_MAP=')"
	# An exec out of our reach (taskset without the preload, here): the
	# program learns its machine from the mask it has, N CPUs on one.
	expect_eq "taskset -c $last outside the cap: the machine learnt from the mask" \
		"$n 0-$k 0" "$(taskset -c $last env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS="$n" "$P" where)"
	# Stale or forged, under taskset -c $last outside the cap (the real mask
	# one CPU): ignored, silently (the value is well formed; a process out
	# of our reach may have changed the mask since); stderr is in each
	# output, a line would show.  A virtual mask that is not on the real
	# one: the map is kept, the mask read through it.
	one() { taskset -c $last env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS="$n" "$@" "$P" where 2>&1; }
	none=$(one)
	expect_eq "FASTPATH_CPUS_MAP=$n:0-$last:0 (a virtual mask not on the real one): the map without it" \
		"$(one FASTPATH_CPUS_MAP="$n:0-$last")" "$(one FASTPATH_CPUS_MAP="$n:0-$last:0")"
	for forged in "$((n + 1)):0-$last:$k" "$n:0-$last,1000:$k" "$n:0:0"; do
		expect_eq "FASTPATH_CPUS_MAP=$forged (stale or forged): ignored, silently" "$none" \
			"$(one FASTPATH_CPUS_MAP="$forged")"
	done
	# Malformed: one line, as every setting, and the machine as without.
	out=$(taskset -c $last env LD_PRELOAD="$FASTPATH_SO" FASTPATH_CPUS="$n" FASTPATH_CPUS_MAP=lots "$P" where 2>"$T_TMP/err")
	expect_eq "malformed FASTPATH_CPUS_MAP: the machine as without" "$none" "$out"
	expect_eq "malformed FASTPATH_CPUS_MAP: one line" 1 "$(wc -l <"$T_TMP/err" | tr -d ' ')"
	if grep -q 'ignoring FASTPATH_CPUS_MAP="lots": not N:REAL\[:VIRTUAL\] (N from 1 to 8192, CPU lists); the machine is learnt from the affinity mask' "$T_TMP/err"; then
		ok "malformed FASTPATH_CPUS_MAP: the line says what and what instead"
	else
		fail "malformed FASTPATH_CPUS_MAP: the line says what and what instead" "$(cat "$T_TMP/err")"
	fi
	# interpose --cpus inside a cap: the same count goes on with the machine
	# handed down; another one is a machine of its own, from the mask.
	expect_eq "interpose --cpus $n inside a cap of $n, pinned to $k: the same machine" "$n $k $k" \
		"$(cap "$n" taskset -c $k "$INTERPOSE" --quiet --cpus "$n" "$P" where | grep -v '^interpose: LD_PRELOAD already holds fastpath')"
	expect_eq "interpose --cpus $n inside a cap of 3, pinned to 1: its own machine, on one CPU" \
		"$n 0-$k 0" "$(cap 3 taskset -c 1 "$INTERPOSE" --quiet --cpus "$n" "$P" where | grep -v '^interpose: LD_PRELOAD already holds fastpath')"
fi
finish
