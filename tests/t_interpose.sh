#!/bin/sh
# SPDX-License-Identifier: MIT
# interpose(1): options, LD_PRELOAD handling, argument and exit-status
# pass-through, env(1)-style errors, and an installed copy.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

I=$INTERPOSE

# shellcheck disable=SC2016 # the inner shells expand these
{
show_env='printf "%s|%s|%s|%s|%s|%s\n" "${LD_PRELOAD-}" "${FASTPATH_DISABLE-}" "${FASTPATH_CPUS-}" "${FASTPATH_STATS-}" "${FASTPATH_DEBUG-}" "${FASTPATH_GETRANDOM-}"'
show_pid='echo $$'
}

# --- informational options ---------------------------------------------
"$I" --help >"$T_TMP/out" 2>&1
expect_eq "--help: status 0" 0 $?
if grep -q '^Usage: interpose \[OPTION\]... \[--\] COMMAND \[ARG\]...' "$T_TMP/out"; then
	ok "--help: usage line"; else fail "--help: usage line" "$(cat "$T_TMP/out")"; fi
for opt in --no-readlink --no-urandom --cpus --getrandom --stats --debug --print-path --version; do
	if grep -q -- "$opt" "$T_TMP/out"; then ok "--help mentions $opt"; else fail "--help mentions $opt"; fi
done
# --cpus reaches the CPU files too (cpus_files_shim.c): the help says so.
for src in sysconf get_nprocs sched_getaffinity /proc/cpuinfo /proc/stat /sys/devices/system/cpu/ OMP_NUM_THREADS; do
	if grep -q -- "$src" "$T_TMP/out"; then ok "--help: --cpus names $src"; else fail "--help: --cpus names $src"; fi
done
version=$(sed -n 's/^VERSION *= *//p' Makefile)
expect_eq "--version matches the Makefile" "interpose (fastpath) $version" "$("$I" --version)"
# Installed, the version is still the Makefile's: the script, the man
# pages and the object all take it from there.
if make -s install DESTDIR="$T_TMP/inst" PREFIX=/usr >"$T_TMP/inst.log" 2>&1; then
	expect_eq "installed --version matches the Makefile" "interpose (fastpath) $version" \
		"$("$T_TMP/inst/usr/bin/interpose" --version)"
	expect_eq "installed man pages carry the version" 2 \
		"$(cat "$T_TMP"/inst/usr/share/man/man*/* | grep -c "^\.TH .*\"fastpath $version\"")"
	if grep -q "fastpath $version" "$T_TMP/inst/usr/lib/fastpath/fastpath.so"; then
		ok "fastpath.so carries the version"
	else
		fail "fastpath.so carries the version"
	fi
else
	fail "make install" "$(cat "$T_TMP/inst.log")"
fi
expect_eq "--print-path: the tree's object" "$FASTPATH_ENTRY" "$("$I" --print-path)"
expect_eq "--print-path from another directory" "$FASTPATH_ENTRY" "$(cd / && "$I" --print-path)"

# --- environment it builds -------------------------------------------------
expect_eq "defaults" "$FASTPATH_ENTRY|||||" "$("$I" sh -c "$show_env")"
expect_eq "keeps an existing LD_PRELOAD, ours first" "$FASTPATH_ENTRY:$TESTBIN/libearly.so|||||" \
	"$(LD_PRELOAD=$TESTBIN/libearly.so "$I" sh -c "$show_env")"
expect_eq "never adds itself twice" "$FASTPATH_ENTRY|||||" \
	"$("$I" "$I" sh -c "$show_env")"
expect_eq "finds itself in a space-separated list" "/lib/a.so $FASTPATH_SO|||||" \
	"$(LD_PRELOAD="/lib/a.so $FASTPATH_SO" "$I" sh -c "$show_env" 2>/dev/null)"
expect_eq "a longer name is not ours" "$FASTPATH_ENTRY:${FASTPATH_SO}.old|||||" \
	"$(LD_PRELOAD="${FASTPATH_SO}.old" "$I" sh -c "$show_env" 2>/dev/null)"
expect_eq "options become FASTPATH_* settings" \
	"$FASTPATH_ENTRY|readlink,urandom|8|stderr|1|1" \
	"$("$I" --no-readlink --no-urandom --cpus 8 --stats --debug --getrandom sh -c "$show_env" 2>/dev/null)"
expect_eq "--cpus=N and --stats=FILE" "$FASTPATH_ENTRY||12|$T_TMP/s.log||" \
	"$("$I" --cpus=12 --stats="$T_TMP/s.log" sh -c "$show_env")"
# The words FASTPATH_STATS keeps for the standard streams are files when
# named by --stats=FILE (a cold review: --stats=1 printed on stderr).
for w in 0 1 stderr; do
	expect_eq "--stats=$w is the file $w" "$FASTPATH_ENTRY|||./$w||" \
		"$(cd "$T_TMP" && "$I" --stats="$w" sh -c "$show_env")"
	[ -s "$T_TMP/$w" ] && ok "--stats=$w: the summary line is in the file $w" ||
		fail "--stats=$w: the summary line is in the file $w" "$(ls -A "$T_TMP")"
done
expect_eq "keeps an existing FASTPATH_DISABLE" "$FASTPATH_ENTRY|cpus,urandom||||" \
	"$(FASTPATH_DISABLE=cpus "$I" --no-urandom sh -c "$show_env")"
expect_eq "-- ends the options" "$FASTPATH_ENTRY|||||" "$("$I" -- sh -c "$show_env")"

# --- the command runs as itself ----------------------------------------------
# A command word with '=' in it is run, as natively by PATH, under --survey
# too (a cold review: env took it for one more assignment and ran "arg").
mkdir -p "$T_TMP/eqbin"
# shellcheck disable=SC2016 # the script's own $0 and $*
printf '#!/bin/sh\necho "ran $0 [$*]"\n' >"$T_TMP/eqbin/a=b" && chmod +x "$T_TMP/eqbin/a=b"
for how in "" --survey=/dev/null; do
	# shellcheck disable=SC2086 # $how: no option or one
	out=$(PATH="$T_TMP/eqbin:$PATH" "$I" $how a=b x y)
	expect_eq "a command named a=b runs${how:+ under $how}" "ran $T_TMP/eqbin/a=b [x y] rc=0" "$out rc=$?"
done
expect_eq "arguments with spaces, empty and odd ones" "[a b][][c  d][*][\$x][--cpus]" \
	"$("$I" printf '[%s]' "a b" "" "c  d" '*' "\$x" --cpus)"
"$I" sh -c 'exit 42'
expect_eq "exit status passes through" 42 $?
"$I" sh -c 'kill -TERM $$'
expect_eq "death by signal passes through" 143 $?
pids=$(sh -c "$show_pid; exec '$I' sh -c '$show_pid'" | tr '\n' ' ')
case $pids in
"$(echo "$pids" | cut -d' ' -f1) $(echo "$pids" | cut -d' ' -f1) ") ok "exec, not a child: same pid" ;;
*) fail "exec, not a child: same pid" "$pids" ;;
esac
echo hello | "$I" cat >"$T_TMP/out"
expect_eq "stdin and stdout pass through" hello "$(cat "$T_TMP/out")"

# --- env(1)-style errors ----------------------------------------------------
"$I" no-such-command-fastpath 2>"$T_TMP/err"
expect_eq "command not found: 127" 127 $?
if grep -q '^interpose: no-such-command-fastpath: command not found' "$T_TMP/err"; then
	ok "command not found: message"; else fail "command not found: message" "$(cat "$T_TMP/err")"; fi
"$I" "$T_TMP/missing" 2>/dev/null
expect_eq "missing path: 127" 127 $?
printf '#!/bin/sh\nexit 0\n' >"$T_TMP/noexec"
chmod 644 "$T_TMP/noexec"
"$I" "$T_TMP/noexec" 2>/dev/null
expect_eq "not executable: 126" 126 $?
"$I" "$T_TMP" 2>/dev/null
expect_eq "a directory: 126" 126 $?
# What execvp says, as env(1) (a cold review: the shell's own checks said
# 127 for these, and searched its own PATH where PATH was unset).
ln -s loop "$T_TMP/loop"
: >"$T_TMP/plain"
for c in "$T_TMP/loop" "$T_TMP/plain/x" "" "$(printf 'n%.0s' $(seq 1 300))"; do
	env -- "$c" 2>/dev/null
	n=$?
	"$I" --quiet -- "$c" 2>/dev/null
	expect_eq "'$(printf '%.20s' "${c#"$T_TMP"/}")': env(1)'s status, $n" "$n" "$?"
done
if command -v zic >/dev/null 2>&1 && [ ! -x /bin/zic ] && [ ! -x /usr/bin/zic ]; then
	n=$(env -u PATH /usr/bin/env zic --version >/dev/null 2>&1; echo $?)
	expect_eq "PATH unset: execvp's own PATH, as env(1) ($n)" "$n" \
		"$(env -u PATH "$I" --quiet -- zic --version >/dev/null 2>&1; echo $?)"
else
	skip "PATH unset: execvp's own PATH" "no zic outside /bin and /usr/bin to tell the two PATHs apart"
fi

# --- the environment, passed on as it was given -----------------------------
# The shell interpose runs in would drop the entries whose names are not a
# shell's (bash's exported functions, dotted names), add PWD, and export
# its own values of names it assigns (lib, debug, os...): the command gets
# the environment interpose was given, in its order, with ours set in it
# (a cold review).
given() {
	env -i 'BASH_FUNC_f%%=() {  echo fn
}' 'spring.profiles.active=dev' 'my-var=1' lib=/opt/lib debug=7 os=Plan9 quiet=no \
		PATH="$PATH" "$@"
}
for q in "" --quiet; do
	nat=$(given /usr/bin/env)
	got=$(given "$I" $q -- /usr/bin/env | grep -v '^LD_PRELOAD=')
	expect_eq "interpose $q: the environment it was given, entries and order" "$nat" "$got"
done
# Generated: every name interpose's script assigns, exported with a value
# of its own, under each way through it (the reach check, --quiet, the
# cap with its map, --stats, --tz, a pin): the command sees each as given
# (a name the script assigns was exported with the script's value).
names="$(grep -o '[a-z_][a-z0-9_]*=' "$TOP/interpose.in" | tr -d = | sort -u) IFS PPID PWD"
# (OPTIND a number: dash refuses any other at its start, the old interpose too)
set -- OPTIND=7
for n in $names; do set -- "$@" "$n=given-$n"; done
for opts in "" --quiet "--cpus 3" "--stats=$T_TMP/st.log" --tz "--cpus 1 --pin" --debug; do
	# shellcheck disable=SC2086 # the options, a word each
	got=$(env -i PATH="$PATH" "$@" "$I" $opts -- /usr/bin/env 2>/dev/null | grep -v -e '^LD_PRELOAD=' \
		-e '^FASTPATH_' -e '^OMP_NUM_THREADS=' -e '^GOMAXPROCS=' -e '^TZ=')
	nat=$(env -i PATH="$PATH" "$@" /usr/bin/env)
	expect_eq "interpose ${opts%%=*}: the $# names its script assigns reach the command as given" "$nat" "$got"
done
set --
# bash as /bin/sh (cold reviews 67, 68): generated, a function exported
# for every word of the script that could name a command, and [, BASHOPTS
# that change how it matches, globs and execs, FUNCNEST=1.  The command
# runs and sees the environment as given; also where it gets the shell's
# (an entry over 120 KiB): the functions, the options turned off and
# FUNCNEST as they were (BASHOPTS lists bash's options as sh too, as any
# script of bash as sh passes them on); execfail given back does not run the survey after a failed
# exec; and an exported BASH_VERSION does not make dash bash.
if bash_sh=$(command -v bash); then
	mkdir -p "$T_TMP/bashsh"
	ln -sf "$bash_sh" "$T_TMP/bashsh/sh"
	for w in '[' $(grep -v '^[[:space:]]*#' "$TOP/interpose.in" | grep -o '\b[a-z][a-z0-9_]*\b' | sort -u |
		grep -vxE 'case|do|done|elif|else|esac|fi|for|if|in|then|until|while|function|select|time|break|continue|eval|exec|exit|export|readonly|return|set|shift|times|trap|unset'); do
		set -- "$@" "BASH_FUNC_$w%%=() { echo hijacked $w >&2; exit 99; }"
	done
	set -- "$@" FUNCNEST=1 BASHOPTS=nocasematch:failglob:nullglob:xpg_echo:extglob:execfail:lastpipe PATH="$PATH"
	for opts in "" --quiet "--cpus 1" "--survey=/dev/null"; do
		# shellcheck disable=SC2086 # the options, a word each
		got=$(env -i "$@" "$T_TMP/bashsh/sh" "$I" $opts -- /usr/bin/env 2>"$T_TMP/err" | grep -v -e '^LD_PRELOAD=' -e '^FASTPATH_' -e '^OMP_NUM_THREADS=' -e '^GOMAXPROCS=')
		nat=$(env -i "$@" /usr/bin/env)
		expect_eq "bash as sh, interpose ${opts%%=*}: $# functions, BASHOPTS, FUNCNEST=1: the command runs, its environment as given" \
			"$nat" "$got$(grep -h hijacked "$T_TMP/err")"
	done
	set --
	big_a=$(head -c 125000 /dev/zero | tr '\0' a)
	fx='BASH_FUNC_myfn%%=() { echo myfn ran; }'
	# (and one POSIX mode cannot define again: cold review 70, rc 2)
	fo='BASH_FUNC_foo-bar%%=() { :; }'
	# shellcheck disable=SC2016 # the inner shell's
	cmd='myfn; echo "$FUNCNEST"; shopt nocasematch execfail'
	nat=$(env -i PATH="$PATH" A="$big_a" "$fx" "$fo" FUNCNEST=3 BASHOPTS=nocasematch:execfail \
		"$bash_sh" -c "$cmd")
	for opts in "" "--survey=/dev/null"; do
		# shellcheck disable=SC2086 # the options, a word each
		got=$(env -i PATH="$PATH" A="$big_a" "$fx" "$fo" FUNCNEST=3 BASHOPTS=nocasematch:execfail \
			"$T_TMP/bashsh/sh" "$I" $opts -- "$bash_sh" -c "$cmd" 2>/dev/null)
		expect_eq "bash as sh, interpose ${opts%%=*}, the shell's environment: the caller's function, BASHOPTS and FUNCNEST given back ($nat)" \
			"$nat" "$got"
	done
	env -i PATH="$PATH" A="$big_a" BASHOPTS=execfail "$T_TMP/bashsh/sh" "$I" -- "$T_TMP/no-such-cmd" 2>"$T_TMP/err"
	expect_eq "bash as sh, execfail, the shell's environment, a missing command: 127, our line and the shell's, no survey" \
		"127 2" "$? $(wc -l <"$T_TMP/err" | tr -d ' ')"
	got=$(BASH_VERSION=5.2 BASHOPTS=nocasematch "$I" --quiet -- /bin/echo ran 2>&1)
	expect_eq "dash with BASH_VERSION exported: not bash, nothing said" "ran" "$got"
else
	skip "bash as /bin/sh: exported functions, BASHOPTS, FUNCNEST" "no bash here"
fi
# Two entries of 70 KB pass on (an entry a word of fastpath-run's exec);
# one that would not fit in one word once escaped goes by the shell, and
# one line says so.
big_a=$(head -c 70000 /dev/zero | tr '\0' a)
# shellcheck disable=SC2016 # the inner shell's
got=$(A=$big_a B=$big_a "$I" -- sh -c 'echo ${#A} ${#B}' 2>"$T_TMP/err")
expect_eq "two entries of 70 KB: passed on as given" "70000 70000 0" \
	"$got $(grep -c 'cannot be passed on as it was' "$T_TMP/err")"
big_a=$(head -c 125000 /dev/zero | tr '\0' a)
# shellcheck disable=SC2016 # the inner shell's
got=$(A=$big_a "$I" -- sh -c 'echo ${#A}' 2>"$T_TMP/err")
expect_eq "an entry over 120 KiB: passed on by the shell, one line says so" "125000 1" \
	"$got $(grep -c 'cannot be passed on as it was' "$T_TMP/err")"
# What cold review 64 found in the first way of passing it on.  The
# environments a shell cannot make (two entries of one name, an empty last
# entry) are made by fastpath-run --exec itself.
R=$TOP/fastpath-run
raw() { # COUNT ENTRY... -- CMD...: CMD with exactly those entries
	"$R" --exec-args "$@"
}
E=$(printf '\001e') # the empty entry, as fastpath-run --env-of writes it
got=$(raw 3 "PATH=$PATH" LD_PRELOAD=/nonexistent-a.so LD_PRELOAD=/nonexistent-b.so -- \
	"$I" --quiet -- sh -c 'grep -c "fastpath.so" /proc/$$/maps; env | grep -c "^LD_PRELOAD="' 2>/dev/null | tr '\n' ' ')
expect_eq "LD_PRELOAD given twice (the loader takes the last): fastpath.so loaded, one LD_PRELOAD" \
	"1" "$([ "${got%% *}" -gt 0 ] && echo "${got#* }" | tr -d ' ')"
# FASTPATH_DISABLE given twice: fastpath.so reads the first, so --no-*
# adds to that one (cold review 67: the shell's, the last); escaped
# newlines and \001 in it come back as they were.
got=$(raw 3 "PATH=$PATH" FASTPATH_DISABLE=readlink FASTPATH_DISABLE=tz -- \
	"$I" --quiet --no-urandom -- /usr/bin/env | grep '^FASTPATH_DISABLE=' | tr '\n' ' ')
expect_eq "FASTPATH_DISABLE given twice, --no-urandom: added to the first, one entry" \
	"FASTPATH_DISABLE=readlink,urandom " "$got"
got=$(raw 2 "PATH=$PATH" "FASTPATH_DISABLE=a$(printf '\001n')b$(printf '\001\001')c" -- \
	"$I" --quiet --no-urandom -- /usr/bin/env 2>/dev/null | od -An -c | tr -s ' \n' ' ')
case $got in
*"D I S A B L E = a \\n b 001 c , u r a n d o m \\n"*) ok "FASTPATH_DISABLE with a newline and a control character, --no-urandom: added to it as given" ;;
*) fail "FASTPATH_DISABLE with a newline and a control character, --no-urandom: added to it as given" "$got" ;;
esac
nat=$(raw 3 "PATH=$PATH" A=1 "$E" -- /usr/bin/env | od -c)
got=$(raw 3 "PATH=$PATH" A=1 "$E" -- "$I" --quiet -- /usr/bin/env | grep -v '^LD_PRELOAD=' | od -c)
expect_eq "an empty last entry passes on" "$nat" "$got"
# cold review 65: an environment over 4 KiB leaves the command no child of
# ours (a here-document that size is written by a forked shell); under
# --survey, LD_PRELOAD given twice still loads us; 65,000 backslashes
# (escaped, as they once were, past one argument) pass on.
big_a=$(head -c 5000 /dev/zero | tr '\0' q)
# shellcheck disable=SC2016 # the inner shell's
got=$(B5=$big_a "$I" --quiet -- sh -c 'sleep 0.3; exec cat /proc/$$/task/$$/children' 2>/dev/null | wc -w)
expect_eq "an environment of 5 KB: the command has no child it did not make" 0 "$got"
got=$(raw 3 "PATH=$PATH" LD_PRELOAD=/nonexistent-a.so LD_PRELOAD=/nonexistent-b.so -- \
	"$I" --quiet --survey=/dev/null -- sh -c 'grep -c "fastpath.so" /proc/$$/maps' 2>/dev/null)
check "--survey, LD_PRELOAD given twice: fastpath.so loaded in the command" [ "${got:-0}" -gt 0 ]
# The script's descriptor (cold reviews 67, 68): with 0 to 9 all open,
# dash opens it at 10 and leaves it open across exec; bash with standard
# error closed keeps it at 2.  The command gets the descriptors env(1)
# gives, a caller's own descriptor on the script included: on the plain
# path, under --survey, where the command gets the shell's environment,
# with 0 to 63 open.
if bash_sh=$(command -v bash); then
	# with_fds N... -- CMD...: CMD with /dev/null open on each N (N=PATH:
	# PATH; A-B: each of A to B), by bash, which takes more than one digit
	with_fds() {
		# shellcheck disable=SC2016 # bash's own
		"$bash_sh" -c 'while [ "$1" != -- ]; do
			case $1 in
			*=*) eval "exec ${1%%=*}<\"\${1#*=}\"" ;;
			*-*) for ((n = ${1%-*}; n <= ${1#*-}; n++)); do eval "exec $n</dev/null"; done ;;
			*) eval "exec $1</dev/null" ;;
			esac
			shift
		done
		shift
		exec "$@"' with_fds "$@"
	}
	# shellcheck disable=SC2016 # the inner shell's
	lsfd='ls -l /proc/$$/fd >"$0"'
	# fds_of: the listing with_fds's command wrote, as "N>target" words
	fds_of() {
		awk 'NR > 1 { print $(NF - 2) ">" $NF }' "$T_TMP/fdl" | sed 's/:\[[0-9]*\]//' | sort | tr '\n' ' '
	}
	big_a=$(head -c 125000 /dev/zero | tr '\0' a)
	shell_env=", the shell's environment"
	for fds in 3-9 "3-9 10=$TOP/interpose" "4-9 10=$TOP/interpose" 3-63; do
		for opts in "" --quiet "--cpus 1" --survey=/dev/null; do
			for a in "" "$big_a"; do
				# shellcheck disable=SC2086 # the descriptors, the options, a word each
				with_fds $fds -- env sh -c "$lsfd" "$T_TMP/fdl" 2>/dev/null
				nat=$(fds_of)
				# shellcheck disable=SC2086
				A=$a with_fds $fds -- "$I" $opts -- sh -c "$lsfd" "$T_TMP/fdl" 2>/dev/null
				expect_eq "open: $fds, interpose ${opts%%=*}${a:+$shell_env}: the command's descriptors, as env(1)'s" \
					"$nat" "$(fds_of)"
			done
		done
	done
	env sh -c "$lsfd" "$T_TMP/fdl" 2>&-
	nat=$(fds_of)
	"$T_TMP/bashsh/sh" "$I" --quiet -- sh -c "$lsfd" "$T_TMP/fdl" 2>&-
	expect_eq "bash as sh, standard error closed: the command's descriptors, as env(1)'s" "$nat" "$(fds_of)"
else
	skip "the script's descriptor left open" "no bash here to open descriptors past 9"
fi
# FASTPATH_DISABLE with 60,000 escaped newlines, --no-urandom: added by
# fastpath-run (cold review 68: the shell's unescaping took 20 s).
nls=$(head -c 60000 /dev/zero | tr '\0' '\n'; echo x)
# shellcheck disable=SC2016 # the inner shell's
got=$(FASTPATH_DISABLE="$nls" timeout 20 "$I" --quiet --no-urandom -- /bin/sh -c 'printf %s "$FASTPATH_DISABLE" | wc -c' 2>/dev/null)
expect_eq "FASTPATH_DISABLE of 60,000 newlines, --no-urandom: added to it, at once" 60009 "$got"
# shellcheck disable=SC1003 # one backslash
big_a=$(head -c 65000 /dev/zero | tr '\0' '\\')
# shellcheck disable=SC2016 # the inner shell's
got=$(A=$big_a "$I" -- sh -c 'echo ${#A}' 2>"$T_TMP/err")
expect_eq "65,000 backslashes in an entry: passed on as given" "65000 0" \
	"$got $(grep -c 'cannot be passed on as it was' "$T_TMP/err")"
# cold review 66: --survey with no directory for it (the command runs
# unsurveyed) passes it on too; 18 entries of 60,000 newlines, which
# escaped would not fit in one exec beside the command: the shell's, said.
got=$(given env TMPDIR=/nonexistent "$I" --quiet --survey -- /usr/bin/env 2>/dev/null | grep -c -e '^BASH_FUNC_f%%=' -e '^spring.profiles.active=dev$')
expect_eq "--survey with no directory: the command still gets the environment as given" 2 "$got"
nls=$(head -c 60000 /dev/zero | tr '\0' '\n'; echo x)
set --
for n in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do set -- "$@" "N$n=$nls"; done
# (a stack of 8 MiB: exec's limit 2 MiB, which 18 x 120,000 bytes pass)
# shellcheck disable=SC3045 # ulimit -s: dash, bash and busybox sh have it
got=$( (ulimit -s 8192 && env "$@" "$I" -- /bin/echo ran) 2>"$T_TMP/err")
expect_eq "18 entries of 60,000 newlines: the command runs, one line says the environment could not pass" \
	"ran 1" "$got $(grep -c 'cannot be passed on as it was' "$T_TMP/err")"
set --
rm -f "$T_TMP/st2.log"
"$I" --quiet --stats="$T_TMP/st2.log" -- true
expect_eq "--quiet --stats: one line, the command's (fastpath-run is not the command)" 1 "$(wc -l <"$T_TMP/st2.log")"
expect_eq "a warning of the command's said once" 1 \
	"$(FASTPATH_URANDOM=bogus "$I" -- true 2>&1 | grep -c 'ignoring FASTPATH_URANDOM')"
big=$(head -c 81920 /dev/zero | tr '\0' x)
# shellcheck disable=SC3045 # ulimit -s: dash, bash and busybox sh have it
nat=$( (ulimit -s 512 && BIG=$big /bin/echo ok) 2>&1)
# shellcheck disable=SC3045
got=$( (ulimit -s 512 && BIG=$big "$I" --quiet -- /bin/echo ok) 2>&1)
expect_eq "an 80 KiB entry under a 512 KiB stack (exec's limit 128 KiB): runs as natively" "$nat" "$got"
# /proc of another PID namespace (unshare -pf without a /proc of its own):
# the shell's pid there is another process; and no /proc at all.
# shellcheck disable=SC2016 # the inner shells'
if [ "$(id -u)" = 0 ] && unshare -pf --kill-child true 2>/dev/null; then
	got=$(env -i PATH=/usr/bin:/bin MARK=given unshare -pf --kill-child "$I" --quiet -- /usr/bin/env 2>/dev/null |
		grep -c -e '^MARK=given$' -e '^PATH=/usr/bin:/bin$')
	expect_eq "another PID namespace's /proc: never another process's environment" 2 "$got"
	out=$(unshare -pf --kill-child "$R" --env-of 1 2>/dev/null)
	expect_eq "fastpath-run --env-of under another namespace's /proc: nothing, 2" "2 0" "$? ${#out}"
	out=$("$R" --env-of $$)
	expect_eq "fastpath-run --env-of in its own: the environment, 0" "0 1" "$? $(printf '%s\n' "$out" | grep -c "^PATH=")"
else
	skip "another PID namespace's /proc" "needs root and unshare -pf"
fi
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # the inner shell's
	got=$(unshare -m sh -c 'umount -l /proc && "$0" --quiet --stats="$1" -- true && wc -l <"$1"' \
		"$I" "$T_TMP/st3.log" 2>/dev/null)
	expect_eq "/proc not mounted: the command runs, its --stats line written (an empty /proc is no kernel file)" 1 "$got"
else
	skip "/proc not mounted" "needs root and unshare -m"
fi
if command -v bash >/dev/null 2>&1; then
	expect_eq "a function bash exported runs under interpose" fn "$(given "$I" --quiet -- bash -c f)"
else
	skip "a function bash exported" "no bash"
fi
for bad in "--bogus true" "--cpus" "--cpus 0 true" "--cpus -3 true" "--cpus 1x true" \
	"--cpus 65537 true" "--cpus 007 true" "--stats= true" "" "--debug" "-x true"; do
	# shellcheck disable=SC2086 # word splitting is the point
	"$I" $bad >/dev/null 2>"$T_TMP/err"
	rc=$?
	expect_eq "usage error '$bad': 125" 125 "$rc"
	if grep -q "^Try 'interpose --help'" "$T_TMP/err"; then ok "usage error '$bad': says so"; else
		fail "usage error '$bad': says so" "$(cat "$T_TMP/err")"; fi
done

# --- a tree whose path LD_PRELOAD would split -------------------------------
# A colon or a space in the object's path: refused, 125 and one line (a
# cold review: a space passed, and every process printed the loader's
# "cannot be preloaded" twice and ran unmitigated).
for name in "sp ace" "co:lon"; do
	B="$T_TMP/$name"
	mkdir -p "$B"
	for f in interpose fastpath-run survey.awk interpose.awk libdirs lib fastpath.so; do
		[ -e "$TOP/$f" ] && cp -a "$TOP/$f" "$B/"
	done
	out=$("$B/interpose" printenv LD_PRELOAD 2>"$T_TMP/err")
	rc=$?
	expect_eq "a tree at '$name': refused, 125, the reason" "125 |LD_PRELOAD splits on ':' and spaces" \
		"$rc $out|$(head -n 1 "$T_TMP/err" | sed 's/.*: //')"
	rm -rf "$B"
done
# What the other system's check reads is not the caller's environment's.
expect_eq "lib32 and lib64 in the environment (a colon each): the command runs" "ran 0" \
	"$(lib32=/a:/b lib64=/usr/lib64:/lib64 "$I" echo ran 2>&1) $?"

# --- an installed copy -----------------------------------------------------
D=$T_TMP/x
if make -s install DESTDIR="$D" >"$T_TMP/out" 2>&1; then
	ok "make install DESTDIR"
	inst="$D/usr/local/lib/fastpath/fastpath.so"
	more=
	if [ -n "$LIB_M32" ]; then
		# shellcheck disable=SC2016 # the loader's token
		inst="$D/usr/local/lib/fastpath/"'$LIB'/fastpath.so
		more="usr/local/lib/fastpath/libdirs usr/local/lib/fastpath/$LIB_M32/fastpath.so"
		expect_eq "installed: the native object's \$LIB name links to it" "fastpath.so" \
			"$(cd "$D/usr/local/lib/fastpath/$LIB_NATIVE" && ls -L fastpath.so)"
		expect_eq "installed: the i386 object (ELFCLASS32)" 1 \
			"$(od -An -tu1 -j4 -N1 "$D/usr/local/lib/fastpath/$LIB_M32/fastpath.so" | tr -d ' ')"
	fi
	expect_eq "installed interpose finds the installed object" "$inst" \
		"$("$D/usr/local/bin/interpose" --print-path)"
	expect_eq "installed interpose runs a command" "$inst" \
		"$("$D/usr/local/bin/interpose" printenv LD_PRELOAD)"
	# shellcheck disable=SC2086 # more: a list of words
	expect_eq "installed files" "$(printf '%s\n' usr/local/bin/interpose usr/local/lib/fastpath/fastpath-run usr/local/lib/fastpath/fastpath.so usr/local/lib/fastpath/interpose.awk usr/local/lib/fastpath/survey.awk usr/local/share/man/man1/interpose.1 usr/local/share/man/man7/fastpath.7 $more | sort)" \
		"$(cd "$D" && find . -type f | sed 's|^\./||' | sort)"
	mkdir "$T_TMP/x/sv"
	expect_eq "installed interpose finds the installed report" "fastpath survey: no records in this directory" \
		"$("$D/usr/local/bin/interpose" --survey-report "$T_TMP/x/sv" | tail -n 1)"
	rmdir "$T_TMP/x/sv"
	make -s uninstall DESTDIR="$D" >/dev/null 2>&1
	expect_eq "make uninstall removes exactly those" "" "$(cd "$D" && find . ! -type d)"
else
	fail "make install DESTDIR" "$(cat "$T_TMP/out")"
fi

if command -v shellcheck >/dev/null 2>&1; then
	check "interpose is shellcheck-clean" shellcheck -s sh "$I"
else
	skip "shellcheck" "not installed"
fi

finish
