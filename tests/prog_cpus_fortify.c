/* SPDX-License-Identifier: MIT */
/*
 * Built with -O2 -D_FORTIFY_SOURCE=2, as distributions build programs:
 * realpath() into an array of known size becomes __realpath_chk().  Every
 * name the C library gives the calls that ask about a path or list a
 * directory, asked about /sys/devices/system/cpu/cpuK (t_cpus.sh, under
 * FASTPATH_CPUS=N: each must agree with stat() and readdir(), which the
 * cap answers as a machine of N CPUs would; a cold review found these
 * answering for the real machine).
 *
 *   prog_cpus_fortify K       one line a name: "NAME yes" (it exists; for
 *                             the stat names, with stat()'s inode; for the
 *                             realpath names, resolved to the path itself)
 *                             or "NAME ENOENT" (else its error, or what it
 *                             said); then "cpuN readdir=A readdir_r=B
 *                             readdir64_r=C", the cpuN entries each listing
 *                             of the cpu directory has, and "readdir_r
 *                             yes" and "readdir64_r yes" where each lists
 *                             what readdir lists, in its order
 *   prog_cpus_fortify short K __realpath_chk into a buffer said to be
 *                             shorter than PATH_MAX: glibc aborts
 * Exit 77 where the C library is not glibc (these names are glibc's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef __GLIBC__
int main(void)
{
	puts("prog_cpus_fortify: glibc only");
	return 77;
}
#else
/* What programs built before glibc 2.33 call for stat, lstat and
 * fstatat (no header has them now), with the kernel's stat version; and
 * the fortified realpath, called by name too: a compiler that does not
 * fortify realpath still tests it. */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
char *__realpath_chk(const char *path, char *out, size_t outlen);
#if defined(__x86_64__)
#define STAT_VER 1
#elif defined(__aarch64__) || defined(__riscv) || defined(__loongarch__)
#define STAT_VER 0
#else
#define STAT_VER 3
#endif
#define CPUDIR "/sys/devices/system/cpu"

/* Not a constant to the compiler: the _chk form is called. */
static volatile size_t vsize = PATH_MAX;
static char path[64];
static ino_t want_ino; /* stat()'s answer (the wrapped call) */

static void said(const char *name, int rc, ino_t ino)
{
	int e = errno;

	if (rc == 0 && ino == want_ino)
		printf("%s yes\n", name);
	else if (rc == 0)
		printf("%s inode %lu, not stat's %lu\n", name, (unsigned long)ino,
		       (unsigned long)want_ino);
	else
		printf("%s %s\n", name, e == ENOENT ? "ENOENT" : strerror(e));
}

static void resolved(const char *name, const char *got)
{
	int e = errno;

	if (got && strcmp(got, path) == 0)
		printf("%s yes\n", name);
	else if (got)
		printf("%s resolved to %s\n", name, got);
	else
		printf("%s %s\n", name, e == ENOENT ? "ENOENT" : strerror(e));
}

static void accessed(const char *name, int rc)
{
	int e = errno;

	printf("%s %s\n", name, rc == 0 ? "yes" : e == ENOENT ? "ENOENT" : strerror(e));
}

/* The call made before its answer's inode is read. */
#define SAID(name, call, ino)                                                \
	do {                                                                 \
		int rc_ = (call);                                            \
		said(name, rc_, ino);                                        \
	} while (0)
/* __xstat, __lxstat and __fxstatat write the C library's struct stat,
 * which a 32-bit program built with _FILE_OFFSET_BITS=64 does not have
 * (its struct stat is stat64's): there only their status is looked at. */
#if !defined(_LP64) && defined(_FILE_OFFSET_BITS) && _FILE_OFFSET_BITS == 64
#define OLD_INO(s) want_ino
#else
#define OLD_INO(s) (s).st_ino
#endif

static void stats(void)
{
	struct stat st = { 0 };
	struct stat64 st64 = { 0 };
	int dfd = open(CPUDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *rel = path + sizeof CPUDIR; /* "cpuK" */

	SAID("__xstat", __xstat(STAT_VER, path, &st), OLD_INO(st));
	SAID("__lxstat", __lxstat(STAT_VER, path, &st), OLD_INO(st));
	SAID("__fxstatat", __fxstatat(STAT_VER, AT_FDCWD, path, &st, 0), OLD_INO(st));
	SAID("__fxstatat(dirfd)", __fxstatat(STAT_VER, dfd, rel, &st, 0), OLD_INO(st));
	SAID("__xstat64", __xstat64(STAT_VER, path, &st64), st64.st_ino);
	SAID("__lxstat64", __lxstat64(STAT_VER, path, &st64), st64.st_ino);
	SAID("__fxstatat64", __fxstatat64(STAT_VER, AT_FDCWD, path, &st64, 0), st64.st_ino);
	SAID("__fxstatat64(dirfd)", __fxstatat64(STAT_VER, dfd, rel, &st64, 0), st64.st_ino);
	close(dfd);
	errno = 0;
	accessed("euidaccess", euidaccess(path, R_OK));
	errno = 0;
	accessed("eaccess", eaccess(path, R_OK));
}

static void realpaths(void)
{
	char buf[PATH_MAX], *c;

	errno = 0;
	resolved("realpath(fortified)", realpath(path, buf));
	errno = 0;
	resolved("__realpath_chk", __realpath_chk(path, buf, vsize));
	errno = 0;
	c = canonicalize_file_name(path);
	resolved("canonicalize_file_name", c);
	free(c);
}

/* The names a listing gives, each ended by a '/', into out; the cpuN
 * entries counted. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int listing(int how, char *out, size_t cap)
{
	DIR *d = opendir(CPUDIR);
	struct dirent e, *r;
	struct dirent64 e64, *r64;
	const char *name;
	size_t len = 0;
	int n = 0;

	out[0] = '\0';
	for (;;) {
		if (how == 0)
			name = (r = readdir(d)) ? r->d_name : NULL;
		else if (how == 1)
			name = readdir_r(d, &e, &r) == 0 && r ? e.d_name : NULL;
		else
			name = readdir64_r(d, &e64, &r64) == 0 && r64 ? e64.d_name : NULL;
		if (!name)
			break;
		if (strncmp(name, "cpu", 3) == 0 && name[3] >= '0' && name[3] <= '9' &&
		    strspn(name + 3, "0123456789") == strlen(name + 3))
			n++;
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s/", name);
	}
	closedir(d);
	return n;
}
#pragma GCC diagnostic pop

static void listings(void)
{
	static char by[3][16384];
	int n[3];

	for (int i = 0; i < 3; i++)
		n[i] = listing(i, by[i], sizeof by[i]);
	printf("cpuN readdir=%d readdir_r=%d readdir64_r=%d\n", n[0], n[1], n[2]);
	printf("readdir_r %s\n", strcmp(by[0], by[1]) == 0 ? "yes" : "lists otherwise than readdir");
	printf("readdir64_r %s\n", strcmp(by[0], by[2]) == 0 ? "yes" : "lists otherwise than readdir");
}

int main(int argc, char **argv)
{
	struct stat st = { 0 };
	char buf[PATH_MAX];
	bool shrt = argc > 2 && strcmp(argv[1], "short") == 0;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, CPUDIR "/cpu%d", atoi(argv[argc - 1]));
	if (shrt) {
		vsize = 100;
		puts(__realpath_chk(path, buf, vsize) ? "__realpath_chk with a short buffer: an answer"
		                                      : "__realpath_chk with a short buffer: an error");
		return 1;
	}
	errno = 0;
	accessed("stat", stat(path, &st));
	want_ino = st.st_ino;
	stats();
	realpaths();
	listings();
	return 0;
}
#endif
