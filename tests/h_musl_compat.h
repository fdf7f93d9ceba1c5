/* SPDX-License-Identifier: MIT */
/*
 * Forced into the integration programs when they are built for musl
 * (tests/h_port.sh).  musl 1.2.3 lacks what these stand in for:
 *   strerrorname_np: the programs only print the name, and the native and
 *     preloaded runs are diffed, so the number serves as well;
 *   fcntl64: musl's fcntl is already the large-file one;
 *   close_range, closefrom: musl programs reach the kernel's close_range
 *     through syscall(), which no preload sees, so that is what is tested.
 */
#include <stdio.h>
#include <features.h>
#ifndef __GLIBC__
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#define fcntl64 fcntl
#define close_range(lo, hi, fl) ((int)syscall(SYS_close_range, (lo), (hi), (fl)))
#define closefrom(lo) ((void)syscall(SYS_close_range, (lo), ~0U, 0))
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
static inline const char *h_errname(int e)
{
	static char buf[16];

	snprintf(buf, sizeof buf, "E#%d", e);
	return buf;
}
#define strerrorname_np h_errname
#endif
