/* SPDX-License-Identifier: MIT */
/*
 * bench_cpus.sh's sched_getcpu row: ITER calls of sched_getcpu(); prints
 * the nanoseconds of one call.  Run natively, under fastpath.so without
 * the cap (the rseq read libc itself makes) and with a cap below the real count
 * (each answer folded onto a CPU the cap shows).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	long iter = argc > 1 ? atol(argv[1]) : 10000000, i;
	volatile long sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < iter; i++)
		sum += sched_getcpu();
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (sum < 0)
		return 1;
	printf("%.3f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
	                         (double)iter);
	return 0;
}
