/* SPDX-License-Identifier: MIT */
/*
 * urandom_real.h: the urandom mitigation's platform bits and its table of
 * real functions (what it wraps and calls), included by urandom.h.
 */
#ifndef URANDOM_REAL_H
#define URANDOM_REAL_H

/* MC_INHERIT_ZERO: illumos 2015.  The value is the kernel's ABI; an older
 * kernel's memcntl answers the unknown command with EINVAL, and the pool
 * then checks the pid instead (ur_private_advise, urandom_pool.c). */
#if defined(FP_ILLUMOS) && !defined(MC_INHERIT_ZERO)
#  define MC_INHERIT_ZERO 8
#endif
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


/* ------------------------------------------------------------------------
 * The C library functions the urandom mitigation wraps and calls (the
 * core binds them: fp_real.h, FP_REAL_DECLARE), reached through UR_REAL()
 * as the core's through FP_REAL().  Stand-ins: fp_real.h, "Not ready yet".
 * ---------------------------------------------------------------------- */
#define UR_REAL_COMMON(X)                                                                     \
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
	X(int, lockf, (int fd, int cmd, off_t len), FP_NR_FAIL(-1))                              \
	X(FILE *, fdopen, (int fd, const char *how), FP_NR_FAIL(NULL))                           \
	X(int, fclose, (FILE *f), FP_NR_FAIL(EOF))                                               \
	X(FILE *, freopen, (const char *path, const char *how, FILE *f), FP_NR_FAIL(NULL))       \
	X(int, daemon, (int nochdir, int noclose), FP_NR_FAIL(-1))                               \
	/* The page size (urandom_vdso.c). */                                                     \
	X(long, sysconf, (int name), FP_NR_FAIL(-1))

#ifdef FP_HAVE_LFS64
#define UR_REAL_LFS64(X)                                                                      \
	X(int, open64, (const char *path, int flags, ...), FP_NR_OPEN(AT_FDCWD, O_LARGEFILE))    \
	X(int, openat64, (int dirfd, const char *path, int flags, ...),                          \
	  FP_NR_OPEN(dirfd, O_LARGEFILE))                                                        \
	X(ssize_t, pread64, (int fd, void *buf, size_t n, off64_t off), FP_NR_FAIL(-1))          \
	X(int, lockf64, (int fd, int cmd, off64_t len), FP_NR_FAIL(-1))                          \
	X(FILE *, freopen64, (const char *path, const char *how, FILE *f), FP_NR_FAIL(NULL))
#else
#define UR_REAL_LFS64(X)
#endif

#ifdef FP_HAVE_GLIBC_CHK
#define UR_REAL_CHK(X)                                                                        \
	X(int, __open_2, (const char *path, int flags), FP_NR_OPEN_2(AT_FDCWD, 0))               \
	X(int, __open64_2, (const char *path, int flags), FP_NR_OPEN_2(AT_FDCWD, O_LARGEFILE))   \
	X(int, __openat_2, (int dirfd, const char *path, int flags), FP_NR_OPEN_2(dirfd, 0))     \
	X(int, __openat64_2, (int dirfd, const char *path, int flags),                           \
	  FP_NR_OPEN_2(dirfd, O_LARGEFILE))                                                      \
	X(ssize_t, __read_chk, (int fd, void *buf, size_t n, size_t buflen), FP_NR_READ_CHK)
#else
#define UR_REAL_CHK(X)
#endif

#ifdef FP_LINUX
#define UR_REAL_RANDOM(X)                                                                     \
	X(ssize_t, getrandom, (void *buf, size_t n, unsigned int flags),                         \
	  FP_NR_DO(syscall(SYS_getrandom, buf, n, flags)))                                       \
	X(int, getentropy, (void *buf, size_t n), FP_NR_FAIL(-1))
#else
#define UR_REAL_RANDOM(X)
#endif

#ifdef FP_LINUX
struct termios;
struct winsize;
/* Their dup2 onto 0, 1 and 2 is the C library's own (urandom_stdio.c). */
#define UR_REAL_PTY(X)                                                                        \
	X(int, login_tty, (int fd), FP_NR_FAIL(-1))                                              \
	X(pid_t, forkpty, (int *pty, char *name, const struct termios *tio, const struct winsize *ws), \
	  FP_NR_FAIL(-1))
#else
#define UR_REAL_PTY(X)
#endif

#if defined(FP_HAVE_CLOSE_RANGE)
#define UR_REAL_CLOSE_RANGE(X)                                                                \
	X(int, close_range, (unsigned int lo, unsigned int hi, int flags), FP_NR_FAIL(-1))
#else
#define UR_REAL_CLOSE_RANGE(X)
#endif
#if defined(FP_HAVE_CLOSEFROM)
#define UR_REAL_CLOSEFROM(X) X(void, closefrom, (int lo), FP_NR_VOID(fp_raw_closefrom(lo)))
#else
#define UR_REAL_CLOSEFROM(X)
#endif

#if defined(FP_HAVE_DUP3)
#define UR_REAL_DUP3(X) X(int, dup3, (int fd, int to, int flags), FP_NR_FAIL(-1))
#else
#define UR_REAL_DUP3(X)
#endif

#if defined(FP_HAVE_FCNTL64)
#define UR_REAL_FCNTL64(X) X(int, fcntl64, (int fd, int cmd, ...), FP_NR_FAIL(-1))
#else
#define UR_REAL_FCNTL64(X)
#endif

#if defined(FP_HAVE_FCNTL_TIME64)
struct msghdr;
struct mmsghdr;
/* What fstat, ioctl and sendmsg are in such programs too (urandom_seen.c);
 * the stat structure is glibc's internal 64-bit-time one, passed on. */
#define UR_REAL_FCNTL_TIME64(X)                                                               \
	X(int, __fcntl_time64, (int fd, int cmd, ...), FP_NR_FAIL(-1))                           \
	X(int, __fstat64_time64, (int fd, void *st), FP_NR_FAIL(-1))                             \
	X(int, __ioctl_time64, (int fd, unsigned long req, ...), FP_NR_FAIL(-1))                 \
	X(ssize_t, __sendmsg64, (int fd, const struct msghdr *msg, int flags), FP_NR_FAIL(-1))    \
	X(int, __sendmmsg64, (int fd, struct mmsghdr *v, unsigned n, int flags), FP_NR_FAIL(-1))
#else
#define UR_REAL_FCNTL_TIME64(X)
#endif

/* Calls that must see the descriptors we hold as closed, and those that
 * change or copy an open file description (urandom_seen.c).  Linux only;
 * NULL where libc lacks one. */
#ifdef FP_LINUX
#  include <spawn.h>
#  include <sys/epoll.h>
#  include <sys/sendfile.h>
#  include <sys/socket.h>
#  ifdef __GLIBC__
#    define UR_MMSG_FLAGS int /* musl's sendmmsg takes them unsigned */
#    define FP_IOCTL_REQ unsigned long
typedef __off64_t fp_loff_t;
#  else
#    define UR_MMSG_FLAGS unsigned
#    define FP_IOCTL_REQ int
typedef off_t fp_loff_t;
#  endif
#define UR_REAL_SEEN(X)                                                                       \
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
	X(int, sendmmsg, (int fd, struct mmsghdr *v, unsigned n, UR_MMSG_FLAGS flags),           \
	  FP_NR_FAIL(-1))                                                                        \
	X(int, posix_spawn_file_actions_adddup2,                                                 \
	  (posix_spawn_file_actions_t *fa, int fd, int to), FP_NR_RET(ENOSYS))                   \
	X(int, posix_spawn_file_actions_addclose, (posix_spawn_file_actions_t *fa, int fd),      \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(int, posix_spawn_file_actions_addfchdir_np, (posix_spawn_file_actions_t *fa, int fd),  \
	  FP_NR_RET(ENOSYS))                                                                     \
	X(pid_t, _Fork, (void), FP_NR_FAIL(-1))                                                  \
	X(int, clone, (int (*fn)(void *), void *stack, int flags, void *arg, ...),               \
	  FP_NR_FAIL(-1))
#else
#define UR_REAL_SEEN(X)
#endif
#if defined(FP_LINUX) && defined(FP_HAVE_LFS64)
#define UR_REAL_SEEN64(X)                                                                     \
	X(ssize_t, __pread_chk, (int fd, void *buf, size_t n, off_t off, size_t buflen),         \
	  FP_NR_FAIL(-1))                                                                        \
	X(ssize_t, __pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen),     \
	  FP_NR_FAIL(-1))                                                                        \
	X(int, fstat64, (int fd, struct stat64 *st), FP_NR_FAIL(-1))                             \
	/* What fstat is in programs built against glibc < 2.33 (node). */                      \
	X(int, __fxstat, (int ver, int fd, struct stat *st), FP_NR_FAIL(-1))                     \
	X(int, __fxstat64, (int ver, int fd, struct stat64 *st), FP_NR_FAIL(-1))                 \
	X(off64_t, lseek64, (int fd, off64_t off, int whence), FP_NR_FAIL(-1))                   \
	X(ssize_t, preadv64, (int fd, const struct iovec *iov, int cnt, off64_t off),            \
	  FP_NR_FAIL(-1))                                                                        \
	X(ssize_t, preadv64v2, (int fd, const struct iovec *iov, int cnt, off64_t off,           \
	                        int flags), FP_NR_FAIL(-1))                                      \
	X(ssize_t, sendfile64, (int out, int in, off64_t *off, size_t n), FP_NR_FAIL(-1))
#else
#define UR_REAL_SEEN64(X)
#endif

/* syscall(2), where it is wrapped (fp_real.h, FP_HAVE_SYSCALL_WRAP): the
 * survey counts the calls a program makes through it (urandom_survey.c). */
#ifdef FP_HAVE_SYSCALL_WRAP
#  define UR_REAL_SYSCALL(X) X(long, syscall, (long nr, ...), FP_NR_SYSCALL)
#else
#  define UR_REAL_SYSCALL(X)
#endif

#define UR_REAL_ALL(X)                                                                        \
	UR_REAL_COMMON(X) UR_REAL_LFS64(X) UR_REAL_CHK(X) UR_REAL_RANDOM(X) UR_REAL_PTY(X)                     \
	UR_REAL_CLOSE_RANGE(X) UR_REAL_CLOSEFROM(X) UR_REAL_DUP3(X) UR_REAL_FCNTL64(X)          \
	UR_REAL_FCNTL_TIME64(X) UR_REAL_SEEN(X) UR_REAL_SEEN64(X) UR_REAL_SYSCALL(X)
FP_REAL_DECLARE(urandom, UR_REAL_ALL);
#define UR_REAL(name) FP_REAL_LAZY(fp_real_urandom.r_##name, FP_BIT(urandom))
#define UR_REALP(name) FP_REAL_LAZY_P(fp_real_urandom.r_##name, FP_BIT(urandom))

#endif /* URANDOM_REAL_H */
