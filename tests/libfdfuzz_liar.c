/* SPDX-License-Identifier: MIT */
/*
 * A preload that lies, the negative controls of tests/t_fdfuzz.sh.  By
 * default the soft RLIMIT_NOFILE it reports is one less than the kernel's:
 * every program fd_fuzz runs logs its limit first, and no defect of issue
 * 36 looks like this, so fd_fuzz must call it unknown and fail.  With
 * FDFUZZ_LIAR=threads it tells the truth there and lies only to threads
 * other than the first, with O_NONBLOCK turned over in every F_GETFL they
 * make (as a description shared between two threads' opens would show):
 * only fd_fuzz's threads operation can see it.  With FDFUZZ_LIAR=pool it
 * answers an open of /dev/urandom the kernel refused with a dup of one
 * the program opened before and still holds, as a pool that outlived a
 * sandbox did (review 54): only a thread's drop can see it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* 0: the limit; 1: threads; 2: pool */
static int liar_mode(void)
{
	static int mode = -1;
	if (mode < 0) {
		const char *s = getenv("FDFUZZ_LIAR");
		mode = !s ? 0 : strcmp(s, "threads") == 0 ? 1 : strcmp(s, "pool") == 0 ? 2 : 0;
	}
	return mode;
}

static int held = -1;

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	va_list ap;
	va_start(ap, flags);
	int mode = va_arg(ap, int);
	va_end(ap);
	int r = real(path, flags, mode), e = errno;
	struct stat st;
	if (liar_mode() != 2 || strcmp(path, "/dev/urandom") != 0)
		return r;
	if (r >= 0)
		held = r;
	else if ((e == EPERM || e == EACCES || e == ENOENT) && held >= 0 && fstat(held, &st) == 0 &&
		 S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 9))
		return dup(held);
	errno = e;
	return r;
}

int getrlimit(__rlimit_resource_t res, struct rlimit *rl)
{
	static int (*real)(__rlimit_resource_t, struct rlimit *);
	if (!real)
		real = (int (*)(__rlimit_resource_t, struct rlimit *))dlsym(RTLD_NEXT, "getrlimit");
	int r = real(res, rl);
	if (r == 0 && res == RLIMIT_NOFILE && rl->rlim_cur > 0 && liar_mode() == 0)
		rl->rlim_cur--;
	return r;
}

int fcntl(int fd, int cmd, ...)
{
	static int (*real)(int, int, ...);
	if (!real)
		real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int r = real(fd, cmd, arg);
	if (cmd == F_GETFL && r >= 0 && liar_mode() == 1 && gettid() != getpid())
		r ^= O_NONBLOCK;
	return r;
}
