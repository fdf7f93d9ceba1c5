/* SPDX-License-Identifier: MIT */
/*
 * raw.c: the kernel's entry points the core and the stand-ins fall back
 * on (no C library function may be called there), our own writes under
 * the program's file-size limit, and leaving without the C library.
 */
#include "fastpath.h"

#include <limits.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#ifdef FP_LINUX
#include <sys/prctl.h> /* PR_GET_SECCOMP */
#endif

/* ------------------------------------------------------------------------
 * Raw system calls: syscall(2) with the same call numbers on Linux and
 * illumos (whose <sys/syscall.h> has openat, readlinkat, read, write and
 * close too).  Only how a process ends and how secure-execution mode is
 * told differ.
 *
 * illumos libc exports syscall(2) under two names (usr/src/lib/libc/port/
 * mapfile-vers): _syscall in SUNW_0.7, a public version set every illumos
 * has, and syscall itself in SUNWprivate_1.1, whose symbols may change
 * between releases.  We link _syscall, declared as illumos declares
 * syscall (int syscall(int, ...); its callers here need no more than an
 * int's worth of result), and tests/illumos_libc_symbols.txt rejects a
 * plain syscall.
 * ---------------------------------------------------------------------- */
#if defined(FP_ILLUMOS)
int _syscall(int, ...);
#  define FP_SYSCALL _syscall
#else
#  define FP_SYSCALL syscall
#endif

#ifdef FP_HAVE_SYSCALL_WRAP
/* The system call instruction with six arguments, read as glibc's and
 * musl's syscall() read them (six longs); -1 and errno for -4095..-1. */
/* Not instrumented: urandom_exec.c calls it before ASan's shadow memory
 * exists for our code (UR_LIMIT_EARLY). */
__attribute__((no_sanitize_address)) long fp_sys6(long nr, long a, long b, long c, long d, long e,
                                                 long f)
{
	long r;
#  if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
	                 : "=a"(r)
	                 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
#  else
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
	                 : "+r"(x0)
	                 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
	                 : "memory");
	r = x0;
#  endif
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* The program's syscall(): six longs read as libc reads them, also past
 * the arguments its caller passed; not ASan's business. */
__attribute__((no_sanitize_address)) long fp_vsyscall(long nr, va_list ap)
{
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);

	return fp_sys6(nr, a, b, c, d, e, f);
}
#endif

long fp_raw_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return FP_SYSCALL(SYS_openat, dirfd, path, flags, mode);
}
/* The kernel's random bytes without libc: getrandom(2) on Linux where the
 * headers name it (3.17), else -1 with ENOSYS.  On illumos never its
 * system call: before illumos 5803 (2015-04-12) slot 126 is nosys(), which
 * answers with SIGSYS and kills the program, and a build against newer
 * headers runs there too.  /dev/urandom read by openat, read and close,
 * which every illumos kernel has (docs/illumos.md, "System calls"). */
long fp_raw_getrandom(void *buf, size_t n, unsigned flags)
{
#if defined(FP_ILLUMOS)
	long got = 0, r;
	int fd, saved = errno;

	(void)flags; /* /dev/urandom never blocks on illumos */
	fd = (int)fp_raw_openat(FP_AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
	if (fd < 0)
		return -1;
	while ((size_t)got < n) {
		r = FP_SYSCALL(SYS_read, fd, (char *)buf + got, n - (size_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	(void)fp_raw_close(fd);
	if (got == 0)
		return -1;
	errno = saved;
	return got;
#elif defined(SYS_getrandom)
	return FP_SYSCALL(SYS_getrandom, buf, n, flags);
#else
	(void)buf, (void)n, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}
ssize_t fp_raw_read(int fd, void *buf, size_t n)
{
	return FP_SYSCALL(SYS_read, fd, buf, n);
}
int fp_raw_close(int fd)
{
	return (int)FP_SYSCALL(SYS_close, fd);
}
ssize_t fp_raw_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
#if defined(FP_ILLUMOS)
	/* illumos's readlinkat(2) came in 2013 (slot 22 is nosys, SIGSYS,
	 * in illumos-gate of 2010); readlink(2), slot 90, every kernel has:
	 * it serves every call but a relative path from another directory. */
	if (dirfd == FP_AT_FDCWD || (path && path[0] == '/'))
		return FP_SYSCALL(SYS_readlink, path, buf, n);
#endif
	return FP_SYSCALL(SYS_readlinkat, dirfd, path, buf, n);
}
ssize_t fp_raw_write(int fd, const void *buf, size_t n)
{
	return FP_SYSCALL(SYS_write, fd, buf, n);
}

/*
 * Our writes and the program's RLIMIT_FSIZE (issue 37): the kernel sends
 * SIGXFSZ to the thread that wrote (send_sig to current, on Linux and
 * illumos alike), so blocking it in this thread only, around our writes,
 * turns it into the write's EFBIG without touching another thread's mask
 * or the disposition (fp_fsz_hold blocks every signal: see there).  A signal our write left pending is taken back
 * before the mask is restored: pending, it would be delivered then.  One
 * pending already when we began is the program's (it blocks SIGXFSZ) and
 * stays; the kernel's second one merges into it, as standard signals do,
 * when both are this thread's.  A process's one (a kill) is a queue of its
 * own, delivered besides ours: then ours is taken back all the same
 * (fp_fsz_private tells the two apart, where a SIGXFSZ is pending only).
 * The take-back is the raw rt_sigtimedwait on Linux: glibc's sigtimedwait
 * is a cancellation point, and an exit handler is no place to act on one.
 * Cost: two sigprocmask calls and one sigpending per hold, one
 * sigtimedwait more when a write met the limit.
 */
/*
 * Whether sig (SIGXFSZ, SIGPIPE) is pending for this thread alone: 1, 0, or -1 where it
 * cannot be told.  sigpending answers for the thread and the process
 * together, but the two are separate queues: a kill() of the process
 * (shared) and our write's signal (this thread's) do not merge, and each
 * is delivered.  Read from SigPnd in the thread's status, streamed through
 * a small buffer (this may run on a signal stack).  Asked only when a
 * SIGXFSZ is pending, which the common path never has.
 */
static int fp_fsz_private(int sig)
{
#if defined(FP_LINUX)
	static const char key[] = "\nSigPnd:";
	char buf[128];
	size_t k = 0;
	int fd, digits = -1;
	uint64_t bits = 0;
	long r;

	fd = (int)fp_raw_openat(FP_AT_FDCWD, "/proc/thread-self/status",
	                        O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
	if (fd < 0)
		return -1;
	while ((r = FP_SYSCALL(SYS_read, fd, buf, sizeof buf)) > 0) {
		for (long i = 0; i < r; i++) {
			char c = buf[i]; // NOLINT(clang-analyzer-core.uninitialized.Assign): read() filled buf[0..r)

			if (digits < 0) {
				k = c == key[k] ? k + 1 : c == '\n' ? 1 : 0;
				if (k == sizeof key - 1)
					digits = 0;
			} else if (c == ' ' || c == '\t') {
				continue;
			} else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
				bits = bits << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
				digits++;
			} else {
				(void)fp_raw_close(fd);
				return digits > 0 ? (int)(bits >> (sig - 1) & 1) : -1;
			}
		}
	}
	(void)fp_raw_close(fd);
#else
	(void)sig;
#endif
	return -1;
}

/*
 * Whether the kernel can read the 8 bytes at w (q: the first of them the
 * caller asked about): rt_sigprocmask with an invalid `how` copies the set
 * from w first (EFAULT), then refuses it (EINVAL), changing nothing.  It
 * is a call every seccomp filter lets through, where process_vm_readv is
 * in systemd's @debug set, which a filter denies and kills (a cold review:
 * SIGSYS at every exec under the cap), and Docker's profile refuses
 * without CAP_SYS_PTRACE.  Any other failure (a tool's own check):
 * readable, as a direct read would take it.  Clobbers errno.
 *
 * Under valgrind, memcheck checks what a call reads as the program's read
 * (the page's first 8 were often not addressable or not defined: CI's
 * check-valgrind), and valgrind logs a line for each unknown `how`.  So:
 * with no seccomp filter (nothing can then kill or refuse it), the byte
 * at q is asked of process_vm_readv, whose remote side memcheck does not
 * look at; with one (or where it refuses), where the 8 bytes at w are the
 * caller's (own8), a real SIG_BLOCK of them inside a hold of every signal
 * (it blocks nothing more, and no handler runs with them blocked: a cold
 * review); where they may not be (a string's byte: 8 run past a short
 * string's end), symlinkat from q to "", which reads the string to its
 * NUL (EFAULT), then fails on the empty name (ENOENT), making nothing.  A
 * mask shorter than 8 bytes is read so too: memcheck reports the bytes
 * past it up to a NUL.
 */
static bool fp_read_probe(const char *q, uintptr_t w, bool own8)
{
#if defined(FP_LINUX)
	sigset_t old;
	bool bad;
	long r;

	if (!fp_under_valgrind)
		return !(FP_SYSCALL(SYS_rt_sigprocmask, 0x7fff, (long)w, 0L, (long)(_NSIG / 8)) < 0 && errno == EFAULT);
	if (FP_SYSCALL(SYS_prctl, PR_GET_SECCOMP, 0L, 0L, 0L, 0L) == 0) {
		char b;
		struct iovec l = { &b, 1 }, rv = { (void *)q, 1 };

		r = FP_SYSCALL(SYS_process_vm_readv, FP_SYSCALL(SYS_gettid), (long)&l, 1L, (long)&rv, 1L, 0L);
		if (r == 1 || errno == EFAULT)
			return r == 1;
	}
	if (!own8)
		return !(FP_SYSCALL(SYS_symlinkat, (long)q, (long)AT_FDCWD, (long)"") < 0 && errno == EFAULT);
	fp_hold_all(&old);
	r = FP_SYSCALL(SYS_rt_sigprocmask, SIG_BLOCK, (long)w, 0L, (long)(_NSIG / 8));
	bad = r < 0 && errno == EFAULT;
	fp_unhold(&old);
	return !bad;
#else
	(void)q, (void)w, (void)own8;
	return true;
#endif
}

/* Whether the kernel can read the page that holds p, a byte of a string or
 * of a span shorter than 8: the 8 bytes from p, or the page's last 8 where
 * p is nearer its end.  Page 0 never (it would be no set at all: the call
 * reads nothing then).  errno is kept. */
bool fp_page_readable(const void *p)
{
	uintptr_t a = (uintptr_t)p, end = (a | 4095) + 1;
	int saved = errno;
	bool ok = a >= 4096 && fp_read_probe(p, a + 8 <= end ? a : end - 8, false);

	errno = saved;
	return ok;
}

/* Whether the kernel can read every page of the n bytes at p: a span past
 * the top of the address space is its EFAULT.  Each page's 8 bytes are
 * the span's own where it has 8.  errno is kept. */
bool fp_span_readable(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	int saved = errno;
	bool ok = n <= UINTPTR_MAX - a;

	if (ok && n < 8)
		ok = n == 0 || (fp_page_readable(p) && fp_page_readable((const char *)p + n - 1));
	else
		for (size_t off = 0; off < n && ok; off += 4096 - (a + off) % 4096)
			ok = a + off >= 4096 && fp_read_probe((const char *)p + off, off + 8 <= n ? a + off : a + n - 8, true);
	errno = saved;
	return ok;
}

/*
 * Whether the kernel can write every page of the n bytes at p (n >= 4):
 * getresuid with the three pointers at one place stores a uid there, 4
 * bytes inside the span on each page, so it changes them (the caller
 * writes all n next).  Like rt_sigprocmask above, a call in every
 * filter's default set, where process_vm_writev is not (above).  A span
 * past the top of the address space is the kernel's EFAULT (it wrapped,
 * and was taken whole: a cold review).  Any failure but EFAULT: writable,
 * as a direct write would take it.  errno is kept.
 */
bool fp_span_writable(void *p, size_t n)
{
#if defined(FP_LINUX)
#ifdef SYS_getresuid32
#define FP_SYS_GETRESUID SYS_getresuid32 /* 16-bit uids on i386 */
#else
#define FP_SYS_GETRESUID SYS_getresuid
#endif
	uintptr_t a = (uintptr_t)p;
	int saved = errno;
	bool bad = n > UINTPTR_MAX - a;

	for (size_t off = 0; off < n && !bad; off += 4096 - (a + off) % 4096) {
		uintptr_t w = off + 4 <= n ? a + off : a + n - 4;
		long r = FP_SYSCALL(FP_SYS_GETRESUID, (long)w, (long)w, (long)w);

		bad = r < 0 && errno == EFAULT;
	}
	errno = saved;
	return !bad;
#else
	(void)p, (void)n;
	return true;
#endif
}

/* The full set not in the caller's frame: a first question may come
 * from a handler on a small alternate stack (t_robust's altdepth budget). */
static FP_TLS sigset_t fp_all_signals;

void fp_hold_all(sigset_t *old)
{
	sigfillset(&fp_all_signals);
	(void)pthread_sigmask(SIG_BLOCK, &fp_all_signals, old);
}

void fp_unhold(const sigset_t *old)
{
	(void)pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Every signal held, so that no handler runs inside (fp_fsz_hold); what
 * is known of sig (our write's: SIGXFSZ, SIGPIPE) pending before. */
static void fp_fsz_block(struct fp_fsz *g, int sig)
{
	sigset_t all, pend;
	int saved = errno;

	sigfillset(&all);
	g->sig = sig;
	g->held = pthread_sigmask(SIG_BLOCK, &all, &g->old) == 0;
	g->had = g->held && sigpending(&pend) == 0 && sigismember(&pend, sig) == 1;
	/* The program's may be the process's (a kill): ours would then be
	 * one more, in this thread's queue.  Unknown: taken as this
	 * thread's, which ours merges into. */
	g->had_own = g->had && fp_fsz_private(sig) != 0;
	errno = saved;
}

/* Every signal held, not SIGXFSZ alone: a handler that ran inside would
 * find SIGXFSZ blocked, and its own write past the limit would fail with
 * EFBIG and leave a SIGXFSZ that merges with ours and is taken back: the
 * program would never see it.  Held, the handler runs after, as natively.
 * For our writes to files and our own pipes, which never wait long. */
void fp_fsz_hold(struct fp_fsz *g)
{
	fp_fsz_block(g, SIGXFSZ);
}

void fp_fsz_release(struct fp_fsz *g)
{
	sigset_t xfsz, pend;
	int saved = errno, priv;

	if (!g->held)
		return;
	sigemptyset(&xfsz);
	sigaddset(&xfsz, g->sig);
	if (!g->had_own && sigpending(&pend) == 0 && sigismember(&pend, g->sig) == 1 &&
	    ((priv = fp_fsz_private(g->sig)) == 1 || (priv < 0 && !g->had))) {
		struct timespec zero = { 0, 0 };

		/* This thread's queue is dequeued first: ours, never the
		 * process's. */

#if defined(FP_LINUX)
		(void)FP_SYSCALL(SYS_rt_sigtimedwait, &xfsz, 0L, &zero, (size_t)(_NSIG / 8));
#else
		(void)sigtimedwait(&xfsz, NULL, &zero);
#endif
	}
	(void)pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	g->held = false;
	errno = saved;
}

#if defined(FP_LINUX)
/*
 * A pipe or a socket whose reader has gone raises SIGPIPE, which kills by
 * default, for a write the program never made (a cold review: a warning
 * about a malformed setting, on a closed pipe, killed the program before
 * main; the summary line killed it at exit).  A socket is sent to with
 * MSG_NOSIGNAL.  A pipe is written with every signal held, the write one
 * that never waits (RWF_NOWAIT: no flag of the program's description
 * changed), and a SIGPIPE it raised taken back, as a file's SIGXFSZ is;
 * a wait for room is ppoll's with the program's own mask, its handlers
 * free to run (and to jump out: nothing of ours is held then).  Before
 * Linux 5.8 (no RWF_NOWAIT on a pipe) a zero-timeout ppoll says when a
 * write of at most PIPE_BUF will not wait.  Everything else (a terminal,
 * a device) raises no SIGPIPE and is written with the program's mask: a
 * write there may wait, and the program's handlers must run meanwhile
 * (a cold review of the first form: a full terminal held SIGTERM; a
 * descriptor never writable, a pipe's read end, a listening socket, an
 * epoll, hung in the wait).
 */
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008 /* Linux 4.14's uapi; musl's headers lack it */
#endif
static ssize_t fp_pipe_write(int fd, const char *buf, size_t n)
{
	const struct timespec zero = { 0, 0 };
	size_t done = 0;
	int fl = (int)FP_SYSCALL(SYS_fcntl, fd, F_GETFL, 0L);

	while (done < n) {
		struct iovec v = { (void *)(buf + done), n - done };
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		struct fp_fsz g;
		long r;
		int err;

		fp_fsz_block(&g, SIGPIPE);
		r = FP_SYSCALL(SYS_pwritev2, fd, (long)&v, 1L, -1L, -1L, (long)RWF_NOWAIT);
		if (r < 0 && (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS)) {
			r = FP_SYSCALL(SYS_ppoll, (long)&p, 1L, (long)&zero, 0L, 0L);
			if (r > 0 && !(p.revents & POLLNVAL)) {
				v.iov_len = v.iov_len < PIPE_BUF ? v.iov_len : PIPE_BUF;
				r = fp_raw_write(fd, v.iov_base, v.iov_len);
			} else if (r == 0) {
				r = -1;
				errno = EAGAIN;
			}
		}
		err = errno;
		fp_fsz_release(&g);
		errno = err;
		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r == 0 || errno != EAGAIN || (fl >= 0 && (fl & O_NONBLOCK)))
			break;
		p.revents = 0;
		if (FP_SYSCALL(SYS_ppoll, (long)&p, 1L, 0L, 0L, 0L) < 0 && errno != EINTR)
			break;
	}
	return done ? (ssize_t)done : -1;
}
#endif

ssize_t fp_own_write(int fd, const void *buf, size_t n)
{
	struct fp_fsz g;
	ssize_t r;
	int err;

	struct stat st;

	/* Only a regular file raises SIGXFSZ, only a pipe or a socket SIGPIPE
	 * (fp_pipe_write).  A file is written with every signal held, so that
	 * no handler runs inside to jump out and leave SIGXFSZ blocked (a jump
	 * generator: FASTPATH_DEBUG's lines left it so). */
	if (fp_fstat(fd, &st) != 0)
		return fp_raw_write(fd, buf, n);
	if (!S_ISREG(st.st_mode)) {
#if defined(FP_LINUX)
		if (S_ISFIFO(st.st_mode))
			return fp_pipe_write(fd, buf, n);
		if (S_ISSOCK(st.st_mode))
			return (ssize_t)FP_SYSCALL(SYS_sendto, fd, (long)buf, (long)n, (long)MSG_NOSIGNAL, 0L, 0L);
#endif
		return fp_raw_write(fd, buf, n);
	}
	fp_fsz_hold(&g);
	r = fp_raw_write(fd, buf, n);
	err = errno;
	fp_fsz_release(&g);
	errno = err;
	return r;
}
/* closefrom(lo) without libc: close_range(2) where the kernel has it, else
 * every number up to the descriptor limit. */
void fp_raw_closefrom(int lo)
{
	struct rlimit rl;
	long fd, end = 65536;

	if (lo < 0)
		lo = 0;
#if defined(SYS_close_range)
	if (FP_SYSCALL(SYS_close_range, (unsigned)lo, ~0u, 0) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != FP_RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)1 << 20)
		end = (long)rl.rlim_cur;
	for (fd = lo; fd < end; fd++)
		(void)fp_raw_close((int)fd);
}

#if defined(FP_LINUX)
void fp_raw_exit(int status)
{
	for (;;)
		syscall(SYS_exit_group, status);
}
FP_STARTUP_TEXT bool fp_secure_mode(void)
{
	return getauxval(AT_SECURE) != 0;
}
#elif defined(FP_ILLUMOS)
void fp_raw_exit(int status)
{
	for (;;)
		FP_SYSCALL(SYS_exit, status);
}
FP_STARTUP_TEXT bool fp_secure_mode(void)
{
	return issetugid() != 0;
}
#endif

/*
 * explicit_bzero where libc has it; before illumos's ILLUMOS_0.12 (2015), a
 * memset the compiler may not drop: the empty asm claims to read the
 * memory, so the stores are not dead.  Before binding, the table's stand-in
 * is that same fallback.
 */
void fp_zero(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

void fp_explicit_bzero(void *p, size_t n)
{
	void (*real)(void *, size_t) = fp_real_core.r_explicit_bzero.f;

	if (real) {
		real(p, n);
		return;
	}
	fp_zero(p, n);
}
