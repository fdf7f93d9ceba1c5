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
 * Two layers: pure text transforms (input text + mask -> output text,
 * unit-tested in tests/test_cpus_files.c), and one entry, fp_cpus_open(),
 * which the open wrappers call.  The entry uses raw system calls and mmap'd
 * or stack buffers only: no malloc, no lock, none of our own exports.
 * Linux only: illumos has no such files (psrinfo and kstat are its ways).
 */
#include "fastpath.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The mask of CPUs shown: real ids below real_bound that are set in `real`,
 * plus the made-up run [fake_lo, fake_lo + fake_n).
 * ---------------------------------------------------------------------- */
struct cf_mask {
	cpu_set_t real;
	long real_bound; /* ids below are real CPUs (sysconf _SC_NPROCESSORS_CONF) */
	long fake_lo, fake_n;
};

static bool cf_isset(const struct cf_mask *m, long id)
{
	if (id < 0)
		return false;
	if (id >= m->fake_lo && id < m->fake_lo + m->fake_n)
		return true;
	return id < m->real_bound && id < CPU_SETSIZE && CPU_ISSET((size_t)id, &m->real);
}

/* The smallest id >= from in the mask, or -1. */
static long cf_next(const struct cf_mask *m, long from)
{
	long id;

	if (from < 0)
		from = 0;
	for (id = from; id < m->real_bound && id < CPU_SETSIZE; id++)
		if (CPU_ISSET((size_t)id, &m->real) && !(id >= m->fake_lo && id < m->fake_lo + m->fake_n))
			return id;
	if (from < m->fake_lo)
		from = m->fake_lo;
	return from < m->fake_lo + m->fake_n ? from : -1;
}

/* ------------------------------------------------------------------------
 * Output: a staging buffer flushed to a descriptor with raw write(2).  With
 * fd < 0 (the unit tests) the buffer must hold everything; `err` records
 * the first failure, after which output is dropped.
 * ---------------------------------------------------------------------- */
struct cf_out {
	char *p;
	size_t len, cap;
	int fd;
	int err;
};

static void cf_flush(struct cf_out *o)
{
	size_t done = 0;

	if (o->fd < 0 || o->err)
		return;
	while (done < o->len) {
		ssize_t n = fp_raw_write(o->fd, o->p + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? errno : EIO;
			return;
		}
		done += (size_t)n;
	}
	o->len = 0;
}

static void cf_put(struct cf_out *o, const char *s, size_t n)
{
	while (n && !o->err) {
		size_t k;

		if (o->len == o->cap) {
			cf_flush(o);
			if (o->len == o->cap) {
				o->err = o->err ? o->err : ENOSPC;
				return;
			}
		}
		k = o->cap - o->len < n ? o->cap - o->len : n;
		memcpy(o->p + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

static void cf_putu(struct cf_out *o, unsigned long long v)
{
	char tmp[24];
	char *q = tmp + sizeof tmp;

	do
		*--q = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	cf_put(o, q, (size_t)(tmp + sizeof tmp - q));
}

/* ------------------------------------------------------------------------
 * Lines.
 * ---------------------------------------------------------------------- */
/* The end of the line starting at p (past its '\n', or end). */
static const char *cf_eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

static bool cf_prefix(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* Digits at p: their value in *v, and where they end; NULL when none. */
static const char *cf_num(const char *p, const char *end, unsigned long long *v)
{
	const char *s = p;

	*v = 0;
	while (p < end && *p >= '0' && *p <= '9')
		*v = *v * 10 + (unsigned long long)(*p++ - '0');
	return p == s ? NULL : p;
}

/* ------------------------------------------------------------------------
 * /proc/cpuinfo: blocks that each start with a "processor<space>: N" line
 * (x86, arm64, ppc64, riscv).  Text before the first block is kept.
 * ---------------------------------------------------------------------- */
struct cf_block {
	const char *start, *end;   /* the whole block, blank line included */
	const char *num, *num_end; /* the digits of its processor line */
	long id;
};

/* The block starting at p, or false when p does not start one. */
static bool cf_cpuinfo_block(const char *p, const char *end, struct cf_block *b)
{
	const char *q = p, *e;
	unsigned long long v;

	if (!cf_prefix(p, end, "processor"))
		return false;
	q += 9;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= end || *q != ':')
		return false;
	q++;
	while (q < end && *q == ' ')
		q++;
	if (!(e = cf_num(q, end, &v)))
		return false;
	b->start = p;
	b->num = q;
	b->num_end = e;
	b->id = (long)v;
	/* Up to the next processor line. */
	for (q = cf_eol(p, end); q < end; q = cf_eol(q, end))
		if (cf_prefix(q, end, "processor"))
			break;
	b->end = q;
	return true;
}

static void cf_block_as(struct cf_out *o, const struct cf_block *b, long id)
{
	cf_put(o, b->start, (size_t)(b->num - b->start));
	cf_putu(o, (unsigned long long)id);
	cf_put(o, b->num_end, (size_t)(b->end - b->num_end));
}

static void cf_cpuinfo(const char *in, size_t len, const struct cf_mask *m, struct cf_out *o)
{
	const char *p = in, *end = in + len;
	struct cf_block b, tmpl;
	long want;

	/* Text before the first block. */
	while (p < end && !cf_cpuinfo_block(p, end, &tmpl))
		p = cf_eol(p, end);
	cf_put(o, in, (size_t)(p - in));
	if (p == end)
		return;
	want = cf_next(m, 0);
	while (p < end && cf_cpuinfo_block(p, end, &b)) {
		/* An id shown with no block of its own before this one. */
		for (; want >= 0 && want < b.id; want = cf_next(m, want + 1))
			cf_block_as(o, &tmpl, want);
		if (want == b.id) {
			cf_put(o, b.start, (size_t)(b.end - b.start));
			want = cf_next(m, want + 1);
		}
		p = b.end;
	}
	for (; want >= 0; want = cf_next(m, want + 1))
		cf_block_as(o, &tmpl, want);
	cf_put(o, p, (size_t)(end - p));
}

/* ------------------------------------------------------------------------
 * /proc/stat: "cpu  a b c ..." (the total), then "cpuN a b c ..." lines,
 * then everything else.  The total becomes the sum of the lines shown;
 * when those are exactly the kernel's own lines it is kept as the kernel
 * wrote it (the kernel rounds the total once, not per line, so its sum
 * may differ from the lines' by a tick: kept byte-identical).
 * ---------------------------------------------------------------------- */
#define CF_STAT_COLS 16

/* A cpuN line at p: its id and where its digits are. */
static bool cf_stat_cpu(const char *p, const char *end, long *id, const char **num_end)
{
	unsigned long long v;
	const char *e;

	if (!cf_prefix(p, end, "cpu") || !(e = cf_num(p + 3, end, &v)))
		return false;
	*id = (long)v;
	*num_end = e;
	return true;
}

static void cf_stat_add(unsigned long long *sum, int *ncols, const char *p, const char *eol)
{
	int c = 0;

	while (p < eol && c < CF_STAT_COLS) {
		unsigned long long v;
		const char *e;

		while (p < eol && *p == ' ')
			p++;
		if (!(e = cf_num(p, eol, &v)))
			break;
		sum[c++] += v;
		p = e;
	}
	if (c > *ncols)
		*ncols = c;
}

/* Walks the cpuN lines in [p, end) against the mask; `emit` NULL means
 * only sum.  Returns whether the lines shown are exactly the real ones. */
static bool cf_stat_walk(const char *p, const char *end, const struct cf_mask *m,
                         struct cf_out *emit, unsigned long long *sum, int *ncols)
{
	const char *tmpl = NULL, *tmpl_num = NULL, *ne;
	bool same = true;
	long id, want = cf_next(m, 0);

	for (; p < end && cf_stat_cpu(p, end, &id, &ne); p = cf_eol(p, end)) {
		const char *eol = cf_eol(p, end);

		if (!tmpl) {
			tmpl = p;
			tmpl_num = ne;
		}
		for (; want >= 0 && want < id; want = cf_next(m, want + 1)) {
			same = false;
			cf_stat_add(sum, ncols, tmpl_num, cf_eol(tmpl, end));
			if (emit) {
				cf_put(emit, "cpu", 3);
				cf_putu(emit, (unsigned long long)want);
				cf_put(emit, tmpl_num, (size_t)(cf_eol(tmpl, end) - tmpl_num));
			}
		}
		if (want == id) {
			cf_stat_add(sum, ncols, ne, eol);
			if (emit)
				cf_put(emit, p, (size_t)(eol - p));
			want = cf_next(m, want + 1);
		} else {
			same = false;
		}
	}
	for (; want >= 0 && tmpl; want = cf_next(m, want + 1)) {
		same = false;
		cf_stat_add(sum, ncols, tmpl_num, cf_eol(tmpl, end));
		if (emit) {
			cf_put(emit, "cpu", 3);
			cf_putu(emit, (unsigned long long)want);
			cf_put(emit, tmpl_num, (size_t)(cf_eol(tmpl, end) - tmpl_num));
		}
	}
	return same;
}

static void cf_stat(const char *in, size_t len, const struct cf_mask *m, struct cf_out *o)
{
	const char *p = in, *end = in + len, *total, *lines, *rest;
	unsigned long long sum[CF_STAT_COLS] = { 0 };
	int ncols = 0, c;
	long id;
	const char *ne;

	/* Lines before the total (none on any kernel we know) are kept. */
	while (p < end && !cf_prefix(p, end, "cpu "))
		p = cf_eol(p, end);
	cf_put(o, in, (size_t)(p - in));
	if (p == end)
		return;
	total = p;
	lines = cf_eol(total, end);
	for (rest = lines; rest < end && cf_stat_cpu(rest, end, &id, &ne); rest = cf_eol(rest, end))
		;
	if (cf_stat_walk(lines, rest, m, NULL, sum, &ncols)) {
		cf_put(o, total, (size_t)(lines - total));
	} else {
		cf_put(o, "cpu ", 4);
		for (c = 0; c < ncols; c++) {
			cf_put(o, " ", 1);
			cf_putu(o, sum[c]);
		}
		cf_put(o, "\n", 1);
	}
	(void)cf_stat_walk(lines, rest, m, o, sum, &ncols);
	cf_put(o, rest, (size_t)(end - rest));
}

/* ------------------------------------------------------------------------
 * CPU lists ("0-3,8,10-11\n").  What is shown: the real list without the
 * real CPUs the cap hides (ids below real_bound not in the mask), plus
 * every id of the mask.  So online becomes exactly the mask, and possible
 * keeps the ids a kernel reserves for CPUs that are not there.
 * ---------------------------------------------------------------------- */
#define CF_LIST_MAX (FP_CPUS_MAX * 2 + 8192)

/* Is id in the list text? */
static bool cf_list_has(const char *in, size_t len, long id)
{
	const char *p = in, *end = in + len;

	while (p < end) {
		unsigned long long a, b;
		const char *e = cf_num(p, end, &a);

		if (!e)
			return false;
		b = a;
		if (e < end && *e == '-' && !(e = cf_num(e + 1, end, &b)))
			return false;
		if ((unsigned long long)id >= a && (unsigned long long)id <= b)
			return true;
		if (e >= end || *e != ',')
			return false;
		p = e + 1;
	}
	return false;
}

static long cf_list_max(const char *in, size_t len)
{
	const char *p = in, *end = in + len;
	unsigned long long v, max = 0;

	while (p < end) {
		const char *e = cf_num(p, end, &v);

		if (e) {
			if (v > max)
				max = v;
			p = e;
		} else {
			p++;
		}
	}
	return max < CF_LIST_MAX ? (long)max : CF_LIST_MAX;
}

static bool cf_list_shows(const char *in, size_t len, const struct cf_mask *m, long id)
{
	if (cf_isset(m, id))
		return true;
	return id >= m->real_bound && cf_list_has(in, len, id);
}

static void cf_list(const char *in, size_t len, const struct cf_mask *m, struct cf_out *o)
{
	long hi = cf_list_max(in, len), id, first = -1;
	bool comma = false;

	if (m->fake_n && m->fake_lo + m->fake_n - 1 > hi)
		hi = m->fake_lo + m->fake_n - 1;
	for (id = 0; id <= hi + 1; id++) {
		bool in_set = id <= hi && cf_list_shows(in, len, m, id);

		if (in_set && first < 0)
			first = id;
		if (in_set || first < 0)
			continue;
		if (comma)
			cf_put(o, ",", 1);
		cf_putu(o, (unsigned long long)first);
		if (id - 1 > first) {
			cf_put(o, "-", 1);
			cf_putu(o, (unsigned long long)(id - 1));
		}
		comma = true;
		first = -1;
	}
	cf_put(o, "\n", 1);
}

/* ------------------------------------------------------------------------
 * Which files: one table, checked against the kernel's paths.
 * ---------------------------------------------------------------------- */
enum cf_kind { CF_CPUINFO, CF_STAT, CF_LIST };

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

static void cf_transform(enum cf_kind kind, const char *in, size_t len, const struct cf_mask *m,
                         struct cf_out *o)
{
	switch (kind) {
	case CF_CPUINFO:
		cf_cpuinfo(in, len, m, o);
		break;
	case CF_STAT:
		cf_stat(in, len, m, o);
		break;
	case CF_LIST:
		cf_list(in, len, m, o);
		break;
	}
}

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
 * /proc/self/fd or /proc/self/cwd.
 */
static const struct cf_file *cf_lookup_rel(int dirfd, const char *path)
{
	char link[64], full[PATH_MAX];
	const char *base = strrchr(path, '/');
	struct fp_buf b = { link, 0, sizeof link };
	size_t i, n;
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
	k = fp_raw_readlinkat(AT_FDCWD, link, full, sizeof full - 1);
	if (k <= 0 || full[0] != '/')
		return NULL;
	n = (size_t)k;
	if (n > 1)
		full[n++] = '/';
	else
		n = 1;
	if (n + strlen(path) >= sizeof full)
		return NULL;
	memcpy(full + n, path, strlen(path) + 1);
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
 * plain reads, into the caller's stack buffer while it holds them (a
 * small machine's files fit), then into an mmap'd buffer that doubles.
 * ---------------------------------------------------------------------- */
struct cf_text {
	char *p;
	size_t len, cap;
	bool mapped;
};

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

static int cf_read_real(int dirfd, const char *path, struct cf_text *t)
{
	int fd = (int)fp_raw_openat(dirfd, path, O_RDONLY | O_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return errno;
	for (;;) {
		ssize_t n;

		if (t->len == t->cap && !cf_grow(t)) {
			err = ENOMEM;
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

bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	const struct cf_file *f = cf_match(dirfd, path, flags);
	char stage[8192], small[16384];
	struct cf_out o = { stage, 0, sizeof stage, -1, 0 };
	struct cf_text in = { small, 0, sizeof small, false };
	struct cf_mask m;
	int saved = errno, err;

	if (fp_likely(!f))
		return false;
	/* The kernel resolves the path (and dirfd): same errors as native. */
	err = cf_read_real(dirfd, path, &in);
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
#else /* !FP_LINUX: no CPU files to show */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	(void)dirfd;
	(void)path;
	(void)flags;
	(void)fd_out;
	return false;
}
#endif

/* ------------------------------------------------------------------------
 * fopen and fopen64, for our files only.  glibc's fopen opens through an
 * internal call the open wrappers never see.  The stream is a plain one
 * over the descriptor we made, which nothing else tracks: stdio may read,
 * seek and close it as it likes.  Every other fopen is the real one.
 * ---------------------------------------------------------------------- */
typedef FILE *(*cf_fopen_fn)(const char *, const char *);

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

static FILE *cf_fopen(cf_fopen_fn const *real, const char *path, const char *mode)
{
	int flags, fd;
	FILE *f;

	if (fp_unlikely(!fp_ready())) {
		errno = ENOSYS;
		return NULL;
	}
	if (fp_likely(!fp_enabled(FP_F_CPUS)) || !cf_fopen_flags(mode, &flags) ||
	    !fp_cpus_open(AT_FDCWD, path, flags, &fd))
		return (*real)(path, mode);
	if (fd < 0)
		return NULL;
	f = fp_real.r_fdopen.f(fd, "r");
	if (!f) {
		int err = errno;

		fp_raw_close(fd);
		errno = err;
	}
	return f;
}

FP_EXPORT FILE *fopen(const char *path, const char *mode)
{
	return cf_fopen(&fp_real.r_fopen.f, path, mode);
}

#ifdef FP_HAVE_LFS64
FP_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return cf_fopen(&fp_real.r_fopen64.f, path, mode);
}
#endif
