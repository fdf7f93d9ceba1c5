/* SPDX-License-Identifier: MIT */
/*
 * roots.c: the calls by which a process changes what a path names for it:
 * its root (chroot), its mounts (mount, umount, move_mount and the other
 * calls of the new mount API), its namespaces (setns, unshare).  After
 * each, every mitigation's rooted hook forgets what it learnt through a
 * path (the readlink mitigation's "is /proc procfs", the urandom pool's
 * hidden and reserve descriptors of the device).
 *
 * And the calls by which it changes what it may open (issue 36's sandbox
 * transitions): its users and groups, its capabilities, a seccomp filter,
 * a Landlock ruleset.  A pooled open is a duplicate of a descriptor opened
 * before: after one of these the next goes through the path again, and the
 * kernel checks it as it would natively.  Through syscall() too
 * (fp_roots_nr): Landlock, seccomp() and pivot_root have no other way in.
 *
 * Out of sight, documented in fastpath(7): a change another process makes
 * to a mount namespace we share, or to our credentials (a thread of ours
 * that is a process of its own, CLONE_THREAD without the C library's
 * broadcast); raw system calls; the C library's own calls (initgroups'
 * setgroups, posix_spawn's POSIX_SPAWN_RESETIDS, in the child).
 */
#include "fastpath.h"

#ifdef FP_LINUX
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static void fp_rooted(void)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->rooted)
			fp_mitigations[i]->rooted();
}

/* What a mitigation learnt through a path is to be learnt again (after a
 * call of syscall(): fp_roots_nr), errno kept. */
static void fp_roots_changed(void)
{
	int e = errno;

	fp_rooted();
	errno = e;
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
static void fp_roots_unsharing(int flags)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->unsharing)
			fp_mitigations[i]->unsharing(flags);
}

FP_EXPORT int unshare(int flags)
{
	fp_roots_unsharing(flags);
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

/* Who the process is, for the kernel's checks of a path. */
FP_EXPORT int setuid(uid_t uid)
{
	FP_ROOTED(FP_REAL(setuid)(uid));
}

FP_EXPORT int setgid(gid_t gid)
{
	FP_ROOTED(FP_REAL(setgid)(gid));
}

FP_EXPORT int seteuid(uid_t uid)
{
	FP_ROOTED(FP_REAL(seteuid)(uid));
}

FP_EXPORT int setegid(gid_t gid)
{
	FP_ROOTED(FP_REAL(setegid)(gid));
}

FP_EXPORT int setreuid(uid_t r, uid_t e)
{
	FP_ROOTED(FP_REAL(setreuid)(r, e));
}

FP_EXPORT int setregid(gid_t r, gid_t e)
{
	FP_ROOTED(FP_REAL(setregid)(r, e));
}

FP_EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	FP_ROOTED(FP_REAL(setresuid)(r, e, s));
}

FP_EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	FP_ROOTED(FP_REAL(setresgid)(r, e, s));
}

FP_EXPORT int setgroups(size_t n, const gid_t *list)
{
	FP_ROOTED(FP_REAL(setgroups)(n, list));
}

/* Both answer the previous id, success or not. */
FP_EXPORT int setfsuid(uid_t uid)
{
	FP_ROOTED(FP_REAL(setfsuid)(uid));
}

FP_EXPORT int setfsgid(gid_t gid)
{
	FP_ROOTED(FP_REAL(setfsgid)(gid));
}

FP_EXPORT int capset(struct __user_cap_header_struct *h, const struct __user_cap_data_struct *d)
{
	FP_ROOTED(FP_REAL(capset)(h, d));
}

/* Four arguments, as the C libraries read them whatever was passed; only
 * a seccomp filter (or strict mode) changes what may be opened. */
FP_EXPORT int prctl(int option, ...)
{
	unsigned long a, b, c, d;
	va_list ap;

	va_start(ap, option);
	a = va_arg(ap, unsigned long);
	b = va_arg(ap, unsigned long);
	c = va_arg(ap, unsigned long);
	d = va_arg(ap, unsigned long);
	va_end(ap);
	if (fp_unlikely(option == PR_SET_SECCOMP))
		FP_ROOTED(FP_REAL(prctl)(option, a, b, c, d));
	return FP_REAL(prctl)(option, a, b, c, d);
}

/* nr, with its first argument a, is one of the calls above made through
 * syscall() (urandom_survey.c), which then makes it by fp_roots_call. */
bool fp_roots_nr(long nr, long a)
{
	switch (nr) {
#ifdef SYS_setuid
	case SYS_setuid:
#endif
#ifdef SYS_setgid
	case SYS_setgid:
#endif
#ifdef SYS_seteuid
	case SYS_seteuid:
#endif
#ifdef SYS_setegid
	case SYS_setegid:
#endif
#ifdef SYS_setreuid
	case SYS_setreuid:
#endif
#ifdef SYS_setregid
	case SYS_setregid:
#endif
#ifdef SYS_setresuid
	case SYS_setresuid:
#endif
#ifdef SYS_setresgid
	case SYS_setresgid:
#endif
#ifdef SYS_setgroups
	case SYS_setgroups:
#endif
#ifdef SYS_setfsuid
	case SYS_setfsuid:
#endif
#ifdef SYS_setfsgid
	case SYS_setfsgid:
#endif
#ifdef SYS_setuid32
	case SYS_setuid32:
#endif
#ifdef SYS_setgid32
	case SYS_setgid32:
#endif
#ifdef SYS_setreuid32
	case SYS_setreuid32:
#endif
#ifdef SYS_setregid32
	case SYS_setregid32:
#endif
#ifdef SYS_setresuid32
	case SYS_setresuid32:
#endif
#ifdef SYS_setresgid32
	case SYS_setresgid32:
#endif
#ifdef SYS_setgroups32
	case SYS_setgroups32:
#endif
#ifdef SYS_setfsuid32
	case SYS_setfsuid32:
#endif
#ifdef SYS_setfsgid32
	case SYS_setfsgid32:
#endif
#ifdef SYS_capset
	case SYS_capset:
#endif
#ifdef SYS_landlock_restrict_self
	case SYS_landlock_restrict_self:
#endif
#ifdef SYS_chroot
	case SYS_chroot:
#endif
#ifdef SYS_pivot_root
	case SYS_pivot_root:
#endif
#ifdef SYS_setns
	case SYS_setns:
#endif
#ifdef SYS_mount
	case SYS_mount:
#endif
#ifdef SYS_umount
	case SYS_umount:
#endif
#ifdef SYS_umount2
	case SYS_umount2:
#endif
#ifdef SYS_move_mount
	case SYS_move_mount:
#endif
#ifdef SYS_fsmount
	case SYS_fsmount:
#endif
#ifdef SYS_open_tree
	case SYS_open_tree:
#endif
#ifdef SYS_mount_setattr
	case SYS_mount_setattr:
#endif
#ifdef SYS_unshare
	case SYS_unshare:
#endif
		return true;
#ifdef SYS_prctl
	case SYS_prctl:
		return a == PR_SET_SECCOMP;
#endif
#ifdef SYS_seccomp
	case SYS_seccomp:
		return a == SECCOMP_SET_MODE_STRICT || a == SECCOMP_SET_MODE_FILTER;
#endif
	default:
		return false;
	}
}

/* As the functions above: the unsharing hooks first for unshare, the
 * call, then the hooks, errno the call's. */
long fp_roots_call(long (*real)(long, ...), long nr, long a, long b, long c, long d, long e,
                   long f)
{
	long r;

#ifdef SYS_unshare
	if (nr == SYS_unshare)
		fp_roots_unsharing((int)a);
#endif
	r = real(nr, a, b, c, d, e, f);
	fp_roots_changed();
	return r;
}
#endif /* FP_LINUX */
