/* SPDX-License-Identifier: MIT */
/*
 * cpus.h: what the units of the cpus mitigation share, and the one hook the
 * open wrappers (urandom_shim.c) call.
 *
 *   cpus_shim.c        the settings, the counting questions (sysconf,
 *                      get_nprocs) and the real view learnt once.
 *   cpus_affinity.c    the affinity masks (sched_ and pthread_ getters and
 *                      setters) with their round trip.
 *   cpus_attr.c        the affinity mask of a thread attribute.
 *   cpus_exec.c        the machine handed down across exec.
 *   cpus_map.c         the machine the cap shows: N virtual CPUs 0..N-1,
 *                      each mapped onto a real CPU we may use; the masks'
 *                      translations both ways; sched_getcpu and getcpu.
 *   cpus_text.c        the CPU files' text transforms: pure functions of
 *                      the kernel's text and that machine (unit-tested);
 *                      cpus_sets.c those of the files that are sets of
 *                      CPUs, cpus_memo.c the last /proc/cpuinfo made.
 *   cpus_files_shim.c  which files are ours: the entry every open wrapper
 *                      calls, the directory descriptors noted.
 *   cpus_serve.c       a CPU file's generated copy, served.
 *   cpus_dirs.c        the machine's directories (cpuK, nodes, status).
 *   cpus_fd.c          fopen/fopen64 of them; lseek/mmap of the copies as
 *                      procfs and sysfs answer; stat, access, realpath,
 *                      opendir and readdir of the machine's directories.
 *   cpus_compat.c      the C library's other names for those (fortified
 *                      realpath, the __xstat family, euidaccess,
 *                      readdir_r...).
 *
 * Internal to fastpath.so: include it after fastpath.h.
 */
#ifndef CPUS_H
#define CPUS_H

/* ------------------------------------------------------------------------
 * The C library functions the CPU cap wraps and calls (the core binds
 * them: fp_real.h, FP_REAL_DECLARE), reached through CPUS_REAL() as the
 * core's through FP_REAL().  Stand-ins: fp_real.h, "Not ready yet".  The
 * directory and stat calls of cpus_fd.c are its own rows (FP_REAL_OWN).
 * ---------------------------------------------------------------------- */
#define CPUS_REAL_COMMON(X)                                                                   \
	X(long, sysconf, (int name), FP_NR_FAIL(-1))                                             \
	/* Survey mode's fork-vs-threads histogram (cpus_survey.c). */                            \
	X(pid_t, fork, (void), FP_NR_FAIL(-1))                                                   \
	X(int, pthread_create,                                                                   \
	  (pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg),               \
	  FP_NR_RET(ENOSYS))                                                                     \
	/* The stream over a CPU file we made (cpus_fd.c). */                                    \
	X(FILE *, fdopen, (int fd, const char *how), FP_NR_FAIL(NULL))

#ifdef FP_LINUX
#define CPUS_REAL_LINUX(X)                                                                    \
	X(int, sched_getaffinity, (pid_t pid, size_t size, cpu_set_t *mask), FP_NR_FAIL(-1))     \
	X(int, sched_setaffinity, (pid_t pid, size_t size, const cpu_set_t *mask),               \
	  FP_NR_FAIL(-1))                                                                        \
	/* pthread functions report errors by return value, not errno. */                        \
	X(int, pthread_getaffinity_np, (pthread_t t, size_t size, cpu_set_t *mask),              \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(int, pthread_setaffinity_np, (pthread_t t, size_t size, const cpu_set_t *mask),        \
	  FP_NR_RET(ENOSYS))                                                                     \
	/* getcpu: glibc >= 2.29 (NULL before: the wrapper makes the call). */                   \
	X(int, sched_getcpu, (void), FP_NR_DO(fp_nr_sched_getcpu()))                             \
	X(int, getcpu, (unsigned int *cpu, unsigned int *node), FP_NR_DO(fp_nr_getcpu(cpu, node))) \
	/* A CPU file mapped (cpus_fd.c). */                                                     \
	X(void *, mmap, (void *a, size_t len, int prot, int flags, int fd, off_t off),           \
	  FP_NR_DO(fp_nr_mmap(a, len, prot, flags, fd, off)))                                    \
	/* A copy made again apart from the program's table (cpus_serve.c). */                   \
	X(int, clone, (int (*fn)(void *), void *stack, int flags, void *arg, ...), FP_NR_FAIL(-1))
#else
#define CPUS_REAL_LINUX(X)
#endif
#if defined(FP_LINUX) && defined(FP_HAVE_LFS64)
#define CPUS_REAL_LINUX64(X)                                                                  \
	X(void *, mmap64, (void *a, size_t len, int prot, int flags, int fd, off64_t off),       \
	  FP_NR_DO(fp_nr_mmap(a, len, prot, flags, fd, off)))
#else
#define CPUS_REAL_LINUX64(X)
#endif

/* get_nprocs cannot fail by contract; one CPU is always true.  NULL on an
 * illumos libc older than SUNW_1.23 (cpus_shim.c then asks sysconf). */
#ifdef FP_HAVE_GET_NPROCS
#define CPUS_REAL_GET_NPROCS(X)                                                               \
	X(int, get_nprocs, (void), FP_NR_RET(1))                                                 \
	X(int, get_nprocs_conf, (void), FP_NR_RET(1))
#else
#define CPUS_REAL_GET_NPROCS(X)
#endif

/* illumos: sysconf's twin, which XPG5 builds call (<unistd.h>'s "#pragma
 * redefine_extname sysconf __sysconf_xpg5"); its row is sysconf's. */
#ifdef FP_HAVE_SYSCONF_XPG5
#define CPUS_REAL_SYSCONF_XPG5(X) X(long, __sysconf_xpg5, (int name), FP_NR_FAIL(-1))
#else
#define CPUS_REAL_SYSCONF_XPG5(X)
#endif

/* glibc's affinity in a thread attribute, which pthread_create applies
 * through an internal call (cpus_attr.c translates the mask first). */
#if defined(FP_LINUX) && defined(__GLIBC__)
#define FP_HAVE_ATTR_AFFINITY 1
#define CPUS_REAL_ATTR_AFFINITY(X)                                                            \
	X(int, pthread_attr_setaffinity_np,                                                      \
	  (pthread_attr_t *a, size_t size, const cpu_set_t *mask), FP_NR_RET(ENOSYS))            \
	X(int, pthread_attr_getaffinity_np,                                                      \
	  (const pthread_attr_t *a, size_t size, cpu_set_t *mask), FP_NR_RET(ENOSYS))            \
	X(int, pthread_setattr_default_np, (const pthread_attr_t *a), FP_NR_RET(ENOSYS))         \
	X(int, pthread_getattr_default_np, (pthread_attr_t *a), FP_NR_RET(ENOSYS))              \
	X(int, pthread_getattr_np, (pthread_t t, pthread_attr_t *a), FP_NR_RET(ENOSYS))
#else
#define CPUS_REAL_ATTR_AFFINITY(X)
#endif

#define CPUS_REAL_ALL(X)                                                                      \
	CPUS_REAL_COMMON(X) CPUS_REAL_LINUX(X) CPUS_REAL_LINUX64(X) CPUS_REAL_GET_NPROCS(X)     \
	CPUS_REAL_SYSCONF_XPG5(X) CPUS_REAL_ATTR_AFFINITY(X)
FP_REAL_DECLARE(cpus, CPUS_REAL_ALL);
#define CPUS_REAL(name) FP_REAL_LAZY(fp_real_cpus.r_##name, FP_BIT(cpus))
#define CPUS_REALP(name) FP_REAL_LAZY_P(fp_real_cpus.r_##name, FP_BIT(cpus))

#define CPUS_MAX 65536L  /* the most FASTPATH_CPUS may say */
#define CPUS_LINUX_MAX 8192L /* NR_CPUS's limit (CONFIG_MAXSMP): N is capped there */

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
/* One answer to a CPU-count question, counted; the caller has checked
 * that the cap is on (cpus_shim.c; cpus_affinity.c asks it too). */
long cpus_answer(const char *via) FP_HIDDEN;
/* FASTPATH_CPUS=quota (cpus_quota.c): the CPUs the cgroup quota allows,
 * rounded up, at most the affinity count (that count with no quota), and
 * in why where it came from; -1 where there are no cgroups (illumos). */
long fp_cpus_quota(fp_getenv_fn get, char *why, size_t whylen) FP_HIDDEN;

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The CPU cap's files (cpus_files_shim.c).  fp_cpus_open() is what an open
 * wrapper calls first: with the cap unset (or inside our initialisation) it
 * costs one branch; otherwise, when the path is /proc/cpuinfo, /proc/stat
 * or /sys/devices/system/cpu/{online,possible,present,kernel_max}, a file
 * of the machine's directories (fp_cpus_vpath) or the process's status, it
 * opens a generated copy (or the real CPU's file) and returns true with
 * the descriptor (or -1 and errno) in *fd_out.  illumos has no such files (psrinfo and kstat are its ways).
 * ---------------------------------------------------------------------- */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out) FP_HIDDEN;
/* readlink and readlinkat of a cpuK (readlink_shim.c asks first): true
 * with the answer in *ret (a node's link to cpuR said as cpuK); one branch
 * with the cap off. */
bool fp_cpus_readlink_slow(int dirfd, const char *path, char *buf, size_t n, ssize_t *ret)
	__attribute__((weak)) FP_HIDDEN; /* weak: a unit test of readlink alone has none */

static inline bool fp_cpus_readlink(int dirfd, const char *path, char *buf, size_t n,
                                    ssize_t *ret)
{
	return fp_unlikely(fp_enabled(FP_BIT(cpus))) && fp_cpus_readlink_slow &&
	       fp_cpus_readlink_slow(dirfd, path, buf, n, ret);
}
/* At initialisation: whether the bound sched_getcpu is libc's (cpus_map.c). */
void cpus_getcpu_init(void) FP_HIDDEN;

static inline bool fp_cpus_open(int dirfd, const char *path, int flags, int *fd_out)
{
	if (fp_unlikely(fp_surveying()))
		fp_cpus_sv_file(dirfd, path, flags);
	return fp_unlikely(fp_enabled(FP_BIT(cpus))) &&
	       fp_cpus_open_slow(dirfd, path, flags, fd_out);
}

/* After a real open (the open wrappers, once initialised): a descriptor of
 * /proc or /sys/devices/system/cpu, opened by that absolute name, is noted
 * so that a relative name under it can be one of ours; with the cap and
 * the survey off, one branch. */
void fp_cpus_note_dir(const char *path, int fd) FP_HIDDEN;

static inline void fp_cpus_opened(const char *path, int fd)
{
	if (fp_unlikely((fp_cfg.enabled & FP_BIT(cpus)) || fp_cfg.survey) && fd >= 0 &&
	    path[0] == '/' && (path[1] == 'p' || path[1] == 's'))
		fp_cpus_note_dir(path, fd);
}

/* ------------------------------------------------------------------------
 * The machine the cap shows (cpus_map.c): N virtual CPUs 0..N-1 on the r
 * real CPUs of the start-up affinity mask, R[0] < ... < R[r-1].  Virtual
 * CPU v runs on R[v mod r]; the other way, real CPU R[k] is the virtual
 * CPUs v with v mod m == k mod m (m = min(N, r)): with N >= r they are
 * k, k+r, k+2r...; with N < r, k mod N.  Only real ids below CPU_SETSIZE
 * are mapped.
 * ---------------------------------------------------------------------- */
struct cpus_map {
	long n;          /* N: the virtual CPUs */
	long r;          /* the real CPUs mapped onto, >= 1 */
	bool identity;   /* N == r, R[k] == k and all of them online: the kernel's view */
	/* R[k] and the k of each real id: the tables learnt once, or NULL
	 * while another caller is learning them (then worked out from
	 * `allowed`, never waited for). */
	const unsigned short *real;
	const short *index;
	cpu_set_t allowed; /* R as a mask */
};
/* The map at the count N now in force (cpus_shim.c: learns the real view
 * first, at the first question). */
void fp_cpus_map(struct cpus_map *m) FP_HIDDEN;
/* The map of the start-up mask `allowed` (NULL when it could not be read:
 * then CPUs 0..online-1), with the shared tables when `shared`. */
void fp_cpus_map_of(struct cpus_map *m, const cpu_set_t *allowed, long online,
                    bool shared) FP_HIDDEN;
/* Builds the shared tables; called once, by the caller that learns the
 * real view. */
void fp_cpus_map_build(const cpu_set_t *allowed, long online) FP_HIDDEN;
/* R[k], and the k of real CPU c (-1 when c is not mapped). */
long fp_cpus_real_of(const struct cpus_map *m, long k) FP_HIDDEN;
long fp_cpus_real_index(const struct cpus_map *m, long c) FP_HIDDEN;
/* The real mask `now` (nowsize bytes) as the virtual mask it holds, written
 * to out (outsize bytes, outsize * 8 >= N). */
void fp_cpus_to_virtual(const struct cpus_map *m, const cpu_set_t *now, size_t nowsize,
                        cpu_set_t *out, size_t outsize) FP_HIDDEN;
/* The real CPUs a virtual mask runs on (its ids below N; setsize bytes
 * read at most up to N bits); false when it names none. */
bool fp_cpus_to_real(const struct cpus_map *m, const cpu_set_t *v, size_t setsize,
                     cpu_set_t *out) FP_HIDDEN;

/* The virtual mask a thread last set (cpus_affinity.c), which getcpu answers
 * from (cpus_map.c).  Static TLS comes out of every thread's stack (a
 * 16 KiB helper thread's too), so it is small: the ids below CPU_SETSIZE
 * as bits, or a mask past them when it is one run of ids (a pin, the whole
 * machine); any other mask past them is not remembered. */
struct cpus_vmask {
	bool valid;
	bool run;                  /* the ids are [lo, hi], not bits */
	int lo, hi;
	int last_real, last_virt;  /* getcpu's last answer from it; -1: none */
	uint64_t sig;              /* cpus_sig() of the real mask left */
	unsigned long gen;         /* a thread's: cpus_sib_gen as it began */
	cpu_set_t bits;
};
/* Bit i of a caller's mask of setsize bytes, as the kernel reads it (the
 * bytes given, the rest zero): CPU_ISSET_S reads the whole word, past a
 * mask of 1 to 7 bytes at a mapping's end (a cold review: SIGSEGV). */
static inline bool fp_cpus_isset(size_t i, size_t setsize, const cpu_set_t *v)
{
	size_t off = i / (8 * sizeof(unsigned long)) * sizeof(unsigned long);
	unsigned long w = 0;

	if (off >= setsize)
		return false;
	memcpy(&w, (const char *)v + off, setsize - off < sizeof w ? setsize - off : sizeof w);
	return (w >> (i % (8 * sizeof w))) & 1;
}
static inline bool cpus_vmask_has(const struct cpus_vmask *v, long id)
{
	if (v->run)
		return id >= v->lo && id <= v->hi;
	return id >= 0 && id < CPU_SETSIZE && CPU_ISSET((size_t)id, &v->bits);
}
extern FP_TLS struct cpus_vmask fp_cpus_vthread FP_HIDDEN;
/* A vfork: its child's record starts empty (cpus_affinity.c); the count
 * a thread's record was made at, stale once it moved. */
void cpus_vforking(void) FP_HIDDEN;
unsigned long cpus_gen_now(void) FP_HIDDEN;
#ifdef FP_HAVE_ATTR_AFFINITY
/* The virtual mask a thread made with attr starts with, when attr holds
 * one set through pthread_attr_setaffinity_np (cpus_attr.c). */
bool fp_cpus_attr_vmask(const pthread_attr_t *attr, struct cpus_vmask *out) FP_HIDDEN;
/* Whether attr holds an affinity mask at all (cpus_attr.c). */
bool fp_cpus_attr_has_mask(const pthread_attr_t *attr) FP_HIDDEN;
#endif

/* ------------------------------------------------------------------------
 * What the units of the counting questions (cpus_shim.c), the affinity
 * masks (cpus_affinity.c), a thread attribute's mask (cpus_attr.c) and the
 * machine handed down at exec (cpus_exec.c) share.
 * ---------------------------------------------------------------------- */
/* FASTPATH_CPUS as set (cpus_shim.c), for the exec wrappers to tell
 * whether the new image is capped as this process is (a valid one is
 * short). */
#define CPUS_SETTING_MAX 16
extern char cpus_setting[CPUS_SETTING_MAX] FP_HIDDEN;
/* Whose mask a call with this pid is about. */
enum cpus_who {
	CPUS_OTHER,   /* another process: the kernel's, as it is */
	CPUS_THREAD,  /* the calling thread (pid 0, its tid, pthread_self) */
	CPUS_MAIN,    /* our pid, asked from another thread: the main thread's */
	CPUS_SIBLING, /* another thread of ours: its real mask, translated */
};
/* The masks remembered (cpus_affinity.c): a signature of a real mask;
 * v's ids written to a caller's set; the remembered mask for `who` while
 * the real one is `now`; the mask handed down at exec taken as the
 * process's; the virtual ids asked as a cpus_vmask. */
uint64_t cpus_sig(const cpu_set_t *mask) FP_HIDDEN;
void cpus_put_vmask(const struct cpus_vmask *v, long n, size_t setsize,
                    cpu_set_t *mask) FP_HIDDEN;
bool cpus_recalled(enum cpus_who who, const cpu_set_t *now, struct cpus_vmask *out) FP_HIDDEN;
/* The same for a thread named by its pthread_t. */
bool cpus_recalled_thread(pthread_t th, const cpu_set_t *now, struct cpus_vmask *out) FP_HIDDEN;
void cpus_vproc_handed(const struct cpus_vmask *v, const cpu_set_t *mask) FP_HIDDEN;
/* The mask handed down at exec made the main thread's record now, if one
 * was handed and nothing asked yet (cpus_shim.c). */
void cpus_handed_settle(void) FP_HIDDEN;
/* A fork's child: a view another thread was learning is learnt afresh. */
void cpus_learn_atfork_child(void) FP_HIDDEN;
/* The calling thread's remembered mask (the process's for the main
 * thread); a fork's prepare and child steps for the main thread's. */
bool cpus_my_vmask(struct cpus_vmask *out) FP_HIDDEN;
void cpus_vproc_prepare(void) FP_HIDDEN;
void cpus_vproc_child(void) FP_HIDDEN;
bool cpus_vmask_of(struct cpus_vmask *t, long n, size_t setsize,
                   const cpu_set_t *mask) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The machine handed down (issue 37): FASTPATH_CPUS_MAP="N:REAL[:VIRTUAL]",
 * the count, the real CPUs the map runs on, and the virtual mask of the
 * thread that exec'd, as the kernel writes CPU lists ("0-3,8").  The exec
 * and spawn wrappers (urandom_exec.c) put it into the new image's
 * environment, and interpose its first two fields; start-up reads it
 * (cpus_load), the first question trusts it only where it fits the real
 * mask (cpus_shim.c).
 * ---------------------------------------------------------------------- */
struct cpus_handed {
	long n;             /* N; 0: none handed down */
	cpu_set_t real;     /* REAL: ids below CPU_SETSIZE, never empty */
	bool have_v;        /* VIRTUAL, when it fits a cpus_vmask */
	struct cpus_vmask v;
};
/* The value s parsed into *h: 0, or -1 with a reason (h->n then 0). */
int fp_cpus_parse_map(const char *s, struct cpus_handed *h, char *why, size_t whylen) FP_HIDDEN;
/* "N:REAL[:VIRTUAL]" of the map m and the virtual mask v (NULL: none)
 * into buf; false when it does not fit. */
bool fp_cpus_format_map(char *buf, size_t len, const struct cpus_map *m,
                        const struct cpus_vmask *v) FP_HIDDEN;
/* The bytes that text needs at most. */
size_t fp_cpus_map_room(const struct cpus_map *m, const struct cpus_vmask *v) FP_HIDDEN;
/* The same of the machine handed down to us (h), as it came. */
bool fp_cpus_format_handed(char *buf, size_t len, const struct cpus_handed *h) FP_HIDDEN;
size_t fp_cpus_handed_room(const struct cpus_handed *h) FP_HIDDEN;
/* The real CPUs a virtual mask runs on (as fp_cpus_to_real). */
void fp_cpus_vmask_real(const struct cpus_map *m, const struct cpus_vmask *v,
                        cpu_set_t *out) FP_HIDDEN;
#define CPUS_MAP_VAR "FASTPATH_CPUS_MAP"
/* The real machine is learnt (at the first question, cpus_shim.c). */
bool fp_cpus_learnt(void) FP_HIDDEN;
/* The machine handed down to this process at its exec, or NULL. */
const struct cpus_handed *fp_cpus_handed(void) FP_HIDDEN;
/* The text an exec hands down at most ("FASTPATH_CPUS_MAP=" and both
 * lists): without the virtual mask where it does not fit, not handed
 * down where even the map does not (the new image learns its machine
 * from its mask). */
#define CPUS_MAP_TEXT 2048
/* Environments of more entries are passed as they are. */
#define CPUS_MAP_SLOTS 512
/* The slots the copy of envp needs (its entries, ours, the NULL), or 0
 * to pass envp as it is: NULL or unreadable (the kernel's EFAULT), more
 * than CPUS_MAP_SLOTS entries, or no FASTPATH_CPUS in it (the new image
 * is not capped). */
size_t fp_cpus_exec_slots(char *const envp[]) FP_HIDDEN;
/* That copy, written into slots (nslots from fp_cpus_exec_slots) and text
 * (room bytes): envp without its FASTPATH_CPUS_MAP, with ours when its
 * FASTPATH_CPUS is this process's (learnt false: the one handed down to
 * us, if any; learnt is what the room was sized for). */
char *const *fp_cpus_exec_env(char *const envp[], char **slots, size_t nslots, char *text,
                              size_t room, bool learnt) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The text transforms (cpus_text.c): the kernel's text in, the text of the
 * machine m out.
 * ---------------------------------------------------------------------- */
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

enum cf_kind {
	CF_CPUINFO, CF_STAT, CF_LIST, CF_KMAX,
	/* cpuK/topology/ and cpuK/cache/indexI/ of virtual CPU v (cf_about):
	 * core_id; physical_package_id and die_id; a set of v alone
	 * (thread_siblings, core_cpus, cluster_cpus); the whole machine
	 * (core_siblings, package_cpus, die_cpus); a cache's shared_cpu set;
	 * each as a mask or a list. */
	CF_T_ID, CF_T_ZERO, CF_T_SELF_MASK, CF_T_SELF_LIST, CF_T_ALL_MASK, CF_T_ALL_LIST,
	CF_T_SHARED_MASK, CF_T_SHARED_LIST,
	/* cache/indexI/id: v for a cache the real CPU has to itself */
	CF_T_CACHE_ID,
	/* nodeX/cpumap, nodeX/cpulist: the virtual CPUs on the node's real ones */
	CF_NODE_MASK, CF_NODE_LIST,
	/* /proc/PID/status: Cpus_allowed and Cpus_allowed_list of cf_about's vmask */
	CF_STATUS,
};
/* What a file of a CPU's own, or a status file, is about. */
struct cf_about {
	long v;                     /* the virtual CPU (CF_T_*) */
	const unsigned char *vmask; /* CF_STATUS: the virtual mask, N bits */
	bool shared;                /* CF_T_CACHE_ID: the real cache is shared */
};
/* The kernel's text of a file of that kind, as the machine m would show
 * it, written to o. */
void cf_transform(enum cf_kind kind, const char *in, size_t len, const struct cpus_map *m,
                  struct cf_out *o) FP_HIDDEN;
void cf_transform_of(enum cf_kind kind, const struct cf_about *a, const char *in, size_t len,
                     const struct cpus_map *m, struct cf_out *o) FP_HIDDEN;
/* What the text units share: the output and line primitives and
 * /proc/cpuinfo's transform (cpus_text.c), the files that are sets of
 * virtual CPUs (cf_of, cpus_sets.c), the last /proc/cpuinfo made
 * (cf_cpuinfo_memo, cpus_memo.c: false when it is not to be had). */
void cf_put(struct cf_out *o, const char *s, size_t n) FP_HIDDEN;
void cf_putu(struct cf_out *o, unsigned long long v) FP_HIDDEN;
const char *cf_eol(const char *p, const char *end) FP_HIDDEN;
bool cf_prefixn(const char *p, const char *end, const char *lit, size_t n) FP_HIDDEN;
/* A literal's length is the compiler's: no strlen per line. */
#define cf_prefix(p, end, lit) cf_prefixn(p, end, lit, sizeof(lit) - 1)
const char *cf_num(const char *p, const char *end, unsigned long long *v) FP_HIDDEN;
void cf_cpuinfo(const char *in, size_t len, const struct cpus_map *m, struct cf_out *o) FP_HIDDEN;
void cf_of(enum cf_kind kind, const struct cf_about *a, const char *in, size_t len,
           const struct cpus_map *m, struct cf_out *o) FP_HIDDEN;
bool cf_cpuinfo_memo(const char *in, size_t len, const struct cpus_map *m,
                     struct cf_out *o) FP_HIDDEN;

/* The machine's directories (cpus_dirs.c): a path naming cpuK under
 * /sys/devices/system/cpu or /sys/devices/system/node/nodeX (absolute, or
 * relative to a descriptor noted as one of those directories, or as a
 * cpuK), a node's cpumap or cpulist, or /proc/PID/status of this process.
 * CF_V_NATIVE: not one of ours, or the map is the identity (the kernel's
 * own answer); CF_V_GONE: a cpuK with K >= N (ENOENT); CF_V_REAL: ask the
 * kernel about vp->real, the same path with cpuK as the real CPU that
 * virtual CPU K runs on; vp->gen: a file whose text is ours (vp->kind). */
#define CF_VPATH_MAX 256
struct cf_vpath {
	char real[CF_VPATH_MAX];
	enum cf_kind kind;
	bool gen;
	long v;        /* the virtual CPU named; -1: none (a node's file, a status) */
	long rc;       /* its real CPU; for a status, whose (a pid or tid) */
	size_t at;     /* where the real CPU's digits start in real */
};
enum cf_vis { CF_V_NATIVE, CF_V_GONE, CF_V_REAL };
enum cf_vis fp_cpus_vpath(int dirfd, const char *path, struct cf_vpath *vp) FP_HIDDEN;
/* Which listing a directory opened by path (or dirfd with path NULL) is:
 * 1 the cpu directory (cpuK entries are directories), 2 a node's (links),
 * 0 none of ours (or the identity map). */
int fp_cpus_listing(int dirfd, const char *path) FP_HIDDEN;
/* A path the cap may answer for: under /sys/devices/system/, or relative
 * to a descriptor (maybe one noted).  Laundered: the prototypes' nonnull
 * deleted the NULL test (stat(NULL): SIGSEGV). */
static inline bool cf_maybe(int dirfd, const char *path)
{
	if (!fp_opaque(path))
		return false;
	if (path[0] == '/')
		return path[1] == 's' && strncmp(path, "/sys/devices/system/", 20) == 0;
	return dirfd != AT_FDCWD;
}
/* The prologue of a call that names a path without opening it: true when
 * it must fail (a cpuK the machine lacks: errno ENOENT), else use (and an
 * *at call's dfd) is what to ask the kernel; one branch with the cap off. */
#define CF_GONE(path, use, vp)                                               \
	(fp_unlikely(fp_enabled(FP_BIT(cpus))) && cf_maybe(AT_FDCWD, path) && \
	 cf_named(AT_FDCWD, path, &(vp), &(use)) == CF_V_GONE)
#define CF_GONE_AT(dfd, path, use, vp)                                       \
	(fp_unlikely(fp_enabled(FP_BIT(cpus))) && cf_maybe(dfd, path) &&     \
	 cf_at(&(dfd), path, &(vp), &(use)) < 0)
/* The calls that name one without opening it (cpus_fd.c, and their other
 * names in cpus_compat.c): cf_named's *use is the path to ask the kernel
 * about (CF_V_REAL), or errno is ENOENT (CF_V_GONE); cf_at's the same for
 * a *at call, from AT_FDCWD for a real CPU's path, -1 for a gone one;
 * cf_realpath is realpath of a path cf_maybe took, cpuK said again. */
enum cf_vis cf_named(int dirfd, const char *path, struct cf_vpath *vp, const char **use) FP_HIDDEN;
int cf_at(int *dirfd, const char *path, struct cf_vpath *vp, const char **use) FP_HIDDEN;
char *cf_realpath(const char *path, char *out) FP_HIDDEN;
/* A listing of ours (cpus_fd.c): d's, or NULL (one branch while there is
 * none); whether a name is a real CPU's entry, which it skips; its next
 * virtual entry, false at the end. */
struct cf_list;
struct cf_list *cf_list_of(const DIR *d) FP_HIDDEN;
bool cf_is_cpu(const char *name) FP_HIDDEN;
bool cf_list_next(struct cf_list *l, DIR *d, char *name, size_t cap, ino_t *ino,
                  unsigned char *type) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * What the CPU files' units share: which files are ours and the directory
 * descriptors noted (cpus_files_shim.c), the served copy (cpus_serve.c),
 * the machine's directories (cpus_dirs.c).
 * ---------------------------------------------------------------------- */
/* Only plain read-only opens are ours: anything else (O_WRONLY, O_PATH,
 * O_DIRECTORY...) goes to the kernel, which gives its own answer.  Those
 * we serve open the real file with these flags first (cf_read_real). */
#define CF_OK_FLAGS (O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_LARGEFILE | O_NOFOLLOW | O_NOATIME)
/* The directories of the files, by path, and a noted cpuK's (CF_CPUK). */
enum cf_dir { CF_PROC, CF_CPUDIR, CF_NODES, CF_NDIRS, CF_CPUK = CF_NDIRS };
extern const char *const cf_dir_path[CF_NDIRS] FP_HIDDEN;
/* Which directory dirfd is known to be, or -1: with CF_CPUK for cpu *v's
 * (cf_dir_of_v), or with a cpuK's as -1 (cf_dir_of). */
int cf_dir_of_v(int dirfd, long *v) FP_HIDDEN;
int cf_dir_of(int dirfd) FP_HIDDEN;
/* fd noted as directory d (CF_CPUK: cpu v's), when it is a directory. */
void cf_note(int d, long v, int fd) FP_HIDDEN;
/* What is served: the text's kind and what it is about, the memfd's name,
 * whether lseek and mmap answer as sysfs's, the name FASTPATH_DEBUG
 * shows, and for a status whose mask. */
struct cf_what {
	enum cf_kind kind;
	struct cf_about about;
	const char *name;
	bool sysfs;
	const char *shown;
	pid_t whose;
};
/* The generated copy of w (cpus_serve.c): the descriptor in *fd_out, or
 * -1 and errno; false where the real file is the caller's to open. */
bool cf_serve(struct cf_what *w, int dirfd, const char *path, int flags, int *fd_out) FP_HIDDEN;
/* An open of a cpuK path, a node's cpu set, a status (cpus_dirs.c): as
 * cf_serve, or false when the path is none of those. */
bool cf_open_vpath(int dirfd, const char *path, int flags, int *fd_out) FP_HIDDEN;

/* A descriptor cpus_serve.c served as w (cpus_fd.c): lseek and mmap on it
 * answer as procfs's, or sysfs's, or a process's file's (a status: mmap
 * ENODEV), and a /proc/stat or /proc/cpuinfo text is made again where
 * procfs would make it. */
void fp_cpus_served(int fd, const struct cf_what *w) FP_HIDDEN;
/* A /proc/stat or /proc/cpuinfo copy's text made again from the kernel's
 * file (cpus_serve.c), as procfs makes it at a read from the start or
 * after a seek; every signal held by the caller. */
void cf_refresh(int fd, enum cf_kind kind) FP_HIDDEN;
/* A read of fd at off (pread, preadv): from 0, a served procfs copy is
 * made again first.  One branch until a CPU file is served. */
void fp_cpus_reread(int fd) FP_HIDDEN;
static inline void fp_cpus_pread_at(int fd, long long off)
{
	if (fp_unlikely(off == 0))
		fp_cpus_reread(fd);
}

/* Where a seek on fd goes (cpus_fd.c): true with *off and *whence for
 * the real call, or false with errno where procfs or sysfs would refuse
 * it.  One branch until a CPU file is served.  The exported lseek and
 * lseek64 are urandom_seen.c's, which ask this first. */
bool fp_cpus_seek(int fd, long long *off, int *whence) FP_HIDDEN;

/* fopen and fopen64, the stream seeks (rewind, fseek...), and the calls on
 * the machine's directories (opendir, readdir, realpath, stat, access...:
 * cpus_fd.c): their real rows
 * (FP_REAL_OWN) are bound with the cpus descriptor's.  mmap's are the table's (fp_mmap). */
#if defined(__GLIBC__) && defined(STATX_BASIC_STATS)
#define CPUS_HAVE_STATX 1 /* glibc 2.28 and later */
#define CPUS_NSTATX 1
#else
#define CPUS_NSTATX 0
#endif
#ifdef FP_HAVE_LFS64
#define CPUS_NSYMS (23 + CPUS_NSTATX)
#else
#define CPUS_NSYMS (16 + CPUS_NSTATX)
#endif
extern const struct fp_sym cpus_syms[CPUS_NSYMS] FP_HIDDEN;
/* cpus_compat.c's rows (the other names of those calls), bound by the
 * cpus descriptor's binding. */
void cpus_compat_bind(fp_lookup_fn look, void *w) FP_HIDDEN;
#else /* !FP_LINUX */
static inline bool fp_cpus_seek(int fd, long long *off, int *whence)
{
	(void)fd, (void)off, (void)whence;
	return true;
}

static inline void fp_cpus_pread_at(int fd, long long off)
{
	(void)fd, (void)off;
}

static inline bool fp_cpus_open(int dirfd, const char *path, int flags, int *fd_out)
{
	(void)dirfd;
	(void)path;
	(void)flags;
	(void)fd_out;
	return false;
}

static inline void fp_cpus_opened(const char *path, int fd)
{
	(void)path;
	(void)fd;
}

static inline bool fp_cpus_readlink(int dirfd, const char *path, char *buf, size_t n,
                                    ssize_t *ret)
{
	(void)dirfd, (void)path, (void)buf, (void)n, (void)ret;
	return false;
}
#endif

/* An exec or spawn under the cap (urandom_exec.c): fn(ctx, envp) with
 * envp, or on Linux with its copy that hands the machine down, made in
 * this function's frame (no allocation: a vfork child execs with it). */
typedef int (*cpus_exec_fn)(void *ctx, char *const envp[]);
#ifdef FP_LINUX
int fp_cpus_exec_with(char *const envp[], cpus_exec_fn fn, void *ctx)
	__attribute__((weak)) FP_HIDDEN; /* weak: a unit test of urandom alone has none (nor the cap on) */
#else
static inline int fp_cpus_exec_with(char *const envp[], cpus_exec_fn fn, void *ctx)
{
	return fn(ctx, envp);
}
#endif

#endif /* CPUS_H */
