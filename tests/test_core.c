/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the core: settings parsing (every malformed case we could
 * think of), the summary line, the signal-safe formatter, and binding of
 * real symbols including re-entry and a second thread during binding.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/syscall.h>

/* Binding goes through our hook, so a test can re-enter during it. */
static void *test_dlsym(const char *name);
#define FP_DLSYM(name) test_dlsym(name)
/* A waiting thread's turn, counted (below). */
static void test_yield(void);
#define FP_YIELD() test_yield()
#include "core_units.h"
/* The whole library, as fastpath.so has it: the settings and the summary
 * line are checked against the real registry. */
#include "../mitigations.c"
#include "../readlink_path.c"
#include "../readlink_shim.c"
#include "../readlink_classify.c"
#include "../urandom_pool.c"
#include "../urandom_vdso.c"
#include "../urandom_fd.c"
#include "../urandom_vfork.c"
#include "../urandom_hidden.c"
#include "../urandom_open.c"
#include "../urandom_dup.c"
#include "../urandom_cloexec.c"
#include "../urandom_shim.c"
#include "../urandom_fcntl.c"
#include "../urandom_stdio.c"
#include "../urandom_exec.c"
#include "../urandom_cow.c"
#include "../urandom_seen.c"
#include "../urandom_survey.c"
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
#include "../localtime_shim.c"

/* What the messages list, from the registry itself (mitigations.h), not
 * copied here by hand: "readlink, urandom, cpus, " and "readlink off; ...". */
#define REG_NAME(n) #n ", "
#define REG_OFF(n) #n " off; "
#define REG_ACCEPTED "accepted: " FP_MITIGATIONS(REG_NAME) "all"
#define REG_ALL_OFF "fastpath[7]: " FP_MITIGATIONS(REG_OFF)

static void (*dlsym_hook)(const char *name);

static void *test_dlsym(const char *name)
{
	if (dlsym_hook)
		dlsym_hook(name);
	return dlsym(RTLD_NEXT, name);
}

/* A turn given up in fp_init_slow's wait while another thread binds
 * (FP_YIELD), counted for every thread but the binder.  That is how a test
 * knows, without sleeping, that a thread is waiting.  Not only the thread
 * marked as the waiter: its start may itself call one of our wrappers and
 * wait in fp_ready() before it runs a line of the test (ASan's thread
 * set-up calls sysconf, and the whole library is in this program).  It
 * calls none of our wrappers itself: the wait's yield never did, or a
 * waiter would wait again inside its wait, until its stack ran out (one
 * run in six, when the program's syscall() was the yield). */
static _Thread_local int yield_is_binder;
static _Atomic unsigned long waiter_yields;

static void test_yield(void)
{
	if (!yield_is_binder)
		atomic_fetch_add(&waiter_yields, 1);
	(void)sched_yield();
}

static void reset_init(void)
{
	atomic_store(&fp_init_state, FP_INIT_NONE);
	/* Every table to be bound again (bind.c). */
	atomic_store(&fp_bound, 0);
	atomic_store(&fp_written, 0);
	dlsym_hook = NULL;
}

/* ---- FASTPATH_DISABLE ------------------------------------------------- */

static void test_features_valid(void **state)
{
	static const struct {
		const char *in;
		unsigned mask;
	} cases[] = {
		{ "", 0 },
		{ "readlink", FP_BIT(readlink) },
		{ "urandom", FP_BIT(urandom) },
		{ "cpus", FP_BIT(cpus) },
		{ "all", FP_ALL },
		{ "readlink,urandom", FP_BIT(readlink) | FP_BIT(urandom) },
		{ "urandom,readlink,cpus", FP_BIT(readlink) | FP_BIT(urandom) | FP_BIT(cpus) },
		{ "READLINK", FP_BIT(readlink) },
		{ ",,readlink,", FP_BIT(readlink) },
		{ ",", 0 },
		{ "readlink,readlink", FP_BIT(readlink) },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned mask = 99;
		char why[128] = "";

		assert_int_equal(fp_parse_features(cases[i].in, &mask, why, sizeof why), 0);
		assert_int_equal(mask, cases[i].mask);
		assert_string_equal(why, "");
	}
}

static void test_features_malformed(void **state)
{
	static const struct {
		const char *in;
		unsigned mask;    /* what was understood anyway */
		const char *name; /* the offending item, quoted in the reason */
	} cases[] = {
		{ "bogus", 0, "\"bogus\"" },
		{ "readlink,bogus", FP_BIT(readlink), "\"bogus\"" },
		{ " readlink", 0, "\" readlink\"" },
		{ "readlink ", 0, "\"readlink \"" },
		{ "readlinks", 0, "\"readlinks\"" },
		{ "read", 0, "\"read\"" },
		{ "urandom;cpus", 0, "\"urandom;cpus\"" },
		{ "1", 0, "\"1\"" },
		{ "none", 0, "\"none\"" },
		{ "cpus,x,y", FP_BIT(cpus), "\"x\"" },
		{ "\xff\xfe", 0, "\"\xff\xfe\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned mask = 99;
		char why[128] = "";

		assert_int_equal(fp_parse_features(cases[i].in, &mask, why, sizeof why), -1);
		assert_int_equal(mask, cases[i].mask);
		assert_non_null(strstr(why, cases[i].name));
		assert_non_null(strstr(why, REG_ACCEPTED));
	}
}

static void test_features_long_item_is_cut(void **state)
{
	char in[4096];
	unsigned mask;
	char why[64];

	(void)state;
	memset(in, 'x', sizeof in - 1);
	in[sizeof in - 1] = '\0';
	assert_int_equal(fp_parse_features(in, &mask, why, sizeof why), -1);
	assert_true(strlen(why) < sizeof why);
	/* A NULL reason buffer is allowed: the loader re-parses silently. */
	assert_int_equal(fp_parse_features("bogus", &mask, NULL, 0), -1);
}

/* ---- booleans -------------------------------------------------------- */

static void test_bool(void **state)
{
	static const char *const yes[] = { "1", "yes", "YES", "true", "on", "On" };
	static const char *const no[] = { "0", "no", "false", "off", "", "OFF" };
	static const char *const bad[] = { "2", "y", "enable", " 1", "1 ", "-1", "truee" };
	char why[128];
	bool b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		assert_int_equal(fp_parse_bool(yes[i], &b, why, sizeof why), 0);
		assert_true(b);
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++) {
		assert_int_equal(fp_parse_bool(no[i], &b, why, sizeof why), 0);
		assert_false(b);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		b = true;
		assert_int_equal(fp_parse_bool(bad[i], &b, why, sizeof why), -1);
		assert_false(b);
		assert_non_null(strstr(why, "not a boolean"));
	}
}

/* ---- FASTPATH_CPUS --------------------------------------------------- */

static void test_cpus(void **state)
{
	static const struct {
		const char *in;
		long v;
	} good[] = { { "1", 1 }, { "8", 8 }, { "256", 256 }, { "65536", 65536 }, { "", 0 } };
	static const char *const bad[] = {
		"0", "65537", "-1", "+4", "08", " 8", "8 ", "8x", "x8", "1e3", "0x10",
		"4.0", "99999999999999999999999", "100000", "00", "\t8",
	};
	char why[128];
	long v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		assert_int_equal(fp_parse_count(good[i].in, CPUS_MAX, &v, why, sizeof why), 0);
		assert_int_equal(v, good[i].v);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		v = 42;
		assert_int_equal(fp_parse_count(bad[i], CPUS_MAX, &v, why, sizeof why), -1);
		assert_int_equal(v, 0);
		assert_string_equal(why, "not a whole number from 1 to 65536");
	}
}

/* ---- FASTPATH_STATS -------------------------------------------------- */

static void test_stats_values(void **state)
{
	enum fp_stats_mode m;
	char path[PATH_MAX], why[128];

	(void)state;
	assert_int_equal(fp_parse_stats("", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_int_equal(m, FP_STATS_NONE);
	assert_int_equal(fp_parse_stats("0", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_int_equal(m, FP_STATS_NONE);
	assert_int_equal(fp_parse_stats("1", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_int_equal(m, FP_STATS_STDERR);
	assert_int_equal(fp_parse_stats("stderr", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_int_equal(m, FP_STATS_STDERR);
	assert_int_equal(fp_parse_stats("/var/log/fp", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_int_equal(m, FP_STATS_FILE);
	assert_string_equal(path, "/var/log/fp");
	assert_int_equal(fp_parse_stats("fp.log", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_string_equal(path, "/w/fp.log");
	assert_int_equal(fp_parse_stats("fp.log", "/", &m, path, sizeof path, why, sizeof why), 0);
	assert_string_equal(path, "/fp.log");
	assert_int_equal(fp_parse_stats("a/b", "/w/", &m, path, sizeof path, why, sizeof why), 0);
	assert_string_equal(path, "/w/a/b");
	/* A trailing slash: a directory of per-user files (outfile.c). */
	assert_int_equal(fp_parse_stats("d/", "/w", &m, path, sizeof path, why, sizeof why), 0);
	assert_int_equal(m, FP_STATS_DIR);
	assert_string_equal(path, "/w/d/");
	assert_int_equal(fp_parse_stats("/var/log/fp/", "/w", &m, path, sizeof path, why, sizeof why),
	                 0);
	assert_int_equal(m, FP_STATS_DIR);
	assert_string_equal(path, "/var/log/fp/");
}

static void test_stats_malformed(void **state)
{
	enum fp_stats_mode m;
	char path[32], why[128];
	char longp[64];

	(void)state;
	assert_int_equal(fp_parse_stats("rel", NULL, &m, path, sizeof path, why, sizeof why), -1);
	assert_int_equal(m, FP_STATS_NONE);
	assert_int_equal(fp_parse_stats("rel", "w", &m, path, sizeof path, why, sizeof why), -1);
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = '\0';
	assert_int_equal(fp_parse_stats(longp, "/w", &m, path, sizeof path, why, sizeof why), -1);
	assert_int_equal(m, FP_STATS_NONE);
	assert_string_equal(path, "");
	assert_string_equal(why, "path too long");
	assert_int_equal(fp_parse_stats(longp + 1, "/w", &m, path, sizeof path, why, sizeof why), -1);
	assert_string_equal(path, "");
}

/* ---- the whole environment, warnings included --------------------------- */

static const char *const *fake_env;

static char *fake_get(const char *name)
{
	const char *const *e;
	size_t n = strlen(name);

	for (e = fake_env; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return (char *)*e + n + 1;
	return NULL;
}

/* Runs fp_load_settings with stderr captured; returns the number of lines. */
static int load_capture(const char *const *env, struct fp_settings *cfg, char *err,
                        size_t errlen)
{
	static char stats_path[PATH_MAX], survey_dir[PATH_MAX];
	int pfd[2], saved, lines = 0;
	ssize_t n;
	char *p;

	/* As fp_cfg's: the paths live outside the settings. */
	stats_path[0] = survey_dir[0] = '\0';
	cfg->stats_path = stats_path;
	cfg->survey_dir = survey_dir;

	assert_int_equal(pipe(pfd), 0);
	saved = dup(STDERR_FILENO);
	dup2(pfd[1], STDERR_FILENO);
	close(pfd[1]);
	fp_stderr_note(); /* the pipe is the stderr lines may go to */
	fake_env = env;
	fp_load_settings(cfg, fake_get);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fp_stderr_note();
	n = read(pfd[0], err, errlen - 1);
	close(pfd[0]);
	err[n > 0 ? n : 0] = '\0';
	for (p = err; *p; p++)
		lines += *p == '\n';
	return lines;
}

static void test_load_defaults(void **state)
{
	static const char *const env[] = { NULL };
	struct fp_settings cfg;
	char err[1024];

	(void)state;
	assert_int_equal(load_capture(env, &cfg, err, sizeof err), 0);
	assert_int_equal(cfg.enabled, FP_BIT(readlink) | FP_BIT(urandom));
	assert_false(cfg.debug);
	assert_false(ur_getrandom);
	assert_int_equal(cpus_wanted, 0);
	assert_int_equal(cfg.stats, FP_STATS_NONE);
}

static void test_load_good(void **state)
{
	static const char *const env[] = {
		"FASTPATH_DISABLE=readlink", "FASTPATH_CPUS=8", "FASTPATH_DEBUG=1",
		"FASTPATH_GETRANDOM=yes", "FASTPATH_STATS=stderr", NULL,
	};
	struct fp_settings cfg;
	char err[1024];

	(void)state;
	assert_int_equal(load_capture(env, &cfg, err, sizeof err), 0);
	assert_int_equal(cfg.enabled, FP_BIT(urandom) | FP_BIT(cpus));
	assert_int_equal(cpus_wanted, 8);
	assert_true(cfg.debug);
	assert_true(ur_getrandom);
	assert_int_equal(cfg.stats, FP_STATS_STDERR);
}

static void test_load_disable_wins_over_cpus(void **state)
{
	static const char *const env[] = { "FASTPATH_DISABLE=all", "FASTPATH_CPUS=8", NULL };
	struct fp_settings cfg;
	char err[1024];

	(void)state;
	assert_int_equal(load_capture(env, &cfg, err, sizeof err), 0);
	assert_int_equal(cfg.enabled, 0);
}

/* Each malformed variable: exactly one line, naming it, and a safe default. */
static void test_load_each_malformed(void **state)
{
	static const struct {
		const char *var;
		const char *needle;
	} cases[] = {
		{ "FASTPATH_DISABLE=bogus", "FASTPATH_DISABLE=\"bogus\": unknown feature" },
		{ "FASTPATH_CPUS=lots", "FASTPATH_CPUS=\"lots\": not a whole number" },
		{ "FASTPATH_CPUS=0", "FASTPATH_CPUS=\"0\"" },
		{ "FASTPATH_DEBUG=maybe", "FASTPATH_DEBUG=\"maybe\": not a boolean" },
		{ "FASTPATH_GETRANDOM=2", "FASTPATH_GETRANDOM=\"2\": not a boolean" },
		{ "FASTPATH_STATS=garbage-not-a-path/",
		  "FASTPATH_STATS=\"garbage-not-a-path/\": \"/" },
		{ "FASTPATH_STATS=/nonexistent-dir/x/stats", "No such file or directory" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *env[] = { cases[i].var, NULL };
		struct fp_settings cfg;
		char err[1024];

		assert_int_equal(load_capture(env, &cfg, err, sizeof err), 1);
		assert_non_null(strstr(err, cases[i].needle));
		assert_non_null(strstr(err, "fastpath["));
		/* Safe defaults: the two always-on shims stay on, the rest off. */
		assert_int_equal(cfg.enabled, FP_BIT(readlink) | FP_BIT(urandom));
		assert_int_equal(cpus_wanted, 0);
		assert_false(cfg.debug);
		assert_false(ur_getrandom);
		assert_int_equal(cfg.stats, FP_STATS_NONE);
	}
}

static void test_load_partial_disable(void **state)
{
	static const char *const env[] = { "FASTPATH_DISABLE=urandom,nope", NULL };
	struct fp_settings cfg;
	char err[1024];

	(void)state;
	assert_int_equal(load_capture(env, &cfg, err, sizeof err), 1);
	assert_non_null(strstr(err, "disabling only the names understood"));
	assert_int_equal(cfg.enabled, FP_BIT(readlink));
}

static void test_load_all_malformed_one_line_each(void **state)
{
	static const char *const env[] = {
		"FASTPATH_DISABLE=x", "FASTPATH_CPUS=y", "FASTPATH_DEBUG=z",
		"FASTPATH_GETRANDOM=w", "FASTPATH_STATS=v/", NULL,
	};
	struct fp_settings cfg;
	char err[4096];

	(void)state;
	assert_int_equal(load_capture(env, &cfg, err, sizeof err), 5);
}

static void test_load_stats_file(void **state)
{
	char dir[] = "/tmp/fp-test-XXXXXX";
	char var[PATH_MAX + 32], path[PATH_MAX];
	const char *env[] = { var, NULL };
	struct fp_settings cfg;
	char err[1024];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/stats.log", dir);
	snprintf(var, sizeof var, "FASTPATH_STATS=%s", path);
	assert_int_equal(load_capture(env, &cfg, err, sizeof err), 0);
	assert_int_equal(cfg.stats, FP_STATS_FILE);
	assert_string_equal(cfg.stats_path, path);
	/* Checked at start-up by creating it, so errors show early. */
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	rmdir(dir);
}

/* ---- the summary line -------------------------------------------------- */

/* ---- the files the preload writes (outfile.c) ---------------------------- */

/* The kernel's file systems by their type (cold review 67: by the mount
 * points /proc and /sys alone, a cgroup's file passed), the magic numbers
 * past 2^31 as a 32-bit f_type (a signed int) gives them too. */
static void test_outfile_kernel_types(void **state)
{
	static const uint32_t kernels[] = { PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC,
		                            CGROUP2_SUPER_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		                            SECURITYFS_MAGIC, BPF_FS_MAGIC, EFIVARFS_MAGIC, SELINUX_MAGIC };
	static const uint32_t files[] = { TMPFS_MAGIC, EXT4_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
		                          OVERLAYFS_SUPER_MAGIC, NFS_SUPER_MAGIC, XFS_SUPER_MAGIC,
		                          0x65735546 /* fuse */, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
		assert_true(fp_of_kernel_type((uint32_t)(int32_t)kernels[i]));
	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		assert_false(fp_of_kernel_type(files[i]));
}

static void test_outfile_dirs(void **state)
{
	char dir[] = "/tmp/fp-test-XXXXXX";
	char sub[PATH_MAX], lnk[PATH_MAX], why[256];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/d", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	fd = fp_of_opendir(sub, strlen(sub), why, sizeof why);
	assert_true(fd >= 0);
	close(fd);
	/* Writable by others, not sticky: refused, naming it and why. */
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(fp_of_opendir(sub, strlen(sub), why, sizeof why), FP_OF_REFUSED);
	assert_non_null(strstr(why, sub));
	assert_non_null(strstr(why, "writable by other users and not sticky"));
	/* ... a directory under it too: the walk checks every one. */
	snprintf(lnk, sizeof lnk, "%s/d/e", dir);
	assert_int_equal(mkdir(lnk, 0755), 0);
	assert_int_equal(fp_of_opendir(lnk, strlen(lnk), why, sizeof why), FP_OF_REFUSED);
	assert_non_null(strstr(why, sub));
	/* Sticky, as /tmp: accepted; the length bounds the walk. */
	assert_int_equal(chmod(sub, 01777), 0);
	fd = fp_of_opendir(lnk, strlen(sub), why, sizeof why);
	assert_true(fd >= 0);
	close(fd);
	/* Group-writable by a group other than root's: refused. */
	assert_int_equal(chmod(sub, 0770), 0);
	if (chown(sub, (uid_t)-1, 65534) == 0)
		assert_int_equal(fp_of_opendir(sub, strlen(sub), why, sizeof why), FP_OF_REFUSED);
	assert_int_equal(chmod(sub, 0755), 0);
	/* A symbolic link of ours on the way is followed. */
	snprintf(lnk, sizeof lnk, "%s/l", dir);
	assert_int_equal(symlink(sub, lnk), 0);
	fd = fp_of_opendir(lnk, strlen(lnk), why, sizeof why);
	assert_true(fd >= 0);
	close(fd);
	/* Another user's is not (root only: it takes a chown). */
	if (geteuid() == 0) {
		assert_int_equal(lchown(lnk, 65534, 65534), 0);
		assert_int_equal(fp_of_opendir(lnk, strlen(lnk), why, sizeof why), FP_OF_REFUSED);
		assert_non_null(strstr(why, "symbolic link"));
		assert_non_null(strstr(why, "owned by uid 65534"));
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_int_equal(fp_of_opendir(sub, strlen(sub), why, sizeof why), FP_OF_REFUSED);
		assert_non_null(strstr(why, "owned by uid 65534"));
	}
	assert_int_equal(fp_of_opendir("rel", 3, why, sizeof why), -1);
	assert_int_equal(fp_of_opendir(dir, strlen(dir), NULL, 0) >= 0, 1);
	snprintf(lnk, sizeof lnk, "rm -rf '%s'", dir);
	assert_int_equal(system(lnk), 0);
}

static void test_outfile_files(void **state)
{
	char dir[] = "/tmp/fp-test-XXXXXX";
	char p[PATH_MAX], q[PATH_MAX], why[256], n1[64], n2[64];
	int fd, dfd, fd2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fd = fp_of_append(dir, strlen(dir), "s.log", why, sizeof why);
	assert_true(fd >= 0);
	close(fd);
	/* A symbolic link at the name: not followed. */
	snprintf(p, sizeof p, "%s/s.log", dir);
	snprintf(q, sizeof q, "%s/ln", dir);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(fp_of_append(dir, strlen(dir), "ln", why, sizeof why), -1);
	assert_string_equal(why, "a symbolic link");
	/* A hard link: refused. */
	snprintf(q, sizeof q, "%s/hl", dir);
	assert_int_equal(link(p, q), 0);
	assert_int_equal(fp_of_append(dir, strlen(dir), "hl", why, sizeof why), FP_OF_REFUSED);
	assert_string_equal(why, "has more than one link");
	/* Not a regular file. */
	assert_int_equal(fp_of_stats_open("/dev/null", why, sizeof why), FP_OF_REFUSED);
	assert_string_equal(why, "not a regular file");
	/* DIR/: DIR/<euid>.log. */
	snprintf(p, sizeof p, "%s/", dir);
	fd = fp_of_stats_open(p, why, sizeof why);
	assert_true(fd >= 0);
	close(fd);
	snprintf(q, sizeof q, "%s/%lu.log", dir, (unsigned long)geteuid());
	assert_int_equal(access(q, F_OK), 0);
	/* New files: O_EXCL, random names, never the same twice. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	fd = fp_of_create(dfd, ".1.p.", n1, sizeof n1, true);
	fd2 = fp_of_create(dfd, ".1.p.", n2, sizeof n2, true);
	assert_true(fd >= 0 && fd2 >= 0);
	assert_int_equal(strlen(n1), strlen(".1.p.") + 12 + 4);
	assert_int_equal(strncmp(n1, ".1.p.", 5), 0);
	assert_string_not_equal(n1, n2);
	close(fd);
	close(fd2);
	/* A directory only this user writes: the clock's names, no system
	 * call for them, never the same twice either. */
	fd = fp_of_create(dfd, ".1.p.", n1, sizeof n1, false);
	fd2 = fp_of_create(dfd, ".1.p.", n2, sizeof n2, false);
	assert_true(fd >= 0 && fd2 >= 0);
	assert_int_equal(strlen(n1), strlen(".1.p.") + 12 + 4);
	assert_string_not_equal(n1, n2);
	close(fd);
	close(fd2);
	close(dfd);
	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* The first words of a record's lines, in order: its keys. */
static void record_keys(const char *path, char *keys, size_t len)
{
	char buf[8192], *p, *nl;
	int fd = open(path, O_RDONLY);
	ssize_t n;
	size_t k = 0;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(strncmp(buf, "fastpath-survey 1\n", 18), 0);
	assert_true(n >= 6 && strcmp(buf + n - 6, "end 0\n") == 0);
	for (p = buf; *p; p = nl + 1) {
		size_t w = strcspn(p, " \n");

		nl = strchr(p, '\n');
		assert_non_null(nl);
		assert_true(k + w + 1 < len);
		memcpy(keys + k, p, w);
		k += w;
		keys[k++] = ',';
	}
	keys[k] = '\0';
}

/* The names in dir, but . and .., as "a b ". */
static void dir_names(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t k = 0;

	assert_non_null(d);
	out[0] = '\0';
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		k += (size_t)snprintf(out + k, len - k, "%s ", e->d_name);
		assert_true(k < len);
	}
	closedir(d);
}

/* Every survey counter base + its index (0: all zero). */
static void survey_counters(unsigned long base)
{
	size_t i;
	unsigned k;

	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_survey *sv = fp_mitigations[i]->survey;

		for (k = 0; sv && k < sv->n; k++)
			atomic_store(&sv->c[k], base ? base + k : 0);
	}
}

/* Survey mode on, records into dir, this process the counters' owner,
 * every counter a long number (more than the small buffer holds); and
 * all of it undone, dir removed. */
static void survey_on(const char *dir)
{
	snprintf(fp_cfg.survey_dir, PATH_MAX, "%s", dir);
	fp_cfg.survey = true;
	atomic_store(&fp_sv.owner, (long)getpid());
	survey_counters(1000000000000ul);
}

static void survey_off(const char *dir)
{
	char cmd[PATH_MAX + 16];

	survey_counters(0);
	fp_cfg.survey = false;
	atomic_store(&fp_sv.owner, 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* What happened to names in the directory inotify fd watches, since last
 * asked: "+NAME" created, ">NAME" renamed to, a temporary name as "+tmp". */
static void dir_events(int fd, char *out, size_t len)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n = read(fd, buf, sizeof buf), off;
	size_t k = 0;

	out[0] = '\0';
	for (off = 0; n > 0 && off < n;) {
		const struct inotify_event *e = (const void *)(buf + off);
		const char *name = e->len ? e->name : "";
		size_t nl = strlen(name);

		if (e->mask & (IN_CREATE | IN_MOVED_TO))
			k += (size_t)snprintf(out + k, len - k, "%c%s ", (e->mask & IN_CREATE) ? '+' : '>',
			                      nl > 4 && strcmp(name + nl - 4, ".tmp") == 0 ? "tmp" : name);
		assert_true(k < len);
		off += (ssize_t)(sizeof *e + e->len);
	}
}

/* The record's three ways (survey.c): a first record that fits the buffer
 * made under its own name and written at once; one that does not fit (a
 * final record written from the small buffer) and one that replaces a
 * record, or a planted link, under a temporary name renamed over it.
 * Each leaves the same whole record and nothing else. */
static void test_survey_record_ways(void **state)
{
	char dir[] = "/tmp/fp-test-XXXXXX", rec[PATH_MAX], want[32], names[512];
	char k1[4096], k2[4096], k3[4096], lnk[PATH_MAX], target[PATH_MAX], ev[256], evw[64];
	struct stat st;
	int in;

	(void)state;
	assert_non_null(mkdtemp(dir));
	in = inotify_init1(IN_NONBLOCK);
	assert_true(in >= 0);
	assert_true(inotify_add_watch(in, dir, IN_CREATE | IN_MOVED_TO) >= 0);
	survey_on(dir);
	snprintf(rec, sizeof rec, "%s/%ld.rec", dir, (long)getpid());
	snprintf(want, sizeof want, "%ld.rec ", (long)getpid());

	fp_sv_write(true, true);
	dir_names(dir, names, sizeof names);
	assert_string_equal(names, want);
	dir_events(in, ev, sizeof ev);
	snprintf(evw, sizeof evw, "+%s", want);
	assert_string_equal(ev, evw);
	record_keys(rec, k1, sizeof k1);
	assert_int_equal(stat(rec, &st), 0);
	assert_true(st.st_size > 256);

	/* Too long for the small buffer: flushed as it goes, into a
	 * temporary name, then renamed. */
	assert_int_equal(unlink(rec), 0);
	fp_sv_write(true, false);
	dir_names(dir, names, sizeof names);
	assert_string_equal(names, want);
	dir_events(in, ev, sizeof ev);
	snprintf(evw, sizeof evw, "+tmp >%s", want);
	assert_string_equal(ev, evw);
	record_keys(rec, k2, sizeof k2);
	assert_string_equal(k1, k2);

	/* One there already: replaced whole. */
	fp_sv_write(false, true);
	dir_names(dir, names, sizeof names);
	assert_string_equal(names, want);
	dir_events(in, ev, sizeof ev);
	assert_string_equal(ev, evw);
	record_keys(rec, k3, sizeof k3);
	assert_string_equal(k1, k3);

	/* A link planted at the name: the link replaced, its target kept. */
	snprintf(target, sizeof target, "%s/target", dir);
	snprintf(lnk, sizeof lnk, "%s/%ld.rec", dir, (long)getpid());
	assert_int_equal(unlink(rec), 0);
	assert_int_equal(close(open(target, O_WRONLY | O_CREAT | O_EXCL, 0600)), 0);
	assert_int_equal(symlink(target, lnk), 0);
	(void)read(in, ev, sizeof ev);
	fp_sv_write(true, true);
	dir_events(in, ev, sizeof ev);
	assert_string_equal(ev, evw);
	assert_int_equal(lstat(rec, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 0);
	record_keys(rec, k3, sizeof k3);
	assert_string_equal(k1, k3);

	close(in);
	survey_off(dir);
}

/* A first record whose write fails (a file-size limit below its length)
 * leaves nothing, and no SIGXFSZ; one whose name another record took in
 * the meantime leaves that one (fp_sv_drop). */
static void test_survey_record_failed(void **state)
{
	char dir[] = "/tmp/fp-test-XXXXXX", rec[PATH_MAX], other[PATH_MAX], names[512], buf[64];
	struct rlimit old, lim;
	int dfd, fd, rd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	survey_on(dir);
	/* Past the limit: 100 of some 1,500 bytes written, then EFBIG. */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	fp_sv_write(true, true);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	dir_names(dir, names, sizeof names);
	assert_string_equal(names, "");

	/* Another record renamed over the name before the drop: kept. */
	snprintf(rec, sizeof rec, "%s/7.rec", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	fd = fp_of_create_named(dfd, "7.rec");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "half", 4), 4);
	assert_int_equal(close(open(other, O_WRONLY | O_CREAT | O_EXCL, 0644)), 0);
	assert_int_equal(rename(other, rec), 0);
	fp_sv_drop(dfd, "7.rec", fd);
	dir_names(dir, names, sizeof names);
	assert_string_equal(names, "7.rec ");
	/* And its own: emptied, then gone. */
	assert_int_equal(unlink(rec), 0);
	fd = fp_of_create_named(dfd, "7.rec");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "half", 4), 4);
	rd = open(rec, O_RDONLY);
	assert_true(rd >= 0);
	fp_sv_drop(dfd, "7.rec", fd);
	assert_int_equal(read(rd, buf, sizeof buf), 0); /* a reader that had it open: empty */
	close(rd);
	dir_names(dir, names, sizeof names);
	assert_string_equal(names, "");
	close(dfd);

	survey_off(dir);
}

/* line's first fields are want's, whole: the line ends there or goes on
 * with the next mitigation's field (the registry's later ones, each
 * tested by its own suite). */
static void assert_line_starts(const char *line, const char *want)
{
	size_t n = strlen(want);

	assert_true(strlen(line) >= n);
	assert_memory_equal(line, want, n);
	assert_true(line[n] == '\0' || strncmp(line + n, "; ", 2) == 0);
}

static void test_format_stats_all(void **state)
{
	unsigned long c[FP_NMITIGATIONS][FP_MAX_COUNTERS] = { { 0 } };
	char line[512];
	size_t n;

	(void)state;
	c[FP_M_readlink][RL_C_CALLS] = 1003;
	c[FP_M_readlink][RL_C_SHORT] = 1000;
	c[FP_M_urandom][UR_C_OPENS] = 2000000;
	c[FP_M_urandom][UR_C_READS] = 1000000;
	c[FP_M_urandom][UR_C_SYSCALLS] = 66;
	c[FP_M_urandom][UR_C_REFILLS] = 64;
	c[FP_M_urandom][UR_C_SLICES] = 2;
	c[FP_M_cpus][CPUS_C_QUERIES] = 3;
	c[FP_M_cpus][CPUS_C_REAL] = 256;
	cpus_wanted = 8;
	ur_getrandom = false;
	ur_source_init();  /* decided: the line reads the source set next */
	ur_source = UR_SRC_RESERVOIR;
	n = fp_format_stats(line, sizeof line, 1234, c, FP_ALL);
	assert_line_starts(line,
	                   "fastpath[1234]: readlink 1000 short-circuited of 1003; "
	                   "urandom 2000000 opens, 1000000 reads, 0 getrandom (off), "
	                   "66 syscalls, 64 refills, 2 slice fills, source reservoir, mode exact; "
	                   "cpus 8 reported (real 256) to 3 queries");
	assert_int_equal(n, strlen(line));
	ur_getrandom = true;
	c[FP_M_urandom][UR_C_GETRANDOM] = 5;
	fp_format_stats(line, sizeof line, 1, c, FP_ALL);
	assert_non_null(strstr(line, " 5 getrandom, 66 syscalls"));
	ur_getrandom = false;
	cpus_wanted = 0;
}

static void test_format_stats_off(void **state)
{
	unsigned long c[FP_NMITIGATIONS][FP_MAX_COUNTERS] = { { 0 } };
	char line[512];

	(void)state;
	fp_format_stats(line, sizeof line, 7, c, 0);
	/* every name "off", each but the last followed by "; " */
	strcat(line, "; ");
	assert_string_equal(line, REG_ALL_OFF);
	cpus_wanted = 4;
	fp_format_stats(line, sizeof line, 7, c, FP_BIT(cpus));
	assert_line_starts(line, "fastpath[7]: readlink off; urandom off; "
	                         "cpus 4 reported (real ?) to 0 queries");
	cpus_wanted = 0;
}

static void test_format_stats_truncates(void **state)
{
	unsigned long c[FP_NMITIGATIONS][FP_MAX_COUNTERS] = { { 0 } };
	char line[16];

	(void)state;
	cpus_wanted = 1;
	memset(line, 'Z', sizeof line);
	assert_int_equal(fp_format_stats(line, sizeof line, 1, c, FP_ALL), 15);
	assert_string_equal(line, "fastpath[1]: re");
	cpus_wanted = 0;
}

/* ---- the formatter ------------------------------------------------------ */

static void test_buf(void **state)
{
	char s[64];
	struct fp_buf b = { s, 0, sizeof s };

	(void)state;
	fp_buf_ulong(&b, 0);
	fp_buf_str(&b, " ");
	fp_buf_ulong(&b, ULONG_MAX);
	fp_buf_str(&b, " ");
	fp_buf_long(&b, LONG_MIN);
	fp_buf_str(&b, " ");
	fp_buf_long(&b, -1);
	{
		char want[64];

		snprintf(want, sizeof want, "0 %lu %ld -1", ULONG_MAX, LONG_MIN);
		assert_string_equal(s, want);
	}
	b = (struct fp_buf){ s, 0, 4 };
	fp_buf_str(&b, "abcdef");
	assert_string_equal(s, "abc");
	assert_int_equal(b.len, 3);
	b = (struct fp_buf){ s, 0, 0 };
	fp_buf_str(&b, "x"); /* a zero-sized buffer is never written */
}

/* ---- binding ------------------------------------------------------------ */

static void test_bind_resolves_libc(void **state)
{
	(void)state;
	reset_init();
	assert_true(fp_ready());
	assert_int_equal(atomic_load(&fp_init_state), FP_INIT_DONE);
	assert_ptr_equal(fp_real_urandom.r_read.p, dlsym(RTLD_NEXT, "read"));
	assert_ptr_equal(fp_real_urandom.r_open.p, dlsym(RTLD_NEXT, "open"));
	assert_ptr_equal(fp_real_urandom.r_sysconf.p, dlsym(RTLD_NEXT, "sysconf"));
	assert_non_null(fp_real_readlink.r_readlink.p);
	assert_non_null(fp_real_urandom.r_fclose.p);
	/* Bound pointers work. */
	assert_true(fp_real_urandom.r_sysconf.f(_SC_PAGESIZE) > 0);
}

static int reentered_result = -1;

static void reenter_hook(const char *name)
{
	/* A wrapped call made while binding: must return at once, not loop. */
	if (strcmp(name, "read") == 0)
		reentered_result = fp_ready();
}

static void test_bind_reentry_falls_back(void **state)
{
	(void)state;
	reset_init();
	dlsym_hook = reenter_hook;
	reentered_result = -1;
	assert_true(fp_ready());
	assert_int_equal(reentered_result, 0);
	assert_true(fp_ready());
	dlsym_hook = NULL;
}

/* ---- not ready yet: the one policy (fastpath.h, "Not ready yet") ------- */

static struct {
	int ran, ready, open_fd, read_n, close_rc, dup_rc, dup_errno, nprocs, aff_rc;
	int sysconf_errno, closed;
	unsigned tracked;
	long sysconf_rc;
	ssize_t link_n;
} unready;

/* Every wrapper, reached again from inside our initialisation (the first
 * dlsym, when no symbol is bound yet): no mitigation, and each call either
 * done by its system call or failed with ENOSYS; nothing loops. */
static void unready_hook(const char *name)
{
	char buf[64];
	cpu_set_t set;
	int fd;

	if (unready.ran)
		return;
	unready.ran = 1;
	unready.ready = fp_ready();
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	unready.open_fd = fd;
	unready.tracked = ur_state(fd);
	unready.read_n = (int)read(fd, buf, 16);
	unready.close_rc = close(fd);
	errno = 0;
	unready.dup_rc = dup(0);
	unready.dup_errno = errno;
	errno = 0;
	unready.sysconf_rc = sysconf(_SC_NPROCESSORS_ONLN);
	unready.sysconf_errno = errno;
	unready.nprocs = get_nprocs();
	unready.aff_rc = pthread_getaffinity_np(pthread_self(), sizeof set, &set);
	unready.link_n = readlink("/proc/self/exe", buf, sizeof buf);
	/* closefrom closes what it is asked to, even now. */
	fd = (int)fp_raw_openat(AT_FDCWD, "/dev/null", O_RDONLY, 0);
	syscall(SYS_dup3, fd, 900, 0);
	syscall(SYS_dup3, fd, 901, 0);
	fp_raw_close(fd);
#ifdef FP_HAVE_CLOSEFROM
	closefrom(900);
#else
	fp_raw_closefrom(900);
#endif
	unready.closed = syscall(SYS_fcntl, 900, F_GETFD) == -1 &&
	                 syscall(SYS_fcntl, 901, F_GETFD) == -1;
	(void)name;
}

static void test_unready_policy(void **state)
{
	(void)state;
	reset_init();
	fp_real_core = fp_real_core_unready;
	fp_real_readlink = fp_real_readlink_unready;
	fp_real_urandom = fp_real_urandom_unready;
	fp_real_cpus = fp_real_cpus_unready;
	memset(&unready, 0, sizeof unready);
	dlsym_hook = unready_hook;
	assert_true(fp_ready());
	dlsym_hook = NULL;
	assert_int_equal(unready.ran, 1);
	assert_int_equal(unready.ready, 0);
	/* The system call does the job. */
	assert_true(unready.open_fd >= 0);
	assert_int_equal(unready.tracked, 0);  /* urandom's mitigation is off */
	assert_int_equal(unready.read_n, 16);
	assert_int_equal(unready.close_rc, 0);
	assert_true(unready.link_n > 0);
	assert_true(unready.closed);
	/* No system call does it: ENOSYS, or the value that cannot fail. */
	assert_int_equal(unready.dup_rc, -1);
	assert_int_equal(unready.dup_errno, ENOSYS);
	assert_int_equal(unready.sysconf_rc, -1);
	assert_int_equal(unready.sysconf_errno, ENOSYS);
	assert_int_equal(unready.nprocs, 1);
	assert_int_equal(unready.aff_rc, ENOSYS);
	/* Once bound, no stand-in is left. */
	assert_ptr_equal(fp_real_urandom.r_dup.p, dlsym(RTLD_NEXT, "dup"));
	assert_ptr_equal(fp_real_urandom.r_sysconf.p, dlsym(RTLD_NEXT, "sysconf"));
#ifdef FP_HAVE_CLOSEFROM
	assert_ptr_equal(fp_real_urandom.r_closefrom.p, dlsym(RTLD_NEXT, "closefrom"));
#endif
	unready.open_fd = dup(0);
	assert_true(unready.open_fd >= 0);
	close(unready.open_fd);
}

/* A mitigation's table is bound at its first use, that table alone (issue
 * 39); a binding stopped halfway (a jump out of a handler) is done again
 * by the next call, whichever thread makes it. */
static unsigned lazy_sysconf_asked;
static sigjmp_buf lazy_jump;

static void lazy_hook(const char *name)
{
	if (strcmp(name, "sysconf") == 0 && lazy_sysconf_asked++ == 0)
		siglongjmp(lazy_jump, 1);
}

static void test_bind_lazy(void **state)
{
	long native = sysconf(_SC_PAGESIZE);
	int fd;

	(void)state;
	reset_init();
	fp_bind_lazy_test = true;
	assert_true(fp_ready());
	assert_int_equal(atomic_load(&fp_written), 0);
	assert_int_equal(atomic_load(&fp_bound), 0);
	fp_real_urandom = fp_real_urandom_unready;
	fp_real_cpus = fp_real_cpus_unready;
	/* urandom's first call binds urandom's table, and no other. */
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(atomic_load(&fp_written), FP_BIT(urandom));
	assert_int_equal(atomic_load(&fp_bound), FP_BIT(urandom));
	assert_ptr_equal(fp_real_urandom.r_dup.p, dlsym(RTLD_NEXT, "dup"));
	assert_ptr_equal(fp_real_cpus.r_sysconf.p, fp_real_cpus_unready.r_sysconf.p);
	/* cpus' binding left halfway, as by a handler that jumped out of
	 * it: nothing marks it bound, and the next call binds it whole. */
	lazy_sysconf_asked = 0;
	dlsym_hook = lazy_hook;
	if (sigsetjmp(lazy_jump, 1) == 0)
		(void)sysconf(_SC_PAGESIZE);
	assert_int_equal(lazy_sysconf_asked, 1);
	assert_false(atomic_load(&fp_written) & FP_BIT(cpus));
	assert_int_equal(sysconf(_SC_PAGESIZE), native);
	dlsym_hook = NULL;
	assert_int_equal(lazy_sysconf_asked, 2);
	assert_true(atomic_load(&fp_bound) & FP_BIT(cpus));
	assert_ptr_equal(fp_real_cpus.r_sysconf.p, dlsym(RTLD_NEXT, "sysconf"));
	assert_ptr_equal(fp_real_cpus.r_sched_getaffinity.p, dlsym(RTLD_NEXT, "sched_getaffinity"));
	fp_bind_lazy_test = false;
}

/* A signal handler that lands in the binding thread while it binds, as a
 * crash reporter's or a timer's may: its call into us falls back (the
 * stand-in, here sysconf's ENOSYS) and returns, instead of waiting for the
 * binding it interrupted.  And one that lands before the claim itself
 * (fp_init_here is set first) does the same, leaving the claim to come. */
static volatile sig_atomic_t handler_ready = -1;

static void on_usr1_ready(int sig)
{
	(void)sig;
	handler_ready = fp_ready();
}

static void raise_hook(const char *name)
{
	if (strcmp(name, "open") == 0)
		raise(SIGUSR1);
}

static void test_bind_handler_never_waits(void **state)
{
	struct sigaction sa, old;

	(void)state;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1_ready;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	reset_init();
	handler_ready = -1;
	dlsym_hook = raise_hook;
	assert_true(fp_ready());
	dlsym_hook = NULL;
	assert_int_equal(handler_ready, 0);
	/* Before the claim: nothing claimed, the caller falls back. */
	reset_init();
	fp_init_here = true;
	assert_false(fp_init_slow());
	assert_int_equal(atomic_load(&fp_init_state), FP_INIT_NONE);
	fp_init_here = false;
	assert_true(fp_ready());
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
}

static _Atomic int other_result = -1;
static _Atomic unsigned long yields_seen_by_binder;
static pthread_t other;

static void *other_thread(void *arg)
{
	int r;

	(void)arg;
	r = fp_ready();
	/* When the other thread returns, binding must be complete. */
	atomic_store(&other_result, atomic_load(&fp_init_state) != FP_INIT_DONE ? 2 : r);
	return NULL;
}

/* Binding is under way in this thread (its dlsym of "open"): start another
 * thread that calls fp_ready(), and finish binding only once that thread
 * has been seen waiting (its first sched_yield), or has returned without
 * waiting, which the test then reports. */
static void slow_hook(const char *name)
{
	if (strcmp(name, "open") != 0)
		return;
	assert_int_equal(pthread_create(&other, NULL, other_thread, NULL), 0);
	while (atomic_load(&waiter_yields) == 0 && atomic_load(&other_result) == -1)
		syscall(SYS_sched_yield);
	atomic_store(&yields_seen_by_binder, atomic_load(&waiter_yields));
}

static void test_bind_second_thread_waits(void **state)
{
	(void)state;
	reset_init();
	atomic_store(&waiter_yields, 0);
	atomic_store(&yields_seen_by_binder, 0);
	atomic_store(&other_result, -1);
	dlsym_hook = slow_hook;
	yield_is_binder = 1;
	assert_true(fp_ready());
	yield_is_binder = 0;
	dlsym_hook = NULL;
	assert_int_equal(pthread_join(other, NULL), 0);
	/* It waited while this thread was binding, and then got the answer. */
	assert_true(atomic_load(&yields_seen_by_binder) > 0);
	assert_int_equal(atomic_load(&other_result), 1);
}

static void test_raw_calls(void **state)
{
	char buf[8];
	int fd;

	(void)state;
	fd = (int)fp_raw_openat(AT_FDCWD, "/dev/zero", O_RDONLY | O_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(fp_raw_read(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	assert_int_equal(fp_raw_close(fd), 0);
	assert_int_equal(fp_raw_close(fd), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(fp_raw_openat(AT_FDCWD, "/nonexistent", O_RDONLY, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_false(fp_secure_mode());
}

/* ---- fp_explicit_bzero: libc's where bound, else our own ----------------- */

static size_t spy_bzero_calls;

static void spy_bzero(void *p, size_t n)
{
	spy_bzero_calls++;
	memset(p, 0, n);
}

static void test_explicit_bzero_both_branches(void **state)
{
	void (*saved)(void *, size_t);
	unsigned char buf[64];
	size_t i;

	(void)state;
	assert_true(fp_ready());
	/* glibc has it: bound at start-up, as on illumos from 2015 on */
	assert_non_null(fp_real_core.r_explicit_bzero.f);
	saved = fp_real_core.r_explicit_bzero.f;

	fp_real_core.r_explicit_bzero.f = spy_bzero;
	memset(buf, 0xa5, sizeof buf);
	fp_explicit_bzero(buf + 8, 40);
	assert_int_equal(spy_bzero_calls, 1);
	for (i = 0; i < sizeof buf; i++)
		assert_int_equal(buf[i], i >= 8 && i < 48 ? 0 : 0xa5);

	/* an older libc (illumos before ILLUMOS_0.12): the fallback */
	fp_real_core.r_explicit_bzero.f = NULL;
	memset(buf, 0x5a, sizeof buf);
	fp_explicit_bzero(buf + 1, 62);
	assert_int_equal(spy_bzero_calls, 1);
	for (i = 0; i < sizeof buf; i++)
		assert_int_equal(buf[i], i >= 1 && i < 63 ? 0 : 0x5a);
	fp_explicit_bzero(buf, 0);
	assert_int_equal(buf[0], 0x5a);

	fp_real_core.r_explicit_bzero.f = saved;
}

/* fp_fstat and fp_mmap, our own calls, reach the C library's (never our
 * wrappers), and work where it lacks the symbol: glibc before 2.33
 * exports no fstat (then __fxstat), a NULL mmap is the system call. */
static void test_own_fstat_mmap_both_branches(void **state)
{
	struct stat want, got;
	int fd = open("/dev/null", O_RDONLY);
	void *p;

	(void)state;
	assert_true(fp_ready());
	assert_true(fd >= 0);
	assert_int_equal(syscall(SYS_fstat, fd, &want), 0);
	memset(&got, 0, sizeof got);
	assert_int_equal(fp_fstat(fd, &got), 0);
	assert_true(got.st_rdev == want.st_rdev && got.st_ino == want.st_ino);
#ifdef FP_LINUX
	{
		void *saved = fp_real_core.r_fstat.p;
		void *saved_mmap = fp_real_core.r_mmap.p;

		fp_real_core.r_fstat.p = NULL;
#ifdef FP_HAVE_LFS64
		memset(&got, 0, sizeof got);
		assert_int_equal(fp_fstat(fd, &got), 0);
		assert_true(got.st_rdev == want.st_rdev && got.st_ino == want.st_ino);
		{
			void *saved_fx = fp_real_core.r___fxstat.p;

			fp_real_core.r___fxstat.p = NULL;
			errno = 0;
			assert_int_equal(fp_fstat(fd, &got), -1);
			assert_int_equal(errno, ENOSYS);
			fp_real_core.r___fxstat.p = saved_fx;
		}
#endif
		fp_real_core.r_fstat.p = saved;
		fp_real_core.r_mmap.p = NULL;
		p = fp_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(p != MAP_FAILED);
		((char *)p)[4095] = 1;
		munmap(p, 4096);
		fp_real_core.r_mmap.p = saved_mmap;
	}
#endif
	p = fp_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	munmap(p, 4096);
	close(fd);
}

/* What a terminal shows as itself: printable ASCII and whole valid UTF-8
 * that is not C1; and the record's one-token escape of everything else. */
static void test_shown_len_and_escape(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} cases[] = {
		{ "a", 1 },           { " ", 1 },                  { "\x1b", 0 },
		{ "\x7f", 0 },        { "\x9b", 0 },               { "\xc2\x9b", 0 },
		{ "\xc2\x80", 0 },    { "\xc2\xa0", 2 },           { "\xc3\xa9", 2 },
		{ "\xc0\x80", 0 },    { "\xc1\xbf", 0 },           { "\xe0\x80\x80", 0 },
		{ "\xe2\x82\xac", 3 }, { "\xed\xa0\x80", 0 },       { "\xf0\x9f\x98\x80", 4 },
		{ "\xf4\x90\x80\x80", 0 }, { "\xf5\x80\x80\x80", 0 }, { "\xc3", 0 },
		{ "\xe2\x82", 0 },    { "\xe2\x28\xac", 0 },
	};
	char out[32];
	struct fp_buf b = { out, 0, sizeof out };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(fp_shown_len((const unsigned char *)cases[i].s, strlen(cases[i].s)),
		                 cases[i].len);
	fp_buf_escaped(&b, "a b\\\x1b\xc2\x9b\xc3\xa9");
	assert_string_equal(out, "a\\040b\\134\\033\\302\\233\xc3\xa9");
	/* Cut whole: no half of a character, no half of an escape. */
	b = (struct fp_buf){ out, 0, 3 };
	fp_buf_escaped(&b, "a\xc3\xa9");
	assert_string_equal(out, "a");
	b = (struct fp_buf){ out, 0, 5 };
	fp_buf_escaped(&b, "a\x1b");
	assert_string_equal(out, "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features_valid),
		cmocka_unit_test(test_features_malformed),
		cmocka_unit_test(test_features_long_item_is_cut),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_stats_values),
		cmocka_unit_test(test_stats_malformed),
		cmocka_unit_test(test_load_defaults),
		cmocka_unit_test(test_load_good),
		cmocka_unit_test(test_load_disable_wins_over_cpus),
		cmocka_unit_test(test_load_each_malformed),
		cmocka_unit_test(test_load_partial_disable),
		cmocka_unit_test(test_load_all_malformed_one_line_each),
		cmocka_unit_test(test_load_stats_file),
		cmocka_unit_test(test_outfile_kernel_types),
		cmocka_unit_test(test_outfile_dirs),
		cmocka_unit_test(test_outfile_files),
		cmocka_unit_test(test_survey_record_ways),
		cmocka_unit_test(test_survey_record_failed),
		cmocka_unit_test(test_format_stats_all),
		cmocka_unit_test(test_format_stats_off),
		cmocka_unit_test(test_format_stats_truncates),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_bind_resolves_libc),
		cmocka_unit_test(test_bind_reentry_falls_back),
		cmocka_unit_test(test_unready_policy),
		cmocka_unit_test(test_bind_lazy),
		cmocka_unit_test(test_bind_second_thread_waits),
		cmocka_unit_test(test_bind_handler_never_waits),
		cmocka_unit_test(test_raw_calls),
		cmocka_unit_test(test_explicit_bzero_both_branches),
		cmocka_unit_test(test_own_fstat_mmap_both_branches),
		cmocka_unit_test(test_shown_len_and_escape),
	};

	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
