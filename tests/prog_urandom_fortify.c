/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_fortify: built with -O2 -D_FORTIFY_SOURCE=2, so that open
 * with run-time flags becomes __open_2/__open64_2/__openat_2/__openat64_2
 * and read into a buffer of known size with a run-time length becomes
 * __read_chk.  t_urandom.sh checks with nm that those are what it calls,
 * and runs it natively and under fastpath.so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "testutil.h"

/* Run-time values, so the fortified inlines cannot pick the plain call. */
static volatile int flags_ro = O_RDONLY;
static volatile size_t len16 = 16;

static int is_device(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 9);
}

static void cycle(const char *name, int fd)
{
	unsigned char a[32], b[32];

	TU_CHECK(fd >= 0 && is_device(fd), "%s: fd %d", name, fd);
	TU_CHECK(read(fd, a, len16) == 16, "%s: __read_chk", name);
	TU_CHECK(read(fd, b, len16) == 16, "%s: __read_chk", name);
	TU_CHECK(memcmp(a, b, 16) != 0, "%s: same bytes twice", name);
	TU_CHECK(close(fd) == 0, "%s: close", name);
	errno = 0;
	TU_CHECK(read(fd, a, len16) == -1 && errno == EBADF, "%s: read after close", name);
}

int main(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		cycle("open", open("/dev/urandom", flags_ro));
		cycle("open64", open64("/dev/urandom", flags_ro));
		cycle("openat", openat(AT_FDCWD, "/dev/urandom", flags_ro));
		cycle("openat64", openat64(AT_FDCWD, "/dev/urandom", flags_ro | O_CLOEXEC));
	}
	errno = 0;
	TU_CHECK(open("/nonexistent/urandom", flags_ro) == -1 && errno == ENOENT, "ENOENT");
	return tu_finish();
}
