/* SPDX-License-Identifier: MIT */
/*
 * cpus_compat.c: the C library's other names for the calls on the
 * machine's directories that cpus_fd.c wraps (a cold review: each answered
 * for the real machine, so a program disagreed with itself about cpuK):
 *
 *   __realpath_chk          realpath built with -D_FORTIFY_SOURCE (glibc)
 *   canonicalize_file_name  realpath(path, NULL) (glibc)
 *   __xstat, __lxstat,      stat, lstat and fstatat in programs built
 *   __fxstatat and their    against glibc before 2.33 (GNU make 4.3's
 *   64-bit twins            $(wildcard) listed cpu3 that its stat missed)
 *   euidaccess, eaccess     access with the effective ids
 *   readdir_r, readdir64_r  readdir into the caller's entry: the listing
 *                           readdir gives, the stream's position shared
 *
 * Each is the path wrappers' logic (cf_named, cf_at, cf_realpath, the
 * listings: cpus_fd.c) over the C library's own function, bound in rows
 * of this unit (cpus_compat_bind, called with the cpus descriptor's
 * binding).  With the cap off, one branch.  Linux only, as the
 * directories are; the glibc names where glibc has them.
 */
#include "fastpath.h"
#include "cpus.h"

#undef FP_OWN_BIT
#define FP_OWN_BIT FP_BIT(cpus) /* its rows are in cc_syms */

#ifdef FP_LINUX
FP_REAL_OWN(int, euidaccess, (const char *path, int how), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, eaccess, (const char *path, int how), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
/* readdir_r reports an error by its value. */
FP_REAL_OWN(int, readdir_r, // NOLINT(misc-unused-parameters)
            (DIR *d, struct dirent *ent, struct dirent **res), FP_NR_RET(ENOSYS));
#ifdef FP_HAVE_GLIBC_CHK
FP_REAL_OWN(char *, __realpath_chk, // NOLINT(misc-unused-parameters)
            (const char *path, char *out, size_t outlen), FP_NR_FAIL(NULL));
#endif
#ifdef __GLIBC__
FP_REAL_OWN(char *, canonicalize_file_name, (const char *path), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
#endif
/* What glibc's headers no longer declare (2.33): the stat version first. */
#ifdef FP_HAVE_LFS64
FP_REAL_OWN(int, __xstat, (int ver, const char *path, struct stat *st), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, __lxstat, (int ver, const char *path, struct stat *st), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, __fxstatat, // NOLINT(misc-unused-parameters)
            (int ver, int dirfd, const char *path, struct stat *st, int flags), FP_NR_FAIL(-1));
FP_REAL_OWN(int, __xstat64, // NOLINT(misc-unused-parameters)
            (int ver, const char *path, struct stat64 *st), FP_NR_FAIL(-1));
FP_REAL_OWN(int, __lxstat64, // NOLINT(misc-unused-parameters)
            (int ver, const char *path, struct stat64 *st), FP_NR_FAIL(-1));
FP_REAL_OWN(int, __fxstatat64, // NOLINT(misc-unused-parameters)
            (int ver, int dirfd, const char *path, struct stat64 *st, int flags), FP_NR_FAIL(-1));
FP_REAL_OWN(int, readdir64_r, // NOLINT(misc-unused-parameters)
            (DIR *d, struct dirent64 *ent, struct dirent64 **res), FP_NR_RET(ENOSYS));
#endif

static const struct fp_sym cc_syms[] = {
	FP_SYM(euidaccess),
	FP_SYM(eaccess),
	FP_SYM(readdir_r),
#ifdef FP_HAVE_GLIBC_CHK
	FP_SYM(__realpath_chk),
#endif
#ifdef __GLIBC__
	FP_SYM(canonicalize_file_name),
#endif
#ifdef FP_HAVE_LFS64
	FP_SYM(__xstat),
	FP_SYM(__lxstat),
	FP_SYM(__fxstatat),
	FP_SYM(__xstat64),
	FP_SYM(__lxstat64),
	FP_SYM(__fxstatat64),
	FP_SYM(readdir64_r),
#endif
};

/* This unit's rows, bound with the cpus descriptor's own (cpus_bind) as
 * the core binds a descriptor's .syms (bind.c, fp_bind_syms). */
FP_STARTUP_TEXT void cpus_compat_bind(fp_lookup_fn look, void *w)
{
	size_t k;

	for (k = 0; k < sizeof cc_syms / sizeof cc_syms[0]; k++) {
		FP_ANN_BOUND(cc_syms[k].slot, sizeof *cc_syms[k].slot);
		__atomic_store_n(cc_syms[k].slot, look(w, cc_syms[k].name), __ATOMIC_RELAXED);
	}
}

/* ------------------------------------------------------------------------
 * The names of access and of the stat family: as cpus_fd.c's access,
 * stat and fstatat (a cpuK with K >= N is ENOENT, a cpuK below N is asked
 * of the real CPU it runs on).
 * ---------------------------------------------------------------------- */
#define CPUS_WRAP_ACCESS(name)                                               \
	FP_EXPORT int name(const char *path, int how)                        \
	{                                                                    \
		struct cf_vpath vp;                                          \
		const char *use = path;                                      \
                                                                             \
		if (CF_GONE(path, use, vp))                                  \
			return -1;                                           \
		return FP_OWN(name)(use, how);                               \
	}

CPUS_WRAP_ACCESS(euidaccess)
CPUS_WRAP_ACCESS(eaccess)

#ifdef FP_HAVE_LFS64
#define CPUS_WRAP_XSTAT(name, st_type)                                       \
	FP_EXPORT int name(int ver, const char *path, st_type *st)           \
	{                                                                    \
		struct cf_vpath vp;                                          \
		const char *use = path;                                      \
                                                                             \
		if (CF_GONE(path, use, vp))                                  \
			return -1;                                           \
		return FP_OWN(name)(ver, use, st);                           \
	}
#define CPUS_WRAP_FXSTATAT(name, st_type)                                    \
	FP_EXPORT int name(int ver, int dirfd, const char *path, st_type *st, int flags) \
	{                                                                    \
		struct cf_vpath vp;                                          \
		const char *use = path;                                      \
		int dfd = dirfd;                                             \
                                                                             \
		if (CF_GONE_AT(dfd, path, use, vp))                          \
			return -1;                                           \
		return FP_OWN(name)(ver, dfd, use, st, flags);               \
	}

CPUS_WRAP_XSTAT(__xstat, struct stat)
CPUS_WRAP_XSTAT(__lxstat, struct stat)
CPUS_WRAP_FXSTATAT(__fxstatat, struct stat)
CPUS_WRAP_XSTAT(__xstat64, struct stat64)
CPUS_WRAP_XSTAT(__lxstat64, struct stat64)
CPUS_WRAP_FXSTATAT(__fxstatat64, struct stat64)
#endif

/* ------------------------------------------------------------------------
 * The names of realpath: its answer for a cpuK path is cf_realpath's.
 * ---------------------------------------------------------------------- */
#ifdef FP_HAVE_GLIBC_CHK
/* A buffer said to be shorter than PATH_MAX is glibc's to abort on
 * (__chk_fail), as it would. */
FP_EXPORT char *__realpath_chk(const char *path, char *out, size_t outlen)
{
	if (fp_likely(!fp_enabled(FP_BIT(cpus))) || outlen < PATH_MAX || !cf_maybe(AT_FDCWD, path))
		return FP_OWN(__realpath_chk)(path, out, outlen);
	return cf_realpath(path, out);
}
#endif

#ifdef __GLIBC__
FP_EXPORT char *canonicalize_file_name(const char *path)
{
	if (fp_likely(!fp_enabled(FP_BIT(cpus))) || !cf_maybe(AT_FDCWD, path))
		return FP_OWN(canonicalize_file_name)(path);
	return cf_realpath(path, NULL);
}
#endif

/* ------------------------------------------------------------------------
 * readdir_r and readdir64_r of a listing of ours: readdir's entries (the
 * real cpuK skipped, the virtual ones after the others), written into the
 * caller's entry; its virtual entries are the stream's, shared with
 * readdir.  Any other stream: one branch while no listing is taken.
 * ---------------------------------------------------------------------- */
#define CPUS_WRAP_READDIR_R(name, ent_type)                                  \
	FP_EXPORT int name(DIR *d, ent_type *ent, ent_type **res)            \
	{                                                                    \
		struct cf_list *l = cf_list_of(d);                           \
		ino_t ino;                                                   \
		int rc;                                                      \
                                                                             \
		if (fp_likely(!l))                                           \
			return FP_OWN(name)(d, ent, res);                    \
		while ((rc = FP_OWN(name)(d, ent, res)) == 0 && *res &&     \
		       cf_is_cpu((*res)->d_name))                            \
			;                                                    \
		if (rc != 0 || *res)                                         \
			return rc;                                           \
		if (!cf_list_next(l, d, ent->d_name, sizeof ent->d_name, &ino, &ent->d_type)) \
			return 0;                                            \
		ent->d_ino = ino;                                            \
		ent->d_off = 0;                                              \
		ent->d_reclen = (unsigned short)((offsetof(ent_type, d_name) + \
		                                  strlen(ent->d_name) + 8) & ~7u); \
		*res = ent;                                                  \
		return 0;                                                    \
	}

CPUS_WRAP_READDIR_R(readdir_r, struct dirent)
#ifdef FP_HAVE_LFS64
CPUS_WRAP_READDIR_R(readdir64_r, struct dirent64)
#endif
#endif /* FP_LINUX */
