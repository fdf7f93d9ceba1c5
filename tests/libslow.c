/* SPDX-License-Identifier: MIT */
/*
 * libslow.so: calls on a descriptor of /dev/urandom that sleep 200 ms.  Preloaded after fastpath.so, they are the calls fastpath's own
 * reach, so that a step of ours is held open long enough for another
 * thread to act in between:
 *   - close(), in any thread but the process's first (a reserve given
 *     back when the pooling ends, a hidden descriptor retired, a copy's
 *     spare: prog_urandom split-race, fork-split, fork-closing,
 *     split-setfl);
 *   - with SLOW_AFTER set, the same close() sleeps after the close
 *     itself, not before: the number is free meanwhile, for the program
 *     to open again (fork-closing reopened);
 *   - with SLOW_DUP set, dup() instead, in the process's first thread,
 *     after the duplicate is made (an exact-mode open's duplicate of the
 *     hidden descriptor, before the open looks at its record again:
 *     split-open).
 * Natively they only slow the program's own calls.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* Read once at load: the program may change its environment. */
static int slow_dup, slow_after;

__attribute__((constructor)) static void slow_init(void)
{
	slow_dup = getenv("SLOW_DUP") != NULL;
	slow_after = getenv("SLOW_AFTER") != NULL;
}

/* By its system call: fastpath's fstat says EBADF on a number it holds. */
static int raw_fstat(int fd, struct stat *st)
{
#ifdef SYS_fstat
	return (int)syscall(SYS_fstat, fd, st);
#else
	return fstat(fd, st);
#endif
}

static int is_device(int fd)
{
	struct stat st;

	return raw_fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 9);
}

static void slow(void)
{
	struct timespec t = { 0, 200000000 };

	nanosleep(&t, NULL);
}

static void slow_if_device(int fd)
{
	if (is_device(fd))
		slow();
}

int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (gettid() != getpid() && !slow_dup && slow_after && is_device(fd)) {
		int r = real(fd);

		slow();
		return r;
	}
	if (gettid() != getpid() && !slow_dup)
		slow_if_device(fd);
	return real(fd);
}

int dup(int fd)
{
	static int (*real)(int);
	int r;

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "dup");
	r = real(fd);
	if (r >= 0 && gettid() == getpid() && slow_dup)
		slow_if_device(r);
	return r;
}
