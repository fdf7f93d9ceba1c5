/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_kin: child processes on our memory or our descriptor table
 * (clone without CLONE_THREAD), around the pool's first opens (a
 * nineteenth cold review).  Prints observations only, compared with a
 * native run (t_urandom.sh):
 *   vmlimit N [set]  N times, a clone(CLONE_VM) child reads (set: sets
 *                    100 and 101 in turn) its parent's RLIMIT_NOFILE with
 *                    prlimit64 while the parent (soft limit 64) opens the
 *                    device twice, fills its table and sets O_NONBLOCK: in
 *                    how many another value was seen (its own set undone)
 *   filesown [vm]    a clone(CLONE_FILES[|CLONE_VM]) child raises its own
 *                    soft limit and dup2s /etc/passwd onto the parent's
 *                    soft limit (the hidden descriptor's number); the
 *                    parent then looks at that number, opens the device,
 *                    dups and sets a flag: what each is (fstat, a read)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static _Atomic int running, stop;
static _Atomic long seen, reads, lost;
static pid_t parent;
static int mode; /* 0: read, 1: set (lost update) */

static int vm_child(void *p)
{
	(void)p;
	uint64_t rl[2];
	atomic_store(&running, 1);
	uint64_t nw[2], last = 64;
	syscall(SYS_prlimit64, parent, RLIMIT_NOFILE, 0L, rl);
	nw[1] = rl[1];
	for (unsigned long i = 0; !atomic_load(&stop); i++) {
		if (mode == 0) {
			if (syscall(SYS_prlimit64, parent, RLIMIT_NOFILE, 0L, rl) != 0 || rl[0] != 64)
				atomic_fetch_add(&seen, 1);
		} else {
			/* sets 100 and 101 in turn: the old value must be its own last */
			nw[0] = 100 + (i & 1);
			if (syscall(SYS_prlimit64, parent, RLIMIT_NOFILE, nw, rl) != 0 || rl[0] != last)
				atomic_fetch_add(&seen, 1);
			/* 64 again after our sets: one was undone */
			if (i > 0 && rl[0] == 64)
				atomic_fetch_add(&lost, 1);
			last = nw[0];
		}
		atomic_fetch_add(&reads, 1);
	}
	return 0;
}

static int vm_once(void)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	struct rlimit rl;
	int fds[80], n = 0, a, b;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 2;
	parent = getpid();
	pid_t c = clone(vm_child, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
	if (c < 0)
		return 2;
	while (!atomic_load(&running))
		sched_yield();
	a = open("/dev/urandom", O_RDONLY);
	b = open("/dev/urandom", O_RDONLY);
	while ((fds[n] = open("/dev/null", O_RDONLY)) >= 0 && n < 79)
		n++;
	fcntl(a, F_SETFL, O_NONBLOCK);
	fcntl(b, F_SETFL, O_NONBLOCK);
	atomic_store(&stop, 1);
	waitpid(c, NULL, 0);
	if (mode && atomic_load(&lost))
		return 3;
	return atomic_load(&seen) != 0;
}

static int vmlimit(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, hits = 0, losts = 0, st;
	mode = argc > 2 && argv[2][0] == 's';
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(vm_once());
		waitpid(p, &st, 0);
		hits += WIFEXITED(st) && WEXITSTATUS(st) >= 1 && WEXITSTATUS(st) != 2;
		losts += WIFEXITED(st) && WEXITSTATUS(st) == 3;
	}
	if (mode)
		printf("a CLONE_VM child's prlimit64(parent) found another old value in %d of %d (its own set undone: %d)\n", hits, n, losts);
	else
		printf("a CLONE_VM child's prlimit64(parent) saw another soft limit in %d of %d\n", hits, n);
	return 0;
}

static int at;

static int files_child(void *p)
{
	(void)p;
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 4096;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		_exit(10);
	int fd = open("/etc/passwd", O_RDONLY);
	int r = getenv("NODUP") ? -1 : dup2(fd, at);
	int e = errno;
	close(fd);
	char m[128];
	int l = snprintf(m, sizeof m, "child: dup2(passwd, %d) = %d%s%s\n", at, r == at ? 0 : r, r < 0 ? " " : "", r < 0 ? strerror(e) : "");
	if (write(1, m, l) < 0)
		_exit(11);
	return 0;
}

static void show(const char *what, int fd)
{
	struct stat st;
	char b[8];
	int f = fcntl(fd, F_GETFD);
	printf("parent: %s %d: fcntl %s", what, fd, f < 0 ? strerror(errno) : "ok");
	if (fstat(fd, &st) == 0)
		printf(", fstat %s", S_ISCHR(st.st_mode) ? "chr" : S_ISREG(st.st_mode) ? "reg" : "other");
	else
		printf(", fstat %s", strerror(errno));
	ssize_t n = read(fd, b, sizeof b);
	printf(", read %zd%s%.4s\n", n, n > 0 && S_ISREG(st.st_mode) ? " " : "", n > 0 && S_ISREG(st.st_mode) ? b : "");
}

static int filesown(int argc, char **argv)
{
	(void)argv;
	static char stack[256 << 10] __attribute__((aligned(16)));
	struct rlimit rl;
	int st;
	getrlimit(RLIMIT_NOFILE, &rl);
	at = (int)rl.rlim_cur;
	int a = open("/dev/urandom", O_RDONLY);
	printf("parent: open device = %d\n", a);
	fflush(stdout);
	pid_t c = clone(files_child, stack + sizeof stack, CLONE_FILES | SIGCHLD | (argc > 1 ? CLONE_VM : 0), NULL);
	waitpid(c, &st, 0);
	show("number", at);
	int b = open("/dev/urandom", O_RDONLY);
	show("open device", b);
	int d = dup(a);
	show("dup of first", d);
	fcntl(a, F_SETFL, O_NONBLOCK);
	show("first after F_SETFL", a);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "vmlimit") == 0)
		return vmlimit(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "filesown") == 0)
		return filesown(argc - 1, argv + 1);
	fprintf(stderr, "usage: prog_urandom_kin vmlimit N [set] | filesown [vm]\n");
	return 2;
}
