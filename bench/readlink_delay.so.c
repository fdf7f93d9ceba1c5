/* SPDX-License-Identifier: MIT */
/*
 * TEST/BENCH ONLY: a stand-in for the illumos kernel's name-cache scan.
 * Preloaded AFTER fastpath.so (LD_PRELOAD="fastpath.so readlink_delay.so"),
 * it sees only the readlinks that fastpath passed on to the "kernel".  A
 * readlink whose link leads to a node illumos keeps no path for (a socket,
 * a door, a pipe, an event port; on Linux a pipefs pipe, and an anonymous
 * inode such as epoll for the port) is made for real (so that strace counts
 * it), then spins for FP_BENCH_DELAY_US microseconds (default 1000; the
 * seed measured ~44 ms per call, all of it system time), then fails with
 * ENOENT, as illumos before 2015 did for those vnodes (vnodetopath_common,
 * dnlc_reverse_lookup).  Everything else, named FIFOs included, goes
 * straight to libc.  Spinning, not sleeping: the scan burnt CPU.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef S_IFDOOR
#define S_IFDOOR 0xD000
#endif
#ifndef S_IFPORT
#define S_IFPORT 0xE000
#endif
#define PIPEFS_MAGIC_ 0x50495045

static long delay_ns(void)
{
	static long ns = -1;
	const char *v;

	if (ns < 0)
		ns = ((v = getenv("FP_BENCH_DELAY_US")) ? atol(v) : 1000) * 1000L;
	return ns;
}

/* A FIFO on pipefs (a pipe), not a named one. */
static int on_pipefs(int dirfd, const char *path)
{
	char p[4200];
	struct statfs sf;

	if (path[0] != '/' && dirfd != AT_FDCWD) {
		snprintf(p, sizeof p, "/proc/self/fd/%d/%s", dirfd, path);
		path = p;
	}
	return statfs(path, &sf) == 0 && sf.f_type == PIPEFS_MAGIC_;
}

/* Would illumos scan the name cache for this link, then fail? */
static int would_scan(int dirfd, const char *path)
{
	struct stat st;
	int saved = errno, r;

	if (!path || fstatat(dirfd, path, &st, 0) != 0) {
		errno = saved;
		return 0;
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFSOCK: case S_IFDOOR: case S_IFPORT: case 0:
		r = 1;
		break;
	case S_IFIFO:
		r = on_pipefs(dirfd, path);
		break;
	default:
		r = 0;
	}
	errno = saved;
	return r;
}

/* The scan, then illumos' answer. */
static ssize_t scanned(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < delay_ns());
	errno = ENOENT;
	return -1;
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t readlink(const char *path, char *buf, size_t n)
{
	int slow = would_scan(AT_FDCWD, path);
	ssize_t r = NEXT(readlink)(path, buf, n);

	return slow ? scanned() : r;
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	int slow = would_scan(dirfd, path);
	ssize_t r = NEXT(readlinkat)(dirfd, path, buf, n);

	return slow ? scanned() : r;
}

#ifdef __GLIBC__
ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n, size_t buflen);

ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen)
{
	int slow = would_scan(AT_FDCWD, path);
	ssize_t r = NEXT(__readlink_chk)(path, buf, n, buflen);

	return slow ? scanned() : r;
}

ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n, size_t buflen)
{
	int slow = would_scan(dirfd, path);
	ssize_t r = NEXT(__readlinkat_chk)(dirfd, path, buf, n, buflen);

	return slow ? scanned() : r;
}
#endif
