/* SPDX-License-Identifier: MIT */
/*
 * fork_loop N: N forks, one after the other, each child exiting at once
 * (_exit) and reaped before the next: what a shell pays per command
 * before its exec.  One line:
 *   fork_loop<TAB>us per fork (wall)<TAB>parent minor faults per fork
 *   <TAB>child minor faults per fork
 * (bench_startup.sh; tests/t_core.sh holds the faults of a preload in
 * which no mitigation has acted to an empty object's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage self0, self, kids;
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0, i;
	double us;

	if (n <= 0) {
		fprintf(stderr, "usage: fork_loop N\n");
		return 2;
	}
	/* The loop's own first faults (the code and stack it touches) are
	 * not the forks': one fork first, then the counts. */
	for (i = 0; i <= n; i++) {
		pid_t p;
		int st;

		if (i == 1) {
			getrusage(RUSAGE_SELF, &self0);
			clock_gettime(CLOCK_MONOTONIC, &a);
		}
		if ((p = fork()) < 0)
			return 1;
		if (p == 0)
			_exit(0);
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3;
	/* The children's counts include the first child's: n + 1 of them. */
	printf("fork_loop\t%.2f\t%.2f\t%.2f\n", us / (double)n,
	       (double)(self.ru_minflt - self0.ru_minflt) / (double)n,
	       (double)kids.ru_minflt / (double)(n + 1));
	return 0;
}
