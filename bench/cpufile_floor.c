/* SPDX-License-Identifier: MIT */
/*
 * bench_cpus.sh's floor row (issue 37): the least a served copy of SIZE
 * bytes costs, made as cpus_files_shim.c makes it, with nothing generated
 * and no kernel file read: memfd_create, one write of the text, fchmod,
 * the read-only reopen through /proc/self/fd, then the program's read to
 * the end and close.  Prints the nanoseconds of one round.  Against
 * cpufile_loop's native /proc/cpuinfo, it says how near 1x any copy
 * can come.  With a third argument, "once": the copy made once and only
 * reopened each round, what a copy kept for the process (and the
 * descriptor it would hold) would cost instead.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct timespec a, b;
	size_t size = argc > 1 ? (size_t)atol(argv[1]) : 0;
	long iter = argc > 2 ? atol(argv[2]) : 1000, i;
	char *text = malloc(size + 1), link[64];
	int once = argc > 3 && strcmp(argv[3], "once") == 0, kept = -1;

	if (argc < 2 || !text) {
		fprintf(stderr, "usage: cpufile_floor SIZE [ITER [once]]\n");
		return 2;
	}
	memset(text, 'x', size);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < iter; i++) {
		int rw = kept >= 0 ? kept : memfd_create("cpuinfo", MFD_CLOEXEC), fd;

		if (rw < 0 || (rw != kept && (write(rw, text, size) != (ssize_t)size || fchmod(rw, 0444) != 0))) {
			perror("memfd");
			return 1;
		}
		snprintf(link, sizeof link, "/proc/self/fd/%d", rw);
		if ((fd = open(link, O_RDONLY | O_CLOEXEC)) < 0) {
			perror(link);
			return 1;
		}
		if (once)
			kept = rw;
		else
			close(rw);
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.0f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)iter);
	free(text);
	return 0;
}
