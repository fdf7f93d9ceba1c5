#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, the cost of being there (issue 39): what loading fastpath.so
# costs a process that makes none of the calls it answers, and what
# interpose costs over env(1).  Every column from the same run: the
# variants alternate, REPS times each (default 7), and each keeps its
# median.  The syscall columns are one /bin/true under strace -f -c.
#
#   exec loop   a shell loop of N /bin/true (N=500), the shell and every
#               child preloaded: native, an empty preloaded object
#               (bench/bin/empty_preload.so), fastpath.so with its
#               defaults, and with FASTPATH_DISABLE=all.
#               The same loops by CPU time too (GNU time's user + system).
#   interpose   interpose -- true against env true, M runs each (M=100).
#   fork loop   F forks (F=1000), each child exiting at once, under the
#               empty object, the defaults and FASTPATH_DISABLE=all: the
#               time and page faults of the fork alone, which a shell
#               pays per command (bench/bin/fork_loop).
# STARTUP_REPS (default 7) sets the number of alternating runs.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
: "${N:=500}" "${M:=100}"
REPS=${STARTUP_REPS:-7}
EMPTY=$BENCHBIN/empty_preload.so
[ -f "$EMPTY" ] || { echo "bench_startup: no $EMPTY (make bench builds it)"; exit 2; }
# Without it, its rows would time a "not found": a row that cannot fail.
[ -x "$INTERPOSE" ] || { echo "bench_startup: no $INTERPOSE (make bench builds it)"; exit 2; }
LOOP="i=0; while [ \$i -lt $N ]; do /bin/true; i=\$((i + 1)); done"
RUNS="i=0; while [ \$i -lt $M ]; do \"\$@\"; i=\$((i + 1)); done"

# variant NAME: the env(1) words that start a command under it.
variant() {
	case $1 in
	native) echo "env" ;;
	empty) echo "env LD_PRELOAD=$EMPTY" ;;
	defaults) echo "env LD_PRELOAD=$FASTPATH_SO" ;;
	all) echo "env LD_PRELOAD=$FASTPATH_SO FASTPATH_DISABLE=all" ;;
	esac
}
for v in native empty defaults all env interpose; do : >"$TMPB.$v"; : >"$TMPB.cpu_$v"; done
trap 'rm -f "$TMPB" "$TMPB".*' EXIT
# The loop's CPU time (user + system of the shell and its children, GNU
# time): what a machine busy with other work disturbs least.
GNUTIME=
/usr/bin/time -f '%U %S' true >/dev/null 2>&1 && GNUTIME=/usr/bin/time
r=0
while [ "$r" -lt "$REPS" ]; do
	for v in native empty defaults all; do
		# shellcheck disable=SC2046 # the variant's words
		secs $(variant $v) sh -c "$LOOP" >>"$TMPB.$v"
		# shellcheck disable=SC2046
		[ -z "$GNUTIME" ] || $GNUTIME -f '%U %S' $(variant $v) sh -c "$LOOP" 2>&1 >/dev/null |
			tail -n 1 | awk '{ print $1 + $2 }' >>"$TMPB.cpu_$v"
	done
	secs sh -c "$RUNS" sh env true >>"$TMPB.env"
	secs sh -c "$RUNS" sh "$INTERPOSE" -- true >>"$TMPB.interpose"
	r=$((r + 1))
done
t_native='' t_empty='' t_defaults='' t_all='' t_env='' t_interpose=''
for v in native empty defaults all env interpose; do
	eval "t_$v=\$(median <\"\$TMPB.\$v\")"
done
# sc VARIANT: system calls of one /bin/true under it
sc() {
	# shellcheck disable=SC2046
	syscalls $(variant "$1") /bin/true
}
s_native=- s_empty=- s_defaults=- s_all=-
if command -v strace >/dev/null 2>&1; then
	for v in native empty defaults all; do eval "s_$v=\$(sc $v)"; done
fi
# row NAME A_SECS B_SECS A_SYSCALLS B_SYSCALLS: compare's ROW, speed-up A/B
row() {
	awk -v n="$1" -v a="$2" -v b="$3" -v c="$4" -v d="$5" \
		'BEGIN { printf "ROW\t%s\t%s\t%s\t%.2f\t%s\t%s\n", n, a, b, (b > 0 ? a / b : 0), c, d }'
}
echo "# informational: the floor, native against an empty preloaded object ($N execs)"
row "exec loop: native vs empty preload" "$t_native" "$t_empty" "$s_native" "$s_empty"
echo "# target >= 0.95x: fastpath.so, defaults, within 1.05x of the empty object"
row "exec loop: empty preload vs fastpath.so defaults" "$t_empty" "$t_defaults" "$s_empty" "$s_defaults"
echo "# target >= 0.98x: FASTPATH_DISABLE=all within 1.02x of the empty object"
row "exec loop: empty preload vs FASTPATH_DISABLE=all" "$t_empty" "$t_all" "$s_empty" "$s_all"
if [ -n "$GNUTIME" ]; then
	c_empty=$(median <"$TMPB.cpu_empty") c_defaults=$(median <"$TMPB.cpu_defaults") c_all=$(median <"$TMPB.cpu_all")
	echo "# informational: the same loops by CPU time (user + system), median of $REPS"
	row "exec loop cpu: empty preload vs fastpath.so defaults" "$c_empty" "$c_defaults" - -
	row "exec loop cpu: empty preload vs FASTPATH_DISABLE=all" "$c_empty" "$c_all" - -
fi
# Within 3 ms a run: as a ratio, env's time over env's plus 3 ms.
want=$(awk -v e="$t_env" -v m="$M" 'BEGIN { printf "%.2f", e / (e + 0.003 * m) }')
echo "# target >= ${want}x: interpose -- true within 3 ms of env true ($M runs)"
row "interpose -- true vs env true, $M runs" "$t_env" "$t_interpose" - -
awk -v e="$t_env" -v i="$t_interpose" -v m="$M" -v a="$t_empty" -v d="$t_defaults" -v o="$t_all" -v n="$N" 'BEGIN {
	printf "startup: per exec, empty preload %.3f ms, fastpath.so %.3f ms (%.2fx), FASTPATH_DISABLE=all %.3f ms (%.2fx)\n",
		a * 1000 / n, d * 1000 / n, d / a, o * 1000 / n, o / a
	printf "startup: interpose -- true %.2f ms, env true %.2f ms: %+.2f ms (want <= 3 ms)\n",
		i * 1000 / m, e * 1000 / m, (i - e) * 1000 / m
}'
# CPU time (bench/bin/exec_cpu): single runs alternating, the median of
# 400 execs (100 for interpose); on a shared machine the wall clock above
# mostly measures the wait for a CPU, which costs each extra process more.
X=$BENCHBIN/exec_cpu
if [ -x "$X" ]; then
	"$X" 400 /bin/true "LD_PRELOAD=$EMPTY /bin/true" "LD_PRELOAD=$FASTPATH_SO /bin/true" \
		"LD_PRELOAD=$FASTPATH_SO FASTPATH_DISABLE=all /bin/true" >"$TMPB.cpu"
	"$X" 100 "env true" "$INTERPOSE -- true" >>"$TMPB.cpu"
	awk -F '\t' '$1 == "exec_cpu" { n++; us[n] = $3; fl[n] = $5 }
	END {
		if (n < 6) exit
		print "# informational: CPU time, median of 400 single execs (100 for interpose)"
		printf "ROW\texec cpu: empty preload vs fastpath.so defaults\t%.6f\t%.6f\t%.2f\t-\t-\n", us[2] / 1e6, us[3] / 1e6, us[2] / us[3]
		printf "ROW\texec cpu: empty preload vs FASTPATH_DISABLE=all\t%.6f\t%.6f\t%.2f\t-\t-\n", us[2] / 1e6, us[4] / 1e6, us[2] / us[4]
		printf "ROW\tinterpose -- true vs env true, cpu\t%.6f\t%.6f\t%.2f\t-\t-\n", us[5] / 1e6, us[6] / 1e6, us[5] / us[6]
		printf "startup cpu: per exec native %d us, empty preload %d us, fastpath.so %d us (%.2fx), FASTPATH_DISABLE=all %d us (%.2fx)\n", us[1], us[2], us[3], us[3] / us[2], us[4], us[4] / us[2]
		printf "startup cpu: minor faults native %d, empty preload %d, fastpath.so %d (+%d), FASTPATH_DISABLE=all %d (+%d)\n", fl[1], fl[2], fl[3], fl[3] - fl[2], fl[4], fl[4] - fl[2]
		printf "startup cpu: interpose -- true %.2f ms, env true %.2f ms: %+.2f ms (want <= 3 ms)\n", us[6] / 1000, us[5] / 1000, (us[6] - us[5]) / 1000
	}' "$TMPB.cpu"
fi
# The fork alone (bench/bin/fork_loop), the three alternating, REPS runs
# of F forks each: per fork, the median time and page faults.
F=${F:-1000}
FL=$BENCHBIN/fork_loop
if [ -x "$FL" ]; then
	r=0
	while [ "$r" -lt "$REPS" ]; do
		for v in empty defaults all; do
			# shellcheck disable=SC2046
			$(variant $v) "$FL" "$F" >>"$TMPB.fork_$v"
		done
		r=$((r + 1))
	done
	# fcol VARIANT COLUMN: the median of fork_loop's column
	fcol() { awk -F '\t' -v c="$2" '$1 == "fork_loop" { print $c }' "$TMPB.fork_$1" | median; }
	f_e=$(fcol empty 2) f_d=$(fcol defaults 2) f_a=$(fcol all 2)
	echo "# target >= 0.95x: a fork under fastpath.so, defaults, within 1.05x of the empty object's ($F forks, median of $REPS)"
	row "fork loop: empty preload vs fastpath.so defaults" "$f_e" "$f_d" - -
	row "fork loop: empty preload vs FASTPATH_DISABLE=all" "$f_e" "$f_a" - -
	echo "startup: per fork, empty preload $f_e us, fastpath.so $f_d us, FASTPATH_DISABLE=all $f_a us;" \
		"page faults, parent + child: $(fcol empty 3) + $(fcol empty 4)," \
		"$(fcol defaults 3) + $(fcol defaults 4), $(fcol all 3) + $(fcol all 4)"
fi
# Page faults of one /bin/true (GNU time's %R, minor faults), median of 9.
if /usr/bin/time -f %R true >/dev/null 2>&1; then
	pf() {
		k=0
		while [ "$k" -lt 9 ]; do
			# shellcheck disable=SC2046
			/usr/bin/time -f %R $(variant "$1") /bin/true 2>&1 >/dev/null | tail -n 1
			k=$((k + 1))
		done | median
	}
	echo "startup: /bin/true page faults: empty preload $(pf empty), fastpath.so $(pf defaults), FASTPATH_DISABLE=all $(pf all); system calls: $s_empty, $s_defaults, $s_all"
fi
