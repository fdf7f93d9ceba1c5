/* SPDX-License-Identifier: MIT */
/*
 * cpus_sets.c: the CPU files that are sets of virtual CPUs, as a kernel of
 * the machine the cap shows would write them: a CPU's topology and cache
 * sharing, a node's cpumap and cpulist, a status's Cpus_allowed lines.
 * Pure functions, as cpus_text.c's, whose output and line primitives they
 * use.
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The files of one CPU (cpuK/topology/, cpuK/cache/indexI/), of a NUMA
 * node (nodeX/cpumap, nodeX/cpulist) and the affinity lines of
 * /proc/PID/status: sets of virtual CPUs, written as the kernel writes a
 * cpumask of nr_cpu_ids = N bits, as a mask ("%*pb": 32-bit groups in
 * hex, most significant first, the first as wide as its bits need) or a
 * list ("%*pbl": "0-3,5").
 * ---------------------------------------------------------------------- */
enum cf_set_is { CF_SET_ONE, CF_SET_ALL, CF_SET_REAL, CF_SET_BITS };
struct cf_set {
	enum cf_set_is is;
	long v;                     /* CF_SET_ONE */
	const cpu_set_t *real;      /* CF_SET_REAL: the virtual CPUs on these */
	const unsigned char *bits;  /* CF_SET_BITS */
};

static bool cf_in(const struct cf_set *s, const struct cpus_map *m, long w)
{
	long c;

	switch (s->is) {
	case CF_SET_ONE:
		return w == s->v;
	case CF_SET_ALL:
		return true;
	case CF_SET_REAL:
		c = fp_cpus_real_of(m, w % m->r);
		return c >= 0 && c < CPU_SETSIZE && CPU_ISSET((size_t)c, s->real);
	case CF_SET_BITS:
		return (s->bits[w / 8] >> (w % 8)) & 1;
	}
	return false;
}

static void cf_put_list(struct cf_out *o, const struct cf_set *s, const struct cpus_map *m)
{
	bool first = true;

	for (long w = 0; w < m->n; w++) {
		long e = w;

		if (!cf_in(s, m, w))
			continue;
		while (e + 1 < m->n && cf_in(s, m, e + 1))
			e++;
		if (!first)
			cf_put(o, ",", 1);
		first = false;
		cf_putu(o, (unsigned long long)w);
		if (e > w) {
			cf_put(o, "-", 1);
			cf_putu(o, (unsigned long long)e);
		}
		w = e;
	}
}

static void cf_put_mask(struct cf_out *o, const struct cf_set *s, const struct cpus_map *m)
{
	static const char hex[] = "0123456789abcdef";
	long groups = (m->n + 31) / 32;

	for (long g = groups - 1; g >= 0; g--) {
		long bits = m->n - g * 32 < 32 ? m->n - g * 32 : 32;
		int digits = (int)((bits + 3) / 4);
		unsigned long val = 0;
		char d[8];

		for (long b = 0; b < bits; b++)
			if (cf_in(s, m, g * 32 + b))
				val |= 1ul << b;
		for (int i = digits - 1; i >= 0; i--, val >>= 4)
			d[i] = hex[val & 15];
		cf_put(o, d, (size_t)digits);
		if (g > 0)
			cf_put(o, ",", 1);
	}
}

/* A cpumask's text as the kernel writes it, mask or list, into *set (the
 * ids below CPU_SETSIZE); the count read. */
static long cf_parse_set(const char *in, size_t len, bool list, cpu_set_t *set)
{
	const char *p = in, *end = in + len;
	unsigned long long a, b;
	long bit = 0;

	CPU_ZERO(set);
	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	if (list) {
		while (p < end && (p = cf_num(p, end, &a)) != NULL) {
			b = a;
			if (p < end && *p == '-' && !(p = cf_num(p + 1, end, &b)))
				break;
			for (; a <= b && a < CPU_SETSIZE; a++)
				CPU_SET((size_t)a, set);
			if (p >= end || *p != ',')
				break;
			p++;
		}
		return CPU_COUNT(set);
	}
	for (const char *q = end; q > p; q--) {
		char c = q[-1];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (c == ',')
			continue;
		if (v < 0)
			break;
		for (int i = 0; i < 4; i++, bit++)
			if (((v >> i) & 1) && bit < CPU_SETSIZE)
				CPU_SET((size_t)bit, set);
	}
	return CPU_COUNT(set);
}

/* The "Cpus_allowed" and "Cpus_allowed_list" lines of a status file; the
 * others as the kernel wrote them. */
static void cf_status(const char *in, size_t len, const struct cf_set *s, const struct cpus_map *m,
                      struct cf_out *o)
{
	const char *p = in, *end = in + len, *eol;

	for (; p < end; p = eol) {
		eol = cf_eol(p, end);
		if (cf_prefix(p, eol, "Cpus_allowed:")) {
			cf_put(o, "Cpus_allowed:\t", 14);
			cf_put_mask(o, s, m);
			cf_put(o, "\n", 1);
		} else if (cf_prefix(p, eol, "Cpus_allowed_list:")) {
			cf_put(o, "Cpus_allowed_list:\t", 19);
			cf_put_list(o, s, m);
			cf_put(o, "\n", 1);
		} else {
			cf_put(o, p, (size_t)(eol - p));
		}
	}
}

/*
 * The machine is one package of N cores without SMT (as /proc/cpuinfo
 * says): a CPU's core and thread siblings are itself, its package and die
 * all N.  A cache the real CPU has to itself is v's alone; one it shares
 * (an L3, a node) holds the virtual CPUs that run on the real CPUs sharing
 * it.
 */
void cf_of(enum cf_kind kind, const struct cf_about *a, const char *in, size_t len,
           const struct cpus_map *m, struct cf_out *o)
{
	struct cf_set s = { CF_SET_ONE, a ? a->v : 0, NULL, NULL };
	cpu_set_t real;
	bool list = false;

	switch (kind) {
	case CF_CPUINFO:
	case CF_STAT:
	case CF_LIST:
	case CF_KMAX:
		return; /* cf_transform's */
	case CF_T_ID:
		cf_putu(o, (unsigned long long)s.v);
		cf_put(o, "\n", 1);
		return;
	case CF_T_ZERO:
		cf_put(o, "0\n", 2);
		return;
	case CF_T_CACHE_ID:
		if (a && a->shared) {
			cf_put(o, in, len);
		} else {
			cf_putu(o, (unsigned long long)s.v);
			cf_put(o, "\n", 1);
		}
		return;
	case CF_STATUS:
		if (!a || !a->vmask) {
			cf_put(o, in, len);
			return;
		}
		s.is = CF_SET_BITS;
		s.bits = a->vmask;
		cf_status(in, len, &s, m, o);
		return;
	case CF_T_SELF_LIST:
		list = true;
		break;
	case CF_T_SELF_MASK:
		break;
	case CF_T_ALL_LIST:
		list = true;
		/* fall through */
	case CF_T_ALL_MASK:
		s.is = CF_SET_ALL;
		break;
	case CF_T_SHARED_LIST:
	case CF_NODE_LIST:
		list = true;
		/* fall through */
	case CF_T_SHARED_MASK:
	case CF_NODE_MASK:
		s.is = CF_SET_REAL;
		s.real = &real;
		if (cf_parse_set(in, len, list, &real) <= 1 &&
		    (kind == CF_T_SHARED_LIST || kind == CF_T_SHARED_MASK))
			s.is = CF_SET_ONE;
		break;
	}
	if (list)
		cf_put_list(o, &s, m);
	else
		cf_put_mask(o, &s, m);
	cf_put(o, "\n", 1);
}
#endif /* FP_LINUX */
