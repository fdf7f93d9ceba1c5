/* SPDX-License-Identifier: MIT */
/*
 * prog_fault: what a program sees when the system around it fails, for
 * tests/h_fault.sh, which runs each mode natively and under fastpath.so and
 * compares stdout byte for byte.  stdout holds only observations that must
 * be equal (return values, errno names, run lengths); never descriptor
 * numbers or inode numbers.  Every mode also checks its own invariants
 * (TU_CHECK: no 16-byte block served twice, none all zero).
 *   read N           N reads of 16 bytes of /dev/urandom, with closes and
 *                    reopens, readv and larger reads among them
 *   getrandom N      N getrandom(16) and N getentropy(16) calls
 *   emfile           the descriptor table full, then the device opened
 *   emfile-reserve   the same after an open/read/close of the device
 *   open PATH        open, openat and a 16-byte read of PATH
 *   readlink         /proc/self/fd links of a socket and a pipe, in every
 *                    spelling the shim answers
 *   readlink-hide    the same, then /proc hidden in a private mount
 *                    namespace (root only; 77 when not allowed), then again
 *   readlink-chroot  the same, then chroot into an empty directory
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "testutil.h"

#define DEV "/dev/urandom"

/* ---- observations, run-length encoded: "what = result xN" --------------- */
static char last[160];
static long last_n;

static void flush_obs(void)
{
	if (last_n)
		printf("%s x%ld\n", last, last_n);
	last_n = 0;
}

static void obs(const char *what, long r, int err)
{
	char line[sizeof last];

	tu_observed++;
	if (r < 0)
		snprintf(line, sizeof line, "%s = -1 %s", what, strerrorname_np(err));
	else
		snprintf(line, sizeof line, "%s = %ld", what, r);
	if (last_n && strcmp(line, last) == 0) {
		last_n++;
		return;
	}
	flush_obs();
	snprintf(last, sizeof last, "%s", line);
	last_n = 1;
}

/* ---- blocks: each 16-byte block handed out, checked at the end ---------- */
typedef struct { unsigned char b[16]; } block;
static block *blocks;
static size_t nblocks, capblocks;

static void keep(const void *p, size_t n)
{
	for (; n >= 16; n -= 16, p = (const unsigned char *)p + 16) {
		if (nblocks == capblocks) {
			capblocks = capblocks ? 2 * capblocks : 4096;
			blocks = realloc(blocks, capblocks * sizeof *blocks);
			if (!blocks)
				abort();
		}
		memcpy(&blocks[nblocks++], p, 16);
	}
}

static int cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(block));
}

static void check_blocks(void)
{
	static const block zero;
	size_t i, rep = 0, zeros = 0;

	qsort(blocks, nblocks, sizeof *blocks, cmp);
	for (i = 0; i < nblocks; i++) {
		zeros += memcmp(&blocks[i], &zero, sizeof zero) == 0;
		rep += i && memcmp(&blocks[i - 1], &blocks[i], sizeof *blocks) == 0;
	}
	TU_CHECK(rep == 0, "%zu of %zu blocks served twice", rep, nblocks);
	TU_CHECK(zeros == 0, "%zu of %zu blocks all zero (a wiped pool byte served)", zeros,
	         nblocks);
	fprintf(stderr, "blocks checked: %zu\n", nblocks);
	free(blocks);
}

/* ---- modes ---------------------------------------------------------------- */
static int mode_read(long n)
{
	unsigned char big[5000];
	block b[2];
	struct iovec iov[2] = { { &b[0], 16 }, { &b[1], 16 } };
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);
	long i;

	obs("open", fd < 0 ? -1 : 0, errno);
	for (i = 0; i < n && fd >= 0; i++) {
		ssize_t r = read(fd, b, 16);

		obs("read 16", r, errno);
		if (r == 16)
			keep(b, 16);
		if (i % 97 == 0) {
			r = readv(fd, iov, 2);
			obs("readv 2x16", r, errno);
			if (r == 32)
				keep(b, 32);
			r = read(fd, big, 100);
			obs("read 100", r, errno);
			if (r > 0)
				keep(big, (size_t)r);
			r = read(fd, big, sizeof big);
			obs("read 5000", r, errno);
			if (r > 0)
				keep(big, (size_t)r);
		}
		if (i % 301 == 0) {
			obs("close", close(fd), errno);
			fd = open(DEV, i % 2 ? O_RDONLY : O_RDONLY | O_CLOEXEC);
			obs("reopen", fd < 0 ? -1 : 0, errno);
		}
	}
	flush_obs();
	if (fd >= 0)
		close(fd);
	check_blocks();
	return tu_finish();
}

static int mode_getrandom(long n)
{
	block b;
	long i;

	for (i = 0; i < n; i++) {
		ssize_t r = getrandom(&b, 16, 0);

		obs("getrandom 16", r, errno);
		if (r == 16)
			keep(&b, 16);
	}
	for (i = 0; i < n; i++) {
		int r = getentropy(&b, 16);

		obs("getentropy 16", r, errno);
		if (r == 0)
			keep(&b, 16);
	}
	flush_obs();
	check_blocks();
	return tu_finish();
}

/* Fills the table with /dev/null up to the limit; returns how many. */
static int fill(int *fds, int cap)
{
	int k = 0;

	for (;;) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0) {
			obs("fill: open /dev/null at the limit", fd, errno);
			flush_obs();
			return k;
		}
		if (k == cap)
			abort();
		fds[k++] = fd;
	}
}

static int mode_emfile(int reserve)
{
	struct rlimit rl = { 32, 32 };
	int fds[64], k, fd, i;
	block b;

	/* Whatever the caller left open counts against the limit, the same
	 * in both runs. */
	TU_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
	if (reserve) {
		fd = open(DEV, O_RDONLY);
		obs("open device", fd < 0 ? -1 : 0, errno);
		obs("read 16", read(fd, &b, 16), errno);
		obs("close device", close(fd), errno);
	}
	k = fill(fds, 64);
	printf("descriptors filled: %d\n", k);
	fd = open(DEV, O_RDONLY);
	obs("open device at the limit", fd, errno);
	fd = openat(AT_FDCWD, DEV, O_RDONLY | O_CLOEXEC);
	obs("openat device at the limit", fd, errno);
	obs("dup 0 at the limit", dup(0), errno);
	obs("F_DUPFD 0 at the limit", fcntl(0, F_DUPFD, 0), errno);
	flush_obs();
	/* One slot free again: the device opens and reads. */
	close(fds[--k]);
	fd = open(DEV, O_RDONLY);
	obs("open device, one slot free", fd < 0 ? -1 : 0, errno);
	obs("read 16", read(fd, &b, 16), errno);
	obs("close device", close(fd), errno);
	obs("open /dev/null after that", (fds[k] = open("/dev/null", O_RDONLY)) < 0 ? -1 : 0,
	    errno);
	flush_obs();
	for (i = 0; i <= k; i++)
		close(fds[i]);
	return tu_finish();
}

static int mode_open(const char *path)
{
	block b;
	int fd = open(path, O_RDONLY);

	obs("open", fd < 0 ? -1 : 0, errno);
	if (fd >= 0) {
		obs("read 16", read(fd, &b, 16), errno);
		obs("close", close(fd), errno);
	}
	fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	obs("openat", fd < 0 ? -1 : 0, errno);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	obs("open nonblock", fd < 0 ? -1 : 0, errno);
	if (fd >= 0)
		close(fd);
	flush_obs();
	return tu_finish();
}

/* readlink of our socket and pipe: the answer printed as the kernel's
 * shape, "socket:[<ino>]" checked against fstat, or the errno. */
static void links(const char *when)
{
	int sv[2], pv[2], i;
	char path[64], buf[64], what[128];
	const char *forms[] = { "/proc/self/fd/%d", "/proc/thread-self/fd/%d", "/proc/%d/fd/%d" };

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(pv) != 0)
		abort();
	for (i = 0; i < 6; i++) {
		int fd = i % 2 ? pv[0] : sv[0];
		const char *form = forms[i / 2];
		struct stat st;
		ssize_t r;

		if (i / 2 == 2)
			snprintf(path, sizeof path, form, (int)getpid(), fd);
		else
			snprintf(path, sizeof path, form, fd);
		fstat(fd, &st);
		errno = 0;
		r = readlink(path, buf, sizeof buf);
		snprintf(what, sizeof what, "%s: readlink %s %s", when, form, i % 2 ? "pipe" : "socket");
		if (r > 0) {
			char want[64];

			snprintf(want, sizeof want, "%s:[%lu]", i % 2 ? "pipe" : "socket",
			         (unsigned long)st.st_ino);
			TU_CHECK((size_t)r == strlen(want) && memcmp(buf, want, (size_t)r) == 0,
			         "%s: %.*s, want %s", what, (int)r, buf, want);
		}
		obs(what, r, errno);
		flush_obs();
	}
	close(sv[0]), close(sv[1]), close(pv[0]), close(pv[1]);
}

static int mode_readlink(const char *how)
{
	links("before");
	if (strcmp(how, "hide") == 0) {
		if (unshare(CLONE_NEWNS) != 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("none", "/proc", "tmpfs", 0, NULL) != 0) {
			fprintf(stderr, "cannot hide /proc: %s\n", strerror(errno));
			return 77;
		}
	} else if (strcmp(how, "chroot") == 0) {
		char dir[] = "/tmp/prog_fault.XXXXXX";

		if (!mkdtemp(dir) || chroot(dir) != 0 || chdir("/") != 0) {
			fprintf(stderr, "cannot chroot: %s\n", strerror(errno));
			return 77;
		}
		/* Inside, the directory is "/": it can go now. */
		rmdir(dir + 4);
	}
	if (strcmp(how, "plain") != 0)
		links("after");
	return tu_finish();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return mode_read(atol(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "getrandom") == 0)
		return mode_getrandom(atol(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "emfile") == 0)
		return mode_emfile(0);
	if (argc >= 2 && strcmp(argv[1], "emfile-reserve") == 0)
		return mode_emfile(1);
	if (argc >= 3 && strcmp(argv[1], "open") == 0)
		return mode_open(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "readlink") == 0)
		return mode_readlink("plain");
	if (argc >= 2 && strcmp(argv[1], "readlink-hide") == 0)
		return mode_readlink("hide");
	if (argc >= 2 && strcmp(argv[1], "readlink-chroot") == 0)
		return mode_readlink("chroot");
	fprintf(stderr, "usage: prog_fault read N | getrandom N | emfile | emfile-reserve |"
	                " open PATH | readlink | readlink-hide | readlink-chroot\n");
	return 2;
}
