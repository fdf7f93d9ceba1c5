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
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* The table (fp_real.h), bound at its first use (bind.c, FP_BIT_ROOTS). */
#define FP_REAL_TAG roots
FP_REAL_DEFINE_NULL(FP_REAL_ROOTS);
#undef FP_REAL_TAG

/* The real function called, its table bound at the first call that needs
 * it; ENOSYS where there is none (a C library without it, or a call from
 * inside our own initialisation). */
#define FP_RCALL(name, ...)                                                  \
	(FP_REAL_LAZY_P(fp_real_roots.r_##name, FP_BIT_ROOTS)                \
	         ? fp_real_roots.r_##name.f(__VA_ARGS__)                     \
	         : (errno = ENOSYS, -1))

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
#define FP_ROOTED_NEWER(name, ...) FP_ROOTED(FP_RCALL(name, __VA_ARGS__))

FP_EXPORT int chroot(const char *path)
{
	FP_ROOTED(FP_RCALL(chroot, path));
}

FP_EXPORT int mount(const char *src, const char *dst, const char *type,
                    unsigned long flags, const void *data)
{
	FP_ROOTED(FP_RCALL(mount, src, dst, type, flags, data));
}

FP_EXPORT int umount(const char *dst)
{
	FP_ROOTED(FP_RCALL(umount, dst));
}

FP_EXPORT int umount2(const char *dst, int flags)
{
	FP_ROOTED(FP_RCALL(umount2, dst, flags));
}

FP_EXPORT int setns(int fd, int type)
{
	FP_ROOTED(FP_RCALL(setns, fd, type));
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

/* A change of what one thread may open (its file-system ids, its
 * capabilities, a seccomp filter, a Landlock ruleset: each the calling
 * thread's alone), or one made by a raw system call: what a mitigation
 * shares between threads through a path ends for the process (the urandom
 * pool ends pooling), since another thread would fill it again with an
 * access this one no longer has (review 54).  Before a sandbox, whose
 * filter may refuse, or kill for, any call of ours after it; after the
 * others, only where something changed. */
static void fp_roots_seal(void)
{
	int e = errno;
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->sealing)
			fp_mitigations[i]->sealing();
	errno = e;
}

/* Who the process is (the C library makes each change in every thread):
 * the hooks where the call succeeded and the ids it sets changed. */
#define FP_IDS_CALL(get, call)                                               \
	do {                                                                 \
		uid_t a_[3], b_[3];                                          \
		int r_, e_;                                                  \
		if (get(&a_[0], &a_[1], &a_[2]) != 0)                        \
			a_[0] = a_[1] = a_[2] = (uid_t)-1;                   \
		r_ = (call);                                                 \
		e_ = errno;                                                  \
		if (r_ == 0 && (get(&b_[0], &b_[1], &b_[2]) != 0 ||          \
		                memcmp(a_, b_, sizeof a_) != 0))             \
			fp_rooted();                                         \
		errno = e_;                                                  \
		return r_;                                                   \
	} while (0)
#define FP_UIDS(call) FP_IDS_CALL(getresuid, call)
#define FP_GIDS(call) FP_IDS_CALL(fp_getresgid, call)

_Static_assert(sizeof(uid_t) == sizeof(gid_t), "one array for both");
static int fp_getresgid(uid_t *r, uid_t *e, uid_t *s)
{
	return getresgid((gid_t *)r, (gid_t *)e, (gid_t *)s);
}

FP_EXPORT int setuid(uid_t uid)
{
	FP_UIDS(FP_RCALL(setuid, uid));
}

FP_EXPORT int setgid(gid_t gid)
{
	FP_GIDS(FP_RCALL(setgid, gid));
}

FP_EXPORT int seteuid(uid_t uid)
{
	FP_UIDS(FP_RCALL(seteuid, uid));
}

FP_EXPORT int setegid(gid_t gid)
{
	FP_GIDS(FP_RCALL(setegid, gid));
}

FP_EXPORT int setreuid(uid_t r, uid_t e)
{
	FP_UIDS(FP_RCALL(setreuid, r, e));
}

FP_EXPORT int setregid(gid_t r, gid_t e)
{
	FP_GIDS(FP_RCALL(setregid, r, e));
}

FP_EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	FP_UIDS(FP_RCALL(setresuid, r, e, s));
}

FP_EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	FP_GIDS(FP_RCALL(setresgid, r, e, s));
}

/* A list the hooks cannot cheaply compare: after every success. */
FP_EXPORT int setgroups(size_t n, const gid_t *list)
{
	int r = FP_RCALL(setgroups, n, list), e = errno;

	if (r == 0)
		fp_rooted();
	errno = e;
	return r;
}

/* The calling thread's alone.  Each answers the id before, success or
 * not; -1 (no id) changes nothing and answers the one now. */
FP_EXPORT int setfsuid(uid_t uid)
{
	int r = FP_RCALL(setfsuid, uid), e = errno;

	if (uid != (uid_t)-1 && fp_real_roots.r_setfsuid.f &&
	    (uid_t)fp_real_roots.r_setfsuid.f((uid_t)-1) != (uid_t)r)
		fp_roots_seal();
	errno = e;
	return r;
}

FP_EXPORT int setfsgid(gid_t gid)
{
	int r = FP_RCALL(setfsgid, gid), e = errno;

	if (gid != (gid_t)-1 && fp_real_roots.r_setfsgid.f &&
	    (gid_t)fp_real_roots.r_setfsgid.f((gid_t)-1) != (gid_t)r)
		fp_roots_seal();
	errno = e;
	return r;
}

FP_EXPORT int capset(struct __user_cap_header_struct *h, const struct __user_cap_data_struct *d)
{
	int r = FP_RCALL(capset, h, d), e = errno;

	if (r == 0)
		fp_roots_seal();
	errno = e;
	return r;
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
	if (fp_unlikely(option == PR_SET_SECCOMP))
		fp_roots_seal();
	return FP_RCALL(prctl, option, a, b, c, d);
}

/* What syscall() (urandom_survey.c) leaves to fp_roots_call: 0 nothing;
 * FP_ROOTS_ROOT a change of root, mounts or namespaces, the hooks after
 * it; FP_ROOTS_THREAD a change of ids or capabilities, made for the
 * calling thread alone, sealed after a success; FP_ROOTS_SANDBOX sealed
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
		return FP_ROOTS_THREAD;
#ifdef SYS_landlock_restrict_self
	case SYS_landlock_restrict_self:
		return FP_ROOTS_SANDBOX;
#endif
#ifdef SYS_prctl
	case SYS_prctl:
		return a == PR_SET_SECCOMP ? FP_ROOTS_SANDBOX : 0;
#endif
#ifdef SYS_seccomp
	case SYS_seccomp:
		return a == SECCOMP_SET_MODE_STRICT || a == SECCOMP_SET_MODE_FILTER ? FP_ROOTS_SANDBOX : 0;
#endif
	default:
		return 0;
	}
}

/* As the functions above, for a kind fp_roots_nr gave: the unsharing
 * hooks first for unshare, errno the call's. */
long fp_roots_call(int kind, long (*real)(long, ...), long nr, long a, long b, long c, long d,
                   long e, long f)
{
	long r;
	int err;

	if (kind == FP_ROOTS_SANDBOX)
		fp_roots_seal();
#ifdef SYS_unshare
	if (nr == SYS_unshare)
		fp_roots_unsharing((int)a);
#endif
	r = real(nr, a, b, c, d, e, f);
	err = errno;
	if (kind == FP_ROOTS_ROOT)
		fp_rooted();
	else if (kind == FP_ROOTS_THREAD && r == 0)
		fp_roots_seal();
	errno = err;
	return r;
}
#endif /* FP_LINUX */
