/* SPDX-License-Identifier: MIT */
/*
 * urandom_hidden.c: the hidden descriptors of exact mode, one per device,
 * that every pooled open duplicates: where they live (above the soft
 * descriptor limit on Linux, high in the table on illumos), how one is
 * made, forgotten and retired, and what a change of the program's limit
 * does to them.
 */
#include "fastpath.h"
#include "urandom.h"

#include <sys/resource.h>
#include <sys/statfs.h>

#ifdef FP_LINUX
#include <sys/wait.h>
#endif

/* The word left says none (-1), or, until the caller's close is made, the
 * number being closed (UR_CLOSING: ur_closing_atfork_child). */
static int ur_hidden_take(int dev, int fd, bool closing)
{
	uint64_t w = atomic_load(&ur_hidden[dev]);
	int h;

	do {
		h = UR_HW_FD(w);
		if (h < 0 || (fd >= 0 && h != fd))
			return -1;
	} while (!atomic_compare_exchange_weak(&ur_hidden[dev], &w,
	                                       UR_HW(UR_HW_GEN(w) + 1, closing ? UR_CLOSING(h) : -1)));
	atomic_store(ur_fd(h), 0);
	return h;
}

int ur_hidden_forget(int dev, int fd)
{
	return ur_hidden_take(dev, fd, false);
}

/* With no handler inside, which could leave the mark for good by a jump
 * (ur_closing_atfork_child), nor a cancellation.  Closed while a fork may
 * be under way, the word is left a ghost, as a reserve's slot is
 * (ur_slot_closed), until an open finds no fork is (ur_open_exact). */
bool ur_hidden_close(int dev, int fd)
{
	int h, cs;
	uint64_t w;
	sigset_t old;
	unsigned g;

	if (UR_HW_FD(atomic_load(&ur_hidden[dev])) < 0)
		return false;
	ur_block_all(&old, &cs);
	g = atomic_load(&ur_forks);
	h = ur_hidden_take(dev, fd, true);
	if (h >= 0) {
		int left;

		ur_count(SYSCALLS);
		UR_REAL(close)(h);
		left = ur_ghost_left(&ur_hidden_ghost_at[dev], h, g);
		w = atomic_load(&ur_hidden[dev]);
		while (UR_HW_FD(w) == UR_CLOSING(h) &&
		       !atomic_compare_exchange_weak(&ur_hidden[dev], &w, UR_HW(UR_HW_GEN(w) + 1, left)))
			;
	}
	ur_unblock_all(&old, cs);
	return h >= 0;
}

bool ur_hidden_retire(void)
{
	bool any = false;
	int d;

	/* Not a vfork child's (its fork's or spawn's end): the records are
	 * its parent's, whose hidden one they would lose (fd_fuzz seed 333:
	 * F_GETFD 1 at the limit, in the parent, after its child forked). */
	if (fp_unlikely(fp_vfork_child()))
		return false;
	for (d = 0; d < UR_NDEV; d++)
		any = ur_hidden_close(d, -1) || any;
	return any;
}

#ifdef FP_LINUX
/*
 * Where the hidden descriptors live: at or above the soft RLIMIT_NOFILE,
 * numbers the program can never be given (open, socket, accept and
 * F_DUPFD allocate below the limit; dup2 and dup3 onto one are EBADF).
 * So its numbering, its EMFILE and its dup2 failures are native by
 * construction, and the table grows only at the first pooled open, to the
 * power of two above the limit (FDSize 2048 under 1024).  Placing one
 * there takes a higher limit for one call, which no thread of the
 * program may see (getrlimit) nor have undone (a setrlimit made
 * meanwhile): where the process has one thread (ur_alone), it
 * raises its own for the call, every signal blocked; else a child on our
 * memory and table (CLONE_VM | CLONE_FILES | CLONE_VFORK, without
 * CLONE_THREAD, so with limits of its own) raises its own and makes the
 * descriptor in the shared table.  The first costs 2 system calls more
 * than the call; the second a clone and a wait, and, because the table
 * is then shared, the RCU grace period of growing it (13 ms here): once
 * per process, at its first pooled open.  Where there is no such number
 * (the soft limit at the hard one, no CAP_SYS_RESOURCE; a soft limit of
 * 16382 or more, past our records) or no child (clone refused), opens are
 * real: exact, at the native cost (ur_hidden_why says why).
 */
struct ur_above {
	int src;             /* F_DUPFD_CLOEXEC from it at floor; -1: open path */
	int onto;            /* else dup3 of src onto onto - 1, with dflags */
	int dflags;
	int floor;
	const char *path;
	uint64_t lim[2];     /* the limit the call runs under (prlimit64's) */
	long r;              /* the number, or -errno */
};

/* Raw system calls only: the child shares this thread's TLS (errno, the
 * cancellation state), and no handler runs here (signals blocked). */
static void ur_above_op(struct ur_above *a)
{
	bool two = atomic_load_explicit(&ur_dup_fallback, memory_order_relaxed);
	long r = syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, a->lim, 0L);

	if (r == 0 && a->onto) {
		r = syscall(SYS_dup3, a->src, a->onto - 1, a->dflags);
	} else if (r == 0 && a->src >= 0) {
		r = syscall(SYS_fcntl, a->src, two ? F_DUPFD : F_DUPFD_CLOEXEC, a->floor);
		/* inside the caller's window (ur_cloexec_hold) */
		if (r >= 0 && two)
			(void)syscall(SYS_fcntl, r, F_SETFD, FD_CLOEXEC);
	} else if (r == 0) {
		r = syscall(SYS_openat, AT_FDCWD, a->path, O_CLOEXEC | O_LARGEFILE);  /* O_RDONLY */
	}
	a->r = r < 0 ? -errno : r;
}

static int ur_above_child(void *p)
{
	ur_above_op(p);
	return 0;  /* the C library's clone then makes the exit call */
}

/* One child at a time, on this stack; another thread that wants one then
 * does the native thing this once (no thread waits for another). */
static _Alignas(64) unsigned char ur_above_stack[16384];
_Atomic bool ur_above_busy;

/* A child process on our memory was made (clone with CLONE_VM, without
 * CLONE_THREAD or CLONE_VFORK: the clone wrapper), which no count of
 * threads holds: it reads and sets our limit by our pid (a cold review:
 * it saw the raised limit in 19 to 26 of 100 runs).  A fork's child has
 * none of them. */
_Atomic bool ur_vm_kin;

/* No other thread in the process, by the kernel's count: /proc/self/task
 * (procfs, not a tree standing in for it) has two links more than the
 * process has threads.  It counts what the C library's word misses (a
 * raw clone's thread saw the raised limit in 21 of 50 children;
 * prog_urandom_limit seen N raw) and what the word never takes back (a
 * fork's child of a threaded program paid a clone, 15 ms, at its first
 * open of the device), and a thread the C library made for itself
 * (timer_create's).  With every signal blocked no thread is made until
 * the call is done.  Where the count cannot be read (no /proc, another
 * pid namespace's, a filter refusing the stat: a cold review), not
 * alone: the placing child, once. */
static bool ur_alone(void)
{
	struct statfs sf;
	struct stat st;

	return !atomic_load(&ur_vm_kin) && statfs("/proc/self/task", &sf) == 0 &&
	       sf.f_type == PROC_SUPER_MAGIC && fp_stat("/proc/self/task", &st) == 0 &&
	       st.st_nlink == 3;
}

/* Runs a's call above the program's limit, unseen; the number or -errno
 * (-EAGAIN: another thread is at it). */
static long ur_above(struct ur_above *a)
{
	sigset_t old;
	int saved = errno;

	fp_hold_all(&old);
	a->r = -ENOSYS;
	if (ur_alone()) {
		uint64_t was[2];

		if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0L, was) == 0) {
			ur_above_op(a);
			(void)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, was, 0L);
		}
	} else if (fp_under_valgrind) {
		/* Valgrind runs no clone of these flags: as where clone is
		 * refused, no hidden descriptor once threads run (and no
		 * thread takes the flag: valgrind runs one at a time). */
		a->r = -ENOSYS - 1000;
	} else if (!UR_REAL(clone) || atomic_exchange(&ur_above_busy, true)) {
		a->r = -EAGAIN;
	} else {
		int r = fp_apart(UR_REAL(clone), ur_above_child, a,
		                 ur_above_stack + sizeof ur_above_stack, CLONE_FILES, NULL);

		if (r < 0)
			a->r = r - 1000;  /* the clone's own failure */
		atomic_store(&ur_above_busy, false);
	}
	fp_unhold(&old);
	errno = saved;
	return a->r;
}

/* The limit a call above soft runs under: hard where it is higher, else
 * (the soft limit at the hard one) a raised hard one, which only
 * CAP_SYS_RESOURCE allows, in the child or undone at once. */
static void ur_above_limit(struct ur_above *a, const struct rlimit *rl, uint64_t want)
{
	uint64_t hard = rl->rlim_max == FP_RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl->rlim_max;

	a->lim[0] = hard > want ? want : hard;
	if (a->lim[0] <= (uint64_t)a->floor)
		a->lim[0] = want;
	a->lim[1] = hard > a->lim[0] ? hard : a->lim[0];
}

/* a's call above the program's soft limit, from the lowest free number
 * there (or onto a->onto - 1, which must be there); err where it cannot. */
static int ur_above_run(struct ur_above *a, int err)
{
	struct rlimit rl;
	long r;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == FP_RLIM_INFINITY ||
	    (a->onto && a->onto - 1 < (int)rl.rlim_cur))
		return errno = err, -1;
	a->floor = (int)rl.rlim_cur;
	ur_above_limit(a, &rl, UR_MAXFD);
	ur_count(SYSCALLS);
	if ((r = ur_above(a)) < 0)
		return errno = err, -1;
	return (int)r;
}

/* The lowest free number, wherever it is: above the hidden ones, and any
 * the program kept open from before it lowered its limit (with 64 numbers
 * above, a table filled to 4096 under a limit lowered to 1024 left none,
 * and the change reached every pooled open). */
int ur_open_above(const char *path)
{
	struct ur_above a = { .src = -1, .path = path };

	return ur_above_run(&a, EMFILE);
}

/* dup3 onto a number of the program's at or above a limit it lowered
 * since it was given (EBADF under the limit), under a raised one. */
int ur_dup3_above(int src, int fd, int flags)
{
	struct ur_above a = { .src = src, .dflags = flags };

	if (fd < 0 || fd >= UR_MAXFD)
		return errno = EBADF, -1;
	a.onto = fd + 1;
	return ur_above_run(&a, EBADF);
}

_Atomic(const char *) ur_hidden_why;
/* The soft limit as the program last set it through us (0: not read yet):
 * a reserve kept at or above it is a number no open could give. */
static _Atomic int ur_soft;

int ur_soft_limit(void)
{
	int lim = atomic_load_explicit(&ur_soft, memory_order_relaxed);
	struct rlimit rl;

	if (fp_likely(lim))
		return lim;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	lim = rl.rlim_cur == FP_RLIM_INFINITY || rl.rlim_cur > INT_MAX ? INT_MAX : (int)rl.rlim_cur;
	/* A change through ur_limit_set meanwhile is the newer. */
	{
		int none = 0;

		if (!atomic_compare_exchange_strong(&ur_soft, &none, lim))
			return none;
	}
	return lim;
}

/* The program's changes of its limit (ur_limit_set), for a placing that
 * read the limit before one. */
static _Atomic unsigned ur_limit_gen;

static int ur_hidden_place(int lo, unsigned *gen)
{
	struct ur_above a = { .src = lo };
	struct rlimit rl;
	long r;

	*gen = atomic_load(&ur_limit_gen);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == FP_RLIM_INFINITY ||
	    rl.rlim_cur >= UR_MAXFD - UR_NDEV) {
		atomic_store(&ur_hidden_why, "the soft descriptor limit is 16382 or more");
		return -1;
	}
	a.floor = (int)rl.rlim_cur;
	ur_above_limit(&a, &rl, UR_MAXFD);
	r = ur_above(&a);
	if (r == -EAGAIN)
		return UR_DUP_LATER;
	if (r >= 0)
		return (int)r;
	atomic_store(&ur_hidden_why, r == -EPERM ? "the soft descriptor limit is the hard one"
	                             : r < -1000 ? "clone refused"
	                                         : "no number above the descriptor limit");
	return -1;
}

/* The program changed its descriptor limit (setrlimit, prlimit): a hidden
 * number now below the soft limit would be one the program can be given,
 * so it goes (the next open makes one above), and a placing that failed
 * for want of a number may work now. */
void ur_limit_set(uint64_t soft)
{
	int d;

	/* A vfork child's limit is its own; these records are its parent's
	 * (and so is the table they describe). */
	if (!ur_table_ours()) {
		if (fp_vfork_child())
			ur_vfork_limit(soft);
		return;
	}

	atomic_store(&ur_soft, soft > INT_MAX ? INT_MAX : (int)soft);
	atomic_fetch_add(&ur_limit_gen, 1);
	atomic_store(&ur_hidden_why, NULL);
	for (d = 0; d < UR_NDEV; d++) {
		int h = UR_HW_FD(atomic_load(&ur_hidden[d]));

		atomic_store(&ur_hidden_bad[d], false);
		if (h >= 0 && (uint64_t)h < soft)
			(void)ur_hidden_close(d, h);
	}
	/* A reserve at or above the limit now is a number no open could
	 * have: natively EMFILE, or another number (issue 36, defect 15). */
	for (d = 0; d < UR_NRES; d++) {
		int fd = atomic_load(&ur_reserve[d].fd), saved = errno;

		if (fd >= 0 && (uint64_t)fd >= soft) {
			(void)ur_give_back(EMFILE);
			errno = saved;
			break;
		}
	}
}
#else
/* illumos: high, below our table's end and the descriptor limit, grown at
 * start-up (ur_fd_init); the program's numbering skips it near the limit
 * (fastpath(7)). */
static int ur_hidden_floor(void)
{
	struct rlimit rl;
	long lim = 4096;  /* the table grown at start-up: no further */

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != FP_RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)lim)
		lim = (long)rl.rlim_cur;
	return lim >= 64 ? (int)(lim - 16) : -1;
}

/* No wrapper sees the program change its limit here. */
int ur_soft_limit(void)
{
	return INT_MAX;
}

static int ur_hidden_place(int lo, unsigned *gen)
{
	int floor = ur_hidden_floor();

	*gen = 0;
	return floor > 2 ? ur_dup_cloexec(lo, floor) : -1;
}
#endif

/* At initialisation: nothing on Linux (the hidden descriptor is made at
 * the first pooled open, above the limit).  On illumos, the table grown
 * past the hidden number while the process almost surely has one thread,
 * through a descriptor of our own, never the program's (closing a
 * duplicate of a file it holds would drop its POSIX locks on it). */
FP_STARTUP_TEXT void ur_hidden_init(void)
{
#ifndef FP_LINUX
	int floor, d, h, saved = errno;

	if (ur_mode != UR_MODE_EXACT || !(fp_cfg.enabled & FP_BIT(urandom)) ||
	    (floor = ur_hidden_floor()) < 64)
		return;
	d = UR_REAL(openat)(AT_FDCWD, "/", O_RDONLY | O_CLOEXEC);
	if (d < 0) {
		errno = saved;
		return;
	}
	ur_heal(d);
	if ((h = ur_dup_cloexec(d, floor)) >= 0) {
		ur_heal(h);
		UR_REAL(close)(h);
	}
	UR_REAL(close)(d);
	errno = saved;
#endif
}

/* The placing's window closed (ur_place_hold): recorded or gone. */
static inline void ur_hidden_made(void)
{
	ur_place_release();
}

/* The open of dev that finds no hidden descriptor (w: the word it read):
 * the program's own open, at the number it gets natively, and the hidden
 * descriptor placed from it (its duplicate above the limit), unless
 * another thread made one meanwhile.  Never an open of ours below the
 * limit first: at the brim of a full table its number, one past the
 * program's, doubled the table (fd_fuzz seed 431 case 37508: FDSize 8192
 * where native has 4096).  false: nothing opened, the open is the
 * caller's (another placing is under way).  true: the open is made, *fd
 * its result (-1 and errno as the kernel's), *hp the hidden descriptor it
 * shares its description with, or -1 where it is a real open of its own
 * (none could be placed: an exec or fork under way, this once; no number
 * above the limit, for good, see ur_hidden_bad). */
bool ur_hidden_make(int dev, const char *path, int flags, unsigned bits, uint64_t w, int *fd,
                    int *hp)
{
	int h = -1, saved = errno;
	unsigned gen = 0;

	*hp = -1;
	/* No exec or fork until the copy is close-on-exec, nor a fork until
	 * it is recorded.  Pooling ended (ur_split) after this open's
	 * ur_match: a hidden descriptor made now would be closed later (at
	 * a fork), dropping a record lock the program took meanwhile; one
	 * made before the end is retired by it (ur_place_settle), so the
	 * test is inside the window. */
	if (!ur_place_hold())
		return false;
	if (atomic_load(&ur_split_done) || !ur_cloexec_hold()) {
		ur_place_release();
		return false;
	}
	ur_count(SYSCALLS);
	UR_RETRY(*fd, UR_REAL(openat)(AT_FDCWD, path, flags));
	if (*fd < 0) {
		saved = errno;  /* the open's */
	} else {
		ur_heal(*fd);
		if (*fd < UR_MAXFD && ur_is_device(*fd, dev)) {
			ur_count(SYSCALLS);
			h = ur_hidden_place(*fd, &gen);
		}
	}
	ur_cloexec_release();
	errno = saved;
	if (*fd < 0 || h == UR_DUP_LATER) {
		ur_hidden_made();
		return true;
	}
	if (h < 0 || h >= UR_MAXFD) {
		if (h >= 0)
			UR_REAL(close)(h);
		atomic_store(&ur_hidden_bad[dev], true);
		ur_hidden_made();
		ur_debug("no hidden descriptor: opens are real");
		return true;
	}
	ur_heal(h);
	ur_set(h, UR_HIDDEN | (dev == UR_DEV_RANDOM ? UR_RANDOM : 0));
	if (!atomic_compare_exchange_strong(&ur_hidden[dev], &w, UR_HW(UR_HW_GEN(w) + 1, h))) {
		atomic_store(ur_fd(h), 0);
		UR_REAL(close)(h);
		ur_hidden_made();
		return true;
	}
#ifdef FP_LINUX
	/* The program changed its limit while we placed it: maybe below. */
	if (atomic_load(&ur_limit_gen) != gen && ur_hidden_close(dev, h)) {
		ur_hidden_made();
		return true;
	}
#endif
	/* Its copy recorded (bits) while signals are held: one that came
	 * during the window runs at its close, and a jump out of it left the
	 * copy unrecorded, sharing the description for good (review 38:
	 * 97 in 100 first opens under a 10 us timer). */
	ur_set(*fd, bits);
	ur_hidden_made();
	ur_debug("hidden descriptor opened");
	*hp = h;
	return true;
}
