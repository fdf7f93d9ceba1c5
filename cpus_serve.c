/* SPDX-License-Identifier: MIT */
/*
 * cpus_serve.c: a CPU file served (cpus_files_shim.c says which): the real
 * file read afresh, its text transformed for the machine the cap shows
 * (cpus_text.c) into a memfd reopened read-only, or a pipe, or the real
 * file where the program's RLIMIT_FSIZE leaves no room.  Raw system calls
 * and a static or mmap'd scratch area only: no malloc, no lock that waits.
 */
#include "fastpath.h"
#include "cpus.h"

#include <sys/resource.h>

#ifdef FP_LINUX
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
	_Alignas(64) unsigned char stack[16384]; /* cf_refresh's thread's */
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
	char name[128], hex[13];
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
	/* Names nobody else can guess (a review: another user who planted
	 * the pid and a count's names made the open fail with EMFILE), each
	 * directory tried again while the name was taken. */
	for (size_t i = 0, tries = 0; i < sizeof dirs / sizeof dirs[0] && fd < 0; tries++) {
		struct fp_buf b = { name, 0, sizeof name };

		fp_of_nonce(hex, true);
		fp_buf_str(&b, dirs[i]);
		fp_buf_str(&b, "/.fastpath-cpus-");
		fp_buf_str(&b, hex);
		fd = cf_named_copy(name, map, (size_t)st.st_size, flags);
		if (fd < 0 && errno == EFBIG)
			err = EFBIG; /* cf_serve serves the real file */
		if (fd < 0 && (errno != EEXIST || tries == 3))
			i++, tries = (size_t)-1;
	}
	if (map)
		munmap(map, (size_t)st.st_size);
	return fd >= 0 ? fd : -err;
}

/* Descriptor fd of this thread's table opened anew with flags: through
 * /proc/thread-self, which still resolves once the main thread has exited
 * (/proc/self, the main thread's, then fails: a cold review's copy never
 * read again), or /proc/self before Linux 3.17.  The descriptor or -1. */
static int cf_reopen(int fd, int flags)
{
	static const char *const dirs[] = { "/proc/thread-self/fd/", "/proc/self/fd/" };
	int r = -1;

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char link[64];
		struct fp_buf b = { link, 0, sizeof link };

		fp_buf_str(&b, dirs[i]);
		fp_buf_long(&b, fd);
		if ((r = (int)fp_raw_openat(AT_FDCWD, link, flags, 0)) >= 0 || errno != ENOENT)
			break;
	}
	return r;
}

/*
 * The scratch file, reopened read-only on the same number: as on procfs a
 * write then fails with EBADF, and the descriptor is the lowest free one,
 * with O_CLOEXEC exactly as asked.  Returns the descriptor or -errno.
 */
static int cf_read_only(int rw, int flags)
{
	int ro, cloexec = flags & O_CLOEXEC;

	ro = cf_reopen(rw, O_RDONLY | O_CLOEXEC | (flags & O_NONBLOCK));
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

/* The text of the machine m written to fd: 0 or errno (EFBIG: the
 * program's file-size limit left no room; EAGAIN: a pipe that cannot
 * grow enough). */
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
	/* The system call writes only the kernel's mask size (32 bytes of
	 * 128 here): the rest must read as no CPU (a cold review: stack
	 * leftovers showed as CPUs, 0-3 for 0,2). */
	CPU_ZERO(&now);
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
__attribute__((noinline)) bool cf_serve(struct cf_what *w, int dirfd, const char *path, int flags,
                                        int *fd_out)
{
	struct cf_mem *mem = cf_mem_take();
	struct cf_text in = { NULL, 0, CF_IN_SMALL, false };
	struct cpus_map m;
	struct fp_fsz g;
	int saved = errno, err = mem ? 0 : ENOMEM, fd = -1;
	bool piped = false, limited = false;

	/* The identity map's text is the kernel's, byte for byte: the real
	 * file then, whose every read (a seek back, a pread) is procfs's own. */
	fp_cpus_map(&m);
	if (m.identity) {
		if (mem)
			cf_mem_give(mem);
		return false;
	}
	/* The kernel resolves the path (and dirfd): same errors as native.
	 * Read before the hold: /proc/self/status's SigBlk is this thread's
	 * mask at the read, which must be the program's, not the hold's. */
	if (!err) {
		in.p = mem->in;
		err = cf_read_real(dirfd, path, flags, &in);
	}
	fp_fsz_hold(&g);
	if (!err) {
		if (w->kind == CF_STATUS)
			cf_status_mask(w, &m, mem->vmask, sizeof mem->vmask);
		fd = cf_scratch(w->name);
		err = fd < 0 ? errno : 0;
		/* No file of our own (memfd_create refused by a filter or
		 * absent, /dev/shm and /tmp not writable): served as over the
		 * file-size limit, never failed (a cold review: EROFS). */
		limited = err != 0;
		/* The mode fstat shows, as procfs's and sysfs's: r--r--r--
		 * (this descriptor, opened read-write before, still writes). */
		if (!err)
			(void)fchmod(fd, 0444);
	}
	if (!err && (err = cf_fill(fd, w, &in, &m, mem->stage)) != 0) {
		fp_raw_close(fd);
		limited = err == EFBIG;
	}
	if (err && limited) {
		fd = cf_pipe_copy(w, &in, &m, mem->stage, flags);
		err = fd < 0 ? -fd : 0;
		piped = !err;
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
		                         : piped ? "virtual file served in a pipe (RLIMIT_FSIZE, or no file of its own)"
		                                 : "virtual file served");
	if (err) {
		errno = err;
		*fd_out = -1;
	} else {
		if (!piped)
			fp_cpus_served(fd, w);
		errno = saved;
		*fd_out = fd;
	}
	return true;
}

/*
 * A served /proc/stat or /proc/cpuinfo made again: procfs makes its text
 * afresh at a read from the start and after a seek elsewhere (seq_file),
 * and a program that keeps /proc/stat open and seeks back saw the
 * counters of its open for ever (a cold review: vmstat and top showed an
 * idle machine).  The new text goes into the copy's own file, through a
 * writable reopen that its r--r--r-- mode refuses to all but root: write
 * permission for the moment of that reopen.  The caller holds every signal
 * (cf_again).  Not under a file-size limit, where the text would be cut
 * part way (a cold review); on any failure before the first write the
 * text stays as it was.
 *
 * The kernel's file and the writable reopen are opened in a thread of
 * ours with a descriptor table of its own (fp_apart), so they are never
 * in the program's table: a fork in another thread meanwhile copied one
 * into its child (1784 of 3000 children of a process that read /proc/stat
 * again beside a forking thread had one descriptor more).  The thread
 * costs a clone (tens of microseconds), paid only where another thread
 * may fork: with one thread (vmstat, top) it is done here, as where no
 * such thread can be made (valgrind, a filter refusing clone).  Its table
 * is a copy, so another thread's close meanwhile is not its file's last
 * until the thread ends (fastpath(7)).  An empty one (readlink's way,
 * reaching the copy through /proc/TID/fd) was tried: the kernel's
 * close_range copies the first 64 slots anyway, and as many late
 * hang-ups were measured.
 */
struct cf_job {
	int fd;
	enum cf_kind kind;
	struct cf_mem *mem;
	struct cpus_map m;
};

/* System calls only (fp_apart): the thread shares the caller's TLS. */
static int cf_refresh_in(void *p)
{
	struct cf_job *j = p;
	struct cf_what w = { j->kind, { -1, NULL, false }, NULL, false, NULL, 0 };
	struct cf_text in = { j->mem->in, 0, CF_IN_SMALL, false };
	int wfd;
	long end;

	if (cf_read_real(AT_FDCWD, j->kind == CF_STAT ? "/proc/stat" : "/proc/cpuinfo", 0, &in) == 0) {
		wfd = cf_reopen(j->fd, O_WRONLY | O_CLOEXEC);
		if (wfd < 0 && errno == EACCES && fchmod(j->fd, 0200) == 0) {
			wfd = cf_reopen(j->fd, O_WRONLY | O_CLOEXEC);
			(void)fchmod(j->fd, 0444);
		}
		if (wfd >= 0 && cf_fill(wfd, &w, &in, &j->m, j->mem->stage) == 0 &&
		    (end = (long)syscall(SYS_lseek, wfd, 0L, SEEK_CUR)) >= 0)
			(void)syscall(SYS_ftruncate, wfd, end);
		if (wfd >= 0)
			fp_raw_close(wfd);
	}
	cf_text_free(&in);
	return 0;
}

__attribute__((noinline)) void cf_refresh(int fd, enum cf_kind kind)
{
	struct cf_job j = { fd, kind, NULL, { 0 } };
	struct rlimit fsz;

	if (getrlimit(RLIMIT_FSIZE, &fsz) != 0 || fsz.rlim_cur != FP_RLIM_INFINITY ||
	    !(j.mem = cf_mem_take()))
		return;
	fp_cpus_map(&j.m);
	/* With one thread and every signal held, nobody forks meanwhile.
	 * Otherwise a thread of ours with a table of its own: a process
	 * would be reaped by a program's wait(__WALL) and counted in its
	 * RUSAGE_CHILDREN (a cold review: 1467 helpers reaped by another
	 * thread in 3000 reads). */
	if (fp_one_thread() ||
	    fp_apart(CPUS_REAL(clone), cf_refresh_in, &j, j.mem->stack + sizeof j.mem->stack,
	             CLONE_THREAD | CLONE_SIGHAND, NULL) != 0)
		(void)cf_refresh_in(&j);
	cf_mem_give(j.mem);
}
#endif /* FP_LINUX */
