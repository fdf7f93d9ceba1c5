/* SPDX-License-Identifier: MIT */
/*
 * urandom_cloexec.c: "duplicate this descriptor, close-on-exec" for the
 * urandom mitigation (its hidden descriptors, and exact mode's opens with
 * O_CLOEXEC), on kernels that lack F_DUPFD_CLOEXEC too.
 *
 * F_DUPFD_CLOEXEC is Linux 2.6.24's, and illumos's only since 2013-2015
 * (the copyright lines of fcntl.h and fcntl.c): the platform images of the
 * illumos reports may refuse it with EINVAL.  The fallback is F_DUPFD then
 * F_SETFD, two calls between which the new number is open without
 * FD_CLOEXEC: a fork or an exec by another thread in that window would
 * hand it to another program, where natively (one atomic call) it could
 * never go.  So:
 *   - the window is counted (ur_windows) and never opens while an exec, a
 *     spawn or a fork is announced (ur_execs): that duplicate is then not
 *     made, and the caller opens the device for real (the kernel's own
 *     O_CLOEXEC, as natively);
 *   - every exec, spawn and fork announces itself (ur_exec_enter: the
 *     wrappers of urandom_exec.c, the atfork prepare handler) and waits for
 *     the windows already open to close: two fcntl calls at most.
 * A window never waits: it opens or it is not made.  The two sides are
 * Dekker's: each increments its own count, then reads the other's (C11
 * sequentially consistent atomics), so at least one of them sees the other.
 *
 * Left open, and said in fastpath(7): vfork() (which no wrapper can take:
 * it returns twice in one frame) while a window is open copies the window's
 * number into the child's table without FD_CLOEXEC; so does a raw clone or
 * _Fork (no atfork handlers).  No handler runs inside a window (signals
 * are blocked there, and cancellation is off: ur_window_open).
 *
 * Where F_DUPFD_CLOEXEC works, none of this runs: one fcntl, and every
 * exec and fork pays one relaxed load (ur_dup_fallback).
 */
#include "fastpath.h"
#include "urandom.h"

/* Set when F_DUPFD_CLOEXEC is missing (learnt from its EINVAL) or when the
 * test aid FASTPATH_TEST_NO_DUPFD_CLOEXEC says to act as if. */
_Atomic bool ur_dup_fallback;
bool ur_dup_forced FP_STARTUP_DATA;

/* Both read by every fork child (ur_cloexec_atfork_child): on the
 * start-up page. */
static _Atomic int ur_windows FP_STARTUP_DATA;   /* windows open, in this process */
static _Atomic int ur_execs FP_STARTUP_DATA;     /* execs, spawns and forks announced */
/* The process these counts are for; set by every start-up (issue 39:
 * on the start-up page). */
static _Atomic long ur_win_pid FP_STARTUP_DATA;
static void ur_dup_fallback_on(void);
/* Windows this thread holds (nested: ur_hidden_make's hold, then its
 * duplicate).  Initial-exec: safe in a handler. */
static FP_TLS int ur_win_depth;
/* Whether this thread's fork announced itself (prepare, to parent). */
static FP_TLS bool ur_fork_entered;

/* A window is held with every signal blocked and cancellation off: a
 * handler that jumped out of it, or a cancellation in its open or close,
 * would leave ur_windows raised and every later exec and fork waiting for
 * ever.  So it is a few system calls no one can interrupt, the only wait
 * of an exec on another thread (docs/design.md).  Fallback kernels only. */
static FP_TLS sigset_t ur_win_mask;
static FP_TLS int ur_win_cs;

/* Opens a window, unless an exec or fork is announced (false).  Nested
 * (ur_hidden_make's hold, then its duplicate): the mask of the outer. */
static bool ur_window_open(void)
{
	sigset_t old;
	int cs = 0;

	if (ur_win_depth == 0)
		ur_block_all(&old, &cs);
	atomic_fetch_add(&ur_windows, 1);
	if (atomic_load(&ur_execs) != 0) {
		atomic_fetch_sub(&ur_windows, 1);
		if (ur_win_depth == 0)
			ur_unblock_all(&old, cs);
		return false;
	}
	if (ur_win_depth++ == 0) {
		ur_win_mask = old;
		ur_win_cs = cs;
	}
	return true;
}

static void ur_window_close(void)
{
	int saved = errno;

	atomic_fetch_sub(&ur_windows, 1);
	if (--ur_win_depth == 0)
		ur_unblock_all(&ur_win_mask, ur_win_cs);
	errno = saved;
}

bool ur_cloexec_hold(void)
{
	return !atomic_load_explicit(&ur_dup_fallback, memory_order_relaxed) || ur_window_open();
}

void ur_cloexec_release(void)
{
	if (atomic_load_explicit(&ur_dup_fallback, memory_order_relaxed))
		ur_window_close();
}

/* F_DUPFD, then FD_CLOEXEC on the copy, inside a window. */
static int ur_dup_two_calls(int fd, int floor)
{
	int r, saved;

	if (!ur_window_open())
		return UR_DUP_LATER;
	r = UR_REAL(fcntl)(fd, F_DUPFD, floor);
	if (r >= 0 && UR_REAL(fcntl)(r, F_SETFD, FD_CLOEXEC) != 0) {
		saved = errno;
		UR_REAL(close)(r);
		errno = saved;
		r = -1;
	}
	ur_window_close();
	return r;
}

/* See urandom.h. */
int ur_dup_cloexec(int fd, int floor)
{
#ifdef F_DUPFD_CLOEXEC
	int r;

	if (fp_likely(!atomic_load_explicit(&ur_dup_fallback, memory_order_relaxed))) {
		r = UR_REAL(fcntl)(fd, F_DUPFD_CLOEXEC, floor);
		if (fp_likely(r >= 0) || errno != EINVAL)
			return r;
		/* EINVAL: the command is unknown, or the floor is out of
		 * range, which F_DUPFD would refuse as well. */
		r = ur_dup_two_calls(fd, floor);
		if (r >= 0) {
			ur_dup_fallback_on();
			ur_debug("F_DUPFD_CLOEXEC refused: close-on-exec duplicates by F_DUPFD "
			         "then F_SETFD from now on");
		}
		return r;
	}
#endif  /* headers from before it: the fallback only */
	return ur_dup_two_calls(fd, floor);
}

/* Whether the counts are this process's.  Their owner is learnt when the
 * fallback begins (ur_dup_fallback_on), not at start-up: a process on a
 * kernel with F_DUPFD_CLOEXEC pays no getpid for it (issue 39).  Begun in
 * a vfork child, it is the first process after to ask that is none. */
static bool ur_win_ours(void)
{
	long me = (long)getpid(), w = atomic_load(&ur_win_pid);

	if (w == 0) {
		if (fp_vfork_child())
			return false;
		if (atomic_compare_exchange_strong(&ur_win_pid, &w, me))
			return true;
		/* Another thread set it first: w is now theirs. */
	}
	return me == w;
}

/* The fallback from now on, for the process that turns it on. */
static void ur_dup_fallback_on(void)
{
	if (!fp_vfork_child())
		atomic_store(&ur_win_pid, (long)getpid());
	atomic_store(&ur_dup_fallback, true);
}

/* See urandom.h. */
static bool ur_enter(void)
{
	/* A vfork child (or one made by raw clone) runs on a copy of the
	 * table taken already, and an exec that succeeds there would leave
	 * the parent's count raised for ever. */
	if (!ur_win_ours())
		return false;
	atomic_fetch_add(&ur_execs, 1);
	while (atomic_load(&ur_windows) > ur_win_depth)
		FP_YIELD();
	return true;
}

bool ur_exec_enter(void)
{
	if (fp_likely(!atomic_load_explicit(&ur_dup_fallback, memory_order_relaxed)))
		return false;
	return ur_enter();
}

/* The hidden descriptor's placing (ur_hidden_make), on every kernel: from
 * the number made to its record, a fork would copy it into the child
 * unrecorded (never retired there: an open number high in the table, which
 * the child's /proc/self/fd shows).  So a fork waits for that window too,
 * once per process; an exec needs not (close-on-exec).  So does the end
 * of the pooling (ur_place_settle). */
bool ur_place_hold(void)
{
	return ur_window_open();
}

void ur_place_release(void)
{
	ur_window_close();
}

/* The pooling ended (ur_split_done, set before this): the placings under
 * way land, to be retired by the caller; a later one sees the end inside
 * its window (ur_hidden_make).  Each side writes, then reads the other's
 * (sequentially consistent), so at least one of them sees the other. */
void ur_place_settle(void)
{
	if (ur_win_ours())
		while (atomic_load(&ur_windows) > ur_win_depth)
			FP_YIELD();
}

void ur_exec_leave(bool entered)
{
	if (entered)
		atomic_fetch_sub(&ur_execs, 1);
}

FP_STARTUP_TEXT void ur_cloexec_init(long pid)
{
	atomic_store(&ur_win_pid, pid);
#ifdef F_DUPFD_CLOEXEC
	if (ur_dup_forced)
#endif
		ur_dup_fallback_on();
}

void ur_cloexec_atfork_prepare(void)
{
	ur_fork_entered = ur_enter();
}

void ur_cloexec_atfork_parent(void)
{
	ur_exec_leave(ur_fork_entered);
}

/* The child's only thread is the forking one: its windows are the only
 * ones open, and no exec of another thread is under way.  Every child,
 * the mitigation's first placing may come in it (ur_fd_atfork_child);
 * what holds its value already is not written (issue 39). */
FP_FORK_TEXT void ur_cloexec_atfork_child(void)
{
	atomic_store(&ur_win_pid, (long)getpid());
	if (atomic_load(&ur_windows) != ur_win_depth)
		atomic_store(&ur_windows, ur_win_depth);
	if (atomic_load(&ur_execs) != 0)
		atomic_store(&ur_execs, 0);
	if (ur_fork_entered)
		ur_fork_entered = false;
}
