/* SPDX-License-Identifier: MIT */
/*
 * cpus_memo.c: the last /proc/cpuinfo made under the CPU cap, written
 * again while the kernel's text is unchanged (cpus_text.c makes it).
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The last /proc/cpuinfo made, kept for the next open of the process
 * (issue 37: 6 to 8x native at N = 64, most of it this transform made
 * again of the same kernel text).  The text is a function of the
 * kernel's text and of the map, which is fixed once for the process
 * (cpus_map.c: its tables are built once): when the kernel's text is
 * byte for byte the last one's, the copy made then is written again, in
 * one write.  Every open still reads the kernel's file (its checks, and
 * its moving fields: a clock that scales changes cpu MHz, and then the
 * text is made afresh, as before).
 *
 * One memo, taken with a try-lock: a caller that finds it taken (another
 * thread, a fork child of a process that forked while one held it)
 * transforms as before, into the caller's stage; so does one whose text
 * is past CF_MEMO_MAX, or where no memory is mapped.  The buffers are
 * anonymous mappings, grown by remapping, kept for the life of the
 * process (a few hundred KiB at most).  No malloc: this runs inside an
 * open wrapper.
 * ---------------------------------------------------------------------- */
#define CF_MEMO_MAX ((size_t)4 << 20)
static struct {
	_Atomic int busy;
	bool valid;
	long n, r;
	const unsigned short *real;
	char *in, *out;
	size_t in_len, in_cap, out_len, out_cap;
} cf_memo;

/* *p (cap bytes, mapped, or NULL) grown to hold want; false when it cannot. */
static bool cf_memo_room(char **p, size_t *cap, size_t want)
{
	size_t c = *cap ? *cap : 65536;
	void *q;

	while (c < want)
		c *= 2;
	if (c == *cap)
		return true;
	if (c > CF_MEMO_MAX)
		return false;
	q = *p ? mremap(*p, *cap, c, MREMAP_MAYMOVE)
	       : fp_mmap(NULL, c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return false;
	*p = q;
	*cap = c;
	return true;
}

/* The memo made for the kernel's text in[0, len) under m; false when it
 * cannot be (then it is left invalid). */
static bool cf_memo_make(const char *in, size_t len, const struct cpus_map *m)
{
	struct cf_out mo;

	cf_memo.valid = false;
	if (!cf_memo_room(&cf_memo.in, &cf_memo.in_cap, len) ||
	    !cf_memo_room(&cf_memo.out, &cf_memo.out_cap,
	                  len / (size_t)m->r * (size_t)m->n + (size_t)m->n * 64 + 4096))
		return false;
	for (;;) {
		mo = (struct cf_out){ cf_memo.out, 0, cf_memo.out_cap, -1, 0 };
		cf_cpuinfo(in, len, m, &mo);
		if (!mo.err)
			break;
		if (mo.err != ENOSPC || !cf_memo_room(&cf_memo.out, &cf_memo.out_cap, cf_memo.out_cap * 2))
			return false;
	}
	memcpy(cf_memo.in, in, len);
	cf_memo.in_len = len;
	cf_memo.out_len = mo.len;
	cf_memo.n = m->n;
	cf_memo.r = m->r;
	cf_memo.real = m->real;
	cf_memo.valid = true;
	return true;
}

/* /proc/cpuinfo under m written to o's descriptor from the memo (made
 * first when the kernel's text or the map differ from its); false when
 * the memo is not to be had (then nothing was written). */
bool cf_cpuinfo_memo(const char *in, size_t len, const struct cpus_map *m, struct cf_out *o)
{
	int idle = 0;
	bool done;

	if (o->fd < 0 || o->len || !m->real || len > CF_MEMO_MAX ||
	    !atomic_compare_exchange_strong(&cf_memo.busy, &idle, 1))
		return false;
	done = (cf_memo.valid && cf_memo.n == m->n && cf_memo.r == m->r && cf_memo.real == m->real &&
	        cf_memo.in_len == len && memcmp(cf_memo.in, in, len) == 0) ||
	       cf_memo_make(in, len, m);
	if (done) {
		struct cf_out w = { cf_memo.out, cf_memo.out_len, cf_memo.out_len, o->fd, 0 };

		cf_flush(&w);
		o->err = w.err;
	}
	atomic_store_explicit(&cf_memo.busy, 0, memory_order_release);
	return done;
}
#endif /* FP_LINUX */
