/* SPDX-License-Identifier: MIT */
/*
 * prog_vfork CASE: a vfork child does something to a descriptor of the
 * device (or to the table) and exits; the parent prints what it can see
 * afterwards.  t_urandom runs each case natively and under fastpath in
 * each mode and wants the same lines: a vfork child's table is its own,
 * so nothing it does to it may show in its parent.
 *
 *   close    the child closes the parent's open: the parent still reads
 *            it, and a second open and both closes work
 *   setfl    the same, then the parent makes its open non-blocking and
 *            locks it: a fresh open is neither
 *   dup      the child closes 0 and dups the open onto it: the parent's
 *   dupfd    stdin (a pipe) still reads as the pipe (dup, F_DUPFD)
 *   open     the parent opens and closes the device, the child opens it;
 *            the parent then execs "list", which prints its descriptors
 *   unshare  the same with the child's unshare(CLONE_FILES)
 *   setfd    the child clears close-on-exec on the parent's open; the
 *            parent's still has it, and after a close an open without
 *            O_CLOEXEC is inherited by the exec'd "list"
 *   full     the parent opens and closes the device, lowers its soft limit
 *            to leave one number free, and the child opens /dev/null:
 *            it gets one, and the parent's open of the device after
 *            still does (on c194670 the child's open there forgot the
 *            parent's reserve: EMFILE in the parent, reserve mode)
 *   dup2exec the parent opens the device and /dev/null, and closes the
 *   rangeexec device; the child dups that onto the number closed (or close_ranges
 *            it and opens /dev/null) and execs "list": the file there is
 *            the child's and reaches the new program (reserve mode lost
 *            it to a close-on-exec of the number the parent's reserve
 *            held there: a fifth cold review)
 *   baddup2exec the same with a dup2 that fails (EBADF): nothing reaches
 *            the new program there (fd_fuzz seed 301 case 22784 on 262d79d)
 *   limit    the parent opens and closes the device; the child opens
 *            /dev/null until EMFILE and prints how many (a cold review:
 *            its give-back closed the parent's slot's number, its own
 *            file after the first, and the loop never ended)
 *   dup2on   the child dups a file onto the number closed, then sets its
 *            flag, dups it and closes it: each succeeds (a cold review:
 *            EBADF, the number being the parent's reserve to us)
 *   nest     the child vforks a grandchild that execs "list", then execs
 *            "list" itself: neither gets the number closed (a cold
 *            review: the grandchild's guard cleared the child's note)
 *   nestdup2 the child vforks a grandchild that dups a file onto the
 *            number closed and exits; the child execs "list": the number
 *            stays closed there (a cold review: the grandchild's dup2
 *            dropped the child's note, and its exec passed the reserve)
 *   nestuse  the grandchild dups a file onto the number closed, reads
 *            it, reads its flag, closes it, dups it again and execs
 *            "list"; the child then execs "list": each call succeeds, the
 *            file reaches the grandchild's program and not the child's
 *            (a cold review's nestread: EBADF, and the file lost)
 *   nestlimit the grandchild opens /dev/null until EMFILE and prints how
 *            many (one fewer than native: its give-back was the child's)
 *   taken    while the child runs, another thread of the parent opens
 *            the device (taking the reserve); the child's F_GETFD and
 *            close of the number closed are EBADF (a cold review: 0 and
 *            0, the child going by the parent's records of now, and a
 *            file it opened there after was lost at its exec)
 *   forkin   the child dups a file onto the number closed and forks; the
 *            fork's child reads it, opens the device and execs "list":
 *            the file is there and the open lands elsewhere (a tenth cold
 *            review: EBADF, then the open on the file's number)
 *   depth3   the same dup2 in a vfork child's vfork child's vfork child
 *            (reads, then execs "list")
 *   clonefiles the dup2 in a clone(CLONE_VM | CLONE_FILES | CLONE_VFORK)
 *            task of the child, which then reads and execs "list"
 *   openfork the parent's open stays; the child closes it, opens /dev/null
 *            there and forks: the fork's child reads the file (exact mode
 *            served it the device's bytes)
 *   raise    the parent's soft limit 1024 where the hard one is above,
 *            its open of the device stays; the child raises its own soft
 *            limit by 64, then dups a file onto the 8 numbers from the
 *            old one, reads each one's flag and closes it: each succeeds,
 *            and the parent's open still reads (an fd_fuzz vfork step:
 *            exact mode's hidden number answered EBADF after the dup2)
 *   nestraise the same limit; the child's vfork child raises its own and
 *            exits: the child's F_GETFD, read and close of the number at
 *            its limit are EBADF (a twenty-third cold review: its copy of
 *            the hidden descriptor read the device)
 *   raisefork the child raises, dups a pipe onto the old limit and forks:
 *            the fork's child writes the pipe there (it was closed)
 *   clonevmraise a clone(CLONE_VM) child raises and dups stdout onto the
 *            old limit while the parent opens the device again and
 *            vforks: its F_GETFD and close of the number succeed
 *   forkonly the parent's open stays; the child forks a child that exits:
 *            the parent counts the numbers at and above its soft limit
 *            F_GETFD says are open (none: exact mode's hidden one showed,
 *            the child's fork having dropped it from the parent's records)
 *   cloneexec the parent opens and closes the device; a clone(SIGCHLD)
 *   cloneopen child (memory and table of its own: a fork's) execs "list"
 *            (after its own open of the device): no device there (one)
 *            (a cold review's cloneplain: the reserve reached it)
 *   clonestack the parent opens and closes the device; a clone(SIGCHLD)
 *            child on 256 bytes of stack (a guard page below) returns 7:
 *            no code of ours may run there first (a cold review: a
 *            trampoline of ours crashed it)
 *   clonedup2 the clone(SIGCHLD) child dups a file onto the number closed,
 *            reads it and execs "list": the file is there (a twelfth cold
 *            review: EBADF, and its exec guard closed it)
 *   clonethread the same dup2, then a thread of the clone child reads the
 *            number and opens the device (threads made there start without
 *            the mark the cloning thread left: they went by the records)
 *   clonerace 200 clone(SIGCHLD) children while 3 threads open, dup,
 *            read, set O_NONBLOCK on and close the device (copies under
 *            way at the clone): each child opens the device, then a thread
 *            of its reads it, or (every second child) a fork's child; the
 *            children whose own descriptor failed (a sixteenth cold review:
 *            closed as another thread's copy, 17 of 300)
 *   cycles   1000 open/read/close cycles, a vfork child that only exits,
 *            1000 more (t_urandom counts the system calls in reserve mode)
 *   list     prints this process's descriptors (the exec'd side)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *self;

static int dev(int flags)
{
	int fd = open("/dev/urandom", O_RDONLY | flags);

	if (fd < 0) {
		perror("open /dev/urandom");
		exit(2);
	}
	return fd;
}

static ssize_t rd16(int fd)
{
	char b[16];

	return read(fd, b, sizeof b);
}

/* Runs what(arg) in a vfork child, which then exits. */
static void in_child(void (*what)(int), int arg)
{
	pid_t p = vfork();

	if (p == 0) {
		what(arg);
		_exit(0);
	}
	if (p < 0 || waitpid(p, NULL, 0) != p) {
		perror("vfork");
		exit(2);
	}
}

static void c_none(int fd) { (void)fd; }
static void c_close(int fd) { close(fd); }
static void c_dup(int fd) { close(0); (void)!dup(fd); }
static void c_dupfd(int fd) { close(0); (void)!fcntl(fd, F_DUPFD, 0); }
static void c_open(int fd) { (void)fd; (void)!open("/dev/urandom", O_RDONLY); }
static void c_unshare(int fd) { (void)fd; (void)!unshare(CLONE_FILES); }
static void c_setfd(int fd) { (void)!fcntl(fd, F_SETFD, 0); }
static int closed_fd;
static void c_dup2exec(int fd) { (void)!dup2(fd, closed_fd); execl(self, self, "list", (char *)NULL); }
static void c_baddup2exec(int fd) { (void)!dup2(fd + 900, closed_fd); execl(self, self, "list", (char *)NULL); }
static void c_rangeexec(int fd)
{
	(void)!close_range((unsigned)closed_fd, (unsigned)closed_fd, 0);
	(void)!open("/dev/null", O_RDONLY + 0 * fd);
	execl(self, self, "list", (char *)NULL);
}
static void c_limit(int fd)
{
	char b[64];
	int n = 0;

	while (open("/dev/null", O_RDONLY) >= 0 && n < 100000)
		n++;
	_exit(write(1, b, (size_t)snprintf(b, sizeof b, "child: %d opens, then %s\n", n,
	                                   n < 100000 ? strerror(errno) : "none")) < 0 + 0 * fd);
}
static void c_dup2on(int fd)
{
	char b[128];
	int r[4];

	r[0] = dup2(fd, closed_fd);
	r[1] = fcntl(closed_fd, F_SETFD, FD_CLOEXEC);
	r[2] = dup2(closed_fd, 9) == 9;
	r[3] = close(closed_fd);
	_exit(write(1, b, (size_t)snprintf(b, sizeof b, "child: dup2 %d, F_SETFD %d, dup2 on %d, close %d\n",
	                                   r[0] == closed_fd, r[1], r[2], r[3])) < 0);
}
static void c_nest(int fd)
{
	pid_t g = vfork();

	if (g == 0)
		execl(self, self, "list", (char *)NULL);
	if (g > 0)
		waitpid(g, NULL, 0);
	execl(self, self, "list", (char *)NULL + 0 * fd);
}
static void c_nestdup2(int fd)
{
	pid_t g = vfork();

	if (g == 0) {
		(void)!dup2(fd, closed_fd);
		_exit(0);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
	execl(self, self, "list", (char *)NULL);
}
static void c_nestuse(int fd)
{
	pid_t g = vfork();

	if (g == 0) {
		char b[128], c;
		int r[4];

		r[0] = dup2(fd, closed_fd) == closed_fd;
		r[1] = (int)read(closed_fd, &c, 1);
		r[2] = fcntl(closed_fd, F_GETFD);
		r[3] = close(closed_fd);
		if (write(1, b, (size_t)snprintf(b, sizeof b, "grandchild: dup2 %d, read %d, F_GETFD %d, close %d\n",
		                                  r[0], r[1], r[2], r[3])) < 0 || dup2(fd, closed_fd) < 0)
			_exit(2);
		execl(self, self, "list", (char *)NULL);
		_exit(2);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
	execl(self, self, "list", (char *)NULL);
}
static void c_nestlimit(int fd) { in_child(c_limit, fd); }
static void say3(const char *what, int a, int b, int c)
{
	char m[160];

	if (write(1, m, (size_t)snprintf(m, sizeof m, "%s %d %d %d\n", what, a, b, c)) < 0)
		_exit(2);
}
static void c_raise_by(int by)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur += (rlim_t)by;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}
static void c_exit(int unused) { _exit(unused); }
static void c_raiser(int unused) { (void)unused; c_raise_by(64); }
static void c_nestraise(int lim)
{
	char b[4];
	int fl, rd;

	in_child(c_raiser, 0);
	fl = fcntl(lim, F_GETFD);
	rd = (int)read(lim, b, 4);
	say3("child at its limit: F_GETFD, read, close", fl, rd, close(lim));
}
static void c_raisefork(int lim)
{
	int pf[2], st = 0;
	pid_t p;

	if (pipe(pf))
		_exit(2);
	c_raise_by(64);
	if (dup2(pf[1], lim) != lim)
		_exit(3);
	if ((p = fork()) == 0)
		_exit(fcntl(lim, F_GETFD) == 0 && write(lim, "x", 1) == 1 ? 0 : 4);
	say3("fork child of the child: status, F_GETFD", p > 0 && waitpid(p, &st, 0) == p ? st : -1,
	     fcntl(lim, F_GETFD), 0);
}
static int cv_lim;
static _Atomic int cv_ready, cv_go;
static int c_clonevm(void *unused)
{
	(void)unused;
	c_raise_by(64);
	if (dup2(1, cv_lim) != cv_lim)
		_exit(3);
	atomic_store(&cv_ready, 1);
	while (!atomic_load(&cv_go))
		;
	int fl = fcntl(cv_lim, F_GETFD);

	say3("clone child at the old limit: F_GETFD, close", fl, close(cv_lim), 0);
	return 0;
}
static void c_raise(int fd)
{
	struct rlimit rl;
	char b[160];
	int was = 0, dups = 0, fl = 0, closes = 0, raised = -1;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur + 64 <= rl.rlim_max) {
		int old = (int)rl.rlim_cur;

		rl.rlim_cur += 64;
		raised = setrlimit(RLIMIT_NOFILE, &rl);
		for (int i = old; i < old + 8; i++) {
			was += fcntl(i, F_GETFD) >= 0;
			dups += dup2(fd, i) == i;
			fl += fcntl(i, F_GETFD) == 0;
			closes += close(i) == 0;
		}
	}
	_exit(write(1, b, (size_t)snprintf(b, sizeof b, "child: raise %d, open before %d, dup2 %d, F_GETFD %d, close %d\n",
	                                   raised, was, dups, fl, closes)) < 0);
}
static int clone_exec(void *open_dev)
{
	if (open_dev)
		(void)!open("/dev/urandom", O_RDONLY);
	execl(self, self, "list", (char *)NULL);
	_exit(2);
}
static void use(const char *who, int n)
{
	char b[128], c;
	int r = (int)read(n, &c, 1), e = errno, g = fcntl(n, F_GETFD);

	(void)!write(1, b, (size_t)snprintf(b, sizeof b, "%s: read %d %s, F_GETFD %d\n", who, r,
	                                     r < 0 ? strerror(e) : "", g));
}
static void c_forkin(int fd)
{
	pid_t g;

	(void)!dup2(fd, closed_fd);
	if ((g = fork()) == 0) {
		char b[64];
		int d = open("/dev/urandom", O_RDONLY);

		use("fork child", closed_fd);
		(void)!write(1, b, (size_t)snprintf(b, sizeof b, "fork child: the device opened %s\n",
		                                     d == closed_fd ? "on the file" : "elsewhere"));
		execl(self, self, "list", (char *)NULL);
		_exit(2);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
	execl(self, self, "list", (char *)NULL);
}
static void c_depth3(int fd)
{
	pid_t g = vfork();

	if (g == 0) {
		pid_t h = vfork();

		if (h == 0) {
			(void)!dup2(fd, closed_fd);
			use("third vfork child", closed_fd);
			execl(self, self, "list", (char *)NULL);
			_exit(2);
		}
		_exit(h > 0 && waitpid(h, NULL, 0) == h ? 0 : 2);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
}
static int files_fn(void *fd) { return dup2(*(int *)fd, closed_fd) < 0; }
static void c_clonefiles(int fd)
{
	static char stack[65536];
	pid_t g = clone(files_fn, stack + sizeof stack, CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD, &fd);

	if (g > 0)
		waitpid(g, NULL, 0);
	use("child", closed_fd);
	execl(self, self, "list", (char *)NULL);
}
static void c_openfork(int fd)
{
	pid_t g;

	close(fd);
	(void)!open("/dev/null", O_RDONLY);
	if ((g = fork()) == 0) {
		use("fork child", fd);
		_exit(0);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
}
static void c_forkonly(int fd)
{
	pid_t g = fork();

	if (g == 0)
		_exit(0);
	if (g > 0)
		waitpid(g, NULL, 0);
	(void)fd;
}
static int seven(void *arg) { return 7 + 0 * !arg; }
static int clone_dup2(void *fd)
{
	(void)!dup2(*(int *)fd, closed_fd);
	use("clone child", closed_fd);
	execl(self, self, "list", (char *)NULL);
	_exit(2);
}
static void *ct_thread(void *arg)
{
	int d;

	use("clone child's thread", closed_fd);
	d = open("/dev/urandom", O_RDONLY);
	use("its open", d);
	close(d);
	return arg;
}
static int clone_thread(void *fd)
{
	pthread_t t;

	(void)!dup2(*(int *)fd, closed_fd);
	if (pthread_create(&t, NULL, ct_thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		_exit(2);
	use("clone child", closed_fd);
	execl(self, self, "list", (char *)NULL);
	_exit(2);
}
static int tk_go[2], tk_done[2];
static void *tk_opener(void *arg)
{
	char c;

	if (read(tk_go[0], &c, 1) == 1 && open("/dev/urandom", O_RDONLY) >= 0)
		(void)!write(tk_done[1], "x", 1);
	return arg;
}
static void c_taken(int fd)
{
	char b[128], c;
	int r1, e1, r2, e2;

	if (write(tk_go[1], "x", 1) != 1 || read(tk_done[0], &c, 1) != 1)
		_exit(2);
	r1 = fcntl(closed_fd, F_GETFD), e1 = errno;
	r2 = close(closed_fd), e2 = errno;
	_exit(write(1, b, (size_t)snprintf(b, sizeof b, "child: F_GETFD %d %s, close %d %s\n", r1,
	                                   strerror(r1 < 0 ? e1 : 0), r2, strerror(r2 < 0 ? e2 : 0))) < 0 + 0 * fd);
}
static void c_full(int fd) { _exit(open("/dev/null", O_RDONLY) >= 0 ? 0 : 1 + 0 * fd); }

static void list(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], to[256];

	if (!d) {
		perror("/proc/self/fd");
		exit(2);
	}
	while ((e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		n = readlink(path, to, sizeof to - 1);
		to[n > 0 ? n : 0] = 0;
		/* What, not where: reserve mode's documented difference is
		 * the number an open gets. */
		printf("open: %s\n", to);
	}
	closedir(d);
	printf("listed\n");
}

static void exec_list(void)
{
	fflush(stdout);
	execl(self, self, "list", (char *)NULL);
	perror("execl");
	exit(2);
}

/* ---- clonerace ---------------------------------------------------------- */
static volatile int cr_stop;

static void *cr_busy(void *unused)
{
	char b[16];

	while (!cr_stop) {
		int fd = open("/dev/urandom", O_RDONLY), d = dup(fd);

		if (read(d, b, sizeof b) < 0)
			b[0] = 0;
		fcntl(fd, F_SETFL, O_NONBLOCK);
		close(fd);
		close(d);
	}
	return unused;
}

static void *cr_read(void *p)
{
	char b[16];

	return (void *)(long)read((int)(long)p, b, sizeof b);
}

static int cr_child(void *how)
{
	int fd = open("/dev/urandom", O_RDONLY), st = 0;
	pthread_t t;
	void *r = NULL;
	pid_t g;
	char b[16];

	if (fd < 0)
		_exit(2);
	if (how) {
		if ((g = fork()) == 0)
			_exit(read(fd, b, sizeof b) == (ssize_t)sizeof b ? 0 : 1);
		_exit(g > 0 && waitpid(g, &st, 0) == g && WIFEXITED(st) ? WEXITSTATUS(st) : 3);
	}
	if (pthread_create(&t, NULL, cr_read, (void *)(long)fd) || pthread_join(t, &r))
		_exit(4);
	_exit((long)r == (long)sizeof b ? 0 : 1);
}

static int clonerace(int n)
{
	static char stack[256 << 10] __attribute__((aligned(16)));
	pthread_t t[3];
	int bad = 0, st;

	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, cr_busy, NULL))
			return 2;
	for (int i = 0; i < n; i++) {
		pid_t p = clone(cr_child, stack + sizeof stack, SIGCHLD, (void *)(long)(i & 1));

		if (p < 0 || waitpid(p, &st, 0) != p)
			return 2;
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	cr_stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("clonerace: %d children, %d whose own descriptor failed\n", n, bad);
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int fd, fd2, p[2];

	self = argv[0];
	if (!strcmp(c, "list")) {
		list();
	} else if (!strcmp(c, "close") || !strcmp(c, "setfl")) {
		fd = dev(0);
		in_child(c_close, fd);
		printf("read after the child's close: %zd\n", rd16(fd));
		if (!strcmp(c, "setfl")) {
			printf("F_SETFL: %d\n", fcntl(fd, F_SETFL, O_NONBLOCK));
			printf("flock: %d\n", flock(fd, LOCK_EX | LOCK_NB));
		}
		fd2 = dev(0);
		printf("a fresh open: non-blocking %d\n", !!(fcntl(fd2, F_GETFL) & O_NONBLOCK));
		printf("its flock: %d\n", flock(fd2, LOCK_EX | LOCK_NB));
		printf("close: %d %d\n", close(fd), close(fd2));
	} else if (!strcmp(c, "dup") || !strcmp(c, "dupfd")) {
		char b[64] = { 0 };

		if (pipe(p) != 0 || dup2(p[0], 0) != 0 || write(p[1], "hello\n", 6) != 6)
			return 2;
		fd = dev(0);
		in_child(!strcmp(c, "dup") ? c_dup : c_dupfd, fd);
		printf("stdin reads %zd: %s", read(0, b, sizeof b - 1), b);
		printf("close: %d\n", close(fd));
	} else if (!strcmp(c, "open") || !strcmp(c, "unshare")) {
		fd = dev(0);
		close(fd);
		in_child(!strcmp(c, "open") ? c_open : c_unshare, 0);
		(void)!open("/dev/null", O_RDONLY);
		exec_list();
	} else if (!strcmp(c, "dup2exec") || !strcmp(c, "baddup2exec") || !strcmp(c, "rangeexec")) {
		/* /dev/null first: natively it would take the number closed */
		closed_fd = dev(0);
		fd = open("/dev/null", O_RDONLY);
		close(closed_fd);
		fflush(stdout);
		in_child(!strcmp(c, "dup2exec") ? c_dup2exec : !strcmp(c, "rangeexec") ? c_rangeexec
		                                                                         : c_baddup2exec, fd);
	} else if (!strcmp(c, "limit") || !strcmp(c, "dup2on") || !strcmp(c, "nest") ||
	           !strcmp(c, "nestdup2") || !strcmp(c, "nestuse") || !strcmp(c, "nestlimit") ||
	           !strcmp(c, "forkin") || !strcmp(c, "depth3") || !strcmp(c, "clonefiles")) {
		closed_fd = dev(0);
		fd = open("/dev/null", O_RDONLY);
		close(closed_fd);
		fflush(stdout);
		in_child(!strcmp(c, "limit")    ? c_limit
		         : !strcmp(c, "dup2on") ? c_dup2on
		         : !strcmp(c, "nest")   ? c_nest
		         : !strcmp(c, "nestuse") ? c_nestuse
		         : !strcmp(c, "nestlimit") ? c_nestlimit
		         : !strcmp(c, "forkin") ? c_forkin
		         : !strcmp(c, "depth3") ? c_depth3
		         : !strcmp(c, "clonefiles") ? c_clonefiles
		                                : c_nestdup2,
		         fd);
	} else if (!strcmp(c, "nestraise") || !strcmp(c, "raisefork") || !strcmp(c, "clonevmraise")) {
		static char stack[65536];
		struct rlimit rl;
		int lim = -1;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > 1024 + 64 && rl.rlim_cur > 1024) {
			rl.rlim_cur = 1024;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur + 64 <= rl.rlim_max)
			lim = (int)rl.rlim_cur;
		closed_fd = dev(0);
		printf("parent read %zd\n", rd16(closed_fd));
		fflush(stdout);
		if (lim < 0) {
			printf("no room above the soft limit\n");
		} else if (c[0] == 'n') {
			in_child(c_nestraise, lim);
		} else if (c[0] == 'r') {
			in_child(c_raisefork, lim);
		} else {
			pid_t p;

			cv_lim = lim;
			if ((p = clone(c_clonevm, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL)) < 0)
				return 2;
			while (!atomic_load(&cv_ready))
				;
			close(dev(0));
			in_child(c_exit, 0);
			atomic_store(&cv_go, 1);
			if (waitpid(p, NULL, 0) != p)
				return 2;
		}
		printf("parent read %zd\n", rd16(closed_fd));
	} else if (!strcmp(c, "raise")) {
		struct rlimit rl;
		int n = 0;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > 1024 + 64 && rl.rlim_cur > 1024) {
			rl.rlim_cur = 1024;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
		closed_fd = dev(0);
		fd = open("/dev/null", O_RDONLY);
		printf("parent read %zd\n", rd16(closed_fd));
		fflush(stdout);
		in_child(c_raise, fd);
		printf("parent read %zd\n", rd16(closed_fd));
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return 2;
		for (rlim_t i = rl.rlim_cur; i < rl.rlim_cur + 4096 && i < 1u << 20; i++)
			n += fcntl((int)i, F_GETFD) >= 0;
		printf("open at or above the soft limit: %d\n", n);
	} else if (!strcmp(c, "openfork") || !strcmp(c, "forkonly")) {
		struct rlimit rl;
		int n = 0;

		fd = dev(0);
		fflush(stdout);
		in_child(c[0] == 'o' ? c_openfork : c_forkonly, fd);
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return 2;
		for (rlim_t i = rl.rlim_cur; i < rl.rlim_cur + 4096 && i < 1u << 20; i++)
			n += fcntl((int)i, F_GETFD) >= 0;
		printf("open at or above the soft limit: %d\n", n);
	} else if (!strcmp(c, "clonedup2") || !strcmp(c, "clonethread")) {
		static char stack[65536];
		pid_t p;

		closed_fd = dev(0);
		fd = open("/dev/null", O_RDONLY);
		close(closed_fd);
		fflush(stdout);
		p = clone(c[5] == 'd' ? clone_dup2 : clone_thread, stack + sizeof stack, SIGCHLD, &fd);
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return 2;
	} else if (!strcmp(c, "clonestack")) {
		char *m = mmap(NULL, 2 * 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int st = 0;
		pid_t p;

		if (m == MAP_FAILED || mprotect(m, 65536, PROT_NONE) != 0)
			return 2;
		close(dev(0));
		p = clone(seven, m + 65536 + 256, SIGCHLD, NULL);
		if (p < 0 || waitpid(p, &st, 0) != p)
			return 2;
		printf("the clone child: %s %d\n", WIFEXITED(st) ? "exit" : "signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	} else if (!strcmp(c, "cloneexec") || !strcmp(c, "cloneopen")) {
		static char stack[65536];
		pid_t p;

		close(dev(0));
		fflush(stdout);
		p = clone(clone_exec, stack + sizeof stack, SIGCHLD, c[5] == 'o' ? stack : NULL);
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return 2;
	} else if (!strcmp(c, "taken")) {
		pthread_t t;

		if (pipe(tk_go) != 0 || pipe(tk_done) != 0 || pthread_create(&t, NULL, tk_opener, NULL) != 0)
			return 2;
		closed_fd = dev(0);
		close(closed_fd);
		fflush(stdout);
		in_child(c_taken, 0);
		pthread_join(t, NULL);
	} else if (!strcmp(c, "setfd")) {
		fd = dev(O_CLOEXEC);
		in_child(c_setfd, fd);
		printf("close-on-exec after the child's F_SETFD: %d\n", fcntl(fd, F_GETFD));
		close(fd);
		fd = dev(0);
		printf("an open without O_CLOEXEC: %d\n", fcntl(fd, F_GETFD));
		exec_list();
	} else if (!strcmp(c, "full")) {
		struct rlimit rl;
		int st, free1;
		pid_t p;

		free1 = open("/dev/null", O_RDONLY);  /* the lowest free number */
		close(free1);
		close(dev(0));  /* reserve mode keeps it, at free1 */
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return 2;
		rl.rlim_cur = (rlim_t)free1 + 2;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || open("/dev/null", O_RDONLY) < 0)
			return 2;
		p = vfork();
		if (p == 0)
			c_full(0);
		if (p < 0 || waitpid(p, &st, 0) != p)
			return 2;
		fd = open("/dev/urandom", O_RDONLY);
		printf("the child's open at the limit: %s; the parent's open after: %s\n",
		       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "a number" : "none",
		       fd >= 0 ? "a number" : strerror(errno));
	} else if (!strcmp(c, "clonerace")) {
		return clonerace(200);
	} else if (!strcmp(c, "cycles")) {
		int i, k;

		for (k = 0; k < 2; k++) {
			for (i = 0; i < 1000; i++) {
				fd = dev(0);
				if (rd16(fd) != 16 || close(fd) != 0)
					return 2;
			}
			if (k == 0)
				in_child(c_none, 0);
		}
		printf("cycles done\n");
	} else {
		fprintf(stderr, "usage: prog_vfork close|setfl|dup|dupfd|open|unshare|dup2exec|baddup2exec|rangeexec|limit|dup2on|nest|nestdup2|nestuse|nestlimit|raise|nestraise|raisefork|clonevmraise|forkin|depth3|clonefiles|openfork|forkonly|clonedup2|clonethread|clonestack|cloneexec|cloneopen|taken|setfd|full|clonerace|cycles\n");
		return 2;
	}
	return 0;
}
