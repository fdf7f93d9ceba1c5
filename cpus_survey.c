/* SPDX-License-Identifier: MIT */
/*
 * cpus_survey.c: the cpus mitigation's survey (FASTPATH_SURVEY).  What a CPU
 * cap would change, measured without one (or with the operator's): every
 * CPU-count query by entry point with the largest answer given
 * (cpus_shim.c, cpus_affinity.c and cpus_files_shim.c call cpus_sv_query);
 * the threads made through pthread_create and the most alive at once; each
 * fork's time against the threads alive when it began.
 */
#include "fastpath.h"
#include "cpus.h"

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
const struct fp_survey cpus_sv = { cpus_sv_c, cpus_sv_keys, CPUS_NSURVEY, NULL };
/* Threads alive now: the main thread, and those made since start-up
 * through pthread_create (others, made by raw clone, are not seen). */
static _Atomic unsigned long cpus_alive = 1;

/* entry: CPUS_S_Q_<name>; answer: the count the program was given. */
void cpus_sv_query(unsigned entry, long answer)
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

FP_FORK_TEXT void cpus_sv_child(void)
{
	/* The forking thread is the child's only one.  Not surveyed, no
	 * thread was counted (pthread_create). */
	if (!fp_cfg.survey)
		return;
	atomic_store(&cpus_alive, 1);
	atomic_store(&cpus_sv_c[CPUS_S_THREADS_MAX], 1);
}

static void cpus_thread_gone(void *unused);
static pthread_key_t cpus_gone_key;
static bool cpus_have_key;

FP_STARTUP_TEXT void cpus_sv_init(void)
{
	/* The survey's counters are read by records alone: a process not
	 * surveyed leaves their page untouched (issue 39). */
	if (!fp_cfg.survey)
		return;
	atomic_store(&cpus_sv_c[CPUS_S_THREADS_MAX], 1);
	cpus_have_key = pthread_key_create(&cpus_gone_key, cpus_thread_gone) == 0;
}

/* fork: the time the parent waited, against the threads alive. */
FP_EXPORT pid_t fork(void)
{
	unsigned long live;
	uint64_t t0;
	pid_t pid;

	if (fp_likely(!fp_surveying()))
		return CPUS_REAL(fork)();
	live = atomic_load(&cpus_alive);
	t0 = fp_now_ns();
	pid = CPUS_REAL(fork)();
	if (pid > 0) {
		int saved = errno;

		cpus_sv_fork(fp_now_ns() - t0, live);
		errno = saved;
	}
	return pid;
}
FP_ALIAS(__fork, fork);

/* Every thread made through pthread_create starts here, surveyed or not:
 * it takes its stripe of the counters first (counters.c), while no signal
 * handler can be running on it. */
struct cpus_start {
	void *(*fn)(void *);
	void *arg;
	bool sv;  /* counted in cpus_alive */
#ifdef FP_HAVE_ATTR_AFFINITY
	bool pinned;            /* the attribute's virtual mask, for the thread */
	struct cpus_vmask v;
#endif
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

#ifdef FP_HAVE_ATTR_AFFINITY
	/* The mask the attribute pinned it to, as it was asked: what the
	 * thread reads back (cpus_recall), as a thread that set it would. */
	if (s.pinned)
		fp_cpus_vthread = ((struct cpus_start *)p)->v;
#endif
	free(p);
	fp_thread_begin();
	if (s.sv)
		(void)pthread_setspecific(cpus_gone_key, &cpus_alive);
	return s.fn(s.arg);
}

FP_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                             void *arg)
{
	struct cpus_start *s;
	bool sv;
	int rc;

	/* Before the thread can run: no one-thread path from now on. */
	fp_threads_made();
	fp_thread_key_make();
	if (!(s = malloc(sizeof *s)))
		return CPUS_REAL(pthread_create)(t, a, fn, arg);
	s->fn = fn;
	s->arg = arg;
#ifdef FP_HAVE_ATTR_AFFINITY
	/* The count first: a set of the creator by another thread before
	 * its record is copied leaves the copy stale (a cold review: a
	 * handler's set between the copy and its count read {3} for {1}). */
	unsigned long gen = cpus_gen_now();

	s->pinned = fp_cpus_attr_vmask(a, &s->v);
	if (fp_unlikely(!s->pinned) && fp_enabled(FP_BIT(cpus)))
		cpus_handed_settle(); /* the creator's record, if handed */
	/* Else the thread starts on its creator's real mask, as the kernel
	 * copies it: and with the virtual mask the creator set, so that its
	 * sched_getcpu answers from the same ids its mask reads back
	 * (pinned to 3 of 4 on two CPUs: 3, not 1). */
	if (!s->pinned && cpus_my_vmask(&s->v) && !fp_cpus_attr_has_mask(a)) {
		s->v.last_real = s->v.last_virt = -1;
		s->pinned = true;
	}
	s->v.gen = gen;
#endif
	s->sv = sv = fp_surveying() && cpus_have_key;
	if (sv)
		fp_sv_max(&cpus_sv, CPUS_S_THREADS_MAX, atomic_fetch_add(&cpus_alive, 1) + 1);
	rc = CPUS_REAL(pthread_create)(t, a, cpus_thread, s);
	/* s is the thread's from here on (it may be freed already). */
	if (rc != 0) {
		if (sv)
			atomic_fetch_sub(&cpus_alive, 1);
		free(s);
	} else if (sv) {
		fp_sv_add(&cpus_sv, CPUS_S_THREADS, 1);
	}
	return rc;
}
