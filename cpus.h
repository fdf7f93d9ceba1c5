/*
 * cpus.h: what the units of the cpus mitigation share, and the one hook the
 * open wrappers (urandom_shim.c) call.
 *
 *   cpus_shim.c        the settings, the counting questions (sysconf,
 *                      get_nprocs) and the affinity masks with their round
 *                      trip; the machine the cap shows (fp_cpus_machine).
 *   cpus_text.c        the CPU files' text transforms: pure functions of
 *                      the kernel's text and that machine (unit-tested).
 *   cpus_files_shim.c  which files are ours, their generated copies, and
 *                      fopen/fopen64 for them.
 *
 * Internal to fastpath.so: include it after fastpath.h.
 */
#ifndef CPUS_H
#define CPUS_H

#define CPUS_MAX 65536L  /* the most FASTPATH_CPUS may say */

/* ------------------------------------------------------------------------
 * Survey (cpus_survey.c): each CPU-count query by entry point (and the
 * CPU files), with the answer the program got; the fork-vs-threads
 * histogram's buckets (threads alive: 1, 2-3, 4-7, ... 256+).
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
extern const struct fp_survey cpus_sv FP_HIDDEN;
void cpus_sv_query(unsigned entry, long answer) FP_HIDDEN;
void cpus_sv_init(void) FP_HIDDEN;
void cpus_sv_child(void) FP_HIDDEN;
/* An open of a path while surveying (cpus_files_shim.c): counted as a
 * query when it is one of the CPU files. */
void fp_cpus_sv_file(int dirfd, const char *path, int flags) FP_HIDDEN;
long fp_cpus_wanted(void) FP_HIDDEN;
/* FASTPATH_CPUS=quota (cpus_quota.c): the CPUs the cgroup quota allows,
 * rounded up, at most the affinity count (that count with no quota), and
 * in why where it came from; -1 where there are no cgroups (illumos). */
long fp_cpus_quota(fp_getenv_fn get, char *why, size_t whylen) FP_HIDDEN;

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The CPU cap's files (cpus_files_shim.c).  fp_cpus_open() is what an open
 * wrapper calls first: with the cap unset (or inside our initialisation) it
 * costs one branch; otherwise, when the path is /proc/cpuinfo, /proc/stat
 * or /sys/devices/system/cpu/{online,possible,present}, it opens a
 * generated copy and returns true with the descriptor (or -1 and errno) in
 * *fd_out.  illumos has no such files (psrinfo and kstat are its ways).
 * ---------------------------------------------------------------------- */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out) FP_HIDDEN;

static inline bool fp_cpus_open(int dirfd, const char *path, int flags, int *fd_out)
{
	if (fp_unlikely(fp_surveying()))
		fp_cpus_sv_file(dirfd, path, flags);
	return fp_unlikely(fp_enabled(FP_BIT(cpus))) &&
	       fp_cpus_open_slow(dirfd, path, flags, fd_out);
}

/* The CPUs of the machine the cap shows (cpus_shim.c): the real ids set in
 * *real, ids below *real_bound being real CPUs, and the made-up ids
 * [*fake_lo, *fake_lo + *fake_n). */
void fp_cpus_machine(cpu_set_t *real, long *real_bound, long *fake_lo, long *fake_n) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The text transforms (cpus_text.c).
 * ---------------------------------------------------------------------- */
/* The mask of CPUs shown: real ids below real_bound that are set in `real`,
 * plus the made-up run [fake_lo, fake_lo + fake_n). */
struct cf_mask {
	cpu_set_t real;
	long real_bound; /* ids below are real CPUs (sysconf _SC_NPROCESSORS_CONF) */
	long fake_lo, fake_n;
};

/* Output: a staging buffer flushed to a descriptor with raw write(2).  With
 * fd < 0 (the unit tests) the buffer must hold everything; `err` records
 * the first failure, after which output is dropped. */
struct cf_out {
	char *p;
	size_t len, cap;
	int fd;
	int err;
};
void cf_flush(struct cf_out *o) FP_HIDDEN;

enum cf_kind { CF_CPUINFO, CF_STAT, CF_LIST };
/* The kernel's text of a file of that kind, as the machine m would show
 * it, written to o. */
void cf_transform(enum cf_kind kind, const char *in, size_t len, const struct cf_mask *m,
                  struct cf_out *o) FP_HIDDEN;

/* fopen and fopen64 (cpus_files_shim.c): their real rows (FP_REAL_OWN) are
 * bound with the cpus descriptor's. */
#ifdef FP_HAVE_LFS64
#define CPUS_NSYMS 2
#else
#define CPUS_NSYMS 1
#endif
extern const struct fp_sym cpus_syms[CPUS_NSYMS] FP_HIDDEN;
#else /* !FP_LINUX */
static inline bool fp_cpus_open(int dirfd, const char *path, int flags, int *fd_out)
{
	(void)dirfd;
	(void)path;
	(void)flags;
	(void)fd_out;
	return false;
}
#endif

#endif /* CPUS_H */
