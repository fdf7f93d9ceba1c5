/* SPDX-License-Identifier: MIT */
/*
 * Run by t_cpus.sh: what OpenMP (libgomp) believes of the machine, which
 * it learns from the affinity mask at start-up: "procs P threads T".
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int threads = 0;

#pragma omp parallel
	{
#pragma omp single
		threads = omp_get_num_threads();
	}
	printf("procs %d threads %d\n", omp_get_num_procs(), threads);
	return 0;
}
