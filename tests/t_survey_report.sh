#!/bin/sh
# SPDX-License-Identifier: MIT
# The survey report (survey.awk) as a unit: each row's rule, each
# suggestion and note, the process count, and hostile or huge record
# directories, on records made to measure; run under every awk this
# machine has (mawk, Debian's default; gawk, with --lint; the one true awk,
# the nearest here to illumos' nawk; busybox), each a [tag].  Then what
# interpose adds: the command quoted back exactly, one line of reason when
# no report can be made.
# shellcheck disable=SC3045 # ulimit -H and -S: dash, bash and busybox sh have them
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
AWKS=$T_TMP/awks
nl='
'

# rec FILE [KEY VALUE]...: a record: the header (the pid from FILE's name,
# ppid 1, prog p, exited, a run of 10 s), then each KEY VALUE; a header key
# given replaces the header's value.
hdr() {
	_k=$1 _v=$2
	shift 2
	while [ $# -ge 2 ]; do
		[ "$1" = "$_k" ] && _v=$2
		shift 2
	done
	printf '%s %s\n' "$_k" "$_v"
}
rec() {
	_f=$1
	shift
	_p=${_f##*/}
	{
		printf 'fastpath-survey 1\n'
		hdr pid "${_p%.rec}" "$@"
		hdr ppid 1 "$@"
		hdr prog p "$@"
		hdr state exited "$@"
		hdr start_s 1.000000000 "$@"
		hdr now_s 11.000000000 "$@"
		while [ $# -ge 2 ]; do
			case $1 in
			pid | ppid | prog | state | start_s | now_s) ;;
			*) printf '%s %s\n' "$1" "$2" ;;
			esac
			shift 2
		done
		printf 'end 0\n'
	} >"$_f"
}
fresh() { rm -rf "$T_TMP/m" && mkdir "$T_TMP/m"; }

# report [VAR=VALUE]...: interpose --survey-report of $T_TMP/m with the awk
# under test first in PATH, bounded by timeout; $T_TMP/rep gets stdout,
# $T_TMP/err stderr; the exit status is the report's.
# (FP_SURVEY_URANDOM_FIRST_US=0: the records here are made up, their
# figures round; the set-up's own test sets it)
report() {
	env PATH="$AWKS/$AWK_NAME:$PATH" FP_SURVEY_URANDOM_FIRST_US=0 "$@" timeout "${REPORT_GUARD:-60}" "$INTERPOSE" --survey-report "$T_TMP/m" \
		>"$T_TMP/rep" 2>"$T_TMP/err"
	_rc=$?
	cat "$T_TMP/err" >>"$T_TMP/lint.$AWK_NAME"
	return $_rc
}
# report_root ROOTPID: the report as interpose --survey starts it, for a
# known command pid (the listing as interpose makes it).
report_root() {
	(cd "$T_TMP/m" && { find . ! -name . -prune -name '*.rec' -type f -print; echo //; } |
		FP_SURVEY_ROOT=$1 LC_ALL=C timeout 60 "$AWKS/$AWK_NAME/awk" -f "$TOP/survey.awk") \
		>"$T_TMP/rep" 2>>"$T_TMP/lint.$AWK_NAME"
}
last() { tail -n 1 "$T_TMP/rep"; }
line() { grep "^$1" "$T_TMP/rep"; }
has() { # NAME ERE: passes when a line of the report matches ERE
	if grep -Eq "$2" "$T_TMP/rep"; then ok "$1"; else fail "$1" "$(cat "$T_TMP/rep" "$T_TMP/err")"; fi
}
hasnt() {
	if grep -Eq "$2" "$T_TMP/rep"; then fail "$1" "$(grep -E "$2" "$T_TMP/rep")"; else ok "$1"; fi
}
unreadable() { # NAME N: the report was made, and counted N unreadable
	if [ "$(last | cut -c1-9)" = "suggest: " ] && grep -q "^($2 unreadable record(s) ignored)$" "$T_TMP/rep"; then
		ok "$1"
	else
		fail "$1" "$(head -n 3 "$T_TMP/rep"; cat "$T_TMP/err")"
	fi
}

# ---- the rows and their rules ----------------------------------------------
units() {
	# readlink: each short-circuited call's time less a stat's.
	fresh
	rec "$T_TMP/m/10.rec" readlink.socket 1000 readlink.ns 500000000 readlink.short 1000 \
		readlink.short_ns 500000000 readlink.stat 1000 readlink.stat_ns 2000000
	report
	has "readlink row: calls, native time, share, saving, basis" \
		'^readlink +1000 calls +500\.0 ms native +5\.0% of the run  saves ~498\.0 ms \(1000 of them answered from a stat of 2\.0 us instead of 500\.0 us each; socket 1000, door 0, pipe 0, other 0\)$'
	expect_eq "readlink rule: the reason" "reason: readlink would save ~498.0 ms (5.0% of the run)" "$(line reason:)"
	expect_eq "readlink rule: suggests the mitigations, the command by its first process" \
		"suggest: interpose -- p ..." "$(last)"
	rec "$T_TMP/m/10.rec" readlink.socket 1000 readlink.ns 500000000
	report
	expect_eq "readlink rule: calls none of which it would answer: nothing" "suggest: nothing to mitigate" "$(last)"
	rec "$T_TMP/m/10.rec" readlink.socket 1000 readlink.ns 500000000 readlink.short 1000 \
		readlink.short_ns 500000000 readlink.stat 1000 readlink.stat_ns 900000000000
	report
	expect_eq "readlink rule: a stat dearer than the call saves nothing" "suggest: nothing to mitigate" "$(last)"
	has "readlink rule: a saving never below zero" '^readlink .* saves ~0\.0 ms'

	# localtime: each call made with TZ unset saves the stat it made of
	# the zone file (sampled); the calls made with TZ set save nothing.
	fresh
	rec "$T_TMP/m/10.rec" localtime.calls 200000 localtime.ns 130000000 localtime.stat 8 \
		localtime.stat_ns 4800 localtime.set 5
	report
	has "localtime row: calls, native time, share, saving, basis" \
		'^localtime +200005 calls +130\.0 ms native +1\.3% of the run  saves ~120\.0 ms \(200000 with TZ unset, each a stat of the zone file \(0\.6 us a stat\); 5 with TZ set, not timed, save nothing\)$'
	expect_eq "localtime rule: the reason" "reason: localtime would save ~120.0 ms (1.2% of the run)" "$(line reason:)"
	expect_eq "localtime rule: suggests --tz" "suggest: interpose --tz -- p ..." "$(last)"
	has "localtime rule: its caveat" '^caveat: --tz sets TZ to /etc/localtime.s zone in the program and its children'
	rec "$T_TMP/m/10.rec" localtime.calls 200000 localtime.ns 130000000 localtime.stat 8 \
		localtime.stat_ns 80000000
	report
	has "localtime rule: a saving never above the calls' own time" '^localtime .* saves ~130\.0 ms'
	rec "$T_TMP/m/10.rec" localtime.calls 1000 localtime.ns 650000 localtime.stat 8 localtime.stat_ns 4800
	report
	expect_eq "localtime rule: under 100 ms and 1% of the run: nothing" "suggest: nothing to mitigate" "$(last)"
	rec "$T_TMP/m/10.rec" localtime.set 2000000
	report
	expect_eq "localtime rule: every call made with TZ set: nothing" "suggest: nothing to mitigate" "$(last)"
	has "localtime rule: those calls are in its row" '^localtime +2000000 calls +0\.0 ms native'
	rec "$T_TMP/m/10.rec" localtime.calls 200000 localtime.ns 130000000
	report
	expect_eq "localtime rule: no stat sampled, no saving claimed" "suggest: nothing to mitigate" "$(last)"

	# urandom: exact mode's saving suggested, reserve's named beside it.
	urec() { # OPENS OPEN_NS READ_NS CLOSE_NS [DUP_CLOSE_NS]
		set -- urandom.open_cloexec "$1" urandom.open_ns "$2" urandom.read_le16 "$1" \
			urandom.read_ns "$3" urandom.close "$1" urandom.close_ns "$4" ${5:+urandom.dup_close_ns "$5"}
		rec "$T_TMP/m/200.rec" prog tok "$@"
	}
	fresh
	urec 1000 1000000000 500000000 200000000
	report
	expect_eq "urandom rule: the reason quotes exact mode's saving, and reserve's beside it" \
		"reason: urandom would save ~1300.0 ms (13.0% of the run; ~1700.0 ms with --urandom=reserve)" \
		"$(line reason:)"
	has "urandom row: saves what the suggested command saves" \
		'^urandom +3000 calls +1700\.0 ms native +17\.0% of the run  saves ~1300\.0 ms .*reserve.* ~1700\.0 ms\)$'
	if [ "$(line urandom | sed 's/^[^(]*(//' | wc -c)" -le 150 ]; then ok "urandom row: its basis one short sentence"
	else fail "urandom row: its basis one short sentence" "$(line urandom)"; fi
	expect_eq "urandom rule: suggests the default mode" "suggest: interpose -- tok ..." "$(last)"
	urec 1000 1000000000 500000000 200000000 100000
	report
	expect_eq "urandom rule: exact mode's saving with the timed duplicate" \
		"reason: urandom would save ~1600.0 ms (16.0% of the run; ~1700.0 ms with --urandom=reserve)" \
		"$(line reason:)"
	has "urandom row: names the timed cost" '^urandom .*dup and close per open \(100\.0 us\); --urandom=reserve ~1700\.0 ms\)$'
	hasnt "urandom row: no fallback named where F_DUPFD_CLOEXEC works" 'F_DUPFD then F_SETFD'
	expect_eq "every report: exactly one suggest: line, the last" "1 suggest:" \
		"$(grep -c '^suggest: ' "$T_TMP/rep") $(last | cut -c1-8)"
	rec "$T_TMP/m/200.rec" prog tok urandom.open_cloexec 1000 urandom.open_ns 1000000000 \
		urandom.read_le16 1000 urandom.read_ns 500000000 urandom.close 1000 urandom.close_ns 200000000 \
		urandom.dup_close_ns 100000 urandom.dup_fallback 1
	report
	has "urandom row: a kernel without F_DUPFD_CLOEXEC: the fallback named" \
		'^urandom .*\(100\.0 us, by F_DUPFD then F_SETFD: no F_DUPFD_CLOEXEC here\)'
	expect_eq "urandom rule: the fallback's timed cost is the one quoted" \
		"reason: urandom would save ~1600.0 ms (16.0% of the run; ~1700.0 ms with --urandom=reserve)" \
		"$(line reason:)"
	# getrandom refused by a filter (issue 36): the default source is the
	# kernel's read, which saves no read; the fastest command (the
	# reservoir) is suggested, its caveat above, and --getrandom, which
	# would be refused as natively, is a note, not an option.
	refrec() { # REFUSED SOURCE
		rec "$T_TMP/m/200.rec" prog tok urandom.open_cloexec 1000 urandom.open_ns 1000000000 \
			urandom.read_le16 1000 urandom.read_ns 500000000 urandom.close 1000 urandom.close_ns 200000000 \
			urandom.dup_close_ns 100000 urandom.source "$2" getrandom.refused "$1" \
			getrandom.calls 1000 getrandom.ns 300000000
	}
	refrec 1 2
	report
	expect_eq "getrandom refused (ENOSYS): the reservoir suggested, its caveat above" \
		"caveat: --urandom-source=reservoir serves the device's reads from a 64 KiB user-space buffer, which cannot see a VM snapshot being restored: clones of one snapshot serve the same bytes until their next refill; not for VMs that are snapshotted or cloned (fastpath(7))
reason: urandom would save ~1600.0 ms (16.0% of the run) with --urandom-source=reservoir; getrandom is refused here (ENOSYS), so the default source is the kernel's read, which would save ~1100.0 ms (~1200.0 ms with --urandom=reserve)
suggest: interpose --urandom-source=reservoir -- tok ..." "$(tail -n 3 "$T_TMP/rep")"
	has "getrandom refused: the urandom row says why the reads are the kernel's" \
		'^urandom .*\(reads served by kernel: not saved, getrandom refused \(ENOSYS\)\)'
	has "getrandom refused: --getrandom a note, not an option" \
		'^note: getrandom is refused here \(ENOSYS\): --getrandom would serve none of its 1000 calls$'
	refrec 2 2
	report
	has "getrandom refused (EPERM): the reservoir suggested" '^suggest: interpose --urandom-source=reservoir -- tok \.\.\.$'
	has "getrandom refused (EPERM): named" 'getrandom is refused here \(EPERM\)'
	# Not refused: today's suggestion, unchanged.
	refrec 0 1
	report
	expect_eq "getrandom not refused: no reservoir, no caveat of it" \
		"caveat: --getrandom serves getrandom() from a user-space pool, which cannot see a VM snapshot being restored: not for VMs that are snapshotted or cloned
reason: urandom would save ~1600.0 ms (16.0% of the run; ~1700.0 ms with --urandom=reserve); getrandom would save ~300.0 ms (3.0% of the run)
suggest: interpose --getrandom -- tok ..." "$(tail -n 3 "$T_TMP/rep")"
	urec 1000 50000000 10000000 80000000
	report
	expect_eq "urandom rule: reserve alone worth it: a note, not a suggestion" \
		"note: urandom: exact mode would save only ~0.0 ms; --urandom=reserve would save ~140.0 ms, but a closed descriptor then stays open (fastpath(7))
suggest: nothing to mitigate" "$(tail -n 2 "$T_TMP/rep")"
	urec 10 1000000 100000 100000
	report
	expect_eq "urandom rule: too little either way: no note, nothing" "suggest: nothing to mitigate" "$(tail -n 2 "$T_TMP/rep" | grep -v '^$')"

	# getrandom: only with --getrandom, and its caveat.
	fresh
	rec "$T_TMP/m/7.rec" getrandom.calls 50000 getrandom.ns 200000000
	report
	expect_eq "getrandom rule: --getrandom, with its caveat and reason" \
		"caveat: --getrandom serves getrandom() from a user-space pool, which cannot see a VM snapshot being restored: not for VMs that are snapshotted or cloned
reason: getrandom would save ~200.0 ms (2.0% of the run)
suggest: interpose --getrandom -- p ..." "$(tail -n 3 "$T_TMP/rep")"
	rec "$T_TMP/m/7.rec" getrandom.calls 50 getrandom.ns 200000
	report
	expect_eq "getrandom rule: too little: nothing" "suggest: nothing to mitigate" "$(last)"

	# cpus: a pool sized from the count, fork dearer with more threads.
	pool() { # FILE T1_COUNT T1_NS T128_COUNT T128_NS [KEY VALUE]...
		_f=$1 _c1=$2 _n1=$3 _c2=$4 _n2=$5
		shift 5
		rec "$_f" cpus.threads 128 cpus.threads_max 129 cpus.forks $((_c1 + _c2)) \
			cpus.fork_ns $((_n1 + _n2)) cpus.fork_t1 "$_c1" cpus.fork_t1_ns "$_n1" \
			cpus.fork_t128 "$_c2" cpus.fork_t128_ns "$_n2" "$@"
	}
	fresh
	pool "$T_TMP/m/100.rec" 4 4000000 1000 500000000000 prog pool cpus.q_sysconf 1 cpus.a_sysconf 128
	report
	expect_eq "cpus rule: fork grows with threads: --cpus at the last cheap count" \
		"suggest: interpose --cpus 1 -- pool ..." "$(last)"
	has "cpus rule: the reason, from the histogram" \
		'^reason: the program sized a pool of 128 from the CPU count, and fork took 1\.0 ms with 1 threads alive but 500\.0 ms with 128-255: capped at 1 '
	has "cpus row: queries, threads, forks" '^cpus +1 calls .*queries: sysconf x1 -> 128; 128 threads made, 129 alive at most; 1004 forks'
	has "cpus row: the histogram" '^    128-255 +1000 forks  mean 500\.0 ms$'
	pool "$T_TMP/m/100.rec" 4 4000000 1000 1100000000 prog pool cpus.q_sysconf 1 cpus.a_sysconf 128
	report
	expect_eq "cpus rule: fork flat: a note, no --cpus" \
		"note: the program sized a pool of 128 from the CPU count, but fork time did not grow with live threads here: no --cpus
suggest: nothing to mitigate in what was recorded (1004 process(es) left no record)" "$(tail -n 2 "$T_TMP/rep")"
	# Fork grew, too little to be worth a cap: said so (a CI run under
	# ubsan: nothing was said of the pool).
	pool "$T_TMP/m/100.rec" 4 4000000 2 20000000 prog pool cpus.q_sysconf 1 cpus.a_sysconf 128
	report
	expect_eq "cpus rule: fork grows, too little to be worth it: a note, no --cpus" \
		"note: the program sized a pool of 128 from the CPU count, and fork took 1.0 ms with 1 threads alive but 10.0 ms with 128-255, yet capped at 1 it would save only ~0.1 ms: no --cpus
suggest: nothing to mitigate in what was recorded (6 process(es) left no record)" "$(tail -n 2 "$T_TMP/rep")"
	# Generated: 40 pools of 8 to 256 threads sized from the count, forks
	# in 1 to 5 buckets of random counts and times (seeded): every report
	# speaks of the pool, in a reason or a note (the class of the report
	# above that said nothing).
	_g=0 _bad=
	while [ $_g -lt 40 ]; do
		# shellcheck disable=SC2046 # KEY VALUE pairs, a word each
		set -- $(awk -v s="$_g" 'BEGIN {
			srand(s + 7); n = 2 ^ int(3 + rand() * 6); f = 0; t = 0
			printf "cpus.a_sysconf %d cpus.threads %d cpus.threads_max %d", n, n, n + 1
			for (b = 1; b <= n; b *= 2) {
				if (rand() < 0.5) continue
				c = 1 + int(rand() * 50); ns = c * int(1e5 + rand() * rand() * 5e8)
				printf " cpus.fork_t%d %d cpus.fork_t%d_ns %d", b, c, b, ns
				f += c; t += ns
			}
			if (!f) printf " cpus.fork_t1 1 cpus.fork_t1_ns 100000"
			printf " cpus.forks %d cpus.fork_ns %d\n", f ? f : 1, f ? t : 100000
		}')
		fresh
		rec "$T_TMP/m/100.rec" cpus.q_sysconf 1 "$@"
		report
		grep -Eq "^(reason: the program sized a pool of $4 |note: .*pool of $4 )" "$T_TMP/rep" ||
			_bad="$_bad${nl}[$*]$nl$(cat "$T_TMP/rep")"
		_g=$((_g + 1))
	done
	expect_eq "cpus rule: 40 generated pools that forked: each spoken of" "" "$_bad"
	fresh
	rec "$T_TMP/m/100.rec" cpus.q_sysconf 1 cpus.a_sysconf 128 cpus.threads 128 cpus.threads_max 129
	report
	expect_eq "cpus rule: a pool that never forks: nothing, no note" "suggest: nothing to mitigate" "$(tail -n 2 "$T_TMP/rep" | grep -v '^$')"
	pool "$T_TMP/m/100.rec" 4 4000000 1000 500000000000 cpus.q_sysconf 1 cpus.a_sysconf 1
	report
	expect_eq "cpus rule: told one CPU: no pool sized from the count" "suggest: nothing to mitigate in what was recorded (1004 process(es) left no record)" "$(last)"
	pool "$T_TMP/m/100.rec" 4 4000000 1000 500000000000 cpus.q_sysconf 1 cpus.a_sysconf 256
	report
	expect_eq "cpus rule: fewer threads than it was told: no pool" "suggest: nothing to mitigate in what was recorded (1004 process(es) left no record)" "$(last)"
	# Forks at 1 thread that took no time (issue 29: the rule never ended).
	rec "$T_TMP/m/100.rec" cpus.q_sysconf 1 cpus.a_sysconf 4 cpus.threads 4 cpus.threads_max 5 \
		cpus.forks 3 cpus.fork_t1 1 cpus.fork_t1_ns 0 cpus.fork_t4 2 cpus.fork_t4_ns 2000000
	report
	expect_eq "cpus rule: forks of no time at the fewest threads: ends, fork growth unknown" \
		"0 note: the program sized a pool of 4 from the CPU count, but fork time did not grow with live threads here: no --cpus" \
		"$? $(line note:)"

	# A cap at or above the count the program saw lowers nothing (node: told
	# 2, 6-10 threads whatever the count, fork time growing with its heap).
	fresh
	rec "$T_TMP/m/100.rec" prog node cpus.q_sysconf 1 cpus.a_sysconf 2 cpus.threads 9 cpus.threads_max 10 \
		cpus.forks 2004 cpus.fork_ns 501104000000 cpus.fork_t1 4 cpus.fork_t1_ns 4000000 \
		cpus.fork_t4 1000 cpus.fork_t4_ns 1100000000 cpus.fork_t8 1000 cpus.fork_t8_ns 500000000000
	report
	expect_eq "cpus rule: a cap above the count told (2) is never suggested" \
		"note: fork time grew, but not with the pool of 2 sized from the CPU count: no --cpus
suggest: nothing to mitigate in what was recorded (2004 process(es) left no record)" "$(tail -n 2 "$T_TMP/rep")"
	# The pool's maker asked itself; a child (nproc) was told the same count.
	fresh
	pool "$T_TMP/m/100.rec" 4 4000000 1000 500000000000 prog mono cpus.q_sched_getaffinity 1 \
		cpus.a_sched_getaffinity 128
	rec "$T_TMP/m/101.rec" prog nproc ppid 100 start_s 2.0 cpus.q_sched_getaffinity 1 cpus.a_sched_getaffinity 128
	rec "$T_TMP/m/102.rec" prog nproc ppid 100 start_s 2.0 cpus.q_sched_getaffinity 1 cpus.a_sched_getaffinity 128
	report
	hasnt "cpus rule: a pool's maker that asked itself is named as the asker" 'nproc asked'

	# The pool across processes: a getconf child told the count, a sibling
	# (seed 002: $(getconf ...) handed to the program) or the parent made it.
	fresh
	rec "$T_TMP/m/100.rec" prog sh cpus.forks 1 vforks 1
	rec "$T_TMP/m/101.rec" prog getconf ppid 100 start_s 2.0 cpus.q_sysconf 1 cpus.a_sysconf 128
	pool "$T_TMP/m/102.rec" 4 4000000 1000 500000000000 prog pooln ppid 100 start_s 3.0
	report
	expect_eq "cpus rule: a sibling's pool of a getconf child's count: --cpus" \
		"suggest: interpose --cpus 1 -- sh ..." "$(last)"
	has "cpus rule: the reason says who asked and who made the pool" \
		'^reason: the program sized a pool of 128 from the CPU count \(getconf asked sysconf, pooln made the threads\), and fork took'
	fresh
	pool "$T_TMP/m/100.rec" 4 4000000 1000 500000000000 prog pooln
	rec "$T_TMP/m/101.rec" prog nproc ppid 100 start_s 2.0 cpus.q_sched_getaffinity 1 cpus.a_sched_getaffinity 128
	report
	expect_eq "cpus rule: the parent's pool of a child's count (nproc): --cpus" \
		"suggest: interpose --cpus 1 -- pooln ..." "$(last)"
	fresh
	rec "$T_TMP/m/100.rec" prog sh cpus.forks 2
	rec "$T_TMP/m/101.rec" prog sh ppid 100 cpus.forks 1
	rec "$T_TMP/m/102.rec" prog sh ppid 100 cpus.forks 1
	rec "$T_TMP/m/103.rec" prog grep ppid 101 cpus.q_files 1 cpus.a_files 128
	pool "$T_TMP/m/104.rec" 4 4000000 1000 500000000000 prog pooln ppid 102
	report
	expect_eq "cpus rule: a cousin's threads are not a pool of that count" "suggest: nothing to mitigate in what was recorded (1004 process(es) left no record)" "$(last)"

	# ---- processes ----------------------------------------------------------
	fresh
	rec "$T_TMP/m/100.rec" cpus.forks 1 spawns 1 vforks 1
	rec "$T_TMP/m/101.rec" ppid 100
	rec "$T_TMP/m/102.rec" ppid 100
	rec "$T_TMP/m/103.rec" ppid 100
	report
	has "processes: every start seen and recorded: exact" '^processes: 4 recorded, 0 left no record; '
	rm "$T_TMP/m/102.rec" "$T_TMP/m/103.rec"
	report
	has "processes: starts without a record: exact" '^processes: 2 recorded, 2 left no record; '
	rec "$T_TMP/m/102.rec" ppid 100
	rec "$T_TMP/m/103.rec" ppid 100
	rec "$T_TMP/m/104.rec" ppid 100
	report
	has "processes: a child whose start was not seen: no \"at least 0\"" \
		'^processes: 5 recorded, none seen to leave no record \(some starts were not seen\); '
	fresh
	rec "$T_TMP/m/101.rec" ppid 100
	report_root 100
	has "processes: the command left no record: counted" '^processes: 1 recorded, 1 left no record; '
	rec "$T_TMP/m/300.rec" ppid 299
	report_root 100
	has "processes: a record of an unknown parent: a lower bound" '^processes: 2 recorded, at least 1 left no record; '
	fresh
	rec "$T_TMP/m/100.rec" state running
	report FP_SURVEY_ALIVE=none
	has "processes: a running record whose process is gone: left no record" '^processes: 1 recorded, 1 left no record; '
	report FP_SURVEY_ALIVE=all
	has "processes: a running record whose process runs: still running" '^processes: 1 recorded, 0 left no record, 1 still running; '
	sleep 30 &
	alive=$!
	true &
	gone=$!
	wait "$gone"
	fresh
	rec "$T_TMP/m/$alive.rec" state running
	rec "$T_TMP/m/$gone.rec" state running
	report
	kill "$alive"
	has "processes: kill -0 tells the running from the gone" '^processes: 2 recorded, 1 left no record, 1 still running; '

	# ---- no records: one line, exit 3 (issue 40) ------------------------------
	fresh
	report
	expect_eq "no records: one line, exit 3" "3 fastpath survey: no records in this directory" \
		"$? $(cat "$T_TMP/rep")"
	ln -s /etc/passwd "$T_TMP/m/1.rec"
	report
	expect_eq "only unreadable records: one line, exit 3" \
		"3 fastpath survey: no records in this directory; 1 unreadable record(s) ignored" "$? $(cat "$T_TMP/rep")"

	# ---- rows of no calls: one line ---------------------------------------------
	fresh
	rec "$T_TMP/m/1.rec" getrandom.calls 5 getrandom.ns 5000
	report
	# The rows the descriptors list, in the registry's order, but getrandom's.
	# shellcheck disable=SC2046 # the descriptors' names, one word each
	quiet=$(sed -n 's/^report \([a-z0-9_]*\) .*/\1/p' $(sed -n 's|^[[:space:]]*X(\([a-z0-9_]*\)).*|mit/\1.def|p' mitigations.h) |
		grep -vx getrandom)
	quiet_list=$(printf '%s\n' "$quiet" | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')
	quiet_re=$(printf '%s\n' "$quiet" | awk 'NR > 1 { printf "\\|" } { printf "%s", $0 }')
	expect_eq "rows of no calls folded into one line" "0 $quiet_list: no calls" \
		"$(grep -c "^\($quiet_re\) " "$T_TMP/rep") $(line 'readlink, ')"

	# ---- start-up: what loading fastpath.so costs each process (issue 39) ----------
	# 200 processes of 1 ms each, every one with an open of /dev/urandom
	# that exact mode would save 55 us of: 11 ms saved, against 200 start-
	# ups of 0.1 ms (20 ms): suggested, the workload would be slower.
	fresh
	i=1000
	while [ "$i" -lt 1200 ]; do
		rec "$T_TMP/m/$i.rec" prog uuidgen start_s 1.000000000 now_s 1.001000000 \
			urandom.open_cloexec 1 urandom.open_ns 40000 urandom.read_le16 1 urandom.read_ns 10000 \
			urandom.close 1 urandom.close_ns 10000 urandom.dup_close_ns 5000
		i=$((i + 1))
	done
	report
	has "start-up row: every process, its cost, the short ones counted" \
		'^start-up +200 procs +20\.0 ms added .*\(~100\.0 us each, loading fastpath\.so; 200 of them lived under 10\.0 ms\)$'
	expect_eq "start-up: short processes saving less than it costs: nothing suggested" \
		"suggest: nothing to mitigate" "$(last)"
	has "start-up: the note says why" \
		'^note: fastpath\.so.s start-up, ~100\.0 us in each of 200 processes \(~20\.0 ms\), would cost more than the ~11\.0 ms it saves'
	report FP_SURVEY_STARTUP_US=20
	expect_eq "start-up: a machine where loading costs 20 us: the same saving is worth it" \
		"suggest: interpose -- uuidgen ..." "$(last)"
	has "start-up row: FP_SURVEY_STARTUP_US's figure" '^start-up +200 procs +4\.0 ms added'
	# Exact mode's own set-up in each process that opens the device
	# (cold review 69: 1000 processes of 40 opens each, suggested, ran
	# 12% slower): at 20 us a start-up, the 11 ms saved less 200 set-ups
	# of 70 us (the default) is nothing; of 10 us, still worth it.
	report FP_SURVEY_STARTUP_US=20 FP_SURVEY_URANDOM_FIRST_US=
	expect_eq "urandom: exact mode's set-up in each process (70 us) outweighs the saving: nothing suggested" \
		"suggest: nothing to mitigate" "$(last)"
	report FP_SURVEY_STARTUP_US=20 FP_SURVEY_URANDOM_FIRST_US=10
	expect_eq "urandom: a set-up of 10 us (FP_SURVEY_URANDOM_FIRST_US): suggested" \
		"suggest: interpose -- uuidgen ..." "$(last)"

	# ---- names: never dropped, never raw controls --------------------------------
	# Escape (C0), CSI and OSC as C1 in UTF-8 and raw, a lone continuation
	# byte, an overlong NUL, a surrogate: none reaches the reader.
	fresh
	printf 'fastpath-survey 1\npid 1\nppid 0\nprog\nstate exited\nstart_s 1.0\nnow_s 2.0\nend 0\n' >"$T_TMP/m/1.rec"
	printf 'fastpath-survey 1\npid 2\nppid 1\nprog p q\nstate exited\nstart_s 1.0\nnow_s 2.0\nend 0\n' >"$T_TMP/m/2.rec"
	evil=$(printf 'a\033[2J\302\233H\302\235T\233H\235x\200\300\200\355\240\200\303\251')
	rec "$T_TMP/m/3.rec" prog "$evil" ppid 1 getrandom.calls 5 getrandom.ns 5000
	report
	has "a record with no name, one with spaces: each counted" '^processes: 3 recorded, '
	expect_eq "no control byte, C1 or invalid UTF-8 printed (a valid e-acute is)" "0" \
		"$(LC_ALL=C tr -d '\n -~\303\251' <"$T_TMP/rep" | wc -c | tr -d ' ')"
	has "a name's bytes shown as \\ooo" \
		'a\\033\[2J\\302\\233H\\302\\235T\\233H\\235x\\200\\300\\200\\355\\240\\200'

	# ---- records that are not records -----------------------------------------
	for bad in abc nan -5 1e9 inf 0x10 1.5.2 123456789012345678901234567890; do
		fresh
		rec "$T_TMP/m/1.rec"
		rec "$T_TMP/m/2.rec" cpus.fork_t1_ns "$bad"
		report
		unreadable "a value $bad: that record counted unreadable" 1
	done
	fresh
	rec "$T_TMP/m/1.rec"
	printf 'fastpath-survey 1\npid 2\nppid 1\nprog p\nstate exited\nstart_s 1.0\nnow_s 2.0\n' >"$T_TMP/m/2.rec"
	printf 'fastpath-survey 2\npid 3\nppid 1\nprog p\nstate exited\nstart_s 1.0\nnow_s 2.0\nend 0\n' >"$T_TMP/m/3.rec"
	printf 'fastpath-survey 1\nppid 1\nprog p\nstate exited\nstart_s 1.0\nnow_s 2.0\nend 0\n' >"$T_TMP/m/4.rec"
	rec "$T_TMP/m/5.rec" pid 1
	printf 'fastpath-survey 1\npid 6\nppid 1 2\nprog p\nstate exited\nstart_s 1.0\nnow_s 2.0\nend 0\n' >"$T_TMP/m/6.rec"
	rec "$T_TMP/m/7.rec" state sleeping
	head -c 70000 /dev/zero | tr '\0' '\n' >"$T_TMP/m/9.rec"
	report
	unreadable "no end, another version, no pid, a pid twice, three words, a state unknown, huge: each unreadable" 7
	# An empty record is a first record between its create and its one
	# write (survey.c writes it under its own name): not there yet, so its
	# process left no record, and nothing is unreadable.
	fresh
	rec "$T_TMP/m/10.rec" spawns 2
	rec "$T_TMP/m/11.rec" ppid 10
	: >"$T_TMP/m/12.rec"
	report
	has "an empty record: its process left no record" '^processes: 2 recorded, 1 left no record'
	if grep -q unreadable "$T_TMP/rep"; then fail "an empty record is not unreadable" "$(cat "$T_TMP/rep")"
	else ok "an empty record is not unreadable"; fi
	fresh
	rec "$T_TMP/m/1.rec"
	mkdir "$T_TMP/m/x.rec" "$T_TMP/m/2.rec"
	ln -s /etc/passwd "$T_TMP/m/3.rec"
	ln -s "$T_TMP/m/1.rec" "$T_TMP/m/4.rec"
	rec "$T_TMP/m/.5.rec"
	rec "$T_TMP/m/6.rec.tmp"
	if mkfifo "$T_TMP/m/7.rec"; then nfifo=1; else nfifo=0; fi
	report
	unreadable "a directory, symlinks, a FIFO as records: unreadable, and no hang" $((3 + nfifo))
	expect_eq "other names (x.rec, .5.rec, 6.rec.tmp) are not records" "1" \
		"$(sed -n 's/^processes: \([0-9]*\) recorded.*/\1/p' "$T_TMP/rep")"
	fresh
	rec "$T_TMP/m/1.rec"
	rec "$T_TMP/m/2.rec${nl}3.rec"
	rec "$T_TMP/m/4${nl}5.rec"
	rec "$T_TMP/m/3.rec"
	report
	expect_eq "names with a newline: not records, and forge none" "processes: 2 recorded" \
		"$(sed -n 's/^\(processes: [0-9]* recorded\).*/\1/p' "$T_TMP/rep")"
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		fresh
		rec "$T_TMP/m/1.rec"
		rec "$T_TMP/m/2.rec"
		chown nobody "$T_TMP/m/2.rec"
		report
		unreadable "a record owned by another user (not root): unreadable" 1
		# A process that changed user (setpriv, a daemon's setuid):
		# its first record in root's directory, running, its later
		# ones in its new user's subdirectory, of the same start: the
		# later is read (cold review 70).  A record another user wrote
		# under the pid of root's exited process, or of another start,
		# is not (cold review 69: its later now_s replaced root's, and
		# the report suggested from its counts).
		fresh
		rec "$T_TMP/m/5.rec" state running now_s 2.0
		mkdir -m 700 "$T_TMP/m/65534"
		rec "$T_TMP/m/65534/5.rec" prog q now_s 3.0 getrandom.calls 7 getrandom.ns 7000
		chown -R 65534 "$T_TMP/m/65534"
		report
		expect_eq "one pid, running in root's directory, later in a user's subdirectory: the later read, the earlier passed over" \
			"processes: 1 recorded|q|(1 other record(s) of a pid passed over: a process that changed user is read from its last; the directory's record of an exited process, or of another start, from the directory)|0" \
			"$(sed -n 's/^\(processes: [0-9]* recorded\).*/\1/p' "$T_TMP/rep")|$(awk '$1 == 5 { print $2 }' "$T_TMP/rep")|$(grep '^(' "$T_TMP/rep")|$(grep -c running "$T_TMP/rep")"
		rec "$T_TMP/m/5.rec" now_s 2.0
		report
		expect_eq "one pid, exited in root's directory, a later record in a user's subdirectory: root's read" \
			"p|1" "$(awk '$1 == 5 { print $2 }' "$T_TMP/rep")|$(grep -c '^suggest: nothing to mitigate' "$T_TMP/rep")"
		rec "$T_TMP/m/5.rec" state running now_s 2.0
		rec "$T_TMP/m/65534/5.rec" prog q start_s 1.5 now_s 3.0 getrandom.calls 7 getrandom.ns 7000
		chown -R 65534 "$T_TMP/m/65534"
		report
		expect_eq "one pid, running in root's directory, another start in a user's subdirectory: root's read" \
			"p" "$(awk '$1 == 5 { print $2 }' "$T_TMP/rep")"
		rm "$T_TMP/m/5.rec"
		rec "$T_TMP/m/65534/5.rec" prog q now_s 3.0
		chown -R 65534 "$T_TMP/m/65534"
		mkdir -m 700 "$T_TMP/m/65533"
		rec "$T_TMP/m/65533/5.rec" prog r now_s 2.5
		chown -R 65533 "$T_TMP/m/65533"
		report
		expect_eq "one pid in two users' subdirectories: the later read" "q" "$(awk '$1 == 5 { print $2 }' "$T_TMP/rep")"
	else
		skip "a record owned by another user" "not root, or no user nobody: cannot make one"
	fi
}

# Every awk here, each with a directory that puts it first in PATH as awk.
for_each_awk "the report" units
if [ -f "$T_TMP/lint.gawk" ]; then
	# A warning about the data (an empty record file) is not the program's.
	if grep 'warning' "$T_TMP/lint.gawk" | grep -vq "warning: data file \`[^']*' is empty"; then
		fail "gawk --lint: the report is clean on every case above" "$(sort -u "$T_TMP/lint.gawk" | head -n 20)"
	else
		ok "gawk --lint: the report is clean on every case above"
	fi
	check "gawk --posix: the report is POSIX awk" sh -c 'echo // | gawk --posix -f survey.awk; [ $? -eq 3 ]'
fi

# ---- huge and changing directories (the machine's own awk) --------------
AWK_NAME=default
mkdir -p "$AWKS/default"
ln -sf "$(command -v awk)" "$AWKS/default/awk"
: >"$T_TMP/lint.default"
fresh
# 100,000 whole records of the present format, parent and children.
sh tests/survey_records.sh "$T_TMP/m" "$FASTPATH_SO"
# Exactness here; its speed (60 s at most) is bench_survey.sh's row: a
# suite run beside others must not fail on time.  The guard catches a hang.
t0=$(date +%s)
REPORT_GUARD=900 report
rc=$?
t1=$(date +%s)
expect_eq "100,000 records: reported, exact (in $((t1 - t0)) s)" \
	"0 processes: 100000 recorded, 0 left no record" "$rc $(sed -n 's/;.*//p' "$T_TMP/rep" | grep '^processes')"

# A directory written while it is read: records replaced, added, removed.
fresh
rec "$T_TMP/m/1.rec"
(
	i=2
	while [ -d "$T_TMP/m" ]; do
		rec "$T_TMP/m/.t"
		mv "$T_TMP/m/.t" "$T_TMP/m/$((i % 50 + 2)).rec" 2>/dev/null
		rm -f "$T_TMP/m/$(((i + 25) % 50 + 2)).rec"
		i=$((i + 1))
	done
) &
writer=$!
good=0
for i in 1 2 3 4 5; do
	report && [ "$(last | cut -c1-9)" = "suggest: " ] && good=$((good + 1))
done
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
expect_eq "a directory written while read: 5 reports of 5, each bounded" 5 "$good"

# ---- interpose: no report, one line ---------------------------------------
fresh
rec "$T_TMP/m/1.rec"
mkdir -p "$AWKS/failing"
printf '#!/bin/sh\nexit 2\n' >"$AWKS/failing/awk"
chmod +x "$AWKS/failing/awk"
AWK_NAME=failing
report
expect_eq "awk fails: exit 125, one line of reason" \
	"125 interpose: the survey report failed (awk exit 2)" "$? $(cat "$T_TMP/err")"
# Under --survey the status is the command's whatever the report did
# (a cold review: 125 where the command exited 3).
out=$(env PATH="$AWKS/failing:$PATH" "$INTERPOSE" --survey sh -c 'exit 3' 2>&1)
rc=$?
case $out in
"interpose: the survey report failed (awk exit 2)${nl}interpose: the records are kept in "*)
	kept=${out##* }
	if [ "$rc" -eq 3 ] && [ -d "$kept" ]; then ok "--survey, no report: the command's status, the records kept and named"
	else fail "--survey, no report" "rc $rc, $out"; fi
	rm -rf "$kept" ;;
*) fail "--survey, no report: two lines" "rc $rc, $out" ;;
esac
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null 2>&1 && id nobody >/dev/null 2>&1 &&
	runuser -u nobody -- "$INTERPOSE" --version >/dev/null 2>&1; then
	# A directory it can see (its parent searchable) but not enter.
	mkdir -m 711 "$T_TMP/open" && mkdir -m 700 "$T_TMP/open/m" && chmod 711 "$T_TMP"
	out=$(runuser -u nobody -- "$INTERPOSE" --survey-report "$T_TMP/open/m" 2>&1)
	expect_eq "a directory the user cannot enter: exit 125, one line" \
		"125 interpose: cannot enter '$T_TMP/open/m'" "$? $out"
	chmod 700 "$T_TMP"
else
	skip "a directory the user cannot enter" "not root with runuser and a user nobody who can run interpose"
fi
# The directory entered as named: an exported CDPATH changes nothing, and a
# directory called - or -P is a directory, not $OLDPWD or an option.
fresh
rec "$T_TMP/m/1.rec" prog here
mkdir -p "$T_TMP/cdp/m" "$T_TMP/w/-" "$T_TMP/w/-P"
rec "$T_TMP/cdp/m/1.rec" prog elsewhere
rec "$T_TMP/w/-/1.rec" prog dash
rec "$T_TMP/w/-P/1.rec" prog dashP
out=$(cd "$T_TMP" && CDPATH=$T_TMP/cdp "$INTERPOSE" --survey-report m 2>&1 | head -n 1)
expect_eq "--survey-report DIR: an exported CDPATH changes nothing" "fastpath survey of: here ..." "$out"
out=$(cd "$T_TMP/w" && OLDPWD=$T_TMP/m "$INTERPOSE" --survey-report - 2>&1 | head -n 1)
expect_eq "--survey-report -: the directory named -" "fastpath survey of: dash ..." "$out"
out=$(cd "$T_TMP/w" && HOME=$T_TMP/m "$INTERPOSE" --survey-report -P 2>&1 | head -n 1)
expect_eq "--survey-report -P: the directory named -P" "fastpath survey of: dashP ..." "$out"

mkdir -p "$T_TMP/bin"
cp "$INTERPOSE" "$T_TMP/bin/interpose"
out=$("$T_TMP/bin/interpose" --survey-report "$T_TMP/m" 2>&1)
expect_eq "no survey.awk beside interpose: exit 125, one line" \
	"125 interpose: cannot find survey.awk (looked beside $T_TMP/bin/interpose and in its ../lib/fastpath)" "$? $out"

# ---- the command, quoted back exactly ---------------------------------------
# Pasted into sh, the suggestion runs the argument vector that ran:
# backslashes (awk -v would expand them), quotes, newlines, a tab, bytes
# that are not UTF-8, an empty word, a lone quote, shell syntax.
L=$TOP/bench/bin/urandom_loop
# Exact mode pools only under a soft descriptor limit below the hard one:
# elsewhere the report rightly suggests nothing for this loop (t_survey).
[ "$(ulimit -Sn)" = unlimited ] || [ "$(ulimit -Sn)" -gt 1024 ] && ulimit -Sn 1024
if [ -x "$L" ]; then
	# shellcheck disable=SC2016 # for the inner shell
	set -- sh -c 'exec "$0" seed 20000' "$L" 'C:\new\dir' 'a\tb\\c' "it's" "'" '' "$(printf 'one\ntwo')" \
		"$(printf 'tab\there')" "$(printf '\377\376\200')" '$HOME `id` $(id) ; | & * ? [a] ~ #' "$(printf 'end\n\n.')" \
		"$(printf 'esc\033]0;title\007\302\233 2J\2332J\n')x" "$(printf '%%\n\\n\n')" "trail$nl$nl" "$nl"
	"$INTERPOSE" --survey -- "$@" 2>"$T_TMP/rep" >/dev/null
	sugg=$(sed -n '/^suggest: /,$p' "$T_TMP/rep" | sed '1s/^suggest: //')
	printf '%s\0' "$@" | od -An -c >"$T_TMP/want"
	# shellcheck disable=SC2016 # for the inner shell
	sh -c 'interpose() { shift; printf "%s\0" "$@"; }; '"$sugg" | od -An -c >"$T_TMP/got"
	if cmp -s "$T_TMP/want" "$T_TMP/got"; then ok "the suggestion, pasted into sh, runs the same argument vector"
	else fail "the suggestion's argument vector" "$(diff "$T_TMP/want" "$T_TMP/got" | head -n 10)"; fi
	expect_eq "the command survives backslashes: one suggest line" 1 "$(grep -c '^suggest: ' "$T_TMP/rep")"
	expect_eq "the command's control bytes (C0, C1 raw and in UTF-8, invalid UTF-8) are not printed" 0 \
		"$(LC_ALL=C tr -d '\n -~' <"$T_TMP/rep" | wc -c | tr -d ' ')"
	case $sugg in
	"interpose -- sh -c 'exec \"\$0\" seed 20000' $L 'C:\\new\\dir' 'a\\tb\\\\c' "*) ok "the suggestion keeps each byte of a backslash" ;;
	*) fail "the suggestion's backslashes" "$sugg" ;;
	esac
else
	fail "the command quoted back" "missing $L (make check builds it)"
fi
fresh
rec "$T_TMP/m/1.rec" prog "it's"
AWK_NAME=default
report
expect_eq "the first process's name, quoted for sh" "suggest: nothing to mitigate" "$(last)"
expect_eq "the first process's name, quoted for sh, in the title" "fastpath survey of: 'it'\\''s' ..." "$(head -n 1 "$T_TMP/rep")"

# A record find listed as a regular file and another user swapped for a
# FIFO before it is read (a cold review: root's report hung in awk's open
# of it, for ever): fastpath-run --records opens each without blocking and
# passes on only regular files of their writer's, so the report ends and
# counts it unreadable.  The swap made before the read, as the race makes
# it; and a subdirectory swapped for a link.
fresh
rec "$T_TMP/m/2.rec" prog good
mkfifo "$T_TMP/m/3.rec"
mkdir "$T_TMP/m/77" "$T_TMP/elsewhere"
rec "$T_TMP/elsewhere/4.rec" prog linked
chown -R 77 "$T_TMP/elsewhere" 2>/dev/null
rmdir "$T_TMP/m/77" && ln -s "$T_TMP/elsewhere" "$T_TMP/m/77"
if [ -x "$TOP/fastpath-run" ]; then
	(cd "$T_TMP/m" && printf './2.rec\n./3.rec\n./77/4.rec\n//\n' |
		timeout 20 "$TOP/fastpath-run" --records | LC_ALL=C timeout 20 awk -f "$TOP/survey.awk") >"$T_TMP/rep" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^(2 unreadable record(s) ignored)$' "$T_TMP/rep"; then
		ok "a FIFO swapped in for a listed record, a subdirectory for a link: the report ends, both unreadable"
	else
		fail "a FIFO swapped in for a listed record, a subdirectory for a link: the report ends, both unreadable" \
			"exit $rc: $(head -c 800 "$T_TMP/rep")"
	fi
	# Only a record's shape is opened (cold review 67: "./../x" opened the
	# parent, root's, as uid 0's subdirectory, and passed a root-owned
	# file on): names that leave the directory, or are not *.rec.
	mkdir -p "$T_TMP/m/0" "$T_TMP/m/5"
	rec "$T_TMP/out.rec" prog outside
	rec "$T_TMP/m/5/notrec" prog notrec
	rec "$T_TMP/m/0/6.rec" prog good
	got=$(cd "$T_TMP/m" && printf './../out.rec\n./0/../../out.rec\n./5/notrec\n./x/6.rec\n./0/6.rec\n' |
		timeout 20 "$TOP/fastpath-run" --records | grep -c '^	+$')
	expect_eq "--records: only ./NAME.rec and ./UID/NAME.rec are read" 1 "$got"
else
	fail "a FIFO swapped in for a listed record" "no fastpath-run (make builds it)"
fi

finish
