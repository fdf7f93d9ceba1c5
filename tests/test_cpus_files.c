/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of cpus_text.c, cpus_sets.c and cpus_memo.c, and of
 * cpus_files_shim.c, cpus_serve.c and cpus_dirs.c: the pure text
 * transforms (input text + mask -> output text) on fixed samples and on
 * this machine's own files, and the descriptor fp_cpus_open() hands back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/resource.h>

#include "core_units.h"
#include "../cpus_shim.c"
#include "../cpus_affinity.c"
#include "../cpus_attr.c"
#include "../cpus_exec.c"
#include "../cpus_map.c"
#include "../cpus_quota.c"
#include "../cpus_survey.c"
#include "../cpus_text.c"
#include "../cpus_sets.c"
#include "../cpus_memo.c"
#include "../cpus_files_shim.c"
#include "../cpus_serve.c"
#include "../cpus_dirs.c"
#include "../cpus_fd.c"
#include "../cpus_compat.c"
FP_TABLE(&fp_mit_cpus);

static const char cpuinfo2[] =
	"processor\t: 0\nvendor_id\t: X\ncore id\t\t: 0\ncpu MHz\t\t: 1000.000\n\n"
	"processor\t: 1\nvendor_id\t: X\ncore id\t\t: 1\ncpu MHz\t\t: 1001.000\n\n";

static const char stat2[] =
	"cpu  30 3 300 3000 0 0 0 0 0 0\n"
	"cpu0 10 1 100 1000 0 0 0 0 0 0\n"
	"cpu1 20 2 200 2000 0 0 0 0 0 0\n"
	"intr 5 0 0\nctxt 7\n";

static char outbuf[1 << 20];

/* Runs a transform into outbuf; returns it, NUL-terminated. */
static const char *run(enum cf_kind kind, const char *in, const struct cpus_map *m)
{
	struct cf_out o = { outbuf, 0, sizeof outbuf - 1, -1, 0 };

	cf_transform(kind, in, strlen(in), m, &o);
	assert_int_equal(o.err, 0);
	outbuf[o.len] = '\0';
	return outbuf;
}

static const unsigned short r01[] = { 0, 1 }, r1[] = { 1 };

/* N virtual CPUs on the real ones of `real` (r of them). */
static struct cpus_map map_of(long n, const unsigned short *real, long r, bool identity)
{
	struct cpus_map m;

	memset(&m, 0, sizeof m);
	m.n = n;
	m.r = r;
	m.identity = identity;
	m.real = real;
	return m;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

static const char cpuinfo_x86[] =
	"processor\t: 0\nvendor_id\t: X\ncpu MHz\t\t: 1000.000\nphysical id\t: 0\nsiblings\t: 2\n"
	"core id\t\t: 0\ncpu cores\t: 2\napicid\t\t: 0\ninitial apicid\t: 0\nflags\t\t: fpu\n\n"
	"processor\t: 1\nvendor_id\t: X\ncpu MHz\t\t: 1001.000\nphysical id\t: 0\nsiblings\t: 2\n"
	"core id\t\t: 1\ncpu cores\t: 2\napicid\t\t: 2\ninitial apicid\t: 2\nflags\t\t: fpu\n\n";

/* Virtual CPU v of a machine of n, as block of real CPU `mhz`'s. */
static void block(char *out, size_t cap, long v, long n, int mhz)
{
	snprintf(out, cap,
	         "processor\t: %ld\nvendor_id\t: X\ncpu MHz\t\t: %d.000\nphysical id\t: 0\n"
	         "siblings\t: %ld\ncore id\t\t: %ld\ncpu cores\t: %ld\napicid\t\t: %ld\n"
	         "initial apicid\t: %ld\nflags\t\t: fpu\n\n",
	         v, mhz, n, v, n, v, v);
}

static void test_cpuinfo(void **state)
{
	struct cpus_map m;
	char want[4096], b[512];

	(void)state;
	m = map_of(2, r01, 2, true);
	assert_string_equal(run(CF_CPUINFO, cpuinfo2, &m), cpuinfo2);
	assert_string_equal(run(CF_CPUINFO, cpuinfo_x86, &m), cpuinfo_x86);
	/* --cpus 1: CPU 0's block, a 1-CPU machine's topology. */
	m = map_of(1, r01, 2, false);
	block(want, sizeof want, 0, 1, 1000);
	assert_string_equal(run(CF_CPUINFO, cpuinfo_x86, &m), want);
	/* taskset -c 1, --cpus 1 and 2: processors from 0, CPU 1's own
	 * numbers (its MHz), the topology of the machine shown. */
	m = map_of(1, r1, 1, false);
	block(want, sizeof want, 0, 1, 1001);
	assert_string_equal(run(CF_CPUINFO, cpuinfo_x86, &m), want);
	m = map_of(2, r1, 1, false);
	block(want, sizeof want, 0, 2, 1001);
	block(b, sizeof b, 1, 2, 1001);
	strcat(want, b);
	assert_string_equal(run(CF_CPUINFO, cpuinfo_x86, &m), want);
	/* Above the real count: round robin, every block its CPU's numbers,
	 * ids distinct. */
	m = map_of(64, r01, 2, false);
	run(CF_CPUINFO, cpuinfo_x86, &m);
	assert_int_equal(count(outbuf, "processor\t:"), 64);
	assert_int_equal(count(outbuf, "siblings\t: 64\n"), 64);
	assert_int_equal(count(outbuf, "cpu cores\t: 64\n"), 64);
	assert_int_equal(count(outbuf, "\napicid\t\t: 0\n"), 1);
	block(b, sizeof b, 63, 64, 1001);
	assert_non_null(strstr(outbuf, b));
	block(b, sizeof b, 62, 64, 1000);
	assert_non_null(strstr(outbuf, b));
	/* Text before the first block stays (arm32's "Processor" header); a
	 * block without topology lines changes its number only. */
	m = map_of(1, r1, 1, false);
	assert_string_equal(run(CF_CPUINFO, "Hdr\t: v7\n\nprocessor : 0\nx\n\nprocessor : 1\ny\n", &m),
	                    "Hdr\t: v7\n\nprocessor : 0\ny\n");
	/* Nothing we understand: unchanged. */
	assert_string_equal(run(CF_CPUINFO, "vendor : z\n", &m), "vendor : z\n");
}

static void test_stat(void **state)
{
	struct cpus_map m;

	(void)state;
	/* The identity: the kernel's own total, byte for byte. */
	m = map_of(2, r01, 2, true);
	assert_string_equal(run(CF_STAT, stat2, &m), stat2);
	m = map_of(1, r01, 2, false);
	assert_string_equal(run(CF_STAT, stat2, &m),
	                    "cpu  10 1 100 1000 0 0 0 0 0 0\n"
	                    "cpu0 10 1 100 1000 0 0 0 0 0 0\n"
	                    "intr 5 0 0\nctxt 7\n");
	/* taskset -c 1: cpu0 is CPU 1's line. */
	m = map_of(1, r1, 1, false);
	assert_string_equal(run(CF_STAT, stat2, &m),
	                    "cpu  20 2 200 2000 0 0 0 0 0 0\n"
	                    "cpu0 20 2 200 2000 0 0 0 0 0 0\n"
	                    "intr 5 0 0\nctxt 7\n");
	/* Above: round robin; the total is the sum of the lines shown. */
	m = map_of(3, r01, 2, false);
	assert_string_equal(run(CF_STAT, stat2, &m),
	                    "cpu  40 4 400 4000 0 0 0 0 0 0\n"
	                    "cpu0 10 1 100 1000 0 0 0 0 0 0\n"
	                    "cpu1 20 2 200 2000 0 0 0 0 0 0\n"
	                    "cpu2 10 1 100 1000 0 0 0 0 0 0\n"
	                    "intr 5 0 0\nctxt 7\n");
	/* A kernel's total that is not the sum of its lines (it rounds once)
	 * is recomputed as soon as the machine differs. */
	m = map_of(1, r01, 2, false);
	run(CF_STAT, "cpu  11 0\ncpu0 5 0\ncpu1 5 0\nctxt 1\n", &m);
	assert_string_equal(outbuf, "cpu  5 0\ncpu0 5 0\nctxt 1\n");
}

static void test_list(void **state)
{
	struct cpus_map m;

	(void)state;
	m = map_of(2, r01, 2, true);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0-1\n");
	assert_string_equal(run(CF_LIST, "0-7\n", &m), "0-7\n");
	m = map_of(1, r01, 2, false);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0\n");
	m = map_of(1, r1, 1, false);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0\n");
	m = map_of(2, r1, 1, false);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0-1\n");
	m = map_of(64, r01, 2, false);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0-63\n");
	assert_string_equal(run(CF_LIST, "0-2,4-5,7\n", &m), "0-63\n");
	/* kernel_max: the kernel's while it holds N, else a MAXSMP kernel's. */
	assert_string_equal(run(CF_KMAX, "255\n", &m), "255\n");
	m = map_of(256, r01, 2, false);
	assert_string_equal(run(CF_KMAX, "255\n", &m), "255\n");
	m = map_of(257, r01, 2, false);
	assert_string_equal(run(CF_KMAX, "255\n", &m), "8191\n");
	m = map_of(8192, r01, 2, false);
	assert_string_equal(run(CF_KMAX, "8191\n", &m), "8191\n");
}

/* A file of virtual CPU v's (cpuK/topology/, cache/), a node's, a status. */
static const char *run_of(enum cf_kind kind, long v, const char *in, const struct cpus_map *m)
{
	struct cf_about a = { v, NULL, false };
	struct cf_out o = { outbuf, 0, sizeof outbuf - 1, -1, 0 };

	cf_transform_of(kind, &a, in, strlen(in), m, &o);
	assert_int_equal(o.err, 0);
	outbuf[o.len] = '\0';
	return outbuf;
}

/* One package of N cores without SMT; masks as the kernel's %*pb of N
 * bits (32-bit groups, the first as wide as it needs), lists as %*pbl. */
static void test_topology(void **state)
{
	struct cpus_map m;
	struct cf_about a = { 0, NULL, false };
	unsigned char bits[8] = { 0x05, 0, 0, 0, 0x01 };
	struct cf_out o = { outbuf, 0, sizeof outbuf - 1, -1, 0 };
	static const char status[] = "Name:\tx\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"
	                             "Mems_allowed:\t1\n";

	(void)state;
	m = map_of(4, r01, 2, false);
	assert_string_equal(run_of(CF_T_ID, 3, "1\n", &m), "3\n");
	assert_string_equal(run_of(CF_T_ZERO, 3, "1\n", &m), "0\n");
	assert_string_equal(run_of(CF_T_SELF_MASK, 3, "2\n", &m), "8\n");
	assert_string_equal(run_of(CF_T_SELF_LIST, 3, "1\n", &m), "3\n");
	assert_string_equal(run_of(CF_T_ALL_MASK, 3, "3\n", &m), "f\n");
	assert_string_equal(run_of(CF_T_ALL_LIST, 3, "0-1\n", &m), "0-3\n");
	/* A cache the real CPU has alone is v's; a shared one, all of those
	 * on the real CPUs sharing it. */
	assert_string_equal(run_of(CF_T_SHARED_LIST, 2, "0\n", &m), "2\n");
	assert_string_equal(run_of(CF_T_SHARED_MASK, 2, "1\n", &m), "4\n");
	assert_string_equal(run_of(CF_T_SHARED_LIST, 2, "0-1\n", &m), "0-3\n");
	assert_string_equal(run_of(CF_T_SHARED_MASK, 2, "3\n", &m), "f\n");
	assert_string_equal(run_of(CF_T_CACHE_ID, 2, "0\n", &m), "2\n");
	a.v = 2;
	a.shared = true;
	cf_transform_of(CF_T_CACHE_ID, &a, "7\n", 2, &m, &o);
	outbuf[o.len] = '\0';
	assert_string_equal(outbuf, "7\n");
	/* A node: the virtual CPUs on its real ones (here real 1 only). */
	assert_string_equal(run_of(CF_NODE_LIST, -1, "1\n", &m), "1,3\n");
	assert_string_equal(run_of(CF_NODE_MASK, -1, "00000000,00000002\n", &m), "a\n");
	/* Widths: 36 bits are "f,ffffffff"; 64, two full groups. */
	m = map_of(36, r01, 2, false);
	assert_string_equal(run_of(CF_T_ALL_MASK, 0, "3\n", &m), "f,ffffffff\n");
	assert_string_equal(run_of(CF_T_SELF_MASK, 33, "3\n", &m), "2,00000000\n");
	assert_string_equal(run_of(CF_T_SELF_LIST, 33, "1\n", &m), "33\n");
	m = map_of(64, r01, 2, false);
	assert_string_equal(run_of(CF_T_SELF_MASK, 0, "1\n", &m), "00000000,00000001\n");
	m = map_of(1, r1, 1, false);
	assert_string_equal(run_of(CF_T_ALL_LIST, 0, "0-1\n", &m), "0\n");
	assert_string_equal(run_of(CF_T_ALL_MASK, 0, "3\n", &m), "1\n");
	/* A status: the affinity lines from the virtual mask, the rest kept. */
	m = map_of(36, r01, 2, false);
	a.vmask = bits;
	o.len = 0;
	cf_transform_of(CF_STATUS, &a, status, strlen(status), &m, &o);
	outbuf[o.len] = '\0';
	assert_string_equal(outbuf, "Name:\tx\nCpus_allowed:\t1,00000005\n"
	                            "Cpus_allowed_list:\t0,2,32\nMems_allowed:\t1\n");
}

/* Which paths are the machine's directories', and what they become. */
static void test_vpath(void **state)
{
	struct cf_vpath vp;
	int dfd;

	(void)state;
	cpus_wanted = 4; /* on the real CPUs of this process's mask */
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/cpu3/topology/core_id", &vp),
	                 CF_V_REAL);
	assert_true(vp.gen);
	assert_int_equal(vp.kind, CF_T_ID);
	assert_int_equal(vp.v, 3);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/cpu3/uevent", &vp), CF_V_REAL);
	assert_false(vp.gen);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/cpu4", &vp), CF_V_GONE);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/node/node0/cpu4/topology", &vp),
	                 CF_V_GONE);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/node/node0/cpu2", &vp), CF_V_REAL);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/node/node0/cpulist", &vp), CF_V_REAL);
	assert_int_equal(vp.kind, CF_NODE_LIST);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/cpu3/cache/index3/shared_cpu_map", &vp),
	                 CF_V_REAL);
	assert_int_equal(vp.kind, CF_T_SHARED_MASK);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/proc/self/status", &vp), CF_V_REAL);
	assert_int_equal(vp.kind, CF_STATUS);
	/* Not ours: other names, leading zeros, relative to the working directory. */
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/cpu01", &vp), CF_V_NATIVE);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/cpufreq", &vp), CF_V_NATIVE);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/sys/devices/system/cpu/online", &vp), CF_V_NATIVE);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "/proc/1/status", &vp), CF_V_NATIVE);
	assert_int_equal(fp_cpus_vpath(AT_FDCWD, "cpu3", &vp), CF_V_NATIVE);
	assert_int_equal(fp_cpus_listing(AT_FDCWD, "/sys/devices/system/cpu/"), 1);
	assert_int_equal(fp_cpus_listing(AT_FDCWD, "/sys/devices/system/node/node0"), 2);
	assert_int_equal(fp_cpus_listing(AT_FDCWD, "/sys/devices/system/node"), 0);
	/* lscpu's way: relative to a noted descriptor of the directory. */
	dfd = open("/sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	fp_cpus_note_dir("/sys/devices/system/cpu", dfd);
	assert_int_equal(fp_cpus_vpath(dfd, "cpu3/topology/thread_siblings", &vp), CF_V_REAL);
	assert_int_equal(vp.kind, CF_T_SELF_MASK);
	assert_int_equal(fp_cpus_vpath(dfd, "cpu7", &vp), CF_V_GONE);
	close(dfd);
	/* Forgotten, for the tests that follow (the number comes back). */
	memset(cf_slots, 0, sizeof cf_slots);
	atomic_store(&cf_nslots, 0);
	cpus_wanted = 0;
}

/* This machine's own files, read once: with the mask at the real count
 * the output is the input, byte for byte. */
static void test_identity_on_real_files(void **state)
{
	size_t i;

	(void)state;
	cpus_wanted = fp_real_cpus.r_sysconf.f(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < CF_NFILES; i++) {
		struct cf_text t = { NULL, 0, 0, false };
		struct cf_out o = { outbuf, 0, sizeof outbuf, -1, 0 };
		struct cpus_map m;

		assert_int_equal(cf_read_real(AT_FDCWD, cf_files[i].path, O_RDONLY, &t), 0);
		fp_cpus_map(&m);
		if (!m.identity) {
			printf("skip: this process may not use every CPU (taskset?): no identity\n");
			cf_text_free(&t);
			skip();
		}
		cf_transform(cf_files[i].kind, t.p, t.len, &m, &o);
		assert_int_equal(o.err, 0);
		if (o.len != t.len || memcmp(outbuf, t.p, t.len) != 0)
			fail_msg("%s differs at the real count", cf_files[i].path);
		cf_text_free(&t);
	}
}

/* An endless file at a CPU file's path (t_robust.sh binds /dev/zero over
 * /proc/stat where it may) is read no further than CF_TEXT_MAX: the open
 * is then the real one.  A plain file there is text like any other. */
static void test_not_kernel_files(void **state)
{
	struct cf_text t = { NULL, 0, 0, false };

	(void)state;
	if (access("/dev/zero", R_OK) == 0) {
		assert_int_equal(cf_read_real(AT_FDCWD, "/dev/zero", O_RDONLY, &t), CF_NOT_OURS);
		assert_true(t.len <= CF_TEXT_MAX);
		cf_text_free(&t);
	}
	t = (struct cf_text){ NULL, 0, 0, false };
	assert_int_equal(cf_read_real(AT_FDCWD, "/etc/hostname", O_RDONLY, &t), 0);
	cf_text_free(&t);
}

static void test_match(void **state)
{
	static const char *const no[] = {
		"/proc/self/stat", "/proc/stat2", "/proc/statx", "/proc/cpuinfo/",
		"/sys/devices/system/cpu/online2", "/sys/devices/system/cpu/cpu0/online",
		"/proc//cpuinfo", "/dev/urandom", "/etc/passwd", "stat", "",
	};
	size_t i;
	int dfd;

	(void)state;
	assert_int_equal(CF_NFILES, 7);  /* enabled, Linux 6.10, too */
	for (i = 0; i < CF_NFILES; i++) {
		assert_ptr_equal(cf_match(AT_FDCWD, cf_files[i].path, O_RDONLY | O_CLOEXEC), &cf_files[i]);
		assert_null(cf_match(AT_FDCWD, cf_files[i].path, O_RDWR));
		assert_null(cf_match(AT_FDCWD, cf_files[i].path, O_WRONLY));
		assert_null(cf_match(AT_FDCWD, cf_files[i].path, O_RDONLY | O_DIRECTORY));
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_null(cf_match(AT_FDCWD, no[i], O_RDONLY));
	assert_null(cf_match(AT_FDCWD, NULL, O_RDONLY));
	/* lscpu's way: a descriptor of the directory, noted when opened (the
	 * open wrappers call fp_cpus_opened), and a relative name. */
	dfd = open("/sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_null(cf_match(dfd, "online", O_RDONLY)); /* not noted: not known */
	fp_cpus_note_dir("/sys/devices/system/cpu", dfd);
	assert_ptr_equal(cf_match(dfd, "online", O_RDONLY), &cf_files[2]);
	assert_ptr_equal(cf_match(dfd, "kernel_max", O_RDONLY), &cf_files[6]);
	assert_ptr_equal(cf_match(dfd, "enabled", O_RDONLY), &cf_files[5]);
	assert_null(cf_match(dfd, "cpuinfo", O_RDONLY));
	close(dfd);
	/* The number reused for another directory: not known any more. */
	dfd = open("/sys/devices/system", O_RDONLY | O_DIRECTORY);
	assert_null(cf_match(dfd, "online", O_RDONLY));
	close(dfd);
	dfd = open("/proc/", O_RDONLY | O_DIRECTORY);
	fp_cpus_opened("/proc/", dfd);
	assert_ptr_equal(cf_match(dfd, "cpuinfo", O_RDONLY), &cf_files[0]);
	assert_ptr_equal(cf_match(dfd, "stat", O_RDONLY), &cf_files[1]);
	assert_null(cf_match(dfd, "self/stat", O_RDONLY));
	assert_null(cf_match(dfd, "online", O_RDONLY));
	close(dfd);
	/* htop's way: "stat" under /proc/<pid>, and relative to the working
	 * directory: never ours, whatever it is. */
	dfd = open("/proc/1", O_RDONLY | O_DIRECTORY);
	fp_cpus_opened("/proc/1", dfd);
	assert_null(cf_match(dfd, "stat", O_RDONLY));
	close(dfd);
	assert_null(cf_match(AT_FDCWD, "cpuinfo", O_RDONLY));
}

/* The descriptor: reads, pread, lseek, fstat, close, no writes, cloexec
 * as asked, the lowest free number. */
static void test_descriptor(void **state)
{
	char buf[256], buf2[256];
	struct stat st;
	int fd, probe;
	ssize_t n;

	(void)state;
	cpus_wanted = 3;
	probe = open("/dev/null", O_RDONLY);
	close(probe);
	assert_true(fp_cpus_open(AT_FDCWD, "/sys/devices/system/cpu/online", O_RDONLY, &fd));
	assert_int_equal(fd, probe);
	n = read(fd, buf, sizeof buf);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "0-2\n", 4);
	assert_int_equal(read(fd, buf, sizeof buf), 0);
	assert_int_equal(pread(fd, buf2, 2, 2), 2);
	assert_memory_equal(buf2, "2\n", 2);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(read(fd, buf2, sizeof buf2), 4);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	errno = 0;
	assert_int_equal(write(fd, "x", 1), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(close(fd), 0);
	assert_true(fp_cpus_open(AT_FDCWD, "/proc/cpuinfo", O_RDONLY | O_CLOEXEC, &fd));
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	/* At the descriptor limit (one free): still read-only, still ours. */
	{
		struct rlimit old, one;

		assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
		one = old;
		one.rlim_cur = (rlim_t)probe + 1;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &one), 0);
		assert_true(fp_cpus_open(AT_FDCWD, "/sys/devices/system/cpu/online", O_RDONLY, &fd));
		assert_int_equal(fd, probe);
		assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		assert_int_equal(write(fd, "x", 1), -1);
		assert_int_equal(errno, EBADF);
		assert_int_equal(read(fd, buf, sizeof buf), 4);
		assert_memory_equal(buf, "0-2\n", 4);
		close(fd);
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	}
	/* A path that is not ours, or flags that are not a plain read. */
	assert_false(fp_cpus_open(AT_FDCWD, "/proc/self/stat", O_RDONLY, &fd));
	assert_false(fp_cpus_open(AT_FDCWD, "/proc/stat", O_RDWR, &fd));
	/* The cap unset: nothing is ours. */
	fp_cfg.enabled &= ~FP_BIT(cpus);
	assert_false(fp_cpus_open(AT_FDCWD, "/proc/stat", O_RDONLY, &fd));
	fp_cfg.enabled |= FP_BIT(cpus);
}

/* Big N: output larger than the staging buffer, flushed in pieces. */
static void test_big(void **state)
{
	size_t len = 0;
	int fd;
	ssize_t n;

	(void)state;
	cpus_wanted = 4096;
	assert_true(fp_cpus_open(AT_FDCWD, "/proc/stat", O_RDONLY, &fd));
	assert_true(fd >= 0);
	while ((n = read(fd, outbuf + len, sizeof outbuf - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	outbuf[len] = '\0';
	assert_int_equal(count(outbuf, "\ncpu"), 4096);
	assert_non_null(strstr(outbuf, "\ncpu4095 "));
}

/* The bytes of fd from its start, into buf (NUL-terminated); closes fd. */
static const char *slurp(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	while ((n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* /proc/cpuinfo of the machine m, as cf_fill writes it to a descriptor
 * (through the memo, cpus_text.c), read back into buf. */
static const char *to_fd(const char *in, const struct cpus_map *m, char *buf, size_t cap)
{
	static char stage[CF_STAGE];
	int fd = (int)syscall(SYS_memfd_create, "t", 0u);
	struct cf_out o = { stage, 0, sizeof stage, fd, 0 };

	assert_true(fd >= 0);
	cf_transform_of(CF_CPUINFO, NULL, in, strlen(in), m, &o);
	cf_flush(&o);
	assert_int_equal(o.err, 0);
	return slurp(fd, buf, cap);
}

/* Issue 37: the text made for /proc/cpuinfo is kept and written again
 * while the kernel's text and the map are the same, and made afresh when
 * either moves (a clock that scales: cpu MHz), never stale. */
static void test_memo(void **state)
{
	static char got[1 << 20], moved[sizeof cpuinfo_x86];
	struct cpus_map m = map_of(64, r01, 2, false), m5 = map_of(5, r01, 2, false);
	char *mhz;

	(void)state;
	memcpy(moved, cpuinfo_x86, sizeof moved);
	assert_non_null(mhz = strstr(moved, "1001.000"));
	memcpy(mhz, "2999", 4);
	/* Made, kept, and written again: the pure transform's bytes. */
	assert_string_equal(to_fd(cpuinfo_x86, &m, got, sizeof got), run(CF_CPUINFO, cpuinfo_x86, &m));
	assert_true(cf_memo.valid);
	assert_int_equal(cf_memo.out_len, strlen(outbuf));
	assert_int_equal(count(to_fd(cpuinfo_x86, &m, got, sizeof got), "processor\t:"), 64);
	assert_string_equal(got, outbuf);
	/* The kernel's text moved: the new MHz, in every block of CPU 1. */
	assert_string_equal(to_fd(moved, &m, got, sizeof got), run(CF_CPUINFO, moved, &m));
	assert_int_equal(count(got, "2999.000"), 32);
	/* Another map, the same text. */
	assert_string_equal(to_fd(moved, &m5, got, sizeof got), run(CF_CPUINFO, moved, &m5));
	/* Taken (another thread's): made in the caller's stage, the same. */
	cf_memo.busy = 1;
	assert_string_equal(to_fd(cpuinfo_x86, &m, got, sizeof got), run(CF_CPUINFO, cpuinfo_x86, &m));
	cf_memo.busy = 0;
	/* Through the open: this machine's file at 64, then at 5. */
	cpus_wanted = 64;
	for (int i = 0; i < 3; i++) {
		int fd;

		if (i == 2)
			cpus_wanted = 5;
		assert_true(fp_cpus_open(AT_FDCWD, "/proc/cpuinfo", O_RDONLY, &fd));
		assert_true(fd >= 0);
		assert_int_equal(count(slurp(fd, got, sizeof got), "\nprocessor"), i == 2 ? 4 : 63);
	}
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
	fp_cfg.enabled &= ~FP_BIT(cpus);
	cpus_wanted = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuinfo),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_topology),
		cmocka_unit_test_setup_teardown(test_vpath, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_on_real_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_kernel_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memo, setup, teardown),
	};

	return cmocka_run_group_tests_name("cpus_files", tests, NULL, NULL);
}
