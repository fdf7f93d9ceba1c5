/*
 * Unit tests of cpus_text.c and cpus_files_shim.c: the pure text
 * transforms (input text + mask -> output text) on fixed samples and on
 * this machine's own files, and the descriptor fp_cpus_open() hands back.
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
#include "../cpus_text.c"
#include "../cpus_files_shim.c"
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
static const char *run(enum cf_kind kind, const char *in, const struct cf_mask *m)
{
	struct cf_out o = { outbuf, 0, sizeof outbuf - 1, -1, 0 };

	cf_transform(kind, in, strlen(in), m, &o);
	assert_int_equal(o.err, 0);
	outbuf[o.len] = '\0';
	return outbuf;
}

/* real ids [0, nreal) of which the first `shown` are in the mask, then
 * `fakes` made-up ids from nreal on. */
static struct cf_mask mask_of(long nreal, long shown, long fakes)
{
	struct cf_mask m;
	long i;

	CPU_ZERO(&m.real);
	for (i = 0; i < shown; i++)
		CPU_SET((size_t)i, &m.real);
	m.real_bound = nreal;
	m.fake_lo = nreal;
	m.fake_n = fakes;
	return m;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

static void test_cpuinfo(void **state)
{
	struct cf_mask m;

	(void)state;
	m = mask_of(2, 2, 0);
	assert_string_equal(run(CF_CPUINFO, cpuinfo2, &m), cpuinfo2);
	m = mask_of(2, 1, 0);
	assert_string_equal(run(CF_CPUINFO, cpuinfo2, &m),
	                    "processor\t: 0\nvendor_id\t: X\ncore id\t\t: 0\ncpu MHz\t\t: 1000.000\n\n");
	/* Only CPU 1 shown (taskset -c 1, --cpus 1). */
	CPU_ZERO(&m.real);
	CPU_SET(1, &m.real);
	assert_string_equal(run(CF_CPUINFO, cpuinfo2, &m),
	                    "processor\t: 1\nvendor_id\t: X\ncore id\t\t: 1\ncpu MHz\t\t: 1001.000\n\n");
	/* Made-up CPUs: copies with the number changed, in order. */
	m = mask_of(2, 2, 2);
	run(CF_CPUINFO, cpuinfo2, &m);
	assert_int_equal(count(outbuf, "processor"), 4);
	assert_non_null(strstr(outbuf, "processor\t: 1\n"));
	assert_non_null(strstr(outbuf, "cpu MHz\t\t: 1001.000\n\nprocessor\t: 2\nvendor_id"));
	assert_non_null(strstr(outbuf, "\n\nprocessor\t: 3\nvendor_id\t: X\ncore id\t\t: 0\n"));
	/* Text before the first block stays (arm32's "Processor" header). */
	m = mask_of(2, 1, 0);
	assert_string_equal(run(CF_CPUINFO, "Hdr\t: v7\n\nprocessor : 0\nx\n\nprocessor : 1\ny\n", &m),
	                    "Hdr\t: v7\n\nprocessor : 0\nx\n\n");
	/* Nothing we understand: unchanged. */
	assert_string_equal(run(CF_CPUINFO, "vendor : z\n", &m), "vendor : z\n");
}

static void test_stat(void **state)
{
	struct cf_mask m;

	(void)state;
	/* Exactly the kernel's lines: the kernel's own total, byte for byte. */
	m = mask_of(2, 2, 0);
	assert_string_equal(run(CF_STAT, stat2, &m), stat2);
	m = mask_of(2, 1, 0);
	assert_string_equal(run(CF_STAT, stat2, &m),
	                    "cpu  10 1 100 1000 0 0 0 0 0 0\n"
	                    "cpu0 10 1 100 1000 0 0 0 0 0 0\n"
	                    "intr 5 0 0\nctxt 7\n");
	/* Above: the total is the sum of the lines shown. */
	m = mask_of(2, 2, 1);
	assert_string_equal(run(CF_STAT, stat2, &m),
	                    "cpu  40 4 400 4000 0 0 0 0 0 0\n"
	                    "cpu0 10 1 100 1000 0 0 0 0 0 0\n"
	                    "cpu1 20 2 200 2000 0 0 0 0 0 0\n"
	                    "cpu2 10 1 100 1000 0 0 0 0 0 0\n"
	                    "intr 5 0 0\nctxt 7\n");
	/* A kernel's total that is not the sum of its lines (it rounds once)
	 * is recomputed as soon as the lines differ. */
	m = mask_of(2, 1, 0);
	run(CF_STAT, "cpu  11 0\ncpu0 5 0\ncpu1 5 0\nctxt 1\n", &m);
	assert_string_equal(outbuf, "cpu  5 0\ncpu0 5 0\nctxt 1\n");
}

static void test_list(void **state)
{
	struct cf_mask m;

	(void)state;
	m = mask_of(2, 2, 0);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0-1\n");
	m = mask_of(2, 1, 0);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0\n");
	m = mask_of(2, 2, 62);
	assert_string_equal(run(CF_LIST, "0-1\n", &m), "0-63\n");
	/* possible keeps ids a kernel reserves beyond the real CPUs. */
	m = mask_of(2, 1, 0);
	assert_string_equal(run(CF_LIST, "0-7\n", &m), "0,2-7\n");
	/* Holes and single ids. */
	m = mask_of(8, 8, 0);
	CPU_CLR(3, &m.real);
	CPU_CLR(6, &m.real);
	assert_string_equal(run(CF_LIST, "0-2,4-5,7\n", &m), "0-2,4-5,7\n");
	CPU_ZERO(&m.real);
	CPU_SET(5, &m.real);
	assert_string_equal(run(CF_LIST, "0-2,4-5,7\n", &m), "5\n");
}

/* This machine's own files, read once: with the mask at the real count
 * the output is the input, byte for byte. */
static void test_identity_on_real_files(void **state)
{
	size_t i;

	(void)state;
	cpus_wanted = fp_real.r_sysconf.f(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < CF_NFILES; i++) {
		struct cf_text t = { NULL, 0, 0, false };
		struct cf_out o = { outbuf, 0, sizeof outbuf, -1, 0 };
		struct cf_mask m;

		assert_int_equal(cf_read_real(AT_FDCWD, cf_files[i].path, &t), 0);
		fp_cpus_machine(&m.real, &m.real_bound, &m.fake_lo, &m.fake_n);
		cf_transform(cf_files[i].kind, t.p, t.len, &m, &o);
		assert_int_equal(o.err, 0);
		if (o.len != t.len || memcmp(outbuf, t.p, t.len) != 0)
			fail_msg("%s differs at the real count", cf_files[i].path);
		cf_text_free(&t);
	}
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
	for (i = 0; i < CF_NFILES; i++) {
		assert_ptr_equal(cf_match(AT_FDCWD, cf_files[i].path, O_RDONLY | O_CLOEXEC), &cf_files[i]);
		assert_null(cf_match(AT_FDCWD, cf_files[i].path, O_RDWR));
		assert_null(cf_match(AT_FDCWD, cf_files[i].path, O_WRONLY));
		assert_null(cf_match(AT_FDCWD, cf_files[i].path, O_RDONLY | O_DIRECTORY));
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_null(cf_match(AT_FDCWD, no[i], O_RDONLY));
	assert_null(cf_match(AT_FDCWD, NULL, O_RDONLY));
	/* lscpu's way: a descriptor of the directory and a relative name. */
	dfd = open("/sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_ptr_equal(cf_match(dfd, "online", O_RDONLY), &cf_files[2]);
	assert_null(cf_match(dfd, "kernel_max", O_RDONLY));
	close(dfd);
	dfd = open("/proc", O_RDONLY | O_DIRECTORY);
	assert_ptr_equal(cf_match(dfd, "cpuinfo", O_RDONLY), &cf_files[0]);
	assert_ptr_equal(cf_match(dfd, "stat", O_RDONLY), &cf_files[1]);
	assert_null(cf_match(dfd, "self/stat", O_RDONLY));
	close(dfd);
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
		cmocka_unit_test_setup_teardown(test_identity_on_real_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big, setup, teardown),
	};

	return cmocka_run_group_tests_name("cpus_files", tests, NULL, NULL);
}
