/* SPDX-License-Identifier: MIT */
/*
 * urandom_fcntl.c: fcntl (and its twins) and flock on the descriptors the
 * urandom mitigation tracks: a held one is closed to the program, a pooled
 * description gets one of its own before it changes, F_DUPFD copies are
 * tracked and F_DUP2FD is dup2's (urandom_dup.c).
 */
#include "fastpath.h"
#include "urandom.h"

/* ------------------------------------------------------------------------
 * fcntl.  The argument is fetched as void *, as glibc itself does: every
 * command's argument (int or pointer) travels in the same register/slot.
 * ---------------------------------------------------------------------- */
typedef int (*ur_fcntl_fn)(int, int, ...);

/* Commands that change the open file description itself (status flags,
 * owner, signal, lease, an open-file-description lock): in exact mode a
 * pooled one is shared with the hidden descriptor and the other pooled
 * opens, which must not see the change. */
/* fcntl's record-lock requests (F_SETLK, F_SETLKW and their 64-bit twins). */
static bool ur_sets_record_lock(int cmd)
{
	switch (cmd) {
	case F_SETLK:
	case F_SETLKW:
#if defined(F_SETLK64) && F_SETLK64 != F_SETLK
	case F_SETLK64:
	case F_SETLKW64:
#endif
		return true;
	}
	return false;
}

/*
 * A record lock is the process's, on the device, and any close of a
 * descriptor of the device drops it (fcntl(2)).  From the first one on,
 * nothing of ours may close one behind the program's back (a
 * copy-on-write's replaced description, a retired hidden descriptor, a
 * reserve given back or kept): the pool ends for the process, as for a
 * table of its own (ur_split), before the lock is taken.  Then every
 * descriptor of the device is the program's own, as natively (fd_fuzz's
 * defect 12).  Any request that may take or release one (F_SETLK,
 * F_SETLKW, lockf's but F_TEST), an unlock too: its struct is the
 * program's to get wrong (the kernel's EFAULT), not ours to read first.
 *
 * Through a number we do not track (an O_RDWR open, a duplicate of one,
 * one received or inherited) it is the device if fstat says so: one
 * fstat per request, but only once the mitigation has begun (ur_arm).
 * Before, nothing of ours is open, and a request costs no system call:
 * its number is noted (a bit), and the first open the pool answers fstats
 * those noted (ur_locks_begin).  A lock outlives no close of a descriptor of
 * the device, so one still held is held through a number still the
 * device (seed 128 case 61993: a lock through a duplicate of an O_RDWR
 * open, dropped by the copy-on-write a later lock made).  Raw system
 * calls stay out of sight, and so do locks an exec'd image inherited.
 */
#define UR_NOTE_BITS (8 * sizeof(unsigned long))
static _Atomic unsigned long ur_lock_noted[UR_MAXFD / UR_NOTE_BITS];
static _Atomic bool ur_lock_far;  /* a number at or above UR_MAXFD */
/* The first open's check: begun (requests fstat from then on), done. */
static _Atomic bool ur_locks_begun FP_STARTUP_DATA, ur_locks_done FP_STARTUP_DATA; /* read by every fork child */

/* A load first: a program's repeated requests through one number make no
 * locked instruction. */
static void ur_lock_note(int fd)
{
	unsigned long bit;
	_Atomic unsigned long *w;

	if (fd < 0)
		return;
	if (fd >= UR_MAXFD) {
		atomic_store(&ur_lock_far, true);
		return;
	}
	w = &ur_lock_noted[(unsigned)fd / UR_NOTE_BITS];
	bit = 1UL << ((unsigned)fd % UR_NOTE_BITS);
	if (!(atomic_load(w) & bit))
		atomic_fetch_or(w, bit);
}

static void ur_lock_request(int fd, unsigned st, bool sets)
{
	int saved = errno;

	if (!sets || (!st && atomic_load_explicit(&ur_split_finished, memory_order_relaxed)))
		return;
	if (!st) {
		/* Noted, then begun read again: the first open stores
		 * begun, then reads the notes, so one of the two sees the
		 * other. */
		if (!atomic_load(&ur_locks_begun)) {
			ur_lock_note(fd);
			if (!atomic_load(&ur_locks_begun))
				return;
		}
		if (ur_device_of(fd) < 0) {
			errno = saved;
			return;
		}
	}
	ur_split("a record lock on the device");
	errno = saved;
}

/* The first open the pool would answer (ur_arm_slow): false while
 * another thread's check is under way (this open is then native), or
 * when the pool ended (a lock on the device may be held).  With every
 * signal blocked: a handler's jump out would leave the check begun and
 * never done, every later open native (a fork's child, whose checking
 * thread is not there, begins afresh: ur_locks_atfork_child). */
bool ur_locks_begin(void)
{
	int saved = errno, cs;
	unsigned i;
	sigset_t old;

	if (atomic_load(&ur_locks_done))
		return !atomic_load(&ur_split_done);
	ur_block_all(&old, &cs);
	if (!atomic_exchange(&ur_locks_begun, true)) {
		bool held = atomic_load(&ur_lock_far);

		for (i = 0; !held && i < UR_MAXFD / UR_NOTE_BITS; i++) {
			unsigned long w = atomic_load(&ur_lock_noted[i]);

			for (; !held && w; w &= w - 1)
				held = ur_device_of((int)(i * UR_NOTE_BITS) + __builtin_ctzl(w)) >= 0;
		}
		if (held)
			ur_split("a record lock on the device, before the first open");
		atomic_store(&ur_locks_done, true);
	}
	ur_unblock_all(&old, cs);
	errno = saved;
	return atomic_load(&ur_locks_done) && !atomic_load(&ur_split_done);
}

/* A fork's child of a process whose check was under way in another
 * thread: that thread is not there to end it. */
FP_FORK_TEXT void ur_locks_atfork_child(void)
{
	if (atomic_load_explicit(&ur_locks_begun, memory_order_relaxed) &&
	    !atomic_load_explicit(&ur_locks_done, memory_order_relaxed))
		atomic_store(&ur_locks_begun, false);
}

static bool ur_changes_ofd(int cmd)
{
	switch (cmd) {
	case F_SETFL:
	case F_SETOWN:
#ifdef F_SETOWN_EX
	case F_SETOWN_EX:
#endif
#ifdef F_SETSIG
	case F_SETSIG:
#endif
#ifdef F_SETLEASE
	case F_SETLEASE:
#endif
#ifdef F_OFD_SETLK
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
#endif
		return true;
	}
	/* A record lock is the process's (ur_fcntl), its removal changes no
	 * description. */
	return false;
}

/* fcntl(F_DUP2FD[_CLOEXEC]) (illumos, FreeBSD) is dup2 (dup3) by another
 * name: the number it may close is untracked first, as dup2's is. */
static int ur_fcntl_dup2fd(int fd, int cmd, void *arg)
{
#ifdef F_DUP2FD_CLOEXEC
	if (cmd == F_DUP2FD_CLOEXEC)
		return ur_dup23(fd, (int)(intptr_t)arg, UR_AS_DUP2FD_CLOEXEC);
#endif
	(void)cmd;
	return ur_dup23(fd, (int)(intptr_t)arg, UR_AS_DUP2FD);
}

#if defined(FP_LINUX) && !defined(F_DUPFD_QUERY)
#define F_DUPFD_QUERY 1027  /* Linux 6.10 */
#endif

#ifdef F_DUPFD_QUERY
/* "Do fd and other share an open file description?"  A held number is a
 * closed one (-1: the kernel's EBADF), and each pooled one first gets a
 * description of its own (ur_own), so that two separate opens answer 0 and
 * an open and its dup 1, as natively (issue 36, defect 8). */
static int ur_dupfd_query(ur_fcntl_fn real, int fd, unsigned st, int other)
{
	unsigned so = ur_state(other);

	ur_own(fd, st);
	ur_own(other, so);
	return real(ur_real_fd(fd, st), F_DUPFD_QUERY, ur_real_fd(other, so));
}
#endif

static int ur_fcntl(ur_fcntl_fn real, int fd, int cmd, void *arg)
{
	unsigned st = ur_state(fd);
	int r;

	if (UR_IS_DUP2FD(cmd) && (st | ur_state((int)(intptr_t)arg)))
		return ur_fcntl_dup2fd(fd, cmd, arg);
#ifdef F_DUPFD_QUERY
	if (fp_unlikely(cmd == F_DUPFD_QUERY) && (st | ur_state((int)(intptr_t)arg)))
		return ur_dupfd_query(real, fd, st, (int)(intptr_t)arg);
#endif

	if (fp_likely(!st)) {
		if (ur_changes_ofd(cmd))
			UR_DUP_SETTLE();
		ur_lock_request(fd, 0, ur_sets_record_lock(cmd));
		r = real(fd, cmd, arg);
		if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
			if (r < 0 && ur_give_back(errno))
				r = real(fd, cmd, arg);
			r = ur_dupfd_native(real, fd, cmd, (int)(intptr_t)arg, r);
			if (r >= 0)
				ur_heal(r);
		}
		return r;
	}
	/* The reserve and the hidden descriptors are closed to the program. */
	if (st & UR_HELD)
		return real(-1, cmd, arg);
	if (fp_unlikely(ur_sets_record_lock(cmd))) {
		ur_lock_request(fd, st, true);
		return real(fd, cmd, arg);
	}
	/* A pooled description gets one of its own before it changes or is
	 * copied (ur_cow). */
	if (ur_changes_ofd(cmd) || cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		ur_own(fd, st);
	/* Cleared in the state before the kernel's flag, set after: a jump
	 * out in between leaves the state saying plain, never close-on-exec
	 * over a plain kernel flag (a reserve kept so would come back from an
	 * O_CLOEXEC open without it: a cold review's setfd_jump). */
	if (cmd == F_SETFD && !((uintptr_t)arg & FD_CLOEXEC))
		ur_update(fd, UR_CLOEXEC, 0);
	if (cmd == F_SETFD && ur_mode == UR_MODE_EXACT) {
		/* Another thread's ur_cow_all may have read the old flag for
		 * the copy it puts on this number: set again after it. */
		unsigned e;

		do {
			e = ur_cow_quiet();
			r = real(fd, cmd, arg);
		} while (r == 0 && ur_cow_moved(e));
	} else {
		r = real(fd, cmd, arg);
	}
	if (r < 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ur_give_back(errno))
		r = real(fd, cmd, arg);
	if (r < 0)
		return r;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		r = ur_dupfd_native(real, fd, cmd, (int)(intptr_t)arg, r);
		ur_heal(r);
		ur_update(fd, 0, UR_SHARED);
		ur_set(r, (st & ~(UR_CLOEXEC | UR_COW)) | UR_SHARED |
		          (cmd == F_DUPFD_CLOEXEC ? UR_CLOEXEC : 0));
		break;
	case F_SETFD:
		ur_update(fd, UR_CLOEXEC, ((uintptr_t)arg & FD_CLOEXEC) ? UR_CLOEXEC : 0);
		break;
	case F_SETFL:
		/* Reaches every descriptor sharing the description; those are
		 * UR_SHARED, never kept, so only this one's bit matters. */
		ur_update(fd, UR_NONBLOCK, ((uintptr_t)arg & O_NONBLOCK) ? UR_NONBLOCK : 0);
		break;
	default:
		break;
	}
	return r;
}

#ifdef FP_LINUX
/* pid names this process: its own, or any thread's of it (a tid, which
 * only signal 0 tells from another process's pid), whose descriptor table
 * and limits are ours. */
bool ur_pid_self(long pid)
{
	int saved = errno;
	bool self = pid == (long)getpid() ||
	            (pid > 0 && syscall(SYS_tgkill, (long)getpid(), pid, 0L) == 0);

	errno = saved;
	return self;
}
#endif

#ifdef FP_HAVE_SYSCALL_WRAP
/* One of our descriptors as a long argument: its state, 0 for a number
 * that is not (or not ours to read). */
static unsigned ur_state_of(long fd, bool ours)
{
	return ours && fd >= 0 && fd <= INT_MAX ? ur_state((int)fd) : 0;
}

/* The two calls about descriptions that programs make through syscall(),
 * having no C library function of their own, take the step
 * F_DUPFD_QUERY takes (defect 8): kcmp(KCMP_FILE) compares two
 * descriptions, pidfd_getfd copies one.  A pooled descriptor of ours gets
 * a description of its own first, and a number we hold is a closed one
 * (-1: the kernel's EBADF, after its own checks of the pids and the type,
 * as natively).  pidfd_getfd's pidfd may be another process's, which
 * reads its own table: its target is given its own description anyway (a
 * real open, harmless) and never replaced by -1. */
long ur_syscall_fd(long nr, long a, long b, long c, long d, long e, long f)
{
	long (*real)(long, ...) = UR_REAL(syscall);

	if (atomic_load_explicit(&ur_hiwater, memory_order_relaxed) != 0) {
		if (UR_NR_IS(nr, UR_NR_KCMP) && (int)c == 0 /* KCMP_FILE, an int */) {
			unsigned s1 = ur_state_of(d, ur_pid_self(a));
			unsigned s2 = ur_state_of(e, ur_pid_self(b));

			if (s1 | s2) {
				ur_own((int)d, s1);
				ur_own((int)e, s2);
				d = s1 ? ur_real_fd((int)d, s1) : d;
				e = s2 ? ur_real_fd((int)e, s2) : e;
			}
		} else if (UR_NR_IS(nr, UR_NR_PIDFD_GETFD)) {
			unsigned st = ur_state((int)b);  /* an int to the kernel */

			if (!(st & UR_HELD))
				ur_own((int)b, st);
		}
	}
	return real(nr, a, b, c, d, e, f);
}
#endif

/* fcntl, fcntl64 and __fcntl_time64 differ only in the real function they
 * end in. */
static int ur_fcntl_entry(ur_fcntl_fn real, int fd, int cmd, void *arg)
{
	if (fp_likely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed) == 0)) {
		if (fp_unlikely(ur_sets_record_lock(cmd)))
			ur_lock_request(fd, 0, true);
		return real(fd, cmd, arg);
	}
	return ur_fcntl(real, fd, cmd, arg);
}

/* fcntl and its twins, written once.  The argument is fetched as void *.
 * A twin the C library lacks (an older glibc, where fcntl was all there
 * was) ends in plain fcntl. */
#define UR_FCNTL_OR_PLAIN(name) (UR_REAL(name) ? UR_REAL(name) : UR_REAL(fcntl))
#define UR_WRAP_FCNTL(name, real)                                            \
	FP_EXPORT int name(int fd, int cmd, ...)                             \
	{                                                                    \
		void *arg;                                                   \
		va_list ap;                                                  \
                                                                             \
		va_start(ap, cmd);                                           \
		arg = va_arg(ap, void *);                                    \
		va_end(ap);                                                  \
		return ur_fcntl_entry(real, fd, cmd, arg);                   \
	}

UR_WRAP_FCNTL(fcntl, UR_REAL(fcntl))
FP_ALIAS(__fcntl, fcntl);
#ifdef FP_HAVE_FCNTL64
UR_WRAP_FCNTL(fcntl64, UR_FCNTL_OR_PLAIN(fcntl64))
#endif
/* __fcntl_time64 is what fcntl() is in 32-bit programs built with 64-bit
 * time_t: without it their fcntl on a kept (closed) descriptor would
 * succeed, and F_SETFL and F_DUPFD would escape our tables. */
#ifdef FP_HAVE_FCNTL_TIME64
UR_WRAP_FCNTL(__fcntl_time64, UR_FCNTL_OR_PLAIN(__fcntl_time64))
#endif

/* lockf(3) takes and releases POSIX record locks through the C library's
 * own fcntl, out of our sight: the step fcntl's requests take, here.  A
 * held number is a closed one. */
static int ur_lockf_fd(int fd, int cmd)
{
	unsigned st = ur_state(fd);

	if (st & UR_HELD)
		return -1;
	ur_lock_request(fd, st, cmd != F_TEST);
	return fd;
}

/* Bound (fp_ready) before ur_lockf_fd's step, which may close: a call's
 * designator and arguments are unsequenced. */
FP_EXPORT int lockf(int fd, int cmd, off_t len)
{
	int (*real)(int, int, off_t) = UR_REAL(lockf);

	return real(ur_lockf_fd(fd, cmd), cmd, len);
}

#ifdef FP_HAVE_LFS64
FP_EXPORT int lockf64(int fd, int cmd, off64_t len)
{
	int (*real)(int, int, off64_t) = UR_REAL(lockf64);

	return real(ur_lockf_fd(fd, cmd), cmd, len);
}
#endif

/* flock locks belong to the open file description: one taken through a
 * pooled descriptor must reach no other open. */
FP_EXPORT int flock(int fd, int op)
{
	unsigned st = ur_state(fd);

	if (!st)
		UR_DUP_SETTLE();
	ur_own(fd, st);
	/* illumos has had flock only since 2015: a NULL pointer says ENOSYS. */
	if (fp_unlikely(!UR_REAL(flock))) {
		errno = ENOSYS;
		return -1;
	}
	return UR_REAL(flock)(ur_real_fd(fd, st), op);
}
