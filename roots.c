/* SPDX-License-Identifier: MIT */
/*
 * roots.c: the calls by which a process changes what a path names for it:
 * its root (chroot), its mounts (mount, umount, move_mount and the other
 * calls of the new mount API), its namespaces (setns, unshare); after
 * each, every mitigation's rooted hook forgets what it learnt through a
 * path (the readlink mitigation's "is /proc procfs").
 *
 * These and the calls by which it changes what it may open (issue 36's
 * sandbox transitions: its users and groups, its capabilities, a seccomp
 * filter, a Landlock ruleset) are sealed: the sealing hooks run before the
 * call, while what was opened can still be opened again, the sealed hooks
 * after it.  A pooled open is a duplicate of a descriptor opened before,
 * which the kernel does not check again: the urandom pool ends there if it
 * is in use, or is first used after the call (fp_mitigation.h).  Through
 * syscall() too (fp_roots_nr): Landlock, seccomp() and pivot_root have no
 * other way in.
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
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* The table (fp_real.h), bound at its first use (bind.c, FP_BIT_ROOTS). */
#define FP_REAL_TAG roots
FP_REAL_DEFINE_NULL(FP_REAL_ROOTS);
#undef FP_REAL_TAG

/* The real function called; ENOSYS where there is none (a C library
 * without it, or a call from inside our own initialisation, where the
 * table is not bound, as the core's stand-ins answer). */
#define FP_RREAL_P(name) FP_REAL_LAZY_P(fp_real_roots.r_##name, FP_BIT_ROOTS)
#define FP_RCALL(name, ...)                                                  \
	(FP_RREAL_P(name)                                                    \
	         ? fp_real_roots.r_##name.f(__VA_ARGS__)                     \
	         : (errno = ENOSYS, -1))
/* The same, but the system call itself where there is no function yet: a
 * change of ids or a prctl that another preloaded object's start-up made,
 * reached from inside ours, before the binding (review 55: ENOSYS where
 * natively, unwrapped, it was made).  For this thread alone, as the
 * process has no other then. */
#define FP_RSYS(name, nr, ...)                                               \
	(FP_RREAL_P(name)                                                    \
	         ? fp_real_roots.r_##name.f(__VA_ARGS__)                     \
	         : (int)syscall(nr, __VA_ARGS__))
/* The 32-bit ids' numbers where the kernel has both (i386). */
#ifdef SYS_setuid32
#  define FP_NR_ID(n) SYS_##n##32
#else
#  define FP_NR_ID(n) SYS_##n
#endif

/* Before a change of what the process or a thread may open: the sealing
 * hooks, while what was opened can still be opened again (fp_mitigation.h);
 * whole where the change is every thread's and leaves no filter (the C
 * library's setuid family, a chroot or a mount), else the calling
 * thread's alone, or a filter.  After it, whatever it returned, the
 * sealed hooks, which make no system call.  errno kept. */
static void fp_roots_seal(bool whole)
{
	int e = errno;
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->sealing)
			fp_mitigations[i]->sealing(whole);
	errno = e;
}

/* After it, whatever it returned: the sealed hooks, and where it changed
 * root, mounts or namespaces the rooted ones (a failure may have done
 * part of its work). */
static void fp_roots_after(bool rooted)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++) {
		if (fp_mitigations[i]->sealed)
			fp_mitigations[i]->sealed();
		if (rooted && fp_mitigations[i]->rooted)
			fp_mitigations[i]->rooted();
	}
}

/* A wrapped change: sealed around it, errno the call's. */
#define FP_CHANGE(whole, rooted, call)                                       \
	do {                                                                 \
		int r_, e_;                                                  \
		fp_roots_seal(whole);                                        \
		r_ = (call);                                                 \
		e_ = errno;                                                  \
		fp_roots_after(rooted);                                      \
		errno = e_;                                                  \
		return r_;                                                   \
	} while (0)
/* A change of ids, capabilities or sandbox. */
#define FP_SEALED(whole, call) FP_CHANGE(whole, false, call)
/* A change of root, mounts or namespaces. */
#define FP_ROOTED(whole, call) FP_CHANGE(whole, true, call)
/* A function the C library may lack: ENOSYS, as for any missing one. */
#define FP_ROOTED_NEWER(name, ...) FP_ROOTED(true, FP_RCALL(name, __VA_ARGS__))

FP_EXPORT int chroot(const char *path)
{
	FP_ROOTED(true, FP_RCALL(chroot, path));
}

FP_EXPORT int mount(const char *src, const char *dst, const char *type,
                    unsigned long flags, const void *data)
{
	FP_ROOTED(true, FP_RCALL(mount, src, dst, type, flags, data));
}

FP_EXPORT int umount(const char *dst)
{
	FP_ROOTED(true, FP_RCALL(umount, dst));
}

FP_EXPORT int umount2(const char *dst, int flags)
{
	FP_ROOTED(true, FP_RCALL(umount2, dst, flags));
}

FP_EXPORT int setns(int fd, int type)
{
	FP_ROOTED(false, FP_RCALL(setns, fd, type));
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
	FP_ROOTED(false, FP_RCALL(unshare, flags));
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

/* Who the process is (the C library makes each change in every thread).
 * Sealed whether it changes anything or not: a filter that allows the
 * change may refuse getresuid (review 55). */
#define FP_IDS(call) FP_SEALED(true, call)

FP_EXPORT int setuid(uid_t uid)
{
	FP_IDS(FP_RSYS(setuid, FP_NR_ID(setuid), uid));
}

FP_EXPORT int setgid(gid_t gid)
{
	FP_IDS(FP_RSYS(setgid, FP_NR_ID(setgid), gid));
}

FP_EXPORT int seteuid(uid_t uid)
{
	FP_IDS(FP_RREAL_P(seteuid)
	               ? fp_real_roots.r_seteuid.f(uid)
	               : (int)syscall(FP_NR_ID(setresuid), (uid_t)-1, uid, (uid_t)-1));
}

FP_EXPORT int setegid(gid_t gid)
{
	FP_IDS(FP_RREAL_P(setegid)
	               ? fp_real_roots.r_setegid.f(gid)
	               : (int)syscall(FP_NR_ID(setresgid), (gid_t)-1, gid, (gid_t)-1));
}

FP_EXPORT int setreuid(uid_t r, uid_t e)
{
	FP_IDS(FP_RSYS(setreuid, FP_NR_ID(setreuid), r, e));
}

FP_EXPORT int setregid(gid_t r, gid_t e)
{
	FP_IDS(FP_RSYS(setregid, FP_NR_ID(setregid), r, e));
}

FP_EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	FP_IDS(FP_RSYS(setresuid, FP_NR_ID(setresuid), r, e, s));
}

FP_EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	FP_IDS(FP_RSYS(setresgid, FP_NR_ID(setresgid), r, e, s));
}

FP_EXPORT int setgroups(size_t n, const gid_t *list)
{
	FP_IDS(FP_RSYS(setgroups, FP_NR_ID(setgroups), n, list));
}

/* The calling thread's alone.  Each answers the id before, success or
 * not, and -1 (no id) changes nothing and answers the one now, which a
 * filter that allows the change allows too: sealed only where the id
 * asked for is not the one in force (a server that switches per request
 * as root keeps its pool). */
FP_EXPORT int setfsuid(uid_t uid)
{
	if (uid == (uid_t)-1 || (uid_t)FP_RSYS(setfsuid, FP_NR_ID(setfsuid), (uid_t)-1) == uid)
		return FP_RSYS(setfsuid, FP_NR_ID(setfsuid), uid);
	FP_SEALED(false, FP_RSYS(setfsuid, FP_NR_ID(setfsuid), uid));
}

FP_EXPORT int setfsgid(gid_t gid)
{
	if (gid == (gid_t)-1 || (gid_t)FP_RSYS(setfsgid, FP_NR_ID(setfsgid), (gid_t)-1) == gid)
		return FP_RSYS(setfsgid, FP_NR_ID(setfsgid), gid);
	FP_SEALED(false, FP_RSYS(setfsgid, FP_NR_ID(setfsgid), gid));
}

FP_EXPORT int capset(struct __user_cap_header_struct *h, const struct __user_cap_data_struct *d)
{
	FP_SEALED(false, FP_RSYS(capset, SYS_capset, h, d));
}

/* Four arguments, as the C libraries read them whatever was passed; only
 * a seccomp filter (or strict mode) changes what may be opened, and it
 * may refuse every call of ours once in force: sealed before. */
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
	if (fp_unlikely(option == PR_SET_SECCOMP)) {
		bool sv = fp_survey_sandboxing();
		int r, e;

		fp_roots_seal(false);
		r = FP_RSYS(prctl, SYS_prctl, option, a, b, c, d);
		e = errno;
		fp_roots_after(false);
		if (sv && r == 0)
			fp_survey_sandboxed();
		errno = e;
		return r;
	}
	return FP_RSYS(prctl, SYS_prctl, option, a, b, c, d);
}

/* What syscall() (urandom_survey.c) leaves to fp_roots_call: 0 nothing;
 * FP_ROOTS_ROOT a change of root, mounts or namespaces, the hooks after
 * it; FP_ROOTS_SEAL a change of ids or capabilities (made raw: for the
 * calling thread alone), a seccomp filter or a Landlock ruleset, sealed
 * before. */
int fp_roots_nr(long nr, long a)
{
	switch (nr) {
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
		return FP_ROOTS_ROOT;
#ifdef SYS_setuid
	case SYS_setuid:
#endif
#ifdef SYS_setgid
	case SYS_setgid:
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
#ifdef SYS_capset
	case SYS_capset:
#endif
		return FP_ROOTS_SEAL;
#ifdef SYS_setfsuid
	case SYS_setfsuid:
#endif
#ifdef SYS_setfsgid
	case SYS_setfsgid:
#endif
#ifdef SYS_setfsuid32
	case SYS_setfsuid32:
#endif
#ifdef SYS_setfsgid32
	case SYS_setfsgid32:
#endif
		return (unsigned)a == (unsigned)-1 ? 0 : FP_ROOTS_SEAL;
#ifdef SYS_landlock_restrict_self
	case SYS_landlock_restrict_self:
		return FP_ROOTS_SEAL;
#endif
#ifdef SYS_prctl
	case SYS_prctl:
		return a == PR_SET_SECCOMP ? FP_ROOTS_SEAL : 0;
#endif
#ifdef SYS_seccomp
	case SYS_seccomp:
		return a == SECCOMP_SET_MODE_STRICT || a == SECCOMP_SET_MODE_FILTER ? FP_ROOTS_SEAL : 0;
#endif
	default:
		return 0;
	}
}

/* Whether a sealed call of fp_roots_nr's is a sandbox: seccomp's (by
 * prctl or its own call) or Landlock's. */
static bool fp_roots_sandbox(long nr)
{
	(void)nr;
#ifdef SYS_landlock_restrict_self
	if (nr == SYS_landlock_restrict_self)
		return true;
#endif
#ifdef SYS_prctl
	if (nr == SYS_prctl)
		return true;
#endif
#ifdef SYS_seccomp
	if (nr == SYS_seccomp)
		return true;
#endif
	return false;
}

/* As the functions above, for a kind fp_roots_nr gave: the unsharing
 * hooks first for unshare, errno the call's. */
long fp_roots_call(int kind, long (*real)(long, ...), long nr, long a, long b, long c, long d,
                   long e, long f)
{
	long r;
	int err;
	bool sv;

#ifdef SYS_unshare
	if (nr == SYS_unshare)
		fp_roots_unsharing((int)a);
#endif
	/* (a sandbox: the calls of ids, capabilities and roots leave the
	 * survey its files) */
	sv = kind == FP_ROOTS_SEAL && fp_roots_sandbox(nr) && fp_survey_sandboxing();
	fp_roots_seal(false);
	r = real(nr, a, b, c, d, e, f);
	err = errno;
	fp_roots_after(kind == FP_ROOTS_ROOT);
	if (sv && r >= 0)
		fp_survey_sandboxed();
	errno = err;
	return r;
}
#endif /* FP_LINUX */
