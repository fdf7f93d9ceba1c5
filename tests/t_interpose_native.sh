#!/bin/sh
# SPDX-License-Identifier: MIT
# interpose(1) is invisible (issue 26): each case runs natively and wrapped
# (plain and --survey) and compares what a user would: exit status,
# output, stdin, SigIgn/SigBlk of /proc/self/status, process group and
# terminal, the summary lines.  Native is the oracle.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

I=$INTERPOSE
# interpose preloads its own tree's object, whatever the harness tests
# (check-sanitize and check-eatmydata skip this script).
FASTPATH_SO=$TOP/fastpath.so
SIGSTART=$TESTBIN/prog_sigstart
version=$(sed -n 's/^VERSION *= *//p' Makefile)
# shellcheck disable=SC2016 # the inner shells expand these
show_preload='printf "%s" "${LD_PRELOAD-unset}"'
# shellcheck disable=SC2016 # the inner shells expand it
pidsleep='echo $$ >"$0"; exec sleep "$1"'

# same NAME NATIVE WRAPPED: both command lines (sh -c text) give the same
# output and exit status.
same() {
	sn_out=$(sh -c "$2" 2>&1)
	sn_rc=$?
	sw_out=$(sh -c "$3" 2>&1)
	sw_rc=$?
	expect_eq "$1" "$sn_rc|$sn_out" "$sw_rc|$sw_out"
}

# --- 1. --survey keeps stdin -------------------------------------------------
expect_eq "survey: stdin reaches the command (echo hi | cat)" \
	"$(echo hi | cat)" "$(echo hi | "$I" --survey="$T_TMP/rep" cat)"
expect_eq "survey: 100000 bytes of stdin (wc -c)" \
	"$(head -c 100000 /dev/zero | wc -c)" \
	"$(head -c 100000 /dev/zero | "$I" --survey="$T_TMP/rep" wc -c)"
if grep -q '^fastpath survey of: wc -c$' "$T_TMP/rep"; then ok "survey: the report is still written"
else fail "survey: the report is still written" "$(cat "$T_TMP/rep")"; fi
expect_eq "survey: stdin a file, read to the end" "$(wc -c <Makefile)" \
	"$("$I" --survey="$T_TMP/rep" wc -c <Makefile)"

# --- 2. the signal state, process group and terminal ----------------------
SIGCMD="grep -E '^Sig(Blk|Ign):' /proc/self/status"
for setup in ":" "trap '' INT" "trap '' QUIT HUP TERM" "trap '' INT; trap 'echo x' TERM"; do
	for how in "" "--survey=$T_TMP/rep"; do
		same "${how:+survey: }dispositions and mask as native after \"$setup\"" \
			"$setup; exec $SIGCMD" "$setup; exec '$I' $how $SIGCMD"
	done
done
if [ -x "$SIGSTART" ]; then
	# Not SIGCHLD ignored: dash resets it to the default before a script's
	# first line (bash keeps it); interpose(1), CAVEATS.
	for state in "2,10 3" "15,17 -" "- 1" "1,2,3,15 2,3"; do
		# shellcheck disable=SC2086 # two words: BLOCK IGNORE
		set -- $state
		for how in "" "--survey=$T_TMP/rep"; do
			same "${how:+survey: }started with mask $1 and $2 ignored: as native" \
				"exec '$SIGSTART' $1 $2 $SIGCMD" "exec '$SIGSTART' $1 $2 '$I' $how $SIGCMD"
		done
	done
else
	fail "prog_sigstart" "missing $SIGSTART (make check builds it)"
fi
same "survey: the same descriptors as native (one opened by the caller too)" \
	"exec 7</dev/null; ls /proc/self/fd" "exec 7</dev/null; exec '$I' --survey='$T_TMP/rep' ls /proc/self/fd"
# Fields 5 and 7 of /proc/self/stat: process group and controlling terminal.
same "survey: same process group and terminal as native" \
	"cut -d' ' -f5,7 /proc/self/stat" "'$I' --survey='$T_TMP/rep' cut -d' ' -f5,7 /proc/self/stat"
same "survey: exit status" "sh -c 'exit 42'" "'$I' --survey='$T_TMP/rep' sh -c 'exit 42'"
same "survey: death by signal" "sh -c 'kill -TERM \$\$'; echo \$?" \
	"'$I' --survey='$T_TMP/rep' sh -c 'kill -TERM \$\$'; echo \$?"
same "survey: a command not found" "env no-such-command-fp 2>/dev/null" \
	"'$I' --survey no-such-command-fp 2>/dev/null"
# A signal sent to the whole group (timeout(1) does) ends the command as
# natively; the old shell-started command ignored SIGQUIT and ran on.
if command -v timeout >/dev/null 2>&1; then
	rm -f "$T_TMP/qpid"
	timeout --preserve-status -s QUIT 1 sh -c "$pidsleep" "$T_TMP/qn" 5
	nrc=$?
	timeout --preserve-status -s QUIT 1 "$I" --survey="$T_TMP/rep" \
		sh -c "$pidsleep" "$T_TMP/qpid" 5
	wrc=$?
	expect_eq "survey: SIGQUIT from timeout: status as native" "$nrc" "$wrc"
	if [ -s "$T_TMP/qpid" ] && kill -0 "$(cat "$T_TMP/qpid")" 2>/dev/null; then
		fail "survey: SIGQUIT from timeout ends the command" "pid $(cat "$T_TMP/qpid") still runs"
		kill -KILL "$(cat "$T_TMP/qpid")" 2>/dev/null
	else
		ok "survey: SIGQUIT from timeout ends the command"
	fi
else
	skip "survey: SIGQUIT from timeout" "timeout(1) is not installed"
fi
# Forwarding, as before: a SIGTERM sent to interpose's pid reaches the
# command; the report is written; the status is the command's.
rm -f "$T_TMP/fpid" "$T_TMP/rep"
"$I" --survey="$T_TMP/rep" sh -c "$pidsleep" "$T_TMP/fpid" 30 &
ipid=$!
n=0
while [ ! -s "$T_TMP/fpid" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
kill -TERM "$ipid"
wait "$ipid"
expect_eq "survey: SIGTERM to interpose is forwarded: the command's status" 143 $?
if [ -s "$T_TMP/fpid" ] && kill -0 "$(cat "$T_TMP/fpid")" 2>/dev/null; then
	fail "survey: SIGTERM to interpose ends the command" "still running"
	kill -KILL "$(cat "$T_TMP/fpid")" 2>/dev/null
else
	ok "survey: SIGTERM to interpose ends the command"
fi
if grep -q '^fastpath survey of: sh -c' "$T_TMP/rep"; then ok "survey: SIGTERM: the report is written"
else fail "survey: SIGTERM: the report is written" "$(cat "$T_TMP/rep" 2>&1)"; fi
# The report's tools and the starter run without our preload: with
# --stats, the summary lines are the command's alone.
rm -f "$T_TMP/st"
"$I" --survey="$T_TMP/rep" --stats="$T_TMP/st" true
expect_eq "survey --stats: one summary line, the command's" 1 "$(grep -c '^fastpath\[' "$T_TMP/st")"

# --- 3. through symlinks -----------------------------------------------------
mkdir -p "$T_TMP/bin" "$T_TMP/l2" "$T_TMP/nobin"
ln -s "$I" "$T_TMP/bin/interpose"
ln -s ../bin/interpose "$T_TMP/l2/ip"
expect_eq "a symlink in PATH finds the tree's object" "$FASTPATH_ENTRY" \
	"$(PATH="$T_TMP/bin:$PATH" interpose --print-path 2>&1)"
expect_eq "a relative chain of symlinks" "$FASTPATH_ENTRY" "$("$T_TMP/l2/ip" --print-path 2>&1)"
expect_eq "a symlink: runs the command" "$FASTPATH_ENTRY" \
	"$(PATH="$T_TMP/bin:$PATH" interpose sh -c "$show_preload" 2>&1)"
expect_eq "a symlink: --survey finds fastpath-run" "hi" \
	"$(echo hi | PATH="$T_TMP/bin:$PATH" interpose --survey="$T_TMP/rep" cat 2>&1)"
# Without readlink(1) (old illumos): the fallback.  A PATH of the tools
# interpose needs, readlink left out.
for t in uname ls tr grep sed cat sh; do
	p=$(command -v "$t") && ln -s "$p" "$T_TMP/nobin/$t"
done
ln -s ../l2/ip "$T_TMP/nobin/ip"
expect_eq "no readlink(1): the fallback follows the links" "$FASTPATH_ENTRY" \
	"$(PATH="$T_TMP/nobin" ip --print-path 2>&1)"

# --- 4. CDPATH and the caller's shell options ----------------------------------
up=${TOP%/*}
base=${TOP##*/}
expect_eq "CDPATH=. does not change the object's path" "$FASTPATH_ENTRY" \
	"$(cd "$up" && CDPATH=. "$base/interpose" sh -c "$show_preload" 2>&1)"
mkdir -p "$T_TMP/cdp/$base"
expect_eq "CDPATH naming another tree does not either" "$FASTPATH_ENTRY" \
	"$(cd "$up" && CDPATH="$T_TMP/cdp" "$base/interpose" sh -c "$show_preload" 2>&1)"
# shellcheck disable=SC2016
expect_eq "the command still gets the caller's CDPATH" "." \
	"$(cd "$up" && CDPATH=. "$base/interpose" sh -c 'printf %s "$CDPATH"' 2>&1)"
if command -v bash >/dev/null 2>&1; then
	# bash takes set -a, -x, -u, -f, -C from an exported SHELLOPTS.
	expect_eq "bash's SHELLOPTS (allexport xtrace nounset noglob noclobber): same environment" \
		"$(env | grep -v -e '^SHLVL=' -e '^_=' | sort)" \
		"$(env SHELLOPTS=allexport:xtrace:nounset:noglob:noclobber bash "$I" --no-readlink env 2>&1 |
			grep -v -e '^LD_PRELOAD=' -e '^FASTPATH_DISABLE=' -e '^SHELLOPTS=' -e '^SHLVL=' -e '^_=' | sort)"
	expect_eq "bash's SHELLOPTS: nothing on stderr" "" \
		"$(env SHELLOPTS=xtrace:nounset bash "$I" true 2>&1)"
else
	skip "SHELLOPTS" "bash is not installed"
fi

# --- 5. builtins, keywords, not executable: as env(1) ----------------------
for w in cd if exec type; do
	env "$w" /tmp >/dev/null 2>&1
	nrc=$?
	"$I" "$w" /tmp >/dev/null 2>"$T_TMP/err"
	expect_eq "'$w' is no command: status as env(1)" "$nrc" $?
	expect_eq "'$w' is no command: our own message" "interpose: $w: command not found" "$(cat "$T_TMP/err")"
done
same "'true', a builtin that is also a program, runs it" "env true; echo \$?" "'$I' true; echo \$?"
mkdir -p "$T_TMP/p1" "$T_TMP/p2" "$T_TMP/p3/dir-fp"
printf '#!/bin/sh\necho first\n' >"$T_TMP/p1/noexec-fp"
printf '#!/bin/sh\necho second\n' >"$T_TMP/p2/noexec-fp"
chmod 644 "$T_TMP/p1/noexec-fp"
chmod 755 "$T_TMP/p2/noexec-fp"
P0=$PATH
same "not executable in PATH: status as env(1)" \
	"PATH='$T_TMP/p1:$P0' env noexec-fp 2>/dev/null; echo \$?" \
	"PATH='$T_TMP/p1:$P0' '$I' noexec-fp 2>/dev/null; echo \$?"
PATH="$T_TMP/p1:$P0" "$I" noexec-fp 2>"$T_TMP/err"
expect_eq "not executable in PATH: our message" "interpose: noexec-fp: Permission denied" "$(cat "$T_TMP/err")"
same "an executable later in PATH wins, as execvp" \
	"PATH='$T_TMP/p1:$T_TMP/p2:$P0' env noexec-fp" "PATH='$T_TMP/p1:$T_TMP/p2:$P0' '$I' noexec-fp"
same "a directory in PATH: status as env(1)" \
	"PATH='$T_TMP/p3:$P0' env dir-fp 2>/dev/null; echo \$?" \
	"PATH='$T_TMP/p3:$P0' '$I' dir-fp 2>/dev/null; echo \$?"
same "survey: not executable in PATH: status as env(1)" \
	"PATH='$T_TMP/p1:$P0' env noexec-fp 2>/dev/null; echo \$?" \
	"PATH='$T_TMP/p1:$P0' '$I' --survey noexec-fp 2>/dev/null; echo \$?"

# --- 6. options ------------------------------------------------------------------
# shellcheck disable=SC2016
show_set='printf "%s|%s" "${FASTPATH_URANDOM-}" "${FASTPATH_CPUS-}"'
for form in "--urandom reserve --cpus 3" "--urandom=reserve --cpus=3"; do
	# shellcheck disable=SC2086
	expect_eq "'$form': both forms of a value" "reserve|3" "$("$I" $form sh -c "$show_set" 2>&1)"
done
"$I" --help >"$T_TMP/help"
"$I" -h >"$T_TMP/h"
expect_eq "-h is --help: status" 0 $?
if cmp -s "$T_TMP/help" "$T_TMP/h"; then ok "-h is --help: output"; else fail "-h is --help: output" "$(head -3 "$T_TMP/h")"; fi
mkdir -p "$T_TMP/empty"
for form in "--survey-report=$T_TMP/empty" "--survey-report $T_TMP/empty"; do
	# shellcheck disable=SC2086
	"$I" $form >"$T_TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && [ "$(cat "$T_TMP/out")" = "fastpath survey: no records in this directory" ]; then
		ok "'${form%% *}...': read, no records: one line, exit 3"
	else fail "'${form%% *}...': read, no records: one line, exit 3" "status $rc: $(cat "$T_TMP/out")"; fi
done
for bad in "--cpus=" "--cpus ''" "--urandom=" "--urandom ''" "--urandom" "--stats=" "--survey=" \
	"--survey-report=" "--survey-report ''" "--survey-report" "--urandom bogus"; do
	eval "set -- $bad"
	"$I" "$@" true >/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 125 ] && grep -q "^Try 'interpose --help'" "$T_TMP/err"; then
		ok "an empty or missing value: usage error 125 ($bad)"
	else
		fail "an empty or missing value: usage error 125 ($bad)" "status $rc: $(cat "$T_TMP/err")"
	fi
done
# The options parsed (the option loop's case patterns), those --help
# names and those interpose(1) describes (its OPTIONS items) are the same.
parsed=$(sed -n '/^while \[ \$# -gt 0 \]; do$/,/^done$/p' "$I" | grep '^	-[^)]*)' |
	sed 's/).*//' | tr '|' '\n' | tr -d ' \t' | sed 's/=\*$//' | grep -v -e '^--$' -e '^-\*$' |
	sort -u | tr '\n' ' ')
helped=$(grep -o -e '^ *--[a-z][a-z-]*' -e '^ *-[a-z], --[a-z-]*' "$T_TMP/help" |
	grep -o -e '--[a-z][a-z-]*' -e '-[a-z]' | sort -u | tr '\n' ' ')
manned=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/interpose.1 | sed 's/\\-/-/g' |
	awk '/^\.TP/ { getline; print }' | grep -o -e '--[a-z][a-z-]*' -e '^\.[A-Z]* -[a-z]' |
	sed 's/^\.[A-Z]* //' | sort -u | tr '\n' ' ')
case $parsed in *--cpus*--urandom*) ok "options parsed: found ($parsed)" ;;
*) fail "options parsed: found" "[$parsed]" ;; esac
expect_eq "--help names exactly the options parsed" "$parsed" "$helped"
expect_eq "interpose(1) describes exactly the options parsed" "$parsed" "$manned"
# The SYNOPSIS of interpose(1), the usage line of --help and the README's
# usage line name exactly the options parsed too (-h as --help).
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' man/interpose.1 | sed 's/\\-/-/g' |
	grep -o -e '--[a-z][a-z-]*' -e ' -h ' | tr -d ' ' | sort -u | tr '\n' ' ')
expect_eq "interpose(1) SYNOPSIS names exactly the options parsed" "$parsed" "$synopsis"
# shellcheck disable=SC2016 # sed scripts
readme_usage=$(sed -n '/^`interpose \[/,/`/p' README.md | tr '\n' ' ' | sed 's/`\([^`]*\)`.*/\1/' |
	grep -o -e '--[a-z][a-z-]*' | grep -vx -- -- | sort -u | tr '\n' ' ')
unparsed=
for o in $readme_usage; do
	case " $parsed " in *" $o "*) ;; *) unparsed="$unparsed $o" ;; esac
done
if [ -n "$readme_usage" ] && [ -z "$unparsed" ]; then ok "the README's usage line names only options parsed ($readme_usage)"
else fail "the README's usage line names only options parsed" "[$readme_usage] not parsed:[$unparsed]"; fi

# --- 7. one fastpath per process; the build tree's man pages --------------------
for m in man/interpose.1 man/fastpath.7; do
	# its .TH line (after the SPDX comment)
	if grep -m 1 '^\.TH ' "$m" | grep -q "\"fastpath $version\""; then ok "$m in the build tree carries the version"
	else fail "$m in the build tree carries the version" "$(grep -m 1 '^\.TH ' "$m" 2>&1)"; fi
done
if make -s install DESTDIR="$T_TMP/inst" PREFIX=/usr >"$T_TMP/inst.log" 2>&1; then
	other=$T_TMP/inst/usr/lib/fastpath/fastpath.so
	expect_eq "another fastpath in LD_PRELOAD is kept, ours not added" "$other" \
		"$(LD_PRELOAD=$other "$I" sh -c "$show_preload" 2>"$T_TMP/err")"
	expect_eq "... and interpose says which one it kept" \
		"interpose: LD_PRELOAD already holds fastpath $other: keeping it, not adding $FASTPATH_ENTRY" \
		"$(cat "$T_TMP/err")"
	cp "$FASTPATH_SO" "$T_TMP/librenamed.so"
	expect_eq "a fastpath object under another name is known by its marker" \
		"/lib/x.so:$T_TMP/librenamed.so" \
		"$(LD_PRELOAD="/lib/x.so:$T_TMP/librenamed.so" "$I" sh -c "$show_preload" 2>/dev/null)"
	ln -s "$FASTPATH_SO" "$T_TMP/link.so"
	expect_eq "our own object by another path: kept, silently" "$T_TMP/link.so|" \
		"$(LD_PRELOAD="$T_TMP/link.so" "$I" sh -c "$show_preload" 2>"$T_TMP/err")|$(cat "$T_TMP/err")"
	expect_eq "survey: the other copy is kept for the command too" "$other" \
		"$(LD_PRELOAD=$other "$I" --survey="$T_TMP/rep" sh -c "$show_preload" 2>/dev/null)"
	# The object: two copies in one process act as one.
	for list in "$FASTPATH_SO:$other" "$other:$FASTPATH_SO"; do
		stats_run "$T_TMP/s" env LD_PRELOAD="$list" FASTPATH_CPUS=3 getconf _NPROCESSORS_ONLN \
			>"$T_TMP/out" 2>/dev/null
		expect_eq "two copies loaded: one answer (the first acts)" 3 "$(cat "$T_TMP/out")"
		expect_eq "two copies loaded: one summary line" 1 "$(wc -l <"$T_TMP/s" | tr -d ' ')"
		# Debug and summary lines, pids aside, as with one copy: the
		# second neither acts nor speaks.
		one=$(LD_PRELOAD=$FASTPATH_SO FASTPATH_DEBUG=1 FASTPATH_STATS=1 head -c 100 /dev/urandom 2>&1 >/dev/null |
			sed 's/^fastpath\[[0-9]*\]//')
		two=$(LD_PRELOAD=$list FASTPATH_DEBUG=1 FASTPATH_STATS=1 head -c 100 /dev/urandom 2>&1 >/dev/null |
			sed 's/^fastpath\[[0-9]*\]//')
		case $one in *urandom*) expect_eq "two copies loaded: the lines of one copy" "$one" "$two" ;;
		*) fail "two copies loaded: one copy's lines" "[$one]" ;; esac
		if [ -x "$TESTBIN/prog_urandom" ]; then
			"$TESTBIN/prog_urandom" >"$T_TMP/n" 2>&1
			nrc=$?
			LD_PRELOAD=$list "$TESTBIN/prog_urandom" >"$T_TMP/w" 2>&1
			expect_eq "two copies loaded: prog_urandom's status as native" "$nrc" $?
			if cmp -s "$T_TMP/n" "$T_TMP/w"; then ok "two copies loaded: prog_urandom's output as native"
			else fail "two copies loaded: prog_urandom's output as native" "$(diff "$T_TMP/n" "$T_TMP/w" | head)"; fi
		fi
	done
else
	fail "make install" "$(cat "$T_TMP/inst.log")"
fi

# --- 8. the docs: services that re-exec with a chosen environment -------------
if grep -q 'env LD_PRELOAD;' man/fastpath.7 && grep -q 'env FASTPATH_CPUS;' man/fastpath.7; then
	ok "fastpath(7): nginx's env directives keep the preload"
else
	fail "fastpath(7): nginx's env directives keep the preload"
fi
if grep -q 'drop-in' man/fastpath.7 && grep -q 'interpose \\-\\-unit' man/fastpath.7; then
	ok "fastpath(7): a systemd drop-in"
else
	fail "fastpath(7): a systemd drop-in"
fi
if grep -q 'see SERVICES' man/interpose.1 && grep -qi 're-exec' man/interpose.1; then
	ok "interpose(1): points to the services section"
else
	fail "interpose(1): points to the services section"
fi
if grep -q 'env LD_PRELOAD' README.md; then ok "README: one line on re-exec'd services"
else fail "README: one line on re-exec'd services"; fi

# --- --survey and a SIGKILL of its pid (a supervisor's kill -9) ------------
# Natively the command is that pid and dies; under --survey the helper that
# is that pid dies, and the command must not run on as an orphan.
"$I" --survey="$T_TMP/k9.rep" sleep 60 &
k9=$!
k9_forked() { [ -n "$(cat "/proc/$k9/task/$k9/children" 2>/dev/null)" ]; }
wait_for 60 "--survey's command started" k9_forked
kid=$(cat "/proc/$k9/task/$k9/children")
kill -KILL "$k9"
wait "$k9" 2>/dev/null
k9_gone() { ! kill -0 "$kid" 2>/dev/null || [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$kid/status" 2>/dev/null)" = Z ]; }
if wait_for 30 "the command ended with its SIGKILLed interpose" k9_gone; then
	ok "--survey: a SIGKILL of interpose's pid ends the command too, as natively"
fi
kill -KILL "$kid" 2>/dev/null

finish
