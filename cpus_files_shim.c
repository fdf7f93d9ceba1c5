/*
 * cpus_files_shim.c: the CPU files as a kernel with N CPUs would show them
 * (issue 12), while FASTPATH_CPUS is set.
 *
 *   /proc/cpuinfo                         one block per CPU
 *   /proc/stat                            the "cpu" total and one cpuN line per CPU
 *   /sys/devices/system/cpu/{online,possible,present}   CPU lists
 *
 * libuv (node's os.cpus()) reads the first two, `grep -c ^processor` the
 * first, lscpu all of them: none of it goes through sysconf.  Anchor: LXCFS,
 * which gives a container /proc/cpuinfo and /proc/stat matching its cpuset;
 * we do the same per process, without FUSE and without root.
 *
 * The CPUs shown are exactly the ids of the mask the cap reports from
 * sched_getaffinity (fp_cpus_machine): the first N CPUs we may run on, or
 * all of them plus made-up ids, each made-up CPU a copy of a real CPU's
 * block or line with its number changed.  Every open reads the real file
 * afresh (counters move), transforms it and hands back a read-only
 * descriptor of a memfd (an unlinked O_TMPFILE where memfd_create is
 * missing) holding the result.  With N equal to the real count the bytes
 * are the kernel's own.
 *
 * Two layers: pure text transforms (cpus_text.c: input text + mask ->
 * output text, unit-tested in tests/test_cpus_files.c), and here one entry,
 * fp_cpus_open() (cpus.h), which every open wrapper calls (UR_OPEN_BODY in
 * urandom_shim.c), plus fopen/fopen64.  The entry uses raw system calls and
 * a static or mmap'd scratch area only (a frame of a few hundred bytes):
 * no malloc, no lock that waits, none of our own exports.  Linux only: illumos has no such files (psrinfo and kstat are
 * its ways).
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * Which files: one table, checked against the kernel's paths.
 * ---------------------------------------------------------------------- */
static const struct cf_file {
	const char *path;
	const char *name; /* its last component */
	enum cf_kind kind;
} cf_files[] = {
	{ "/proc/cpuinfo", "cpuinfo", CF_CPUINFO },
	{ "/proc/stat", "stat", CF_STAT },
	{ "/sys/devices/system/cpu/online", "online", CF_LIST },
	{ "/sys/devices/system/cpu/possible", "possible", CF_LIST },
	{ "/sys/devices/system/cpu/present", "present", CF_LIST },
};
#define CF_NFILES (sizeof cf_files / sizeof cf_files[0])

static const struct cf_file *cf_lookup_abs(const char *path)
{
	size_t i;

	for (i = 0; i < CF_NFILES; i++)
		if (strcmp(path, cf_files[i].path) == 0)
			return &cf_files[i];
	return NULL;
}

/*
 * A relative path (lscpu opens "online" under a descriptor of
 * /sys/devices/system/cpu, "cpuinfo" under one of /proc): only when its
 * last component is one of our names is the directory looked up, through
 * /proc/self/fd or /proc/self/cwd.  A directory and name that together
 * are longer than our longest path cannot be one of ours, so the buffers
 * are small (an open's frame stays a few hundred bytes: it may run on a
 * 16 KiB thread stack or a signal's alternate stack).
 */
#define CF_PATH_MAX 64 /* > strlen of every cf_files[].path */

static const struct cf_file *cf_lookup_rel(int dirfd, const char *path)
{
	char link[32], full[CF_PATH_MAX];
	const char *base = strrchr(path, '/');
	struct fp_buf b = { link, 0, sizeof link };
	size_t i, n, plen;
	ssize_t k;

	base = base ? base + 1 : path;
	for (i = 0; i < CF_NFILES; i++)
		if (strcmp(base, cf_files[i].name) == 0)
			break;
	if (i == CF_NFILES)
		return NULL;
	if (dirfd == AT_FDCWD) {
		fp_buf_str(&b, "/proc/self/cwd");
	} else {
		fp_buf_str(&b, "/proc/self/fd/");
		fp_buf_long(&b, dirfd);
	}
	/* A target that fills the buffer may have been cut: too long. */
	k = fp_raw_readlinkat(AT_FDCWD, link, full, sizeof full - 1);
	if (k <= 0 || (size_t)k >= sizeof full - 1 || full[0] != '/')
		return NULL;
	n = (size_t)k;
	if (n > 1)
		full[n++] = '/';
	else
		n = 1;
	plen = strlen(path);
	if (n + plen >= sizeof full)
		return NULL;
	memcpy(full + n, path, plen + 1);
	return cf_lookup_abs(full);
}

/* Only plain read-only opens are ours: anything else (O_WRONLY, O_PATH,
 * O_DIRECTORY...) goes to the kernel, which gives its own answer. */
#define CF_OK_FLAGS (O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_LARGEFILE | O_NOFOLLOW | O_NOATIME)

static const struct cf_file *cf_match(int dirfd, const char *path, int flags)
{
	if (!path || path[0] == '\0')
		return NULL;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | CF_OK_FLAGS)))
		return NULL;
	if (path[0] == '/') {
		/* The one cheap prefix test every other open pays. */
		if (path[1] != 'p' && path[1] != 's')
			return NULL;
		return cf_lookup_abs(path);
	}
	return cf_lookup_rel(dirfd, path);
}

/* ------------------------------------------------------------------------
 * Reading the real file: procfs and sysfs files are read to the end with
 * plain reads, into the scratch area while it holds them (a small
 * machine's files fit), then into an mmap'd buffer that doubles.
 *
 * The scratch area is never on the stack: an open may run on a 16 KiB
 * thread stack (PTHREAD_STACK_MIN) or on a signal's alternate stack, and a
 * frame of tens of KiB there steps over the guard page or into whatever
 * lies below.  It is one static area taken with a try-lock, or, when that
 * is taken (another thread, a signal handler that interrupted an open of
 * ours, a fork child that copied it taken), an anonymous mapping of the
 * same size: mmap is a system call, safe in a handler; no malloc.
 * ---------------------------------------------------------------------- */
struct cf_text {
	char *p;
	size_t len, cap;
	bool mapped;
};

#define CF_IN_SMALL 16384
#define CF_STAGE 8192
struct cf_mem {
	char in[CF_IN_SMALL];
	char stage[CF_STAGE];
};
static struct cf_mem cf_static;
static _Atomic int cf_static_busy;

static struct cf_mem *cf_mem_take(void)
{
	int idle = 0;
	void *q;

	if (atomic_compare_exchange_strong(&cf_static_busy, &idle, 1))
		return &cf_static;
	q = mmap(NULL, sizeof(struct cf_mem), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	         -1, 0);
	return q == MAP_FAILED ? NULL : q;
}

static void cf_mem_give(struct cf_mem *m)
{
	if (m == &cf_static)
		atomic_store_explicit(&cf_static_busy, 0, memory_order_release);
	else
		munmap(m, sizeof *m);
}

/* Makes room for more; false (ENOMEM) when there is none. */
static bool cf_grow(struct cf_text *t)
{
	size_t cap = t->cap < 65536 ? 65536 : t->cap * 2;
	void *q;

	if (t->mapped) {
		q = mremap(t->p, t->cap, cap, MREMAP_MAYMOVE);
	} else {
		q = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q != MAP_FAILED)
			memcpy(q, t->p, t->len);
	}
	if (q == MAP_FAILED)
		return false;
	t->p = q;
	t->cap = cap;
	t->mapped = true;
	return true;
}

/*
 * The text of a CPU file, or CF_NOT_OURS when there is more of it than
 * any CPU file has (CF_TEXT_MAX; /proc/cpuinfo of 8192 CPUs is about
 * 12 MB): something endless is bound there (/dev/zero in a chroot), and
 * the open is the real one, the program reading what is there as
 * natively.  Any other file at the path is transformed as the kernel's
 * would be (LXCFS puts a FUSE file over /proc/cpuinfo and /proc/stat:
 * the cap applies to what it shows), so no check of the file system.
 */
#define CF_NOT_OURS (-1)
#define CF_TEXT_MAX ((size_t)32 << 20)

static int cf_read_real(int dirfd, const char *path, struct cf_text *t)
{
	int fd = (int)fp_raw_openat(dirfd, path, O_RDONLY | O_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return errno;
	for (;;) {
		ssize_t n;

		if (t->len == t->cap && (t->cap >= CF_TEXT_MAX || !cf_grow(t))) {
			err = t->cap >= CF_TEXT_MAX ? CF_NOT_OURS : ENOMEM;
			break;
		}
		n = fp_raw_read(fd, t->p + t->len, t->cap - t->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		t->len += (size_t)n;
	}
	fp_raw_close(fd);
	return err;
}

static void cf_text_free(struct cf_text *t)
{
	if (t->mapped)
		munmap(t->p, t->cap);
}

/* A file of our own to hold the result: a memfd, or an unlinked file. */
static int cf_scratch(const char *name)
{
	int fd = -1;

#ifdef SYS_memfd_create
	fd = (int)syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */);
#else
	(void)name;
#endif
#ifdef O_TMPFILE
	if (fd < 0)
		fd = (int)fp_raw_openat(AT_FDCWD, "/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = (int)fp_raw_openat(AT_FDCWD, "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
	return fd;
}

/*
 * The scratch file, reopened read-only on the same number: as on procfs a
 * write then fails with EBADF, and the descriptor is the lowest free one,
 * with O_CLOEXEC exactly as asked.  Returns the descriptor or -errno.
 */
static int cf_read_only(int rw, int flags)
{
	char link[64];
	struct fp_buf b = { link, 0, sizeof link };
	int ro, cloexec = flags & O_CLOEXEC;

	fp_buf_str(&b, "/proc/self/fd/");
	fp_buf_long(&b, rw);
	ro = (int)fp_raw_openat(AT_FDCWD, link, O_RDONLY | O_CLOEXEC | (flags & O_NONBLOCK), 0);
	if (ro < 0) {
		/* No /proc: the read-write descriptor, rewound; writes then
		 * succeed into our copy, never into the kernel's file. */
		if (syscall(SYS_lseek, rw, 0L, SEEK_SET) < 0 ||
		    syscall(SYS_fcntl, rw, F_SETFD, cloexec ? FD_CLOEXEC : 0) < 0) {
			int err = errno;

			fp_raw_close(rw);
			return -err;
		}
		return rw;
	}
	if (syscall(SYS_dup3, ro, rw, cloexec) < 0) {
		int err = errno;

		fp_raw_close(ro);
		fp_raw_close(rw);
		return -err;
	}
	fp_raw_close(ro);
	return rw;
}

void fp_cpus_sv_file(int dirfd, const char *path, int flags)
{
	int saved = errno;

	if (cf_match(dirfd, path, flags))
		cpus_sv_query(CPUS_S_Q_files, fp_enabled(FP_BIT(cpus)) ? fp_cpus_wanted()
		                                                     : fp_real.r_sysconf.f(_SC_NPROCESSORS_ONLN));
	errno = saved;
}

/* The generated copy of f: the descriptor in *fd_out, or -1 and errno;
 * false when the file there is not the kernel's (cf_read_real).  Kept out
 * of line so that an open of any other file never reserves its frame (the
 * buffers are in the scratch area, cf_mem_take). */
__attribute__((noinline)) static bool cf_serve(const struct cf_file *f, int dirfd,
                                               const char *path, int flags, int *fd_out)
{
	struct cf_mem *mem = cf_mem_take();
	struct cf_out o = { NULL, 0, CF_STAGE, -1, 0 };
	struct cf_text in = { NULL, 0, CF_IN_SMALL, false };
	struct cf_mask m;
	int saved = errno, err = mem ? 0 : ENOMEM;

	/* The kernel resolves the path (and dirfd): same errors as native. */
	if (!err) {
		o.p = mem->stage;
		in.p = mem->in;
		err = cf_read_real(dirfd, path, &in);
	}
	if (!err) {
		fp_cpus_machine(&m.real, &m.real_bound, &m.fake_lo, &m.fake_n);
		o.fd = cf_scratch(f->name);
		err = o.fd < 0 ? errno : 0;
	}
	if (!err) {
		cf_transform(f->kind, in.p, in.len, &m, &o);
		cf_flush(&o);
		err = o.err;
		if (err)
			fp_raw_close(o.fd);
	}
	cf_text_free(&in);
	if (mem)
		cf_mem_give(mem);
	if (err == CF_NOT_OURS) {
		errno = saved;
		return false;
	}
	if (!err && (o.fd = cf_read_only(o.fd, flags)) < 0)
		err = -o.fd;
	if (fp_unlikely(fp_cfg.debug))
		fp_debug("cpus", f->path, err ? "virtual file failed" : "virtual file served");
	if (err) {
		errno = err;
		*fd_out = -1;
	} else {
		errno = saved;
		*fd_out = o.fd;
	}
	return true;
}

/* The path test comes first, in a small frame: it is all that an open of
 * any other file pays. */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	const struct cf_file *f = cf_match(dirfd, path, flags);

	if (fp_likely(!f))
		return false;
	return cf_serve(f, dirfd, path, flags, fd_out);
}

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
#endif /* FP_LINUX */
