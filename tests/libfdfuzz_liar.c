/* SPDX-License-Identifier: MIT */
/*
 * A preload that lies, the negative control of tests/t_fdfuzz.sh: the soft
 * RLIMIT_NOFILE it reports is one less than the kernel's.  Every program
 * fd_fuzz runs logs its limit first, and no defect of issue 36 looks like
 * this, so fd_fuzz must call it unknown and fail.
 */
#include <dlfcn.h>
#include <sys/resource.h>

int getrlimit(__rlimit_resource_t res, struct rlimit *rl)
{
	static int (*real)(__rlimit_resource_t, struct rlimit *);
	if (!real)
		real = (int (*)(__rlimit_resource_t, struct rlimit *))dlsym(RTLD_NEXT, "getrlimit");
	int r = real(res, rl);
	if (r == 0 && res == RLIMIT_NOFILE && rl->rlim_cur > 0)
		rl->rlim_cur--;
	return r;
}
