/* SPDX-License-Identifier: MIT */
/*
 * testutil.h: the little that the integration programs (tests/prog_*.c)
 * share.  Each program checks real behaviour with TU_CHECK and ends with
 * tu_finish(), which prints the "N passed, N failed" line and sets the exit
 * status (non-zero also when nothing was checked).
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int tu_passed __attribute__((unused)), tu_failed __attribute__((unused));
/* Observations printed for the calling script to compare with a native
 * run (prog_fault): what that script checks, so they count as something
 * the run did. */
static int tu_observed __attribute__((unused));

#define TU_CHECK(cond, ...)                                                    \
	do {                                                                   \
		if (cond) {                                                    \
			tu_passed++;                                           \
		} else {                                                       \
			tu_failed++;                                           \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

/* A run that neither checked nor observed anything fails too: it proved
 * nothing. */
static inline int tu_finish(void)
{
	int nothing = tu_passed + tu_failed + tu_observed == 0;

	printf("%d passed, %d failed\n", tu_passed, tu_failed);
	if (nothing)
		fprintf(stderr, "FAIL: nothing was checked\n");
	return tu_failed != 0 || nothing;
}

/* Opens nsock socket ends and npipe pipe ends (in pairs) and keeps them:
 * a process holding many of each, as pfiles and lsof meet them.  Returns 0,
 * or 2 after perror. */
static inline int tu_hold_sockets_and_pipes(long nsock, long npipe)
{
	long i;

	for (i = 0; i < nsock / 2; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			return perror("socketpair"), 2;
	}
	for (i = 0; i < npipe / 2; i++) {
		int p[2];

		if (pipe(p) != 0)
			return perror("pipe"), 2;
	}
	return 0;
}

/* tu_orphan's: the thread's work, begun once the main thread is a zombie
 * (/proc/self/stat's state: pthread_exit returns before its exit is
 * over, and till then it may still take a process-directed signal). */
struct tu_orphan_job {
	int (*fn)(void *);
	void *arg;
};

static inline void *tu_orphan_run(void *p)
{
	const struct tu_orphan_job *j = p;
	char b[512], *st;
	ssize_t n;
	int fd, i;

	for (i = 0; i < 5000; i++) {
		if ((fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)) < 0)
			break;
		n = read(fd, b, sizeof b - 1);
		close(fd);
		b[n > 0 ? n : 0] = '\0';
		if ((st = strrchr(b, ')')) && st[1] == ' ' && st[2] == 'Z')
			break;
		usleep(1000);
	}
	if (i == 5000)
		fprintf(stderr, "orphan: the main thread is still running after 5 s\n");
	exit(j->fn(j->arg));
}

/* fn(arg) in a second thread once the main thread has exited; the main
 * thread exits now.  The process's exit status is fn's. */
static inline __attribute__((noreturn)) void tu_orphan(int (*fn)(void *), void *arg)
{
	static struct tu_orphan_job job;
	pthread_t t;

	job.fn = fn;
	job.arg = arg;
	if (pthread_create(&t, NULL, tu_orphan_run, &job) != 0) {
		perror("orphan: pthread_create");
		exit(2);
	}
	pthread_exit(NULL);
}

#endif
