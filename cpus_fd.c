/* SPDX-License-Identifier: MIT */
/*
 * cpus_fd.c: what a program does with a CPU file besides open it (issue
 * 28): fopen/fopen64 of one (glibc's fopen opens through an internal call
 * the open wrappers never see), and lseek/mmap of the descriptors
 * cpus_files_shim.c served, answered as procfs and sysfs answer them.
 * Linux only, as the files are.
 */
#include "fastpath.h"
#include "cpus.h"

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

const struct fp_sym cpus_syms[CPUS_NSYMS] = {
	FP_SYM(fopen),
#ifdef FP_HAVE_LFS64
	FP_SYM(fopen64),
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
	*out = fd < 0 ? NULL : FP_REAL(fdopen)(fd, "r");
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
#ifdef FP_HAVE_LFS64
CPUS_WRAP_FOPEN(fopen64)
#endif

/* ------------------------------------------------------------------------
 * lseek and mmap on the descriptors we served, as procfs and sysfs answer
 * them (the copy is a regular file, which would seek to its end and map):
 *
 *   procfs (cpuinfo, stat)  SEEK_END, SEEK_DATA, SEEK_HOLE: EINVAL; mmap: EIO
 *   sysfs (the cpu dir)     a file of 4096 bytes to seek in; mmap: ENODEV
 *
 * A served descriptor below CF_NSERVED is noted with its file's identity,
 * checked by fstat when used (the number may have been closed and reused);
 * a duplicate of it is a plain regular file.  Until the first one is
 * served, every lseek and mmap pays one branch.
 * ---------------------------------------------------------------------- */
#define CF_NSERVED 1024
#define CF_SYSFS_SIZE 4096 /* what sysfs says of every attribute file */
enum { CF_AS_NONE, CF_AS_PROCFS, CF_AS_SYSFS };
static struct {
	_Atomic unsigned long ino; /* 0: not served */
	dev_t dev;
	unsigned char as;
} cf_served[CF_NSERVED];
static _Atomic bool cf_any_served;

void fp_cpus_served(int fd, bool sysfs)
{
	struct stat st;

	if (fd < 0 || fd >= CF_NSERVED || fp_fstat(fd, &st) != 0)
		return;
	atomic_store_explicit(&cf_served[fd].ino, 0, memory_order_relaxed);
	cf_served[fd].dev = st.st_dev;
	cf_served[fd].as = sysfs ? CF_AS_SYSFS : CF_AS_PROCFS;
	atomic_store_explicit(&cf_served[fd].ino, (unsigned long)st.st_ino, memory_order_release);
	atomic_store_explicit(&cf_any_served, true, memory_order_relaxed);
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
	if (as == CF_AS_PROCFS && (*whence == SEEK_END || *whence == SEEK_DATA || *whence == SEEK_HOLE)) {
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

/* lseek and lseek64, mmap and mmap64, written once. */
#define CPUS_WRAP_MMAP(name, off_type)                                       \
	FP_EXPORT void *name(void *a, size_t len, int prot, int flags, int fd, off_type off) \
	{                                                                    \
		int as = (flags & MAP_ANONYMOUS) ? CF_AS_NONE : cf_served_as(fd); \
                                                                             \
		if (fp_likely(as == CF_AS_NONE) || len == 0)                \
			return FP_REAL(name)(a, len, prot, flags, fd, off);  \
		errno = as == CF_AS_PROCFS ? EIO : ENODEV;                   \
		return MAP_FAILED;                                           \
	}

bool fp_cpus_seek(int fd, long long *off, int *whence)
{
	int as = cf_served_as(fd);

	return fp_likely(as == CF_AS_NONE) || cf_seek(as, off, whence);
}

CPUS_WRAP_MMAP(mmap, off_t)
#ifdef FP_HAVE_LFS64
CPUS_WRAP_MMAP(mmap64, off64_t)
#endif
#endif /* FP_LINUX */
