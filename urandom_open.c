/* SPDX-License-Identifier: MIT */
/*
 * urandom_open.c: which descriptors are the device's, and the two modes'
 * open and close of a tracked descriptor (exact: a duplicate of the hidden
 * descriptor; reserve: the descriptor kept at the last close).
 */
#include "fastpath.h"
#include "urandom.h"
#ifdef FP_LINUX
#include <sys/sysmacros.h>
#endif

/* Which device fd is (a fresh open is tracked only if it is, not a file in
 * a chroot): UR_DEV_URANDOM, UR_DEV_RANDOM, UR_NDEV for a character device
 * that may be either (illumos: no numbers to tell), or -1.  One fstat. */
int ur_device_of(int fd)
{
	struct stat st;

	ur_count(SYSCALLS);
	if (fp_fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
		return -1;
#ifdef FP_LINUX
	if (st.st_rdev == makedev(1, 9))
		return UR_DEV_URANDOM;
	return st.st_rdev == makedev(1, 8) ? UR_DEV_RANDOM : -1;
#else
	return UR_NDEV;
#endif
}

bool ur_is_device(int fd, int dev)
{
	int d = ur_device_of(fd);

	return d == dev || d == UR_NDEV;
}

static unsigned ur_open_bits(int dev, int flags)
{
	return UR_OPEN | (dev == UR_DEV_RANDOM ? UR_RANDOM : 0) |
	       ((flags & O_CLOEXEC) ? UR_CLOEXEC : 0) |
	       ((flags & O_NONBLOCK) ? UR_NONBLOCK : 0);
}

/* The adoption's flag change, made only while its mark is there, no
 * handler inside: one that forked, and opened a file at fd in the child
 * after its handler closed ours there, returns here. */
static int ur_adopt_setfd(int fd, int slot, int flag)
{
	int r = -1, cs;
	sigset_t old;

	ur_count(SYSCALLS);
	ur_block_all(&old, &cs);
	if (ur_slot_marked(slot, fd))
		r = UR_REAL(fcntl)(fd, F_SETFD, flag);
	ur_unblock_all(&old, cs);
	return r;
}

/* Makes the reserve look freshly opened with these flags: 1.  Its open
 * file description is never changed (F_SETFL).  A loop with one flag
 * style makes no system call at all.  The other close-on-exec flag is set
 * only while the process has one thread: with threads, a call of ours on
 * the reserve's number could land on a file another thread put there
 * after freeing it (a cold review: the adoption's F_SETFD did, after a
 * close_range and an open of /dev/null), so the open is real instead:
 * -1, as for other status flags; 0: no longer a reserve, or a fork has
 * shared it. */
static int ur_adopt(int fd, int dev, int flags, int slot)
{
	unsigned char st = (unsigned char)ur_state(fd), want;
	unsigned open = ur_open_bits(dev, flags);
	int saved;
	bool ok;

	/* Nor after a split, which left this one a reserve while it was
	 * in transit (ur_split_finish): the open is real, as every other
	 * (a split after this load and before the compare: the open is
	 * served, as one finished before the split). */
	if (!(st & UR_RESERVE) || (st & UR_SHARED) || fp_unlikely(atomic_load(&ur_split_done)))
		return 0;
	/* The state's compare fails if a fork marked it meanwhile. */
	if (!((st ^ open) & (UR_NONBLOCK | UR_CLOEXEC)))
		return ur_cell_cas(fd, &st, (unsigned char)open) ? 1 : 0;
	if (((st ^ open) & UR_NONBLOCK) || !fp_one_thread())
		return -1;
	/* The flag it will have goes in its state first: an exec's guard
	 * and unguard in a handler inside put back that one. */
	saved = errno;
	want = (unsigned char)((st & ~UR_CLOEXEC) | (open & UR_CLOEXEC));
	ok = ur_cell_cas(fd, &st, want) &&
	     ur_adopt_setfd(fd, slot, (open & UR_CLOEXEC) ? FD_CLOEXEC : 0) == 0 &&
	     ur_cell_cas(fd, &want, (unsigned char)open);
	errno = saved;
	return ok ? 1 : 0;
}

/* A real open's fd (g: forks counted before it), tracked if the device. */
static int ur_real_tracked(int dev, int fd, int flags, unsigned g, int saved)
{
	ur_heal(fd);
	if (fd < UR_MAXFD && ur_is_device(fd, dev)) {  /* kept only with O_LARGEFILE */
		ur_track_new(fd, ur_open_bits(dev, flags) | (UR_LFS(flags) ? 0 : UR_SHARED), g);
		/* A split since the open began forgets it, as every other. */
		if (fp_unlikely(atomic_load(&ur_split_done)))
			(void)ur_untrack(fd);
		ur_count(OPENS);
		ur_debug("open: real descriptor, now tracked");
	}
	errno = saved;
	return fd;
}

static int ur_open_real(int dev, const char *path, int flags)
{
	int saved = errno, fd;
	unsigned g;

	ur_count(SYSCALLS);
	g = atomic_load(&ur_forks);
	UR_RETRY(fd, UR_REAL(openat)(AT_FDCWD, path, flags));
	return fd < 0 ? fd : ur_real_tracked(dev, fd, flags, g, saved);
}

/* A fork began between an open's reading of ur_forks and its mark: it may
 * have copied the duplicate into its child after its copy-on-write, with
 * the pool's description.  That description is then the open's, shared
 * with the child's copy as natively: the hidden descriptor goes (each
 * side retires its own; the child's mark is cleared: ur_fd_atfork_child),
 * and the open is no copy-on-write of the pool's. */
static void ur_forked(int dev, int h, int fd)
{
	(void)ur_hidden_close(dev, h);
	ur_update(fd, UR_COW, UR_SHARED);
}

/* Exact mode: a duplicate of the hidden descriptor, the lowest free number
 * (dup, or F_DUPFD_CLOEXEC from 0), close-on-exec as the open asked.
 * O_NONBLOCK and O_LARGEFILE are status flags of the open file description:
 * an open with the first, or without the second, is real.  So is one made
 * while a fork is under way (ur_forking: another thread's, or this one's,
 * from a fork handler or a signal handler), after its copy-on-write; one
 * that a fork began during keeps what it duplicated, the pool's
 * description no more (ur_forked).  And one while this thread's window
 * below is noted: a handler's inside it, or one after a jump out of it
 * (which ends it first: ur_dup_stranded). */
static int ur_open_exact(int dev, const char *path, int flags)
{
	int *ep = fp_errno(), saved = *ep;

	if (fp_unlikely(flags & O_NONBLOCK) || !UR_LFS(flags) || fp_unlikely(ur_dup_at) ||
	    atomic_load_explicit(&ur_hidden_bad[dev], memory_order_relaxed)) {
		UR_DUP_SETTLE();
		return ur_open_real(dev, path, flags);
	}
	for (;;) {
		/* Read again at each pass: a whole fork may have run
		 * during the last, and a new hidden descriptor been made. */
		unsigned g = atomic_load(&ur_forks);
		uint64_t w = atomic_load_explicit(&ur_hidden[dev], memory_order_acquire);
		int h = UR_HW_FD(w), fd;

		if (fp_unlikely(atomic_load_explicit(&ur_forking, memory_order_relaxed)))
			return ur_open_real(dev, path, flags);

		if (fp_unlikely(h < 0)) {
			/* Being retired (UR_CLOSING): real, this once; a
			 * ghost goes now that no fork is under way. */
			if (h <= UR_GHOST(0) && !atomic_load(&ur_forking) &&
			    atomic_compare_exchange_strong(&ur_hidden[dev], &w, UR_HW(UR_HW_GEN(w) + 1, -1)))
				continue;
			if (h < -1 || !ur_hidden_make(dev, path, flags, ur_open_bits(dev, flags) | UR_COW,
			                              w, &fd, &h))
				return ur_open_real(dev, path, flags);
			if (fd < 0 || h < 0)  /* failed, or a real open */
				return fd < 0 ? fd : ur_real_tracked(dev, fd, flags, g, saved);
			ur_count(OPENS);  /* recorded before any fork could copy it */
			return *ep = saved, fd;
		}
		/* dup(h) is fcntl(h, F_DUPFD, 0), and 15% cheaper a cycle
		 * (no fcntl dispatch or security hook in the kernel).  From
		 * it to its record, or its close, the window is noted. */
		ur_dup_note((uintptr_t)__builtin_frame_address(0));
		fd = (flags & O_CLOEXEC) ? ur_dup_cloexec(h, 0) : UR_REAL(dup)(h);
		if (fp_unlikely(fd == UR_DUP_LATER)) {  /* an exec or fork under way */
			ur_dup_note(0);
			return ur_open_real(dev, path, flags);
		}
		/* The number may have been freed or replaced meanwhile (dup2
		 * onto it, close_range): what we duplicated is then unknown.
		 * Retired by the pooling's end (ur_split), it was the device,
		 * and the copy is the program's open, unpooled: a close of
		 * ours now could drop a record lock taken since. */
		if (fp_unlikely(atomic_load(&ur_hidden[dev]) != w)) {
			/* A fork retired it: the child may have this copy.
			 * Unless another hidden one has its number now: the
			 * duplicate may be of that one, and shares it. */
			if (fd >= 0 && fd < UR_MAXFD && atomic_load(&ur_forks) != g &&
			    UR_HW_FD(atomic_load(&ur_hidden[dev])) != h && ur_is_device(fd, dev))
				goto kept; /* tracked as any (ur_forked below) */
			if (fd >= 0 && atomic_load(&ur_split_done) && ur_is_device(fd, dev)) {
				ur_dup_note(0);
				*ep = saved;
				return fd;
			}
			if (fd >= 0)
				UR_REAL(close)(fd);
			ur_dup_note(0);
			*ep = saved;
			continue;
		}
		if (fp_unlikely(fd < 0)) {
			/* Out of numbers (or files): the open is real, and
			 * fails or succeeds natively (the hidden one, above
			 * the limit, holds no number it could have had). */
			ur_dup_note(0);
			(void)ur_give_back(*ep);
			*ep = saved;
			return ur_open_real(dev, path, flags);
		}
		/* Past the table (a program with a limit above UR_MAXFD and the
		 * low numbers in use): untracked, it would share the hidden
		 * description unseen.  A real open of its own instead. */
		if (fp_unlikely(fd >= UR_MAXFD)) {
			UR_REAL(close)(fd);
			ur_dup_note(0);
			*ep = saved;
			return ur_open_real(dev, path, flags);
		}
kept:
		ur_heal(fd);  /* a number freed behind our back (raw close) */
		ur_set(fd, ur_open_bits(dev, flags) | UR_COW);
		ur_dup_note(0);
		/* The pooling ended meanwhile, its records forgotten (or being
		 * so): this one too, or a later copy of it would close a device
		 * description after a record lock. */
		if (fp_unlikely(atomic_load(&ur_split_done)))
			ur_cow_forget(fd, ur_open_bits(dev, flags) | UR_COW);
		/* After the mark: a fork whose count moves later sees it
		 * (ur_cow_all, which comes after). */
		if (fp_unlikely(atomic_load(&ur_forks) != g))
			ur_forked(dev, h, fd);
		ur_count(OPENS);
		ur_debug("open: duplicate of the hidden descriptor");
		*ep = saved;  /* (a kernel without F_DUPFD_CLOEXEC: a failure) */
		return fd;
	}
}

/* This thread's move of a reserve: the frame of the call making it, and
 * slot + 1 and its number while the move is that slot's (UR_MOVE_ANY
 * before the mark is made and from the move's last step on; 0: none).
 * open and close are async-signal-safe, and a handler may siglongjmp out
 * of either, stranding the move's mark: the reserve would be held for
 * good, its slot lost.  This thread's next reserve-mode call, or its
 * give-back at the limit, ends it, made where it cannot run inside that
 * move: a handler's frames lie a signal frame or more below the frame it
 * interrupted, or on the alternate stack.  A call that may run inside it
 * leaves it be and does the real thing: one move a thread at a time,
 * never ended while its owner may resume it (on 5a0bc62 a handler's open
 * and close ended the move they interrupted, remade the slot and state as
 * they were, and the move resumed on them: a cold review's reproducers).
 * With one thread every mark is this thread's: all are ended.  With
 * threads only the named one, named only while the move is the slot's: a
 * jump in the few instructions between the mark and its naming, or its
 * unnaming and the last step, holds the reserve (docs/design.md). */
#define UR_MOVE_ANY (-1)
static FP_TLS struct {
	int slot1, fd;
	uintptr_t at;
} ur_move;

static inline __attribute__((always_inline)) void ur_move_set(int slot1)
{
	atomic_signal_fence(memory_order_seq_cst);
	ur_move.slot1 = slot1;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline __attribute__((always_inline)) void ur_move_begin(const void *frame)
{
	ur_move.at = (uintptr_t)frame;
	ur_move_set(UR_MOVE_ANY);
}

static inline __attribute__((always_inline)) void ur_move_name(int i, int fd)
{
	ur_move.fd = fd;
	ur_move_set(i + 1);
}

/* Every slot's mark, in a process with one thread (so this thread's). */
static bool ur_move_sweep(void)
{
	bool closed = false;

	for (int i = 0; i < UR_NRES; i++) {
		int v = atomic_load(&ur_reserve[i].fd), fd = ur_slot_number(v);

		if (v < 0 && fd >= 0)  /* a mark */
			closed = ur_slot_drop(i, fd) || closed;
	}
	return closed;
}

/* This thread has a move noted; frame is the caller's.  0: this call may
 * run inside it, and must not make one of its own; 1: it was stranded,
 * and is ended now (2: a reserve closed). */
__attribute__((noinline)) static int ur_move_stranded(const void *frame)
{
	int i = ur_move.slot1 - 1, fd = ur_move.fd;

	if (ur_may_be_inside(frame, ur_move.at))
		return 0;
	ur_move_set(0);
	if (fp_one_thread())
		return 1 + ur_move_sweep();
	return 1 + (i >= 0 && ur_slot_drop(i, fd));
}

int ur_move_settle(const void *frame)
{
	return fp_likely(!ur_move.slot1) ? 1 : ur_move_stranded(frame);
}

/* Slot i (UR_RES_DEV(i) its device). */
static inline bool ur_slot_cas(int i, int *expect, int fd)
{
	if (fp_one_thread())
		return fp_local_cas_int(&ur_reserve[i].fd, expect, fd);
	return atomic_compare_exchange_strong(&ur_reserve[i].fd, expect, fd);
}

/* Takes slot i's reserve, or -1, the slot marked (UR_CLOSING) while it is
 * in transit (an open adopting it, a close keeping it), to ur_slot_done: a
 * fork's child closes its copy unless the program held it then, as
 * natively (ur_closing_atfork_child). */
static inline int ur_slot_take(int i)
{
	int fd = atomic_load_explicit(&ur_reserve[i].fd, memory_order_relaxed);

	while (fd >= 0 && !ur_slot_cas(i, &fd, UR_CLOSING(fd)))
		;
	/* A ghost goes once every fork that began before its close has
	 * ended: each child has its memory. */
	if (fp_unlikely(fd <= UR_GHOST(0)) && !atomic_load(&ur_forking)) {
		int ghost = fd;

		(void)ur_slot_cas(i, &ghost, -1);
	}
	return fd >= 0 ? fd : -1;
}

/* Transit of fd over: the slot holds v (-1: empty).  False if the mark was
 * gone: taken off by the program's call that freed or replaced the number
 * (ur_untrack), or in a fork's child by its handler, which closed it if it
 * was held (a signal handler's fork in this thread, now resumed here). */
static inline bool ur_slot_done(int i, int fd, int v)
{
	int mark = UR_CLOSING(fd);

	return ur_slot_cas(i, &mark, v);
}

static FP_TLS unsigned char ur_tls_slot;  /* 0: not dealt yet; else slot + 1 */
static _Atomic unsigned ur_slots_dealt;

int ur_thread_slot(void)
{
	if (fp_unlikely(!ur_tls_slot))
		ur_tls_slot = (unsigned char)(1 + atomic_fetch_add_explicit(&ur_slots_dealt, 1,
		                                                            memory_order_relaxed) %
		                                      UR_SLOTS);
	return ur_tls_slot - 1;
}

/* The home slot was empty: a reserve another CPU's thread left, if any
 * (a load before each exchange, which leaves empty lines unwritten). */
static int ur_slot_take_other(int dev, int *slot)
{
	int i, fd;

	for (i = dev * UR_SLOTS; i < (dev + 1) * UR_SLOTS; i++)
		if ((fd = ur_slot_take(i)) >= 0)
			return *slot = i, fd;
	return -1;
}

/* An empty slot of dev, the home one first; -1 when all are full.  While
 * the process has one thread, the home one only: one reserve per device,
 * so that a program that holds two at once and closes both keeps the
 * numbers it did before threads made the slots worth having. */
static int ur_slot_free(int dev)
{
	int home = ur_slot_home(dev), i;

	if (fp_likely(atomic_load_explicit(&ur_reserve[home].fd, memory_order_relaxed) == -1))
		return home;
	if (fp_no_threads())
		return -1;
	for (i = dev * UR_SLOTS; i < (dev + 1) * UR_SLOTS; i++)
		if (atomic_load_explicit(&ur_reserve[i].fd, memory_order_relaxed) == -1)
			return i;
	return -1;
}

/* Slot i's reserve given back (closed), as its number is natively; put
 * back if another thread re-kept it meanwhile (not want, or now close-on-
 * exec).  Leaves the move named. */
static void ur_slot_give(int i, int want)
{
	int v = ur_slot_take(i);

	if (v < 0)
		return;
	ur_move_name(i, v);
	ur_move_set(UR_MOVE_ANY);
	if ((want < 0 || v == want) && !(ur_state(v) & UR_CLOEXEC))
		(void)ur_slot_drop(i, v);
	else
		(void)ur_slot_done(i, v, v);
	ur_move_set(UR_MOVE_ANY);
}

/* A plain reserve just put at rest in slot i (a close's keep, an open's
 * put back) while another thread's exec or spawn is under way, whose guard
 * may have looked at the slots before (a cold review: an open's put back
 * after the guard's look, and its program got the number): given back,
 * unless another thread's open took it meanwhile (theirs then).  The
 * counts read after the reserve's state changed; the guard counts itself
 * before it looks.  Never made close-on-exec instead: with threads that
 * flag change could land on a file another thread put at the number (a
 * cold review of 4211bd7), and a close-on-exec reserve no plain open
 * takes would hold its slot for good. */
static void ur_kept_settle(int i, int fd)
{
	if (fp_likely(!ur_guards_apart()) || (ur_state(fd) & UR_CLOEXEC))
		return;
	ur_slot_give(i, fd);
	ur_move_set(0);
}

/* A reserve just put at rest in slot i: settled with an exec's guard, and
 * given back if a split came since the caller looked (its give-back may
 * have run before this one was in its slot).  Never kept past a split:
 * after it nothing of ours looks at the slots again but an exec's guard,
 * whose give-back would close it later, after a lock perhaps (a cold
 * review of 5b6223f: an open's put back while a fork was under way). */
static void ur_kept(int i, int fd)
{
	ur_kept_settle(i, fd);
	if (fp_unlikely(atomic_load(&ur_split_done))) {
		int saved = errno;

		(void)ur_give_back(EMFILE);
		errno = saved;
	}
}

/* Before an exec or a spawn (ur_exec_guard, after its count): each plain
 * reserve at rest is given back, as its number is natively closed, and
 * an open after gets it again for real.  Not made close-on-exec and the
 * flag put back after: two threads that spawned at once then had the one
 * that ended first put it back under the other's spawn, whose program got
 * the number (a fourth cold review's twospawn: 8 in 1,000 on 6bf0d08).
 * Not inside a move a handler interrupted: the guard flags what is left. */
void ur_guard_give_back(void)
{
	if (!ur_move_settle(__builtin_frame_address(0)))
		return;
	ur_move_begin(__builtin_frame_address(0));
	for (int i = 0; i < UR_NRES; i++) {
		int v = atomic_load(&ur_reserve[i].fd);

		if (v >= 0 && !(ur_state(v) & UR_CLOEXEC))
			ur_slot_give(i, -1);
	}
	ur_move_set(0);
}

/* Reserve mode.  Nothing handing out the reserve changes errno (ur_adopt
 * keeps it across its fcntl): not saved, a thread-local access fewer. */
int ur_open(int dev, const char *path, int flags)
{
	int fd, slot;

	/* A cancellation point however served: a pending one acts before
	 * anything is taken (a cold review: the open was made). */
	pthread_testcancel();
	if (fp_likely(ur_mode == UR_MODE_EXACT))
		return ur_open_exact(dev, path, flags);
	/* Nor a plain open while an exec or spawn is under way (or a jump
	 * left one): its guard may have made a plain reserve close-on-exec
	 * (a cold review: a jump out of a failed execve, and the next plain
	 * open had the flag).  A close-on-exec one it leaves as it is. */
	if (fp_unlikely(!UR_LFS(flags)) || !ur_move_settle(__builtin_frame_address(0)) ||
	    (fp_unlikely(ur_guards_apart()) && !(flags & O_CLOEXEC)))
		return ur_open_real(dev, path, flags);
	ur_move_begin(__builtin_frame_address(0));
	fd = ur_slot_take(slot = ur_slot_home(dev));
	if (fp_unlikely(fd < 0))
		fd = ur_slot_take_other(dev, &slot);
	if (fd >= 0) {
		int a;

		ur_move_name(slot, fd);
		a = ur_adopt(fd, dev, flags, slot);
		ur_move_set(UR_MOVE_ANY);
		if (a > 0) {
			(void)ur_slot_done(slot, fd, -1);
			ur_move_set(0);
			/* Adopted as a split began: the program's, forgotten
			 * as the split forgets every other (ur_split_finish). */
			if (fp_unlikely(atomic_load(&ur_split_done)))
				(void)ur_untrack(fd);
			ur_count(OPENS);
			ur_debug("open served by the reserve descriptor");
			return fd;
		}
		/* Other status flags with threads, or shared by a fork still
		 * under way: the reserve stays, the open is real elsewhere (no
		 * close of ours meets a number another thread reopens; a fork's
		 * child copied it and would take it for this open: forkrace);
		 * with one thread it goes, the open has its number, as natively. */
		if ((a < 0 && !fp_one_thread()) ||
		    (a == 0 && atomic_load_explicit(&ur_forking, memory_order_relaxed) &&
		     (ur_state(fd) & UR_RESERVE))) {
			if (ur_slot_done(slot, fd, fd))
				ur_kept(slot, fd);
		} else {
			(void)ur_slot_drop(slot, fd);
		}
	}
	ur_move_set(0);
	return ur_open_real(dev, path, flags);
}

/* ------------------------------------------------------------------------
 * close: keep one descriptor per device.  0, 1 and 2 are really closed, so
 * that close(0); open("/dev/null") still yields 0.
 * ---------------------------------------------------------------------- */
int ur_close(int fd, unsigned st)
{
	int dev = ur_dev(st), none = -1, slot;

	pthread_testcancel();  /* as open's (a reserve kept made no close) */

	if (st & UR_HELD) {
		/* Closed as far as the program knows (the reserve, or a hidden
		 * number a close-everything loop found): as natively. */
		errno = EBADF;
		return -1;
	}
	/* Never kept once pooling ended (ur_split): an open that was under
	 * way then may have recorded its number after the split forgot the
	 * rest, and a record lock may have been taken since.  Nor at or
	 * above the soft limit (lowered since it was given): no open could
	 * hand it out. */
	if (ur_mode == UR_MODE_RESERVE && fd > 2 && !(st & UR_SHARED) &&
	    !atomic_load_explicit(&ur_split_done, memory_order_relaxed) &&
	    ((st & UR_CLOEXEC) || fp_likely(!ur_guards_apart())) &&
	    fd < ur_soft_limit() && ur_move_settle(__builtin_frame_address(0)) &&
	    (slot = ur_slot_free(dev)) >= 0) {
		unsigned char was = (unsigned char)st;

		/* The slot claimed first, marked while in transit: a fork
		 * after the state changes has its child close its copy
		 * (ur_slot_take).  Kept in the close-on-exec state it has:
		 * exec and spawn make it close-on-exec just before
		 * (ur_exec_guard).  The state's compare fails if a fork
		 * marked it shared meanwhile. */
		ur_move_begin(__builtin_frame_address(0));
		if (ur_slot_cas(slot, &none, UR_CLOSING(fd))) {
			bool done;

			ur_move_name(slot, fd);
			if (!ur_cell_cas(fd, &was, (unsigned char)((st & ~UR_OPEN) | UR_RESERVE))) {
				ur_move_set(UR_MOVE_ANY);
				/* Unless the program's call that took the mark
				 * (ur_untrack) forgot it: that call's now.  A
				 * split's that did is the close's still. */
				done = ur_slot_done(slot, fd, -1);
				ur_move_set(0);
				if (done || ur_state(fd) || atomic_load(&ur_split_done))
					goto real;
				return 0;
			}
			ur_move_set(UR_MOVE_ANY);
			done = ur_slot_done(slot, fd, fd);
			ur_move_set(0);
			/* Its mark taken by the program's call that freed the
			 * number, or by a fork child's handler: theirs. */
			if (!done)
				return 0;
			/* Another thread's exec or spawn, begun since the
			 * test above, may have looked at the slots before this
			 * one was kept, and its new program would get a number
			 * the program closed (prog_urandom_stall execjump: 73
			 * spawns of 400 got two descriptors of the device,
			 * natively at most one). */
			ur_kept(slot, fd);
			ur_debug("close: descriptor kept in reserve");
			return 0;
		}
		ur_move_set(0);
	}
real:
	{
		/* A pooled one forgotten, not yet freed: a handler's jump out
		 * (close is async-signal-safe) leaves it open, as natively it
		 * may be, but sharing the pool's description unrecorded
		 * (fd_fuzz's jumps: the close-everything loop's F_SETFL reached
		 * the next open, 1 in 3,000 programs).  Noted as dup2's target. */
		bool held = (st & UR_COW) && ur_dup_hold(__builtin_frame_address(0));
		int r;

		/* In reserve mode with a mark a jump left on the number (out
		 * of an open's adoption, after its state changed): free after
		 * this, and a fork's child would take the next file there for
		 * a reserve being closed (ur_closing_close). */
		if (fp_unlikely(ur_mode == UR_MODE_RESERVE))
			(void)ur_untrack(fd);
		else
			ur_cell_forget(fd, st);
		r = UR_REAL(close)(fd);
		if (held)
			ur_dup_note(0);
		return r;
	}
}

#if defined(FP_HAVE_CLOSE_RANGE) || defined(FP_HAVE_CLOSEFROM)
/* Takes every tracked number in [lo, hi] out of our tables before the
 * kernel frees them.  Reserve descriptors taken out are returned in
 * taken[] so that a failed call can still close them. */
void ur_untrack_range(unsigned lo, unsigned hi, int taken[UR_NTAKEN])
{
	unsigned fd, end = (unsigned)atomic_load(&ur_hiwater);
	int d, k;

	for (d = 0; d < UR_NRES; d++) {
		int r = atomic_load(&ur_reserve[d].fd), n = ur_slot_number(r);

		/* A reserve in transit too (its mover, finding the mark gone,
		 * leaves it to this call: ur_slot_done).  Listed once: a mark
		 * a jump left may name the number another slot keeps, and a
		 * failed call would close it twice, the second time perhaps
		 * another thread's new file there. */
		taken[d] = -1;
		if (n >= 0 && (unsigned)n >= lo && (unsigned)n <= hi &&
		    atomic_compare_exchange_strong(&ur_reserve[d].fd, &r, -1))
			taken[d] = n;
		for (k = 0; k < d && taken[d] >= 0; k++)
			if (taken[k] == taken[d])
				taken[d] = -1;
	}
	for (d = 0; d < UR_NDEV; d++) {
		int h = UR_HW_FD(atomic_load(&ur_hidden[d]));

		/* The hidden descriptor goes with the range; the next open
		 * makes another. */
		taken[UR_NRES + d] = -1;
		if (h >= 0 && (unsigned)h >= lo && (unsigned)h <= hi)
			taken[UR_NRES + d] = ur_hidden_forget(d, h);
	}
	for (fd = lo; fd < end && fd <= hi; fd++) {
		unsigned st = atomic_load(ur_fd(fd));

		if (st)
			ur_cell_forget((int)fd, st);
	}
}
#endif
