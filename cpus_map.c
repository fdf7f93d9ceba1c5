/* SPDX-License-Identifier: MIT */
/*
 * cpus_map.c: the machine the CPU cap shows (issue 28).
 *
 * A real machine of N CPUs numbers them 0..N-1, and everything a program
 * can ask agrees on that: the counts, the affinity masks, sched_getcpu(),
 * the CPU files.  Per-CPU slots (jemalloc's percpu arenas, tcmalloc,
 * an array of get_nprocs() entries indexed by sched_getcpu()) rely on it.
 * So the cap shows N virtual CPUs 0..N-1 whatever the real ids the process
 * may use (`taskset -c 8-15`, a container's cpuset), each one mapped onto
 * a real CPU of the start-up affinity mask R[0] < R[1] < ... < R[r-1]:
 *
 *   virtual v runs on R[v mod r]        (a pin to v pins to that CPU)
 *   real R[k] is the virtual CPUs v with v mod m == k mod m, m = min(N, r)
 *
 * With N >= r that is k, k+r, k+2r, ...: beyond the real count virtual
 * CPUs share the real ones round-robin.  With N < r it is k mod N: the
 * real CPUs past the first N fold onto the N shown, so a thread the kernel
 * runs there still answers with a CPU below N.  With N == r and R the
 * CPUs 0..r-1, all online, the map is the identity: the kernel's view.
 *
 * The start-up mask is learnt at the first question (cpus_view in
 * cpus_shim.c), not at load time, and with it the tables below.  Real ids at or past CPU_SETSIZE (1024)
 * are not mapped: such CPUs answer sched_getcpu() with their id mod N.
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_HAVE_AFFINITY
/* Written once, by the caller that learns the real view, before its
 * release store; read after the acquire that finds it done. */
static struct {
	long r;
	bool prefix;                      /* R[k] == k for every k, r == online */
	unsigned short real[CPU_SETSIZE]; /* R[k] */
	short index[CPU_SETSIZE];         /* k of real id c, or -1 */
} cm;
/* Set once cm is written: sched_getcpu's fast way to it. */
static _Atomic bool cm_built;

void fp_cpus_map_build(const cpu_set_t *allowed, long online)
{
	long k = 0;
	size_t c;

	for (c = 0; c < CPU_SETSIZE; c++) {
		bool in = allowed ? CPU_ISSET(c, allowed) : (long)c < online;

		cm.index[c] = (short)(in ? k : -1);
		if (in)
			cm.real[k++] = (unsigned short)c;
	}
	if (k == 0) { /* nothing readable: CPU 0, as a kernel always has */
		cm.real[0] = 0;
		cm.index[0] = 0;
		k = 1;
	}
	cm.r = k;
	cm.prefix = k == online && cm.real[k - 1] == k - 1;
	atomic_store_explicit(&cm_built, true, memory_order_release);
}

void fp_cpus_map_of(struct cpus_map *m, const cpu_set_t *allowed, long online, bool shared)
{
	m->n = fp_cpus_wanted();
	if (shared) {
		m->r = cm.r;
		m->real = cm.real;
		m->index = cm.index;
		m->identity = cm.prefix && m->n == cm.r;
		return;
	}
	/* Being learnt by another caller: the same map, without the tables. */
	m->real = NULL;
	m->index = NULL;
	CPU_ZERO(&m->allowed);
	for (size_t c = 0; c < CPU_SETSIZE; c++)
		if (allowed ? CPU_ISSET(c, allowed) : (long)c < online)
			CPU_SET(c, &m->allowed);
	if (CPU_COUNT(&m->allowed) == 0)
		CPU_SET(0, &m->allowed);
	m->r = CPU_COUNT(&m->allowed);
	m->identity = m->n == m->r && m->r == online && CPU_ISSET((size_t)(m->r - 1), &m->allowed);
}

long fp_cpus_real_of(const struct cpus_map *m, long k)
{
	long c;

	if (m->real)
		return m->real[k];
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &m->allowed) && k-- == 0)
			return c;
	return 0;
}

long fp_cpus_real_index(const struct cpus_map *m, long c)
{
	long k = 0;

	if (c < 0 || c >= CPU_SETSIZE)
		return -1;
	if (m->index)
		return m->index[c];
	if (!CPU_ISSET((size_t)c, &m->allowed))
		return -1;
	for (long i = 0; i < c; i++)
		k += CPU_ISSET((size_t)i, &m->allowed) != 0;
	return k;
}

void fp_cpus_to_virtual(const struct cpus_map *m, const cpu_set_t *now, size_t nowsize,
                        cpu_set_t *out, size_t outsize)
{
	long mod = m->n < m->r ? m->n : m->r, k, v;
	size_t c, bits = nowsize * 8;

	memset(out, 0, outsize);
	for (c = 0; c < bits; c++) {
		if (!CPU_ISSET_S(c, nowsize, now))
			continue;
		k = fp_cpus_real_index(m, (long)c);
		if (k < 0) { /* a CPU set from outside the start-up mask */
			CPU_SET_S((size_t)((long)c % m->n), outsize, out);
			continue;
		}
		for (v = k % mod; v < m->n; v += mod)
			CPU_SET_S((size_t)v, outsize, out);
	}
}

bool fp_cpus_to_real(const struct cpus_map *m, const cpu_set_t *v, size_t setsize,
                     cpu_set_t *out)
{
	size_t i, bits = setsize * 8 < (size_t)m->n ? setsize * 8 : (size_t)m->n;
	bool any = false;

	CPU_ZERO(out);
	for (i = 0; i < bits; i++) {
		if (fp_cpus_isset(i, setsize, v)) {
			CPU_SET((size_t)fp_cpus_real_of(m, (long)i % m->r), out);
			any = true;
		}
	}
	return any;
}

void fp_cpus_vmask_real(const struct cpus_map *m, const struct cpus_vmask *v, cpu_set_t *out)
{
	long id = v->run ? v->lo : 0, last = v->run ? v->hi : CPU_SETSIZE - 1;

	CPU_ZERO(out);
	/* Past lo + r every real CPU of a run is reached. */
	if (v->run && last >= v->lo + m->r)
		last = v->lo + m->r - 1;
	for (; id <= last && id < m->n; id++)
		if (cpus_vmask_has(v, id))
			CPU_SET((size_t)fp_cpus_real_of(m, id % m->r), out);
}

/* ------------------------------------------------------------------------
 * FASTPATH_CPUS_MAP="N:REAL[:VIRTUAL]" (cpus.h), parsed and written.  The
 * lists are the kernel's CPU lists, in ascending order ("0-3,8,10-11").
 * ---------------------------------------------------------------------- */
/* A decimal id below lim (no sign, no leading zero) at *sp: -1 if none. */
static long cpus_id(const char **sp, long lim)
{
	const char *p = *sp;
	long v = 0;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) >= lim)
			return -1;
	*sp = p;
	return v;
}

/* A list of ids below lim, ascending, up to the end of s or a ':', into v
 * (bits below CPU_SETSIZE; a run when it is one): false if malformed.
 * v->valid: the whole list fits a cpus_vmask. */
static bool cpus_parse_list(const char **sp, long lim, struct cpus_vmask *v)
{
	const char *p = *sp;
	long a, b, prev = -1;
	bool gap = false;

	memset(v, 0, sizeof *v);
	v->last_real = v->last_virt = -1;
	v->lo = -1;
	do {
		if ((a = cpus_id(&p, lim)) < 0 || a <= prev)
			return false;
		if (*p != '-')
			b = a;
		else if (++p, (b = cpus_id(&p, lim)) < a)
			return false;
		gap |= prev >= 0 && a != prev + 1;
		if (v->lo < 0)
			v->lo = (int)a;
		for (long id = a; id <= b && id < CPU_SETSIZE; id++)
			CPU_SET((size_t)id, &v->bits);
		prev = b;
	} while (*p == ',' && *p++);
	if (*p != '\0' && *p != ':')
		return false;
	*sp = p;
	v->hi = (int)prev;
	v->run = prev >= CPU_SETSIZE;
	v->valid = !v->run || !gap;
	return true;
}

int fp_cpus_parse_map(const char *s, struct cpus_handed *h, char *why, size_t whylen)
{
	struct fp_buf w = { why, 0, whylen };
	struct cpus_vmask r;
	const char *p = s;
	long n;

	memset(h, 0, sizeof *h);
	if (*s == '\0')
		return 0; /* empty: unset */
	if ((n = cpus_id(&p, CPUS_LINUX_MAX + 1)) < 1 || *p++ != ':') {
		fp_buf_str(&w, "not N:REAL[:VIRTUAL] (N from 1 to 8192, CPU lists)");
		return -1;
	}
	if (!cpus_parse_list(&p, CPU_SETSIZE, &r)) {
		fp_buf_str(&w, "REAL is not a CPU list of ids below 1024, ascending");
		return -1;
	}
	if (*p == ':') {
		p++;
		if (!cpus_parse_list(&p, n, &h->v) || *p) {
			fp_buf_str(&w, "VIRTUAL is not a CPU list of ids below N, ascending");
			return -1;
		}
		h->have_v = h->v.valid;
	}
	h->real = r.bits;
	h->n = n;
	return 0;
}

/* The ids below lim for which has(ctx, id), as a CPU list. */
/* The ids as a list of runs into b, or counted only (b NULL): the runs. */
static size_t cpus_put_list(struct fp_buf *b, long lim, bool (*has)(const void *, long),
                            const void *ctx)
{
	const char *sep = "";
	size_t runs = 0;

	for (long id = 0; id < lim; id++) {
		long end = id;

		if (!has(ctx, id))
			continue;
		while (end + 1 < lim && has(ctx, end + 1))
			end++;
		runs++;
		if (b) {
			fp_buf_str(b, sep);
			fp_buf_long(b, id);
			if (end > id) {
				fp_buf_str(b, "-");
				fp_buf_long(b, end);
			}
		}
		sep = ",";
		id = end;
	}
	return runs;
}

static bool cpus_has_real(const void *m, long c)
{
	return fp_cpus_real_index(m, c) >= 0;
}

static bool cpus_has_virt(const void *v, long id)
{
	return cpus_vmask_has(v, id);
}

static bool cpus_has_bit(const void *set, long c)
{
	return CPU_ISSET((size_t)c, (const cpu_set_t *)set);
}

/* "N:REAL[:VIRTUAL]" into b, or counted only (b NULL): the runs. */
static size_t cpus_format(struct fp_buf *b, long n, bool (*has)(const void *, long),
                          const void *real, const struct cpus_vmask *v)
{
	size_t runs;

	if (b) {
		fp_buf_long(b, n);
		fp_buf_str(b, ":");
	}
	runs = cpus_put_list(b, CPU_SETSIZE, has, real);
	if (v && b)
		fp_buf_str(b, ":");
	return runs + (v ? cpus_put_list(b, n, cpus_has_virt, v) : 0);
}

/* N and two colons, the NUL; a run "a-b," of ids below 65536 */
#define CPUS_ROOM(runs) (16 + 12 * (runs))

bool fp_cpus_format_map(char *buf, size_t len, const struct cpus_map *m,
                        const struct cpus_vmask *v)
{
	struct fp_buf b = { buf, 0, len };

	(void)cpus_format(&b, m->n, cpus_has_real, m, v);
	return b.len + 1 < len;
}

size_t fp_cpus_map_room(const struct cpus_map *m, const struct cpus_vmask *v)
{
	return CPUS_ROOM(cpus_format(NULL, m->n, cpus_has_real, m, v));
}

bool fp_cpus_format_handed(char *buf, size_t len, const struct cpus_handed *h)
{
	struct fp_buf b = { buf, 0, len };

	(void)cpus_format(&b, h->n, cpus_has_bit, &h->real, h->have_v ? &h->v : NULL);
	return b.len + 1 < len;
}

size_t fp_cpus_handed_room(const struct cpus_handed *h)
{
	return CPUS_ROOM(cpus_format(NULL, h->n, cpus_has_bit, &h->real, h->have_v ? &h->v : NULL));
}

/* ------------------------------------------------------------------------
 * sched_getcpu() and getcpu(): the virtual CPU the thread is on.  A thread
 * that pinned itself through us (its mask remembered, fp_cpus_vthread)
 * answers with the first id of its mask that runs on this real CPU, as a
 * thread pinned to virtual CPU 5 reads 5; that answer is kept for the next
 * call on the same real CPU.  Otherwise the real CPU's first virtual id.
 * ---------------------------------------------------------------------- */
static unsigned cpus_virtual_cpu(unsigned cpu)
{
	struct cpus_vmask *t = &fp_cpus_vthread, mine;
	struct cpus_map m;
	long k, mod, v;

	/* Built: the tables, without the view's frame and calls. */
	if (fp_likely(atomic_load_explicit(&cm_built, memory_order_acquire)))
		fp_cpus_map_of(&m, NULL, 0, true);
	else
		fp_cpus_map(&m);
	if (m.identity && (long)cpu < m.n)
		return cpu;
	k = fp_cpus_real_index(&m, (long)cpu);
	if (k < 0)
		return (unsigned)((long)cpu % m.n);
	mod = m.n < m.r ? m.n : m.r;
	/* No division at or above the real count, nor for one CPU; a 32-bit
	 * one otherwise (ids are below CPU_SETSIZE). */
	/* The thread's own record, while no other thread has set one's
	 * since (a cold review: a stale {3} answered 3 after a set of {1});
	 * else the main thread's for the main thread, a vfork child's own
	 * (cpus_my_vmask); else the real CPU's first virtual id, as its mask
	 * reads (the mask handed down at exec is the main thread's record). */
	if (fp_unlikely(!t->valid || t->gen != cpus_gen_now() || fp_vfork_child()))
		t = cpus_my_vmask(&mine) ? &mine : NULL;
	if (!t)
		return k < mod ? (unsigned)k : mod == 1 ? 0 : (unsigned)k % (unsigned)mod;
	if (t->last_real == (int)cpu)
		return (unsigned)t->last_virt;
	for (v = k % mod; v < m.n; v += mod) {
		if (cpus_vmask_has(t, v)) {
			t->last_real = (int)cpu;
			t->last_virt = (int)v;
			return (unsigned)v;
		}
	}
	return (unsigned)(k % mod);
}

/* The sched_getcpu we bound is libc's own (not a preload's after ours,
 * which must see the calls): then the rseq read is what it would make.
 * Learnt once, when the table is bound (cpus_bind): the C library's
 * address range, recorded at initialisation, answers it. */
static _Atomic bool cpus_getcpu_libc FP_STARTUP_DATA;

FP_STARTUP_TEXT void cpus_getcpu_init(void)
{
	atomic_store_explicit(&cpus_getcpu_libc, fp_in_libc(fp_real_cpus.r_sched_getcpu.p),
	                      memory_order_relaxed);
}

/* A call of a few nanoseconds (2.9 ns natively here): without the cap,
 * the read libc's own makes, not a call through to it, which costs a
 * third again. */
FP_EXPORT int sched_getcpu(void)
{
	int (*real)(void) = CPUS_REAL(sched_getcpu);
	int cpu = fp_likely(atomic_load_explicit(&cpus_getcpu_libc, memory_order_relaxed)) ? fp_rseq_cpu() : -1;

	if (fp_likely(!(fp_cfg.enabled & FP_BIT(cpus)))) {
		if (fp_likely(cpu >= 0))
			return cpu;
		if (real)
			return real();
	}
	if (cpu < 0)
		cpu = real ? real() : fp_nr_sched_getcpu();
	if ((fp_cfg.enabled & FP_BIT(cpus)) && cpu >= 0)
		cpu = (int)cpus_virtual_cpu((unsigned)cpu);
	return cpu;
}

FP_EXPORT int getcpu(unsigned int *cpu, unsigned int *node)
{
	int (*real)(unsigned int *, unsigned int *) = CPUS_REAL(getcpu);
	int rc;

	if (fp_likely(!(fp_cfg.enabled & FP_BIT(cpus))) && real)
		return real(cpu, node);
	rc = real ? real(cpu, node) : fp_nr_getcpu(cpu, node);
	if ((fp_cfg.enabled & FP_BIT(cpus)) && rc == 0 && cpu)
		*cpu = cpus_virtual_cpu(*cpu);
	return rc;
}
#endif /* FP_HAVE_AFFINITY */
