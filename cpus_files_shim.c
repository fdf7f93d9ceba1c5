/* SPDX-License-Identifier: MIT */
/*
 * cpus_files_shim.c: the CPU files as a kernel of the machine the cap shows
 * would give them (issues 12, 28), while FASTPATH_CPUS is set.
 *
 *   /proc/cpuinfo                         one block per CPU
 *   /proc/stat                            the "cpu" total and one cpuN line per CPU
 *   /sys/devices/system/cpu/{online,possible,present,kernel_max}
 *
 * libuv (node's os.cpus()) reads the first two, `grep -c ^processor` the
 * first, lscpu all of them: none of it goes through sysconf.  Anchor: LXCFS,
 * which gives a container /proc/cpuinfo and /proc/stat matching its cpuset;
 * we do the same per process, without FUSE and without root.
 *
 * The CPUs shown are those of the machine the cap shows (cpus_map.c),
 * 0..N-1, each the real CPU it maps to (cpus_text.c says which fields are
 * derived).  Every open reads the real file afresh (counters move),
 * transforms it and hands back a read-only descriptor of a memfd (an
 * unlinked O_TMPFILE where memfd_create is missing) holding the result,
 * which lseek and mmap treat as procfs and sysfs do; where the program's
 * RLIMIT_FSIZE leaves the memfd no room, a pipe or the real file
 * (cf_serve).  When the map is the identity the bytes are the kernel's
 * own.
 *
 * Two layers: pure text transforms (cpus_text.c: input text + map ->
 * output text, unit-tested in tests/test_cpus_files.c), and here one entry,
 * fp_cpus_open() (cpus.h), which every open wrapper calls (UR_OPEN_BODY in
 * urandom_shim.c), plus fopen/fopen64.  The entry uses raw system calls and
 * a static or mmap'd scratch area only (a frame of a few hundred bytes):
 * no malloc, no lock that waits, none of our own exports.  Linux only:
 * illumos has no such files (psrinfo and kstat are its ways).
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * Which files: one table, checked against the kernel's paths.
 * ---------------------------------------------------------------------- */
enum cf_dir { CF_PROC, CF_CPUDIR, CF_NDIRS };
static const char *const cf_dir_path[CF_NDIRS] = { "/proc", "/sys/devices/system/cpu" };

static const struct cf_file {
	const char *path;
	const char *name; /* its last component */
	enum cf_dir dir;  /* its directory */
	enum cf_kind kind;
} cf_files[] = {
	{ "/proc/cpuinfo", "cpuinfo", CF_PROC, CF_CPUINFO },
	{ "/proc/stat", "stat", CF_PROC, CF_STAT },
	{ "/sys/devices/system/cpu/online", "online", CF_CPUDIR, CF_LIST },
	{ "/sys/devices/system/cpu/possible", "possible", CF_CPUDIR, CF_LIST },
	{ "/sys/devices/system/cpu/present", "present", CF_CPUDIR, CF_LIST },
	{ "/sys/devices/system/cpu/kernel_max", "kernel_max", CF_CPUDIR, CF_KMAX },
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

/* ------------------------------------------------------------------------
 * Directory descriptors known to be /proc or the cpu directory: those the
 * program opened by that absolute name while the cap or the survey was on
 * (lscpu opens "/sys/devices/system/cpu", then "online" under it).  A
 * relative name is ours only under one of them: any other open, "stat"
 * under a /proc/<pid> descriptor as htop makes it, pays a load and a
 * branch (no readlink).  Lock-free slots, fd + 1 (0: free), checked by
 * fstat when used, since the number may have been closed and reused.
 * ---------------------------------------------------------------------- */
#define CF_NSLOTS 8
static struct cf_slot {
	dev_t dev;
	ino_t ino;
	_Atomic int fd1;
	enum cf_dir dir;
} cf_slots[CF_NSLOTS];
static _Atomic int cf_nslots; /* 1 once a slot was taken: 0 skips the walk */

static int cf_dir_named(const char *path)
{
	size_t n;

	for (int d = 0; d < CF_NDIRS; d++) {
		n = strlen(cf_dir_path[d]);
		if (strncmp(path, cf_dir_path[d], n) == 0 &&
		    (path[n] == '\0' || (path[n] == '/' && path[n + 1] == '\0')))
			return d;
	}
	return -1;
}

/* Takes a slot for fd: the one already naming it (stale: the number was
 * closed and reused), else a free one; -1 marks it busy. */
static struct cf_slot *cf_slot_take(int fd)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < CF_NSLOTS; i++) {
			int cur = pass == 0 ? fd + 1 : 0;

			if (atomic_compare_exchange_strong(&cf_slots[i].fd1, &cur, -1))
				return &cf_slots[i];
		}
	}
	return NULL; /* all taken: this one is not known (the kernel's) */
}

void fp_cpus_note_dir(const char *path, int fd)
{
	int d = cf_dir_named(path), saved = errno;
	struct cf_slot *s;
	struct stat st;

	if (d >= 0 && fp_fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (s = cf_slot_take(fd))) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		s->dir = (enum cf_dir)d;
		atomic_store_explicit(&s->fd1, fd + 1, memory_order_release);
		atomic_store_explicit(&cf_nslots, 1, memory_order_relaxed);
	}
	errno = saved;
}

/* Which directory dirfd is known to be, or -1. */
static int cf_dir_of(int dirfd)
{
	struct stat st;
	int saved;

	if (fp_likely(atomic_load_explicit(&cf_nslots, memory_order_relaxed) == 0) || dirfd < 0)
		return -1;
	for (int i = 0; i < CF_NSLOTS; i++) {
		struct cf_slot *s = &cf_slots[i];

		if (atomic_load_explicit(&s->fd1, memory_order_acquire) != dirfd + 1)
			continue;
		saved = errno;
		if (fp_fstat(dirfd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino) {
			errno = saved;
			return (int)s->dir;
		}
		errno = saved;
		/* Closed and reused for something else: free the slot. */
		int cur = dirfd + 1;
		(void)atomic_compare_exchange_strong(&s->fd1, &cur, 0);
		return -1;
	}
	return -1;
}

/* A relative name: one of ours under a known directory descriptor only (a
 * relative name under the working directory is the kernel's). */
static const struct cf_file *cf_lookup_rel(int dirfd, const char *path)
{
	int d = dirfd == AT_FDCWD ? -1 : cf_dir_of(dirfd);
	size_t i;

	if (fp_likely(d < 0))
		return NULL;
	for (i = 0; i < CF_NFILES; i++)
		if ((int)cf_files[i].dir == d && strcmp(path, cf_files[i].name) == 0)
			return &cf_files[i];
	return NULL;
}

/* Only plain read-only opens are ours: anything else (O_WRONLY, O_PATH,
 * O_DIRECTORY...) goes to the kernel, which gives its own answer.  Those
 * we serve open the real file with these flags first (cf_read_real). */
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
	q = fp_mmap(NULL, sizeof(struct cf_mem), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
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
		q = fp_mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

static int cf_read_real(int dirfd, const char *path, int flags, struct cf_text *t)
{
	/* With the caller's flags (cf_match let through only those a read
	 * may carry): the kernel makes its checks on the real file, and
	 * refuses as it would natively (O_NOATIME by a non-owner: EPERM). */
	int fd = (int)fp_raw_openat(dirfd, path, (flags & CF_OK_FLAGS) | O_RDONLY | O_CLOEXEC, 0);
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

/* The bytes of rw, written to a new file `name` one descriptor at a time
 * and opened read-only (then unlinked): the descriptor or -1. */
static int cf_named_copy(const char *name, const char *p, size_t len, int flags)
{
	int fd = (int)fp_raw_openat(AT_FDCWD, name,
	                            O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (done < len && ((n = fp_raw_write(fd, p + done, len - done)) > 0 || errno == EINTR))
		done += n > 0 ? (size_t)n : 0;
	if (done < len && errno == EFBIG) {
		fp_raw_close(fd);
		(void)syscall(SYS_unlinkat, AT_FDCWD, name, 0);
		errno = EFBIG;
		return -1;
	}
	fp_raw_close(fd);
	fd = done == len ? (int)fp_raw_openat(AT_FDCWD, name,
	                                      O_RDONLY | (flags & (O_CLOEXEC | O_NONBLOCK)), 0)
	                 : -1;
	(void)syscall(SYS_unlinkat, AT_FDCWD, name, 0);
	return fd;
}

/*
 * At the descriptor limit the read-only reopen finds no number to take:
 * the copy, held by a mapping, goes into a named file in /dev/shm or /tmp
 * (written, closed, opened read-only, unlinked), so that at no moment two
 * descriptors are needed.  Returns the descriptor (rw's number) or -errno.
 */
static int cf_read_only_at_limit(int rw, int flags)
{
	static const char *const dirs[] = { "/dev/shm", "/tmp" };
	static _Atomic unsigned long seq;
	char name[128];
	struct stat st;
	void *map = NULL;
	int fd = -1, err = EMFILE;

	if (fp_fstat(rw, &st) != 0 || (st.st_size > 0 &&
	    (map = fp_mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, rw, 0)) == MAP_FAILED)) {
		err = errno;
		fp_raw_close(rw);
		return -err;
	}
	fp_raw_close(rw);
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && fd < 0; i++) {
		struct fp_buf b = { name, 0, sizeof name };

		fp_buf_str(&b, dirs[i]);
		fp_buf_str(&b, "/.fastpath-cpus-");
		fp_buf_long(&b, (long)getpid());
		fp_buf_str(&b, "-");
		fp_buf_ulong(&b, atomic_fetch_add(&seq, 1));
		fd = cf_named_copy(name, map, (size_t)st.st_size, flags);
		if (fd < 0 && errno == EFBIG)
			err = EFBIG; /* cf_serve serves the real file */
	}
	if (map)
		munmap(map, (size_t)st.st_size);
	return fd >= 0 ? fd : -err;
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
	if (ro < 0 && (errno == EMFILE || errno == ENFILE))
		return cf_read_only_at_limit(rw, flags);
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

/* The text of the machine m written to fd: 0 or errno (EFBIG: the
 * program's file-size limit left no room; EAGAIN: a pipe that cannot
 * grow enough). */
static int cf_fill(int fd, enum cf_kind kind, const struct cf_text *in, const struct cpus_map *m,
                   char *stage)
{
	struct cf_out o = { stage, 0, CF_STAGE, fd, 0 };

	cf_transform(kind, in->p, in->len, m, &o);
	cf_flush(&o);
	return o.err;
}

/*
 * Where the program's RLIMIT_FSIZE leaves no room for the copy (bash's
 * ulimit -f sets the hard limit too, and then write, ftruncate and
 * fallocate on a memfd all fail): the same text in a pipe, which no limit
 * counts, grown as it fills (cf_flush).  Returns its read end, as
 * nonblocking and close-on-exec as asked, or -errno.
 */
static int cf_pipe_copy(enum cf_kind kind, const struct cf_text *in, const struct cpus_map *m,
                        char *stage, int flags)
{
	int p[2], err;

	if (syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	err = cf_fill(p[1], kind, in, m, stage);
	fp_raw_close(p[1]);
	if (!err && ((!(flags & O_NONBLOCK) && syscall(SYS_fcntl, p[0], F_SETFL, 0) < 0) ||
	             (!(flags & O_CLOEXEC) && syscall(SYS_fcntl, p[0], F_SETFD, 0) < 0)))
		err = errno;
	if (err) {
		fp_raw_close(p[0]);
		return -err;
	}
	return p[0];
}

/*
 * The generated copy of f: the descriptor in *fd_out, or -1 and errno;
 * false when the file there is not the kernel's (cf_read_real), or when
 * the program's file-size limit leaves room for no copy (then the real
 * file is opened, unchanged, by the caller's own open).  Kept out of line
 * so that an open of any other file never reserves its frame (the buffers
 * are in the scratch area, cf_mem_take).
 *
 * Every write here is held from SIGXFSZ (fp_fsz_hold): a memfd counts
 * against RLIMIT_FSIZE like any file, and a limit the copy does not fit
 * must not kill a program that only read.  Over the limit the text goes
 * into a pipe (cf_pipe_copy); where the map is the identity, or the pipe
 * cannot hold it, the real file is served unchanged: the bytes are the
 * kernel's (or the uncapped machine's), and fstat, lseek and mmap are
 * procfs's and sysfs's own.
 */
__attribute__((noinline)) static bool cf_serve(const struct cf_file *f, int dirfd,
                                               const char *path, int flags, int *fd_out)
{
	struct cf_mem *mem = cf_mem_take();
	struct cf_text in = { NULL, 0, CF_IN_SMALL, false };
	struct cpus_map m;
	struct fp_fsz g;
	int saved = errno, err = mem ? 0 : ENOMEM, fd = -1;
	bool piped = false, limited = false;

	fp_fsz_hold(&g);
	/* The kernel resolves the path (and dirfd): same errors as native. */
	if (!err) {
		in.p = mem->in;
		err = cf_read_real(dirfd, path, flags, &in);
	}
	if (!err) {
		fp_cpus_map(&m);
		fd = cf_scratch(f->name);
		err = fd < 0 ? errno : 0;
		/* The mode fstat shows, as procfs's and sysfs's: r--r--r--
		 * (this descriptor, opened read-write before, still writes). */
		if (!err)
			(void)fchmod(fd, 0444);
	}
	if (!err && (err = cf_fill(fd, f->kind, &in, &m, mem->stage)) != 0) {
		fp_raw_close(fd);
		limited = err == EFBIG;
		if (limited && !m.identity) {
			fd = cf_pipe_copy(f->kind, &in, &m, mem->stage, flags);
			err = fd < 0 ? -fd : 0;
			piped = !err;
		}
	}
	cf_text_free(&in);
	if (mem)
		cf_mem_give(mem);
	if (!err && !piped && (fd = cf_read_only(fd, flags)) < 0) {
		err = -fd;
		limited = err == EFBIG;
	}
	fp_fsz_release(&g);
	if (err == CF_NOT_OURS || (err && limited)) {
		errno = saved;
		return false;
	}
	if (fp_unlikely(fp_cfg.debug))
		fp_debug("cpus", f->path, err ? "virtual file failed"
		                         : piped ? "virtual file served in a pipe (RLIMIT_FSIZE)"
		                                 : "virtual file served");
	if (err) {
		errno = err;
		*fd_out = -1;
	} else {
		if (!piped)
			fp_cpus_served(fd, f->dir == CF_CPUDIR);
		errno = saved;
		*fd_out = fd;
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

#endif /* FP_LINUX */
