/* SPDX-License-Identifier: MIT */
/*
 * prog_syscall: getrandom through syscall(2), as PHP 8.2's random_bytes
 * makes it, past the C library's getrandom().
 *   prog_syscall N   N calls of syscall(SYS_getrandom, buf, 16, 0), then
 *                    the observations a preload must not change (results
 *                    and errno of syscall() with numbers it does and does
 *                    not look at), one a line, for the caller to compare
 *                    with a native run
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SYS_getrandom
int main(void)
{
	puts("no SYS_getrandom in these headers");
	return 77;
}
#else
static void obs(const char *what, long r, int err)
{
	printf("%s: %ld errno %d\n", what, r, r < 0 ? err : 0);
	tu_observed++;
}

int main(int argc, char **argv)
{
	unsigned char buf[64];
	long i, n = argc > 1 ? atol(argv[1]) : 1000, r;

	for (i = 0; i < n; i++) {
		r = syscall(SYS_getrandom, buf, 16, 0);
		TU_CHECK(r == 16, "call %ld: %ld (errno %d)", i, r, errno);
		if (r != 16)
			break;
	}
	errno = 0;
	r = syscall(SYS_getrandom, buf, 16, 0x1000); /* an unknown flag */
	obs("getrandom, unknown flag", r, errno);
	r = syscall(SYS_getrandom, (void *)1, 16, 0);
	obs("getrandom, bad buffer", r, errno);
	r = syscall(SYS_getrandom, buf, 0, 0);
	obs("getrandom, 0 bytes", r, errno);
	r = syscall(SYS_getrandom, buf, sizeof buf, 1 /* GRND_NONBLOCK */);
	obs("getrandom, nonblock 64", r, errno);
	r = syscall(SYS_getpid);
	obs("getpid is getpid()", r == (long)getpid(), 0);
	r = syscall(SYS_close, 9999);
	obs("close 9999", r, errno);
	r = syscall(SYS_read, -1, buf, 1);
	obs("read -1", r, errno);
	r = syscall(-1L);
	obs("number -1", r, errno);
	return tu_finish();
}
#endif
