/* SPDX-License-Identifier: MIT */
/*
 * prog_stress_mixed SECONDS: everything at once, for a bounded time, with
 * the invariants checked at the end (make check-stress; run natively and
 * under fastpath.so, natively it proves the test itself):
 *   - 4 reader threads: open/read/close cycles of /dev/urandom and
 *     /dev/random, O_CLOEXEC and plain, through dup, dup2, dup3, F_DUPFD
 *     and F_DUPFD_CLOEXEC copies;
 *   - a fork thread: each child opens and reads (fresh and inherited
 *     descriptors) and sends its blocks back through a pipe;
 *   - an exec thread: fork+exec and posix_spawn of this program in mode
 *     "execcheck", which fails if it inherited any descriptor of the device
 *     (the reserve must be FD_CLOEXEC);
 *   - a signal thread: SIGUSR1 to every other thread; the handler reads the
 *     device (and now and then opens, reads and closes it);
 *   - 2 readlink threads: /proc/self/fd/N of their own pipe and socket
 *     (exact answer from fstat), of the device, and of every entry.
 * The run lasts SECONDS and until every thread has made MIN_ITER
 * iterations, however slow the host or the tool (drd may take the whole of
 * SECONDS to start the threads): progress is judged from what each thread
 * did, never from samples taken in a window.  At the end: no thread
 * stalled (watchdog), every thread made MIN_ITER iterations, no descriptor
 * leaked (check_fds: what fastpath may keep, by mode), no 16-byte block
 * seen twice or all zero across threads, handlers and children.  The last
 * line before the summary gives the counts that tests/h_stress.sh compares
 * with FASTPATH_STATS.
 *
 * A plain (inheritable) descriptor of the device may exist only while the
 * thread holds `inherit` for reading; the exec thread forks holding it for
 * writing, so at that instant every device descriptor of the program is
 * close-on-exec and the child must see none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

typedef struct { unsigned char b[16]; } block;

enum { NREADERS = 4, NRL = 2, NTHREADS = NREADERS + NRL + 3 };
enum { T_FORK = NREADERS + NRL, T_EXEC, T_SIG };
#define REC_CAP (1u << 21)        /* blocks recorded per reader thread (32 MiB) */
#define SIG_CAP (1u << 18)
#define CHILD_BLOCKS 5
/* Every limit below bounds a hang; none decides a pass by speed. */
#define MIN_ITER 10               /* iterations every thread makes before the stop */
#define STALL_SECS 120            /* a thread without progress this long: deadlock */
#define GRACE_SECS 300            /* past SECONDS, for the slowest to reach MIN_ITER */

extern char **environ;

static atomic_bool stop;
static pthread_rwlock_t inherit;
static int g_fd;                  /* O_CLOEXEC, open all run: handlers read it */
/* argv[0] when it is a path: under valgrind /proc/self/exe is the tool. */
static const char *self_exe = "/proc/self/exe";
static pthread_t tids[NTHREADS];
static _Atomic unsigned long progress[NTHREADS];
static atomic_bool ended[NTHREADS];  /* the thread's function returned */
static atomic_int nbad;

/* What this process did (the parent only), for the counters. */
static _Atomic unsigned long n_opens, n_reads, n_rl, n_rl_short;
static _Atomic unsigned long n_forks, n_execs, n_sigs;

struct rec {
	block *v;
	size_t n, cap;
};
static struct rec rec[NREADERS + 1];  /* readers, then the fork thread's children */
static block *sig_v;
static atomic_uint sig_n;

#define BAD(...)                                                               \
	do {                                                                   \
		if (atomic_fetch_add(&nbad, 1) < 20) {                         \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                 \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

static void put(struct rec *r, const block *b)
{
	if (r->n < r->cap)
		r->v[r->n++] = *b;
}

static int dev_open(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | flags);

	if (fd < 0)
		BAD("open %s: %s", path, strerror(errno));
	else
		atomic_fetch_add_explicit(&n_opens, 1, memory_order_relaxed);
	return fd;
}

static void dev_read(int fd, struct rec *r, const char *how)
{
	block b;
	ssize_t n = read(fd, &b, sizeof b);

	atomic_fetch_add_explicit(&n_reads, 1, memory_order_relaxed);
	if (n != (ssize_t)sizeof b)
		BAD("read (%s) of fd %d: %zd, %s", how, fd, n, strerror(errno));
	else
		put(r, &b);
}

static void dev_close(int fd, const char *how)
{
	if (close(fd) != 0)
		BAD("close (%s) of fd %d: %s", how, fd, strerror(errno));
}

/* ---- readers ------------------------------------------------------------ */
static void cycle(struct rec *r, unsigned k)
{
	int fd, a, b;

	switch (k % 5) {
	case 0:
		if ((fd = dev_open("/dev/urandom", O_CLOEXEC)) < 0)
			return;
		dev_read(fd, r, "cloexec");
		dev_read(fd, r, "cloexec");
		dev_close(fd, "cloexec");
		break;
	case 1:  /* plain, copied by dup and dup2 onto an unrelated number */
		pthread_rwlock_rdlock(&inherit);
		if ((fd = dev_open("/dev/urandom", 0)) >= 0) {
			dev_read(fd, r, "plain");
			if ((a = dup(fd)) < 0)
				BAD("dup: %s", strerror(errno));
			else
				dev_read(a, r, "dup");
			b = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (b < 0 || dup2(fd, b) != b)
				BAD("dup2: %s", strerror(errno));
			else
				dev_read(b, r, "dup2");
			dev_close(fd, "plain");
			if (a >= 0)
				dev_read(a, r, "dup after close");
			if (b >= 0)
				dev_close(b, "dup2");
			if (a >= 0)
				dev_close(a, "dup");
		}
		pthread_rwlock_unlock(&inherit);
		break;
	case 2:  /* close-on-exec copies only: no lock */
		if ((fd = dev_open("/dev/urandom", O_CLOEXEC)) < 0)
			return;
		a = fcntl(fd, F_DUPFD_CLOEXEC, 20);
		b = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (a < 0 || b < 0 || dup3(fd, b, O_CLOEXEC) != b)
			BAD("F_DUPFD_CLOEXEC/dup3: %s", strerror(errno));
		dev_close(fd, "cloexec");
		if (a >= 0) {
			dev_read(a, r, "F_DUPFD_CLOEXEC");
			dev_close(a, "F_DUPFD_CLOEXEC");
		}
		if (b >= 0) {
			dev_read(b, r, "dup3");
			dev_close(b, "dup3");
		}
		break;
	case 3:  /* plain F_DUPFD copy, and FD_CLOEXEC turned on and off */
		pthread_rwlock_rdlock(&inherit);
		if ((fd = dev_open("/dev/urandom", O_CLOEXEC)) >= 0) {
			if (fcntl(fd, F_SETFD, 0) != 0 || (a = fcntl(fd, F_DUPFD, 10)) < 0) {
				BAD("F_SETFD/F_DUPFD: %s", strerror(errno));
			} else {
				dev_read(a, r, "F_DUPFD");
				dev_close(a, "F_DUPFD");
			}
			if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
				BAD("F_SETFD: %s", strerror(errno));
			dev_read(fd, r, "F_SETFD");
			dev_close(fd, "F_SETFD");
		}
		pthread_rwlock_unlock(&inherit);
		break;
	case 4:
		pthread_rwlock_rdlock(&inherit);
		if ((fd = dev_open("/dev/random", k & 8 ? O_CLOEXEC : 0)) >= 0) {
			dev_read(fd, r, "random");
			dev_close(fd, "random");
		}
		pthread_rwlock_unlock(&inherit);
		break;
	}
}

static void *reader(void *arg)
{
	int i = (int)(size_t)arg;
	unsigned k;

	for (k = (unsigned)i; !atomic_load(&stop); k++) {
		cycle(&rec[i], k);
		atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
	}
	return NULL;
}

/* ---- fork: children read the device too ------------------------------- */
static void *forker(void *arg)
{
	struct rec *r = &rec[NREADERS];

	(void)arg;
	while (!atomic_load(&stop)) {
		block c[CHILD_BLOCKS];
		size_t got = 0;
		int p[2], st, i;
		pid_t pid;

		if (pipe2(p, O_CLOEXEC) != 0) {
			BAD("pipe2: %s", strerror(errno));
			return NULL;
		}
		pid = fork();
		if (pid == 0) {
			int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

			for (i = 0; i < CHILD_BLOCKS; i++)
				if (read(i & 1 ? g_fd : fd, &c[i], 16) != 16)
					_exit(1);
			_exit(write(p[1], c, sizeof c) == sizeof c && close(fd) == 0 ? 0 : 2);
		}
		close(p[1]);
		if (pid < 0) {
			BAD("fork: %s", strerror(errno));
			close(p[0]);
			return NULL;
		}
		while (got < sizeof c) {
			ssize_t n = read(p[0], (char *)c + got, sizeof c - got);

			if (n <= 0 && !(n < 0 && errno == EINTR))
				break;
			if (n > 0)
				got += (size_t)n;
		}
		close(p[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (got != sizeof c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			BAD("fork child: %zu bytes, status %#x", got, st);
		else
			for (i = 0; i < CHILD_BLOCKS; i++)
				put(r, &c[i]);
		atomic_fetch_add(&n_forks, 1);
		atomic_fetch_add_explicit(&progress[T_FORK], 1, memory_order_relaxed);
	}
	return NULL;
}

/* ---- exec: the child must inherit no descriptor of the device ---------- */
static bool is_device_link(const char *path)
{
	char t[64];
	ssize_t n = readlink(path, t, sizeof t - 1);

	if (n < 0)
		return false;
	t[n] = '\0';
	return strcmp(t, "/dev/urandom") == 0 || strcmp(t, "/dev/random") == 0;
}

static int mode_execcheck(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char p[300];
	int bad = 0;

	if (!d)
		return 2;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		if (is_device_link(p)) {
			fprintf(stderr, "execcheck: inherited fd %s of the device\n", e->d_name);
			bad = 1;
		}
	}
	closedir(d);
	return bad;
}

static void *execer(void *arg)
{
	char self[] = "prog_stress_mixed", mode[] = "execcheck";
	char *av[] = { self, mode, NULL };
	unsigned k;

	(void)arg;
	for (k = 0; !atomic_load(&stop); k++) {
		pid_t pid;
		int st, e = 0;

		pthread_rwlock_wrlock(&inherit);
		if (k & 1) {
			e = posix_spawn(&pid, self_exe, NULL, NULL, av, environ);
		} else if ((pid = fork()) == 0) {
			execve(self_exe, av, environ);
			_exit(127);
		} else if (pid < 0) {
			e = errno;
		}
		pthread_rwlock_unlock(&inherit);
		if (e) {
			BAD("%s: %s", k & 1 ? "posix_spawn" : "fork", strerror(e));
			return NULL;
		}
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			BAD("exec'd child (%s): status %#x", k & 1 ? "posix_spawn" : "fork+exec", st);
		atomic_fetch_add(&n_execs, 1);
		atomic_fetch_add_explicit(&progress[T_EXEC], 1, memory_order_relaxed);
	}
	return NULL;
}

/* ---- signals: the handler reads the device ------------------------------ */
static void on_usr1(int sig)
{
	int e = errno;
	unsigned i = atomic_fetch_add_explicit(&sig_n, 1, memory_order_relaxed);
	block scratch, *b = i < SIG_CAP ? &sig_v[i] : &scratch;
	int fd = g_fd;

	(void)sig;
	/* Now and then a whole cycle, which may land inside any of ours. */
	if (i % 4 == 0 && (fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0)
		atomic_fetch_add_explicit(&n_opens, 1, memory_order_relaxed);
	if (fd < 0 || read(fd, b, sizeof *b) != (ssize_t)sizeof *b) {
		static const char m[] = "FAIL: read in a signal handler\n";

		atomic_fetch_add(&nbad, 1);
		(void)!write(2, m, sizeof m - 1);
		memset(b, 0xa5, sizeof *b);  /* not a repeat of anything */
		b->b[0] = (unsigned char)i;
		memcpy(b->b + 1, &i, sizeof i);
	}
	atomic_fetch_add_explicit(&n_reads, 1, memory_order_relaxed);
	if (fd != g_fd && close(fd) != 0)
		atomic_fetch_add(&nbad, 1);
	errno = e;
}

static void *signaller(void *arg)
{
	struct timespec ts = { 0, 200000 };
	unsigned k;

	(void)arg;
	for (k = 0; !atomic_load(&stop); k++) {
		int t = (int)(k % (NREADERS + NRL + 2));  /* readers, readlinkers, fork, exec */

		if (pthread_kill(tids[t], SIGUSR1) == 0)
			atomic_fetch_add_explicit(&n_sigs, 1, memory_order_relaxed);
		nanosleep(&ts, NULL);
		atomic_fetch_add_explicit(&progress[T_SIG], 1, memory_order_relaxed);
	}
	return NULL;
}

/* ---- readlink of /proc/self/fd ------------------------------------------ */
/* Through /proc/self (the leader's table: fastpath passes it on from
 * another thread) or /proc/thread-self (ours: a pipe or socket is answered
 * from fstat, and counted as short-circuited). */
static void rl_expect(const char *self, int fd, const char *want)
{
	char p[64], t[128];
	ssize_t n;
	bool shortcut = strcmp(self, "thread-self") == 0 && want[0] != '/';

	snprintf(p, sizeof p, "/proc/%s/fd/%d", self, fd);
	n = readlink(p, t, sizeof t);
	atomic_fetch_add_explicit(&n_rl, 2, memory_order_relaxed);
	if (shortcut)
		atomic_fetch_add_explicit(&n_rl_short, 2, memory_order_relaxed);
	if (n != (ssize_t)strlen(want) || memcmp(t, want, (size_t)n) != 0)
		BAD("readlink %s: %zd [%.*s], want [%s]", p, n, n > 0 ? (int)n : 0, t, want);
	/* A short buffer gets the first bytes, no terminator. */
	n = readlink(p, t, 3);
	if (n != 3 || memcmp(t, want, 3) != 0)
		BAD("readlink %s, 3 bytes: %zd", p, n);
}

static void rl_scan(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d) {
		BAD("opendir /proc/self/fd: %s", strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char p[300], t[256];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		/* Other threads close descriptors all the time: ENOENT is fine. */
		if (readlink(p, t, sizeof t) <= 0 && errno != ENOENT)
			BAD("readlink %s: %s", p, strerror(errno));
		atomic_fetch_add_explicit(&n_rl, 1, memory_order_relaxed);
	}
	closedir(d);
}

/* A pipe and a socket pair, and the kernel's name of each end. */
static bool rl_make(int p[2], int s[2], char want[4][40])
{
	if (pipe2(p, O_CLOEXEC) != 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) != 0) {
		BAD("pipe/socketpair: %s", strerror(errno));
		return false;
	}
	for (int j = 0; j < 4; j++) {
		struct stat st;
		int fd = j < 2 ? p[j] : s[j - 2];

		fstat(fd, &st);
		snprintf(want[j], sizeof want[j], "%s:[%lu]", j < 2 ? "pipe" : "socket",
		         (unsigned long)st.st_ino);
	}
	return true;
}

/* fastpath learns which file systems are pipefs and sockfs from the
 * kernel's answer to the first readlink of each: that one, and any
 * another thread makes before it is learnt, is the kernel's, not
 * short-circuited (fastpath(7)).  Learnt here, counted as the kernel's,
 * before any thread, every later one is, and the stats line must say so exactly
 * (STRESS_LEARN_FIRST=1, h_stress.sh's counted runs); without it the
 * readlink threads race to learn, their answers checked all the same. */
static void rl_learn_first(void)
{
	int p[2], s[2];
	char want[4][40], path[64], t[64];

	if (!rl_make(p, s, want))
		return;
	snprintf(path, sizeof path, "/proc/thread-self/fd/%d", p[0]);
	(void)!readlink(path, t, sizeof t);
	snprintf(path, sizeof path, "/proc/thread-self/fd/%d", s[0]);
	(void)!readlink(path, t, sizeof t);
	atomic_fetch_add_explicit(&n_rl, 2, memory_order_relaxed); /* not short */
	rl_expect("thread-self", p[0], want[0]);
	rl_expect("thread-self", s[0], want[2]);
	close(p[0]), close(p[1]), close(s[0]), close(s[1]);
}

static void *rlthread(void *arg)
{
	int i = (int)(size_t)arg, p[2], s[2], j;
	char want[4][40];
	unsigned k;

	if (!rl_make(p, s, want))
		return NULL;
	for (k = 0; !atomic_load(&stop); k++) {
		const char *self = k & 1 ? "thread-self" : "self";

		for (j = 0; j < 4; j++)
			rl_expect(self, j < 2 ? p[j] : s[j - 2], want[j]);
		rl_expect(self, g_fd, "/dev/urandom");
		if (k % 64 == 0)
			rl_scan();
		atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
	}
	close(p[0]), close(p[1]), close(s[0]), close(s[1]);
	return NULL;
}

/* ---- descriptors before and after -------------------------------------- */
#define FD_MAX 4096

static int list_fds(unsigned char *set)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	memset(set, 0, FD_MAX);
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(d) || fd >= FD_MAX)
			continue;
		set[fd] = 1;
		n++;
	}
	closedir(d);
	return n;
}

/* O_CLOEXEC from /proc/self/fdinfo: fcntl() would say EBADF for a reserve,
 * which the program closed as far as it knows. */
static bool fd_cloexec(int fd)
{
	char p[64], line[128];
	unsigned long fl = 0;
	FILE *f;

	snprintf(p, sizeof p, "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(p, "re")))
		return false;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "flags: %lo", &fl) == 1)
			break;
	fclose(f);
	return (fl & O_CLOEXEC) != 0;
}

/*
 * What fastpath may keep open after the run, by who serves the program
 * (from its environment, as fastpath itself reads it):
 *   - nobody (no fastpath in LD_PRELOAD): nothing;
 *   - reserve mode (FASTPATH_URANDOM=reserve): the reserves, four per
 *     device at most (a slot per CPU the threads ran on, fastpath(7)),
 *     closed as far as the program knows (fcntl says EBADF), in
 *     the close-on-exec state the program's close left it in (fastpath(7):
 *     exec makes it close-on-exec first, which the execcheck children
 *     prove);
 *   - exact mode (the default): the hidden descriptors, one per device at
 *     most, close-on-exec, at the high number fastpath(7) gives (16 below
 *     the lower of the descriptor limit and 4096, or just above: the
 *     lowest free from there).  Closed to the program's own calls (fcntl
 *     says EBADF); only a listing of /proc/self/fd and the kernel's own
 *     readlink show them (fastpath(7)), which is how they are found here.
 *     Each fork retires them and the next open makes them again, so
 *     whether any remain depends on which thread stopped last: both pass.
 */
enum keep { KEEP_NONE, KEEP_RESERVE, KEEP_HIDDEN };

static enum keep fd_keep(void)
{
	const char *pre = getenv("LD_PRELOAD"), *mode = getenv("FASTPATH_URANDOM");

	if (!pre || !strstr(pre, "fastpath"))
		return KEEP_NONE;
	return mode && strcmp(mode, "reserve") == 0 ? KEEP_RESERVE : KEEP_HIDDEN;
}

/* fastpath's ur_hidden_floor, from the limit this process sees (under
 * valgrind, the tool's lowered one: the same getrlimit answers both). */
static int hidden_floor(void)
{
	struct rlimit rl;
	long lim = FD_MAX;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)lim)
		lim = (long)rl.rlim_cur;
	return (int)(lim - 16);
}

/* One descriptor that is open now and was not before the run. */
static void check_extra(int fd, enum keep keep, const char *t)
{
	int fl = fcntl(fd, F_GETFD), e = errno;

	if (keep != KEEP_RESERVE && !fd_cloexec(fd))
		BAD("extra fd %d (%s) is not close-on-exec", fd, t);
	switch (keep) {
	case KEEP_NONE:
		BAD("leaked fd %d -> %s (no fastpath: nothing may remain)", fd, t);
		break;
	case KEEP_RESERVE:
		if (fl != -1 || e != EBADF)
			BAD("extra fd %d (%s) is visible to the program (a reserve is closed to it)",
			    fd, t);
		break;
	case KEEP_HIDDEN:
		if (fd < hidden_floor())
			BAD("extra fd %d (%s) is below the hidden descriptors' floor %d: a leak", fd,
			    t, hidden_floor());
		else if (fl != -1 || e != EBADF)
			BAD("hidden fd %d (%s) is visible to the program (F_GETFD %d), want EBADF",
			    fd, t, fl);
		break;
	}
}

static void check_fds(const unsigned char *before)
{
	static const char *const what[] = { "none may remain", "kept in reserve",
		                            "hidden descriptors" };
	static unsigned char after[FD_MAX];
	enum keep keep = fd_keep();
	int fd, extra = 0, ndev[2] = { 0, 0 };
	char p[64], t[64];

	list_fds(after);
	for (fd = 0; fd < FD_MAX; fd++) {
		ssize_t n;

		if (before[fd] && !after[fd])
			BAD("fd %d was open before and is gone", fd);
		if (!after[fd] || before[fd])
			continue;
		extra++;
		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		/* The kernel's name: readlink through libc is fastpath's, which
		 * answers ENOENT for a descriptor it holds (closed to us).  Not
		 * counted in n_rl, which the stats line's readlinks must equal. */
		n = syscall(SYS_readlinkat, AT_FDCWD, p, t, sizeof t - 1);
		t[n > 0 ? n : 0] = '\0';
		if (strcmp(t, "/dev/urandom") == 0)
			ndev[0]++;
		else if (strcmp(t, "/dev/random") == 0)
			ndev[1]++;
		else
			BAD("leaked fd %d -> %s", fd, t);
		check_extra(fd, keep, t);
	}
	{
		int most = keep == KEEP_RESERVE ? 4 : 1;

		TU_CHECK(ndev[0] <= most && ndev[1] <= most,
		         "%d urandom, %d random extra descriptors (at most %d each)", ndev[0],
		         ndev[1], most);
	}
	printf("extra descriptors after the run: %d (%s)\n", extra, what[keep]);
}

/* ---- the end ------------------------------------------------------------ */
static int cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(block));
}

static void check_blocks(void)
{
	static const block zero;
	size_t n = 0, i, rep = 0, zeros = 0;
	unsigned ns = atomic_load(&sig_n) < SIG_CAP ? atomic_load(&sig_n) : SIG_CAP;
	block *all;

	for (i = 0; i <= NREADERS; i++)
		n += rec[i].n;
	all = malloc((n + ns) * sizeof *all);
	TU_CHECK(all != NULL, "malloc");
	if (!all)
		return;
	n = 0;
	for (i = 0; i <= NREADERS; i++) {
		memcpy(all + n, rec[i].v, rec[i].n * sizeof *all);
		n += rec[i].n;
	}
	memcpy(all + n, sig_v, ns * sizeof *all);
	n += ns;
	qsort(all, n, sizeof *all, cmp);
	for (i = 0; i < n; i++) {
		zeros += memcmp(&all[i], &zero, sizeof zero) == 0;
		rep += i > 0 && memcmp(&all[i - 1], &all[i], sizeof *all) == 0;
	}
	TU_CHECK(rep == 0, "%zu repeated blocks among %zu", rep, n);
	TU_CHECK(zeros == 0, "%zu all-zero blocks", zeros);
	TU_CHECK(rec[NREADERS].n > 0 && ns > 0, "blocks from children %zu, handlers %u",
	         rec[NREADERS].n, ns);
	printf("blocks compared: %zu (children %zu, handlers %u)\n", n, rec[NREADERS].n, ns);
	free(all);
}

static void on_watchdog(int sig)
{
	static const char m[] = "FAIL: watchdog: the run did not finish (deadlock?)\n";

	(void)sig;
	(void)!write(2, m, sizeof m - 1);
	_exit(3);
}

static const char *tname(int t)
{
	static const char *n[] = { "reader", "reader", "reader", "reader", "readlink",
		                   "readlink", "fork", "exec", "signal" };
	return n[t];
}

static void *(*const thread_fn[NTHREADS])(void *) = {
	reader, reader, reader, reader, rlthread, rlthread, forker, execer, signaller
};
_Static_assert(T_SIG == NTHREADS - 1 && NREADERS == 4 && NRL == 2, "thread_fn[] in order");

/* A thread that returns before the stop (an error it reported) is told
 * from one that stalls. */
static void *thread_main(void *arg)
{
	int i = (int)(size_t)arg;

	thread_fn[i](arg);
	atomic_store(&ended[i], true);
	return NULL;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The watchdog, until the stop: returns once SECONDS have passed and every
 * thread has made MIN_ITER iterations, or with a failure message once a
 * thread ended early or is still short GRACE_SECS past SECONDS (slow,
 * not stuck).  A thread without progress for STALL_SECS is a deadlock: the
 * others cannot be joined either, so the process ends there.  Time only
 * bounds how long a run may take; what passes is what the threads did. */
static double pause_max;         /* the longest a thread went without progress */
static int pause_who;

static bool watch(int secs)
{
	double start = now_s(), seen[NTHREADS];
	unsigned long last[NTHREADS] = { 0 };
	int i;

	for (i = 0; i < NTHREADS; i++)
		seen[i] = start;
	for (;;) {
		struct timespec ts = { 0, 250000000 };
		double now;
		int slow = -1;

		nanosleep(&ts, NULL);
		now = now_s();
		for (i = 0; i < NTHREADS; i++) {
			unsigned long p = atomic_load(&progress[i]);

			if (atomic_load(&ended[i])) {
				fprintf(stderr, "FAIL: %s thread %d ended before the stop\n", tname(i), i);
				return false;
			}
			if (p != last[i])
				last[i] = p, seen[i] = now;
			if (now - seen[i] > pause_max)
				pause_max = now - seen[i], pause_who = i;
			if (now - seen[i] > STALL_SECS) {
				fprintf(stderr, "FAIL: %s thread %d: no progress for %d s (deadlock?)\n",
				        tname(i), i, STALL_SECS);
				_exit(3);
			}
			if (p < MIN_ITER && slow < 0)
				slow = i;
		}
		if (now - start < secs)
			continue;
		if (slow < 0)
			return true;
		if (now - start > secs + GRACE_SECS) {
			fprintf(stderr, "FAIL: %s thread %d: %lu of %d iterations after %.0f s\n",
			        tname(slow), slow, last[slow], MIN_ITER, now - start);
			return false;
		}
	}
}

int main(int argc, char **argv)
{
	static unsigned char before[FD_MAX];
	struct sigaction sa;
	pthread_rwlockattr_t ra;
	double start;
	bool watched;
	int secs, i;

	if (argc >= 2 && strcmp(argv[1], "execcheck") == 0)
		return mode_execcheck();
	if (strchr(argv[0], '/'))
		self_exe = argv[0];
	secs = argc >= 2 ? atoi(argv[1]) : 60;
	if (secs <= 0) {
		fprintf(stderr, "usage: %s SECONDS\n", argv[0]);
		return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_watchdog;
	sigaction(SIGALRM, &sa, NULL);
	/* The last resort, for a hang the watchdog cannot see (a join). */
	alarm((unsigned)(secs + GRACE_SECS + STALL_SECS));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	/* Writers first, or the exec thread would wait for ever behind readers. */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&inherit, &ra);

	TU_CHECK(list_fds(before) > 0, "listing /proc/self/fd");
	for (i = 0; i <= NREADERS; i++) {
		rec[i].cap = REC_CAP;
		rec[i].v = malloc(REC_CAP * sizeof(block));
	}
	sig_v = malloc(SIG_CAP * sizeof *sig_v);
	if ((g_fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) < 0)
		return 2;
	atomic_fetch_add(&n_opens, 1);
	if (getenv("STRESS_LEARN_FIRST"))
		rl_learn_first();

	start = now_s();
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&tids[i], NULL, thread_main, (void *)(size_t)i) != 0)
			return 2;
	watched = watch(secs);
	atomic_store(&stop, true);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(tids[i], NULL);
	alarm(0);
	close(g_fd);
	printf("ran %.0f s: %lu forks, %lu execs, %lu signals; longest pause %.1f s (%s thread %d)\n",
	       now_s() - start, atomic_load(&n_forks), atomic_load(&n_execs), atomic_load(&n_sigs),
	       pause_max, tname(pause_who), pause_who);

	TU_CHECK(watched, "the watchdog's verdict (above)");
	/* What each thread did, counted to the end. */
	for (i = 0; i < NTHREADS; i++)
		TU_CHECK(atomic_load(&progress[i]) >= MIN_ITER, "%s thread %d made %lu iterations, want %d",
		         tname(i), i, atomic_load(&progress[i]), MIN_ITER);
	check_fds(before);
	/* After check_fds: its findings are failures too. */
	TU_CHECK(atomic_load(&nbad) == 0, "%d failures during the run and the descriptor check",
	         atomic_load(&nbad));
	check_blocks();
	printf("counts: pid %ld opens %lu reads %lu handlers %u readlinks %lu short %lu\n",
	       (long)getpid(), atomic_load(&n_opens), atomic_load(&n_reads),
	       atomic_load(&sig_n), atomic_load(&n_rl), atomic_load(&n_rl_short));
	return tu_finish();
}
