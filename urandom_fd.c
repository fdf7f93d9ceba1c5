/*
 * urandom_fd.c: the descriptors of the device that the urandom mitigation
 * tracks, and the one it keeps in reserve.
 *
 * The caller still gets a real kernel descriptor of the device (fstat,
 * poll, exec and children all behave), but close() of such a descriptor
 * keeps one of them in reserve, FD_CLOEXEC, and the next open() of the
 * device hands it out again.  Invariants kept here:
 *   - ur_fd() marks only numbers the kernel holds open (ur_untrack comes
 *     before every call that may free a number; ur_heal after every call
 *     that returns a fresh one);
 *   - the reserve is FD_CLOEXEC and never 0, 1 or 2, and its open file
 *     description is its own: never one a dup or a forked child shares
 *     (UR_SHARED; ur_close, ur_adopt).
 */
#include "fastpath.h"
#include "urandom.h"

#ifdef FP_LINUX
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#endif

_Alignas(FP_CACHELINE) _Atomic unsigned char ur_fd_cells[UR_MAXFD];
_Atomic int ur_hiwater;
_Alignas(FP_CACHELINE) _Atomic int ur_reserve[UR_NDEV] = { -1, -1 };
_Atomic unsigned ur_forks;
static _Atomic int ur_random_ok = -1;  /* -1: not yet decided */

void ur_set(int fd, unsigned st)
{
	int hw = atomic_load(&ur_hiwater);

	if (fd < 0 || fd >= UR_MAXFD)
		return;
	atomic_store(ur_fd(fd), (unsigned char)st);
	while (st && hw <= fd && !atomic_compare_exchange_weak(&ur_hiwater, &hw, fd + 1))
		;
}

/* Changes some bits of a tracked number's state, keeping the others (a
 * fork's UR_SHARED mark may land at any time); an untracked one stays so. */
void ur_update(int fd, unsigned clear, unsigned set)
{
	unsigned char st;

	if (fd < 0 || fd >= UR_MAXFD)
		return;
	st = atomic_load(ur_fd(fd));
	while (st && !atomic_compare_exchange_weak(ur_fd(fd), &st,
	                                           (unsigned char)((st & ~clear) | set)))
		;
}

/* Tracks a number the kernel gave (or left) us during a call that began
 * when ur_forks was g: if a fork may have run since, the child has it. */
void ur_track_new(int fd, unsigned st, unsigned g)
{
	unsigned now;

	ur_set(fd, st);
	now = atomic_load(&ur_forks);
	if (now != g || (now & 1))
		ur_update(fd, 0, UR_SHARED);
}

static void ur_mark_all_shared(void)
{
	int fd, end = atomic_load(&ur_hiwater);

	for (fd = 0; fd < end; fd++)
		ur_update(fd, 0, UR_SHARED);
}

/* The number is about to be freed (or was, behind our back): forget it,
 * and if it was the reserve, make sure nobody hands it out.  Returns true
 * when it was the reserve and we took it out of the slot. */
bool ur_untrack(int fd)
{
	unsigned st = ur_state(fd);
	int expect = fd;

	if (!st)
		return false;
	atomic_store(ur_fd(fd), 0);
	return (st & UR_RESERVE) &&
	       atomic_compare_exchange_strong(&ur_reserve[ur_dev(st)], &expect, -1);
}


/* A reserve holds a slot of the descriptor table (and of the system's file
 * table) that the program believes free: natively, an open at the limit
 * would have had it.  Gives every reserve back; true when there was one. */
bool ur_give_back(int err)
{
	bool any = false;
	int d;

	if (fp_likely(err != EMFILE && err != ENFILE))
		return false;
	for (d = 0; d < UR_NDEV; d++) {
		int fd = atomic_exchange(&ur_reserve[d], -1);

		if (fd >= 0) {
			atomic_store(ur_fd(fd), 0);
			fp_real.r_close.f(fd);
			any = true;
		}
	}
	errno = err;
	return any;
}

/* Every descriptor tracked at a fork is shared with the child's copy from
 * then on, in both processes; marked before the fork (racing opens are
 * caught by ur_forks) and again in the child, where only one thread runs. */
void ur_fd_atfork_prepare(void)
{
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared();
}

void ur_fd_atfork_parent(void)
{
	atomic_fetch_add(&ur_forks, 1);
}

void ur_fd_atfork_child(void)
{
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared();
}

/* ------------------------------------------------------------------------
 * Which opens are ours.
 * ---------------------------------------------------------------------- */

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

/* The device an open is for, or -1 when it is not ours. */
int ur_match(const char *path, int flags)
{
	bool survey;

	path = ur_opaque(path);
	if (fp_likely(!path || path[0] != '/' || path[1] != 'd'))
		return -1;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | UR_OK_FLAGS)))
		return -1;
	/* Surveying: the opens the pool would take, to be timed instead. */
	survey = !fp_enabled(FP_BIT(urandom));
	if (survey && fp_likely(!fp_surveying()))
		return -1;
	if (strcmp(path, "/dev/urandom") == 0)
		return survey ? UR_SURVEY : UR_DEV_URANDOM;
	if (strcmp(path, "/dev/random") == 0 && ur_random_pooled())
		return survey ? UR_SURVEY : UR_DEV_RANDOM;
	return -1;
}

/* A fresh open is tracked only if it really is the device (not a file put
 * there in a chroot or a container). */
static bool ur_is_device(int fd, int dev)
{
	struct stat st;

	ur_count(SYSCALLS);
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
		return false;
#ifdef FP_LINUX
	return st.st_rdev == makedev(1, dev == UR_DEV_RANDOM ? 8 : 9);
#else
	(void)dev;
	return true;
#endif
}

static unsigned ur_open_bits(int dev, int flags)
{
	return UR_OPEN | (dev == UR_DEV_RANDOM ? UR_RANDOM : 0) |
	       ((flags & O_CLOEXEC) ? UR_CLOEXEC : 0) |
	       ((flags & O_NONBLOCK) ? UR_NONBLOCK : 0);
}

/* Makes the reserve look freshly opened with these flags.  Its open file
 * description is never changed (F_SETFL): if its status flags are not the
 * ones asked for, or a fork has shared it, only a fresh open will do. */
static bool ur_adopt(int fd, int dev, int flags)
{
	unsigned char st = (unsigned char)ur_state(fd);
	bool nb = (flags & O_NONBLOCK) != 0;

	if (!(st & UR_RESERVE) || (st & UR_SHARED) || nb != ((st & UR_NONBLOCK) != 0))
		return false;
	if (!(flags & O_CLOEXEC)) {
		ur_count(SYSCALLS);
		if (fp_real.r_fcntl.f(fd, F_SETFD, 0) < 0)
			return false;
	}
	/* Fails if a fork marked it meanwhile. */
	return atomic_compare_exchange_strong(ur_fd(fd), &st,
	                                      (unsigned char)ur_open_bits(dev, flags));
}

int ur_open(int dev, const char *path, int flags)
{
	int saved = errno;
	int fd = atomic_exchange(&ur_reserve[dev], -1);
	unsigned g;

	if (fd >= 0) {
		if (ur_adopt(fd, dev, flags)) {
			errno = saved;
			ur_count(OPENS);
			ur_debug("open served by the reserve descriptor");
			return fd;
		}
		atomic_store(ur_fd(fd), 0);
		ur_count(SYSCALLS);
		fp_real.r_close.f(fd);
		errno = saved;
	}
	ur_count(SYSCALLS);
	g = atomic_load(&ur_forks);
	UR_RETRY(fd, fp_real.r_openat.f(AT_FDCWD, path, flags | O_LARGEFILE));
	if (fd < 0)
		return fd;
	ur_heal(fd);
	if (fd < UR_MAXFD && ur_is_device(fd, dev)) {
		ur_track_new(fd, ur_open_bits(dev, flags), g);
		ur_count(OPENS);
		ur_debug("open: real descriptor, now tracked");
	}
	errno = saved;
	return fd;
}

/* ------------------------------------------------------------------------
 * close: keep one descriptor per device.  0, 1 and 2 are really closed, so
 * that close(0); open("/dev/null") still yields 0.
 * ---------------------------------------------------------------------- */
int ur_close(int fd, unsigned st)
{
	int dev = ur_dev(st), saved = errno, none = -1;

	if (st & UR_RESERVE) {
		errno = EBADF;
		return -1;
	}
	if (fd > 2 && !(st & UR_SHARED) && atomic_load(&ur_reserve[dev]) < 0) {
		unsigned char was = (unsigned char)st;

		if (!(st & UR_CLOEXEC)) {
			/* The one system call of a cycle whose open did not ask
			 * for O_CLOEXEC: in reserve it must not leak through exec. */
			ur_count(SYSCALLS);
			if (fp_real.r_fcntl.f(fd, F_SETFD, FD_CLOEXEC) < 0)
				goto real;
		}
		/* The first fails if a fork marked it shared meanwhile. */
		if (atomic_compare_exchange_strong(ur_fd(fd), &was,
		                                   (unsigned char)((st & ~UR_OPEN) | UR_RESERVE |
		                                                   UR_CLOEXEC)) &&
		    atomic_compare_exchange_strong(&ur_reserve[dev], &none, fd)) {
			ur_debug("close: descriptor kept in reserve");
			errno = saved;
			return 0;
		}
	}
real:
	errno = saved;
	atomic_store(ur_fd(fd), 0);
	ur_count(SYSCALLS);
	return fp_real.r_close.f(fd);
}

#if defined(FP_HAVE_CLOSE_RANGE) || defined(FP_HAVE_CLOSEFROM)
/* Takes every tracked number in [lo, hi] out of our tables before the
 * kernel frees them.  Reserve descriptors taken out are returned in
 * taken[] so that a failed call can still close them. */
void ur_untrack_range(unsigned lo, unsigned hi, int taken[UR_NDEV])
{
	unsigned fd, end = (unsigned)atomic_load(&ur_hiwater);
	int d;

	for (d = 0; d < UR_NDEV; d++) {
		int r = atomic_load(&ur_reserve[d]);

		taken[d] = -1;
		if (r >= 0 && (unsigned)r >= lo && (unsigned)r <= hi &&
		    atomic_compare_exchange_strong(&ur_reserve[d], &r, -1))
			taken[d] = r;
	}
	for (fd = lo; fd < end && fd <= hi; fd++)
		atomic_store(ur_fd(fd), 0);
}
#endif

/* ------------------------------------------------------------------------
 * Duplication.  A copy of a tracked descriptor is tracked (same device);
 * a target that the kernel closes implicitly is untracked first.
 * ---------------------------------------------------------------------- */
int ur_dup(int old, unsigned so)
{
	int fd;

	UR_RETRY(fd, fp_real.r_dup.f((so & UR_RESERVE) ? -1 : old));

	if (fd >= 0) {
		ur_heal(fd);
		if (so & UR_OPEN) {
			ur_update(old, 0, UR_SHARED);
			ur_set(fd, (so & ~UR_CLOEXEC) | UR_SHARED);
		}
	}
	return fd;
}

int ur_real_dup3(int old, int new, int flags)
{
#ifdef FP_HAVE_DUP3
	return fp_real.r_dup3.f(old, new, flags);
#else
	(void)old, (void)new, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* dup2 (flags < 0) and dup3. */
int ur_dup23(int old, int new, int flags)
{
	unsigned so = ur_state(old), sn = ur_state(new), g;
	bool took;
	int r;

	if (so & UR_RESERVE) {
		/* old is closed as far as the program knows: the kernel's answer
		 * for a closed descriptor (EBADF, or dup3's EINVAL when old ==
		 * new), with new left alone. */
		if (flags < 0)
			return fp_real.r_dup2.f(-1, old == new ? -1 : new);
		return ur_real_dup3(old == new ? old : -1, new, flags);
	}
	if (old == new)  /* nothing is closed: dup2 checks old, dup3 says EINVAL */
		return flags < 0 ? fp_real.r_dup2.f(old, new) : ur_real_dup3(old, new, flags);
	g = atomic_load(&ur_forks);
	took = ur_untrack(new);
	r = flags < 0 ? fp_real.r_dup2.f(old, new) : ur_real_dup3(old, new, flags);
	if (r < 0) {
		if (took)  /* the program closed it already: finish the job */
			fp_real.r_close.f(new);
		else if (sn & UR_OPEN)  /* still the program's, unchanged */
			ur_track_new(new, sn, g);
		return r;
	}
	if (so & UR_OPEN) {
		ur_update(old, 0, UR_SHARED);
		ur_set(new, (so & ~UR_CLOEXEC) | UR_SHARED |
		            ((flags > 0 && (flags & O_CLOEXEC)) ? UR_CLOEXEC : 0));
	}
	return r;
}
