/* SPDX-License-Identifier: MIT */
/*
 * vfork.c: vfork and __vfork, and telling a vfork child from its parent.
 *
 * A vfork child borrows its parent's memory and the vforking thread's TLS
 * until it execs or exits, but has a descriptor table of its own.  Every
 * record fastpath keeps about descriptors (urandom's) describes the
 * parent's table: a child's close, open or dup must change the child's
 * table only.  Natively nothing of the child's reaches the parent but
 * what the kernel shares.  Python's subprocess, bash and many launchers
 * vfork.
 *
 * The wrapper cannot be C: the child returns from vfork first and reuses
 * the stack below the caller, so any frame of ours would be gone when the
 * parent returns through it.  The trampoline calls fp_vfork_note and jumps
 * to the real vfork with the stack exactly as its caller left it, as if
 * called directly.  The mark it leaves in the thread's TLS costs the child
 * one getpid per call on a descriptor we track (fp_vfork_child_slow); the
 * parent's first such call after it resumes clears it.
 *
 * And whether a thread runs on its alternate signal stack, which the
 * kernel does not say inside the handler of one armed with SS_AUTODISARM.
 */
#include "fastpath.h"

#ifdef FP_LINUX
#  include <sys/wait.h> /* __WCLONE (musl: not through fastpath.h) */
#endif

FP_TLS unsigned char fp_vforking;
/* The pid that set the mark: a child is any other. */
static FP_TLS long fp_vfork_pid;
/* The child has memory of its own (clone without CLONE_VM or CLONE_FILES):
 * see fp_vfork_threads. */
static FP_TLS bool fp_vfork_apart;

static long fp_getpid(void)
{
#ifdef FP_LINUX
	return syscall(SYS_getpid);  /* no libc state: right in a vfork child */
#else
	return (long)getpid();
#endif
}

void fp_vfork_mark(bool sticky)
{
	long me = fp_getpid();

	/* A vfork child vforking again stays what it is: a child. */
	if (fp_vforking != FP_VFORK_NONE && me != fp_vfork_pid)
		return;
	fp_vfork_pid = me;
	if (fp_vforking != FP_VFORK_STICKY)
		fp_vforking = sticky ? FP_VFORK_STICKY : FP_VFORK_WAITING;
}

void fp_vfork_done(void)
{
	(void)fp_vfork_child_slow();
}

FP_FORK_TEXT void fp_vfork_forget(void)
{
	if (fp_vforking != FP_VFORK_NONE) {
		fp_vforking = FP_VFORK_NONE;
		fp_vfork_apart = false;
	}
}

bool fp_vfork_mark_apart(void)
{
	bool was = fp_vfork_apart;

	fp_vfork_mark(false);
	fp_vfork_apart = true;
	return was;
}

void fp_vfork_done_apart(bool was)
{
	fp_vfork_done();
	fp_vfork_apart = was;
}

/* A thread made where the mark is this thread's alone would go by the
 * records, this one by the note (a cold review: a thread of a
 * clone(SIGCHLD) child read its own dup2'd file as closed).  A child with
 * memory of its own, about to make its first thread, so becomes a fork
 * child by its own hand (its fork handlers, no handler of the program's
 * between): its records are its table's from then on, for every thread.
 * A vfork child on our memory may make no thread. */
void fp_vfork_threads(void)
{
	sigset_t old;

	if (!fp_vfork_apart || !fp_vfork_child())
		return;
	fp_hold_all(&old);
	fp_fork_self();
	fp_unhold(&old);
}

bool fp_vfork_child_slow(void)
{
	if (fp_getpid() != fp_vfork_pid)
		return true;
	/* The parent, back: its child has exec'd or exited. */
	if (fp_vforking == FP_VFORK_WAITING)
		fp_vforking = FP_VFORK_NONE;
	return false;
}

#ifdef FP_LINUX
int fp_apart(fp_clone_fn clone, int (*fn)(void *), void *arg, void *stack, int flags, int *status)
{
	int pid, st = 0;

	if (fp_under_valgrind || !clone)
		return -ENOSYS;
	pid = clone(fn, stack, CLONE_VM | CLONE_VFORK | flags, arg);
	if (pid < 0)
		return -errno;
	/* A thread is nobody's to wait for: back here, it has ended. */
	while (!(flags & CLONE_THREAD) && syscall(SYS_wait4, pid, &st, __WCLONE, 0L) < 0 &&
	       errno == EINTR)
		;
	if (status)
		*status = st;
	return 0;
}
#endif

/* ------------------------------------------------------------------------
 * The alternate signal stack.  The kernel says SS_ONSTACK on it, except
 * inside the handler of one armed with SS_AUTODISARM, which it disarms
 * there (SS_DISABLE, no span): so the span this thread armed so is kept
 * (review 35: a crash handler's exec on a 4 KiB such stack made the
 * cap's copy of the environment on it, SIGSEGV; urandom took a handler
 * on one for the end of the move it interrupted).  Thread-local as the
 * kernel's setting is: a new thread has none, a fork child its parent
 * thread's, and an exec ends both.  A vfork child's (its parent's TLS)
 * is not kept.  One TLS load and a system call per question, asked
 * only where a copy or a move is about to be made.
 * ---------------------------------------------------------------------- */
#ifdef FP_LINUX
/* The spans as [lo, lo + size): size 0 is none, so size is cleared first
 * and written last, and a handler in between sees none (review 36: an
 * end cleared first left [lo, 0), nearly the whole address space).  The
 * sixteen last used, none dropped at a new arm: the kernel puts back at
 * each handler's return the stack armed when that handler began (it
 * disarms one armed with SS_AUTODISARM at every delivery, on it or not,
 * and reports none inside), whatever the handler armed since and
 * wherever it ran, and a handler cannot tell which that was (review 36,
 * a handler on a kept stack; fp_altgen case 32, a handler on the main
 * stack that armed another and returned: the crash handler's exec ran on
 * the 4 KiB first one, SIGSEGV), and a jump out of a handler keeps what
 * it armed (review 40).  One kept that is no stack any more (freed, its
 * memory reused) costs the cap's exec on it a mapping of its own, and
 * makes urandom take a call there for a handler's (docs/design.md). */
#define FP_DISARM_N 16
static FP_TLS volatile uintptr_t fp_disarm_lo[FP_DISARM_N], fp_disarm_size[FP_DISARM_N];
static FP_TLS volatile unsigned fp_disarm_used[FP_DISARM_N];
static FP_TLS unsigned fp_disarm_clock;

/* now: the kernel's setting, read on this frame. */
static bool fp_in_disarmed(const stack_t *now)
{
	if (!(now->ss_flags & SS_DISABLE))
		return false;
	for (int i = 0; i < FP_DISARM_N; i++)
		if ((uintptr_t)now - fp_disarm_lo[i] < fp_disarm_size[i])
			return true;
	return false;
}

/* Kept, or made the latest used (an arm again: review 42's rearm); the
 * least lately used gives way (so sixteen arms of other stacks inside
 * handlers, since the one a return puts back was last armed, lose it:
 * review 42's loop of four did).  The clock is one instruction's
 * increment, so a handler inside takes a tick of its own. */
static void fp_disarm_keep(uintptr_t lo, uintptr_t size)
{
	unsigned now = __atomic_add_fetch(&fp_disarm_clock, 1, __ATOMIC_RELAXED);
	int k, least = 0;

	for (k = 0; k < FP_DISARM_N; k++) {
		if (fp_disarm_lo[k] == lo && fp_disarm_size[k] == size) {
			fp_disarm_used[k] = now;
			return;
		}
		if (now - fp_disarm_used[k] > now - fp_disarm_used[least])
			least = k;
	}
	fp_disarm_used[least] = now;
	fp_disarm_size[least] = 0;
	fp_disarm_lo[least] = lo;
	fp_disarm_size[least] = size;
}

FP_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	int r = FP_REAL(sigaltstack)(ss, old), e = errno;

	/* ss applied: the call succeeded, or it failed writing old, which
	 * Linux does after (review 36); ss is read once the kernel has. */
	if (ss && !fp_vfork_child() &&
	    (r == 0 || (e == EFAULT && old && fp_span_readable(ss, sizeof *ss))) &&
	    (ss->ss_flags & SS_AUTODISARM) && !(ss->ss_flags & SS_DISABLE))
		fp_disarm_keep((uintptr_t)ss->ss_sp, ss->ss_size);
	errno = e;
	return r;
}
#  define FP_SIGALTSTACK FP_REAL(sigaltstack)
#else
#  define FP_SIGALTSTACK sigaltstack
#endif

bool fp_on_altstack(void)
{
	int saved = errno;
	stack_t ss = { .ss_flags = 0 }; /* as none where the call fails */
	bool on = FP_SIGALTSTACK(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);

#ifdef FP_LINUX
	on = on || fp_in_disarmed(&ss);
#endif
	errno = saved;
	return on;
}

#ifdef FP_HAVE_VFORK_TRAMPOLINE
typedef pid_t (*fp_vfork_fn)(void);
fp_vfork_fn fp_vfork_note(void) FP_HIDDEN;

/* Where the C library has no vfork (none we load in lacks it), a fork's
 * system call: POSIX allows vfork to be a fork. */
static pid_t fp_vfork_as_fork(void)
{
	return fp_nr_fork();
}

/* Called by the trampoline with no argument; returns what to jump to. */
fp_vfork_fn fp_vfork_note(void)
{
	size_t i;
	int saved = errno;

	if (fp_ready()) {
		for (i = 0; i < fp_nmitigations; i++)
			if (fp_mitigations[i]->vforking)
				fp_mitigations[i]->vforking();
	}
	fp_vfork_mark(false);
	errno = saved;
	return fp_real_core.r_vfork.f ? fp_real_core.r_vfork.f : fp_vfork_as_fork;
}

/* The exported symbols; __vfork is glibc's other name for it.  The call
 * to fp_vfork_note is direct (hidden), so PIC code needs no PLT or GOT. */
/* Each starts with its landing pad (endbr, bti c: hints where the CPU
 * enforces nothing), as a hardened build marks the object; aarch64 jumps
 * through x16, which BTI lets land on the C library's own bti c. */
#if defined(__x86_64__)
#define FP_VFORK_BODY                                                        \
	"\tendbr64\n"                                                        \
	"\tsub $8, %rsp\n"                                                   \
	"\tcall fp_vfork_note\n"                                             \
	"\tadd $8, %rsp\n"                                                   \
	"\tjmp *%rax\n"
#elif defined(__i386__)
#define FP_VFORK_BODY                                                        \
	"\tendbr32\n"                                                        \
	"\tsub $12, %esp\n"                                                  \
	"\tcall fp_vfork_note\n"                                             \
	"\tadd $12, %esp\n"                                                  \
	"\tjmp *%eax\n"
#elif defined(__aarch64__)
#define FP_VFORK_BODY                                                        \
	"\thint #34\n" /* bti c */                                           \
	"\tstp x29, x30, [sp, #-16]!\n"                                      \
	"\tbl fp_vfork_note\n"                                               \
	"\tldp x29, x30, [sp], #16\n"                                        \
	"\tmov x16, x0\n"                                                    \
	"\tbr x16\n"
#endif
#define FP_VFORK_ASM(sym)                                                    \
	__asm__(".pushsection .text\n"                                       \
	        ".globl " #sym "\n"                                          \
	        ".type " #sym ", @function\n"                                \
	        #sym ":\n" FP_VFORK_BODY                                     \
	        ".size " #sym ", .-" #sym "\n"                              \
	        ".popsection\n")
FP_VFORK_ASM(vfork);
#ifdef FP_HAVE_GLIBC_CHK
FP_VFORK_ASM(__vfork);
#endif
#endif /* FP_HAVE_VFORK_TRAMPOLINE */
