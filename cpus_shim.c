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
 * What a thread sets is what it reads back (issue 12): see "Affinity
 * masks are virtual" below.  sysconf and get_nprocs keep answering N, as
 * a kernel keeps counting online CPUs whatever a thread's affinity.
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
/* FASTPATH_CPUS as set, for the exec wrappers to tell whether the new
 * image is capped as this process is (a valid one is short). */
static char cpus_setting[16];
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

/* The survey's part (cpus_survey.c): the cap stays in force under it. */
FP_MITIGATION(cpus, FP_REAL_SYMS(cpus), .load = cpus_load, .stats = cpus_stats, .counters = cpus_counters,
              .ncounters = CPUS_NCOUNTERS, .gauges = 1u << CPUS_C_REAL, CPUS_SYMS,
              .survey = &cpus_sv, .survey_keeps = true, .init = cpus_sv_init,
              .child = cpus_child);

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
 * Something learnt once.  CPUS_DONE: it is known; CPUS_MINE: the caller
 * learns it into the shared copy and then calls cpus_once_done; CPUS_BUSY:
 * someone else is learning it, and the caller works the answer out for
 * itself, into its own storage.  Never a wait: the one learning may be
 * this very thread, interrupted by the signal handler that asks now, or a
 * thread of the parent that a fork child does not have.
 */
enum cpus_once_is { CPUS_DONE, CPUS_MINE, CPUS_BUSY };

static enum cpus_once_is cpus_once(_Atomic int *state)
{
	int expect = FP_INIT_NONE;

	if (fp_likely(atomic_load_explicit(state, memory_order_acquire) == FP_INIT_DONE))
		return CPUS_DONE;
	if (atomic_compare_exchange_strong(state, &expect, FP_INIT_RUNNING))
		return CPUS_MINE;
	return expect == FP_INIT_DONE ? CPUS_DONE : CPUS_BUSY;
}

static void cpus_once_done(_Atomic int *state)
{
	atomic_store_explicit(state, FP_INIT_DONE, memory_order_release);
}

#ifdef FP_HAVE_AFFINITY
/* The machine handed down at exec fits this process: its count is this
 * one's, its CPUs exist, and every CPU the process may run on is one of
 * them.  Otherwise a process out of our reach (static, or without the
 * preload) changed the mask since, or the value is forged: the machine is
 * learnt from the mask, as with none. */
static bool cpus_handed_fits(const struct cpus_view *v)
{
	cpu_set_t both;

	if (cpus_handed.n != cpus_wanted || !v->have_allowed)
		return false;
	for (long c = v->possible > 0 ? v->possible : 1; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &cpus_handed.real))
			return false;
	CPU_AND(&both, &v->allowed, &cpus_handed.real);
	return CPU_EQUAL(&both, &v->allowed);
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
	v->online = fp_real_cpus.r_sysconf.f(_SC_NPROCESSORS_ONLN);
	v->possible = fp_real_cpus.r_sysconf.f(_SC_NPROCESSORS_CONF);
	if (v->possible < v->online)
		v->possible = v->online;
#ifdef FP_HAVE_AFFINITY
	v->have_allowed = fp_real_cpus.r_sched_getaffinity.f(getpid(), sizeof v->allowed,
	                                                &v->allowed) == 0 ||
	                  fp_real_cpus.r_sched_getaffinity.f(0, sizeof v->allowed, &v->allowed) == 0;
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
static void cpus_vproc_handed(const struct cpus_vmask *v, const cpu_set_t *mask);

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

/* The caller won cpus_once: learns the shared view, and the map's tables
 * from it (cpus_map.c), and publishes them. */
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
	fp_cpus_map_build(cpus_real.have_allowed ? &cpus_real.allowed : NULL, cpus_real.online,
	                  start);
	if (start)
		cpus_vproc_handed(start, &mask);
#endif
	cpus_once_done(&cpus_real.state);
}

#ifdef FP_HAVE_AFFINITY
/* The real view: the shared one, or, while another caller is learning it,
 * one learnt afresh into *mine. */
static const struct cpus_view *cpus_view(struct cpus_view *mine)
{
	switch (cpus_once(&cpus_real.state)) {
	case CPUS_DONE:
		return &cpus_real;
	case CPUS_MINE:
		cpus_learn_shared();
		return &cpus_real;
	case CPUS_BUSY:
		break;
	}
	(void)cpus_learn(mine, NULL);
	return mine;
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
static long cpus_answer(const char *via)
{
	/* Only the summary's "real" figure needs the view: a caller that
	 * finds it being learnt leaves that to whoever is learning it. */
	if (fp_unlikely(cpus_once(&cpus_real.state) == CPUS_MINE))
		cpus_learn_shared();
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
/* 160 bytes of static TLS per thread: no allocation, safe in a handler. */
FP_TLS struct cpus_vmask fp_cpus_vthread;
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
	/* A vfork child is another pid on its parent's memory: the holder
	 * runs on beside it, so it falls back as a signal handler does. */
	return cur != me && !fp_vfork_child() &&
	       atomic_compare_exchange_strong(&cpus_vproc.owner, &cur, me);
}

static void cpus_vproc_unlock(void)
{
	atomic_store_explicit(&cpus_vproc.owner, 0, memory_order_release);
}

/* A signature of a mask's set ids: the remembered mask is given back only
 * while the real one is unchanged (a `taskset -p` from outside makes it
 * stale). */
static uint64_t cpus_sig(const cpu_set_t *mask)
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

/* Whose mask a call with this pid is about. */
enum cpus_who {
	CPUS_OTHER,   /* another process: the kernel's, as it is */
	CPUS_THREAD,  /* the calling thread (pid 0, its tid, pthread_self) */
	CPUS_MAIN,    /* our pid, asked from another thread: the main thread's */
	CPUS_SIBLING, /* another thread of ours: its real mask, translated */
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
	/* A tid of our thread group: signal 0 reaches it (no signal sent). */
	if (pid > 0 && syscall(SYS_tgkill, (long)getpid(), (long)pid, 0L) == 0)
		return CPUS_SIBLING;
	return CPUS_OTHER;
}

/* v's ids written to the caller's mask (setsize * 8 >= N). */
static void cpus_put_vmask(const struct cpus_vmask *v, long n, size_t setsize, cpu_set_t *mask)
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
 * the one it was set with; false otherwise. */
static bool cpus_recalled(enum cpus_who who, const cpu_set_t *now, struct cpus_vmask *out)
{
	uint64_t sig = cpus_sig(now);
	bool done = false;

	if (who == CPUS_THREAD && fp_cpus_vthread.valid) {
		if (fp_cpus_vthread.sig != sig)
			return false;
		*out = fp_cpus_vthread;
		return true;
	}
	if ((who != CPUS_THREAD && who != CPUS_MAIN) || !cpus_vproc_lock())
		return false;
	if (cpus_vproc.m.valid && cpus_vproc.m.sig == sig) {
		*out = cpus_vproc.m;
		done = true;
	}
	cpus_vproc_unlock();
	return done;
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
static void cpus_vproc_handed(const struct cpus_vmask *v, const cpu_set_t *mask)
{
	if (!cpus_vproc_lock())
		return;
	if (!cpus_vproc.m.valid) {
		cpus_vproc.m = *v;
		cpus_vproc.m.last_real = cpus_vproc.m.last_virt = -1;
		cpus_vproc.m.sig = cpus_sig(mask);
	}
	cpus_vproc_unlock();
}

/* ------------------------------------------------------------------------
 * The machine handed down across exec (issue 37, defect 2).  A program
 * exec'd under the cap used to learn its machine from the mask it
 * inherited: after `taskset -c 3 prog` (N = 4 on two CPUs) that is one
 * CPU, and the pin, the machine and sched_getcpu were lost.  So every exec
 * and spawn made through us hands the new image the map (N and the real
 * CPUs under it) and the exec'ing thread's virtual mask, in
 * FASTPATH_CPUS_MAP (cpus.h); where it does not fit the mask the new
 * image has, it is ignored (cpus_handed_fits).
 * ---------------------------------------------------------------------- */
static const char cpus_map_eq[] = CPUS_MAP_VAR "=";
static const char cpus_cpus_eq[] = "FASTPATH_CPUS=";

size_t fp_cpus_exec_slots(char *const envp[])
{
	bool capped = false;
	size_t i;

	if (!envp)
		return 0;
	for (i = 0; envp[i]; i++) {
		if (i >= CPUS_MAP_SLOTS)
			return 0;
		capped |= strncmp(envp[i], cpus_cpus_eq, sizeof cpus_cpus_eq - 1) == 0;
	}
	return capped ? i + 2 : 0;
}

/* "FASTPATH_CPUS_MAP=..." of this thread into text (CPUS_MAP_TEXT
 * bytes), its virtual mask left out where it is not remembered (the new
 * image reads its mask through the map, as this thread would) or where it
 * does not fit; false when even the map does not. */
static bool cpus_exec_text(char *text)
{
	const size_t off = sizeof cpus_map_eq - 1;
	struct cpus_vmask v;
	struct cpus_map m;
	cpu_set_t now;
	bool have_v;

	memcpy(text, cpus_map_eq, off);
	fp_cpus_map(&m);
	have_v = fp_real_cpus.r_sched_getaffinity.f(0, sizeof now, &now) == 0 &&
	         cpus_recalled(CPUS_THREAD, &now, &v);
	return (have_v && fp_cpus_format_map(text + off, CPUS_MAP_TEXT - off, &m, &v)) ||
	       fp_cpus_format_map(text + off, CPUS_MAP_TEXT - off, &m, NULL);
}

char *const *fp_cpus_exec_env(char *const envp[], char **slots, size_t nslots, char *text)
{
	const size_t len = sizeof cpus_cpus_eq - 1;
	bool seen = false, same = false;
	size_t i, k = 0;

	for (i = 0; envp[i] && k + 2 < nslots; i++) {
		if (strncmp(envp[i], cpus_map_eq, sizeof cpus_map_eq - 1) == 0)
			continue; /* the one handed to us, or the program's */
		if (!seen && strncmp(envp[i], cpus_cpus_eq, len) == 0) {
			/* The first, as getenv finds it. */
			seen = true;
			same = strcmp(envp[i] + len, cpus_setting) == 0;
		}
		slots[k++] = envp[i];
	}
	/* Capped otherwise (the program set another count for it): a
	 * machine of its own, learnt from its mask. */
	if (same && cpus_exec_text(text))
		slots[k++] = text;
	slots[k] = NULL;
	return slots;
}

/* The one frame whose size the caller chooses (t_stack.sh): the copy of
 * an environment of n entries is 8 * (n + 2) bytes, 4 KiB at most, as the
 * C library's own exec builds argv copies on the stack. */
int fp_cpus_exec_with(char *const envp[], cpus_exec_fn fn, void *ctx)
{
	size_t n = fp_cpus_exec_slots(envp);

	if (!n)
		return fn(ctx, envp);
	char *slots[n], text[CPUS_MAP_TEXT];

	return fn(ctx, fp_cpus_exec_env(envp, slots, n, text));
}

/*
 * The caller's mask as the kernel reaches it: an invalid pointer is EFAULT,
 * not a fault of ours.  0 when the n bytes at p can be read (wr false), or
 * written (wr: they are zeroed, the caller writes them next); EFAULT when
 * the kernel says they cannot.  process_vm_readv/writev on our own process
 * (Linux >= 3.2, no ptrace check for ourselves) copy through the kernel;
 * where a seccomp filter refuses them (ENOSYS, EPERM) the bytes are taken
 * as good, as before: an invalid pointer then faults in the caller's
 * process, where it would have been EFAULT.  errno is kept.
 */
static int cpus_user_ok(void *p, size_t n, bool wr)
{
	char z[128] = { 0 };
	struct iovec l = { z, 0 }, r;
	int saved = errno, err = 0;
	long got;

	for (size_t off = 0; off < n && !err; off += l.iov_len) {
		l.iov_len = n - off < sizeof z ? n - off : sizeof z;
		r.iov_base = (char *)p + off;
		r.iov_len = l.iov_len;
		got = syscall(wr ? SYS_process_vm_writev : SYS_process_vm_readv, (long)getpid(), &l,
		              1ul, &r, 1ul, 0ul);
		if (got < 0 && (errno == ENOSYS || errno == EPERM))
			break;
		if (got != (long)l.iov_len)
			err = EFAULT;
	}
	errno = saved;
	return err;
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
	int err;

	fp_cpus_map(&m);
	if (setsize > INT_MAX || setsize % sizeof(long) != 0 || setsize * 8 < (size_t)m.n)
		return EINVAL;
	if ((err = real(pid, th, setsize, mask)) == 0) {
		CPU_ZERO(&now);
		memcpy(&now, mask, setsize < sizeof now ? setsize : sizeof now);
	} else if (err == EINVAL && (err = real(pid, th, sizeof now, &now)) == 0) {
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
		/* Another thread's remembered mask is in its TLS, out of
		 * reach: its real mask, translated, stands in. */
		rc = cpus_get(pthread_equal(thread, pthread_self()) ? CPUS_THREAD : CPUS_SIBLING, 0,
		              thread, setsize, mask, cpus_real_pthread_get,
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
static bool cpus_vmask_of(struct cpus_vmask *t, long n, size_t setsize, const cpu_set_t *mask)
{
	size_t i, lim = setsize * 8 < (size_t)n ? setsize * 8 : (size_t)n;
	long lo = -1, hi = -1;
	bool gap = false;

	memset(t, 0, sizeof *t);
	t->last_real = t->last_virt = -1;
	for (i = 0; i < lim; i++) {
		if (!CPU_ISSET_S(i, setsize, mask))
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
static void cpus_remember(enum cpus_who who, pid_t pid, long n, size_t setsize,
                          const cpu_set_t *mask)
{
	struct cpus_vmask *t = &fp_cpus_vthread;
	cpu_set_t now;
	bool main = who == CPUS_MAIN || (who == CPUS_THREAD && cpus_is_main());

	if (who != CPUS_THREAD && !main)
		return; /* a sibling's memory is in its TLS, out of reach */
	if (main && !cpus_vproc_lock()) {
		if (who != CPUS_THREAD)
			return;
		main = false;
	}
	if (who != CPUS_THREAD)
		t = &cpus_vproc.m;
	t->valid = cpus_vmask_of(t, n, setsize, mask) &&
	           fp_real_cpus.r_sched_getaffinity.f(who == CPUS_THREAD ? 0 : pid, sizeof now, &now) == 0;
	t->sig = t->valid ? cpus_sig(&now) : 0;
	if (main && who == CPUS_THREAD)
		cpus_vproc.m = *t;
	if (main)
		cpus_vproc_unlock();
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
	size_t len = (unsigned)setsize, vlen;
	int err;

	if (!mask)
		return real(pid, th, setsize, mask); /* the kernel's EFAULT */
	fp_cpus_map(&m);
	/* What a kernel of N CPUs reads: its own mask's bytes at most, of
	 * a length it takes as 32 bits (as this one does); an invalid
	 * pointer is EFAULT.  (A mask unmapped by another thread between the
	 * check and the read is that program's race.) */
	vlen = ((size_t)m.n + 63) / 64 * 8;
	if ((err = cpus_user_ok((void *)mask, len < vlen ? len : vlen, false)) != 0)
		return err;
	(void)fp_cpus_to_real(&m, mask, len, &want);
	if ((err = real(pid, th, sizeof want, &want)) == 0)
		cpus_remember(who, pid, m.n, setsize, mask);
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
	return cpus_set(pthread_equal(thread, pthread_self()) ? CPUS_THREAD : CPUS_SIBLING, 0,
	                thread, setsize, mask, cpus_real_pthread_set);
}

#ifdef FP_HAVE_ATTR_AFFINITY
/* ------------------------------------------------------------------------
 * Affinity in a thread attribute (issue 37, defect 3): glibc's
 * pthread_create applies it through an internal system call, out of the
 * setters' sight, so the attribute holds the real mask, translated when it
 * is set, and reads back as virtual.  The virtual mask asked is kept
 * beside it (a few slots by attribute address, signed with the real mask
 * stored, as cpus_remember signs a thread's): it is what
 * pthread_attr_getaffinity_np gives back and what the new thread reads as
 * its own (cpus_survey.c's start), also where N exceeds the real count and
 * the real mask alone is several virtual ones.  None of these calls is
 * async-signal-safe: a mutex is fine here.
 * ---------------------------------------------------------------------- */
#define CPUS_NATTR 16
static struct {
	const void *attr;
	struct cpus_vmask v;
} cpus_attrs[CPUS_NATTR];
static unsigned cpus_attr_next;
static pthread_mutex_t cpus_attr_lock = PTHREAD_MUTEX_INITIALIZER;

/* A fork child of a threaded program: another thread may have held the
 * lock at the fork, and no thread of the child will let it go; the
 * child's pthread_create with an attribute, or its
 * pthread_attr_setaffinity_np, would wait for ever (glibc's own, with
 * malloc, work in such a child).  The child has one thread: a fresh lock. */
static void cpus_attr_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	cpus_attr_lock = fresh;
}

static void cpus_attr_note(const void *attr, const struct cpus_vmask *v)
{
	unsigned i, slot;

	pthread_mutex_lock(&cpus_attr_lock);
	for (i = 0; i < CPUS_NATTR && cpus_attrs[i].attr != attr; i++)
		;
	slot = i < CPUS_NATTR ? i : cpus_attr_next++ % CPUS_NATTR;
	cpus_attrs[slot].attr = attr;
	cpus_attrs[slot].v = *v;
	pthread_mutex_unlock(&cpus_attr_lock);
}

/* The virtual mask kept for attr, when the real one it holds is still the
 * one set with it. */
static bool cpus_attr_recall(const void *attr, const cpu_set_t *real, struct cpus_vmask *out)
{
	uint64_t sig = cpus_sig(real);
	bool found = false;

	pthread_mutex_lock(&cpus_attr_lock);
	for (unsigned i = 0; i < CPUS_NATTR && !found; i++) {
		if (cpus_attrs[i].attr == attr && cpus_attrs[i].v.valid && cpus_attrs[i].v.sig == sig) {
			*out = cpus_attrs[i].v;
			found = true;
		}
	}
	pthread_mutex_unlock(&cpus_attr_lock);
	return found;
}

FP_EXPORT int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t setsize,
                                          const cpu_set_t *mask)
{
	/* No mask, or an empty size: glibc clears the attribute's.  (Its
	 * header says non-null, its code takes NULL: through a volatile, so
	 * that the test is not folded away.) */
	const cpu_set_t *volatile given = mask;
	struct cpus_map m;
	struct cpus_vmask v;
	cpu_set_t want;
	int rc;

	if (!CPUS_REAL(pthread_attr_setaffinity_np))
		return ENOSYS;
	if (!fp_enabled(FP_BIT(cpus)) || !given || setsize == 0)
		return CPUS_REAL(pthread_attr_setaffinity_np)(attr, setsize, mask);
	fp_cpus_map(&m);
	/* A mask that names none of the N stays empty: pthread_create then
	 * fails with the kernel's EINVAL, as on a machine of N CPUs. */
	(void)fp_cpus_to_real(&m, mask, setsize, &want);
	rc = CPUS_REAL(pthread_attr_setaffinity_np)(attr, sizeof want, &want);
	if (rc == 0) {
		v.valid = cpus_vmask_of(&v, m.n, setsize, mask);
		v.sig = cpus_sig(&want);
		cpus_attr_note(attr, &v);
	}
	return rc;
}

/* Whether every bit of the n bytes at p is set: glibc's answer for an
 * attribute that holds no mask. */
static bool cpus_all_ones(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

FP_EXPORT int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t setsize,
                                          cpu_set_t *mask)
{
	unsigned char *out;
	struct cpus_map m;
	struct cpus_vmask v;
	cpu_set_t now;
	size_t need;

	if (!CPUS_REAL(pthread_attr_getaffinity_np))
		return ENOSYS;
	if (!fp_enabled(FP_BIT(cpus)))
		return CPUS_REAL(pthread_attr_getaffinity_np)(attr, setsize, mask);
	CPU_ZERO(&now);
	if (CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) != 0 ||
	    cpus_all_ones(&now, sizeof now))
		return CPUS_REAL(pthread_attr_getaffinity_np)(attr, setsize, mask);
	fp_cpus_map(&m);
	/* The whole virtual mask (up to 1 KiB: CPUS_LINUX_MAX ids), off the
	 * stack; not a call a signal handler may make, so malloc is fine. */
	need = ((size_t)m.n + 63) / 64 * 8;
	if (!(out = malloc(need)))
		return ENOMEM;
	if (cpus_attr_recall(attr, &now, &v))
		cpus_put_vmask(&v, m.n, need, (cpu_set_t *)(void *)out);
	else
		fp_cpus_to_virtual(&m, &now, sizeof now, (cpu_set_t *)(void *)out, need);
	/* As glibc: EINVAL when the mask held has ids past the caller's set;
	 * else copied, the rest of the set zeroed. */
	for (size_t i = setsize; i < need; i++)
		if (out[i]) {
			free(out);
			return EINVAL;
		}
	memset(mask, 0, setsize);
	memcpy(mask, out, setsize < need ? setsize : need);
	free(out);
	return 0;
}

/* For pthread_create (cpus_survey.c): whether attr holds a mask at all
 * (else the thread starts on its creator's). */
bool fp_cpus_attr_has_mask(const pthread_attr_t *attr)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	return attr && CPUS_REAL(pthread_attr_getaffinity_np) &&
	       CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) == 0 &&
	       !cpus_all_ones(&now, sizeof now);
}

/* For pthread_create (cpus_survey.c): the virtual mask a new thread made
 * with attr starts with, when attr holds one set through us. */
bool fp_cpus_attr_vmask(const pthread_attr_t *attr, struct cpus_vmask *out)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	if (!attr || !fp_enabled(FP_BIT(cpus)) || !CPUS_REAL(pthread_attr_getaffinity_np) ||
	    CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) != 0)
		return false;
	return cpus_attr_recall(attr, &now, out);
}
#endif /* FP_HAVE_ATTR_AFFINITY */
#endif /* FP_HAVE_AFFINITY */

/* A fork child (fastpath.c's atfork handler): the survey's counts, and
 * the attribute table's lock. */
static void cpus_child(void)
{
	cpus_sv_child();
#if defined(FP_HAVE_AFFINITY) && defined(FP_HAVE_ATTR_AFFINITY)
	cpus_attr_child();
#endif
}
