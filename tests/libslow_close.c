/* SPDX-License-Identifier: MIT */
/*
 * libslow_close.so: a close() that sleeps 200 ms before it closes a
 * descriptor of /dev/urandom, in any thread but the process's first.
 * Preloaded after fastpath.so, it is the close fastpath's own closes
 * reach, so that a close of ours (a reserve given back when the pooling
 * ends, a hidden descriptor retired) is held open long enough for the
 * first thread to act in between (prog_urandom split-race, fork-split,
 * fork-closing).  Natively it only slows the program's own closes of the
 * device.
 */
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int close(int fd)
{
	static int (*real)(int);
	struct stat st;

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (gettid() != getpid() && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 9)) {
		struct timespec t = { 0, 200000000 };

		nanosleep(&t, NULL);
	}
	return real(fd);
}
