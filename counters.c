/* SPDX-License-Identifier: MIT */
/*
 * counters.c: the counters every mitigation keeps (fastpath.h, "Counters"),
 * and what the process knows of its threads (fp_one_thread).
 *
 * No locked instruction where a call counts.  Each thread that counts owns
 * a stripe: one cache line of each mitigation's set, written by it alone.
 * Its add needs no lock prefix, since no other CPU writes the line; what
 * can come between is a signal handler on the same thread, counting into
 * the same stripe.  The add is one instruction (fp_local_add, x86's add to
 * memory), and a handler is entered only between two instructions, so
 * the handler's add comes wholly before or after ours: no count is lost.
 * (A plain "++" would do as well only if the compiler made it one
 * instruction, which C does not promise; where there is no such
 * instruction, fp_local_add is the locked atomic add.)
 *
 * The totals are the sums of the stripes, owned or not: a thread that ends
 * gives its stripe back with its counts in it (that is the fold), and the
 * next thread to take one adds to what is there.  So a summary written at
 * any time (exit, exec, _exit, a fork child's) sums every count made
 * before it, by live threads and ended ones alike, and only those of this
 * process: a fork child zeroes its copies (fastpath.c).  A vfork child
 * shares the stripes and writes no summary.
 *
 * Stripe 0 is shared, by locked adds: the gauges, and the counts of a
 * thread that found every other stripe taken or counts after its own end
 * (another key's destructor, run after ours).
 *
 * Who owns which: a thread made by pthread_create (whose start is
 * cpus_survey.c's) takes a stripe as it starts, in fp_thread_begin, and
 * gives it back as it ends (a key's destructor, however it ends: return,
 * pthread_exit, cancellation).  Any other thread (the first one, one the
 * C library makes for itself, a raw clone's) takes one at its first count
 * and keeps it for the life of the process: its end is not seen.  A
 * handler that lands in the middle of a take may make its thread take a
 * second stripe, kept for ever; neither loses a count.
 */
#include "fastpath.h"

#include <dlfcn.h>

#ifdef FP_VALGRIND_ANNOTATE
#include <valgrind/helgrind.h>
#endif

FP_TLS unsigned fp_stripe_tls;
_Atomic bool fp_counting FP_STARTUP_DATA = FP_COUNT_ALWAYS;
FP_TLS int *fp_errno_at;
_Atomic bool fp_threads;
const volatile char *fp_libc_single FP_STARTUP_DATA;

/* 1: the stripe of that index belongs to a thread (index 0: never). */
static _Alignas(FP_CACHELINE) _Atomic unsigned char fp_stripe_owned[FP_STRIPES];
static pthread_key_t fp_thread_key FP_STARTUP_DATA;
static bool fp_have_thread_key FP_STARTUP_DATA;

/* This thread's stripe, taken now (fp_stripe_tls's value). */
static unsigned fp_stripe_take(void)
{
	unsigned i;

	for (i = 1; i < FP_STRIPES; i++) {
		unsigned char free_ = 0;

		if (atomic_load_explicit(&fp_stripe_owned[i], memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&fp_stripe_owned[i], &free_, 1))
			continue;
		if (fp_stripe_tls == 0) {
			fp_stripe_tls = i + 1;
		} else {
			/* A signal handler took one for this thread
			 * meanwhile: that one is its stripe. */
			atomic_store_explicit(&fp_stripe_owned[i], 0, memory_order_release);
		}
		return fp_stripe_tls;
	}
	if (fp_stripe_tls == 0)
		fp_stripe_tls = 1;
	return fp_stripe_tls;
}

void fp_count_slow(struct fp_stripe *set, unsigned c)
{
	unsigned s = fp_stripe_tls;

	if (s == 0)
		s = fp_stripe_take();
	if (s > 1)
		fp_local_add(&set[s - 1].c[c], 1);
	else
		atomic_fetch_add_explicit(&set[0].c[c], 1, memory_order_relaxed);
}

unsigned long fp_counter(const struct fp_stripe *set, unsigned c)
{
	unsigned long sum = 0;
	size_t s;

	for (s = 0; s < FP_STRIPES; s++)
		sum += atomic_load_explicit(&set[s].c[c], memory_order_relaxed);
	return sum;
}

/* The thread ends: its stripe, counts and all, is free for the next.  Its
 * later counts (a destructor run after this one) go to the shared one:
 * that comes first, so that no handler adds to a stripe given away. */
static void fp_thread_end(void *unused)
{
	unsigned s = fp_stripe_tls;

	(void)unused;
	fp_stripe_tls = 1;
	if (s > 1)
		atomic_store_explicit(&fp_stripe_owned[s - 1], 0, memory_order_release);
}

void fp_thread_begin(void)
{
	if (!fp_have_thread_key || fp_stripe_tls != 0)
		return;
	/* Outside any signal handler (the thread's start): the key's value
	 * may be set here, and only a stripe so announced is given back. */
	if (fp_stripe_take() > 1)  /* if it fails: kept, as a thread we did not make */
		(void)pthread_setspecific(fp_thread_key, &fp_thread_key);
}

static void fp_thread_key_once(void)
{
	fp_have_thread_key = pthread_key_create(&fp_thread_key, fp_thread_end) == 0;
}

/* At the first pthread_create, not at start-up: a process that makes no
 * thread never writes the C library's table of keys (issue 39: a page
 * fault).  Before the thread runs, so its fp_thread_begin finds it. */
void fp_thread_key_make(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, fp_thread_key_once);
}

FP_STARTUP_TEXT void fp_counters_init(void)
{
	/* glibc 2.32 and later; a C library without it gets no
	 * one-thread paths (fp_one_thread). */
	if (!fp_walked_single(&fp_libc_single))
		fp_libc_single = (const volatile char *)dlsym(RTLD_DEFAULT, "__libc_single_threaded");
#ifdef FP_VALGRIND_ANNOTATE
	/* Only for the helgrind/drd build: a stripe is written by its owner
	 * alone (the take and give-back are atomics the tools cannot see
	 * ordering through), and read by the summary at any time. */
	ANNOTATE_BENIGN_RACE_SIZED(fp_stripe_owned, sizeof fp_stripe_owned,
	                           "counters: stripe owners, atomic");
	for (size_t i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->counters)
			ANNOTATE_BENIGN_RACE_SIZED(fp_mitigations[i]->counters,
			                           FP_STRIPES * sizeof(struct fp_stripe),
			                           "counters: one writer per stripe");
#endif
}

/* The child's one thread is the forking one: it keeps its stripe, the
 * others are free, and there is one thread again. */
FP_FORK_TEXT_FIRST void fp_counters_child(void)
{
	unsigned i, s = fp_stripe_tls;

	/* A stripe is taken only by a count or a thread's start: with
	 * neither since the exec, none ever was (its page stays unread). */
	if (atomic_load_explicit(&fp_threads, memory_order_relaxed))
		atomic_store_explicit(&fp_threads, false, memory_order_relaxed);
	if (!atomic_load_explicit(&fp_counting, memory_order_relaxed) && !fp_have_thread_key)
		return;
	for (i = 1; i < FP_STRIPES; i++)
		atomic_store_explicit(&fp_stripe_owned[i], i + 1 == s, memory_order_relaxed);
}
