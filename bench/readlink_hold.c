/*
 * Holds sockets, pipes and an opened named FIFO, then runs a command that
 * inherits them: a target for `ls -l /proc/<pid>/fd` and `lsof -p <pid>`.
 *
 * Usage: prog_readlink_hold SOCKETS PIPE_ENDS DIR COMMAND [ARG]...
 * (the FIFO is DIR/fifo)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tests/testutil.h"

int main(int argc, char **argv)
{
	long nsock, npipe;
	char fifo[4096];
	struct rlimit rl;

	if (argc < 5) {
		fprintf(stderr, "usage: %s SOCKETS PIPE_ENDS DIR COMMAND [ARG]...\n", argv[0]);
		return 2;
	}
	nsock = atol(argv[1]);
	npipe = atol(argv[2]);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && (long)rl.rlim_cur < nsock + npipe + 64) {
		rl.rlim_cur = (rlim_t)(nsock + npipe + 64);
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return perror("setrlimit"), 2;
	}
	if (tu_hold_sockets_and_pipes(nsock, npipe) != 0)
		return 2;
	snprintf(fifo, sizeof fifo, "%s/fifo", argv[3]);
	if (mkfifo(fifo, 0600) != 0 || open(fifo, O_RDWR) < 0)
		return perror(fifo), 2;
	execvp(argv[4], argv + 4);
	perror(argv[4]);
	return 127;
}
