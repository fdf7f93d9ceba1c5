#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-fault: the world around the program failing.  Every case runs
# tests/bin/prog_fault (or a small shell) natively and under fastpath.so
# with the same fault, and the program must see exactly the native result
# (stdout byte for byte, exit status), with nothing lost or served twice
# (prog_fault checks its 16-byte blocks itself).
#   getrandom    ENOSYS, EINTR and short counts from a preload placed after
#                fastpath.so (tests/libfault_getrandom.c): what the pool's
#                refills call through dlsym(RTLD_NEXT)
#   RLIMIT_NOFILE   the table full, with and without a kept reserve
#   mount namespaces (root, unshare -m): an empty /dev, a regular file as
#                /dev/urandom, /proc hidden or unmounted, /proc hidden and
#                chroot while running
#   settings     FASTPATH_* set to malformed values: one warning line each
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_fault
LF=$TESTBIN/libfault_getrandom.so
FP=$FASTPATH_SO
for f in "$P" "$LF" "$FP"; do
	[ -e "$f" ] || { fail "missing $f (make all tests/bin/prog_fault $LF)"; finish; exit; }
done

# same NAME RUNNER ARGS...: RUNNER (a command prefix, one word) runs
# prog_fault ARGS natively ("native") and preloaded ("fastpath"); the two
# must agree on stdout and status, and both must pass prog_fault's checks.
same() {
	name=$1 runner=$2
	shift 2
	$runner native "$@" >"$T_TMP/n" 2>"$T_TMP/ne"
	rn=$?
	$runner fastpath "$@" >"$T_TMP/f" 2>"$T_TMP/fe"
	rf=$?
	if [ "$rn" -eq 77 ] || [ "$rf" -eq 77 ]; then
		skip "$name" "$(cat "$T_TMP/ne" "$T_TMP/fe" | head -n 1)"
		return
	fi
	if [ "$rn" -eq 0 ] && [ "$rf" -eq 0 ] && [ -s "$T_TMP/n" ] && cmp -s "$T_TMP/n" "$T_TMP/f"; then
		ok "$name: $(grep -v passed, "$T_TMP/n" | tail -n 1)"
	else
		fail "$name" "status $rn/$rf; $(diff "$T_TMP/n" "$T_TMP/f" | head -n 12 | tr '\n' '|') $(head -c 600 "$T_TMP/ne" "$T_TMP/fe")"
	fi
}

# ---- getrandom failing, under the pool -----------------------------------------
# with_fault native|fastpath ARGS: prog_fault with libfault after fastpath.so.
# Each run logs to a file of its own (flog.native, flog.fastpath), one line
# per process; the fastpath run's stats and fault counts are those of the
# process started (stats_run: its record in st, its pid in st.pid).
with_fault() {
	if [ "$1" = native ]; then
		shift
		env LD_PRELOAD="$LF" FAULT_GETRANDOM_LOG="$T_TMP/flog.native" "$P" "$@"
	else
		shift
		stats_run "$T_TMP/st" env LD_PRELOAD="$FP:$LF" \
			FAULT_GETRANDOM_LOG="$T_TMP/flog.fastpath" "$P" "$@"
	fi
}
# flog: "calls N faults M" of the fastpath run's own process.
flog() { sed -n "s/^pid $(cat "$T_TMP/st.pid" 2>/dev/null) //p" "$T_TMP/flog.fastpath" 2>/dev/null; }
# shellcheck disable=SC2119 # no settings: the run's own
SRC=$(ur_source_now)
for fault in ENOSYS:all EINTR:all EINTR:big SHORT:big EINTR:first:5 ENOSYS:first:1; do
	export FAULT_GETRANDOM="${fault%%:*}" FAULT_GETRANDOM_WHEN="${fault#*:}"
	rm -f "$T_TMP/flog.native" "$T_TMP/flog.fastpath"
	same "getrandom $fault: 3000 device reads" with_fault read 3000
	# The pool met the fault.
	# From the vDSO or the kernel, a read never calls getrandom (as
	# natively): only the reservoir's refills meet the fault.
	faults=$(flog | sed -n 's/^calls [0-9]* faults \([0-9]*\)$/\1/p')
	if [ "$SRC" != reservoir ]; then expect_eq "getrandom $fault, source $SRC: reads never call getrandom" 0 "${faults:-0}"
	elif [ "${faults:-0}" -gt 0 ]; then ok "getrandom $fault: the pool met $faults faults"
	else fail "getrandom $fault: the pool never met the fault" "$(cat "$T_TMP/flog.fastpath")"; fi
	reads=$(stats_get "$T_TMP/st" ur_reads)
	if [ "${reads:-0}" -ge 3000 ]; then ok "getrandom $fault: $reads reads went through the shim"
	else fail "getrandom $fault: the shim did not see the reads" "$(cat "$T_TMP/st")"; fi
	case $SRC:$fault in
	reservoir:ENOSYS:all)
		# ENOSYS is remembered: one getrandom, then the device refills.
		expect_eq "getrandom ENOSYS: asked once, then never again" "calls 1 faults 1" "$(flog)"
		refills=$(stats_get "$T_TMP/st" ur_refills)
		if [ "${refills:-0}" -ge 1 ]; then ok "getrandom ENOSYS: the pool refilled from the device ($refills)"
		else fail "getrandom ENOSYS: no refill from the device" "$(cat "$T_TMP/st")"; fi ;;
	esac
	# The program's own getrandom, pooled: the same answers call for call.
	# (first:N is left out: the pool's refills use up injected faults that
	# natively would hit the program's calls, so the sequences differ.)
	case $fault in
	*:first:*) ;;
	*) FASTPATH_GETRANDOM=1 same "getrandom $fault: 1000 getrandom + getentropy, pooled" \
		with_fault getrandom 1000 ;;
	esac
done
unset FAULT_GETRANDOM FAULT_GETRANDOM_WHEN

# ---- the descriptor table full -------------------------------------------------
plain() {
	if [ "$1" = native ]; then shift; "$P" "$@"; else shift; env LD_PRELOAD="$FP" "$P" "$@"; fi
}
# In both urandom modes: the hidden descriptor (exact) and the reserve each
# give their slot back.
for M in exact reserve; do
	T_TAG=$M
	export FASTPATH_URANDOM=$M
	same "RLIMIT_NOFILE: EMFILE at the limit, as natively" plain emfile
	same "RLIMIT_NOFILE: a kept descriptor gives its slot back" plain emfile-reserve
done
T_TAG=
unset FASTPATH_URANDOM
same "readlink: /proc as usual" plain readlink

# ---- mount namespaces: root and unshare -m --------------------------------------
NS=
why=$(ns_refused 'mount -t tmpfs none /mnt')
if [ -n "$why" ]; then
	skip "mount namespaces" "$why"
else
	NS=yes
fi
if [ -n "$NS" ]; then
	# in_ns SETUP native|fastpath ARGS: prog_fault in a private mount
	# namespace after SETUP (a shell command line).
	in_ns() {
		setup=$1 pre=
		[ "$2" = fastpath ] && pre=$FP
		shift 2
		# shellcheck disable=SC2016 # $0 and $@ are the inner shell's
		unshare -m sh -c "$setup"' && exec env LD_PRELOAD="$0" "$@"' "$pre" "$P" "$@"
	}
	emptydev() { in_ns 'mount -t tmpfs none /dev' "$@"; }
	filedev() { in_ns 'mount -t tmpfs none /dev && echo not-a-device-at-all >/dev/urandom' "$@"; }
	for M in exact reserve; do
		T_TAG=$M
		export FASTPATH_URANDOM=$M
		same "empty /dev: /dev/urandom is ENOENT, as natively" emptydev open /dev/urandom
		same "a regular file as /dev/urandom: read as a file, never pooled" filedev open /dev/urandom
	done
	T_TAG=
	unset FASTPATH_URANDOM
	hideproc() { in_ns 'mount -t tmpfs none /proc' "$@"; }
	same "/proc hidden (tmpfs): readlink of fd links as natively" hideproc readlink
	noproc() { in_ns 'umount -l /proc' "$@"; }
	same "/proc unmounted: readlink of fd links as natively" noproc readlink
	same "/proc hidden while running: the shim asks again" plain readlink-hide
	same "chroot while running: the shim asks again" plain readlink-chroot
fi

# ---- malformed settings: one warning line, the program's own output ------------
# bad VAR VALUE: exactly one line on stderr, naming VAR; stdout and status
# are the program's.  A stats file that opens but cannot be written (a
# /proc file as root) is reported when the write fails, at exit.
bad() {
	env "$1=$2" LD_PRELOAD="$FP" sh -c 'echo out; exit 5' >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	show=$(printf '%s' "$2" | head -c 40 | LC_ALL=C tr -c '[:print:]' '?' | tr '\134' '?')
	if [ $rc -eq 5 ] && [ "$(cat "$T_TMP/out")" = out ] &&
		[ "$(wc -l <"$T_TMP/err")" -eq 1 ] &&
		grep -Eq "^fastpath\[[0-9]+\]: (ignoring )?$1=" "$T_TMP/err"; then
		ok "$1=[$show]: one warning line"
	else
		fail "$1=[$show]" "status $rc, stdout [$(cat "$T_TMP/out")], stderr [$(head -c 300 "$T_TMP/err")]"
	fi
}
long=$(printf '%05000d' 9)
nl='
'
ff=$(printf '\377\376')
for v in x -1 0 +4 " 4" "4 " 4,5 "4 5" 65537 99999999999999999999999 4294967297 \
	18446744073709551617 1e3 0x10 00 08 "$long" "$ff" "4$nl" "$nl" "٣" "4${ff}"; do
	bad FASTPATH_CPUS "$v"
done
for v in bogus "readlink urandom" "readlink;urandom" "READLINK,,nope" "all,bogus" \
	"readlink	cpus" "$long" "$ff" ",x," "readlink$nl" "readlink,$ff"; do
	bad FASTPATH_DISABLE "$v"
done
for var in FASTPATH_DEBUG FASTPATH_GETRANDOM; do
	for v in 2 -1 "yes please" tru "on " " on" "$long" "$ff" "1$nl" "oui"; do
		bad "$var" "$v"
	done
done
mkdir "$T_TMP/adir" "$T_TMP/ww"
chmod 0777 "$T_TMP/ww"
# A directory (no slash), a DIR/ that is not there, directories another
# user could write (outfile.c), a device, a /proc file.
for v in "$T_TMP/adir" "$T_TMP/nodir/" "$T_TMP/ww/" "$T_TMP/ww/x" /nonexistent/dir/file \
	"/$long" /proc/version /dev/full "$T_TMP/adir/$ff/x"; do
	bad FASTPATH_STATS "$v"
done
finish
