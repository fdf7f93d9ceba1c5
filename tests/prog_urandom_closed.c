/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_closed: what a program sees on a number of the device after
 * it closed it, and the number its next open gets (issue 15's table).  Run
 * natively and under fastpath.so; t_urandom.sh compares the logs, which
 * hold raw numbers on purpose: exact mode must give the same ones.
 *   prog_urandom_closed            both flag styles, then again in a child
 *   prog_urandom_closed hidden T N T threads x N open/read/close cycles of
 *                                  each device, then prints how many open
 *                                  descriptors of each device the process
 *                                  holds that it did not open itself
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

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
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
