/* SPDX-License-Identifier: MIT */
/*
 * readlink() (async-signal-safe) interrupted by a timer whose handler
 * siglongjmp()s out of it, for SECS seconds; then the descriptors held
 * that were not held at the start, one line each, and a count line:
 * "jumps=N new descriptors=K".  Exits 1 when K > 0.  Under the survey a
 * periodic record is written from inside such a call (a cold review: a
 * jump out of its directory walk left a descriptor open, and its flag set).
 *
 * Usage: prog_survey_jump [SECS]   (default 2)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SJ_FDS 256

static sigjmp_buf sj_env;
static volatile sig_atomic_t sj_armed;
static volatile long sj_jumps;

static void sj_handler(int sig)
{
	(void)sig;
	if (sj_armed) {
		sj_armed = 0;
		sj_jumps++;
		siglongjmp(sj_env, 1);
	}
}

static double sj_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static bool at_start[SJ_FDS];

/* Out of main's frame, which the jumps return into. */
static __attribute__((noinline)) int sj_leaked(void)
{
	int leaked = 0;

	for (int f = 0; f < SJ_FDS; f++) {
		if (!at_start[f] && fcntl(f, F_GETFD) >= 0) {
			char p[64], l[256];
			ssize_t r;

			snprintf(p, sizeof p, "/proc/self/fd/%d", f);
			r = readlink(p, l, sizeof l - 1);
			l[r > 0 ? r : 0] = '\0';
			printf("new descriptor %d -> %s\n", f, l);
			leaked++;
		}
	}
	return leaked;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	struct itimerval it = { { 0, 37 }, { 0, 37 } }, off;
	struct sigaction sa;
	struct timespec t0;
	int leaked;
	char b[64];

	for (int f = 0; f < SJ_FDS; f++)
		at_start[f] = fcntl(f, F_GETFD) >= 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = sj_handler;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sj_since(&t0) < secs) {
		if (sigsetjmp(sj_env, 1) == 0) {
			sj_armed = 1;
			(void)readlink("/proc/self/fd/0", b, sizeof b);
			sj_armed = 0;
		}
	}
	memset(&off, 0, sizeof off);
	setitimer(ITIMER_REAL, &off, NULL);
	leaked = sj_leaked();
	printf("jumps=%ld new descriptors=%d\n", sj_jumps, leaked);
	return leaked != 0;
}
