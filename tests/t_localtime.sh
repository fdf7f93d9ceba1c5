#!/bin/sh
# SPDX-License-Identifier: MIT
# The localtime mitigation (localtime_shim.c, FASTPATH_TZ=1, interpose
# --tz): TZ set where it is unset and only there, every local time the
# same as natively (in this machine's zone and, in a private mount
# namespace, in another), the stats of the zone file gone (strace), the
# documented differences (getenv, children, a zone changed while running),
# bad settings, and the survey's suggestion with TZ unset and its silence
# with TZ set.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

P=$TESTBIN/prog_localtime
run() { env -u TZ "$@"; }
fp() { run LD_PRELOAD="$FASTPATH_SO" "$@"; }
GLIBC=
if ldd "$P" 2>/dev/null | grep -q 'libc\.so\.6'; then GLIBC=1; fi
# Another runtime in the preload list (check-sanitize's libasan.so): its
# own interplay with jemalloc, node or java is not ours to test.
ASAN=
case $FASTPATH_SO in *libasan*) ASAN=$FASTPATH_SO ;; esac

stats_field localtime '[0-9]+ calls, TZ (set|kept|failed|native)' FASTPATH_TZ=1

if [ -z "$GLIBC" ]; then
	skip "localtime" "not glibc: the C library reads the zone once (nothing to mitigate)"
	finish
fi

zone=$(zone_of /etc/localtime)
want_tz="TZ $zone" want_state=set
[ -n "$zone" ] || want_tz="TZ (unset)" want_state=unnamed

# ---- where TZ is unset, and only there ----------------------------------------
expect_eq "off by default: TZ stays unset" "TZ (unset)" "$(fp "$P" env)"
expect_eq "FASTPATH_TZ=1, TZ unset: set to /etc/localtime's zone ($want_state)" "$want_tz" \
	"$(fp FASTPATH_TZ=1 "$P" env)"
expect_eq "FASTPATH_TZ=1, TZ empty (UTC): kept" "TZ (empty)" \
	"$(fp FASTPATH_TZ=1 TZ= "$P" env)"
expect_eq "FASTPATH_TZ=1, TZ=Asia/Tokyo: kept" "TZ Asia/Tokyo" \
	"$(fp FASTPATH_TZ=1 TZ=Asia/Tokyo "$P" env)"
expect_eq "FASTPATH_TZ=1, a relative TZDIR: no name given, TZ unset" "TZ (unset)" \
	"$(fp FASTPATH_TZ=1 TZDIR=zoneinfo "$P" env)"
expect_eq "FASTPATH_TZ=0: TZ stays unset" "TZ (unset)" "$(fp FASTPATH_TZ=0 "$P" env)"
expect_eq "FASTPATH_DISABLE=localtime wins over FASTPATH_TZ=1" "TZ (unset)" \
	"$(fp FASTPATH_TZ=1 FASTPATH_DISABLE=localtime "$P" env)"
out=$(fp FASTPATH_TZ=maybe "$P" env 2>"$T_TMP/warn")
expect_eq "FASTPATH_TZ=maybe: off, one warning" "TZ (unset) 1" \
	"$out $(grep -c 'FASTPATH_TZ="maybe".*TZ is left as it is' "$T_TMP/warn")"
expect_eq "interpose --tz: $want_state" "$want_tz" "$(run "$INTERPOSE" --tz -- "$P" env)"
# shellcheck disable=SC2016 # the inner shell expands it
expect_eq "a child inherits it, with or without fastpath (documented)" "$want_tz" \
	"$(fp FASTPATH_TZ=1 sh -c 'exec env -u LD_PRELOAD "$0" env' "$P")"
stats_run "$T_TMP/s1" env -u TZ LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 "$P" loop 10 >/dev/null
expect_eq "summary: the calls, and TZ $want_state" 1 "$(grep -c "; localtime 10 calls, TZ $want_state\$" "$T_TMP/s1")"
stats_run "$T_TMP/s2" env LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 TZ=UTC "$P" loop 10 >/dev/null
expect_eq "summary: TZ kept where it was set" 1 "$(grep -c '; localtime 10 calls, TZ kept$' "$T_TMP/s2")"

# No allocation at start-up: an allocator preloaded beside fastpath that
# calls a wrapped function while it initialises (jemalloc reads
# /etc/malloc.conf's link) would wait for itself in a setenv.
jem=
for f in /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2; do [ -f "$f" ] && jem=$f && break; done
if [ -n "$ASAN" ]; then
	skip "with jemalloc preloaded" "the preload list holds libasan.so ($ASAN), whose allocator is the process's"
elif [ -z "$jem" ]; then
	skip "with jemalloc preloaded" "no libjemalloc.so.2 (Debian: libjemalloc2)"
else
	for order in "$FASTPATH_SO $jem" "$jem $FASTPATH_SO"; do
		out=$(run LD_PRELOAD="$order" FASTPATH_TZ=1 timeout 60 "$P" env 2>&1)
		expect_eq "FASTPATH_TZ=1 with jemalloc preloaded ($(basename "${order%% *}") first)" \
			"$want_tz" "$out"
	done
fi

# The program's pending dlerror() message survives the first call of each
# wrapper, on or off (a lookup made then by dlsym cleared it: a plugin
# loader printing dlerror() got NULL and crashed).
for how in "" FASTPATH_TZ=1; do
	expect_eq "dlerror() kept across localtime, mktime, ctime, tzset ${how:-(mitigation off)}" \
		"$(run "$P" dlerror 2>&1)" "$(fp $how "$P" dlerror 2>&1)"
done
expect_eq "dlerror(): natively the message is there" "dlerror: kept" "$(run "$P" dlerror 2>&1)"

# fastpath.so dlopen()ed into a program that already runs a second thread:
# its initialisation then comes too late to swap environ (another thread's
# getenv or setenv may be reading it, under the C library's lock), so TZ
# stays unset and the summary says "TZ failed" (it was set behind the
# running thread's back).  Both ways of knowing: glibc's
# __libc_single_threaded, and where there is none (glibc before 2.32,
# forced here with a copy of the object that looks it up under a name no
# library defines) the kernel's count of the process's threads.
case $FASTPATH_SO in
*[' :']*) skip "dlopen()ed late: TZ left alone" "FASTPATH_SO is a list ($FASTPATH_SO)" ;;
*)
	LC_ALL=C sed 's/__libc_single_threaded/__libc_single_threadeX/g' "$FASTPATH_SO" >"$T_TMP/nosingle.so"
	for obj in "$FASTPATH_SO" "$T_TMP/nosingle.so"; do
		out=$(run FASTPATH_TZ=1 FASTPATH_STATS=1 "$P" late "$obj" 2>&1)
		# The summary (stderr, at exit) and the program's line (stdout,
		# flushed after it), in either order.
		case $out in
		*'TZ (unset)'*) case $out in *'localtime 0 calls, TZ failed'*) out=ok ;; esac ;;
		esac
		if [ "$out" = ok ]; then
			ok "$(basename "$obj") dlopen()ed while a thread runs, FASTPATH_TZ=1: TZ left unset, TZ failed"
		else
			fail "$(basename "$obj") dlopen()ed while a thread runs, FASTPATH_TZ=1: TZ left unset" "$out"
		fi
	done
	;;
esac

# ---- every local time as natively -------------------------------------------
run "$P" all >"$T_TMP/all.n" 2>&1
fp FASTPATH_TZ=1 "$P" all >"$T_TMP/all.f" 2>&1
if cmp -s "$T_TMP/all.n" "$T_TMP/all.f"; then
	ok "localtime, mktime, timelocal, ctime, tzset: as natively, errno too ($(wc -l <"$T_TMP/all.n") lines)"
else
	fail "local times differ under FASTPATH_TZ=1" "$(diff "$T_TMP/all.n" "$T_TMP/all.f" | head -5)"
fi
mkdir "$T_TMP/sv0"
fp FASTPATH_SURVEY="$T_TMP/sv0" "$P" all >"$T_TMP/all.s" 2>&1
if cmp -s "$T_TMP/all.n" "$T_TMP/all.s"; then
	ok "survey mode: every result and errno as natively"
else
	fail "local times differ in survey mode" "$(diff "$T_TMP/all.n" "$T_TMP/all.s" | head -5)"
fi

# Another zone than this machine's, and a zone file changed while the
# program runs: /etc/localtime's target replaced in a private mount
# namespace (unshare -r -m), natively and under fastpath.
zones=/usr/share/zoneinfo
ny=$zones/America/New_York tokyo=$zones/Asia/Tokyo
target=$(readlink -f /etc/localtime)
if [ ! -f "$ny" ] || [ ! -f "$tokyo" ]; then
	skip "another zone" "no $ny or $tokyo (Debian: tzdata)"
elif ! command -v unshare >/dev/null 2>&1 || ! unshare -r -m true 2>/dev/null; then
	skip "another zone" "no private mount namespace here (unshare -r -m: user namespaces off)"
elif [ ! -f "$target" ]; then
	skip "another zone" "/etc/localtime names no file ($target)"
else
	# shellcheck disable=SC2016 # the inner shell expands them
	ns='mount --bind "$1" "$2" && shift 2 && exec "$@"'
	unshare -r -m sh -c "$ns" sh "$ny" "$target" env -u TZ "$P" all >"$T_TMP/ny.n" 2>&1
	unshare -r -m sh -c "$ns" sh "$ny" "$target" env -u TZ LD_PRELOAD="$FASTPATH_SO" \
		FASTPATH_TZ=1 "$P" all >"$T_TMP/ny.f" 2>&1
	if grep -q 'zone EST' "$T_TMP/ny.n" && grep -q 'zone EDT' "$T_TMP/ny.n" &&
		cmp -s "$T_TMP/ny.n" "$T_TMP/ny.f"; then
		ok "America/New_York as /etc/localtime: every result as natively, summer time too"
	else
		fail "America/New_York as /etc/localtime" "$(diff "$T_TMP/ny.n" "$T_TMP/ny.f" | head -5; head -2 "$T_TMP/ny.n")"
	fi
	# watch: the zone, then a new zone file mounted, then the zone again.
	# shellcheck disable=SC2016 # the inner shell expands them
	change='mount --bind "$1" "$3" || exit 9
		mkfifo "$4/in"
		shift 4
		"$@" <"$T_TMP_IN/in" >"$T_TMP_IN/w.out" &
		exec 3>"$T_TMP_IN/in"
		until grep -q before "$T_TMP_IN/w.out" 2>/dev/null; do sleep 0.05; done
		mount --bind "$T_TOKYO" "$T_TARGET" && echo go >&3
		exec 3>&-
		wait $! && cat "$T_TMP_IN/w.out"'
	for how in native fastpath; do
		mkdir -p "$T_TMP/$how"
		set -- env -u TZ "$P" watch
		[ $how = fastpath ] && set -- env -u TZ LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 "$P" watch
		T_TMP_IN=$T_TMP/$how T_TOKYO=$tokyo T_TARGET=$target timeout 60 \
			unshare -r -m sh -c "$change" sh "$ny" - "$target" "$T_TMP/$how" "$@" \
			>"$T_TMP/$how.out" 2>&1
	done
	expect_eq "natively, a zone file changed while running is seen" "before: EST -18000 after: JST 32400" \
		"$(tr '\n' ' ' <"$T_TMP/native.out" | sed 's/ $//')"
	expect_eq "under --tz it is not, until a restart (fastpath(7), LOCALTIME)" \
		"before: EST -18000 after: EST -18000" "$(tr '\n' ' ' <"$T_TMP/fastpath.out" | sed 's/ $//')"
fi

# A copy of /etc in a private mount namespace, /etc/localtime there a link
# to America/New_York, then a copied file: Java's and ICU's (node's) local
# time as natively, as glibc's is; and with no name to give, TZ unset.
# shellcheck disable=SC2016 # the inner shell expands them
etc_ns='mount --bind "$1" /etc && shift && exec "$@"'
if [ ! -f "$ny" ] || ! command -v unshare >/dev/null 2>&1 || ! unshare -r -m true 2>/dev/null; then
	skip "a zone named by a link, and a copied zone file" "no $ny, or no private mount namespace here"
else
	cp -a /etc "$T_TMP/etc" 2>/dev/null
	rm -f "$T_TMP/etc/localtime" "$T_TMP/etc/timezone" && ln -s "$ny" "$T_TMP/etc/localtime"
	in_ny() { unshare -r -m sh -c "$etc_ns" sh "$T_TMP/etc" env -u TZ "$@"; }
	expect_eq "/etc/localtime -> America/New_York: TZ=America/New_York" "TZ America/New_York" \
		"$(in_ny LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 "$P" env)"
	# shellcheck disable=SC2016 # node's, not the shell's
	js='const d = new Date(1690000000000); console.log(d.toString(), Intl.DateTimeFormat().resolvedOptions().timeZone)'
	if [ -n "$ASAN" ]; then
		skip "node (ICU) under a linked zone" "the preload list holds libasan.so, which node is not built for"
	elif command -v node >/dev/null 2>&1; then
		n=$(in_ny node -e "$js" 2>&1)
		f=$(in_ny LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 node -e "$js" 2>&1)
		case $n in
		*"GMT-0400 (Eastern Daylight Time) America/New_York") expect_eq "node (ICU): the same local time and zone" "$n" "$f" ;;
		*) skip "node (ICU) under a linked zone" "node natively does not see New York here: $n" ;;
		esac
	else
		skip "node (ICU) under a linked zone" "node not installed (Debian: nodejs)"
	fi
	if [ -n "$ASAN" ]; then
		skip "java under a linked zone" "the preload list holds libasan.so, which the JVM is not built for"
	elif command -v java >/dev/null 2>&1; then
		printf 'public class Z { public static void main(String[] a) { java.util.TimeZone z = java.util.TimeZone.getDefault(); System.out.println(z.getID() + " " + z.inDaylightTime(new java.util.Date(1690000000000L))); } }\n' >"$T_TMP/Z.java"
		n=$(in_ny java "$T_TMP/Z.java" 2>&1)
		f=$(in_ny LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 java "$T_TMP/Z.java" 2>&1)
		case $n in
		"America/New_York true") expect_eq "java: the same zone, summer time too" "$n" "$f" ;;
		*) skip "java under a linked zone" "java natively does not say America/New_York here: $n" ;;
		esac
	else
		skip "java under a linked zone" "no java (Debian: default-jre-headless)"
	fi
	rm -f "$T_TMP/etc/localtime" && cp "$ny" "$T_TMP/etc/localtime"
	expect_eq "/etc/localtime a copied file: no name, TZ left unset" "TZ (unset)" \
		"$(in_ny LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 "$P" env)"
	in_ny LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 FASTPATH_STATS=1 "$P" loop 3 >/dev/null 2>"$T_TMP/un.err"
	expect_eq "... and the summary says TZ unnamed" 1 "$(grep -c '; localtime 3 calls, TZ unnamed$' "$T_TMP/un.err")"
fi

# ---- the stats of the zone file -----------------------------------------------
if ! command -v strace >/dev/null 2>&1; then
	skip "stats of /etc/localtime" "strace not installed"
else
	for how in native fastpath; do
		set -- env -u TZ "$P" loop 1000
		[ $how = fastpath ] && set -- env -u TZ LD_PRELOAD="$FASTPATH_SO" FASTPATH_TZ=1 "$P" loop 1000
		strace -f -qq -e trace=stat,newfstatat,statx,fstatat64,stat64 -o "$T_TMP/st.$how" "$@" >/dev/null
	done
	n=$(grep -c '"/etc/localtime"' "$T_TMP/st.native")
	f=$(grep -c '"/etc/localtime"' "$T_TMP/st.fastpath")
	# natively, every call but the first, which opens and reads it
	if [ "$n" -ge 999 ] && [ "$f" -le 1 ]; then
		ok "1000 localtime() calls: $n stats of /etc/localtime natively, $f under FASTPATH_TZ=1"
	else
		fail "stats of /etc/localtime" "native $n, FASTPATH_TZ=1 $f"
	fi
fi

# ---- the survey ---------------------------------------------------------------
# The loop: its calls are most of its run, so TZ unset is worth --tz.
run "$INTERPOSE" --survey -- "$P" loop 20000 >"$T_TMP/sv.out" 2>&1
expect_eq "survey, TZ unset: suggests --tz" 1 \
	"$(grep -c "^suggest: interpose --tz -- $P loop 20000\$" "$T_TMP/sv.out")"
expect_eq "survey, TZ unset: its row counts the 20000 calls" 1 \
	"$(grep -c '^localtime  *20000 calls .*20000 with TZ unset' "$T_TMP/sv.out")"
TZ=:/etc/localtime "$INTERPOSE" --survey -- "$P" loop 20000 >"$T_TMP/sv2.out" 2>&1
expect_eq "survey, TZ set: no --tz, the calls counted as saving nothing" "0 1" \
	"$(grep -c -e '--tz' "$T_TMP/sv2.out") $(grep -c '^localtime  *20000 calls .*20000 with TZ set' "$T_TMP/sv2.out")"

finish
