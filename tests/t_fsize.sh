#!/bin/sh
# SPDX-License-Identifier: MIT
# Nothing fastpath writes counts against the program's RLIMIT_FSIZE (issue
# 37): natively each run here exits 0 under `ulimit -f` (its output goes
# to a pipe, which no limit counts), and so it must under the preload: the
# served CPU files (a memfd that the limit counts), the FASTPATH_STATS
# line, the survey records, a debug line to a file.  Before, each died of
# SIGXFSZ (exit 153).  sh's `ulimit -f` sets the hard limit too: the copy
# cannot be made as usual, and is served another way (fastpath(7), CPUS).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

PROG=$TESTBIN/prog_cpus
native=$(getconf _NPROCESSORS_ONLN)

# limited BLOCKS CMD...: CMD under `ulimit -f BLOCKS`; what it printed (to a
# pipe), on one line, then "rc=N".
limited() {
	sh -c 'ulimit -f "$1" || exit 99; shift; "$@"; echo "rc=$?"' sh "$@" 2>&1 |
		tr '\n' ' ' | sed 's/ $//'
}

precond "ulimit -f 0 is allowed here" sh -c 'ulimit -f 0'
expect_eq "natively at ulimit -f 0: grep ^processor /proc/cpuinfo" "$native rc=0" \
	"$(limited 0 grep -c ^processor /proc/cpuinfo)"

# --- the served CPU files ----------------------------------------------------
expect_eq "ulimit -f 1, FASTPATH_CPUS=1: grep -c ^processor /proc/cpuinfo" "1 rc=0" \
	"$(limited 1 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=1 grep -c ^processor /proc/cpuinfo)"
online=$(cat /sys/devices/system/cpu/online)
expect_eq "ulimit -f 0, FASTPATH_CPUS=$native (the real count): cat .../cpu/online" \
	"$online rc=0" "$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS="$native" cat /sys/devices/system/cpu/online)"
# N other than the real count: the copy, served in a pipe.
for n in 3 64; do
	expect_eq "ulimit -f 0, FASTPATH_CPUS=$n: /proc/cpuinfo has $n processors" "$n rc=0" \
		"$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=$n grep -c ^processor /proc/cpuinfo)"
	expect_eq "ulimit -f 0, FASTPATH_CPUS=$n: .../cpu/online" "0-$((n - 1)) rc=0" \
		"$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=$n cat /sys/devices/system/cpu/online)"
	expect_eq "ulimit -f 0, FASTPATH_CPUS=$n: /proc/stat has $n cpuN lines" "$n rc=0" \
		"$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=$n grep -c '^cpu[0-9]' /proc/stat)"
done
# A soft limit only, with room for a little: the copy still fits nowhere.
expect_eq "ulimit -S -f 1, FASTPATH_CPUS=3: /proc/cpuinfo" "3 rc=0" \
	"$(sh -c 'ulimit -S -f 1 && "$@"; echo "rc=$?"' sh env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 \
		grep -c ^processor /proc/cpuinfo 2>&1 | tr '\n' ' ' | sed 's/ $//')"
# A program that blocks SIGXFSZ itself finds none of ours pending, and its
# mask as it left it; one that does not is not killed.
expect_eq "ulimit -f 0, SIGXFSZ blocked by the program: nothing of ours pending" \
	"3 pending=0 blocked=1 rc=0" "$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 "$PROG" xfsz block)"
expect_eq "ulimit -f 0, SIGXFSZ not blocked: not killed, mask unchanged" \
	"3 pending=0 blocked=0 rc=0" "$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 "$PROG" xfsz)"
# A SIGXFSZ the program sent its process (kill) and left pending is a queue
# apart from the thread's one our write raises: both would be delivered.
expect_eq "ulimit -f 0, natively: a kill()ed SIGXFSZ pending, delivered once" "$native hits=1 rc=0" \
	"$(limited 0 "$PROG" xfsz kill)"
expect_eq "ulimit -f 0, the program's kill()ed SIGXFSZ pending: delivered once, ours not" \
	"3 hits=1 rc=0" "$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 "$PROG" xfsz kill)"
# A handler that runs while the copy is made (a timer's) and writes past the
# limit itself: its SIGXFSZ is the program's, delivered, never taken back
# with ours (before: about one in fifteen delivered).
expect_eq "ulimit -f 0, natively: a handler's refused writes each raise SIGXFSZ" "handler ok rc=0" \
	"$(limited 0 "$PROG" xfsz handler)"
expect_eq "ulimit -f 0, FASTPATH_CPUS=3: a handler inside our copy still gets its SIGXFSZ" \
	"handler ok rc=0" "$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 "$PROG" xfsz handler)"

# --- FASTPATH_STATS ----------------------------------------------------------
rm -f "$T_TMP/s.log"
out=$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 FASTPATH_STATS="$T_TMP/s.log" /bin/true)
expect_eq "ulimit -f 0, FASTPATH_STATS=FILE: /bin/true exits 0" "rc=0" "${out##* }"
case $out in
*'the summary could not be written: File too large rc=0') ok "FASTPATH_STATS=FILE past the limit: one warning line" ;;
*) fail "FASTPATH_STATS=FILE past the limit: one warning line" "$out" ;;
esac
expect_eq "ulimit -f 0, FASTPATH_STATS=stderr onto a file: /bin/true exits 0" "rc=0" \
	"$(sh -c 'ulimit -f 0 && "$@" 2>"$0"; echo "rc=$?"' "$T_TMP/e" \
		env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 FASTPATH_STATS=stderr /bin/true)"
expect_eq "ulimit -f 0, FASTPATH_DEBUG onto a file: served, exits 0" "3 rc=0" \
	"$(sh -c 'ulimit -f 0 && "$@" 2>"$0"; echo "rc=$?"' "$T_TMP/e" \
		env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_CPUS=3 FASTPATH_DEBUG=1 grep -c ^processor /proc/cpuinfo | tr '\n' ' ' |
		sed 's/ $//')"

# --- FASTPATH_SURVEY ---------------------------------------------------------
mkdir -p "$T_TMP/sv"
expect_eq "ulimit -f 0, FASTPATH_SURVEY: every process of a tree exits 0, nothing said" "rc=0" \
	"$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_SURVEY="$T_TMP/sv" sh -c '/bin/true && sh -c /bin/true')"
expect_eq "ulimit -f 0, FASTPATH_SURVEY: no record (EFBIG), no temporary left" "" \
	"$(ls -A "$T_TMP/sv")"
expect_eq "ulimit -f 0, FASTPATH_SURVEY with the cap: cpuinfo served, exits 0" "3 rc=0" \
	"$(limited 0 env "LD_PRELOAD=$FASTPATH_SO" FASTPATH_SURVEY="$T_TMP/sv" FASTPATH_CPUS=3 grep -c ^processor /proc/cpuinfo)"

# interpose --survey itself under the limit: its own files (the command's
# words, the report to a FILE) fail instead of killing it, and the status
# is the command's (a cold review: ulimit -f 0 killed interpose, 153,
# before the command ran).
for how in --survey "--survey=$T_TMP/svrep"; do
	for lim in 0 1; do
		out=$(limited "$lim" "$INTERPOSE" "$how" -- sh -c 'echo ran; exit 7')
		expect_eq "ulimit -f $lim, interpose $how: the command ran, its status" "ran rc=7" \
			"${out%% *} ${out##* }"
	done
done
# A limit in bytes, swept across a record's length: the record is whole
# (within the limit) or not there, never part of one, and nothing else is
# left (a record is first made under its own name: survey.c empties and
# removes one whose write fails).  Run alone (/bin/true) and with
# counters (urandom read), whose values, and so the length, vary by a few
# bytes from run to run: whole is required from the length + 64 up, none
# below the length - 64.
if ! command -v prlimit >/dev/null 2>&1; then
	skip "a file-size limit in bytes across a record's length" "prlimit not installed (Debian: util-linux)"
else
	for what in /bin/true "head -c 64 /dev/urandom"; do
		rm -rf "$T_TMP/sw" && mkdir "$T_TMP/sw"
		# shellcheck disable=SC2086 # $what: a command and its words
		env LD_PRELOAD="$FASTPATH_SO" FASTPATH_SURVEY="$T_TMP/sw" $what >/dev/null
		len=$(cat "$T_TMP/sw"/*.rec | wc -c | tr -d ' ')
		bad=
		for lim in 0 1 20 $((len / 2)) $((len - 64)) $((len - 1)) "$len" $((len + 1)) $((len + 64)) 4096; do
			rm -rf "$T_TMP/sw" && mkdir "$T_TMP/sw"
			# shellcheck disable=SC2086
			prlimit --fsize="$lim" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_SURVEY="$T_TMP/sw" $what >/dev/null 2>&1
			rc=$?
			n=$(find "$T_TMP/sw" -mindepth 1 | wc -l | tr -d ' ')
			size=0 whole=no
			if [ "$n" -eq 1 ]; then
				size=$(cat "$T_TMP/sw"/*.rec | wc -c | tr -d ' ')
				[ "$(head -n 1 "$T_TMP/sw"/*.rec)" = "fastpath-survey 1" ] &&
					[ "$(tail -n 1 "$T_TMP/sw"/*.rec)" = "end 0" ] && whole=yes
			fi
			ok=yes
			[ $rc -eq 0 ] || ok=no
			[ "$n" -eq 0 ] || [ $whole = yes ] || ok=no
			[ $whole = no ] || [ "$size" -le "$lim" ] || ok=no
			[ "$lim" -lt $((len + 64)) ] || [ $whole = yes ] || ok=no
			[ "$lim" -gt $((len - 64)) ] || [ "$n" -eq 0 ] || ok=no
			[ $ok = yes ] || bad="$bad [limit $lim: rc $rc, $n file(s), whole $whole, $size bytes]"
		done
		expect_eq "limits of 0 to 4096 bytes ($what, a record of about $len): whole or none, exit 0" "" "$bad"
	done
fi
# ---- no file of our own ---------------------------------------------------
# memfd_create refused (a filter) and neither /dev/shm nor /tmp writable:
# the served copy goes into a pipe, as over the limit, and the open never
# fails (a cold review: EROFS).  The first step alone (an O_TMPFILE in
# /dev/shm) runs anywhere; both need a mount namespace of our own.
SC=$TESTBIN/prog_urandom_seccomp
probe='grep -c ^processor /proc/cpuinfo; cat /sys/devices/system/cpu/online'
if "$SC" NOMEMFD true 2>/dev/null; then
	expect_eq "memfd_create refused, FASTPATH_CPUS=3: served (a file in /dev/shm or /tmp)" "3 0-2" \
		"$(FASTPATH_CPUS=3 LD_PRELOAD="$FASTPATH_SO" "$SC" NOMEMFD sh -c "$probe" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
	if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
		# shellcheck disable=SC2016 # the inner shell's own "$@"
		got=$(unshare -m sh -c 'mount -t tmpfs -o ro tmpfs /tmp && mount -t tmpfs -o ro tmpfs /dev/shm &&
			"$@"' sh env FASTPATH_CPUS=3 LD_PRELOAD="$FASTPATH_SO" "$SC" NOMEMFD sh -c "$probe" 2>&1 |
			tr '\n' ' ' | sed 's/ $//')
		expect_eq "memfd_create refused, /tmp and /dev/shm read-only, FASTPATH_CPUS=3: served in a pipe" \
			"3 0-2" "$got"
	else
		skip "memfd_create refused, /tmp and /dev/shm read-only" "needs root and unshare -m (a mount namespace)"
	fi
else
	skip "memfd_create refused" "no seccomp filter can be installed here"
fi

# ---- a reader gone: SIGPIPE ------------------------------------------------
# The same class for a pipe: a warning (a malformed setting, before main),
# the summary line at exit or a debug line, written to a stderr whose
# reader has exited, raised SIGPIPE, which killed the program (141) for a
# write it never made; natively it runs and exits 0 (a cold review).  And
# interpose's own line before its exec.  gone CMD...: CMD with stderr a
# pipe whose reader exited first; what it printed on stdout, then "rc=N".
gone() {
	{ ( sh -c 'sleep 0.2; "$@" >&3; echo "rc=$?" >&3' sh "$@" 2>&1 >/dev/null | true ) 3>&1; } |
		tr '\n' ' ' | sed 's/ $//'
}
# shellcheck disable=SC2016 # the inner shell's own $( ) and $?
precond "a pipe whose reader is gone gives SIGPIPE here" \
	sh -c '[ -z "$( { (sh -c "sleep 0.2; echo x >&2; echo rc=\$? >&3" 2>&1 >/dev/null | true) 3>&1; } )" ]'
for v in FASTPATH_CPUS=bad FASTPATH_DISABLE=bogus FASTPATH_STATS=1 FASTPATH_DEBUG=1; do
	expect_eq "stderr a pipe whose reader is gone, $v: the program runs, exit 0" "rc=0" \
		"$(gone env LD_PRELOAD="$FASTPATH_SO" "$v" sh -c 'exit 0')"
done
expect_eq "stderr a pipe whose reader is gone, interpose --cpus 9000 (its own line): exit 0" "rc=0" \
	"$(gone "$INTERPOSE" --cpus 9000 -- true)"
# A descriptor no line can go to, or none can now (a pipe's read end, a
# listening socket, an epoll, a full non-blocking pipe): the line fails at
# once, as a native write would; the first form of the SIGPIPE fix waited
# there for ever (a cold review).
for kind in piperd unixlisten epoll nbfull; do
	expect_eq "stderr a descriptor no write goes to ($kind), a warning line: exits 0 at once" \
		"$kind: exited 0" "$("$TESTBIN/prog_robust" stderr "$kind" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_DEBUG=bogus /bin/true)"
done
# Our SIGPIPE taken back, the program's own (blocked, pending before) kept:
# a debug line at each pooled open, the program's mask blocking SIGPIPE.
for how in none raise; do
	nat=$(gone "$TESTBIN/prog_robust" sigpipe "$how")
	expect_eq "stderr a pipe whose reader is gone, SIGPIPE blocked ($how first), a debug line: as natively" \
		"$nat" "$(gone env LD_PRELOAD="$FASTPATH_SO" FASTPATH_DEBUG=1 "$TESTBIN/prog_robust" sigpipe "$how")"
done
finish
