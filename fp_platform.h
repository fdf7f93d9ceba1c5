/* SPDX-License-Identifier: MIT */
/*
 * fp_platform.h: every platform difference the core decides (the C
 * library, the kernel, the compiler), the headers they need, and the
 * attributes every unit uses.  Included first, through fastpath.h; a
 * mitigation's own platform bits are in its own header.
 */
#ifndef FP_PLATFORM_H
#define FP_PLATFORM_H

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
#  include <sys/statfs.h>
#  include <sys/syscall.h>
#elif defined(__sun)
#  define FP_ILLUMOS 1
#  include <sys/mman.h>
#  include <sys/statvfs.h>    /* f_basetype, a file system's type */
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
/* Linux 4.7; glibc's <signal.h> does not say it (vfork.c). */
#  ifndef SS_AUTODISARM
#    define SS_AUTODISARM (1U << 31)
#  endif
/* vfork is wrapped by a frameless trampoline (vfork.c), written for these
 * instruction sets only; elsewhere a vfork child is known by getpid, on
 * the rare paths that ask. */
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
/* RLIM_INFINITY was a signed (-3l) before illumos 2015 while rlim_t is
 * unsigned; compared as an rlim_t everywhere. */
#define FP_RLIM_INFINITY ((rlim_t)RLIM_INFINITY)
/* illumos's AT_FDCWD is the unsigned 0xffd19553; a descriptor argument
 * (an int) is compared with it as an int. */
#define FP_AT_FDCWD ((int)AT_FDCWD)
#define FP_EXPORT __attribute__((visibility("default")))
/* glibc's public second name of a function we wrap (__close for close,
 * _IO_fopen for fopen): the same wrapper, exported under it too (a cold
 * review: __close, __dup2 and __fcntl changed pooled descriptors unseen).
 * t_core lists libc's names at each wrapped function's address. */
#if defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#define FP_ALIAS(other, name)                                                \
	extern __typeof(name) other                                          \
		__attribute__((alias(#name), copy(name), visibility("default")))
#elif defined(__GLIBC__)
#define FP_ALIAS(other, name)                                                \
	extern __typeof(name) other __attribute__((alias(#name), visibility("default")))
#else
#define FP_ALIAS(other, name) extern int fp_no_alias_##other
#endif
#define FP_HIDDEN __attribute__((visibility("hidden")))
/* Thread-locals of a preloaded object sit in the static TLS block: no
 * allocation on first touch, so they are safe in a signal handler. */
#define FP_TLS __thread __attribute__((tls_model("initial-exec")))
/* A zero-initialised static that every start-up, or every fork, reads or
 * writes: kept in .data, whose one page the loader's relocations have
 * already made private, rather than in a page of .bss that a first read
 * maps and a first write copies again (issue 39: two page faults a
 * process, or a fork child).  Only for the few the constructor, or a fork
 * before any mitigation has acted, touches in a process that sets
 * nothing. */
#define FP_STARTUP_DATA __attribute__((section(".data.fp_startup")))
/* A constant without a relocation that every fork child reads: in
 * RELRO beside the tables, on a page the loader wrote and a fork copies,
 * not in .rodata, a page each fork child maps again. */
#define FP_RELRO __attribute__((section(".data.rel.ro.fp")))
/* Code that runs once, at start-up: beside the constructor the compiler
 * puts in .text.startup already, not spread over .text (issue 39: each
 * 64 KiB of text it touches is a page fault of every process). */
#define FP_STARTUP_TEXT __attribute__((section(".text.startup")))
/* The fork handlers, and the parts of each mitigation's that run before
 * it has acted: together on a page, not spread over .text (issue 39: a
 * fork child's text is not copied, each page it runs is a page fault, at
 * every fork of a shell).  The linker gathers .text.hot from every unit;
 * .text.startup.* it would mix, unit by unit, with the start-up code. */
#define FP_FORK_TEXT __attribute__((section(".text.hot.fp_fork")))
/* The first unit's (counters.c, in the sorted link order: bind.c has
 * none): the gathered 3 KiB start a page, not straddle two (a fork child
 * of a program in which nothing acted ran 3 pages of our text: 2 more
 * faults at every fork than one). */
#define FP_FORK_TEXT_FIRST __attribute__((section(".text.hot.fp_fork"), aligned(4096)))
/* The fork handlers' registration.  glibc's pthread_atfork is
 * libc_nonshared.a's, linked at the end of our text where nothing else at
 * start-up is (a page fault of every process: issue 39); it is this call. */
#if defined(__GLIBC__)
extern void *__dso_handle __attribute__((weak, visibility("hidden")));
int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
                      void *dso);
#  define fp_atfork(p, a, c) __register_atfork((p), (a), (c), __dso_handle)
#else
#  define fp_atfork(p, a, c) pthread_atfork((p), (a), (c))
#endif
/* The environment before the C library's own initialisation set environ
 * (fp_env_get): a program's .preinit_array (ASan's runtime, and others
 * that start before any library) can make the call that initialises us
 * then.  glibc's loader exports where the kernel's stack began: argc,
 * argv[], NULL, envp[].  Elsewhere environ is the only answer. */
#if defined(__GLIBC__) && defined(FP_LINUX)
extern void *__libc_stack_end __attribute__((weak));
#  define fp_kernel_environ()                                                 \
	(&__libc_stack_end && __libc_stack_end                                \
	         ? (char **)((long *)__libc_stack_end + 1) + *(long *)__libc_stack_end + 1 \
	         : NULL)
#else
#  define fp_kernel_environ() ((char **)NULL)
#endif
/* Data written by one thread and read by others on every call gets a line
 * of its own. */
#define FP_CACHELINE 64
#define fp_likely(x) __builtin_expect(!!(x), 1)
#define fp_unlikely(x) __builtin_expect(!!(x), 0)


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

/* The compiler may not assume a declared-nonnull argument is non-NULL:
 * libc's contract for NULL (EFAULT) must survive. */
static inline const void *fp_opaque(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

#endif /* FP_PLATFORM_H */
