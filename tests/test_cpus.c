/*
 * Unit tests of cpus_shim.c: every CPU-count question gives the same N,
 * masks are capped or inflated exactly, and made-up CPUs never reach the
 * kernel in sched_setaffinity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../fastpath.c"
#include "../settings.c"
#include "../outfile.c"
#include "../cpus_shim.c"
#include "../cpus_quota.c"
#include "../cpus_survey.c"
/* The cpus descriptor binds fopen for the CPU files: the unit is whole. */
#include "../cpus_text.c"
#include "../cpus_files_shim.c"
FP_TABLE(&fp_mit_cpus);

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
	fp_cfg.enabled &= ~FP_BIT(cpus);
	cpus_wanted = 0;
	return 0;
}

static void test_every_question_agrees(void **state)
{
	static const long ns[] = { 1, 3, 64, 1000, 65536 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		cpu_set_t set;
		int rc;

		cpus_wanted = ns[i];
		assert_int_equal(sysconf(_SC_NPROCESSORS_ONLN), ns[i]);
		assert_int_equal(sysconf(_SC_NPROCESSORS_CONF), ns[i]);
		assert_int_equal(get_nprocs(), ns[i]);
		assert_int_equal(get_nprocs_conf(), ns[i]);
		rc = sched_getaffinity(0, sizeof set, &set);
		if ((size_t)(ns[i] + cpus_real.possible) <= CPU_SETSIZE) {
			assert_int_equal(rc, 0);
			assert_int_equal(CPU_COUNT(&set), ns[i]);
			assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
			assert_int_equal(CPU_COUNT(&set), ns[i]);
		} else {
			/* What a kernel with that many CPUs says to a small set. */
			assert_int_equal(rc, -1);
			assert_int_equal(errno, EINVAL);
			assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof set, &set),
			                 EINVAL);
		}
	}
}

static void test_big_set_holds_big_count(void **state)
{
	size_t size = CPU_ALLOC_SIZE(70000);
	cpu_set_t *set = CPU_ALLOC(70000);

	(void)state;
	cpus_wanted = 65536;
	assert_int_equal(sched_getaffinity(0, size, set), 0);
	assert_int_equal(CPU_COUNT_S(size, set), 65536);
	CPU_FREE(set);
}

static void test_other_names_untouched(void **state)
{
	(void)state;
	cpus_wanted = 7;
	assert_int_equal(sysconf(_SC_PAGESIZE), getpagesize());
	assert_int_equal(sysconf(_SC_OPEN_MAX), fp_real.r_sysconf.f(_SC_OPEN_MAX));
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
	assert_int_equal(sysconf(_SC_NPROCESSORS_ONLN), fp_real.r_sysconf.f(_SC_NPROCESSORS_ONLN));
	assert_int_equal(get_nprocs(), fp_real.r_get_nprocs.f());
	assert_int_equal(sched_getaffinity(0, sizeof a, &a), 0);
	assert_int_equal(fp_real.r_sched_getaffinity.f(0, sizeof b, &b), 0);
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

static void test_rewrite_mask_cap(void **state)
{
	cpu_set_t set;

	(void)state;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	CPU_SET(4, &set);
	CPU_SET(9, &set);
	assert_true(cpus_rewrite_mask(&set, sizeof set, 2, 16));
	/* The first two CPUs we may really use, in order. */
	assert_int_equal(CPU_COUNT(&set), 2);
	assert_true(CPU_ISSET(1, &set));
	assert_true(CPU_ISSET(4, &set));
	assert_false(CPU_ISSET(9, &set));
}

static void test_rewrite_mask_inflate(void **state)
{
	cpu_set_t set;
	int i;

	(void)state;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	assert_true(cpus_rewrite_mask(&set, sizeof set, 8, 4));
	assert_int_equal(CPU_COUNT(&set), 8);
	/* Real 0 and 1, then made-up ids past every possible CPU (4..9). */
	assert_true(CPU_ISSET(0, &set) && CPU_ISSET(1, &set));
	assert_false(CPU_ISSET(2, &set) || CPU_ISSET(3, &set));
	for (i = 4; i < 10; i++)
		assert_true(CPU_ISSET(i, &set));
	/* No room for the made-up ids in the caller's set. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_false(cpus_rewrite_mask(&set, 8, 64, 4));
}

static void test_setaffinity_drops_made_up_ids(void **state)
{
	union cpus_mask_buf buf;
	cpu_set_t in;
	const cpu_set_t *out;
	size_t size = sizeof in;
	long fake = cpus_real.possible;

	(void)state;
	cpus_wanted = fake + 8;
	cpus_learn_real();
	/* Real plus made-up: only the real ids go to the kernel. */
	CPU_ZERO(&in);
	CPU_SET(0, &in);
	CPU_SET(fake + 1, &in);
	out = cpus_for_set(&in, &size, &buf);
	assert_int_equal(size, sizeof in);
	assert_int_equal(CPU_COUNT_S(sizeof in, out), 1);
	assert_true(CPU_ISSET_S(0, sizeof in, out));
	/* Only made-up ids: wherever we may really run. */
	CPU_ZERO(&in);
	CPU_SET(fake + 3, &in);
	out = cpus_for_set(&in, &size, &buf);
	assert_true(CPU_EQUAL_S(sizeof in, out, &cpus_real.allowed));
	/* A program's set smaller than ours (Python sizes it to the highest
	 * id it names) still gets somewhere real to run. */
	{
		size_t small = 8;
		cpu_set_t *tiny = CPU_ALLOC(64);

		CPU_ZERO_S(small, tiny);
		CPU_SET_S(63, small, tiny);
		if (fake < 63) {
			out = cpus_for_set(tiny, &small, &buf);
			assert_int_equal(small, sizeof cpus_real.allowed);
			assert_true(CPU_EQUAL(out, &cpus_real.allowed));
			assert_int_equal(sched_setaffinity(0, 8, tiny), 0);
		}
		CPU_FREE(tiny);
	}
	/* And the real call accepts it. */
	assert_int_equal(sched_setaffinity(0, sizeof in, &in), 0);
	/* Only real ids: the caller's own mask, untouched. */
	CPU_ZERO(&in);
	CPU_SET(0, &in);
	assert_ptr_equal(cpus_for_set(&in, &size, &buf), &in);
	/* Restore what we had. */
	assert_int_equal(fp_real.r_sched_setaffinity.f(0, sizeof cpus_real.allowed,
	                                               &cpus_real.allowed), 0);
}

/* The kernel would not give our mask at start (cpus_learn_real): a set of
 * made-up ids only still runs somewhere real, on either path. */
static void test_setaffinity_without_allowed_mask(void **state)
{
	union cpus_mask_buf buf;
	cpu_set_t in, saved, now, all;
	const cpu_set_t *out;
	size_t size = sizeof in;
	long fake = cpus_real.possible;

	(void)state;
	cpus_wanted = fake + 8;
	cpus_learn_real();
	saved = cpus_real.allowed;
	assert_true(cpus_real.have_allowed);
	cpus_real.have_allowed = false;
	CPU_ZERO(&cpus_real.allowed); /* never read */
	CPU_ZERO(&all);
	for (long i = 0; i < fake && i < CPU_SETSIZE; i++)
		CPU_SET((size_t)i, &all);
	CPU_ZERO(&in);
	CPU_SET(fake + 3, &in);
	out = cpus_for_set(&in, &size, &buf);
	assert_true(CPU_EQUAL(out, &all));
	/* Through the remembered-mask path (cpus_virtual) and the real call. */
	assert_int_equal(sched_setaffinity(0, sizeof in, &in), 0);
	assert_int_equal(fp_real.r_sched_getaffinity.f(0, sizeof now, &now), 0);
	CPU_AND(&all, &all, &saved);
	assert_true(CPU_EQUAL(&now, &all));
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof in, &in), 0);
	cpus_real.allowed = saved;
	cpus_real.have_allowed = true;
	assert_int_equal(fp_real.r_sched_setaffinity.f(0, sizeof saved, &saved), 0);
}

/* The fold, on a made-up machine of 4 CPUs we may run on: a cap of 2
 * shows CPUs 0 and 1, and 2 and 3 answer as 0 and 1; a cap of 8 shows all
 * four, and nothing folds. */
static void test_getcpu_fold_map(void **state)
{
	__typeof__(cpus_real) saved;

	(void)state;
	cpus_learn_real();
	saved = cpus_real;
	cpus_real.possible = 4;
	cpus_real.online = 4;
	cpus_real.have_allowed = true;
	CPU_ZERO(&cpus_real.allowed);
	for (int i = 0; i < 4; i++)
		CPU_SET(i, &cpus_real.allowed);
	cpus_wanted = 2;
	atomic_store(&cpus_fold.state, FP_INIT_NONE);
	assert_int_equal(cpus_fold_id(0), 0);
	assert_int_equal(cpus_fold_id(1), 1);
	assert_int_equal(cpus_fold_id(2), 0);
	assert_int_equal(cpus_fold_id(3), 1);
	assert_int_equal(cpus_fold_id(4), 0); /* not ours to run on: still in bounds */
	assert_int_equal(cpus_fold_id(CPU_SETSIZE + 5), CPU_SETSIZE + 5);
	cpus_wanted = 8;
	atomic_store(&cpus_fold.state, FP_INIT_NONE);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(cpus_fold_id(i), i);
	cpus_real = saved;
	atomic_store(&cpus_fold.state, FP_INIT_NONE);
}

/* On this machine: a thread the kernel runs on its last CPU, under a cap
 * of 1, is on CPU 0 for sched_getcpu() and getcpu(); the node is the
 * kernel's.  Off, the real id. */
static void test_getcpu_live(void **state)
{
	cpu_set_t one, saved;
	unsigned cpu = 99, node = 99, rnode = 99, rcpu = 99;
	int last = -1;

	(void)state;
	cpus_learn_real();
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &cpus_real.allowed))
			last = i;
	if (CPU_COUNT(&cpus_real.allowed) < 2 || last < 1) {
		printf("skip: one CPU to run on: no CPU for the fold (test_getcpu_fold_map forces it)\n");
		skip();
	}
	assert_int_equal(fp_real.r_sched_getaffinity.f(0, sizeof saved, &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	assert_int_equal(fp_real.r_sched_setaffinity.f(0, sizeof one, &one), 0);
	cpus_wanted = 1;
	atomic_store(&cpus_fold.state, FP_INIT_NONE);
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
	assert_int_equal(fp_real.r_sched_setaffinity.f(0, sizeof saved, &saved), 0);
	atomic_store(&cpus_fold.state, FP_INIT_NONE);
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
	                 fp_real.r_sysconf.f(_SC_NPROCESSORS_ONLN));
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
	bool v1 = false;

	(void)state;
	memcpy(info2, info, sizeof info);
	assert_true(quota_cgroup("4:memory:/m\n2:cpu,cpuacct:/kubepods/x\n0::/\n", cg, sizeof cg, &v1));
	assert_true(v1);
	assert_string_equal(cg, "/kubepods/x");
	assert_true(quota_mount(info, true, mnt, sizeof mnt, root, sizeof root));
	assert_string_equal(mnt, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(root, "/kubepods/x");
	assert_true(quota_cgroup("0::/a/b\n", cg, sizeof cg, &v1));
	assert_false(v1);
	assert_string_equal(cg, "/a/b");
	assert_true(quota_mount(info2, false, mnt, sizeof mnt, root, sizeof root));
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_false(quota_cgroup("1:name=systemd:/\n", cg, sizeof cg, &v1));
	/* "cpu" is a whole word of the list, not a prefix of cpuset. */
	assert_false(quota_has("cpuset,cpuacct", 14, "cpu"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_question_agrees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_set_holds_big_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_names_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_is_native, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_pass_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_mask_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_mask_inflate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setaffinity_drops_made_up_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setaffinity_without_allowed_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getcpu_fold_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getcpu_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters, setup, teardown),
		cmocka_unit_test(test_quota_parsers),
	};

	return cmocka_run_group_tests_name("cpus", tests, NULL, NULL);
}
