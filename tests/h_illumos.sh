#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-illumos: what can be checked of the illumos build without an
# illumos machine (none exists here; nothing below ran on an illumos kernel).
#   1. every library source compiles as for illumos, 64- and 32-bit, with
#      each compiler we have: against glibc's headers plus the stand-in
#      declarations (tests/h_illumos_stand_in.h, which hides glibc so that
#      the illumos branches are compiled), and against headers as they
#      were before illumos#14418 (tests/h_illumos_old_headers.h, caddr_t);
#      against real illumos headers too, each tree of ILLUMOS_SYSROOTS (a
#      list; ILLUMOS_SYSROOT, one, is added to it);
#   2. the symbol-era check: every libc symbol those objects leave undefined
#      is in tests/illumos_libc_symbols.txt, in a version set no newer than
#      the floor there, and none in a private (SUNWprivate) set; newer ones
#      must be looked up at run time.  Against a real tree, also in that
#      tree's own libc mapfile-vers, public, no newer than SUNW_1.23.
#      Negative controls prove the check rejects a direct explicit_bzero, a
#      direct syscall (private; we link _syscall) and a symbol missing from
#      the table.  The objects' exports are checked against tests/t_core.sh's
#      lists, and none of glibc's own entry points may be among them;
#   3. the Makefile's illumos branch (gcc by default, both objects);
#   4. interpose's illumos branch, with uname faked to say SunOS;
#   5. the illumos readlink rules, compiled as for illumos (the stand-in
#      declarations; no Linux translation compiled in) and run against the
#      kernel's answer for each descriptor type as read in illumos-gate
#      (tests/test_readlink_illumos.c, which cites the source of each);
#   6. the kernel era check, with two trees or more: the system calls the
#      objects can make (each SYS_ name of the newest tree's
#      <sys/syscall.h>, turned into a symbol) must all be in the oldest
#      tree's <sys/syscall.h> (a kernel of that era answers any other with
#      SIGSYS), and each a row of docs/illumos.md's table with its number;
#   7. the compiler floor: a compiler without C11 atomics (gcc 4.7 of the
#      2013 images, played by its version macros, or __STDC_NO_ATOMICS__)
#      stops at fp_platform.h's #error that says why.
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
# INTERPOSED_ILLUMOS, and INTERPOSED_OWN's marker): the illumos objects may
# export nothing else.
ALLOWED=" $(sed -n '/^INTERPOSED\(_[A-Z]*\)\{0,1\}="/,/"$/p' "$TOP/tests/t_core.sh" |
	sed 's/^[A-Z_]*="//; s/"$//' | tr -s ' \t\n' '   ') "
# glibc's own entry points, which illumos libc has not: its fortified _2 and
# _chk functions, fcntl64 and __fcntl_time64, close_range, the __fxstat
# family; and the localtime mitigation's, which is glibc's only.  An illumos object exporting one compiled glibc's branch.
GLIBC_ONLY=" __open_2 __open64_2 __openat_2 __openat64_2 __read_chk __readlink_chk
	__readlinkat_chk __pread_chk __pread64_chk fcntl64 __fcntl_time64 close_range
	__fxstat __fxstat64 localtime mktime timelocal ctime tzset "

# export_check OBJECT BITS: every global default-visibility symbol it
# defines is on the lists, none is glibc's own, no 64-bit object exports a
# large-file twin (illumos has them in its 32-bit libc only), and, so that
# an empty listing cannot pass, open and __sysconf_xpg5 are among them.
export_check() {
	readelf -sW "$1" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }' \
		>"$T_TMP/exports" || return 2
	bad="" glibc=""
	while read -r s; do
		case $ALLOWED in *" $s "*) ;; *) bad="$bad $s" ;; esac
		case $GLIBC_ONLY in *" $s "*) glibc="$glibc $s" ;; esac
		case $2:$s in 64:*64 | 64:*64_2) glibc="$glibc $s" ;; esac
	done <"$T_TMP/exports"
	[ -z "$bad" ] || { echo "exported, not on tests/t_core.sh's lists:$bad"; return 1; }
	[ -z "$glibc" ] || { echo "exported, glibc's only (not illumos libc's):$glibc"; return 1; }
	[ "$(grep -c -x -e open -e __sysconf_xpg5 "$T_TMP/exports")" -eq 2 ] ||
		{ echo "open or __sysconf_xpg5 not exported: $(tr '\n' ' ' <"$T_TMP/exports")"; return 1; }
}

# mapfile_check OBJECT MAPFILE: every symbol OBJECT leaves undefined is in
# that libc's mapfile-vers (SYMBOL_VERSION blocks, newest first), in a
# public set no newer than SUNW_1.23 (the table's floor).
mapfile_check() {
	nm -u "$1" | awk '{ print $NF }' | sort -u >"$T_TMP/undef" || return 2
	awk -v undef="$T_TMP/undef" -v floor=SUNW_1.23 '
	/^SYMBOL_VERSION/ { cur = $2; if (cur == floor) atfloor = 1; if (!atfloor) newer[cur] = 1; next }
	cur != "" && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*(;|\{|$)/ {
		n = $1; sub(/;.*/, "", n)
		if (n ~ /:$/ || n ~ /^\$/) next
		if (!(n in set)) set[n] = cur
	}
	END {
		bad = 0
		if (!atfloor) { print "mapfile-vers: no " floor " set"; exit 1 }
		while ((getline name < undef) > 0) {
			if (name == "_GLOBAL_OFFSET_TABLE_") continue
			if (!(name in set)) { print "not in this libc: " name; bad = 1 }
			else if (set[name] ~ /^SUNWprivate/) { print "private in this libc: " name " (" set[name] ")"; bad = 1 }
			else if (set[name] in newer) { print "newer than " floor " in this libc: " name " (" set[name] ")"; bad = 1 }
		}
		exit bad
	}' "$2"
}

# compile_all LABEL OUTDIR CC BITS FLAGS...: each source to OUTDIR/*.o, then
# one relocatable object OUTDIR/all.o (only libc's symbols left undefined).
compile_all() {
	label=$1 dir=$2 cc=$3 bits=$4
	shift 4
	mkdir -p "$dir"
	for f in $SRCS; do
		# shellcheck disable=SC2086 # IFLAGS is one word per flag
		pcheck "$label: $f" "$cc" -m"$bits" -c -o "$dir/${f%.c}.o" $IFLAGS "$@" -I. "$f"
	done
	pcheck_end
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
			pcheck "compiles with pre-2022 illumos headers, caddr_t mmap ($cc, ${bits}-bit): $f" \
				"$cc" -m$bits -c -o /dev/null $IFLAGS \
				-include "$TOP/tests/h_illumos_old_headers.h" -I. "$f"
		done
		pcheck_end
		[ -n "$have_nm" ] || continue
		if [ ! -f "$d/all.o" ]; then
			fail "symbol eras ($cc, ${bits}-bit)" "the objects did not link into one"
			continue
		fi
		check "symbol eras: nothing newer than the floor is linked ($cc, ${bits}-bit)" era_check "$d/all.o"
		check "exports: only interposed functions, each on the lists, none glibc's ($cc, ${bits}-bit)" \
			export_check "$d/all.o" "$bits"
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

# sysroot_check ROOT WHAT TAG BITS...: compiles against ROOT/usr/include
# only (and the compiler's own headers), as on illumos, into
# $OUT/sysroot-TAG-CC-BITS, then checks symbol eras (the table, and ROOT's
# own mapfile-vers where it has one), exports and the _syscall rule.
sysroot_check() {
	root=$1 what=$2 tag=$3
	shift 3
	for cc in $COMPILERS; do
		gccinc=$("$cc" -print-file-name=include)
		for bits in "$@"; do
			if ! echo 'int x;' | "$cc" -m"$bits" -fsyntax-only -x c - >/dev/null 2>&1; then
				skip "$what ($cc, ${bits}-bit)" "$cc -m$bits cannot build here (Debian: gcc-multilib)"
				continue
			fi
			d=$OUT/sysroot-$tag-$cc-$bits
			rm -rf "$d"
			compile_all "compiles against $what ($cc, ${bits}-bit)" "$d" "$cc" "$bits" \
				-nostdinc -isystem "$gccinc" -isystem "$root/usr/include" \
				-U__gnu_linux__ -Ulinux -D__SVR4 -Dsun -D_REENTRANT
			[ -n "$have_nm" ] || continue
			if [ ! -f "$d/all.o" ]; then
				fail "symbol eras, $what ($cc, ${bits}-bit)" "the objects did not link into one"
				continue
			fi
			check "symbol eras, $what ($cc, ${bits}-bit)" era_check "$d/all.o"
			if [ -f "$root/mapfile-vers" ]; then
				check "symbol eras against its own libc's mapfile-vers, $what ($cc, ${bits}-bit)" \
					mapfile_check "$d/all.o" "$root/mapfile-vers"
				# Negative control: a private symbol and one too new
				# (or missing) for this libc, with what it links.
				printf 'int syscall(int, ...);\nvoid explicit_bzero(void *, unsigned long);\n%s\n' \
					'int ctl(void *p) { explicit_bzero(p, 8); return syscall(20); }' >"$T_TMP/ctlm.c"
				if "$cc" -m"$bits" -c -o "$T_TMP/ctlm.o" "$T_TMP/ctlm.c" &&
					"$cc" -m"$bits" -r -nostdlib -o "$T_TMP/ctlm.all.o" "$d/all.o" "$T_TMP/ctlm.o" &&
					! mapfile_check "$T_TMP/ctlm.all.o" "$root/mapfile-vers" >"$T_TMP/ctlm.out" &&
					grep -q '^private in this libc: syscall (SUNWprivate' "$T_TMP/ctlm.out" &&
					grep -q -e '^not in this libc: explicit_bzero' \
						-e '^newer than SUNW_1.23 in this libc: explicit_bzero (ILLUMOS_' "$T_TMP/ctlm.out"; then
					ok "mapfile-vers check rejects a private syscall and explicit_bzero: $(tr '\n' ';' <"$T_TMP/ctlm.out") $what ($cc, ${bits}-bit)"
				else
					fail "mapfile-vers check rejects a private syscall and explicit_bzero, $what ($cc, ${bits}-bit)" \
						"$(cat "$T_TMP/ctlm.out" 2>/dev/null)"
				fi
			fi
			check "exports, $what: only interposed functions, none glibc's ($cc, ${bits}-bit)" \
				export_check "$d/all.o" "$bits"
			u=$(nm -u "$d/all.o" | awk '{ print $NF }')
			if printf '%s\n' "$u" | grep -qx _syscall && ! printf '%s\n' "$u" | grep -qx syscall; then
				ok "raw system calls through _syscall, $what ($cc, ${bits}-bit)"
			else
				fail "raw system calls through _syscall, $what ($cc, ${bits}-bit)" \
					"$(printf '%s\n' "$u" | grep -i syscall)"
			fi
		done
	done
}

# syscall_names FILE: the SYS_ names a <sys/syscall.h> gives numbers, one a
# line, "NAME NUMBER".
syscall_names() {
	sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}SYS_\([A-Za-z0-9_]*\)[[:space:]]\{1,\}\([0-9][0-9]*\).*/\1 \2/p' "$1"
}

# sysno_tree DIR ROOT: DIR/sys/syscall.h is ROOT's with each SYS_name turned
# into an external symbol fp_sysno_name, so that the system calls an object
# can make are its undefined fp_sysno_ symbols (#ifdef SYS_name still holds).
sysno_tree() {
	mkdir -p "$1/sys"
	sed 's/^#[[:space:]]*define[[:space:]]\{1,\}SYS_\([A-Za-z0-9_]*\)[[:space:]]\{1,\}[0-9][0-9]*.*/extern const int fp_sysno_\1;\
#define SYS_\1 fp_sysno_\1/' "$2/usr/include/sys/syscall.h" >"$1/sys/syscall.h"
}

# kernel_era_check USED FLOOR_H NEW_H DOC: USED lists the system calls the
# objects can make (one name a line).  Each must be in FLOOR_H (the oldest
# kernel's <sys/syscall.h>), or have a guard named in DOC's table; each must
# be a row of DOC's table ("| `SYS_name` | number | ... | guard |") with
# NEW_H's number, and each row must be one of them.
kernel_era_check() {
	syscall_names "$2" >"$T_TMP/floor.sys"
	syscall_names "$3" >"$T_TMP/new.sys"
	# shellcheck disable=SC2016 # backquotes of Markdown, not the shell's
	sed -n 's/^| `SYS_\([A-Za-z0-9_]*\)` | \([0-9]*\) |.*| \([^|]*\) |$/\1 \2 \3/p' "$4" >"$T_TMP/doc.sys"
	awk -v used="$1" -v floor="$T_TMP/floor.sys" -v new="$T_TMP/new.sys" '
	BEGIN {
		while ((getline l < floor) > 0) { split(l, f, " "); old[f[1]] = f[2] }
		while ((getline l < new) > 0) { split(l, f, " "); num[f[1]] = f[2] }
	}
	{ row[$1] = $2; g = $0; sub(/^[^ ]* [^ ]* /, "", g); guard[$1] = g }
	END {
		bad = 0
		while ((getline n < used) > 0) {
			seen[n] = 1
			if (!(n in row)) { print "SYS_" n " (" num[n] ") has no row in the table"; bad = 1 }
			else if (row[n] != num[n]) { print "SYS_" n ": the table says " row[n] ", the headers " num[n]; bad = 1 }
			if (!(n in old) && (!(n in guard) || guard[n] ~ /^(-|none)?[ ]*$/)) {
				print "SYS_" n " (" num[n] ") can be made, and the oldest kernel lacks it (nosys: SIGSYS), unguarded"
				bad = 1
			}
		}
		for (n in row)
			if (!(n in seen)) { print "SYS_" n ": a row in the table, but never made"; bad = 1 }
		exit bad
	}' "$T_TMP/doc.sys"
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
	# fp_platform.h includes <sys/mman.h> after the others: from there on it
	# sees no glibc, as tests/h_illumos_stand_in.h does.
	{
		printf '#include "%s"\n#undef MADV_WIPEONFORK\n#define MC_INHERIT_ZERO 8\n' "$m"
		printf 'int memcntl(void *, size_t, int, void *, int, int);\n'
		printf '#undef __GLIBC__\n#undef __GLIBC_MINOR__\n#define F_DUP2FD 9\n#define F_DUP2FD_CLOEXEC 36\n'
	} >"$inc/sys/mman.h"
	# illumos's statvfs names the file system's type (f_basetype), as in
	# tests/h_illumos_stand_in.h
	v=$(readlink "$inc/sys/statvfs.h")
	rm "$inc/sys/statvfs.h"
	{
		printf '#include "%s"\n' "$v"
		printf 'struct fp_illumos_statvfs { unsigned long f_bsize, f_frsize; unsigned long long f_blocks, f_bfree, f_bavail, f_files, f_ffree, f_favail; unsigned long f_fsid; char f_basetype[16]; unsigned long f_flag, f_namemax; char f_fstr[32]; };\n'
		printf '#define statvfs fp_illumos_statvfs\n#define fstatvfs(fd, sv) (fstatvfs)((fd), (void *)(sv))\n'
	} >"$inc/sys/statvfs.h"
}

# Against real illumos headers, each tree of ILLUMOS_SYSROOTS (and
# ILLUMOS_SYSROOT).  .ci/run passes the two of ../shared/illumos.
ROOTS=
for r in ${ILLUMOS_SYSROOTS:-} ${ILLUMOS_SYSROOT:-}; do
	case " $ROOTS " in *" $r "*) ;; *) ROOTS="$ROOTS $r" ;; esac
done
nroots=0
for r in $ROOTS; do
	if [ ! -f "$r/usr/include/sys/syscall.h" ]; then
		fail "compile against real illumos headers" "$r has no usr/include/sys/syscall.h"
		continue
	fi
	nroots=$((nroots + 1))
	sysroot_check "$r" "illumos headers $r" "$nroots" 64 32
done
if [ -z "$ROOTS" ]; then
	skip "compile against real illumos headers" \
		"ILLUMOS_SYSROOTS is not set (trees with usr/include from an illumos proto area or sysroot; CI uses ../shared/illumos)"
fi

# ---- 6: the kernel era check --------------------------------------------------
# The newest tree names the most system calls, the oldest the fewest.
newest="" oldest="" nmax=-1 nmin=999999
for r in $ROOTS; do
	[ -f "$r/usr/include/sys/syscall.h" ] || continue
	n=$(syscall_names "$r/usr/include/sys/syscall.h" | wc -l)
	[ "$n" -gt "$nmax" ] && { nmax=$n; newest=$r; }
	[ "$n" -lt "$nmin" ] && { nmin=$n; oldest=$r; }
done
if [ -z "$have_nm" ]; then
	:
elif [ -z "$newest" ] || [ "$newest" = "$oldest" ]; then
	skip "kernel era check" "needs two trees of illumos headers of different eras in ILLUMOS_SYSROOTS"
else
	sysno_tree "$T_TMP/sysno" "$newest"
	# shellcheck disable=SC2086 # the first compiler
	set -- $COMPILERS
	cc=$1
	gccinc=$("$cc" -print-file-name=include)
	: >"$T_TMP/used.all"
	sysno_flags="-nostdinc -isystem $gccinc -isystem $T_TMP/sysno -isystem $newest/usr/include
		-U__gnu_linux__ -Ulinux -D__SVR4 -Dsun -D_REENTRANT"
	for bits in 64 32; do
		echo 'int x;' | "$cc" -m$bits -fsyntax-only -x c - >/dev/null 2>&1 || continue
		d=$OUT/sysno-$bits
		# shellcheck disable=SC2086 # one word per flag
		compile_all "compiles with each system call a symbol ($cc, ${bits}-bit)" "$d" "$cc" "$bits" \
			$sysno_flags
		nm -u "$d/all.o" | awk '{ print $NF }' | sed -n 's/^fp_sysno_//p' >>"$T_TMP/used.all"
	done
	sort -u "$T_TMP/used.all" >"$T_TMP/used"
	if [ ! -s "$T_TMP/used" ]; then
		fail "kernel era check" "no system call found in the objects (the discovery build failed?)"
	else
		check "kernel era: the system calls the objects can make ($(tr '\n' ' ' <"$T_TMP/used" | sed 's/ $//')) are all in $oldest's kernel and in docs/illumos.md's table" \
			kernel_era_check "$T_TMP/used" "$oldest/usr/include/sys/syscall.h" \
			"$newest/usr/include/sys/syscall.h" "$TOP/docs/illumos.md"
		# Negative control: getrandom(2) made directly, as fp_raw_getrandom
		# did before (illumos 5803, 2015: a 2013 kernel kills the program).
		printf '#include <sys/syscall.h>\nint _syscall(int, ...);\nint ctl(void *b) { return _syscall(SYS_getrandom, b, 8, 0); }\n' \
			>"$T_TMP/ctl4.c"
		# shellcheck disable=SC2086
		if "$cc" -m64 -c -o "$T_TMP/ctl4.o" $IFLAGS $sysno_flags "$T_TMP/ctl4.c" &&
			nm -u "$T_TMP/ctl4.o" | awk '{ print $NF }' | sed -n 's/^fp_sysno_//p' |
			cat - "$T_TMP/used" | sort -u >"$T_TMP/used4" &&
			! kernel_era_check "$T_TMP/used4" "$oldest/usr/include/sys/syscall.h" \
				"$newest/usr/include/sys/syscall.h" "$TOP/docs/illumos.md" >"$T_TMP/ctl4.out" &&
			line=$(grep '^SYS_getrandom (126) can be made, and the oldest kernel lacks it' "$T_TMP/ctl4.out"); then
			ok "kernel era check rejects a direct getrandom(2): $line"
		else
			fail "kernel era check rejects a direct getrandom(2)" "$(cat "$T_TMP/ctl4.out" 2>/dev/null)"
		fi
	fi
fi

# The sysroot branch, forced where no illumos headers exist, with a stand-in
# sysroot: proves the branch runs (flags, objects, symbol eras), not illumos.
if [ -z "$ROOTS" ] && command -v gcc >/dev/null 2>&1; then
	for bits in 64 32; do
		if ! echo 'int x;' | gcc -m$bits -fsyntax-only -x c - >/dev/null 2>&1; then
			skip "ILLUMOS_SYSROOTS branch, forced, ${bits}-bit" "gcc -m$bits cannot build here"
			continue
		fi
		stand_in_sysroot "$T_TMP/sysroot$bits" $bits
		sysroot_check "$T_TMP/sysroot$bits" "a stand-in sysroot (ILLUMOS_SYSROOTS branch forced)" \
			"stand-in" $bits
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

# ---- 7: the compiler floor -------------------------------------------------------
# gcc 4.7 (the 2013 images' compiler) played by gcc with its version macros
# set so and a <stdatomic.h> that is not there: the first error must be
# fp_platform.h's own, which names the floor.  Then any compiler that says it
# has no C11 atomics (__STDC_NO_ATOMICS__).
mkdir -p "$T_TMP/noatomic"
echo '#error "no such header in this compiler (stdatomic.h)"' >"$T_TMP/noatomic/stdatomic.h"
FLOOR_MSG='fastpath needs C11 atomics (<stdatomic.h>, _Atomic): gcc 4.9 or clang 3.6 or later'
# floor_check OUT CC FLAGS...: the build fails, and its first error is ours.
floor_check() {
	o=$1 c=$2
	shift 2
	# shellcheck disable=SC2086
	if "$c" -m64 -fsyntax-only $IFLAGS "$@" -include "$TOP/tests/h_illumos_stand_in.h" -I. fastpath.c \
		>"$o" 2>&1; then
		echo "it compiled"
		return 1
	fi
	first=$(grep -m 1 'error' "$o")
	case $first in
	*"$FLOOR_MSG"*) return 0 ;;
	*) echo "first error: $first"; return 1 ;;
	esac
}
case " $COMPILERS " in *" gcc "*)
	check "compiler floor: gcc 4.7 (no <stdatomic.h>) stops at fp_platform.h's #error naming gcc 4.9" \
		floor_check "$T_TMP/floor47" gcc -isystem "$T_TMP/noatomic" \
		-U__GNUC__ -D__GNUC__=4 -U__GNUC_MINOR__ -D__GNUC_MINOR__=7
	;;
esac
for cc in $COMPILERS; do
	check "compiler floor: a compiler without C11 atomics (__STDC_NO_ATOMICS__) stops at that #error ($cc)" \
		floor_check "$T_TMP/floor-$cc" "$cc" -D__STDC_NO_ATOMICS__=1
done

# The readv length check with a signed iov_len (32-bit illumos) at 32 bits
# too (the unit test, tests/test_urandom_iov.c; make builds it 64-bit).
if printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\nint main(void) { return 0; }\n' |
	"${CC:-gcc}" -m32 -x c -o "$T_TMP/cm32" - -lcmocka >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	if "${CC:-gcc}" -m32 -DFP_UNIT_TEST -std=gnu11 -O2 -pthread -D_GNU_SOURCE -Wall -Wextra -Werror -I. \
		-o "$OUT/test_urandom_iov32" tests/test_urandom_iov.c -lcmocka >"$T_TMP/iov32.log" 2>&1; then
		check "readv lengths, 32-bit: a negative iov_len is left to the kernel (EINVAL)" "$OUT/test_urandom_iov32"
	else
		fail "readv lengths, 32-bit: build" "$(head -20 "$T_TMP/iov32.log")"
	fi
else
	skip "readv lengths, 32-bit (tests/test_urandom_iov.c)" "no 32-bit cmocka here (Debian: libcmocka-dev:i386)"
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
