/* SPDX-License-Identifier: MIT */
/*
 * A preload that lies, the negative control of tests/t_fdfuzz.sh: every
 * read of more than one byte returns one byte fewer than it read.  No
 * defect of issue 36 looks like it, so fd_fuzz must call it unknown and
 * fail.
 */
#include <dlfcn.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	ssize_t r = real(fd, buf, n);
	return r > 1 ? r - 1 : r;
}
