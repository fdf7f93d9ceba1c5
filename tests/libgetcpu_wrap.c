/* SPDX-License-Identifier: MIT */
/*
 * libgetcpu_wrap.so: a preload after fastpath.so that wraps sched_getcpu,
 * as a tracer or a test double would.  It answers the real CPU plus 1000,
 * so that t_cpus can tell that fastpath's sched_getcpu called through to
 * the function it bound rather than reading the rseq area itself.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <sched.h>

int sched_getcpu(void)
{
	static int (*real)(void);
	int c;

	if (!real)
		real = (int (*)(void))dlsym(RTLD_NEXT, "sched_getcpu");
	c = real ? real() : -1;
	return c < 0 ? c : c + 1000;
}
