/* SPDX-License-Identifier: MIT */
/*
 * cpus_fd.c: what a program does with a CPU file besides open it (issue
 * 28): fopen/fopen64 of one (glibc's fopen opens through an internal call
 * the open wrappers never see), and lseek/mmap of the descriptors
 * cpus_serve.c served, answered as procfs and sysfs answer them.
 * Linux only, as the files are.
 */
#include "fastpath.h"
#include "cpus.h"

#undef FP_OWN_BIT
#define FP_OWN_BIT FP_BIT(cpus) /* its rows are in cpus_syms */

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * fopen and fopen64, for our files only.  glibc's fopen opens through an
 * internal call the open wrappers never see.  The stream is a plain one
 * over the descriptor we made, which nothing else tracks: stdio may read,
 * seek and close it as it likes.  Every other fopen is the real one.
 * ---------------------------------------------------------------------- */
/* Called during our own binding, a stream cannot be made: NULL with ENOSYS,
 * as for a function the C library lacks (fastpath.h, "Not ready yet"). */
FP_REAL_OWN(FILE *, fopen, (const char *path, const char *how), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
#ifdef FP_HAVE_LFS64
FP_REAL_OWN(FILE *, fopen64, (const char *path, const char *how), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
#endif

/* The calls that name a path of the machine's directories without opening
 * it, and the listings (their wrappers: below). */
FP_REAL_OWN(DIR *, opendir, (const char *path), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
FP_REAL_OWN(DIR *, fdopendir, (int fd), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
FP_REAL_OWN(struct dirent *, readdir, (DIR *d), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
FP_REAL_OWN(int, closedir, (DIR *d), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(void, rewinddir, (DIR *d), ); // NOLINT(misc-unused-parameters)
FP_REAL_OWN(char *, realpath, (const char *path, char *out), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
FP_REAL_OWN(int, stat, (const char *path, struct stat *st), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, lstat, (const char *path, struct stat *st), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, fstatat, // NOLINT(misc-unused-parameters)
            (int dirfd, const char *path, struct stat *st, int flags), FP_NR_FAIL(-1));
FP_REAL_OWN(int, access, (const char *path, int how), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
#ifdef CPUS_HAVE_STATX
FP_REAL_OWN(int, statx, // NOLINT(misc-unused-parameters)
            (int dirfd, const char *path, int flags, unsigned mask, struct statx *st),
            FP_NR_FAIL(-1));
#endif
FP_REAL_OWN(int, faccessat, // NOLINT(misc-unused-parameters)
            (int dirfd, const char *path, int how, int flags), FP_NR_FAIL(-1));
/* The stream seeks: glibc's reach the kernel through internal calls. */
FP_REAL_OWN(void, rewind, (FILE *f), ); // NOLINT(misc-unused-parameters)
FP_REAL_OWN(int, fseek, (FILE *f, long off, int whence), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, fseeko, (FILE *f, off_t off, int whence), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, fsetpos, (FILE *f, const fpos_t *pos), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
#ifdef FP_HAVE_LFS64
FP_REAL_OWN(int, fseeko64, (FILE *f, off64_t off, int whence), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, fsetpos64, (FILE *f, const fpos64_t *pos), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(struct dirent64 *, readdir64, (DIR *d), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(NULL));
FP_REAL_OWN(int, stat64, (const char *path, struct stat64 *st), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, lstat64, (const char *path, struct stat64 *st), // NOLINT(misc-unused-parameters)
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, fstatat64, // NOLINT(misc-unused-parameters)
            (int dirfd, const char *path, struct stat64 *st, int flags), FP_NR_FAIL(-1));
#endif

const struct fp_sym cpus_syms[CPUS_NSYMS] = {
	FP_SYM(fopen),
	FP_SYM(opendir),
	FP_SYM(fdopendir),
	FP_SYM(readdir),
	FP_SYM(closedir),
	FP_SYM(rewinddir),
	FP_SYM(realpath),
	FP_SYM(stat),
	FP_SYM(lstat),
	FP_SYM(fstatat),
	FP_SYM(access),
	FP_SYM(faccessat),
	FP_SYM(rewind),
	FP_SYM(fseek),
	FP_SYM(fseeko),
	FP_SYM(fsetpos),
#ifdef CPUS_HAVE_STATX
	FP_SYM(statx),
#endif
#ifdef FP_HAVE_LFS64
	FP_SYM(fseeko64),
	FP_SYM(fsetpos64),
	FP_SYM(fopen64),
	FP_SYM(readdir64),
	FP_SYM(stat64),
	FP_SYM(lstat64),
	FP_SYM(fstatat64),
#endif
};

/* "r", "rb", "re", "rm"... (glibc and musl flags): a read-only stream. */
static bool cf_fopen_flags(const char *mode, int *flags)
{
	const char *p;

	if (!mode || mode[0] != 'r')
		return false;
	*flags = O_RDONLY;
	for (p = mode + 1; *p; p++) {
		if (*p == '+' || *p == ',')
			return false;
		if (*p == 'e')
			*flags |= O_CLOEXEC;
	}
	return true;
}

/* One of our files as a stream, or NULL and errno; false when the call is
 * not ours (the cap unset, a mode that is not read-only, another path). */
static bool cf_fopen(const char *path, const char *mode, FILE **out)
{
	int flags, fd;

	if (fp_unlikely(fp_surveying()) && !fp_enabled(FP_BIT(cpus)) &&
	    cf_fopen_flags(mode, &flags))
		fp_cpus_sv_file(AT_FDCWD, path, flags);
	if (fp_likely(!fp_enabled(FP_BIT(cpus))) || !cf_fopen_flags(mode, &flags) ||
	    !fp_cpus_open(AT_FDCWD, path, flags, &fd))
		return false;
	*out = fd < 0 ? NULL : CPUS_REAL(fdopen)(fd, "r");
	if (fd >= 0 && !*out) {
		int err = errno;

		fp_raw_close(fd);
		errno = err;
	}
	return true;
}

/* fopen and fopen64, written once. */
#define CPUS_WRAP_FOPEN(name)                                                \
	FP_EXPORT FILE *name(const char *path, const char *mode)             \
	{                                                                    \
		FILE *f;                                                     \
                                                                             \
		if (cf_fopen(path, mode, &f))                                \
			return f;                                            \
		return FP_OWN(name)(path, mode);                             \
	}

CPUS_WRAP_FOPEN(fopen)
FP_ALIAS(_IO_fopen, fopen);
#ifdef FP_HAVE_LFS64
CPUS_WRAP_FOPEN(fopen64)
#endif

/* ------------------------------------------------------------------------
 * The machine's directories, named without an open (issue 37): stat,
 * lstat, fstatat, access, faccessat and realpath of a cpuK (or a path in
 * it) are asked of the real CPU it runs on (fp_cpus_vpath), a cpuK with
 * K >= N is ENOENT; realpath's answer names cpuK again.  With the cap off,
 * one branch; on, a path outside /sys/devices/system/ and /proc/ pays
 * a prefix test (cf_maybe; a relative one: a load, until a directory of
 * ours is noted).  cpus_compat.c's other names of these calls share
 * cf_named, cf_at and cf_realpath.
 * ---------------------------------------------------------------------- */
/* CF_V_REAL: *use is the path to ask the kernel about; CF_V_GONE: errno
 * ENOENT.  A node's or status file's is its own path (stat and access of
 * those are the kernel's). */
enum cf_vis cf_named(int dirfd, const char *path, struct cf_vpath *vp, const char **use)
{
	enum cf_vis vis = fp_cpus_vpath(dirfd, path, vp);

	if (vis == CF_V_REAL && vp->v < 0)
		vis = CF_V_NATIVE;
	if (vis == CF_V_GONE)
		errno = ENOENT;
	if (vis == CF_V_REAL)
		*use = vp->real;
	return vis;
}

#define CPUS_WRAP_STAT(name, st_type)                                        \
	FP_EXPORT int name(const char *path, st_type *st)                    \
	{                                                                    \
		struct cf_vpath vp;                                          \
		const char *use = path;                                      \
                                                                             \
		if (CF_GONE(path, use, vp))                                  \
			return -1;                                           \
		return FP_OWN(name)(use, st);                                \
	}
/* The name a *at call asks under the cap: the real CPU's (then from
 * AT_FDCWD), or path itself; -1 (errno set) for a cpuK the machine lacks. */
int cf_at(int *dirfd, const char *path, struct cf_vpath *vp, const char **use)
{
	switch (cf_named(*dirfd, path, vp, use)) {
	case CF_V_GONE:
		return -1;
	case CF_V_REAL:
		*dirfd = AT_FDCWD;
		break;
	case CF_V_NATIVE:
		*use = path;
		break;
	}
	return 0;
}

#define CPUS_WRAP_FSTATAT(name, st_type)                                     \
	FP_EXPORT int name(int dirfd, const char *path, st_type *st, int flags) \
	{                                                                    \
		struct cf_vpath vp;                                          \
		const char *use = path;                                      \
		int dfd = dirfd;                                             \
                                                                             \
		if (CF_GONE_AT(dfd, path, use, vp))                          \
			return -1;                                           \
		return FP_OWN(name)(dfd, use, st, flags);                    \
	}

CPUS_WRAP_STAT(stat, struct stat)
CPUS_WRAP_STAT(lstat, struct stat)
CPUS_WRAP_FSTATAT(fstatat, struct stat)
#ifdef FP_HAVE_LFS64
CPUS_WRAP_STAT(stat64, struct stat64)
CPUS_WRAP_STAT(lstat64, struct stat64)
CPUS_WRAP_FSTATAT(fstatat64, struct stat64)
#endif

#ifdef CPUS_HAVE_STATX
/* ls and stat(1) ask statx. */
FP_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	struct cf_vpath vp;
	const char *use = path;

	if (CF_GONE_AT(dirfd, path, use, vp))
		return -1;
	return FP_OWN(statx)(dirfd, use, flags, mask, st);
}
#endif

FP_EXPORT int access(const char *path, int how)
{
	struct cf_vpath vp;
	const char *use = path;

	if (CF_GONE(path, use, vp))
		return -1;
	return FP_OWN(access)(use, how);
}

FP_EXPORT int faccessat(int dirfd, const char *path, int how, int flags)
{
	struct cf_vpath vp;
	const char *use = path;

	if (CF_GONE_AT(dirfd, path, use, vp))
		return -1;
	return FP_OWN(faccessat)(dirfd, use, how, flags);
}

FP_EXPORT char *realpath(const char *path, char *out)
{
	if (fp_likely(!fp_enabled(FP_BIT(cpus))) || !cf_maybe(AT_FDCWD, path))
		return FP_OWN(realpath)(path, out);
	return cf_realpath(path, out);
}

/* realpath of a cpuK path: the real CPU's, with its cpu directory's name
 * (the first /sys/devices/system/cpu/cpuR of the answer: a node's cpuK
 * link resolves there) said as cpuK. */
char *cf_realpath(const char *path, char *out)
{
	static const char cpudir[] = "/sys/devices/system/cpu/cpu";
	struct cf_vpath vp;
	const char *use = path, *e;
	char num[24], *got, *r;
	struct fp_buf b = { num, 0, sizeof num };
	size_t head = sizeof cpudir - 1, n, len;
	long rc;

	switch (cf_named(AT_FDCWD, path, &vp, &use)) {
	case CF_V_GONE:
		return NULL;
	case CF_V_NATIVE:
		return FP_OWN(realpath)(path, out);
	case CF_V_REAL:
		break;
	}
	/* The answer is made in the caller's PATH_MAX bytes, or in the C
	 * library's allocation (out NULL), never in a PATH_MAX frame of ours
	 * (t_stack: a wrapper may run on a 16 KiB thread stack). */
	if (!(got = FP_OWN(realpath)(use, out)))
		return NULL;
	fp_buf_long(&b, vp.v);
	if (strncmp(got, cpudir, head) == 0 && (e = got + head) && *e >= '0' && *e <= '9') {
		for (rc = 0; *e >= '0' && *e <= '9'; e++)
			rc = rc * 10 + (*e - '0');
		n = strlen(e);
		len = head + b.len + n;
		if (rc == vp.rc && (*e == '/' || !*e)) {
			if (len >= PATH_MAX) {
				if (!out)
					free(got);
				errno = ENAMETOOLONG;
				return NULL;
			}
			if (!out && len > (size_t)(e - got) + n) {
				size_t at = (size_t)(e - got);

				if (!(r = realloc(got, len + 1))) {
					free(got);
					errno = ENOMEM;
					return NULL;
				}
				got = r;
				e = got + at;
			}
			memmove(got + head + b.len, e, n + 1);
			memcpy(got + head, num, b.len);
		}
	}
	return got;
}

/* ------------------------------------------------------------------------
 * Listings (issue 37): readdir of the cpu directory and of a node's,
 * opened by opendir (the C library opens it by an internal call) or by
 * fdopendir of a descriptor noted as the cpu directory, lists cpu0 to
 * cpu<N-1> and none of the real cpuK: the real entries are skipped, and
 * the virtual ones come after the last of the others, each with the inode
 * of the real CPU's entry it is (as stat says).  A listing in a slot of
 * its own; with none taken (the cap off, the identity map) every readdir
 * pays one branch.  More than CF_NLISTS at once: the kernel's listing.
 * ---------------------------------------------------------------------- */
#define CF_NLISTS 8
static struct cf_list {
	_Atomic(DIR *) dir;
	int kind;  /* fp_cpus_listing's */
	_Atomic long next; /* the next virtual CPU to list, claimed whole */
	struct dirent ent;
#ifdef FP_HAVE_LFS64
	struct dirent64 ent64;
#endif
} cf_lists[CF_NLISTS];
static _Atomic int cf_nlists;

static void cf_list_add(DIR *d, int kind)
{
	for (int i = 0; d && kind && i < CF_NLISTS; i++) {
		DIR *none = NULL;

		if (atomic_compare_exchange_strong(&cf_lists[i].dir, &none, d)) {
			cf_lists[i].kind = kind;
			cf_lists[i].next = 0;
			atomic_fetch_add(&cf_nlists, 1);
			return;
		}
	}
}

struct cf_list *cf_list_of(const DIR *d)
{
	if (fp_likely(atomic_load_explicit(&cf_nlists, memory_order_relaxed) == 0) || !d)
		return NULL;
	for (int i = 0; i < CF_NLISTS; i++)
		if (atomic_load_explicit(&cf_lists[i].dir, memory_order_acquire) == d)
			return &cf_lists[i];
	return NULL;
}

/* "cpu" and a number: a real CPU's entry, which the listing skips. */
bool cf_is_cpu(const char *name)
{
	if (strncmp(name, "cpu", 3) != 0 || !name[3])
		return false;
	for (name += 3; *name; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

/* The next virtual entry of l, into *name, *ino and *type; false at the
 * end. */
bool cf_list_next(struct cf_list *l, DIR *d, char *name, size_t cap, ino_t *ino,
                  unsigned char *type)
{
	struct cpus_map m;
	struct fp_buf b = { name, 0, cap };
	char real[24];
	struct fp_buf rb = { real, 0, sizeof real };
	struct stat st = { 0 };
	long k;

	fp_cpus_map(&m);
	/* Threads sharing a stream (readdir_r's promise) each get another
	 * (a cold review: one listed twice, another never). */
	if (atomic_load(&l->next) >= m.n || (k = atomic_fetch_add(&l->next, 1)) >= m.n)
		return false;
	fp_buf_str(&b, "cpu");
	fp_buf_long(&b, k);
	fp_buf_str(&rb, "cpu");
	fp_buf_long(&rb, fp_cpus_real_of(&m, k % m.r));
	*type = l->kind == 1 ? DT_DIR : DT_LNK;
	*ino = fp_fstatat(dirfd(d), real, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_ino : 1;
	return true;
}

#define CPUS_WRAP_READDIR(name, ent_type, field)                             \
	FP_EXPORT ent_type *name(DIR *d)                                     \
	{                                                                    \
		struct cf_list *l = cf_list_of(d);                           \
		ent_type *e;                                                 \
		ino_t ino;                                                   \
		int saved;                                                   \
                                                                             \
		if (fp_likely(!l))                                           \
			return FP_OWN(name)(d);                              \
		saved = errno;                                               \
		while ((e = FP_OWN(name)(d)) != NULL && cf_is_cpu(e->d_name)) \
			;                                                    \
		if (e || errno != saved)                                     \
			return e;                                            \
		e = &l->field;                                               \
		if (!cf_list_next(l, d, e->d_name, sizeof e->d_name, &ino, &e->d_type)) \
			return NULL;                                         \
		e->d_ino = ino;                                              \
		e->d_off = 0;                                                \
		e->d_reclen = (unsigned short)((offsetof(ent_type, d_name) + \
		                                strlen(e->d_name) + 8) & ~7u); \
		return e;                                                    \
	}

CPUS_WRAP_READDIR(readdir, struct dirent, ent)
#ifdef FP_HAVE_LFS64
CPUS_WRAP_READDIR(readdir64, struct dirent64, ent64)
#endif

FP_EXPORT DIR *opendir(const char *path)
{
	struct cf_vpath vp;
	const char *use = path;
	DIR *d;

	if (fp_likely(!fp_enabled(FP_BIT(cpus))) || !cf_maybe(AT_FDCWD, path))
		return FP_OWN(opendir)(path);
	if (cf_named(AT_FDCWD, path, &vp, &use) == CF_V_GONE)
		return NULL;
	d = FP_OWN(opendir)(use);
	if (d && use == path)
		cf_list_add(d, fp_cpus_listing(AT_FDCWD, path));
	return d;
}

FP_EXPORT DIR *fdopendir(int fd)
{
	DIR *d = FP_OWN(fdopendir)(fd);

	if (fp_unlikely(fp_enabled(FP_BIT(cpus))) && d)
		cf_list_add(d, fp_cpus_listing(fd, NULL));
	return d;
}

FP_EXPORT void rewinddir(DIR *d)
{
	struct cf_list *l = cf_list_of(d);

	if (fp_unlikely(l != NULL))
		l->next = 0;
	FP_OWN(rewinddir)(d);
}

FP_EXPORT int closedir(DIR *d)
{
	struct cf_list *l = cf_list_of(d);

	if (fp_unlikely(l != NULL)) {
		atomic_store_explicit(&l->dir, NULL, memory_order_release);
		atomic_fetch_sub(&cf_nlists, 1);
	}
	return FP_OWN(closedir)(d);
}

/* ------------------------------------------------------------------------
 * lseek and mmap on the descriptors we served, as procfs and sysfs answer
 * them (the copy is a regular file, which would seek to its end and map):
 *
 *   procfs (cpuinfo, stat)  SEEK_END, SEEK_DATA, SEEK_HOLE: EINVAL; mmap: EIO
 *   a process's (status)    the same seeks; mmap: ENODEV (no proc_ops: a
 *                           cold review)
 *   sysfs (the cpu dir)     a file of 4096 bytes to seek in; mmap: ENODEV
 *
 * A served descriptor below CF_NSERVED is noted with its file's identity,
 * checked by fstat when used (the number may have been closed and reused);
 * a duplicate of it is a plain regular file.  Until the first one is
 * served, every lseek and mmap pays one branch.
 * ---------------------------------------------------------------------- */
#define CF_NSERVED 1024
#define CF_SYSFS_SIZE 4096 /* what sysfs says of every attribute file */
enum { CF_AS_NONE, CF_AS_PROCFS, CF_AS_SYSFS, CF_AS_PROCPID };
static struct {
	_Atomic unsigned long ino; /* 0: not served */
	dev_t dev;
	unsigned char as, kind;
	_Atomic long again; /* the pid of a process making it again, or 0 */
} cf_served[CF_NSERVED];
static _Atomic bool cf_any_served;

void fp_cpus_served(int fd, const struct cf_what *w)
{
	struct stat st;

	if (fd < 0 || fd >= CF_NSERVED || fp_fstat(fd, &st) != 0)
		return;
	atomic_store_explicit(&cf_served[fd].ino, 0, memory_order_relaxed);
	cf_served[fd].dev = st.st_dev;
	cf_served[fd].as = w->sysfs ? CF_AS_SYSFS : w->kind == CF_STATUS ? CF_AS_PROCPID : CF_AS_PROCFS;
	cf_served[fd].kind = (unsigned char)w->kind;
	atomic_store_explicit(&cf_served[fd].again, 0, memory_order_relaxed);
	atomic_store_explicit(&cf_served[fd].ino, (unsigned long)st.st_ino, memory_order_release);
	atomic_store_explicit(&cf_any_served, true, memory_order_relaxed);
}

/* A /proc/stat or /proc/cpuinfo copy made again (sysfs's do not move; a
 * status's SigBlk would show the hold), every signal held: a siglongjmp
 * strands nothing (a cold review: 1018 descriptors left).  Not by two
 * threads at once, none waiting; a fork child's mark is its parent's pid. */
static void cf_again(int fd, int as)
{
	long me, was;
	int saved = errno;
	sigset_t old;

	if (as != CF_AS_PROCFS)
		return;
	me = (long)getpid();
	fp_hold_all(&old);
	was = atomic_load(&cf_served[fd].again);
	if (was != me && atomic_compare_exchange_strong(&cf_served[fd].again, &was, me)) {
		cf_refresh(fd, (enum cf_kind)cf_served[fd].kind);
		atomic_store(&cf_served[fd].again, 0);
	}
	fp_unhold(&old);
	errno = saved; /* a non-root reopen's EACCES (a cold review) */
}

static int cf_served_as(int fd)
{
	unsigned long ino;
	struct stat st;
	int saved, as = CF_AS_NONE;

	if (fp_likely(!atomic_load_explicit(&cf_any_served, memory_order_relaxed)) || fd < 0 ||
	    fd >= CF_NSERVED || !(ino = atomic_load_explicit(&cf_served[fd].ino, memory_order_acquire)))
		return CF_AS_NONE;
	saved = errno;
	if (fp_fstat(fd, &st) == 0 && st.st_ino == ino && st.st_dev == cf_served[fd].dev)
		as = cf_served[fd].as;
	else
		(void)atomic_compare_exchange_strong(&cf_served[fd].ino, &ino, 0);
	errno = saved;
	return as;
}

/* Where a seek on a served descriptor goes: false with errno when the file
 * system would refuse it, else *off and *whence for the real call. */
static bool cf_seek(int as, long long *off, int *whence)
{
	long long o = *off;

	if (*whence == SEEK_SET || *whence == SEEK_CUR)
		return true;
	if (as != CF_AS_SYSFS && (*whence == SEEK_END || *whence == SEEK_DATA || *whence == SEEK_HOLE)) {
		errno = EINVAL;
		return false;
	}
	if (*whence == SEEK_END) {
		*off = o + CF_SYSFS_SIZE;
	} else if (*whence == SEEK_DATA || *whence == SEEK_HOLE) {
		if (o < 0 || o >= CF_SYSFS_SIZE) {
			errno = ENXIO;
			return false;
		}
		*off = *whence == SEEK_DATA ? o : CF_SYSFS_SIZE;
	} else {
		return true; /* not a whence we know: the kernel's EINVAL */
	}
	*whence = SEEK_SET;
	return true;
}

/* mmap and mmap64, written once. */
#define CPUS_WRAP_MMAP(name, off_type)                                       \
	FP_EXPORT void *name(void *a, size_t len, int prot, int flags, int fd, off_type off) \
	{                                                                    \
		int as = (flags & MAP_ANONYMOUS) ? CF_AS_NONE : cf_served_as(fd); \
                                                                             \
		if (fp_likely(as == CF_AS_NONE) || len == 0)                \
			return CPUS_REAL(name)(a, len, prot, flags, fd, off);  \
		errno = as == CF_AS_PROCFS ? EIO : ENODEV;                   \
		return MAP_FAILED;                                           \
	}

/* A seek to where the text was not read to (procfs's seq_lseek: not the
 * position already reached) makes it again, as does any read from 0. */
bool fp_cpus_seek(int fd, long long *off, int *whence)
{
	int as = cf_served_as(fd);

	if (fp_likely(as == CF_AS_NONE) || !cf_seek(as, off, whence))
		return as == CF_AS_NONE;
	if (as == CF_AS_PROCFS && (*whence == SEEK_SET ? *off >= 0 : *off != 0)) {
		int saved = errno;
		long long at = (long long)syscall(SYS_lseek, fd, 0L, SEEK_CUR);

		errno = saved;
		if (at >= 0 && (*whence == SEEK_SET ? *off != at : at + *off >= 0))
			cf_again(fd, as);
	}
	return true;
}

void fp_cpus_reread(int fd)
{
	cf_again(fd, cf_served_as(fd));
}

/* A stream's seek (other than a query of where it is, or one the kernel
 * refuses: before the start, SEEK_END on procfs) over a served file:
 * glibc's lseek and read inside it are internal calls no wrapper sees
 * (vmstat and top rewind their /proc/stat stream each round). */
static void cf_stream_seek(FILE *f, long long off, int whence)
{
	int saved = errno, fd, as;
	long long at = 0;

	if (fp_likely(!atomic_load_explicit(&cf_any_served, memory_order_relaxed)) || !f ||
	    (whence != SEEK_SET && whence != SEEK_CUR) || (whence == SEEK_CUR && off == 0))
		return;
	if ((as = cf_served_as(fd = fileno_unlocked(f))) != CF_AS_NONE &&
	    (whence == SEEK_SET || (at = (long long)ftello(f)) >= 0) && at + off >= 0)
		cf_again(fd, as);
	errno = saved;
}

FP_EXPORT void rewind(FILE *f)
{
	cf_stream_seek(f, 0, SEEK_SET);
	FP_OWN(rewind)(f);
}

/* fseek, fseeko, fseeko64, fsetpos and fsetpos64, written once. */
#define CPUS_WRAP_FSEEK(name, off_type)                                      \
	FP_EXPORT int name(FILE *f, off_type off, int whence)                \
	{                                                                    \
		cf_stream_seek(f, (long long)off, whence);                   \
		return FP_OWN(name)(f, off, whence);                         \
	}
#define CPUS_WRAP_FSETPOS(name, pos_type)                                    \
	FP_EXPORT int name(FILE *f, const pos_type *pos)                     \
	{                                                                    \
		cf_stream_seek(f, 0, SEEK_SET);                              \
		return FP_OWN(name)(f, pos);                                 \
	}                                                                    \
	FP_ALIAS(_IO_##name, name);

CPUS_WRAP_FSEEK(fseek, long)
CPUS_WRAP_FSEEK(fseeko, off_t)
CPUS_WRAP_FSETPOS(fsetpos, fpos_t)
#ifdef FP_HAVE_LFS64
CPUS_WRAP_FSEEK(fseeko64, off64_t)
CPUS_WRAP_FSETPOS(fsetpos64, fpos64_t)
#endif

CPUS_WRAP_MMAP(mmap, off_t)
#ifdef FP_HAVE_LFS64
CPUS_WRAP_MMAP(mmap64, off64_t)
#endif
#endif /* FP_LINUX */
