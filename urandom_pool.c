/* SPDX-License-Identifier: MIT */
/*
 * urandom_pool.c: the reservoir the urandom mitigation serves reads from.
 *
 * A 64 KiB pool that one getrandom() refills (the vDSO's, where there is
 * one), zeroing bytes as they are handed out; each thread takes a 1 KiB
 * slice of it at a time, so that threads cycling at once do not fight over
 * the pool lock on every read, nor wait while another thread refills.
 * Invariant kept here, and only here: a pool byte is served at most once,
 * then zeroed (ur_take, ur_slice), and a forked child never sees the
 * parent's bytes (ur_pool_get, ur_pool_atfork_child, the pool generation).
 */
#include "fastpath.h"
#include "urandom.h"

/* The mitigation's table of real functions (urandom.h), here: every unit
 * of it links with this one. */
#define FP_REAL_TAG urandom
FP_REAL_DEFINE(UR_REAL_ALL); // NOLINT(misc-unused-parameters): a stand-in may ignore some
#undef FP_REAL_TAG

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

static _Atomic bool ur_no_getrandom;

#ifdef UR_HAVE_VDSO
/*
 * Refills through the vDSO's getrandom (urandom_vdso.c binds it): the
 * system call's own generator, run in user space, in about half the system
 * call's time (91 against 171 us for 64 KiB here).  Used only when the
 * getrandom we bound is libc's own: a preload after ours that wraps
 * getrandom (a replay tool, tests/libfault_getrandom.so) still sees every
 * refill.  Its state is used under the pool lock only, and the kernel
 * wipes it in a fork child.
 */
static void *_Atomic ur_vgr_state;      /* mapped with the pool */

/* With the pool: its state, in memory of the kind the kernel asks for
 * (dropped under pressure, wiped in a fork child). */
static void ur_vgr_map(void)
{
	void *m;

	if (!ur_vgr || !ur_vgr_libc || atomic_load(&ur_vgr_state))
		return;
	m = (void *)fp_mmap(NULL, ur_vgr_p.size_of_opaque_state, (int)ur_vgr_p.mmap_prot,
	                 (int)ur_vgr_p.mmap_flags, -1, 0);
	ur_count(SYSCALLS);
	if (m != (void *)MAP_FAILED)
		atomic_store(&ur_vgr_state, m);
}
#endif

/* The mitigation's counters (urandom.h): here, so that the pool links alone. */
struct fp_stripe ur_counters[FP_STRIPES];

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
	_Atomic bool filling;     /* the holder is refilling (ur_slice_direct) */
	pid_t pid;                /* only checked where wipe-on-fork is missing */
	size_t pos, len;          /* [pos, len) is fresh; the rest is zero */
	unsigned char buf[UR_POOL];
};
static struct ur_pool *_Atomic ur_pool;
static _Atomic bool ur_wipe;  /* the kernel zeroes the pool in children */

/* Memory that holds bytes not yet served: zeroed in a fork child (where
 * the kernel can), and left out of core dumps (MADV_DONTDUMP, Linux 3.4;
 * illumos has no such advice: see docs/illumos.md).  True with the wipe. */
bool ur_private_advise(void *p, size_t n)
{
	bool wipe = false;

#if defined(UR_TEST_WIPE)
	/* The unit tests play a kernel with neither (tests/test_urandom_pool.c). */
	wipe = UR_TEST_WIPE(p, n);
#elif defined(MADV_WIPEONFORK)
	wipe = madvise(p, n, MADV_WIPEONFORK) == 0;
	ur_count(SYSCALLS);
#elif defined(MC_INHERIT_ZERO)
	wipe = memcntl((void *)p, n, MC_INHERIT_ZERO, 0, 0, 0) == 0;
	ur_count(SYSCALLS);
#endif
#ifdef MADV_DONTDUMP
	(void)madvise(p, n, MADV_DONTDUMP);
	ur_count(SYSCALLS);
#endif
	return wipe;
}

static struct ur_pool *ur_pool_get(void)
{
	struct ur_pool *p = atomic_load_explicit(&ur_pool, memory_order_acquire);
	struct ur_pool *none = NULL;
	bool wipe = false;
	void *m;

	if (fp_likely(p != NULL)) {
		UR_ANN_SEEN(&ur_pool);
		return p;
	}
	/* Through void *: before illumos#14418 (2022) illumos declared mmap
	 * and munmap with caddr_t (char *), which GCC 14 will not convert. */
	m = (void *)fp_mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	                 -1, 0);
	ur_count(SYSCALLS);
	if (m == (void *)MAP_FAILED)
		return NULL;
	p = m;
	wipe = ur_private_advise(p, sizeof *p);
	/* Set before publishing, so no thread of this process ever sees a pid
	 * mismatch (see ur_check_pid). */
	p->pid = getpid();
	UR_ANN_CREATE(p);
	UR_ANN_PUBLISH(&ur_pool);
	if (!atomic_compare_exchange_strong(&ur_pool, &none, p)) {
		UR_ANN_DESTROY(p);
		munmap((void *)p, sizeof *p);
		UR_ANN_SEEN(&ur_pool);
		return none;
	}
	/* Until this store, readers assume no wipe and check the pid: safe. */
	atomic_store(&ur_wipe, wipe);
#ifdef UR_HAVE_VDSO
	ur_vgr_map();
#endif
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

/* The pool lock is never waited for (docs/design.md, "No waits"): held by
 * another thread (a copy, or a refill), the caller goes to the kernel, as
 * its read would natively, or has the kernel fill its slice (UR_FILLING,
 * give_way).  It is held with every signal blocked (and cancellation off
 * in the refill, ur_refill): no handler re-enters it and none can jump out
 * of it, so no thread ever finds it stranded.  The mask is this thread's:
 * one hold at a time. */
enum ur_lock { UR_LOCKED, UR_UNLOCKED, UR_FILLING };
static FP_TLS sigset_t ur_lock_mask;

/* give_way: UR_FILLING rather than UR_UNLOCKED while the holder refills. */
static enum ur_lock ur_lock_or(struct ur_pool *p, bool give_way)
{
	uintptr_t cur = 0;
	sigset_t old;

	fp_hold_all(&old);
	if (atomic_compare_exchange_strong_explicit(&p->owner, &cur, (uintptr_t)pthread_self(),
	                                            memory_order_acquire, memory_order_relaxed)) {
		ur_lock_mask = old;
		UR_ANN_LOCKED(p);
		return UR_LOCKED;
	}
	fp_unhold(&old);
	if (give_way && atomic_load_explicit(&p->filling, memory_order_relaxed))
		return UR_FILLING;
	return UR_UNLOCKED;
}

static bool ur_lock(struct ur_pool *p)
{
	return ur_lock_or(p, false) == UR_LOCKED;
}

static inline void ur_unlock(struct ur_pool *p)
{
	int saved = errno;

	UR_ANN_UNLOCK(p);
	atomic_store_explicit(&p->owner, 0, memory_order_release);
	fp_unhold(&ur_lock_mask);
	errno = saved;
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

/* A refill through the vDSO (under the pool lock); -1 when it is not to
 * be used: no vDSO getrandom, something else now stands in for getrandom
 * (the unit tests' fault stand-ins), or getrandom proved missing.  It
 * returns what the system call would, -errno on failure: the system call
 * then says it again, with errno. */
static ssize_t ur_refill_vdso(struct ur_pool *p)
{
#ifdef UR_HAVE_VDSO
	void *st = atomic_load_explicit(&ur_vgr_state, memory_order_acquire);
	ssize_t r;

	if (!st || !ur_vgr || UR_REALP(getrandom) != ur_vgr_libc ||
	    atomic_load_explicit(&ur_no_getrandom, memory_order_relaxed))
		return -1;
	r = ur_vgr(p->buf, sizeof p->buf, GRND_NONBLOCK, st, ur_vgr_p.size_of_opaque_state);
	return r > 0 ? r : -1;
#else
	(void)p;
	return -1;
#endif
}

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

	ur_count(REFILLS);
	atomic_store_explicit(&p->filling, true, memory_order_relaxed);
	if ((r = ur_refill_vdso(p)) < 0)
		ur_count(SYSCALLS);
#ifdef FP_LINUX
	if (r < 0 && !atomic_load_explicit(&ur_no_getrandom, memory_order_relaxed) &&
	    UR_REAL(getrandom)) {
		r = UR_REAL(getrandom)(p->buf, sizeof p->buf, GRND_NONBLOCK);
		/* EPERM: a seccomp filter's refusal, as lasting as ENOSYS. */
		if (r < 0 && (errno == ENOSYS || errno == EPERM)) {
			__atomic_store_n(&ur_refused, errno, __ATOMIC_RELAXED);
			atomic_store(&ur_no_getrandom, true);
		}
	}
#else
	atomic_store(&ur_no_getrandom, true);
#endif
	if (r < 0 && fd >= 0 && atomic_load(&ur_no_getrandom))
		r = UR_REAL(read)(fd, p->buf, sizeof p->buf);
	pthread_setcancelstate(cancel, NULL);
	atomic_store_explicit(&p->filling, false, memory_order_relaxed);
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
 * thread inside its slice out of it (it takes from the pool instead).  The
 * slice lives in memory of urandom_vdso.c's, wiped in a child and left out
 * of core dumps like the pool; a thread that cannot have one yet takes from
 * the pool directly.
 */
static void ur_slice_drop(struct ur_slice *t)
{
	if (t->pos < t->len)
		explicit_bzero(t->b + t->pos, (size_t)(t->len - t->pos));
	t->pos = t->len = 0;
}

enum ur_cut { UR_CUT, UR_CUT_SHORT, UR_CUT_NONE };

/* While another thread refills the pool (64 KiB of ChaCha20: 90-170 us), a
 * thread that needs a slice has the kernel fill it rather than wait, so
 * that threads reading at once generate side by side, as their native reads
 * would.  The slice names the pool's generation like a cut one; false when
 * that cannot be done (no generation yet, no getrandom, a short fill). */
static bool ur_slice_direct(struct ur_slice *t, struct ur_pool *p)
{
#ifdef FP_HAVE_GETRANDOM
	uint64_t gen = atomic_load_explicit(&p->gen, memory_order_relaxed);
	int saved = errno;
	ssize_t r;

	if (gen == 0 || !UR_REAL(getrandom) ||
	    atomic_load_explicit(&ur_no_getrandom, memory_order_relaxed))
		return false;
	ur_count(SYSCALLS);
	ur_count(SLICES);
	r = UR_REAL(getrandom)(t->b, UR_SLICE, GRND_NONBLOCK);
	errno = saved;
	if (r != UR_SLICE || ur_forked_under_us(p, gen)) {
		explicit_bzero(t->b, UR_SLICE);
		return false;
	}
	t->gen = gen;
	t->pos = 0;
	t->len = UR_SLICE;
	return true;
#else
	(void)t;
	(void)p;
	return false;
#endif
}

/* Cuts a new slice from the pool.  UR_CUT_SHORT: the pool has bytes but
 * not a slice (a fill cut short by a signal, or too short to draw a
 * generation from), to be served under its lock; UR_CUT_NONE: re-entered,
 * or the refill failed, so the kernel must serve. */
static enum ur_cut ur_slice_cut(struct ur_slice *t, struct ur_pool *p, int fd)
{
	enum ur_cut r = UR_CUT_SHORT;
	uint64_t gen;
	int saved = errno;
	enum ur_lock l = ur_lock_or(p, true);

	if (l == UR_FILLING) {
		if (ur_slice_direct(t, p))
			return UR_CUT;
		l = ur_lock_or(p, false);
	}
	if (l != UR_LOCKED)
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
size_t ur_take(unsigned char *dst, size_t n, int fd)
{
	struct ur_pool *p = ur_pool_get();
	struct ur_slice *t = ur_tls_slice;
	enum ur_cut cut = UR_CUT;

	if (!p)
		return 0;
	ur_check_pid(p);
	if (fp_unlikely(!t) && n <= UR_SLICE_MAX)
		t = ur_thread_slice_new();
	if (n > UR_SLICE_MAX || !t || t->busy)
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

/* In a fork child: no byte the parent holds may be served here. */
void ur_pool_atfork_child(void)
{
	struct ur_pool *p = atomic_load(&ur_pool);

	/* The forking thread is the child's only one: its slice is the only
	 * copy of the parent's bytes left outside the pool. */
	struct ur_slice *t = ur_tls_slice;

	if (t) {
		ur_slice_drop(t);
		t->gen = 0;
	}

	/* With wipe-on-fork the kernel already zeroed it; writing would only
	 * fault the pages in. */
	if (p && !atomic_load(&ur_wipe))
		ur_reset(p);
}


