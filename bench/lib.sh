# SPDX-License-Identifier: MIT
# Shared helpers for bench/*.sh (POSIX sh; needs GNU date and strace).
#
# Ratios are taken side by side in one run: native and fastpath are run
# alternately, REPS times each, and the median of each is kept, so that a
# noisy neighbour hurts both columns alike.
set -u
cd "$(dirname "$0")/.." || exit 2
TOP=$(pwd -P)
FASTPATH_SO=$TOP/fastpath.so
BENCHBIN=$TOP/bench/bin
INTERPOSE=$TOP/interpose
export FASTPATH_SO BENCHBIN INTERPOSE
: "${REPS:=3}"
unset LD_PRELOAD FASTPATH_DISABLE FASTPATH_CPUS FASTPATH_STATS FASTPATH_DEBUG \
	FASTPATH_GETRANDOM OMP_NUM_THREADS

now_ns() { date +%s%N; }

# secs CMD...: wall seconds of one run, output discarded.
secs() {
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 </dev/null
	t1=$(now_ns)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}

# median: of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# syscalls CMD...: total system calls made by CMD and its children.
syscalls() {
	f=$(mktemp)
	strace -f -qq -c -o "$f" "$@" >/dev/null 2>&1 </dev/null
	awk '$NF == "total" { print $4 }' "$f"
	rm -f "$f"
}

# compare NAME NATIVE_CMD FASTPATH_CMD [SYSCALL_NATIVE_CMD SYSCALL_FASTPATH_CMD]
# Prints one tab-separated row:
#   ROW  name  native_s  fastpath_s  speedup  syscalls_native  syscalls_fastpath
# Commands are single strings run by sh -c.  The optional pair is a smaller
# run of the same workload for counting system calls under strace (which
# would distort the timing); "-" for either count means not measured.
compare() {
	name=$1 nat=$2 fp=$3
	: >"$TMPB.n"
	: >"$TMPB.f"
	i=0
	while [ "$i" -lt "$REPS" ]; do
		secs sh -c "$nat" >>"$TMPB.n"
		secs sh -c "$fp" >>"$TMPB.f"
		i=$((i + 1))
	done
	tn=$(median <"$TMPB.n")
	tf=$(median <"$TMPB.f")
	sn=- sf=-
	if [ $# -ge 5 ] && command -v strace >/dev/null 2>&1; then
		sn=$(syscalls sh -c "exec $4")
		sf=$(syscalls sh -c "exec $5")
	fi
	awk -v n="$name" -v a="$tn" -v b="$tf" -v c="$sn" -v d="$sf" \
		'BEGIN { printf "ROW\t%s\t%s\t%s\t%.1f\t%s\t%s\n", n, a, b, (b > 0 ? a / b : 0), c, d }'
}

TMPB=$(mktemp) || exit 2
trap 'rm -f "$TMPB" "$TMPB.n" "$TMPB.f"' EXIT

# table: reads ROW lines on stdin, prints them aligned (the first column as
# wide as its longest name, so that no row breaks the columns); passes
# other lines through, after the table.
table() {
	awk -F '\t' '
	$1 != "ROW" { other[++no] = $0; next }
	{ row[++nr] = $0; if (length($2) > w) w = length($2) }
	END {
		if (w < 8) w = 8
		if (nr) printf "%-" w "s %10s %10s %8s %16s\n", "workload", "native s", "fastpath s", "speed-up", "syscalls saved"
		for (i = 1; i <= nr; i++) {
			split(row[i], f, "\t")
			saved = (f[6] == "-" || f[7] == "-") ? "-" : sprintf("%d of %d", f[6] - f[7], f[6])
			printf "%-" w "s %10.3f %10.3f %7.1fx %16s\n", f[2], f[3], f[4], f[5], saved
		}
		for (i = 1; i <= no; i++) print other[i]
	}'
}
