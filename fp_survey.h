/* SPDX-License-Identifier: MIT */
/*
 * fp_survey.h: survey mode's per-process records (survey.c).
 */
#ifndef FP_SURVEY_H
#define FP_SURVEY_H

#include "fp_thread.h"

/* ------------------------------------------------------------------------
 * Survey mode (FASTPATH_SURVEY=DIR, see fastpath(7)): every mitigation is
 * off (but one that says survey_keeps), each call a mitigation would have
 * answered goes to the real function, timed, and is counted in its
 * survey set; each process writes one record to DIR at exit, and again
 * about every 60 s (FP_SURVEY_EVERY_TICKS) while it runs.
 * ---------------------------------------------------------------------- */
struct fp_survey {
	_Atomic unsigned long *c;   /* [n], plain atomics: exact, not striped */
	const char *const *keys;    /* [n] "<row>.<key>", as the record says */
	unsigned n;                 /* all zeroed in a fork child */
	/* Optional: called by the record writer with the record's own
	 * descriptor just before the counters are written, to time what the
	 * mitigation would do instead on this machine.  Async-signal-safe. */
	void (*calibrate)(int fd);
};
/* 56 ticks of 2^30 ns: 60.1 s. */
#define FP_SURVEY_EVERY_TICKS 56ul

/* CLOCK_MONOTONIC in nanoseconds (vDSO; async-signal-safe).  It can fail
 * where the vDSO falls back to the system call and a seccomp filter
 * refuses it (clock_gettime64 under an old container profile): then 0,
 * and the errno of the call being timed kept. */
static inline uint64_t fp_now_ns(void)
{
	struct timespec ts;
	int *ep = fp_errno(), e = *ep;

	if (fp_unlikely(clock_gettime(CLOCK_MONOTONIC, &ts) != 0)) {
		*ep = e;
		return 0;
	}
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
/* Unlocked while the process has one thread, as fp_count: a surveyed
 * cycle adds six times, a locked add each was a tenth of its overhead. */
static inline void fp_sv_add(const struct fp_survey *s, unsigned k, unsigned long v)
{
	if (fp_one_thread())
		fp_local_add(&s->c[k], v);
	else
		atomic_fetch_add_explicit(&s->c[k], v, memory_order_relaxed);
}
static inline void fp_sv_max(const struct fp_survey *s, unsigned k, unsigned long v)
{
	unsigned long old = atomic_load_explicit(&s->c[k], memory_order_relaxed);

	while (old < v && !atomic_compare_exchange_weak(&s->c[k], &old, v))
		;
}
/* After a surveyed call: rewrites the record if the last one is older
 * than FP_SURVEY_EVERY_TICKS (a long-running service). */
void fp_survey_tick(uint64_t now) FP_HIDDEN;
/* Children for the report's process count (fastpath.c): a spawn (the
 * parent counts it); a vfork child's exec (+1 before, -1 if it failed),
 * counted in the parent's memory, which the child shares. */
void fp_sv_spawned(void) FP_HIDDEN;
void fp_sv_exec(int step) FP_HIDDEN;

/* survey.c's part of initialisation, of a fork child and of the exit;
 * whether this process (pid) owns the counters it holds, not a vfork
 * parent's. */
void fp_survey_start(void) FP_HIDDEN;
void fp_survey_child(void) FP_HIDDEN;
void fp_survey_final(void) FP_HIDDEN;
/* Around a seccomp filter or a Landlock ruleset (roots.c): before it,
 * the record written as at exit (true where this process is surveyed);
 * after it took effect, the survey over in this image and its fork
 * children, their calls passed through: under it, a call of ours to
 * write a record or to time a stat may be refused or kill the program
 * (a cold review: SIGSYS at exit, where natively the program exited 0).
 * A call that failed (a probe: a NULL filter) ends nothing. */
bool fp_survey_sandboxing(void) FP_HIDDEN;
void fp_survey_sandboxed(void) FP_HIDDEN;
bool fp_counters_ours(long pid) FP_HIDDEN;

#endif /* FP_SURVEY_H */
