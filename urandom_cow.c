/* SPDX-License-Identifier: MIT */
/*
 * urandom_cow.c: a pooled descriptor's open file description is never
 * shared where the program could see it.
 *
 * In exact mode an open is a duplicate of the hidden descriptor, so every
 * pooled open (UR_COW) shares one description with it and with the other
 * pooled opens.  Natively each open has its own.  Nobody can tell while
 * the description stays as the kernel made it (read-only, blocking, no
 * owner, no lock), so the sharing is copy-on-write: just before anything
 * would change the description (F_SETFL, F_SETOWN, F_SETSIG, F_SETLEASE,
 * flock, an OFD or record lock, FIONBIO, epoll_ctl's ADD), or a copy of it would
 * leave our sight (dup and its forms, fork, spawn, exec, SCM_RIGHTS,
 * clone), ur_cow puts a fresh open of the device on the same number, with
 * its close-on-exec flag kept.  The common path (open, read, close) never
 * comes here.  A copy made of a private description needs nothing more:
 * the hidden descriptor itself never escapes, so it is not retired then.
 *
 * Also here, on illumos, ur_dupfd_native (F_DUPFD never skips a hidden
 * number; on Linux it cannot meet one, above the limit).
 */
#include "fastpath.h"
#include "urandom.h"

#include <sys/resource.h>

static const char *const ur_paths[UR_NDEV] = { "/dev/urandom", "/dev/random" };

/* A description of the device of its own: a real open through the path,
 * checked to be the device (a chroot may have a file there).  -1 if none. */
static int ur_cow_open(int dev)
{
	int fd;

	ur_count(SYSCALLS);
	/* Read-only (O_RDONLY is 0), as the hidden one. */
	fd = UR_REAL(openat)(AT_FDCWD, ur_paths[dev], O_CLOEXEC | O_LARGEFILE);
	if (fd < 0)
		return -1;
	ur_heal(fd);
	if (!ur_is_device(fd, dev)) {
		UR_REAL(close)(fd);
		return -1;
	}
	return fd;
}

/* At the descriptor limit: natively the change needs no number.  On
 * Linux, the open lands above the soft limit, which no thread of the
 * program sees raised (ur_open_above); it stays there until ur_put, which
 * also puts it above the limit, where the number is one the program kept
 * from before it lowered its limit (ur_dup3_above).  On illumos, the soft
 * limit raised by one for the open alone, where the hard limit allows: an
 * open or getrlimit by another thread in that instant sees it.  -1 with
 * errno EMFILE where it does not. */
static int ur_cow_open_tight(int dev)
{
	int fd;

#ifdef FP_LINUX
	if ((fd = ur_open_above(ur_paths[dev])) < 0)
		return -1;
	ur_heal(fd);
	if (!ur_is_device(fd, dev)) {
		UR_REAL(close)(fd);
		return errno = EMFILE, -1;
	}
#else
	struct rlimit rl, up;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == FP_RLIM_INFINITY ||
	    rl.rlim_cur >= rl.rlim_max)
		return errno = EMFILE, -1;
	up = rl;
	up.rlim_cur++;
	if (setrlimit(RLIMIT_NOFILE, &up) != 0)
		return errno = EMFILE, -1;
	fd = ur_cow_open(dev);
	(void)setrlimit(RLIMIT_NOFILE, &rl);
#endif
	return fd;
}

/* Puts src's description on fd, with FD_CLOEXEC as cloexec says; src is
 * closed either way. */
static int ur_put(int src, int fd, bool cloexec)
{
	int r;

	ur_count(SYSCALLS);
	r = ur_real_dup3(src, fd, cloexec ? O_CLOEXEC : 0);
#ifdef FP_LINUX
	if (r < 0 && errno == EBADF)  /* fd above a limit lowered since */
		r = ur_dup3_above(src, fd, cloexec ? O_CLOEXEC : 0);
#endif
	if (r < 0 && errno == ENOSYS) {
		r = UR_REAL(dup2)(src, fd);
		if (r >= 0 && cloexec)
			(void)UR_REAL(fcntl)(fd, F_SETFD, FD_CLOEXEC);
	}
	UR_REAL(close)(src);
	return r;
}

/* Threads in ur_cow_all, which copies descriptors other threads own.  A
 * claimed number (its UR_COW cleared, its dup3 to come) reads to its owner
 * as one of its own description, so every owner's call that frees it,
 * changes its description or sets its flag waits for the copies under way
 * (ur_cow_settle): a close that did not would have the dup3 put the device
 * back on the freed number, open and unknown to the program, inherited by
 * every exec after.  The epoch moves at each start and end, for a flag set
 * while a copy may have read the old one (ur_cow_quiet). */
_Atomic unsigned ur_cowing;
static _Atomic unsigned ur_cow_epoch;
static FP_TLS bool ur_cow_me;

/* A scan in another thread (ur_cow_all) runs with every signal blocked and
 * cancellation off, a few system calls per pooled number: the one wait on
 * another thread left here, bounded and unstrandable (docs/design.md).
 * Not from inside ur_cow_all (its thread has signals blocked there).
 * Every wait gives up on counts another process's threads left: a clone
 * child without CLONE_VM has a table of its own (ur_table_ours: one
 * getpid, on the waiting path only). */
void ur_cow_wait(void)
{
	while (atomic_load(&ur_cowing) && !ur_cow_me && ur_table_ours())
		FP_YIELD();
}

unsigned ur_cow_quiet(void)
{
	ur_cow_wait();
	return atomic_load(&ur_cow_epoch);
}

/* Also while a copy is under way: one that began between the owner's wait
 * and its read of the epoch has read the old flag. */
bool ur_cow_moved(unsigned epoch)
{
	return atomic_load(&ur_cow_epoch) != epoch ||
	       (atomic_load(&ur_cowing) && !ur_cow_me && ur_table_ours());
}

/*
 * No copy waits for a fork, a spawn or a system() under way in another
 * thread (their scan, ur_cow_all, runs before the call; a system() lasts
 * until its command exits).  A fork's child may then be made while a copy
 * is half done: the fresh description open but not yet on the number, or
 * on it with its record not yet changed.  Each copy says what it holds
 * (ur_copy_src: the fresh descriptor + 1, by the number it is for), and
 * the child, which has only the forking thread, finishes what the parent
 * will finish (ur_cow_atfork_child): the two then share the number's
 * description as they would natively.
 */
static _Atomic unsigned ur_copying;
static _Atomic int ur_copy_src[UR_MAXFD];

/*
 * Gives fd a description of its own, if it shares the hidden one; errno
 * is kept.  False when none could be had (no device at the path, no
 * number free): the change then reaches the shared description, and the
 * hidden descriptor is retired so that later opens at least get a fresh
 * one.  Two threads changing one fresh descriptor at the same instant may
 * see one change land on the description the other then replaces.
 */
static bool ur_cow_one(int fd);

bool ur_cow(int fd)
{
	bool r;
	int cs;
	sigset_t old;

	if (ur_cow_me)
		return ur_cow_one(fd);
	/* No handler of this thread inside: one that closed the claimed
	 * number would have the copy put the device back on it, and one that
	 * jumped out would leave the fresh descriptor open.  Its open and
	 * close are cancellation points: unwound there, the same. */
	ur_block_all(&old, &cs);
	atomic_fetch_add(&ur_copying, 1);
	r = ur_cow_one(fd);
	atomic_fetch_sub(&ur_copying, 1);
	ur_unblock_all(&old, cs);
	return r;
}

static bool ur_cow_one(int fd)
{
	unsigned char st = atomic_load(ur_fd(fd));
	int saved = errno, fl, nfd = -1, r = -1;

	for (;;) {
		unsigned char was = st;

		if (!(st & UR_COW)) {
			/* Claimed by another thread's ur_cow_all, maybe: its
			 * description is the pooled one until the copy lands. */
			ur_cow_settle();
			break;
		}
		/* Not the device: closed by a raw system call and the number
		 * reused (a socket), and the state stale, if it is still the
		 * one read (else its owner closed it meanwhile, and may have
		 * put another open there: read again). */
		if (!ur_is_device(fd, ur_dev(st))) {
			/* Another thread's number (ur_cow_all) may have been
			 * closed, lent to a file and opened from the pool
			 * again while we looked: the same state then holds a
			 * live pooled open, which a clear would hide (reads
			 * uncounted, later changes not copied).  It is left to
			 * its owner; an open landing on it now is as one made
			 * just after the scan passed it. */
			if (ur_cow_me) {
				if ((st = atomic_load(ur_fd(fd))) != was)
					continue;
				st = 0;
				break;
			}
			if (atomic_compare_exchange_strong(ur_fd(fd), &was, 0)) {
				st = 0;
				break;
			}
			st = was;
			continue;
		}
		/* At the limit: an open above it (ur_cow_open_tight). */
		if ((fl = UR_REAL(fcntl)(fd, F_GETFD)) < 0 ||
		    (nfd < 0 && (nfd = ur_cow_open(ur_dev(st))) < 0 &&
		     (errno != EMFILE || (nfd = ur_cow_open_tight(ur_dev(st))) < 0)))
			break;
		atomic_store(&ur_copy_src[fd], nfd + 1);
		/* Claimed with the very state read before the flag: if it
		 * changed, the number may be another open now (its owner
		 * closed and reopened it), whose flag is read again.  Once
		 * claimed, a close of it waits (ur_cow_forget). */
		if (atomic_compare_exchange_strong(ur_fd(fd), &was, (unsigned char)(st & ~UR_COW))) {
			r = ur_put(nfd, fd, (fl & FD_CLOEXEC) != 0);
			nfd = -1;
			break;
		}
		st = was;
	}
	if (nfd >= 0)
		UR_REAL(close)(nfd);
	atomic_store(&ur_copy_src[fd], 0);
	if (r < 0 && (st & UR_COW)) {
		ur_update(fd, UR_COW, 0);
		(void)ur_hidden_retire();
	} else if (r >= 0) {
		ur_debug("copy-on-write: a description of its own");
	}
	errno = saved;
	return r >= 0 || !(st & UR_COW);
}

/* Before a fork, a spawn or a clone: every pooled descriptor gets its own
 * description, so that the child's copies share with the parent's only
 * what they share natively. */
void ur_cow_all(void)
{
	int fd, end = atomic_load(&ur_hiwater), cs;
	sigset_t old;

	/* Nothing pooled yet, so no copy of an owner's either; a vfork child:
	 * the records are its parent's. */
	if (end == 0 || !ur_table_ours())
		return;
	/* No handler in between: one that closed a number claimed here would
	 * not wait for the copy (it cannot end under the handler), and one
	 * that forked would scan within the scan.  No cancellation: the
	 * scan's opens and closes are cancellation points, and unwound there
	 * it would leave ur_cowing raised for good. */
	ur_block_all(&old, &cs);
	atomic_fetch_add(&ur_cowing, 1);
	atomic_fetch_add(&ur_cow_epoch, 1);
	ur_cow_me = true;
	for (fd = 0; fd < end; fd++)
		if (atomic_load_explicit(ur_fd(fd), memory_order_relaxed) & UR_COW)
			(void)ur_cow_one(fd);
	ur_cow_me = false;
	atomic_fetch_add(&ur_cow_epoch, 1);
	atomic_fetch_sub(&ur_cowing, 1);
	ur_unblock_all(&old, cs);
}

/* A fork child has one thread: another thread's ur_cow_all, under way in
 * the parent at the fork, is not running here and never ends, so nothing
 * may wait for it (ur_cow_forget).  Copies other threads had half done are
 * finished here as the parent's thread will finish them: a claimed number
 * (UR_COW cleared) gets the fresh description, which the parent's number
 * will have too; an unclaimed one keeps the pooled one.  The table was
 * copied before the memory, so a record never names a descriptor the
 * child lacks; one that is not the untracked device is left alone. */
void ur_cow_atfork_child(bool forget)
{
	int fd, end = atomic_load(&ur_hiwater);

	if (atomic_load(&ur_copying) && ur_mode == UR_MODE_EXACT)
		for (fd = 0; fd < end; fd++) {
			int src = atomic_load(&ur_copy_src[fd]) - 1, fl;
			unsigned st = atomic_load(ur_fd(fd));

			if (src < 0)
				continue;
			atomic_store(&ur_copy_src[fd], 0);
			if (forget || ur_state(src) || !ur_is_device(src, ur_dev(st)))
				continue;
			if (st && !(st & UR_COW) && (fl = UR_REAL(fcntl)(fd, F_GETFD)) >= 0)
				(void)ur_put(src, fd, (fl & FD_CLOEXEC) != 0);
			else
				UR_REAL(close)(src);
		}
	atomic_store(&ur_cowing, 0);
	atomic_store(&ur_copying, 0);
	ur_cow_me = false;
}

/* A pooled number (state st) is about to be freed or replaced (close, dup2
 * onto it, a range closed): forgotten first.  If ur_cow_all in another
 * thread has claimed it, that copy is waited for (a few system calls);
 * not from inside it (a signal handler of that thread). */
void ur_cow_forget(int fd, unsigned st)
{
	unsigned char s = (unsigned char)st;

	if (ur_cell_cas(fd, &s, 0))
		return;
	ur_cow_wait();
	atomic_store(ur_fd(fd), 0);
}


/* Before an exec: the same for the numbers the new program keeps.  In
 * this process's own table, by the scan itself (ur_cow_all), which claims
 * each number before it puts a description there, so that a close and an
 * open of that number by another thread meanwhile waits for the copy
 * rather than being replaced by it; a failed exec leaves each copied
 * number with the private description its record then says.  A vfork
 * child runs this on its parent's memory with a table of its own: the
 * kernel's flags only, and the race with the parent's other threads
 * remains (fastpath(7)). */
void ur_cow_exec(void)
{
	int fd, end = atomic_load(&ur_hiwater), saved = errno;

	if (fp_likely(ur_mode != UR_MODE_EXACT))
		return;
	if (ur_table_ours()) {
		ur_cow_all();
		errno = saved;
		return;
	}
	for (fd = 0; fd < end; fd++) {
		unsigned st = atomic_load_explicit(ur_fd(fd), memory_order_relaxed);
		int fl, nfd;

		if (!(st & UR_COW) || (fl = UR_REAL(fcntl)(fd, F_GETFD)) < 0 ||
		    (fl & FD_CLOEXEC) || !ur_is_device(fd, ur_dev(st)) ||
		    (nfd = ur_cow_open(ur_dev(st))) < 0)
			continue;
		(void)ur_put(nfd, fd, false);
	}
	errno = saved;
}

#ifndef FP_LINUX
/* F_DUPFD's answer r for a lowest number lo, before it is tracked:
 * natively a hidden number h with lo <= h < r would have been free, and
 * the answer.  Then the hidden descriptor moves out of the way (the next
 * open makes another) and the copy is made again.  Two loads when no
 * hidden one is in the way, the common case: it sits near the top. */
int ur_dupfd_native(int (*real)(int, int, ...), int fd, int cmd, int lo, int r)
{
	int d;

	for (d = 0; r >= 0 && lo >= 0 && d < UR_NDEV; d++) {
		int h = UR_HW_FD(atomic_load(&ur_hidden[d])), again;

		if (h < lo || h >= r || !ur_hidden_close(d, h))
			continue;
		if ((again = real(fd, cmd, lo)) >= 0) {
			UR_REAL(close)(r);
			r = again;
			d = -1;  /* the other device's may be in the way now */
		}
	}
	return r;
}
#endif
