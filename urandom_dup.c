/* SPDX-License-Identifier: MIT */
/*
 * urandom_dup.c: duplication of the descriptors the urandom mitigation
 * tracks (dup, dup2, dup3, F_DUP2FD), from urandom_fd.c: a copy of a
 * tracked descriptor is tracked (same device), marked shared on both
 * sides; a target that the kernel closes implicitly is untracked first.
 */
#include "fastpath.h"
#include "urandom.h"

#include <sys/resource.h>

int ur_dup(int old, unsigned so)
{
	int fd;

	/* A copy of a pooled description would share it with every other
	 * pooled open: the copy is made of one of its own. */
	ur_own(old, so);
	UR_RETRY(fd, UR_REAL(dup)(ur_real_fd(old, so)));
	if (fd >= 0) {
		ur_heal(fd);
		if (so & UR_OPEN) {
			ur_update(old, 0, UR_SHARED);
			ur_set(fd, (so & ~(UR_CLOEXEC | UR_COW)) | UR_SHARED);
		}
	}
	return fd;
}

int ur_real_dup3(int old, int new, int flags)
{
#ifdef FP_HAVE_DUP3
	if (UR_REAL(dup3))
		return UR_REAL(dup3)(old, new, flags);
#endif
	(void)old, (void)new, (void)flags;
	errno = ENOSYS;
	return -1;
}

/* The real duplication ur_dup23 was asked for (UR_AS_*). */
static int ur_dup_call(int old, int new, int how)
{
	switch (how) {
	case UR_AS_DUP2:
		return UR_REAL(dup2)(old, new);
#ifdef F_DUP2FD
	case UR_AS_DUP2FD:
		return UR_REAL(fcntl)(old, F_DUP2FD, new);
#endif
#ifdef F_DUP2FD_CLOEXEC
	case UR_AS_DUP2FD_CLOEXEC:
		return UR_REAL(fcntl)(old, F_DUP2FD_CLOEXEC, new);
#endif
	}
	return ur_real_dup3(old, new, how);
}

/* dup2, F_DUP2FD (how < 0) and dup3 (how = its flags). */
int ur_dup23(int old, int new, int how)
{
	unsigned so = ur_state(old), sn = ur_state(new), g;
	bool took, held, clo = how == UR_AS_DUP2FD_CLOEXEC || (how > 0 && (how & O_CLOEXEC));
	int r;

	if (so & UR_HELD) {
		/* old is closed as far as the program knows: the kernel's answer
		 * for a closed descriptor (EBADF, or dup3's EINVAL when old ==
		 * new), with new left alone. */
		if (how < 0)
			return ur_dup_call(-1, old == new ? -1 : new, how);
		/* The stand-in for old must differ from new as old does, or
		 * dup3(held, -1) would be EINVAL where natively it is EBADF
		 * (fd_fuzz's defect 13). */
		return ur_real_dup3(old == new ? old : new == -1 ? -2 : -1, new, how);
	}
	/* Nothing is closed (dup2 checks old, dup3 says EINVAL), or the table
	 * is a vfork child's, not the one recorded (ur_table_ours). */
	if (old == new)
		return ur_dup_call(old, new, how);
	if (!ur_table_ours()) {
		if ((r = ur_dup_call(old, new, how)) >= 0)
			(void)ur_vfork_forget((unsigned)new, (unsigned)new, false);
		return r;
	}
#ifdef FP_LINUX
	/* A hidden number as new is at or above the soft limit: the kernel
	 * refuses it (EBADF), as natively, and it stays ours.  Below it only
	 * after a raw setrlimit (fastpath(7)): then as below. */
	if (fp_unlikely(sn & UR_HIDDEN)) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != FP_RLIM_INFINITY &&
		    (rlim_t)new >= rl.rlim_cur)
			return ur_dup_call(old, old == -1 ? -2 : -1, how);
	}
#endif
	ur_own(old, so);
	g = atomic_load(&ur_forks);
	/* A hidden number as new is moved out of the way: forgotten here,
	 * closed by the kernel's dup2, remade by the next open.  A pooled
	 * one is noted meanwhile, as a close's (ur_close). */
	held = (sn & UR_COW) && ur_dup_hold(__builtin_frame_address(0));
	took = ur_untrack(new);
	r = ur_dup_call(old, new, how);
	if (r < 0) {
		if (took)  /* the program closed it already: finish the job */
			UR_REAL(close)(new);
		else if (sn & UR_OPEN)  /* still the program's, unchanged */
			ur_track_new(new, sn, g);
	}
	if (held)  /* after a failure's record: cold review 47 */
		ur_dup_note(0);
	if (r < 0)
		return r;
	if (so & UR_OPEN) {
		ur_update(old, 0, UR_SHARED);
		ur_set(new, (so & ~(UR_CLOEXEC | UR_COW)) | UR_SHARED | (clo ? UR_CLOEXEC : 0));
	}
	return r;
}
