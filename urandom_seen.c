/* SPDX-License-Identifier: MIT */
/*
 * urandom_seen.c: the calls beyond open, read, close, dup and fcntl that
 * could see what the urandom mitigation holds, or change or copy a pooled
 * open file description.
 *
 * Held descriptors (UR_HELD: the reserve, the hidden ones) are closed as
 * far as the program knows: each call here passes -1 for them, which gives
 * the kernel's own EBADF.  A pooled description (UR_COW) gets one of its
 * own before a call changes it (FIONBIO, FIOASYNC, epoll_ctl's ADD) or
 * copies it out of sight (SCM_RIGHTS, _Fork, clone): urandom_cow.c.
 * Each wrapper costs one compare for a descriptor that is not ours.
 *
 * Out of reach, documented in fastpath(7): raw system calls, a listing of
 * /proc/self/fd or a read of /proc/self/fdinfo, and the calls not wrapped
 * here (poll and select, fstatat, __fxstatat and statx with AT_EMPTY_PATH,
 * fchdir, fsync, mmap, fstatfs...), which see the held numbers as open.
 */
#include "fastpath.h"
#include "urandom.h"
#include "cpus.h"

#ifdef FP_LINUX
#include <sys/ioctl.h>
#include <sys/uio.h>

/* The real call, or ENOSYS where the C library lacks it. */
#define UR_CALL(name, ...)                                                   \
	(UR_REAL(name) ? UR_REAL(name)(__VA_ARGS__) : (errno = ENOSYS, -1))
/* The number to pass on for fd. */
#define UR_FD(fd) ur_real_fd(fd, ur_state(fd))

bool ur_fd_held(int fd)
{
	return (ur_state(fd) & UR_HELD) != 0;
}

FP_EXPORT int fstat(int fd, struct stat *st)
{
	return UR_CALL(fstat, UR_FD(fd), st);
}

/* lseek and lseek64 are both mitigations': a held number is closed to
 * the program, a served CPU file seeks as procfs does (fp_cpus_seek).
 * Written once. */
#define UR_WRAP_LSEEK(name, off_type)                                        \
	FP_EXPORT off_type name(int fd, off_type off, int whence)            \
	{                                                                    \
		long long o = off;                                           \
                                                                             \
		if (!fp_cpus_seek(fd, &o, &whence))                          \
			return -1;                                           \
		return UR_CALL(name, UR_FD(fd), (off_type)o, whence);        \
	}

UR_WRAP_LSEEK(lseek, off_t)
FP_ALIAS(__lseek, lseek);

/* FIONBIO and FIOASYNC set status flags of the open file description, as
 * F_SETFL does; FIOCLEX and FIONCLEX set close-on-exec, as F_SETFD does.  ioctl and __ioctl_time64 (32-bit programs with 64-bit
 * time_t), written once. */
#define UR_WRAP_IOCTL(name, req_type)                                        \
	FP_EXPORT int name(int fd, req_type req, ...)                        \
	{                                                                    \
		unsigned st = ur_state(fd);                                  \
		void *arg;                                                   \
		va_list ap;                                                  \
                                                                             \
		va_start(ap, req);                                           \
		arg = va_arg(ap, void *);                                    \
		va_end(ap);                                                  \
		int r_;                                                      \
                                                                             \
		if (fp_likely(!st)) {                                        \
			if (req == FIONBIO || req == FIOASYNC)               \
				UR_DUP_SETTLE();                             \
			return UR_CALL(name, fd, req, arg);                  \
		}                                                            \
		if (req == FIONBIO || req == FIOASYNC)                       \
			ur_own(fd, st);                                      \
		if (req == FIONCLEX && (st & UR_OPEN)) /* as F_SETFD */      \
			ur_update(fd, UR_CLOEXEC, 0);                        \
		if ((req == FIOCLEX || req == FIONCLEX) && (st & UR_OPEN) && \
		    ur_mode == UR_MODE_EXACT) {                              \
			unsigned e_; /* as F_SETFD (ur_fcntl) */             \
			do {                                                 \
				e_ = ur_cow_quiet();                         \
				r_ = UR_CALL(name, fd, req, arg);            \
			} while (r_ == 0 && ur_cow_moved(e_));               \
		} else {                                                     \
			r_ = UR_CALL(name, ur_real_fd(fd, st), req, arg);    \
		}                                                            \
		/* As F_SETFD: a reserve kept with a stale close-on-exec bit \
		 * would come back from an O_CLOEXEC open without it. */     \
		if (r_ == 0 && (st & UR_OPEN) && (req == FIOCLEX || req == FIONCLEX)) \
			ur_update(fd, UR_CLOEXEC, req == FIOCLEX ? UR_CLOEXEC : 0); \
		return r_;                                                   \
	}

UR_WRAP_IOCTL(ioctl, FP_IOCTL_REQ)
#ifdef FP_HAVE_FCNTL_TIME64
UR_WRAP_IOCTL(__ioctl_time64, unsigned long)

FP_EXPORT int __fstat64_time64(int fd, void *st)
{
	return UR_CALL(__fstat64_time64, UR_FD(fd), st);
}
#endif

/* The vector reads at an offset go to the kernel (the device ignores the
 * offset; few programs read it so): only the held numbers matter here. */
FP_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	fp_cpus_pread_at(fd, off);
	return UR_CALL(preadv, UR_FD(fd), iov, cnt, off);
}

FP_EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	fp_cpus_pread_at(fd, off);
	return UR_CALL(preadv2, UR_FD(fd), iov, cnt, off, flags);
}

FP_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	return UR_CALL(sendfile, UR_FD(out), UR_FD(in), off, n);
}

FP_EXPORT ssize_t splice(int in, fp_loff_t *ioff, int out, fp_loff_t *ooff, size_t n,
                         unsigned flags)
{
	return UR_CALL(splice, UR_FD(in), ioff, UR_FD(out), ooff, n, flags);
}

FP_EXPORT ssize_t tee(int in, int out, size_t n, unsigned flags)
{
	return UR_CALL(tee, UR_FD(in), UR_FD(out), n, flags);
}

FP_EXPORT ssize_t copy_file_range(int in, fp_loff_t *ioff, int out, fp_loff_t *ooff, size_t n,
                                  unsigned flags)
{
	return UR_CALL(copy_file_range, UR_FD(in), ioff, UR_FD(out), ooff, n, flags);
}

#ifdef FP_HAVE_LFS64
/* The fortified preads (glibc): a size past the buffer is theirs to abort
 * on; a pooled descriptor's read goes to the kernel here. */
FP_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	fp_cpus_pread_at(fd, off);
	return UR_CALL(__pread_chk, UR_FD(fd), buf, n, off, buflen);
}

FP_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
	fp_cpus_pread_at(fd, off);
	return UR_CALL(__pread64_chk, UR_FD(fd), buf, n, off, buflen);
}

FP_EXPORT int fstat64(int fd, struct stat64 *st)
{
	return UR_CALL(fstat64, UR_FD(fd), st);
}

/* fstat and fstat64 as programs built against glibc before 2.33 call
 * them (node imports __fxstat64@GLIBC_2.2.5); such a versioned reference
 * binds to these unversioned definitions, as to fstat's. */
FP_EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	return UR_CALL(__fxstat, ver, UR_FD(fd), st);
}

FP_EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	return UR_CALL(__fxstat64, ver, UR_FD(fd), st);
}

UR_WRAP_LSEEK(lseek64, off64_t)

FP_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	fp_cpus_pread_at(fd, off);
	return UR_CALL(preadv64, UR_FD(fd), iov, cnt, off);
}

FP_EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
	fp_cpus_pread_at(fd, off);
	return UR_CALL(preadv64v2, UR_FD(fd), iov, cnt, off, flags);
}

FP_EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t n)
{
	return UR_CALL(sendfile64, UR_FD(out), UR_FD(in), off, n);
}
#endif

/* An epoll registration is released when the description is: it must be
 * the program's alone, or a close() would leave the entry in the set. */
FP_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	unsigned st = ur_state(fd);

	if (op == EPOLL_CTL_ADD)
		ur_own(fd, st);
	return UR_CALL(epoll_ctl, UR_FD(epfd), op, ur_real_fd(fd, st), ev);
}

/* A held number as the epoll set is a closed one: EBADF, not the device's
 * EINVAL (found by fuzz/fd_fuzz.c, on the hidden descriptor's number). */
FP_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int ms)
{
	return UR_CALL(epoll_wait, UR_FD(epfd), ev, max, ms);
}

FP_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int ms, const sigset_t *mask)
{
	return UR_CALL(epoll_pwait, UR_FD(epfd), ev, max, ms, mask);
}

/* Descriptors passed with SCM_RIGHTS: a held one is EBADF, as natively; a
 * pooled one is sent with a description of its own.  Returns false for
 * EBADF.  The walk stops at a header the kernel rejects (CMSG_OK: shorter
 * than a header, or longer than what is left of msg_controllen): the
 * message goes to it as it is, for its EINVAL, in the kernel's order (a
 * held number in an earlier header is EBADF first, as there). */
static bool ur_rights_ok(const struct msghdr *msg)
{
	struct cmsghdr *c;
	const char *end;

	if (!fp_opaque(msg) || !msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr))
		return true;
	end = (const char *)msg->msg_control + msg->msg_controllen;
	for (c = CMSG_FIRSTHDR((struct msghdr *)msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		size_t i, n;
		int fd;

		if (c->cmsg_len < sizeof(struct cmsghdr) ||
		    c->cmsg_len > (size_t)(end - (const char *)c))
			return true;
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			unsigned st;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
			st = ur_state(fd);
			if (st & UR_HELD)
				return false;
			ur_own(fd, st);
		}
	}
	return true;
}

/* sendmsg and __sendmsg64 (32-bit programs with 64-bit time_t). */
#define UR_WRAP_SENDMSG(name)                                                \
	FP_EXPORT ssize_t name(int fd, const struct msghdr *msg, int flags)  \
	{                                                                    \
		if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)) && \
		    !ur_rights_ok(msg)) {                                    \
			errno = EBADF;                                       \
			return -1;                                           \
		}                                                            \
		return UR_CALL(name, UR_FD(fd), msg, flags);                 \
	}

UR_WRAP_SENDMSG(sendmsg)
#ifdef FP_HAVE_FCNTL_TIME64
UR_WRAP_SENDMSG(__sendmsg64)
#endif

/* sendmmsg: each message's rights as sendmsg's (a cold review: a pooled
 * descriptor passed through it kept the shared description).  The kernel
 * sends in order and stops at a failing message, counting those sent: a
 * held number in message k sends the k before it (EBADF when k is 0). */
#define UR_WRAP_SENDMMSG(name)                                               \
	FP_EXPORT int name(int fd, struct mmsghdr *v, unsigned n, UR_MMSG_FLAGS flags) \
	{                                                                    \
		unsigned k = 0;                                              \
                                                                             \
		if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)) && \
		    fp_opaque(v)) {                                          \
			if (n > UIO_MAXIOV) /* the kernel's own bound */    \
				n = UIO_MAXIOV;                              \
			while (k < n && ur_rights_ok(&v[k].msg_hdr))         \
				k++;                                         \
			if (k == 0 && n > 0) {                               \
				errno = EBADF;                               \
				return -1;                                   \
			}                                                    \
			n = k;                                               \
		}                                                            \
		return UR_CALL(name, UR_FD(fd), v, n, flags);                \
	}

UR_WRAP_SENDMMSG(sendmmsg)
#ifdef FP_HAVE_FCNTL_TIME64
UR_WRAP_SENDMMSG(__sendmmsg64)
#endif

/* Spawn file actions run in the child, where the held numbers are still
 * open until the exec.  A dup2 or fchdir from one is made to fail there
 * as natively (EBADF from posix_spawn) by closing it in the child first:
 * a close action on a number the program thinks closed changes nothing
 * it can see (the C library ignores its failure).  A number the reserve
 * hands out between the action and the spawn is then wrongly closed: a
 * documented limit. */
static int ur_spawn_closed(posix_spawn_file_actions_t *fa, int fd)
{
	if (fp_likely(!(ur_state(fd) & UR_HELD)))
		return 0;
	return UR_REAL(posix_spawn_file_actions_addclose) ?
	               UR_REAL(posix_spawn_file_actions_addclose)(fa, fd) : ENOSYS;
}

FP_EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int to)
{
	int r = ur_spawn_closed(fa, fd);

	if (r)
		return r;
	return UR_REAL(posix_spawn_file_actions_adddup2) ?
	               UR_REAL(posix_spawn_file_actions_adddup2)(fa, fd, to) : ENOSYS;
}

FP_EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd)
{
	int r = ur_spawn_closed(fa, fd);

	if (r)
		return r;
	return UR_REAL(posix_spawn_file_actions_addfchdir_np) ?
	               UR_REAL(posix_spawn_file_actions_addfchdir_np)(fa, fd) : ENOSYS;
}

/* _Fork runs no atfork handler, but the child gets our descriptors all
 * the same: the mitigation's fork handlers, run here (before it has
 * acted, a few stores: ur_gate). */
FP_EXPORT pid_t _Fork(void)
{
	pid_t r;
	int saved;

	ur_fd_atfork_prepare();
	r = UR_CALL(_Fork);
	saved = errno;
	if (r > 0)
		fp_sv_spawned(); /* the survey's count of children started */
	if (r == 0)
		ur_atfork_child();
	else
		ur_fd_atfork_parent();
	errno = saved;
	return r;
}

/* clone: a child with a copy of the descriptor table (no CLONE_FILES)
 * holds copies of ours.  Only the parent's side can be done here: the
 * child runs fn, not us (and with CLONE_VM shares our memory). */
FP_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	void *ptid, *tls, *ctid;
	va_list ap;
	bool ours = !(flags & CLONE_FILES) &&
	            atomic_load_explicit(&ur_hiwater, memory_order_relaxed) != 0;
	int r, saved;

	/* The C library reads these only when the flags say so. */
	va_start(ap, arg);
	ptid = va_arg(ap, void *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, void *);
	va_end(ap);
	/* A child on our memory and this thread's TLS, with a table of its
	 * own, is a vfork child to us (vfork.c): marked for as long as we
	 * cannot tell when it is done, or until it is (CLONE_VFORK). */
	bool vm = (flags & (CLONE_VM | CLONE_FILES | CLONE_SETTLS)) == CLONE_VM;
	/* One with memory and a table of its own runs no code of ours before
	 * fn, whose stack may be tiny (a cold review: a trampoline of ours
	 * crashed one on 256 bytes), so it cannot make our records its own
	 * table's as a fork child does: it is a vfork child too, on its copy
	 * of our memory, by the note and the mark (a cold review's
	 * cloneplain: its exec passed the reserve on; and its dup2 over an
	 * open of ours, or onto a reserve's number, went unseen). */
	bool apart = !(flags & (CLONE_VM | CLONE_FILES));

	/* A child that runs beside us on our memory is a thread, whether or
	 * not the C library knows it (fp_one_thread): every later
	 * read-modify-write is a locked one.  With CLONE_VFORK we are
	 * suspended while it runs.  It takes a stripe of the counters of its
	 * own at its first count, if it has thread-locals of its own
	 * (CLONE_SETTLS); without, it shares ours (errno too, which the C
	 * library does not support either) and is a vfork child (above). */
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		fp_threads_made();
	if ((flags & CLONE_VM) && !(flags & (CLONE_VFORK | CLONE_THREAD)))
		atomic_store(&ur_vm_kin, true);
	/* A process of its own on our table: it changes numbers our records
	 * cannot follow, and holds limits of its own (a cold review: its
	 * file dup2'd onto the hidden number read EBADF here, and the next
	 * open of the device was a duplicate of it).  Pooling ends first,
	 * as for a table of its own (ur_split).  So for a thread with a root
	 * or mounts of its own (no CLONE_FS, or CLONE_NEWNS), whose chroot or
	 * mount is its alone: the pool filled by another thread would serve
	 * it (review 58). */
	if ((flags & CLONE_FILES) &&
	    (!(flags & CLONE_THREAD) || !(flags & CLONE_FS) || (flags & CLONE_NEWNS)) &&
	    fp_enabled(FP_BIT(urandom)))
		ur_split("a clone child sharing the descriptor table");
	bool cow = ours && ur_mode == UR_MODE_EXACT;

	if (cow)
		ur_cow_all();
	/* Its execs guard what this table's reserves are now (a cold
	 * review's clonevf: none noted, or a vfork's note of before), in
	 * its own table (on our memory).  One that shares our table has
	 * none of its own (a cold review's clonefiles: the parent's own file
	 * was flagged): our plain reserves are given back first, as for an
	 * exec; one with memory of its own keeps its records (a review's
	 * cloneopen).  In a vfork child the note is its table's, taken
	 * for its own (clonenest, nestforget). */
	if (ur_mode == UR_MODE_RESERVE) {
		ur_vfork_note(!vm && !apart, flags & CLONE_FILES);
		if ((flags & CLONE_FILES) && !fp_vfork_child())
			ur_guard_give_back();
	}
	bool was = false;

	if (apart)
		was = fp_vfork_mark_apart();
	else if (vm)
		fp_vfork_mark(!(flags & CLONE_VFORK));
	r = UR_CALL(clone, fn, stack, flags, arg, ptid, tls, ctid);
	saved = errno;
	if (apart)
		fp_vfork_done_apart(was);
	else if (vm && (flags & CLONE_VFORK))
		fp_vfork_done();
	if (ours && r > 0)
		(void)ur_hidden_retire();
	errno = saved;
	return r;
}
FP_ALIAS(__clone, clone);
#endif /* FP_LINUX */
