/* SPDX-License-Identifier: MIT */
/*
 * readlink in a loop, for the per-call benchmarks.
 *
 * Usage: readlink_micro self-socket N   readlink /proc/self/fd/<a socket>
 *        readlink_micro self-pipe N     readlink /proc/self/fd/<a pipe>
 *        readlink_micro PATH N          readlink PATH (a symlink, another
 *                                       process's fd, ...)
 * Exits 1 if any call fails, so that a benchmark cannot time errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[4096];
	long n, i;
	int fds[2];

	if (argc != 3)
		return fprintf(stderr, "usage: %s self-socket|self-pipe|PATH N\n", argv[0]), 2;
	n = atol(argv[2]);
	if (strcmp(argv[1], "self-socket") == 0 || strcmp(argv[1], "self-pipe") == 0) {
		if ((argv[1][5] == 's' ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : pipe(fds)) != 0)
			return perror("socketpair/pipe"), 1;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
	} else {
		snprintf(path, sizeof path, "%s", argv[1]);
	}
	for (i = 0; i < n; i++)
		if (readlink(path, buf, sizeof buf) < 0)
			return perror(path), 1;
	return 0;
}
