#!/bin/sh
# SPDX-License-Identifier: MIT
# The files fastpath writes from inside a program (outfile.c):
#  1. --stats holds no descriptor: natively and under `interpose --stats`,
#     fd 100 is the program's, the flock idiom excludes, /proc/self/fd
#     lists the same, and a reader of stderr is not kept waiting;
#  2. a process that changes user still leaves its line (FASTPATH_STATS=DIR/);
#  3. another user (nobody) plants a symbolic and a hard link at every name
#     fastpath writes, in a sticky and a non-sticky world-writable directory:
#     root's victim file never changes.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$FASTPATH_SO

# now: seconds since the epoch, to the hundredth.
now() { date +%s.%N | cut -c1-13; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# --- 1. --stats holds no descriptor; native is the oracle ------------------
# What `interpose --stats` sets, with the object under test ($FASTPATH_SO).
stats() { env LD_PRELOAD="$P" FASTPATH_STATS=stderr "$@"; }
# run_in MODE DIR CMD...: CMD in DIR, natively or under --stats.
run_in() {
	_m=$1 _d=$2
	shift 2
	mkdir -p "$_d"
	if [ "$_m" = native ]; then (cd "$_d" && "$@"); else (cd "$_d" && stats "$@"); fi
}
for m in native stats; do
	mkdir -p "$T_TMP/fd100.$m"
	# shellcheck disable=SC2016 # bash expands it
	run_in $m "$T_TMP/fd100.$m" bash -c 'exec 100>x; echo hi >&100' 2>"$T_TMP/fd100.$m/err"
	echo "rc=$? x=$(cat "$T_TMP/fd100.$m/x")" >"$T_TMP/fd100.$m/res"
done
expect_eq "--stats: bash's exec 100>x; echo hi >&100 writes x, as natively" \
	"$(cat "$T_TMP/fd100.native/res")" "$(cat "$T_TMP/fd100.stats/res")"

# The flock idiom: a holder and a second taker share one stderr (one open
# file description), as two jobs of one script do.
if command -v flock >/dev/null 2>&1; then
	for m in native stats; do
		d=$T_TMP/lock.$m
		mkdir -p "$d"
		{
			# shellcheck disable=SC2016
			run_in $m "$d" bash -c 'exec 100>lock; flock -n 100 || exit 9; : >held; sleep 3' &
			h=$!
			n=0
			while [ ! -e "$d/held" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
			# shellcheck disable=SC2016
			run_in $m "$d" bash -c 'exec 100>lock; flock -n 100; echo "second flock -n: $?"' \
				>"$d/res"
			wait $h
			echo "holder: $?" >>"$d/res"
		} 2>>"$d/err"
	done
	precond "native: the second flock -n fails" grep -qx 'second flock -n: 1' "$T_TMP/lock.native/res"
	expect_eq "--stats: exec 100>lock; flock -n 100 excludes, as natively" \
		"$(cat "$T_TMP/lock.native/res")" "$(cat "$T_TMP/lock.stats/res")"
else
	skip "--stats: the flock idiom" "flock(1) is not installed (Debian: util-linux)"
fi

# /proc/self/fd: the same list natively and with each destination.
mkdir "$T_TMP/sdir"
# shellcheck disable=SC2016
native=$(sh -c 'ls /proc/$$/fd' | tr '\n' ' ')
for dest in 1 stderr "$T_TMP/s.log" "$T_TMP/sdir/"; do
	# shellcheck disable=SC2016
	got=$(LD_PRELOAD=$P FASTPATH_STATS=$dest sh -c 'ls /proc/$$/fd' 2>/dev/null | tr '\n' ' ')
	expect_eq "FASTPATH_STATS=$dest: /proc/self/fd lists what native does" "$native" "$got"
done
if [ -n "$PYTHON" ]; then
	code='import os, subprocess, sys
print(sorted(os.listdir("/proc/self/fd")))
sys.stdout.flush()
subprocess.run(["ls", "/proc/self/fd"], close_fds=True)'
	n=$("$PYTHON" -c "$code" 2>&1)
	f=$(stats "$PYTHON" -c "$code" 2>/dev/null)
	expect_eq "--stats: python's listdir and a close_fds child, as natively" "$n" "$f"
fi

# A reader of the pipe waits for no copy: the program closed both ends.
for m in native stats; do
	case $m in native) pre= ;; *) pre="env LD_PRELOAD=$P FASTPATH_STATS=stderr" ;; esac
	t0=$(now)
	out=$(sh -c "$pre sh -c 'exec >&- 2>&-; sleep 4; :' & echo started" 2>&1)
	t1=$(now)
	echo "$(elapsed "$t0" "$t1") $(echo "$out" | tr '\n' ' ')" >"$T_TMP/wait.$m"
done
# shellcheck disable=SC2016 # awk expands it
precond "native: the reader returns at once" awk '$1 + 0 < 3 && $2 == "started" { ok = 1 } END { exit !ok }' \
	"$T_TMP/wait.native"
if awk '$1 + 0 < 3 && $2 == "started" { ok = 1 } END { exit !ok }' "$T_TMP/wait.stats"; then
	ok "--stats: a reader of stderr is not kept waiting by a program that closed it"
else
	fail "--stats: a reader of stderr is not kept waiting by a program that closed it" \
		"native [$(cat "$T_TMP/wait.native")] fastpath [$(cat "$T_TMP/wait.stats")]"
fi
if command -v perl >/dev/null 2>&1; then
	t0=$(now)
	out=$(sh -c "env LD_PRELOAD=$P FASTPATH_STATS=stderr perl -e 'close STDOUT; close STDERR; sleep 4' & echo started" 2>&1)
	t1=$(now)
	s=$(elapsed "$t0" "$t1")
	if [ "$out" = started ] && awk -v s="$s" 'BEGIN { exit !(s < 3) }'; then
		ok "--stats: perl closing STDOUT and STDERR keeps no reader waiting"
	else
		fail "--stats: perl closing STDOUT and STDERR keeps no reader waiting" "[$out] after $s s"
	fi
else
	skip "--stats: the perl reader case" "perl is not installed"
fi

# --- 2. a process that changes user leaves its line ------------------------
# The root parent forks a child that becomes nobody, then both exit.
# shellcheck disable=SC2016
setuid_child='use POSIX; my $p = fork(); if (!$p) { POSIX::setgid(65534); POSIX::setuid(65534) or exit 3; print "child $$\n"; exit 0 } waitpid($p, 0); print "parent $$ ", $? >> 8, "\n"'
if [ "$(id -u)" != 0 ]; then
	skip "a child that setuid()s to nobody leaves its line" "needs root (running as $(id -un))"
elif ! command -v perl >/dev/null 2>&1; then
	skip "a child that setuid()s to nobody leaves its line" "perl is not installed"
else
	chmod 0755 "$T_TMP"
	mkdir -m 1777 "$T_TMP/users"
	chmod 1777 "$T_TMP/users"
	perl -e "$setuid_child" >"$T_TMP/su.native"
	precond "native: the child became nobody" grep -q '^parent [0-9]* 0$' "$T_TMP/su.native"
	LD_PRELOAD=$P FASTPATH_STATS=$T_TMP/users/ perl -e "$setuid_child" >"$T_TMP/su.out" 2>"$T_TMP/su.err"
	expect_eq "FASTPATH_STATS=DIR/: output and status as natively" \
		"$(sed 's/[0-9][0-9]*/N/g' "$T_TMP/su.native")" "$(sed 's/[0-9][0-9]*/N/g' "$T_TMP/su.out")"
	cpid=$(sed -n 's/^child //p' "$T_TMP/su.out")
	ppid=$(sed -n 's/^parent \([0-9]*\).*/\1/p' "$T_TMP/su.out")
	expect_eq "FASTPATH_STATS=DIR/: the parent's line in DIR/0.log" 1 \
		"$(grep -c "^fastpath\[$ppid\]: " "$T_TMP/users/0.log" 2>/dev/null)"
	expect_eq "FASTPATH_STATS=DIR/: the child's line, as nobody, in DIR/65534.log" 1 \
		"$(grep -c "^fastpath\[$cpid\]: " "$T_TMP/users/65534.log" 2>/dev/null)"
	expect_eq "FASTPATH_STATS=DIR/: DIR/65534.log is nobody's" 65534 \
		"$(stat -c %u "$T_TMP/users/65534.log" 2>/dev/null)"
	expect_eq "FASTPATH_STATS=DIR/: nothing on stderr" "" "$(cat "$T_TMP/su.err")"
	# A file root made: the child cannot append, and says so in one line.
	LD_PRELOAD=$P FASTPATH_STATS=$T_TMP/users/one.log perl -e "$setuid_child" >"$T_TMP/su.out" \
		2>"$T_TMP/su.err"
	cpid=$(sed -n 's/^child //p' "$T_TMP/su.out")
	if [ "$(wc -l <"$T_TMP/su.err")" -eq 1 ] &&
		grep -q "^fastpath\[$cpid\]: FASTPATH_STATS=\"$T_TMP/users/one.log\": the summary could not be written: " \
			"$T_TMP/su.err"; then
		ok "FASTPATH_STATS=FILE: the child that cannot append says so in one line"
	else
		fail "FASTPATH_STATS=FILE: the child that cannot append says so in one line" "$(cat "$T_TMP/su.err")"
	fi
fi

# --- every line for stderr goes where stderr was at start (issue 40) -------
# A daemon that closed stderr and opened a data file on 2 gets neither the
# exit-time "could not be written" warning nor a FASTPATH_DEBUG line in it;
# with its stderr kept, both are printed (the same runs, the other branch).
mkdir "$T_TMP/gone"
# shellcheck disable=SC2016 # for the inner shell
LD_PRELOAD=$P FASTPATH_STATS=$T_TMP/gone/s.log sh -c 'rm -rf "$1"; [ -n "$2" ] && exec 2>>"$2"; echo data >&2' \
	sh "$T_TMP/gone" "$T_TMP/data" 2>"$T_TMP/err"
expect_eq "exit-time warning: not appended to the data file now on fd 2" "data" "$(cat "$T_TMP/data")"
mkdir "$T_TMP/gone"
# shellcheck disable=SC2016 # for the inner shell
LD_PRELOAD=$P FASTPATH_STATS=$T_TMP/gone/s.log sh -c 'rm -rf "$1"; :' sh "$T_TMP/gone" 2>"$T_TMP/err"
if grep -q 'the summary could not be written' "$T_TMP/err"; then ok "exit-time warning: on the stderr it started with"
else fail "exit-time warning: on the stderr it started with" "$(cat "$T_TMP/err")"; fi
if [ -n "$PYTHON" ]; then
	code='import os, sys
if len(sys.argv) > 1:
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(fd, 2)
    os.write(2, b"data\n")
os.cpu_count()'
	rm -f "$T_TMP/data"
	LD_PRELOAD=$P FASTPATH_DEBUG=1 FASTPATH_CPUS=2 "$PYTHON" -c "$code" "$T_TMP/data" 2>"$T_TMP/err"
	expect_eq "FASTPATH_DEBUG line: not in the data file a program put on fd 2" "data" "$(cat "$T_TMP/data")"
	LD_PRELOAD=$P FASTPATH_DEBUG=1 FASTPATH_CPUS=2 "$PYTHON" -c "$code" 2>"$T_TMP/err"
	if grep -q 'answered from FASTPATH_CPUS' "$T_TMP/err"; then ok "FASTPATH_DEBUG line: on the stderr it started with"
	else fail "FASTPATH_DEBUG line: on the stderr it started with" "$(cat "$T_TMP/err")"; fi
else
	skip "FASTPATH_DEBUG line and a data file on fd 2" "no python3"
fi

# --- interpose --survey=FILE, the user's own cases (issue 40) -------------
mkdir "$T_TMP/rep"
(cd "$T_TMP/rep" && "$INTERPOSE" --survey=r true 2>"$T_TMP/err")
expect_eq "--survey=FILE, relative: written in the working directory" "fastpath survey of: true" \
	"$(head -n 1 "$T_TMP/rep/r")"
printf 'old report, much longer than the new one would be%9999s\n' x >"$T_TMP/rep/r"
(cd "$T_TMP/rep" && "$INTERPOSE" --survey=r sh -c 'exit 3' 2>"$T_TMP/err")
expect_eq "--survey=FILE: the command's status; an existing file of ours replaced whole" \
	"3 suggest: nothing to mitigate" "$? $(tail -n 1 "$T_TMP/rep/r")"
printf 'kept\n' >"$T_TMP/rep/r"
(cd "$T_TMP/rep" && "$INTERPOSE" --survey=r sh -c 'cat r >seen' 2>"$T_TMP/err")
expect_eq "--survey=FILE: left as it was while the command runs" "kept" "$(cat "$T_TMP/rep/seen")"
printf 'precious\n' >"$T_TMP/rep/v"
ln -s v "$T_TMP/rep/l"
(cd "$T_TMP/rep" && "$INTERPOSE" --survey=l touch ran 2>"$T_TMP/err")
expect_eq "--survey=FILE, a symbolic link: refused (125), nothing run, its target unchanged" \
	"125 precious no" "$? $(cat "$T_TMP/rep/v") $([ -e "$T_TMP/rep/ran" ] && echo ran || echo no)"
if grep -q "^interpose: --survey=$T_TMP/rep/l: a symbolic link$" "$T_TMP/err"; then ok "--survey=FILE refused: one line says why"
else fail "--survey=FILE refused: one line says why" "$(cat "$T_TMP/err")"; fi
if [ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'fastpath-survey.*' -newer "$T_TMP/rep/v" 2>/dev/null)" ]; then
	ok "--survey=FILE refused: no record directory left behind"
else
	fail "--survey=FILE refused: no record directory left behind"
fi
ln "$T_TMP/rep/v" "$T_TMP/rep/h"
(cd "$T_TMP/rep" && "$INTERPOSE" --survey=h true 2>"$T_TMP/err")
expect_eq "--survey=FILE, a hard link: refused, the file unchanged" "125 precious" "$? $(cat "$T_TMP/rep/v")"

# --- 3. links planted by another user -------------------------------------
if [ "$(id -u)" != 0 ]; then
	skip "links planted by another user" "needs root (running as $(id -un))"
	finish
fi
if command -v setpriv >/dev/null 2>&1; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
elif command -v runuser >/dev/null 2>&1; then
	as_nobody() { runuser -u nobody -- "$@"; }
else
	skip "links planted by another user" "neither setpriv nor runuser is installed (util-linux)"
	finish
fi
chmod 0755 "$T_TMP"

# plant KIND PATH: a symbolic or a hard link to the victim at PATH, made by
# nobody.  fs.protected_hardlinks=1 forbids nobody a hard link to root's
# 0644 file; root makes it then (the link count is what is checked).
plant() {
	if [ "$1" = sym ]; then
		as_nobody ln -s "$V" "$2"
	else
		as_nobody ln "$V" "$2" 2>/dev/null || ln "$V" "$2"
	fi
}
# plantexec KIND DIR NAME PIDFILE SO VICTIM: plants at the name NAME (ptmp, ftmp:
# the temporary names fastpath used to write, .<pid>.p.tmp, .<pid>.f.tmp;
# rec: <pid>.rec) for its own pid, then execs the wrapped program there.
as=$(command -v setpriv >/dev/null 2>&1 && echo "setpriv --reuid=65534 --regid=65534 --clear-groups" ||
	echo "runuser -u nobody --")
cat >"$T_TMP/plantexec" <<EOF
pid=\$\$
case \$3 in ptmp) n=.\$pid.p.tmp ;; ftmp) n=.\$pid.f.tmp ;; *) n=\$pid.rec ;; esac
echo "\$pid \$n" >"\$4"
if [ "\$1" = sym ]; then
	$as ln -s "\$6" "\$2/\$n" || exit 99
else
	$as ln "\$6" "\$2/\$n" 2>/dev/null || ln "\$6" "\$2/\$n" || exit 99
fi
exec env LD_PRELOAD="\$5" FASTPATH_SURVEY="\$2" /bin/true
EOF
victim_ok() { [ "$(cat "$V")" = precious ] && [ "$(stat -c %h "$V")" -le 2 ]; }

# layout NAME: a fresh victim $V, root's, 0644, and a fresh directory $D: sticky (1777), group-sticky (1770,
# group nogroup: fs.protected_symlinks never covers it) or open (0777).
layout() {
	D=$T_TMP/$1.$2
	V=$T_TMP/victim.$1.$2
	printf 'precious\n' >"$V"
	chmod 0644 "$V"
	mkdir "$D"
	case $1 in
	sticky) chmod 1777 "$D" ;;
	gsticky) chgrp 65534 "$D" && chmod 1770 "$D" ;;
	open) chmod 0777 "$D" ;;
	esac
}

# matrix TAG: every name, both kinds of link, every layout.
matrix() {
	# Another user's own file at --survey=FILE, in a sticky directory.
	layout sticky "own.report.$1"
	# shellcheck disable=SC2016 # for the inner shell
	as_nobody sh -c 'echo theirs >"$1"' sh "$D/report"
	"$INTERPOSE" --survey="$D/report" true 2>"$T_TMP/err"
	expect_eq "$1: another user's file at --survey=FILE: refused, kept" "125 theirs" "$? $(cat "$D/report")"
	for lay in sticky gsticky open; do
		for kind in sym hard; do
			for name in ptmp ftmp rec; do
				layout $lay "$kind.$name.$1"
				# The pid to come is the shell's, which execs the program.
				sh "$T_TMP/plantexec" "$kind" "$D" "$name" "$T_TMP/run.pid" "$P" "$V" \
					2>"$T_TMP/err"
				rc=$?
				read -r pid n <"$T_TMP/run.pid"
				what="$1 $lay dir, $kind link at $n"
				if [ $rc -eq 0 ] && victim_ok; then ok "$what: victim unchanged"; else
					fail "$what: victim unchanged" "rc $rc, victim [$(cat "$V")], $(cat "$T_TMP/err")"; fi
				# The planted link is left alone, or (at <pid>.rec) replaced by a record.
				if [ "$name" != rec ] || [ $lay = open ]; then
					if { [ "$kind" = sym ] && [ -L "$D/$n" ]; } ||
						{ [ "$kind" = hard ] && [ "$(stat -c %h "$D/$n")" = 2 ]; }; then
						ok "$what: the planted link is left as it was"
					else
						fail "$what: the planted link is left as it was" "$(ls -la "$D")"
					fi
				fi
				case $lay in
				open)
					if [ "$(wc -l <"$T_TMP/err")" -eq 1 ] &&
						grep -q "FASTPATH_SURVEY=\"$D\": directory \"$D\" is writable by other users and not sticky" \
							"$T_TMP/err"; then
						ok "$what: one line on stderr says why"
					else
						fail "$what: one line on stderr says why" "$(cat "$T_TMP/err")"
					fi
					;;
				*)
					# Root replaces nobody's link at <pid>.rec with the record.
					if [ -f "$D/$pid.rec" ] && [ ! -L "$D/$pid.rec" ] &&
						[ "$(stat -c %u.%h "$D/$pid.rec")" = 0.1 ] &&
						grep -qx 'end 0' "$D/$pid.rec"; then
						ok "$what: the record is written"
					else
						fail "$what: the record is written" "$(ls -la "$D") $(cat "$T_TMP/err")"
					fi
					expect_eq "$what: nothing on stderr" "" "$(cat "$T_TMP/err")"
					;;
				esac
			done
			# interpose --survey=FILE: opened as the preload opens its own.
			layout $lay "$kind.report.$1"
			plant "$kind" "$D/report"
			"$INTERPOSE" --survey="$D/report" true 2>"$T_TMP/err"
			rc=$?
			what="$1 $lay dir, $kind link at --survey=FILE"
			if [ $rc -eq 125 ] && victim_ok; then ok "$what: refused, victim unchanged"; else
				fail "$what: refused, victim unchanged" "rc $rc, victim [$(cat "$V")], $(cat "$T_TMP/err")"; fi
			# The summary file, and a DIR/'s file for root (0.log).
			for sname in fp.log 0.log; do
				layout $lay "$kind.$sname.$1"
				plant "$kind" "$D/$sname"
				case $sname in fp.log) dest=$D/fp.log ;; *) dest=$D/ ;; esac
				LD_PRELOAD=$P FASTPATH_STATS=$dest /bin/true 2>"$T_TMP/err"
				rc=$?
				what="$1 $lay dir, $kind link at the summary file $sname"
				if [ $rc -eq 0 ] && victim_ok; then ok "$what: victim unchanged"; else
					fail "$what: victim unchanged" "rc $rc, victim [$(cat "$V")], $(cat "$T_TMP/err")"; fi
				case $lay in
				open) why="directory \"$D\" is writable by other users and not sticky" ;;
				# In a world-writable sticky directory the kernel refuses
				# first (O_CREAT on another's link: EACCES).
				sticky) [ "$kind" = sym ] && why="(a symbolic link|Permission denied)" ||
					why="has more than one link" ;;
				*) [ "$kind" = sym ] && why="a symbolic link" || why="has more than one link" ;;
				esac
				if [ "$(wc -l <"$T_TMP/err")" -eq 1 ] && grep -Eq "FASTPATH_STATS=\"$dest\": .*$why" "$T_TMP/err"; then
					ok "$what: one line on stderr says why ($why)"
				else
					fail "$what: one line on stderr says why ($why)" "$(cat "$T_TMP/err")"
				fi
			done
		done
	done
}

# A FIFO planted at the summary file must not hang the program (at start-up
# or at exit), with or without a reader.
layout sticky fifo
as_nobody mkfifo "$D/fp.log"
timeout 20 env LD_PRELOAD="$P" FASTPATH_STATS="$D/fp.log" /bin/true 2>"$T_TMP/err"
rc=$?
expect_eq "a FIFO at the summary file, no reader: the program runs on" 0 "$rc"
expect_eq "a FIFO at the summary file, no reader: one line on stderr" 1 "$(wc -l <"$T_TMP/err")"
(timeout 20 cat "$D/fp.log" >/dev/null &)
sleep 0.2
timeout 20 env LD_PRELOAD="$P" FASTPATH_STATS="$D/fp.log" /bin/true 2>"$T_TMP/err"
rc=$?
expect_eq "a FIFO at the summary file, a reader: the program runs on" 0 "$rc"
if grep -q "not a regular file" "$T_TMP/err"; then ok "a FIFO at the summary file, a reader: refused"; else
	fail "a FIFO at the summary file, a reader: refused" "$(cat "$T_TMP/err")"; fi

# A file the kernel makes up is no file to write to: /proc/self/mem is
# regular, the user's own and has one link, and a write there returns 0
# for ever (a cold review: interpose --survey=/proc/self/mem spun at full
# CPU and never exited).  Refused, one line, the program's status kept.
timeout 20 env LD_PRELOAD="$P" FASTPATH_STATS=/proc/self/mem head -c 16 /dev/urandom >/dev/null 2>"$T_TMP/err"
rc=$?
expect_eq "FASTPATH_STATS=/proc/self/mem: the program's status" 0 "$rc"
if [ "$(wc -l <"$T_TMP/err")" -eq 1 ] && grep -q "a file of the kernel's" "$T_TMP/err"; then
	ok "FASTPATH_STATS=/proc/self/mem: refused, one line"
else
	fail "FASTPATH_STATS=/proc/self/mem: refused, one line" "$(cat "$T_TMP/err")"
fi
timeout 20 "$TOP/interpose" --survey=/proc/self/mem -- /bin/echo hi >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 125 ] && [ ! -s "$T_TMP/out" ] && grep -q "a file of the kernel's" "$T_TMP/err"; then
	ok "interpose --survey=/proc/self/mem: refused before the command runs (125)"
else
	fail "interpose --survey=/proc/self/mem: refused before the command runs (125)" "exit $rc: $(cat "$T_TMP/err")"
fi

# The kernel's files by the file system's type, wherever it is mounted
# (cold review 67: a cgroup's file, at its own mount point under /sys,
# passed): a regular file on a cgroup, cgroup2, debugfs, tracefs,
# securityfs, configfs, bpf or pstore mount other than /proc and /sys
# (writing our line to it would act on it, were the check to fail: the
# files chosen are ones that refuse such a line).
kf=
while read -r _ _ _ _ mp _ rest; do
	case ${rest#*- } in
	cgroup\ * | cgroup2\ *) for f in "$mp/cgroup.procs" "$mp/tasks"; do [ -f "$f" ] && kf=$f && break 2; done ;;
	securityfs\ *) [ -f "$mp/lsm" ] && kf=$mp/lsm && break ;;
	esac
done </proc/self/mountinfo
if [ -n "$kf" ]; then
	timeout 20 env LD_PRELOAD="$P" FASTPATH_STATS="$kf" true 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$(wc -l <"$T_TMP/err")" -eq 1 ] && grep -q "a file of the kernel's" "$T_TMP/err"; then
		ok "FASTPATH_STATS=$kf (a kernel file system at its own mount point): refused, one line"
	else
		fail "FASTPATH_STATS=$kf (a kernel file system at its own mount point): refused, one line" "exit $rc: $(cat "$T_TMP/err")"
	fi
else
	skip "a kernel file system at its own mount point" "none mounted here (test_core checks the type list)"
fi

# fs.protected_symlinks: both settings where this machine lets us set it
# (it is global; restored on the way out), else the one it has; the
# group-sticky layout is the unprotected case either way.
PS=/proc/sys/fs/protected_symlinks
ps0=$(cat "$PS" 2>/dev/null)
if [ -n "$ps0" ] && (echo "$ps0" >"$PS") 2>/dev/null; then
	# The setting is the machine's: a second test run beside this one (two
	# clones, CI beside a developer) must not flip it under us, nor we
	# under it.  The lock is the file itself, so every run takes the same.
	exec 8<"$PS"
	command -v flock >/dev/null 2>&1 && flock 8
	ps0=$(cat "$PS")
	trap 'echo "$ps0" >"$PS"; rm -rf "$T_TMP"' EXIT
	trap 'exit 130' INT TERM
	for v in 0 1; do
		echo "$v" >"$PS"
		matrix "protected_symlinks=$v"
	done
	echo "$ps0" >"$PS"
	expect_eq "fs.protected_symlinks restored" "$ps0" "$(cat "$PS")"
else
	matrix "protected_symlinks=${ps0:-?}"
	skip "fs.protected_symlinks=$((1 - ${ps0:-0}))" "cannot set it here (read-only /proc/sys); the group-sticky layout is never protected"
fi
finish
