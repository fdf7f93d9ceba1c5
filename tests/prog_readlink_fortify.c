/* SPDX-License-Identifier: MIT */
/*
 * Built with -O2 -D_FORTIFY_SOURCE=2: readlink() and readlinkat() into
 * arrays of known size with a size the compiler cannot check become
 * __readlink_chk() and __readlinkat_chk().  Their answers must equal the
 * kernel's, and a size larger than the buffer must still abort, as glibc
 * does, rather than be answered by the shim.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* glibc's fortified entry points, called by name too: a compiler that does
 * not fortify readlink (clang 14 does not) still tests them. */
ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int fd, const char *path, char *buf, size_t len, size_t buflen);

/* Not a constant to the compiler, so the _chk forms are called. */
static volatile size_t vsize = 64;

static ssize_t kernel_readlink(const char *path, char *buf, size_t n)
{
	return syscall(SYS_readlinkat, AT_FDCWD, path, buf, n);
}

/* use: 0 readlink, 1 readlinkat (fortified by the compiler), 2 and 3 the
 * same by their _chk names */
static void check(const char *path, size_t size, int use)
{
	char a[64], k[64];
	ssize_t ra, rk;
	int ea, ek;

	memset(a, 'Z', sizeof a);
	memset(k, 'Z', sizeof k);
	errno = 0;
	switch (use) {
	case 0: ra = readlink(path, a, size); break;
	case 1: ra = readlinkat(AT_FDCWD, path, a, size); break;
	case 2: ra = __readlink_chk(path, a, size, sizeof a); break;
	default: ra = __readlinkat_chk(AT_FDCWD, path, a, size, sizeof a); break;
	}
	ea = errno;
	errno = 0;
	rk = kernel_readlink(path, k, size);
	ek = errno;
	TU_CHECK(ra == rk && (rk >= 0 || ea == ek) && memcmp(a, k, sizeof a) == 0,
	         "%s size %zu use %d: %zd \"%.*s\" vs kernel %zd", path, size, use, ra,
	         (int)(ra > 0 ? ra : 0), a, rk);
}

/* A size beyond the buffer: glibc's __chk_fail aborts the process. */
static int overflow_aborts(int use, const char *path)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		char small[8];
		ssize_t r;

		vsize = 64;
		if (use == 2)
			r = __readlink_chk(path, small, vsize, sizeof small);
		else
			r = __readlinkat_chk(AT_FDCWD, path, small, vsize, sizeof small);
		_exit(r == -12345);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 0;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

int main(void)
{
	int sv[2], p[2], fd;
	char path[64];
	size_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(p) != 0)
		return 2;
	for (fd = 0; fd <= p[1]; fd++) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		for (n = 1; n <= vsize; n += (n < 20 ? 1 : 22)) {
			int use;

			for (use = 0; use < 4; use++)
				check(path, n, use);
		}
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	TU_CHECK(overflow_aborts(2, path), "__readlink_chk with len > buflen did not abort");
	TU_CHECK(overflow_aborts(3, path), "__readlinkat_chk with len > buflen did not abort");
	return tu_finish();
}
