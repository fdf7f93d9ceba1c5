/* SPDX-License-Identifier: MIT */
/*
 * fp_real.h: the real C library functions and the one policy for a call
 * made before they are bound (bind.c); the kernel's entry points that
 * policy falls back on (raw.c); the core's own table of real functions.
 * A mitigation declares its own table in its header (FP_REAL_DECLARE) and
 * defines it in one unit (FP_REAL_DEFINE); the core binds every table the
 * registry lists.
 */
#ifndef FP_REAL_H
#define FP_REAL_H

#include "fp_thread.h"

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
#endif

__attribute__((noreturn)) void fp_raw_exit(int status) FP_HIDDEN;

/* A wait's turn given up (fp_init_slow, the survey's final write, a
 * mitigation's own waits): the instruction, not the C library's sched_yield,
 * which a program's own definition takes from us, and which may call a
 * wrapper of ours that waits again inside the wait.  Tests count the turns
 * with their own FP_YIELD. */
#ifndef FP_YIELD
#  ifdef FP_HAVE_SYSCALL_WRAP
#    define FP_YIELD() ((void)syscall(SYS_sched_yield))
#  else
#    define FP_YIELD() ((void)sched_yield())
#  endif
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

/* A table of real functions is an X-list of rows
 *	X(return type, name, (parameters), stand-in)
 * declared by its owner's header (FP_REAL_DECLARE: a struct fp_real_<tag>
 * of one member r_<name> per row) and defined in one unit of its owner
 * (FP_REAL_DEFINE, with FP_REAL_TAG defined as <tag>: the stand-ins, the
 * table holding them, and the names the binding looks up).  Members are
 * named r_<symbol>: musl #defines open64 as open, and token pasting keeps
 * such macros from renaming our members.  The core binds its own table
 * and every table a mitigation's descriptor names (.bind, FP_REAL_SYMS),
 * each in its own slots: the same C library function may be in two
 * tables, never a mitigation's wrapper in the core's. */
struct fp_sym {
	const char *name;
	void **slot;
};
#define FP_PASTE_(a, b) a##b
#define FP_PASTE(a, b) FP_PASTE_(a, b)
#define FP_REAL_MEMBER_(ret, name, params, unready) union { ret (*f) params; void *p; } r_##name;
/* The binding's lookup of one name (bind.c), and its state. */
typedef void *(*fp_lookup_fn)(void *w, const char *name);
#define FP_REAL_DECLARE(tag, LIST)                                           \
	struct fp_real_##tag { LIST(FP_REAL_MEMBER_) };                     \
	extern struct fp_real_##tag fp_real_##tag FP_HIDDEN;                 \
	void fp_real_bind_##tag(fp_lookup_fn look, void *w) FP_HIDDEN
#define FP_REAL_STANDIN_(ret, name, params, unready)                         \
	static ret FP_PASTE(FP_PASTE(fp_unready_, FP_REAL_TAG), _##name) params { unready }
#define FP_REAL_INIT_(ret, name, params, unready)                            \
	.r_##name = { .f = FP_PASTE(FP_PASTE(fp_unready_, FP_REAL_TAG), _##name) },
#define FP_REAL_BIND_(ret, name, params, unready)                            \
	__atomic_store_n(&FP_PASTE(fp_real_, FP_REAL_TAG).r_##name.p, look(w, #name), __ATOMIC_RELAXED);
/* Only for the helgrind/drd build (check-valgrind): a table bound at its
 * first use may be written by two binders at once, each writing the same
 * values (bind.c, fp_real_late), which the tools cannot tell from a race;
 * said by each binder before it writes. */
#ifdef FP_VALGRIND_ANNOTATE
#  include <valgrind/helgrind.h>
#  define FP_ANN_BOUND(p, n)                                                 \
	ANNOTATE_BENIGN_RACE_SIZED(p, n, "real functions: every binder writes the same values")
#else
#  define FP_ANN_BOUND(p, n) ((void)0)
#endif
/* The table's stand-ins ("Not ready yet"), the table, what it holds before
 * binding (..._unready: the unit tests start over from it), and its
 * binding: code, not a table of names, which would be data the loader
 * relocates at every start (a page fault more, issue 39).  A stand-in may
 * ignore some of its parameters. */
#define FP_REAL_DEFINE(LIST)                                                 \
	_Pragma("GCC diagnostic push")                                       \
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")             \
	LIST(FP_REAL_STANDIN_)                                               \
	_Pragma("GCC diagnostic pop")                                        \
	struct FP_PASTE(fp_real_, FP_REAL_TAG) FP_PASTE(fp_real_, FP_REAL_TAG) = { LIST(FP_REAL_INIT_) }; \
	static const struct FP_PASTE(fp_real_, FP_REAL_TAG)                  \
		FP_PASTE(FP_PASTE(fp_real_, FP_REAL_TAG), _unready) __attribute__((unused)) = { \
			LIST(FP_REAL_INIT_) };                               \
	FP_STARTUP_TEXT void FP_PASTE(fp_real_bind_, FP_REAL_TAG)(fp_lookup_fn look, void *w) \
	{                                                                    \
		FP_ANN_BOUND(&FP_PASTE(fp_real_, FP_REAL_TAG),                \
		             sizeof FP_PASTE(fp_real_, FP_REAL_TAG));         \
		LIST(FP_REAL_BIND_)                                          \
	}
/* A table with no stand-ins, NULL until bound: in .bss, not .data, whose
 * last page every start-up touches (roots.c's: issue 39, its 200 bytes
 * of stand-ins pushed .bss's first page, which start-up writes, off the
 * page .data ends in: 3 page faults a process).  Its caller tests for
 * NULL, as for a function the C library lacks. */
#define FP_REAL_DEFINE_NULL(LIST)                                            \
	struct FP_PASTE(fp_real_, FP_REAL_TAG) FP_PASTE(fp_real_, FP_REAL_TAG); \
	FP_STARTUP_TEXT void FP_PASTE(fp_real_bind_, FP_REAL_TAG)(fp_lookup_fn look, void *w) \
	{                                                                    \
		FP_ANN_BOUND(&FP_PASTE(fp_real_, FP_REAL_TAG),                \
		             sizeof FP_PASTE(fp_real_, FP_REAL_TAG));         \
		LIST(FP_REAL_BIND_)                                          \
	}
/* A descriptor's field naming its table (struct fp_mitigation). */
#define FP_REAL_SYMS(tag) .bind = fp_real_bind_##tag

/* The core's own table: only what the core itself calls.  _exit and _Exit
 * are its wrappers (bind.c); fstat, fstatat and mmap reach the C library
 * for its own use (below), whoever wraps them; vfork is vfork.c's; the
 * mount calls are roots.c's. */
#define FP_REAL_CORE_COMMON(X)                                                                \
	/* vfork.c: a fork's system call, to jump to before binding. */                          \
	X(pid_t, vfork, (void), FP_NR_DO(fp_nr_fork()))                                          \
	X(void, _exit, (int status), FP_NR_VOID(fp_raw_exit(status)))                            \
	X(void, _Exit, (int status), FP_NR_VOID(fp_raw_exit(status)))                            \
	/* Newer than the oldest illumos we load on: looked up, never linked                 \
	 * there (see fp_explicit_bzero).  NULL where libc lacks it.  Bound on                \
	 * Linux too, so that the unit tests can take both branches. */                       \
	X(void, explicit_bzero, (void *p, size_t n), FP_NR_VOID(fp_zero(p, n)))

#ifdef FP_LINUX
struct mount_attr;
/* fstatat's stand-in: none before binding (ENOSYS); in a unit test, which
 * may link no wrapper of it, the C library's. */
#ifdef FP_UNIT_TEST
#  define FP_NR_FSTATAT FP_NR_DO(fstatat(dirfd, path, st, flags))
#else
#  define FP_NR_FSTATAT FP_NR_FAIL(-1)
#endif
#define FP_REAL_CORE_LINUX(X)                                                                 \
	X(int, fstat, (int fd, struct stat *st), FP_NR_FAIL(-1))                                 \
	/* vfork.c: the stack a handler disarms. */                                              \
	X(int, sigaltstack, (const stack_t *ss, stack_t *old), FP_NR_FAIL(-1))                   \
	X(int, fstatat, (int dirfd, const char *path, struct stat *st, int flags), FP_NR_FSTATAT) \
	X(void *, mmap, (void *a, size_t len, int prot, int flags, int fd, off_t off),           \
	  FP_NR_DO(fp_nr_mmap(a, len, prot, flags, fd, off)))
#else
#define FP_REAL_CORE_LINUX(X)
#endif
/* fstat and fstatat in programs built against glibc < 2.33. */
#if defined(FP_LINUX) && defined(FP_HAVE_LFS64)
#define FP_REAL_CORE_FXSTAT(X)                                                                \
	X(int, __fxstat, (int ver, int fd, struct stat *st), FP_NR_FAIL(-1))                     \
	X(int, __fxstatat, (int ver, int dirfd, const char *path, struct stat *st, int flags),   \
	  FP_NR_FAIL(-1))
#else
#define FP_REAL_CORE_FXSTAT(X)
#endif

#define FP_REAL_CORE(X) FP_REAL_CORE_COMMON(X) FP_REAL_CORE_LINUX(X) FP_REAL_CORE_FXSTAT(X)
FP_REAL_DECLARE(core, FP_REAL_CORE);

#ifdef FP_LINUX
/* roots.c's own table: the changes of root, mounts, namespaces, ids and
 * sandbox.  Bound at the first of them, as a mitigation's table is (25
 * lookups at every start-up read a page more of the C library's symbol
 * tables), and NULL until then (FP_REAL_DEFINE_NULL): in .bss, where 200
 * bytes of stand-ins in .data cost every process 3 page faults (issue 39). */
#define FP_REAL_ROOTS(X)                                                                      \
	X(int, chroot, (const char *path), FP_NR_FAIL(-1))                                       \
	X(int, mount, (const char *src, const char *dst, const char *type,                       \
	               unsigned long flags, const void *data), FP_NR_FAIL(-1))                   \
	X(int, umount, (const char *dst), FP_NR_FAIL(-1))                                        \
	X(int, umount2, (const char *dst, int flags), FP_NR_FAIL(-1))                            \
	X(int, setns, (int fd, int type), FP_NR_FAIL(-1))                                        \
	X(int, unshare, (int flags), FP_NR_FAIL(-1))                                             \
	X(int, move_mount, (int fdir, const char *fpath, int tdir, const char *tpath,            \
	                    unsigned flags), FP_NR_FAIL(-1))                                     \
	X(int, fsmount, (int fsfd, unsigned flags, unsigned attr), FP_NR_FAIL(-1))               \
	X(int, open_tree, (int dirfd, const char *path, unsigned flags), FP_NR_FAIL(-1))         \
	X(int, mount_setattr, (int dirfd, const char *path, unsigned flags, struct mount_attr *attr, \
	                       size_t size), FP_NR_FAIL(-1))                                     \
	X(int, setuid, (uid_t uid), FP_NR_FAIL(-1))                                              \
	X(int, setgid, (gid_t gid), FP_NR_FAIL(-1))                                              \
	X(int, seteuid, (uid_t uid), FP_NR_FAIL(-1))                                             \
	X(int, setegid, (gid_t gid), FP_NR_FAIL(-1))                                             \
	X(int, setreuid, (uid_t r, uid_t e), FP_NR_FAIL(-1))                                     \
	X(int, setregid, (gid_t r, gid_t e), FP_NR_FAIL(-1))                                     \
	X(int, setresuid, (uid_t r, uid_t e, uid_t s), FP_NR_FAIL(-1))                           \
	X(int, setresgid, (gid_t r, gid_t e, gid_t s), FP_NR_FAIL(-1))                           \
	X(int, setgroups, (size_t n, const gid_t *list), FP_NR_FAIL(-1))                         \
	X(int, setfsuid, (uid_t uid), FP_NR_FAIL(-1))                                            \
	X(int, setfsgid, (gid_t gid), FP_NR_FAIL(-1))                                            \
	/* The kernel's structures, which no C library header declares. */                     \
	X(int, capset, (void *h, const void *d), FP_NR_FAIL(-1))                                 \
	X(int, prctl, (int option, ...), FP_NR_FAIL(-1))
FP_REAL_DECLARE(roots, FP_REAL_ROOTS);
/* fp_bound's bit for it: above every mitigation's (FP_NMITIGATIONS <= 31). */
#define FP_BIT_ROOTS (1u << 31)
#endif
/* The real function, once initialisation has run (or, inside it, in this
 * thread, the stand-in): the only way the core reaches the C library; a
 * mitigation has its own (UR_REAL, CPUS_REAL, RL_REAL). */
#define FP_REAL(name) ((void)fp_ready(), fp_real_core.r_##name.f)

#ifdef FP_LINUX
/* A call of syscall() that changes what a path names or what the process
 * may open, and its making with the hooks (roots.c). */
enum { FP_ROOTS_ROOT = 1, FP_ROOTS_SEAL };
int fp_roots_nr(long nr, long a) FP_HIDDEN;
long fp_roots_call(int kind, long (*real)(long, ...), long nr, long a, long b, long c, long d,
                   long e, long f) FP_HIDDEN;
/* f, a bound real function, is the C library's own (bind.c). */
bool fp_in_libc(const void *f) FP_HIDDEN;
/* valgrind's core preload was loaded at start-up (bind.c's walk). */
extern bool fp_under_valgrind FP_HIDDEN;
#endif

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
 * A mitigation's table, bound at its first use (issue 39): a process pays
 * the lookups of a mitigation's real functions only when it makes a call
 * that reaches one of them; a shell loop's /bin/true pays none.  fp_bound
 * has bit FP_BIT(m) once m's table is bound and initialisation is done:
 * then the one branch, as fp_ready() is.  Otherwise fp_real_late (bind.c)
 * binds the table: whichever thread finds it not yet written, a signal
 * handler inside another binding included, writes it whole, and every
 * one writes the same values, so none waits for another and a binding
 * left halfway (a jump out of a handler, a cancellation) is done again by
 * the next call.  u is the table's member (or a unit's own row).
 * ---------------------------------------------------------------------- */
extern _Atomic unsigned fp_bound FP_HIDDEN;
void fp_real_late(unsigned bit) FP_HIDDEN;
#define FP_REAL_LAZY(u, bit)                                                 \
	(fp_likely(atomic_load_explicit(&fp_bound, memory_order_acquire) & (bit)) \
	         ? (u).f                                                     \
	         : ((void)fp_real_late(bit), (u).f))
/* The same, as the address alone (compared, not called). */
#define FP_REAL_LAZY_P(u, bit)                                               \
	(fp_likely(atomic_load_explicit(&fp_bound, memory_order_acquire) & (bit)) \
	         ? (u).p                                                     \
	         : ((void)fp_real_late(bit), (u).p))

/* ------------------------------------------------------------------------
 * fstat, fstatat and mmap for our own use.  A plain call in this object binds to
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
	if (fp_real_core.r___fxstat.f)
		return fp_real_core.r___fxstat.f(FP_STAT_VER, fd, st);
#  endif
	errno = ENOSYS;
	return -1;
#else
	return fstat(fd, st);
#endif
}

/* fstatat for our own use: on Linux the exported one is the CPU cap's
 * (cpus_fd.c), and this reaches the C library's (glibc before 2.33:
 * __fxstatat). */
#ifdef FP_LINUX
static inline int fp_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int (*real)(int, const char *, struct stat *, int) = FP_REAL(fstatat);

	if (fp_likely(real != NULL))
		return real(dirfd, path, st, flags);
#  ifdef FP_HAVE_LFS64
	if (fp_real_core.r___fxstatat.f)
		return fp_real_core.r___fxstatat.f(FP_STAT_VER, dirfd, path, st, flags);
#  endif
	errno = ENOSYS;
	return -1;
}
#else
#  define fp_fstatat fstatat
#endif
#define fp_stat(path, st) fp_fstatat(AT_FDCWD, path, st, 0)

static inline void *fp_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
#ifdef FP_LINUX
	/* Not FP_REAL: the debug line of our own binding maps its buffer
	 * here (fp_log_parts); the table's stand-in, until bound, is the
	 * system call. */
	void *(*real)(void *, size_t, int, int, int, off_t) = fp_real_core.r_mmap.f;

	return real ? real(a, len, prot, flags, fd, off) : fp_nr_mmap(a, len, prot, flags, fd, off);
#else
	/* Through void *: before illumos#14418 (2022) illumos declared mmap
	 * to return caddr_t. */
	return (void *)mmap(a, len, prot, flags, fd, off);
#endif
}

/* The binding, at initialisation (bind.c): every table, then, once the
 * settings are known, a note of a preload order that hides our wrappers;
 * whether the walk found another copy of fastpath before ours (false:
 * it could not tell).  fp_fstat_bound: fstat through the bound table
 * alone (fastpath.c), for initialisation and the survey. */
void fp_bind_all(void) FP_HIDDEN;
void fp_bind_say(void) FP_HIDDEN;
void fp_bind_done(void) FP_HIDDEN;
bool fp_walked_copy(bool *copy) FP_HIDDEN;
bool fp_fstat_bound(int fd, struct stat *st) FP_HIDDEN;

#endif /* FP_REAL_H */
