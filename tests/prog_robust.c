/* SPDX-License-Identifier: MIT */
/*
 * Run by t_robust.sh natively and under LD_PRELOAD, under every setting:
 * what real programs do to a preload that a unit test cannot (issue 24).
 * Each mode prints what it saw, for the script to compare with a native
 * run, and exits 0 when it got that far.
 *
 *   prog_robust thread     a thread on a 16 KiB stack (PTHREAD_STACK_MIN)
 *                          opens, reads and asks what a helper thread
 *                          would: "thread ok"
 *   prog_robust altstack   a SIGUSR1 handler on a 16 KiB sigaltstack opens
 *                          files (async-signal-safe calls only); the 64 KiB
 *                          below the stack is checked: "canary intact"
 *   prog_robust altdepth   the same handler, first calls of the process
 *                          on a 64 KiB sigaltstack: "handler ok depth N",
 *                          N the bytes of it touched (t_robust: within a
 *                          budget of native's)
 *   prog_robust sigalrm    SIGALRM every 20 us, whose handler asks
 *                          sysconf(_SC_NPROCESSORS_ONLN) while main asks
 *                          the same: "<n> <n>"
 *   prog_robust forkask N  N times: a fresh process whose thread asks the
 *                          CPU count for the first time while its main
 *                          thread forks children that ask too; a child
 *                          that does not answer within 5 s is a hang:
 *                          "hangs 0"
 *   prog_robust bigset     sched_setaffinity and pthread_setaffinity_np of
 *                          a 128-byte set passed with a size of 1 MiB (the
 *                          kernel reads only its own mask), the set at the
 *                          end of a page before an unmapped one:
 *                          "set 0 0 pthread 0"
 *   prog_robust nsfd       readlinks /proc/<getpid()>/fd/<a socket> and
 *                          /proc/self/fd/<it>: "pid ours self ours" in our
 *                          own /proc; run in a new pid namespace with the
 *                          parent's /proc, "pid other[ errno] self ours"
 *   prog_robust endless    opens /proc/stat and reads 4 KiB of it (run
 *                          where /dev/zero is bound over it): "read 4096"
 *   prog_robust badmask    the affinity calls with masks and sizes the
 *                          kernel refuses: "<call> <r> <errno>" each
 *   prog_robust badpath null|bad   open, openat, fopen, readlink,
 *                          readlinkat, the stat family, access,
 *                          faccessat and realpath (and their other
 *                          names: euidaccess, __xstat, fortified
 *                          realpath...) of a NULL or an invalid path:
 *                          "<call> <r> <errno>" each
 *   prog_robust jumps [count]  each async-signal-safe call a mitigation
 *                          answers, 3000 times while a 50 us timer's
 *                          handler siglongjmp()s out of it: per call
 *                          "<call> left=N mask=M errno=E after=A", N the
 *                          descriptors of no one's left open (the
 *                          program's own, a jump between its open and its
 *                          close, are closed first), M whether the mask is
 *                          the program's, E whether a call that returned
 *                          kept errno, A whether it still answers, in a
 *                          new thread too (a lock left taken: a hang);
 *                          "count": the jumps each took, on stderr
 *   prog_robust sigpipe none|raise  SIGPIPE blocked, raised first or
 *                          not, then an open, read and close of the device
 *                          (run with stderr a pipe whose reader is gone,
 *                          and FASTPATH_DEBUG: a line of fastpath's there):
 *                          "pending 0" or "pending 1", as natively
 *   prog_robust forkpty|login_tty  stdin closed, the device opened (it
 *                          gets 0), then a child on a pty (forkpty, or
 *                          openpty, fork and login_tty), whose 0 the C
 *                          library's own dup2 replaces: the child reads
 *                          the line its parent typed: "fd 0, child read
 *                          6 text"
 *   prog_robust login_tty_fails  the device on 0, then login_tty of
 *                          /dev/null (not a terminal: it fails, and 0 stays
 *                          the device's), then 0 made non-blocking: another
 *                          open of the device is not: "login_tty -1
 *                          nonblock 0"
 *   prog_robust stderr KIND CMD...  CMD with fd 2 a descriptor no write
 *                          can go to, or none can now: KIND piperd (a
 *                          pipe's read end, its writer open), unixlisten
 *                          (a listening socket), epoll, nbfull (a full
 *                          non-blocking pipe, its reader open): "KIND:
 *                          exited N", or "KIND: hung" after 5 s (a line
 *                          of fastpath's there must fail, as natively)
 *   prog_robust orphan MODE [ARG]  MODE in a second thread once the main
 *                          thread has exited (pthread_exit: /proc/self
 *                          has no descriptors then, so the program names
 *                          /proc/thread-self): the same lines as MODE
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <pty.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utmp.h>

#include "testutil.h"

/* This thread's /proc directory: /proc/thread-self once the main thread
 * has gone (orphan). */
static const char *self_dir = "/proc/self", *self_exe = "/proc/self/exe";

/* Opens, reads to the end and closes path: the bytes read, or -1. */
static long slurp(int dirfd, const char *path)
{
	char buf[256];
	long total = 0;
	ssize_t n;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		total += n;
	close(fd);
	return total;
}

/* Async-signal-safe calls only: what a crash reporter does.  The number
 * of calls that failed. */
static int safe_work(void)
{
	char link[64], buf[32];
	int bad = 0, sv[2], dir;

	bad += slurp(AT_FDCWD, "/etc/hostname") < 0;
	bad += slurp(AT_FDCWD, "/proc/cpuinfo") <= 0;
	bad += slurp(AT_FDCWD, "/proc/stat") <= 0;
	bad += slurp(AT_FDCWD, "/sys/devices/system/cpu/online") <= 0;
	dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bad += dir < 0 || slurp(dir, "cpuinfo") <= 0;
	if (dir >= 0)
		close(dir);
	bad += sysconf(_SC_NPROCESSORS_ONLN) <= 0;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		char p[32];

		snprintf(p, sizeof p, "%s/fd/%d", self_dir, sv[0]);
		bad += readlink(p, link, sizeof link) <= 0;
		close(sv[0]);
		close(sv[1]);
	} else {
		bad++;
	}
	dir = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	bad += dir < 0 || read(dir, buf, sizeof buf) != (ssize_t)sizeof buf;
	if (dir >= 0)
		close(dir);
	return bad;
}

/* And what a helper thread adds: stdio, affinity, the CPU it runs on. */
static void *thread_work(void *arg)
{
	cpu_set_t set;
	char buf[32];
	FILE *f;
	long bad = safe_work();

	(void)arg;
	f = fopen("/proc/cpuinfo", "r");
	bad += !f || !fgets(buf, sizeof buf, f);
	if (f)
		fclose(f);
	bad += sched_getaffinity(0, sizeof set, &set) != 0;
	bad += sched_setaffinity(0, sizeof set, &set) != 0;
	bad += pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0;
	bad += pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0;
	bad += sched_getcpu() < 0;
	bad += getrandom(buf, sizeof buf, 0) != (ssize_t)sizeof buf;
	return (void *)bad;
}

static int small_thread(void)
{
	pthread_attr_t a;
	pthread_t t;
	void *bad = NULL;

	if (pthread_attr_init(&a) || pthread_attr_setstacksize(&a, 16384) ||
	    pthread_create(&t, &a, thread_work, NULL) || pthread_join(t, &bad))
		return perror("pthread"), 2;
	printf("thread %s\n", bad ? "failed" : "ok");
	return 0;
}

/* ---- altstack ----------------------------------------------------------- */
#define ALT_SIZE 16384
#define CANARY_SIZE 65536
static volatile sig_atomic_t alt_bad = -1;

static void on_usr1(int sig)
{
	(void)sig;
	alt_bad = safe_work();
}

/* Raises SIGUSR1, its handler on_usr1 on the alternate stack sp. */
static int on_altstack(void *sp, size_t size)
{
	stack_t ss;
	struct sigaction sa;

	ss.ss_sp = sp;
	ss.ss_size = size;
	ss.ss_flags = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return perror("sigaltstack"), -1;
	raise(SIGUSR1);
	return 0;
}

static int alt_stack(void)
{
	unsigned char *map = mmap(NULL, CANARY_SIZE + ALT_SIZE, PROT_READ | PROT_WRITE,
	                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i, lo = CANARY_SIZE, hi = 0;

	if (map == MAP_FAILED)
		return perror("mmap"), 2;
	memset(map, 0xa5, CANARY_SIZE);
	if (on_altstack(map + CANARY_SIZE, ALT_SIZE))
		return 2;
	for (i = 0; i < CANARY_SIZE; i++) {
		if (map[i] != 0xa5) {
			lo = i < lo ? i : lo;
			hi = i;
		}
	}
	printf("handler %s\n", alt_bad == 0 ? "ok" : "failed");
	if (lo == CANARY_SIZE)
		printf("canary intact\n");
	else
		printf("canary overwritten from %zu to %zu bytes below the stack\n",
		       (size_t)CANARY_SIZE - hi, (size_t)CANARY_SIZE - lo);
	return 0;
}

/* ---- altdepth ----------------------------------------------------------- */
/* The stack the handler's calls take where they are the process's first:
 * what is still the pattern below the alternate stack's top is untouched.
 * The program is linked with -z now: its own first calls bind nothing. */
static int alt_depth(void)
{
	static unsigned char st[65536] __attribute__((aligned(64)));
	size_t i;

	memset(st, 0xa5, sizeof st);
	if (on_altstack(st, sizeof st))
		return 2;
	for (i = 0; i < sizeof st && st[i] == 0xa5; i++)
		;
	printf("handler %s depth %zu\n", alt_bad == 0 ? "ok" : "failed", sizeof st - i);
	return 0;
}

/* ---- sigalrm ------------------------------------------------------------ */
static volatile long alrm_answer;

static void on_alrm(int sig)
{
	(void)sig;
	alrm_answer = sysconf(_SC_NPROCESSORS_ONLN);
}

static int sig_alrm(void)
{
	struct itimerval it = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	long mine = 0;

	signal(SIGALRM, on_alrm);
	if (setitimer(ITIMER_REAL, &it, NULL))
		return perror("setitimer"), 2;
	for (int i = 0; i < 50; i++)
		mine = sysconf(_SC_NPROCESSORS_ONLN);
	/* Let the handler run at least once more after main's questions. */
	while (alrm_answer == 0)
		;
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%ld %ld\n", mine, (long)alrm_answer);
	return 0;
}

/* ---- forkask ------------------------------------------------------------ */
static atomic_int asked;

static void *ask(void *arg)
{
	(void)arg;
	(void)sysconf(_SC_NPROCESSORS_ONLN);
	atomic_store(&asked, 1);
	return NULL;
}

/* One attempt, in a process that has not asked yet: forks children while
 * its thread asks for the first time.  Exits with the number of children
 * that did not answer. */
static void attempt(void)
{
	pthread_t t;
	pid_t kids[16];
	int n = 0, hung = 0;

	if (pthread_create(&t, NULL, ask, NULL))
		_exit(100);
	while (n < 16 && (n < 2 || !atomic_load(&asked))) {
		pid_t k = fork();

		if (k == 0) {
			alarm(2);
			_exit(sysconf(_SC_NPROCESSORS_ONLN) > 0 ? 0 : 1);
		}
		if (k > 0)
			kids[n++] = k;
	}
	for (int i = 0; i < n; i++) {
		int st;

		if (waitpid(kids[i], &st, 0) == kids[i] && WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			hung++;
	}
	pthread_join(t, NULL);
	_exit(hung);
}

static int fork_ask(int rounds)
{
	int hangs = 0;

	for (int r = 0; r < rounds; r++) {
		int st;
		pid_t p = fork();

		if (p == 0)
			attempt();
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) >= 100)
			return perror("attempt"), 2;
		hangs += WEXITSTATUS(st);
	}
	printf("hangs %d\n", hangs);
	return 0;
}

/* ---- bigset ------------------------------------------------------------- */
static int big_set(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cpu_set_t *set;
	int a, b, c;

	if (map == MAP_FAILED || mprotect(map + page, (size_t)page, PROT_NONE))
		return perror("mmap"), 2;
	set = (cpu_set_t *)(void *)(map + page - sizeof *set);
	if (sched_getaffinity(0, sizeof *set, set))
		return perror("sched_getaffinity"), 2;
	a = sched_setaffinity(0, 1 << 20, set);
	b = sched_setaffinity(0, (1 << 20) + 8, set);
	c = pthread_setaffinity_np(pthread_self(), 1 << 20, set);
	printf("set %d %d pthread %d\n", a, b, c);
	return 0;
}

/* ---- badmask ------------------------------------------------------------ */
/* The affinity calls with masks the kernel refuses (NULL, an unmapped
 * address, a read-only page to get into) and sizes it refuses (0, 4, past
 * INT_MAX, past 32 bits), sched_ and pthread_ forms: "<call> <r> <errno>". */
static void mask_line(const char *what, int r, int err)
{
	printf("%s %d %d\n", what, r, r ? err : 0);
}

static int bad_mask(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *ro = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const size_t sizes[] = { 0, 4, (size_t)INT_MAX + 1, (size_t)1 << 32, SIZE_MAX };
	/* and a mask readable only in its first long, the rest unmapped: the
	 * kernel reads its own mask's bytes, more than one long (a cold
	 * review: taken whole under the cap) */
	char *edge = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	                  -1, 0);
	cpu_set_t *volatile bad[] = { NULL, (cpu_set_t *)8, (cpu_set_t *)(void *)ro,
	                              (cpu_set_t *)(void *)(edge + page - 8) };
	static char big[1 << 16];
	cpu_set_t cur;
	pthread_t me = pthread_self();
	char what[64];
	int r;

	if (ro == MAP_FAILED || edge == MAP_FAILED || sched_getaffinity(0, sizeof cur, &cur))
		return perror("setup"), 2;
	memcpy(big, &cur, sizeof cur);
	memcpy(edge + page - 8, &cur, 8);
	if (mprotect(edge + page, (size_t)page, PROT_NONE))
		return perror("setup"), 2;
	for (int i = 0; i < 4; i++) {
		r = sched_getaffinity(0, sizeof cur, bad[i]);
		snprintf(what, sizeof what, "sched_getaffinity bad%d", i);
		mask_line(what, r, errno);
		snprintf(what, sizeof what, "pthread_getaffinity_np bad%d", i);
		mask_line(what, pthread_getaffinity_np(me, sizeof cur, bad[i]), 0);
		if (i == 2)
			continue; /* a read-only mask is a good one to set */
		for (size_t len = 0; len <= sizeof cur; len += sizeof cur) {
			r = sched_setaffinity(0, len, bad[i]);
			snprintf(what, sizeof what, "sched_setaffinity bad%d size %zu", i, len);
			mask_line(what, r, errno);
			snprintf(what, sizeof what, "pthread_setaffinity_np bad%d size %zu", i, len);
			mask_line(what, pthread_setaffinity_np(me, len, bad[i]), 0);
		}
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		r = sched_getaffinity(0, sizes[i], (cpu_set_t *)(void *)big);
		snprintf(what, sizeof what, "sched_getaffinity size %zx", sizes[i]);
		mask_line(what, r, errno);
		snprintf(what, sizeof what, "pthread_getaffinity_np size %zx", sizes[i]);
		mask_line(what, pthread_getaffinity_np(me, sizes[i], (cpu_set_t *)(void *)big), 0);
		memcpy(big, &cur, sizeof cur);
		r = sched_setaffinity(0, sizes[i], (cpu_set_t *)(void *)big);
		snprintf(what, sizeof what, "sched_setaffinity size %zx", sizes[i]);
		mask_line(what, r, errno);
		snprintf(what, sizeof what, "pthread_setaffinity_np size %zx", sizes[i]);
		mask_line(what, pthread_setaffinity_np(me, sizes[i], (cpu_set_t *)(void *)big), 0);
	}
	mask_line("sched_setaffinity the mask got", sched_setaffinity(0, sizeof cur, &cur), errno);
	return 0;
}

/* ---- badpath ------------------------------------------------------------ */
#ifdef __GLIBC__
/* What programs built before glibc 2.33 call for stat, lstat and fstatat
 * (no header has them now), and the fortified realpath. */
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
char *__realpath_chk(const char *path, char *out, size_t outlen);
#if defined(__x86_64__)
#define RB_STAT_VER 1
#elif defined(__aarch64__) || defined(__riscv) || defined(__loongarch__)
#define RB_STAT_VER 0
#else
#define RB_STAT_VER 3
#endif
#endif
/* The open family, fopen and readlink with a NULL path (null) or an
 * invalid non-NULL one (bad): "<call> <r> <errno>", EFAULT natively. */
static int bad_path(const char *how)
{
	const char *volatile p = strcmp(how, "null") == 0 ? NULL : (const char *)8;
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	char buf[16];
	ssize_t n;
	FILE *f;

	errno = 0;
	fd = open(p, O_RDONLY);
	printf("open %d %d\n", fd, fd < 0 ? errno : 0);
	errno = 0;
	fd = openat(AT_FDCWD, p, O_RDONLY);
	printf("openat %d %d\n", fd, fd < 0 ? errno : 0);
	errno = 0;
	fd = openat(proc, p, O_RDONLY);
	printf("openat /proc %d %d\n", fd, fd < 0 ? errno : 0);
	errno = 0;
	f = fopen(p, "r");
	printf("fopen %s %d\n", f ? "stream" : "NULL", f ? 0 : errno);
	errno = 0;
	n = readlink(p, buf, sizeof buf);
	printf("readlink %zd %d\n", n, errno);
	errno = 0;
	n = readlinkat(proc, p, buf, sizeof buf);
	printf("readlinkat %zd %d\n", n, errno);
	/* The cap's names (cpus_fd.c): their prototypes' nonnull let the
	 * compiler delete the NULL test (a cold review: SIGSEGV). */
	{
		struct stat st;
		struct statx sx;
		char *r;

		errno = 0;
		fd = stat(p, &st);
		printf("stat %d %d\n", fd, errno);
		errno = 0;
		fd = lstat(p, &st);
		printf("lstat %d %d\n", fd, errno);
		errno = 0;
		fd = fstatat(AT_FDCWD, p, &st, 0);
		printf("fstatat %d %d\n", fd, errno);
		errno = 0;
		fd = statx(AT_FDCWD, p, 0, STATX_BASIC_STATS, &sx);
		printf("statx %d %d\n", fd, errno);
		errno = 0;
		fd = access(p, F_OK);
		printf("access %d %d\n", fd, errno);
		errno = 0;
		fd = faccessat(AT_FDCWD, p, F_OK, 0);
		printf("faccessat %d %d\n", fd, errno);
		errno = 0;
		r = realpath(p, NULL);
		printf("realpath %s %d\n", r ? "path" : "NULL", errno);
		free(r);
		/* Their other names (cpus_compat.c). */
		errno = 0;
		fd = euidaccess(p, F_OK);
		printf("euidaccess %d %d\n", fd, errno);
		errno = 0;
		fd = eaccess(p, F_OK);
		printf("eaccess %d %d\n", fd, errno);
#ifdef __GLIBC__
		errno = 0;
		fd = __xstat(RB_STAT_VER, p, &st);
		printf("__xstat %d %d\n", fd, errno);
		errno = 0;
		fd = __lxstat(RB_STAT_VER, p, &st);
		printf("__lxstat %d %d\n", fd, errno);
		errno = 0;
		fd = __fxstatat(RB_STAT_VER, AT_FDCWD, p, &st, 0);
		printf("__fxstatat %d %d\n", fd, errno);
		errno = 0;
		r = canonicalize_file_name(p);
		printf("canonicalize_file_name %s %d\n", r ? "path" : "NULL", errno);
		free(r);
		{
			char buf[PATH_MAX];

			errno = 0;
			r = __realpath_chk(p, buf, sizeof buf);
			printf("__realpath_chk %s %d\n", r ? "path" : "NULL", errno);
		}
#endif
	}
	return 0;
}

/* ---- nsfd --------------------------------------------------------------- */
/* "ours" when path names our socket, else "other" and the errno if any. */
static void link_is(const char *label, const char *path, const char *mine)
{
	char got[128];
	ssize_t n;

	errno = 0;
	n = readlink(path, got, sizeof got - 1);
	if (n >= 0)
		got[n] = '\0';
	if (n >= 0 && strcmp(got, mine) == 0)
		printf("%s ours", label);
	else if (n >= 0)
		printf("%s other", label);
	else
		printf("%s other errno %d", label, errno);
}

static int ns_fd(void)
{
	char path[64], mine[64];
	struct stat st;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || fstat(sv[0], &st))
		return perror("socketpair"), 2;
	snprintf(mine, sizeof mine, "socket:[%lu]", (unsigned long)st.st_ino);
	snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)getpid(), sv[0]);
	link_is("pid", path, mine);
	snprintf(path, sizeof path, "%s/fd/%d", self_dir, sv[0]);
	link_is(" self", path, mine);
	printf("\n");
	return 0;
}

/* ---- endless ------------------------------------------------------------ */
static int endless(void)
{
	static char buf[4096];
	size_t got = 0;
	ssize_t n = 0;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return perror("open /proc/stat"), 2;
	while (got < sizeof buf && (n = read(fd, buf + got, sizeof buf - got)) > 0)
		got += (size_t)n;
	close(fd);
	printf("read %zu\n", got);
	return 0;
}

/* ---- jumps -------------------------------------------------------------- */
/* The descriptors the calls use, open before the loops. */
static int jp_sock[2] = { -1, -1 }, jp_pipe[2] = { -1, -1 }, jp_file = -1, jp_stat = -1,
           jp_dev = -1;
static __thread sigjmp_buf jp_env;
static volatile sig_atomic_t jp_armed;
static sigset_t jp_mask; /* the program's, SIGALRM added: the handler's on a jump */
static char jp_open[1024]; /* the numbers open before a loop */
static volatile int jp_cur = -1; /* the call's own descriptor, closed at a jump */

static void jp_handler(int sig)
{
	(void)sig;
	if (jp_armed)
		siglongjmp(jp_env, 1);
}

static bool jp_read(int fd)
{
	char b[64];

	return fd >= 0 && read(fd, b, sizeof b) > 0;
}

/* An open, a read and a close of path: a jump between the open and the
 * close leaves the program's own descriptor, which the loop closes. */
static bool jp_open_read(const char *path)
{
	int fd = jp_cur = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = jp_read(fd);

	if (fd >= 0)
		close(fd);
	jp_cur = -1;
	return ok;
}

static bool jp_readlink(int fd)
{
	char p[64], b[256];

	snprintf(p, sizeof p, "%s/fd/%d", self_dir, fd);
	return readlink(p, b, sizeof b) > 0;
}

static bool op_rl_sock(void) { return jp_readlink(jp_sock[0]); }
static bool op_rl_pipe(void) { return jp_readlink(jp_pipe[0]); }
static bool op_rl_file(void) { return jp_readlink(jp_file); }
static bool op_open_stat(void) { return jp_open_read("/proc/stat"); }
static bool op_open_cpuinfo(void) { return jp_open_read("/proc/cpuinfo"); }
static bool op_open_online(void) { return jp_open_read("/sys/devices/system/cpu/online"); }
static bool op_seek_stat(void) { return lseek(jp_stat, 0, SEEK_SET) == 0 && jp_read(jp_stat); }
static bool op_pread_stat(void)
{
	char b[64];

	return pread(jp_stat, b, sizeof b, 0) > 0;
}
static bool op_sysconf(void) { return sysconf(_SC_NPROCESSORS_ONLN) > 0; }
static bool op_nprocs(void) { return get_nprocs() > 0; }
static bool op_getaff(void)
{
	cpu_set_t s;

	return sched_getaffinity(0, sizeof s, &s) == 0;
}
static bool op_setaff(void)
{
	cpu_set_t s;

	return sched_getaffinity(0, sizeof s, &s) == 0 && sched_setaffinity(0, sizeof s, &s) == 0;
}
static bool op_open_dev(void) { return jp_open_read("/dev/urandom"); }
static bool op_read_dev(void) { return jp_read(jp_dev); }
static bool op_dup_dev(void)
{
	int fd = jp_cur = dup(jp_dev);
	bool ok = jp_read(fd);

	if (fd >= 0)
		close(fd);
	jp_cur = -1;
	return ok;
}
static bool op_getrandom(void)
{
	char b[16];

	return getrandom(b, sizeof b, 0) == (ssize_t)sizeof b;
}

/* Each call, and what the program itself may have left open at a jump
 * (a file it opened, as procfs or sysfs names it, or as the copy the cap
 * serves: a memfd, or a named file at the descriptor limit): closed
 * before the count; anything else left is no one's. */
static const struct {
	const char *name;
	bool (*op)(void);
	const char *own[3];
	bool errno_varies; /* natively: the C library's own files may set it */
} jp_ops[] = {
	{ "readlink-socket", op_rl_sock, { NULL, NULL }, false },
	{ "readlink-pipe", op_rl_pipe, { NULL, NULL }, false },
	{ "readlink-file", op_rl_file, { NULL, NULL }, false },
	{ "open-stat", op_open_stat, { "/proc/stat", "/memfd:stat", "/dev/shm/.fastpath-cpus-" }, false },
	{ "open-cpuinfo", op_open_cpuinfo,
	  { "/proc/cpuinfo", "/memfd:cpuinfo", "/dev/shm/.fastpath-cpus-" }, false },
	{ "open-online", op_open_online,
	  { "/sys/devices/system/cpu/online", "/memfd:online", "/dev/shm/.fastpath-cpus-" }, false },
	{ "seek-stat", op_seek_stat, { NULL, NULL }, false },
	{ "pread-stat", op_pread_stat, { NULL, NULL }, false },
	/* glibc's own reads of the CPU list, for the program */
	{ "sysconf", op_sysconf, { "/sys/devices/system/cpu/online", "/proc/stat" }, true },
	{ "get_nprocs", op_nprocs, { "/sys/devices/system/cpu/online", "/proc/stat" }, true },
	{ "getaffinity", op_getaff, { NULL, NULL }, false },
	{ "setaffinity", op_setaff, { NULL, NULL }, false },
	{ "open-urandom", op_open_dev, { "/dev/urandom", NULL }, false },
	{ "read-urandom", op_read_dev, { NULL, NULL }, false },
	{ "dup-urandom", op_dup_dev, { "/dev/urandom", NULL }, false },
	{ "getrandom", op_getrandom, { NULL, NULL }, false },
};

static bool jp_programs(size_t op, int fd)
{
	char p[64], b[256];
	ssize_t n;

	snprintf(p, sizeof p, "%s/fd/%d", self_dir, fd);
	if ((n = readlink(p, b, sizeof b - 1)) < 0)
		return false;
	b[n] = '\0';
	for (size_t i = 0; i < 3; i++)
		if (jp_ops[op].own[i] && strncmp(b, jp_ops[op].own[i], strlen(jp_ops[op].own[i])) == 0)
			return true;
	return false;
}

/* Descriptors opened since the snapshot and no one's: the program's own
 * are closed. */
static int jp_left(size_t op)
{
	int left = 0;

	for (int fd = 0; fd < (int)sizeof jp_open; fd++) {
		if (jp_open[fd] || fcntl(fd, F_GETFD) < 0)
			continue;
		if (jp_programs(op, fd))
			close(fd);
		else
			left++;
	}
	return left;
}

static void *jp_again(void *op)
{
	return ((bool (*)(void))op)() ? (void *)1 : NULL;
}

/* The call once more, in a thread of its own: a lock a jump left taken
 * would hold it (5 s: a hang). */
static const char *jp_after(bool (*op)(void))
{
	struct timespec until;
	pthread_t t;
	void *r = NULL;

	if (!op())
		return "fails";
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	if (pthread_create(&t, NULL, jp_again, (void *)op) != 0)
		return "nothread";
	if (pthread_timedjoin_np(t, &r, &until) != 0)
		return "hangs";
	return r ? "ok" : "fails";
}

static int jumps(bool count)
{
	struct itimerval on = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t now;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, jp_sock) || pipe(jp_pipe) ||
	    (jp_file = open(self_exe, O_RDONLY)) < 0 ||
	    (jp_stat = open("/proc/stat", O_RDONLY)) < 0 || (jp_dev = open("/dev/urandom", O_RDONLY)) < 0)
		return perror("jumps: setup"), 2;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = jp_handler;
	sigaction(SIGALRM, &sa, NULL);
	sigprocmask(SIG_SETMASK, NULL, &jp_mask);
	sigaddset(&jp_mask, SIGALRM);
	for (size_t i = 0; i < sizeof jp_ops / sizeof jp_ops[0]; i++) {
		static volatile int k, jumped;
		static volatile bool mask_ok, errno_ok;
		sigset_t base;

		(void)jp_ops[i].op(); /* first calls (learning, binding) unjumped */
		for (int fd = 0; fd < (int)sizeof jp_open; fd++)
			jp_open[fd] = fcntl(fd, F_GETFD) >= 0;
		sigprocmask(SIG_SETMASK, NULL, &base);
		mask_ok = errno_ok = true;
		jumped = 0;
		setitimer(ITIMER_REAL, &on, NULL);
		for (k = 0; k < 3000; k++) {
			if (sigsetjmp(jp_env, 0)) {
				/* A jump's mask is the handler's: the program's and
				 * SIGALRM, nothing of ours. */
				jp_armed = 0;
				jumped++;
				if (jp_cur >= 0)
					close(jp_cur); /* the program's, as it would */
				jp_cur = -1;
				sigprocmask(SIG_SETMASK, NULL, &now);
				for (int sig = 1; sig < SIGRTMIN; sig++)
					if (sigismember(&now, sig) != sigismember(&jp_mask, sig))
						mask_ok = false;
				sigprocmask(SIG_SETMASK, &base, NULL);
				continue;
			}
			jp_armed = 1;
			errno = 1234;
			if (jp_ops[i].op() && errno != 1234)
				errno_ok = false;
			jp_armed = 0;
		}
		setitimer(ITIMER_REAL, &off, NULL);
		jp_armed = 0;
		sigprocmask(SIG_SETMASK, NULL, &now);
		for (int sig = 1; sig < SIGRTMIN; sig++)
			if (sigismember(&now, sig) != sigismember(&base, sig))
				mask_ok = false;
		/* how many, asked for: the machine's timing, not compared */
		if (count)
			fprintf(stderr, "%s: %d jumps\n", jp_ops[i].name, jumped);
		int left = jp_left(i); /* before the call again: its room */

		printf("%s left=%d mask=%s errno=%s after=%s\n", jp_ops[i].name, left,
		       mask_ok ? "ok" : "changed",
		       jp_ops[i].errno_varies ? "-" : errno_ok ? "kept" : "changed", jp_after(jp_ops[i].op));
	}
	return 0;
}

static int sig_pipe(bool raise_first)
{
	sigset_t s, p;
	char b[8];
	int fd;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &s, NULL) != 0 || (raise_first && raise(SIGPIPE) != 0))
		return 1;
	fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b || close(fd) != 0)
		return 1;
	if (sigpending(&p) != 0)
		return 1;
	printf("pending %d\n", sigismember(&p, SIGPIPE));
	return 0;
}

static int pty_child(bool direct)
{
	int log = dup(1), m = -1, sl = -1, st, u;
	char b[64];
	pid_t p;

	close(0);
	u = open("/dev/urandom", O_RDONLY);
	if (direct) {
		if (openpty(&m, &sl, NULL, NULL, NULL) != 0)
			return 1;
		if ((p = fork()) == 0 && login_tty(sl) != 0)
			_exit(1);
	} else {
		p = forkpty(&m, NULL, NULL, NULL);
	}
	if (p == 0) {
		ssize_t n = read(0, b, sizeof b);
		bool text = n > 0;

		for (ssize_t i = 0; i < n; i++)
			text = text && (b[i] == '\n' || b[i] == '\r' || (b[i] >= ' ' && b[i] <= 126));
		dprintf(log, "fd %d, child read %zd %s\n", u, n, text ? "text" : "binary");
		_exit(0);
	}
	if (p < 0 || write(m, "hello\n", 6) != 6 || waitpid(p, &st, 0) != p)
		return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static int stderr_kind(const char *k, char **cmd)
{
	int fd = -1, p[2], st, i;
	pid_t c;

	if (!strcmp(k, "piperd") && pipe(p) == 0) {
		fd = p[0];
	} else if (!strcmp(k, "unixlisten")) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(sa_family_t)) != 0 || listen(fd, 1) != 0)
			return 1;
	} else if (!strcmp(k, "epoll")) {
		fd = epoll_create1(0);
	} else if (!strcmp(k, "nbfull") && pipe(p) == 0) {
		fd = p[1];
		if (fcntl(fd, F_SETFL, O_NONBLOCK) != 0)
			return 1;
		while (write(fd, "xxxxxxxxxxxxxxxx", 16) > 0)
			;
	}
	if (fd < 0)
		return 2;
	if ((c = fork()) == 0) {
		dup2(fd, 2);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	for (i = 0; i < 500; i++) {
		if (waitpid(c, &st, WNOHANG) == c) {
			printf("%s: exited %d\n", k, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			return 0;
		}
		usleep(10000);
	}
	printf("%s: hung\n", k);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	return 1;
}

static int login_tty_fails(void)
{
	struct rlimit rl;
	int r, other;

	/* Room above the soft limit for exact mode's hidden descriptor (with
	 * none, opens are real and there is nothing to share). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur == rl.rlim_max && rl.rlim_max > 64) {
		rl.rlim_cur = rl.rlim_max / 2;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	close(0);
	if (open("/dev/urandom", O_RDONLY) != 0)
		return 1;
	r = login_tty(open("/dev/null", O_RDWR));
	if (fcntl(0, F_SETFL, O_NONBLOCK) != 0 || (other = open("/dev/urandom", O_RDONLY)) < 0)
		return 1;
	printf("login_tty %d nonblock %d\n", r, !!(fcntl(other, F_GETFL) & O_NONBLOCK));
	return 0;
}

static int run(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "thread"))
		return small_thread();
	if (!strcmp(m, "altstack"))
		return alt_stack();
	if (!strcmp(m, "altdepth"))
		return alt_depth();
	if (!strcmp(m, "sigalrm"))
		return sig_alrm();
	if (!strcmp(m, "forkask"))
		return fork_ask(argc > 2 ? atoi(argv[2]) : 100);
	if (!strcmp(m, "bigset"))
		return big_set();
	if (!strcmp(m, "endless"))
		return endless();
	if (!strcmp(m, "nsfd"))
		return ns_fd();
	if (!strcmp(m, "badmask"))
		return bad_mask();
	if (argc > 2 && !strcmp(m, "badpath"))
		return bad_path(argv[2]);
	if (!strcmp(m, "jumps"))
		return jumps(argc > 2 && !strcmp(argv[2], "count"));
	if (!strcmp(m, "login_tty_fails"))
		return login_tty_fails();
	if (argc > 3 && !strcmp(m, "stderr"))
		return stderr_kind(argv[2], argv + 3);
	if (!strcmp(m, "forkpty") || !strcmp(m, "login_tty"))
		return pty_child(!strcmp(m, "login_tty"));
	if (argc > 2 && !strcmp(m, "sigpipe"))
		return sig_pipe(!strcmp(argv[2], "raise"));
	fprintf(stderr, "usage: prog_robust [orphan] thread|altstack|altdepth|sigalrm|forkask [N]|bigset|"
	                "endless|nsfd|badmask|badpath null|bad|jumps [count]|sigpipe none|raise|forkpty|login_tty|login_tty_fails|stderr KIND CMD...\n");
	return 2;
}

static int orphan_argc;
static char **orphan_argv;

/* The mode, in the thread the process lives on in. */
static int orphan(void *unused)
{
	(void)unused;
	return run(orphan_argc, orphan_argv);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2 || strcmp(argv[1], "orphan") != 0)
		return run(argc, argv);
	self_dir = "/proc/thread-self";
	self_exe = "/proc/thread-self/exe";
	orphan_argc = argc - 1;
	orphan_argv = argv + 1;
	tu_orphan(orphan, NULL);
}
