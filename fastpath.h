/*
 * fastpath.h: what every shim shares, and every platform difference, in one
 * place.  Include it first in every source file of fastpath.so.
 */
#ifndef FASTPATH_H
#define FASTPATH_H

/*
 * Our exported open(), pread() and friends must keep their plain names.  A
 * large-file build (_FILE_OFFSET_BITS=64 on 32-bit) redirects open to open64
 * and a fortified build defines inline open(): either would silently turn our
 * definitions into something else.  So they are off here whatever CFLAGS say.
 */
#undef _FILE_OFFSET_BITS
#undef _TIME_BITS
#undef _FORTIFY_SOURCE
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Platform.  Everything that differs between glibc, musl and illumos is
 * decided here and nowhere else; the shims test only FP_HAVE_* names.
 * ---------------------------------------------------------------------- */
#if defined(__linux__)
#  define FP_LINUX 1
#  include <sys/auxv.h>
#  include <sys/mman.h>
#  include <sys/syscall.h>
#elif defined(__sun)
#  define FP_ILLUMOS 1
#  include <sys/mman.h>
#  include <sys/syscall.h>
#else
#  error "fastpath supports Linux (glibc, musl) and illumos"
#endif

#if defined(__GLIBC__)
/* glibc's large-file twins, its fortified _2/_chk entry points, and the
 * get_nprocs family are real exported symbols that programs call. */
#  define FP_HAVE_LFS64 1
#  define FP_HAVE_GLIBC_CHK 1
/* glibc >= 2.28 redirects fcntl to fcntl64 under _FILE_OFFSET_BITS=64,
 * even on 64-bit: programs built that way call only fcntl64. */
#  define FP_HAVE_FCNTL64 1
/* 32-bit glibc >= 2.34 with _TIME_BITS=64 (Debian's i386 and armhf since
 * trixie) redirects fcntl to __fcntl_time64 instead. */
#  if (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)) && !defined(_LP64)
#    define FP_HAVE_FCNTL_TIME64 1
#  endif
#  if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)
#    define FP_HAVE_CLOSE_RANGE 1
#    define FP_HAVE_CLOSEFROM 1
#  endif
#elif defined(FP_ILLUMOS) && !defined(_LP64)
/* 32-bit illumos (where pfiles lived for years) has the transitional
 * large-file interfaces as separate symbols. */
#  define FP_HAVE_LFS64 1
#endif
#if defined(FP_ILLUMOS)
#  define FP_HAVE_CLOSEFROM 1
#endif
#if defined(FP_LINUX)
#  include <sys/random.h>
#  include <sys/sysinfo.h>
#  define FP_HAVE_GETRANDOM 1
#  define FP_HAVE_AFFINITY 1     /* sched_getaffinity, pthread_getaffinity_np */
#  define FP_HAVE_GET_NPROCS 1   /* glibc and musl both export get_nprocs */
#  define FP_HAVE_DUP3 1
#endif
#if defined(FP_ILLUMOS)
#  include <sys/random.h>
#  define FP_HAVE_GETRANDOM 1
/* libc exports get_nprocs and get_nprocs_conf since SUNW_1.23 (they call
 * sysconf inside libc, out of our sight), and __sysconf_xpg5. */
#  define FP_HAVE_GET_NPROCS 1
#  define FP_HAVE_SYSCONF_XPG5 1
#endif

/* S_IFDOOR exists only on illumos; the readlink policy is table-driven and
 * unit-tested on Linux too, so the constant is known everywhere. */
#ifndef S_IFDOOR
#  define S_IFDOOR 0xD000
#endif
#define FP_S_ISDOOR(m) (((m) & S_IFMT) == S_IFDOOR)

#define FP_EXPORT __attribute__((visibility("default")))
#define FP_HIDDEN __attribute__((visibility("hidden")))
/* Thread-locals of a preloaded object sit in the static TLS block: no
 * allocation on first touch, so they are safe in a signal handler. */
#define FP_TLS __thread __attribute__((tls_model("initial-exec")))
/* Data written by one thread and read by others on every call gets a line
 * of its own. */
#define FP_CACHELINE 64
#define fp_likely(x) __builtin_expect(!!(x), 1)
#define fp_unlikely(x) __builtin_expect(!!(x), 0)

/* The kernel's entry points, for the few places where no libc function may
 * be called (a wrapped call made while we are still binding symbols). */
long fp_raw_openat(int dirfd, const char *path, int flags, mode_t mode) FP_HIDDEN;
ssize_t fp_raw_read(int fd, void *buf, size_t n) FP_HIDDEN;
int fp_raw_close(int fd) FP_HIDDEN;
ssize_t fp_raw_readlinkat(int dirfd, const char *path, char *buf, size_t n) FP_HIDDEN;
ssize_t fp_raw_write(int fd, const void *buf, size_t n) FP_HIDDEN;
__attribute__((noreturn)) void fp_raw_exit(int status) FP_HIDDEN;

/* True in secure-execution mode (setuid, setgid, file capabilities). */
bool fp_secure_mode(void) FP_HIDDEN;
/* illumos has no secure_getenv; there fp_secure_mode() (issetugid) turns
 * everything off before the environment is read at all. */
#if defined(FP_ILLUMOS)
#  define fp_secure_getenv getenv
#else
#  define fp_secure_getenv secure_getenv
#endif

/* ------------------------------------------------------------------------
 * Real libc functions, bound once with dlsym(RTLD_NEXT).  Each is a union of
 * a typed pointer and void * (as cwrap does) so that no cast between object
 * and function pointers is needed.  A pointer left NULL means the C library
 * under us does not have that function.
 * ---------------------------------------------------------------------- */
#define FP_REAL_COMMON(X)                                                    \
	X(int, open, (const char *, int, ...))                                  \
	X(int, openat, (int, const char *, int, ...))                           \
	X(ssize_t, read, (int, void *, size_t))                                 \
	X(ssize_t, readv, (int, const struct iovec *, int))                     \
	X(ssize_t, pread, (int, void *, size_t, off_t))                         \
	X(int, close, (int))                                                    \
	X(int, dup, (int))                                                      \
	X(int, dup2, (int, int))                                                \
	X(int, fcntl, (int, int, ...))                                          \
	X(FILE *, fopen, (const char *, const char *))                          \
	X(FILE *, fdopen, (int, const char *))                                  \
	X(int, fclose, (FILE *))                                                \
	X(FILE *, freopen, (const char *, const char *, FILE *))                \
	X(int, daemon, (int, int))                                              \
	X(ssize_t, readlink, (const char *, char *, size_t))                    \
	X(ssize_t, readlinkat, (int, const char *, char *, size_t))             \
	X(long, sysconf, (int))                                                 \
	X(void, _exit, (int))                                                   \
	X(void, _Exit, (int))

#ifdef FP_HAVE_LFS64
#define FP_REAL_LFS64(X)                                                     \
	X(int, open64, (const char *, int, ...))                                \
	X(int, openat64, (int, const char *, int, ...))                         \
	X(ssize_t, pread64, (int, void *, size_t, off64_t))                     \
	X(FILE *, freopen64, (const char *, const char *, FILE *))              \
	X(FILE *, fopen64, (const char *, const char *))
#else
#define FP_REAL_LFS64(X)
#endif

#ifdef FP_HAVE_GLIBC_CHK
#define FP_REAL_CHK(X)                                                       \
	X(int, __open_2, (const char *, int))                                   \
	X(int, __open64_2, (const char *, int))                                 \
	X(int, __openat_2, (int, const char *, int))                            \
	X(int, __openat64_2, (int, const char *, int))                          \
	X(ssize_t, __read_chk, (int, void *, size_t, size_t))                   \
	X(ssize_t, __readlink_chk, (const char *, char *, size_t, size_t))      \
	X(ssize_t, __readlinkat_chk, (int, const char *, char *, size_t, size_t))
#else
#define FP_REAL_CHK(X)
#endif

#ifdef FP_LINUX
#define FP_REAL_LINUX(X)                                                     \
	X(int, dup3, (int, int, int))                                           \
	X(int, sched_getaffinity, (pid_t, size_t, cpu_set_t *))                 \
	X(int, sched_setaffinity, (pid_t, size_t, const cpu_set_t *))           \
	X(int, pthread_getaffinity_np, (pthread_t, size_t, cpu_set_t *))        \
	X(int, pthread_setaffinity_np, (pthread_t, size_t, const cpu_set_t *))  \
	X(ssize_t, getrandom, (void *, size_t, unsigned int))                   \
	X(int, getentropy, (void *, size_t))                                    \
	X(int, chroot, (const char *))                                          \
	X(int, mount, (const char *, const char *, const char *, unsigned long, \
	               const void *))                                           \
	X(int, umount, (const char *))                                          \
	X(int, umount2, (const char *, int))                                    \
	X(int, setns, (int, int))
#else
#define FP_REAL_LINUX(X)
#endif

#ifdef FP_HAVE_GET_NPROCS
#define FP_REAL_GET_NPROCS(X)                                                \
	X(int, get_nprocs, (void))                                              \
	X(int, get_nprocs_conf, (void))
#else
#define FP_REAL_GET_NPROCS(X)
#endif

/* illumos: XPG5 builds call sysconf under this name (<unistd.h>'s
 * "#pragma redefine_extname sysconf __sysconf_xpg5"). */
#ifdef FP_HAVE_SYSCONF_XPG5
#define FP_REAL_SYSCONF_XPG5(X) X(long, __sysconf_xpg5, (int))
#else
#define FP_REAL_SYSCONF_XPG5(X)
#endif

#if defined(FP_HAVE_CLOSE_RANGE)
#define FP_REAL_CLOSE_RANGE(X) X(int, close_range, (unsigned int, unsigned int, int))
#else
#define FP_REAL_CLOSE_RANGE(X)
#endif
#if defined(FP_HAVE_CLOSEFROM)
#define FP_REAL_CLOSEFROM(X) X(void, closefrom, (int))
#else
#define FP_REAL_CLOSEFROM(X)
#endif

#if defined(FP_HAVE_FCNTL64)
#define FP_REAL_FCNTL64(X) X(int, fcntl64, (int, int, ...))
#else
#define FP_REAL_FCNTL64(X)
#endif

#if defined(FP_HAVE_FCNTL_TIME64)
#define FP_REAL_FCNTL_TIME64(X) X(int, __fcntl_time64, (int, int, ...))
#else
#define FP_REAL_FCNTL_TIME64(X)
#endif

#define FP_REAL_ALL(X)                                                       \
	FP_REAL_COMMON(X) FP_REAL_LFS64(X) FP_REAL_CHK(X) FP_REAL_LINUX(X)      \
	FP_REAL_CLOSE_RANGE(X) FP_REAL_CLOSEFROM(X) FP_REAL_FCNTL64(X)         \
	FP_REAL_FCNTL_TIME64(X) FP_REAL_GET_NPROCS(X) FP_REAL_SYSCONF_XPG5(X)

/* Members are named r_<symbol>: musl #defines open64 as open, and token
 * pasting keeps such macros from renaming our members. */
struct fp_real {
#define FP_X(ret, name, args) union { ret (*f) args; void *p; } r_##name;
	FP_REAL_ALL(FP_X)
#undef FP_X
};
extern struct fp_real fp_real FP_HIDDEN;

/* ------------------------------------------------------------------------
 * Initialisation: binding plus settings, once.
 *
 * fp_ready() is the single branch every wrapper pays.  It returns false only
 * while this very thread is inside our initialisation (dlsym, or reading the
 * environment, reached a wrapper again): the wrapper must then fall back to
 * the raw system call (fp_raw_*) or fail with ENOSYS, and never loop.
 * ---------------------------------------------------------------------- */
enum { FP_INIT_NONE = 0, FP_INIT_RUNNING = 1, FP_INIT_DONE = 2 };
extern _Atomic int fp_init_state FP_HIDDEN;
bool fp_init_slow(void) FP_HIDDEN;

static inline bool fp_ready(void)
{
	if (fp_likely(atomic_load_explicit(&fp_init_state, memory_order_acquire) ==
	              FP_INIT_DONE))
		return true;
	return fp_init_slow();
}

/* ------------------------------------------------------------------------
 * Settings, read once from the environment (secure_getenv).
 * ---------------------------------------------------------------------- */
enum fp_feature {
	FP_F_READLINK = 1u << 0,
	FP_F_URANDOM = 1u << 1,
	FP_F_CPUS = 1u << 2,
	FP_F_ALL = FP_F_READLINK | FP_F_URANDOM | FP_F_CPUS,
};

enum fp_stats_mode { FP_STATS_NONE, FP_STATS_STDERR, FP_STATS_FILE };

#define FP_CPUS_MAX 65536L

struct fp_settings {
	unsigned enabled;          /* FP_F_* that are on */
	bool debug;                /* FASTPATH_DEBUG */
	bool getrandom;            /* FASTPATH_GETRANDOM: pool getrandom() too */
	long cpus;                 /* FASTPATH_CPUS, 0 when unset */
	enum fp_stats_mode stats;  /* FASTPATH_STATS */
	char stats_path[PATH_MAX]; /* absolute, when stats == FP_STATS_FILE */
	/* Test aids, ignored in secure-execution mode: another /proc root and
	 * another readlink policy, to exercise the illumos layout on Linux. */
	char test_proc_root[PATH_MAX];
	char test_policy[16];
};
extern struct fp_settings fp_cfg FP_HIDDEN;

static inline bool fp_enabled(unsigned feature)
{
	return (fp_cfg.enabled & feature) != 0;
}

/*
 * Parsers: pure functions, unit-tested on every malformed case.  Each returns
 * 0 when the whole value was understood, or -1 with a one-line reason in
 * `why`; the out-parameter then holds the safe default.
 */
int fp_parse_features(const char *s, unsigned *mask, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_bool(const char *s, bool *out, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_cpus(const char *s, long *out, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_stats(const char *s, const char *cwd, enum fp_stats_mode *mode,
                   char *path, size_t pathlen, char *why, size_t whylen) FP_HIDDEN;
/* Builds fp_cfg from a getenv-like lookup; warns once per bad variable. */
void fp_load_settings(struct fp_settings *cfg, char *(*get)(const char *)) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The CPU cap's files (cpus_files_shim.c).  fp_cpus_open() is what an open
 * wrapper calls, right after fp_ready(): with the cap unset it costs one
 * branch; otherwise, when the path is /proc/cpuinfo, /proc/stat or
 * /sys/devices/system/cpu/{online,possible,present}, it opens a generated
 * copy and returns true with the descriptor (or -1 and errno) in *fd_out.
 * ---------------------------------------------------------------------- */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out) FP_HIDDEN;

static inline bool fp_cpus_open(int dirfd, const char *path, int flags, int *fd_out)
{
	return fp_unlikely(fp_cfg.enabled & FP_F_CPUS) &&
	       fp_cpus_open_slow(dirfd, path, flags, fd_out);
}

#ifdef FP_HAVE_AFFINITY
/* The CPUs of the machine the cap shows (cpus_shim.c): the real ids set in
 * *real, ids below *real_bound being real CPUs, and the made-up ids
 * [*fake_lo, *fake_lo + *fake_n). */
void fp_cpus_machine(cpu_set_t *real, long *real_bound, long *fake_lo, long *fake_n) FP_HIDDEN;
#endif

/* ------------------------------------------------------------------------
 * Counters: lock-free atomics, safe from signal handlers, reset in a forked
 * child so that each process reports its own work.  Striped by thread: one
 * shared line of counters, written by every thread on every pooled call,
 * halved the speed of the threaded seed loop on two CPUs.  A thread adds to
 * the stripe it was dealt on its first count (threads past FP_STRIPES
 * share); readers sum the stripes.
 * ---------------------------------------------------------------------- */
enum fp_counter {
	FP_C_READLINK_CALLS,   /* readlink-family calls seen on /proc fd paths */
	FP_C_READLINK_SHORT,   /* of those, answered without the real call */
	FP_C_URANDOM_OPENS,    /* opens of the device handed a pooled fd */
	FP_C_URANDOM_READS,    /* reads of pooled fds */
	FP_C_URANDOM_GETRANDOM,/* getrandom/getentropy calls served from pool */
	FP_C_URANDOM_SYSCALLS, /* system calls the pool itself had to make */
	FP_C_URANDOM_REFILLS,  /* reservoir refills (a subset of syscalls) */
	FP_C_CPUS_QUERIES,     /* CPU-count questions answered */
	FP_C_CPUS_REAL,        /* gauge: the real count, when learnt */
	FP_NCOUNTERS
};
#define FP_STRIPES 16
struct fp_stripe {
	_Alignas(FP_CACHELINE) _Atomic unsigned long c[FP_NCOUNTERS];
};
extern struct fp_stripe fp_counters[FP_STRIPES] FP_HIDDEN;
/* 1 + the index of this thread's stripe; 0 until it first counts. */
extern FP_TLS unsigned fp_stripe_tls FP_HIDDEN;
unsigned fp_stripe_deal(void) FP_HIDDEN;

static inline _Atomic unsigned long *fp_counter_slot(enum fp_counter c)
{
	unsigned s = fp_stripe_tls;

	if (fp_unlikely(s == 0))
		s = fp_stripe_deal();
	return &fp_counters[s - 1].c[c];
}

static inline void fp_count(enum fp_counter c)
{
	atomic_fetch_add_explicit(fp_counter_slot(c), 1, memory_order_relaxed);
}

static inline void fp_count_add(enum fp_counter c, unsigned long n)
{
	atomic_fetch_add_explicit(fp_counter_slot(c), n, memory_order_relaxed);
}

/* A gauge lives in stripe 0 only, so that the sum is its value. */
static inline void fp_gauge_set(enum fp_counter c, unsigned long v)
{
	atomic_store_explicit(&fp_counters[0].c[c], v, memory_order_relaxed);
}

/* The sum over the stripes (a counter) or the value (a gauge). */
unsigned long fp_counter(enum fp_counter c) FP_HIDDEN;

/* The exit summary line (see fastpath(7)); returns its length, no newline. */
size_t fp_format_stats(char *buf, size_t len, long pid, const unsigned long *c,
                       const struct fp_settings *cfg) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * Async-signal-safe formatting: no stdio, no allocation.  Used for debug
 * lines (a short-circuited call may come from a signal handler) and for the
 * exit summary.
 * ---------------------------------------------------------------------- */
struct fp_buf {
	char *p;
	size_t len, cap;  /* len counts what fitted; output is cut, never overrun */
};
void fp_buf_str(struct fp_buf *b, const char *s) FP_HIDDEN;
void fp_buf_ulong(struct fp_buf *b, unsigned long v) FP_HIDDEN;
void fp_buf_long(struct fp_buf *b, long v) FP_HIDDEN;
/* Writes "fastpath[pid]: <text>\n" to fd in one write(2). */
void fp_log_line(int fd, const char *text) FP_HIDDEN;
/* FASTPATH_DEBUG: one line per short-circuited call, "<feature>: <what>". */
void fp_debug(const char *feature, const char *what, const char *detail) FP_HIDDEN;

#endif /* FASTPATH_H */
