/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom: every entry point on /dev/urandom, checked and logged.
 * Run natively and under fastpath.so: each run must pass its own checks,
 * and the observation log on stdout (return values, errno, st_rdev,
 * FD_CLOEXEC and status flags; never raw descriptor numbers, which the
 * reserve may change) must be identical between the two runs.
 *   prog_urandom             the checks
 *   prog_urandom exec-child  (internal) lists the descriptors it inherited
 *   prog_urandom first-jump N  N processes, each jumping out of its first
 *                pooled open from a 10 us timer's handler; a descriptor of
 *                the device that open left behind is made O_NONBLOCK, and a
 *                new open must not share it: "shared S of N" (natively 0)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define DEV "/dev/urandom"

/* NULL that the compiler cannot see, to test libc's EFAULT contract. */
static void *volatile null_ptr;

/* The call is made before errno is read (argument order is unspecified). */
#define obs(what, call, ignored)                                               \
	do {                                                                   \
		long r_ = (long)(call);                                        \
		obs_(what, r_, errno);                                         \
	} while (0)

static void obs_(const char *what, long r, int err)
{
	printf("%s = %ld%s%s\n", what, r, r < 0 ? " " : "", r < 0 ? strerrorname_np(err) : "");
}

static void describe(const char *what, int fd)
{
	struct stat st;
	int fdfl = fcntl(fd, F_GETFD), fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) != 0) {
		printf("%s: fstat %s\n", what, strerrorname_np(errno));
		return;
	}
	printf("%s: chr=%d rdev=%u:%u cloexec=%d acc=%d nonblock=%d\n", what,
	       S_ISCHR(st.st_mode), major(st.st_rdev), minor(st.st_rdev),
	       fdfl >= 0 && (fdfl & FD_CLOEXEC), fl & O_ACCMODE, !!(fl & O_NONBLOCK));
}

/* Does any inherited descriptor point at the device?  (exec-child) */
static int count_device_fds(void)
{
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 9))
			n++;
	}
	return n;
}

/* Logs what an open gave, then closes it. */
static void describe_close(const char *what, int fd)
{
	describe(what, fd);
	close(fd);
}

static void test_open_forms(void)
{
	int fd;

	describe_close("open RDONLY", open(DEV, O_RDONLY));
	describe_close("open RDONLY|CLOEXEC", open(DEV, O_RDONLY | O_CLOEXEC));
	describe_close("open RDONLY|NONBLOCK", open(DEV, O_RDONLY | O_NONBLOCK));
	describe_close("open again after NONBLOCK", open(DEV, O_RDONLY | O_CLOEXEC));
	describe_close("open64 NOCTTY", open64(DEV, O_RDONLY | O_NOCTTY));
	describe_close("openat AT_FDCWD", openat(AT_FDCWD, DEV, O_RDONLY));
	/* absolute: dirfd ignored */
	describe_close("openat -1 absolute", openat(-1, DEV, O_RDONLY));
	describe_close("openat64", openat64(AT_FDCWD, DEV, O_RDONLY | O_CLOEXEC));
	/* Not ours: write access, O_PATH, other spellings. */
	describe_close("open RDWR", open(DEV, O_RDWR));
	fd = open(DEV, O_PATH);
	obs("O_PATH open >= 0", fd >= 0, 0);
	close(fd);
	describe_close("open //", open("/dev//urandom", O_RDONLY));
	errno = 0;
	obs("open missing", open("/dev/urandom-missing", O_RDONLY), errno);
	errno = 0;
	obs("open NULL", open(null_ptr, O_RDONLY), errno);
	errno = 0;
	obs("open directory as device", openat(AT_FDCWD, "/dev/urandom/x", O_RDONLY), errno);
}

static void test_reads(void)
{
	unsigned char a[64], b[64], big[20000];
	struct iovec iov[3];
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	obs("read 0", read(fd, a, 0), errno);
	obs("read 16", read(fd, a, 16), errno);
	obs("read 64", read(fd, b, 64), errno);
	TU_CHECK(memcmp(a, b, 16) != 0, "two reads gave the same 16 bytes");
	errno = 0;
	r = read(fd, null_ptr, 16);
	obs("read NULL", r, errno);
	obs("read 20000", read(fd, big, sizeof big), errno);
	obs("pread 16 off 0", pread(fd, a, 16, 0), errno);
	obs("pread 16 off 1000", pread(fd, a, 16, 1000), errno);
	errno = 0;
	obs("pread off -1", pread(fd, a, 16, -1), errno);
	obs("pread64 16", pread64(fd, a, 16, 5), errno);
	iov[0] = (struct iovec){ a, 10 };
	iov[1] = (struct iovec){ NULL, 0 };
	iov[2] = (struct iovec){ b, 20 };
	obs("readv 10+0+20", readv(fd, iov, 3), errno);
	errno = 0;
	{ volatile int neg = -1; obs("readv cnt -1", readv(fd, iov, neg), errno); }
	obs("readv cnt 0", readv(fd, iov, 0), errno);
	close(fd);
	/* Closed: every call says EBADF, whether or not we kept it. */
	errno = 0;
	obs("read after close", read(fd, a, 16), errno);
	errno = 0;
	obs("readv after close", readv(fd, iov, 3), errno);
	errno = 0;
	obs("pread after close", pread(fd, a, 16, 0), errno);
	errno = 0;
	obs("close after close", close(fd), errno);
	errno = 0;
	obs("dup after close", dup(fd), errno);
	errno = 0;
	obs("fcntl GETFD after close", fcntl(fd, F_GETFD), errno);
	errno = 0;
	obs("fcntl DUPFD after close", fcntl(fd, F_DUPFD, 0), errno);
	errno = 0;
	obs("dup2 after close", dup2(fd, 100), errno);
	errno = 0;
	obs("dup2 self after close", dup2(fd, fd), errno);
	errno = 0;
	obs("dup3 self after close", dup3(fd, fd, 0), errno);
	errno = 0;
	obs("fdopen after close", fdopen(fd, "r") != NULL, errno);
}

static void test_dups(void)
{
	unsigned char a[16];
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), d, p[2];

	d = dup(fd);
	describe("dup", d);
	obs("read dup", read(d, a, 16), errno);
	close(d);
	d = fcntl(fd, F_DUPFD_CLOEXEC, 50);
	describe("F_DUPFD_CLOEXEC", d);
	obs("F_DUPFD_CLOEXEC >= 50", d >= 50, 0);
	close(d);
	d = fcntl(fd, F_DUPFD, 60);
	describe("F_DUPFD", d);
	close(d);
	obs("dup2 to 70", dup2(fd, 70), errno);
	describe("dup2 target", 70);
	obs("dup3 to 71 CLOEXEC", dup3(fd, 71, O_CLOEXEC), errno);
	describe("dup3 target", 71);
	errno = 0;
	obs("dup3 bad flags", dup3(fd, 72, 12345), errno);
	obs("dup2 self", dup2(fd, fd) == fd, errno);
	errno = 0;
	obs("dup3 self", dup3(fd, fd, 0), errno);
	/* Implicit close of a device descriptor by dup2: the target must now
	 * be the pipe, not the device. */
	TU_CHECK(pipe(p) == 0, "pipe");
	TU_CHECK(write(p[1], "pipe-data-123456", 16) == 16, "write");
	obs("dup2 pipe over device", dup2(p[0], 70) == 70, errno);
	describe("after dup2 over", 70);
	memset(a, 0, sizeof a);
	obs("read dup2'd pipe", read(70, a, 16), errno);
	TU_CHECK(memcmp(a, "pipe-data-123456", 16) == 0, "dup2 target served pool bytes");
	obs("fcntl SETFD 0", fcntl(71, F_SETFD, 0), errno);
	describe("after SETFD 0", 71);
	obs("fcntl64 SETFL NONBLOCK", fcntl64(71, F_SETFL, O_NONBLOCK), errno);
	describe("after SETFL", fd);  /* same open file description */
	close(70);
	close(71);
	close(p[0]);
	close(p[1]);
	close(fd);
	/* The reserve is closed for the program: dup2 onto it is an ordinary
	 * dup2 onto a free number. */
	fd = open(DEV, O_RDONLY | O_CLOEXEC);
	close(fd);
	TU_CHECK(pipe(p) == 0, "pipe");
	TU_CHECK(write(p[1], "second-pipe-data", 16) == 16, "write");
	obs("dup2 onto closed number", dup2(p[0], fd) == fd, errno);
	memset(a, 0, sizeof a);
	obs("read it", read(fd, a, 16), errno);
	TU_CHECK(memcmp(a, "second-pipe-data", 16) == 0, "dup2 onto a kept descriptor read pool bytes");
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* The number freed by fclose is reused by a socket: its reads are the
 * socket's data. */
static void test_fdopen_socket(void)
{
	char a[16];
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), sv[2];
	FILE *f = fdopen(fd, "r");

	TU_CHECK(f != NULL, "fdopen");
	obs("fread via stream", (long)fread(a, 1, 16, f), errno);
	obs("fclose", fclose(f), errno);
	TU_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	obs("socket reuses the number", sv[0] == fd || sv[1] == fd, 0);
	TU_CHECK(sv[0] == fd || sv[1] == fd, "number %d not reused (%d, %d)", fd, sv[0], sv[1]);
	int mine = sv[0] == fd ? sv[0] : sv[1], peer = sv[0] == fd ? sv[1] : sv[0];
	TU_CHECK(write(peer, "socket-data-0001", 16) == 16, "write");
	memset(a, 0, sizeof a);
	obs("read reused number", read(mine, a, 16), errno);
	TU_CHECK(memcmp(a, "socket-data-0001", 16) == 0, "read random bytes, not socket data");
	close(sv[0]);
	close(sv[1]);

	/* fopen of the device: stdio's own descriptor. */
	f = fopen(DEV, "r");
	obs("fopen", f != NULL, errno);
	obs("fread 16", (long)fread(a, 1, 16, f), errno);
	describe("fopen fd", fileno(f));
	obs("fclose", fclose(f), errno);
	f = fopen64(DEV, "re");
	obs("fopen64", f != NULL, errno);
	obs("fclose", fclose(f), errno);
}

/* fds 0, 1, 2 are never kept: close(0); open("/dev/null") yields 0. */
static void test_fd0(void)
{
	int saved = dup(0), fd;

	fd = open(DEV, O_RDONLY);
	close(fd);
	close(0);
	fd = open("/dev/null", O_RDONLY);
	obs("close(0); open(/dev/null)", fd, errno);
	TU_CHECK(fd == 0, "got %d", fd);
	close(0);
	fd = open(DEV, O_RDONLY | O_CLOEXEC);   /* may or may not be 0 */
	TU_CHECK(fd >= 0, "open");
	if (fd == 0) {
		close(0);
		fd = open("/dev/null", O_RDONLY);
		TU_CHECK(fd == 0, "device on 0 was kept: got %d", fd);
	} else {
		TU_CHECK(dup2(fd, 0) == 0, "dup2 to 0");
		close(fd);
		close(0);
		fd = open("/dev/null", O_RDONLY);
		TU_CHECK(fd == 0, "device dup2'd to 0 was kept: got %d", fd);
	}
	dup2(saved, 0);
	close(saved);
}

static void test_close_range(void)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), p[2];
	char a[16];

	TU_CHECK(dup2(fd, 200) == 200 && dup2(fd, 201) == 201, "dup2");
	close(201);  /* possibly kept in reserve */
	close(fd);
	obs("close_range 200..300", close_range(200, 300, 0), errno);
	/* Everything there is free: what lands there must be read for real. */
	TU_CHECK(pipe(p) == 0, "pipe");
	TU_CHECK(dup2(p[0], 200) == 200 && dup2(p[0], 201) == 201, "dup2");
	TU_CHECK(write(p[1], "after-closerange", 16) == 16, "write");
	memset(a, 0, sizeof a);
	TU_CHECK(read(200, a, 16) == 16 && memcmp(a, "after-closerange", 16) == 0, "200 stale");
	TU_CHECK(write(p[1], "after-closerang2", 16) == 16, "write");
	TU_CHECK(read(201, a, 16) == 16 && memcmp(a, "after-closerang2", 16) == 0, "201 stale");
	close(p[0]);
	close(p[1]);
	fd = open(DEV, O_RDONLY);
	TU_CHECK(dup2(fd, 300) == 300, "dup2");
	close(300);
	closefrom(200);
	errno = 0;
	obs("read after closefrom", read(200, a, 16), errno);
	TU_CHECK(pipe(p) == 0 && dup2(p[0], 300) == 300, "pipe");
	TU_CHECK(write(p[1], "after-closefrom1", 16) == 16, "write");
	TU_CHECK(read(300, a, 16) == 16 && memcmp(a, "after-closefrom1", 16) == 0, "300 stale");
	close(300);
	close(p[0]);
	close(p[1]);
	obs("close_range CLOEXEC", close_range(fd, fd, CLOSE_RANGE_CLOEXEC), errno);
	describe("after close_range CLOEXEC", fd);
	close(fd);
}

/* A child's exit status, or -1. */
static int child_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* glibc calls that close or replace descriptors through internal calls:
 * freopen, daemon, and closefrom with a negative bound (all of them). */
static void test_internal_closers(void)
{
	char path[] = "/tmp/prog_urandom.XXXXXX", a[32];
	int fd, t, p[2];
	long r = -2;
	FILE *f;
	pid_t pid;

	t = mkstemp(path);
	TU_CHECK(t >= 0 && write(t, "freopen-target!!", 16) == 16, "temporary file");
	close(t);
	f = fopen("/dev/null", "r");
	fd = open(DEV, O_RDONLY);
	TU_CHECK(f && fd >= 0 && dup2(fd, fileno(f)) == fileno(f), "dup2 onto a stream");
	close(fd);
	f = freopen(path, "r", f);
	obs("freopen", f != NULL, errno);
	memset(a, 0, sizeof a);
	obs("read the freopen'd number", read(fileno(f), a, sizeof a), errno);
	TU_CHECK(memcmp(a, "freopen-target!!", 16) == 0, "the freopen'd number served the device");
	fclose(f);
	unlink(path);

	TU_CHECK(pipe(p) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		fd = open(DEV, O_RDONLY);
		if (fd < 0 || dup2(fd, 0) != 0 || close(fd) != 0 || daemon(1, 0) != 0)
			_exit(3);
		r = read(0, a, 16);  /* /dev/null now: end of file */
		_exit(write(p[1], &r, sizeof r) == sizeof r ? 0 : 4);
	}
	close(p[1]);
	obs("daemon: intermediate child", child_status(pid), 0);
	TU_CHECK(read(p[0], &r, sizeof r) == sizeof r, "daemon's child wrote nothing");
	obs("daemon: read(0) in the daemon", r, 0);
	TU_CHECK(r == 0, "read(0) after daemon gave %ld, not end of file", r);
	close(p[0]);

#ifdef __GLIBC__  /* musl 1.2.3 has no closefrom (h_musl_compat.h) */
	pid = fork();
	if (pid == 0) {
		int sv[2];

		fd = open(DEV, O_RDONLY | O_CLOEXEC);
		close(fd);  /* kept in reserve */
		closefrom(-1);
		if (open("/dev/null", O_RDONLY) != 0 ||
		    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 ||
		    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			_exit(3);
		fd = open(DEV, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fd == sv[0] || fd == sv[1])
			_exit(4);
		if (write(sv[1], "socket-data-1234", 16) != 16 || read(sv[0], a, 16) != 16 ||
		    memcmp(a, "socket-data-1234", 16) != 0)
			_exit(5);
		_exit(0);
	}
	t = child_status(pid);
	obs("closefrom(-1), then the numbers reused", t, 0);
	TU_CHECK(t == 0, "closefrom(-1) child: %d", t);
#endif
}

/* Each open has an open file description of its own: status flags and
 * flock locks are not shared with an earlier descriptor's dup, nor with a
 * forked child's copy. */
static void test_own_description(void)
{
	int fd, d, n, p[2], q[2];
	char c = 0;
	pid_t pid;

	fd = open(DEV, O_RDONLY | O_NONBLOCK);
	d = dup(fd);
	close(fd);
	n = open(DEV, O_RDONLY);
	describe("open after dup+close: the dup", d);
	describe("open after dup+close: the new one", n);
	obs("flock the dup", flock(d, LOCK_EX | LOCK_NB), errno);
	obs("flock the new one", flock(n, LOCK_EX | LOCK_NB), errno);
	close(n);
	close(d);

	fd = open(DEV, O_RDONLY);
	TU_CHECK(pipe(p) == 0 && pipe(q) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		int fl;

		/* until the parent has reopened the device */
		if (read(p[0], &c, 1) != 1)
			_exit(3);
		fl = fcntl(fd, F_GETFL);
		_exit(fl >= 0 && (fl & O_NONBLOCK) ? 1 : 0);
	}
	close(fd);
	n = open(DEV, O_RDONLY | O_NONBLOCK);
	TU_CHECK(write(p[1], &c, 1) == 1, "write");
	obs("forked child's copy after the parent's O_NONBLOCK open", child_status(pid), 0);
	describe("the parent's O_NONBLOCK open", n);
	close(n);
	for (int i = 0; i < 2; i++) {
		close(p[i]);
		close(q[i]);
	}
}

/* After close, exec must not inherit the device; a kept-open descriptor
 * without O_CLOEXEC must be inherited. */
static void test_exec(const char *self)
{
	int fd = open(DEV, O_RDONLY), keep, status;
	char a[16];
	pid_t pid;

	TU_CHECK(read(fd, a, 16) == 16, "read");
	close(fd);
	for (int pass = 0; pass < 2; pass++) {
		keep = pass ? open(DEV, O_RDONLY) : -1;
		pid = fork();
		if (pid == 0) {
			execl(self, self, "exec-child", (char *)NULL);
			_exit(99);
		}
		TU_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "wait");
		obs(pass ? "exec inherits an open device fd" : "exec after close: device fds",
		    WEXITSTATUS(status), 0);
		TU_CHECK(WEXITSTATUS(status) == pass, "child saw %d device fds", WEXITSTATUS(status));
		if (keep >= 0)
			close(keep);
	}
}

/* A record lock taken through one open, and another open of the device
 * closed: every close of a file drops the process's record locks on it
 * (fcntl(2)), also one that reserve mode keeps (fuzzer's defect 17).
 * Asked through an OFD query, which POSIX locks of this process conflict
 * with. */
static int test_locks(void)
{
	int a = open(DEV, O_RDONLY), b = open(DEV, O_RDONLY);
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	obs("F_SETLK F_RDLCK through the first open", fcntl(a, F_SETLK, &l), errno);
	obs("close the second open", close(b), errno);
	obs("F_OFD_GETLK F_WRLCK on the first", fcntl(a, F_OFD_GETLK, &q), errno);
	printf("a lock left after the close: %s\n", q.l_type == F_UNLCK ? "none" : "yes");
	b = open(DEV, O_RDONLY);
	obs("F_SETLK F_RDLCK again", fcntl(a, F_SETLK, &l), errno);
	obs("close the first open", close(a), errno);
	q.l_type = F_WRLCK;
	obs("F_OFD_GETLK F_WRLCK on a reopened one", fcntl(b, F_OFD_GETLK, &q), errno);
	printf("a lock left after that close: %s\n", q.l_type == F_UNLCK ? "none" : "yes");
	close(b);
	return 0;
}

/* A lock request through a pooled open whose struct is not there: the
 * kernel's EFAULT, not a fault in the preload that reads it first.  A
 * process of its own, the open still pooled. */
static int test_locks_null(void)
{
	int a = open(DEV, O_RDONLY), b = open(DEV, O_RDONLY);

	obs("F_SETLK with a NULL struct", fcntl(a, F_SETLK, NULL), errno);
	obs("F_SETLKW with a NULL struct", fcntl(b, F_SETLKW, NULL), errno);
	printf("after the close: none\n"); /* what t_urandom.sh looks for */
	close(a);
	close(b);
	return 0;
}

/* A write lock through a read-write open (never pooled) and its dup, then
 * a pooled open closed: the same rule (fuzzer's defect 12).  A process of
 * its own: no lock through a pooled open came first. */
static int test_locks_rw(void)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int a, b;

	{
		int w = open(DEV, O_RDWR), d = dup(w);

		a = open(DEV, O_RDONLY);
		obs("F_SETLK F_WRLCK through a read-write open's dup", fcntl(d, F_SETLK, &l), errno);
		obs("close a read-only open", close(a), errno);
		b = open(DEV, O_RDONLY);
		obs("F_OFD_GETLK F_WRLCK on another", fcntl(b, F_OFD_GETLK, &q), errno);
		printf("a write lock left after the close: %s\n", q.l_type == F_UNLCK ? "none" : "yes");
		close(b);
		close(d);
		close(w);
	}
	return 0;
}

/* lockf(3): the C library's own fcntl, under no wrapper of fcntl.  A lock
 * through a read-write open, after a close reserve mode keeps, and then a
 * close of another open, which natively drops it. */
static int test_locks_lockf(void)
{
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int a = open(DEV, O_RDONLY), w, b;
	char x[16];

	if (a < 0 || read(a, x, sizeof x) != (ssize_t)sizeof x)
		return 1;
	close(a);
	w = open(DEV, O_RDWR);
	obs("lockf F_LOCK through a read-write open", lockf(w, F_LOCK, 0), errno);
	b = open(DEV, O_RDONLY);
	obs("lockf F_TLOCK through a read-only open", lockf(b, F_TLOCK, 0), errno);
	obs("close a read-only open", close(b), errno);
	b = open(DEV, O_RDONLY);
	obs("F_OFD_GETLK F_WRLCK on another", fcntl(b, F_OFD_GETLK, &q), errno);
	printf("a write lock left after the close: %s\n", q.l_type == F_UNLCK ? "none" : "yes");
	close(b);
	close(w);
	return 0;
}

/* A read lock through a duplicate of a read-write open (never pooled),
 * made after a pooled open, then another, elsewhere, through that pooled
 * open: natively both stay, and so does the first after a close of
 * neither (seed 128 case 61993: exact mode's copy-on-write, made when the
 * second ended the pooling, dropped the first). */
static int test_locks_untracked(void)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_len = 10 };
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10 };
	int a = open(DEV, O_RDONLY), a2 = open(DEV, O_RDONLY), w = open(DEV, O_RDWR), d = dup(w), b;

	obs("F_SETLK F_RDLCK 0-9 through a read-write open's dup", fcntl(d, F_SETLK, &l), errno);
	l.l_start = 100;
	obs("F_SETLK F_RDLCK 100-109 through a pooled open", fcntl(a2, F_SETLK, &l), errno);
	b = open(DEV, O_RDONLY);
	obs("F_OFD_GETLK F_WRLCK 0-9 on another", fcntl(b, F_OFD_GETLK, &q), errno);
	printf("the first lock after the second: %s\n", q.l_type == F_UNLCK ? "gone" : "kept");
	close(b);
	close(d);
	close(w);
	close(a2);
	close(a);
	return 0;
}

/* A lock through a read-write open before any open fastpath would pool,
 * then a pooled open whose status flags change (exact mode's
 * copy-on-write), then its close: natively only that close drops it. */
static int test_locks_first(void)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int w = open(DEV, O_RDWR), a, b;

	obs("F_SETLK F_WRLCK through a read-write open", fcntl(w, F_SETLK, &l), errno);
	a = open(DEV, O_RDONLY);
	obs("F_SETFL O_NONBLOCK on a read-only open", fcntl(a, F_SETFL, O_NONBLOCK), errno);
	b = open(DEV, O_RDONLY);
	obs("F_OFD_GETLK F_WRLCK on another", fcntl(b, F_OFD_GETLK, &q), errno);
	printf("the lock after an F_SETFL: %s\n", q.l_type == F_UNLCK ? "gone" : "kept");
	obs("close the read-only open", close(a), errno);
	q.l_type = F_WRLCK;
	obs("F_OFD_GETLK F_WRLCK on another", fcntl(b, F_OFD_GETLK, &q), errno);
	printf("the lock after its close: %s\n", q.l_type == F_UNLCK ? "gone" : "kept");
	close(b);
	close(w);
	return 0;
}

static int test_locks_limit(void)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int b;

	{
		/* A close before the lock, and then an open at the limit:
		 * natively nothing closes a description of the device after
		 * the lock, so it stays (reserve mode gave its kept close back
		 * there, and that close dropped it). */
		struct rlimit old, low;
		int w, c, n;

		c = open(DEV, O_RDONLY);
		close(c);
		w = open(DEV, O_RDWR);
		l.l_type = F_WRLCK;
		obs("F_SETLK F_WRLCK through a read-write open", fcntl(w, F_SETLK, &l), errno);
		getrlimit(RLIMIT_NOFILE, &old);
		low = old;
		low.rlim_cur = (rlim_t)w + 1;
		for (n = 0; n < w; n++)
			if (fcntl(n, F_GETFD) < 0)
				low.rlim_cur = (rlim_t)n;
		setrlimit(RLIMIT_NOFILE, &low);
		n = open("/dev/null", O_RDONLY);  /* EMFILE natively */
		if (n >= 0)
			close(n);
		setrlimit(RLIMIT_NOFILE, &old);
		b = open(DEV, O_RDONLY);
		q.l_type = F_WRLCK;
		obs("F_OFD_GETLK F_WRLCK on another", fcntl(b, F_OFD_GETLK, &q), errno);
		printf("the write lock after an open at the limit: %s\n", q.l_type == F_UNLCK ? "gone" : "kept");
		close(b);
		close(w);
	}
	return 0;
}

/* Every descriptor of the device /proc/self/fd lists, at any number. */
static int count_listed(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL) {
		struct stat st;

		if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == makedev(1, 9))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* A thread cancelled in its first lock request through a pooled open
 * (F_SETLKW is a cancellation point, acted on before the lock): what
 * fastpath does there (the pooling ends) must not be left halfway. */
static void *cancel_lock(void *arg)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int *fd = arg, b;
	char x[16];

	fd[0] = open(DEV, O_RDONLY);
	b = open(DEV, O_RDONLY);
	if (read(fd[0], x, sizeof x) != (ssize_t)sizeof x || read(b, x, sizeof x) != (ssize_t)sizeof x)
		return NULL;
	close(b);
	pthread_cancel(pthread_self());
	fcntl(fd[0], F_SETLKW, &l);
	return NULL;
}

static int test_cancel_lock(const char *self)
{
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd[1] = { -1 }, b, status;
	pthread_t t;
	void *ret = NULL;
	char x[16];
	pid_t pid;

	pthread_create(&t, NULL, cancel_lock, fd);
	pthread_join(t, &ret);
	printf("thread cancelled: %s\n", ret == PTHREAD_CANCELED ? "yes" : "no");
	printf("descriptors of the device listed: %d\n", count_listed());
	obs("read the open the lock was asked through", read(fd[0], x, sizeof x), errno);
	b = open(DEV, O_RDONLY);
	obs("F_OFD_GETLK F_WRLCK on another", fcntl(b, F_OFD_GETLK, &q), errno);
	printf("a lock: %s\n", q.l_type == F_UNLCK ? "none" : "yes");
	printf("descriptors of the device listed: %d\n", count_listed());
	pid = fork();
	if (pid == 0) {
		execl(self, self, "exec-child", (char *)NULL);
		_exit(99);
	}
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		printf("an exec sees %d descriptors of the device\n", WEXITSTATUS(status));
	close(b);
	close(fd[0]);
	printf("descriptors of the device listed: %d\n", count_listed());
	return 0;
}

/* One thread's lock request through a pooled open ends the pooling, whose
 * closes (a reserve given back) libslow.so holds up; meanwhile the
 * main thread takes a write lock through a read-write open.  Natively no
 * close comes after that lock: it stays. */
static int split_race_fd, split_race_r, split_race_e;

static void *split_race_lock(void *arg)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 100, .l_len = 1 };

	(void)arg;
	split_race_r = fcntl(split_race_fd, F_SETLK, &l);
	split_race_e = errno;
	return NULL;
}

static int test_split_race(void)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	struct flock g = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	struct timespec t = { 0, 50000000 };
	char b[16];
	pthread_t th;
	int p = open(DEV, O_RDONLY), w, c;

	split_race_fd = open(DEV, O_RDONLY);
	if (p < 0 || split_race_fd < 0 || read(p, b, sizeof b) != (ssize_t)sizeof b ||
	    read(split_race_fd, b, sizeof b) != (ssize_t)sizeof b)
		return 1;
	close(p);  /* kept in reserve mode */
	w = open(DEV, O_RDWR);
	pthread_create(&th, NULL, split_race_lock, NULL);
	nanosleep(&t, NULL);
	obs("F_SETLK F_WRLCK through a read-write open", fcntl(w, F_SETLK, &l), errno);
	pthread_join(th, NULL);
	obs("F_SETLK F_RDLCK through a pooled open, in a thread", split_race_r, split_race_e);
	c = open(DEV, O_RDONLY);
	obs("F_OFD_GETLK F_WRLCK on another", fcntl(c, F_OFD_GETLK, &g), errno);
	printf("the write lock after the other thread's request: %s\n", g.l_type == F_UNLCK ? "gone" : "kept");
	return 0;
}

/* fork-split: a fork whose prepare handlers ran before another thread's
 * lock request ended the pooling, and whose system call came while that
 * request's closes were under way (tests/libslow.so holds them).
 * glibc's fork takes the stdio list lock after the handlers: a flusher
 * that holds it, waiting for a FILE a third thread holds, makes the gap. */
static FILE *fork_split_file;
static int fork_split_fd;

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&t, NULL);
}

static void *fork_split_holder(void *arg)
{
	(void)arg;
	flockfile(fork_split_file);
	sleep_ms(150);
	funlockfile(fork_split_file);
	return NULL;
}

static void *fork_split_flusher(void *arg)
{
	(void)arg;
	sleep_ms(10);
	fflush(NULL);
	return NULL;
}

static void *fork_split_locker(void *arg)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 100, .l_len = 1 };

	(void)arg;
	sleep_ms(50);
	return (void *)(intptr_t)fcntl(fork_split_fd, F_SETLK, &l);
}

static int test_fork_split(void)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 100, .l_len = 1 };
	pthread_t th[3];
	void *(*fn[3])(void *) = { fork_split_holder, fork_split_flusher, fork_split_locker };
	void *lr;
	char b[16], line[96];
	int p = open(DEV, O_RDONLY), st = 0, i, n;
	pid_t pid;

	fork_split_fd = open(DEV, O_RDONLY);
	fork_split_file = fopen("/dev/null", "w");
	if (p < 0 || fork_split_fd < 0 || !fork_split_file || read(p, b, sizeof b) != (ssize_t)sizeof b ||
	    read(fork_split_fd, b, sizeof b) != (ssize_t)sizeof b)
		return 1;
	close(p);  /* kept in reserve mode: the split gives it back */
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, fn[i], NULL);
	sleep_ms(20);
	pid = fork();
	if (pid == 0) {
		/* Long after the parent's closes (two of 200 ms at most). */
		sleep_ms(600);
		n = fcntl(fork_split_fd, F_SETLK, &l);
		n = snprintf(line, sizeof line, "child: lock request = %d, %d descriptors of the device\n",
		             n, count_listed());
		if (write(1, line, (size_t)n) != n)
			_exit(2);
		_exit(0);
	}
	for (i = 0; i < 3; i++)
		pthread_join(th[i], i == 2 ? &lr : NULL);
	printf("parent: lock request in a thread = %d\n", (int)(intptr_t)lr);
	fflush(stdout);
	for (i = 0; i < 50 && waitpid(pid, &st, WNOHANG) == 0; i++)
		sleep_ms(100);
	if (i == 50) {
		printf("child: hung 5 s\n");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	} else {
		printf("child: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	}
	return 0;
}

/* fork-closing: a fork in one thread while another thread's call makes
 * fastpath close a descriptor of its own, held up for 200 ms by
 * tests/libslow.so: an open at the descriptor limit that gives the
 * reserve back ("emfile", reserve mode), a soft limit raised over the
 * hidden descriptor, which retires it ("limit", exact mode).  The child
 * has no copy of what was being closed: natively there was none.
 * "reopened" (with SLOW_AFTER: the 200 ms come after the close): as
 * "emfile", but meanwhile this thread opens the device, which takes the
 * number just given back, and closes it, which keeps it as a reserve in
 * another slot; the child, forked while the give-back is still under
 * way, must keep that reserve (it closed it on f4edad6: the number went
 * to the child's next file, /dev/null, which its open of the device then
 * closed and replaced).  Only what any interleaving gives alike
 * is printed: the child's open and read of the device. */
static int fork_closing_limit;
static _Atomic int fork_closing_go;

static void *fork_closing_thread(void *arg)
{
	struct rlimit rl;

	(void)arg;
	/* the fork comes 50 ms after this, whatever the load */
	fork_closing_go = 1;
	if (fork_closing_limit) {
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		return (void *)(intptr_t)setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* the first takes the one number free; the second, natively the
	 * other, finds the table full under reserve mode, which gives the
	 * reserve back for it */
	return (void *)(intptr_t)((open("/dev/null", O_RDONLY) >= 0) + (open("/dev/null", O_RDONLY) >= 0));
}

static int test_fork_closing(const char *how)
{
	struct rlimit rl;
	char b[16], line[64];
	int q, p, st = 0, n = 0;
	pthread_t th;
	void *r;
	pid_t pid;

	/* The hidden descriptor sits above the soft limit: one it can have. */
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 1024;
	setrlimit(RLIMIT_NOFILE, &rl);
	q = open(DEV, O_RDONLY);
	p = open(DEV, O_RDONLY);
	fork_closing_limit = strcmp(how, "limit") == 0;
	if (q < 0 || p < 0 || read(q, b, sizeof b) != (ssize_t)sizeof b || read(p, b, sizeof b) != (ssize_t)sizeof b)
		return 1;
	close(p);
	if (!fork_closing_limit) {
		/* the table full but for two numbers, one of them the reserve
		 * of a close kept in reserve mode */
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = 32;
		setrlimit(RLIMIT_NOFILE, &rl);
		while (open("/dev/null", O_RDONLY) >= 0)
			n++;
		close(q + 1);
		close(q + 2);
		p = open(DEV, O_RDONLY);
		if (p < 0 || read(p, b, sizeof b) != (ssize_t)sizeof b)
			return 1;
		close(p);
	}
	pthread_create(&th, NULL, fork_closing_thread, NULL);
	while (!fork_closing_go)
		sched_yield();
	sleep_ms(50);
	if (strcmp(how, "reopened") == 0) {
		if ((p = open(DEV, O_RDONLY)) >= 0)
			close(p);
		pid = fork();
		if (pid == 0) {
			struct stat sn;
			ssize_t got;
			int nul;

			/* two numbers free, the lowest taken by another file */
			close(q + 3);
			close(q + 4);
			nul = open("/dev/null", O_RDONLY);
			p = open(DEV, O_RDONLY);
			got = p >= 0 ? read(p, b, sizeof b) : -1;
			n = snprintf(line, sizeof line, "child: the device %s, /dev/null %s\n",
			             got == (ssize_t)sizeof b ? "read" : got < 0 ? strerror(errno) : "short",
			             fstat(nul, &sn) == 0 && S_ISCHR(sn.st_mode) && sn.st_rdev == makedev(1, 3)
			                     ? "kept" : "lost");
			_exit(write(1, line, (size_t)n) != n);
		}
		pthread_join(th, &r);
		waitpid(pid, &st, 0);
		printf("child: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		close(q + 3);  /* a number for its look at /proc/self/fd */
		n = snprintf(line, sizeof line, "child: %d descriptors of the device\n", count_listed());
		_exit(write(1, line, (size_t)n) != n);
	}
	pthread_join(th, &r);
	waitpid(pid, &st, 0);
	printf("parent: the other thread's call = %d\n", (int)(intptr_t)r);
	printf("child: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	return 0;
}

/* split-place: one thread's open places a new hidden descriptor (the
 * first open since a fork retired the last) while another thread's lock
 * request ends the pooling; each round in a child process of its own.
 * The hidden descriptor must not outlive the end (open above the soft
 * limit, unrecorded: /proc/self/fd lists it), nor be closed after it. */
static pthread_barrier_t split_place_bar;
static int split_place_q;

static void *split_place_open(void *arg)
{
	char b[16];
	int fd;

	(void)arg;
	pthread_barrier_wait(&split_place_bar);
	fd = open(DEV, O_RDONLY);
	return (void *)(intptr_t)(fd >= 0 && read(fd, b, sizeof b) == (ssize_t)sizeof b);
}

static void *split_place_lock(void *arg)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 7, .l_len = 1 };

	(void)arg;
	pthread_barrier_wait(&split_place_bar);
	return (void *)(intptr_t)(fcntl(split_place_q, F_SETLK, &l) == 0);
}

static int split_place_round(void)
{
	struct flock g = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 7, .l_len = 1 };
	pthread_t a, b;
	void *ra, *rb;
	char x[16];
	pid_t pid;
	int c;

	split_place_q = open(DEV, O_RDONLY);
	if (split_place_q < 0 || read(split_place_q, x, sizeof x) != (ssize_t)sizeof x)
		return 0;
	pid = fork();  /* its parent step retires the hidden descriptor */
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	pthread_barrier_init(&split_place_bar, NULL, 2);
	pthread_create(&a, NULL, split_place_open, NULL);
	pthread_create(&b, NULL, split_place_lock, NULL);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	/* the lock still held (F_OFD_GETLK through another open sees it) */
	c = open(DEV, O_RDONLY);
	if (!ra || !rb || c < 0)
		return 0;
	if (fcntl(c, F_OFD_GETLK, &g) != 0 || g.l_type != F_RDLCK)
		return 1;
	return count_listed();  /* 3 natively: q, the thread's open, c */
}

static int test_split_place(int rounds)
{
	int i, st, seen[8] = { 0 };
	struct rlimit rl;

	/* The hidden descriptor sits above the soft limit: one it can have. */
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 1024;
	setrlimit(RLIMIT_NOFILE, &rl);

	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(split_place_round());
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) < 8)
			seen[WEXITSTATUS(st)]++;
	}
	for (i = 0; i < 8; i++)
		if (seen[i] && i < 2)
			printf("%s: %d of %d rounds\n", i ? "the lock dropped" : "a call failed", seen[i], rounds);
		else if (seen[i])
			printf("the lock held, %d descriptors of the device: %d of %d rounds\n", i, seen[i], rounds);
	return 0;
}

/* split-setfl: opens made while another thread's lock request ends the
 * pooling, whose copies (each pooled open's own description, made before
 * it forgets them) tests/libslow.so holds up: after it, a change
 * of one open's status flags reaches no other open, as natively. */
static int split_setfl_fd;

static void *split_setfl_lock(void *arg)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 3, .l_len = 1 };

	(void)arg;
	return (void *)(intptr_t)fcntl(split_setfl_fd, F_SETLK, &l);
}

static int test_split_setfl(void)
{
	pthread_t th;
	void *r;
	char b[16];
	int n0 = open("/dev/null", O_RDONLY), n1 = open("/dev/null", O_RDONLY), x, y;

	/* the opens below the numbers the end's copies are at */
	split_setfl_fd = open(DEV, O_RDONLY);
	if (n0 < 0 || n1 < 0 || split_setfl_fd < 0 || read(split_setfl_fd, b, sizeof b) != (ssize_t)sizeof b)
		return 1;
	pthread_create(&th, NULL, split_setfl_lock, NULL);
	sleep_ms(50);
	close(n0);
	close(n1);
	x = open(DEV, O_RDONLY);
	y = open(DEV, O_RDONLY);
	pthread_join(th, &r);
	obs("F_SETLK in the other thread", (long)(intptr_t)r, 0);
	obs("F_SETFL O_NONBLOCK on one open", fcntl(x, F_SETFL, O_NONBLOCK), errno);
	printf("O_NONBLOCK on the other: %s\n", fcntl(y, F_GETFL) & O_NONBLOCK ? "yes" : "no");
	return 0;
}

/* split-open: an exact-mode open duplicates the hidden descriptor (the
 * duplicate held up by tests/libslow.so, SLOW_DUP) while another thread's
 * lock request ends the pooling and takes its lock: the open returns the
 * device, and the lock stays, as natively. */
static int split_open_fd;

static void *split_open_lock(void *arg)
{
	struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 9, .l_len = 1 };

	(void)arg;
	sleep_ms(50);
	return (void *)(intptr_t)fcntl(split_open_fd, F_SETLK, &l);
}

static int test_split_open(void)
{
	struct flock g = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 9, .l_len = 1 };
	pthread_t th;
	void *r;
	char b[16];
	int x, c;

	split_open_fd = open(DEV, O_RDONLY);
	if (split_open_fd < 0 || read(split_open_fd, b, sizeof b) != (ssize_t)sizeof b)
		return 1;
	pthread_create(&th, NULL, split_open_lock, NULL);
	x = open(DEV, O_RDONLY);
	pthread_join(th, &r);
	obs("F_SETLK in the other thread", (long)(intptr_t)r, 0);
	obs("the open, read", x < 0 ? -1 : read(x, b, sizeof b), errno);
	c = open(DEV, O_RDONLY);
	obs("F_OFD_GETLK F_WRLCK on another", fcntl(c, F_OFD_GETLK, &g), errno);
	printf("the lock after the open: %s\n", g.l_type == F_UNLCK ? "gone" : "kept");
	return 0;
}

/* A threaded parent's fork children, each opening the device once (a
 * thirteenth cold review: 10 ms a child in exact mode, its first pooled
 * open placed through a child sharing its table). */
static void *fork_threaded_idle(void *arg)
{
	pause();
	return arg;
}

static int fork_threaded(int n)
{
	pthread_t t;
	char b[16];

	close(open(DEV, O_RDONLY));
	if (pthread_create(&t, NULL, fork_threaded_idle, NULL) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		int st = 1;

		if (p == 0) {
			int fd = open(DEV, O_RDONLY);

			_exit(fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b || close(fd) != 0);
		}
		if (p < 0 || waitpid(p, &st, 0) != p || st != 0)
			return 1;
	}
	printf("%d children\n", n);
	return 0;
}

static sigjmp_buf fj_env;
static volatile sig_atomic_t fj_in;

static void fj_handler(int sig)
{
	(void)sig;
	if (fj_in) {
		fj_in = 0;
		siglongjmp(fj_env, 1);
	}
}

/* One process: 1 where a descriptor the jump left shares the next open's
 * description (review 38: the first open's copy, unrecorded). */
static int first_jump_one(void)
{
	struct sigaction sa = { .sa_handler = fj_handler, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 10 }, { 0, 10 } }, none = { { 0, 0 }, { 0, 0 } };
	volatile int fd = -1;
	int b;

	sigaction(SIGALRM, &sa, NULL);
	/* A real open first (O_NONBLOCK): the mitigation set up, no pool. */
	close(open(DEV, O_RDONLY | O_NONBLOCK));
	setitimer(ITIMER_REAL, &it, NULL);
	if (sigsetjmp(fj_env, 1) == 0) {
		fj_in = 1;
		fd = open(DEV, O_RDONLY);
		fj_in = 0;
	}
	setitimer(ITIMER_REAL, &none, NULL);
	for (int n = 3; n < 1024; n++) {
		char p[64], l[64];
		ssize_t k;

		snprintf(p, sizeof p, "/proc/self/fd/%d", n);
		if (n != fd && (k = readlink(p, l, sizeof l - 1)) > 0 && (l[k] = 0, strcmp(l, DEV) == 0))
			fcntl(n, F_SETFL, O_NONBLOCK);
	}
	b = open(DEV, O_RDONLY);
	return b >= 0 && (fcntl(b, F_GETFL) & O_NONBLOCK) ? 1 : 0;
}

static int first_jump(int n)
{
	int shared = 0;

	for (int i = 0; i < n; i++) {
		int st = 0;
		pid_t p = fork();

		if (p == 0)
			_exit(first_jump_one());
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
			return printf("child failed\n"), 1;
		shared += WEXITSTATUS(st) == 1;
	}
	printf("shared %d of %d\n", shared, n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "first-jump") == 0)
		return first_jump(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "fork-threaded") == 0)
		return fork_threaded(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0)
		return count_device_fds();
	if (argc > 1 && strcmp(argv[1], "locks") == 0)
		return test_locks();
	if (argc > 1 && strcmp(argv[1], "locks-rw") == 0)
		return test_locks_rw();
	if (argc > 1 && strcmp(argv[1], "locks-lockf") == 0)
		return test_locks_lockf();
	if (argc > 1 && strcmp(argv[1], "locks-limit") == 0)
		return test_locks_limit();
	if (argc > 1 && strcmp(argv[1], "locks-untracked") == 0)
		return test_locks_untracked();
	if (argc > 1 && strcmp(argv[1], "locks-first") == 0)
		return test_locks_first();
	if (argc > 1 && strcmp(argv[1], "split-race") == 0)
		return test_split_race();
	if (argc > 1 && strcmp(argv[1], "fork-split") == 0)
		return test_fork_split();
	if (argc > 2 && strcmp(argv[1], "fork-closing") == 0)
		return test_fork_closing(argv[2]);
	if (argc > 1 && strcmp(argv[1], "split-open") == 0)
		return test_split_open();
	if (argc > 1 && strcmp(argv[1], "split-setfl") == 0)
		return test_split_setfl();
	if (argc > 2 && strcmp(argv[1], "split-place") == 0)
		return test_split_place(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "cancel-lock") == 0)
		return test_cancel_lock(argv[0]);
	if (argc > 1 && strcmp(argv[1], "locks-null") == 0)
		return test_locks_null();
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_open_forms();
	test_reads();
	test_dups();
	test_fdopen_socket();
	test_fd0();
	test_close_range();
	test_internal_closers();
	test_own_description();
	test_exec(argv[0]);
	return tu_finish();
}
