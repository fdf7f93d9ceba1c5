/* SPDX-License-Identifier: MIT */
/*
 * The kernel as oracle: a process holding 10,000 sockets, 1,000 pipe ends,
 * an opened named FIFO and a few look-alikes (O_PATH fds of a FIFO and of a
 * socket file, an eventfd, a directory) readlinks every one of its fds
 * through readlink()/readlinkat() (the shim, when preloaded) and through the
 * raw system call, under every name for its own fd table, at the full size
 * and at a truncating one.  Every answer must be byte-identical.
 *
 * Usage: prog_readlink_oracle [SOCKETS PIPE_ENDS]   (default 10000 1000)
 * Exits 77 when RLIMIT_NOFILE cannot be raised far enough.
 *
 *        prog_readlink_oracle lastref: a pipe's and a socket pair's first
 *        readlink (fastpath then learns pipefs and sockfs), one end closed
 *        at once, the other polled: "pipe 0xc socket 0x..." (the close ends
 *        the file there and then, as natively)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"

static ssize_t kernel_readlink(const char *path, char *buf, size_t n)
{
	return syscall(SYS_readlinkat, AT_FDCWD, path, buf, n);
}

/* Same bytes, same count, same errno; returns 1 when they agree. */
static int same(const char *path, size_t size, int use_at, char *out, ssize_t *outlen)
{
	char a[300], k[300];
	ssize_t ra, rk;
	int ea, ek;

	memset(a, 'Z', sizeof a);
	memset(k, 'Z', sizeof k);
	errno = 0;
	ra = use_at ? readlinkat(AT_FDCWD, path, a, size) : readlink(path, a, size);
	ea = errno;
	errno = 0;
	rk = kernel_readlink(path, k, size);
	ek = errno;
	if (out) {
		memcpy(out, k, rk > 0 ? (size_t)rk : 0);
		*outlen = rk;
	}
	TU_CHECK(ra == rk && (rk >= 0 || ea == ek) && memcmp(a, k, sizeof a) == 0,
	         "%s size %zu: shim %zd/%d \"%.*s\", kernel %zd/%d \"%.*s\"", path, size,
	         ra, ea, (int)(ra > 0 ? ra : 0), a, rk, ek, (int)(rk > 0 ? rk : 0), k);
	return ra == rk;
}

/* readlink of a's name, close(a), and what poll says of b at once. */
static int last_ref(int a, int b)
{
	char path[64], t[64];
	struct pollfd f = { b, POLLIN | POLLOUT, 0 };

	snprintf(path, sizeof path, "/proc/self/fd/%d", a);
	if (readlink(path, t, sizeof t) <= 0 || close(a) != 0 || poll(&f, 1, 0) < 0)
		return -1;
	return f.revents;
}

static int lastref(void)
{
	int p[2], s[2];

	if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0)
		return 2;
	printf("pipe %#x", last_ref(p[0], p[1]));
	printf(" socket %#x\n", last_ref(s[0], s[1]));
	return 0;
}

int main(int argc, char **argv)
{
	long nsock = argc > 2 ? atol(argv[1]) : 10000;
	long npipe = argc > 2 ? atol(argv[2]) : 1000;
	long need = nsock + npipe + 64, maxfd = 0;
	struct rlimit rl;
	char dir[] = "/tmp/prog_readlink_oracle_XXXXXX", fifo[64], sockf[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int pid = (int)getpid(), tid = (int)syscall(SYS_gettid);
	long nsockets = 0, npipes = 0, nfifo = 0, nother = 0;
	int fd, bound;

	if (argc == 2 && strcmp(argv[1], "lastref") == 0)
		return lastref();
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 2;
	if ((long)rl.rlim_cur < need) {
		if ((long)rl.rlim_max < need)
			rl.rlim_max = (rlim_t)need;  /* works for root only */
		rl.rlim_cur = (rlim_t)need;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			printf("cannot raise RLIMIT_NOFILE to %ld\n", need);
			return 77;
		}
	}

	if (tu_hold_sockets_and_pipes(nsock, npipe) != 0)
		return 2;
	if (!mkdtemp(dir))
		return 2;
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(sockf, sizeof sockf, "%s/sock", dir);
	if (mkfifo(fifo, 0600) != 0 || open(fifo, O_RDWR) < 0 || open(fifo, O_PATH) < 0)
		return perror("fifo"), 2;
	bound = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sockf);
	if (bind(bound, (struct sockaddr *)&sa, sizeof sa) != 0 || open(sockf, O_PATH) < 0)
		return perror("socket file"), 2;
	if (eventfd(0, 0) < 0 || open(dir, O_RDONLY | O_DIRECTORY) < 0)
		return 2;

	for (fd = 0; fd < (int)need; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			maxfd = fd;
	for (fd = 0; fd <= maxfd; fd++) {
		char path[128], k[300];
		ssize_t klen;
		struct stat st;

		if (fstat(fd, &st) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		same(path, 256, 0, k, &klen);
		if (klen > 8 && memcmp(k, "socket:[", 8) == 0)
			nsockets++;
		else if (klen > 6 && memcmp(k, "pipe:[", 6) == 0)
			npipes++;
		else if (klen == (ssize_t)strlen(fifo) && memcmp(k, fifo, (size_t)klen) == 0)
			nfifo++;
		else
			nother++;
		/* a truncating size, and every spelling of our own table */
		same(path, (size_t)(1 + fd % 13), 0, NULL, NULL);
		same(path, 256, 1, NULL, NULL);
		snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
		same(path, 256, 0, NULL, NULL);
		snprintf(path, sizeof path, "/proc/thread-self/fd/%d", fd);
		same(path, 256, 0, NULL, NULL);
		snprintf(path, sizeof path, "/proc/%d/task/%d/fd/%d", pid, tid, fd);
		same(path, 256, 0, NULL, NULL);
	}
	/* one past the last fd: no such entry */
	{
		char path[64];

		snprintf(path, sizeof path, "/proc/self/fd/%ld", maxfd + 1);
		same(path, 256, 0, NULL, NULL);
	}
	TU_CHECK(nsockets >= nsock + 1, "sockets seen: %ld", nsockets);
	TU_CHECK(npipes >= npipe, "pipe ends seen: %ld", npipes);
	/* the opened FIFO and its O_PATH fd answer with the FIFO's path */
	TU_CHECK(nfifo == 2, "named FIFO fds answered by path: %ld", nfifo);
	printf("checked %ld fds: %ld sockets, %ld pipe ends, %ld fifo, %ld other\n",
	       maxfd + 1, nsockets, npipes, nfifo, nother);
	unlink(fifo);
	unlink(sockf);
	rmdir(dir);
	return tu_finish();
}
