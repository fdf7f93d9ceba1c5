/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_limit: what a program sees of its descriptor numbers, its
 * table and its limit around pooled opens of /dev/urandom (issue 36,
 * defects 9 and 11).  Every mode prints observations only, to be compared
 * with a native run (t_urandom.sh):
 *   fdsize          FDSize in /proc/self/status at start and after a first
 *                   open of the device;
 *   numbers         opens of /dev/null with one of the device every 7th,
 *                   kept, to EMFILE: every number and the final errno;
 *   raise CALL      a first open, then the soft limit raised by 100 through
 *                   CALL (setrlimit, setrlimit64, prlimit, prlimit64;
 *                   prlimit-tid: prlimit on a second thread's own tid,
 *                   which is the process too), then as numbers;
 *   seen N [raw|threaded|raw,threaded]
 *                   N forked children, each with a thread that reads
 *                   getrlimit while the main thread opens the device twice,
 *                   fills the table and sets O_NONBLOCK on both (a copy at
 *                   the limit): in how many the thread saw another limit;
 *                   raw: the thread a raw clone, known to no C library;
 *                   threaded: the children a threaded parent's;
 *   forkopen N      a threaded parent's N forked children, each opening
 *                   and closing the device (t_urandom.sh counts clones);
 *   forkseen N      N forked children, each with a thread that forks while
 *                   the main thread opens the device: in how many a
 *                   grandchild saw an open number at or above the soft
 *                   limit (/proc/self/fd);
 *   lowered         the table filled to 4096 under a limit of 8192, two
 *                   opens of the device above, the soft limit lowered to
 *                   1024: O_APPEND set through one (a copy-on-write with
 *                   no number free below the limit, onto a number above
 *                   it: defect 6 of issue 36 in fd_fuzz's shape, seed 113
 *                   case 1491), then the other closed and the device
 *                   opened again (natively EMFILE; reserve mode handed
 *                   out the closed number: defect 15).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void fdsize(const char *when)
{
	char b[8192], *s;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;

	if (fd >= 0)
		close(fd);
	b[n > 0 ? n : 0] = 0;
	s = strstr(b, "FDSize:");
	printf("%s: FDSize %d\n", when, s ? atoi(s + 7) : -1);
}

static void numbers(void)
{
	int i, fd;
	char c;

	for (i = 0;; i++) {
		fd = open(i % 7 ? "/dev/null" : "/dev/urandom", O_RDONLY);
		if (fd < 0) {
			printf("open %d: %s\n", i, strerror(errno));
			break;
		}
		printf("%s %d\n", i % 7 ? "null" : "urandom", fd);
	}
	/* a pooled one still reads, and a freed number is the next one */
	printf("read %zd\n", read(3 + 7 * 3, &c, 1) == 1 ? (ssize_t)1 : (ssize_t)-1);
	close(40);
	printf("reopen %d\n", open("/dev/urandom", O_RDONLY));
	fflush(stdout);
}

static struct rlimit tid_rl;

static void *raise_tid(void *p)
{
	(void)p;
	return (void *)(long)prlimit((pid_t)syscall(SYS_gettid), RLIMIT_NOFILE, &tid_rl, NULL);
}

static int raise_by(const char *call, int by)
{
	struct rlimit rl;
	pthread_t t;
	void *r;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur + by > rl.rlim_max) {
		printf("raise: skipped, hard limit under soft + %d\n", by);
		return -1;
	}
	rl.rlim_cur += by;
	if (!strcmp(call, "setrlimit"))
		return setrlimit(RLIMIT_NOFILE, &rl);
	if (!strcmp(call, "prlimit"))
		return prlimit(0, RLIMIT_NOFILE, &rl, NULL);
	if (!strcmp(call, "prlimit-tid")) {
		tid_rl = rl;
		if (pthread_create(&t, NULL, raise_tid, NULL) != 0 || pthread_join(t, &r) != 0)
			return -1;
		return (int)(long)r;
	}
#ifdef __GLIBC__
	struct rlimit64 r64 = { rl.rlim_cur, rl.rlim_max };

	if (!strcmp(call, "setrlimit64"))
		return setrlimit64(RLIMIT_NOFILE, &r64);
	if (!strcmp(call, "prlimit64"))
		return prlimit64(getpid(), RLIMIT_NOFILE, &r64, NULL);
#endif
	return -1;
}

static _Atomic int stop, running;
static rlim_t want;

static void *reader(void *p)
{
	struct rlimit rl;
	long seen = 0;

	(void)p;
	atomic_store(&running, 1);
	while (!atomic_load(&stop))
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur != want)
			seen++;
	return (void *)seen;
}

/* The reader as a thread no C library knows of (a raw clone system
 * call, x86-64 here): system calls only, on a stack of its own, and it
 * ends by the exit call. */
static _Atomic long raw_seen;

#if defined(__x86_64__)
static void raw_reader(void)
{
	struct rlimit rl;

	atomic_store(&running, 1);
	while (!atomic_load(&stop))
		if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0 || rl.rlim_cur != want)
			atomic_fetch_add(&raw_seen, 1);
	atomic_store(&running, 2);
}

static long raw_thread(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	long r;

	__asm__ volatile("syscall\n\t"
	                 "test %%rax, %%rax\n\t"
	                 "jnz 1f\n\t"
	                 "call *%%rbx\n\t"
	                 "mov $60, %%eax\n\t"  /* exit, this thread alone */
	                 "xor %%edi, %%edi\n\t"
	                 "syscall\n\t"
	                 "1:"
	                 : "=a"(r)
	                 : "a"((long)SYS_clone),
	                   "D"((long)(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
	                              CLONE_THREAD | CLONE_SYSVSEM)),
	                   "S"(stack + sizeof stack), "d"(0L), "r"(r10), "r"(r8), "b"(raw_reader)
	                 : "rcx", "r11", "memory");
	return r;
}
#else
static long raw_thread(void)
{
	return -1;
}
#endif

static int seen_once(bool raw)
{
	struct rlimit rl;
	pthread_t t;
	void *seen;
	int a, b;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max < 128)
		return 2;
	rl.rlim_cur = want = 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 2;
	if (raw ? raw_thread() <= 0 : pthread_create(&t, NULL, reader, NULL) != 0)
		return 2;
	while (!atomic_load(&running))  /* reading, on the other CPU if there is one */
		sched_yield();
	a = open("/dev/urandom", O_RDONLY);
	b = open("/dev/urandom", O_RDONLY);
	while (dup(0) >= 0)
		;
	(void)fcntl(a, F_SETFL, O_NONBLOCK);
	(void)fcntl(b, F_SETFL, O_NONBLOCK);
	atomic_store(&stop, 1);
	if (raw) {
		while (atomic_load(&running) != 2)
			sched_yield();
		return atomic_load(&raw_seen) != 0;
	}
	pthread_join(t, &seen);
	return seen != NULL;
}

static void *idle(void *p)
{
	pause();
	return p;
}

static int above_soft(void)
{
	struct rlimit rl;
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d || getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && (rlim_t)atoi(e->d_name) >= rl.rlim_cur;
	closedir(d);
	return n;
}

static void *forker(void *p)
{
	long bad = 0;
	int st;

	(void)p;
	atomic_store(&running, 1);
	while (!atomic_load(&stop)) {
		pid_t k = fork();

		if (k == 0)
			_exit(above_soft() != 0);
		if (k < 0 || waitpid(k, &st, 0) != k)
			break;
		bad += WIFEXITED(st) && WEXITSTATUS(st) == 1;
	}
	return (void *)bad;
}

static int forkseen_once(void)
{
	pthread_t t;
	void *bad;

	if (pthread_create(&t, NULL, forker, NULL) != 0)
		return 2;
	while (!atomic_load(&running))
		sched_yield();
	usleep(500);
	(void)open("/dev/urandom", O_RDONLY);
	usleep(500);
	atomic_store(&stop, 1);
	pthread_join(t, &bad);
	return bad != NULL;
}

static int lowered(void)
{
	struct rlimit rl;
	int a, b, n, r;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 8192)) {
		printf("lowered: skipped, a hard limit under 8192\n");
		return 0;
	}
	rl.rlim_cur = 8192;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1;
	while ((n = open("/dev/null", O_RDONLY)) >= 0 && n < 4095)
		;
	a = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	b = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	rl.rlim_cur = 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1;
	r = fcntl(a, F_SETFL, O_APPEND);
	printf("opens %d %d; F_SETFL O_APPEND on the first = %d, flags %#x %#x\n", a, b, r,
	       fcntl(a, F_GETFL), fcntl(b, F_GETFL));
	r = close(b);
	n = open("/dev/urandom", O_RDONLY);
	printf("close of the second = %d; open under the lowered limit = %d %s\n", r, n,
	       n < 0 ? strerror(errno) : "");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int fd, i, n, st, hits = 0, skipped = 0;

	if (!strcmp(m, "fdsize")) {
		fdsize("start");
		fd = open("/dev/urandom", O_RDONLY);
		fdsize(fd >= 0 ? "after an open of the device" : "open failed");
		return 0;
	}
	if (!strcmp(m, "numbers")) {
		numbers();
		return 0;
	}
	if (!strcmp(m, "raise") && argc > 2) {
		if ((fd = open("/dev/urandom", O_RDONLY)) >= 0)
			close(fd);
		if (raise_by(argv[2], 100) != 0)
			return 0;
		numbers();
		return 0;
	}
	if (!strcmp(m, "seen") && argc > 2) {
		bool raw = argc > 3 && strstr(argv[3], "raw");
		pthread_t t;

		n = atoi(argv[2]);
		/* "threaded": the children are a threaded parent's (no C
		 * library says one thread again in them). */
		if (argc > 3 && strstr(argv[3], "threaded") && pthread_create(&t, NULL, idle, NULL) != 0)
			return 1;
		for (i = 0; i < n; i++) {
			pid_t p = fork();

			if (p == 0)
				_exit(seen_once(raw));
			if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
				return 1;
			hits += WEXITSTATUS(st) == 1;
			skipped += WEXITSTATUS(st) == 2;
		}
		printf("another limit seen by a second thread in %d of %d children (%d skipped)\n",
		       hits, n, skipped);
		return 0;
	}
	if (!strcmp(m, "forkopen") && argc > 2) {
		pthread_t t;

		n = atoi(argv[2]);
		if (pthread_create(&t, NULL, idle, NULL) != 0)
			return 1;
		for (i = 0; i < n; i++) {
			pid_t p = fork();

			if (p == 0)
				_exit(close(open("/dev/urandom", O_RDONLY)) != 0);
			if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
				return 1;
			hits += WEXITSTATUS(st) != 0;
		}
		printf("an open and close of the device failed in %d of %d children\n", hits, n);
		return 0;
	}
	if (!strcmp(m, "forkseen") && argc > 2) {
		n = atoi(argv[2]);
		for (i = 0; i < n; i++) {
			pid_t p = fork();

			if (p == 0)
				_exit(forkseen_once());
			if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
				return 1;
			hits += WEXITSTATUS(st) == 1;
			skipped += WEXITSTATUS(st) == 2;
		}
		printf("a number at or above the soft limit in a fork's child in %d of %d (%d skipped)\n",
		       hits, n, skipped);
		return 0;
	}
	if (!strcmp(m, "lowered"))
		return lowered();
	fprintf(stderr, "usage: prog_urandom_limit fdsize|numbers|raise CALL|seen N [raw|threaded]|forkopen N|forkseen N|lowered\n");
	return 2;
}
