/* SPDX-License-Identifier: MIT */
/*
 * roots.c: the calls by which a process changes what a path names for it:
 * its root (chroot), its mounts (mount, umount, move_mount and the other
 * calls of the new mount API), its namespaces (setns, unshare).  After
 * each, every mitigation's rooted hook forgets what it learnt through a
 * path (the readlink mitigation's "is /proc procfs", the urandom pool's
 * hidden and reserve descriptors of the device).
 *
 * Out of sight, documented in fastpath(7): pivot_root, which the C library
 * has no function for (syscall() only); a change another process makes to
 * a mount namespace we share; raw system calls.
 */
#include "fastpath.h"

#ifdef FP_LINUX
static void fp_rooted(void)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->rooted)
			fp_mitigations[i]->rooted();
}

/* The call, then the hooks, whatever it returned (a failure may have done
 * part of its work); errno is the call's. */
#define FP_ROOTED(call)                                                      \
	do {                                                                 \
		int r_ = (call), e_ = errno;                                 \
		fp_rooted();                                                 \
		errno = e_;                                                  \
		return r_;                                                   \
	} while (0)
/* A function the C library may lack: ENOSYS, as for any missing one. */
#define FP_ROOTED_NEWER(name, ...)                                           \
	FP_ROOTED(FP_REAL(name) ? fp_real_core.r_##name.f(__VA_ARGS__) : (errno = ENOSYS, -1))

FP_EXPORT int chroot(const char *path)
{
	FP_ROOTED(FP_REAL(chroot)(path));
}

FP_EXPORT int mount(const char *src, const char *dst, const char *type,
                    unsigned long flags, const void *data)
{
	FP_ROOTED(FP_REAL(mount)(src, dst, type, flags, data));
}

FP_EXPORT int umount(const char *dst)
{
	FP_ROOTED(FP_REAL(umount)(dst));
}

FP_EXPORT int umount2(const char *dst, int flags)
{
	FP_ROOTED(FP_REAL(umount2)(dst, flags));
}

FP_EXPORT int setns(int fd, int type)
{
	FP_ROOTED(FP_REAL(setns)(fd, type));
}

/* The unsharing hooks run first: CLONE_FILES gives the thread a
 * descriptor table of its own, and what a mitigation holds in the shared
 * one is given back while it is still one. */
FP_EXPORT int unshare(int flags)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->unsharing)
			fp_mitigations[i]->unsharing(flags);
	FP_ROOTED_NEWER(unshare, flags);
}

/* The new mount API (glibc 2.36): move_mount attaches; fsmount, open_tree
 * (OPEN_TREE_CLONE) and mount_setattr make or change mounts that a later
 * call may attach, or that are attached already. */
FP_EXPORT int move_mount(int fdir, const char *fpath, int tdir, const char *tpath,
                         unsigned flags)
{
	FP_ROOTED_NEWER(move_mount, fdir, fpath, tdir, tpath, flags);
}

FP_EXPORT int fsmount(int fsfd, unsigned flags, unsigned attr)
{
	FP_ROOTED_NEWER(fsmount, fsfd, flags, attr);
}

FP_EXPORT int open_tree(int dirfd, const char *path, unsigned flags)
{
	FP_ROOTED_NEWER(open_tree, dirfd, path, flags);
}

FP_EXPORT int mount_setattr(int dirfd, const char *path, unsigned flags,
                            struct mount_attr *attr, size_t size)
{
	FP_ROOTED_NEWER(mount_setattr, dirfd, path, flags, attr, size);
}
#endif /* FP_LINUX */
