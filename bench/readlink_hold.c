/* SPDX-License-Identifier: MIT */
/*
 * Holds sockets, pipes and an opened named FIFO (and, with -e, epoll
 * descriptors), then runs a command that inherits them: a target for
 * `ls -l /proc/<pid>/fd`, `lsof -p <pid>` and the pfiles-like lister.
 *
 * Usage: prog_readlink_hold [-e PORTS] SOCKETS PIPE_ENDS DIR COMMAND [ARG]...
 * (the FIFO is DIR/fifo)
 *
 * A node process on illumos holds that mix: sockets (its servers and
 * connections), pipes (child processes' stdio, libuv's wake-ups) and event
 * ports (libuv's poller, one per loop).  Linux has no event ports; an
 * epoll descriptor is its counterpart, with no name either (an anonymous
 * inode), and the illumos policy run on Linux shows it as a port.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/epoll.h>
#endif

#include "../tests/testutil.h"

int main(int argc, char **argv)
{
	long nsock, npipe, nport = 0, i;
	char fifo[4096];
	struct rlimit rl;

	if (argc > 2 && strcmp(argv[1], "-e") == 0) {
		nport = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: %s [-e PORTS] SOCKETS PIPE_ENDS DIR COMMAND [ARG]...\n",
		        argv[0]);
		return 2;
	}
	nsock = atol(argv[1]);
	npipe = atol(argv[2]);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    (long)rl.rlim_cur < nsock + npipe + nport + 64) {
		rl.rlim_cur = (rlim_t)(nsock + npipe + nport + 64);
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return perror("setrlimit"), 2;
	}
	if (tu_hold_sockets_and_pipes(nsock, npipe) != 0)
		return 2;
	for (i = 0; i < nport; i++) {
#ifdef __linux__
		if (epoll_create1(0) < 0)
			return perror("epoll_create1"), 2;
#else
		return fprintf(stderr, "-e: Linux only (epoll)\n"), 2;
#endif
	}
	snprintf(fifo, sizeof fifo, "%s/fifo", argv[3]);
	if (mkfifo(fifo, 0600) != 0 || open(fifo, O_RDWR) < 0)
		return perror(fifo), 2;
	execvp(argv[4], argv + 4);
	perror(argv[4]);
	return 127;
}
