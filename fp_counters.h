/* SPDX-License-Identifier: MIT */
/*
 * fp_counters.h: the counters each mitigation owns (counters.c).
 */
#ifndef FP_COUNTERS_H
#define FP_COUNTERS_H

#include "fp_thread.h"

/* ------------------------------------------------------------------------
 * Counters: exact, safe from signal handlers, reset in a forked child so
 * that each process reports its own work.  Each mitigation owns a set of
 * them (struct fp_mitigation.counters), striped by thread: one stripe (a
 * cache line of counters) per thread that counts, written by it alone, so
 * that a count is one add without a lock (counters.c).  Stripe 0 is
 * shared (locked adds), for a thread that found none free, and holds the
 * gauges.  Readers sum the stripes.
 * ---------------------------------------------------------------------- */
#define FP_STRIPES 64
#define FP_MAX_COUNTERS 8  /* per mitigation: one cache line per stripe */
struct fp_stripe {
	_Alignas(FP_CACHELINE) _Atomic unsigned long c[FP_MAX_COUNTERS];
};
/* 0 until this thread first counts; 1: it counts in the shared stripe 0;
 * s > 1: stripe s - 1 is its own. */
extern FP_TLS unsigned fp_stripe_tls FP_HIDDEN;
void fp_count_slow(struct fp_stripe *set, unsigned c) FP_HIDDEN;

/* Counts are read only by the exit summary: while it is off (settings,
 * before the mitigations start), a count is one branch.  The unit tests,
 * which read the counts themselves, always count. */
#ifdef FP_UNIT_TEST
#define FP_COUNT_ALWAYS true
#else
#define FP_COUNT_ALWAYS false
#endif
extern _Atomic bool fp_counting FP_HIDDEN;

static inline void fp_count(struct fp_stripe *set, unsigned c)
{
	unsigned s;

	if (fp_likely(!atomic_load_explicit(&fp_counting, memory_order_relaxed)))
		return;
	s = fp_stripe_tls;
	if (fp_likely(s > 1))
		fp_local_add(&set[s - 1].c[c], 1);
	else
		fp_count_slow(set, c);
}

/* A gauge lives in stripe 0 only, so that the sum is its value. */
static inline void fp_gauge_set(struct fp_stripe *set, unsigned c, unsigned long v)
{
	atomic_store_explicit(&set[0].c[c], v, memory_order_relaxed);
}

/* The sum over the stripes (a counter) or the value (a gauge). */
unsigned long fp_counter(const struct fp_stripe *set, unsigned c) FP_HIDDEN;
/* counters.c's part of initialisation, and of a fork child (where the
 * forking thread is the only one). */
void fp_counters_init(void) FP_HIDDEN;
void fp_counters_child(void) FP_HIDDEN;

#endif /* FP_COUNTERS_H */
