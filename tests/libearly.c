/* SPDX-License-Identifier: MIT */
/*
 * A library whose constructor uses our wrappers before fastpath.so's own
 * constructor has run (the loader initialises a program's libraries before
 * its preloads).  libfaketime's "snippets" taught us to test exactly this.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

long early_ncpus = -2;
long early_urandom_read = -2;
char early_link[64] = "";

__attribute__((constructor)) static void early_init(void)
{
	unsigned char buf[16];
	char path[64];
	int fd, sv[2];
	ssize_t n;

	early_ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	early_urandom_read = fd < 0 ? -1 : read(fd, buf, sizeof buf);
	if (fd >= 0)
		close(fd);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
		n = readlink(path, early_link, sizeof early_link - 1);
		early_link[n > 0 ? n : 0] = '\0';
		close(sv[0]);
		close(sv[1]);
	}
}
