/* SPDX-License-Identifier: MIT */
/*
 * A pfiles(1)-like lister: for each fd of a target process, stat
 * ROOT/PID/fd/<n>, then readlink ROOT/PID/path/<n>, then print, the way
 * illumos libproc's load_fdinfo() did for pfiles.  The readlink of a socket
 * is what took the seed's 45 seconds.
 *
 * Usage: readlink_lister [-l] [-r REPEAT] ROOT PID
 *   ROOT is /proc on illumos; on Linux, a directory laid out the illumos
 *   way (see bench/readlink_lib.sh).  -l reads the Linux layout instead
 *   (readlink of fd/<n>, as lsof does).  -r lists REPEAT times, so that a
 *   benchmark of the per-fd work is not dominated by process start-up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef S_IFDOOR
#define S_IFDOOR 0xD000
#endif
#ifndef S_IFPORT
#define S_IFPORT 0xE000
#endif

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFSOCK: return "S_IFSOCK";
	case S_IFDOOR: return "S_IFDOOR";
	case S_IFIFO: return "S_IFIFO";
	case S_IFREG: return "S_IFREG";
	case S_IFDIR: return "S_IFDIR";
	case S_IFCHR: return "S_IFCHR";
	case S_IFBLK: return "S_IFBLK";
	case S_IFLNK: return "S_IFLNK";
	case S_IFPORT: return "S_IFPORT";
	case 0: return "anon_inode";  /* Linux: epoll, eventfd (no file type) */
	}
	return "?";
}

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int list(int linux_layout, const char *root, const char *pid);

int main(int argc, char **argv)
{
	int linux_layout = 0, repeat = 1, opt, rc = 0;

	while ((opt = getopt(argc, argv, "lr:")) != -1) {
		if (opt == 'l')
			linux_layout = 1;
		else if (opt != 'r' || (repeat = atoi(optarg)) <= 0)
			goto usage;
	}
	if (optind != argc - 2) {
usage:
		fprintf(stderr, "usage: %s [-l] [-r REPEAT] ROOT PID\n", argv[0]);
		return 2;
	}
	while (repeat-- > 0 && rc == 0)
		rc = list(linux_layout, argv[optind], argv[optind + 1]);
	return rc;
}

static int list(int linux_layout, const char *root, const char *pid)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	int *fds = NULL;
	size_t n = 0, cap = 0, i;

	snprintf(dir, sizeof dir, "%s/%s/fd", root, pid);
	if (!(d = opendir(dir)))
		return perror(dir), 1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (n == cap && !(fds = realloc(fds, (cap = cap ? 2 * cap : 256) * sizeof *fds)))
			return 1;
		fds[n++] = atoi(e->d_name);
	}
	closedir(d);
	qsort(fds, n, sizeof *fds, by_number);
	printf("%s:\n", pid);
	for (i = 0; i < n; i++) {
		char p[4200], link[4096];
		struct stat st;
		ssize_t len;

		snprintf(p, sizeof p, "%s/%s/fd/%d", root, pid, fds[i]);
		if (stat(p, &st) != 0)
			continue;  /* closed meanwhile */
		printf("%4d: %s mode:0%03o dev:%u,%u ino:%lu uid:%u gid:%u size:%lld\n", fds[i],
		       type_name(st.st_mode), (unsigned)(st.st_mode & 07777),
		       major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino,
		       (unsigned)st.st_uid, (unsigned)st.st_gid, (long long)st.st_size);
		snprintf(p, sizeof p, "%s/%s/%s/%d", root, pid, linux_layout ? "fd" : "path",
		         fds[i]);
		len = readlink(p, link, sizeof link - 1);
		if (len >= 0)
			printf("      %.*s\n", (int)len, link);
	}
	free(fds);
	return 0;
}
