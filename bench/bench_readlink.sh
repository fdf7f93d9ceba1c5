#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: readlink.  The seed reproduced on Linux (see
# bench/readlink_lib.sh), then the per-call figures on real Linux /proc.
# Targets (checked and printed at the end):
#   lister, 1000 sockets: fastpath >= 10x faster than without it, and
#     within 1.2x of the same lister with no delay and no preload at all;
#   readlink /proc/self/fd/<socket>: >= 2x native;
#   ordinary symlinks, other processes' fds: >= 0.95x native.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/readlink_lib.sh
. bench/readlink_lib.sh
: "${FP_BENCH_DELAY_US:=1000}"
: "${N:=300000}"
export FP_BENCH_DELAY_US
rl_setup 1000
rl_note
OUT=$RL_DIR/rows
ln -s /etc/hostname "$RL_DIR/symlink"
SOCK=$(for f in /proc/"$RL_PID"/fd/*; do
	case $(readlink "$f") in socket:*) echo "${f##*/}"; break ;; esac
done)
M=$BENCHBIN/readlink_micro
FP="env LD_PRELOAD=$FASTPATH_SO"
{
	compare "lister 1000 sockets: delay vs fastpath+delay" \
		"env $RL_ENV LD_PRELOAD=$RL_DELAY $RL_LISTER" \
		"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $RL_LISTER" \
		"env $RL_ENV LD_PRELOAD=$RL_DELAY $RL_LISTER" \
		"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $RL_LISTER"
	# -r 10: the per-fd work, not process start-up; "native" here is the
	# bare lister, no preload and no delay at all.
	compare "lister x10, 1000 sockets: no delay vs fastpath+delay" \
		"$BENCHBIN/readlink_lister -r 10 $RL_ROOT $RL_PID" \
		"env $RL_ENV LD_PRELOAD='$FASTPATH_SO $RL_DELAY' $BENCHBIN/readlink_lister -r 10 $RL_ROOT $RL_PID"
	compare "readlink /proc/self/fd/<socket> x$N" \
		"$M self-socket $N" "$FP $M self-socket $N"
	compare "readlink /proc/self/fd/<pipe> x$N" \
		"$M self-pipe $N" "$FP $M self-pipe $N"
	# Not ours (a few instructions per call against a 0.95 target): 7
	# alternating runs, as the regular-file row; 3 left noise of 5-7%.
	REPS=7 compare "readlink ordinary symlink x$N" \
		"$M $RL_DIR/symlink $N" "$FP $M $RL_DIR/symlink $N"
	REPS=7 compare "readlink /proc/<other pid>/fd/<socket> x$N" \
		"$M /proc/$RL_PID/fd/$SOCK $N" "$FP $M /proc/$RL_PID/fd/$SOCK $N"
} | tee "$OUT"
# On Linux the gain is a cheaper call, not fewer: one fstat for one readlink.
if command -v strace >/dev/null 2>&1; then
	for run in native fastpath; do
		pre=; [ $run = fastpath ] && pre="env LD_PRELOAD=$FASTPATH_SO"
		# shellcheck disable=SC2086 # $pre is empty or a command prefix
		strace -f -qq -c -o "$RL_DIR/st" $pre "$M" self-socket 1000 >/dev/null 2>&1
		printf 'strace -c, 1000 readlinks of /proc/self/fd/<socket>, %s:' "$run"
		awk '$NF ~ /^(readlink|readlinkat|newfstatat|fstat|statx)$/ { printf " %s %s", $NF, $4 }
			END { print "" }' "$RL_DIR/st"
	done
fi
echo "fastpath's own count for one lister run:"
# shellcheck disable=SC2086 # RL_LISTER is a command with arguments
env FASTPATH_TEST_PROC_ROOT="$RL_ROOT" FASTPATH_TEST_POLICY=illumos FASTPATH_STATS=1 \
	LD_PRELOAD="$FASTPATH_SO $RL_DELAY" $RL_LISTER 2>&1 >/dev/null | grep '^fastpath\[' | sed 's/; urandom.*//'
# Each target is looked up by its row's name, not by the row's position: a
# row that is missing (a workload that failed) is reported as missing, never
# taken for its neighbour.
awk -F '\t' -v N="$N" '
function t(row, name, want, min,   got) {
	if (!(row in r) || seen[row] != 1) {
		printf "target: %-52s %7s (want %s) MISSED: %s\n", name, "-", want,
			(row in r) ? "more than one row" : "no row"
		return
	}
	got = r[row]
	printf "target: %-52s %6.2fx (want %s) %s\n", name, got, want, (got >= min ? "met" : "MISSED")
}
$1 == "ROW" { r[$2] = $4 > 0 ? $3 / $4 : 0; seen[$2]++ }
END {
	t("lister 1000 sockets: delay vs fastpath+delay", "lister: fastpath vs delay", ">= 10", 10)
	t("lister x10, 1000 sockets: no delay vs fastpath+delay",
		"lister: fastpath+delay vs no delay at all", ">= 0.83", 1 / 1.2)
	t("readlink /proc/self/fd/<socket> x" N, "readlink /proc/self/fd/<socket>", ">= 2", 2)
	t("readlink /proc/self/fd/<pipe> x" N, "readlink /proc/self/fd/<pipe>", ">= 2", 2)
	t("readlink ordinary symlink x" N, "readlink ordinary symlink", ">= 0.95", 0.95)
	t("readlink /proc/<other pid>/fd/<socket> x" N, "readlink another process fd", ">= 0.95", 0.95)
}' "$OUT"
