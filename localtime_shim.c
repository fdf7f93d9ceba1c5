/* SPDX-License-Identifier: MIT */
/*
 * localtime_shim.c: the localtime mitigation (FASTPATH_TZ=1, interpose
 * --tz), opt-in.  With TZ unset, glibc's localtime(), mktime() (timelocal),
 * ctime() and tzset() stat /etc/localtime at every call, to notice a new
 * zone (and copy and free the zone's name): 668 ns a localtime() here,
 * against 51 ns with TZ set, when glibc reads the zone once.  So at
 * start-up, where TZ is unset, it is set to the zone /etc/localtime links
 * to (TZ=Europe/Paris); an empty TZ (UTC) and any other value are kept,
 * and with no zone name to give (a copied file) TZ stays unset.  What the
 * program sees differ (fastpath(7), LOCALTIME): getenv("TZ"), every
 * child's environment, and a change of /etc/localtime while it runs.
 * musl and illumos read the zone once already: there it does nothing.
 *
 * In survey mode the calls that would stat the zone file are counted and
 * timed, with a sample of that stat's own cost (the saving); otherwise
 * each wrapper is one branch on its way to the C library's function.
 */
#include "fastpath.h"

#undef FP_OWN_BIT
#define FP_OWN_BIT FP_BIT(localtime) /* its rows are in lt_syms */

#if defined(FP_LINUX) && defined(__GLIBC__)
#  define LT_GLIBC 1
/* 32-bit glibc >= 2.34: a program built with _TIME_BITS=64 calls these. */
#  if (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)) && !defined(_LP64)
#    define LT_TIME64 1
#  endif
#  ifdef SYS_newfstatat
#    define LT_NR_FSTATAT SYS_newfstatat
#  else
#    define LT_NR_FSTATAT SYS_fstatat64
#  endif
#endif

/* The zone file glibc reads where TZ is unset (its TZDEFAULT). */
#define LT_ZONE "/etc/localtime"

/* What initialisation did, for the summary line ("localtime N calls, TZ
 * <word>"), and the calls it served: counted only under FASTPATH_STATS. */
enum lt_state { LT_KEPT, LT_SET, LT_FAILED, LT_NATIVE, LT_UNNAMED };
static const char *const lt_words[] = { "kept", "set", "failed", "native", "unnamed" };
static enum lt_state lt_state FP_STARTUP_DATA;
enum { LT_C_CALLS, LT_NCOUNTERS };
static struct fp_stripe lt_counters[FP_STRIPES];

/* Whether a wrapper has anything to do besides the call: survey mode, or
 * counting for the summary line.  Decided once, at initialisation: the
 * one branch every call pays (after fp_ready's). */
static bool lt_watch FP_STARTUP_DATA;

/* ------------------------------------------------------------------------
 * Survey (FASTPATH_SURVEY): the calls made with TZ unset, each one a stat
 * of the zone file, and their native time; the calls made with TZ set,
 * which --tz would not change; and a sample of the stat itself (the first
 * 8 calls, then one in 1024), which --tz would save at each call.
 * ---------------------------------------------------------------------- */
enum { LT_S_CALLS, LT_S_NS, LT_S_SET, LT_S_STAT, LT_S_STAT_NS, LT_NSURVEY };
static const char *const lt_sv_keys[LT_NSURVEY] = {
	"localtime.calls", "localtime.ns", "localtime.set", "localtime.stat", "localtime.stat_ns",
};
static _Atomic unsigned long lt_sv_c[LT_NSURVEY];
static const struct fp_survey lt_sv = { lt_sv_c, lt_sv_keys, LT_NSURVEY, NULL };

#ifdef LT_GLIBC
/* Whether this call is one to time: in survey mode, made with TZ unset
 * (read as glibc reads it, from environ), so that it stats the zone file;
 * its start in *t0.  Otherwise counted: as served (the summary line), or
 * in survey mode as made with TZ set. */
static bool lt_sv_begin(uint64_t *t0)
{
	if (!fp_cfg.survey) {
		fp_count(lt_counters, LT_C_CALLS);
		return false;
	}
	if (fp_env_get("TZ")) {
		fp_sv_add(&lt_sv, LT_S_SET, 1);
		return false;
	}
	*t0 = fp_now_ns();
	return true;
}

static void lt_sv_done(uint64_t t0)
{
	uint64_t now = fp_now_ns();
	unsigned long n;

	fp_sv_add(&lt_sv, LT_S_NS, now - t0);
	fp_sv_add(&lt_sv, LT_S_CALLS, 1);
	n = atomic_load_explicit(&lt_sv_c[LT_S_CALLS], memory_order_relaxed);
	if (n <= 8 || n % 1024 == 0) {
		/* The kernel's stat structure, whatever its layout here. */
		unsigned long st[32];
		int *ep = fp_errno(), e = *ep;
		uint64_t s0 = fp_now_ns();

		(void)syscall(LT_NR_FSTATAT, AT_FDCWD, LT_ZONE, st, 0);
		now = fp_now_ns();
		*ep = e;  /* the call's errno (EOVERFLOW) is the caller's */
		fp_sv_add(&lt_sv, LT_S_STAT, 1);
		fp_sv_add(&lt_sv, LT_S_STAT_NS, now - s0);
	}
	fp_survey_tick(now);
}

/* Each wrapper: export, then (where lt_watch says) the count or the
 * timing, then the C library's function, bound at the first call (bind.c)
 * only where no dlsym is needed then: one would clear the program's
 * pending dlerror() message, state of the dynamic linker's that the
 * program owns.  The stand-in before binding: ENOSYS, as for a function
 * the C library lacks (fp_real.h). */
#define LT_CALL(ret, name, params, args, fail)                               \
	FP_REAL_OWN(ret, name, params, FP_NR_FAIL(fail));                     \
	FP_EXPORT ret name params                                             \
	{                                                                     \
		uint64_t t0;                                                  \
		ret r;                                                        \
                                                                              \
		if (fp_likely(!lt_watch) || !lt_sv_begin(&t0))                \
			return FP_OWN(name) args;                             \
		r = FP_OWN(name) args;                                        \
		lt_sv_done(t0);                                               \
		return r;                                                     \
	}

LT_CALL(struct tm *, localtime, (const time_t *t), (t), NULL) // NOLINT(misc-unused-parameters): the stand-in
LT_CALL(time_t, mktime, (struct tm *tm), (tm), (time_t)-1) // NOLINT(misc-unused-parameters): the stand-in
LT_CALL(time_t, timelocal, (struct tm *tm), (tm), (time_t)-1) // NOLINT(misc-unused-parameters): the stand-in
LT_CALL(char *, ctime, (const time_t *t), (t), NULL) // NOLINT(misc-unused-parameters): the stand-in
#ifdef LT_TIME64
LT_CALL(struct tm *, __localtime64, (const int64_t *t), (t), NULL) // NOLINT(misc-unused-parameters): the stand-in
LT_CALL(int64_t, __mktime64, (struct tm *tm), (tm), -1) // NOLINT(misc-unused-parameters): the stand-in
LT_CALL(char *, __ctime64, (const int64_t *t), (t), NULL) // NOLINT(misc-unused-parameters): the stand-in
#endif

FP_REAL_OWN(void, tzset, (void), FP_NR_VOID((void)0));
FP_EXPORT void tzset(void)
{
	uint64_t t0;

	if (fp_likely(!lt_watch) || !lt_sv_begin(&t0)) {
		FP_OWN(tzset)();
		return;
	}
	FP_OWN(tzset)();
	lt_sv_done(t0);
}

static const struct fp_sym lt_syms[] = {
	FP_SYM(localtime), FP_SYM(mktime), FP_SYM(timelocal), FP_SYM(ctime), FP_SYM(tzset),
#  ifdef LT_TIME64
	FP_SYM(__localtime64), FP_SYM(__mktime64), FP_SYM(__ctime64),
#  endif
};
#  define LT_SYMS .syms = lt_syms, .nsyms = sizeof lt_syms / sizeof lt_syms[0]
#else
#  define LT_SYMS .syms = NULL
#endif

/* ------------------------------------------------------------------------
 * The descriptor.
 * ---------------------------------------------------------------------- */
FP_STARTUP_TEXT static bool lt_load(fp_getenv_fn get)
{
	char why[256];
	const char *v = get("FASTPATH_TZ");
	bool on = false;

	if (v && fp_parse_bool(v, &on, why, sizeof why) < 0)
		fp_warn("FASTPATH_TZ", v, why, "TZ is left as it is");
	return on;
}

#ifdef LT_GLIBC
extern char **environ; /* POSIX: no header need declare it */

/* glibc's zone directory where TZDIR does not name another (its TZDIR). */
#define LT_ZONE_DIR "/usr/share/zoneinfo"
/* "TZ=<zone name>": written once, by initialisation; environ points at it. */
static char lt_var[128];

/*
 * The zone's name, as TZ must give it: where /etc/localtime is a link to
 * the file of that name under the zone directory (".../zoneinfo/NAME", and
 * that path is the very file), NAME.  Not ":/etc/localtime", which names
 * the same file to glibc but which Java and ICU (node, Chrome) read as a
 * fixed offset, without summer time (their own zone detection reads the
 * link, as this does).  false where there is no such name (a copied file):
 * then TZ stays unset.  No allocation (an allocator preloaded beside us
 * may be initialising, and waiting for this very call).
 */
FP_STARTUP_TEXT static bool lt_zone_name(char *name, size_t size)
{
	char link[256], path[256 + 64];
	struct fp_buf b = { path, 0, sizeof path };
	const char *dir = fp_env_get("TZDIR"), *z = NULL, *p;
	struct stat a, c;
	ssize_t n = fp_raw_readlinkat(AT_FDCWD, LT_ZONE, link, sizeof link - 1);
	size_t len;

	/* A relative TZDIR would name another directory after a chdir: TZ
	 * by name would then follow it, where /etc/localtime does not. */
	if (n <= 0 || (dir && *dir && *dir != '/'))
		return false;
	link[n] = '\0';
	for (p = link; (p = strstr(p, "zoneinfo/")) != NULL; p++)
		z = p + sizeof "zoneinfo/" - 1;
	if (!z || !*z || (len = strlen(z)) >= size || z[0] == '.' || strstr(z, "/."))
		return false;
	fp_buf_str(&b, dir && *dir ? dir : LT_ZONE_DIR);
	fp_buf_str(&b, "/");
	fp_buf_str(&b, z);
	if (b.len >= sizeof path - 1 || fp_stat(path, &a) != 0 || fp_stat(LT_ZONE, &c) != 0 ||
	    a.st_dev != c.st_dev || a.st_ino != c.st_ino || !S_ISREG(a.st_mode))
		return false;
	memcpy(name, z, len + 1);
	return true;
}

/*
 * TZ=<var> added to the environment without allocating: a copy of the
 * pointer array, in memory of its own (mmap), with our entry at its end,
 * made environ.  glibc's setenv, putenv, unsetenv and clearenv work on an
 * environ they did not allocate as on the one the kernel gave: they copy
 * it to grow it, change entries in place, and never free it.
 */
FP_STARTUP_TEXT static bool lt_environ_add(char *var)
{
	char **old = environ, **e, **new;
	size_t n = 0;

	for (e = old; e && *e; e++)
		n++;
	new = fp_mmap(NULL, (n + 2) * sizeof *new, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	              -1, 0);
	if (new == MAP_FAILED)
		return false;
	if (n)
		memcpy(new, old, n * sizeof *new);
	new[n] = var;
	new[n + 1] = NULL;
	environ = new;
	return true;
}

/* No other thread in the process: the C library's word (glibc 2.32 and
 * later) and the kernel's count besides, which also sees what the word
 * does not (glibc before 2.32 has none; threads made by a raw clone are
 * in neither it nor ours): /proc/self/task has two links more than the
 * process has threads.  Without /proc, the word alone. */
FP_STARTUP_TEXT static bool lt_alone(void)
{
	struct stat st;

	return fp_no_threads() && (fp_stat("/proc/self/task", &st) != 0 || st.st_nlink <= 3);
}
#endif

/* At the end of initialisation, in the constructor's thread (or in the
 * thread whose call came first, before any constructor of ours: then
 * still at start-up).  Nothing here allocates (lt_zone_name). */
FP_STARTUP_TEXT static void lt_init(void)
{
	bool on = (fp_cfg.enabled & FP_BIT(localtime)) != 0;

	lt_watch = fp_cfg.survey || (on && atomic_load(&fp_counting));
	if (!on)
		return;
#ifdef LT_GLIBC
	if (fp_env_get("TZ"))
		lt_state = LT_KEPT;
	else if (!environ || !lt_alone())
		/* Before the C library's own initialisation (a call from a
		 * program's .preinit_array: fp_env_get), which then makes
		 * environ the kernel's array: a TZ added now would be lost.
		 * Or after threads were made (fastpath.so dlopen()ed into a
		 * running program): another thread's getenv or setenv could be
		 * reading environ, under the C library's lock that we cannot
		 * take.  Left alone. */
		lt_state = LT_FAILED;
	else if (!lt_zone_name(lt_var + 3, sizeof lt_var - 3))
		lt_state = LT_UNNAMED;
	else {
		lt_var[0] = 'T', lt_var[1] = 'Z', lt_var[2] = '=';  /* the name follows */
		lt_state = lt_environ_add(lt_var) ? LT_SET : LT_FAILED;
	}
#else
	lt_state = LT_NATIVE;
#endif
}

/* "<n> calls, TZ set|kept|failed|native|unnamed" */
static void lt_stats(struct fp_buf *b, const unsigned long *c)
{
	fp_buf_ulong(b, c[LT_C_CALLS]);
	fp_buf_str(b, " calls, TZ ");
	fp_buf_str(b, lt_words[lt_state]);
}

FP_MITIGATION(localtime, .load = lt_load, .init = lt_init, .stats = lt_stats,
              .counters = lt_counters, .ncounters = LT_NCOUNTERS, .survey = &lt_sv, LT_SYMS);
