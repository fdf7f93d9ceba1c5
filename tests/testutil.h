/*
 * testutil.h: the little that the integration programs (tests/prog_*.c)
 * share.  Each program checks real behaviour with TU_CHECK and ends with
 * tu_finish(), which prints the "N passed, N failed" line and sets the exit
 * status.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdio.h>

static int tu_passed, tu_failed;

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

static inline int tu_finish(void)
{
	printf("%d passed, %d failed\n", tu_passed, tu_failed);
	return tu_failed != 0;
}

#endif
