/* SPDX-License-Identifier: MIT */
/*
 * exec_cpu ROUNDS COMMAND...: the CPU time (user + system, from wait4's
 * rusage) and minor page faults of each COMMAND, run ROUNDS times in turn,
 * alternating, so that a busy neighbour weighs on each alike; wall-clock
 * time on a shared machine mostly measures the queue for a CPU.  A
 * COMMAND is one argument, split on spaces: leading NAME=VALUE words go
 * into its environment (not env(1), which would load a preload too), the
 * rest is exec'd along PATH.  One line per COMMAND:
 *   exec_cpu<TAB>COMMAND<TAB>median us<TAB>min us<TAB>median minor faults
 * (bench_startup.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXW 32

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One run of cmd; its CPU microseconds and minor faults, or -1. */
static double run_once(const char *cmd, double *minflt)
{
	char *copy = strdup(cmd), *w[MAXW + 1], *save = NULL, *t;
	struct rusage ru;
	int n = 0, st, fd;
	pid_t pid;

	if (!copy)
		return -1;
	for (t = strtok_r(copy, " ", &save); t && n < MAXW; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	w[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int i = 0;

		for (; i < n && strchr(w[i], '=') && w[i][0] != '='; i++)
			putenv(w[i]);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (i < n)
			execvp(w[i], w + i);
		_exit(127);
	}
	free(copy);
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*minflt = (double)ru.ru_minflt;
	return (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
	       (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[1]) : 0, r;
	int v, nv = argc - 2;
	double *cpu, *flt;

	if (rounds < 1) {
		fprintf(stderr, "usage: exec_cpu ROUNDS COMMAND...\n");
		return 2;
	}
	cpu = calloc((size_t)rounds * (size_t)nv, sizeof *cpu);
	flt = calloc((size_t)rounds * (size_t)nv, sizeof *flt);
	if (!cpu || !flt)
		return 1;
	for (r = 0; r < rounds; r++)
		for (v = 0; v < nv; v++)
			cpu[v * rounds + r] = run_once(argv[2 + v], &flt[v * rounds + r]);
	for (v = 0; v < nv; v++) {
		double *c = cpu + v * rounds, *f = flt + v * rounds;

		qsort(c, (size_t)rounds, sizeof *c, cmp_double);
		qsort(f, (size_t)rounds, sizeof *f, cmp_double);
		printf("exec_cpu\t%s\t%.0f\t%.0f\t%.0f\n", argv[2 + v], c[rounds / 2], c[0],
		       f[rounds / 2]);
	}
	return 0;
}
