/* SPDX-License-Identifier: MIT */
/*
 * lockloop N [DEV]: N record locks and unlocks (F_SETLK) of a temporary
 * file; with DEV 1, after one open, read and close of /dev/urandom (the
 * urandom mitigation begun).  Prints the ns per lock request: what a
 * program's own record locks pay under the preload (docs/benchmarks.md,
 * "The exec guard's races, record locks").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000, dev = argc > 2 && atoi(argv[2]);
	char path[] = "/tmp/lockloopXXXXXX";
	int fd = mkstemp(path);
	struct flock l = { .l_whence = SEEK_SET, .l_len = 1 };
	struct timespec a, b;

	if (fd < 0 || unlink(path) != 0)
		return 1;
	if (dev) {
		char x[16];
		int u = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (u < 0 || read(u, x, sizeof x) != (ssize_t)sizeof x || close(u) != 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		l.l_type = F_WRLCK;
		if (fcntl(fd, F_SETLK, &l) != 0)
			return 1;
		l.l_type = F_UNLCK;
		if (fcntl(fd, F_SETLK, &l) != 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f ns per lock request\n",
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (2.0 * n));
	return 0;
}
