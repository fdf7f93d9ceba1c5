/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of cpus_shim.c, cpus_affinity.c, cpus_attr.c, cpus_exec.c and
 * cpus_map.c: every CPU-count question gives the same N, the masks are
 * those of a real machine of CPUs 0..N-1 (the oracle) and translate both
 * ways onto the real CPUs, every pin lands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_units.h"
#include "../cpus_shim.c"
#include "../cpus_affinity.c"
#include "../cpus_attr.c"
#include "../cpus_exec.c"
#include "../cpus_map.c"
#include "../cpus_quota.c"
#include "../cpus_survey.c"
/* The cpus descriptor binds fopen for the CPU files: the unit is whole. */
#include "../cpus_text.c"
#include "../cpus_sets.c"
#include "../cpus_memo.c"
#include "../cpus_files_shim.c"
#include "../cpus_serve.c"
#include "../cpus_dirs.c"
#include "../cpus_fd.c"
#include "../cpus_compat.c"
FP_TABLE(&fp_mit_cpus);

/* The shared real view, learnt now if nobody has. */
static void learn_real(void)
{
	struct cpus_view mine;

	assert_ptr_equal(cpus_view(&mine), &cpus_real);
}

static int setup(void **state)
{
	(void)state;
	assert_true(fp_ready());
	fp_cfg.enabled |= FP_BIT(cpus);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fp_cpus_vthread.valid = false;
	cpus_vproc.rec.r.m.valid = false;
	fp_cfg.enabled &= ~FP_BIT(cpus);
	cpus_wanted = 0;
	return 0;
}

/* A mask holding exactly the ids [0, n). */
static bool is_first_n(const cpu_set_t *set, size_t size, long n)
{
	for (size_t i = 0; i < size * 8; i++)
		if ((bool)CPU_ISSET_S(i, size, set) != ((long)i < n))
			return false;
	return true;
}

static void test_every_question_agrees(void **state)
{
	static const long ns[] = { 1, 2, 3, 64, 1000, 1024, 1025, 8192 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		cpu_set_t set, guard;
		int rc;

		cpus_wanted = ns[i];
		assert_int_equal(sysconf(_SC_NPROCESSORS_ONLN), ns[i]);
		assert_int_equal(sysconf(_SC_NPROCESSORS_CONF), ns[i]);
		assert_int_equal(get_nprocs(), ns[i]);
		assert_int_equal(get_nprocs_conf(), ns[i]);
		memset(&set, 0xa5, sizeof set);
		guard = set;
		rc = sched_getaffinity(0, sizeof set, &set);
		if (ns[i] <= CPU_SETSIZE) {
			/* A fresh process of a real N-CPU machine: CPUs 0..N-1. */
			assert_int_equal(rc, 0);
			assert_true(is_first_n(&set, sizeof set, ns[i]));
			assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
			assert_true(is_first_n(&set, sizeof set, ns[i]));
		} else {
			/* What a kernel with that many CPUs says to a small set,
			 * the caller's buffer untouched. */
			assert_int_equal(rc, -1);
			assert_int_equal(errno, EINVAL);
			assert_memory_equal(&set, &guard, sizeof set);
			assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof set, &set),
			                 EINVAL);
			assert_memory_equal(&set, &guard, sizeof set);
		}
	}
}

static void test_big_set_holds_big_count(void **state)
{
	size_t size = CPU_ALLOC_SIZE(70000);
	cpu_set_t *set = CPU_ALLOC(70000);

	(void)state;
	cpus_wanted = 8192;
	assert_int_equal(sched_getaffinity(0, size, set), 0);
	assert_int_equal(CPU_COUNT_S(size, set), 8192);
	assert_true(is_first_n(set, size, 8192));
	CPU_FREE(set);
}

/* On a set too small for N, or not a whole number of longs, EINVAL before
 * anything else (a kernel's order) and the buffer as it was. */
static void test_einval_leaves_buffer(void **state)
{
	unsigned long buf[4], guard[4];

	(void)state;
	cpus_wanted = 100;
	memset(buf, 0x5a, sizeof buf);
	memcpy(guard, buf, sizeof buf);
	assert_int_equal(sched_getaffinity(0, 8, (cpu_set_t *)buf), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pthread_getaffinity_np(pthread_self(), 8, (cpu_set_t *)buf), EINVAL);
	assert_int_equal(sched_getaffinity(0, 20, (cpu_set_t *)buf), -1);
	assert_int_equal(errno, EINVAL);
	assert_memory_equal(buf, guard, sizeof buf);
	assert_int_equal(sched_getaffinity(0, 16, (cpu_set_t *)buf), 0);
	assert_true(is_first_n((cpu_set_t *)buf, 16, 100));
}

/* Builds the map of a made-up machine (the ids of `ids`), -1 ended. */
static void made_up(const int *ids, long online)
{
	cpu_set_t a;

	learn_real();
	CPU_ZERO(&a);
	for (; *ids >= 0; ids++)
		CPU_SET((size_t)*ids, &a);
	fp_cpus_map_build(&a, online);
}

static void real_again(void)
{
	fp_cpus_map_build(cpus_real.have_allowed ? &cpus_real.allowed : NULL, cpus_real.online);
}

static cpu_set_t one_of(long id)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET((size_t)id, &s);
	return s;
}

/* The map both ways, on a machine whose process may use CPUs 2, 5 and 7
 * (a container's cpuset): virtual v runs on R[v mod 3]; real R[k] is
 * k mod N below the count, k, k+3, ... above it. */
static void test_map_both_ways(void **state)
{
	static const int ids[] = { 2, 5, 7, -1 };
	struct cpus_map m;
	cpu_set_t v, r;

	(void)state;
	made_up(ids, 8);
	cpus_wanted = 2;
	fp_cpus_map(&m);
	assert_false(m.identity);
	assert_int_equal(m.r, 3);
	v = one_of(1);
	assert_true(fp_cpus_to_real(&m, &v, sizeof v, &r));
	assert_true(CPU_EQUAL(&r, &(cpu_set_t){ 0 }) == false && CPU_ISSET(5, &r) && CPU_COUNT(&r) == 1);
	r = one_of(7);
	fp_cpus_to_virtual(&m, &r, sizeof r, &v, sizeof v);
	assert_true(is_first_n(&v, sizeof v, 1)); /* k = 2 folds onto 0 */
	v = one_of(2);                             /* at N: no CPU named */
	assert_false(fp_cpus_to_real(&m, &v, sizeof v, &r));
	cpus_wanted = 8;
	fp_cpus_map(&m);
	v = one_of(7);
	assert_true(fp_cpus_to_real(&m, &v, sizeof v, &r));
	assert_true(CPU_ISSET(5, &r) && CPU_COUNT(&r) == 1);
	r = one_of(5);
	fp_cpus_to_virtual(&m, &r, sizeof r, &v, sizeof v);
	assert_int_equal(CPU_COUNT(&v), 3);
	assert_true(CPU_ISSET(1, &v) && CPU_ISSET(4, &v) && CPU_ISSET(7, &v));
	/* A CPU outside the start-up mask still lands below N. */
	r = one_of(9);
	fp_cpus_to_virtual(&m, &r, sizeof r, &v, sizeof v);
	assert_true(CPU_COUNT(&v) == 1 && CPU_ISSET(1, &v));
	/* sched_getcpu's answer on each real CPU, and for a thread pinned
	 * through us to virtual CPU 4 (R[1] = 5). */
	fp_cpus_vthread.valid = false;
	assert_int_equal(cpus_virtual_cpu(2), 0);
	assert_int_equal(cpus_virtual_cpu(5), 1);
	assert_int_equal(cpus_virtual_cpu(7), 2);
	assert_int_equal(cpus_virtual_cpu(9), 1);
	memset(&fp_cpus_vthread, 0, sizeof fp_cpus_vthread);
	fp_cpus_vthread.valid = true;
	fp_cpus_vthread.last_real = -1;
	CPU_SET(4, &fp_cpus_vthread.bits);
	assert_int_equal(cpus_virtual_cpu(5), 4);
	assert_int_equal(cpus_virtual_cpu(5), 4);
	assert_int_equal(cpus_virtual_cpu(2), 0); /* not on its CPU: the default */
	cpus_wanted = 2;
	assert_int_equal(cpus_virtual_cpu(7), 0);
	fp_cpus_vthread.valid = false;
	/* While another caller learns the tables (a handler in the learning
	 * thread, a fork child of it): the same map from the mask alone. */
	{
		cpu_set_t a;

		CPU_ZERO(&a);
		for (const int *p = ids; *p >= 0; p++)
			CPU_SET((size_t)*p, &a);
		cpus_wanted = 8;
		fp_cpus_map_of(&m, &a, 8, false);
		assert_null(m.real);
		assert_int_equal(m.r, 3);
		assert_false(m.identity);
		assert_int_equal(fp_cpus_real_of(&m, 1), 5);
		assert_int_equal(fp_cpus_real_index(&m, 7), 2);
		assert_int_equal(fp_cpus_real_index(&m, 3), -1);
		v = one_of(7);
		assert_true(fp_cpus_to_real(&m, &v, sizeof v, &r));
		assert_true(CPU_ISSET(5, &r) && CPU_COUNT(&r) == 1);
		r = one_of(5);
		fp_cpus_to_virtual(&m, &r, sizeof r, &v, sizeof v);
		assert_true(CPU_COUNT(&v) == 3 && CPU_ISSET(1, &v) && CPU_ISSET(4, &v) && CPU_ISSET(7, &v));
		CPU_ZERO(&a);
		CPU_SET(0, &a);
		CPU_SET(1, &a);
		cpus_wanted = 2;
		fp_cpus_map_of(&m, &a, 2, false);
		assert_true(m.identity);
	}
	/* The mask unreadable at start: CPUs 0..online-1. */
	fp_cpus_map_build(NULL, 2);
	cpus_wanted = 2;
	fp_cpus_map(&m);
	assert_true(m.identity);
	assert_int_equal(fp_cpus_real_index(&m, 1), 1);
	assert_int_equal(fp_cpus_real_index(&m, 2), -1);
	real_again();
}

/* On this machine: pin to every virtual CPU in turn; each set succeeds,
 * lands on the real CPU it maps to, reads back as set, and sched_getcpu()
 * says it.  Below, at and above the real count. */
static void test_pin_every_cpu(void **state)
{
	static const long ns[] = { 1, 2, 3, 64 };
	cpu_set_t saved, s, now;

	(void)state;
	learn_real();
	assert_int_equal(fp_real_cpus.r_sched_getaffinity.f(0, sizeof saved, &saved), 0);
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		struct cpus_map m;

		cpus_wanted = ns[i];
		fp_cpus_map(&m);
		for (long v = 0; v < ns[i]; v++) {
			s = one_of(v);
			assert_int_equal(sched_setaffinity(0, sizeof s, &s), 0);
			assert_int_equal(fp_real_cpus.r_sched_getaffinity.f(0, sizeof now, &now), 0);
			assert_true(CPU_COUNT(&now) == 1 && CPU_ISSET(m.real[v % m.r], &now));
			assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
			assert_true(CPU_EQUAL(&now, &s));
			assert_int_equal(sched_getcpu(), v);
			assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof s, &s), 0);
			assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof now, &now), 0);
			assert_true(CPU_EQUAL(&now, &s));
		}
		/* Past N: ignored beside a CPU it has, EINVAL alone. */
		s = one_of(ns[i] + 5);
		assert_int_equal(sched_setaffinity(0, sizeof s, &s), -1);
		assert_int_equal(errno, EINVAL);
		CPU_SET(0, &s);
		assert_int_equal(sched_setaffinity(0, sizeof s, &s), 0);
		assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
		assert_true(is_first_n(&now, sizeof now, 1));
		assert_int_equal(fp_real_cpus.r_sched_setaffinity.f(0, sizeof saved, &saved), 0);
	}
}

static void *park(void *arg)
{
	_Atomic long *tid = arg;

	atomic_store(tid, (long)syscall(SYS_gettid));
	while (atomic_load(tid) != 0)
		sched_yield();
	return NULL;
}

/* Another thread's mask, by tid (sched_*affinity) and by pthread_t: the
 * same virtual answer both ways. */
static void test_sibling_tid(void **state)
{
	_Atomic long tid = -1;
	pthread_t t;
	cpu_set_t a, b, s;

	(void)state;
	cpus_wanted = 3;
	assert_int_equal(pthread_create(&t, NULL, park, &tid), 0);
	while (atomic_load(&tid) < 0)
		sched_yield();
	assert_int_equal(sched_getaffinity((pid_t)tid, sizeof a, &a), 0);
	assert_int_equal(pthread_getaffinity_np(t, sizeof b, &b), 0);
	assert_true(CPU_EQUAL(&a, &b));
	assert_true(is_first_n(&a, sizeof a, 3));
	s = one_of(2);
	assert_int_equal(sched_setaffinity((pid_t)tid, sizeof s, &s), 0);
	assert_int_equal(sched_getaffinity((pid_t)tid, sizeof a, &a), 0);
	assert_int_equal(pthread_getaffinity_np(t, sizeof b, &b), 0);
	assert_true(CPU_EQUAL(&a, &b) && CPU_ISSET(2, &a));
	for (size_t i = 3; i < CPU_SETSIZE; i++)
		assert_false(CPU_ISSET(i, &a));
	atomic_store(&tid, 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* A mask of {last CPU} set by a raw system call (numactl, libnuma): the
 * virtual CPUs that CPU is, every one of them a pin that works. */
static void test_raw_mask(void **state)
{
	cpu_set_t saved, s, now;
	struct cpus_map m;
	long k;

	(void)state;
	learn_real();
	cpus_wanted = 2;
	fp_cpus_map(&m);
	assert_int_equal(fp_real_cpus.r_sched_getaffinity.f(0, sizeof saved, &saved), 0);
	s = one_of(m.real[m.r - 1]);
	assert_int_equal(syscall(SYS_sched_setaffinity, 0, sizeof s, &s), 0);
	fp_cpus_vthread.valid = false;
	cpus_vproc.rec.r.m.valid = false; /* a raw set is the kernel's: nothing remembered */
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	k = (m.r - 1) % (m.r < 2 ? m.r : 2);
	for (long v = 0; v < 2; v++)
		assert_int_equal((bool)CPU_ISSET(v, &now), v % (m.r < 2 ? m.r : 2) == k);
	assert_true(sched_getcpu() >= 0 && sched_getcpu() < 2 && CPU_ISSET(sched_getcpu(), &now));
	for (long v = 0; v < 2; v++) {
		if (!CPU_ISSET(v, &now))
			continue;
		s = one_of(v);
		assert_int_equal(sched_setaffinity(0, sizeof s, &s), 0);
		assert_int_equal(sched_getcpu(), v);
	}
	assert_int_equal(fp_real_cpus.r_sched_setaffinity.f(0, sizeof saved, &saved), 0);
}

static void test_other_names_untouched(void **state)
{
	(void)state;
	cpus_wanted = 7;
	assert_int_equal(sysconf(_SC_PAGESIZE), getpagesize());
	assert_int_equal(sysconf(_SC_OPEN_MAX), fp_real_cpus.r_sysconf.f(_SC_OPEN_MAX));
	errno = 0;
	assert_int_equal(sysconf(-12345), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_off_is_native(void **state)
{
	cpu_set_t a, b;

	(void)state;
	fp_cfg.enabled &= ~FP_BIT(cpus);
	cpus_wanted = 5;
	assert_int_equal(sysconf(_SC_NPROCESSORS_ONLN), fp_real_cpus.r_sysconf.f(_SC_NPROCESSORS_ONLN));
	assert_int_equal(get_nprocs(), fp_real_cpus.r_get_nprocs.f());
	assert_int_equal(sched_getaffinity(0, sizeof a, &a), 0);
	assert_int_equal(fp_real_cpus.r_sched_getaffinity.f(0, sizeof b, &b), 0);
	assert_true(CPU_EQUAL(&a, &b));
}

static void test_errors_pass_through(void **state)
{
	cpu_set_t set;

	(void)state;
	cpus_wanted = 2;
	/* Another process that does not exist: the kernel's ESRCH, untouched. */
	assert_int_equal(sched_getaffinity(999999999, sizeof set, &set), -1);
	assert_int_equal(errno, ESRCH);
	/* A set too small for the real machine: the kernel's EINVAL. */
	assert_int_equal(sched_getaffinity(0, 0, &set), -1);
	assert_int_equal(errno, EINVAL);
}

/* The real getter of a machine past 64 CPUs: a set of one long is too
 * small for its mask (the kernel's EINVAL), a cpu_set_t holds it. */
static int (*big_machine_real)(pid_t, size_t, cpu_set_t *);
static int big_machine_get(pid_t pid, size_t setsize, cpu_set_t *mask)
{
	if (setsize < sizeof(cpu_set_t)) {
		errno = EINVAL;
		return -1;
	}
	return big_machine_real(pid, setsize, mask);
}

/* A set big enough for N but not for the real machine: the real mask is
 * read into ours and the caller's set checked as the kernel would write
 * it, without process_vm_writev (which systemd's @debug filters kill): a
 * writable one gets the virtual mask, errno kept; a read-only one, or one
 * whose second long is past the end of the mapping, EFAULT; the machine
 * this runs on never takes this branch, so it is forced here. */
static void test_small_set_on_big_machine(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cpu_set_t *at_end = (cpu_set_t *)(void *)(m + page - sizeof(long));

	(void)state;
	assert_true(m != MAP_FAILED && ro != MAP_FAILED);
	assert_int_equal(mprotect(m + page, (size_t)page, PROT_NONE), 0);
	big_machine_real = fp_real_cpus.r_sched_getaffinity.f;
	fp_real_cpus.r_sched_getaffinity.f = big_machine_get;
	cpus_wanted = 2;
	memset(m + page - sizeof(long), 0xa5, sizeof(long));
	errno = 1234;
	assert_int_equal(sched_getaffinity(0, sizeof(long), at_end), 0);
	assert_int_equal(errno, 1234);
	assert_true(is_first_n(at_end, sizeof(long), 2));
	assert_int_equal(sched_getaffinity(0, sizeof(long), (cpu_set_t *)(void *)ro), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(sched_getaffinity(0, 2 * sizeof(long), at_end), -1);
	assert_int_equal(errno, EFAULT);
	/* a span past the top of the address space (it wrapped, and was
	 * taken as writable: a cold review, SIGSEGV) */
	assert_int_equal(sched_getaffinity(0, 2 * sizeof(long), (cpu_set_t *)(void *)(uintptr_t)-sizeof(long)), -1);
	assert_int_equal(errno, EFAULT);
	/* two bytes on the writable page, the rest past it */
	assert_int_equal(sched_getaffinity(0, 2 * sizeof(long), (cpu_set_t *)(void *)(m + page - 2)), -1);
	assert_int_equal(errno, EFAULT);
	fp_real_cpus.r_sched_getaffinity.f = big_machine_real;
	munmap(m, 2 * (size_t)page);
	munmap(ro, (size_t)page);
}

static void test_getcpu_live(void **state)
{
	cpu_set_t one, saved;
	unsigned cpu = 99, node = 99, rnode = 99, rcpu = 99;
	int last = -1;

	(void)state;
	learn_real();
	fp_cpus_vthread.valid = false;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &cpus_real.allowed))
			last = i;
	if (CPU_COUNT(&cpus_real.allowed) < 2 || last < 1) {
		printf("skip: one CPU to run on: no CPU for the fold (test_map_both_ways forces it)\n");
		skip();
	}
	assert_int_equal(fp_real_cpus.r_sched_getaffinity.f(0, sizeof saved, &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	assert_int_equal(fp_real_cpus.r_sched_setaffinity.f(0, sizeof one, &one), 0);
	cpus_wanted = 1;
	assert_int_equal(sched_getcpu(), 0);
	assert_int_equal(getcpu(&cpu, &node), 0);
	assert_int_equal(cpu, 0);
	assert_int_equal(syscall(SYS_getcpu, &rcpu, &rnode, NULL), 0);
	assert_int_equal(rcpu, last);
	assert_int_equal(node, rnode);
	assert_int_equal(getcpu(&cpu, NULL), 0);
	assert_int_equal(getcpu(NULL, &node), 0);
	fp_cfg.enabled &= ~FP_BIT(cpus);
	assert_int_equal(sched_getcpu(), last);
	fp_cfg.enabled |= FP_BIT(cpus);
	assert_int_equal(fp_real_cpus.r_sched_setaffinity.f(0, sizeof saved, &saved), 0);
}

static void test_counters(void **state)
{
	unsigned long before;

	(void)state;
	cpus_wanted = 4;
	before = fp_counter(cpus_counters, CPUS_C_QUERIES);
	(void)sysconf(_SC_NPROCESSORS_ONLN);
	(void)get_nprocs();
	(void)sysconf(_SC_PAGESIZE); /* not a CPU question */
	assert_int_equal(fp_counter(cpus_counters, CPUS_C_QUERIES) - before, 2);
	assert_int_equal(fp_counter(cpus_counters, CPUS_C_REAL),
	                 fp_real_cpus.r_sysconf.f(_SC_NPROCESSORS_ONLN));
}

/* The parsers over a text, as quota_of over the files. */
static bool quota_cgroup(char *text, char *cg, size_t cgsize, bool *v1)
{
	struct quota_cg q = { cg, cgsize, false, false, false };

	quota_text_lines(text, quota_cgroup_line, &q);
	return quota_cgroup_done(&q, v1);
}

static bool quota_mount(char *text, const char *cg, bool v1, char *mnt, size_t msize, char *mroot,
                        size_t rsize)
{
	struct quota_mnt q = { cg, v1, mnt, mroot, msize, rsize, false, false };

	quota_text_lines(text, quota_mount_line, &q);
	return q.found;
}

/* cpus_quota.c's parsers: a hybrid machine's v1 cpu line wins over
 * "0::"; a container mounts its own cgroup as the mount's root. */
static void test_quota_parsers(void **state)
{
	char cg[64], mnt[64], root[64];
	char info[] = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
	              "32 31 0:29 /kubepods/x /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	              "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
	char info2[sizeof info];
	char cg1[] = "4:memory:/m\n2:cpu,cpuacct:/kubepods/x\n0::/\n", cg2[] = "0::/a/b\n",
	     cg3[] = "1:name=systemd:/\n";
	bool v1 = false;

	(void)state;
	memcpy(info2, info, sizeof info);
	assert_true(quota_cgroup(cg1, cg, sizeof cg, &v1));
	assert_true(v1);
	assert_string_equal(cg, "/kubepods/x");
	assert_true(quota_mount(info, cg, true, mnt, sizeof mnt, root, sizeof root));
	assert_string_equal(mnt, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(root, "/kubepods/x");
	assert_true(quota_cgroup(cg2, cg, sizeof cg, &v1));
	assert_false(v1);
	assert_string_equal(cg, "/a/b");
	assert_true(quota_mount(info2, cg, false, mnt, sizeof mnt, root, sizeof root));
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_false(quota_cgroup(cg3, cg, sizeof cg, &v1));
	/* "cpu" is a whole word of the list, not a prefix of cpuset. */
	assert_false(quota_has("cpuset,cpuacct", 14, "cpu"));
}

/* ------------------------------------------------------------------------
 * --cpus quota over fake cgroup trees (FASTPATH_TEST_CGROUP_ROOT's way: a
 * directory in front of every path read).
 * ---------------------------------------------------------------------- */
static char qroot[64];

/* ROOT/REL holding TEXT, its directories made. */
static void qput(const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s%s", qroot, rel);
	for (char *p = path + strlen(qroot) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static int qsetup(void **state)
{
	(void)state;
	snprintf(qroot, sizeof qroot, "/tmp/fp-quota-XXXXXX");
	assert_non_null(mkdtemp(qroot));
	return 0;
}

static int qteardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", qroot);
	return system(cmd) == 0 ? 0 : -1;
}

static const char qmount_v2[] = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";

/* Issue 37's case: a v2 slice at 0.5 CPU over a service whose own cpu.max
 * says 2; the scheduler enforces 0.5, rounded up: 1. */
static void test_quota_v2_min_on_path(void **state)
{
	char why[160];

	(void)state;
	qput("/proc/self/cgroup", "0::/app.slice/svc.service\n");
	qput("/proc/self/mountinfo", qmount_v2);
	qput("/sys/fs/cgroup/app.slice/cpu.max", "50000 100000\n");
	qput("/sys/fs/cgroup/app.slice/svc.service/cpu.max", "200000 100000\n");
	assert_int_equal(quota_of(qroot, 64, why, sizeof why), 1);
	assert_non_null(strstr(why, "quota 50000/100000 in /sys/fs/cgroup/app.slice"));
	/* The leaf the smaller: the leaf's. */
	qput("/sys/fs/cgroup/app.slice/cpu.max", "400000 100000\n");
	assert_int_equal(quota_of(qroot, 64, why, sizeof why), 2);
	assert_non_null(strstr(why, "svc.service"));
	/* No limit on the leaf: the parent's; none anywhere: the affinity. */
	qput("/sys/fs/cgroup/app.slice/svc.service/cpu.max", "max 100000\n");
	assert_int_equal(quota_of(qroot, 64, why, sizeof why), 4);
	qput("/sys/fs/cgroup/app.slice/cpu.max", "max 100000\n");
	assert_int_equal(quota_of(qroot, 64, why, sizeof why), 64);
	assert_string_equal(why, "the affinity count: no cgroup quota");
}

/* Below one period rounds up to 1; 1.5 CPUs is 2; above the affinity
 * count, the affinity count. */
static void test_quota_rounding(void **state)
{
	char why[160];

	(void)state;
	qput("/proc/self/cgroup", "0::/a\n");
	qput("/proc/self/mountinfo", qmount_v2);
	qput("/sys/fs/cgroup/a/cpu.max", "1000 100000\n");
	assert_int_equal(quota_of(qroot, 8, why, sizeof why), 1);
	qput("/sys/fs/cgroup/a/cpu.max", "150000 100000\n");
	assert_int_equal(quota_of(qroot, 8, why, sizeof why), 2);
	qput("/sys/fs/cgroup/a/cpu.max", "1600000 100000\n");
	assert_int_equal(quota_of(qroot, 8, why, sizeof why), 8);
	assert_non_null(strstr(why, "capped at the affinity count"));
}

/* v1: the cpu hierarchy's smallest cfs quota on the path (-1: none). */
static void test_quota_v1_min_on_path(void **state)
{
	char why[160];

	(void)state;
	qput("/proc/self/cgroup", "5:memory:/k/p\n3:cpu,cpuacct:/k/p\n0::/\n");
	qput("/proc/self/mountinfo",
	     "30 1 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
	     "31 30 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n");
	qput("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	qput("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	qput("/sys/fs/cgroup/cpu,cpuacct/k/cpu.cfs_quota_us", "100000\n");
	qput("/sys/fs/cgroup/cpu,cpuacct/k/cpu.cfs_period_us", "100000\n");
	qput("/sys/fs/cgroup/cpu,cpuacct/k/p/cpu.cfs_quota_us", "300000\n");
	qput("/sys/fs/cgroup/cpu,cpuacct/k/p/cpu.cfs_period_us", "100000\n");
	assert_int_equal(quota_of(qroot, 16, why, sizeof why), 1);
	assert_non_null(strstr(why, "cgroup v1 quota 100000/100000 in /sys/fs/cgroup/cpu,cpuacct/k"));
	qput("/sys/fs/cgroup/cpu,cpuacct/k/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(quota_of(qroot, 16, why, sizeof why), 3);
}

/* A host's mountinfo of any size (the cgroup line after 200 KiB of other
 * mounts and one line longer than the reader's buffer), and mount points
 * with mountinfo's escapes (\040 for a space). */
static void test_quota_mountinfo(void **state)
{
	char why[160], path[1024];
	size_t cap = 300000, len = 0;
	char *big = malloc(cap);
	FILE *f;

	(void)state;
	assert_non_null(big);
	for (int i = 0; len + 200 < 250000; i++)
		len += (size_t)snprintf(big + len, cap - len,
		                        "%d 1 0:%d / /mnt/m%d rw - tmpfs tmpfs rw,size=1024k\n", 100 + i, 100 + i, i);
	len += (size_t)snprintf(big + len, cap - len, "99 1 0:99 / /long");
	memset(big + len, 'x', 20000);
	len += 20000;
	len += (size_t)snprintf(big + len, cap - len, " rw - cgroup2 cgroup2 rw\n"
	                        "30 1 0:26 / /sys/fs/cg\\040v2 rw - cgroup2 cgroup2 rw\n");
	snprintf(path, sizeof path, "%s/proc/self/mountinfo", qroot);
	qput("/proc/self/cgroup", "0::/a\n");
	qput("/proc/self/mountinfo", "");
	assert_non_null(f = fopen(path, "w"));
	fwrite(big, 1, len, f);
	fclose(f);
	free(big);
	qput("/sys/fs/cg v2/a/cpu.max", "200000 100000\n");
	assert_int_equal(quota_of(qroot, 16, why, sizeof why), 2);
	assert_non_null(strstr(why, "in /sys/fs/cg v2/a"));
}

/* Of two cgroup2 mounts, the one whose root holds the process's cgroup. */
static void test_quota_mount_choice(void **state)
{
	char why[160];

	(void)state;
	qput("/proc/self/cgroup", "0::/a/b\n");
	qput("/proc/self/mountinfo", "40 1 0:26 /other /mnt/other rw - cgroup2 cgroup2 rw\n"
	                             "41 1 0:26 /a /mnt/a rw - cgroup2 cgroup2 rw\n");
	qput("/mnt/other/b/cpu.max", "100000 100000\n");
	qput("/mnt/a/b/cpu.max", "300000 100000\n");
	assert_int_equal(quota_of(qroot, 16, why, sizeof why), 3);
	assert_non_null(strstr(why, "in /mnt/a/b"));
}

/* FASTPATH_CPUS_MAP (issue 37 defect 2): what the parser takes and
 * refuses, and the text an exec writes reads back as the same machine. */
static void test_handed_map_text(void **state)
{
	static const char *const bad[] = { "x", "4", "4:", "0:0", "8193:0", "04:0", "4:1,0",
		"4:0,,1", "4:0,", "4:1-0", "4:1024", "4:0-1:4", "4:0-1:", "4:0-1:3:", "4:0-1:3,3",
		"-4:0", "4:0 ", "4:00" };
	static const int ids[] = { 2, 5, 7, -1 };
	struct cpus_handed h;
	struct cpus_vmask v;
	struct cpus_map m;
	char why[128], buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		assert_int_equal(fp_cpus_parse_map(bad[i], &h, why, sizeof why), -1);
		assert_int_equal(h.n, 0);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(fp_cpus_parse_map("", &h, why, sizeof why), 0);
	assert_int_equal(h.n, 0);
	assert_int_equal(fp_cpus_parse_map("4:0-1,5", &h, why, sizeof why), 0);
	assert_int_equal(h.n, 4);
	assert_false(h.have_v);
	assert_int_equal(CPU_COUNT(&h.real), 3);
	assert_true(CPU_ISSET(5, &h.real));
	/* A virtual run past 1023: kept as a run; with a gap there, not kept
	 * (it fits no cpus_vmask) but well formed. */
	assert_int_equal(fp_cpus_parse_map("8192:0:1000-8191", &h, why, sizeof why), 0);
	assert_true(h.have_v && h.v.run && h.v.lo == 1000 && h.v.hi == 8191);
	assert_int_equal(fp_cpus_parse_map("8192:0:5,2000", &h, why, sizeof why), 0);
	assert_false(h.have_v);

	/* Written from a map on real CPUs 2, 5, 7 at N = 8 with a pin to
	 * {1, 6}, and read back. */
	cpus_wanted = 8;
	made_up(ids, 8);
	fp_cpus_map(&m);
	assert_true(cpus_vmask_of(&v, 8, sizeof(cpu_set_t), &(cpu_set_t){ 0 }));
	CPU_SET(1, &v.bits);
	CPU_SET(6, &v.bits);
	assert_true(fp_cpus_format_map(buf, sizeof buf, &m, &v));
	assert_string_equal(buf, "8:2,5,7:1,6");
	assert_int_equal(fp_cpus_parse_map(buf, &h, why, sizeof why), 0);
	assert_true(h.have_v && cpus_vmask_has(&h.v, 1) && cpus_vmask_has(&h.v, 6));
	assert_false(cpus_vmask_has(&h.v, 0));
	/* Virtual 1 and 6 run on R[1] and R[0]: real 5 and 2. */
	fp_cpus_vmask_real(&m, &h.v, &v.bits);
	assert_int_equal(CPU_COUNT(&v.bits), 2);
	assert_true(CPU_ISSET(2, &v.bits) && CPU_ISSET(5, &v.bits));
	/* Too small a buffer: false, never overrun. */
	assert_false(fp_cpus_format_map(buf, 6, &m, NULL));
	real_again();
}

/* The copy of envp an exec hands down: ours replaces any other, only where
 * the new image's FASTPATH_CPUS is this process's; nothing without it. */
static void test_handed_map_env(void **state)
{
	char *in[] = { "A=1", "FASTPATH_CPUS_MAP=9:0:0", "FASTPATH_CPUS=4", "B=2", NULL };
	char *other[] = { "FASTPATH_CPUS=2", "FASTPATH_CPUS_MAP=9:0:0", NULL };
	char *none[] = { "A=1", NULL };
	char *slots[8], text[CPUS_MAP_TEXT];
	char *const *out;
	size_t n, i, maps = 0;

	(void)state;
	struct cpus_map m;

	cpus_wanted = 4;
	strcpy(cpus_setting, "4");
	fp_cpus_map(&m); /* learnt: the map is this process's own */
	assert_int_equal(fp_cpus_exec_slots(none), 0);
	assert_int_equal(fp_cpus_exec_slots(NULL), 0);
	assert_int_equal(n = fp_cpus_exec_slots(in), 6);
	out = fp_cpus_exec_env(in, slots, n, text, sizeof text, true);
	for (i = 0; out[i]; i++)
		if (strncmp(out[i], "FASTPATH_CPUS_MAP=", 18) == 0) {
			maps++;
			assert_ptr_equal(out[i], text);
			assert_true(strncmp(out[i], "FASTPATH_CPUS_MAP=4:", 20) == 0);
		}
	assert_int_equal(maps, 1);
	assert_int_equal(i, 4);
	assert_string_equal(out[0], "A=1");
	assert_string_equal(out[3], text);
	/* Another count for the new image: the map is dropped. */
	out = fp_cpus_exec_env(other, slots, fp_cpus_exec_slots(other), text, sizeof text, true);
	assert_string_equal(out[0], "FASTPATH_CPUS=2");
	assert_null(out[1]);
	/* Sized for the map handed down, then learnt by another thread: the
	 * handed one, in the room made for it (the learnt one was written
	 * there, and dropped where it did not fit). */
	assert_int_equal(fp_cpus_parse_map("4:0", &cpus_handed, text, sizeof text), 0);
	n = cpus_exec_room(false);
	out = fp_cpus_exec_env(in, slots, fp_cpus_exec_slots(in), text, n, false);
	assert_string_equal(out[3], "FASTPATH_CPUS_MAP=4:0");
	cpus_handed.n = 0;
	cpus_setting[0] = '\0';
}

/* sched_getcpu answers from the thread's record while no other thread has
 * set one's since; a stale record, or none, the real CPU's first virtual
 * id, as its mask reads (a cold review: {3} answered 3 after a set of
 * {1}; the start table it once had for a handed mask is gone). */
static void test_getcpu_stale(void **state)
{
	cpu_set_t a, three = one_of(3);
	signed char was = cpus_main_tls;

	(void)state;
	cpus_wanted = 4;
	learn_real();
	CPU_ZERO(&a);
	CPU_SET(0, &a);
	CPU_SET(1, &a);
	fp_cpus_map_build(&a, 2);
	assert_true(cpus_vmask_of(&fp_cpus_vthread, 4, sizeof three, &three));
	fp_cpus_vthread.valid = true;
	fp_cpus_vthread.gen = cpus_gen_now();
	assert_int_equal(cpus_virtual_cpu(1), 3);
	atomic_fetch_add(&cpus_sib_gen, 1);
	cpus_main_tls = -1; /* as a worker: no main record to fall to */
	assert_int_equal(cpus_virtual_cpu(1), 1);
	fp_cpus_vthread.valid = false;
	assert_int_equal(cpus_virtual_cpu(1), 1);
	cpus_main_tls = was;
	real_again();
}

/* An older glibc (its check_cpuset_attr) refuses a mask with bytes set past
 * the kernel's: forced here, as this one takes them. */
static int (*attr_set_real)(pthread_attr_t *, size_t, const cpu_set_t *);

static int attr_set_old_glibc(pthread_attr_t *a, size_t size, const cpu_set_t *mask)
{
	for (size_t i = sizeof(cpu_set_t); i < size; i++)
		if (((const unsigned char *)mask)[i])
			return EINVAL;
	return attr_set_real(a, size, mask);
}

/* The mask as set, ids past N too, travels in the attribute (and in a copy
 * of it by value); where glibc refuses the bytes it rides in, the real
 * mask alone reads back as its virtual CPUs. */
static void test_attr_carried(void **state)
{
	pthread_attr_t a, b;
	cpu_set_t set, back;
	struct cpus_vmask v;

	(void)state;
	learn_real();
	cpus_wanted = 4;
	for (int old = 0; old < 2; old++) {
		attr_set_real = fp_real_cpus.r_pthread_attr_setaffinity_np.f;
		if (old)
			fp_real_cpus.r_pthread_attr_setaffinity_np.f = attr_set_old_glibc;
		CPU_ZERO(&set);
		CPU_SET(3, &set);
		CPU_SET(100, &set);
		pthread_attr_init(&a);
		assert_int_equal(pthread_attr_setaffinity_np(&a, sizeof set, &set), 0);
		fp_real_cpus.r_pthread_attr_setaffinity_np.f = attr_set_real;
		b = a;
		CPU_ZERO(&back);
		assert_int_equal(pthread_attr_getaffinity_np(&b, sizeof back, &back), 0);
		assert_true(fp_cpus_attr_has_mask(&b));
		if (!old) {
			assert_true(CPU_EQUAL(&back, &set));
			assert_true(fp_cpus_attr_vmask(&b, &v) && cpus_vmask_has(&v, 3) &&
			            !cpus_vmask_has(&v, 1));
		} else {
			/* {3} runs where {1} (or {0} on one CPU) does: the
			 * translation holds it, and nothing past N */
			assert_true(CPU_ISSET(3, &back) && !CPU_ISSET(100, &back));
			assert_false(fp_cpus_attr_vmask(&b, &v));
		}
		pthread_attr_destroy(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_question_agrees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_set_holds_big_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_names_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_is_native, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_pass_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_set_on_big_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_einval_leaves_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin_every_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sibling_tid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attr_carried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getcpu_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handed_map_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handed_map_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getcpu_stale, setup, teardown),
		cmocka_unit_test(test_quota_parsers),
		cmocka_unit_test_setup_teardown(test_quota_v2_min_on_path, qsetup, qteardown),
		cmocka_unit_test_setup_teardown(test_quota_rounding, qsetup, qteardown),
		cmocka_unit_test_setup_teardown(test_quota_v1_min_on_path, qsetup, qteardown),
		cmocka_unit_test_setup_teardown(test_quota_mountinfo, qsetup, qteardown),
		cmocka_unit_test_setup_teardown(test_quota_mount_choice, qsetup, qteardown),
	};

	return cmocka_run_group_tests_name("cpus", tests, NULL, NULL);
}
