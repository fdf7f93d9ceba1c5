/* SPDX-License-Identifier: MIT */
/*
 * testutil.h: the little that the integration programs (tests/prog_*.c)
 * share.  Each program checks real behaviour with TU_CHECK and ends with
 * tu_finish(), which prints the "N passed, N failed" line and sets the exit
 * status (non-zero also when nothing was checked).
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdio.h>
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

#endif
