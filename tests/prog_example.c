/* SPDX-License-Identifier: MIT */
/* Calls getppid() N times (argv[1]) and prints the last answer. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1;
	pid_t p = 0;

	for (i = 0; i < n; i++)
		p = getppid();
	printf("%ld\n", (long)p);
	return 0;
}
