/* SPDX-License-Identifier: MIT */
/*
 * A preload with one defect of each kind tests/t_firstcall.sh looks for,
 * each at a function's first call: its negative control.
 *   getentropy       binds the real function at its first call, with
 *                    dlsym, which clears the program's pending dlerror()
 *                    message (what fastpath's localtime did before
 *                    commit 82c8198)
 *   sched_getcpu     leaves errno changed after a success
 *   get_nprocs_conf  puts a variable into the environment
 * The other two bind their real functions in the constructor, where a
 * dlsym clears nothing of the program's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static int (*real_sched_getcpu)(void);
static int (*real_get_nprocs_conf)(void);

__attribute__((constructor)) static void liar_init(void)
{
	real_sched_getcpu = (int (*)(void))dlsym(RTLD_NEXT, "sched_getcpu");
	real_get_nprocs_conf = (int (*)(void))dlsym(RTLD_NEXT, "get_nprocs_conf");
}

int getentropy(void *buf, size_t n)
{
	static int (*real)(void *, size_t);

	if (!real)
		real = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "getentropy");
	return real(buf, n);
}

int sched_getcpu(void)
{
	int r = real_sched_getcpu();

	errno = ENOENT;
	return r;
}

int get_nprocs_conf(void)
{
	setenv("FP_FIRSTCALL_LIAR", "1", 1);
	return real_get_nprocs_conf();
}
