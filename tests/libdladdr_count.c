/* SPDX-License-Identifier: MIT */
/*
 * libdladdr_count.so: preloaded before fastpath.so, it sees every dladdr
 * and dladdr1 fastpath.so makes (their calls bind to the first definition)
 * and passes them on; at exit, "dladdr N" on stderr.  t_core.sh holds the
 * start-up to none: dladdr looks for the nearest symbol, a walk of the C
 * library's whole symbol table in every process (issue 39).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static unsigned long count_calls;

int dladdr(const void *addr, Dl_info *info)
{
	static int (*real)(const void *, Dl_info *);

	if (!real)
		real = (int (*)(const void *, Dl_info *))dlsym(RTLD_NEXT, "dladdr");
	count_calls++;
	return real ? real(addr, info) : 0;
}

int dladdr1(const void *addr, Dl_info *info, void **extra, int flags)
{
	static int (*real)(const void *, Dl_info *, void **, int);

	if (!real)
		real = (int (*)(const void *, Dl_info *, void **, int))dlsym(RTLD_NEXT, "dladdr1");
	count_calls++;
	return real ? real(addr, info, extra, flags) : 0;
}

__attribute__((destructor)) static void count_say(void)
{
	char line[40];
	int n = snprintf(line, sizeof line, "dladdr %lu\n", count_calls);

	if (n > 0)
		(void)write(STDERR_FILENO, line, (size_t)n);
}
