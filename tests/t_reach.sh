#!/bin/sh
# SPDX-License-Identifier: MIT
# reach (issue 19): interpose says in one line when the preload cannot act
# (static, other ELF class, secure-execution, Go) and still execs the
# program as before; the CPU cap reaches Go (GOMAXPROCS) and everything
# (--pin); --cpus quota follows a cgroup v2 fixture and a real v1 quota.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

unset GOMAXPROCS FASTPATH_TASKSET
aff=$(grep -c . <<EOF
$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
	awk -F- 'NF == 1 { print $1 } NF == 2 { for (i = $1; i <= $2; i++) print i }')
EOF
)
precond "the affinity count is read ($aff)" expr "$aff" : '[1-9][0-9]*$'

# one_line NAME PATTERN ERRFILE: exactly one line on stderr, matching.
one_line() {
	n=$(grep -c . "$3")
	if [ "$n" = 1 ] && grep -Eq -- "$2" "$3"; then ok "$1"; else fail "$1" "$(cat "$3")"; fi
}

# --- static ---------------------------------------------------------------
cat >"$T_TMP/st.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(void) { printf("%ld\n", (long)getpid()); return 7; }
EOF
if gcc -static -o "$T_TMP/st" "$T_TMP/st.c" 2>/dev/null; then
	out=$(sh -c 'echo $$; exec "$1" "$2"' sh "$INTERPOSE" "$T_TMP/st" 2>"$T_TMP/err")
	rc=$?
	expect_eq "static: its own exit status" 7 "$rc"
	expect_eq "static: the same pid (exec'd)" 1 "$(printf '%s\n' "$out" | sort -u | grep -c .)"
	one_line "static: one line on stderr" "^interpose: $T_TMP/st: statically linked: LD_PRELOAD cannot reach it; running it unmitigated\$" "$T_TMP/err"
	"$INTERPOSE" --quiet "$T_TMP/st" >/dev/null 2>"$T_TMP/err"
	expect_eq "static: --quiet says nothing" "" "$(cat "$T_TMP/err")"
	# Found along PATH, as exec finds it.
	PATH=$T_TMP:$PATH "$INTERPOSE" st >/dev/null 2>"$T_TMP/err"
	one_line "static: found along PATH" "^interpose: $T_TMP/st: statically linked" "$T_TMP/err"
	# A #! script is judged by its interpreter.
	printf '#!%s\n' "$T_TMP/st" >"$T_TMP/script"
	chmod +x "$T_TMP/script"
	"$INTERPOSE" "$T_TMP/script" >/dev/null 2>"$T_TMP/err"
	one_line "static: as a script's interpreter" "^interpose: $T_TMP/script: its interpreter $T_TMP/st: statically linked" "$T_TMP/err"
	"$INTERPOSE" --survey=/dev/null "$T_TMP/st" >/dev/null 2>"$T_TMP/err"
	one_line "static: --survey says it too" "^interpose: $T_TMP/st: statically linked" "$T_TMP/err"
else
	skip "static" "gcc -static cannot link here (no libc.a)"
fi
if [ -x /sbin/ldconfig ] && [ "$(od -An -tu1 -j16 -N1 /sbin/ldconfig | tr -d ' ')" = 3 ]; then
	"$INTERPOSE" --stats /sbin/ldconfig -p >/dev/null 2>"$T_TMP/err"
	one_line "static-pie /sbin/ldconfig: one line" "^interpose: /sbin/ldconfig: statically linked" "$T_TMP/err"
fi

# --- a dynamic program: nothing said ---------------------------------------
"$INTERPOSE" true 2>"$T_TMP/err"
expect_eq "dynamic: nothing on stderr" "" "$(cat "$T_TMP/err")"
printf '#!/bin/sh\nexit 3\n' >"$T_TMP/dyn.sh"
chmod +x "$T_TMP/dyn.sh"
"$INTERPOSE" "$T_TMP/dyn.sh" 2>"$T_TMP/err"
expect_eq "dynamic script: its status" 3 "$?"
expect_eq "dynamic script: nothing on stderr" "" "$(cat "$T_TMP/err")"

# --- the cost of the check (issue 39) ----------------------------------------
# The plain path starts one process before the exec, fastpath-run --reach
# (no od, awk, grep, getcap, uname or tr), which also reads the
# environment interpose was given; --quiet one, fastpath-run --env-of,
# for that alone.  Then the command is exec'd by fastpath-run --exec, with
# that environment (the shell's drops and changes entries): strace -f
# counts every execve that succeeded.
if command -v strace >/dev/null 2>&1; then
	execs() {
		strace -f -qq -e trace=execve -e signal=none -o "$T_TMP/ex" "$@" >/dev/null 2>&1
		grep -v -e ENOENT -e EACCES "$T_TMP/ex" | grep -c 'execve('
	}
	# interpose itself, the probe, the exec, the command
	expect_eq "plain path: one process before the exec (the probe)" 4 "$(execs "$INTERPOSE" -- true)"
	expect_eq "--quiet: one process before the exec (the environment's)" 4 "$(execs "$INTERPOSE" --quiet -- true)"
	expect_eq "a script: one probe for it, one for its interpreter" 5 "$(execs "$INTERPOSE" "$T_TMP/dyn.sh")"
else
	skip "the plain path's processes" "no strace"
fi
# Without fastpath-run beside the object (a tree copied by hand): the
# shell's own probe (od, awk, grep) says the same.
mkdir -p "$T_TMP/norun"
cp "$INTERPOSE" "$TOP/interpose.awk" "$T_TMP/norun/"
if [ ! -f "$FASTPATH_SO" ]; then
	# make check-sanitize's ASan run: LD_PRELOAD=libasan.so:fastpath.so.
	skip "no fastpath-run" "FASTPATH_SO is a list ($FASTPATH_SO), not an object to copy"
elif cp "$FASTPATH_SO" "$T_TMP/norun/" && [ -x "$T_TMP/st" ]; then
	"$T_TMP/norun/interpose" "$T_TMP/st" >/dev/null 2>"$T_TMP/err"
	one_line "no fastpath-run: static, one line" "^interpose: $T_TMP/st: statically linked: LD_PRELOAD cannot reach it; running it unmitigated\$" "$T_TMP/err"
	"$T_TMP/norun/interpose" "$T_TMP/script" >/dev/null 2>"$T_TMP/err"
	one_line "no fastpath-run: a script's static interpreter" "^interpose: $T_TMP/script: its interpreter $T_TMP/st: statically linked" "$T_TMP/err"
else
	skip "no fastpath-run: static" "no static program (gcc -static)"
fi
if [ -f "$T_TMP/norun/fastpath.so" ]; then
	"$T_TMP/norun/interpose" true 2>"$T_TMP/err"
	expect_eq "no fastpath-run: dynamic, nothing on stderr" "" "$(cat "$T_TMP/err")"
fi

# --- both ELF classes (item 2) -----------------------------------------------
# Where make built the i386 object (libdirs), interpose preloads
# DIR/$LIB/fastpath.so and each process loads the object of its own class:
# an i386 program gets its summary line, with no loader error, and so do a
# 64-bit child of a 32-bit parent and the reverse (prog_class says its
# class and the cap's answer, which only a loaded object gives).  Where
# this kernel cannot run i386 programs, or FASTPATH_TEST_NO_I386 is set
# (the branch forced here too), build-only: the objects, the entry, what
# $LIB is, and the native side.
no_loader_error() {
	if grep -q -e 'ld\.so' -e 'ELFCLASS' -e 'cannot be preloaded' "$2"; then fail "$1" "$(cat "$2")"
	else ok "$1"; fi
}
# stats_lines ERRFILE: how many summary lines, none other allowed.
stats_lines() {
	if grep -Evq "$FP_STATS_RE" "$2"; then fail "$1" "$(cat "$2")"
	else expect_eq "$1" "$3" "$(grep -Ec "$FP_STATS_RE" "$2")"; fi
}
# Built here, both: a probe, not a program under test (the sanitizer runs
# point TESTBIN at their own builds).
T32=$T_TMP/prog_class32
T64=$T_TMP/prog_class64
if [ -z "$LIB_M32" ]; then
	skip "i386: both classes" "make built no i386 object here (no gcc -m32, or M32=no): no libdirs"
elif ! gcc -m32 -std=gnu11 -o "$T32" tests/prog_class.c 2>"$T_TMP/err"; then
	fail "i386: prog_class builds with gcc -m32" "$(cat "$T_TMP/err")"
elif ! gcc -std=gnu11 -o "$T64" tests/prog_class.c 2>"$T_TMP/err"; then
	fail "i386: prog_class builds" "$(cat "$T_TMP/err")"
else
	elf_class() { od -An -tu1 -j4 -N1 "$1" | tr -d ' '; }
	for branch in run build-only; do
		T_TAG="i386, $branch"
		runs=yes
		if [ $branch = build-only ]; then
			runs=
		elif [ -n "${FASTPATH_TEST_NO_I386:-}" ]; then
			skip "the run branch" "FASTPATH_TEST_NO_I386 is set"
			continue
		elif ! "$T32" >/dev/null 2>&1; then
			skip "the run branch" "this kernel cannot execute i386 programs (no IA32 emulation)"
			continue
		fi
		# Both branches: the objects and the entry.
		expect_eq "the i386 object is ELFCLASS32" 1 "$(elf_class "$TOP/$LIB_M32/fastpath.so")"
		expect_eq "the native object is ELFCLASS64" 2 "$(elf_class "$TOP/$LIB_NATIVE/fastpath.so")"
		expect_eq "--print-path: the entry with the loader's \$LIB" "$TOP/\$LIB/fastpath.so" \
			"$("$INTERPOSE" --print-path)"
		# What $LIB becomes, derived without running an i386 program (the
		# way taken where none can run) agrees with what make found.
		expect_eq "\$LIB for i386 derived without running one: $LIB_M32" "$LIB_M32" \
			"$(FASTPATH_TEST_NO_I386=1 sh tools/dst_lib.sh gcc -m32)"
		# The native side: mitigated through the entry, no loader error.
		expect_eq "a 64-bit program loads its object through \$LIB" "64 3" \
			"$("$INTERPOSE" --stats --cpus 3 "$T64" 2>"$T_TMP/err")"
		no_loader_error "a 64-bit program: no loader error" "$T_TMP/err"
		stats_lines "a 64-bit program: its summary line" "$T_TMP/err" 1
		[ -n "$runs" ] || continue
		# Nothing to say of an i386 program now: an object of its class.
		"$INTERPOSE" "$T32" >/dev/null 2>"$T_TMP/err"
		expect_eq "an i386 program: nothing said" "" "$(cat "$T_TMP/err")"
		expect_eq "an i386 program: mitigated (--cpus 3)" "32 3" \
			"$("$INTERPOSE" --stats --cpus 3 "$T32" 2>"$T_TMP/err")"
		no_loader_error "an i386 program: no loader error" "$T_TMP/err"
		stats_lines "an i386 program: its summary line" "$T_TMP/err" 1
		expect_eq "a 64-bit child of an i386 parent: each its own object" "32 3
64 3" "$("$INTERPOSE" --stats --cpus 3 "$T32" "$T64" 2>"$T_TMP/err")"
		no_loader_error "a 64-bit child of an i386 parent: no loader error" "$T_TMP/err"
		stats_lines "a 64-bit child of an i386 parent: two summary lines" "$T_TMP/err" 2
		expect_eq "an i386 child of a 64-bit parent: each its own object" "64 3
32 3" "$("$INTERPOSE" --stats --cpus 3 "$T64" "$T32" 2>"$T_TMP/err")"
		no_loader_error "an i386 child of a 64-bit parent: no loader error" "$T_TMP/err"
		stats_lines "an i386 child of a 64-bit parent: two summary lines" "$T_TMP/err" 2
		# Through a shell (a script that starts 32-bit tools), and surveyed.
		# shellcheck disable=SC2016 # the inner sh expands them
		expect_eq "sh starting i386 tools: each mitigated" "32 3
32 3" "$("$INTERPOSE" --cpus 3 sh -c '"$1"; "$1"' sh "$T32" 2>"$T_TMP/err")"
		no_loader_error "sh starting i386 tools: no loader error" "$T_TMP/err"
		"$INTERPOSE" --survey "$T32" "$T64" >/dev/null 2>"$T_TMP/err"
		no_loader_error "--survey of both classes: no loader error" "$T_TMP/err"
		if grep -q 'processes: 2 recorded' "$T_TMP/err"; then ok "--survey: a record from each class"
		else fail "--survey: a record from each class" "$(cat "$T_TMP/err")"; fi
	done
	T_TAG=
	# An install without the map (libdirs): the one object, and the one
	# line that says an i386 program is out of its reach.
	if make -s install DESTDIR="$T_TMP/inst" >"$T_TMP/inst.log" 2>&1; then
		rm "$T_TMP/inst/usr/local/lib/fastpath/libdirs"
		ip=$T_TMP/inst/usr/local/bin/interpose
		expect_eq "one class (no libdirs): --print-path the object" \
			"$T_TMP/inst/usr/local/lib/fastpath/fastpath.so" "$("$ip" --print-path)"
		if "$T32" >/dev/null 2>&1; then
			"$ip" "$T32" >/dev/null 2>"$T_TMP/err"
			grep -v 'ELFCLASS64' "$T_TMP/err" >"$T_TMP/err2"
			one_line "one class: an i386 program is told in one line of ours" \
				"^interpose: $T32: a 32-bit program: .* cannot be preloaded into it; running it unmitigated" "$T_TMP/err2"
		fi
	else
		fail "make install for the one-class case" "$(cat "$T_TMP/inst.log")"
	fi
fi

# --- secure-execution ------------------------------------------------------
if [ "$(id -u)" = 0 ] && cp /bin/true "$T_TMP/suid" && chown 65534 "$T_TMP/suid" && chmod 4755 "$T_TMP/suid"; then
	"$INTERPOSE" "$T_TMP/suid" 2>"$T_TMP/err"
	one_line "setuid: one line" "^interpose: $T_TMP/suid: setuid to uid 65534: the loader ignores LD_PRELOAD" "$T_TMP/err"
	chmod 0755 "$T_TMP/suid" && chgrp 65534 "$T_TMP/suid" && chmod 2755 "$T_TMP/suid"
	"$INTERPOSE" "$T_TMP/suid" 2>"$T_TMP/err"
	one_line "setgid: one line" "^interpose: $T_TMP/suid: setgid to gid 65534" "$T_TMP/err"
	chmod 0755 "$T_TMP/suid"
	# Issue 41's three cases, decided as the kernel decides: run as nobody
	# (setpriv), from a directory nobody may enter.
	W=$(mktemp -d /tmp/fastpath-reach.XXXXXX) && chmod 755 "$W" && cp /bin/true "$W/prog"
	# its stderr alone
	as_nobody() { { setpriv --reuid=65534 --regid=65534 --groups="$1" -- env PATH=/usr/bin:/bin "$INTERPOSE" "$W/prog" >/dev/null; } 2>&1; }
	if ! command -v setpriv >/dev/null 2>&1; then
		skip "setgid of a supplementary group" "no setpriv (util-linux)"
	else
		chgrp 6 "$W/prog" && chmod 2755 "$W/prog"
		out=$(as_nobody 6)
		if printf '%s\n' "$out" | grep -q "^interpose: $W/prog: setgid to gid 6: the loader ignores LD_PRELOAD"; then
			ok "setgid to one of the user's supplementary groups: still secure execution, said"
		else fail "setgid to one of the user's supplementary groups: said" "$out"; fi
		chmod 0755 "$W/prog" && chgrp 0 "$W/prog"
	fi
	if command -v setcap >/dev/null 2>&1 && setcap cap_net_raw+ep "$W/prog" 2>/dev/null; then
		# As root: file capabilities raise nothing, the program is reached.
		"$INTERPOSE" --stats "$W/prog" >/dev/null 2>"$T_TMP/err"
		if grep -Eq "$FP_STATS_RE" "$T_TMP/err" && ! grep -q 'file capabilities' "$T_TMP/err"; then
			ok "file capabilities, run as root: reached (a summary line), nothing said"
		else fail "file capabilities, run as root: reached, nothing said" "$(cat "$T_TMP/err")"; fi
		# As a user, with no getcap on PATH: secure execution, said.
		if command -v setpriv >/dev/null 2>&1; then
			mkdir -p "$W/nobin" && chmod 755 "$W/nobin"
			out=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- env PATH="$W/nobin" "$INTERPOSE" "$W/prog" 2>&1 >/dev/null)
			if printf '%s\n' "$out" | grep -q "^interpose: $W/prog: file capabilities"; then
				ok "file capabilities, run as a user without getcap on PATH: said"
			else fail "file capabilities, run as a user without getcap on PATH: said" "$out"; fi
		else
			skip "file capabilities as a user" "no setpriv (util-linux)"
		fi
	else
		skip "file capabilities" "no setcap, or this file system has no xattrs"
	fi
	rm -rf "$W"
else
	skip "setuid" "needs root to make a setuid file of another user"
fi

# --- Go ---------------------------------------------------------------------
if command -v go >/dev/null 2>&1; then
	mkdir -p "$TESTBIN" "$T_TMP/go"
	cat >"$T_TMP/go/main.go" <<'EOF'
package main

import (
	"fmt"
	"runtime"
)

func main() { fmt.Println(runtime.NumCPU(), runtime.GOMAXPROCS(0)) }
EOF
	if [ ! -x "$TESTBIN/gocpu" ]; then
		(cd "$T_TMP/go" && export HOME="$T_TMP" GOPATH="$T_TMP/gopath" GOCACHE="$T_TMP/gocache" GO111MODULE=off &&
			go build -o "$TESTBIN/gocpu" main.go) >"$T_TMP/goerr" 2>&1
	fi
	if [ -x "$TESTBIN/gocpu" ]; then
		expect_eq "go: natively" "$aff $aff" "$("$TESTBIN/gocpu")"
		expect_eq "go: --cpus 1 sets GOMAXPROCS" "$aff 1" "$("$INTERPOSE" --cpus 1 "$TESTBIN/gocpu" 2>"$T_TMP/err")"
		one_line "go: one line" "^interpose: $TESTBIN/gocpu: a (statically linked )?Go program" "$T_TMP/err"
		expect_eq "go: --cpus 1 --pin" "1 1" "$("$INTERPOSE" --quiet --cpus 1 --pin "$TESTBIN/gocpu")"
		expect_eq "go: --cpus 1 --pin, no taskset (fastpath-run --pin)" "1 1" \
			"$(FASTPATH_TASKSET=none "$INTERPOSE" --quiet --cpus 1 --pin "$TESTBIN/gocpu")"
		expect_eq "go: the operator's GOMAXPROCS wins" "$aff $aff" \
			"$(GOMAXPROCS=$aff "$INTERPOSE" --quiet --cpus 1 "$TESTBIN/gocpu")"
		# esbuild's build has no .go.buildinfo nor its magic: the same
		# program without them is still known by what Go always writes.
		if objcopy --remove-section .go.buildinfo "$TESTBIN/gocpu" "$T_TMP/gonobi" 2>/dev/null &&
			! LC_ALL=C grep -a -q -F -e '.go.buildinfo' -e ' Go buildinf:' "$T_TMP/gonobi"; then
			"$INTERPOSE" --cpus 1 "$T_TMP/gonobi" >/dev/null 2>"$T_TMP/err"
			one_line "go without .go.buildinfo (as esbuild): one line, a Go program" \
				"^interpose: $T_TMP/gonobi: a (statically linked )?Go program" "$T_TMP/err"
		else
			skip "go without .go.buildinfo" "objcopy could not remove the section, or its magic stays"
		fi
	else
		fail "go: gocpu builds" "$(cat "$T_TMP/goerr")"
	fi
else
	skip "go" "no Go compiler (make deps installs golang-go)"
fi

# --- --pin ------------------------------------------------------------------
for ts in taskset none; do
	got=$(FASTPATH_TASKSET=$ts "$INTERPOSE" --cpus 1 --pin sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status')
	expect_eq "--pin ($ts): one allowed CPU" "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | sed 's/[-,].*//')" "$got"
done
# The caller's signal mask reaches the command through --pin too (dash
# clears its own after a foreground command).
if [ -x "$TESTBIN/prog_sigstart" ]; then
	expect_eq "--pin: the signal mask as native" \
		"$("$TESTBIN/prog_sigstart" 2,10 3 grep SigBlk /proc/self/status)" \
		"$("$TESTBIN/prog_sigstart" 2,10 3 "$INTERPOSE" --cpus 1 --pin grep SigBlk /proc/self/status)"
else
	skip "--pin: the signal mask" "no $TESTBIN/prog_sigstart (make check-core builds it)"
fi
"$INTERPOSE" --cpus $((aff + 1)) --pin true 2>"$T_TMP/err"
expect_eq "--pin: more CPUs than allowed is a usage error" 125 "$?"
"$INTERPOSE" --pin true 2>"$T_TMP/err"
expect_eq "--pin without --cpus is a usage error" 125 "$?"

# --- --cpus quota -------------------------------------------------------------
probe=$TOP/tests/reach_probe.sh
kinds=nproc
[ -n "$PYTHON" ] && kinds="$kinds python"
command -v node >/dev/null 2>&1 && kinds="$kinds node cluster"

# fixture ROOT CPU.MAX-OF-a CPU.MAX-OF-a/b: a cgroup v2 tree, the process in
# /a/b.
fixture() {
	rm -rf "$T_TMP/cg"
	mkdir -p "$T_TMP/cg/proc/self" "$T_TMP/cg/sys/fs/cgroup/a/b"
	echo '0::/a/b' >"$T_TMP/cg/proc/self/cgroup"
	echo '30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw' >"$T_TMP/cg/proc/self/mountinfo"
	echo "$1" >"$T_TMP/cg/sys/fs/cgroup/a/cpu.max"
	echo "$2" >"$T_TMP/cg/sys/fs/cgroup/a/b/cpu.max"
}
fixture '50000 100000' 'max 100000'
for k in $kinds; do
	expect_eq "quota v2 fixture (nearest limit up, rounded up): interpose, $k" 1 \
		"$(FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg "$INTERPOSE" --cpus quota sh "$probe" "$k")"
	expect_eq "quota v2 fixture: FASTPATH_CPUS=quota alone, $k" 1 \
		"$(FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=quota sh "$probe" "$k")"
done
FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg "$INTERPOSE" --stats --cpus quota true 2>"$T_TMP/err"
one_line "quota: the stats line says where N came from" 'cpus 1 reported .*\(from cgroup v2 quota 50000/100000 in /sys/fs/cgroup/a\)' "$T_TMP/err"
fixture '1000000 100000' 'max 100000'
expect_eq "quota v2 fixture above the affinity count: capped" "$aff" \
	"$(FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg LD_PRELOAD=$FASTPATH_SO FASTPATH_CPUS=quota nproc)"
fixture 'max 100000' 'max 100000'
for k in $kinds; do
	expect_eq "no quota (fixture): $k is the affinity count" "$aff" \
		"$(FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg "$INTERPOSE" --cpus quota sh "$probe" "$k")"
done
FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg "$INTERPOSE" --stats --cpus quota true 2>"$T_TMP/err"
one_line "no quota: the stats line says so" "cpus $aff reported .*\\(from the affinity count: no cgroup quota\\)" "$T_TMP/err"
# shellcheck disable=SC2016 # expanded by the inner sh
expect_eq "--cpus quota: GOMAXPROCS and OMP_NUM_THREADS follow" "$aff $aff" \
	"$(FASTPATH_TEST_CGROUP_ROOT=$T_TMP/cg "$INTERPOSE" --cpus quota sh -c 'echo $GOMAXPROCS $OMP_NUM_THREADS')"

# A real cgroup v1 child with a quota of one CPU, where this machine has v1
# and we may make one.
v1=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if [ -n "$v1" ] && [ "$(id -u)" = 0 ] && mkdir "$v1/fastpath_t_reach_$$" 2>/dev/null; then
	cg=$v1/fastpath_t_reach_$$
	if echo 100000 >"$cg/cpu.cfs_period_us" && echo 100000 >"$cg/cpu.cfs_quota_us"; then
		for k in $kinds; do
			got=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
				sh "$probe" "$k" 2>&1)
			expect_eq "quota v1 (a child cgroup of 1 CPU): $k natively" "$aff" "$got"
			got=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
				"$INTERPOSE" --cpus quota sh "$probe" "$k" 2>&1)
			expect_eq "quota v1 (a child cgroup of 1 CPU): $k under --cpus quota" 1 "$got"
		done
	else
		skip "quota v1" "cannot write the quota in $cg"
	fi
	rmdir "$cg" 2>/dev/null
else
	skip "quota v1" "needs root and a cgroup v1 cpu hierarchy to make a child cgroup in"
fi

finish
