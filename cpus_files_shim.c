/* SPDX-License-Identifier: MIT */
/*
 * cpus_files_shim.c: the CPU files as a kernel of the machine the cap shows
 * would give them (issues 12, 28), while FASTPATH_CPUS is set.
 *
 *   /proc/cpuinfo                         one block per CPU
 *   /proc/stat                            the "cpu" total and one cpuN line per CPU
 *   /sys/devices/system/cpu/{online,possible,present,kernel_max}
 *   /sys/devices/system/cpu/cpuK/...      the real CPU K runs on, its topology/
 *                                         and cache/ sharing derived (issue 37)
 *   /sys/devices/system/node/nodeX/{cpuK,cpumap,cpulist}
 *   /proc/{self,thread-self,<pid>}/status Cpus_allowed, Cpus_allowed_list
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
enum cf_dir { CF_PROC, CF_CPUDIR, CF_NODES, CF_NDIRS, CF_CPUK = CF_NDIRS };
static const char *const cf_dir_path[CF_NDIRS] = { "/proc", "/sys/devices/system/cpu",
	                                           "/sys/devices/system/node" };

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
	long v; /* CF_CPUK: the virtual CPU whose directory it is */
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

static void cf_note(int d, long v, int fd)
{
	int saved = errno;
	struct cf_slot *s;
	struct stat st;

	if (d >= 0 && fp_fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (s = cf_slot_take(fd))) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		s->dir = (enum cf_dir)d;
		s->v = v;
		atomic_store_explicit(&s->fd1, fd + 1, memory_order_release);
		atomic_store_explicit(&cf_nslots, 1, memory_order_relaxed);
	}
	errno = saved;
}

void fp_cpus_note_dir(const char *path, int fd)
{
	cf_note(cf_dir_named(path), -1, fd);
}

static int cf_dir_of_v(int dirfd, long *v);

/* Which directory dirfd is known to be, or -1 (a cpuK's is not one of
 * the files' directories). */
static int cf_dir_of(int dirfd)
{
	long v;
	int d = cf_dir_of_v(dirfd, &v);

	return d == CF_CPUK ? -1 : d;
}

/* Which directory dirfd is known to be (CF_CPUK: cpu *v's), or -1. */
static int cf_dir_of_v(int dirfd, long *v)
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
			*v = s->v;
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
	unsigned char vmask[CPUS_LINUX_MAX / 8]; /* a status's virtual mask */
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
		                                                     : fp_real_cpus.r_sysconf.f(_SC_NPROCESSORS_ONLN));
	errno = saved;
}

/* The text of the machine m written to fd: 0 or errno (EFBIG: the
 * program's file-size limit left no room; EAGAIN: a pipe that cannot
 * grow enough). */
/* What is served: the text's kind and what it is about, the memfd's name,
 * whether lseek and mmap answer as sysfs's, the name FASTPATH_DEBUG
 * shows, and for a status whose mask. */
struct cf_what {
	enum cf_kind kind;
	struct cf_about about;
	const char *name;
	bool sysfs;
	const char *shown;
	pid_t whose;
};

static int cf_fill(int fd, const struct cf_what *w, const struct cf_text *in,
                   const struct cpus_map *m, char *stage)
{
	struct cf_out o = { stage, 0, CF_STAGE, fd, 0 };

	cf_transform_of(w->kind, &w->about, in->p, in->len, m, &o);
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
static int cf_pipe_copy(const struct cf_what *w, const struct cf_text *in, const struct cpus_map *m,
                        char *stage, int flags)
{
	int p[2], err;

	if (syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	err = cf_fill(p[1], w, in, m, stage);
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

/* The affinity mask a status file shows, as the virtual CPUs it holds. */
static void cf_status_mask(struct cf_what *w, const struct cpus_map *m, unsigned char *vmask,
                           size_t size)
{
	cpu_set_t now;

	memset(vmask, 0, size);
	if (syscall(SYS_sched_getaffinity, w->whose, sizeof now, &now) < 0) {
		CPU_ZERO(&now);
		for (long k = 0; k < m->r; k++)
			CPU_SET((size_t)fp_cpus_real_of(m, k), &now);
	}
	fp_cpus_to_virtual(m, &now, sizeof now, (cpu_set_t *)(void *)vmask, size);
	w->about.vmask = vmask;
}

/*
 * The generated copy of w: the descriptor in *fd_out, or -1 and errno;
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
__attribute__((noinline)) static bool cf_serve(struct cf_what *w, int dirfd, const char *path,
                                               int flags, int *fd_out)
{
	struct cf_mem *mem = cf_mem_take();
	struct cf_text in = { NULL, 0, CF_IN_SMALL, false };
	struct cpus_map m;
	struct fp_fsz g;
	int saved = errno, err = mem ? 0 : ENOMEM, fd = -1;
	bool piped = false, limited = false;

	/* The kernel resolves the path (and dirfd): same errors as native.
	 * Read before the hold: /proc/self/status's SigBlk is this thread's
	 * mask at the read, which must be the program's, not the hold's. */
	if (!err) {
		in.p = mem->in;
		err = cf_read_real(dirfd, path, flags, &in);
	}
	fp_fsz_hold(&g);
	if (!err) {
		fp_cpus_map(&m);
		if (w->kind == CF_STATUS)
			cf_status_mask(w, &m, mem->vmask, sizeof mem->vmask);
		fd = cf_scratch(w->name);
		err = fd < 0 ? errno : 0;
		/* The mode fstat shows, as procfs's and sysfs's: r--r--r--
		 * (this descriptor, opened read-write before, still writes). */
		if (!err)
			(void)fchmod(fd, 0444);
	}
	if (!err && (err = cf_fill(fd, w, &in, &m, mem->stage)) != 0) {
		fp_raw_close(fd);
		limited = err == EFBIG;
		if (limited && !m.identity) {
			fd = cf_pipe_copy(w, &in, &m, mem->stage, flags);
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
		fp_debug("cpus", w->shown, err ? "virtual file failed"
		                         : piped ? "virtual file served in a pipe (RLIMIT_FSIZE)"
		                                 : "virtual file served");
	if (err) {
		errno = err;
		*fd_out = -1;
	} else {
		if (!piped)
			fp_cpus_served(fd, w->sysfs);
		errno = saved;
		*fd_out = fd;
	}
	return true;
}

/* ------------------------------------------------------------------------
 * The machine's own directories (issue 37): cpuK under the cpu directory
 * and under each node's, a node's cpumap and cpulist, and the affinity
 * lines of this process's status.  cpuK for K < N is the directory of the
 * real CPU K runs on (R[K mod r]), its topology and shared-cache files
 * derived (cf_transform_of), everything else in it that real CPU's own;
 * cpuK for K >= N does not exist.  Only paths under CF_SYS (or /proc/)
 * pay more than the prefix test.
 * ---------------------------------------------------------------------- */
#define CF_SYS "/sys/devices/system/"
#define CF_SYS_LEN (sizeof CF_SYS - 1)

static const struct {
	const char *name;
	enum cf_kind kind;
} cf_cpu_files[] = {
	{ "topology/core_id", CF_T_ID },
	{ "topology/physical_package_id", CF_T_ZERO },
	{ "topology/die_id", CF_T_ZERO },
	{ "topology/thread_siblings", CF_T_SELF_MASK },
	{ "topology/thread_siblings_list", CF_T_SELF_LIST },
	{ "topology/core_cpus", CF_T_SELF_MASK },
	{ "topology/core_cpus_list", CF_T_SELF_LIST },
	{ "topology/cluster_cpus", CF_T_SELF_MASK },
	{ "topology/cluster_cpus_list", CF_T_SELF_LIST },
	{ "topology/core_siblings", CF_T_ALL_MASK },
	{ "topology/core_siblings_list", CF_T_ALL_LIST },
	{ "topology/package_cpus", CF_T_ALL_MASK },
	{ "topology/package_cpus_list", CF_T_ALL_LIST },
	{ "topology/die_cpus", CF_T_ALL_MASK },
	{ "topology/die_cpus_list", CF_T_ALL_LIST },
};

/* A CPU or node number as the kernel names it ("0", or no leading zero),
 * at most 9 digits: past it, or NULL. */
static const char *cf_id(const char *p, long *v)
{
	const char *s = p;
	long x = 0;

	if (*p == '0') {
		*v = 0;
		return p + 1;
	}
	while (*p >= '0' && *p <= '9' && p - s < 9)
		x = x * 10 + (*p++ - '0');
	if (p == s || (*p >= '0' && *p <= '9'))
		return NULL;
	*v = x;
	return p;
}

static bool cf_cat(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n >= cap)
		return false;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
	return true;
}

/* /proc/self/status, /proc/thread-self/status, /proc/<getpid()>/status:
 * whose mask it shows, or 0. */
static pid_t cf_status_of(const char *p)
{
	long pid;
	const char *e;

	if (strcmp(p, "self/status") == 0)
		return getpid();
	if (strcmp(p, "thread-self/status") == 0)
		return (pid_t)syscall(SYS_gettid);
	if ((e = cf_id(p, &pid)) && strcmp(e, "/status") == 0 && pid == (long)getpid())
		return (pid_t)pid;
	return 0;
}

/* The kind of a file under cpuK's directory (tail: past "cpuK/"). */
static bool cf_cpu_file(const char *tail, enum cf_kind *kind)
{
	const char *e;
	long idx;

	for (size_t i = 0; i < sizeof cf_cpu_files / sizeof cf_cpu_files[0]; i++) {
		if (strcmp(tail, cf_cpu_files[i].name) == 0) {
			*kind = cf_cpu_files[i].kind;
			return true;
		}
	}
	if (strncmp(tail, "cache/index", 11) != 0 || !(e = cf_id(tail + 11, &idx)))
		return false;
	if (strcmp(e, "/id") == 0)
		*kind = CF_T_CACHE_ID;
	else if (strcmp(e, "/shared_cpu_map") == 0)
		*kind = CF_T_SHARED_MASK;
	else if (strcmp(e, "/shared_cpu_list") == 0)
		*kind = CF_T_SHARED_LIST;
	else
		return false;
	return true;
}

enum cf_vis fp_cpus_vpath(int dirfd, const char *path, struct cf_vpath *vp)
{
	char joined[CF_VPATH_MAX];
	const char *a = path, *p, *q, *tail = NULL;
	struct cpus_map m;
	size_t len = 0;
	long v, node;
	int d;

	if (!path || !path[0])
		return CF_V_NATIVE;
	if (path[0] == '/') {
		if (strncmp(path, CF_SYS, CF_SYS_LEN) != 0 && strncmp(path, "/proc/", 6) != 0)
			return CF_V_NATIVE;
	} else {
		/* Relative: under a directory noted by its name only. */
		if (dirfd == AT_FDCWD || (d = cf_dir_of_v(dirfd, &v)) < 0)
			return CF_V_NATIVE;
		if (d == CF_CPUK) {
			char num[24];
			struct fp_buf b = { num, 0, sizeof num };

			fp_buf_long(&b, v);
			if (!cf_cat(joined, sizeof joined, &len, CF_SYS "cpu/cpu", CF_SYS_LEN + 7) ||
			    !cf_cat(joined, sizeof joined, &len, num, b.len))
				return CF_V_NATIVE;
		} else if (!cf_cat(joined, sizeof joined, &len, cf_dir_path[d], strlen(cf_dir_path[d]))) {
			return CF_V_NATIVE;
		}
		if (!cf_cat(joined, sizeof joined, &len, "/", 1) ||
		    !cf_cat(joined, sizeof joined, &len, path, strlen(path)))
			return CF_V_NATIVE;
		a = joined;
	}
	vp->v = -1;
	vp->gen = false;
	if (a[1] == 'p') {
		if (!(vp->rc = cf_status_of(a + 6)))
			return CF_V_NATIVE;
		vp->kind = CF_STATUS;
		vp->gen = true;
		p = a + strlen(a);
		tail = p;
	} else {
		p = a + CF_SYS_LEN;
		if (strncmp(p, "cpu/cpu", 7) == 0) {
			p += 7;
		} else if (strncmp(p, "node/node", 9) == 0 && (q = cf_id(p + 9, &node)) && *q == '/') {
			q++;
			if (strcmp(q, "cpumap") == 0 || strcmp(q, "cpulist") == 0) {
				vp->kind = q[3] == 'm' ? CF_NODE_MASK : CF_NODE_LIST;
				vp->gen = true;
				p = tail = q + strlen(q);
			} else if (strncmp(q, "cpu", 3) == 0) {
				p = q + 3;
			} else {
				return CF_V_NATIVE;
			}
		} else {
			return CF_V_NATIVE;
		}
		if (!vp->gen && (!(tail = cf_id(p, &v)) || (*tail != '/' && *tail != '\0')))
			return CF_V_NATIVE;
	}
	fp_cpus_map(&m);
	if (m.identity)
		return CF_V_NATIVE;
	len = 0;
	if (!cf_cat(vp->real, sizeof vp->real, &len, a, (size_t)(p - a)))
		return CF_V_NATIVE;
	vp->at = len;
	if (!vp->gen) {
		char num[24];
		struct fp_buf b = { num, 0, sizeof num };

		if (v >= m.n)
			return CF_V_GONE;
		vp->v = v;
		vp->rc = fp_cpus_real_of(&m, v % m.r);
		fp_buf_long(&b, vp->rc);
		if (!cf_cat(vp->real, sizeof vp->real, &len, num, b.len))
			return CF_V_NATIVE;
		vp->gen = *tail == '/' && cf_cpu_file(tail + 1, &vp->kind);
	}
	if (!cf_cat(vp->real, sizeof vp->real, &len, tail, strlen(tail)))
		return CF_V_NATIVE;
	return CF_V_REAL;
}

int fp_cpus_listing(int dirfd, const char *path)
{
	struct cpus_map m;
	const char *q;
	long node;
	int kind = 0;
	size_t n;

	if (!path) {
		kind = cf_dir_of(dirfd) == CF_CPUDIR ? 1 : 0;
	} else if (strncmp(path, CF_SYS, CF_SYS_LEN) == 0) {
		path += CF_SYS_LEN;
		n = strlen(path);
		if (n && path[n - 1] == '/')
			n--;
		if (n == 3 && strncmp(path, "cpu", 3) == 0)
			kind = 1;
		else if (strncmp(path, "node/node", 9) == 0 && (q = cf_id(path + 9, &node)) &&
		         (size_t)(q - path) == n)
			kind = 2;
	}
	if (kind) {
		fp_cpus_map(&m);
		if (m.identity)
			kind = 0;
	}
	return kind;
}

/* Whether the real cache whose id vp names is shared with another CPU:
 * its shared_cpu_list holds more than one. */
static bool cf_cache_shared(const struct cf_vpath *vp)
{
	char path[CF_VPATH_MAX + 16], buf[64];
	size_t len = strlen(vp->real) - 2; /* less "id" */
	ssize_t n;
	int fd;

	memcpy(path, vp->real, len);
	memcpy(path + len, "shared_cpu_list", 16);
	if ((fd = (int)fp_raw_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0)) < 0)
		return true;
	n = fp_raw_read(fd, buf, sizeof buf);
	fp_raw_close(fd);
	return n <= 0 || memchr(buf, ',', (size_t)n) || memchr(buf, '-', (size_t)n) ||
	       n == (ssize_t)sizeof buf;
}

bool fp_cpus_readlink_slow(int dirfd, const char *path, char *buf, size_t n, ssize_t *ret)
{
	char got[CF_VPATH_MAX], num[24];
	struct fp_buf b = { num, 0, sizeof num };
	struct cf_vpath vp;
	const char *last;
	ssize_t len;
	size_t keep;

	if (!path || (path[0] == '/' ? strncmp(path, CF_SYS, CF_SYS_LEN) != 0 : dirfd == AT_FDCWD))
		return false;
	switch (fp_cpus_vpath(dirfd, path, &vp)) {
	case CF_V_NATIVE:
		return false;
	case CF_V_GONE:
		errno = ENOENT;
		*ret = -1;
		return true;
	case CF_V_REAL:
		break;
	}
	if (vp.v < 0)
		return false;
	if ((len = fp_raw_readlinkat(AT_FDCWD, vp.real, got, sizeof got - 1)) < 0) {
		*ret = -1;
		return true;
	}
	got[len] = '\0';
	/* A node's link to the CPU itself ("../../cpu/cpuR") names cpuK. */
	last = strrchr(got, '/');
	last = last ? last + 1 : got;
	fp_buf_str(&b, "cpu");
	fp_buf_long(&b, vp.rc);
	if (!vp.real[vp.at + strcspn(vp.real + vp.at, "/")] && strcmp(last, num) == 0) {
		b.len = 0;
		fp_buf_str(&b, "cpu");
		fp_buf_long(&b, vp.v);
		keep = (size_t)(last - got);
		if (keep + b.len < sizeof got) {
			memcpy(got + keep, num, b.len);
			len = (ssize_t)(keep + b.len);
		}
	}
	if ((size_t)len > n)
		len = (ssize_t)n;
	memcpy(buf, got, (size_t)len);
	*ret = len;
	return true;
}

/* The last component of a path: the memfd's name. */
static const char *cf_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A cpuK path, a node's cpu set, a status: served, or asked of the real
 * CPU's file with the caller's flags (which the kernel checks). */
__attribute__((noinline)) static bool cf_open_vpath(int dirfd, const char *path, int flags,
                                                    int *fd_out)
{
	struct cf_vpath vp;
	struct cf_what w;
	bool plain = (flags & O_ACCMODE) == O_RDONLY && !(flags & ~(O_ACCMODE | CF_OK_FLAGS));
	int fd, saved = errno;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) /* O_TMPFILE holds O_DIRECTORY */
		return false;
	switch (fp_cpus_vpath(dirfd, path, &vp)) {
	case CF_V_NATIVE:
		return false;
	case CF_V_GONE:
		*fd_out = -1;
		errno = ENOENT;
		return true;
	case CF_V_REAL:
		break;
	}
	if (vp.gen && plain) {
		w.kind = vp.kind;
		w.about.v = vp.v;
		w.about.vmask = NULL;
		w.about.shared = vp.kind == CF_T_CACHE_ID && cf_cache_shared(&vp);
		w.name = cf_base(vp.real);
		w.sysfs = vp.kind != CF_STATUS;
		w.shown = vp.real;
		w.whose = (pid_t)vp.rc;
		return cf_serve(&w, AT_FDCWD, vp.real, flags, fd_out);
	}
	if (vp.v < 0)
		return false; /* a node's or status file the kernel opens as asked */
	fd = (int)fp_raw_openat(AT_FDCWD, vp.real, flags, 0);
	if (fd >= 0) {
		/* Names under it are cpu v's (a program walking with openat). */
		if (!vp.real[strcspn(vp.real + vp.at, "/") + vp.at])
			cf_note(CF_CPUK, vp.v, fd);
		errno = saved;
	}
	*fd_out = fd;
	return true;
}

/* The path test comes first, in a small frame: it is all that an open of
 * any other file pays. */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	const struct cf_file *f = cf_match(dirfd, path, flags);
	struct cf_what w;

	if (fp_likely(!f)) {
		if (!path || (path[0] == '/' ? path[1] != 's' && path[1] != 'p'
		                             : fp_likely(atomic_load_explicit(&cf_nslots,
		                                                              memory_order_relaxed) == 0)))
			return false;
		return cf_open_vpath(dirfd, path, flags, fd_out);
	}
	w.kind = f->kind;
	w.about.v = -1;
	w.about.vmask = NULL;
	w.about.shared = false;
	w.name = f->name;
	w.sysfs = f->dir == CF_CPUDIR;
	w.shown = f->path;
	w.whose = 0;
	return cf_serve(&w, dirfd, path, flags, fd_out);
}

#endif /* FP_LINUX */
