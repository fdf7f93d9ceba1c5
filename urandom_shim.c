/*
 * urandom_shim.c: /dev/urandom without the system calls (seed 001).
 *
 * Programs that open /dev/urandom, read a few bytes and close it again pay
 * three system calls per token.  Here the caller still gets a real kernel
 * descriptor of the device (fstat, poll, exec and children all behave), but:
 *   - close() of such a descriptor keeps one of them in reserve, FD_CLOEXEC,
 *     and the next open() of the device hands it out again;
 *   - read() of it is served from a 64 KiB reservoir that one getrandom()
 *     refills, zeroing bytes as they are handed out; each thread takes a
 *     256-byte slice of it at a time, so that threads cycling at once do
 *     not fight over the pool lock on every read.
 * Invariants, each kept by one function:
 *   - ur_fd() marks only numbers the kernel holds open (ur_untrack comes
 *     before every call that may free a number; ur_heal after every call
 *     that returns a fresh one);
 *   - the reserve is FD_CLOEXEC and never 0, 1 or 2, and its open file
 *     description is its own: never one a dup or a forked child shares
 *     (UR_SHARED; ur_close, ur_adopt);
 *   - a pool byte is served at most once, then zeroed (ur_take, ur_slice),
 *     and a forked child never sees the parent's bytes (ur_pool_get,
 *     ur_atfork_child, the pool generation).
 */
#include "fastpath.h"

#ifdef FP_LINUX
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#endif

/* Only for the helgrind/drd build (tests/bin/fastpath_vg.so, make
 * check-valgrind): the pool lock is a hand-made spinlock and the pool is
 * published by a compare-and-swap, neither of which the tools can see.
 * Client requests tell them; the normal fastpath.so has none. */
#ifdef FP_VALGRIND_ANNOTATE
#include <valgrind/helgrind.h>
/* The lock word itself is only ever touched atomically: it is the lock.
 * The generation is an atomic too, read outside the lock by design (a
 * stale read only makes a thread drop its slice or cut a new one). */
#define UR_ANN_CREATE(p)                                                      \
	do {                                                                 \
		ANNOTATE_RWLOCK_CREATE(p);                                   \
		ANNOTATE_BENIGN_RACE_SIZED(&(p)->owner, sizeof (p)->owner,   \
		                           "the pool lock's own word");      \
		ANNOTATE_BENIGN_RACE_SIZED(&(p)->gen, sizeof (p)->gen,       \
		                           "the pool generation, atomic");   \
	} while (0)
#define UR_ANN_DESTROY(p) ANNOTATE_RWLOCK_DESTROY(p)
#define UR_ANN_LOCKED(p) ANNOTATE_RWLOCK_ACQUIRED(p, 1)
#define UR_ANN_UNLOCK(p) ANNOTATE_RWLOCK_RELEASED(p, 1)
#define UR_ANN_PUBLISH(p) ANNOTATE_HAPPENS_BEFORE(p)
#define UR_ANN_SEEN(p) ANNOTATE_HAPPENS_AFTER(p)
#else
#define UR_ANN_CREATE(p) ((void)0)
#define UR_ANN_DESTROY(p) ((void)0)
#define UR_ANN_LOCKED(p) ((void)0)
#define UR_ANN_UNLOCK(p) ((void)0)
#define UR_ANN_PUBLISH(p) ((void)0)
#define UR_ANN_SEEN(p) ((void)0)
#endif

#define UR_MAXFD 4096        /* higher descriptors are passed through */
#define UR_POOL 65536        /* reservoir size */
#define UR_SERVE_MAX 4096    /* larger reads go straight to the kernel */
#define UR_CHUNK 256         /* bytes copied per lock hold (signal stacks are small) */
#define UR_SLICE 256         /* bytes a thread takes from the pool at once */
#define UR_SLICE_MAX 64      /* larger reads take from the pool directly */

enum { UR_DEV_URANDOM, UR_DEV_RANDOM, UR_NDEV };

/* Per-descriptor state; 0 means not ours. */
enum {
	UR_OPEN = 1,       /* the program holds it */
	UR_RESERVE = 2,    /* the program closed it; we keep it */
	UR_CLOEXEC = 4,    /* FD_CLOEXEC is set (as far as fcntl told us) */
	UR_NONBLOCK = 8,   /* O_NONBLOCK is set on its open file description */
	UR_RANDOM = 16,    /* /dev/random rather than /dev/urandom */
	/* Its open file description may be shared with another descriptor (a
	 * dup, or a forked child's copy): never kept in reserve, whose next
	 * open must look fresh, with status flags and locks of its own. */
	UR_SHARED = 32,
};

/* Neighbouring numbers, which threads cycling at once hold, sit on different
 * cache lines (fd n in line n % 64): sharing one line tripled the cost of
 * the threaded seed loop on two CPUs. */
static _Alignas(FP_CACHELINE) _Atomic unsigned char ur_fd_cells[UR_MAXFD];
#define UR_LINES (UR_MAXFD / FP_CACHELINE)
_Static_assert(UR_MAXFD % FP_CACHELINE == 0, "whole cache lines");

static inline _Atomic unsigned char *ur_fd(int fd)
{
	return &ur_fd_cells[((unsigned)fd % UR_LINES) * FP_CACHELINE + (unsigned)fd / UR_LINES];
}
/* One past the highest number ever tracked: while it is 0, every call that
 * is not ours costs one compare. */
static _Atomic int ur_hiwater;
/* Written by every pooled open and close: a line of its own, away from the
 * flags every open reads. */
static _Alignas(FP_CACHELINE) _Atomic int ur_reserve[UR_NDEV] = { -1, -1 };
/* Odd while a fork is under way (our prepare handler until the parent's or
 * the child's), and counts them: a number made ours meanwhile may have been
 * copied into the child (ur_track_new). */
static _Atomic unsigned ur_forks;
static _Atomic int ur_random_ok = -1;  /* -1: not yet decided */
static _Atomic bool ur_no_getrandom;

/* ------------------------------------------------------------------------
 * The reservoir.  It lives in wipe-on-fork memory, where all-zero is a
 * valid state (empty, unlocked): a child starts with nothing to serve.
 * ---------------------------------------------------------------------- */
struct ur_pool {
	/* Random and never 0 once the pool has been filled in this process;
	 * 0 again in a child (wiped or reset), whose next fill draws anew.
	 * A thread's slice is good only while it names the current one.  Read
	 * on every read: a line of its own (the pool is page-aligned, from
	 * mmap), away from the lock's. */
	_Atomic uint64_t gen;
	unsigned char gen_line_[FP_CACHELINE - sizeof(uint64_t)];
	_Atomic uintptr_t owner;  /* pthread_self() of the holder, 0 when free */
	pid_t pid;                /* only checked where wipe-on-fork is missing */
	size_t pos, len;          /* [pos, len) is fresh; the rest is zero */
	unsigned char buf[UR_POOL];
};
static struct ur_pool *_Atomic ur_pool;
static _Atomic bool ur_wipe;  /* the kernel zeroes the pool in children */

/* The compiler may not assume a declared-nonnull argument is non-NULL:
 * libc's contract for NULL (EFAULT) must survive. */
static inline const void *ur_opaque(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

static inline unsigned ur_state(int fd)
{
	if (fp_likely((unsigned)fd >= (unsigned)atomic_load_explicit(&ur_hiwater,
	                                                              memory_order_relaxed)))
		return 0;
	return atomic_load_explicit(ur_fd(fd), memory_order_acquire);
}

static void ur_set(int fd, unsigned st)
{
	int hw = atomic_load(&ur_hiwater);

	if (fd < 0 || fd >= UR_MAXFD)
		return;
	atomic_store(ur_fd(fd), (unsigned char)st);
	while (st && hw <= fd && !atomic_compare_exchange_weak(&ur_hiwater, &hw, fd + 1))
		;
}

/* Changes some bits of a tracked number's state, keeping the others (a
 * fork's UR_SHARED mark may land at any time); an untracked one stays so. */
static void ur_update(int fd, unsigned clear, unsigned set)
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
static void ur_track_new(int fd, unsigned st, unsigned g)
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

static inline int ur_dev(unsigned st)
{
	return (st & UR_RANDOM) ? UR_DEV_RANDOM : UR_DEV_URANDOM;
}

/* The number is about to be freed (or was, behind our back): forget it,
 * and if it was the reserve, make sure nobody hands it out.  Returns true
 * when it was the reserve and we took it out of the slot. */
static bool ur_untrack(int fd)
{
	unsigned st = ur_state(fd);
	int expect = fd;

	if (!st)
		return false;
	atomic_store(ur_fd(fd), 0);
	return (st & UR_RESERVE) &&
	       atomic_compare_exchange_strong(&ur_reserve[ur_dev(st)], &expect, -1);
}

/* A fresh number from the kernel cannot be ours: it was closed in a way we
 * did not see (a raw system call).  Forget the stale state. */
static inline void ur_heal(int fd)
{
	if (fp_unlikely(ur_state(fd)))
		(void)ur_untrack(fd);
}

/* A reserve holds a slot of the descriptor table (and of the system's file
 * table) that the program believes free: natively, an open at the limit
 * would have had it.  Gives every reserve back; true when there was one. */
static bool ur_give_back(int err)
{
	bool any = false;
	int d;

	if (fp_likely(err != EMFILE && err != ENFILE))
		return false;
	for (d = 0; d < UR_NDEV; d++) {
		int fd = atomic_exchange(&ur_reserve[d], -1);

		if (fd >= 0) {
			atomic_store(ur_fd(fd), 0);
			fp_real.r_close.f(fd);
			any = true;
		}
	}
	errno = err;
	return any;
}

/* The call, and if it failed for want of a descriptor while we keep a
 * reserve, the call again once the reserve is given back. */
#define UR_RETRY(fd, call)                                                   \
	do {                                                                 \
		fd = (call);                                                 \
		if (fp_unlikely(fd < 0) && ur_give_back(errno))              \
			fd = (call);                                         \
	} while (0)

static void ur_debug(const char *what)
{
	if (fp_unlikely(fp_cfg.debug))
		fp_debug("urandom", what, NULL);
}

static inline void ur_relax(unsigned spins)
{
	if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else {
		sched_yield();
	}
}

/* Set once a lock holder has not let go for UR_PATIENCE_NS: it will not (a
 * signal handler jumped out of our code with siglongjmp).  From then on the
 * kernel serves every read: slower, never stuck. */
#define UR_PATIENCE_NS 1000000000LL
static _Atomic bool ur_pool_dead;

static long long ur_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct ur_pool *ur_pool_get(void)
{
	struct ur_pool *p = atomic_load_explicit(&ur_pool, memory_order_acquire);
	struct ur_pool *none = NULL;
	bool wipe = false;

	if (fp_likely(p != NULL)) {
		UR_ANN_SEEN(&ur_pool);
		return p;
	}
	p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fp_count(FP_C_URANDOM_SYSCALLS);
	if (p == MAP_FAILED)
		return NULL;
#if defined(MADV_WIPEONFORK)
	wipe = madvise(p, sizeof *p, MADV_WIPEONFORK) == 0;
	fp_count(FP_C_URANDOM_SYSCALLS);
#elif defined(MC_INHERIT_ZERO)
	wipe = memcntl((void *)p, sizeof *p, MC_INHERIT_ZERO, 0, 0, 0) == 0;
	fp_count(FP_C_URANDOM_SYSCALLS);
#endif
	/* Set before publishing, so no thread of this process ever sees a pid
	 * mismatch (see ur_check_pid). */
	p->pid = getpid();
	UR_ANN_CREATE(p);
	UR_ANN_PUBLISH(&ur_pool);
	if (!atomic_compare_exchange_strong(&ur_pool, &none, p)) {
		UR_ANN_DESTROY(p);
		munmap(p, sizeof *p);
		UR_ANN_SEEN(&ur_pool);
		return none;
	}
	/* Until this store, readers assume no wipe and check the pid: safe. */
	atomic_store(&ur_wipe, wipe);
	return p;
}

static void ur_reset(struct ur_pool *p)
{
	explicit_bzero(p->buf, sizeof p->buf);
	p->pos = p->len = 0;
	atomic_store_explicit(&p->gen, 0, memory_order_relaxed);
	p->pid = getpid();
	atomic_store(&p->owner, 0);
}

/* Without wipe-on-fork, a child created without atfork handlers (a raw
 * clone) would serve the parent's bytes: compare pids, before locking, as a
 * thread holding the lock at fork time does not exist in the child.  It
 * costs a getpid() per read, only on such kernels (Linux < 4.14). */
static inline void ur_check_pid(struct ur_pool *p)
{
	if (fp_likely(atomic_load_explicit(&ur_wipe, memory_order_relaxed)))
		return;
	if (p->pid != getpid())
		ur_reset(p);
}

/* Never waits on itself: a signal handler that interrupted this thread
 * inside the pool gets false and goes to the kernel.  Another thread's hold
 * is short (a copy, or one getrandom, during which it cannot be cancelled)
 * and it never waits for us; one that lasts UR_PATIENCE_NS with the same
 * holder never ends, and the pool is given up (ur_pool_dead). */
static bool ur_lock(struct ur_pool *p)
{
	uintptr_t me = (uintptr_t)pthread_self(), seen = 0;
	unsigned spins = 0;
	long long since = 0;

	for (;;) {
		uintptr_t cur = 0;

		if (atomic_compare_exchange_weak_explicit(&p->owner, &cur, me,
		                                          memory_order_acquire,
		                                          memory_order_relaxed)) {
			UR_ANN_LOCKED(p);
			return true;
		}
		if (cur == me || atomic_load_explicit(&ur_pool_dead, memory_order_relaxed))
			return false;
		ur_relax(spins++);
		if (spins % 1024 == 0 && cur != 0) {
			long long now = ur_now_ns();

			if (cur != seen) {
				seen = cur;
				since = now;
			} else if (now - since > UR_PATIENCE_NS) {
				atomic_store(&ur_pool_dead, true);
				ur_debug("a pool lock holder never let go: reads go to the kernel");
				return false;
			}
		}
	}
}

static inline void ur_unlock(struct ur_pool *p)
{
	UR_ANN_UNLOCK(p);
	atomic_store_explicit(&p->owner, 0, memory_order_release);
}

/* Fresh bytes left.  Never trusts pos <= len: a fork from a signal handler
 * that interrupted this thread inside the pool leaves the child's
 * interrupted code advancing pos in a pool the kernel wiped. */
static inline size_t ur_fresh(const struct ur_pool *p)
{
	return p->pos < p->len ? p->len - p->pos : 0;
}

/* True when the pool changed generation since g was read: this process is
 * a child forked (by a signal handler) while we were copying, and what we
 * copied is zeros or the parent's.  The fence makes the compiler read it
 * again. */
static inline bool ur_forked_under_us(const struct ur_pool *p, uint64_t g)
{
	atomic_signal_fence(memory_order_seq_cst);
	return fp_unlikely(atomic_load_explicit(&p->gen, memory_order_relaxed) != g);
}

/* Unit tests interrupt the copies here. */
#ifndef UR_TEST_MIDCOPY
#define UR_TEST_MIDCOPY() ((void)0)
#endif

/* Refills from getrandom; where that does not exist (ENOSYS), from the
 * descriptor being read, which is the device itself: no private descriptor
 * that closefrom() could take from under us.  Never blocks: before the
 * kernel's generator is ready, the caller goes to the kernel. */
static bool ur_refill(struct ur_pool *p, int fd)
{
	ssize_t r = -1;
	int cancel;

	/* getrandom and read are cancellation points: cancelled here, this
	 * thread would leave the lock held for ever. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);

	fp_count(FP_C_URANDOM_REFILLS);
	fp_count(FP_C_URANDOM_SYSCALLS);
#ifdef FP_LINUX
	if (!atomic_load_explicit(&ur_no_getrandom, memory_order_relaxed) &&
	    fp_real.r_getrandom.f) {
		r = fp_real.r_getrandom.f(p->buf, sizeof p->buf, GRND_NONBLOCK);
		if (r < 0 && errno == ENOSYS)
			atomic_store(&ur_no_getrandom, true);
	}
#else
	atomic_store(&ur_no_getrandom, true);
#endif
	if (r < 0 && fd >= 0 && atomic_load(&ur_no_getrandom))
		r = fp_real.r_read.f(fd, p->buf, sizeof p->buf);
	pthread_setcancelstate(cancel, NULL);
	p->pos = 0;
	p->len = r > 0 ? (size_t)r : 0;
	if (p->len > sizeof(uint64_t) && atomic_load_explicit(&p->gen, memory_order_relaxed) == 0) {
		uint64_t g;

		/* The generation is drawn from the fill itself, and those bytes
		 * are never served. */
		memcpy(&g, p->buf, sizeof g);
		explicit_bzero(p->buf, sizeof g);
		p->pos = sizeof g;
		atomic_store_explicit(&p->gen, g ? g : 1, memory_order_relaxed);
	}
	return p->len > p->pos;
}

/* Copies up to n fresh bytes from the pool to dst, under its lock; returns
 * how many.  Fewer than n means the kernel must supply the rest. */
static size_t ur_take_pool(struct ur_pool *p, unsigned char *dst, size_t n, int fd)
{
	unsigned char tmp[UR_CHUNK];
	size_t got = 0, used = 0;
	int saved = errno;

	while (got < n) {
		size_t k = n - got < UR_CHUNK ? n - got : UR_CHUNK;

		uint64_t g;

		if (!ur_lock(p))
			break;
		if (ur_fresh(p) < k) {
			explicit_bzero(p->buf + p->pos, ur_fresh(p));
			if (!ur_refill(p, fd)) {
				ur_unlock(p);
				break;
			}
			/* A fill cut short (a signal arrived during a large
			 * getrandom) may hold less than asked. */
			if (ur_fresh(p) < k)
				k = ur_fresh(p);
		}
		g = atomic_load_explicit(&p->gen, memory_order_relaxed);
		/* Through a stack copy, so that a bad caller buffer faults with
		 * the lock free. */
		memcpy(tmp, p->buf + p->pos, k);
		memset(p->buf + p->pos, 0, k);
		UR_TEST_MIDCOPY();
		if (ur_forked_under_us(p, g)) {
			ur_unlock(p);
			break;
		}
		p->pos += k;
		ur_unlock(p);
		memcpy(dst + got, tmp, k);
		got += k;
		used = k > used ? k : used;
	}
	explicit_bzero(tmp, used);
	errno = saved;
	return got;
}

/*
 * This thread's slice of the pool.  Its bytes left the pool when it was cut
 * (zeroed there), so they are this thread's alone; each is zeroed again as
 * it is served.  A child's copy is wiped by ur_atfork_child, and ignored
 * anyway once it no longer names the pool's generation: that also covers a
 * child made by a raw clone, which runs no atfork handler but whose pool
 * the kernel wiped.  busy keeps a signal handler that interrupted this
 * thread inside its slice out of it (it takes from the pool instead).
 */
struct ur_slice {
	uint64_t gen;
	unsigned short pos, len;  /* [pos, len) is fresh; the rest is zero */
	volatile sig_atomic_t busy;
	unsigned char b[UR_SLICE];
};
static FP_TLS struct ur_slice ur_slice;

static void ur_slice_drop(struct ur_slice *t)
{
	if (t->pos < t->len)
		explicit_bzero(t->b + t->pos, (size_t)(t->len - t->pos));
	t->pos = t->len = 0;
}

enum ur_cut { UR_CUT, UR_CUT_SHORT, UR_CUT_NONE };

/* Cuts a new slice from the pool.  UR_CUT_SHORT: the pool has bytes but
 * not a slice (a fill cut short by a signal, or too short to draw a
 * generation from), to be served under its lock; UR_CUT_NONE: re-entered,
 * or the refill failed, so the kernel must serve. */
static enum ur_cut ur_slice_cut(struct ur_slice *t, struct ur_pool *p, int fd)
{
	enum ur_cut r = UR_CUT_SHORT;
	uint64_t gen;
	int saved = errno;

	if (!ur_lock(p))
		return UR_CUT_NONE;
	if (ur_fresh(p) < UR_SLICE) {
		explicit_bzero(p->buf + p->pos, ur_fresh(p));
		if (!ur_refill(p, fd))
			r = UR_CUT_NONE;
	}
	gen = atomic_load_explicit(&p->gen, memory_order_relaxed);
	if (gen != 0 && ur_fresh(p) >= UR_SLICE) {
		memcpy(t->b, p->buf + p->pos, UR_SLICE);
		memset(p->buf + p->pos, 0, UR_SLICE);
		UR_TEST_MIDCOPY();
		if (ur_forked_under_us(p, gen)) {
			explicit_bzero(t->b, UR_SLICE);
			r = UR_CUT_NONE;
		} else {
			p->pos += UR_SLICE;
			t->gen = gen;
			t->pos = 0;
			t->len = UR_SLICE;
			r = UR_CUT;
		}
	}
	ur_unlock(p);
	errno = saved;
	return r;
}

/* Copies up to n fresh bytes to dst; returns how many.  Fewer than n means
 * the kernel must supply the rest (no pool, re-entered, refill failed). */
static size_t ur_take(unsigned char *dst, size_t n, int fd)
{
	struct ur_pool *p = ur_pool_get();
	struct ur_slice *t = &ur_slice;
	enum ur_cut cut = UR_CUT;

	if (!p)
		return 0;
	ur_check_pid(p);
	if (n > UR_SLICE_MAX || t->busy)
		return ur_take_pool(p, dst, n, fd);
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (t->gen != atomic_load_explicit(&p->gen, memory_order_relaxed) ||
	    (size_t)t->pos + n > t->len)
		ur_slice_drop(t);
	if (t->len == 0)
		cut = ur_slice_cut(t, p, fd);
	if (cut == UR_CUT) {
		uint64_t g = t->gen;

		memcpy(dst, t->b + t->pos, n);
		memset(t->b + t->pos, 0, n);
		t->pos = (unsigned short)(t->pos + n);
		UR_TEST_MIDCOPY();
		/* The atfork handler clears the slice's generation; a raw clone
		 * leaves it, but not the pool's. */
		if (ur_forked_under_us(p, g) || t->gen != g) {
			explicit_bzero(dst, n);
			cut = UR_CUT_NONE;
		}
	}
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	if (fp_likely(cut == UR_CUT))
		return n;
	return cut == UR_CUT_SHORT ? ur_take_pool(p, dst, n, fd) : 0;
}

/* Every descriptor tracked at a fork is shared with the child's copy from
 * then on, in both processes; marked before the fork (racing opens are
 * caught by ur_forks) and again in the child, where only one thread runs. */
static void ur_atfork_prepare(void)
{
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared();
}

static void ur_atfork_parent(void)
{
	atomic_fetch_add(&ur_forks, 1);
}

/* In a fork child: no byte the parent holds may be served here. */
static void ur_forget_parent_bytes(void)
{
	struct ur_pool *p = atomic_load(&ur_pool);

	/* The forking thread is the child's only one: its slice is the only
	 * copy of the parent's bytes left outside the pool. */
	ur_slice_drop(&ur_slice);
	ur_slice.gen = 0;

	/* With wipe-on-fork the kernel already zeroed it; writing would only
	 * fault the pages in. */
	if (p && !atomic_load(&ur_wipe))
		ur_reset(p);
}

static void ur_atfork_child(void)
{
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared();
	ur_forget_parent_bytes();
}

__attribute__((constructor)) static void ur_constructor(void)
{
	pthread_atfork(ur_atfork_prepare, ur_atfork_parent, ur_atfork_child);
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

/* The device an open is for, or -1 when it is not ours. */
static int ur_match(const char *path, int flags)
{
	path = ur_opaque(path);
	if (fp_likely(!path || path[0] != '/' || path[1] != 'd'))
		return -1;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | UR_OK_FLAGS)))
		return -1;
	if (!fp_enabled(FP_F_URANDOM))
		return -1;
	if (strcmp(path, "/dev/urandom") == 0)
		return UR_DEV_URANDOM;
	if (strcmp(path, "/dev/random") == 0 && ur_random_pooled())
		return UR_DEV_RANDOM;
	return -1;
}

/* A fresh open is tracked only if it really is the device (not a file put
 * there in a chroot or a container). */
static bool ur_is_device(int fd, int dev)
{
	struct stat st;

	fp_count(FP_C_URANDOM_SYSCALLS);
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
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

	if (!(st & UR_RESERVE) || (st & UR_SHARED) || nb != ((st & UR_NONBLOCK) != 0))
		return false;
	if (!(flags & O_CLOEXEC)) {
		fp_count(FP_C_URANDOM_SYSCALLS);
		if (fp_real.r_fcntl.f(fd, F_SETFD, 0) < 0)
			return false;
	}
	/* Fails if a fork marked it meanwhile. */
	return atomic_compare_exchange_strong(ur_fd(fd), &st,
	                                      (unsigned char)ur_open_bits(dev, flags));
}

static int ur_open(int dev, const char *path, int flags)
{
	int saved = errno;
	int fd = atomic_exchange(&ur_reserve[dev], -1);
	unsigned g;

	if (fd >= 0) {
		if (ur_adopt(fd, dev, flags)) {
			errno = saved;
			fp_count(FP_C_URANDOM_OPENS);
			ur_debug("open served by the reserve descriptor");
			return fd;
		}
		atomic_store(ur_fd(fd), 0);
		fp_count(FP_C_URANDOM_SYSCALLS);
		fp_real.r_close.f(fd);
		errno = saved;
	}
	fp_count(FP_C_URANDOM_SYSCALLS);
	g = atomic_load(&ur_forks);
	UR_RETRY(fd, fp_real.r_openat.f(AT_FDCWD, path, flags | O_LARGEFILE));
	if (fd < 0)
		return fd;
	ur_heal(fd);
	if (fd < UR_MAXFD && ur_is_device(fd, dev)) {
		ur_track_new(fd, ur_open_bits(dev, flags), g);
		fp_count(FP_C_URANDOM_OPENS);
		ur_debug("open: real descriptor, now tracked");
	}
	errno = saved;
	return fd;
}

/* ------------------------------------------------------------------------
 * open and its twins.  The mode is read only when the flags say there is
 * one (O_CREAT, or all of O_TMPFILE's bits).
 * ---------------------------------------------------------------------- */
#ifdef O_TMPFILE
#define UR_NEEDS_MODE(f) (((f) & O_CREAT) || ((f) & O_TMPFILE) == O_TMPFILE)
#else
#define UR_NEEDS_MODE(f) ((f) & O_CREAT)
#endif
#define UR_MODE(flags, mode)                                                 \
	do {                                                                 \
		if (UR_NEEDS_MODE(flags)) {                                  \
			va_list ap;                                          \
			va_start(ap, flags);                                 \
			mode = (mode_t)va_arg(ap, int);                      \
			va_end(ap);                                          \
		}                                                            \
	} while (0)

static inline int ur_after_open(int fd)
{
	if (fd >= 0)
		ur_heal(fd);
	return fd;
}

FP_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int dev, fd;

	UR_MODE(flags, mode);
	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(AT_FDCWD, path, flags, mode);
	if (fp_cpus_open(AT_FDCWD, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r_open.f(path, flags, mode));
	return ur_after_open(fd);
}

FP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int dev, fd;

	UR_MODE(flags, mode);
	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(dirfd, path, flags, mode);
	if (fp_cpus_open(dirfd, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	/* An absolute path makes the kernel ignore dirfd entirely. */
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r_openat.f(dirfd, path, flags, mode));
	return ur_after_open(fd);
}

#ifdef FP_HAVE_LFS64
FP_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int dev, fd;

	UR_MODE(flags, mode);
	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, mode);
	if (fp_cpus_open(AT_FDCWD, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r_open64.f(path, flags, mode));
	return ur_after_open(fd);
}

FP_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int dev, fd;

	UR_MODE(flags, mode);
	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(dirfd, path, flags | O_LARGEFILE, mode);
	if (fp_cpus_open(dirfd, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r_openat64.f(dirfd, path, flags, mode));
	return ur_after_open(fd);
}
#endif

#ifdef FP_HAVE_GLIBC_CHK
/* The fortified forms abort on O_CREAT without a mode; ours never match
 * O_CREAT, so every such case reaches the real one. */
FP_EXPORT int __open_2(const char *path, int flags)
{
	int dev, fd;

	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(AT_FDCWD, path, flags, 0);
	if (fp_cpus_open(AT_FDCWD, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r___open_2.f(path, flags));
	return ur_after_open(fd);
}

FP_EXPORT int __open64_2(const char *path, int flags)
{
	int dev, fd;

	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, 0);
	if (fp_cpus_open(AT_FDCWD, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r___open64_2.f(path, flags));
	return ur_after_open(fd);
}

FP_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	int dev, fd;

	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(dirfd, path, flags, 0);
	if (fp_cpus_open(dirfd, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r___openat_2.f(dirfd, path, flags));
	return ur_after_open(fd);
}

FP_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	int dev, fd;

	if (fp_unlikely(!fp_ready()))
		return (int)fp_raw_openat(dirfd, path, flags | O_LARGEFILE, 0);
	if (fp_cpus_open(dirfd, path, flags, &fd)) /* issue 12: CPU files */
		return ur_after_open(fd);
	if (fp_unlikely((dev = ur_match(path, flags)) >= 0))
		return ur_open(dev, path, flags);
	UR_RETRY(fd, fp_real.r___openat64_2.f(dirfd, path, flags));
	return ur_after_open(fd);
}
#endif

/* ------------------------------------------------------------------------
 * Reads.  A reserve descriptor is closed as far as the program knows: the
 * real call on -1 gives exactly the kernel's EBADF.
 * ---------------------------------------------------------------------- */

/* Serves a read of a tracked, open descriptor; the kernel tops up whatever
 * the pool could not give. */
static ssize_t ur_read(int fd, void *buf, size_t n)
{
	size_t got;
	ssize_t r;

	/* read is a cancellation point, served from the pool or not. */
	pthread_testcancel();
	fp_count(FP_C_URANDOM_READS);
	if (n == 0)
		return 0;
	if (n > UR_SERVE_MAX || !ur_opaque(buf)) {
		fp_count(FP_C_URANDOM_SYSCALLS);
		return fp_real.r_read.f(fd, buf, n);
	}
	got = ur_take(buf, n, fd);
	if (fp_likely(got == n))
		return (ssize_t)n;
	fp_count(FP_C_URANDOM_SYSCALLS);
	r = fp_real.r_read.f(fd, (unsigned char *)buf + got, n - got);
	if (r < 0)
		return got ? (ssize_t)got : -1;
	return (ssize_t)got + r;
}

FP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st))
		return (st & UR_RESERVE) ? fp_real.r_read.f(-1, buf, n) : ur_read(fd, buf, n);
	if (fp_unlikely(!fp_ready()))
		return fp_raw_read(fd, buf, n);
	return fp_real.r_read.f(fd, buf, n);
}

#ifdef FP_HAVE_GLIBC_CHK
FP_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	unsigned st = ur_state(fd);

	/* n > buflen: the real one reports the overflow and aborts. */
	if (fp_unlikely(st) && n <= buflen)
		return (st & UR_RESERVE) ? fp_real.r_read.f(-1, buf, n) : ur_read(fd, buf, n);
	if (fp_unlikely(!fp_ready())) {
		if (n > buflen)
			abort();
		return fp_raw_read(fd, buf, n);
	}
	return fp_real.r___read_chk.f(fd, buf, n, buflen);
}
#endif

/* The device ignores the offset, but the kernel still rejects a negative
 * one (EINVAL): that case goes to it. */
FP_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st) && off >= 0)
		return (st & UR_RESERVE) ? fp_real.r_pread.f(-1, buf, n, off) : ur_read(fd, buf, n);
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	return fp_real.r_pread.f(st & UR_RESERVE ? -1 : fd, buf, n, off);
}

#ifdef FP_HAVE_LFS64
FP_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st) && off >= 0)
		return (st & UR_RESERVE) ? fp_real.r_pread64.f(-1, buf, n, off) : ur_read(fd, buf, n);
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	return fp_real.r_pread64.f(st & UR_RESERVE ? -1 : fd, buf, n, off);
}
#endif

static ssize_t ur_readv(int fd, const struct iovec *iov, int cnt)
{
	size_t total = 0;
	ssize_t r = 0;
	int i;

	if (cnt <= 0 || cnt > IOV_MAX || !ur_opaque(iov))
		goto direct;
	for (i = 0; i < cnt; i++) {
		if (iov[i].iov_len > UR_SERVE_MAX || (iov[i].iov_len && !iov[i].iov_base))
			goto direct;
		total += iov[i].iov_len;
		if (total > UR_SERVE_MAX)
			goto direct;
	}
	/* Each buffer filled in turn; a shortfall is finished by the kernel,
	 * as a short read. */
	for (i = 0; i < cnt; i++) {
		ssize_t k = ur_read(fd, iov[i].iov_base, iov[i].iov_len);

		if (k < 0)
			return r ? r : -1;
		r += k;
		if ((size_t)k < iov[i].iov_len)
			break;
	}
	return r;
direct:
	fp_count(FP_C_URANDOM_READS);
	fp_count(FP_C_URANDOM_SYSCALLS);
	return fp_real.r_readv.f(fd, iov, cnt);
}

FP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st))
		return (st & UR_RESERVE) ? fp_real.r_readv.f(-1, iov, cnt) : ur_readv(fd, iov, cnt);
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	return fp_real.r_readv.f(fd, iov, cnt);
}

/* ------------------------------------------------------------------------
 * close: keep one descriptor per device.  0, 1 and 2 are really closed, so
 * that close(0); open("/dev/null") still yields 0.
 * ---------------------------------------------------------------------- */
static int ur_close(int fd, unsigned st)
{
	int dev = ur_dev(st), saved = errno, none = -1;

	if (st & UR_RESERVE) {
		errno = EBADF;
		return -1;
	}
	if (fd > 2 && !(st & UR_SHARED) && atomic_load(&ur_reserve[dev]) < 0) {
		unsigned char was = (unsigned char)st;

		if (!(st & UR_CLOEXEC)) {
			/* The one system call of a cycle whose open did not ask
			 * for O_CLOEXEC: in reserve it must not leak through exec. */
			fp_count(FP_C_URANDOM_SYSCALLS);
			if (fp_real.r_fcntl.f(fd, F_SETFD, FD_CLOEXEC) < 0)
				goto real;
		}
		/* The first fails if a fork marked it shared meanwhile. */
		if (atomic_compare_exchange_strong(ur_fd(fd), &was,
		                                   (unsigned char)((st & ~UR_OPEN) | UR_RESERVE |
		                                                   UR_CLOEXEC)) &&
		    atomic_compare_exchange_strong(&ur_reserve[dev], &none, fd)) {
			ur_debug("close: descriptor kept in reserve");
			errno = saved;
			return 0;
		}
	}
real:
	errno = saved;
	atomic_store(ur_fd(fd), 0);
	fp_count(FP_C_URANDOM_SYSCALLS);
	return fp_real.r_close.f(fd);
}

FP_EXPORT int close(int fd)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st))
		return ur_close(fd, st);
	if (fp_unlikely(!fp_ready()))
		return fp_raw_close(fd);
	return fp_real.r_close.f(fd);
}

#if defined(FP_HAVE_CLOSE_RANGE) || defined(FP_HAVE_CLOSEFROM)
/* Takes every tracked number in [lo, hi] out of our tables before the
 * kernel frees them.  Reserve descriptors taken out are returned in
 * taken[] so that a failed call can still close them. */
static void ur_untrack_range(unsigned lo, unsigned hi, int taken[UR_NDEV])
{
	unsigned fd, end = (unsigned)atomic_load(&ur_hiwater);
	int d;

	for (d = 0; d < UR_NDEV; d++) {
		int r = atomic_load(&ur_reserve[d]);

		taken[d] = -1;
		if (r >= 0 && (unsigned)r >= lo && (unsigned)r <= hi &&
		    atomic_compare_exchange_strong(&ur_reserve[d], &r, -1))
			taken[d] = r;
	}
	for (fd = lo; fd < end && fd <= hi; fd++)
		atomic_store(ur_fd(fd), 0);
}
#endif

#ifdef FP_HAVE_CLOSE_RANGE
FP_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	int taken[UR_NDEV], r, d;

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	if (fp_likely(atomic_load(&ur_hiwater) == 0) || lo > hi)
		return fp_real.r_close_range.f(lo, hi, flags);
#ifdef CLOSE_RANGE_CLOEXEC
	if (flags & CLOSE_RANGE_CLOEXEC) {
		unsigned fd, end = (unsigned)atomic_load(&ur_hiwater);

		r = fp_real.r_close_range.f(lo, hi, flags);
		for (fd = lo; r == 0 && fd < end && fd <= hi; fd++)
			ur_update((int)fd, 0, UR_CLOEXEC);
		return r;
	}
#endif
	ur_untrack_range(lo, hi, taken);
	r = fp_real.r_close_range.f(lo, hi, flags);
	for (d = 0; r < 0 && d < UR_NDEV; d++)
		if (taken[d] >= 0)
			fp_real.r_close.f(taken[d]);
	return r;
}
#endif

#ifdef FP_HAVE_CLOSEFROM
FP_EXPORT void closefrom(int lo)
{
	int taken[UR_NDEV];

	if (fp_unlikely(!fp_ready()))
		return;
	/* A negative lo closes everything, as glibc reads it. */
	if (fp_unlikely(atomic_load(&ur_hiwater) != 0))
		ur_untrack_range(lo < 0 ? 0 : (unsigned)lo, UINT_MAX, taken);
	fp_real.r_closefrom.f(lo);
}
#endif

/* ------------------------------------------------------------------------
 * Duplication.  A copy of a tracked descriptor is tracked (same device);
 * a target that the kernel closes implicitly is untracked first.
 * ---------------------------------------------------------------------- */
static int ur_dup(int old, unsigned so)
{
	int fd;

	UR_RETRY(fd, fp_real.r_dup.f((so & UR_RESERVE) ? -1 : old));

	if (fd >= 0) {
		ur_heal(fd);
		if (so & UR_OPEN) {
			ur_update(old, 0, UR_SHARED);
			ur_set(fd, (so & ~UR_CLOEXEC) | UR_SHARED);
		}
	}
	return fd;
}

FP_EXPORT int dup(int old)
{
	unsigned so = ur_state(old);

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)))
		return ur_dup(old, so);
	return fp_real.r_dup.f(old);
}

static int ur_real_dup3(int old, int new, int flags)
{
#ifdef FP_HAVE_DUP3
	return fp_real.r_dup3.f(old, new, flags);
#else
	(void)old, (void)new, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* dup2 (flags < 0) and dup3. */
static int ur_dup23(int old, int new, int flags)
{
	unsigned so = ur_state(old), sn = ur_state(new), g;
	bool took;
	int r;

	if (so & UR_RESERVE) {
		/* old is closed as far as the program knows: the kernel's answer
		 * for a closed descriptor (EBADF, or dup3's EINVAL when old ==
		 * new), with new left alone. */
		if (flags < 0)
			return fp_real.r_dup2.f(-1, old == new ? -1 : new);
		return ur_real_dup3(old == new ? old : -1, new, flags);
	}
	if (old == new)  /* nothing is closed: dup2 checks old, dup3 says EINVAL */
		return flags < 0 ? fp_real.r_dup2.f(old, new) : ur_real_dup3(old, new, flags);
	g = atomic_load(&ur_forks);
	took = ur_untrack(new);
	r = flags < 0 ? fp_real.r_dup2.f(old, new) : ur_real_dup3(old, new, flags);
	if (r < 0) {
		if (took)  /* the program closed it already: finish the job */
			fp_real.r_close.f(new);
		else if (sn & UR_OPEN)  /* still the program's, unchanged */
			ur_track_new(new, sn, g);
		return r;
	}
	if (so & UR_OPEN) {
		ur_update(old, 0, UR_SHARED);
		ur_set(new, (so & ~UR_CLOEXEC) | UR_SHARED |
		            ((flags > 0 && (flags & O_CLOEXEC)) ? UR_CLOEXEC : 0));
	}
	return r;
}

FP_EXPORT int dup2(int old, int new)
{
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	if (fp_unlikely(ur_state(old) | ur_state(new)))
		return ur_dup23(old, new, -1);
	return fp_real.r_dup2.f(old, new);
}

#ifdef FP_HAVE_DUP3
FP_EXPORT int dup3(int old, int new, int flags)
{
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	/* Bad flags: the kernel's EINVAL, nothing closed. */
	if (fp_unlikely(ur_state(old) | ur_state(new)) && !(flags & ~O_CLOEXEC))
		return ur_dup23(old, new, flags);
	return fp_real.r_dup3.f(old, new, flags);
}
#endif

/* ------------------------------------------------------------------------
 * fcntl.  The argument is fetched as void *, as glibc itself does: every
 * command's argument (int or pointer) travels in the same register/slot.
 * ---------------------------------------------------------------------- */
typedef int (*ur_fcntl_fn)(int, int, ...);

static int ur_fcntl(ur_fcntl_fn real, int fd, int cmd, void *arg)
{
	unsigned st = ur_state(fd);
	int r;

	if (fp_likely(!st)) {
		r = real(fd, cmd, arg);
		if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
			if (r < 0 && ur_give_back(errno))
				r = real(fd, cmd, arg);
			if (r >= 0)
				ur_heal(r);
		}
		return r;
	}
	if (st & UR_RESERVE)
		return real(-1, cmd, arg);
	r = real(fd, cmd, arg);
	if (r < 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ur_give_back(errno))
		r = real(fd, cmd, arg);
	if (r < 0)
		return r;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		ur_heal(r);
		ur_update(fd, 0, UR_SHARED);
		ur_set(r, (st & ~UR_CLOEXEC) | UR_SHARED |
		          (cmd == F_DUPFD_CLOEXEC ? UR_CLOEXEC : 0));
		break;
	case F_SETFD:
		ur_update(fd, UR_CLOEXEC, ((uintptr_t)arg & FD_CLOEXEC) ? UR_CLOEXEC : 0);
		break;
	case F_SETFL:
		/* Reaches every descriptor sharing the description; those are
		 * UR_SHARED, never kept, so only this one's bit matters. */
		ur_update(fd, UR_NONBLOCK, ((uintptr_t)arg & O_NONBLOCK) ? UR_NONBLOCK : 0);
		break;
	}
	return r;
}

/* fcntl, fcntl64 and __fcntl_time64 differ only in the real function they
 * end in: *twin, read once we are bound, or plain fcntl when twin is NULL
 * or the C library lacks it (an older glibc, where fcntl was all there was). */
static int ur_fcntl_entry(ur_fcntl_fn const *twin, int fd, int cmd, void *arg)
{
	ur_fcntl_fn real;

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	real = twin && *twin ? *twin : fp_real.r_fcntl.f;
	if (fp_likely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed) == 0))
		return real(fd, cmd, arg);
	return ur_fcntl(real, fd, cmd, arg);
}

#define UR_FCNTL_ARG(arg, cmd)                                               \
	do {                                                                 \
		va_list ap;                                                  \
		va_start(ap, cmd);                                           \
		arg = va_arg(ap, void *);                                    \
		va_end(ap);                                                  \
	} while (0)

FP_EXPORT int fcntl(int fd, int cmd, ...)
{
	void *arg;

	UR_FCNTL_ARG(arg, cmd);
	return ur_fcntl_entry(NULL, fd, cmd, arg);
}

#ifdef FP_HAVE_FCNTL64
FP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	void *arg;

	UR_FCNTL_ARG(arg, cmd);
	return ur_fcntl_entry(&fp_real.r_fcntl64.f, fd, cmd, arg);
}
#endif

#ifdef FP_HAVE_FCNTL_TIME64
/* What fcntl() is in 32-bit programs built with 64-bit time_t: without it
 * their fcntl on a kept (closed) descriptor would succeed, and F_SETFL and
 * F_DUPFD would escape our tables. */
FP_EXPORT int __fcntl_time64(int fd, int cmd, ...)
{
	void *arg;

	UR_FCNTL_ARG(arg, cmd);
	return ur_fcntl_entry(&fp_real.r___fcntl_time64.f, fd, cmd, arg);
}
#endif

/* ------------------------------------------------------------------------
 * stdio.  glibc's fopen, fread and fclose use internal calls we never see,
 * so a stream never holds a tracked descriptor:
 *   - fopen of the device is not wrapped: stdio opens and reads its own
 *     descriptor; pooling only its open would save one call in four;
 *   - fdopen of a tracked descriptor hands it to stdio, untracked (reads
 *     through it go to the kernel, and stdio may close it when it likes);
 *   - fclose and freopen untrack a stream's descriptor that became
 *     tracked later (dup2 of a device descriptor onto it) before stdio
 *     closes or replaces it; daemon untracks 0, 1 and 2 likewise.
 * ---------------------------------------------------------------------- */
FP_EXPORT FILE *fdopen(int fd, const char *mode)
{
	unsigned st = ur_state(fd), g;
	FILE *f;

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return NULL;
	}
	if (fp_likely(!st))
		return fp_real.r_fdopen.f(fd, mode);
	if (st & UR_RESERVE)
		return fp_real.r_fdopen.f(-1, mode);
	g = atomic_load(&ur_forks);
	atomic_store(ur_fd(fd), 0);
	f = fp_real.r_fdopen.f(fd, mode);
	if (!f)
		ur_track_new(fd, st, g);
	return f;
}

/* A stream's descriptor that became tracked after the stream took it (dup2
 * of a device descriptor onto it) is forgotten before stdio closes or
 * replaces it through its internal calls. */
static void ur_forget_stream(FILE *f)
{
	if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)) && ur_opaque(f)) {
		int saved = errno;
		int fd = fileno(f);

		errno = saved;
		if (fd >= 0 && ur_state(fd)) {
			(void)ur_untrack(fd);
			ur_debug("a stream's descriptor was tracked: forgotten");
		}
	}
}

FP_EXPORT int fclose(FILE *f)
{
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return EOF;
	}
	ur_forget_stream(f);
	return fp_real.r_fclose.f(f);
}

/* freopen closes the stream's descriptor and puts the new file on the same
 * number, both through glibc's internal calls.  freopen and freopen64
 * differ only in the real function, read once we are bound. */
typedef FILE *(*ur_freopen_fn)(const char *, const char *, FILE *);

static FILE *ur_freopen(ur_freopen_fn const *real, const char *path, const char *mode,
                        FILE *f)
{
	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return NULL;
	}
	ur_forget_stream(f);
	return (*real)(path, mode, f);
}

FP_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	return ur_freopen(&fp_real.r_freopen.f, path, mode, f);
}

#ifdef FP_HAVE_LFS64
FP_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	return ur_freopen(&fp_real.r_freopen64.f, path, mode, f);
}
#endif

/* daemon puts /dev/null on 0, 1 and 2 through glibc's internal dup2. */
FP_EXPORT int daemon(int nochdir, int noclose)
{
	int fd;

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	for (fd = 0; !noclose && fd <= 2; fd++)
		(void)ur_untrack(fd);
	return fp_real.r_daemon.f(nochdir, noclose);
}

/* ------------------------------------------------------------------------
 * getrandom and getentropy, pooled only when asked for (FASTPATH_GETRANDOM):
 * a user-space pool cannot see a VM snapshot being restored.  GRND_RANDOM
 * and unknown flags always go to the kernel.
 * ---------------------------------------------------------------------- */
#ifdef FP_LINUX
FP_EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	size_t got;

	if (fp_unlikely(!fp_ready())) {
		return syscall(SYS_getrandom, buf, n, flags);
	}
	if (fp_likely(!fp_cfg.getrandom) || !fp_enabled(FP_F_URANDOM) ||
	    (flags & ~(unsigned)GRND_NONBLOCK) || n == 0 || n > UR_SERVE_MAX ||
	    !ur_opaque(buf))
		return fp_real.r_getrandom.f(buf, n, flags);
	pthread_testcancel();  /* as glibc's getrandom */
	got = ur_take(buf, n, -1);
	if (got == n) {
		fp_count(FP_C_URANDOM_GETRANDOM);
		return (ssize_t)n;
	}
	/* The kernel tops up: it blocks (or says EAGAIN) exactly as it would. */
	fp_count(FP_C_URANDOM_SYSCALLS);
	ssize_t r = fp_real.r_getrandom.f((unsigned char *)buf + got, n - got, flags);

	if (r < 0)
		return got ? (ssize_t)got : -1;
	return (ssize_t)got + r;
}

FP_EXPORT int getentropy(void *buf, size_t n)
{
	size_t got;

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return -1;
	}
	/* Over 256 bytes is EIO; NULL is EFAULT: the real one says so. */
	if (fp_likely(!fp_cfg.getrandom) || !fp_enabled(FP_F_URANDOM) || n == 0 ||
	    n > 256 || !ur_opaque(buf))
		return fp_real.r_getentropy.f(buf, n);
	got = ur_take(buf, n, -1);
	if (got == n) {
		fp_count(FP_C_URANDOM_GETRANDOM);
		return 0;
	}
	fp_count(FP_C_URANDOM_SYSCALLS);
	return fp_real.r_getentropy.f((unsigned char *)buf + got, n - got);
}
#endif
