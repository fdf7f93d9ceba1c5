/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_closed: what a program sees on a number of the device after
 * it closed it, and the number its next open gets (issue 15's table).  Run
 * natively and under fastpath.so; t_urandom.sh compares the logs, which
 * hold raw numbers on purpose: exact mode must give the same ones.
 *   prog_urandom_closed            both flag styles, then again in a child;
 *                                  then, in a child, an open at 4096 or above,
 *                                  and in another an F_SETFL at the limit
 *   prog_urandom_closed hidden T N T threads x N open/read/close cycles of
 *                                  each device, then prints how many open
 *                                  descriptors of each device the process
 *                                  holds that it did not open itself
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/random.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#ifndef F_DUPFD_QUERY
#define F_DUPFD_QUERY 1027  /* Linux 6.10 */
#endif

#define obs(what, call)                                                        \
	do {                                                                   \
		long r_ = (long)(call);                                        \
		printf("%s: %s = %ld%s%s\n", tag, what, r_, r_ < 0 ? " " : "",  \
		       r_ < 0 ? strerrorname_np(errno) : "");                  \
	} while (0)

static const char *tag;

static void after_close(int flags)
{
	char buf[16], link[64];
	struct stat st;
	struct pollfd p;
	struct timeval tv = { 0, 0 };
	fd_set rs;
	int fd, ent, r, next;

	fd = open("/dev/urandom", flags);
	obs("open", fd);
	obs("read", read(fd, buf, sizeof buf));
	obs("fcntl(F_GETFD) open", fcntl(fd, F_GETFD));
	obs("close", close(fd));
	obs("fstat", fstat(fd, &st));
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	r = poll(&p, 1, 0);
	printf("%s: poll = %d revents %#x\n", tag, r, p.revents);
	FD_ZERO(&rs);
	FD_SET(fd, &rs);
	obs("select", select(fd + 1, &rs, NULL, NULL, &tv));
	obs("lseek", lseek(fd, 0, SEEK_CUR));
	obs("ioctl(RNDGETENTCNT)", ioctl(fd, RNDGETENTCNT, &ent));
	snprintf(buf, sizeof buf, "%d", fd);
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	{
		char target[256];
		ssize_t n = readlink(link, target, sizeof target);

		obs("readlink /proc/self/fd/N", n);
	}
	obs("read closed", read(fd, buf, sizeof buf));
	obs("close closed", close(fd));
	obs("dup closed", dup(fd));
	obs("dup2 closed", dup2(fd, 100));
	obs("fcntl(F_GETFD) closed", fcntl(fd, F_GETFD));
	/* A closed number as a directory or a program (issue 36, defect 10). */
	obs("openat closed", openat(fd, "x", O_RDONLY));
	{
		char *const argv[] = { "true", NULL }, *const envp[] = { NULL };

		obs("fexecve closed", fexecve(fd, argv, envp));
	}
	next = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	if (next < 0)
		next = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	obs("next open's number", next);
	close(next);
	/* Two open at once: numbers in order, both pooled or both real. */
	fd = open("/dev/urandom", flags);
	next = open("/dev/urandom", flags);
	obs("two opens: first", fd);
	obs("two opens: second", next);
	obs("fcntl(F_GETFL) second", fcntl(next, F_GETFL) & ~O_LARGEFILE);
	close(fd);
	close(next);
}

/* Last, as they change which number reserve mode keeps. */
static void extra(int flags)
{
	int fd, next;

	tag = flags & O_CLOEXEC ? "O_CLOEXEC" : "O_RDONLY";
	/* A close_range the kernel refuses closes nothing, and forgets
	 * nothing: a later change stays this open's (defect 7). */
	fd = open("/dev/urandom", flags);
	obs("close_range, unknown flag", close_range((unsigned)fd, (unsigned)fd, 1u << 30));
	obs("F_SETFL after it", fcntl(fd, F_SETFL, O_NONBLOCK));
	next = open("/dev/urandom", flags);
	obs("next open's O_NONBLOCK", fcntl(next, F_GETFL) & O_NONBLOCK);
	close(fd);
	close(next);
	/* F_DUPFD_QUERY (Linux 6.10): two opens are two descriptions, an
	 * open and its dup one, and a closed number EBADF (defect 8).  EINVAL
	 * everywhere on an older kernel, natively and under fastpath alike. */
	fd = open("/dev/urandom", flags);
	next = open("/dev/urandom", flags);
	obs("F_DUPFD_QUERY two opens", fcntl(fd, F_DUPFD_QUERY, next));
	{
		int d = dup(fd), n, odd = 0;

		obs("F_DUPFD_QUERY open and its dup", fcntl(fd, F_DUPFD_QUERY, d));
		close(d);
		for (n = 3; n < 4096; n++) {
			int q;

			if (fcntl(n, F_GETFD) >= 0 || errno != EBADF)
				continue;
			q = fcntl(fd, F_DUPFD_QUERY, n);
			if (q >= 0 || (errno != EBADF && errno != EINVAL))
				odd++;
		}
		obs("closed numbers F_DUPFD_QUERY does not call closed", odd);
	}
	close(fd);
	close(next);
	/* kcmp(KCMP_FILE), through syscall() as programs make it (no C
	 * library function): the same answers; and pidfd_getfd's copy of an
	 * open shares its description with that open only (defect 8).  Fresh
	 * opens: F_DUPFD_QUERY above gave its two descriptions of their own. */
	fd = open("/dev/urandom", flags);
	next = open("/dev/urandom", flags);
	{
		/* 1 and 2 order two kernel pointers: only "the same" is stable. */
#define kcmp_same(a, b) ({ long k_ = syscall(SYS_kcmp, me, me, KCMP_FILE, a, b); k_ > 0 ? 1 : k_; })
		pid_t me = getpid();
		int d, n, odd = 0, pfd, got, third, later;

		obs("kcmp two opens", kcmp_same(fd, next));
		d = dup(fd);
		obs("kcmp open and its dup", kcmp_same(fd, d));
		close(d);
		for (n = 3; n < 4096; n++)
			if (fcntl(n, F_GETFD) < 0 && errno == EBADF &&
			    (kcmp_same(fd, n) >= 0 || errno != EBADF))
				odd++;
		obs("closed numbers kcmp does not call closed", odd);
		third = open("/dev/urandom", flags);
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
		pfd = (int)syscall(SYS_pidfd_open, me, 0);
		got = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, third, 0);
#else
		pfd = got = -1; /* headers older than Linux 5.6 */
#endif
		if (got < 0) {
			printf("%s: pidfd_getfd: none here\n", tag);
		} else {
			obs("kcmp open and its pidfd_getfd copy", kcmp_same(third, got));
			obs("F_SETFL through the copy", fcntl(got, F_SETFL, O_NONBLOCK));
			later = open("/dev/urandom", flags);
			obs("a later open's O_NONBLOCK", fcntl(later, F_GETFL) & O_NONBLOCK);
			obs("the open's O_NONBLOCK", (fcntl(third, F_GETFL) & O_NONBLOCK) != 0);
			close(later);
			close(got);
		}
		close(third);
		if (pfd >= 0)
			close(pfd);
	}
	close(fd);
	close(next);
	/* Every number a closed one answers openat as a closed one: the
	 * numbers fastpath holds too (defect 10). */
	{
		int n, odd = 0;

		for (n = 3; n < 4096; n++)
			if (fcntl(n, F_GETFD) < 0 && errno == EBADF &&
			    (openat(n, "x", O_RDONLY) >= 0 || errno != EBADF))
				odd++;
		obs("closed numbers whose openat is not EBADF", odd);
	}
	fflush(stdout);
}

/* At the descriptor limit, a change through a pooled open stays its own
 * (defect 6): the copy it needs finds a number. */
static void limit(void)
{
	struct rlimit rl = { 64, 128 };  /* soft under hard, as usual */
	int fd, d, next;

	tag = "limit";
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	fd = open("/dev/urandom", O_RDONLY);
	next = open("/dev/urandom", O_RDONLY);
	obs("two opens", fd >= 0 && next >= 0);
	while ((d = dup(0)) >= 0)
		;
	obs("F_SETFL at the limit", fcntl(fd, F_SETFL, O_NONBLOCK));
	obs("the other open's O_NONBLOCK", fcntl(next, F_GETFL) & O_NONBLOCK);
	fflush(stdout);
}

/* A pooled open that lands at 4096 or above (the low numbers in use, the
 * limit higher) is a description of its own (defect 4): its F_SETFL does
 * not reach the next open. */
static void high(void)
{
	struct rlimit rl;
	int null, d, fd, next;

	tag = "high";
	/* An open first, under the limit the program started with (where
	 * fastpath's own hidden descriptor, if any, then sits). */
	if ((fd = open("/dev/urandom", O_RDONLY)) >= 0)
		close(fd);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max < 4200) {
		printf("high: skipped, hard limit under 4200\n");
		return;
	}
	rl.rlim_cur = 4200;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || (null = open("/dev/null", O_RDONLY)) < 0)
		return;
	while ((d = dup(null)) >= 0 && d < 4096)
		;
	if (d >= 0)
		close(d);
	fd = open("/dev/urandom", O_RDONLY);
	obs("open at the top", fd >= 4096);
	obs("F_SETFL", fcntl(fd, F_SETFL, O_NONBLOCK));
	close(100);
	next = open("/dev/urandom", O_RDONLY);
	obs("next open's number", next);
	obs("next open's O_NONBLOCK", fcntl(next, F_GETFL) & O_NONBLOCK);
	fflush(stdout);
}

static void all(void)
{
	tag = "O_CLOEXEC";
	after_close(O_RDONLY | O_CLOEXEC);
	tag = "O_RDONLY";
	after_close(O_RDONLY);
	fflush(stdout);
}

static long t_n;

static void *cycle(void *arg)
{
	char b[16];
	long i;

	(void)arg;
	for (i = 0; i < t_n; i++) {
		int u = open("/dev/urandom", i % 2 ? O_RDONLY : O_RDONLY | O_CLOEXEC);
		int r = open("/dev/random", O_RDONLY | O_CLOEXEC);

		if (u < 0 || r < 0 || read(u, b, 16) != 16 || read(r, b, 16) != 16)
			abort();
		close(u);
		close(r);
	}
	return NULL;
}

/* Descriptors of the device left open once every one the program opened
 * is closed: 0 natively; the hidden ones (exact) or reserves (reserve). */
static int count_dev(const char *dev)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, self = dirfd(d);

	while ((e = readdir(d))) {
		char p[300], t[64];
		ssize_t k;

		if (e->d_name[0] == '.' || atoi(e->d_name) == self)
			continue;
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		k = readlink(p, t, sizeof t - 1);
		if (k > 0) {
			t[k] = 0;
			n += strcmp(t, dev) == 0;
		}
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	pid_t pid;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "hidden") == 0) {
		int t, nt = atoi(argv[2]);
		pthread_t tid[64];

		t_n = atol(argv[3]);
		for (t = 0; t < nt && t < 64; t++)
			pthread_create(&tid[t], NULL, cycle, NULL);
		for (t = 0; t < nt && t < 64; t++)
			pthread_join(tid[t], NULL);
		printf("%d %d\n", count_dev("/dev/urandom"), count_dev("/dev/random"));
		return 0;
	}
	all();
	pid = fork();
	if (pid == 0) {
		printf("-- in a child\n");
		all();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	printf("-- after the child, in the parent\n");
	all();
	extra(O_RDONLY | O_CLOEXEC);
	extra(O_RDONLY);
	pid = fork();
	if (pid == 0) {
		high();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	pid = fork();
	if (pid == 0) {
		limit();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
