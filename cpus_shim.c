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
 *   sched_getcpu(), getcpu()              below the real count, a CPU shown
 *
 * N may exceed the real count (to study a big machine's behaviour on a small
 * one).  The affinity mask then holds the real CPUs plus made-up ones whose
 * ids lie past every possible CPU, and sched_setaffinity() drops made-up ids
 * again; a mask of only made-up ids means "wherever we may really run".  So a
 * program that pins worker i to CPU i keeps working, just unpinned.
 *
 * What a thread sets is what it reads back (issue 12): the virtual mask of
 * the last successful set is remembered per thread (and, for the main
 * thread, per process: a thread that set nothing, or another thread asking
 * with our pid, sees it), and given back by the getters as long as the
 * real mask is still the one that set left.  A forked child inherits both,
 * as it inherits the real mask.  sysconf and get_nprocs keep answering N,
 * as a kernel keeps counting online CPUs whatever a thread's affinity.
 *
 * The CPU files (/proc/cpuinfo, /proc/stat, /sys/devices/system/cpu/...)
 * are cpus_files_shim.c and cpus_text.c; they show the machine of
 * fp_cpus_machine() (see cpus.h).
 *
 * illumos: get_nprocs/get_nprocs_conf (SUNW_1.23) call sysconf inside
 * libc, where we cannot see it, so they are wrapped too; XPG5 builds call
 * sysconf as __sysconf_xpg5; _SC_NPROCESSORS_MAX is one more question
 * with the same answer.  psrinfo and kstat readers ask the kernel through
 * kstat(3KSTAT) and p_online(2): out of reach.
 */
#include "fastpath.h"
#include "cpus.h"

enum { CPUS_C_QUERIES, CPUS_C_REAL, CPUS_NCOUNTERS };
static struct fp_stripe cpus_counters[FP_STRIPES];
#define cpus_count(c) fp_count(cpus_counters, CPUS_C_##c)

/* FASTPATH_CPUS: the count every question is answered with; 0 when unset,
 * and then the mitigation is off. */
static long cpus_wanted;
/* With FASTPATH_CPUS=quota: where cpus_wanted came from (cpus_quota.c). */
static char cpus_from[160];

static bool cpus_load(fp_getenv_fn get)
{
	char why[256];
	const char *v = get("FASTPATH_CPUS");

	cpus_wanted = 0;
	cpus_from[0] = '\0';
	if (v && strcmp(v, "quota") == 0) {
		cpus_wanted = fp_cpus_quota(get, cpus_from, sizeof cpus_from);
		if (cpus_wanted < 0) {
			fp_warn("FASTPATH_CPUS", v, cpus_from, "the real CPU count is reported");
			cpus_wanted = 0;
		}
		return cpus_wanted != 0;
	}
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
	if (cpus_from[0]) {
		fp_buf_str(b, " (from ");
		fp_buf_str(b, cpus_from);
		fp_buf_str(b, ")");
	}
}

#ifdef FP_LINUX
#define CPUS_SYMS .syms = cpus_syms, .nsyms = CPUS_NSYMS /* fopen (cpus_files_shim.c) */
#else
#define CPUS_SYMS .syms = NULL
#endif
/* The survey's part (cpus_survey.c): the cap stays in force under it. */
FP_MITIGATION(cpus, .load = cpus_load, .stats = cpus_stats, .counters = cpus_counters,
              .ncounters = CPUS_NCOUNTERS, .gauges = 1u << CPUS_C_REAL, CPUS_SYMS,
              .survey = &cpus_sv, .survey_keeps = true, .init = cpus_sv_init,
              .child = cpus_sv_child);

/* The count the cap gives (for the survey of the CPU files). */
long fp_cpus_wanted(void)
{
	return cpus_wanted;
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

/* Something learnt once, by the first caller: true when the caller is to
 * learn it (and then calls cpus_once_done), false once it is known.  The
 * learning asks libc only (it never calls back into us), so another
 * thread's wait is bounded. */
static bool cpus_once(_Atomic int *state)
{
	int expect = FP_INIT_NONE;

	if (fp_likely(atomic_load_explicit(state, memory_order_acquire) == FP_INIT_DONE))
		return false;
	if (atomic_compare_exchange_strong(state, &expect, FP_INIT_RUNNING))
		return true;
	while (atomic_load_explicit(state, memory_order_acquire) != FP_INIT_DONE)
		sched_yield();
	return false;
}

static void cpus_once_done(_Atomic int *state)
{
	atomic_store_explicit(state, FP_INIT_DONE, memory_order_release);
}

static void cpus_learn_real(void)
{
	if (!cpus_once(&cpus_real.state))
		return;
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
	cpus_once_done(&cpus_real.state);
}

/* Is this one of the CPU-count questions? */
static bool cpus_is_count(int name)
{
	if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF)
		return true;
#ifdef _SC_NPROCESSORS_MAX
	/* illumos: the most CPUs this boot may ever have; a machine with N
	 * CPUs and no hot-plug says N. */
	if (name == _SC_NPROCESSORS_MAX)
		return true;
#endif
	return false;
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

/* sysconf and __sysconf_xpg5 differ only in the real function they end in
 * (FP_REAL() has run initialisation; NULL: a libc without the twin). */
static long cpus_sysconf(long (*real)(int), int name, const char *via)
{
	long r;

	if (cpus_is_count(name) && fp_enabled(FP_BIT(cpus)))
		r = cpus_answer(via);
	else if (fp_unlikely(!real)) {
		errno = EINVAL;
		return -1;
	} else {
		r = real(name);
	}
	if (fp_unlikely(fp_surveying()) && cpus_is_count(name))
		cpus_sv_query(CPUS_S_Q_sysconf, r);
	return r;
}

FP_EXPORT long sysconf(int name)
{
	return cpus_sysconf(FP_REAL(sysconf), name, "sysconf");
}

#ifdef FP_HAVE_SYSCONF_XPG5
FP_EXPORT long __sysconf_xpg5(int name)
{
	return cpus_sysconf(FP_REAL(__sysconf_xpg5), name, "__sysconf_xpg5");
}
#endif

#ifdef FP_HAVE_GET_NPROCS
/* get_nprocs and get_nprocs_conf, written once.  The real one may be NULL:
 * an illumos libc older than SUNW_1.23 lacks them, and its sysconf then
 * says what they would. */
#define CPUS_WRAP_NPROCS(name, sc)                                           \
	FP_EXPORT int name(void)                                             \
	{                                                                    \
		int r_;                                                      \
                                                                             \
		if (fp_enabled(FP_BIT(cpus)))                                \
			r_ = (int)cpus_answer(#name);                        \
		else if (fp_unlikely(!FP_REAL(name)))                        \
			r_ = (int)FP_REAL(sysconf)(sc);                      \
		else                                                         \
			r_ = FP_REAL(name)();                                \
		if (fp_unlikely(fp_surveying()))                             \
			cpus_sv_query(CPUS_S_Q_##name, r_);                  \
		return r_;                                                   \
	}

CPUS_WRAP_NPROCS(get_nprocs, _SC_NPROCESSORS_ONLN)
CPUS_WRAP_NPROCS(get_nprocs_conf, _SC_NPROCESSORS_CONF)
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

/* The machine the cap shows: the first N CPUs we may run on (at first
 * use), then made-up ids from the first id past every possible CPU. */
void fp_cpus_machine(cpu_set_t *real, long *real_bound, long *fake_lo, long *fake_n)
{
	long have = 0;
	size_t i;

	cpus_learn_real();
	CPU_ZERO(real);
	for (i = 0; i < CPU_SETSIZE && (long)i < cpus_real.possible && have < cpus_wanted; i++) {
		if (cpus_real.have_allowed ? CPU_ISSET(i, &cpus_real.allowed)
		                           : (long)i < cpus_real.online) {
			CPU_SET(i, real);
			have++;
		}
	}
	*real_bound = cpus_real.possible;
	*fake_lo = cpus_real.possible;
	*fake_n = cpus_wanted - have;
}

/* ------------------------------------------------------------------------
 * The virtual mask a thread last set, and the main thread's for the
 * process.  Ids up to CPUS_VBITS are remembered (a made-up id past that
 * is not: the getters then fall back to the capped real mask).
 * ---------------------------------------------------------------------- */
#define CPUS_VBITS 4096
struct cpus_vmask {
	bool valid;
	uint64_t sig;                           /* cpus_sig() of the real mask left */
	cpu_set_t bits[CPUS_VBITS / CPU_SETSIZE]; /* the virtual ids */
};
/* 520 bytes of static TLS per thread: no allocation, safe in a handler. */
static FP_TLS struct cpus_vmask cpus_vthread;
/* The main thread's, for threads that set nothing and for callers naming
 * our pid.  Taken with a try-lock owned by a pid: a child forked while a
 * thread of its parent held it takes it over (that thread is not in the
 * child); a signal handler that finds it held falls back, never waits. */
static struct {
	_Atomic long owner;
	struct cpus_vmask m;
} cpus_vproc;

static bool cpus_vproc_lock(void)
{
	long me = (long)getpid(), cur = 0;

	if (atomic_compare_exchange_strong(&cpus_vproc.owner, &cur, me))
		return true;
	return cur != me && atomic_compare_exchange_strong(&cpus_vproc.owner, &cur, me);
}

static void cpus_vproc_unlock(void)
{
	atomic_store_explicit(&cpus_vproc.owner, 0, memory_order_release);
}

/* A signature of a mask's set ids, whatever the size of its buffer: the
 * remembered mask is given back only while the real one is unchanged (a
 * `taskset -p` from outside makes it stale). */
static uint64_t cpus_sig(const cpu_set_t *mask, size_t setsize)
{
	uint64_t h = 1469598103934665603ull;
	size_t i, bits = setsize * 8;

	for (i = 0; i < bits; i++) {
		if (CPU_ISSET_S(i, setsize, mask)) {
			h ^= i + 1;
			h *= 1099511628211ull;
		}
	}
	return h;
}

/* Whose mask a call with this pid is about. */
enum cpus_who {
	CPUS_OTHER,  /* another process or thread: theirs, as before */
	CPUS_THREAD, /* the calling thread (pid 0, its tid, pthread_self) */
	CPUS_MAIN,   /* our pid, asked from another thread: the main thread's */
};

static bool cpus_is_main(void)
{
	return (long)syscall(SYS_gettid) == (long)getpid();
}

static enum cpus_who cpus_who_pid(pid_t pid)
{
	if (pid == 0 || (long)pid == (long)syscall(SYS_gettid))
		return CPUS_THREAD;
	if (pid == getpid())
		return CPUS_MAIN;
	return CPUS_OTHER;
}

/* The remembered mask for `who`, copied to *out; false when there is none. */
static bool cpus_recall(enum cpus_who who, struct cpus_vmask *out)
{
	if (who == CPUS_THREAD && cpus_vthread.valid) {
		*out = cpus_vthread;
		return true;
	}
	if (!cpus_vproc_lock())
		return false;
	*out = cpus_vproc.m;
	cpus_vproc_unlock();
	return out->valid;
}

/* Writes v into the caller's mask if the real mask there is the one v was
 * set with: 0 done, 1 stale (nothing written), -1 too small (EINVAL). */
static int cpus_give_back(const struct cpus_vmask *v, size_t setsize, cpu_set_t *mask)
{
	size_t i;

	if (cpus_sig(mask, setsize) != v->sig)
		return 1;
	memset(mask, 0, setsize);
	for (i = 0; i < CPUS_VBITS; i++) {
		if (!CPU_ISSET_S(i, sizeof v->bits, v->bits))
			continue;
		if (i >= setsize * 8)
			return -1;
		CPU_SET_S(i, setsize, mask);
	}
	return 0;
}

static int cpus_fix_mask(int rc, enum cpus_who who, size_t setsize, cpu_set_t *mask,
                         const char *via)
{
	struct cpus_vmask v;
	int back = 1;

	if (rc != 0)
		return rc;
	cpus_answer(via);
	if (cpus_recall(who, &v))
		back = cpus_give_back(&v, setsize, mask);
	if (back == 1 && !cpus_rewrite_mask(mask, setsize, cpus_wanted, cpus_real.possible))
		back = -1;
	if (back < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

FP_EXPORT int sched_getaffinity(pid_t pid, size_t setsize, cpu_set_t *mask)
{
	enum cpus_who who;
	int rc;

	/* The real call first: it decides EFAULT, ESRCH and a too-small set. */
	rc = FP_REAL(sched_getaffinity)(pid, setsize, mask);
	if (fp_enabled(FP_BIT(cpus)) && (who = cpus_who_pid(pid)) != CPUS_OTHER)
		rc = cpus_fix_mask(rc, who, setsize, mask, "sched_getaffinity");
	if (fp_unlikely(fp_surveying()) && (pid == 0 || pid == getpid()))
		cpus_sv_query(CPUS_S_Q_sched_getaffinity, rc == 0 ? CPU_COUNT_S(setsize, mask) : 0);
	return rc;
}

FP_EXPORT int pthread_getaffinity_np(pthread_t thread, size_t setsize, cpu_set_t *mask)
{
	enum cpus_who who;
	int rc;

	rc = FP_REAL(pthread_getaffinity_np)(thread, setsize, mask);
	if (rc == 0 && fp_enabled(FP_BIT(cpus))) {
		/* Another thread's remembered mask is in its TLS, out of
		 * reach: its capped real mask stands in. */
		who = pthread_equal(thread, pthread_self()) ? CPUS_THREAD : CPUS_OTHER;
		/* pthread functions report errors by return value, not errno. */
		rc = cpus_fix_mask(0, who, setsize, mask, "pthread_getaffinity_np") ? EINVAL : 0;
	}
	if (fp_unlikely(fp_surveying()))
		cpus_sv_query(CPUS_S_Q_pthread_getaffinity_np,
		              rc == 0 ? CPU_COUNT_S(setsize, mask) : 0);
	return rc;
}

/* Wherever we may really run: the mask we were started with, or, if the
 * kernel would not tell us (cpus_learn_real), every CPU it has (it keeps
 * only the allowed ones). */
static void cpus_anywhere(cpu_set_t *out)
{
	if (cpus_real.have_allowed) {
		memcpy(out, &cpus_real.allowed, sizeof *out);
		return;
	}
	CPU_ZERO(out);
	for (long i = 0; i < cpus_real.possible && i < CPU_SETSIZE; i++)
		CPU_SET((size_t)i, out);
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
		if (sizeof(cpu_set_t) > outsize)
			return mask;
		memset(out, 0, outsize);
		cpus_anywhere(out);
		if (*setsize < sizeof(cpu_set_t))
			*setsize = sizeof(cpu_set_t);
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

/*
 * The virtual mask a set asks for: the caller's ids that the machine has.
 * False when it names none of them (a kernel says EINVAL; we let the real
 * call decide, as before) or one past CPUS_VBITS (not remembered).
 */
static bool cpus_virtual(const cpu_set_t *mask, size_t setsize, struct cpus_vmask *v)
{
	cpu_set_t mreal;
	long bound, flo, fn;
	size_t i, bits = setsize * 8;
	bool any = false;

	if (!mask)
		return false;
	fp_cpus_machine(&mreal, &bound, &flo, &fn);
	memset(v, 0, sizeof *v);
	for (i = 0; i < bits; i++) {
		long id = (long)i;

		if (!CPU_ISSET_S(i, setsize, mask))
			continue;
		if (id < bound ? !(i < CPU_SETSIZE && CPU_ISSET(i, &mreal))
		               : !(id >= flo && id < flo + fn))
			continue;
		if (i >= CPUS_VBITS)
			return false;
		CPU_SET_S(i, sizeof v->bits, v->bits);
		any = true;
	}
	return v->valid = any;
}

/* After a successful set: remember what was asked, signed with the real
 * mask the kernel now holds. */
static void cpus_remember(enum cpus_who who, pid_t pid, struct cpus_vmask *v)
{
	cpu_set_t now;

	if (fp_real.r_sched_getaffinity.f(who == CPUS_THREAD ? 0 : pid, sizeof now, &now) != 0)
		v->valid = false;
	v->sig = cpus_sig(&now, sizeof now);
	if (who == CPUS_THREAD)
		cpus_vthread = *v;
	if ((who == CPUS_MAIN || cpus_is_main()) && cpus_vproc_lock()) {
		cpus_vproc.m = *v;
		cpus_vproc_unlock();
	}
}

/* A set that is not remembered makes older memories wrong. */
static void cpus_forget(enum cpus_who who)
{
	if (who == CPUS_THREAD)
		cpus_vthread.valid = false;
	if ((who == CPUS_MAIN || (who == CPUS_THREAD && cpus_is_main())) && cpus_vproc_lock()) {
		cpus_vproc.m.valid = false;
		cpus_vproc_unlock();
	}
}

static int cpus_set(enum cpus_who who, pid_t pid, size_t setsize, const cpu_set_t *mask,
                    int (*real)(pid_t, pthread_t, size_t, const cpu_set_t *), pthread_t th)
{
	union cpus_mask_buf buf;
	struct cpus_vmask v;
	bool keep;
	int rc;

	if (!fp_enabled(FP_BIT(cpus)) || who == CPUS_OTHER)
		return real(pid, th, setsize, cpus_for_set(mask, &setsize, &buf));
	keep = cpus_virtual(mask, setsize, &v);
	if (keep) {
		/* The real ids asked for, or wherever we may run if none. */
		memset(&buf, 0, sizeof buf);
		memcpy(&buf.set, v.bits, sizeof buf.set);
		for (size_t i = (size_t)cpus_real.possible; i < CPU_SETSIZE; i++)
			CPU_CLR(i, &buf.set);
		if (CPU_COUNT(&buf.set) == 0)
			cpus_anywhere(&buf.set);
		rc = real(pid, th, sizeof buf.set, &buf.set);
	} else {
		rc = real(pid, th, setsize, cpus_for_set(mask, &setsize, &buf));
	}
	if (rc != 0)
		return rc;
	if (keep)
		cpus_remember(who, pid, &v);
	else
		cpus_forget(who);
	return 0;
}

static int cpus_real_sched_set(pid_t pid, pthread_t th, size_t setsize, const cpu_set_t *mask)
{
	(void)th;
	return FP_REAL(sched_setaffinity)(pid, setsize, mask);
}

static int cpus_real_pthread_set(pid_t pid, pthread_t th, size_t setsize, const cpu_set_t *mask)
{
	(void)pid;
	return FP_REAL(pthread_setaffinity_np)(th, setsize, mask);
}

FP_EXPORT int sched_setaffinity(pid_t pid, size_t setsize, const cpu_set_t *mask)
{
	return cpus_set(fp_enabled(FP_BIT(cpus)) ? cpus_who_pid(pid) : CPUS_OTHER, pid, setsize,
	                mask, cpus_real_sched_set, pthread_self());
}

FP_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t setsize, const cpu_set_t *mask)
{
	return cpus_set(pthread_equal(thread, pthread_self()) ? CPUS_THREAD : CPUS_OTHER, 0,
	                setsize, mask, cpus_real_pthread_set, thread);
}

/* ------------------------------------------------------------------------
 * sched_getcpu() and getcpu() while the cap is below the CPUs we may run
 * on: a CPU outside the machine the cap shows answers as one inside it
 * (the i-th id outside folds onto the (i mod N)-th shown), so that per-CPU
 * slots sized from the count (an array of get_nprocs() entries indexed by
 * sched_getcpu()) stay in bounds.  A cap at or above the real count shows
 * every CPU we may run on: nothing folds.
 * Learnt once, at the first such call; then a load and a table read.
 * ---------------------------------------------------------------------- */
static struct {
	_Atomic int state;  /* FP_INIT_NONE / RUNNING / DONE */
	bool fold;
	unsigned short map[CPU_SETSIZE];
} cpus_fold;

static void cpus_fold_learn(void)
{
	cpu_set_t shown;
	unsigned short ids[CPU_SETSIZE];
	long bound, lo, n;
	size_t i, nshown = 0, k = 0;

	if (!cpus_once(&cpus_fold.state))
		return;
	fp_cpus_machine(&shown, &bound, &lo, &n);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &shown))
			ids[nshown++] = (unsigned short)i;
	for (i = 0; i < CPU_SETSIZE; i++)
		cpus_fold.map[i] = (unsigned short)(CPU_ISSET(i, &shown) || !nshown ? i : ids[k++ % nshown]);
	cpus_fold.fold = n == 0 && nshown > 0;
	cpus_once_done(&cpus_fold.state);
}

static unsigned cpus_fold_id(unsigned cpu)
{
	cpus_fold_learn();
	return cpus_fold.fold && cpu < CPU_SETSIZE ? cpus_fold.map[cpu] : cpu;
}

/* A call of a few nanoseconds: without the cap, a tail call to libc's
 * (one branch, no frame of ours). */
FP_EXPORT int sched_getcpu(void)
{
	int (*real)(void) = FP_REAL(sched_getcpu);
	int cpu;

	if (fp_likely(!(fp_cfg.enabled & FP_BIT(cpus))) && real)
		return real();
	cpu = real ? real() : fp_nr_sched_getcpu();
	if ((fp_cfg.enabled & FP_BIT(cpus)) && cpu >= 0)
		cpu = (int)cpus_fold_id((unsigned)cpu);
	return cpu;
}

FP_EXPORT int getcpu(unsigned int *cpu, unsigned int *node)
{
	int (*real)(unsigned int *, unsigned int *) = FP_REAL(getcpu);
	int rc;

	if (fp_likely(!(fp_cfg.enabled & FP_BIT(cpus))) && real)
		return real(cpu, node);
	rc = real ? real(cpu, node) : fp_nr_getcpu(cpu, node);
	if ((fp_cfg.enabled & FP_BIT(cpus)) && rc == 0 && cpu)
		*cpu = cpus_fold_id(*cpu);
	return rc;
}
#endif /* FP_HAVE_AFFINITY */
