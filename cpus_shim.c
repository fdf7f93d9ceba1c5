/*
 * cpus_shim.c: report the CPU count an operator chose (FASTPATH_CPUS=N).
 *
 * A program that sizes its thread or process pool by the CPU count (find_elf
 * by `getconf NPROCESSORS_ONLN`) may, on a 256-thread machine, spend its life
 * stopping threads to fork.  Capping what a program believes is the whole
 * mitigation, so every way libc answers "how many CPUs" must give the same N:
 *
 *   sysconf(_SC_NPROCESSORS_ONLN/_CONF)   getconf, Python, most C programs
 *   get_nprocs(), get_nprocs_conf()       glibc's sysconf does not call these
 *   sched_getaffinity(), pthread_getaffinity_np()   nproc, libuv, OpenMP
 *
 * N may exceed the real count (to study a big machine's behaviour on a small
 * one).  The affinity mask then holds the real CPUs plus made-up ones whose
 * ids lie past every possible CPU, and sched_setaffinity() drops made-up ids
 * again; a mask of only made-up ids means "wherever we may really run".  So a
 * program that pins worker i to CPU i keeps working, just unpinned.
 */
#include "fastpath.h"

#define CPUS_MAX 65536L  /* the most FASTPATH_CPUS may say */

enum { CPUS_C_QUERIES, CPUS_C_REAL, CPUS_NCOUNTERS };
static struct fp_stripe cpus_counters[FP_STRIPES];
#define cpus_count(c) fp_count(cpus_counters, CPUS_C_##c)

/* FASTPATH_CPUS: the count every question is answered with; 0 when unset,
 * and then the mitigation is off. */
static long cpus_wanted;

static bool cpus_load(fp_getenv_fn get)
{
	char why[256];
	const char *v = get("FASTPATH_CPUS");

	cpus_wanted = 0;
	if (v && fp_parse_count(v, CPUS_MAX, &cpus_wanted, why, sizeof why) < 0)
		fp_warn("FASTPATH_CPUS", v, why, "the real CPU count is reported");
	return cpus_wanted != 0;
}

/* "<n> reported (real <n>|?) to <n> queries" */
static void cpus_stats(struct fp_buf *b, const unsigned long *c)
{
	fp_buf_long(b, cpus_wanted);
	fp_buf_str(b, " reported (real ");
	if (c[CPUS_C_REAL])
		fp_buf_ulong(b, c[CPUS_C_REAL]);
	else
		fp_buf_str(b, "?");
	fp_buf_str(b, ") to ");
	fp_buf_ulong(b, c[CPUS_C_QUERIES]);
	fp_buf_str(b, " queries");
}

/* ------------------------------------------------------------------------
 * Survey (FASTPATH_SURVEY): what a cap would change.  Every CPU-count
 * query, by entry point, with the largest answer given; the threads the
 * program made, and the most alive at once; each fork's time against the
 * threads alive when it began, as a histogram by powers of two (the
 * find_elf pathology: fork cost that grows with live threads).
 * ---------------------------------------------------------------------- */
#define CPUS_Q(X) X(sysconf) X(get_nprocs) X(get_nprocs_conf) X(sched_getaffinity) \
	X(pthread_getaffinity_np) X(files)
#define CPUS_T(X) X(1) X(2) X(4) X(8) X(16) X(32) X(64) X(128) X(256)
enum {
#define CPUS_X(e) CPUS_S_Q_##e, CPUS_S_A_##e,
	CPUS_Q(CPUS_X)
#undef CPUS_X
	CPUS_S_THREADS, CPUS_S_THREADS_MAX, CPUS_S_FORKS, CPUS_S_FORK_NS,
#define CPUS_X(t) CPUS_S_F##t, CPUS_S_F##t##_NS,
	CPUS_T(CPUS_X)
#undef CPUS_X
	CPUS_NSURVEY
};
static const char *const cpus_sv_keys[CPUS_NSURVEY] = {
#define CPUS_X(e) "cpus.q_" #e, "cpus.a_" #e,
	CPUS_Q(CPUS_X)
#undef CPUS_X
	"cpus.threads", "cpus.threads_max", "cpus.forks", "cpus.fork_ns",
#define CPUS_X(t) "cpus.fork_t" #t, "cpus.fork_t" #t "_ns",
	CPUS_T(CPUS_X)
#undef CPUS_X
};
static _Atomic unsigned long cpus_sv_c[CPUS_NSURVEY];
static const struct fp_survey cpus_sv = { cpus_sv_c, cpus_sv_keys, CPUS_NSURVEY };
/* Threads alive now: the main thread, and those made since start-up
 * through pthread_create (others, made by raw clone, are not seen). */
static _Atomic unsigned long cpus_alive = 1;

/* entry: CPUS_S_Q_<name>; answer: the count the program was given. */
static void cpus_sv_query(unsigned entry, long answer)
{
	fp_sv_add(&cpus_sv, entry, 1);
	if (answer > 0)
		fp_sv_max(&cpus_sv, entry + 1, (unsigned long)answer);
}

static void cpus_sv_fork(uint64_t ns, unsigned long live)
{
	unsigned b = 0;

	while (b < 8 && live >= (2ul << b))
		b++;
	fp_sv_add(&cpus_sv, CPUS_S_FORKS, 1);
	fp_sv_add(&cpus_sv, CPUS_S_FORK_NS, ns);
	fp_sv_add(&cpus_sv, CPUS_S_F1 + 2 * b, 1);
	fp_sv_add(&cpus_sv, CPUS_S_F1_NS + 2 * b, ns);
	fp_survey_tick(fp_now_ns());
}

static void cpus_sv_child(void)
{
	/* The forking thread is the child's only one. */
	atomic_store(&cpus_alive, 1);
	atomic_store(&cpus_sv_c[CPUS_S_THREADS_MAX], 1);
}

static void cpus_thread_gone(void *unused);
static pthread_key_t cpus_gone_key;
static bool cpus_have_key;

static void cpus_sv_init(void)
{
	atomic_store(&cpus_sv_c[CPUS_S_THREADS_MAX], 1);
	if (fp_cfg.survey)
		cpus_have_key = pthread_key_create(&cpus_gone_key, cpus_thread_gone) == 0;
}

FP_REAL_OWN(pid_t, fork, (void), FP_NR_FAIL(-1));
FP_REAL_OWN(int, pthread_create,
            (pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg),
            FP_NR_RET(((void)t, (void)a, (void)fn, (void)arg, ENOSYS)));
static const struct fp_sym cpus_syms[] = { FP_SYM(fork), FP_SYM(pthread_create) };

FP_MITIGATION(cpus, .load = cpus_load, .stats = cpus_stats, .counters = cpus_counters,
              .ncounters = CPUS_NCOUNTERS, .gauges = 1u << CPUS_C_REAL, .survey = &cpus_sv,
              .survey_keeps = true, .init = cpus_sv_init, .syms = cpus_syms,
              .nsyms = sizeof cpus_syms / sizeof cpus_syms[0], .child = cpus_sv_child);

/* fork: the time the parent waited, against the threads alive. */
FP_EXPORT pid_t fork(void)
{
	unsigned long live;
	uint64_t t0;
	pid_t pid;

	if (fp_likely(!fp_surveying()))
		return FP_OWN(fork)();
	live = atomic_load(&cpus_alive);
	t0 = fp_now_ns();
	pid = FP_OWN(fork)();
	if (pid > 0) {
		int saved = errno;

		cpus_sv_fork(fp_now_ns() - t0, live);
		errno = saved;
	}
	return pid;
}

struct cpus_start {
	void *(*fn)(void *);
	void *arg;
};

/* A thread is counted out by a key's destructor (cpus_sv_init makes the
 * key), however it ends: return, pthread_exit, cancellation. */
static void cpus_thread_gone(void *unused)
{
	(void)unused;
	atomic_fetch_sub(&cpus_alive, 1);
}

static void *cpus_thread(void *p)
{
	struct cpus_start s = *(struct cpus_start *)p;

	free(p);
	(void)pthread_setspecific(cpus_gone_key, &cpus_alive);
	return s.fn(s.arg);
}

FP_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                             void *arg)
{
	struct cpus_start *s;
	int rc;

	if (fp_likely(!fp_surveying()) || !cpus_have_key || !(s = malloc(sizeof *s)))
		return FP_OWN(pthread_create)(t, a, fn, arg);
	s->fn = fn;
	s->arg = arg;
	fp_sv_max(&cpus_sv, CPUS_S_THREADS_MAX, atomic_fetch_add(&cpus_alive, 1) + 1);
	rc = FP_OWN(pthread_create)(t, a, cpus_thread, s);
	if (rc != 0) {
		atomic_fetch_sub(&cpus_alive, 1);
		free(s);
	} else {
		fp_sv_add(&cpus_sv, CPUS_S_THREADS, 1);
	}
	return rc;
}

/* The process's real view, learnt once at first use (not at load time: a
 * program that never asks pays nothing). */
static struct {
	_Atomic int state; /* FP_INIT_NONE / RUNNING / DONE */
	long online;       /* real sysconf(_SC_NPROCESSORS_ONLN) */
	long possible;     /* real sysconf(_SC_NPROCESSORS_CONF): ids below are real */
#ifdef FP_HAVE_AFFINITY
	cpu_set_t allowed; /* the affinity mask at first use */
	bool have_allowed;
#endif
} cpus_real;

static void cpus_learn_real(void)
{
	int expect = FP_INIT_NONE;

	if (fp_likely(atomic_load_explicit(&cpus_real.state, memory_order_acquire) == FP_INIT_DONE))
		return;
	if (!atomic_compare_exchange_strong(&cpus_real.state, &expect, FP_INIT_RUNNING)) {
		/* Another thread is asking the same libc questions; they do
		 * not call back into us, so waiting is bounded. */
		while (atomic_load_explicit(&cpus_real.state, memory_order_acquire) != FP_INIT_DONE)
			sched_yield();
		return;
	}
	cpus_real.online = fp_real.r_sysconf.f(_SC_NPROCESSORS_ONLN);
	cpus_real.possible = fp_real.r_sysconf.f(_SC_NPROCESSORS_CONF);
	if (cpus_real.possible < cpus_real.online)
		cpus_real.possible = cpus_real.online;
#ifdef FP_HAVE_AFFINITY
	cpus_real.have_allowed = fp_real.r_sched_getaffinity.f(0, sizeof cpus_real.allowed,
	                                                       &cpus_real.allowed) == 0;
#endif
	if (cpus_real.online > 0)
		fp_gauge_set(cpus_counters, CPUS_C_REAL, (unsigned long)cpus_real.online);
	atomic_store_explicit(&cpus_real.state, FP_INIT_DONE, memory_order_release);
}

/* One answer, counted; the caller has checked that the feature is on. */
static long cpus_answer(const char *via)
{
	cpus_learn_real();
	cpus_count(QUERIES);
	if (fp_unlikely(fp_cfg.debug))
		fp_debug("cpus", via, "answered from FASTPATH_CPUS");
	return cpus_wanted;
}

FP_EXPORT long sysconf(int name)
{
	long r;

	if (name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF)
		return FP_REAL(sysconf)(name);
	r = fp_enabled(FP_BIT(cpus)) ? cpus_answer("sysconf") : FP_REAL(sysconf)(name);
	if (fp_unlikely(fp_surveying()))
		cpus_sv_query(CPUS_S_Q_sysconf, r);
	return r;
}

#ifdef FP_HAVE_GET_NPROCS
/* get_nprocs and get_nprocs_conf, written once. */
#define CPUS_WRAP_NPROCS(name)                                               \
	FP_EXPORT int name(void)                                             \
	{                                                                    \
		int r_ = fp_enabled(FP_BIT(cpus)) ? (int)cpus_answer(#name)  \
		                                  : FP_REAL(name)();         \
		if (fp_unlikely(fp_surveying()))                             \
			cpus_sv_query(CPUS_S_Q_##name, r_);                  \
		return r_;                                                   \
	}

CPUS_WRAP_NPROCS(get_nprocs)
CPUS_WRAP_NPROCS(get_nprocs_conf)
#endif

#ifdef FP_HAVE_AFFINITY
/*
 * Rewrites a mask the kernel just filled (setsize bytes) so that it holds
 * exactly `want` CPUs: the first `want` real ones when capping, or all the
 * real ones plus made-up ids from `first_fake` on when inflating.  Returns
 * false when the caller's mask is too small to hold the made-up ids, which
 * is what the kernel says (EINVAL) on a machine that really is that big.
 */
static bool cpus_rewrite_mask(cpu_set_t *mask, size_t setsize, long want, long first_fake)
{
	size_t bits = setsize * 8, i;
	long have = 0;

	for (i = 0; i < bits; i++) {
		if (!CPU_ISSET_S(i, setsize, mask))
			continue;
		if (have < want)
			have++;
		else
			CPU_CLR_S(i, setsize, mask);
	}
	if (have == want)
		return true;
	if (first_fake < 0 || (size_t)(first_fake + (want - have)) > bits)
		return false;
	for (i = (size_t)first_fake; have < want; i++, have++)
		CPU_SET_S(i, setsize, mask);
	return true;
}

/* Is this affinity call about us?  Other processes' masks are theirs. */
static bool cpus_is_self(pid_t pid)
{
	return pid == 0 || pid == getpid();
}

static int cpus_fix_mask(int rc, size_t setsize, cpu_set_t *mask, const char *via)
{
	if (rc != 0)
		return rc;
	cpus_answer(via);
	if (!cpus_rewrite_mask(mask, setsize, cpus_wanted, cpus_real.possible)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

FP_EXPORT int sched_getaffinity(pid_t pid, size_t setsize, cpu_set_t *mask)
{
	int rc;

	/* The real call first: it decides EFAULT, ESRCH and a too-small set. */
	rc = FP_REAL(sched_getaffinity)(pid, setsize, mask);
	if (fp_enabled(FP_BIT(cpus)) && cpus_is_self(pid))
		rc = cpus_fix_mask(rc, setsize, mask, "sched_getaffinity");
	if (fp_unlikely(fp_surveying()) && cpus_is_self(pid))
		cpus_sv_query(CPUS_S_Q_sched_getaffinity, rc == 0 ? CPU_COUNT_S(setsize, mask) : 0);
	return rc;
}

FP_EXPORT int pthread_getaffinity_np(pthread_t thread, size_t setsize, cpu_set_t *mask)
{
	int rc;

	rc = FP_REAL(pthread_getaffinity_np)(thread, setsize, mask);
	/* pthread functions report errors by return value, not errno. */
	if (rc == 0 && fp_enabled(FP_BIT(cpus)))
		rc = cpus_fix_mask(0, setsize, mask, "pthread_getaffinity_np") ? EINVAL : 0;
	if (fp_unlikely(fp_surveying()))
		cpus_sv_query(CPUS_S_Q_pthread_getaffinity_np,
		              rc == 0 ? CPU_COUNT_S(setsize, mask) : 0);
	return rc;
}

/*
 * Drops made-up ids from a mask the program built from our answers.  Writes
 * the result to `out` (outsize bytes, zeroed) and returns it, updating
 * *setsize, or returns the caller's mask untouched when nothing is made up.
 */
static const cpu_set_t *cpus_real_mask(const cpu_set_t *mask, size_t *setsize, cpu_set_t *out,
                                       size_t outsize)
{
	size_t bits = *setsize * 8, i;
	bool fake = false, any_real = false;

	for (i = 0; i < bits; i++) {
		if (!CPU_ISSET_S(i, *setsize, mask))
			continue;
		if ((long)i >= cpus_real.possible)
			fake = true;
		else
			any_real = true;
	}
	if (!fake || *setsize > outsize)
		return mask;
	if (!any_real) {
		/* The program's set may be smaller than ours: pass ours. */
		if (!cpus_real.have_allowed || sizeof cpus_real.allowed > outsize)
			return mask;
		memcpy(out, &cpus_real.allowed, sizeof cpus_real.allowed);
		if (*setsize < sizeof cpus_real.allowed)
			*setsize = sizeof cpus_real.allowed;
		return out;
	}
	memcpy(out, mask, *setsize);
	for (i = (size_t)cpus_real.possible; i < bits; i++)
		CPU_CLR_S(i, *setsize, out);
	return out;
}

/* Large enough for any mask a program could build from a count <= 65536. */
union cpus_mask_buf {
	cpu_set_t set;
	char bytes[CPUS_MAX / 8 + sizeof(long)];
};

static const cpu_set_t *cpus_for_set(const cpu_set_t *mask, size_t *setsize,
                                     union cpus_mask_buf *buf)
{
	if (!fp_enabled(FP_BIT(cpus)) || !mask)
		return mask;
	cpus_learn_real();
	/* Capping hands out only real ids: nothing to translate. */
	if (cpus_wanted <= cpus_real.online)
		return mask;
	memset(buf, 0, sizeof *buf);
	return cpus_real_mask(mask, setsize, &buf->set, sizeof *buf);
}

FP_EXPORT int sched_setaffinity(pid_t pid, size_t setsize, const cpu_set_t *mask)
{
	union cpus_mask_buf buf;

	mask = cpus_for_set(mask, &setsize, &buf);
	return FP_REAL(sched_setaffinity)(pid, setsize, mask);
}

FP_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t setsize, const cpu_set_t *mask)
{
	union cpus_mask_buf buf;

	mask = cpus_for_set(mask, &setsize, &buf);
	return FP_REAL(pthread_setaffinity_np)(thread, setsize, mask);
}
#endif /* FP_HAVE_AFFINITY */
