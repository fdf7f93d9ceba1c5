/* SPDX-License-Identifier: MIT */
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
 * The answers are those of one machine of N CPUs numbered 0..N-1
 * (cpus_map.c), mapped onto the CPUs the process may really use: the
 * affinity masks hold virtual ids, sched_setaffinity() pins to the real
 * CPUs they map to, sched_getcpu() answers below N.  N may exceed the real
 * count (to study a big machine's behaviour on a small one): virtual CPUs
 * then share the real ones, and a program that pins worker i to CPU i
 * keeps working.
 *
 * This file answers the counts and learns the real view; the affinity
 * masks are cpus_affinity.c's and cpus_attr.c's, where what a thread sets
 * is what it reads back (issue 12).  sysconf and get_nprocs keep answering
 * N, as a kernel keeps counting online CPUs whatever a thread's affinity.
 * The machine is handed down across exec by cpus_exec.c.
 *
 * The CPU files (/proc/cpuinfo, /proc/stat, /sys/devices/system/cpu/...)
 * are cpus_files_shim.c and cpus_text.c; they show the same machine.
 *
 * illumos: get_nprocs/get_nprocs_conf (SUNW_1.23) call sysconf inside
 * libc, where we cannot see it, so they are wrapped too; XPG5 builds call
 * sysconf as __sysconf_xpg5; _SC_NPROCESSORS_MAX is one more question
 * with the same answer.  psrinfo and kstat readers ask the kernel through
 * kstat(3KSTAT) and p_online(2): out of reach.
 */
#include "fastpath.h"
#include "cpus.h"

/* The mitigation's table of real functions (cpus.h). */
#define FP_REAL_TAG cpus
FP_REAL_DEFINE(CPUS_REAL_ALL); // NOLINT(misc-unused-parameters): a stand-in may ignore some
#undef FP_REAL_TAG

enum { CPUS_C_QUERIES, CPUS_C_REAL, CPUS_NCOUNTERS };
static struct fp_stripe cpus_counters[FP_STRIPES];
#define cpus_count(c) fp_count(cpus_counters, CPUS_C_##c)

/* FASTPATH_CPUS: the count every question is answered with; 0 when unset,
 * and then the mitigation is off. */
static long cpus_wanted FP_STARTUP_DATA;
/* With FASTPATH_CPUS=quota: where cpus_wanted came from (cpus_quota.c). */
static char cpus_from[160];
static bool cpus_from_set FP_STARTUP_DATA;

#ifdef FP_HAVE_AFFINITY
/* FASTPATH_CPUS as set (cpus.h). */
char cpus_setting[CPUS_SETTING_MAX];
/* FASTPATH_CPUS_MAP, as read at start-up (cpus.h). */
static struct cpus_handed cpus_handed;
#endif

FP_STARTUP_TEXT static bool cpus_load_count(fp_getenv_fn get)
{
	char why[256];
	const char *v = get("FASTPATH_CPUS");

	cpus_wanted = 0;
	/* Written only by a quota load: a process that never asked for one
	 * never touches its page. */
	if (cpus_from_set)
		cpus_from[0] = '\0';
	if (v && strcmp(v, "quota") == 0) {
		cpus_from_set = true;
		cpus_wanted = fp_cpus_quota(get, cpus_from, sizeof cpus_from);
		if (cpus_wanted < 0) {
			fp_warn("FASTPATH_CPUS", v, cpus_from, "the real CPU count is reported");
			cpus_wanted = 0;
		}
		return cpus_wanted != 0;
	}
	if (v && fp_parse_count(v, CPUS_MAX, &cpus_wanted, why, sizeof why) < 0)
		fp_warn("FASTPATH_CPUS", v, why, "the real CPU count is reported");
	/* No Linux kernel runs more than 8192 CPUs (NR_CPUS's limit): a count
	 * above describes no machine, and its masks and lists none a kernel
	 * could give. */
#ifdef FP_LINUX
	if (cpus_wanted > CPUS_LINUX_MAX) {
		struct fp_buf b = { why, 0, sizeof why };

		fp_buf_str(&b, "FASTPATH_CPUS=\"");
		fp_buf_str(&b, v);
		fp_buf_str(&b, "\": Linux has at most 8192 CPUs; 8192 are reported");
		fp_log_line(STDERR_FILENO, why);
		cpus_wanted = CPUS_LINUX_MAX;
	}
#endif
	return cpus_wanted != 0;
}

#ifdef FP_HAVE_AFFINITY
/* Whether a load found the cap on: a load that finds it off, with none
 * before, leaves the state below as .bss's zeros and touches none of its
 * pages (a page fault at every start: issue 39). */
static bool cpus_loaded FP_STARTUP_DATA;
#endif

#ifdef FP_HAVE_AFFINITY
/* Whether every CPU of mask is one of the machine handed down. */
static bool cpus_handed_has(const cpu_set_t *mask)
{
	cpu_set_t both;

	CPU_AND(&both, mask, &cpus_handed.real);
	return CPU_EQUAL(&both, mask);
}

/* Whether the CPUs of the machine handed down include every one the
 * process may use now. */
static bool cpus_handed_covers(void)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	if (syscall(SYS_sched_getaffinity, (long)getpid(), sizeof now, &now) < 0 &&
	    syscall(SYS_sched_getaffinity, 0L, sizeof now, &now) < 0)
		return false;
	return cpus_handed_has(&now);
}
#endif

FP_STARTUP_TEXT static bool cpus_load(fp_getenv_fn get)
{
	bool on = cpus_load_count(get);
#ifdef FP_HAVE_AFFINITY
	const char *v;
	char why[128];

	if (!on && !cpus_loaded)
		return on;
	cpus_loaded = on;
	v = get("FASTPATH_CPUS");
	cpus_setting[0] = '\0';
	if (on && strlen(v) < sizeof cpus_setting)
		memcpy(cpus_setting, v, strlen(v) + 1);
	cpus_handed.n = 0;
	if (on && (v = get(CPUS_MAP_VAR)) != NULL &&
	    fp_cpus_parse_map(v, &cpus_handed, why, sizeof why) < 0)
		fp_warn(CPUS_MAP_VAR, v, why, "the machine is learnt from the affinity mask");
	/* With quota, the count was decided where the cap was applied, from
	 * the mask there: a pin made inside the cap since is one of the
	 * machine's CPUs, not a smaller machine (a cold review: taskset -c 1
	 * made the exec'd program a machine of one).  Where the machine
	 * handed down runs on every CPU the process may use, and is no
	 * larger than its CPUs (a quota's never is: a cold review's forged
	 * 64:0-1 made 64) nor smaller than the count here. */
	if (on && cpus_handed.n && strcmp(cpus_setting, "quota") == 0 &&
	    cpus_handed.n <= CPU_COUNT(&cpus_handed.real) && cpus_handed.n >= cpus_wanted &&
	    cpus_handed_covers()) {
		cpus_wanted = cpus_handed.n;
		snprintf(cpus_from, sizeof cpus_from, "the machine handed down at exec");
	}
#endif
	return on;
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
	if (cpus_from_set && cpus_from[0]) {
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
static void cpus_child(void);
#ifdef FP_HAVE_AFFINITY
#define CPUS_PREPARE .prepare = cpus_vproc_prepare, .vforking = cpus_vforking,
#else
#define CPUS_PREPARE
#endif

/* The survey's part (cpus_survey.c): the cap stays in force under it. */
/* Its table, bound at its first use (fp_real_late), then what is learnt
 * from what was bound. */
FP_STARTUP_TEXT static void cpus_bind(fp_lookup_fn look, void *w)
{
	fp_real_bind_cpus(look, w);
#ifdef FP_LINUX
	cpus_compat_bind(look, w);
#endif
#ifdef FP_HAVE_AFFINITY
	cpus_getcpu_init();
#endif
}

FP_MITIGATION(cpus, .bind = cpus_bind, .load = cpus_load, .stats = cpus_stats, .counters = cpus_counters,
              .ncounters = CPUS_NCOUNTERS, .gauges = 1u << CPUS_C_REAL, CPUS_SYMS,
              .survey = &cpus_sv, .survey_keeps = true, .init = cpus_sv_init,
              CPUS_PREPARE .child = cpus_child);

/* The count the cap gives (for the survey of the CPU files). */
long fp_cpus_wanted(void)
{
	return cpus_wanted;
}

/* The process's real view, learnt once at first use (not at load time: a
 * program that never asks pays nothing). */
struct cpus_view {
	_Atomic int state; /* FP_INIT_NONE / RUNNING / DONE (cpus_real's only) */
	long online;       /* real sysconf(_SC_NPROCESSORS_ONLN) */
	long possible;     /* real sysconf(_SC_NPROCESSORS_CONF): ids below are real */
#ifdef FP_HAVE_AFFINITY
	cpu_set_t allowed; /* the affinity mask at first use */
	bool have_allowed;
#endif
};
static struct cpus_view cpus_real;

/*
 * The shared view, learnt once.  CPUS_DONE: it is known (this caller may
 * just have learnt it); CPUS_BUSY: another thread is learning it, and the
 * caller works the answer out for itself, into its own storage: never a
 * wait.  The learning runs with every signal blocked, so that no handler
 * runs inside it and none can siglongjmp out of it (a cold review: a jump
 * out of the first question left it learning for good, every later call
 * without the map and the mask handed down at exec); a fork's child,
 * where the learning thread is not, learns afresh (cpus_learn_atfork_child).
 */
enum cpus_once_is { CPUS_DONE, CPUS_BUSY };
static void cpus_learn_shared(void);

static enum cpus_once_is cpus_settle(void)
{
	int expect = FP_INIT_NONE;
	sigset_t old;

	if (fp_likely(atomic_load_explicit(&cpus_real.state, memory_order_acquire) == FP_INIT_DONE))
		return CPUS_DONE;
	fp_hold_all(&old);
	if (atomic_compare_exchange_strong(&cpus_real.state, &expect, FP_INIT_RUNNING)) {
		cpus_learn_shared();
		atomic_store_explicit(&cpus_real.state, FP_INIT_DONE, memory_order_release);
		expect = FP_INIT_DONE;
	}
	fp_unhold(&old);
	return expect == FP_INIT_DONE ? CPUS_DONE : CPUS_BUSY;
}

#ifdef FP_HAVE_AFFINITY
bool fp_cpus_learnt(void)
{
	return atomic_load_explicit(&cpus_real.state, memory_order_acquire) == FP_INIT_DONE;
}

const struct cpus_handed *fp_cpus_handed(void)
{
	return cpus_handed.n ? &cpus_handed : NULL;
}
#endif

#ifdef FP_HAVE_AFFINITY
FP_FORK_TEXT void cpus_learn_atfork_child(void)
{
	int running = FP_INIT_RUNNING;

	(void)atomic_compare_exchange_strong(&cpus_real.state, &running, FP_INIT_NONE);
}
#endif

#ifdef FP_HAVE_AFFINITY
/* The machine handed down at exec fits this process: its count is this
 * one's, its CPUs exist, and every CPU the process may run on is one of
 * them.  Otherwise a process out of our reach (static, or without the
 * preload) changed the mask since, or the value is forged: the machine is
 * learnt from the mask, as with none. */
static bool cpus_handed_fits(const struct cpus_view *v)
{
	if (cpus_handed.n != cpus_wanted || !v->have_allowed)
		return false;
	for (long c = v->possible > 0 ? v->possible : 1; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &cpus_handed.real))
			return false;
	return cpus_handed_has(&v->allowed);
}
#endif

/* Asks libc only (it never calls back into us).  The mask is the
 * process's (its main thread's, as /proc/self/status's Cpus_allowed),
 * never the asking thread's: a worker that pinned itself with a raw
 * system call (libnuma's way) and then asked first would otherwise make
 * its one CPU the whole machine (issue 37).  Where the main thread is
 * gone (a zombie leader may refuse), the asking thread's.
 * Where the map handed down fits, its real CPUs are the ones the machine
 * runs on, and true, with the process's own mask in *mask. */
#ifdef FP_HAVE_AFFINITY
typedef cpu_set_t cpus_learnt_mask;
#else
typedef int cpus_learnt_mask; /* no masks here (illumos): never written */
#endif
static bool cpus_learn(struct cpus_view *v, cpus_learnt_mask *mask)
{
	v->online = CPUS_REAL(sysconf)(_SC_NPROCESSORS_ONLN);
	v->possible = CPUS_REAL(sysconf)(_SC_NPROCESSORS_CONF);
	if (v->possible < v->online)
		v->possible = v->online;
#ifdef FP_HAVE_AFFINITY
	v->have_allowed = CPUS_REAL(sched_getaffinity)(getpid(), sizeof v->allowed,
	                                                &v->allowed) == 0 ||
	                  CPUS_REAL(sched_getaffinity)(0, sizeof v->allowed, &v->allowed) == 0;
	if (fp_unlikely(cpus_handed.n) && cpus_handed_fits(v)) {
		if (mask)
			*mask = v->allowed;
		v->allowed = cpus_handed.real;
		return true;
	}
#else
	(void)mask;
#endif
	return false;
}

#ifdef FP_HAVE_AFFINITY
/* The virtual mask handed down, when it runs on exactly the CPUs the
 * process may use (else a process out of our reach changed the mask:
 * the mask is read through the map, as for a thread that set none). */
static const struct cpus_vmask *cpus_handed_start(const cpu_set_t *mask)
{
	struct cpus_map m;
	cpu_set_t on;

	if (!cpus_handed.have_v)
		return NULL;
	fp_cpus_map_of(&m, &cpus_real.allowed, cpus_real.online, false);
	fp_cpus_vmask_real(&m, &cpus_handed.v, &on);
	return CPU_EQUAL(&on, mask) ? &cpus_handed.v : NULL;
}
#endif

/* The caller won the claim (cpus_settle): learns the shared view, and
 * the map's tables from it (cpus_map.c). */
static void cpus_learn_shared(void)
{
#ifdef FP_HAVE_AFFINITY
	const struct cpus_vmask *start = NULL;
	cpu_set_t mask;

	if (cpus_learn(&cpus_real, &mask))
		start = cpus_handed_start(&mask);
#else
	(void)cpus_learn(&cpus_real, NULL);
#endif
	if (cpus_real.online > 0)
		fp_gauge_set(cpus_counters, CPUS_C_REAL, (unsigned long)cpus_real.online);
#ifdef FP_HAVE_AFFINITY
	fp_cpus_map_build(cpus_real.have_allowed ? &cpus_real.allowed : NULL, cpus_real.online);
	if (start)
		cpus_vproc_handed(start, &mask);
#endif
}

#ifdef FP_HAVE_AFFINITY
/* The real view: the shared one, or, while another caller is learning it,
 * one learnt afresh into *mine. */
static const struct cpus_view *cpus_view(struct cpus_view *mine)
{
	if (cpus_settle() == CPUS_DONE)
		return &cpus_real;
	(void)cpus_learn(mine, NULL);
	return mine;
}

void cpus_handed_settle(void)
{
	if (fp_unlikely(cpus_handed.have_v))
		(void)cpus_settle();
}

void fp_cpus_map(struct cpus_map *m)
{
	struct cpus_view mine;
	const struct cpus_view *v = cpus_view(&mine);

	fp_cpus_map_of(m, v->have_allowed ? &v->allowed : NULL, v->online, v == &cpus_real);
}
#endif

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
long cpus_answer(const char *via)
{
	/* Only the summary's "real" figure needs the view: a caller that
	 * finds it being learnt leaves that to whoever is learning it. */
	(void)cpus_settle();
	cpus_count(QUERIES);
	if (fp_unlikely(fp_cfg.debug))
		fp_debug("cpus", via, "answered from FASTPATH_CPUS");
	return cpus_wanted;
}

/* sysconf and __sysconf_xpg5 differ only in the real function they end in
 * (CPUS_REAL() has run initialisation; NULL: a libc without the twin). */
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
	return cpus_sysconf(CPUS_REAL(sysconf), name, "sysconf");
}
FP_ALIAS(__sysconf, sysconf);

#ifdef FP_HAVE_SYSCONF_XPG5
FP_EXPORT long __sysconf_xpg5(int name)
{
	return cpus_sysconf(CPUS_REAL(__sysconf_xpg5), name, "__sysconf_xpg5");
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
		else if (fp_unlikely(!CPUS_REAL(name)))                        \
			r_ = (int)CPUS_REAL(sysconf)(sc);                      \
		else                                                         \
			r_ = CPUS_REAL(name)();                                \
		if (fp_unlikely(fp_surveying()))                             \
			cpus_sv_query(CPUS_S_Q_##name, r_);                  \
		return r_;                                                   \
	}

CPUS_WRAP_NPROCS(get_nprocs, _SC_NPROCESSORS_ONLN)
CPUS_WRAP_NPROCS(get_nprocs_conf, _SC_NPROCESSORS_CONF)
#endif

/* A fork child (fastpath.c's atfork handler): the survey's counts and
 * the main thread's record. */
FP_FORK_TEXT static void cpus_child(void)
{
	cpus_sv_child();
#ifdef FP_HAVE_AFFINITY
	cpus_vproc_child();
#endif
}