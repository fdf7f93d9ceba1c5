/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_forkrace: an open of the device and a fork that overlap,
 * checked by an invariant rather than against a native log (the
 * interleaving differs from run to run).  A descriptor a fork's child
 * inherits shares its open file description with the parent's: a status
 * flag the child sets on it, the parent sees.  (A cold review's
 * reproducers, after 8076e67: exact mode gave the child's copy the pool's
 * description, and a change made there did not reach the parent.)
 *   thread N   N forks from one thread while another opens the device in a
 *              loop (64 open, then all closed);
 *   signal N   N forks from a SIGALRM handler (every 300 us) while the
 *              main thread opens and closes the device: the numbers the
 *              child had that the interrupted open then returned.
 * Each prints "checked C, missed M, strays S": C descriptors the child
 * set O_NONBLOCK on and the parent then held, M of them without the flag,
 * S descriptors the children held at or above the numbers they scan and
 * not inherited (the preload's own, left to them: natively 0 and 0).
 *   leftover N N rounds of a fork loop against an open-read-close loop in
 *              two threads, then the program's own unpooled opens of the
 *              device and a fork: "lost L", the children that lacked one
 *              of them (natively 0).
 *   nested     a fork made inside another (a fork handler's), in whose
 *              window the same handler opens and closes the device; the
 *              inner child lives on.  Then an open, flock, close, and an
 *              open and flock(LOCK_NB): natively 0 (reserve mode kept the
 *              window's open unshared, and the lock outlived its close).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Open before the program's first call (its caller's descriptors). */
#define NFD 65536
static unsigned char inherited[NFD];

/* In a fork's child: O_NONBLOCK on every descriptor of /dev/urandom below
 * top, each number written to w; then each number open at or above top
 * (the program opens none there: one is the preload's, left behind),
 * written as -2 - number. */
static void child_sets(int top, int w)
{
	_Alignas(8) char buf[4096];
	long n;
	int d;

	for (int fd = 3; fd < top; fd++) {
		struct stat st;

		if (fd == w || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != makedev(1, 9))
			continue;
		if (fcntl(fd, F_SETFL, O_NONBLOCK) == 0 && write(w, &fd, sizeof fd) != sizeof fd)
			_exit(1);
	}
	/* getdents64, not opendir: no malloc in a signal handler's child */
	if ((d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY)) < 0)
		_exit(1);
	while ((n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0)
		for (long off = 0; off < n; off += ((struct dirent64 *)(buf + off))->d_reclen) {
			int fd = atoi(((struct dirent64 *)(buf + off))->d_name), v = -2 - fd;

			if (fd >= top && fd != d && fd != w && !(fd < NFD && inherited[fd]) &&
			    write(w, &v, sizeof v) != sizeof v)
				_exit(1);
		}
	_exit(0);
}

static volatile sig_atomic_t strays;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;

static void *opener(void *arg)
{
	int fds[64], n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		if ((fds[n] = open("/dev/urandom", O_RDONLY)) >= 0)
			n++;
		if (n == 64) {
			pthread_mutex_lock(&lock);
			while (n)
				close(fds[--n]);
			pthread_mutex_unlock(&lock);
		}
	}
	while (n)
		close(fds[--n]);
	return NULL;
}

static int thread_race(int rounds)
{
	int checked = 0, missed = 0, fd, pp[2];
	pthread_t t;

	if (pthread_create(&t, NULL, opener, NULL) != 0)
		return 1;
	for (int i = 0; i < rounds; i++) {
		if (pipe(pp) != 0)
			return 1;
		/* the opener closes nothing meanwhile: its numbers stay its */
		pthread_mutex_lock(&lock);
		pid_t p = fork();
		if (p == 0) {
			close(pp[0]);
			child_sets(256, pp[1]);
		}
		close(pp[1]);
		while (read(pp[0], &fd, sizeof fd) == sizeof fd) {
			if (fd < 0) {
				strays++;
				continue;
			}
			checked++;
			missed += !(fcntl(fd, F_GETFL) & O_NONBLOCK);
		}
		close(pp[0]);
		if (p > 0)
			waitpid(p, NULL, 0);
		pthread_mutex_unlock(&lock);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("thread: %d forks, checked %d, missed %d, strays %d\n", rounds, checked, missed, strays);
	return 0;
}

static volatile sig_atomic_t phase, forks, listed, nlist, list[8];

static void on_alarm(int sig)
{
	int e = errno, pp[2], ph = phase, fd, n = 0;

	(void)sig;
	if (pipe(pp) != 0)
		return;
	pid_t p = fork();
	if (p == 0) {
		close(pp[0]);
		child_sets(64, pp[1]);
	}
	close(pp[1]);
	while (read(pp[0], &fd, sizeof fd) == sizeof fd)
		if (fd < 0)
			strays++;
		else if (n < 8)
			list[n++] = fd;
	close(pp[0]);
	if (p > 0)
		waitpid(p, NULL, 0);
	if (ph == 1) {
		nlist = n;
		listed = 1;
	}
	forks++;
	errno = e;
}

static int signal_race(int want)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 300 }, { 0, 300 } }, off = { { 0, 0 }, { 0, 0 } };
	int checked = 0, missed = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGALRM, &sa, NULL) != 0 || setitimer(ITIMER_REAL, &it, NULL) != 0)
		return 1;
	while (forks < want) {
		listed = 0;
		phase = 1;
		int fd = open("/dev/urandom", O_RDONLY);
		phase = 2;
		for (int i = 0; listed && fd >= 0 && i < nlist; i++)
			if (list[i] == fd) {
				checked++;
				missed += !(fcntl(fd, F_GETFL) & O_NONBLOCK);
			}
		close(fd);
		phase = 3;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("signal: %d forks, checked %d, missed %d, strays %d\n", (int)forks, checked, missed, strays);
	return 0;
}

/* leftover: forks from one thread while another opens, reads and closes
 * the device, 10 ms a round; then the program's own descriptors of the
 * device that fastpath does not pool (O_NOFOLLOW), and a fork whose child
 * checks that it has each.  (A review's reproducer, after 4e668c5: what
 * the pool left for the forks under way as it closed a reserve outlived
 * them, and a later fork's child closed the program's number.) */
static atomic_int stop_forks, stop_opens;

static void *forker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_forks)) {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c > 0)
			waitpid(c, NULL, 0);
	}
	return NULL;
}

static void *cycler(void *arg)
{
	char b;

	(void)arg;
	while (!atomic_load(&stop_opens)) {
		int fd = open("/dev/urandom", O_RDONLY);

		if (fd >= 0 && read(fd, &b, 1) == 1)
			close(fd);
	}
	return NULL;
}

static int leftover(int rounds)
{
	int lost = 0, st;

	for (int i = 0; i < rounds; i++) {
		int mine[64], n;
		pthread_t a, b;

		atomic_store(&stop_forks, 0);
		atomic_store(&stop_opens, 0);
		if (pthread_create(&b, NULL, forker, NULL) || pthread_create(&a, NULL, cycler, NULL))
			return 1;
		usleep(10000);
		atomic_store(&stop_opens, 1);
		pthread_join(a, NULL);
		atomic_store(&stop_forks, 1);
		pthread_join(b, NULL);
		for (n = 0; n < 64; n++)
			if ((mine[n] = open("/dev/urandom", O_RDONLY | O_NOFOLLOW)) < 0)
				break;
		pid_t c = fork();
		if (c == 0) {
			for (int k = 0; k < n; k++)
				if (fcntl(mine[k], F_GETFD) < 0)
					_exit(1);
			_exit(0);
		}
		if (c < 0 || waitpid(c, &st, 0) != c)
			return 1;
		lost += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		while (n)
			close(mine[--n]);
	}
	printf("leftover: %d rounds, lost %d\n", rounds, lost);
	return 0;
}

static volatile int nest_active, nest_level;
static pid_t nest_inner;

static void nest_prepare(void)
{
	if (!nest_active)
		return;
	if (nest_level == 0) {
		nest_level = 1;
		nest_inner = fork();
		if (nest_inner == 0) {
			sleep(1);
			_exit(0);
		}
		nest_level = 0;
	} else if (nest_level == 1) {
		int fd = open("/dev/urandom", O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
}
static void nest_register(void) { pthread_atfork(nest_prepare, NULL, NULL); }
/* Before any constructor: its prepare runs after fastpath's. */
__attribute__((section(".preinit_array"), used)) static void (*const nest_preinit)(void) = nest_register;

static int nested(void)
{
	int a, c, r, e;

	nest_active = 1;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	nest_active = 0;
	waitpid(p, NULL, 0);
	a = open("/dev/urandom", O_RDONLY);
	r = flock(a, LOCK_EX);
	close(a);
	c = open("/dev/urandom", O_RDONLY);
	e = flock(c, LOCK_EX | LOCK_NB) ? errno : 0;
	printf("nested: flock %d, then after its close flock(LOCK_NB) %s\n", r, e ? strerror(e) : "0");
	close(c);
	waitpid(nest_inner, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	char b[4];
	int f;

	for (f = 0; f < NFD; f++)
		inherited[f] = fcntl(f, F_GETFD) >= 0;
	f = open("/dev/urandom", O_RDONLY);

	/* the pool in use before the race */
	if (f < 0 || read(f, b, sizeof b) != sizeof b)
		return 1;
	close(f);
	if (argc > 2 && !strcmp(argv[1], "thread"))
		return thread_race(n);
	if (argc > 2 && !strcmp(argv[1], "signal"))
		return signal_race(n);
	if (argc > 1 && !strcmp(argv[1], "nested"))
		return nested();
	if (argc > 2 && !strcmp(argv[1], "leftover"))
		return leftover(n);
	fprintf(stderr, "usage: prog_urandom_forkrace thread|signal|leftover N | nested\n");
	return 2;
}
