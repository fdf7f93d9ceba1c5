/* SPDX-License-Identifier: MIT */
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

/* The C11 atomics every shim uses (<stdatomic.h>, _Atomic): gcc 4.9 and
 * clang 3.6 or later.  The gcc 4.7 of the 2013-2015 illumos images has the
 * __atomic builtins but neither, and would stop at the #include below with
 * no reason given; say why here instead (docs/illumos.md, "Compilers"). */
#if defined(__STDC_NO_ATOMICS__) || \
        (defined(__GNUC__) && defined(__GNUC_MINOR__) && !defined(__clang__) && \
         (__GNUC__ < 4 || (__GNUC__ == 4 && __GNUC_MINOR__ < 9)))
#  error "fastpath needs C11 atomics (<stdatomic.h>, _Atomic): gcc 4.9 or clang 3.6 or later"
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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Platform.  Everything that differs between glibc, musl and illumos is
 * decided here and nowhere else; the shims test only FP_HAVE_* names.
 * ---------------------------------------------------------------------- */
#if defined(__linux__)
#  define FP_LINUX 1
#  include <linux/magic.h>   /* filesystem magic numbers (statfs f_type) */
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
/* glibc >= 2.35 registers each thread's rseq area and exports where it
 * lies from the thread pointer (__rseq_offset; __rseq_size 0 where it is
 * not registered): its sched_getcpu() is a read of the area's cpu_id. */
#  if defined(FP_LINUX) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#    define FP_HAVE_RSEQ_AREA 1
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
/* vfork is wrapped by a frameless trampoline (vfork.c), written for these
 * instruction sets only; elsewhere a vfork child is known by getpid on the
 * rare paths alone (ur_table_ours). */
#  if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
#    define FP_HAVE_VFORK_TRAMPOLINE 1
#  endif
#endif
/* illumos: getrandom (2018) is not pooled there, see FASTPATH_GETRANDOM in
 * fastpath(7); nothing includes <sys/random.h>, which the platform images
 * of the reports (2013-2015) lack. */
#if defined(FP_ILLUMOS)
/* libc exports get_nprocs and get_nprocs_conf since SUNW_1.23 (they call
 * sysconf inside libc, out of our sight), and __sysconf_xpg5, which XPG5
 * builds call for sysconf. */
#  define FP_HAVE_GET_NPROCS 1
#  define FP_HAVE_SYSCONF_XPG5 1
/* dup3 arrived in ILLUMOS_0.4, after the oldest platform we load on: bound
 * only through the table (dlsym, FP_REAL_DUP3), a NULL pointer saying
 * ENOSYS (urandom_shim.c). */
#  define FP_HAVE_DUP3 1
#endif

/* illumos headers of the 2013-2015 images (the era of the reports), and
 * what each later addition falls back to there.  The fallback is also what
 * a newer build meets on an older kernel, so each one is checked at run
 * time as well (docs/illumos.md, "Building for the 2013 images"). */
/* O_DIRECTORY: illumos 2020.  Without it (or on a kernel that ignores the
 * bit) the walk's fp_of_dir_ok checks S_ISDIR itself (outfile.c). */
#ifndef O_DIRECTORY
#  define O_DIRECTORY 0
#endif
/* NAME_MAX in <limits.h>: illumos 2017; MAXNAMELEN (256, <sys/param.h>)
 * less the NUL before that. */
#ifndef NAME_MAX
#  define NAME_MAX 255
#endif
/* MC_INHERIT_ZERO: illumos 2015.  The value is the kernel's ABI; an older
 * kernel's memcntl answers the unknown command with EINVAL, and the pool
 * then checks the pid instead (ur_private_advise, urandom_pool.c). */
#if defined(FP_ILLUMOS) && !defined(MC_INHERIT_ZERO)
#  define MC_INHERIT_ZERO 8
#endif
/* RLIM_INFINITY was a signed (-3l) before illumos 2015 while rlim_t is
 * unsigned; compared as an rlim_t everywhere. */
#define FP_RLIM_INFINITY ((rlim_t)RLIM_INFINITY)
/* illumos's AT_FDCWD is the unsigned 0xffd19553; a descriptor argument
 * (an int) is compared with it as an int. */
#define FP_AT_FDCWD ((int)AT_FDCWD)
/* iov_len is a size_t, but a long on 32-bit illumos (<sys/uio.h>), whose
 * readv fails a negative one with EINVAL.  FP_IOV_TOTAL_FN(name, type)
 * defines bool name(const type *iov, int cnt, size_t max, size_t *total):
 * true with the sum when each length and the sum are at most max, a
 * negative length (as size_t, huge) never one of them.  A macro so that
 * the unit test instantiates it with a signed iov_len too. */
#define FP_IOV_TOTAL_FN(name, type)                                                     \
	static inline bool name(const type *iov, int cnt, size_t max, size_t *total)   \
	{                                                                               \
		size_t sum = 0;                                                         \
		int i;                                                                  \
                                                                                        \
		for (i = 0; i < cnt; i++) {                                             \
			size_t len = (size_t)iov[i].iov_len;                            \
                                                                                        \
			if (len > max || (len && !iov[i].iov_base))                     \
				return false;                                           \
			sum += len;                                                     \
			if (sum > max)                                                  \
				return false;                                           \
		}                                                                       \
		*total = sum;                                                           \
		return true;                                                            \
	}

/* S_IFDOOR exists only on illumos; the readlink policy is table-driven and
 * unit-tested on Linux too, so the constant is known everywhere. */
#ifndef S_IFDOOR
#  define S_IFDOOR 0xD000
#endif
#define FP_S_ISDOOR(m) (((m) & S_IFMT) == S_IFDOOR)
/* An illumos event port (port_create(3C)): S_IFPORT, 0xE000 in illumos's
 * <sys/stat.h>; known everywhere for the same reason. */
#ifndef S_IFPORT
#  define S_IFPORT 0xE000
#endif

#define FP_EXPORT __attribute__((visibility("default")))
#define FP_HIDDEN __attribute__((visibility("hidden")))
/* Thread-locals of a preloaded object sit in the static TLS block: no
 * allocation on first touch, so they are safe in a signal handler. */
#define FP_TLS __thread __attribute__((tls_model("initial-exec")))
/* A zero-initialised static that every start-up reads or writes: kept in
 * .data, whose one page the loader's relocations have already made
 * private, rather than in a page of .bss that a first read maps and a
 * first write copies again (issue 39: two page faults a process).  Only
 * for the few the constructor touches in a process that sets nothing. */
#define FP_STARTUP_DATA __attribute__((section(".data.fp_startup")))
/* Code that runs once, at start-up: beside the constructor the compiler
 * puts in .text.startup already, not spread over .text (issue 39: each
 * 64 KiB of text it touches is a page fault of every process). */
#define FP_STARTUP_TEXT __attribute__((section(".text.startup")))
/* Data written by one thread and read by others on every call gets a line
 * of its own. */
#define FP_CACHELINE 64
#define fp_likely(x) __builtin_expect(!!(x), 1)
#define fp_unlikely(x) __builtin_expect(!!(x), 0)

/* The kernel's entry points, for the few places where no libc function may
 * be called (a wrapped call made while we are still binding symbols). */
long fp_raw_openat(int dirfd, const char *path, int flags, mode_t mode) FP_HIDDEN;
long fp_raw_getrandom(void *buf, size_t n, unsigned flags) FP_HIDDEN;
ssize_t fp_raw_read(int fd, void *buf, size_t n) FP_HIDDEN;
int fp_raw_close(int fd) FP_HIDDEN;
ssize_t fp_raw_readlinkat(int dirfd, const char *path, char *buf, size_t n) FP_HIDDEN;
ssize_t fp_raw_write(int fd, const void *buf, size_t n) FP_HIDDEN;
void fp_raw_closefrom(int lo) FP_HIDDEN;

/* syscall(2) is wrapped where we can make a system call without it
 * (fastpath.c, fp_vsyscall: 64-bit x86 and Arm, the instruction itself),
 * so that the survey counts the calls a program makes through it
 * (urandom_survey.c).  Our own calls must then not reach the export: the
 * dynamic linker would bind them to it.  Every syscall() in our sources
 * is fp_sys6() instead: the instruction, errno as libc sets it. */
#if defined(FP_LINUX) && ((defined(__x86_64__) && defined(_LP64)) || defined(__aarch64__))
#  define FP_HAVE_SYSCALL_WRAP 1
long fp_vsyscall(long nr, va_list ap) FP_HIDDEN;
long fp_sys6(long nr, long a, long b, long c, long d, long e, long f) FP_HIDDEN;
/* Padded to six arguments here, not read as six by a variadic function:
 * that would read past what a caller of fewer pushed (ASan's
 * stack-buffer-underflow in fp_raw_closefrom). */
#  define syscall(...) FP_SYS6_PAD(__VA_ARGS__, 0L, 0L, 0L, 0L, 0L, 0L, 0L)
#  define FP_SYS6_PAD(nr, a, b, c, d, e, f, ...)                          \
	fp_sys6((long)(nr), (long)(a), (long)(b), (long)(c), (long)(d),      \
	        (long)(e), (long)(f))
/* The stand-in before binding: the instruction, as the wrapper. */
#  define FP_NR_SYSCALL                                                  \
	va_list ap_;                                                         \
	long r_;                                                             \
	va_start(ap_, nr);                                                   \
	r_ = fp_vsyscall(nr, ap_);                                           \
	va_end(ap_);                                                         \
	return r_;
#  define FP_REAL_SYSCALL(X) X(long, syscall, (long nr, ...), FP_NR_SYSCALL)
#else
#  define FP_REAL_SYSCALL(X)
#endif

/* Our own writes under the program's file-size limit (fastpath.c): past
 * RLIMIT_FSIZE a write to a regular file (a memfd too) raises SIGXFSZ,
 * which kills by default, for a write the program never made.  Between
 * fp_fsz_hold and fp_fsz_release the calling thread has every signal
 * blocked (no handler of the program runs inside), so such a write fails
 * with EFBIG instead, and the signal it left pending is taken back before
 * the thread's mask is restored.  fp_own_write is one write so held, with
 * SIGXFSZ alone blocked (its line may wait for a pipe's reader). */
struct fp_fsz {
	sigset_t old;
	bool held;
	bool had; /* a SIGXFSZ was pending before: the program's, not ours */
	bool had_own; /* ... for this thread (else the process's, or none) */
};
void fp_fsz_hold(struct fp_fsz *g) FP_HIDDEN;
void fp_fsz_release(struct fp_fsz *g) FP_HIDDEN;
ssize_t fp_own_write(int fd, const void *buf, size_t n) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The files the preload writes (outfile.c): reached so that no other user
 * can choose what they land in.  Each returns a descriptor, or -1 (a system
 * call failed; errno) or FP_OF_REFUSED (another user could redirect it),
 * with a one-line reason in why.  No strerror: async-signal-safe.
 * ---------------------------------------------------------------------- */
#define FP_OF_REFUSED (-2)
/* The directory dir[0..dirlen), absolute, every directory on the way safe. */
int fp_of_opendir(const char *dir, size_t dirlen, char *why, size_t whylen) FP_HIDDEN;
/* name in that directory, for appending: a regular file of ours, one link. */
int fp_of_append(const char *dir, size_t dirlen, const char *name, char *why,
                 size_t whylen) FP_HIDDEN;
/* A new file in dfd named prefix + 12 random hex digits + ".tmp" (O_EXCL). */
int fp_of_create(int dfd, const char *prefix, char *name, size_t namelen, bool shared) FP_HIDDEN;
/* FASTPATH_STATS's file (a path) or DIR/<euid>.log (a path ending in /). */
int fp_of_stats_open(const char *path, char *why, size_t whylen) FP_HIDDEN;
/* Appends the summary line there; says why in one line on stderr if not. */
void fp_of_stats_write(const char *path, const char *line, size_t n) FP_HIDDEN;
__attribute__((noreturn)) void fp_raw_exit(int status) FP_HIDDEN;

/*
 * libc symbols newer than the oldest platform we load on (illumos libc's
 * SUNW_1.23, see tests/illumos_libc_symbols.txt) are never linked directly:
 * we link with -z now, and ld.so.1 refuses a preload with a symbol libc
 * lacks, for every program.  They are bound at run time (FP_REAL_ILLUMOS)
 * with a fallback (FP_REAL_NEWER).  On illumos, explicit_bzero
 * (ILLUMOS_0.12, 2015) is spelt fp_explicit_bzero; glibc >= 2.25 and musl
 * >= 1.1.20 have it, so on Linux the shims' calls stay direct.
 */
void fp_explicit_bzero(void *p, size_t n) FP_HIDDEN;
/* Its fallback: a memset the compiler may not drop. */
void fp_zero(void *p, size_t n) FP_HIDDEN;
#if defined(FP_ILLUMOS)
#  define explicit_bzero fp_explicit_bzero
#endif

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
 *
 * Not ready yet: the one policy.  Until it is bound, each pointer holds a
 * stand-in made from the last column of its row (fastpath.c).  A call that
 * the C library itself makes while we bind (open, read, close, readlink,
 * getrandom) and a call that cannot report failure (closefrom, _exit) is
 * done by its system call (FP_NR_DO, FP_NR_VOID); get_nprocs, which cannot
 * fail either, says 1 (FP_NR_RET); every other call fails as a C library
 * does for a function it lacks, with ENOSYS (FP_NR_FAIL; pthread functions
 * return it).  A wrapper reaches libc only through FP_REAL(), and a
 * mitigation acts only when fp_enabled(); both go through fp_ready().  So
 * a wrapper that this very thread reaches again from inside our
 * initialisation (dlsym, or reading the environment) applies no mitigation
 * and gets the stand-in or the bound function: it never loops, and never
 * waits for itself.
 * ---------------------------------------------------------------------- */
#ifdef FP_LINUX
/* getcpu(2) itself: before binding, and where libc lacks getcpu. */
static inline int fp_nr_getcpu(unsigned int *cpu, unsigned int *node)
{
	return (int)syscall(SYS_getcpu, cpu, node, 0L);
}

static inline int fp_nr_sched_getcpu(void)
{
	unsigned int cpu = 0; /* the kernel writes it; the analyser cannot see that */

	return fp_nr_getcpu(&cpu, NULL) == 0 ? (int)cpu : -1;
}

/* mmap(2) itself, before binding (another object's constructor, or an
 * allocator preloaded after us that maps its memory while our binding asks
 * it for some); 32-bit: mmap2, whose offset is in pages. */
static inline void *fp_nr_mmap(void *a, size_t len, int prot, int flags, int fd, long long off)
{
	void *p;
	long r;

#ifdef SYS_mmap2
	if (off & 4095) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	r = syscall(SYS_mmap2, a, len, prot, flags, fd, (long)(off >> 12));
#else
	r = syscall(SYS_mmap, a, len, prot, flags, fd, (long)off);
#endif
	memcpy(&p, &r, sizeof p); /* the address the call returned (-1: MAP_FAILED) */
	return p;
}
#endif
/* A fork with no handlers run, as a child that only execs needs (vfork's
 * stand-in; vfork is wrapped on Linux only). */
static inline pid_t fp_nr_fork(void)
{
#ifdef FP_LINUX
	return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}
#define FP_NR_FAIL(v) errno = ENOSYS; return v;
#define FP_NR_RET(v) return v;
#define FP_NR_DO(call) return call;
#define FP_NR_VOID(call) call;
/* open's mode is read only when the flags say there is one (O_CREAT, or all
 * of O_TMPFILE's bits). */
#ifdef O_TMPFILE
#define FP_NEEDS_MODE(f) (((f) & O_CREAT) || ((f) & O_TMPFILE) == O_TMPFILE)
#else
#define FP_NEEDS_MODE(f) ((f) & O_CREAT)
#endif
#define FP_MODE(flags, mode)                                                 \
	do {                                                                 \
		if (FP_NEEDS_MODE(flags)) {                                  \
			va_list ap_;                                         \
			va_start(ap_, flags);                                \
			mode = (mode_t)va_arg(ap_, int);                     \
			va_end(ap_);                                         \
		}                                                            \
	} while (0)
/* The open family, not ready: openat(2) with the mode if there is one. */
#define FP_NR_OPEN(dirfd, more)                                              \
	mode_t mode = 0;                                                     \
	FP_MODE(flags, mode);                                                \
	return (int)fp_raw_openat(dirfd, path, flags | (more), mode);
#define FP_NR_OPEN_2(dirfd, more) return (int)fp_raw_openat(dirfd, path, flags | (more), 0);
/* A size larger than the buffer is glibc's to abort on, as it would. */
#define FP_NR_READ_CHK                                                       \
	if (n > buflen)                                                      \
		abort();                                                     \
	return fp_raw_read(fd, buf, n);
#define FP_NR_READLINK_CHK(dirfd)                                            \
	if (len > buflen) {                                                  \
		errno = ENOSYS;                                              \
		return -1;                                                   \
	}                                                                    \
	return fp_raw_readlinkat(dirfd, path, buf, len);

#define FP_REAL_COMMON(X)                                                                     \
	X(int, open, (const char *path, int flags, ...), FP_NR_OPEN(AT_FDCWD, 0))                \
	X(int, openat, (int dirfd, const char *path, int flags, ...), FP_NR_OPEN(dirfd, 0))      \
	X(ssize_t, read, (int fd, void *buf, size_t n), FP_NR_DO(fp_raw_read(fd, buf, n)))       \
	X(ssize_t, readv, (int fd, const struct iovec *iov, int cnt), FP_NR_FAIL(-1))            \
	X(ssize_t, pread, (int fd, void *buf, size_t n, off_t off), FP_NR_FAIL(-1))              \
	X(int, close, (int fd), FP_NR_DO(fp_raw_close(fd)))                                      \
	X(int, dup, (int fd), FP_NR_FAIL(-1))                                                    \
	X(int, dup2, (int fd, int to), FP_NR_FAIL(-1))                                           \
	X(int, fcntl, (int fd, int cmd, ...), FP_NR_FAIL(-1))                                    \
	X(int, flock, (int fd, int op), FP_NR_FAIL(-1))                                          \
	X(FILE *, fdopen, (int fd, const char *how), FP_NR_FAIL(NULL))                           \
	X(int, fclose, (FILE *f), FP_NR_FAIL(EOF))                                               \
	X(FILE *, freopen, (const char *path, const char *how, FILE *f), FP_NR_FAIL(NULL))       \
	X(int, daemon, (int nochdir, int noclose), FP_NR_FAIL(-1))                               \
	X(ssize_t, readlink, (const char *path, char *buf, size_t n),                            \
	  FP_NR_DO(fp_raw_readlinkat(AT_FDCWD, path, buf, n)))                                   \
	X(ssize_t, readlinkat, (int dirfd, const char *path, char *buf, size_t n),               \
	  FP_NR_DO(fp_raw_readlinkat(dirfd, path, buf, n)))                                      \
	X(long, sysconf, (int name), FP_NR_FAIL(-1))                                             \
	/* Survey mode's fork-vs-threads histogram (cpus_survey.c). */                            \
	X(pid_t, fork, (void), FP_NR_FAIL(-1))                                                   \
	/* vfork.c: a fork's system call, to jump to before binding. */                          \
	X(pid_t, vfork, (void), FP_NR_DO(fp_nr_fork()))                                          \
	X(int, pthread_create,                                                                   \
	  (pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg),               \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(void, _exit, (int status), FP_NR_VOID(fp_raw_exit(status)))                            \
	X(void, _Exit, (int status), FP_NR_VOID(fp_raw_exit(status)))

#ifdef FP_HAVE_LFS64
#define FP_REAL_LFS64(X)                                                                      \
	X(int, open64, (const char *path, int flags, ...), FP_NR_OPEN(AT_FDCWD, O_LARGEFILE))    \
	X(int, openat64, (int dirfd, const char *path, int flags, ...),                          \
	  FP_NR_OPEN(dirfd, O_LARGEFILE))                                                        \
	X(ssize_t, pread64, (int fd, void *buf, size_t n, off64_t off), FP_NR_FAIL(-1))          \
	X(FILE *, freopen64, (const char *path, const char *how, FILE *f), FP_NR_FAIL(NULL))
#else
#define FP_REAL_LFS64(X)
#endif

#ifdef FP_HAVE_GLIBC_CHK
#define FP_REAL_CHK(X)                                                                        \
	X(int, __open_2, (const char *path, int flags), FP_NR_OPEN_2(AT_FDCWD, 0))               \
	X(int, __open64_2, (const char *path, int flags), FP_NR_OPEN_2(AT_FDCWD, O_LARGEFILE))   \
	X(int, __openat_2, (int dirfd, const char *path, int flags), FP_NR_OPEN_2(dirfd, 0))     \
	X(int, __openat64_2, (int dirfd, const char *path, int flags),                           \
	  FP_NR_OPEN_2(dirfd, O_LARGEFILE))                                                      \
	X(ssize_t, __read_chk, (int fd, void *buf, size_t n, size_t buflen), FP_NR_READ_CHK)     \
	X(ssize_t, __readlink_chk, (const char *path, char *buf, size_t len, size_t buflen),     \
	  FP_NR_READLINK_CHK(AT_FDCWD))                                                          \
	X(ssize_t, __readlinkat_chk,                                                             \
	  (int dirfd, const char *path, char *buf, size_t len, size_t buflen),                   \
	  FP_NR_READLINK_CHK(dirfd))
#else
#define FP_REAL_CHK(X)
#endif

#ifdef FP_LINUX
#define FP_REAL_LINUX(X)                                                                      \
	X(int, sched_getaffinity, (pid_t pid, size_t size, cpu_set_t *mask), FP_NR_FAIL(-1))     \
	X(int, sched_setaffinity, (pid_t pid, size_t size, const cpu_set_t *mask),               \
	  FP_NR_FAIL(-1))                                                                        \
	/* pthread functions report errors by return value, not errno. */                        \
	X(int, pthread_getaffinity_np, (pthread_t t, size_t size, cpu_set_t *mask),              \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(int, pthread_setaffinity_np, (pthread_t t, size_t size, const cpu_set_t *mask),        \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(ssize_t, getrandom, (void *buf, size_t n, unsigned int flags),                         \
	  FP_NR_DO(syscall(SYS_getrandom, buf, n, flags)))                                       \
	X(int, getentropy, (void *buf, size_t n), FP_NR_FAIL(-1))                                \
	X(int, chroot, (const char *path), FP_NR_FAIL(-1))                                       \
	X(int, mount, (const char *src, const char *dst, const char *type,                       \
	               unsigned long flags, const void *data), FP_NR_FAIL(-1))                   \
	X(int, umount, (const char *dst), FP_NR_FAIL(-1))                                        \
	X(int, umount2, (const char *dst, int flags), FP_NR_FAIL(-1))                            \
	X(int, setns, (int fd, int type), FP_NR_FAIL(-1))                                        \
	/* getcpu: glibc >= 2.29 (NULL before: the wrapper makes the call). */                   \
	X(int, sched_getcpu, (void), FP_NR_DO(fp_nr_sched_getcpu()))                             \
	X(int, getcpu, (unsigned int *cpu, unsigned int *node), FP_NR_DO(fp_nr_getcpu(cpu, node))) \
	X(void *, mmap, (void *a, size_t len, int prot, int flags, int fd, off_t off),           \
	  FP_NR_DO(fp_nr_mmap(a, len, prot, flags, fd, off)))
#else
#define FP_REAL_LINUX(X)
#endif

/* get_nprocs cannot fail by contract; one CPU is always true.  NULL on an
 * illumos libc older than SUNW_1.23 (cpus_shim.c then asks sysconf). */
#ifdef FP_HAVE_GET_NPROCS
#define FP_REAL_GET_NPROCS(X)                                                                 \
	X(int, get_nprocs, (void), FP_NR_RET(1))                                                 \
	X(int, get_nprocs_conf, (void), FP_NR_RET(1))
#else
#define FP_REAL_GET_NPROCS(X)
#endif

/* illumos: sysconf's twin, which XPG5 builds call (<unistd.h>'s "#pragma
 * redefine_extname sysconf __sysconf_xpg5"); its row is sysconf's. */
#ifdef FP_HAVE_SYSCONF_XPG5
#define FP_REAL_SYSCONF_XPG5(X) X(long, __sysconf_xpg5, (int name), FP_NR_FAIL(-1))
#else
#define FP_REAL_SYSCONF_XPG5(X)
#endif

/* Newer than the oldest illumos we load on: looked up, never linked there
 * (see fp_explicit_bzero).  NULL where libc lacks them.  Bound on Linux too,
 * so that the unit tests can take both branches of the fallback. */
#define FP_REAL_NEWER(X) X(void, explicit_bzero, (void *p, size_t n), FP_NR_VOID(fp_zero(p, n)))

#if defined(FP_HAVE_CLOSE_RANGE)
#define FP_REAL_CLOSE_RANGE(X)                                                                \
	X(int, close_range, (unsigned int lo, unsigned int hi, int flags), FP_NR_FAIL(-1))
#else
#define FP_REAL_CLOSE_RANGE(X)
#endif
#if defined(FP_HAVE_CLOSEFROM)
#define FP_REAL_CLOSEFROM(X) X(void, closefrom, (int lo), FP_NR_VOID(fp_raw_closefrom(lo)))
#else
#define FP_REAL_CLOSEFROM(X)
#endif

#if defined(FP_HAVE_DUP3)
#define FP_REAL_DUP3(X) X(int, dup3, (int fd, int to, int flags), FP_NR_FAIL(-1))
#else
#define FP_REAL_DUP3(X)
#endif

#if defined(FP_HAVE_FCNTL64)
#define FP_REAL_FCNTL64(X) X(int, fcntl64, (int fd, int cmd, ...), FP_NR_FAIL(-1))
#else
#define FP_REAL_FCNTL64(X)
#endif

#if defined(FP_HAVE_FCNTL_TIME64)
struct msghdr;
/* What fstat, ioctl and sendmsg are in such programs too (urandom_seen.c);
 * the stat structure is glibc's internal 64-bit-time one, passed on. */
#define FP_REAL_FCNTL_TIME64(X)                                                               \
	X(int, __fcntl_time64, (int fd, int cmd, ...), FP_NR_FAIL(-1))                           \
	X(int, __fstat64_time64, (int fd, void *st), FP_NR_FAIL(-1))                             \
	X(int, __ioctl_time64, (int fd, unsigned long req, ...), FP_NR_FAIL(-1))                 \
	X(ssize_t, __sendmsg64, (int fd, const struct msghdr *msg, int flags), FP_NR_FAIL(-1))
#else
#define FP_REAL_FCNTL_TIME64(X)
#endif

/* Calls that must see the descriptors we hold as closed, and those that
 * change or copy an open file description (urandom_seen.c), and the
 * mount calls (roots.c).  Linux only; NULL where libc lacks one. */
#ifdef FP_LINUX
#  include <spawn.h>
#  include <sys/epoll.h>
#  include <sys/sendfile.h>
#  include <sys/socket.h>
#  ifdef __GLIBC__
#    define FP_IOCTL_REQ unsigned long
typedef __off64_t fp_loff_t;
#  else
#    define FP_IOCTL_REQ int
typedef off_t fp_loff_t;
#  endif
struct mount_attr;
#define FP_REAL_SEEN(X)                                                                       \
	X(int, fstat, (int fd, struct stat *st), FP_NR_FAIL(-1))                                 \
	X(off_t, lseek, (int fd, off_t off, int whence), FP_NR_FAIL(-1))                         \
	X(int, ioctl, (int fd, FP_IOCTL_REQ req, ...), FP_NR_FAIL(-1))                           \
	X(ssize_t, preadv, (int fd, const struct iovec *iov, int cnt, off_t off), FP_NR_FAIL(-1)) \
	X(ssize_t, preadv2, (int fd, const struct iovec *iov, int cnt, off_t off, int flags),    \
	  FP_NR_FAIL(-1))                                                                        \
	X(ssize_t, sendfile, (int out, int in, off_t *off, size_t n), FP_NR_FAIL(-1))            \
	X(ssize_t, splice, (int in, fp_loff_t *ioff, int out, fp_loff_t *ooff, size_t n,         \
	                    unsigned flags), FP_NR_FAIL(-1))                                     \
	X(ssize_t, tee, (int in, int out, size_t n, unsigned flags), FP_NR_FAIL(-1))             \
	X(ssize_t, copy_file_range, (int in, fp_loff_t *ioff, int out, fp_loff_t *ooff,          \
	                             size_t n, unsigned flags), FP_NR_FAIL(-1))                  \
	X(int, epoll_ctl, (int epfd, int op, int fd, struct epoll_event *ev), FP_NR_FAIL(-1))    \
	X(int, epoll_wait, (int epfd, struct epoll_event *ev, int max, int ms), FP_NR_FAIL(-1))  \
	X(int, epoll_pwait, (int epfd, struct epoll_event *ev, int max, int ms,                  \
	                     const sigset_t *mask), FP_NR_FAIL(-1))                              \
	X(ssize_t, sendmsg, (int fd, const struct msghdr *msg, int flags), FP_NR_FAIL(-1))       \
	X(int, posix_spawn_file_actions_adddup2,                                                 \
	  (posix_spawn_file_actions_t *fa, int fd, int to), FP_NR_RET(ENOSYS))                   \
	X(int, posix_spawn_file_actions_addclose, (posix_spawn_file_actions_t *fa, int fd),      \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(int, posix_spawn_file_actions_addfchdir_np, (posix_spawn_file_actions_t *fa, int fd),  \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(pid_t, _Fork, (void), FP_NR_FAIL(-1))                                                  \
	X(int, clone, (int (*fn)(void *), void *stack, int flags, void *arg, ...),               \
	  FP_NR_FAIL(-1))                                                                        \
	X(int, unshare, (int flags), FP_NR_FAIL(-1))                                             \
	X(int, move_mount, (int fdir, const char *fpath, int tdir, const char *tpath,            \
	                    unsigned flags), FP_NR_FAIL(-1))                                     \
	X(int, fsmount, (int fsfd, unsigned flags, unsigned attr), FP_NR_FAIL(-1))               \
	X(int, open_tree, (int dirfd, const char *path, unsigned flags), FP_NR_FAIL(-1))         \
	X(int, mount_setattr, (int dirfd, const char *path, unsigned flags, struct mount_attr *attr, \
	                       size_t size), FP_NR_FAIL(-1))
#else
#define FP_REAL_SEEN(X)
#endif
#if defined(FP_LINUX) && defined(FP_HAVE_LFS64)
#define FP_REAL_SEEN64(X)                                                                     \
	X(ssize_t, __pread_chk, (int fd, void *buf, size_t n, off_t off, size_t buflen),         \
	  FP_NR_FAIL(-1))                                                                        \
	X(ssize_t, __pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen),     \
	  FP_NR_FAIL(-1))                                                                        \
	X(int, fstat64, (int fd, struct stat64 *st), FP_NR_FAIL(-1))                             \
	/* What fstat is in programs built against glibc < 2.33 (node). */                      \
	X(int, __fxstat, (int ver, int fd, struct stat *st), FP_NR_FAIL(-1))                     \
	X(int, __fxstat64, (int ver, int fd, struct stat64 *st), FP_NR_FAIL(-1))                 \
	X(void *, mmap64, (void *a, size_t len, int prot, int flags, int fd, off64_t off),       \
	  FP_NR_DO(fp_nr_mmap(a, len, prot, flags, fd, off)))                                    \
	X(off64_t, lseek64, (int fd, off64_t off, int whence), FP_NR_FAIL(-1))                   \
	X(ssize_t, preadv64, (int fd, const struct iovec *iov, int cnt, off64_t off),            \
	  FP_NR_FAIL(-1))                                                                        \
	X(ssize_t, preadv64v2, (int fd, const struct iovec *iov, int cnt, off64_t off,           \
	                        int flags), FP_NR_FAIL(-1))                                      \
	X(ssize_t, sendfile64, (int out, int in, off64_t *off, size_t n), FP_NR_FAIL(-1))
#else
#define FP_REAL_SEEN64(X)
#endif

/* glibc's affinity in a thread attribute, which pthread_create applies
 * through an internal call (cpus_shim.c translates the mask first). */
#if defined(FP_LINUX) && defined(__GLIBC__)
#define FP_HAVE_ATTR_AFFINITY 1
#define FP_REAL_ATTR_AFFINITY(X)                                                              \
	X(int, pthread_attr_setaffinity_np,                                                      \
	  (pthread_attr_t *a, size_t size, const cpu_set_t *mask), FP_NR_RET(ENOSYS))            \
	X(int, pthread_attr_getaffinity_np,                                                      \
	  (const pthread_attr_t *a, size_t size, cpu_set_t *mask), FP_NR_RET(ENOSYS))
#else
#define FP_REAL_ATTR_AFFINITY(X)
#endif

#define FP_REAL_ALL(X)                                                       \
	FP_REAL_COMMON(X) FP_REAL_LFS64(X) FP_REAL_CHK(X) FP_REAL_LINUX(X)      \
	FP_REAL_ATTR_AFFINITY(X)                                                \
	FP_REAL_NEWER(X) FP_REAL_CLOSE_RANGE(X) FP_REAL_CLOSEFROM(X) FP_REAL_FCNTL64(X)         \
	FP_REAL_FCNTL_TIME64(X) FP_REAL_GET_NPROCS(X) FP_REAL_SYSCONF_XPG5(X) FP_REAL_DUP3(X)  \
	FP_REAL_SEEN(X) FP_REAL_SEEN64(X) FP_REAL_SYSCALL(X)

/* Members are named r_<symbol>: musl #defines open64 as open, and token
 * pasting keeps such macros from renaming our members. */
struct fp_real {
#define FP_X(ret, name, params, unready) union { ret (*f) params; void *p; } r_##name;
	FP_REAL_ALL(FP_X)
#undef FP_X
};
extern struct fp_real fp_real FP_HIDDEN;

/* The real function, once initialisation has run (or, inside it, in this
 * thread, the stand-in): the only way a wrapper reaches the C library. */
#define FP_REAL(name) ((void)fp_ready(), fp_real.r_##name.f)

/* The CPU the kernel last wrote in this thread's rseq area, as glibc's
 * sched_getcpu() reads it; -1 where there is none (no area registered, a C
 * library without one: glibc's sched_getcpu then asks the vDSO).  Where
 * the cpu_id lies from the thread pointer: 0 not known yet, 1 none; a real
 * one is the area's offset, a multiple of 32, plus 4.  Learnt on the first
 * call, the same for every thread. */
extern _Atomic ptrdiff_t fp_rseq_at FP_HIDDEN;
ptrdiff_t fp_rseq_learn(void) FP_HIDDEN;

static inline int fp_rseq_cpu(void)
{
#ifdef FP_HAVE_RSEQ_AREA
	ptrdiff_t at = atomic_load_explicit(&fp_rseq_at, memory_order_relaxed);

	if (fp_unlikely(at == 0))
		at = fp_rseq_learn();
	if (at == 1)
		return -1;
#if defined(__x86_64__) || defined(__i386__)
	{
		/* As glibc reads it, off the thread's segment (gcc before 11
		 * and older clang have no __builtin_thread_pointer here). */
		int32_t cpu;

#ifdef __x86_64__
		__asm__ volatile("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(at));
#else
		__asm__ volatile("movl %%gs:(%1), %0" : "=r"(cpu) : "r"(at));
#endif
		return cpu;
	}
#else
	return *(volatile const int32_t *)((const char *)__builtin_thread_pointer() + at);
#endif
#else
	return -1;
#endif
}

#ifdef FP_LINUX
/* f, a bound real function, is the C library's own (fastpath.c). */
bool fp_in_libc(const void *f) FP_HIDDEN;
#endif

/* The compiler may not assume a declared-nonnull argument is non-NULL:
 * libc's contract for NULL (EFAULT) must survive. */
static inline const void *fp_opaque(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

/* ------------------------------------------------------------------------
 * Initialisation: binding plus settings, once.
 *
 * fp_ready() is the single branch every wrapper pays.  It returns false only
 * while this very thread is inside our initialisation (dlsym, or reading the
 * environment, reached a wrapper again); wrappers do not test it themselves:
 * FP_REAL() and fp_enabled() do (see "Not ready yet" above).
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
 * fstat and mmap for our own use.  A plain call in this object binds to
 * its own exported wrapper (urandom_seen.c's fstat, which sees the numbers
 * we hold as closed; cpus_fd.c's mmap), the first definition the dynamic
 * linker finds: these reach the C library's.  glibc before 2.33 exports
 * no fstat (its fstat is __fxstat, with the stat version the headers of
 * that time named _STAT_VER): there it is __fxstat.
 * ---------------------------------------------------------------------- */
#if defined(_STAT_VER)
#  define FP_STAT_VER _STAT_VER
#elif defined(__x86_64__)
#  define FP_STAT_VER 1
#elif defined(__aarch64__) || defined(__riscv) || defined(__loongarch__)
#  define FP_STAT_VER 0 /* the generic ABI's: the kernel's own stat */
#else
#  define FP_STAT_VER 3
#endif

static inline int fp_fstat(int fd, struct stat *st)
{
#ifdef FP_LINUX
	int (*real)(int, struct stat *) = FP_REAL(fstat);

	if (fp_likely(real != NULL))
		return real(fd, st);
#  ifdef FP_HAVE_LFS64
	if (fp_real.r___fxstat.f)
		return fp_real.r___fxstat.f(FP_STAT_VER, fd, st);
#  endif
	errno = ENOSYS;
	return -1;
#else
	return fstat(fd, st);
#endif
}

/* stat and fstatat for our own use: on Linux the exported ones are the
 * CPU cap's (cpus_fd.c), and these reach the C library's (glibc before
 * 2.33: __fxstatat).  A unit test without cpus_fd.c exports none, and
 * there the plain call is the C library's. */
#if defined(FP_LINUX) && defined(FP_UNIT_TEST)
int fp_cpus_fstatat(int dirfd, const char *path, struct stat *st, int flags)
	__attribute__((weak)) FP_HIDDEN;
static inline int fp_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	if (fp_cpus_fstatat)
		return fp_cpus_fstatat(dirfd, path, st, flags);
	return fstatat(dirfd, path, st, flags);
}
#elif defined(FP_LINUX)
int fp_cpus_fstatat(int dirfd, const char *path, struct stat *st, int flags) FP_HIDDEN;
#  define fp_fstatat fp_cpus_fstatat
#else
#  define fp_fstatat fstatat
#endif
#define fp_stat(path, st) fp_fstatat(AT_FDCWD, path, st, 0)

/* Is fd a number the urandom mitigation holds, closed to the program
 * (urandom_seen.c)?  Weak: a unit test of another mitigation alone links
 * none, and then no number is held.  illumos: fstat is not wrapped there,
 * and a held number looks open to it, from the program or from us. */
#ifdef FP_LINUX
bool fp_fd_held(int fd) __attribute__((weak)) FP_HIDDEN;
#  define FP_FD_HELD(fd) (fp_fd_held && fp_fd_held(fd))
#else
#  define FP_FD_HELD(fd) false
#endif

static inline void *fp_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
#ifdef FP_LINUX
	/* Not FP_REAL: the debug line of our own binding maps its buffer
	 * here (fp_log_parts); the table's stand-in, until bound, is the
	 * system call. */
	void *(*real)(void *, size_t, int, int, int, off_t) = fp_real.r_mmap.f;

	return real ? real(a, len, prot, flags, fd, off) : fp_nr_mmap(a, len, prot, flags, fd, off);
#else
	/* Through void *: before illumos#14418 (2022) illumos declared mmap
	 * to return caddr_t. */
	return (void *)mmap(a, len, prot, flags, fd, off);
#endif
}

/* ------------------------------------------------------------------------
 * vfork children (vfork.c).  A vfork child runs on its parent's memory,
 * its thread's TLS included, with a descriptor table of its own: whatever
 * it records about descriptors would be the parent's records.  The
 * trampoline marks the calling thread just before the real vfork, and
 * fp_vfork_child tells the child (another pid) from the parent resumed
 * (which clears the mark).  One thread-local load while nobody vforks.
 * ---------------------------------------------------------------------- */
enum { FP_VFORK_NONE, FP_VFORK_WAITING, FP_VFORK_STICKY };
extern FP_TLS unsigned char fp_vforking FP_HIDDEN;
bool fp_vfork_child_slow(void) FP_HIDDEN;
/* Before a clone(CLONE_VM) of this thread whose child keeps this TLS:
 * sticky unless the caller waits for the child (CLONE_VFORK), then
 * fp_vfork_done once it is back. */
void fp_vfork_mark(bool sticky) FP_HIDDEN;
void fp_vfork_done(void) FP_HIDDEN;
void fp_vfork_forget(void) FP_HIDDEN;  /* a fork child: its memory is its own */

static inline bool fp_vfork_child(void)
{
	return fp_unlikely(fp_vforking != FP_VFORK_NONE) && fp_vfork_child_slow();
}

/* ------------------------------------------------------------------------
 * This thread's own read-modify-writes (counters.c says why they are
 * enough where they are used).  One instruction each, without x86's lock
 * prefix: atomic against everything that can run on this thread between
 * two of its instructions (a signal handler is entered only there), not
 * against another CPU.  Elsewhere than x86 they are the locked atomics.
 * ---------------------------------------------------------------------- */
#if defined(__x86_64__) || defined(__i386__)
#define FP_HAVE_LOCAL_RMW 1
#if __SIZEOF_LONG__ == 8
#define FP_ADDL "addq"
#else
#define FP_ADDL "addl"
#endif
static inline void fp_local_add(_Atomic unsigned long *p, unsigned long v)
{
	__asm__ __volatile__(FP_ADDL " %1, %0" : "+m"(*(unsigned long *)p) : "ir"(v) : "cc");
}

static inline bool fp_local_cas_int(_Atomic int *p, int *expect, int desired)
{
	int prev = *expect;

	__asm__ __volatile__("cmpxchgl %2, %1"
	                     : "+a"(prev), "+m"(*(int *)p)
	                     : "r"(desired)
	                     : "memory", "cc");
	if (prev == *expect)
		return true;
	*expect = prev;
	return false;
}

static inline bool fp_local_cas_uchar(_Atomic unsigned char *p, unsigned char *expect,
                                      unsigned char desired)
{
	unsigned char prev = *expect;

	__asm__ __volatile__("cmpxchgb %2, %1"
	                     : "+a"(prev), "+m"(*(unsigned char *)p)
	                     : "q"(desired)
	                     : "memory", "cc");
	if (prev == *expect)
		return true;
	*expect = prev;
	return false;
}
#else
#define FP_HAVE_LOCAL_RMW 0
static inline void fp_local_add(_Atomic unsigned long *p, unsigned long v)
{
	atomic_fetch_add_explicit(p, v, memory_order_relaxed);
}

static inline bool fp_local_cas_int(_Atomic int *p, int *expect, int desired)
{
	return atomic_compare_exchange_strong(p, expect, desired);
}

static inline bool fp_local_cas_uchar(_Atomic unsigned char *p, unsigned char *expect,
                                      unsigned char desired)
{
	return atomic_compare_exchange_strong(p, expect, desired);
}
#endif

/* Exchange, as a compare-exchange loop: a handler that changed *p between
 * the load and the compare makes the compare fail, and it is tried again. */
static inline int fp_local_xchg_int(_Atomic int *p, int v)
{
	int old = atomic_load_explicit(p, memory_order_relaxed);

	while (!fp_local_cas_int(p, &old, v))
		;
	return old;
}

/* ------------------------------------------------------------------------
 * Threads (counters.c).  fp_one_thread(): the process has one thread, so
 * that what only this thread and its signal handlers touch needs no locked
 * instruction.  Known from glibc's __libc_single_threaded (which every
 * thread the C library makes clears, its own helpers too) together with
 * ours: pthread_create and clone with CLONE_VM (fp_threads_made).  Where
 * the C library has no such word (musl, illumos, whose helpers make
 * threads we cannot see), always false.  A thread made by a raw clone
 * system call is no thread to either (the C library's own locks skip
 * then too).
 * ---------------------------------------------------------------------- */
extern _Atomic bool fp_threads FP_HIDDEN;
extern const volatile char *fp_libc_single FP_HIDDEN;
/* Its address as the binding's walk found it (fastpath.c); false:
 * unknown, dlsym's to say. */
bool fp_walked_single(const volatile char **at) FP_HIDDEN;

static inline bool fp_one_thread(void)
{
	const volatile char *l = fp_libc_single;

	return FP_HAVE_LOCAL_RMW && l && *l &&
	       !atomic_load_explicit(&fp_threads, memory_order_relaxed);
}

/* This thread's errno, by an address learnt once: the C library's
 * __errno_location is a call through the PLT at every use, and the
 * address never changes for the thread (a new thread starts with ours
 * zero again). */
extern FP_TLS int *fp_errno_at FP_HIDDEN;

static inline int *fp_errno(void)
{
	int *p = fp_errno_at;

	if (fp_unlikely(!p))
		p = fp_errno_at = &errno;
	return p;
}

/* No thread seen made, by us or the C library: a policy (how much to
 * keep), never a licence for unlocked instructions, so also where the C
 * library has no word for it (musl, illumos: ours alone) and on
 * architectures without the unlocked forms. */
static inline bool fp_no_threads(void)
{
	const volatile char *l = fp_libc_single;

	/* The C library's word first, as fp_one_thread: once it says threads,
	 * ours is not read (drd would pair that load with the next
	 * pthread_create's store). */
	return (!l || *l) && !atomic_load_explicit(&fp_threads, memory_order_relaxed);
}

/* Before a thread that shares our memory can run: from then on every
 * read-modify-write is a locked one. */
static inline void fp_threads_made(void)
{
	atomic_store_explicit(&fp_threads, true, memory_order_relaxed);
}
/* In pthread_create, before the thread is made: the key that gives a
 * thread's stripe back at its end. */
void fp_thread_key_make(void) FP_HIDDEN;
/* In a thread made by pthread_create (cpus_survey.c's start), first. */
void fp_thread_begin(void) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * Counters: exact, safe from signal handlers, reset in a forked child so
 * that each process reports its own work.  Each mitigation owns a set of
 * them (struct fp_mitigation.counters), striped by thread: one stripe (a
 * cache line of counters) per thread that counts, written by it alone, so
 * that a count is one add without a lock (counters.c).  Stripe 0 is
 * shared (locked adds), for a thread that found none free, and holds the
 * gauges.  Readers sum the stripes.
 * ---------------------------------------------------------------------- */
#define FP_STRIPES 64
#define FP_MAX_COUNTERS 8  /* per mitigation: one cache line per stripe */
struct fp_stripe {
	_Alignas(FP_CACHELINE) _Atomic unsigned long c[FP_MAX_COUNTERS];
};
/* 0 until this thread first counts; 1: it counts in the shared stripe 0;
 * s > 1: stripe s - 1 is its own. */
extern FP_TLS unsigned fp_stripe_tls FP_HIDDEN;
void fp_count_slow(struct fp_stripe *set, unsigned c) FP_HIDDEN;

/* Counts are read only by the exit summary: while it is off (settings,
 * before the mitigations start), a count is one branch.  The unit tests,
 * which read the counts themselves, always count. */
#ifdef FP_UNIT_TEST
#define FP_COUNT_ALWAYS true
#else
#define FP_COUNT_ALWAYS false
#endif
extern _Atomic bool fp_counting FP_HIDDEN;

static inline void fp_count(struct fp_stripe *set, unsigned c)
{
	unsigned s;

	if (fp_likely(!atomic_load_explicit(&fp_counting, memory_order_relaxed)))
		return;
	s = fp_stripe_tls;
	if (fp_likely(s > 1))
		fp_local_add(&set[s - 1].c[c], 1);
	else
		fp_count_slow(set, c);
}

/* A gauge lives in stripe 0 only, so that the sum is its value. */
static inline void fp_gauge_set(struct fp_stripe *set, unsigned c, unsigned long v)
{
	atomic_store_explicit(&set[0].c[c], v, memory_order_relaxed);
}

/* The sum over the stripes (a counter) or the value (a gauge). */
unsigned long fp_counter(const struct fp_stripe *set, unsigned c) FP_HIDDEN;
/* counters.c's part of initialisation, and of a fork child (where the
 * forking thread is the only one). */
void fp_counters_init(void) FP_HIDDEN;
void fp_counters_child(void) FP_HIDDEN;

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
/* Bytes at s that show as one character on a terminal; 0: to escape. */
size_t fp_shown_len(const unsigned char *s, size_t n) FP_HIDDEN;
/* s with those bytes, spaces and backslashes as \ooo: one safe token. */
void fp_buf_escaped(struct fp_buf *b, const char *s) FP_HIDDEN;
/* Writes "fastpath[pid]: <text>\n" to fd in one write(2); the _parts
 * form writes the n strings of parts one after another as the text. */
void fp_log_line(int fd, const char *text) FP_HIDDEN;
void fp_log_parts(int fd, const char *const *parts, size_t n) FP_HIDDEN;
/* FASTPATH_DEBUG: one line per short-circuited call, "<feature>: <what>". */
void fp_debug(const char *feature, const char *what, const char *detail) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * Mitigations.  Each one is a descriptor in its own unit, listed once in
 * the registry (mitigations.h).  The core knows no mitigation by name: it
 * owns the constructor and pthread_atfork, and loops over fp_mitigations[]
 * for FASTPATH_DISABLE, the settings, the exit summary and fork.
 * ---------------------------------------------------------------------- */
/* A getenv-like lookup: secure_getenv, or nothing in secure-execution mode. */
typedef char *(*fp_getenv_fn)(const char *);

/* A real symbol a mitigation binds beyond FP_REAL_ALL: a row of the same
 * shape in its own unit (FP_REAL_OWN), bound with the rest, and called
 * through FP_OWN() as FP_REAL() calls the table's.  As in the table, a
 * stand-in may ignore its parameters. */
struct fp_sym {
	const char *name;
	void **slot;
};
#define FP_REAL_OWN(ret, name, params, unready)                              \
	_Pragma("GCC diagnostic push")                                       \
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")             \
	static ret fp_unready_##name params { unready }                      \
	_Pragma("GCC diagnostic pop")                                        \
	static union { ret (*f) params; void *p; } fp_own_##name = { .f = fp_unready_##name }
#define FP_SYM(name) { #name, &fp_own_##name.p }
#define FP_OWN(name) ((void)fp_ready(), fp_own_##name.f)

struct fp_mitigation {
	const char *name;   /* in FASTPATH_DISABLE and the summary line */
	unsigned bit;       /* FP_BIT(name) */
	/* Reads its own settings through get, warning (fp_warn) about a bad
	 * one and keeping its safe default; returns whether it is on unless
	 * FASTPATH_DISABLE names it.  NULL: no settings, on. */
	bool (*load)(fp_getenv_fn get);
	/* Its field of the summary line, after "<name> ", when it is on; c
	 * holds its counters, summed. */
	void (*stats)(struct fp_buf *b, const unsigned long *c);
	struct fp_stripe *counters;  /* [FP_STRIPES], ncounters of each used */
	unsigned ncounters;
	unsigned gauges;             /* bit i: counter i is a gauge (kept in a child) */
	/* Once, at the end of initialisation (settings known). */
	void (*init)(void);
	/* Its own real symbols (FP_REAL_OWN), if it has any. */
	const struct fp_sym *syms;
	size_t nsyms;
	/* Survey mode (FASTPATH_SURVEY): its counters, written into each
	 * process's record under their keys, and zeroed in a fork child. */
	const struct fp_survey *survey;
	/* Stays in force under survey: it acts only on an explicit operator
	 * setting (the CPU count), which the survey must reproduce. */
	bool survey_keeps;
	/* pthread_atfork hooks, run for every mitigation, on or off. */
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
	/* The process changed its root or its mounts by its own hand
	 * (chroot, mount, setns, unshare...: roots.c): what it learnt about
	 * the files under a path is to be learnt again.  Async-signal-safe. */
	void (*rooted)(void);
	/* Just before the process's own unshare(flags) (roots.c), while the
	 * descriptor table is still shared with its other threads. */
	void (*unsharing)(int flags);
	/* Just before a vfork (vfork.c), in the parent: what a fork's prepare
	 * does for descriptors the child's copy of the table will share.  No
	 * parent or child hook follows: the child must not touch our memory
	 * (fp_vfork_child), and the parent resumes in the C library. */
	void (*vforking)(void);
};

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

#include "mitigations.h"

/* A mitigation's descriptor: FP_MITIGATION(name, .load = ..., ...); the
 * name and bit come from the registry. */
#define FP_MITIGATION(name_, ...)                                            \
	extern const struct fp_mitigation fp_mit_##name_ FP_HIDDEN;          \
	const struct fp_mitigation fp_mit_##name_ = {                         \
		.name = #name_, .bit = FP_BIT(name_), __VA_ARGS__ }

#define FP_X(name) FP_M_##name,
enum { FP_MITIGATIONS(FP_X) FP_NMITIGATIONS };
#undef FP_X
#define FP_BIT(name) (1u << FP_M_##name)
#define FP_ALL ((1u << FP_NMITIGATIONS) - 1)
_Static_assert(FP_NMITIGATIONS <= 31, "one bit each in an unsigned");

/* The table the core loops over (mitigations.c; a unit test that links
 * only some mitigations defines its own). */
extern const struct fp_mitigation *const fp_mitigations[] FP_HIDDEN;
extern const size_t fp_nmitigations FP_HIDDEN;
#define FP_TABLE(...)                                                        \
	const struct fp_mitigation *const fp_mitigations[] = { __VA_ARGS__ }; \
	const size_t fp_nmitigations = sizeof fp_mitigations / sizeof fp_mitigations[0]

/* ------------------------------------------------------------------------
 * Settings, read once from the environment (secure_getenv).
 * ---------------------------------------------------------------------- */
enum fp_stats_mode { FP_STATS_NONE, FP_STATS_STDERR, FP_STATS_FILE, FP_STATS_DIR };

/* The paths last, each read only when its flag says so: a process that sets
 * neither touches only the first page (fp_load_settings). */
struct fp_settings {
	unsigned enabled;          /* FP_BIT()s of the mitigations that are on */
	bool debug;                /* FASTPATH_DEBUG */
	enum fp_stats_mode stats;  /* FASTPATH_STATS */
	bool survey;               /* FASTPATH_SURVEY */
	unsigned long survey_every; /* record rewrite interval, in 2^30 ns ticks */
	/* PATH_MAX bytes each, elsewhere: the scalars above are what every
	 * start-up writes, and share a page with the other small statics
	 * (issue 39); a path is written only when its variable is set. */
	char *stats_path;          /* absolute; FP_STATS_DIR's ends in '/'; if stats >= FILE */
	char *survey_dir;          /* absolute; if survey */
};
extern struct fp_settings fp_cfg FP_HIDDEN;

/* Is this mitigation on?  Runs initialisation first if nobody has; false
 * inside it (see "Not ready yet" above). */
static inline bool fp_enabled(unsigned bit)
{
	return fp_ready() && (fp_cfg.enabled & bit) != 0;
}

/* In survey mode?  (Runs initialisation first if nobody has.) */
static inline bool fp_surveying(void)
{
	return fp_ready() && fp_cfg.survey;
}

/*
 * Parsers: pure functions, unit-tested on every malformed case.  Each returns
 * 0 when the whole value was understood, or -1 with a one-line reason in
 * `why`; the out-parameter then holds the safe default.
 */
int fp_parse_features(const char *s, unsigned *mask, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_bool(const char *s, bool *out, char *why, size_t whylen) FP_HIDDEN;
/* A whole number from 1 to max; empty means unset (0). */
int fp_parse_count(const char *s, long max, long *out, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_stats(const char *s, const char *cwd, enum fp_stats_mode *mode,
                   char *path, size_t pathlen, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_dir(const char *s, const char *cwd, char *path, size_t pathlen, char *why,
                 size_t whylen) FP_HIDDEN;
/* The one line about a setting that was not understood. */
void fp_warn(const char *var, const char *val, const char *why,
             const char *fallback) FP_HIDDEN;
/* Builds cfg, and each mitigation's own settings, from a getenv-like
 * lookup; warns once per bad variable. */
void fp_load_settings(struct fp_settings *cfg, fp_getenv_fn get) FP_HIDDEN;

/* The exit summary line (see fastpath(7)); returns its length, no newline.
 * c[i] holds the counters of fp_mitigations[i]. */
size_t fp_format_stats(char *buf, size_t len, long pid,
                       const unsigned long (*c)[FP_MAX_COUNTERS], unsigned enabled) FP_HIDDEN;

#endif /* FASTPATH_H */
