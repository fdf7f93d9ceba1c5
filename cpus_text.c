/* SPDX-License-Identifier: MIT */
/*
 * cpus_text.c: the CPU files' text as a kernel of the machine the cap shows
 * would write it (issues 12, 28).  Pure functions: the kernel's text and
 * the map (struct cpus_map, cpus.h) in, the new text out (struct cf_out),
 * unit-tested in tests/test_cpus_files.c.  Which files are
 * cpus_files_shim.c's, the descriptors they are served through
 * cpus_serve.c's.
 *
 *   /proc/cpuinfo   one block per virtual CPU v, 0..N-1: the kernel's block
 *                   of the real CPU v runs on (R[v mod r]), every line its
 *                   own but the topology, which is derived for one package
 *                   of N cores without SMT: processor, core id, apicid and
 *                   initial apicid say v; physical id 0; siblings and cpu
 *                   cores N
 *   /proc/stat      the "cpu" total (the sum of the lines shown), then a
 *                   cpuN line per virtual CPU, the numbers of its real CPU
 *   CPU lists       /sys/devices/system/cpu/{online,possible,present}:
 *                   "0-<N-1>"
 *   kernel_max      the kernel's when it holds N CPUs, else 8191 (the
 *                   NR_CPUS of a kernel that boots that many)
 *   cpuK/topology/, cache/indexI/shared_cpu_*, nodeX/cpu{map,list} and
 *   a status's Cpus_allowed lines: sets of virtual CPUs (cpus_sets.c)
 *
 * When the map is the identity (N equal to the real count, the process
 * allowed on every CPU) the bytes are the kernel's own.  No allocation, no
 * lock that waits: it runs inside an open wrapper.  One state, the memo
 * of the last /proc/cpuinfo made (cf_cpuinfo_memo, cpus_memo.c), used only
 * when the text goes to a descriptor: the transforms into a buffer stay
 * pure.
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* A full pipe (cpus_serve.c's copy under RLIMIT_FSIZE, written
 * nonblocking by the thread that will read it): doubled, where the pipe
 * limits allow; false leaves EAGAIN. */
static bool cf_pipe_grow(int fd)
{
	long size = syscall(SYS_fcntl, fd, F_GETPIPE_SZ);

	if (size <= 0 || syscall(SYS_fcntl, fd, F_SETPIPE_SZ, size * 2) <= size) {
		errno = EAGAIN;
		return false;
	}
	return true;
}

void cf_flush(struct cf_out *o)
{
	size_t done = 0;

	if (o->fd < 0 || o->err)
		return;
	while (done < o->len) {
		ssize_t n = fp_raw_write(o->fd, o->p + done, o->len - done);

		if (n < 0 && (errno == EINTR || (errno == EAGAIN && cf_pipe_grow(o->fd))))
			continue;
		if (n <= 0) {
			o->err = n < 0 ? errno : EIO;
			return;
		}
		done += (size_t)n;
	}
	o->len = 0;
}

void cf_put(struct cf_out *o, const char *s, size_t n)
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

void cf_putu(struct cf_out *o, unsigned long long v)
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
const char *cf_eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

bool cf_prefixn(const char *p, const char *end, const char *lit, size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* Digits at p: their value in *v, and where they end; NULL when none. */
const char *cf_num(const char *p, const char *end, unsigned long long *v)
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

/* The block of real CPU id, searched from `from` to the end, then from the
 * first block; false when the kernel wrote none (a CPU gone offline). */
static bool cf_find_block(const char *first, const char *from, const char *end, long id,
                          struct cf_block *b)
{
	const char *p = from;
	int pass;

	for (pass = 0; pass < 2; pass++, p = first)
		for (; p < end && cf_cpuinfo_block(p, end, b); p = b->end)
			if (b->id == id)
				return true;
	return false;
}

/* The derived topology of virtual CPU v (see the top): its value for the
 * line's field, or -1 for a line kept as the kernel wrote it. */
static long cf_topology(const char *key, size_t klen, const struct cpus_map *m, long v)
{
#define CF_KEY(k) k, sizeof(k) - 1
	static const struct {
		const char *key;
		size_t len;
		bool per_cpu; /* v; else N, or 0 for the package */
		bool count;
	} f[] = {
		{ CF_KEY("processor"), true, false },  { CF_KEY("core id"), true, false },
		{ CF_KEY("apicid"), true, false },     { CF_KEY("initial apicid"), true, false },
		{ CF_KEY("physical id"), false, false }, { CF_KEY("siblings"), false, true },
		{ CF_KEY("cpu cores"), false, true },
	};
#undef CF_KEY
	size_t i;

	for (i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i].len == klen && memcmp(f[i].key, key, klen) == 0)
			return f[i].per_cpu ? v : f[i].count ? m->n : 0;
	return -1;
}

/* A block as virtual CPU v's: each line "key<tabs>: value" whose key has a
 * derived value gets it, the others are copied. */
static void cf_block_as(struct cf_out *o, const struct cf_block *b, const struct cpus_map *m,
                        long v)
{
	const char *p, *eol, *colon, *k, *kept = b->start;
	long val;

	/* Lines kept as they are go out in runs, one copy per run. */
	for (p = b->start; p < b->end; p = eol) {
		eol = cf_eol(p, b->end);
		colon = memchr(p, ':', (size_t)(eol - p));
		for (k = colon; k && k > p && (k[-1] == '\t' || k[-1] == ' '); k--)
			;
		if (!colon || (val = cf_topology(p, (size_t)(k - p), m, v)) < 0)
			continue;
		cf_put(o, kept, (size_t)(colon + 1 - kept));
		kept = eol;
		cf_put(o, " ", 1);
		cf_putu(o, (unsigned long long)val);
		cf_put(o, "\n", 1);
	}
	cf_put(o, kept, (size_t)(b->end - kept));
}

void cf_cpuinfo(const char *in, size_t len, const struct cpus_map *m, struct cf_out *o)
{
	const char *p = in, *end = in + len, *first, *at;
	struct cf_block b, tmpl;
	bool found = false;
	long v;

	if (m->identity) {
		cf_put(o, in, len);
		return;
	}
	/* Text before the first block. */
	while (p < end && !(found = cf_cpuinfo_block(p, end, &tmpl)))
		p = cf_eol(p, end);
	cf_put(o, in, (size_t)(p - in));
	if (!found) /* no block: the text as it was */
		return;
	first = at = p;
	/* R ascends, and so do the kernel's blocks: one walk per round of r. */
	for (v = 0; v < m->n; v++) {
		if (v % m->r == 0)
			at = first;
		if (cf_find_block(first, at, end, fp_cpus_real_of(m, v % m->r), &b))
			at = b.end;
		else
			b = tmpl;
		cf_block_as(o, &b, m, v);
	}
}

/* ------------------------------------------------------------------------
 * /proc/stat: "cpu  a b c ..." (the total), then "cpuN a b c ..." lines,
 * then everything else.  The total becomes the sum of the lines shown
 * (with the identity map the kernel's text is kept: the kernel rounds the
 * total once, not per line, so its sum may differ from the lines' by a
 * tick).
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

/* The cpuN line of real CPU id from `from` on, then from the first one:
 * where its numbers start, or NULL when the kernel wrote none. */
static const char *cf_find_line(const char *first, const char *from, const char *end, long id,
                                const char **line)
{
	const char *p = from, *ne;
	long got;
	int pass;

	for (pass = 0; pass < 2; pass++, p = first) {
		for (; p < end && cf_stat_cpu(p, end, &got, &ne); p = cf_eol(p, end)) {
			if (got == id) {
				*line = p;
				return ne;
			}
		}
	}
	return NULL;
}

/* The cpuN lines of the virtual CPUs, from the kernel's lines [lines, end):
 * summed, and written unless emit is NULL.  A real CPU without a line (gone
 * offline) takes the first line's numbers. */
static void cf_stat_walk(const char *lines, const char *end, const struct cpus_map *m,
                         struct cf_out *emit, unsigned long long *sum, int *ncols)
{
	const char *at = lines, *line, *num, *eol;
	long id, v;

	for (v = 0; v < m->n; v++) {
		if (v % m->r == 0)
			at = lines;
		num = cf_find_line(lines, at, end, fp_cpus_real_of(m, v % m->r), &line);
		if (!num) {
			line = lines;
			if (!cf_stat_cpu(lines, end, &id, &num))
				return;
		}
		eol = cf_eol(line, end);
		at = eol;
		cf_stat_add(sum, ncols, num, eol);
		if (emit) {
			cf_put(emit, "cpu", 3);
			cf_putu(emit, (unsigned long long)v);
			cf_put(emit, num, (size_t)(eol - num));
		}
	}
}

static void cf_stat(const char *in, size_t len, const struct cpus_map *m, struct cf_out *o)
{
	const char *p = in, *end = in + len, *lines, *rest;
	unsigned long long sum[CF_STAT_COLS] = { 0 };
	int ncols = 0, c;
	long id;
	const char *ne;

	if (m->identity) {
		cf_put(o, in, len);
		return;
	}
	/* Lines before the total (none on any kernel we know) are kept. */
	while (p < end && !cf_prefix(p, end, "cpu "))
		p = cf_eol(p, end);
	cf_put(o, in, (size_t)(p - in));
	if (p == end)
		return;
	lines = cf_eol(p, end);
	for (rest = lines; rest < end && cf_stat_cpu(rest, end, &id, &ne); rest = cf_eol(rest, end))
		;
	cf_stat_walk(lines, rest, m, NULL, sum, &ncols);
	cf_put(o, "cpu ", 4);
	for (c = 0; c < ncols; c++) {
		cf_put(o, " ", 1);
		cf_putu(o, sum[c]);
	}
	cf_put(o, "\n", 1);
	cf_stat_walk(lines, rest, m, o, sum, &ncols);
	cf_put(o, rest, (size_t)(end - rest));
}

/* ------------------------------------------------------------------------
 * CPU lists ("0-3,8,10-11\n"): online, possible and present are 0..N-1.
 * kernel_max: the kernel's when it holds N CPUs, else 8191.
 * ---------------------------------------------------------------------- */
static void cf_list(const char *in, size_t len, const struct cpus_map *m, struct cf_out *o)
{
	if (m->identity) {
		cf_put(o, in, len);
		return;
	}
	cf_put(o, "0", 1);
	if (m->n > 1) {
		cf_put(o, "-", 1);
		cf_putu(o, (unsigned long long)(m->n - 1));
	}
	cf_put(o, "\n", 1);
}

static void cf_kernel_max(const char *in, size_t len, const struct cpus_map *m, struct cf_out *o)
{
	unsigned long long k;

	if (cf_num(in, in + len, &k) && k + 1 >= (unsigned long long)m->n) {
		cf_put(o, in, len);
		return;
	}
	cf_putu(o, (unsigned long long)CPUS_LINUX_MAX - 1);
	cf_put(o, "\n", 1);
}

void cf_transform(enum cf_kind kind, const char *in, size_t len, const struct cpus_map *m,
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
	case CF_KMAX:
		cf_kernel_max(in, len, m, o);
		break;
	default:
		cf_of(kind, NULL, in, len, m, o);
		break;
	}
}

void cf_transform_of(enum cf_kind kind, const struct cf_about *a, const char *in, size_t len,
                     const struct cpus_map *m, struct cf_out *o)
{
	if (kind == CF_CPUINFO && !m->identity && cf_cpuinfo_memo(in, len, m, o))
		return;
	if (kind <= CF_KMAX)
		cf_transform(kind, in, len, m, o);
	else
		cf_of(kind, a, in, len, m, o);
}
#endif /* FP_LINUX */
