#!/bin/sh
# SPDX-License-Identifier: MIT
# dst_lib.sh CC [FLAG]...: what glibc's dynamic loader makes of the $LIB
# token in LD_PRELOAD for programs that CC FLAG... builds (one line, e.g.
# lib/x86_64-linux-gnu, lib32, lib64), or nothing where that loader does not
# expand it (musl's expands no token in LD_PRELOAD) or CC cannot build.
# The Makefile asks it for the native class and for -m32; interpose then
# preloads DIR/$LIB/fastpath.so and each process loads the object of its
# own class.  Not hard-coded: Debian's libc6-i386 says lib32 where its
# multiarch libc6:i386 says lib/i386-linux-gnu, Fedora lib64 and lib, Arch
# lib and lib32.
#
# A probe program is run with LD_LIBRARY_PATH (where the loader expands the
# token too) and LD_DEBUG=libs, which prints the expanded search path.
# Where the program cannot run (a kernel without IA32 emulation, or
# FASTPATH_TEST_NO_I386 set: a test aid that takes this branch anyway),
# the answer is derived as glibc derives it at its build: the last part of
# the directory that holds its libc.so.6 (slibdir), with Debian's
# multiarch directory kept whole (lib/<triple>).
cc=${1:?usage: dst_lib.sh CC [FLAG]...}
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastpath-dst.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'int main(void) { return 0; }\n' >"$tmp/p.c"
# shellcheck disable=SC2086 # CC may be several words (ccache gcc)
$cc "$@" -o "$tmp/p" "$tmp/p.c" >/dev/null 2>&1 || exit 0

# Pretend only for i386: the native class is the one this shell runs as.
norun=
for a in "$@"; do [ "$a" = -m32 ] && norun=${FASTPATH_TEST_NO_I386:-}; done
if [ -z "$norun" ] && "$tmp/p" 2>/dev/null; then
	# The last entry of the first search path is the directory itself,
	# after its hwcaps subdirectories.  A loader that prints none (musl)
	# gives nothing.
	# shellcheck disable=SC2016 # the loader's token, not the shell's
	LD_DEBUG=libs LD_LIBRARY_PATH='/fastpath-dst-probe/$LIB' "$tmp/p" 2>&1 |
		sed -n '/(LD_LIBRARY_PATH)/{s/[[:space:]]*(LD_LIBRARY_PATH).*//; s/.*[=:]//; s|^/fastpath-dst-probe/||p; q;}'
	exit 0
fi
# Only glibc has a libc.so.6 for the compiler to name.
# shellcheck disable=SC2086
libc=$($cc "$@" -print-file-name=libc.so.6 2>/dev/null)
case $libc in /*) ;; *) exit 0 ;; esac
[ -f "$libc" ] || exit 0
d=$(cd -P -- "${libc%/*}" 2>/dev/null && pwd -P) || exit 0
# shellcheck disable=SC2086
triple=$($cc "$@" -print-multiarch 2>/dev/null)
if [ -n "$triple" ] && [ "${d##*/}" = "$triple" ]; then
	printf 'lib/%s\n' "$triple"
else
	printf '%s\n' "${d##*/}"
fi
