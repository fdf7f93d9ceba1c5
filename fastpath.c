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

/* Tests substitute their own lookup to provoke re-entry during binding:
 * then every name is asked of it (no walk of the tables). */
#ifdef FP_DLSYM
#define FP_DLSYM_TEST 1
#else
#define FP_DLSYM(name) dlsym(RTLD_NEXT, name)
#endif
#define FP_DLSYM_GLOBAL(name) dlsym(RTLD_DEFAULT, name)

/* ------------------------------------------------------------------------
 * Not ready yet: each real symbol's stand-in until it is bound, made from
 * the last column of its row in FP_REAL_ALL (fastpath.h, which states the
 * policy).  A stand-in may ignore some of its parameters.
 * ---------------------------------------------------------------------- */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define FP_X(ret, name, params, unready) static ret fp_unready_##name params { unready }
FP_REAL_ALL(FP_X) // NOLINT(misc-unused-parameters): a stand-in may ignore some
#undef FP_X
#pragma GCC diagnostic pop

#define FP_X(ret, name, params, unready) .r_##name = { .f = fp_unready_##name },
#define FP_UNREADY { FP_REAL_ALL(FP_X) }
struct fp_real fp_real = FP_UNREADY;
/* What fp_real holds before binding (the unit tests start over from it). */
static const struct fp_real fp_real_unready __attribute__((unused)) = FP_UNREADY;
#undef FP_UNREADY
#undef FP_X
static char fp_stats_path[PATH_MAX], fp_survey_dir[PATH_MAX];
/* Initialised, so in .data: the page its relocations write anyway. */
struct fp_settings fp_cfg = { .stats_path = fp_stats_path, .survey_dir = fp_survey_dir };
_Atomic int fp_init_state FP_STARTUP_DATA;

#ifdef FP_HAVE_RSEQ_AREA
/* Weak: a C library without them (glibc before 2.35) leaves them NULL. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
#endif
_Atomic ptrdiff_t fp_rseq_at FP_STARTUP_DATA;

FP_STARTUP_TEXT ptrdiff_t fp_rseq_learn(void)
{
	ptrdiff_t at = 1;

#ifdef FP_HAVE_RSEQ_AREA
	if (&__rseq_offset && &__rseq_size && __rseq_size >= 8)
		at = __rseq_offset + (ptrdiff_t)sizeof(uint32_t);
#endif
	atomic_store_explicit(&fp_rseq_at, at, memory_order_relaxed);
	return at;
}

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
long fp_sys6(long nr, long a, long b, long c, long d, long e, long f)
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
 * Whether SIGXFSZ is pending for this thread alone: 1, 0, or -1 where it
 * cannot be told.  sigpending answers for the thread and the process
 * together, but the two are separate queues: a kill() of the process
 * (shared) and our write's signal (this thread's) do not merge, and each
 * is delivered.  Read from SigPnd in the thread's status, streamed through
 * a small buffer (this may run on a signal stack).  Asked only when a
 * SIGXFSZ is pending, which the common path never has.
 */
static int fp_fsz_private(void)
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
				return digits > 0 ? (int)(bits >> (SIGXFSZ - 1) & 1) : -1;
			}
		}
	}
	(void)fp_raw_close(fd);
#endif
	return -1;
}

/* all: every signal, so that no handler runs inside (fp_fsz_hold). */
static void fp_fsz_block(struct fp_fsz *g, bool all)
{
	sigset_t xfsz, pend;
	int saved = errno;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	if (all)
		sigfillset(&xfsz);
	g->held = pthread_sigmask(SIG_BLOCK, &xfsz, &g->old) == 0;
	g->had = g->held && sigpending(&pend) == 0 && sigismember(&pend, SIGXFSZ) == 1;
	/* The program's may be the process's (a kill): ours would then be
	 * one more, in this thread's queue.  Unknown: taken as this
	 * thread's, which ours merges into. */
	g->had_own = g->had && fp_fsz_private() != 0;
	errno = saved;
}

/* Every signal held, not SIGXFSZ alone: a handler that ran inside would
 * find SIGXFSZ blocked, and its own write past the limit would fail with
 * EFBIG and leave a SIGXFSZ that merges with ours and is taken back: the
 * program would never see it.  Held, the handler runs after, as natively.
 * For our writes to files and our own pipes, which never wait long. */
void fp_fsz_hold(struct fp_fsz *g)
{
	fp_fsz_block(g, true);
}

void fp_fsz_release(struct fp_fsz *g)
{
	sigset_t xfsz, pend;
	int saved = errno, priv;

	if (!g->held)
		return;
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	if (!g->had_own && sigpending(&pend) == 0 && sigismember(&pend, SIGXFSZ) == 1 &&
	    ((priv = fp_fsz_private()) == 1 || (priv < 0 && !g->had))) {
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

ssize_t fp_own_write(int fd, const void *buf, size_t n)
{
	struct fp_fsz g;
	ssize_t r;
	int err;

	/* SIGXFSZ alone: the line may go to a pipe or a terminal, where a
	 * write can wait for the reader, and the program's handlers (a
	 * SIGINT, a SIGTERM) must still run meanwhile. */
	fp_fsz_block(&g, false);
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
	void (*real)(void *, size_t) = fp_real.r_explicit_bzero.f;

	if (real) {
		real(p, n);
		return;
	}
	fp_zero(p, n);
}

/* ------------------------------------------------------------------------
 * Formatting without stdio.
 * ---------------------------------------------------------------------- */
void fp_buf_str(struct fp_buf *b, const char *s)
{
	while (*s && b->len + 1 < b->cap)
		b->p[b->len++] = *s++;
	if (b->cap)
		b->p[b->len] = '\0';
}

void fp_buf_ulong(struct fp_buf *b, unsigned long v)
{
	char tmp[3 * sizeof v + 1];
	char *q = tmp + sizeof tmp - 1;

	*q = '\0';
	do
		*--q = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	fp_buf_str(b, q);
}

void fp_buf_long(struct fp_buf *b, long v)
{
	if (v < 0) {
		fp_buf_str(b, "-");
		fp_buf_ulong(b, -(unsigned long)v);
	} else {
		fp_buf_ulong(b, (unsigned long)v);
	}
}

/* How many bytes at s (n of them) make one character a terminal shows as
 * itself: printable ASCII, or a whole UTF-8 sequence that is not a C1
 * control (U+0080-U+009F, which C2 80-9F encode), overlong, a surrogate or
 * past U+10FFFF.  0: the byte is to be escaped (C0, DEL, a raw 0x80-0xff
 * that starts no such sequence). */
size_t fp_shown_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xc2 || c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* s, each byte fp_shown_len refuses, and each space and backslash, as
 * \ooo: one token, shown as itself, that still tells every byte. */
void fp_buf_escaped(struct fp_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		k = fp_shown_len(u + i, n - i);
		if (k && u[i] != ' ' && u[i] != '\\') {
			if (b->len + k >= b->cap)
				break;  /* a character whole, or not at all */
			while (k--)
				b->p[b->len++] = (char)u[i++];
			continue;
		}
		if (b->len + 5 > b->cap)
			break;
		b->p[b->len++] = '\\';
		b->p[b->len++] = (char)('0' + (u[i] >> 6));
		b->p[b->len++] = (char)('0' + ((u[i] >> 3) & 7));
		b->p[b->len++] = (char)('0' + (u[i] & 7));
		i++;
	}
	if (b->cap)
		b->p[b->len] = '\0';
}

/*
 * One line "fastpath[pid]: <parts...>\n", written in one write(2): lines
 * from many processes sharing a file or a terminal do not interleave;
 * errors have nowhere to go.  The line is built on the stack when it is
 * short, else in a mapping made for it: a debug line about a long path
 * may come from a signal handler on a small alternate stack, where a
 * PATH_MAX buffer does not fit.  Cut at FP_LOG_MAX, never overrun.
 */
#define FP_LOG_SHORT 256
#define FP_LOG_MAX (PATH_MAX + 256)

static bool fp_stderr_same(void);

void fp_log_parts(int fd, const char *const *parts, size_t n)
{
	char small[FP_LOG_SHORT], *line = small;
	size_t i, need = 40, cap = sizeof small;
	struct fp_buf b;

	/* Every line for stderr, the summary's, a warning's or a debug
	 * line: only to the file fd 2 was at start (fp_stderr_same). */
	if (fd == STDERR_FILENO && !fp_stderr_same())
		return;

	for (i = 0; i < n; i++)
		need += strlen(parts[i]);
	if (need > sizeof small) {
		void *q;

		cap = need < FP_LOG_MAX ? need : FP_LOG_MAX;
		q = fp_mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q != MAP_FAILED)
			line = q;
		else
			cap = sizeof small;
	}
	b = (struct fp_buf){ line, 0, cap - 1 };
	fp_buf_str(&b, "fastpath[");
	fp_buf_long(&b, (long)getpid());
	fp_buf_str(&b, "]: ");
	for (i = 0; i < n; i++)
		fp_buf_str(&b, parts[i]);
	/* One line, whatever a setting's value or a path held: a newline in
	 * a setting must not split a warning in two, nor an escape sequence
	 * (C1 ones too) reach the terminal of whoever reads it. */
	for (i = 0; i < b.len;) {
		size_t k = fp_shown_len((const unsigned char *)line + i, b.len - i);

		if (k)
			i += k;
		else
			line[i++] = '?';
	}
	line[b.len++] = '\n';
	(void)fp_own_write(fd, line, b.len);
	if (line != small)
		munmap(line, cap);
}

void fp_log_line(int fd, const char *text)
{
	fp_log_parts(fd, &text, 1);
}

/* errno is kept: the hot paths that may say something need not save it. */
void fp_debug(const char *feature, const char *what, const char *detail)
{
	const char *parts[] = { feature, ": ", what, ": ", detail };
	int saved = errno;

	fp_log_parts(STDERR_FILENO, parts, detail ? 5 : 3);
	errno = saved;
}

/* ------------------------------------------------------------------------
 * Initialisation.
 * ---------------------------------------------------------------------- */
/* How many real functions were found only in the global scope (said once
 * under FASTPATH_DEBUG, fp_bind_say). */
static unsigned fp_bind_global FP_STARTUP_DATA;

#ifdef FP_LINUX
/* Which loaded objects hold the addresses at[]: each one's load base
 * (found[] says which were found; a non-PIE program's base is 0). */
struct fp_owners {
	uintptr_t at[2], base[2];
	bool found[2];
};

FP_STARTUP_TEXT static int fp_owners_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct fp_owners *o = data;
	size_t k;
	ElfW(Half) i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		for (k = 0; k < 2; k++)
			if (!o->found[k] && o->at[k] - lo < ph->p_memsz) {
				o->found[k] = true;
				o->base[k] = (uintptr_t)info->dlpi_addr;
			}
	}
	return o->found[0] && o->found[1];
}

/* a and b lie in the same loaded object.  Read from the program headers, a
 * few per object: dladdr would also look for the nearest symbol, a walk of
 * the object's whole symbol table (libc's cost every process a tenth of a
 * millisecond at start-up).  dl_iterate_phdr takes the loader's lock: at
 * initialisation only, never in a call a signal handler may make. */
FP_STARTUP_TEXT static bool fp_same_object(const void *a, const void *b)
{
	struct fp_owners o = { { (uintptr_t)a, (uintptr_t)b }, { 0, 0 }, { false, false } };

	return dl_iterate_phdr(fp_owners_of, &o) && o.base[0] == o.base[1];
}
#endif

/*
 * The real function: the next definition after ours.  When none comes
 * after us, because the C library is searched before us (LD_PRELOAD=
 * "libc.so.6 fastpath.so": then programs reach libc's functions, not ours,
 * but our constructor, destructor and the calls libc does not have still
 * run), the first definition in the global scope, unless it is our own.
 * NULL: the C library under us lacks it (fastpath.h, "Not ready yet").
 * Linux only: on illumos dl_iterate_phdr is not among the symbols checked
 * against the oldest libc we load on (tests/illumos_libc_symbols.txt).
 */
FP_STARTUP_TEXT static void *fp_lookup(const char *name)
{
	void *p = FP_DLSYM(name);

#ifdef FP_LINUX
	if (fp_likely(p != NULL))
		return p;
	p = FP_DLSYM_GLOBAL(name);
	if (!p || fp_same_object(p, (void *)fp_lookup))
		return NULL;
	fp_bind_global++;
#endif
	return p;
}

#ifdef FP_LINUX
/* Is f (a bound real function) the C library's own, not a later preload's
 * wrapper that must see the calls?  Compared with getpid's object: in libc
 * itself on every version (glibc before 2.33 linked fstat into each object
 * from libc_nonshared.a), and not ours.  At initialisation only. */
FP_STARTUP_TEXT bool fp_in_libc(const void *f)
{
	return f && fp_same_object(f, (void *)&getpid);
}
#endif

#if defined(FP_LINUX) && !defined(FP_DLSYM_TEST)
/*
 * Binding without dlsym (issue 39): a hundred dlsym(RTLD_NEXT) calls were
 * a third of what loading us cost a process (each one finds its caller's
 * object, sets up an error catch and walks the search order).  The same
 * answer, read from the dynamic symbol tables of the objects after ours,
 * up to the C library's, in the order the loader searches them, with the
 * rules of glibc's do_lookup_x and check_match for a lookup without a
 * version: the first object with a global or weak definition, an
 * unversioned one before the one default version.  Only where that order
 * is plain: ours loaded before the C library, every object between with a
 * GNU hash table, and no LD_DYNAMIC_WEAK.  Anything else (a name not found
 * so, an IFUNC, an unusual binding or type) is asked of dlsym, as before.
 */
#define FP_WALK_MAX 16

struct fp_dso {
	const ElfW(Sym) *sym;
	const char *str;
	const uint32_t *gnu;
	const ElfW(Half) *ver;
	uintptr_t base;
};

/* On the binding thread's stack: no page of ours touched for it. */
struct fp_walk {
	struct fp_dso o[FP_WALK_MAX];
	unsigned n;
	bool after_us, libc_after, usable;
	uintptr_t vdso;
	/* The objects before ours: where another copy's marker would be. */
	struct fp_dso before[FP_WALK_MAX];
	unsigned nbefore;
	bool before_ok;
};

/* What the walk also answered, for initialisation after the binding: the
 * C library's __libc_single_threaded, and whether an object before ours
 * exports fastpath_object_marker (another copy).  Unknown: dlsym's. */
static struct {
	bool single_known, copy_known, copy;
	const volatile char *single;
} fp_walked FP_STARTUP_DATA;

/* A d_ptr: glibc's loader relocates the dynamic section in place, musl's
 * and a read-only one (MIPS, RISC-V) are left as offsets. */
static const void *fp_dyn_ptr(uintptr_t base, uintptr_t p)
{
	return (const void *)(p < base ? p + base : p); // NOLINT(performance-no-int-to-ptr)
}

FP_STARTUP_TEXT static bool fp_dso_of(const struct dl_phdr_info *info, struct fp_dso *d)
{
	const ElfW(Dyn) *dyn = NULL;
	ElfW(Half) i;

	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); // NOLINT(performance-no-int-to-ptr)
	*d = (struct fp_dso){ .base = (uintptr_t)info->dlpi_addr };
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			d->sym = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			d->str = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_GNU_HASH)
			d->gnu = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_VERSYM)
			d->ver = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
	}
	return d->sym && d->str && d->gnu;
}

FP_STARTUP_TEXT static bool fp_phdr_has(const struct dl_phdr_info *info, uintptr_t a)
{
	ElfW(Half) i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && a - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz)
			return true;
	}
	return false;
}

FP_STARTUP_TEXT static int fp_walk_collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct fp_walk *w = data;

	(void)size;
	if (w->vdso && (uintptr_t)info->dlpi_phdr - w->vdso < 8192)
		return 0;  /* the vDSO: in no search order */
	if (!w->after_us) {
		w->after_us = fp_phdr_has(info, (uintptr_t)&fp_real);
		if (!w->after_us && (w->nbefore == FP_WALK_MAX ||
		                     !fp_dso_of(info, &w->before[w->nbefore++])))
			w->before_ok = false;
		return 0;
	}
	if (w->n == FP_WALK_MAX || !fp_dso_of(info, &w->o[w->n])) {
		w->usable = false;
		return 1;
	}
	w->n++;
	/* Up to the C library: a later object may be one a constructor
	 * that ran before ours dlopen()ed, which is in no search order (the
	 * loader appends those, after every object loaded at start-up); a
	 * name beyond it is dlsym's. */
	w->libc_after = fp_phdr_has(info, (uintptr_t)&getpid);
	return w->libc_after;
}

static char *fp_env_get(const char *name);

FP_STARTUP_TEXT static void fp_walk_start(struct fp_walk *w)
{
	w->n = w->nbefore = 0;
	w->after_us = w->libc_after = false;
	w->before_ok = true;
	w->usable = !fp_env_get("LD_DYNAMIC_WEAK");
	w->vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (w->usable)
		(void)dl_iterate_phdr(fp_walk_collect, w);
	w->usable = w->usable && w->after_us && w->libc_after;
}

/* a == b, without the C library's strcmp: its page is one more fault for
 * a program that never calls it. */
FP_STARTUP_TEXT static bool fp_str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

FP_STARTUP_TEXT static uint32_t fp_gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* name in one object: 1 found (*out), 0 not there, -1 ask dlsym.  type:
 * STT_FUNC, or STT_OBJECT for a variable. */
FP_STARTUP_TEXT static int fp_dso_find(const struct fp_dso *d, const char *name, uint32_t h,
                                       void **out, unsigned type)
{
	const uint32_t nb = d->gnu[0], off = d->gnu[1], nbloom = d->gnu[2], shift = d->gnu[3];
	const ElfW(Addr) *bloom = (const void *)&d->gnu[4];
	const uint32_t *bucket = (const void *)&bloom[nbloom], *chain = &bucket[nb];
	const unsigned bits = sizeof(ElfW(Addr)) * 8;
	const ElfW(Sym) *versioned = NULL;
	unsigned nversions = 0;
	ElfW(Addr) w;
	uint32_t i;

	if (!nb || !nbloom)
		return 0;
	w = bloom[(h / bits) % nbloom];
	if (!(w >> (h % bits) & 1) || !(w >> ((h >> shift) % bits) & 1))
		return 0;
	for (i = bucket[h % nb]; i >= off && i; i++) {
		const ElfW(Sym) *s = &d->sym[i];
		uint32_t h2 = chain[i - off];

		if ((h | 1) == (h2 | 1) && fp_str_eq(name, d->str + s->st_name) &&
		    s->st_shndx != SHN_UNDEF && s->st_value != 0) {
			if (d->ver && (d->ver[i] & 0x7fff) >= 2) {
				if (!(d->ver[i] & 0x8000) && nversions++ == 0)
					versioned = s;
			} else {
				versioned = s;
				nversions = 1;
				break;
			}
		}
		if (h2 & 1)
			break;
	}
	if (nversions != 1)
		return 0;
	if (ELF32_ST_TYPE(versioned->st_info) != type)
		return -1;  /* an IFUNC (its resolver must run), TLS, another type */
	switch (ELF32_ST_BIND(versioned->st_info)) {
	case STB_GLOBAL:
	case STB_WEAK:
		*out = (void *)(d->base + versioned->st_value); // NOLINT(performance-no-int-to-ptr)
		return 1;
	case STB_LOCAL:
		return 0;
	default:
		return -1;  /* STB_GNU_UNIQUE */
	}
}

FP_STARTUP_TEXT static void *fp_walk_lookup(const struct fp_walk *w, const char *name)
{
	uint32_t h = fp_gnu_hash(name);
	void *p = NULL;
	unsigned i;

	for (i = 0; w->usable && i < w->n; i++) {
		int r = fp_dso_find(&w->o[i], name, h, &p, STT_FUNC);

		if (r > 0)
			return p;
		if (r < 0)
			break;
	}
	return fp_lookup(name);
}

/* The answers initialisation asks for next (fp_walked), where the walk
 * can give them: then no dlsym at all runs at start-up. */
FP_STARTUP_TEXT static void fp_walk_more(const struct fp_walk *w)
{
	static const char marker[] = "fastpath_object_marker", single[] = "__libc_single_threaded";
	void *p = NULL;
	unsigned i;
	int r = 0;

	fp_walked.copy_known = fp_walked.single_known = false;
	if (!w->usable || !w->before_ok)
		return;
	for (i = 0; i < w->nbefore && r == 0; i++)
		r = fp_dso_find(&w->before[i], marker, fp_gnu_hash(marker), &p, STT_FUNC);
	if (r >= 0) {
		fp_walked.copy = r > 0;
		fp_walked.copy_known = true;
	}
	/* From the first object on, as RTLD_DEFAULT: a program's copy
	 * relocation of it (C++ reads it inline) is the live one. */
	r = 0;
	for (i = 0; i < w->nbefore && r == 0; i++)
		r = fp_dso_find(&w->before[i], single, fp_gnu_hash(single), &p, STT_OBJECT);
	for (i = 0; i < w->n && r == 0; i++)
		r = fp_dso_find(&w->o[i], single, fp_gnu_hash(single), &p, STT_OBJECT);
	/* Found, or in no object up to the C library (glibc before 2.32). */
	if (r >= 0) {
		fp_walked.single = r > 0 ? p : NULL;
		fp_walked.single_known = true;
	}
}
#else
struct fp_walk {
	int unused;
};
static void fp_walk_start(struct fp_walk *w)
{
	(void)w;
}
#define fp_walk_lookup(w, name) ((void)(w), fp_lookup(name))
static void fp_walk_more(const struct fp_walk *w)
{
	(void)w;
}
static struct {
	bool single_known, copy_known, copy;
	const volatile char *single;
} fp_walked;
#endif

/* __libc_single_threaded as the walk found it (NULL: there is none);
 * false where it could not tell: counters.c asks dlsym then. */
bool fp_walked_single(const volatile char **at)
{
	*at = fp_walked.single;
	return fp_walked.single_known;
}

FP_STARTUP_TEXT static void fp_bind_all(void)
{
	/* Not on the stack (t_stack: 1.4 KiB): fp_init_run runs once, in
	 * the one thread that won fp_init_state. */
	static struct fp_walk w FP_STARTUP_DATA;
	size_t i, k;

	fp_bind_global = 0;
	fp_walk_start(&w);
#define FP_X(ret, name, params, unready) fp_real.r_##name.p = fp_walk_lookup(&w, #name);
	FP_REAL_ALL(FP_X)
#undef FP_X
	for (i = 0; i < fp_nmitigations; i++)
		for (k = 0; k < fp_mitigations[i]->nsyms; k++)
			*fp_mitigations[i]->syms[k].slot =
				fp_walk_lookup(&w, fp_mitigations[i]->syms[k].name);
	fp_walk_more(&w);
}

/* Once settings are known: a preload order that hides our wrappers. */
FP_STARTUP_TEXT static void fp_bind_say(void)
{
	char n[24];
	struct fp_buf b = { n, 0, sizeof n };

	if (fp_likely(!fp_bind_global) || !fp_cfg.debug)
		return;
	fp_buf_ulong(&b, fp_bind_global);
	fp_debug("core", n, "real functions come before fastpath.so in the search order "
	                    "(LD_PRELOAD names the C library first?): bound from the global "
	                    "scope; calls to them do not reach fastpath");
}

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

	/* The walk looked before ours: an object there that exports it is
	 * another copy, first in the search order (ours is not). */
	if (fp_walked.copy_known)
		return fp_walked.copy;
	first.p = dlsym(RTLD_DEFAULT, "fastpath_object_marker");
	return first.f && first.f != fp_object_marker_here;
}

/* The one set of fork handlers: every mitigation's, in table order
 * (prepare in reverse, as pthread_atfork runs handlers registered apart). */
static void fp_atfork_prepare(void)
{
	size_t i;

	for (i = fp_nmitigations; i-- > 0;)
		if (fp_mitigations[i]->prepare)
			fp_mitigations[i]->prepare();
}

static void fp_atfork_parent(void)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->parent)
			fp_mitigations[i]->parent();
}

static void fp_survey_child(void);
static void fp_survey_start(void);

static void fp_atfork_child(void)
{
	size_t i, k, s;

	fp_survey_child();
	fp_counters_child();
	fp_vfork_forget();

	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_mitigation *m = fp_mitigations[i];

		/* The child's summary tells what the child did. */
		for (s = 0; m->counters && s < FP_STRIPES; s++)
			for (k = 0; k < m->ncounters; k++)
				if (!(m->gauges & (1u << k)))
					atomic_store_explicit(&m->counters[s].c[k], 0,
					                      memory_order_relaxed);
		if (m->child)
			m->child();
	}
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
static bool fp_fstat_bound(int fd, struct stat *st)
{
#ifdef FP_LINUX
	if (fp_real.r_fstat.f)
		return fp_real.r_fstat.f(fd, st) == 0;
#  ifdef FP_HAVE_LFS64
	if (fp_real.r___fxstat.f)
		return fp_real.r___fxstat.f(FP_STAT_VER, fd, st) == 0;
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

FP_STARTUP_TEXT static char *fp_env_get(const char *name)
{
	char **e;

	for (e = environ; e && *e; e++) {
		const char *a = name, *b = *e;

		while (*a && *a == *b)
			a++, b++;
		if (!*a && *b == '=')
			return (char *)b + 1;
	}
	return NULL;
}

FP_STARTUP_TEXT static char *fp_getenv_noting(const char *name)
{
	char *v = fp_env_get(name);

	if (v)
		fp_env_seen = true;
	return v;
}

static bool fp_stderr_same(void)
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
	pthread_atfork(fp_atfork_prepare, fp_atfork_parent, fp_atfork_child);
	atomic_store_explicit(&fp_init_state, FP_INIT_DONE, memory_order_release);
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
		fp_init_run();
		fp_init_here = false;
		return true;
	}
	fp_init_here = false;
	if (expect == FP_INIT_DONE)
		return true;
	while (atomic_load_explicit(&fp_init_state, memory_order_acquire) != FP_INIT_DONE)
		sched_yield();
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

static bool fp_counters_ours(long pid);

static void fp_write_stats(void)
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

/* ------------------------------------------------------------------------
 * Survey records (FASTPATH_SURVEY=DIR; the format is fastpath(7)'s).  One
 * file per process, DIR/<pid>.rec, replaced whole: written to a temporary
 * name and renamed, so that a reader never sees half of one.  Only system
 * calls, a line at a time from a small buffer: it may run in a signal
 * handler (a surveyed read() there, or _exit) or in a fork child.  A
 * record that cannot be written (no DIR, EMFILE, a full disk, the
 * program's RLIMIT_FSIZE: never a SIGXFSZ, see fp_fsz_hold) is simply
 * not there, and the report counts it as missing; errno is kept.
 * The counters are owner's: a vfork, _Fork or clone child (no atfork
 * handler; a vfork child shares them) writes zeros, and counts itself as a
 * vfork child of the owner (fp_sv_exec, _exit).
 * ---------------------------------------------------------------------- */
static struct {
	struct timespec start;      /* this process image's start (or fork) */
	_Atomic long owner;         /* the pid the counters belong to */
	long ppid;                  /* its parent at that start */
	_Atomic unsigned long spawns, vforks;
	/* The last record written, in ticks of 2^30 ns (about 1.07 s): an
	 * unsigned long, because 32-bit builds have neither lock-free 64-bit
	 * atomics nor 64-bit division without libgcc; a shift they have. */
	_Atomic unsigned long last_tick;
	_Atomic int busy;           /* one writer at a time; others skip */
	_Atomic long final_pid;     /* the process whose final record is out */
} fp_sv;

/* The program's name: the last component of the path the kernel was given
 * at exec (AT_EXECFN; illumos' getexecname), copied at the first record,
 * which initialisation writes before main: argv[0] is the program's to
 * rewrite (setproctitle, perl's $0), and the kernel's copy sits beside it
 * on the stack.  Never empty: a record without a name is still a record. */
static char fp_sv_prog[NAME_MAX + 1];

static const char *fp_exec_path(void)
{
#if defined(FP_ILLUMOS)
	return getexecname();  /* <stdlib.h> */
#else
#  ifdef AT_EXECFN
	const char *p = (const char *)getauxval(AT_EXECFN); // NOLINT(performance-no-int-to-ptr)

	if (p && *p)
		return p;
#  endif
	return program_invocation_name;
#endif
}

static const char *fp_progname(void)
{
	const char *p, *q;
	struct fp_buf b = { fp_sv_prog, 0, sizeof fp_sv_prog };

	if (fp_sv_prog[0])
		return fp_sv_prog;
	p = fp_exec_path();
	if (!p)
		p = "";
	q = strrchr(p, '/');
	if (q && q[1])
		p = q + 1;
	fp_buf_str(&b, *p ? p : "?");
	return fp_sv_prog;
}

static unsigned long fp_sv_tick_of(const struct timespec *ts)
{
	return (unsigned long)((((uint64_t)ts->tv_sec * 1000000000u) + (uint64_t)ts->tv_nsec) >> 30);
}

/* A record on its way out: put together in one buffer and written by one
 * write(2) (a record is about 1.3 KB), or in as many as it takes where the
 * buffer is smaller.  The writer that holds fp_sv.busy has the static one;
 * one that could not take it (a final record whose thread interrupted a
 * periodic writer) writes from a small one on the stack, as a signal
 * handler on a small stack can. */
struct fp_sv_out {
	int fd;
	bool ok;
	size_t len, cap;
	char *buf;
};
static char fp_sv_big[4096];

static void fp_sv_flush(struct fp_sv_out *o)
{
	if (o->len && fp_raw_write(o->fd, o->buf, o->len) != (ssize_t)o->len)
		o->ok = false;
	o->len = 0;
}

static void fp_sv_line(struct fp_sv_out *o, const char *key, const char *sval, unsigned long v)
{
	char line[192];
	struct fp_buf b = { line, 0, sizeof line - 1 };

	fp_buf_str(&b, key);
	fp_buf_str(&b, " ");
	if (sval) {
		/* One token, shown as itself: the report reads "key value",
		 * and a program's file name may hold an escape sequence (C1
		 * too), a newline and a forged line after it. */
		fp_buf_escaped(&b, sval);
	} else {
		fp_buf_ulong(&b, v);
	}
	line[b.len++] = '\n';
	if (o->len + b.len > o->cap)
		fp_sv_flush(o);
	if (b.len > o->cap) {
		if (fp_raw_write(o->fd, line, b.len) != (ssize_t)b.len)
			o->ok = false;
		return;
	}
	memcpy(o->buf + o->len, line, b.len);
	o->len += b.len;
}

/* "<key> <seconds>.<nanoseconds>": no 64-bit arithmetic. */
static void fp_sv_time(struct fp_sv_out *o, const char *key, const struct timespec *ts)
{
	char v[48], *p = v + sizeof v;
	long ns = ts->tv_nsec;
	int i;
	struct fp_buf b = { v, 0, 24 };

	fp_buf_ulong(&b, (unsigned long)ts->tv_sec);
	*--p = '\0';
	for (i = 0; i < 9; i++, ns /= 10)
		*--p = (char)('0' + ns % 10);
	*--p = '.';
	memmove(v + b.len, p, strlen(p) + 1);
	fp_sv_line(o, key, v, 0);
}

/* own: the counters are this process's; else zeros, and now as start. */
static bool fp_sv_body(struct fp_sv_out *o, long pid, bool final, bool own,
                       const struct timespec *now)
{
	size_t i;
	unsigned k;

	fp_sv_line(o, "fastpath-survey", NULL, 1);
	fp_sv_line(o, "pid", NULL, (unsigned long)pid);
	fp_sv_line(o, "ppid", NULL, (unsigned long)(own ? fp_sv.ppid : (long)getppid()));
	fp_sv_line(o, "prog", fp_progname(), 0);
	fp_sv_line(o, "state", final ? "exited" : "running", 0);
	fp_sv_time(o, "start_s", own ? &fp_sv.start : now);
	fp_sv_time(o, "now_s", now);
	fp_sv_line(o, "spawns", NULL, own ? atomic_load(&fp_sv.spawns) : 0);
	fp_sv_line(o, "vforks", NULL, own ? atomic_load(&fp_sv.vforks) : 0);
	for (i = 0; o->ok && i < fp_nmitigations; i++) {
		const struct fp_survey *sv = fp_mitigations[i]->survey;

		if (own && sv && sv->calibrate)
			sv->calibrate(o->fd);
		for (k = 0; sv && k < sv->n; k++)
			fp_sv_line(o, sv->keys[k], NULL,
			           own ? atomic_load_explicit(&sv->c[k], memory_order_relaxed) : 0);
	}
	fp_sv_line(o, "end", NULL, 0);
	fp_sv_flush(o);
	return o->ok;
}

/* The directory this process's records go to: the survey directory when
 * root or this user owns it; in one another user owns (root's, shared by
 * the users of a service: 1733), the subdirectory named after this
 * process's effective uid, made by the first of its processes (0700) and
 * taken only when this user owns it: no user can make another's records
 * land where it chooses, nor write records the report reads as another's. */
static int fp_sv_opendir(bool *shared)
{
	char uid[24];
	struct fp_buf b = { uid, 0, sizeof uid };
	struct stat st;
	int dfd = fp_of_opendir(fp_cfg.survey_dir, strlen(fp_cfg.survey_dir), NULL, 0), sub;

	/* Another user may add names to it (outfile.c: then sticky). */
	*shared = true;
	if (dfd < 0 || !fp_fstat_bound(dfd, &st))
		return dfd;
	if (st.st_uid == geteuid()) {
		*shared = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
		return dfd;
	}
	fp_buf_ulong(&b, (unsigned long)geteuid());
#ifdef FP_LINUX
	/* illumos: mkdirat's version set is not established against the
	 * floor (tests/illumos_libc_symbols.txt); the subdirectory is made
	 * beforehand there. */
	(void)mkdirat(dfd, uid, 0700);
#endif
	sub = (int)fp_raw_openat(dfd, uid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	fp_raw_close(dfd);
	if (sub >= 0 && (!fp_fstat_bound(sub, &st) || st.st_uid != geteuid() ||
	                 (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		fp_raw_close(sub);
		sub = -1;
	}
	*shared = false;
	return sub;
}

/* held: this thread holds fp_sv.busy (the static buffer is its own). */
static void fp_sv_write(bool final, bool held)
{
	char pre[32], tmp[64], rec[32], small[256];
	struct fp_buf t = { pre, 0, sizeof pre }, r = { rec, 0, sizeof rec };
	long pid = (long)getpid();
	struct timespec now = { 0, 0 };  /* a refused clock reads 0, as fp_now_ns */
	int saved = errno, dfd, fd;
	bool shared;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);

	/* .<pid>.p.<random>.tmp: a name nobody can plant a link at first
	 * (outfile.c), in a directory nobody else can swap. */
	fp_buf_str(&t, ".");
	fp_buf_long(&t, pid);
	fp_buf_str(&t, final ? ".f." : ".p.");
	fp_buf_long(&r, pid);
	fp_buf_str(&r, ".rec");
	dfd = fp_sv_opendir(&shared);
	if (dfd >= 0) {
		fd = fp_of_create(dfd, pre, tmp, sizeof tmp, shared);
		if (fd >= 0) {
			struct fp_fsz g;
			bool ok;

			/* Past the program's file-size limit the record is
			 * not there (EFBIG), never a SIGXFSZ. */
			fp_fsz_hold(&g);
			struct fp_sv_out o = { fd, true, 0, held ? sizeof fp_sv_big : sizeof small,
				               held ? fp_sv_big : small };

			ok = fp_sv_body(&o, pid, final, atomic_load(&fp_sv.owner) == pid, &now);
			fp_fsz_release(&g);

			ok = fp_raw_close(fd) == 0 && ok;
			/* Over a planted <pid>.rec link: rename replaces the
			 * link itself, never what it points at. */
			if (!ok || renameat(dfd, tmp, dfd, rec) != 0)
				(void)unlinkat(dfd, tmp, 0);
		}
		fp_raw_close(dfd);
	}
	atomic_store_explicit(&fp_sv.last_tick, fp_sv_tick_of(&now), memory_order_relaxed);
	errno = saved;
}

void fp_survey_tick(uint64_t now_ns)
{
	unsigned long now = (unsigned long)(now_ns >> 30);
	int idle = 0;

	if (fp_likely(now - atomic_load_explicit(&fp_sv.last_tick, memory_order_relaxed) <
	              fp_cfg.survey_every))
		return;
	if (atomic_load(&fp_sv.final_pid) == (long)getpid() ||
	    !atomic_compare_exchange_strong(&fp_sv.busy, &idle, 1))
		return;
	/* Checked again under the flag: another thread may just have. */
	if (now - atomic_load(&fp_sv.last_tick) >= fp_cfg.survey_every &&
	    atomic_load(&fp_sv.final_pid) != (long)getpid())
		fp_sv_write(false, true);
	atomic_store(&fp_sv.busy, 0);
}

static void fp_survey_final(void)
{
	long pid;
	int idle, tries;
	bool held = false;

	if (atomic_load(&fp_init_state) != FP_INIT_DONE || !fp_cfg.survey)
		return;
	pid = (long)getpid();
	if (atomic_exchange(&fp_sv.final_pid, pid) == pid)
		return;
	fp_sv_exec(1);
	/* Wait for a periodic writer in another thread, but not for ever:
	 * it may be this very thread, interrupted by a signal handler. */
	for (tries = 0; tries < 1000; tries++) {
		idle = 0;
		if ((held = atomic_compare_exchange_strong(&fp_sv.busy, &idle, 1)))
			break;
		sched_yield();
	}
	fp_sv_write(true, held);
	if (held)
		atomic_store(&fp_sv.busy, 0);
}

void fp_sv_spawned(void)
{
	if (atomic_load(&fp_init_state) == FP_INIT_DONE && fp_cfg.survey)
		atomic_fetch_add(&fp_sv.spawns, 1);
}

void fp_sv_exec(int step)
{
	if (atomic_load(&fp_init_state) == FP_INIT_DONE && fp_cfg.survey &&
	    atomic_load(&fp_sv.owner) != (long)getpid())
		atomic_fetch_add(&fp_sv.vforks, (unsigned long)(long)step);
}

static bool fp_counters_ours(long pid)
{
	return atomic_load(&fp_sv.owner) == pid;
}

/* Whose counters: asked by the summary and the survey only, so a process
 * with neither pays no getpid or getppid at start-up or fork. */
static void fp_sv_own(void)
{
	if (fp_likely(fp_cfg.stats == FP_STATS_NONE && !fp_cfg.survey))
		return;
	atomic_store(&fp_sv.owner, (long)getpid());
	fp_sv.ppid = (long)getppid();
	atomic_store(&fp_sv.spawns, 0);
	atomic_store(&fp_sv.vforks, 0);
}

/* At start: a record only from a process that leads its session (a
 * service's main process, a daemon spawned detached), which says "running"
 * at once: a report made while it runs names it, and one made after the
 * command that started it has ended says it outlived it.  Any other
 * process writes its record at exit, and about once a minute while it
 * runs (fp_survey_tick): a short one (a shell loop's /bin/true) pays one
 * record, not two; one killed before its first leaves none, which its
 * parent's count of children tells (interpose(1), SURVEY).  The name is
 * taken now, before main can touch what it is read from. */
FP_STARTUP_TEXT static void fp_survey_start(void)
{
	int idle = 0;

	fp_sv_own();
	if (!fp_cfg.survey)
		return;
	clock_gettime(CLOCK_MONOTONIC, &fp_sv.start);
	atomic_store(&fp_sv.last_tick, fp_sv_tick_of(&fp_sv.start));
	(void)fp_progname();
#ifdef FP_LINUX
	/* The system call: getsid's version set on illumos is not
	 * established against the floor (tests/illumos_libc_symbols.txt),
	 * and there every process writes its first record later. */
	if (syscall(SYS_getsid, 0) != (long)getpid() ||
	    !atomic_compare_exchange_strong(&fp_sv.busy, &idle, 1))
		return;
#else
	(void)idle;
	return;
#endif
	fp_sv_write(false, true);
	atomic_store(&fp_sv.busy, 0);
}

/* A fork child: a process of its own, with no record until it ends. */
static void fp_survey_child(void)
{
	size_t i;
	unsigned k;

	fp_sv_own();
	clock_gettime(CLOCK_MONOTONIC, &fp_sv.start);
	atomic_store(&fp_sv.last_tick, fp_sv_tick_of(&fp_sv.start));
	atomic_store(&fp_sv.busy, 0);
	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_survey *sv = fp_mitigations[i]->survey;

		for (k = 0; sv && k < sv->n; k++)
			atomic_store_explicit(&sv->c[k], 0, memory_order_relaxed);
	}
}

__attribute__((constructor)) static void fp_constructor(void)
{
	(void)fp_ready();
}

__attribute__((destructor)) static void fp_destructor(void)
{
	fp_write_stats();
	fp_survey_final();
}

/* Both leave without exit(): write the line, then really leave. */
__attribute__((noreturn)) static void fp_exit_via(void (*real)(int), int status)
{
	fp_write_stats();
	fp_survey_final();
	if (real)
		real(status);
	fp_raw_exit(status);
}

FP_EXPORT void _exit(int status)
{
	fp_exit_via(fp_real.r__exit.f, status);
}

FP_EXPORT void _Exit(int status)
{
	fp_exit_via(fp_real.r__Exit.f, status);
}
