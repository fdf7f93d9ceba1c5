/*
 * cpus_text.c: the CPU files' text as a kernel with the capped machine
 * would write it (issue 12).  Pure functions: the kernel's text and the
 * mask of CPUs shown (struct cf_mask, cpus.h) in, the new text out
 * (struct cf_out), unit-tested in tests/test_cpus_files.c.  Which files,
 * and the descriptors they are served through, are cpus_files_shim.c's.
 *
 *   /proc/cpuinfo   one block per CPU shown, a made-up CPU a copy of a
 *                   real CPU's block with its number changed
 *   /proc/stat      the "cpu" total and one cpuN line per CPU shown
 *   CPU lists       /sys/devices/system/cpu/{online,possible,present}
 *
 * With N equal to the real count the bytes are the kernel's own.  No
 * allocation, no lock: it runs inside an open wrapper.
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
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

void cf_flush(struct cf_out *o)
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
	bool found = false;
	long want;

	/* Text before the first block. */
	while (p < end && !(found = cf_cpuinfo_block(p, end, &tmpl)))
		p = cf_eol(p, end);
	cf_put(o, in, (size_t)(p - in));
	if (!found) /* no block: the text as it was */
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

/* A made-up CPU's line: the template line (tmpl, its numbers from
 * tmpl_num) under the number id, summed, and emitted unless emit is NULL. */
static void cf_stat_made_up(struct cf_out *emit, unsigned long long *sum, int *ncols,
                            const char *tmpl, const char *tmpl_num, const char *end, long id)
{
	const char *eol = cf_eol(tmpl, end);

	cf_stat_add(sum, ncols, tmpl_num, eol);
	if (emit) {
		cf_put(emit, "cpu", 3);
		cf_putu(emit, (unsigned long long)id);
		cf_put(emit, tmpl_num, (size_t)(eol - tmpl_num));
	}
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
			cf_stat_made_up(emit, sum, ncols, tmpl, tmpl_num, end, want);
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
		cf_stat_made_up(emit, sum, ncols, tmpl, tmpl_num, end, want);
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
#define CF_LIST_MAX (CPUS_MAX * 2 + 8192)

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

void cf_transform(enum cf_kind kind, const char *in, size_t len, const struct cf_mask *m,
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
#endif /* FP_LINUX */
