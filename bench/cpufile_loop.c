/* SPDX-License-Identifier: MIT */
/*
 * bench_cpus.sh's file row: open + read to the end + close of one file,
 * ITER times; prints the nanoseconds of one round.  Run natively, under
 * fastpath.so without the cap, and with it (issue 12: at most 2x native
 * for /proc/cpuinfo with the cap; an unrelated file unchanged without).
 * With DIR, PATH is opened relative to a descriptor of DIR, as htop opens
 * "stat" under each /proc/<pid> (issue 28: one prefix test, no readlink).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct timespec a, b;
	long iter = argc > 2 ? atol(argv[2]) : 1000, i;
	int dir = AT_FDCWD;

	if (argc < 2) {
		fprintf(stderr, "usage: cpufile_loop PATH [ITER [DIR]]\n");
		return 2;
	}
	if (argc > 3 && (dir = open(argv[3], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(argv[3]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < iter; i++) {
		int fd = openat(dir, argv[1], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.0f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)iter);
	return 0;
}
