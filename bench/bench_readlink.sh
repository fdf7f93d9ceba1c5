#!/bin/sh
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
: "${REPS:=5}"
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
	compare "readlink ordinary symlink x$N" \
		"$M $RL_DIR/symlink $N" "$FP $M $RL_DIR/symlink $N"
	compare "readlink /proc/<other pid>/fd/<socket> x$N" \
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
	LD_PRELOAD="$FASTPATH_SO $RL_DELAY" $RL_LISTER 2>&1 >/dev/null | sed 's/; urandom.*//'
awk -F '\t' '
function t(name, got, want, ok) {
	printf "target: %-52s %6.2fx (want %s) %s\n", name, got, want, ok ? "met" : "MISSED"
}
$1 == "ROW" { r[++n] = $4 > 0 ? $3 / $4 : 0 }
END {
	t("lister: fastpath vs delay", r[1], ">= 10", r[1] >= 10)
	t("lister: fastpath+delay vs no delay at all", r[2], ">= 0.83", r[2] >= 1 / 1.2)
	t("readlink /proc/self/fd/<socket>", r[3], ">= 2", r[3] >= 2)
	t("readlink /proc/self/fd/<pipe>", r[4], ">= 2", r[4] >= 2)
	t("readlink ordinary symlink", r[5], ">= 0.95", r[5] >= 0.95)
	t("readlink another process fd", r[6], ">= 0.95", r[6] >= 0.95)
}' "$OUT"
