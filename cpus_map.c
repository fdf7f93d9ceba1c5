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
		if (CPU_ISSET_S(i, setsize, v)) {
			CPU_SET((size_t)fp_cpus_real_of(m, (long)i % m->r), out);
			any = true;
		}
	}
	return any;
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
	struct cpus_vmask *t = &fp_cpus_vthread;
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
	if (fp_likely(!t->valid))
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
 * Learnt once at initialisation (dl_iterate_phdr takes the loader's lock:
 * never in a call that a signal handler may make). */
static bool cpus_getcpu_libc FP_STARTUP_DATA;

FP_STARTUP_TEXT void cpus_getcpu_init(void)
{
	cpus_getcpu_libc = fp_in_libc((const void *)fp_real.r_sched_getcpu.f);
}

/* A call of a few nanoseconds (2.9 ns natively here): without the cap,
 * the read libc's own makes, not a call through to it, which costs a
 * third again. */
FP_EXPORT int sched_getcpu(void)
{
	int (*real)(void) = FP_REAL(sched_getcpu);
	int cpu = fp_likely(cpus_getcpu_libc) ? fp_rseq_cpu() : -1;

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
	int (*real)(unsigned int *, unsigned int *) = FP_REAL(getcpu);
	int rc;

	if (fp_likely(!(fp_cfg.enabled & FP_BIT(cpus))) && real)
		return real(cpu, node);
	rc = real ? real(cpu, node) : fp_nr_getcpu(cpu, node);
	if ((fp_cfg.enabled & FP_BIT(cpus)) && rc == 0 && cpu)
		*cpu = cpus_virtual_cpu(*cpu);
	return rc;
}
#endif /* FP_HAVE_AFFINITY */
