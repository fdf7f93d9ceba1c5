/* SPDX-License-Identifier: MIT */
/*
 * fastpath.c: the core every shim plugs into.  Binding of the real libc
 * functions, counters and the exit summary (the settings they read are
 * settings.c's).  The only wrappers
 * here are _exit and _Exit, so that the summary is written by processes
 * that never call exit() (dash, forked children).
 */
#include "fastpath.h"

#include <dlfcn.h>
#ifdef FP_LINUX
#  include <link.h>
#endif
#include <sys/resource.h>

/* Which version a deployed object is (strings fastpath.so): the Makefile's. */
#ifdef FASTPATH_VERSION
__attribute__((used)) static const char fp_version[] = "fastpath " FASTPATH_VERSION;
#endif

/* One copy of fastpath per process: every copy exports this marker, so the
 * first in the global lookup order is found by name (fp_other_copy), and
 * interpose finds the name in an object's dynamic strings without loading
 * it.  A function: ASan adds a symbol of its own for each exported variable. */
FP_EXPORT void fastpath_object_marker(void)
{
}
/* Our own copy's address: a reference to the exported name from inside the
 * object goes through the GOT, which a first copy's definition interposes. */
extern void fp_object_marker_here(void)
	__attribute__((alias("fastpath_object_marker"), visibility("hidden")));

static char fp_stats_path[PATH_MAX], fp_survey_dir[PATH_MAX];
/* Initialised, so in .data: the page its relocations write anyway. */
struct fp_settings fp_cfg = { .stats_path = fp_stats_path, .survey_dir = fp_survey_dir };
_Atomic int fp_init_state FP_STARTUP_DATA;


/* Set in the thread that runs initialisation, before it claims it and
 * until it is done, so that a call re-entering us in that thread (from
 * dlsym, or from a signal handler, however early it lands) falls back
 * instead of waiting for itself.  Thread-local in the static TLS block:
 * readable in a handler. */
static FP_TLS bool fp_init_here;

/*
 * FASTPATH_STATS=stderr writes to the descriptor the program has as 2 when
 * it exits, and holds none of its own: a copy would be a descriptor the
 * program can see (bash takes it for its own, "exec 100>lock" finds it, a
 * reader of the pipe waits for it).  A program that closed stderr (coreutils
 * do, in an atexit handler) gets no line; FASTPATH_STATS=FILE keeps it.
 *
 * The process that has written its line: exit() then _exit() in one process
 * must not print two.  A pid, not a flag, because a vfork()ed child shares
 * our memory and must not silence its parent.
 */
static _Atomic long fp_stats_pid;

FP_STARTUP_TEXT static char *fp_no_env(const char *name)
{
	(void)name;
	return NULL;
}

/* Another copy of fastpath loaded before us (an installed one preloaded
 * beside the build tree's, say): the program's calls reach it first, and
 * it acts; this copy stands aside, as if everything were off, so that its
 * wrappers pass each call on to the next object, and writes no summary. */
FP_STARTUP_TEXT static bool fp_other_copy(void)
{
	union {
		void *p;
		void (*f)(void);
	} first;

	bool copy;

	/* The walk looked before ours: an object there that exports it is
	 * another copy, first in the search order (ours is not). */
	if (fp_walked_copy(&copy))
		return copy;
	first.p = dlsym(RTLD_DEFAULT, "fastpath_object_marker");
	return first.f && first.f != fp_object_marker_here;
}

/* The one set of fork handlers: every mitigation's, in table order
 * (prepare in reverse, as pthread_atfork runs handlers registered apart). */
FP_FORK_TEXT static void fp_atfork_prepare(void)
{
	size_t i;

	for (i = fp_nmitigations; i-- > 0;)
		if (fp_mitigations[i]->prepare)
			fp_mitigations[i]->prepare();
}

FP_FORK_TEXT static void fp_atfork_parent(void)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->parent)
			fp_mitigations[i]->parent();
}


FP_FORK_TEXT static void fp_atfork_child(void)
{
	size_t i, k, s;
	bool counting = atomic_load_explicit(&fp_counting, memory_order_relaxed);

	fp_survey_child();
	fp_counters_child();
	fp_vfork_forget();

	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_mitigation *m = fp_mitigations[i];

		/* The child's summary tells what the child did.  Not
		 * counting, no count was ever made: their pages stay
		 * unread (issue 39, a page fault each at every fork). */
		for (s = 0; m->counters && counting && s < FP_STRIPES; s++)
			for (k = 0; k < m->ncounters; k++)
				if (!(m->gauges & (1u << k)))
					atomic_store_explicit(&m->counters[s].c[k], 0,
					                      memory_order_relaxed);
		if (m->child)
			m->child();
	}
}

#ifdef FP_LINUX
bool fp_fd_held(int fd)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->holds && fp_mitigations[i]->holds(fd))
			return true;
	return false;
}
#endif

void fp_fork_self(void)
{
	fp_atfork_prepare();
	fp_atfork_child();
}

FP_STARTUP_TEXT static void fp_init_each(void)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->init)
			fp_mitigations[i]->init();
}

/* Anything we write to stderr (the summary, a warning, a debug line): only
 * to the file fd 2 was at start-up.  A program that closes 2 and opens its
 * own file there (a daemon's log, a data file) must not find our line
 * appended to it; one started with 2 closed gets none. */
static struct {
	bool known;
	dev_t dev;
	ino_t ino;
} fp_stderr_id;

/* From initialisation too, after binding: the table itself (fp_fstat asks
 * fp_ready, which may be what is running). */
bool fp_fstat_bound(int fd, struct stat *st)
{
#ifdef FP_LINUX
	if (fp_real_core.r_fstat.f)
		return fp_real_core.r_fstat.f(fd, st) == 0;
#  ifdef FP_HAVE_LFS64
	if (fp_real_core.r___fxstat.f)
		return fp_real_core.r___fxstat.f(FP_STAT_VER, fd, st) == 0;
#  endif
	return false;
#else
	return fstat(fd, st) == 0;  /* not wrapped there */
#endif
}

static bool fp_stderr_stat(struct stat *st)
{
	return fp_fstat_bound(STDERR_FILENO, st);
}

FP_STARTUP_TEXT static void fp_stderr_note(void)
{
	struct stat st;

	if (fp_stderr_stat(&st)) {
		fp_stderr_id.dev = st.st_dev;
		fp_stderr_id.ino = st.st_ino;
		fp_stderr_id.known = true;
	}
}

/* Whether the settings read found any variable set: the environment as
 * the core and every mitigation read it, through this (no system call). */
static bool fp_env_seen FP_STARTUP_DATA;

/* getenv, read from environ here: the settings are a dozen lookups at
 * every start, and the C library's getenv one more page of its text to
 * fault in (issue 39).  Secure-execution mode never gets here (fp_no_env
 * is its lookup), so this is secure_getenv's answer too. */
extern char **environ; /* POSIX: no header need declare it (illumos' do not) */

FP_STARTUP_TEXT static char **fp_environ(void)
{
	/* NULL before the C library's initialisation (fp_kernel_environ),
	 * or after the program's clearenv(), which leaves none to read. */
	if (fp_unlikely(!environ) && atomic_load_explicit(&fp_init_state, memory_order_relaxed) !=
	                                     FP_INIT_DONE)
		return fp_kernel_environ();
	return environ;
}

/* What follows pre in s, if s starts with it; else NULL. */
FP_STARTUP_TEXT static char *fp_after(char *s, const char *pre)
{
	while (*pre && *pre == *s)
		pre++, s++;
	return *pre ? NULL : s;
}

/* The value of the variable s if it is named name, else NULL. */
FP_STARTUP_TEXT static char *fp_env_named(char *s, const char *name)
{
	s = fp_after(s, name);
	return s && *s == '=' ? s + 1 : NULL;
}

FP_STARTUP_TEXT char *fp_env_get(const char *name)
{
	char **e, *v;

	for (e = fp_environ(); e && *e; e++)
		if ((v = fp_env_named(*e, name)) != NULL)
			return v;
	return NULL;
}

/* Our variables (every setting is a FASTPATH_ one), found in one pass at
 * initialisation: the settings then ask their dozen names of these, not
 * of the whole environment each (issue 39).  More than fit (all): each
 * name is asked of the environment. */
#define FP_ENV_OURS 16
static struct {
	char *v[FP_ENV_OURS];
	unsigned n;
	bool all;
} fp_env_ours FP_STARTUP_DATA;

FP_STARTUP_TEXT static void fp_env_collect(void)
{
	char **e;

	fp_env_ours.n = 0;
	fp_env_ours.all = false;
	for (e = fp_environ(); e && *e; e++) {
		if (!fp_after(*e, "FASTPATH_"))
			continue;
		if (fp_env_ours.n == FP_ENV_OURS) {
			fp_env_ours.all = true;
			return;
		}
		fp_env_ours.v[fp_env_ours.n++] = *e;
	}
}

/* The settings' getenv, after fp_env_collect. */
FP_STARTUP_TEXT static char *fp_getenv_noting(const char *name)
{
	char *v = NULL;
	unsigned i;

	if (fp_env_ours.all)
		v = fp_env_get(name);
	else
		for (i = 0; !v && i < fp_env_ours.n; i++)
			v = fp_env_named(fp_env_ours.v[i], name);
	if (v)
		fp_env_seen = true;
	return v;
}

bool fp_stderr_same(void)
{
	struct stat st;

	/* During initialisation (the settings' warnings): fd 2 is still the
	 * one the process started with. */
	if (atomic_load_explicit(&fp_init_state, memory_order_acquire) != FP_INIT_DONE)
		return true;
	return fp_stderr_id.known && fp_stderr_stat(&st) && st.st_dev == fp_stderr_id.dev &&
	       st.st_ino == fp_stderr_id.ino;
}

FP_STARTUP_TEXT static void fp_init_run(void)
{
	fp_bind_all();
	fp_counters_init();
	(void)fp_rseq_learn();  /* before any thread asks (no race to flag) */
	/* In secure-execution mode, and in a second copy, every setting is
	 * ignored and every shim stays off: no warnings, no files, no test
	 * hooks. */
	if (fp_secure_mode() || fp_other_copy()) {
		fp_load_settings(&fp_cfg, fp_no_env);
		fp_cfg.enabled = 0;
	} else {
		fp_env_collect();
		fp_load_settings(&fp_cfg, fp_getenv_noting);
		/* Only a process given a setting can print anything after its
		 * start (the summary, a debug line, the survey's warnings, a
		 * warning of a setting read lazily by a mitigation that is on):
		 * only it pays the fstat that tells fd 2 later.  Until
		 * initialisation ends, fd 2 is the one the process started with
		 * (fp_stderr_same), so the settings' own warnings need none. */
		if (fp_cfg.stats != FP_STATS_NONE || fp_cfg.debug || fp_cfg.survey ||
		    (fp_cfg.enabled && fp_env_seen))
			fp_stderr_note();
	}
	fp_bind_say();
	atomic_store_explicit(&fp_counting, FP_COUNT_ALWAYS || fp_cfg.stats != FP_STATS_NONE,
	                      memory_order_relaxed);
	fp_init_each();
	fp_survey_start();
	fp_atfork(fp_atfork_prepare, fp_atfork_parent, fp_atfork_child);
	atomic_store_explicit(&fp_init_state, FP_INIT_DONE, memory_order_release);
	fp_bind_done();
}

/*
 * Waits only for another thread: one that is initialising takes
 * microseconds and never waits for us.  This thread's own initialisation
 * is told by fp_init_here, set before the claim, so there is no moment at
 * which a signal handler here could take it for another thread's.  A fork
 * child never copies a claim no thread of it will finish: fork() is ours,
 * and its FP_REAL() waits for initialisation before it forks.
 */
FP_STARTUP_TEXT bool fp_init_slow(void)
{
	int expect = FP_INIT_NONE;

	if (fp_init_here)
		return false; /* re-entered from inside our own initialisation */
	fp_init_here = true;
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_compare_exchange_strong(&fp_init_state, &expect, FP_INIT_RUNNING)) {
		/* Initialisation may run inside a call the program made (one
		 * before our constructor): what it stats or opens on its way
		 * (localtime's /proc/self/task where /proc is not mounted)
		 * must not leave its errno behind. */
		int saved = errno;

		fp_init_run();
		errno = saved;
		fp_init_here = false;
		return true;
	}
	fp_init_here = false;
	if (expect == FP_INIT_DONE)
		return true;
	while (atomic_load_explicit(&fp_init_state, memory_order_acquire) != FP_INIT_DONE)
		FP_YIELD();
	return true;
}

/* ------------------------------------------------------------------------
 * The exit summary.
 * ---------------------------------------------------------------------- */
size_t fp_format_stats(char *buf, size_t len, long pid,
                       const unsigned long (*c)[FP_MAX_COUNTERS], unsigned enabled)
{
	struct fp_buf b = { buf, 0, len };
	size_t i;

	fp_buf_str(&b, "fastpath[");
	fp_buf_long(&b, pid);
	fp_buf_str(&b, "]: ");
	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_mitigation *m = fp_mitigations[i];

		if (i)
			fp_buf_str(&b, "; ");
		fp_buf_str(&b, m->name);
		fp_buf_str(&b, " ");
		if ((enabled & m->bit) && m->stats)
			m->stats(&b, c[i]);
		else
			fp_buf_str(&b, "off");
	}
	return b.len;
}


__attribute__((noinline)) static void fp_write_stats(void)
{
	unsigned long snap[FP_NMITIGATIONS][FP_MAX_COUNTERS] = { { 0 } };
	char line[512];
	size_t i, k, n;
	long pid;

	if (atomic_load(&fp_init_state) != FP_INIT_DONE || fp_cfg.stats == FP_STATS_NONE)
		return;
	pid = (long)getpid();
	/* A vfork child (or a _Fork one) has its parent's counters, not its
	 * own: its _exit writes no line (the parent's would count twice). */
	if (!fp_counters_ours(pid) || atomic_exchange(&fp_stats_pid, pid) == pid)
		return;
	for (i = 0; i < fp_nmitigations && i < FP_NMITIGATIONS; i++)
		for (k = 0; fp_mitigations[i]->counters && k < fp_mitigations[i]->ncounters; k++)
			snap[i][k] = fp_counter(fp_mitigations[i]->counters, (unsigned)k);
	n = fp_format_stats(line, sizeof line - 1, pid, snap, fp_cfg.enabled);
	line[n++] = '\n';
	if (fp_cfg.stats == FP_STATS_STDERR) {
		if (fp_stderr_same())
			(void)fp_own_write(STDERR_FILENO, line, n);
	}
	else
		fp_of_stats_write(fp_cfg.stats_path, line, n);
}

/* What every process runs at its exit, on the start-up pages: the common
 * case (no summary line) is decided before the writer's own page is
 * touched, one page fault less per process (issue 39). */
FP_STARTUP_TEXT static void fp_at_exit(void)
{
	if (fp_unlikely(fp_cfg.stats != FP_STATS_NONE))
		fp_write_stats();
	fp_survey_final();
}

FP_STARTUP_TEXT __attribute__((constructor)) static void fp_constructor(void)
{
	(void)fp_ready();
}

FP_STARTUP_TEXT __attribute__((destructor)) static void fp_destructor(void)
{
	fp_at_exit();
}

/* Both leave without exit(): write the line, then really leave.  On the
 * fork handlers' page: a fork child's _exit is most often the one thing
 * it runs of ours after them (issue 39: a page fault a child less). */
FP_FORK_TEXT __attribute__((noreturn)) static void fp_exit_via(void (*real)(int), int status)
{
	fp_at_exit();
	if (real)
		real(status);
	fp_raw_exit(status);
}

FP_FORK_TEXT FP_EXPORT void _exit(int status)
{
	fp_exit_via(fp_real_core.r__exit.f, status);
}

FP_FORK_TEXT FP_EXPORT void _Exit(int status)
{
	fp_exit_via(fp_real_core.r__Exit.f, status);
}
