#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-deb: the Debian packages as an operator meets them.  Builds
# them (make deb: fastpath, libfastpath, and libfastpath:i386 on amd64),
# lintian --pedantic (no tag), installs them with apt from dist/ over the
# 0.1.0 single package's layout, runs the installed interpose (an i386
# program without and with libfastpath:i386), purges them, and finds
# nothing of them left that was not there before.  Needs root and the Debian tools
# (make deps); without them each part is a skip with its reason.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }
missing=
for t in dpkg-buildpackage dh lintian apt-get dpkg fakeroot; do have "$t" || missing="$missing $t"; done
if [ -n "$missing" ]; then
	skip "Debian package" "missing:$missing (make deps installs them)"
	finish
	exit
fi

rm -f dist/fastpath_* dist/fastpath-dbgsym_* dist/libfastpath_* dist/libfastpath-dbgsym_*
if ${MAKE:-make} --no-print-directory deb >"$T_TMP/build.log" 2>&1; then
	ok "make deb builds the packages"
else
	fail "make deb builds the packages" "$(tail -n 20 "$T_TMP/build.log")"
	finish
	exit
fi
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
# the Makefile's DEB_M32_ARCH: i386 where this machine is amd64
m32=
[ "$arch" = amd64 ] && m32=i386
fp=dist/fastpath_$(sed -n 's/^VERSION *= *//p' Makefile)
lfp=dist/libfastpath_$(sed -n 's/^VERSION *= *//p' Makefile)
for d in "${fp}_$arch.deb" "${lfp}_$arch.deb" ${m32:+"${lfp}_$m32.deb"}; do
	if [ -f "$d" ]; then ok "make deb gives $d"; else fail "make deb gives $d" "$(ls dist)"; fi
done
if [ -z "$m32" ]; then
	skip "libfastpath for i386" "this machine is $arch, not amd64"
fi
set -- dist/fastpath_*_i386.deb
if [ ! -f "$1" ]; then ok "no fastpath:i386 (fastpath is Multi-Arch: foreign)"; else fail "no fastpath:i386" "$*"; fi

lintian --pedantic --fail-on none "${fp}_$arch.deb" "${lfp}_$arch.deb" ${m32:+"${lfp}_$m32.deb"} 2>&1 |
	grep -v '^running with root privileges' >"$T_TMP/lintian"
if grep -E '^[EWIPX]: ' "$T_TMP/lintian" >"$T_TMP/lintian.tags"; then
	fail "lintian --pedantic: no tag" "$(cat "$T_TMP/lintian.tags")"
else
	ok "lintian --pedantic: no tag on the $(( ${m32:+1}+2 )) packages"
fi
dpkg-deb -f "${fp}_$arch.deb" Multi-Arch Depends >"$T_TMP/f"
if grep -qx 'Multi-Arch: foreign' "$T_TMP/f" && grep -q 'libfastpath (= ' "$T_TMP/f"; then
	ok "fastpath: Multi-Arch: foreign, depends on its libfastpath"
else fail "fastpath: Multi-Arch: foreign, depends on its libfastpath" "$(cat "$T_TMP/f")"; fi
expect_eq "libfastpath: Multi-Arch: same" "same" "$(dpkg-deb -f "${lfp}_$arch.deb" Multi-Arch)"

# What the packages ship, from the packages themselves.
shipped() { dpkg-deb --fsys-tarfile "$1" | tar -tf - | sed -e 's|^\./|/|' -e 's|/$||' | grep -v '^/*$'; }
shipped "${fp}_$arch.deb" >"$T_TMP/shipped"
for f in /usr/bin/interpose "/usr/lib/$multiarch/fastpath/fastpath-run" "/usr/lib/$multiarch/fastpath/survey.awk" \
	"/usr/lib/$multiarch/fastpath/interpose.awk" "/usr/lib/$multiarch/fastpath/libdirs" /usr/share/man/man1/interpose.1.gz \
	/usr/share/man/man7/fastpath.7.gz /usr/share/doc/fastpath/copyright /usr/share/doc/fastpath/changelog.gz; do
	if grep -qx "$f" "$T_TMP/shipped"; then ok "fastpath holds $f"; else fail "fastpath holds $f"; fi
done
shipped "${lfp}_$arch.deb" >"$T_TMP/shipped.lib"
expect_eq "libfastpath holds the object alone (and its docs)" "/usr/lib/$multiarch/fastpath/fastpath.so" \
	"$(grep -v -e '^/usr/share/doc' "$T_TMP/shipped.lib" | grep '\.so$')"
if [ -n "$m32" ]; then
	shipped "${lfp}_$m32.deb" >"$T_TMP/shipped.m32"
	if grep -qx /usr/lib/i386-linux-gnu/fastpath/fastpath.so "$T_TMP/shipped.m32"; then
		ok "libfastpath:i386 holds /usr/lib/i386-linux-gnu/fastpath/fastpath.so"
	else fail "libfastpath:i386 holds /usr/lib/i386-linux-gnu/fastpath/fastpath.so" "$(cat "$T_TMP/shipped.m32")"; fi
	dpkg-deb --fsys-tarfile "${lfp}_$m32.deb" | tar -xOf - ./usr/lib/i386-linux-gnu/fastpath/fastpath.so >"$T_TMP/o32"
	expect_eq "libfastpath:i386's object is ELF 32-bit" "1" "$(od -An -tu1 -j4 -N1 "$T_TMP/o32" | tr -d ' ')"
fi

if [ "$(id -u)" -ne 0 ]; then
	skip "install, run, purge" "not root (apt-get install needs it)"
	finish
	exit
fi
if dpkg -s fastpath >/dev/null 2>&1 || dpkg -s libfastpath >/dev/null 2>&1 || dpkg -s libfastpath:i386 >/dev/null 2>&1; then
	skip "install, run, purge" "a fastpath package is installed already: the purge check would remove it"
	finish
	exit
fi

# Installing and purging touches the machine's one dpkg database and
# /usr: two runs of this check at once (two clones) would see each other's
# package.  dpkg's own binary is the lock every run shares.
exec 8</usr/bin/dpkg
command -v flock >/dev/null 2>&1 && flock 8
if dpkg -s fastpath >/dev/null 2>&1 || dpkg -s libfastpath >/dev/null 2>&1; then
	skip "install, run, purge" "a fastpath package is installed already: the purge check would remove it"
	finish
	exit
fi

# Every path under what a package can touch (/usr, /etc, /var, /opt), before
# it comes.
listing() { find /usr /etc /var /opt -xdev 2>/dev/null | LC_ALL=C sort; }
listing >"$T_TMP/before"

# The upgrade from the single package of 0.1.0 (its layout: the object
# beside interpose's helpers): a stand-in of it installed first.
old=$T_TMP/old
mkdir -p "$old/DEBIAN" "$old/usr/bin" "$old/usr/lib/$multiarch/fastpath"
printf 'Package: fastpath\nVersion: 0.1.0\nArchitecture: %s\nMaintainer: t <t@t>\nDescription: the 0.1.0 layout\n' "$arch" >"$old/DEBIAN/control"
printf '#!/bin/sh\n' >"$old/usr/bin/interpose" && chmod 755 "$old/usr/bin/interpose"
: >"$old/usr/lib/$multiarch/fastpath/fastpath.so"
dpkg-deb --build "$old" "$T_TMP/fastpath_0.1.0_$arch.deb" >/dev/null 2>&1 &&
	dpkg -i "$T_TMP/fastpath_0.1.0_$arch.deb" >"$T_TMP/old.log" 2>&1
precond "the 0.1.0 stand-in installs" dpkg -s fastpath

if DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 \
	"./${fp}_$arch.deb" "./${lfp}_$arch.deb" >"$T_TMP/apt.log" 2>&1 && dpkg -s libfastpath >/dev/null 2>&1; then
	ok "apt-get install fastpath and libfastpath over 0.1.0's single package (Breaks/Replaces)"
else
	fail "apt-get install fastpath and libfastpath over 0.1.0's single package" "$(tail -n 10 "$T_TMP/apt.log")"
	dpkg --purge fastpath >/dev/null 2>&1
	finish
	exit
fi
dpkg -L fastpath libfastpath >"$T_TMP/dpkg-L"

# The installed interpose, with PATH that has no build tree in it.
path=$(/usr/bin/interpose --print-path 2>&1)
expect_eq "installed interpose --print-path names the installed object" \
	"/usr/lib/$multiarch/fastpath/fastpath.so" "$path"
line=$(cd / && /usr/bin/interpose --stats -- true 2>&1 >/dev/null)
if printf '%s\n' "$line" | grep -Eq "$FP_STATS_RE"; then
	ok "installed interpose --stats -- true: a summary line"
else
	fail "installed interpose --stats -- true: a summary line" "$line"
fi
rep=$(cd / && /usr/bin/interpose --survey -- true 2>&1 >/dev/null)
case $rep in
"fastpath survey of: true"*) ok "installed interpose --survey: finds the installed fastpath-run, a report" ;;
*) fail "installed interpose --survey: finds the installed fastpath-run, a report" "$rep" ;;
esac
conf=$(/usr/bin/interpose --unit web --root "$T_TMP" --dry-run 2>/dev/null | grep '^Environment=LD_PRELOAD=')
expect_eq "installed interpose --unit: the installed object" \
	"Environment=LD_PRELOAD=/usr/lib/$multiarch/fastpath/fastpath.so" "$conf"
v=$(/usr/bin/interpose --version)
expect_eq "installed interpose --version" "interpose (fastpath) $(sed -n 's/^VERSION *= *//p' Makefile)" "$v"

# An i386 program that opens /dev/urandom: without libfastpath:i386,
# interpose's one line; with it, the i386 object's summary line and no
# loader error.
ur32=$T_TMP/ur32
printf '#include <fcntl.h>\n#include <unistd.h>\nint main(void){char b[16];int fd=open("/dev/urandom",O_RDONLY);if(fd<0||read(fd,b,16)!=16)return 1;return close(fd);}\n' >"$T_TMP/ur32.c"
if [ -z "$m32" ]; then
	skip "a wrapped i386 program" "no libfastpath:i386 on $arch"
elif ! gcc -m32 -o "$ur32" "$T_TMP/ur32.c" >/dev/null 2>&1; then
	skip "a wrapped i386 program" "gcc -m32 cannot build here (gcc-multilib)"
elif [ -n "${FASTPATH_TEST_NO_I386:-}" ] || ! "$ur32"; then
	skip "a wrapped i386 program" "this kernel does not run i386 programs"
else
	(cd / && /usr/bin/interpose --stats -- "$ur32") >/dev/null 2>"$T_TMP/e32"
	rc=$?
	if [ $rc -eq 0 ] && grep -q 'a 32-bit program: .* cannot be preloaded into it; running it unmitigated' "$T_TMP/e32"; then
		ok "an i386 program, no libfastpath:i386: interpose's one line, run unmitigated"
	else fail "an i386 program, no libfastpath:i386: interpose's one line" "status $rc: $(cat "$T_TMP/e32")"; fi
	if ! dpkg --print-foreign-architectures | grep -qx i386; then
		echo "pre - adding the i386 architecture to dpkg (libfastpath:i386 needs libc6:i386)"
		dpkg --add-architecture i386 && apt-get update -q >/dev/null 2>&1
	fi
	if DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 \
		"./${lfp}_$m32.deb" >"$T_TMP/apt32.log" 2>&1 && dpkg -s libfastpath:i386 >/dev/null 2>&1; then
		ok "apt-get install libfastpath:i386 beside libfastpath:$arch"
		dpkg -L libfastpath:i386 >>"$T_TMP/dpkg-L"
		(cd / && /usr/bin/interpose --stats -- "$ur32") >/dev/null 2>"$T_TMP/e32"
		rc=$?
		if [ $rc -eq 0 ] && grep -Eq "$FP_STATS_RE" "$T_TMP/e32" && grep -q 'urandom [1-9]' "$T_TMP/e32" &&
			! grep -q -e 'cannot be preloaded' -e 'ELF class' "$T_TMP/e32"; then
			ok "an i386 program with libfastpath:i386: the i386 object's summary line, no loader error"
		else fail "an i386 program with libfastpath:i386: the i386 object's summary line" "status $rc: $(cat "$T_TMP/e32")"; fi
		# shellcheck disable=SC2016 # the loader's token, literally
		expect_eq "installed interpose --print-path: the loader's \$LIB entry" \
			'/usr/$LIB/fastpath/fastpath.so' "$(/usr/bin/interpose --print-path 2>&1)"
	elif grep -q -e 'Temporary failure' -e 'Could not resolve' -e 'Unable to fetch' -e 'Unable to locate' "$T_TMP/apt32.log"; then
		skip "libfastpath:i386 installed" "apt cannot fetch libc6:i386 here: $(grep -m1 -e 'Temporary failure' -e 'resolve' -e 'Unable to' "$T_TMP/apt32.log")"
	else
		fail "apt-get install libfastpath:i386" "$(tail -n 10 "$T_TMP/apt32.log")"
	fi
fi

if dpkg --purge fastpath libfastpath:"$arch" >"$T_TMP/purge.log" 2>&1 &&
	{ ! dpkg -s libfastpath:i386 >/dev/null 2>&1 || dpkg --purge libfastpath:i386 >>"$T_TMP/purge.log" 2>&1; } &&
	! dpkg -s fastpath >/dev/null 2>&1 && ! dpkg -s libfastpath >/dev/null 2>&1; then
	ok "dpkg --purge fastpath libfastpath (every architecture)"
else
	fail "dpkg --purge fastpath libfastpath" "$(tail -n 10 "$T_TMP/purge.log")"
fi
listing >"$T_TMP/after"
# New since before: only what is the packages' (their lists, or a fastpath
# name) counts; other engineers' installs on a shared machine, and the
# i386 libc the i386 object needed, do not.
LC_ALL=C comm -13 "$T_TMP/before" "$T_TMP/after" >"$T_TMP/new"
cat "$T_TMP/dpkg-L" "$T_TMP/shipped" "$T_TMP/shipped.lib" ${m32:+"$T_TMP/shipped.m32"} | LC_ALL=C sort -u >"$T_TMP/ours"
left=$( { LC_ALL=C comm -12 "$T_TMP/new" "$T_TMP/ours"; grep -i -e fastpath -e interpose "$T_TMP/new"; } | sort -u)
if [ -z "$left" ]; then
	ok "purge leaves no file behind ($(wc -l <"$T_TMP/ours") paths checked)"
else
	fail "purge leaves no file behind" "$left"
fi
finish
