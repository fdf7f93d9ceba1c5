#!/bin/sh
# SPDX-License-Identifier: MIT
# The first call of every function fastpath.so exports leaves the state
# the program owns behind the C library and the loader as natively: a
# pending dlerror() message, errno after a success, the environment
# (tests/prog_firstcall.c: one harmless call each, in a process of its
# own, so that it is that wrapper's first).  Run natively, under the
# defaults and with each setting the mitigations' descriptors (mit/*.def)
# give a variable for, plus those interpose exports itself (FASTPATH_CPUS),
# survey mode, the summary, debug and everything disabled; every line
# must be native's.  FASTPATH_TZ=1 changes TZ at start-up, on purpose:
# the snapshot is taken after start-up, so the first call must change
# nothing either.  Every name the object exports must have an entry in
# the program's table (a new wrapper cannot escape), and a preload with
# one defect of each kind (tests/libfirstcall_liar.c) must be caught.
# A known difference is a skip that names it (KNOWN below), never a pass.
#
# Each run is made in six places: each call after our constructor
# (late), before it (early: from tests/libfirstcall_early.so's
# constructor, preloaded after ours, which the loader initialises first:
# the call then initialises fastpath inside itself, as a library
# constructor's does), and before the C library's own initialisation
# (preinit: from the program's .preinit_array, where ASan's runtime
# starts; environ is still NULL), each with /proc and, where this machine
# can hide it (root, unshare -m), with a tmpfs over /proc: what
# initialisation reads there fails, and must leave nothing behind either.
# The errno a review found leaking (2041056) is the kind these places
# generate.  In every place the settings must reach every process: the
# summary file gets a line from each entry's (an ASan program under
# libasan.so:fastpath.so read none, 628672c).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_firstcall
LIAR=$TESTBIN/libfirstcall_liar.so
EARLY=$TESTBIN/libfirstcall_early.so

if [ "$(uname -s)" != Linux ]; then
	skip "first calls" "prog_firstcall is Linux-only (uname: $(uname -s))"
	finish
	exit
fi
precond "prog_firstcall is built" [ -x "$P" ]

# Known differences, "NAME RUN WHY" a line (RUN: PLACE:SETTING as the
# runs below are named, or * for all of them): each one met is a skip
# that names it; one no longer met fails, so that it leaves this list.
# NAME * is every entry of that run, for its environment only, summed up
# in one skip (? below: the same, which need not occur).  FASTPATH_TZ=1 sets TZ in initialisation, which runs
# inside the first call that reaches us before our constructor (doing it
# later would lose it where a library's constructor starts threads, and
# environ cannot be changed once another thread may read it:
# docs/design.md).
tz_why="FASTPATH_TZ=1: TZ is set by initialisation, here inside the call (docs/design.md)"
KNOWN="* early/proc:FASTPATH_TZ=1 $tz_why
* early/noproc:FASTPATH_TZ=1 $tz_why"

# FASTPATH_SO may be a list (check-sanitize puts libasan.so first,
# check-eatmydata libeatmydata before or after): native is then the
# others without fastpath.so, so that only ours is compared.
OURS='' OTHERS=''
for so in $(printf '%s\n' "$FASTPATH_SO" | tr ':' ' '); do
	case ${so##*/} in
	fastpath*.so) OURS="$OURS $so" ;;
	*) OTHERS="$OTHERS${OTHERS:+:}$so" ;;
	esac
done
# Another preload before ours may call our wrappers from its own start
# (an ASan runtime opens /proc/self/maps): initialisation is then done
# before the early call, which finds TZ set already.  NAME ? is NAME *
# that need not occur.
[ -n "$OTHERS" ] && KNOWN=$(printf '%s\n' "$KNOWN" | sed 's/^\* /? /')

# The place (MODE and PLACE below): early preloads the early library
# after the others; noproc runs in a mount namespace of its own, a tmpfs
# over /proc.
MODE=late PLACE=proc
in_place() {
	if [ "$PLACE" = noproc ]; then
		# shellcheck disable=SC2016 # the inner shell expands it
		unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh "$@"
	else
		"$@"
	fi
}
# preload_list LIST: LIST, and in the early places the early library
# where the loader initialises it before the rest: named last for
# glibc, which initialises preloads last to first; named first for
# musl, which initialises them in the order named (EARLY_FIRST).
EARLY_FIRST=no
preload_list() {
	if [ "$MODE" != early ]; then printf '%s' "$1"
	elif [ "$EARLY_FIRST" = yes ]; then printf '%s%s' "$EARLY" "${1:+:$1}"
	else printf '%s%s' "${1:+$1:}" "$EARLY"; fi
}
native() {
	_l=$(preload_list "$OTHERS")
	if [ -n "$_l" ]; then in_place env -u TZ LD_PRELOAD="$_l" "$@"
	else in_place env -u TZ -u LD_PRELOAD "$@"; fi
}
preloaded() { in_place env -u TZ LD_PRELOAD="$(preload_list "$FASTPATH_SO")" "$@"; }

# ---- every export has an entry ----------------------------------------------
"$P" list >"$T_TMP/names" 2>&1
if ! command -v nm >/dev/null 2>&1; then
	skip "every export has an entry" "nm not installed (Debian: binutils)"
else
	for so in $OURS; do
		nm -D --defined-only "$so" 2>/dev/null | awk '$2 ~ /^[TWi]$/ { print $3 }' | sort -u >"$T_TMP/exports"
		n=$(wc -l <"$T_TMP/exports" | tr -d ' ')
		missing=$(sort -u "$T_TMP/names" | comm -23 "$T_TMP/exports" -)
		if [ "$n" -lt 50 ]; then
			fail "every export of ${so##*/} has an entry in prog_firstcall" "nm listed only $n functions"
		elif [ -n "$missing" ]; then
			fail "every export of ${so##*/} has an entry in prog_firstcall" \
				"no entry (add one to tests/prog_firstcall.c's table): $(echo "$missing" | tr '\n' ' ')"
		else
			ok "every export of ${so##*/} has an entry in prog_firstcall ($n functions)"
		fi
	done
fi

# The object must really be in the preloaded runs: one the loader refuses
# (another ELF class) leaves a native run, which would pass every compare.
loaded=$(preloaded FASTPATH_STATS=1 "$P" list 2>&1 >/dev/null)
case $loaded in *'fastpath['*']: '*) loaded=yes ;; esac
if ! precond "fastpath.so is loaded in the preloaded runs (its summary line)" [ "$loaded" = yes ]; then
	finish
	exit
fi

# compare NAME FILE: FILE against native, line by line; each difference
# is a known one (a skip) or a failure, and one line sums the run up.
compare() {
	_n=$1 _f=$2
	awk -v known="$KNOWN" -v run="$_n" '
	# The environment alone differs: a line as native but env=changed.
	function env_only(a, b) { sub(/ env=changed/, " env=same", b); return a == b }
	BEGIN {
		nk = split(known, k, "\n")
		for (i = 1; i <= nk; i++) {
			split(k[i], w, " ")
			if (w[2] == run || w[2] == "*") {
				why = k[i]; sub(/^[^ ]+ [^ ]+ /, "", why)
				if (w[1] == "*" || w[1] == "?") { every = why; maybe = w[1] == "?" }
				else kn[w[1]] = why
			}
		}
	}
	NR == FNR { want[FNR] = $0; nw = FNR; next }
	{
		got[FNR] = $0; ng = FNR
	}
	END {
		for (i = 1; i <= (nw > ng ? nw : ng); i++) {
			if (want[i] == got[i]) continue
			split(want[i] != "" ? want[i] : got[i], w, " ")
			if (w[1] in kn) { print "known|" w[1] "|" kn[w[1]] "|" want[i] "|" got[i]; seen[w[1]] = 1 }
			else if (every != "" && env_only(want[i], got[i])) nenv++
			else print "diff|" w[1] "||" want[i] "|" got[i]
		}
		for (s in kn) if (!(s in seen)) print "gone|" s "|" kn[s]
		if (every != "" && (nenv || !maybe)) print (nenv ? "knownenv|*|" every "|" nenv "|" : "gone|*|" every)
	}' "$T_TMP/native" "$_f" >"$T_TMP/cmp"
	_bad=0
	while IFS='|' read -r kind name why want got; do
		case $kind in
		known) skip "[$_n] $name: a known difference ($why)" "native [$want], preloaded [$got]" ;;
		knownenv) skip "[$_n] $want first calls find the environment changed, nothing else: a known difference" "$why" ;;
		diff) _bad=$((_bad + 1))
			fail "[$_n] $name: as natively" "native:    $want
    preloaded: $got" ;;
		gone) _bad=$((_bad + 1))
			fail "[$_n] $name: the known difference ($why) is gone: take it off KNOWN" ;;
		esac
	done <"$T_TMP/cmp"
	[ "$_bad" -eq 0 ] && [ ! -s "$T_TMP/cmp" ] &&
		ok "[$_n] $ran first calls: dlerror, errno and the environment as natively"
	return 0
}

# ---- the runs -------------------------------------------------------------------
# Every setting a descriptor names a variable for: a flag set to 1, each
# value of one that takes values.
settings=$(awk '
	function flush() {
		if (env == "") return
		if (kind == "flag") print env "=1"
		else if (kind == "value") { n = split(vals, v, " "); for (i = 1; i <= n; i++) print env "=" v[i] }
		env = ""
	}
	/^[^\t#]/ { flush(); kind = ""; vals = "" }
	/^\tkind / { kind = $2 }
	/^\tenv / { env = $2 }
	/^\tvalues / { vals = $0; sub(/^\tvalues /, "", vals) }
	END { flush() }' "$TOP"/mit/*.def)
mits=$(sed -n 's/^[[:space:]]*X(\([a-z0-9_]*\)).*/\1/p' "$TOP/mitigations.h" | tr '\n' ',' | sed 's/,$//')
mkdir "$T_TMP/survey"
# Those interpose exports itself, survey mode, the summary line (to a
# file), debug lines (to stderr), and every mitigation off.
settings="defaults
$settings
FASTPATH_CPUS=2
FASTPATH_CPUS=quota
FASTPATH_SURVEY=$T_TMP/survey
FASTPATH_STATS=$T_TMP/stats
FASTPATH_DEBUG=1
FASTPATH_DISABLE=$mits"
# shellcheck disable=SC2016 # the inner shell expands it
precond "the descriptors give settings to run" sh -c 'printf "%s\n" "$1" | grep -q "^FASTPATH_TZ=1\$"' sh "$settings"

# ---- the places -----------------------------------------------------------------
precond "the early runs' library is built" [ -f "$EARLY" ]
# The early library's constructor must run before ours: the loader says
# so where it can (glibc's LD_DEBUG).  musl has none, and initialises
# preloads in the order named: the early library is named first there,
# and the lines' " early" mark shows only that each call came before main.
if env LD_DEBUG=files true 2>&1 | grep -q 'calling init'; then
	MODE=early
	order=$(env LD_DEBUG=files LD_PRELOAD="$(preload_list "$FASTPATH_SO")" "$P" exit 2>&1 |
		sed -n 's/.*calling init: //p' | grep -e 'libfirstcall_early' -e 'fastpath' | sed 's|.*/||' | tr '\n' ' ')
	MODE=late
	case $order in
	"libfirstcall_early.so fastpath"*) ok "early: the loader runs the early library's constructor before ours ($order)" ;;
	*) fail "early: the loader runs the early library's constructor before ours" "init order: $order" ;;
	esac
else
	EARLY_FIRST=yes
	skip "early: the loader's order of constructors" "no LD_DEBUG=files here (musl: named first, as musl initialises preloads in order)"
fi
places="late/proc early/proc preinit/proc"
why=$(ns_refused 'mount -t tmpfs none /proc && [ ! -e /proc/self ]')
if [ -n "$why" ]; then
	skip "/proc hidden" "$why"
else
	# The native run itself must run there: an ASan runtime preloaded
	# (check-sanitize) reads /proc/self/maps at its start, and exits 1.
	PLACE=noproc
	if native "$P" exit >"$T_TMP/np" 2>&1; then
		places="$places late/noproc early/noproc preinit/noproc"
	else
		skip "/proc hidden" "natively, with ${OTHERS:-nothing} preloaded, prog_firstcall does not run with /proc hidden: $(head -c 200 "$T_TMP/np" | tr '\n' ' ')"
	fi
	PLACE=proc
fi

for place in $places; do
	MODE=${place%/*} PLACE=${place#*/}
	early=
	[ "$MODE" = late ] || early=$MODE
	# shellcheck disable=SC2086 # $early: a word or none
	native "$P" all $early >"$T_TMP/native" 2>"$T_TMP/native.err"
	precond "[$place] prog_firstcall all runs natively" [ $? -eq 0 ]
	precond "[$place] natively, one line per entry" [ "$(wc -l <"$T_TMP/native")" -eq "$(wc -l <"$T_TMP/names")" ]
	# An entry that died or failed natively, or whose call natively
	# clears dlerror or changes the environment, would prove nothing; an
	# early run's calls must have come from the constructor.  Where
	# another preload comes with ours, a call made before its constructor
	# may clear dlerror natively (libeatmydata looks its functions up at
	# their first call): that place has no oracle, and is a skip.
	bad=$(grep -v " skipped: " "$T_TMP/native" | grep -v "dlerror=kept env=same${early:+ early}\$")
	if [ -n "$bad" ] && [ -n "$OTHERS" ] && [ "$MODE" != late ]; then
		skip "[$place] first calls before the constructors" \
			"natively, with $OTHERS preloaded, they do not keep dlerror and the environment: $(echo "$bad" | head -n 2 | tr '\n' ' ')"
		continue
	fi
	precond "[$place] natively, every entry ran and kept dlerror and the environment" [ -z "$bad" ]
	if [ "$PLACE" = noproc ]; then
		precond "[$place] /proc is hidden where the calls run" [ "$(in_place ls -A /proc | wc -l)" -eq 0 ]
	fi
	ran=$(grep -c ' ret=' "$T_TMP/native")
	while IFS= read -r s; do
		set --
		[ "$s" = defaults ] || set -- "$s"
		rm -f "$T_TMP/stats"
		# shellcheck disable=SC2086 # $early: a word or none
		preloaded "$@" "$P" all $early >"$T_TMP/run" 2>"$T_TMP/run.err"
		compare "$place:${s%%=/*}" "$T_TMP/run"
		case $s in FASTPATH_STATS=*)
			lines=0
			[ -f "$T_TMP/stats" ] && lines=$(wc -l <"$T_TMP/stats")
			check "[$place] the summary file has a line from each of the $ran entries' processes (got $lines)" \
				[ "$lines" -ge "$ran" ] ;;
		esac
	done <<EOF
$settings
EOF
done

# ---- negative control: one defect of each kind is caught ---------------------
MODE=late PLACE=proc
if [ ! -f "$LIAR" ]; then
	fail "the negative control's preload is built" "$LIAR"
else
	native "$P" all >"$T_TMP/liar.n" 2>&1
	env -u TZ LD_PRELOAD="${OTHERS:+$OTHERS:}$LIAR" "$P" all >"$T_TMP/liar" 2>&1
	got=$(diff "$T_TMP/liar.n" "$T_TMP/liar" | sed -n 's/^> \([^ ]*\) .*\(errno=[a-z]*\) \(dlerror=[a-z]*\) \(env=[a-z]*\)$/\1 \2 \3 \4/p' |
		sort | tr '\n' ';')
	expect_eq "negative control: a late dlsym, errno changed on success, a setenv are each caught" \
		"get_nprocs_conf errno=kept dlerror=kept env=changed;getentropy errno=kept dlerror=lost env=same;sched_getcpu errno=changed dlerror=kept env=same;" \
		"$got"
fi
finish
