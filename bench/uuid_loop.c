/* SPDX-License-Identifier: MIT */
/*
 * uuid_loop: real libuuid's uuid_generate, as a program calls it.
 *   uuid_loop N          N uuids, nothing printed
 *   uuid_loop N print    N uuids, one a line (for a check that they are
 *                        distinct)
 * libuuid is loaded at run time (libuuid.so.1, Debian's libuuid1, which
 * nearly every system has), so the build needs no uuid-dev; where it is
 * missing, exit 77 and the bench row skips.  Under a filter refusing
 * getrandom with ENOSYS (tests/prog_urandom_seccomp ENOSYS uuid_loop N),
 * libuuid opens, reads and closes /dev/urandom for every uuid: the seed-001
 * pattern where it really lives (issue 36).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	void (*gen)(unsigned char *), (*unparse)(const unsigned char *, char *);
	void *h = dlopen("libuuid.so.1", RTLD_NOW);
	unsigned char u[16];
	char s[37];
	long i, n;
	int print;

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: uuid_loop N [print]\n");
		return 2;
	}
	print = argc > 2 && strcmp(argv[2], "print") == 0;
	if (!h) {
		fprintf(stderr, "uuid_loop: no libuuid.so.1: %s\n", dlerror());
		return 77;
	}
	*(void **)&gen = dlsym(h, "uuid_generate");
	*(void **)&unparse = dlsym(h, "uuid_unparse");
	if (!gen || !unparse) {
		fprintf(stderr, "uuid_loop: libuuid.so.1 lacks uuid_generate\n");
		return 77;
	}
	for (i = 0; i < n; i++) {
		gen(u);
		if (print) {
			unparse(u, s);
			puts(s);
		}
	}
	return 0;
}
