/* SPDX-License-Identifier: MIT */
/*
 * fp_atomic.h: this thread's own read-modify-writes, without a lock
 * prefix where the instruction set allows.
 */
#ifndef FP_ATOMIC_H
#define FP_ATOMIC_H

#include "fp_platform.h"

/* ------------------------------------------------------------------------
 * This thread's own read-modify-writes (counters.c says why they are
 * enough where they are used).  One instruction each, without x86's lock
 * prefix: atomic against everything that can run on this thread between
 * two of its instructions (a signal handler is entered only there), not
 * against another CPU.  Elsewhere than x86 they are the locked atomics.
 * ---------------------------------------------------------------------- */
#if defined(__x86_64__) || defined(__i386__)
#define FP_HAVE_LOCAL_RMW 1
#if __SIZEOF_LONG__ == 8
#define FP_ADDL "addq"
#else
#define FP_ADDL "addl"
#endif
static inline void fp_local_add(_Atomic unsigned long *p, unsigned long v)
{
	__asm__ __volatile__(FP_ADDL " %1, %0" : "+m"(*(unsigned long *)p) : "ir"(v) : "cc");
}

static inline bool fp_local_cas_int(_Atomic int *p, int *expect, int desired)
{
	int prev = *expect;

	__asm__ __volatile__("cmpxchgl %2, %1"
	                     : "+a"(prev), "+m"(*(int *)p)
	                     : "r"(desired)
	                     : "memory", "cc");
	if (prev == *expect)
		return true;
	*expect = prev;
	return false;
}

static inline bool fp_local_cas_uchar(_Atomic unsigned char *p, unsigned char *expect,
                                      unsigned char desired)
{
	unsigned char prev = *expect;

	__asm__ __volatile__("cmpxchgb %2, %1"
	                     : "+a"(prev), "+m"(*(unsigned char *)p)
	                     : "q"(desired)
	                     : "memory", "cc");
	if (prev == *expect)
		return true;
	*expect = prev;
	return false;
}
#else
#define FP_HAVE_LOCAL_RMW 0
static inline void fp_local_add(_Atomic unsigned long *p, unsigned long v)
{
	atomic_fetch_add_explicit(p, v, memory_order_relaxed);
}

static inline bool fp_local_cas_int(_Atomic int *p, int *expect, int desired)
{
	return atomic_compare_exchange_strong(p, expect, desired);
}

static inline bool fp_local_cas_uchar(_Atomic unsigned char *p, unsigned char *expect,
                                      unsigned char desired)
{
	return atomic_compare_exchange_strong(p, expect, desired);
}
#endif

#endif /* FP_ATOMIC_H */
