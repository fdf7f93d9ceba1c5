/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_seen: issue 25's cases, each printed as observations that
 * t_urandom.sh compares native against fastpath (native is the oracle).
 *   prog_urandom_seen            shared, epoll, copies, held, spawn, lfs,
 *                                cmsg
 *   prog_urandom_seen shared     two live opens: status flags, owner,
 *                                flock, OFD locks, FIONBIO are their own
 *   prog_urandom_seen epoll      an epoll entry does not outlive close()
 *   prog_urandom_seen copies     F_DUPFD past 4096, _Fork, SCM_RIGHTS
 *   prog_urandom_seen held       every call on the numbers fastpath may
 *                                hold (the soft limit and the next
 *                                number, the closed one)
 *   prog_urandom_seen spawn      posix_spawn adddup2 from those numbers
 *   prog_urandom_seen lfs        F_GETFL and fdinfo's flags of an open
 *   prog_urandom_seen roots DIR  chroot into DIR (a jail whose
 *                                dev/urandom is a regular file), then a
 *                                tmpfs on /dev, then on /proc by
 *                                move_mount (exit 77: not permitted here)
 *   prog_urandom_seen procfd     /proc/self/fd after open/read/close
 *   prog_urandom_seen cmsg       sendmsg with an SCM_RIGHTS header longer
 *                                than msg_controllen, at the end of a
 *                                mapping, and one shorter than a header
 * The soft descriptor limit is set to 8192 first (4096 if the hard limit
 * is 8192 or lower): exact mode's hidden descriptors then sit at it and
 * the next number, where the hard limit is higher (H).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define obs(what, call)                                                        \
	do {                                                                   \
		long r_ = (long)(call);                                        \
		printf("%s: %s = %ld%s%s\n", tag, what, r_, r_ < 0 ? " " : "",  \
		       r_ < 0 ? strerrorname_np(errno) : "");                  \
	} while (0)

extern char **environ;
static const char *tag = "";

static int dev(const char *path, int flags)
{
	int fd = open(path, flags);
	char b[16];

	if (fd >= 0 && read(fd, b, sizeof b) != (ssize_t)sizeof b)
		printf("%s: short read\n", tag);
	return fd;
}

static void shared(void)
{
	int a, b, c, d;
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int on = 1;

	tag = "shared";
	a = dev("/dev/urandom", O_RDONLY);
	b = dev("/dev/urandom", O_RDONLY | O_CLOEXEC);
	obs("setfl a", fcntl(a, F_SETFL, fcntl(a, F_GETFL) | O_NONBLOCK));
	obs("getfl b nonblock", fcntl(b, F_GETFL) & O_NONBLOCK);
	obs("getfl a nonblock", fcntl(a, F_GETFL) & O_NONBLOCK);
	obs("getfd a", fcntl(a, F_GETFD));
	obs("getfd b", fcntl(b, F_GETFD));
	obs("setown b", fcntl(b, F_SETOWN, getpid()));
	c = dev("/dev/urandom", O_RDONLY);
	obs("getown c", fcntl(c, F_GETOWN));
	obs("flock c", flock(c, LOCK_EX | LOCK_NB));
	d = dev("/dev/urandom", O_RDONLY);
	obs("flock d", flock(d, LOCK_EX | LOCK_NB));
	close(c);
	obs("flock d after close c", flock(d, LOCK_EX | LOCK_NB));
	close(d);
	c = dev("/dev/urandom", O_RDONLY);
	d = dev("/dev/urandom", O_RDONLY);
	obs("ofd lock c", fcntl(c, F_OFD_SETLK, &l));
	obs("ofd lock d", fcntl(d, F_OFD_SETLK, &l));
	close(c);
	close(d);
	c = dev("/dev/urandom", O_RDONLY);
	d = dev("/dev/urandom", O_RDONLY);
	obs("FIONBIO c", ioctl(c, FIONBIO, &on));
	obs("getfl d nonblock", fcntl(d, F_GETFL) & O_NONBLOCK);
	obs("getfl c nonblock", fcntl(c, F_GETFL) & O_NONBLOCK);
	/* A dup shares the description, natively too. */
	b = dup2(c, b);
	obs("dup2 c onto b", b);
	obs("getfl b nonblock (dup of c)", fcntl(b, F_GETFL) & O_NONBLOCK);
	obs("setfl b", fcntl(b, F_SETFL, 0));
	obs("getfl c nonblock (b cleared it)", fcntl(c, F_GETFL) & O_NONBLOCK);
	close(a);
	close(b);
	close(c);
	close(d);
	a = dev("/dev/urandom", O_RDONLY);
	obs("later open: getfl", fcntl(a, F_GETFL) & ~O_LARGEFILE);
	obs("later open: flock", flock(a, LOCK_EX | LOCK_NB));
	close(a);
}

static void epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), fd;

	tag = "epoll";
	fd = dev("/dev/random", O_RDONLY);
	obs("open", fd >= 0);
	ev.data.fd = fd;
	obs("add", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	close(fd);
	obs("wait after close", epoll_wait(ep, &ev, 1, 0));
	fd = dev("/dev/random", O_RDONLY);
	obs("open again", fd >= 0);
	ev.data.fd = fd;
	obs("add again", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	obs("wait", epoll_wait(ep, &ev, 1, 0));
	close(fd);
	close(ep);
}

static void send_fd(int sock, int fd)
{
	char c = 'x';
	struct iovec io = { &c, 1 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.b,
	                    .msg_controllen = sizeof u.b };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof fd);
	obs("sendmsg", sendmsg(sock, &m, 0));
}

static int recv_fd(int sock)
{
	char c;
	struct iovec io = { &c, 1 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.b,
	                    .msg_controllen = sizeof u.b };
	int fd = -1;

	if (recvmsg(sock, &m, 0) == 1 && CMSG_FIRSTHDR(&m))
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fd);
	return fd;
}

static void copies(void)
{
	int a, big, sv[2], st;
	pid_t pid;
	char c;

	tag = "copies";
	/* F_DUPFD past our table, then a change through the copy. */
	a = dev("/dev/urandom", O_RDONLY);
	big = fcntl(a, F_DUPFD, 5000);
	obs("F_DUPFD 5000", big);
	obs("setfl copy", fcntl(big, F_SETFL, O_NONBLOCK));
	obs("getfl a nonblock (shares it)", fcntl(a, F_GETFL) & O_NONBLOCK);
	close(big);
	close(a);
	a = dev("/dev/urandom", O_RDONLY);
	obs("later open: getfl", fcntl(a, F_GETFL) & ~O_LARGEFILE);
	/* _Fork: no atfork handler runs. */
	pid = _Fork();
	if (pid == 0) {
		fcntl(a, F_SETFL, O_NONBLOCK);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	obs("after _Fork child's setfl: a nonblock", fcntl(a, F_GETFL) & O_NONBLOCK);
	close(a);
	a = dev("/dev/urandom", O_RDONLY);
	obs("later open: getfl", fcntl(a, F_GETFL) & ~O_LARGEFILE);
	close(a);
	/* SCM_RIGHTS to a child, which holds a flock on it. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return;
	pid = fork();
	if (pid == 0) {
		int fd = recv_fd(sv[1]);

		c = flock(fd, LOCK_EX) == 0 ? 'L' : 'E';
		if (write(sv[1], &c, 1) != 1 || read(sv[1], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	a = dev("/dev/urandom", O_RDONLY);
	send_fd(sv[0], a);
	close(a);
	if (read(sv[0], &c, 1) == 1)
		printf("%s: child's flock: %c\n", tag, c);
	a = dev("/dev/urandom", O_RDONLY);
	obs("parent's later open: flock", flock(a, LOCK_EX | LOCK_NB));
	close(a);
	c = 'q';
	if (write(sv[0], &c, 1) != 1)
		printf("%s: write failed\n", tag);
	waitpid(pid, &st, 0);
	close(sv[0]);
	close(sv[1]);
}

/* Every call on number n, which the program has not opened. */
/* __fxstat and __fxstat64, what programs built against glibc < 2.33 call
 * for fstat: through the symbol the program would bind (ours, preloaded),
 * when this C library has it at all. */
static void fxstat(int n)
{
#ifdef __GLIBC__
	static const char *const names[] = { "__fxstat", "__fxstat64" };
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct stat st;

	for (int i = 0; i < 2; i++) {
		int (*fx)(int, int, struct stat *) =
		        (int (*)(int, int, struct stat *))dlsym(RTLD_DEFAULT, names[i]);

		if (libc && dlsym(libc, names[i]) && fx)
			obs(names[i], fx(1, n, &st));
	}
#else
	(void)n;
#endif
}

static void on_number(int n, int e, const int p[2])
{
	char b[16], link[64], target[256];
	struct stat st;
	struct iovec io = { b, sizeof b };
	int ent;
	off_t off = 0;

	printf("%s: -- number %d\n", tag, n);
	obs("fcntl F_GETFD", fcntl(n, F_GETFD));
	obs("fcntl F_GETFL", fcntl(n, F_GETFL));
	obs("fcntl F_DUPFD", fcntl(n, F_DUPFD, 0));
	obs("fstat", fstat(n, &st));
	fxstat(n);
	obs("dup", dup(n));
	obs("dup2 from", dup2(n, 200));
	obs("dup3 from", dup3(n, 200, O_CLOEXEC));
	obs("read", read(n, b, sizeof b));
	obs("pread", pread(n, b, sizeof b, 0));
	obs("readv", readv(n, &io, 1));
	obs("preadv", preadv(n, &io, 1, 0));
#ifdef __GLIBC__  /* musl 1.2.3 has no preadv2 */
	obs("preadv2", preadv2(n, &io, 1, 0, 0));
#endif
	obs("lseek", lseek(n, 0, SEEK_CUR));
	obs("ioctl FIONREAD", ioctl(n, FIONREAD, &ent));
	obs("flock", flock(n, LOCK_SH | LOCK_NB));
	obs("sendfile", sendfile(e, n, &off, 16));
	obs("copy_file_range", copy_file_range(n, NULL, e, NULL, 16, 0));
	obs("splice", splice(n, NULL, p[1], NULL, 16, 0));
	snprintf(link, sizeof link, "/proc/self/fd/%d", n);
	obs("readlink /proc/self/fd/N", readlink(link, target, sizeof target));
	obs("close", close(n));
}

/* Where exact mode keeps its hidden descriptors: the soft limit and the
 * next number (fastpath(7)). */
static int H = 4096;

static void held(void)
{
	int fd, x, e = open("/dev/null", O_WRONLY), p[2];
	char b[4];

	if (pipe(p) != 0)
		return;
	tag = "held";
	fd = dev("/dev/urandom", O_RDONLY);
	close(dev("/dev/random", O_RDONLY | O_CLOEXEC));
	close(fd);
	on_number(fd, e, p);
	on_number(H, e, p);
	on_number(H + 1, e, p);
	close(e);
	close(p[0]);
	close(p[1]);
	/* dup2 and dup3 onto them: the program's file is there after. */
	fd = dev("/dev/urandom", O_RDONLY);
	close(fd);
	x = open("/dev/zero", O_RDONLY);
	obs("dup2 onto H", dup2(x, H));
	obs("read H (zeros)", read(H, b, sizeof b) == 4 && !b[0] && !b[3]);
	obs("dup3 onto H+1", dup3(x, H + 1, O_CLOEXEC));
	obs("fcntl H+1 F_GETFD", fcntl(H + 1, F_GETFD));
	obs("F_DUPFD H from H-1", fcntl(x, F_DUPFD, H - 1));
	close(H - 1);
	close(H);
	close(H + 1);
	close(x);
	fd = dev("/dev/urandom", O_RDONLY);
	obs("open after", fd >= 0);
	close(fd);
	obs("F_DUPFD from H (the hidden one's number)", fcntl(0, F_DUPFD, H));
	close(H);
	fd = dev("/dev/urandom", O_RDONLY);
	obs("dup2 onto H+1 after an open", dup2(0, H + 1));
	obs("fcntl H+1 F_GETFD", fcntl(H + 1, F_GETFD));
	close(H + 1);
	close(fd);
}

/* Headers the kernel rejects (EINVAL): one whose cmsg_len runs past
 * msg_controllen, ending where the mapping does (a walk that trusted
 * cmsg_len read the next page), and one shorter than a header. */
static void cmsg(void)
{
	size_t cl = CMSG_SPACE(sizeof(int));
	long pg = sysconf(_SC_PAGESIZE);
	char *page = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), d = 'x';
	struct iovec io = { &d, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_controllen = cl };
	struct cmsghdr *c;
	int sv[2], fd;

	tag = "cmsg";
	fd = dev("/dev/urandom", O_RDONLY);
	if (page == MAP_FAILED || socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return;
	munmap(page + pg, (size_t)pg);
	c = (struct cmsghdr *)(page + pg - cl);
	m.msg_control = c;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	c->cmsg_len = 1u << 20;
	obs("sendmsg cmsg_len past msg_controllen", sendmsg(sv[0], &m, 0));
	c->cmsg_len = sizeof(struct cmsghdr) - 1;
	obs("sendmsg cmsg_len under a header", sendmsg(sv[0], &m, 0));
	c->cmsg_len = CMSG_LEN(sizeof(int));
	obs("sendmsg the pooled number", sendmsg(sv[0], &m, 0));
	close(fd);
	close(sv[0]);
	close(sv[1]);
	munmap(page, (size_t)pg);
}

static void spawn1(int n, const char *what)
{
	posix_spawn_file_actions_t fa;
	/* This program again, not /bin/true: a child of the same ELF class,
	 * which check-m32's 32-bit preload can be loaded into. */
	char *argv[] = { "prog_urandom_seen", "true", NULL };
	pid_t pid;
	int r, st;

	posix_spawn_file_actions_init(&fa);
	obs("adddup2", posix_spawn_file_actions_adddup2(&fa, n, 0));
	r = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
	printf("%s: posix_spawn with adddup2(%s, 0) = %s\n", tag, what, r ? strerrorname_np(r) : "0");
	if (r == 0)
		waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
}

static void spawn(void)
{
	int fd;

	tag = "spawn";
	fd = dev("/dev/urandom", O_RDONLY);
	close(fd);
	spawn1(fd, "the closed number");
	spawn1(H, "the hidden number (the soft limit)");
}

static void fdinfo_flags(int fd)
{
	char p[64], line[128];
	FILE *f;

	snprintf(p, sizeof p, "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(p, "r")))
		return;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "flags:", 6) == 0)
			printf("%s: fdinfo %s", tag, line);
	fclose(f);
}

static void lfs(void)
{
	int fd;

	tag = "lfs";
	for (int i = 0; i < 2; i++) {
		fd = dev("/dev/urandom", i ? O_RDONLY | O_CLOEXEC : O_RDONLY);
		obs("F_GETFL", fcntl(fd, F_GETFL));
		fdinfo_flags(fd);
		close(fd);
	}
	fd = dev("/dev/urandom", O_RDONLY | O_LARGEFILE);
	obs("O_LARGEFILE asked: F_GETFL", fcntl(fd, F_GETFL));
	close(fd);
}

/* In a mount namespace of our own: /proc replaced by a tmpfs (moved there
 * with the new mount API), then /dev. */
static int mounts(void)
{
	char link[64], t[64];
	int s, tfd, m;

	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		printf("unshare: %s\n", strerrorname_np(errno));
		return 77;
	}
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(link, sizeof link, "/proc/self/fd/%d", s);
	obs("readlink of a socket, procfs", readlink(link, t, sizeof t) > 0);
#ifdef __GLIBC__  /* the new mount API: glibc 2.36 */
	if ((tfd = fsopen("tmpfs", 0)) < 0) {
		printf("fsopen: %s\n", strerrorname_np(errno));
		return 77;
	}
	fsconfig(tfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	m = fsmount(tfd, 0, 0);
	obs("move_mount onto /proc",
	    move_mount(m, "", AT_FDCWD, "/proc", MOVE_MOUNT_F_EMPTY_PATH));
	close(m);
	close(tfd);
#else
	(void)tfd, (void)m;
	obs("mount tmpfs on /proc", mount("tmpfs", "/proc", "tmpfs", 0, NULL));
#endif
	obs("readlink of a socket, tmpfs on /proc", readlink(link, t, sizeof t));
	close(dev("/dev/urandom", O_RDONLY));
	obs("mount tmpfs on /dev", mount("tmpfs", "/dev", "tmpfs", 0, NULL));
	obs("open on an empty /dev", open("/dev/urandom", O_RDONLY));
	return 0;
}

static int roots(const char *jail)
{
	int fd, st;
	char b[8] = { 0 };
	struct stat sb;
	pid_t pid;

	tag = "roots";
	pid = fork();
	if (pid == 0)
		_exit(mounts());
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	close(dev("/dev/urandom", O_RDONLY));
	if (chroot(jail) != 0) {
		printf("chroot: %s\n", strerrorname_np(errno));
		return 77;
	}
	fd = open("/dev/urandom", O_RDONLY);
	obs("open in the jail", fd);
	obs("fstat is a regular file", fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode));
	obs("read", read(fd, b, 4));
	printf("%s: it reads \"%s\"\n", tag, b);
	close(fd);
	obs("unlink it", unlink("/dev/urandom"));
	obs("open with none there", open("/dev/urandom", O_RDONLY));
	return 0;
}

static void procfd(void)
{
	DIR *d;
	struct dirent *e;

	tag = "procfd";
	close(dev("/dev/urandom", O_RDONLY));
	close(dev("/dev/urandom", O_RDONLY | O_CLOEXEC));
	close(dev("/dev/random", O_RDONLY));
	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			printf("%s: %s\n", tag, e->d_name);
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	if (argc == 2 && strcmp(argv[1], "true") == 0)
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max >= 4096) {
		rl.rlim_cur = rl.rlim_max > 8192 ? 8192 : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		H = rl.rlim_cur > 16000 ? 16000 : (int)rl.rlim_cur;
	if (argc == 3 && strcmp(argv[1], "roots") == 0)
		return roots(argv[2]);
	if (argc == 2 && strcmp(argv[1], "procfd") == 0)
		procfd();
	if (argc == 2 && strcmp(argv[1], "shared") == 0)
		shared();
	if (argc == 2 && strcmp(argv[1], "epoll") == 0)
		epoll();
	if (argc == 2 && strcmp(argv[1], "copies") == 0)
		copies();
	if (argc == 2 && strcmp(argv[1], "held") == 0)
		held();
	if (argc == 2 && strcmp(argv[1], "spawn") == 0)
		spawn();
	if (argc == 2 && strcmp(argv[1], "lfs") == 0)
		lfs();
	if (argc == 2 && strcmp(argv[1], "cmsg") == 0)
		cmsg();
	if (argc == 1) {
		shared();
		epoll();
		copies();
		held();
		spawn();
		lfs();
		cmsg();
	}
	return 0;
}
