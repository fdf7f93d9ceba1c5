/* SPDX-License-Identifier: MIT */
/*
 * cpus_affinity.c: the affinity masks under the CPU cap, and their round
 * trip: sched_getaffinity, pthread_getaffinity_np, sched_setaffinity and
 * pthread_setaffinity_np (a thread attribute's mask is cpus_attr.c's).
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_HAVE_AFFINITY
/* ------------------------------------------------------------------------
 * Affinity masks are virtual (cpus_map.c): a getter translates the real
 * mask into the virtual CPUs it holds, a setter pins to the real CPUs its
 * virtual ids run on.  What a thread sets is what it reads back (issue
 * 12): the virtual mask of the last successful set is remembered per
 * thread (and, for the main thread, per process: a thread that set
 * nothing, or another thread asking with our pid, sees it), and given back
 * as long as the real mask is still the one that set left.
 * ---------------------------------------------------------------------- */
/* 160 bytes of static TLS per thread: no allocation, safe in a handler.
 * Never the main thread's: its record is the process's (cpus_vproc). */
FP_TLS struct cpus_vmask fp_cpus_vthread;
/*
 * The main thread's record is the process's, and its only one: whoever
 * sets its mask (itself by 0 or its tid, any thread by our pid or its
 * pthread_t) writes it, and every thread reads it (a cold review: a
 * second record in its TLS read {1,3} where the others read {3}).
 * Writers take a try-lock owned by a pid (a fork child takes over one its
 * parent's thread held); one that finds it held counts a miss, which
 * makes the record every thread reads stale: all read the translation
 * alike, and nobody waits.  Readers take no lock: a sequence count, odd
 * while a write is under way, the words read one by one; a read that
 * keeps meeting writes reads the translation.
 */
#define CPUS_VWORDS ((sizeof(struct cpus_vmask) + 2 * sizeof(long) - 1) / sizeof(long))
union cpus_vrec {
	struct {
		struct cpus_vmask m;
		unsigned long misses; /* cpus_vproc.misses as the write began */
	} r;
	unsigned long w[CPUS_VWORDS];
};
static struct {
	_Atomic long owner;
	_Atomic unsigned long seq, misses;
	union cpus_vrec rec;
} cpus_vproc;
/* A record of the main thread's was written: only then does anything ask
 * which thread is the main one (sched_getcpu, pthread_create, fork). */
static _Atomic bool cpus_vproc_any;
/* Whether this thread is the main one: 1, -1, 0 not yet asked. */
static FP_TLS signed char cpus_main_tls;

static bool cpus_vproc_lock(void)
{
	long me = (long)getpid(), cur = 0;

	if (atomic_compare_exchange_strong(&cpus_vproc.owner, &cur, me))
		return true;
	/* A vfork child is another pid on its parent's memory: the holder
	 * runs on beside it, so it falls back as a signal handler does. */
	return cur != me && !fp_vfork_child() &&
	       atomic_compare_exchange_strong(&cpus_vproc.owner, &cur, me);
}

static void cpus_vproc_unlock(void)
{
	atomic_store_explicit(&cpus_vproc.owner, 0, memory_order_release);
}

/* The lock held: v is the main thread's record now. */
static void cpus_vproc_write(const struct cpus_vmask *v, unsigned long misses)
{
	union cpus_vrec n;
	unsigned long seq = atomic_load_explicit(&cpus_vproc.seq, memory_order_relaxed);

	memset(&n, 0, sizeof n);
	n.r.m = *v;
	n.r.misses = misses;
	atomic_store_explicit(&cpus_vproc.seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (size_t i = 0; i < CPUS_VWORDS; i++)
		__atomic_store_n(&cpus_vproc.rec.w[i], n.w[i], __ATOMIC_RELAXED);
	atomic_store_explicit(&cpus_vproc.seq, seq + 2, memory_order_release);
	atomic_store_explicit(&cpus_vproc_any, true, memory_order_relaxed);
}

/* The main thread's record, when one is there, whole and not missed. */
static bool cpus_vproc_read(struct cpus_vmask *out)
{
	union cpus_vrec n;

	for (int tries = 0; tries < 4; tries++) {
		unsigned long seq = atomic_load_explicit(&cpus_vproc.seq, memory_order_acquire);

		if (seq & 1)
			continue;
		for (size_t i = 0; i < CPUS_VWORDS; i++)
			n.w[i] = __atomic_load_n(&cpus_vproc.rec.w[i], __ATOMIC_RELAXED);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&cpus_vproc.seq, memory_order_relaxed) != seq)
			continue;
		*out = n.r.m;
		return out->valid && n.r.misses == atomic_load(&cpus_vproc.misses);
	}
	return false;
}

/* tid == pid, asked once a thread (not by a vfork child, whose TLS is its
 * parent thread's; a fork child's one thread is told, cpus_vproc_child). */
static bool cpus_is_main(void)
{
	bool m;

	if (fp_likely(cpus_main_tls) && !fp_vfork_child())
		return cpus_main_tls > 0;
	m = (long)syscall(SYS_gettid) == (long)getpid();
	if (!fp_vfork_child())
		cpus_main_tls = m ? 1 : -1;
	return m;
}

/* Every set of another thread's mask by its tid or pthread_t: a thread's
 * record holds the count as it began, and is stale once it moved (a cold
 * review: a worker set {3}, then set {1} by the main thread on the same
 * real CPU, read back {3}).  Its memory is in its TLS, out of reach. */
static _Atomic unsigned long cpus_sib_gen;

unsigned long cpus_gen_now(void)
{
	return atomic_load_explicit(&cpus_sib_gen, memory_order_acquire);
}

/* A vfork child's own set, by its pid: what its exec hands down and its
 * calls read (cold reviews: the parent thread's record was handed down;
 * with one record for the process, two threads' children read each
 * other's).  In the vforking thread's TLS, on which the child runs; [1]
 * a vfork child's own child's (and deeper), which reads [0] while it has
 * its parent's mask.  Emptied at each vfork from the process (root). */
static FP_TLS struct {
	long root;
	struct {
		long pid;
		struct cpus_vmask v;
	} r[2];
} cpus_vf;

void cpus_vforking(void)
{
	if (!fp_enabled(FP_BIT(cpus)))
		return;
	if (fp_vfork_child()) {
		cpus_vf.r[1].pid = 0; /* its child starts from its mask */
		return;
	}
	cpus_vf.root = (long)getpid();
	cpus_vf.r[0].pid = cpus_vf.r[1].pid = 0;
	(void)cpus_is_main(); /* for the child, which cannot tell */
}

/* A vfork child's level in cpus_vf: 0 the process's child, 1 deeper. */
static int cpus_vf_level(void)
{
	return (long)getppid() == cpus_vf.root ? 0 : 1;
}

/* A vfork child's record: its own set's, or its vfork parent's; NULL:
 * none, its mask is the vforking thread's. */
static const struct cpus_vmask *cpus_vf_mine(void)
{
	long me = (long)getpid();

	if (cpus_vf.r[0].pid == me || cpus_vf.r[1].pid == me)
		return cpus_vf.r[0].pid == me ? &cpus_vf.r[0].v : &cpus_vf.r[1].v;
	if (cpus_vf_level() == 1 && cpus_vf.r[0].pid && cpus_vf.r[0].pid == (long)getppid())
		return &cpus_vf.r[0].v;
	return NULL;
}

/* The calling thread's record (sched_getcpu, pthread_create, its own
 * reads): a vfork child's own set; the thread's own record, made by its
 * sets or given at its start (pthread_create); the main thread's for the
 * main thread (in a vfork child, for the vforking one).  Any other thread
 * (one the C library made for itself, a raw clone) has none: its mask is
 * read through the map.  false: none, or a stale one. */
bool cpus_my_vmask(struct cpus_vmask *out)
{
	const struct cpus_vmask *vf;
	bool main;

	if (fp_unlikely(fp_vfork_child()) && (vf = cpus_vf_mine()) != NULL) {
		*out = *vf;
		return out->valid;
	}
	if (fp_cpus_vthread.valid) {
		*out = fp_cpus_vthread;
		return out->gen == cpus_gen_now();
	}
	if (fp_likely(!atomic_load_explicit(&cpus_vproc_any, memory_order_relaxed)))
		return false;
	main = fp_vfork_child() ? cpus_main_tls > 0 : cpus_is_main();
	return main && cpus_vproc_read(out);
}

/* Before a fork: whether the forking thread is the main one is known, so
 * that the child can tell (the question needs the parent's pid). */
FP_FORK_TEXT void cpus_vproc_prepare(void)
{
	/* Whenever the cap is on: a record another thread writes between
	 * this and the fork is no worker's child's own (a cold review:
	 * 15-38 of 5000 children read the main thread's mask as theirs). */
	if (fp_enabled(FP_BIT(cpus)))
		(void)cpus_is_main();
}

/* A fork child: its one thread is its main thread, and its record the
 * process's (a cold review: a worker's fork left the parent's main
 * record there, {1} against the worker's {3}).  A write its thread had
 * under way (a handler's fork) is missed; the lock is free. */
/* Every set through us, begun and ended, whatever its thread or target: a
 * set is remembered only where no other was under way as it began, nor
 * began before its mask was read back (a cold review: the main thread and
 * a worker setting its mask at once signed one's virtual mask with the
 * other's real one, in 2835 of 3000 rounds; a signal handler's set inside
 * another likewise).  The record is then dropped: read as translated.
 * A fork child has no set under way: ended is begun there (a cold review:
 * a thread's set under way at the fork left every later one unremembered). */
static _Atomic unsigned long cpus_sets_begun, cpus_sets_ended;

FP_FORK_TEXT void cpus_vproc_child(void)
{
	unsigned long seq;

	/* Nothing read or written where the cap is off, nor written where
	 * there was nothing (issue 39: a page fault more in every fork's
	 * child); with it off there are no records. */
	if (!fp_enabled(FP_BIT(cpus)))
		return;
	cpus_learn_atfork_child();
	seq = atomic_load_explicit(&cpus_vproc.seq, memory_order_relaxed);
	if (seq & 1) {
		atomic_store(&cpus_vproc.seq, seq + 1);
		atomic_fetch_add(&cpus_vproc.misses, 1);
	}
	if (atomic_load_explicit(&cpus_vproc.owner, memory_order_relaxed))
		atomic_store(&cpus_vproc.owner, 0);
	if (atomic_load(&cpus_sets_ended) != atomic_load(&cpus_sets_begun))
		atomic_store(&cpus_sets_ended, atomic_load(&cpus_sets_begun));
	if (cpus_main_tls < 0) {
		struct cpus_vmask t = fp_cpus_vthread;

		t.valid = t.valid && t.gen == cpus_gen_now();
		if (fp_cpus_vthread.valid || atomic_load(&cpus_vproc_any))
			cpus_vproc_write(&t, atomic_load(&cpus_vproc.misses));
		fp_cpus_vthread.valid = false;
		cpus_main_tls = 1;
	}
}

/* A signature of a mask's set ids: the remembered mask is given back only
 * while the real one is unchanged (a `taskset -p` from outside makes it
 * stale). */
uint64_t cpus_sig(const cpu_set_t *mask)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET(i, mask)) {
			h ^= i + 1;
			h *= 1099511628211ull;
		}
	}
	return h;
}

static enum cpus_who cpus_who_pid(pid_t pid)
{
	if (pid == 0 || (long)pid == (long)syscall(SYS_gettid))
		return CPUS_THREAD;
	if (pid == getpid())
		return CPUS_MAIN;
	/* A tid of our thread group: signal 0 reaches it (no signal sent).
	 * Another process's pid is ESRCH here, which the call that then
	 * succeeds must not leave behind (a cold review). */
	int saved = errno;
	bool ours = pid > 0 && syscall(SYS_tgkill, (long)getpid(), (long)pid, 0L) == 0;

	errno = saved;
	return ours ? CPUS_SIBLING : CPUS_OTHER;
}

/* Which thread th is to us.  The main thread's mask is remembered for the
 * process (cpus_vproc), so it reads the same by pthread_t from any thread
 * as by its pid (a cold review: {1,3} against {3}): its tid is in its
 * CPU-time clock's id, the kernel's encoding (~tid << 3 | 6), which glibc
 * computes from the thread's own record, no system call. */
static enum cpus_who cpus_who_thread(pthread_t th)
{
	clockid_t c;

	long tid;

	if (pthread_equal(th, pthread_self()))
		return CPUS_THREAD;
	/* An ended thread not yet joined has tid 0, and the C library's
	 * calls on it act on the caller (a cold review); glibc's clock id
	 * then is ESRCH, musl's encodes 0. */
	if ((c = 0, pthread_getcpuclockid(th, &c)) == ESRCH)
		return CPUS_THREAD;
	if ((c & 7) != 6)
		return CPUS_SIBLING;
	tid = ~((long)c >> 3);
	if (tid == 0 || tid == (long)syscall(SYS_gettid))
		return CPUS_THREAD;
	return tid == (long)getpid() ? CPUS_MAIN : CPUS_SIBLING;
}

/* v's ids written to the caller's mask (setsize * 8 >= N). */
void cpus_put_vmask(const struct cpus_vmask *v, long n, size_t setsize, cpu_set_t *mask)
{
	size_t i;

	memset(mask, 0, setsize);
	for (i = v->run ? (size_t)v->lo : 0; (long)i < n; i++) {
		if (v->run && (long)i > v->hi)
			break;
		if (!v->run && i >= CPU_SETSIZE)
			break;
		if (cpus_vmask_has(v, (long)i))
			CPU_SET_S(i, setsize, mask);
	}
}

/* The remembered mask for `who`, into *out when the real mask `now` is
 * the one it was set with; false otherwise.  The caller's is its own
 * record (cpus_my_vmask), never the main thread's unless it is that one
 * (a cold review: a worker made before the main thread set {0,1} of 4 on
 * two CPUs read {0,1}, where it had inherited all 4). */
bool cpus_recalled(enum cpus_who who, const cpu_set_t *now, struct cpus_vmask *out)
{
	uint64_t sig = cpus_sig(now);

	if (who == CPUS_THREAD)
		return cpus_my_vmask(out) && out->sig == sig;
	if (who != CPUS_MAIN)
		return false;
	return atomic_load_explicit(&cpus_vproc_any, memory_order_relaxed) && cpus_vproc_read(out) &&
	       out->sig == sig;
}

bool cpus_recalled_thread(pthread_t th, const cpu_set_t *now, struct cpus_vmask *out)
{
	return cpus_recalled(cpus_who_thread(th), now, out);
}

/* The remembered mask for `who`, written to the caller's set. */
static bool cpus_recall(enum cpus_who who, const cpu_set_t *now, long n, size_t setsize,
                        cpu_set_t *mask)
{
	struct cpus_vmask v;

	if (!cpus_recalled(who, now, &v))
		return false;
	cpus_put_vmask(&v, n, setsize, mask);
	return true;
}

/* At the first question, the mask handed down at exec (cpus_learn_shared)
 * is the process's, as if its main thread had set it: unless a thread has
 * set one meanwhile. */
void cpus_vproc_handed(const struct cpus_vmask *v, const cpu_set_t *mask)
{
	struct cpus_vmask h = *v;
	unsigned long misses = atomic_load(&cpus_vproc.misses);
	/* (every signal blocked by the learning, cpus_settle) */
	if (cpus_vproc_lock()) {
		if (!cpus_vproc.rec.r.m.valid) {
			h.last_real = h.last_virt = -1;
			h.sig = cpus_sig(mask);
			cpus_vproc_write(&h, misses);
		}
		cpus_vproc_unlock();
	}
}
/*
 * The caller's mask as the kernel reaches it: an invalid pointer is EFAULT,
 * not a fault of ours.  0 when the n bytes at p can be read (wr false) or
 * written (wr: fp_span_writable changes them, the caller writes them all
 * next); else EFAULT.  errno is kept.
 */
static int cpus_user_ok(void *p, size_t n, bool wr)
{
	return (wr ? fp_span_writable(p, n) : fp_span_readable(p, n)) ? 0 : EFAULT;
}

/* The real getters, as one shape: 0 or an error number. */
typedef int (*cpus_get_fn)(pid_t, pthread_t, size_t, cpu_set_t *);

static int cpus_real_sched_get(pid_t pid, pthread_t th, size_t setsize, cpu_set_t *mask)
{
	(void)th;
	return CPUS_REAL(sched_getaffinity)(pid, setsize, mask) == 0 ? 0 : errno;
}

static int cpus_real_pthread_get(pid_t pid, pthread_t th, size_t setsize, cpu_set_t *mask)
{
	(void)pid;
	return CPUS_REAL(pthread_getaffinity_np)(th, setsize, mask);
}

/*
 * The virtual mask of `who`, as a kernel of N CPUs gives it: EINVAL for a
 * set smaller than N bits or not a whole number of longs, before anything
 * else and with the caller's buffer untouched (and for a size past
 * INT_MAX: glibc passes INT_MAX, never a whole number of longs); then the
 * kernel's own errors (ESRCH, EFAULT...).  The real mask is read into the
 * caller's buffer, as natively, so that the kernel checks it, then
 * translated in place; a set too small for the real machine (but not for
 * N) is read into ours, the caller's checked (cpus_user_ok).  0 or an
 * error number.
 */
static int cpus_get(enum cpus_who who, pid_t pid, pthread_t th, size_t setsize,
                    cpu_set_t *mask, cpus_get_fn real, const char *via)
{
	struct cpus_map m;
	cpu_set_t now;
	int err, saved = errno;

	fp_cpus_map(&m);
	if (setsize > INT_MAX || setsize % sizeof(long) != 0 || setsize * 8 < (size_t)m.n)
		return EINVAL;
	if ((err = real(pid, th, setsize, mask)) == 0) {
		CPU_ZERO(&now);
		memcpy(&now, mask, setsize < sizeof now ? setsize : sizeof now);
	} else if (err == EINVAL && (err = real(pid, th, sizeof now, &now)) == 0) {
		errno = saved; /* the refusal's EINVAL is ours, not the call's */
		err = cpus_user_ok(mask, setsize, true);
	}
	if (err)
		return err;
	(void)cpus_answer(via);
	if (!cpus_recall(who, &now, m.n, setsize, mask))
		fp_cpus_to_virtual(&m, &now, sizeof now, mask, setsize);
	return 0;
}

FP_EXPORT int sched_getaffinity(pid_t pid, size_t setsize, cpu_set_t *mask)
{
	enum cpus_who who;
	int rc, err;

	if (fp_enabled(FP_BIT(cpus)) && (who = cpus_who_pid(pid)) != CPUS_OTHER) {
		err = cpus_get(who, pid, pthread_self(), setsize, mask, cpus_real_sched_get,
		               "sched_getaffinity");
		rc = err ? -1 : 0;
		if (err)
			errno = err;
	} else {
		rc = CPUS_REAL(sched_getaffinity)(pid, setsize, mask);
	}
	if (fp_unlikely(fp_surveying()) && (pid == 0 || pid == getpid()))
		cpus_sv_query(CPUS_S_Q_sched_getaffinity, rc == 0 ? CPU_COUNT_S(setsize, mask) : 0);
	return rc;
}

FP_EXPORT int pthread_getaffinity_np(pthread_t thread, size_t setsize, cpu_set_t *mask)
{
	int rc;

	if (fp_enabled(FP_BIT(cpus)))
		/* A sibling's remembered mask is in its TLS, out of reach:
		 * its real mask, translated, stands in (the main thread's is
		 * the process's: cpus_who_thread). */
		rc = cpus_get(cpus_who_thread(thread), 0, thread, setsize, mask, cpus_real_pthread_get,
		              "pthread_getaffinity_np");
	else
		rc = CPUS_REAL(pthread_getaffinity_np)(thread, setsize, mask);
	if (fp_unlikely(fp_surveying()))
		cpus_sv_query(CPUS_S_Q_pthread_getaffinity_np,
		              rc == 0 ? CPU_COUNT_S(setsize, mask) : 0);
	return rc;
}

/* The virtual ids asked (below N) as a cpus_vmask: false when they are
 * neither all below CPU_SETSIZE nor one run (not remembered). */
bool cpus_vmask_of(struct cpus_vmask *t, long n, size_t setsize, const cpu_set_t *mask)
{
	size_t i, lim = setsize * 8 < (size_t)n ? setsize * 8 : (size_t)n;
	long lo = -1, hi = -1;
	bool gap = false;

	memset(t, 0, sizeof *t);
	t->last_real = t->last_virt = -1;
	for (i = 0; i < lim; i++) {
		if (!fp_cpus_isset(i, setsize, mask))
			continue;
		if (i < CPU_SETSIZE)
			CPU_SET(i, &t->bits);
		gap |= hi >= 0 && (long)i != hi + 1;
		if (lo < 0)
			lo = (long)i;
		hi = (long)i;
	}
	if (hi < CPU_SETSIZE)
		return true;
	t->run = true;
	t->lo = (int)lo;
	t->hi = (int)hi;
	return !gap;
}

/* After a successful set: remember the virtual ids asked, signed with the
 * real mask the kernel now holds. */

/* begun: the count of sets begun with this one, 0 where another was under
 * way as it began. */
static void cpus_remember(enum cpus_who who, long n, size_t setsize, const cpu_set_t *mask,
                          bool ok, unsigned long begun, unsigned long gen)
{
	struct cpus_vmask mv, *t = &fp_cpus_vthread;
	cpu_set_t now;
	unsigned long misses = 0;
	bool main = false, vf = fp_vfork_child();

	if (who != CPUS_THREAD && who != CPUS_MAIN)
		return; /* a sibling's memory is in its TLS, out of reach */
	/* A vfork child's memory is its parent's: its own set is kept apart,
	 * by its pid (cpus_vf). */
	if (vf && who != CPUS_THREAD)
		return;
	if (vf)
		t = &mv;
	else
		main = who == CPUS_MAIN || cpus_is_main();
	CPU_ZERO(&now);
	if (main) {
		t = &mv;
		misses = atomic_load(&cpus_vproc.misses);
		if (!cpus_vproc_lock()) {
			atomic_fetch_add(&cpus_vproc.misses, 1);
			return;
		}
	}
	t->valid = cpus_vmask_of(t, n, setsize, mask) &&
	           CPUS_REAL(sched_getaffinity)(main ? getpid() : 0, sizeof now, &now) == 0 &&
	           (vf || (ok && atomic_load(&cpus_sets_begun) == begun));
	t->sig = t->valid ? cpus_sig(&now) : 0;
	t->gen = gen;
	if (vf) {
		int l = cpus_vf_level();

		cpus_vf.r[l].v = mv;
		cpus_vf.r[l].pid = (long)getpid();
	}
	if (main) {
		cpus_vproc_write(t, misses);
		cpus_vproc_unlock();
	}
}

/* The real setters, as one shape: 0 or an error number. */
typedef int (*cpus_set_fn)(pid_t, pthread_t, size_t, const cpu_set_t *);

static int cpus_real_sched_set(pid_t pid, pthread_t th, size_t setsize, const cpu_set_t *mask)
{
	(void)th;
	return CPUS_REAL(sched_setaffinity)(pid, setsize, mask) == 0 ? 0 : errno;
}

static int cpus_real_pthread_set(pid_t pid, pthread_t th, size_t setsize, const cpu_set_t *mask)
{
	(void)pid;
	return CPUS_REAL(pthread_setaffinity_np)(th, setsize, mask);
}

/* The bytes of a mask this kernel reads (its cpumask_size: what its
 * sched_getaffinity writes), learnt at the first set. */
static size_t cpus_kernel_bytes(void)
{
	static _Atomic size_t known;
	size_t k = atomic_load_explicit(&known, memory_order_relaxed);

	if (fp_unlikely(k == 0)) {
		/* Only its length is read: threads may write it at once. */
		static unsigned long b[CPUS_LINUX_MAX / 64];
		int saved = errno;
		long r = syscall(SYS_sched_getaffinity, 0L, sizeof b, b);

		errno = saved;
		k = r > 0 ? (size_t)r : sizeof(cpu_set_t);
		atomic_store_explicit(&known, k, memory_order_relaxed);
	}
	return k;
}

/*
 * A virtual mask set: the real CPUs its ids below N run on (ids at or past
 * N are ignored, as a kernel ignores CPUs it does not have).  A mask that
 * names none of the N goes to the kernel empty: its answer (EINVAL, or
 * ESRCH first) is a kernel's.  0 or an error number.
 */
static int cpus_set(enum cpus_who who, pid_t pid, pthread_t th, size_t setsize,
                    const cpu_set_t *mask, cpus_set_fn real)
{
	struct cpus_map m;
	cpu_set_t want;
	sigset_t old;
	size_t len = (unsigned)setsize, vlen;
	unsigned long begun, gen;
	bool self, ok;
	int err;

	if (!mask)
		return real(pid, th, setsize, mask); /* the kernel's EFAULT */
	fp_cpus_map(&m);
	/* What the kernel reads: its own mask's bytes at most (this one's,
	 * or a kernel of N CPUs' where that is more), of a length it takes
	 * as 32 bits; an invalid pointer is EFAULT (a cold review: a mask
	 * readable only in its first long was taken).  (A mask unmapped by
	 * another thread between the check and the read is that program's
	 * race.) */
	vlen = ((size_t)m.n + 63) / 64 * 8;
	if (vlen < cpus_kernel_bytes())
		vlen = cpus_kernel_bytes();
	if ((err = cpus_user_ok((void *)mask, len < vlen ? len : vlen, false)) != 0)
		return err;
	(void)fp_cpus_to_real(&m, mask, len, &want);
	/* Nothing a handler's siglongjmp can strand between the counts, nor
	 * in the record's lock (a cold review: 2000 jumps out of sets left
	 * every later set unremembered, {3} read back {1,3}). */
	fp_hold_all(&old);
	/* A worker's set of its own mask touches no other thread's record,
	 * so it is not counted: only sets that may change another's are (a
	 * cold review: workers pinning themselves at once read 672 of 800
	 * masks translated, {1,3} for {1}); a vfork child's is its own
	 * process's, apart from every count (two threads' children). */
	self = who == CPUS_THREAD && (fp_vfork_child() || !cpus_is_main());
	if (who == CPUS_SIBLING)
		atomic_fetch_add(&cpus_sib_gen, 1);
	gen = cpus_gen_now();
	begun = self ? atomic_load(&cpus_sets_begun) : atomic_fetch_add(&cpus_sets_begun, 1) + 1;
	ok = (self ? begun : begun - 1) == atomic_load(&cpus_sets_ended);
	if ((err = real(pid, th, sizeof want, &want)) == 0)
		cpus_remember(who, m.n, len, mask, ok, begun, gen); /* what it read */
	if (!self)
		atomic_fetch_add(&cpus_sets_ended, 1);
	fp_unhold(&old);
	return err;
}

FP_EXPORT int sched_setaffinity(pid_t pid, size_t setsize, const cpu_set_t *mask)
{
	enum cpus_who who;
	int err;

	if (!fp_enabled(FP_BIT(cpus)) || (who = cpus_who_pid(pid)) == CPUS_OTHER)
		return CPUS_REAL(sched_setaffinity)(pid, setsize, mask);
	err = cpus_set(who, pid, pthread_self(), setsize, mask, cpus_real_sched_set);
	if (err)
		errno = err;
	return err ? -1 : 0;
}

FP_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t setsize, const cpu_set_t *mask)
{
	if (!fp_enabled(FP_BIT(cpus)))
		return CPUS_REAL(pthread_setaffinity_np)(thread, setsize, mask);
	enum cpus_who who = cpus_who_thread(thread);

	return cpus_set(who, who == CPUS_MAIN ? getpid() : 0, thread, setsize, mask,
	                cpus_real_pthread_set);
}

#endif /* FP_HAVE_AFFINITY */
