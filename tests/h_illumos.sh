#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-illumos: what can be checked of the illumos build without an
# illumos machine (none exists here; nothing below ran on an illumos kernel).
#   1. every library source compiles as for illumos, 64- and 32-bit, with
#      each compiler we have: against glibc's headers plus the stand-in
#      declarations (tests/h_illumos_stand_in.h), and against headers as they
#      were before illumos#14418 (tests/h_illumos_old_headers.h, caddr_t);
#      with ILLUMOS_SYSROOT set, against real illumos headers too;
#   2. the symbol-era check: every libc symbol those objects leave undefined
#      is in tests/illumos_libc_symbols.txt, in a version set no newer than
#      the floor there, and none in a private (SUNWprivate) set; newer ones
#      must be looked up at run time.  Negative controls prove the check
#      rejects a direct explicit_bzero, a direct syscall (private; we link
#      _syscall) and a symbol missing from the table;
#      The objects' exports are checked against tests/t_core.sh's lists;
#   3. the Makefile's illumos branch (gcc by default, both objects);
#   4. interpose's illumos branch, with uname faked to say SunOS;
#   5. the illumos readlink rules, compiled as for illumos (the stand-in
#      declarations; no Linux translation compiled in) and run against the
#      kernel's answer for each descriptor type as read in illumos-gate
#      (tests/test_readlink_illumos.c, which cites the source of each).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# Every top-level source, as the Makefile's SRCS: the units of one object.
SRCS=$(echo *.c)
TABLE=$TOP/tests/illumos_libc_symbols.txt
OUT=$T_TMP/obj
mkdir -p "$OUT"

COMPILERS=
for c in ${CC:-} gcc clang; do
	command -v "$c" >/dev/null 2>&1 || continue
	case " $COMPILERS " in *" $c "*) ;; *) COMPILERS="$COMPILERS $c" ;; esac
done
[ -n "$COMPILERS" ] || skip "illumos compile checks" "no C compiler (gcc or clang) found"
have_nm=1
command -v nm >/dev/null 2>&1 || { have_nm=; skip "symbol-era check" "nm not installed (Debian: binutils)"; }

# The flags the Makefile gives fastpath.so, as for illumos.
IFLAGS="-O2 -std=gnu11 -fPIC -pthread -D_GNU_SOURCE -U__linux__ -D__sun -Wall -Wextra -Werror"

# era_check OBJECT: prints one line per offending undefined symbol and
# returns 1 if there is any.
era_check() {
	nm -u "$1" | awk '{ print $NF }' | sort -u >"$T_TMP/undef" || return 2
	awk -v undef="$T_TMP/undef" '
	$1 == "floor" { floor = $2 }
	$1 == "set" { rank[$2] = ++n; year[$2] = $3 }
	$1 == "sym" { set[$2] = $3 }
	$1 == "alias" { alias[$2] = $3 }
	$1 == "private" { private[$2] = 1 }
	$1 == "ignore" { ignore[$2] = 1 }
	END {
		bad = 0
		if (!(floor in rank)) { print "table: floor " floor " is not a set"; bad = 1 }
		for (s in set)
			if (!(set[s] in rank)) { print "table: " s " is in unknown set " set[s]; bad = 1 }
		while ((getline name < undef) > 0) {
			if (name in ignore) continue
			lib = (name in alias) ? alias[name] : name
			if (!(lib in set)) {
				print "not in the table: " lib " (add it with its version set from mapfile-vers)"
				bad = 1
			} else if (set[lib] in private) {
				print "private: " lib " is in " set[lib] ", libc-internal: link its public name"
				bad = 1
			} else if (rank[set[lib]] > rank[floor]) {
				print "too new: " lib " is in " set[lib] " (" year[set[lib]] "), newer than the floor " \
				      floor ": look it up at run time"
				bad = 1
			}
		}
		exit bad
	}' "$TABLE"
}

# The exported-symbol allow-lists, kept in tests/t_core.sh (INTERPOSED and
# INTERPOSED_ILLUMOS, and INTERPOSED_OWN's marker): the illumos objects may export nothing else.  The
# stand-in compiles see glibc's headers, whose 32-bit branch adds glibc's
# __fcntl_time64 (not on the x86-64 list, checked against x86-64 libc).
ALLOWED=" $(sed -n '/^INTERPOSED\(_[A-Z]*\)\{0,1\}="/,/"$/p' "$TOP/tests/t_core.sh" |
	sed 's/^[A-Z_]*="//; s/"$//' | tr -s ' \t\n' '   ') __fcntl_time64 "

# export_check OBJECT: every global default-visibility symbol it defines is
# on the lists (and, so that an empty listing cannot pass, open and
# __sysconf_xpg5 are among them).
export_check() {
	readelf -sW "$1" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }' \
		>"$T_TMP/exports" || return 2
	bad=
	while read -r s; do
		case $ALLOWED in *" $s "*) ;; *) bad="$bad $s" ;; esac
	done <"$T_TMP/exports"
	[ -z "$bad" ] || { echo "exported, not on tests/t_core.sh's lists:$bad"; return 1; }
	[ "$(grep -c -x -e open -e __sysconf_xpg5 "$T_TMP/exports")" -eq 2 ] ||
		{ echo "open or __sysconf_xpg5 not exported: $(tr '\n' ' ' <"$T_TMP/exports")"; return 1; }
}

# compile_all LABEL OUTDIR CC BITS FLAGS...: each source to OUTDIR/*.o, then
# one relocatable object OUTDIR/all.o (only libc's symbols left undefined).
compile_all() {
	label=$1 dir=$2 cc=$3 bits=$4
	shift 4
	mkdir -p "$dir"
	for f in $SRCS; do
		# shellcheck disable=SC2086 # IFLAGS is one word per flag
		check "$label: $f" "$cc" -m"$bits" -c -o "$dir/${f%.c}.o" $IFLAGS "$@" -I. "$f"
	done
	# shellcheck disable=SC2046
	"$cc" -m"$bits" -r -nostdlib -o "$dir/all.o" $(for f in $SRCS; do printf '%s ' "$dir/${f%.c}.o"; done) \
		>/dev/null 2>&1
}

# ---- 1 and 2: compile checks, symbol eras ---------------------------------------
for cc in $COMPILERS; do
	for bits in 64 32; do
		if ! echo 'int x;' | "$cc" -m$bits -fsyntax-only -x c - >/dev/null 2>&1; then
			skip "illumos, $cc ${bits}-bit" "$cc -m$bits cannot build here (Debian: gcc-multilib)"
			continue
		fi
		d=$OUT/$cc-$bits
		compile_all "compiles as for illumos ($cc, ${bits}-bit)" "$d" "$cc" "$bits" \
			-include "$TOP/tests/h_illumos_stand_in.h"
		for f in $SRCS; do
			# shellcheck disable=SC2086
			check "compiles with pre-2022 illumos headers, caddr_t mmap ($cc, ${bits}-bit): $f" \
				"$cc" -m$bits -c -o /dev/null $IFLAGS \
				-include "$TOP/tests/h_illumos_old_headers.h" -I. "$f"
		done
		[ -n "$have_nm" ] || continue
		if [ ! -f "$d/all.o" ]; then
			fail "symbol eras ($cc, ${bits}-bit)" "the objects did not link into one"
			continue
		fi
		check "symbol eras: nothing newer than the floor is linked ($cc, ${bits}-bit)" era_check "$d/all.o"
		check "exports: only interposed functions, each on the lists ($cc, ${bits}-bit)" export_check "$d/all.o"
		# What the table says the object links for syscall(2): the public name.
		if nm -u "$d/all.o" | awk '{ print $NF }' | grep -qx _syscall &&
			! nm -u "$d/all.o" | awk '{ print $NF }' | grep -qx syscall; then
			ok "raw system calls through _syscall (SUNW_0.7), no syscall (SUNWprivate_1.1) ($cc, ${bits}-bit)"
		else
			fail "raw system calls through _syscall ($cc, ${bits}-bit)" "$(nm -u "$d/all.o" | grep -i syscall)"
		fi
		# The newer symbols we need are looked up by name instead.
		if tr -c '[:print:]' '\n' <"$d/all.o" | grep -qx explicit_bzero; then
			ok "explicit_bzero is looked up at run time ($cc, ${bits}-bit)"
		else
			fail "explicit_bzero is looked up at run time ($cc, ${bits}-bit)" "no \"explicit_bzero\" string in the objects"
		fi
		# Negative controls: the check must reject a direct explicit_bzero
		# (what fastpath.so did before) and a symbol it has no entry for.
		printf '#include <string.h>\nvoid ctl(void *p, size_t n) { explicit_bzero(p, n); }\n' >"$T_TMP/ctl1.c"
		printf '#include <stdlib.h>\nint ctl(void) { return rand(); }\n' >"$T_TMP/ctl2.c"
		printf 'long syscall(long, ...);\nlong ctl(void) { return syscall(20); }\n' >"$T_TMP/ctl3.c"
		for c in ctl1 ctl2 ctl3; do
			# shellcheck disable=SC2086
			"$cc" -m$bits -c -o "$T_TMP/$c.o" $IFLAGS "$T_TMP/$c.c" &&
				"$cc" -m$bits -r -nostdlib -o "$T_TMP/$c.all.o" "$d/all.o" "$T_TMP/$c.o" ||
				{ fail "negative control $c ($cc, ${bits}-bit)" "did not build"; continue; }
			if era_check "$T_TMP/$c.all.o" >"$T_TMP/$c.out"; then
				fail "symbol-era check rejects $c ($cc, ${bits}-bit)" "it passed"
			elif { [ $c = ctl1 ] && line=$(grep '^too new: explicit_bzero is in ILLUMOS_0.12' "$T_TMP/$c.out"); } ||
			     { [ $c = ctl2 ] && line=$(grep '^not in the table: rand' "$T_TMP/$c.out"); } ||
			     { [ $c = ctl3 ] && line=$(grep '^private: syscall is in SUNWprivate_1.1' "$T_TMP/$c.out"); }; then
				ok "symbol-era check rejects $c: $line ($cc, ${bits}-bit)"
			else
				fail "symbol-era check rejects $c ($cc, ${bits}-bit)" "$(cat "$T_TMP/$c.out")"
			fi
		done
	done
done

# sysroot_check ROOT WHAT BITS...: compiles against ROOT/usr/include only
# (and the compiler's own headers), as on illumos, then checks symbol eras.
sysroot_check() {
	root=$1 what=$2
	shift 2
	for cc in $COMPILERS; do
		gccinc=$("$cc" -print-file-name=include)
		for bits in "$@"; do
			d=$OUT/sysroot-$cc-$bits
			rm -rf "$d"
			compile_all "compiles against $what ($cc, ${bits}-bit)" "$d" "$cc" "$bits" \
				-nostdinc -isystem "$gccinc" -isystem "$root/usr/include" \
				-U__gnu_linux__ -Ulinux -D__SVR4 -Dsun -D_REENTRANT
			if [ -z "$have_nm" ]; then
				:
			elif [ -f "$d/all.o" ]; then
				check "symbol eras, $what ($cc, ${bits}-bit)" era_check "$d/all.o"
			else
				fail "symbol eras, $what ($cc, ${bits}-bit)" "the objects did not link into one"
			fi
		done
	done
}

# farm DEST SRC...: DEST links to every entry of the SRCs, earlier ones
# winning; a directory found in several is merged the same way.
farm() {
	mkdir -p "$1"
	fdest=$1
	shift
	for fsrc in "$@"; do
		for e in "$fsrc"/*; do
			[ -e "$e" ] || continue
			n=${e##*/}
			if [ ! -e "$fdest/$n" ]; then
				ln -s "$e" "$fdest/$n"
			elif [ -d "$e" ] && [ -d "$fdest/$n" ]; then
				if [ -L "$fdest/$n" ]; then
					first=$(readlink "$fdest/$n")
					rm "$fdest/$n"
					(farm "$fdest/$n" "$first" "$e")
				else
					(farm "$fdest/$n" "$e")
				fi
			fi
		done
	done
}

# stand_in_sysroot DIR BITS: a tree laid out as a sysroot, made of this
# machine's headers in the compiler's search order plus the declarations of
# tests/h_illumos_stand_in.h.  It is not illumos: it only drives the
# ILLUMOS_SYSROOT branch on a machine that has no illumos headers.
stand_in_sysroot() {
	inc=$1/usr/include
	ma=$(gcc -m"$2" -print-multiarch 2>/dev/null)
	if [ "$2" = 64 ] && [ -n "$ma" ] && [ -d "/usr/include/$ma" ]; then
		farm "$inc" "/usr/include/$ma" /usr/include
	else
		farm "$inc" /usr/include
	fi
	if [ -L "$inc/sys" ]; then
		t=$(readlink "$inc/sys")
		rm "$inc/sys"
		farm "$inc/sys" "$t"
	fi
	u=$(readlink "$inc/unistd.h") m=$(readlink "$inc/sys/mman.h") l=$(readlink "$inc/stdlib.h")
	rm "$inc/unistd.h" "$inc/sys/mman.h" "$inc/stdlib.h"
	printf '#include "%s"\nint issetugid(void);\n' "$u" >"$inc/unistd.h"
	printf '#include "%s"\nconst char *getexecname(void);\n' "$l" >"$inc/stdlib.h"
	printf '#include "%s"\n#undef MADV_WIPEONFORK\n#define MC_INHERIT_ZERO 8\nint memcntl(void *, size_t, int, void *, int, int);\n' \
		"$m" >"$inc/sys/mman.h"
}

# Against real illumos headers, when a tree of them is at hand.
if [ -z "${ILLUMOS_SYSROOT:-}" ]; then
	skip "compile against real illumos headers" \
		"ILLUMOS_SYSROOT is not set (a tree with usr/include from an illumos proto area or sysroot)"
elif [ ! -d "$ILLUMOS_SYSROOT/usr/include/sys" ]; then
	fail "compile against real illumos headers" "ILLUMOS_SYSROOT=$ILLUMOS_SYSROOT has no usr/include/sys"
else
	sysroot_check "$ILLUMOS_SYSROOT" "$ILLUMOS_SYSROOT" 64 32
fi
# The same branch, forced where no illumos headers exist, with a stand-in
# sysroot: proves the branch runs (flags, objects, symbol eras), not illumos.
if [ -z "${ILLUMOS_SYSROOT:-}" ] && command -v gcc >/dev/null 2>&1; then
	for bits in 64 32; do
		if ! echo 'int x;' | gcc -m$bits -fsyntax-only -x c - >/dev/null 2>&1; then
			skip "ILLUMOS_SYSROOT branch, forced, ${bits}-bit" "gcc -m$bits cannot build here"
			continue
		fi
		stand_in_sysroot "$T_TMP/sysroot$bits" $bits
		sysroot_check "$T_TMP/sysroot$bits" "a stand-in sysroot (ILLUMOS_SYSROOT branch forced)" $bits
	done
fi

# ---- 5: the readlink rules against the kernel's answers ---------------------------
# Linked with glibc and cmocka: the test supplies what illumos libc has and
# glibc lacks.  Run once per compiler, 64-bit (cmocka is this machine's).
if ! printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' |
	"${CC:-gcc}" -fsyntax-only -x c - >/dev/null 2>&1; then
	skip "illumos readlink rules, run" "cmocka headers not installed (Debian: libcmocka-dev)"
else
	for cc in $COMPILERS; do
		# shellcheck disable=SC2086
		if "$cc" -m64 -DFP_UNIT_TEST -o "$OUT/rl_illumos_$cc" $IFLAGS -include "$TOP/tests/h_illumos_stand_in.h" \
			-I. tests/test_readlink_illumos.c -lcmocka -ldl >"$T_TMP/rl_$cc.log" 2>&1; then
			check "illumos readlink rules: sockets, unnamed/named doors, pipes, named FIFOs, ports ($cc)" \
				"$OUT/rl_illumos_$cc"
		else
			fail "illumos readlink rules: build ($cc)" "$(head -20 "$T_TMP/rl_$cc.log")"
		fi
	done
fi

# ---- 3: the Makefile on illumos ---------------------------------------------------
# make -n with uname's answer overridden; no inherited CC or make flags.
# Continued lines are joined, one command a line.
mk_n() {
	env -u CC -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -B UNAME_S=SunOS "$@" all 2>&1 |
		sed -e ':a' -e '/\\$/N' -e 's/\\\n//' -e 'ta'
}
out=$(mk_n)
if printf '%s\n' "$out" | grep -q '^gcc -m32 .*-Wl,-z,now .*-o fastpath.so ' &&
	printf '%s\n' "$out" | grep -q '^gcc -m64 .*-Wl,-z,now .*-o 64/fastpath.so '; then
	ok "Makefile on illumos: gcc by default, 32-bit fastpath.so and 64/fastpath.so"
else
	fail "Makefile on illumos: gcc by default, both objects" "$out"
fi
out=$(mk_n CC=clang)
if printf '%s\n' "$out" | grep -q '^clang -m64 ' && ! printf '%s\n' "$out" | grep -q '^gcc '; then
	ok "Makefile on illumos: an explicit CC wins"
else
	fail "Makefile on illumos: an explicit CC wins" "$out"
fi

# ---- 4: interpose on illumos ---------------------------------------------------------
# A tree laid out as `make` leaves it on illumos, and a uname that says SunOS.
tree=$T_TMP/tree
mkdir -p "$tree/64" "$T_TMP/fakebin"
cp "$INTERPOSE" "$tree/interpose"
# Its awk jobs live beside it, as in a build tree and an install.
cp "$(dirname "$INTERPOSE")/interpose.awk" "$tree/interpose.awk"
: >"$tree/fastpath.so"
: >"$tree/64/fastpath.so"
cat >"$T_TMP/fakebin/uname" <<'EOF'
#!/bin/sh
echo SunOS
EOF
chmod +x "$T_TMP/fakebin/uname"
# interpose asks the kernel where Linux has /proc/sys/kernel/ostype, and
# uname only elsewhere: its test aid names the system instead.
export FASTPATH_TEST_OS=SunOS
L32=$(cd "$tree" && pwd -P)/fastpath.so
L64=$(cd "$tree" && pwd -P)/64/fastpath.so
# shellcheck disable=SC2016 # the inner shell expands these
show='printf "%s|%s|%s\n" "${LD_PRELOAD_32-unset}" "${LD_PRELOAD_64-unset}" "${LD_PRELOAD-unset}"'
# ip ENV...: runs the tree's interpose on illumos, printing the three lists.
# glibc does not know the libraries named here: its complaints go nowhere.
ip() { env -u LD_PRELOAD -u LD_PRELOAD_32 -u LD_PRELOAD_64 PATH="$T_TMP/fakebin:$PATH" "$@" \
	"$tree/interpose" sh -c "$show" 2>/dev/null; }

expect_eq "interpose on illumos: --print-path gives both objects" "$L32 $L64" \
	"$(PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" --print-path | tr '\n' ' ' | sed 's/ $//')"
expect_eq "interpose on illumos: nothing preloaded before" "$L32|$L64|unset" "$(ip)"
expect_eq "interpose on illumos: the operator's LD_PRELOAD reaches both classes" \
	"$L32:libumem.so|$L64:libumem.so|libumem.so" "$(ip LD_PRELOAD=libumem.so)"
expect_eq "interpose on illumos: in order, each once (colons and spaces)" \
	"$L32:a.so:b.so:c.so|$L64:a.so:b.so:c.so|a.so b.so:a.so c.so" \
	"$(ip LD_PRELOAD="a.so b.so:a.so c.so")"
expect_eq "interpose on illumos: a suffixed list overrides LD_PRELOAD for its class, as in ld.so.1" \
	"$L32:libumem.so|$L64:/opt/64/x.so|libumem.so" \
	"$(ip LD_PRELOAD=libumem.so LD_PRELOAD_64=/opt/64/x.so)"
expect_eq "interpose on illumos: a suffixed list set empty stays empty but ours" \
	"$L32|$L64:libumem.so|libumem.so" "$(ip LD_PRELOAD=libumem.so LD_PRELOAD_32=)"
expect_eq "interpose on illumos: ours already listed is not added again" \
	"$L32:libumem.so|$L64:libumem.so|libumem.so $L64" \
	"$(ip LD_PRELOAD="libumem.so $L64" LD_PRELOAD_32="$L32:libumem.so")"
expect_eq "interpose on illumos: no globbing of entries" \
	"$L32:*.so|$L64:*.so|*.so" "$(cd "$tree" && ip LD_PRELOAD='*.so')"
# interpose run by interpose: both objects still once.
expect_eq "interpose on illumos: nested, still each once" \
	"$L32:libumem.so|$L64:libumem.so|libumem.so" \
	"$(env -u LD_PRELOAD_32 -u LD_PRELOAD_64 LD_PRELOAD=libumem.so PATH="$T_TMP/fakebin:$PATH" \
		"$tree/interpose" "$tree/interpose" sh -c "$show" 2>/dev/null)"
# --pin on illumos: pbind(8) on the shell that execs the command (so on
# the command's own pid), to the first on-line processor pbind accepts;
# more than one CPU is a usage error that says why.  psrinfo and pbind are
# stand-ins that log what they were asked; pbind refuses the processors in
# $FAKE_PBIND_REFUSE as illumos does one in another processor set.
cat >"$T_TMP/fakebin/psrinfo" <<'EOF'
#!/bin/sh
printf '0\toff-line  since 12/01/2026 10:00:00\n1\ton-line   since 12/01/2026 10:00:00\n'
printf '2\tno-intr   since 12/01/2026 10:00:00\n3\ton-line   since 12/01/2026 10:00:00\n'
EOF
cat >"$T_TMP/fakebin/pbind" <<EOF
#!/bin/sh
echo "\$*" >>"$T_TMP/pbind.log"
[ "\$1" = -b ] || exit 2
case " \${FAKE_PBIND_REFUSE-} " in
*" \$2 "*) echo "pbind: cannot bind pid \$3: Invalid argument" >&2; exit 1 ;;
esac
echo "process id \$3: was not bound, now \$2"
EOF
chmod +x "$T_TMP/fakebin/psrinfo" "$T_TMP/fakebin/pbind"
: >"$T_TMP/pbind.log"
# shellcheck disable=SC2016 # the inner shell expands it
pid=$(PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" --cpus 1 --pin sh -c 'echo $$' 2>"$T_TMP/ip.err")
expect_eq "interpose on illumos: --pin binds the command's own pid to the first on-line processor" \
	"-b 1 $pid" "$(cat "$T_TMP/pbind.log")"
expect_eq "interpose on illumos: --pin says nothing" "" "$(cat "$T_TMP/ip.err")"
: >"$T_TMP/pbind.log"
# shellcheck disable=SC2016
pid=$(FAKE_PBIND_REFUSE=1 PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" --cpus 1 --pin sh -c 'echo $$' 2>/dev/null)
expect_eq "interpose on illumos: --pin takes the next processor pbind accepts (another processor set)" \
	"-b 1 $pid
-b 2 $pid" "$(cat "$T_TMP/pbind.log")"
FAKE_PBIND_REFUSE="1 2 3" PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" --cpus 1 --pin true 2>"$T_TMP/ip.err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'pbind could not bind' "$T_TMP/ip.err"; then
	ok "interpose on illumos: --pin where no processor can be bound is a usage error (125)"
else
	fail "interpose on illumos: --pin where none can be bound" "status $rc: $(cat "$T_TMP/ip.err")"
fi
: >"$T_TMP/pbind.log"
PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" --cpus 2 --pin true 2>"$T_TMP/ip.err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'on illumos only --cpus 1 (pbind(8)); 2 CPUs need a processor set' "$T_TMP/ip.err" &&
	[ ! -s "$T_TMP/pbind.log" ]; then
	ok "interpose on illumos: --cpus 2 --pin is a usage error that names psrset, and binds nothing"
else
	fail "interpose on illumos: --cpus 2 --pin" "status $rc: $(cat "$T_TMP/ip.err") pbind: $(cat "$T_TMP/pbind.log")"
fi
PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" --pin true 2>"$T_TMP/ip.err"
expect_eq "interpose on illumos: --pin without --cpus is a usage error" 125 "$?"

rm "$tree/64/fastpath.so"
PATH="$T_TMP/fakebin:$PATH" "$tree/interpose" true 2>"$T_TMP/ip.err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'cannot find 64/fastpath.so' "$T_TMP/ip.err"; then
	ok "interpose on illumos: a missing 64/fastpath.so is a usage error (125)"
else
	fail "interpose on illumos: a missing 64/fastpath.so" "status $rc: $(cat "$T_TMP/ip.err")"
fi

finish
