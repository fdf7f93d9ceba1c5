/* SPDX-License-Identifier: MIT */
/*
 * urandom_shim.c: /dev/urandom without the system calls: the entry points.
 *
 * Programs that open /dev/urandom, read a few bytes and close it again pay
 * three system calls per token.  Each entry point here unpacks its call,
 * decides whether an open is ours (ur_match), and asks urandom_fd.c and
 * urandom_open.c (is this descriptor ours, keep or really close it) and
 * urandom_pool.c (the bytes); see urandom.h for which invariant each keeps.
 */
#include "fastpath.h"
#include "urandom.h"
#include "cpus.h"
#ifdef FP_LINUX
#include <sys/utsname.h>
#endif

/* FASTPATH_GETRANDOM: getrandom() and getentropy() are pooled too. */
static bool ur_getrandom FP_STARTUP_DATA;
static bool ur_mode_set FP_STARTUP_DATA;

/* ------------------------------------------------------------------------
 * Which opens are ours.
 * ---------------------------------------------------------------------- */
static _Atomic int ur_random_ok = -1;  /* -1: not yet decided */

/*
 * /dev/random too, where it is the same generator as /dev/urandom once that
 * is initialised: Linux >= 5.6 (before, it was a separate pool that blocked
 * on entropy estimates, and serving it from urandom output would change its
 * meaning).  The pool refills with GRND_NONBLOCK, so before initialisation
 * the read goes to the kernel and blocks exactly as natively.
 */
static bool ur_random_pooled(void)
{
	int ok = atomic_load_explicit(&ur_random_ok, memory_order_relaxed);

	if (fp_likely(ok >= 0))
		return ok;
	ok = 0;
#ifdef FP_LINUX
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &maj, &min) == 2)
		ok = maj > 5 || (maj == 5 && min >= 6);
#endif
	atomic_store(&ur_random_ok, ok);
	return ok;
}

#define UR_OK_FLAGS (O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_LARGEFILE)

/* The device an open is for, or -1 when it is not ours.  Off (and not
 * surveying), the path is never read: an invalid one is the kernel's to
 * answer (EFAULT), as a NULL one always is. */
int ur_match(const char *path, int flags)
{
	bool survey;
	int dev;

	if (!fp_ready() || !((fp_cfg.enabled & FP_BIT(urandom)) || fp_cfg.survey))
		return -1;
	path = fp_opaque(path);
	if (fp_likely(!path || path[0] != '/' || path[1] != 'd'))
		return -1;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | UR_OK_FLAGS)))
		return -1;
	/* Surveying: the opens the pool would take, to be timed instead. */
	survey = !(fp_cfg.enabled & FP_BIT(urandom));
	if (!survey && fp_unlikely(atomic_load_explicit(&ur_split_done, memory_order_relaxed)))
		return -1;
	/* The rest of "/dev/urandom" or "/dev/random", a byte at a time up to
	 * the first that differs, as strcmp (no call on the hot path). */
	path += 2;
	if (path[0] != 'e' || path[1] != 'v' || path[2] != '/')
		return -1;
	path += 3;
	dev = UR_DEV_RANDOM;
	if (path[0] == 'u') {
		dev = UR_DEV_URANDOM;
		path++;
	}
	if (path[0] != 'r' || path[1] != 'a' || path[2] != 'n' || path[3] != 'd' ||
	    path[4] != 'o' || path[5] != 'm' || path[6] != '\0')
		return -1;
	if (dev == UR_DEV_RANDOM && !ur_random_pooled())
		return -1;
	return survey ? UR_SURVEY : dev;
}

/* ------------------------------------------------------------------------
 * open and its twins, written once: the plain and at forms, each with its
 * 64 twin, and the fortified _2 forms, which take no mode.  An absolute
 * path makes the kernel ignore dirfd, so the at forms match the same way.
 * The fortified forms abort on O_CREAT without a mode; ours never match
 * O_CREAT, so every such case reaches the real one.
 * ---------------------------------------------------------------------- */
static inline int ur_after_open(int fd)
{
	if (fd >= 0) {
		ur_heal(fd);
		if (fp_unlikely(ur_surveyed(fd)))
			ur_sv_forget(fd);
	}
	return fd;
}

/* Every open form reaches the CPU cap's files first (cpus.h: one branch
 * while the cap is unset or we are not ready), then the device; surveying
 * (dev_ == UR_SURVEY), the device's real open, timed.  The device's open
 * is native, untracked, while a fork that began before the mitigation
 * first acted is under way (ur_arm). */
#define UR_OPEN_BODY(dirfd, call, lfs)                                       \
	int dev_, fd_;                                                       \
	if (fp_cpus_open(dirfd, path, flags, &fd_))                          \
		return ur_after_open(fd_);                                   \
	if (fp_unlikely((dev_ = ur_match(path, flags)) >= 0)) {              \
		if (fp_unlikely(dev_ == UR_SURVEY)) {                        \
			UR_SV_TIMED(fd_, call, ur_sv_opened, fd_, flags);    \
			return fd_;                                          \
		}                                                            \
		if (fp_vfork_child()) { /* its give-back at the limit too */ \
			UR_RETRY(fd_, call);                                 \
			return fd_;                                          \
		}                                                            \
		if (fp_likely(ur_arm()))                                     \
			return ur_open(dev_, path, flags | (lfs));           \
	}                                                                    \
	UR_RETRY(fd_, call);                                                 \
	fp_cpus_opened(path, fd_);                                           \
	return ur_after_open(fd_)

#define UR_WRAP_OPEN(name, lfs)                                                  \
	FP_EXPORT int name(const char *path, int flags, ...)                 \
	{                                                                    \
		mode_t mode = 0;                                             \
		FP_MODE(flags, mode);                                        \
		UR_OPEN_BODY(AT_FDCWD, UR_REAL(name)(path, flags, mode), lfs); \
	}
/* A held number (the hidden descriptor, a kept reserve) as dirfd is a
 * closed one: -1 gives the kernel's own answer for it (EBADF for a
 * relative path, the path's for an absolute one). */
#define UR_WRAP_OPENAT(name, lfs)                                                \
	FP_EXPORT int name(int dirfd, const char *path, int flags, ...)      \
	{                                                                    \
		mode_t mode = 0;                                             \
		FP_MODE(flags, mode);                                        \
		dirfd = ur_real_fd(dirfd, ur_state(dirfd));                  \
		UR_OPEN_BODY(dirfd, UR_REAL(name)(dirfd, path, flags, mode), lfs); \
	}
#define UR_WRAP_OPEN_2(name, lfs)                                                \
	FP_EXPORT int name(const char *path, int flags)                      \
	{                                                                    \
		UR_OPEN_BODY(AT_FDCWD, UR_REAL(name)(path, flags), lfs);     \
	}
#define UR_WRAP_OPENAT_2(name, lfs)                                              \
	FP_EXPORT int name(int dirfd, const char *path, int flags)           \
	{                                                                    \
		dirfd = ur_real_fd(dirfd, ur_state(dirfd));                  \
		UR_OPEN_BODY(dirfd, UR_REAL(name)(dirfd, path, flags), lfs); \
	}

/* The 64 twins add O_LARGEFILE, as the C library's do (it is 0 in a
 * 64-bit glibc build, where the kernel always sets it); the plain forms
 * add what the C library's plain open does (UR_LFS_PLAIN): a 32-bit glibc
 * program built without large-file support opens the device without. */
UR_WRAP_OPEN(open, UR_LFS_PLAIN)
FP_ALIAS(__open, open);
UR_WRAP_OPENAT(openat, UR_LFS_PLAIN)
#ifdef FP_HAVE_LFS64
UR_WRAP_OPEN(open64, O_LARGEFILE)
FP_ALIAS(__open64, open64);
UR_WRAP_OPENAT(openat64, O_LARGEFILE)
#endif
#ifdef FP_HAVE_GLIBC_CHK
UR_WRAP_OPEN_2(__open_2, UR_LFS_PLAIN)
UR_WRAP_OPEN_2(__open64_2, O_LARGEFILE)
UR_WRAP_OPENAT_2(__openat_2, UR_LFS_PLAIN)
UR_WRAP_OPENAT_2(__openat64_2, O_LARGEFILE)
#endif

/* ------------------------------------------------------------------------
 * Reads.  A reserve descriptor is closed as far as the program knows: the
 * real call on -1 gives exactly the kernel's EBADF.
 * ---------------------------------------------------------------------- */

/* Serves a read of a tracked, open descriptor; the kernel tops up whatever
 * the pool could not give. */
static ssize_t ur_read(int fd, void *buf, size_t n)
{
	size_t got;
	ssize_t r;

	/* read is a cancellation point, served from the pool or not. */
	pthread_testcancel();
	ur_count(READS);
	if (n == 0)
		return 0;
	if (n > UR_SERVE_MAX || !fp_opaque(buf)) {
		ur_count(SYSCALLS);
		return UR_REAL(read)(fd, buf, n);
	}
	got = ur_serve(buf, n, fd);
	if (fp_likely(got == n))
		return (ssize_t)n;
	ur_count(SYSCALLS);
	r = UR_REAL(read)(fd, (unsigned char *)buf + got, n - got);
	if (r < 0)
		return got ? (ssize_t)got : -1;
	return (ssize_t)got + r;
}

FP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st))
		return (st & UR_OPEN) ? ur_read(fd, buf, n)
		                      : UR_REAL(read)(ur_real_fd(fd, st), buf, n);
	if (fp_unlikely(ur_surveyed(fd))) {
		ssize_t r;

		UR_SV_TIMED(r, UR_REAL(read)(fd, buf, n), ur_sv_read, n);
		return r;
	}
	return UR_REAL(read)(fd, buf, n);
}
FP_ALIAS(__read, read);

#ifdef FP_HAVE_GLIBC_CHK
FP_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	unsigned st = ur_state(fd);

	/* n > buflen: the real one reports the overflow and aborts. */
	if (fp_unlikely(st) && n <= buflen)
		return (st & UR_OPEN) ? ur_read(fd, buf, n)
		                      : UR_REAL(read)(ur_real_fd(fd, st), buf, n);
	if (fp_unlikely(ur_surveyed(fd)) && n <= buflen) {
		ssize_t r;

		UR_SV_TIMED(r, UR_REAL(__read_chk)(fd, buf, n, buflen), ur_sv_read, n);
		return r;
	}
	return UR_REAL(__read_chk)(fd, buf, n, buflen);
}
#endif

/* pread and pread64, written once.  The device ignores the offset, but the
 * kernel still rejects one that is negative, or that n bytes more would
 * take past the largest (EINVAL; a cold review: 16 bytes served at
 * INT64_MAX - 5): those go to it. */
#define UR_POS_OK(off, n)                                                    \
	((off) >= 0 && (unsigned long long)(n) <= (unsigned long long)LLONG_MAX - (unsigned long long)(off))
#define UR_WRAP_PREAD(name, off_type)                                        \
	FP_EXPORT ssize_t name(int fd, void *buf, size_t n, off_type off)    \
	{                                                                    \
		unsigned st = ur_state(fd);                                  \
                                                                             \
		if (fp_unlikely(st & UR_OPEN) && UR_POS_OK(off, n))          \
			return ur_read(fd, buf, n);                          \
		if (fp_unlikely(ur_surveyed(fd)) && UR_POS_OK(off, n)) {     \
			ssize_t r_;                                          \
			UR_SV_TIMED(r_, UR_REAL(name)(fd, buf, n, off), ur_sv_read, n); \
			return r_;                                           \
		}                                                            \
		fp_cpus_pread_at(fd, off); /* procfs makes it afresh */      \
		return UR_REAL(name)(ur_real_fd(fd, st), buf, n, off);       \
	}

UR_WRAP_PREAD(pread, off_t)
#ifdef FP_HAVE_LFS64
UR_WRAP_PREAD(pread64, off64_t)
FP_ALIAS(__pread64, pread64);
#endif

/* A negative length (32-bit illumos) is the kernel's EINVAL: not served. */
FP_IOV_TOTAL_FN(ur_iov_total, struct iovec)

static ssize_t ur_readv(int fd, const struct iovec *iov, int cnt)
{
	size_t total = 0;
	ssize_t r = 0;
	int i;

	if (cnt <= 0 || cnt > IOV_MAX || !fp_opaque(iov) ||
	    !ur_iov_total(iov, cnt, UR_SERVE_MAX, &total))
		goto direct;
	/* Each buffer filled in turn; a shortfall is finished by the kernel,
	 * as a short read. */
	for (i = 0; i < cnt; i++) {
		ssize_t k = ur_read(fd, iov[i].iov_base, (size_t)iov[i].iov_len);

		if (k < 0)
			return r ? r : -1;
		r += k;
		if ((size_t)k < (size_t)iov[i].iov_len)
			break;
	}
	return r;
direct:
	ur_count(READS);
	ur_count(SYSCALLS);
	return UR_REAL(readv)(fd, iov, cnt);
}

FP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st & UR_OPEN))
		return ur_readv(fd, iov, cnt);
	return UR_REAL(readv)(ur_real_fd(fd, st), iov, cnt);
}

/* ------------------------------------------------------------------------
 * close: reserve mode keeps the descriptor (ur_close).  0, 1 and 2 are really closed, so
 * that close(0); open("/dev/null") still yields 0.
 * ---------------------------------------------------------------------- */
FP_EXPORT int close(int fd)
{
	unsigned st = ur_state(fd);

	if (fp_unlikely(st))
		return ur_close(fd, st);
	if (fp_unlikely(ur_surveyed(fd))) {
		int r;

		/* Forgotten first: once closed, the number may be the next
		 * open's in another thread, which marks it again. */
		ur_sv_forget(fd);
		UR_SV_TIMED(r, UR_REAL(close)(fd), ur_sv_closed);
		return r;
	}
	return UR_REAL(close)(fd);
}
FP_ALIAS(__close, close);



#ifdef FP_HAVE_CLOSE_RANGE
#ifdef CLOSE_RANGE_CLOEXEC
#define UR_CLOSE_RANGE_CLOEXEC_FLAG CLOSE_RANGE_CLOEXEC
#else
#define UR_CLOSE_RANGE_CLOEXEC_FLAG 0
#endif
#ifdef CLOSE_RANGE_UNSHARE
#define UR_CLOSE_RANGE_KNOWN (CLOSE_RANGE_UNSHARE | UR_CLOSE_RANGE_CLOEXEC_FLAG)
#else
#define UR_CLOSE_RANGE_KNOWN UR_CLOSE_RANGE_CLOEXEC_FLAG
#endif
FP_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	int taken[UR_NTAKEN], r, d, cs, e;
	sigset_t old;

#ifdef CLOSE_RANGE_UNSHARE
	if (fp_unlikely(flags & CLOSE_RANGE_UNSHARE) && fp_enabled(FP_BIT(urandom)))
		ur_split("a descriptor table of its own");
#endif

	/* A flag the kernel refuses (EINVAL) closes nothing: nothing is
	 * forgotten first.  One a later kernel knows is taken to close the
	 * range: ours there are forgotten after, never closed again (another
	 * thread may have been given the numbers since). */
	if (fp_likely(atomic_load(&ur_hiwater) == 0) || lo > hi)
		return UR_REAL(close_range)(lo, hi, flags);
	if (!ur_table_ours()) {
		if ((r = UR_REAL(close_range)(lo, hi, flags)) == 0 &&
		    !(flags & UR_CLOSE_RANGE_CLOEXEC_FLAG))
			(void)ur_vfork_forget(lo, hi, false);
		return r;
	}
	if (fp_unlikely(flags & ~UR_CLOSE_RANGE_KNOWN)) {
		r = UR_REAL(close_range)(lo, hi, flags);
		if (r == 0 && !(flags & UR_CLOSE_RANGE_CLOEXEC_FLAG))
			ur_untrack_range(lo, hi, taken);
		return r;
	}
#ifdef CLOSE_RANGE_CLOEXEC
	if (flags & CLOSE_RANGE_CLOEXEC) {
		unsigned fd, end = (unsigned)atomic_load(&ur_hiwater);

		r = UR_REAL(close_range)(lo, hi, flags);
		for (fd = lo; r == 0 && fd < end && fd <= hi; fd++)
			ur_update((int)fd, 0, UR_CLOEXEC);
		return r;
	}
#endif
	/* Forgotten, not yet freed: a handler's jump out between would
	 * leave them open unrecorded, the pooled ones sharing the pool's
	 * description with each other and a hidden descriptor nobody
	 * retires (as ur_close's window, but many and rare). */
	ur_block_all(&old, &cs);
	ur_untrack_range(lo, hi, taken);
	r = UR_REAL(close_range)(lo, hi, flags);
	e = errno;
	for (d = 0; r < 0 && d < UR_NTAKEN; d++)
		if (taken[d] >= 0)
			UR_REAL(close)(taken[d]);
	ur_unblock_all(&old, cs);
	errno = e;
	return r;
}
#endif

#ifdef FP_HAVE_CLOSEFROM
FP_EXPORT void closefrom(int lo)
{
	int taken[UR_NTAKEN];

	/* A negative lo closes everything, as glibc reads it.  Signals
	 * held as close_range's. */
	if (fp_unlikely(atomic_load(&ur_hiwater) != 0)) {
		if (ur_table_ours()) {
			int cs;
			sigset_t old;

			ur_block_all(&old, &cs);
			ur_untrack_range(lo < 0 ? 0 : (unsigned)lo, UINT_MAX, taken);
			UR_REAL(closefrom)(lo);
			ur_unblock_all(&old, cs);
			return;
		}
		(void)ur_vfork_forget(lo < 0 ? 0 : (unsigned)lo, UINT_MAX, false);
	}
	UR_REAL(closefrom)(lo);
}
#endif

/* ------------------------------------------------------------------------
 * Duplication.  A copy of a tracked descriptor is tracked (same device);
 * a target that the kernel closes implicitly is untracked first.
 * ---------------------------------------------------------------------- */
FP_EXPORT int dup(int old)
{
	unsigned so = ur_state(old);

	if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)))
		return ur_dup(old, so);
	return UR_REAL(dup)(old);
}

FP_EXPORT int dup2(int old, int new)
{
	if (fp_unlikely(ur_state(old) | ur_state(new)))
		return ur_dup23(old, new, UR_AS_DUP2);
	return UR_REAL(dup2)(old, new);
}
FP_ALIAS(__dup2, dup2);

#ifdef FP_HAVE_DUP3
/* On illumos dup3 arrived later than the oldest platform we load on: bound
 * only through the table, a NULL pointer (a libc without it) says ENOSYS
 * (ur_real_dup3). */
FP_EXPORT int dup3(int old, int new, int flags)
{
	/* Bad flags: the kernel's EINVAL, nothing closed. */
	if (fp_unlikely(ur_state(old) | ur_state(new)) && !(flags & ~O_CLOEXEC))
		return ur_dup23(old, new, flags);
	(void)fp_ready();
	return ur_real_dup3(old, new, flags);
}
#endif

/* ------------------------------------------------------------------------
 * getrandom and getentropy, pooled only when asked for (FASTPATH_GETRANDOM):
 * a user-space pool cannot see a VM snapshot being restored.  GRND_RANDOM
 * and unknown flags always go to the kernel.
 * ---------------------------------------------------------------------- */
#ifdef FP_LINUX
FP_EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	size_t got;

	if (fp_unlikely(fp_surveying()) && !(flags & ~(unsigned)GRND_NONBLOCK) && n &&
	    n <= UR_SERVE_MAX) {
		ssize_t r;

		UR_SV_TIMED(r, UR_REAL(getrandom)(buf, n, flags), ur_sv_getrandom, (long)r);
		return r;
	}
	/* fp_enabled first: it reads the settings if nobody has yet. */
	/* Refused once (ur_refused): refused every time, as natively, even
	 * where the pool holds bytes read from the device. */
	if (!fp_enabled(FP_BIT(urandom)) || fp_likely(!ur_getrandom) ||
	    (flags & ~(unsigned)GRND_NONBLOCK) || n == 0 || n > UR_SERVE_MAX ||
	    !fp_opaque(buf) || ur_refused)
		return UR_REAL(getrandom)(buf, n, flags);
	pthread_testcancel();  /* as glibc's getrandom */
	if (ur_source_now() != UR_SRC_RESERVOIR)
		return ur_getrandom_direct(buf, n, flags);
	got = ur_take(buf, n, -1);
	if (got == n) {
		ur_count(GETRANDOM);
		return (ssize_t)n;
	}
	/* The kernel tops up: it blocks (or says EAGAIN) exactly as it would. */
	ur_count(SYSCALLS);
	ssize_t r = UR_REAL(getrandom)((unsigned char *)buf + got, n - got, flags);

	if (r < 0)
		return got ? (ssize_t)got : -1;
	return (ssize_t)got + r;
}

FP_EXPORT int getentropy(void *buf, size_t n)
{
	size_t got;

	if (fp_unlikely(fp_surveying()) && n && n <= 256) {
		int r;

		UR_SV_TIMED(r, UR_REAL(getentropy)(buf, n), ur_sv_getrandom, (long)r);
		return r;
	}
	/* Over 256 bytes is EIO; NULL is EFAULT: the real one says so. */
	if (!fp_enabled(FP_BIT(urandom)) || fp_likely(!ur_getrandom) || n == 0 ||
	    n > 256 || !fp_opaque(buf) || ur_refused)
		return UR_REAL(getentropy)(buf, n);
	if (ur_source_now() != UR_SRC_RESERVOIR) {
		/* Not a byte short for 256 or fewer, but for a signal. */
		if (ur_vdso_serves_getrandom() && ur_vdso_call(buf, n, 0) == (ssize_t)n) {
			ur_count(GETRANDOM);
			return 0;
		}
		ur_count(SYSCALLS);
		return UR_REAL(getentropy)(buf, n);
	}
	got = ur_take(buf, n, -1);
	if (got == n) {
		ur_count(GETRANDOM);
		return 0;
	}
	ur_count(SYSCALLS);
	return UR_REAL(getentropy)((unsigned char *)buf + got, n - got);
}
#endif

/* ------------------------------------------------------------------------
 * The descriptor.
 * ---------------------------------------------------------------------- */
FP_STARTUP_TEXT static bool ur_load(fp_getenv_fn get)
{
	char why[256];
	const char *v = get("FASTPATH_GETRANDOM");

	ur_getrandom = false;
	if (v && fp_parse_bool(v, &ur_getrandom, why, sizeof why) < 0)
		fp_warn("FASTPATH_GETRANDOM", v, why, "getrandom() is not pooled");
	v = get("FASTPATH_URANDOM_SOURCE");
	ur_source_asked = UR_SRC_AUTO;
	if (v && ur_parse_source(v, &ur_source_asked, why, sizeof why) < 0)
		fp_warn("FASTPATH_URANDOM_SOURCE", v, why, "source auto");
	/* Test aid: act as on a kernel without the vDSO's getrandom.  get()
	 * is secure_getenv: ignored in secure-execution mode. */
	v = get("FASTPATH_TEST_NO_VDSO");
	ur_test_no_vdso = v && strcmp(v, "1") == 0;
	v = get("FASTPATH_URANDOM");
	/* Written only where a load set it (the unit tests load again): its
	 * page is urandom_fd.c's, untouched by a process that sets nothing
	 * until the descriptor table needs it. */
	if (v || ur_mode_set)
		ur_mode = UR_MODE_EXACT;
	ur_mode_set = v != NULL;
	if (v && ur_parse_mode(v, &ur_mode, why, sizeof why) < 0)
		fp_warn("FASTPATH_URANDOM", v, why, "mode exact");
	/* Test aid: act as on a kernel without F_DUPFD_CLOEXEC. */
	v = get("FASTPATH_TEST_NO_DUPFD_CLOEXEC");
	ur_dup_forced = v && strcmp(v, "1") == 0;
	return true;
}

/* "<n> opens, <n> reads, <n> getrandom[ (off)], <n> syscalls, <n> refills,
 * <n> slice fills, source vdso|kernel|reservoir, mode exact|reserve[,
 * cloexec dups F_DUPFD+F_SETFD][, getrandom refused (ENOSYS|EPERM)]
 * [, pooling ended: WHY]" (the first where the kernel refused
 * F_DUPFD_CLOEXEC, urandom_cloexec.c; the second where a filter refused
 * getrandom, which made the source kernel; the third after ur_split) */
static void ur_stats(struct fp_buf *b, const unsigned long *c)
{
	const char *why;

	fp_buf_ulong(b, c[UR_C_OPENS]);
	fp_buf_str(b, " opens, ");
	fp_buf_ulong(b, c[UR_C_READS]);
	fp_buf_str(b, " reads, ");
	fp_buf_ulong(b, c[UR_C_GETRANDOM]);
	fp_buf_str(b, ur_getrandom ? " getrandom, " : " getrandom (off), ");
	fp_buf_ulong(b, c[UR_C_SYSCALLS]);
	fp_buf_str(b, " syscalls, ");
	fp_buf_ulong(b, c[UR_C_REFILLS]);
	fp_buf_str(b, " refills, ");
	fp_buf_ulong(b, c[UR_C_SLICES]);
	fp_buf_str(b, " slice fills, source ");
	fp_buf_str(b, ur_source_name(ur_source_now()));
	fp_buf_str(b, ur_mode == UR_MODE_RESERVE ? ", mode reserve" : ", mode exact");
	if (atomic_load(&ur_dup_fallback))
		fp_buf_str(b, ", cloexec dups F_DUPFD+F_SETFD");
	if (ur_refused)
		fp_buf_str(b, ur_refused == EPERM ? ", getrandom refused (EPERM)"
		                                  : ", getrandom refused (ENOSYS)");
	if ((why = ur_split_reason()) != NULL) {
		fp_buf_str(b, ", pooling ended: ");
		fp_buf_str(b, why);
	}
#ifdef FP_LINUX
	/* Exact mode without a hidden descriptor: real opens, and why. */
	why = atomic_load(&ur_hidden_why);
	if (why && ur_mode == UR_MODE_EXACT && atomic_load(&ur_hidden_bad[UR_DEV_URANDOM])) {
		fp_buf_str(b, ", opens real: ");
		fp_buf_str(b, why);
	}
#endif
}

FP_STARTUP_TEXT static void ur_init(void)
{
	/* Off and not surveyed: nothing of it runs, so it learns nothing
	 * (a process started with it off pays no system call for it). */
	if (!(fp_cfg.enabled & FP_BIT(urandom)) && !fp_cfg.survey)
		return;
	ur_source_load();
	/* The source is chosen at its first use (issue 39); surveyed, by the
	 * record of a process that opened the device (ur_sv_calibrate): the
	 * others, a shell loop's /bin/true, pay neither the choice nor its
	 * pages (issue 40). */
	ur_fd_init();
}

FP_FORK_TEXT void ur_atfork_child(void)
{
	fp_vfork_forget();  /* _Fork's and clone's children too */
	ur_fd_atfork_child();
	ur_source_atfork_child();
}

/* A descriptor table of the thread's own (unshare CLONE_FILES): see
 * ur_split. */
static void ur_unsharing(int flags)
{
#ifdef FP_LINUX
	if (fp_unlikely(flags & CLONE_FILES) && fp_enabled(FP_BIT(urandom)))
		ur_split("a descriptor table of its own");
#else
	(void)flags;
#endif
}

/*
 * Before a change of what the process or a thread may open (roots.c).
 * Once the pool is in use, it ends for good (ur_split) while its shared
 * descriptors can still be opened again: after the change the kernel may
 * refuse the copies, the other threads' opens would still be pooled while
 * a broadcast setuid runs, and the reserve would hand out what was opened
 * before (review 56).  Before then, a change that is every thread's and
 * leaves no filter (whole) holds the first use off until the call returns
 * (ur_gate, as a fork begun unarmed: an open meanwhile is native); any
 * other ends it all the same: a thread that kept its access would fill it
 * for the one that gave it up, and a filter may kill its calls (review 57).
 */
static FP_TLS unsigned ur_holding;

static void ur_sealing(bool whole)
{
	unsigned g;

	if (!fp_enabled(FP_BIT(urandom)))
		return;
	for (g = atomic_load(&ur_gate); whole && !(g & UR_ARMED);)
		if (atomic_compare_exchange_weak(&ur_gate, &g, g + UR_FORKING)) {
			ur_holding++;
			return;
		}
	ur_split("a change of root, ids or sandbox");
}

/* After the call, whatever it returned: the first use may come. */
static void ur_sealed(void)
{
	if (ur_holding) {
		ur_holding--;
		atomic_fetch_sub(&ur_gate, UR_FORKING);
	}
}

#ifdef FP_LINUX
#define UR_HOLDS .holds = ur_fd_held
#else
#define UR_HOLDS .holds = NULL
#endif
FP_MITIGATION(urandom, .load = ur_load, .init = ur_init, FP_REAL_SYMS(urandom), UR_HOLDS,
              .syms = ur_exec_syms, .nsyms = UR_EXEC_NSYMS,
              .stats = ur_stats, .counters = ur_counters, .ncounters = UR_NCOUNTERS,
              .survey = &ur_sv, .prepare = ur_fd_atfork_prepare,
              .parent = ur_fd_atfork_parent, .child = ur_atfork_child,
              .sealing = ur_sealing, .sealed = ur_sealed, .unsharing = ur_unsharing,
              .vforking = ur_vforking);
