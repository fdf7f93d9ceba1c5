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

FP_MITIGATION(cpus, .load = cpus_load, .stats = cpus_stats, .counters = cpus_counters,
              .ncounters = CPUS_NCOUNTERS, .gauges = 1u << CPUS_C_REAL);

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
	if ((name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) &&
	    fp_enabled(FP_BIT(cpus)))
		return cpus_answer("sysconf");
	return FP_REAL(sysconf)(name);
}

#ifdef FP_HAVE_GET_NPROCS
/* get_nprocs and get_nprocs_conf, written once. */
#define CPUS_WRAP_NPROCS(name)                                               \
	FP_EXPORT int name(void)                                             \
	{                                                                    \
		if (fp_enabled(FP_BIT(cpus)))                                \
			return (int)cpus_answer(#name);                      \
		return FP_REAL(name)();                                      \
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
	if (!fp_enabled(FP_BIT(cpus)) || !cpus_is_self(pid))
		return rc;
	return cpus_fix_mask(rc, setsize, mask, "sched_getaffinity");
}

FP_EXPORT int pthread_getaffinity_np(pthread_t thread, size_t setsize, cpu_set_t *mask)
{
	int rc;

	rc = FP_REAL(pthread_getaffinity_np)(thread, setsize, mask);
	if (rc != 0 || !fp_enabled(FP_BIT(cpus)))
		return rc;
	/* pthread functions report errors by return value, not errno. */
	return cpus_fix_mask(0, setsize, mask, "pthread_getaffinity_np") ? EINVAL : 0;
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
