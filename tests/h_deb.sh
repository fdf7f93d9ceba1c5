#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-deb: the Debian package as an operator meets it.  Builds it
# (make deb), lintian (no error, no warning), installs it with apt from
# dist/, runs the installed interpose, purges it, and finds nothing of it
# left that was not there before.  Needs root and the Debian tools
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

rm -f dist/fastpath_*.deb dist/fastpath-dbgsym_*.deb dist/fastpath_*.changes dist/fastpath_*.buildinfo
if ${MAKE:-make} --no-print-directory deb >"$T_TMP/build.log" 2>&1; then
	ok "make deb builds the package"
else
	fail "make deb builds the package" "$(tail -n 20 "$T_TMP/build.log")"
	finish
	exit
fi
set -- dist/fastpath_*_*.deb
deb=$1
if [ -f "$deb" ] && [ $# -eq 1 ]; then ok "one package in dist/ ($deb)"; else fail "one package in dist/" "$*"; fi

lintian --fail-on none dist/fastpath_*.changes >"$T_TMP/lintian" 2>&1
if grep -E '^[EW]: ' "$T_TMP/lintian" >"$T_TMP/lintian.ew"; then
	fail "lintian: no error, no warning" "$(cat "$T_TMP/lintian.ew")"
else
	ok "lintian: no error, no warning"
fi

# What the package ships, from the package itself.
dpkg-deb --fsys-tarfile "$deb" | tar -tf - | sed -e 's|^\./|/|' -e 's|/$||' | grep -v '^/*$' >"$T_TMP/shipped"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
for f in /usr/bin/interpose "/usr/lib/$multiarch/fastpath/fastpath.so" \
	"/usr/lib/$multiarch/fastpath/fastpath-run" "/usr/lib/$multiarch/fastpath/survey.awk" \
	"/usr/lib/$multiarch/fastpath/interpose.awk" /usr/share/man/man1/interpose.1.gz \
	/usr/share/man/man7/fastpath.7.gz /usr/share/doc/fastpath/copyright \
	/usr/share/doc/fastpath/changelog.gz; do
	if grep -qx "$f" "$T_TMP/shipped"; then ok "package holds $f"; else fail "package holds $f"; fi
done

if [ "$(id -u)" -ne 0 ]; then
	skip "install, run, purge" "not root (apt-get install needs it)"
	finish
	exit
fi
if dpkg -s fastpath >/dev/null 2>&1; then
	skip "install, run, purge" "a fastpath package is installed already: the purge check would remove it"
	finish
	exit
fi

# Installing and purging touches the machine's one dpkg database and
# /usr: two runs of this check at once (two clones) would see each other's
# package.  dpkg's own binary is the lock every run shares.
exec 8</usr/bin/dpkg
command -v flock >/dev/null 2>&1 && flock 8
if dpkg -s fastpath >/dev/null 2>&1; then
	skip "install, run, purge" "a fastpath package is installed already: the purge check would remove it"
	finish
	exit
fi

# Every path under what a package can touch (/usr, /etc, /var, /opt), before
# it comes.
listing() { find /usr /etc /var /opt -xdev 2>/dev/null | LC_ALL=C sort; }
listing >"$T_TMP/before"

if DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 \
	"./$deb" >"$T_TMP/apt.log" 2>&1 && dpkg -s fastpath >/dev/null 2>&1; then
	ok "apt-get install ./$deb"
else
	fail "apt-get install ./$deb" "$(tail -n 10 "$T_TMP/apt.log")"
	finish
	exit
fi
dpkg -L fastpath >"$T_TMP/dpkg-L"

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
if [ -x /usr/lib/i386-linux-gnu/fastpath/fastpath.so ] || [ -f /usr/lib/i386-linux-gnu/fastpath/fastpath.so ]; then
	fail "an i386 object is packaged but no test runs it" "add the wrapped i386 program here"
else
	skip "a wrapped i386 program" "the package is native-only (debian/rules: M32=no; an i386 object belongs in a fastpath:i386 package, which this tree does not build yet)"
fi

if dpkg --purge fastpath >"$T_TMP/purge.log" 2>&1 && ! dpkg -s fastpath >/dev/null 2>&1; then
	ok "dpkg --purge fastpath"
else
	fail "dpkg --purge fastpath" "$(tail -n 10 "$T_TMP/purge.log")"
fi
listing >"$T_TMP/after"
# New since before: only what is the package's (its list, or a fastpath
# name) counts; other engineers' installs on a shared machine do not.
LC_ALL=C comm -13 "$T_TMP/before" "$T_TMP/after" >"$T_TMP/new"
cat "$T_TMP/dpkg-L" "$T_TMP/shipped" | LC_ALL=C sort -u >"$T_TMP/ours"
left=$( { LC_ALL=C comm -12 "$T_TMP/new" "$T_TMP/ours"; grep -i -e fastpath -e interpose "$T_TMP/new"; } | sort -u)
if [ -z "$left" ]; then
	ok "purge leaves no file behind ($(wc -l <"$T_TMP/ours") paths checked)"
else
	fail "purge leaves no file behind" "$left"
fi
finish
