/* SPDX-License-Identifier: MIT */
/*
 * urandom_fd.c: the descriptors of the device that the urandom mitigation
 * tracks, the hidden one it duplicates (exact mode) and the one it keeps
 * in reserve (reserve mode).
 *
 * The caller always gets a real kernel descriptor of the device (fstat,
 * poll, exec and children all behave).
 *   - exact (the default): an open is fcntl(hidden, F_DUPFD[_CLOEXEC], 0),
 *     the lowest free number as open gives, and close really closes.  The
 *     hidden descriptor sits at a high number, close-on-exec.
 *   - reserve: close() keeps a descriptor of the device in reserve (one
 *     per device while the process has one thread, then up to UR_SLOTS, a
 *     slot per CPU), in the close-on-exec state the program left it, and
 *     the next open() hands it out again; exec and spawn make it
 *     close-on-exec first (ur_exec_guard).
 * Invariants kept here:
 *   - ur_fd() marks only numbers the kernel holds open (ur_untrack comes
 *     before every call that may free a number; ur_heal after every call
 *     that returns a fresh one);
 *   - ur_hidden[] names a number only while it is our hidden descriptor,
 *     and its generation changes before the number is freed or replaced;
 *   - the reserve is never 0, 1 or 2, and its open file description is its
 *     own: never one a dup or a forked child shares (UR_SHARED; ur_close,
 *     ur_adopt).
 */
#include "fastpath.h"
#include "urandom.h"

#include <sys/resource.h>

#ifdef FP_LINUX
#include <link.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#endif

_Alignas(FP_CACHELINE) _Atomic unsigned char ur_fd_cells[UR_MAXFD];
_Atomic int ur_hiwater;
/* The process whose descriptor table this memory's records describe: set
 * at start-up and in a fork or _Fork child.  A vfork child shares the
 * memory but not the table; what it closes or replaces in its own table
 * must not touch the parent's records (Python's subprocess closes every
 * descriptor with close_range in a vfork child). */
static _Atomic long ur_table_pid;

bool ur_table_ours(void)
{
	return (long)getpid() == atomic_load_explicit(&ur_table_pid, memory_order_relaxed);
}
struct ur_res ur_reserve[UR_NRES] = {
	[0 ... UR_NRES - 1] = { -1 },
};

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

int ur_reserve_of(int dev)
{
	int i, fd;

	for (i = dev * UR_SLOTS; i < (dev + 1) * UR_SLOTS; i++)
		if ((fd = atomic_load(&ur_reserve[i].fd)) >= 0)
			return fd;
	return -1;
}
_Atomic unsigned ur_forks;
int ur_mode = UR_MODE_EXACT;
_Alignas(FP_CACHELINE) _Atomic uint64_t ur_hidden[UR_NDEV] = { UR_HW(0, -1), UR_HW(0, -1) };
_Atomic bool ur_hidden_bad[UR_NDEV];

int ur_parse_mode(const char *s, int *mode, char *why, size_t whylen)
{
	*mode = UR_MODE_EXACT;
	if (strcmp(s, "exact") == 0)
		return 0;
	if (strcmp(s, "reserve") == 0) {
		*mode = UR_MODE_RESERVE;
		return 0;
	}
	snprintf(why, whylen, "expected exact or reserve");
	return -1;
}
static _Atomic int ur_random_ok = -1;  /* -1: not yet decided */

void ur_hiwater_raise(int fd, int hw)
{
	while (hw <= fd && !atomic_compare_exchange_weak(&ur_hiwater, &hw, fd + 1))
		;
}

/* Changes some bits of a tracked number's state, keeping the others (a
 * fork's UR_SHARED mark may land at any time); an untracked one stays so. */
void ur_update(int fd, unsigned clear, unsigned set)
{
	unsigned char st;

	if (fd < 0 || fd >= UR_MAXFD)
		return;
	st = atomic_load(ur_fd(fd));
	while (st && !atomic_compare_exchange_weak(ur_fd(fd), &st,
	                                           (unsigned char)((st & ~clear) | set)))
		;
}

/* Tracks a number the kernel gave (or left) us during a call that began
 * when ur_forks was g: if a fork may have run since, the child has it. */
void ur_track_new(int fd, unsigned st, unsigned g)
{
	unsigned now;

	ur_set(fd, st);
	now = atomic_load(&ur_forks);
	if (now != g || (now & 1))
		ur_update(fd, 0, UR_SHARED);
}

static void ur_mark_all_shared(void)
{
	int fd, end = atomic_load(&ur_hiwater);

	for (fd = 0; fd < end; fd++)
		ur_update(fd, 0, UR_SHARED);
}

/* The number is about to be freed (or was, behind our back): forget it,
 * and if it was the reserve, make sure nobody hands it out.  Returns true
 * when it was the reserve and we took it out of the slot. */
bool ur_untrack(int fd)
{
	unsigned st = ur_state(fd);
	int i;

	if (!st)
		return false;
	if (st & UR_HIDDEN)
		return ur_hidden_forget(ur_dev(st), fd) >= 0;
	ur_cell_forget(fd, st);
	if (!(st & UR_RESERVE))
		return false;
	for (i = ur_dev(st) * UR_SLOTS; i < (ur_dev(st) + 1) * UR_SLOTS; i++) {
		int expect = fd;

		if (atomic_compare_exchange_strong(&ur_reserve[i].fd, &expect, -1))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * The hidden descriptors (exact mode).
 * ---------------------------------------------------------------------- */
int ur_hidden_forget(int dev, int fd)
{
	uint64_t w = atomic_load(&ur_hidden[dev]);
	int h;

	do {
		h = UR_HW_FD(w);
		if (h < 0 || (fd >= 0 && h != fd))
			return -1;
	} while (!atomic_compare_exchange_weak(&ur_hidden[dev], &w,
	                                       UR_HW(UR_HW_GEN(w) + 1, -1)));
	atomic_store(ur_fd(h), 0);
	return h;
}

bool ur_hidden_retire(void)
{
	bool any = false;
	int d, h;

	for (d = 0; d < UR_NDEV; d++)
		if ((h = ur_hidden_forget(d, -1)) >= 0) {
			ur_count(SYSCALLS);
			fp_real_urandom.r_close.f(h);
			any = true;
		}
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
 * meanwhile): where the process has one thread (fp_one_thread), it
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

	if (r == 0 && a->src >= 0) {
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
static _Atomic bool ur_above_busy;
/* Valgrind runs no clone of these flags (not a thread's, not vfork's): it
 * ends the whole program ("does not support general clone").  Under it,
 * as where clone is refused: no hidden descriptor once threads run. */
bool ur_above_noclone;

static int ur_vg_object(struct dl_phdr_info *i, size_t size, void *p)
{
	(void)size;
	(void)p;
	return i->dlpi_name && strstr(i->dlpi_name, "/vgpreload_core-") != NULL;
}

/* Runs a's call above the program's limit, unseen; the number or -errno
 * (-EAGAIN: another thread is at it). */
static long ur_above(struct ur_above *a)
{
	sigset_t all, old;
	int saved = errno;

	sigfillset(&all);
	(void)pthread_sigmask(SIG_BLOCK, &all, &old);
	a->r = -ENOSYS;
	if (fp_one_thread()) {
		uint64_t was[2];

		if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0L, was) == 0) {
			ur_above_op(a);
			(void)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, was, 0L);
		}
	} else if (ur_above_noclone) {
		a->r = -ENOSYS - 1000;  /* as a clone refused */
	} else if (!UR_REAL(clone) || atomic_exchange(&ur_above_busy, true)) {
		a->r = -EAGAIN;
	} else {
		/* Exit signal 0: no SIGCHLD, and no wait(2) of the program's
		 * (without __WCLONE or __WALL) sees it. */
		int pid = fp_real_urandom.r_clone.f(ur_above_child, ur_above_stack + sizeof ur_above_stack,
		                            CLONE_VM | CLONE_FILES | CLONE_VFORK, a);

		if (pid < 0)
			a->r = -errno - 1000;  /* the clone's own failure */
		while (pid > 0 && syscall(SYS_wait4, pid, 0L, __WCLONE, 0L) < 0 && errno == EINTR)
			;
		atomic_store(&ur_above_busy, false);
	}
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
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

int ur_open_above(const char *path)
{
	struct ur_above a = { .src = -1, .path = path };
	struct rlimit rl;
	long r;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == FP_RLIM_INFINITY)
		return errno = EMFILE, -1;
	a.floor = (int)rl.rlim_cur;
	/* The lowest free number: above the hidden ones, and any the program
	 * kept open from before it lowered its limit. */
	ur_above_limit(&a, &rl, (uint64_t)rl.rlim_cur + 64);
	ur_count(SYSCALLS);
	if ((r = ur_above(&a)) < 0)
		return errno = EMFILE, -1;
	return (int)r;
}

_Atomic(const char *) ur_hidden_why;
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

	atomic_fetch_add(&ur_limit_gen, 1);
	atomic_store(&ur_hidden_why, NULL);
	for (d = 0; d < UR_NDEV; d++) {
		int h = UR_HW_FD(atomic_load(&ur_hidden[d]));

		atomic_store(&ur_hidden_bad[d], false);
		if (h >= 0 && (uint64_t)h < soft &&
		    (h = ur_hidden_forget(d, h)) >= 0)
			fp_real_urandom.r_close.f(h);
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
void ur_fd_init(void)
{
	long pid = (long)getpid();

	ur_cloexec_init(pid);
	atomic_store(&ur_table_pid, pid);
#ifdef FP_LINUX
	/* valgrind's core preload, in every process it runs (a dlsym that
	 * fails would allocate its message, and the C library's malloc then
	 * start: a getrandom of its own) */
	ur_above_noclone = dl_iterate_phdr(ur_vg_object, NULL) != 0;
#endif
#ifndef FP_LINUX
	int floor, d, h, saved = errno;

	if (ur_mode != UR_MODE_EXACT || !(fp_cfg.enabled & FP_BIT(urandom)) ||
	    (floor = ur_hidden_floor()) < 64)
		return;
	d = fp_real_urandom.r_openat.f(AT_FDCWD, "/", O_RDONLY | O_CLOEXEC);
	if (d < 0) {
		errno = saved;
		return;
	}
	ur_heal(d);
	if ((h = ur_dup_cloexec(d, floor)) >= 0) {
		ur_heal(h);
		fp_real_urandom.r_close.f(h);
	}
	fp_real_urandom.r_close.f(d);
	errno = saved;
#endif
}

/* Opens the hidden descriptor of dev, unless another thread did (then it
 * is left alone); false when none can be had (see ur_hidden_bad). */
/* The placing's window closed (ur_place_hold): recorded or gone. */
static inline void ur_hidden_made(void)
{
#ifdef FP_LINUX
	ur_place_release();
#endif
}

static bool ur_hidden_make(int dev, const char *path, uint64_t w)
{
	int lo, fd, saved = errno, flags = O_RDONLY | O_CLOEXEC;
	unsigned gen = 0;

	/* No exec or fork until lo is closed and the copy close-on-exec;
	 * on Linux no fork until the copy is recorded either. */
#ifdef FP_LINUX
	if (!ur_place_hold())
		return false;
	if (!ur_cloexec_hold()) {
		ur_place_release();
		return false;
	}
#else
	if (!ur_cloexec_hold())
		return false;
#endif
	ur_count(SYSCALLS);
	lo = fp_real_urandom.r_openat.f(AT_FDCWD, path, flags | O_LARGEFILE);
	if (lo < 0) {
		ur_cloexec_release();
		ur_hidden_made();
		errno = saved;
		return false;
	}
	ur_heal(lo);
	fd = -1;
	if (ur_is_device(lo, dev)) {
		ur_count(SYSCALLS);
		fd = ur_hidden_place(lo, &gen);
	}
	ur_count(SYSCALLS);
	fp_real_urandom.r_close.f(lo);
	ur_cloexec_release();
	errno = saved;
	if (fd == UR_DUP_LATER) {  /* an exec, fork or placing under way: real, this once */
		ur_hidden_made();
		return false;
	}
	if (fd < 0 || fd >= UR_MAXFD) {
		if (fd >= 0)
			fp_real_urandom.r_close.f(fd);
		atomic_store(&ur_hidden_bad[dev], true);
		ur_hidden_made();
		ur_debug("no hidden descriptor: opens are real");
		return false;
	}
	ur_heal(fd);
	ur_set(fd, UR_HIDDEN | (dev == UR_DEV_RANDOM ? UR_RANDOM : 0));
	if (!atomic_compare_exchange_strong(&ur_hidden[dev], &w, UR_HW(UR_HW_GEN(w) + 1, fd))) {
		atomic_store(ur_fd(fd), 0);
		fp_real_urandom.r_close.f(fd);
		ur_hidden_made();
		return true;
	}
#ifdef FP_LINUX
	/* The program changed its limit while we placed it: maybe below. */
	if (atomic_load(&ur_limit_gen) != gen && (fd = ur_hidden_forget(dev, fd)) >= 0) {
		fp_real_urandom.r_close.f(fd);
		ur_hidden_made();
		return true;
	}
#endif
	ur_hidden_made();
	ur_debug("hidden descriptor opened");
	return true;
}


/* A reserve holds a slot of the descriptor table (and of the system's file
 * table) that the program believes free: natively, an open at the limit
 * would have had it.  Gives every reserve back; true when there was one. */
bool ur_give_back(int err)
{
	bool any = false;
	int d;

	if (fp_likely(err != EMFILE && err != ENFILE))
		return false;
	for (d = 0; d < UR_NRES; d++) {
		int fd = atomic_exchange(&ur_reserve[d].fd, -1);

		if (fd >= 0) {
			atomic_store(ur_fd(fd), 0);
			fp_real_urandom.r_close.f(fd);
			any = true;
		}
	}
	/* The hidden descriptors sit above the limit, where closing them
	 * frees no number; for the system's table, maybe a file. */
	if (err == ENFILE)
		any = ur_hidden_retire() || any;
	errno = err;
	return any;
}

/*
 * One record of which numbers are the device's serves one descriptor table.
 * A thread that takes a table of its own (unshare(CLONE_FILES),
 * close_range's CLOSE_RANGE_UNSHARE) leaves the process with two, where a
 * number may be the device in one and the program's file in the other: a
 * read of that file would be served from the pool.  So, just before, while
 * the table is still one: the hidden and reserve descriptors are given
 * back (closed in the one table: no copy keeps them), every number is
 * forgotten (reads of the device go to the kernel), and every later open
 * is real (ur_match).  errno is kept.
 */
static _Atomic bool ur_split_done;

void ur_split(void)
{
	int fd, end, saved = errno;

	if (!ur_table_ours())  /* a vfork child: its table is its own already */
		return;
	/* Pooled opens share one description: forgotten, they would share it
	 * for good (fd_fuzz's defect 16).  Each gets its own first, as before
	 * a fork. */
	ur_cow_all();
	atomic_store(&ur_split_done, true);
	(void)ur_give_back(EMFILE);
	(void)ur_hidden_retire();
	end = atomic_load(&ur_hiwater);
	for (fd = 0; fd < end; fd++)
		atomic_store(ur_fd(fd), 0);
	ur_debug("a descriptor table of its own: no longer tracked");
	errno = saved;
}

/* Every descriptor tracked at a fork is shared with the child's copy from
 * then on, in both processes; marked before the fork (racing opens are
 * caught by ur_forks) and again in the child, where only one thread runs. */
void ur_fd_atfork_prepare(void)
{
	ur_cloexec_atfork_prepare();
	if (ur_mode == UR_MODE_EXACT)
		ur_cow_all();
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared();
}

/* The hidden descriptor's open file description is now shared with the
 * child, which may change it through an inherited duplicate: each side
 * opens a fresh one for its later opens. */
void ur_fd_atfork_parent(void)
{
	atomic_fetch_add(&ur_forks, 1);
	ur_hidden_retire();
	ur_cloexec_atfork_parent();
}

/* Before a vfork: the child's table will share every description with
 * ours until it execs or exits, as after a fork; nothing runs after it
 * (vfork.c), and the child leaves our records alone (fp_vfork_child). */
void ur_vforking(void)
{
	if (fp_likely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed) == 0) ||
	    fp_vfork_child())
		return;
	if (ur_mode == UR_MODE_EXACT)
		ur_cow_all();
	/* A fork's prepare and parent steps in one (2, the count stays even):
	 * nothing of ours runs when the parent resumes, and an odd count
	 * would mark every later open shared, never kept (reserve mode would
	 * make a system call per open for the rest of the process).  Opens
	 * that started before see the count changed and are marked. */
	atomic_fetch_add(&ur_forks, 2);
	ur_mark_all_shared();
}

void ur_fd_atfork_child(void)
{
	atomic_store(&ur_table_pid, (long)getpid());
	ur_cow_atfork_child();
	ur_cloexec_atfork_child();
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared();
	ur_hidden_retire();
#ifdef FP_LINUX
	/* Another thread's placing child may have been under way. */
	atomic_store(&ur_above_busy, false);
#endif
}

/* ------------------------------------------------------------------------
 * Which opens are ours.
 * ---------------------------------------------------------------------- */

/*
 * /dev/random too, where it is the same generator as /dev/urandom once that
 * is initialised: Linux >= 5.6 (before, it was a separate pool that blocked
 * on entropy estimates, and serving it from urandom output would change its
 * meaning).  The pool refills with GRND_NONBLOCK, so before initialisation
 * the read goes to the kernel and blocks exactly as natively.
 */
static bool ur_random_pooled(void)
{
	int ok = atomic_load_explicit(&ur_random_ok, memory_order_relaxed);

	if (fp_likely(ok >= 0))
		return ok;
	ok = 0;
#ifdef FP_LINUX
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &maj, &min) == 2)
		ok = maj > 5 || (maj == 5 && min >= 6);
#endif
	atomic_store(&ur_random_ok, ok);
	return ok;
}

#define UR_OK_FLAGS (O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_LARGEFILE)

/* The device an open is for, or -1 when it is not ours.  Off (and not
 * surveying), the path is never read: an invalid one is the kernel's to
 * answer (EFAULT), as a NULL one always is. */
int ur_match(const char *path, int flags)
{
	bool survey;
	int dev;

	if (!fp_ready() || !((fp_cfg.enabled & FP_BIT(urandom)) || fp_cfg.survey))
		return -1;
	path = fp_opaque(path);
	if (fp_likely(!path || path[0] != '/' || path[1] != 'd'))
		return -1;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | UR_OK_FLAGS)))
		return -1;
	/* Surveying: the opens the pool would take, to be timed instead. */
	survey = !(fp_cfg.enabled & FP_BIT(urandom));
	if (!survey && fp_unlikely(atomic_load_explicit(&ur_split_done, memory_order_relaxed)))
		return -1;
	/* The rest of "/dev/urandom" or "/dev/random", a byte at a time up to
	 * the first that differs, as strcmp (no call on the hot path). */
	path += 2;
	if (path[0] != 'e' || path[1] != 'v' || path[2] != '/')
		return -1;
	path += 3;
	dev = UR_DEV_RANDOM;
	if (path[0] == 'u') {
		dev = UR_DEV_URANDOM;
		path++;
	}
	if (path[0] != 'r' || path[1] != 'a' || path[2] != 'n' || path[3] != 'd' ||
	    path[4] != 'o' || path[5] != 'm' || path[6] != '\0')
		return -1;
	if (dev == UR_DEV_RANDOM && !ur_random_pooled())
		return -1;
	return survey ? UR_SURVEY : dev;
}

/* A fresh open is tracked only if it really is the device (not a file put
 * there in a chroot or a container). */
bool ur_is_device(int fd, int dev)
{
	struct stat st;

	ur_count(SYSCALLS);
	if (fp_fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
		return false;
#ifdef FP_LINUX
	return st.st_rdev == makedev(1, dev == UR_DEV_RANDOM ? 8 : 9);
#else
	(void)dev;
	return true;
#endif
}

static unsigned ur_open_bits(int dev, int flags)
{
	return UR_OPEN | (dev == UR_DEV_RANDOM ? UR_RANDOM : 0) |
	       ((flags & O_CLOEXEC) ? UR_CLOEXEC : 0) |
	       ((flags & O_NONBLOCK) ? UR_NONBLOCK : 0);
}

/* Makes the reserve look freshly opened with these flags.  Its open file
 * description is never changed (F_SETFL): if its status flags are not the
 * ones asked for, or a fork has shared it, only a fresh open will do. */
static bool ur_adopt(int fd, int dev, int flags)
{
	unsigned char st = (unsigned char)ur_state(fd);
	bool nb = (flags & O_NONBLOCK) != 0;

	bool clo = (flags & O_CLOEXEC) != 0;

	if (!(st & UR_RESERVE) || (st & UR_SHARED) || nb != ((st & UR_NONBLOCK) != 0))
		return false;
	/* Kept as the last close left it: a loop with one flag style makes
	 * no system call at all. */
	if (clo != ((st & UR_CLOEXEC) != 0)) {
		int saved = errno, r;

		ur_count(SYSCALLS);
		r = fp_real_urandom.r_fcntl.f(fd, F_SETFD, clo ? FD_CLOEXEC : 0);
		errno = saved;
		if (r < 0)
			return false;
	}
	/* Fails if a fork marked it meanwhile. */
	return ur_cell_cas(fd, &st, (unsigned char)ur_open_bits(dev, flags));
}

/* A real open of the device, tracked if it is the device. */
static int ur_open_real(int dev, const char *path, int flags)
{
	int saved = errno, fd;
	unsigned g;

	ur_count(SYSCALLS);
	g = atomic_load(&ur_forks);
	UR_RETRY(fd, fp_real_urandom.r_openat.f(AT_FDCWD, path, flags));
	if (fd < 0)
		return fd;
	ur_heal(fd);
	if (fd < UR_MAXFD && ur_is_device(fd, dev)) {
		/* Without O_LARGEFILE (a 32-bit program without large-file
		 * support) it is never kept: the reserve has it. */
		ur_track_new(fd, ur_open_bits(dev, flags) | (UR_LFS(flags) ? 0 : UR_SHARED), g);
		ur_count(OPENS);
		ur_debug("open: real descriptor, now tracked");
	}
	errno = saved;
	return fd;
}

/* Exact mode: a duplicate of the hidden descriptor, the lowest free number
 * (dup, or F_DUPFD_CLOEXEC from 0), close-on-exec as the open asked.
 * O_NONBLOCK and O_LARGEFILE are status flags of the open file description:
 * an open with the first, or without the second, is real. */
static int ur_open_exact(int dev, const char *path, int flags)
{
	int *ep = fp_errno(), saved = *ep;

	if (fp_unlikely(flags & O_NONBLOCK) || !UR_LFS(flags) ||
	    atomic_load_explicit(&ur_hidden_bad[dev], memory_order_relaxed))
		return ur_open_real(dev, path, flags);
	for (;;) {
		uint64_t w = atomic_load_explicit(&ur_hidden[dev], memory_order_acquire);
		int h = UR_HW_FD(w), fd;

		if (fp_unlikely(h < 0)) {
			if (!ur_hidden_make(dev, path, w))
				return ur_open_real(dev, path, flags);
			continue;
		}
		/* dup(h) is fcntl(h, F_DUPFD, 0), and 15% cheaper a cycle
		 * (no fcntl dispatch or security hook in the kernel). */
		fd = (flags & O_CLOEXEC) ? ur_dup_cloexec(h, 0) : fp_real_urandom.r_dup.f(h);
		if (fp_unlikely(fd == UR_DUP_LATER))  /* an exec or fork under way */
			return ur_open_real(dev, path, flags);
		/* The number may have been freed or replaced meanwhile (dup2
		 * onto it, close_range): what we duplicated is then unknown. */
		if (fp_unlikely(atomic_load(&ur_hidden[dev]) != w)) {
			if (fd >= 0)
				fp_real_urandom.r_close.f(fd);
			*ep = saved;
			continue;
		}
		if (fp_unlikely(fd < 0)) {
			/* Out of numbers (or files): the open is real, which
			 * then fails or succeeds natively.  The hidden one,
			 * above the limit, holds no number the open could
			 * have had. */
			(void)ur_give_back(*ep);
			*ep = saved;
			return ur_open_real(dev, path, flags);
		}
		/* Past the table (a program with a limit above UR_MAXFD and the
		 * low numbers in use): untracked, it would share the hidden
		 * description unseen.  A real open of its own instead. */
		if (fp_unlikely(fd >= UR_MAXFD)) {
			fp_real_urandom.r_close.f(fd);
			*ep = saved;
			return ur_open_real(dev, path, flags);
		}
		ur_heal(fd);  /* a number freed behind our back (raw close) */
		ur_set(fd, ur_open_bits(dev, flags) | UR_COW);
		ur_count(OPENS);
		ur_debug("open: duplicate of the hidden descriptor");
		/* The two-call duplicate (a kernel without F_DUPFD_CLOEXEC) may
		 * have failed once on the way. */
		*ep = saved;
		return fd;
	}
}

/* The home slot was empty: a reserve another CPU's thread left, if any
 * (a load before each exchange, which leaves empty lines unwritten). */
static int ur_slot_take_other(int dev)
{
	int i, fd;

	for (i = dev * UR_SLOTS; i < (dev + 1) * UR_SLOTS; i++)
		if (atomic_load_explicit(&ur_reserve[i].fd, memory_order_relaxed) >= 0 &&
		    (fd = ur_slot_xchg(i, -1)) >= 0)
			return fd;
	return -1;
}

/* An empty slot of dev, the home one first; -1 when all are full.  While
 * the process has one thread, the home one only: one reserve per device,
 * so that a program that holds two at once and closes both keeps the
 * numbers it did before threads made the slots worth having. */
static int ur_slot_free(int dev)
{
	int home = ur_slot_home(dev), i;

	if (fp_likely(atomic_load_explicit(&ur_reserve[home].fd, memory_order_relaxed) < 0))
		return home;
	if (fp_no_threads())
		return -1;
	for (i = dev * UR_SLOTS; i < (dev + 1) * UR_SLOTS; i++)
		if (atomic_load_explicit(&ur_reserve[i].fd, memory_order_relaxed) < 0)
			return i;
	return -1;
}

/* Reserve mode.  Nothing on the path that hands out the reserve changes
 * errno (ur_adopt keeps it across its one fcntl), so it is not saved there:
 * one thread-local access fewer per cycle. */
int ur_open(int dev, const char *path, int flags)
{
	int fd;

	if (fp_likely(ur_mode == UR_MODE_EXACT))
		return ur_open_exact(dev, path, flags);
	if (fp_unlikely(!UR_LFS(flags)))
		return ur_open_real(dev, path, flags);
	fd = ur_slot_xchg(ur_slot_home(dev), -1);
	if (fp_unlikely(fd < 0))
		fd = ur_slot_take_other(dev);
	if (fd >= 0) {
		int saved;

		if (ur_adopt(fd, dev, flags)) {
			ur_count(OPENS);
			ur_debug("open served by the reserve descriptor");
			return fd;
		}
		saved = errno;
		atomic_store(ur_fd(fd), 0);
		ur_count(SYSCALLS);
		fp_real_urandom.r_close.f(fd);
		errno = saved;
	}
	return ur_open_real(dev, path, flags);
}

/* ------------------------------------------------------------------------
 * close: keep one descriptor per device.  0, 1 and 2 are really closed, so
 * that close(0); open("/dev/null") still yields 0.
 * ---------------------------------------------------------------------- */
_Atomic bool ur_plocked;

int ur_close(int fd, unsigned st)
{
	int dev = ur_dev(st), none = -1, slot;

	if (st & UR_HELD) {
		/* Closed as far as the program knows (the reserve, or a hidden
		 * number a close-everything loop found): as natively. */
		errno = EBADF;
		return -1;
	}
	if (ur_mode == UR_MODE_RESERVE && fd > 2 && !(st & UR_SHARED) &&
	    (slot = ur_slot_free(dev)) >= 0) {
		unsigned char was = (unsigned char)st;

		/* Kept in the close-on-exec state it has: exec and spawn make
		 * it close-on-exec just before (ur_exec_guard).  The first
		 * fails if a fork marked it shared meanwhile. */
		if (ur_cell_cas(fd, &was, (unsigned char)((st & ~UR_OPEN) | UR_RESERVE)) &&
		    ur_slot_cas(slot, &none, fd)) {
			ur_debug("close: descriptor kept in reserve");
			if (atomic_load_explicit(&ur_plocked, memory_order_relaxed)) {
				/* Any close of the device drops every record lock
				 * the process holds on it (fcntl(2)); a kept one
				 * must too.  Only after such a lock was taken:
				 * reserve's close is otherwise no system call. */
				struct flock u = { .l_type = F_UNLCK, .l_whence = SEEK_SET };

				ur_count(SYSCALLS);
				(void)fp_real_urandom.r_fcntl.f(fd, F_SETLK, &u);
			}
			return 0;
		}
	}
	ur_cell_forget(fd, st);
	return fp_real_urandom.r_close.f(fd);
}

#if defined(FP_HAVE_CLOSE_RANGE) || defined(FP_HAVE_CLOSEFROM)
/* Takes every tracked number in [lo, hi] out of our tables before the
 * kernel frees them.  Reserve descriptors taken out are returned in
 * taken[] so that a failed call can still close them. */
void ur_untrack_range(unsigned lo, unsigned hi, int taken[UR_NTAKEN])
{
	unsigned fd, end = (unsigned)atomic_load(&ur_hiwater);
	int d;

	for (d = 0; d < UR_NRES; d++) {
		int r = atomic_load(&ur_reserve[d].fd);

		taken[d] = -1;
		if (r >= 0 && (unsigned)r >= lo && (unsigned)r <= hi &&
		    atomic_compare_exchange_strong(&ur_reserve[d].fd, &r, -1))
			taken[d] = r;
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

/* ------------------------------------------------------------------------
 * exec and spawn in reserve mode.  The reserve may be kept without
 * FD_CLOEXEC (as the program's plain open left it): it must not reach the
 * new program.  Only kernel flags are changed here, never our memory: a
 * vfork child runs this on its parent's memory (and its own copy of the
 * descriptor table), and must leave the parent's bookkeeping as it was.
 * ---------------------------------------------------------------------- */
void ur_exec_guard(int fds[UR_NRES])
{
	int d, saved = errno;

	for (d = 0; d < UR_NRES; d++) {
		int fd = atomic_load(&ur_reserve[d].fd);

		fds[d] = -1;
		if (fd >= 0 && !(ur_state(fd) & UR_CLOEXEC) &&
		    fp_real_urandom.r_fcntl.f(fd, F_SETFD, FD_CLOEXEC) == 0)
			fds[d] = fd;
	}
	errno = saved;
}

/* The exec failed (or the spawn is done): each guarded number gets back the
 * flag its state says, if it is still ours (another thread may have taken
 * the reserve meanwhile, and opened or closed it). */
void ur_exec_unguard(const int fds[UR_NRES])
{
	int d, saved = errno;

	for (d = 0; d < UR_NRES; d++) {
		unsigned st;

		if (fds[d] < 0 || !(st = ur_state(fds[d])) || (st & UR_CLOEXEC))
			continue;
		(void)fp_real_urandom.r_fcntl.f(fds[d], F_SETFD, 0);
	}
	errno = saved;
}
