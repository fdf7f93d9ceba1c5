/* SPDX-License-Identifier: MIT */
/*
 * fp_thread.h: what the core knows about threads and processes: whether
 * the process has one thread, errno's address, the rseq area's CPU, and
 * vfork children (counters.c, vfork.c, bind.c).
 */
#ifndef FP_THREAD_H
#define FP_THREAD_H

#include "fp_atomic.h"

/* ------------------------------------------------------------------------
 * Threads (counters.c).  fp_one_thread(): the process has one thread, so
 * that what only this thread and its signal handlers touch needs no locked
 * instruction.  Known from glibc's __libc_single_threaded (which every
 * thread the C library makes clears, its own helpers too) together with
 * ours: pthread_create and clone with CLONE_VM (fp_threads_made).  Where
 * the C library has no such word (musl, illumos, whose helpers make
 * threads we cannot see), always false.  A thread made by a raw clone
 * system call is no thread to either (the C library's own locks skip
 * then too).
 * ---------------------------------------------------------------------- */
extern _Atomic bool fp_threads FP_HIDDEN;
extern const volatile char *fp_libc_single FP_HIDDEN;
/* Its address as the binding's walk found it (fastpath.c); false:
 * unknown, dlsym's to say. */
bool fp_walked_single(const volatile char **at) FP_HIDDEN;

static inline bool fp_one_thread(void)
{
	const volatile char *l = fp_libc_single;

	return FP_HAVE_LOCAL_RMW && l && *l &&
	       !atomic_load_explicit(&fp_threads, memory_order_relaxed);
}

/* This thread's errno, by an address learnt once: the C library's
 * __errno_location is a call through the PLT at every use, and the
 * address never changes for the thread (a new thread starts with ours
 * zero again). */
extern FP_TLS int *fp_errno_at FP_HIDDEN;

static inline int *fp_errno(void)
{
	int *p = fp_errno_at;

	if (fp_unlikely(!p))
		p = fp_errno_at = &errno;
	return p;
}

/* No thread seen made, by us or the C library: a policy (how much to
 * keep), never a licence for unlocked instructions, so also where the C
 * library has no word for it (musl, illumos: ours alone) and on
 * architectures without the unlocked forms. */
static inline bool fp_no_threads(void)
{
	const volatile char *l = fp_libc_single;

	/* The C library's word first, as fp_one_thread: once it says threads,
	 * ours is not read (drd would pair that load with the next
	 * pthread_create's store). */
	return (!l || *l) && !atomic_load_explicit(&fp_threads, memory_order_relaxed);
}

/* In pthread_create, before the thread is made: the key that gives a
 * thread's stripe back at its end. */
void fp_thread_key_make(void) FP_HIDDEN;
/* In a thread made by pthread_create (cpus_survey.c's start), first. */
void fp_thread_begin(void) FP_HIDDEN;

/* The CPU the kernel last wrote in this thread's rseq area, as glibc's
 * sched_getcpu() reads it; -1 where there is none (no area registered, a C
 * library without one: glibc's sched_getcpu then asks the vDSO).  Where
 * the cpu_id lies from the thread pointer: 0 not known yet, 1 none; a real
 * one is the area's offset, a multiple of 32, plus 4.  Learnt on the first
 * call, the same for every thread. */
extern _Atomic ptrdiff_t fp_rseq_at FP_HIDDEN;
ptrdiff_t fp_rseq_learn(void) FP_HIDDEN;

static inline int fp_rseq_cpu(void)
{
#ifdef FP_HAVE_RSEQ_AREA
	ptrdiff_t at = atomic_load_explicit(&fp_rseq_at, memory_order_relaxed);

	if (fp_unlikely(at == 0))
		at = fp_rseq_learn();
	if (at == 1)
		return -1;
#if defined(__x86_64__) || defined(__i386__)
	{
		/* As glibc reads it, off the thread's segment (gcc before 11
		 * and older clang have no __builtin_thread_pointer here). */
		int32_t cpu;

#ifdef __x86_64__
		__asm__ volatile("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(at));
#else
		__asm__ volatile("movl %%gs:(%1), %0" : "=r"(cpu) : "r"(at));
#endif
		return cpu;
	}
#else
	return *(volatile const int32_t *)((const char *)__builtin_thread_pointer() + at);
#endif
#else
	return -1;
#endif
}

/* ------------------------------------------------------------------------
 * vfork children (vfork.c).  A vfork child runs on its parent's memory,
 * its thread's TLS included, with a descriptor table of its own: whatever
 * it records about descriptors would be the parent's records.  The
 * trampoline marks the calling thread just before the real vfork, and
 * fp_vfork_child tells the child (another pid) from the parent resumed
 * (which clears the mark).  One thread-local load while nobody vforks.
 * ---------------------------------------------------------------------- */
enum { FP_VFORK_NONE, FP_VFORK_WAITING, FP_VFORK_STICKY };
extern FP_TLS unsigned char fp_vforking FP_HIDDEN;
bool fp_vfork_child_slow(void) FP_HIDDEN;
/* Before a clone(CLONE_VM) of this thread whose child keeps this TLS:
 * sticky unless the caller waits for the child (CLONE_VFORK), then
 * fp_vfork_done once it is back. */
void fp_vfork_mark(bool sticky) FP_HIDDEN;
void fp_vfork_done(void) FP_HIDDEN;
void fp_vfork_forget(void) FP_HIDDEN;  /* a fork child: its memory is its own */
/* Around a clone of a child with memory and a table of its own: marked,
 * and told so (fp_vfork_threads); the mark as it was after. */
bool fp_vfork_mark_apart(void) FP_HIDDEN;
void fp_vfork_done_apart(bool was) FP_HIDDEN;
#ifdef FP_LINUX
/* fn(arg) in a child on our memory (CLONE_VM), this thread suspended
 * until it ends (CLONE_VFORK), with a copy of the descriptor table of its
 * own unless flags says CLONE_FILES: what it opens never shows in ours
 * (a fork in another thread meanwhile cannot copy it).  Exit signal 0:
 * no SIGCHLD, and no wait(2) of the program's without __WCLONE or __WALL
 * sees it; with CLONE_THREAD | CLONE_SIGHAND in flags it is a thread of
 * ours, which none sees (nor RUSAGE_CHILDREN), and nobody reaps.  fn makes system calls only, on stack (its top); it shares this
 * thread's TLS, errno too.  The caller holds every signal, and keeps the
 * stack for itself alone.  clone: the C library's, from the caller's
 * table.  0 and the child's status in *status, or -errno: -ENOSYS
 * under valgrind (which ends a program that makes such a child) or
 * before clone is bound. */
typedef int (*fp_clone_fn)(int (*fn)(void *), void *stack, int flags, void *arg, ...);
int fp_apart(fp_clone_fn clone, int (*fn)(void *), void *arg, void *stack, int flags,
             int *status) FP_HIDDEN;
#endif
/* This thread runs on its alternate signal stack, one armed with
 * SS_AUTODISARM too (vfork.c). */
bool fp_on_altstack(void) FP_HIDDEN;
/* The fork handlers, prepare then child, in this process (fastpath.c). */
void fp_fork_self(void) FP_HIDDEN;

static inline bool fp_vfork_child(void)
{
	return fp_unlikely(fp_vforking != FP_VFORK_NONE) && fp_vfork_child_slow();
}

void fp_vfork_threads(void) FP_HIDDEN;

/* Before a thread that shares our memory can run: from then on every
 * read-modify-write is a locked one.  A clone child with memory of its
 * own makes its records its own first (vfork.c). */
static inline void fp_threads_made(void)
{
	if (fp_unlikely(fp_vforking))
		fp_vfork_threads();
	atomic_store_explicit(&fp_threads, true, memory_order_relaxed);
}
#endif /* FP_THREAD_H */
