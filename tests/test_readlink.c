/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of readlink_shim.c and readlink_classify.c: the /proc path
 * parser (a table, plus the round trip), the decision table, readlink's
 * truncation contract at every size against the kernel's own answer, the
 * Linux policy's notion of "our own fd table", and the illumos policy on a
 * fixture directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define RL_TESTING 1
/* Linux has no doors: fixture files with these modes stand in for them.
 * (Pipes and anonymous inodes, the event ports' stand-ins, are real: the
 * illumos policy on Linux shows them as illumos would, rl_linux_as_illumos.) */
struct stat;
static void dress_door(struct stat *st);
#define RL_TEST_DRESS(st) dress_door(st)
#include "core_units.h"
#include "../readlink_path.c"
#include "../readlink_shim.c"
#include "../readlink_classify.c"
FP_TABLE(&fp_mit_readlink);

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

/* ---- helpers ------------------------------------------------------------ */

/* A regular file of mode 0601 stats as an unnamed door (doorfs: node id 0,
 * mode 0777, as door_getattr reports), one of mode 0602 as a door
 * fattach()ed on a file (namefs: its own node id, the file's mode). */
#define DOOR_UNNAMED_MODE 0601
#define DOOR_NAMED_MODE 0602

static void dress_door(struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return;
	if ((st->st_mode & 07777) == DOOR_UNNAMED_MODE) {
		st->st_mode = S_IFDOOR | 0777;
		st->st_ino = 0;
	} else if ((st->st_mode & 07777) == DOOR_NAMED_MODE) {
		st->st_mode = S_IFDOOR | 0644;
		assert_true(st->st_ino != 0);
	}
}

static unsigned long counter(unsigned c)
{
	return fp_counter(rl_counters, c);
}

/* The kernel's answer, with no libc (and no shim) in between. */
static ssize_t kernel_readlink(const char *path, char *buf, size_t n)
{
	return fp_raw_readlinkat(AT_FDCWD, path, buf, n);
}

static void set_test_env(const char *root, const char *policy)
{
	snprintf(rl_test_proc_root, sizeof rl_test_proc_root, "%s", root ? root : "");
	snprintf(rl_test_policy, sizeof rl_test_policy, "%s", policy ? policy : "");
	atomic_store(&rl_procfs, 0);
}

static int setup(void **state)
{
	(void)state;
	assert_true(fp_ready());
	fp_cfg.enabled |= FP_BIT(readlink);
	fp_cfg.debug = false;
	set_test_env(NULL, NULL);
#ifdef __linux__
	/* sockfs's and pipefs's devices, as a program's first readlink of
	 * each teaches them (test_linux_learning tests that). */
	{
		int sv[2], pv[2];
		char path[64], b[64];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(pv) == 0) {
			snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
			(void)!readlink(path, b, sizeof b);
			snprintf(path, sizeof path, "/proc/self/fd/%d", pv[0]);
			(void)!readlink(path, b, sizeof b);
			close(sv[0]), close(sv[1]), close(pv[0]), close(pv[1]);
		}
	}
#endif
	return 0;
}

/* ---- the parser --------------------------------------------------------- */

enum { NO = 0, YES = 1 };
static const struct {
	const char *path;
	int ok;
	enum rl_who who;
	int pid, tid;
	enum rl_dir dir;
	int fd;
} parse_cases[] = {
	{ "/proc/self/fd/0", YES, RL_SELF, 0, 0, RL_DIR_FD, 0 },
	{ "/proc/self/fd/3", YES, RL_SELF, 0, 0, RL_DIR_FD, 3 },
	{ "/proc/self/fd/1234567", YES, RL_SELF, 0, 0, RL_DIR_FD, 1234567 },
	{ "/proc/self/fd/2147483647", YES, RL_SELF, 0, 0, RL_DIR_FD, 2147483647 },
	{ "/proc/1/fd/3", YES, RL_PID, 1, 0, RL_DIR_FD, 3 },
	{ "/proc/75375/path/12", YES, RL_PID, 75375, 0, RL_DIR_PATH, 12 },
	{ "/proc/self/path/0", YES, RL_SELF, 0, 0, RL_DIR_PATH, 0 },
	{ "/proc/thread-self/fd/7", YES, RL_THREAD_SELF, 0, 0, RL_DIR_FD, 7 },
	{ "/proc/10/task/11/fd/5", YES, RL_PID, 10, 11, RL_DIR_FD, 5 },
	{ "/proc/self/task/99/fd/5", YES, RL_SELF, 0, 99, RL_DIR_FD, 5 },
	{ "/proc/2147483647/fd/1", YES, RL_PID, 2147483647, 0, RL_DIR_FD, 1 },
	{ "/proc/10/task/11/path/5", YES, RL_PID, 10, 11, RL_DIR_PATH, 5 },
	/* odd: every one passes through to the kernel */
	{ "", NO, 0, 0, 0, 0, 0 },
	{ "/", NO, 0, 0, 0, 0, 0 },
	{ "/proc", NO, 0, 0, 0, 0, 0 },
	{ "/proc/", NO, 0, 0, 0, 0, 0 },
	{ "/proc/self", NO, 0, 0, 0, 0, 0 },
	{ "/proc/self/fd", NO, 0, 0, 0, 0, 0 },
	{ "/proc/self/fd/", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/3x", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/x3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/03", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/00", NO, 0, 0, 0, 0, 0 },
	{ "/proc/01/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/0/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/-1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/+1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/-3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/+3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/ 3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/3 ", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/2147483648", NO, 0, 0, 0, 0, 0 },
	{ "/proc/2147483648/fd/1", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/99999999999999999999999", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/3/", NO, 0, 0, 0, 0, 0 },
	{ "/proc//1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1//fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd//3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/./1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/./fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/../fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fdinfo/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fds/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/paths/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/FD/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/SELF/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/selfish/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/thread-self/task/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/task/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/task/0/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/task/01/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/task/1/task/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/cwd", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/exe", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/3/../3", NO, 0, 0, 0, 0, 0 },
	{ "/procs/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "proc/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "//proc/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/PROC/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/tmp/proc/1/fd/3", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/3\n", NO, 0, 0, 0, 0, 0 },
	{ "/proc/1/fd/\xd9\xa3", NO, 0, 0, 0, 0, 0 },  /* an Arabic-Indic three */
};

/* The rows of parse_cases the parser must accept, counted from the table
 * alone: a walk that skips rejected names must still have checked these. */
static size_t parse_cases_accepted(void)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++)
		n += parse_cases[i].ok == YES;
	return n;
}

static void test_parse_table(void **state)
{
	size_t i, accepted = 0, rejected = 0;

	(void)state;
	assert_true(sizeof parse_cases / sizeof parse_cases[0] >= 40);
	assert_true(parse_cases_accepted() >= 12);
	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		struct rl_path x;
		int rc = rl_parse(parse_cases[i].path, "/proc", 5, &x);

		if ((rc == 0) != parse_cases[i].ok)
			fail_msg("\"%s\": parse %d, expected %s", parse_cases[i].path, rc,
			         parse_cases[i].ok ? "accept" : "reject");
		if (rc != 0) {
			rejected++;
			continue;
		}
		accepted++;
		assert_int_equal(x.who, parse_cases[i].who);
		assert_int_equal(x.pid, parse_cases[i].pid);
		assert_int_equal(x.tid, parse_cases[i].tid);
		assert_int_equal(x.dir, parse_cases[i].dir);
		assert_int_equal(x.fd, parse_cases[i].fd);
		/* dir_off points at "fd" or "path" */
		assert_memory_equal(parse_cases[i].path + x.dir_off,
		                    x.dir == RL_DIR_FD ? "fd/" : "path/",
		                    x.dir == RL_DIR_FD ? 3 : 5);
	}
	assert_int_equal(accepted, parse_cases_accepted());
	assert_int_equal(accepted + rejected, sizeof parse_cases / sizeof parse_cases[0]);
}

/* Every accepted name is exactly the canonical spelling of what was read. */
static void test_parse_round_trip(void **state)
{
	size_t i, walked = 0;

	(void)state;
	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		struct rl_path x;
		char again[PATH_MAX];

		if (rl_parse(parse_cases[i].path, "/proc", 5, &x) != 0)
			continue;
		rl_unparse(&x, "/proc", again, sizeof again);
		assert_string_equal(again, parse_cases[i].path);
		walked++;
	}
	/* Every accepted row was round-tripped, not none of them. */
	assert_int_equal(walked, parse_cases_accepted());
}

static void test_parse_null_and_long(void **state)
{
	struct rl_path x;
	static char root[PATH_MAX + 16], path[PATH_MAX + 64];

	(void)state;
	assert_int_equal(rl_parse(NULL, "/proc", 5, &x), -1);
	/* A root so long that the whole name reaches PATH_MAX. */
	root[0] = '/';
	memset(root + 1, 'r', PATH_MAX - 10);
	root[PATH_MAX - 9] = '\0';
	snprintf(path, sizeof path, "%s/self/fd/1", root);
	assert_true(strlen(path) >= PATH_MAX);
	assert_int_equal(rl_parse(path, root, strlen(root), &x), -1);
	snprintf(path, sizeof path, "%s/1/fd/1", root);
	assert_true(strlen(path) < PATH_MAX);
	assert_int_equal(rl_parse(path, root, strlen(root), &x), 0);
}

static void test_parse_other_root(void **state)
{
	const char *root;
	size_t len;
	struct rl_path x;

	(void)state;
	set_test_env("/tmp/fixture//", NULL);
	rl_root(&root, &len);
	assert_int_equal(len, strlen("/tmp/fixture"));
	assert_int_equal(rl_parse("/tmp/fixture/42/path/3", root, len, &x), 0);
	assert_int_equal(x.pid, 42);
	assert_int_equal(rl_parse("/tmp/fixturex/42/path/3", root, len, &x), -1);
	assert_int_equal(rl_parse("/proc/42/path/3", root, len, &x), -1);
	set_test_env(NULL, NULL);
	rl_root(&root, &len);
	assert_string_equal(root, "/proc");
	assert_int_equal(len, 5);
}

/* ---- the decision table ------------------------------------------------- */

static void test_decide_table(void **state)
{
	static const mode_t types[] = { S_IFSOCK, S_IFDOOR, S_IFIFO, S_IFPORT, S_IFREG,
		                        S_IFDIR, S_IFCHR, S_IFBLK, S_IFLNK, 0 };
	static const enum rl_fs fss[] = { RL_FS_ANY, RL_FS_SOCKFS, RL_FS_PIPEFS,
		                             RL_FS_DOORFS, RL_FS_FIFOFS };
	size_t t, f;
	int p, d;

	(void)state;
	for (p = RL_LINUX; p <= RL_ILLUMOS; p++)
		for (d = RL_DIR_FD; d <= RL_DIR_PATH; d++)
			for (t = 0; t < sizeof types / sizeof types[0]; t++)
				for (f = 0; f < sizeof fss / sizeof fss[0]; f++) {
					enum rl_act want = RL_PASS;
					mode_t m = types[t] | 0777;

					/* a door only when unnamed (doorfs), a
					 * FIFO only when a pipe (fifofs) */
					if (p == RL_ILLUMOS && d == RL_DIR_PATH &&
					    (types[t] == S_IFSOCK || types[t] == S_IFPORT ||
					     (types[t] == S_IFDOOR && fss[f] == RL_FS_DOORFS) ||
					     (types[t] == S_IFIFO && fss[f] == RL_FS_FIFOFS)))
						want = RL_ENOENT;
					if (p == RL_LINUX && d == RL_DIR_FD &&
					    types[t] == S_IFSOCK && fss[f] == RL_FS_SOCKFS)
						want = RL_SOCKET;
					if (p == RL_LINUX && d == RL_DIR_FD &&
					    types[t] == S_IFIFO && fss[f] == RL_FS_PIPEFS)
						want = RL_PIPE;
					assert_int_equal(rl_decide(p, d, m, fss[f]), want);
				}
	assert_true(FP_S_ISDOOR(S_IFDOOR | 0644));
	assert_false(FP_S_ISDOOR(S_IFSOCK));
}

/* ---- readlink's truncation contract -------------------------------------- */

static void test_copy_contract(void **state)
{
	static const char ans[] = "socket:[4026531993]";
	size_t len = sizeof ans - 1, n;

	(void)state;
	for (n = 0; n <= len + 3; n++) {
		char buf[64];
		ssize_t r;

		memset(buf, 'Z', sizeof buf);
		errno = 0;
		r = rl_copy(ans, len, buf, n);
		if (n == 0) {
			assert_int_equal(r, -1);
			assert_int_equal(errno, EINVAL);
		} else {
			assert_int_equal(r, n < len ? n : len);
			assert_memory_equal(buf, ans, (size_t)r);
		}
		/* no NUL, nothing written past what was returned */
		assert_int_equal(buf[r < 0 ? 0 : r], 'Z');
	}
	/* The kernel reads the size as an int. */
	errno = 0;
	assert_int_equal(rl_copy(ans, len, NULL, (size_t)INT_MAX + 1), -1);
	assert_int_equal(errno, EINVAL);
}

/* Through the exported readlink, for a socket and a pipe, every size from 0
 * to beyond the full answer, against the kernel's answer at the same size. */
static void check_every_size(int fd, bool expect_short)
{
	char path[64], full[64];
	ssize_t flen;
	size_t n;

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	flen = kernel_readlink(path, full, sizeof full);
	assert_true(flen > 0);
	for (n = 0; n <= (size_t)flen + 2; n++) {
		char a[64], k[64];
		ssize_t ra, rk;
		int ea, ek;
		unsigned long before = counter(RL_C_SHORT);

		memset(a, 'Z', sizeof a);
		memset(k, 'Z', sizeof k);
		errno = 0;
		ra = readlink(path, a, n);
		ea = errno;
		errno = 0;
		rk = kernel_readlink(path, k, n);
		ek = errno;
		assert_int_equal(ra, rk);
		if (ra < 0)
			assert_int_equal(ea, ek);
		assert_memory_equal(a, k, sizeof a);
		/* size 0 is the C library's to answer */
		assert_int_equal(counter(RL_C_SHORT) - before,
		                 expect_short && n > 0 ? 1 : 0);
	}
}

static void test_every_size_socket_and_pipe(void **state)
{
	int sv[2], p[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pipe(p), 0);
	/* The first socket and pipe may teach us sockfs/pipefs; do it twice. */
	check_every_size(sv[0], true);
	check_every_size(sv[1], true);
	check_every_size(p[0], true);
	check_every_size(p[1], true);
	check_every_size(0, false);  /* whatever stdin is, if not a socket or pipe */
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void test_odd_arguments(void **state)
{
	int sv[2];
	char path[64], buf[64];
	unsigned long before;
	/* volatile: the compiler must not see (and warn about) what we pass */
	const char *volatile nopath = NULL;
	char *volatile nobuf = NULL;
	volatile size_t huge = (size_t)INT_MAX + 1;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	before = counter(RL_C_SHORT);
	errno = 0;
	assert_int_equal(readlink(nopath, buf, sizeof buf), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(readlink(path, nobuf, 16), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(readlink(path, buf, huge), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(counter(RL_C_SHORT), before);
	/* A closed fd: fstat fails, the kernel says ENOENT, errno is its. */
	close(sv[1]);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[1]);
	errno = 0;
	assert_int_equal(readlink(path, buf, sizeof buf), -1);
	assert_int_equal(errno, ENOENT);
	/* errno untouched on success, even though our probes ran */
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	errno = 1234;
	assert_true(readlink(path, buf, sizeof buf) > 0);
	assert_int_equal(errno, 1234);
	close(sv[0]);
	/* Off (FASTPATH_DISABLE=readlink), the path is never read: an
	 * invalid one is the kernel's EFAULT, not a fault of ours. */
	{
		unsigned was = fp_cfg.enabled;
		const char *volatile bad = (const char *)16;

		fp_cfg.enabled &= ~FP_BIT(readlink);
		errno = 0;
		assert_int_equal(readlink(bad, buf, sizeof buf), -1);
		assert_int_equal(errno, EFAULT);
		fp_cfg.enabled = was;
	}
}

/* ---- the Linux policy: whose fd table ----------------------------------- */

static void expect_same(const char *path, bool expect_short)
{
	char a[128], k[128];
	ssize_t ra, rk;
	unsigned long before = counter(RL_C_SHORT);

	memset(a, 0, sizeof a);
	memset(k, 0, sizeof k);
	ra = readlink(path, a, sizeof a);
	rk = kernel_readlink(path, k, sizeof k);
	if (ra != rk || memcmp(a, k, sizeof a) != 0)
		fail_msg("%s: shim %zd \"%s\", kernel %zd \"%s\"", path, ra, a, rk, k);
	if ((counter(RL_C_SHORT) - before) != (expect_short ? 1u : 0u))
		fail_msg("%s: expected %s", path, expect_short ? "short-circuit" : "pass-through");
}

static void test_linux_own_forms(void **state)
{
	int sv[2];
	char path[128];
	int pid = (int)getpid(), tid = (int)syscall(SYS_gettid);

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	expect_same(path, true);
	snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, sv[0]);
	expect_same(path, true);
	snprintf(path, sizeof path, "/proc/thread-self/fd/%d", sv[0]);
	expect_same(path, true);
	snprintf(path, sizeof path, "/proc/%d/task/%d/fd/%d", pid, tid, sv[0]);
	expect_same(path, true);
	snprintf(path, sizeof path, "/proc/self/task/%d/fd/%d", tid, sv[0]);
	expect_same(path, true);
	/* Linux has no path/ directory: the kernel says ENOENT. */
	snprintf(path, sizeof path, "/proc/self/path/%d", sv[0]);
	expect_same(path, false);
	/* another process: passes through (the kernel's answer is cheap) */
	snprintf(path, sizeof path, "/proc/%d/fd/0", (int)getppid());
	expect_same(path, false);
	/* a task of ours that is not us */
	snprintf(path, sizeof path, "/proc/%d/task/%d/fd/%d", pid, pid + 100000, sv[0]);
	expect_same(path, false);
	/* readlinkat: AT_FDCWD and absolute names with any dirfd are ours;
	 * relative names under an open fd directory pass through on Linux. */
	{
		char a[64], k[64];
		int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
		unsigned long before = counter(RL_C_SHORT);
		char name[16];
		ssize_t ra, rk;

		assert_true(dfd >= 0);
		snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
		ra = readlinkat(AT_FDCWD, path, a, sizeof a);
		rk = kernel_readlink(path, k, sizeof k);
		assert_int_equal(ra, rk);
		assert_memory_equal(a, k, (size_t)rk);
		ra = readlinkat(dfd, path, a, sizeof a);
		assert_int_equal(ra, rk);
		assert_memory_equal(a, k, (size_t)rk);
		assert_int_equal(counter(RL_C_SHORT) - before, 2);
		snprintf(name, sizeof name, "%d", sv[0]);
		ra = readlinkat(dfd, name, a, sizeof a);
		assert_int_equal(ra, rk);
		assert_memory_equal(a, k, (size_t)rk);
		assert_int_equal(counter(RL_C_SHORT) - before, 2);
		close(dfd);
	}
	close(sv[0]);
	close(sv[1]);
}

/* The proc root of another pid namespace (t_robust.sh makes one with
 * unshare -p where it may): there /proc/<getpid()> is another process, so
 * only the self forms are ours; and a /proc where "self" does not resolve
 * (one of a namespace we are not in) has nothing of ours at all.  Forced
 * here through what was learnt. */
static void test_linux_other_pid_namespace(void **state)
{
	int sv[2];
	char path[128];
	int pid = (int)getpid(), tid = (int)syscall(SYS_gettid);

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, sv[0]);
	expect_same(path, true);
	assert_int_equal(atomic_load(&rl_ns_known), 4L * pid + RL_NS_SAME);
	atomic_store(&rl_ns_known, 4L * pid + RL_NS_OTHER);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/%d/task/%d/fd/%d", pid, tid, sv[0]);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/self/task/%d/fd/%d", tid, sv[0]);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	expect_same(path, true);
	snprintf(path, sizeof path, "/proc/thread-self/fd/%d", sv[0]);
	expect_same(path, true);
	atomic_store(&rl_ns_known, 4L * pid + RL_NS_NONE);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	expect_same(path, false);
	/* Learnt for another pid (a fork child's copy): learnt again. */
	atomic_store(&rl_ns_known, 4L * (pid + 1) + RL_NS_NONE);
	expect_same(path, true);
	assert_int_equal(atomic_load(&rl_ns_known), 4L * pid + RL_NS_SAME);
	close(sv[0]);
	close(sv[1]);
}

struct thread_arg {
	int sock, victim;
	int errors;
	unsigned long shorts;
};

/* Does readlink of /proc/<who>/fd/<fd> through the shim give the kernel's
 * answer, byte for byte, starting with prefix?  0 when it does. */
static int differs_from_kernel(const char *who, int fd, const char *prefix)
{
	char path[64], x[64], k[64];
	ssize_t rx, rk;

	snprintf(path, sizeof path, "/proc/%s/fd/%d", who, fd);
	memset(x, 0, sizeof x);
	memset(k, 0, sizeof k);
	rx = readlink(path, x, sizeof x);
	rk = kernel_readlink(path, k, sizeof k);
	return rx != rk || rx <= 0 || memcmp(x, k, sizeof x) != 0 ||
	       strncmp(k, prefix, strlen(prefix)) != 0;
}

/* A thread that is not the leader: /proc/self/fd is the leader's table.
 * After unshare(CLONE_FILES) the victim fd number is a pipe in our table
 * and still the socket in the leader's: only the kernel knows the latter. */
static void *non_leader(void *p)
{
	struct thread_arg *a = p;
	unsigned long before;
	int pp[2];

	if (unshare(CLONE_FILES) != 0) {
		a->errors = -1;
		return NULL;
	}
	if (pipe(pp) != 0 || dup2(pp[0], a->victim) != a->victim) {
		a->errors = 100;
		return NULL;
	}
	before = counter(RL_C_SHORT);
	a->errors += differs_from_kernel("self", a->victim, "socket:[");
	a->errors += differs_from_kernel("thread-self", a->victim, "pipe:[");
	a->errors += differs_from_kernel("thread-self", a->sock, "");
	a->shorts = counter(RL_C_SHORT) - before;
	return NULL;
}

static void test_linux_non_leader(void **state)
{
	int sv[2];
	pthread_t t;
	struct thread_arg a = { 0, 0, 0, 0 };

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	a.sock = sv[0];
	a.victim = sv[1];
	assert_int_equal(pthread_create(&t, NULL, non_leader, &a), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (a.errors < 0) {
		print_message("skip: unshare(CLONE_FILES) in a thread is refused here\n");
		skip();
	}
	assert_int_equal(a.errors, 0);
	/* only the two thread-self names were answered here */
	assert_int_equal(a.shorts, 2);
	close(sv[0]);
	close(sv[1]);
}

/* Named FIFOs and O_PATH fds of socket files look like pipes and sockets
 * to fstat; the kernel answers with their path, so must we. */
static void test_linux_lookalikes(void **state)
{
	char dir[] = "/tmp/rl_XXXXXX", fifo[64], sock[64], path[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ff, s, op, sv[2];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(sock, sizeof sock, "%s/sock", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	ff = open(fifo, O_RDWR);
	assert_true(ff >= 0);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	op = open(sock, O_PATH);
	assert_true(op >= 0);
	/* Seen before any real socket or pipe of this process: the kernel
	 * answers with their path, which teaches nothing (a named FIFO
	 * learnt as pipefs answered "pipe:[...]" for good: a cold review). */
	atomic_store(&rl_sockfs_dev, 0);
	atomic_store(&rl_pipefs_dev, 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", ff);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/self/fd/%d", op);
	expect_same(path, false);
	assert_true(atomic_load(&rl_pipefs_dev) == 0 && atomic_load(&rl_sockfs_dev) == 0);
	/* A pipe's first is the kernel's, and teaches pipefs's device. */
	{
		int pp[2];
		struct stat pst;

		assert_int_equal(pipe(pp), 0);
		assert_int_equal(fstat(pp[0], &pst), 0);
		snprintf(path, sizeof path, "/proc/self/fd/%d", pp[0]);
		expect_same(path, false);
		assert_true(atomic_load(&rl_pipefs_dev) == (unsigned long long)pst.st_dev + 1);
		expect_same(path, true);
		close(pp[0]);
		close(pp[1]);
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", op);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/self/fd/%d", s);  /* bound: still sockfs */
	expect_same(path, false);  /* the first socket: the kernel's */
	expect_same(path, true);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	expect_same(path, true);
	snprintf(path, sizeof path, "/proc/self/fd/%d", ff);
	expect_same(path, false);
	snprintf(path, sizeof path, "/proc/self/fd/%d", op);
	expect_same(path, false);
	close(ff);
	close(s);
	close(op);
	close(sv[0]);
	close(sv[1]);
	unlink(fifo);
	unlink(sock);
	rmdir(dir);
}

/* Which device is sockfs's and pipefs's is learnt from the kernel's own
 * answer to the first call of each kind: only a whole answer that names
 * the inode fstat gave, in that kind's words, teaches it; a truncated one
 * (the program's small buffer) does not, nor one about another inode (a
 * number another thread replaced between the fstat and the call). */
static void test_linux_learning(void **state)
{
	int sv[2], pv[2];
	char path[128], b[8];
	struct stat st;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pipe(pv), 0);
	atomic_store(&rl_sockfs_dev, 0);
	atomic_store(&rl_pipefs_dev, 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	assert_int_equal(readlink(path, b, 3), 3);  /* "soc": the kernel's */
	assert_true(atomic_load(&rl_sockfs_dev) == 0);
	assert_int_equal(fstat(sv[0], &st), 0);
	rl_fs_learnt(true, (unsigned long long)st.st_dev + 1, (unsigned long)st.st_ino + 1,
	             "socket:[0]", 10);
	assert_true(atomic_load(&rl_sockfs_dev) == 0);
	rl_fs_learnt(false, (unsigned long long)st.st_dev + 1, (unsigned long)st.st_ino, b, 3);
	assert_true(atomic_load(&rl_pipefs_dev) == 0);
	expect_same(path, false);  /* whole: learnt */
	assert_true(atomic_load(&rl_sockfs_dev) == (unsigned long long)st.st_dev + 1);
	expect_same(path, true);
	assert_true(atomic_load(&rl_pipefs_dev) == 0);  /* each kind its own */
	snprintf(path, sizeof path, "/proc/self/fd/%d", pv[0]);
	expect_same(path, false);
	expect_same(path, true);
	assert_int_equal(fstat(pv[0], &st), 0);
	assert_true(atomic_load(&rl_pipefs_dev) == (unsigned long long)st.st_dev + 1);
	close(sv[0]), close(sv[1]), close(pv[0]), close(pv[1]);
}

/* The Linux policy answers only under a real procfs: with no /proc (or a
 * test root that is a plain directory) the kernel's ENOENT stands. */
static void test_linux_needs_procfs(void **state)
{
	char dir[] = "/tmp/rl_XXXXXX", path[128], buf[64];
	int sv[2];
	unsigned long before;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	set_test_env(dir, "linux");
	before = counter(RL_C_SHORT);
	snprintf(path, sizeof path, "%s/self/fd/%d", dir, sv[0]);
	errno = 0;
	assert_int_equal(readlink(path, buf, sizeof buf), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(counter(RL_C_SHORT), before);
	set_test_env(NULL, NULL);
	close(sv[0]);
	close(sv[1]);
	rmdir(dir);
}

static void test_disabled(void **state)
{
	int sv[2];
	char path[64];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
	fp_cfg.enabled &= ~(unsigned)FP_BIT(readlink);
	expect_same(path, false);
	fp_cfg.enabled |= FP_BIT(readlink);
	expect_same(path, true);
	close(sv[0]);
	close(sv[1]);
}

/* ---- the illumos policy on a fixture ------------------------------------ */

/*
 * <root>/4242/fd/3    a bound unix socket      path/3 -> /fixture/socket
 * <root>/4242/fd/4    a regular file           path/4 -> /fixture/regular
 * <root>/4242/fd/5    (none)                   path/5 -> /fixture/unknown
 * <root>/4242/fd/6    an unnamed door stand-in path/6 -> /fixture/door
 * <root>/4242/fd/7    a named door stand-in    path/7 -> /var/run/name_service_door
 * <root>/self/path/<our fd of fd/6>  -> /fixture/self-door
 * <root>/self/path/<our fd of fd/7>  -> /var/run/self-named-door
 * <root>/self/path/<our socket fd>  -> /fixture/self-socket
 * <root>/self/path/<our file fd>    -> /fixture/self-file
 * <root>/4242/fd/11   our pipe's read end (a link to /proc/self/fd/<n>)
 *                                            path/11 -> /fixture/pipe
 * <root>/4242/fd/12   a named FIFO             path/12 -> /fixture/named-fifo
 * <root>/4242/fd/13   our epoll fd, an event port's stand-in (a link)
 *                                            path/13 -> /fixture/port
 * <root>/self/path/<our pipe, FIFO, epoll fd> -> /fixture/self-{pipe,fifo,port}
 * <root>/deep/7/fd/3 a bound unix socket      deep/7/path/3 -> /fixture/deep
 *   (a "path" directory whose grandparent is not the root: not a proc dir)
 */
struct fixture {
	char root[64];
	int sock, file, listener, listener2, door, named_door, pipe[2], fifo, port;
};

static void mk(const char *root, const char *rel, bool dir)
{
	char p[256];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (dir)
		assert_int_equal(mkdir(p, 0755), 0);
	else
		assert_int_equal(close(open(p, O_CREAT | O_WRONLY, 0644)), 0);
}

static void mk_door(const char *root, const char *rel, mode_t mode)
{
	char p[256];

	mk(root, rel, false);
	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(chmod(p, mode), 0);
}

static int open_at_root(const char *root, const char *rel)
{
	char p[256];
	int fd;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	return fd;
}

static void ln(const char *root, const char *target, const char *fmt, int n)
{
	char rel[128], p[256];

	snprintf(rel, sizeof rel, fmt, n);
	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static void fixture_make(struct fixture *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sv[2];

	snprintf(f->root, sizeof f->root, "/tmp/rl_fixture_XXXXXX");
	assert_non_null(mkdtemp(f->root));
	mk(f->root, "4242", true);
	mk(f->root, "4242/fd", true);
	mk(f->root, "4242/path", true);
	mk(f->root, "self", true);
	mk(f->root, "self/path", true);
	mk(f->root, "thread-self", true);
	mk(f->root, "thread-self/path", true);
	mk(f->root, "deep", true);
	mk(f->root, "deep/7", true);
	mk(f->root, "deep/7/path", true);
	mk(f->root, "deep/7/fd", true);
	f->listener = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/4242/fd/3", f->root);
	assert_int_equal(bind(f->listener, (struct sockaddr *)&sa, sizeof sa), 0);
	mk(f->root, "4242/fd/4", false);
	mk_door(f->root, "4242/fd/6", DOOR_UNNAMED_MODE);
	mk_door(f->root, "4242/fd/7", DOOR_NAMED_MODE);
	f->listener2 = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/deep/7/fd/3", f->root);
	assert_int_equal(bind(f->listener2, (struct sockaddr *)&sa, sizeof sa), 0);
	ln(f->root, "/fixture/socket", "4242/path/%d", 3);
	ln(f->root, "/fixture/regular", "4242/path/%d", 4);
	ln(f->root, "/fixture/unknown", "4242/path/%d", 5);
	ln(f->root, "/fixture/door", "4242/path/%d", 6);
	ln(f->root, "/var/run/name_service_door", "4242/path/%d", 7);
	ln(f->root, "/fixture/deep", "deep/7/path/%d", 3);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	f->sock = sv[0];
	f->file = open(f->root, O_RDONLY | O_DIRECTORY);
	assert_true(f->file >= 0);
	ln(f->root, "/fixture/self-socket", "self/path/%d", f->sock);
	ln(f->root, "/fixture/self-file", "self/path/%d", f->file);
	ln(f->root, "/fixture/thread-self-socket", "thread-self/path/%d", f->sock);
	f->door = open_at_root(f->root, "4242/fd/6");
	f->named_door = open_at_root(f->root, "4242/fd/7");
	ln(f->root, "/fixture/self-door", "self/path/%d", f->door);
	ln(f->root, "/var/run/self-named-door", "self/path/%d", f->named_door);
	/* a pipe, a named FIFO and an epoll fd, real ones */
	{
		char p[256], proc[64];

		assert_int_equal(pipe(f->pipe), 0);
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->pipe[0]);
		snprintf(p, sizeof p, "%s/4242/fd/11", f->root);
		assert_int_equal(symlink(proc, p), 0);
		snprintf(p, sizeof p, "%s/4242/fd/12", f->root);
		assert_int_equal(mkfifo(p, 0600), 0);
		f->fifo = open(p, O_RDWR);
		assert_true(f->fifo >= 0);
		f->port = epoll_create1(0);
		assert_true(f->port >= 0);
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->port);
		snprintf(p, sizeof p, "%s/4242/fd/13", f->root);
		assert_int_equal(symlink(proc, p), 0);
	}
	ln(f->root, "/fixture/pipe", "4242/path/%d", 11);
	ln(f->root, "/fixture/named-fifo", "4242/path/%d", 12);
	ln(f->root, "/fixture/port", "4242/path/%d", 13);
	ln(f->root, "/fixture/self-pipe", "self/path/%d", f->pipe[0]);
	ln(f->root, "/fixture/self-fifo", "self/path/%d", f->fifo);
	ln(f->root, "/fixture/self-port", "self/path/%d", f->port);
}

static void fixture_remove(struct fixture *f)
{
	char cmd[128];

	close(f->sock);
	close(f->file);
	close(f->listener);
	close(f->listener2);
	close(f->door);
	close(f->named_door);
	close(f->pipe[0]);
	close(f->pipe[1]);
	close(f->fifo);
	close(f->port);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
	assert_int_equal(system(cmd), 0);
}

/* readlink(rel under root) gives want (NULL: -1/ENOENT); shorted or not. */
static void expect_at(int dirfd, const char *root, const char *rel, const char *want,
                      bool expect_short)
{
	char path[256], buf[128];
	ssize_t r;
	unsigned long before = counter(RL_C_SHORT);

	if (dirfd == AT_FDCWD)
		snprintf(path, sizeof path, "%s/%s", root, rel);
	else
		snprintf(path, sizeof path, "%s", rel);
	memset(buf, 0, sizeof buf);
	errno = 0;
	r = readlinkat(dirfd, path, buf, sizeof buf);
	if (want) {
		if (r != (ssize_t)strlen(want) || memcmp(buf, want, strlen(want)) != 0)
			fail_msg("%s: got %zd \"%s\" errno %d, want \"%s\"", rel, r, buf, errno, want);
	} else if (r != -1 || errno != ENOENT) {
		fail_msg("%s: got %zd \"%s\" errno %d, want ENOENT", rel, r, buf, errno);
	}
	if ((counter(RL_C_SHORT) - before) != (expect_short ? 1u : 0u))
		fail_msg("%s: expected %s", rel, expect_short ? "short-circuit" : "pass-through");
}

static void test_illumos_fixture(void **state)
{
	struct fixture f;
	char rel[128];
	unsigned long calls;
	char buf[64];

	(void)state;
	fixture_make(&f);
	set_test_env(f.root, "illumos");
	calls = counter(RL_C_CALLS);
	expect_at(AT_FDCWD, f.root, "4242/path/3", NULL, true);          /* socket */
	expect_at(AT_FDCWD, f.root, "4242/path/4", "/fixture/regular", false);
	expect_at(AT_FDCWD, f.root, "4242/path/5", "/fixture/unknown", false); /* no fd/5 */
	expect_at(AT_FDCWD, f.root, "4242/path/03", NULL, false);        /* odd: kernel */
	snprintf(rel, sizeof rel, "self/path/%d", f.sock);
	expect_at(AT_FDCWD, f.root, rel, NULL, true);                    /* fstat(n) */
	snprintf(rel, sizeof rel, "self/path/%d", f.file);
	expect_at(AT_FDCWD, f.root, rel, "/fixture/self-file", false);
	snprintf(rel, sizeof rel, "thread-self/path/%d", f.sock);
	expect_at(AT_FDCWD, f.root, rel, "/fixture/thread-self-socket", false);
	/* doors: only an unnamed one fails; a named one is the kernel's to
	 * answer with its path (by stat of fd/<n>, and by fstat of ours) */
	expect_at(AT_FDCWD, f.root, "4242/path/6", NULL, true);
	expect_at(AT_FDCWD, f.root, "4242/path/7", "/var/run/name_service_door", false);
	snprintf(rel, sizeof rel, "self/path/%d", f.door);
	expect_at(AT_FDCWD, f.root, rel, NULL, true);
	snprintf(rel, sizeof rel, "self/path/%d", f.named_door);
	expect_at(AT_FDCWD, f.root, rel, "/var/run/self-named-door", false);
	/* a pipe and an event port (epoll's stand-in) have no name; a named
	 * FIFO has its own, which the kernel answers (rl_rules[]) */
	expect_at(AT_FDCWD, f.root, "4242/path/11", NULL, true);
	expect_at(AT_FDCWD, f.root, "4242/path/12", "/fixture/named-fifo", false);
	expect_at(AT_FDCWD, f.root, "4242/path/13", NULL, true);
	snprintf(rel, sizeof rel, "self/path/%d", f.pipe[0]);
	expect_at(AT_FDCWD, f.root, rel, NULL, true);
	snprintf(rel, sizeof rel, "self/path/%d", f.fifo);
	expect_at(AT_FDCWD, f.root, rel, "/fixture/self-fifo", false);
	snprintf(rel, sizeof rel, "self/path/%d", f.port);
	expect_at(AT_FDCWD, f.root, rel, NULL, true);
	/* fd/<n> entries are not links on illumos: the kernel's EINVAL
	 * (counted: a /proc fd name, passed through) */
	errno = 0;
	snprintf(rel, sizeof rel, "%s/4242/fd/3", f.root);
	assert_int_equal(readlink(rel, buf, sizeof buf), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(counter(RL_C_CALLS) - calls, 17);

	/* readlinkat relative to an open <root>/<pid>/path */
	{
		char d[128];
		int dfd, other, fddir;

		snprintf(d, sizeof d, "%s/4242/path", f.root);
		dfd = open(d, O_RDONLY | O_DIRECTORY);
		snprintf(d, sizeof d, "%s/deep/7/path", f.root);
		other = open(d, O_RDONLY | O_DIRECTORY);
		snprintf(d, sizeof d, "%s/4242/fd", f.root);
		fddir = open(d, O_RDONLY | O_DIRECTORY);
		assert_true(dfd >= 0 && other >= 0 && fddir >= 0);
		expect_at(dfd, f.root, "3", NULL, true);
		expect_at(dfd, f.root, "4", "/fixture/regular", false);
		expect_at(dfd, f.root, "5", "/fixture/unknown", false);
		expect_at(dfd, f.root, "6", NULL, true);      /* unnamed door */
		expect_at(dfd, f.root, "7", "/var/run/name_service_door", false);
		expect_at(dfd, f.root, "11", NULL, true);     /* pipe */
		expect_at(dfd, f.root, "12", "/fixture/named-fifo", false);
		expect_at(dfd, f.root, "13", NULL, true);     /* port */
		/* a "path" directory whose grandparent is not the root, and
		 * whose ../fd/3 is a socket: not ours */
		expect_at(other, f.root, "3", "/fixture/deep", false);
		ln(d, "/fixture/fd9", "%d", 9);  /* <root>/4242/fd/9 */
		errno = 0;
		assert_int_equal(readlinkat(fddir, "3", buf, sizeof buf), -1);
		assert_int_equal(errno, EINVAL);
		expect_at(fddir, f.root, "9", "/fixture/fd9", false);
		close(dfd);
		close(other);
		close(fddir);
	}

	/* the same names under the Linux policy: no path/ rules, no procfs */
	set_test_env(f.root, "linux");
	expect_at(AT_FDCWD, f.root, "4242/path/3", "/fixture/socket", false);
	/* and a policy name we do not know means the platform's default */
	set_test_env(f.root, "solaris");
	expect_at(AT_FDCWD, f.root, "4242/path/3", "/fixture/socket", false);
	set_test_env(NULL, NULL);
	fixture_remove(&f);
}

/* Our own pid, spelt as a number, under the illumos policy: fstat(n). */
static void test_illumos_own_pid(void **state)
{
	struct fixture f;
	char dir[128], rel[64];

	(void)state;
	fixture_make(&f);
	snprintf(dir, sizeof dir, "%s/%d", f.root, (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof dir, "%s/%d/path", f.root, (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	ln(dir, "/fixture/own", "%d", f.sock);
	set_test_env(f.root, "illumos");
	snprintf(rel, sizeof rel, "%d/path/%d", (int)getpid(), f.sock);
	expect_at(AT_FDCWD, f.root, rel, NULL, true);
	set_test_env(NULL, NULL);
	fixture_remove(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_round_trip),
		cmocka_unit_test(test_parse_null_and_long),
		cmocka_unit_test_setup(test_parse_other_root, setup),
		cmocka_unit_test(test_decide_table),
		cmocka_unit_test(test_copy_contract),
		cmocka_unit_test_setup(test_every_size_socket_and_pipe, setup),
		cmocka_unit_test_setup(test_odd_arguments, setup),
		cmocka_unit_test_setup(test_linux_own_forms, setup),
		cmocka_unit_test_setup(test_linux_non_leader, setup),
		cmocka_unit_test_setup(test_linux_other_pid_namespace, setup),
		cmocka_unit_test_setup(test_linux_lookalikes, setup),
		cmocka_unit_test_setup(test_linux_needs_procfs, setup),
		cmocka_unit_test_setup(test_linux_learning, setup),
		cmocka_unit_test_setup(test_disabled, setup),
		cmocka_unit_test_setup(test_illumos_fixture, setup),
		cmocka_unit_test_setup(test_illumos_own_pid, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
