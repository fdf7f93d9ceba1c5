/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_stress: the pool under forks, threads and signals.  Each mode
 * checks that no 16-byte block is ever served twice; run natively and under
 * fastpath.so by t_urandom.sh (natively it proves the test itself).
 *   forks N         parent and N children (fork) read the same descriptor
 *   clones N        the same with a raw clone system call, which runs no
 *                   atfork handler (only wipe-on-fork protects the child)
 *   threads T N     T threads x N reads of 16 bytes
 *   tcycles T N     T threads x N open/read(16)/close cycles at once
 *   cancel N        N times: a reader thread cancelled at a random moment
 *                   (often inside a pool refill), then the main thread
 *                   reads; and a read with a cancel pending is cancelled
 *   cancel_handle N the same, each cancel asked through dlsym on libc's own
 *                   handle (no preload sees it); 77 where there is none
 *   forklock N      N forks while another thread reads non-stop (so it
 *                   often holds the pool lock): every child must read
 *   signal SECS     a SIGALRM handler reads while the main loop reads, for
 *                   SECS and until the handler has read SIG_MIN times
 *   sigcycles SECS  one thread, the process's only one: open/read(16)/
 *                   close cycles (both flag styles in turn) while a
 *                   SIGALRM handler opens, reads and closes (across two
 *                   of its runs) and reads a kept descriptor, for SECS
 *                   and SIG_MIN handler runs;
 *                   prints the opens and reads made, for the stats line
 *   cycles N [how]  N open/read(16)/close cycles (how: cloexec (default),
 *                   noclo, random for /dev/random, getrandom for
 *                   getrandom(16) calls instead), for counting system calls
 *   stream BYTES    BYTES of the device, read 16 at a time, to stdout
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

typedef struct { unsigned char b[16]; } block;

static int cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(block));
}

/* Number of blocks that equal another one. */
static size_t repeats(block *v, size_t n)
{
	size_t i, r = 0;

	qsort(v, n, sizeof *v, cmp);
	for (i = 1; i < n; i++)
		r += memcmp(&v[i - 1], &v[i], sizeof *v) == 0;
	return r;
}

static int dev(void)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("open");
		exit(2);
	}
	return fd;
}

/* fork, or a bare clone: a fork-like child made without glibc's fork, so
 * that no atfork handler runs in it. */
static pid_t spawn(bool raw)
{
	if (!raw)
		return fork();
	return (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
}

static int mode_forks(int n, bool raw)
{
	int fd = dev(), p[2], i, status;
	block *v = calloc((size_t)n * 4 + 8, sizeof *v);
	size_t k = 0;

	TU_CHECK(pipe(p) == 0, "pipe");
	for (i = 0; i < n; i++) {
		pid_t pid;

		TU_CHECK(read(fd, &v[k++], 16) == 16, "parent read");
		pid = spawn(raw);
		if (pid == 0) {
			block c[2];
			int f2 = dev();

			/* the inherited descriptor and a fresh open */
			if (read(fd, &c[0], 16) != 16 || read(f2, &c[1], 16) != 16 ||
			    write(p[1], c, sizeof c) != sizeof c)
				_exit(1);
			_exit(0);
		}
		TU_CHECK(read(fd, &v[k++], 16) == 16, "parent read");
		TU_CHECK(read(p[0], &v[k], 32) == 32, "child block");
		k += 2;
		TU_CHECK(waitpid(pid, &status, 0) == pid && status == 0, "child status %d", status);
	}
	TU_CHECK(repeats(v, k) == 0, "%zu repeated blocks among %zu (parent and children)",
	         repeats(v, k), k);
	free(v);
	return tu_finish();
}

static int t_fd;
static long t_n;
static block *t_v;

static void *reader(void *arg)
{
	block *mine = t_v + (long)(size_t)arg * t_n;
	long i;

	for (i = 0; i < t_n; i++)
		if (read(t_fd, &mine[i], 16) != 16)
			abort();
	return NULL;
}

static void *cycler(void *arg)
{
	block *mine = t_v + (long)(size_t)arg * t_n;
	long i;

	for (i = 0; i < t_n; i++) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || read(fd, &mine[i], 16) != 16 || close(fd) != 0)
			abort();
	}
	return NULL;
}

/* t threads run fn (reader or cycler), each filling its n blocks. */
static int mode_threads(int t, long n, void *(*fn)(void *))
{
	pthread_t tid[64];
	long i;

	if (t < 1 || t > 64 || n < 1)
		return 2;
	t_fd = dev();
	t_n = n;
	t_v = calloc((size_t)t * (size_t)n, sizeof *t_v);
	for (i = 0; i < t; i++)
		pthread_create(&tid[i], NULL, fn, (void *)(size_t)i);
	for (i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
	TU_CHECK(repeats(t_v, (size_t)t * (size_t)n) == 0, "repeated blocks across threads");
	return tu_finish();
}

static atomic_int cancel_go;

static void *cancel_reader(void *arg)
{
	block b;

	(void)arg;
	while (!atomic_load(&cancel_go))
		;  /* not a cancellation point */
	for (;;)
		if (read(t_fd, &b, 16) != 16)
			abort();
	return NULL;
}

/* cancel_handle: the request made through libc's own handle (as ctypes
 * or JNA do), which no preload sees: a pooled read must still find it. */
static int (*cancel_fn)(pthread_t) = pthread_cancel;

static int mode_cancel(int n)
{
	pthread_t tid;
	void *res;
	block b;
	int i, early = 0;

	t_fd = dev();
	alarm(60);  /* a reader stuck on a lock held by a cancelled thread */
	for (i = 0; i < n; i++) {
		struct timespec ts = { 0, (i % 20) * 100000L };

		atomic_store(&cancel_go, 0);
		pthread_create(&tid, NULL, cancel_reader, NULL);
		if (i % 2) {
			/* pending before its first read: read must act on it */
			cancel_fn(tid);
			atomic_store(&cancel_go, 1);
		} else {
			atomic_store(&cancel_go, 1);
			nanosleep(&ts, NULL);
			cancel_fn(tid);
		}
		pthread_join(tid, &res);
		early += res == PTHREAD_CANCELED;
		TU_CHECK(read(t_fd, &b, 16) == 16, "read after cancel %d", i);
	}
	TU_CHECK(early == n, "%d of %d readers ended by cancellation", early, n);
	return tu_finish();
}

static atomic_bool stop;

static void *spinner(void *arg)
{
	block b;

	(void)arg;
	while (!atomic_load(&stop))
		if (read(t_fd, &b, sizeof b) != sizeof b)
			abort();
	return NULL;
}

static int mode_forklock(int n)
{
	pthread_t tid;
	int i, bad = 0;

	t_fd = dev();
	pthread_create(&tid, NULL, spinner, NULL);
	for (i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			block b;

			alarm(60);  /* a deadlocked child dies, and is counted */
			for (int j = 0; j < 300; j++)
				if (read(t_fd, &b, sizeof b) != sizeof b)
					_exit(1);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || status != 0)
			bad++;
	}
	atomic_store(&stop, true);
	pthread_join(tid, NULL);
	TU_CHECK(bad == 0, "%d of %d children failed or hung", bad, n);
	return tu_finish();
}

#define SIG_MAX 200000
/* Handler reads the signal mode waits for, however slowly signals come
 * (a loaded host, valgrind): counted, not hoped for in SECS; SIG_LATE
 * seconds past SECS without them is a failure, never a pass. */
#define SIG_MIN 101
#define SIG_LATE 600
static block sig_v[SIG_MAX];
static volatile sig_atomic_t sig_n, sig_bad;

static void on_alarm(int sig)
{
	int e = errno;

	(void)sig;
	if (sig_n < SIG_MAX) {
		if (read(t_fd, &sig_v[sig_n], 16) == 16)
			sig_n++;
		else
			sig_bad++;
	}
	errno = e;
}

static int mode_signal(int secs)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct sigaction sa;
	size_t cap = 4000000, k = 0, i;
	block *v = malloc(cap * sizeof *v);
	time_t start, end, late;

	t_fd = dev();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	start = time(NULL);
	end = start + secs;
	late = end + SIG_LATE;
	for (;;) {
		time_t now = time(NULL);
		block scratch;
		ssize_t r;

		if (now >= end && (sig_n >= SIG_MIN || now >= late))
			break;
		r = read(t_fd, k < cap - SIG_MAX ? &v[k] : &scratch, 16);

		if (r == 16 && k < cap - SIG_MAX)
			k++;
		else
			TU_CHECK(r == 16 || errno == EINTR, "main read: %zd", r);
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	TU_CHECK(sig_bad == 0, "%d handler reads failed", (int)sig_bad);
	TU_CHECK(sig_n >= SIG_MIN, "%d handler reads of %d after %ld s", (int)sig_n, SIG_MIN,
	         (long)(time(NULL) - start));
	for (i = 0; i < (size_t)sig_n; i++)
		v[k++] = sig_v[i];
	TU_CHECK(repeats(v, k) == 0, "repeated blocks between handler and main loop");
	printf("main and handler blocks: %zu (handler %d)\n", k, (int)sig_n);
	free(v);
	return tu_finish();
}

/* sigcycles: the handler's opens and reads (the main loop counts its own).
 * The handler opens a descriptor in one run and reads and closes it in the
 * next, so that it holds one while the main loop runs on: an open of the
 * main loop that it interrupted must not hand out that one too. */
static volatile sig_atomic_t sc_opens, sc_reads, sc_bad;
static int sc_held = -1;

static void on_alarm_cycle(int sig)
{
	int e = errno;

	(void)sig;
	if (sig_n >= SIG_MAX)
		return;
	if (sc_held < 0) {
		if ((sc_held = open("/dev/urandom", O_RDONLY | (sig_n & 2 ? O_CLOEXEC : 0))) < 0)
			sc_bad++;
		else
			sc_opens++;
	}
	if (sc_held >= 0) {
		sc_reads += 2;
		if (read(sc_held, &sig_v[sig_n], 16) != 16 || read(t_fd, &sig_v[sig_n + 1], 16) != 16)
			sc_bad++;
		else
			sig_n += 2;
		if (sig_n & 2) {
			if (close(sc_held) != 0)
				sc_bad++;
			sc_held = -1;
		}
	}
	errno = e;
}

static int mode_sigcycles(int secs)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct sigaction sa;
	size_t cap = 2000000, k = 0, i;
	block *v = malloc(cap * sizeof *v);
	unsigned long opens = 1, reads = 0;
	time_t start, end, late;

	t_fd = dev();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm_cycle;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	start = time(NULL);
	end = start + secs;
	late = end + SIG_LATE;
	for (unsigned long n = 0;; n++) {
		time_t now = time(NULL);
		block scratch, *b = k < cap - SIG_MAX ? &v[k] : &scratch;
		int fd;

		if (now >= end && (sig_n >= 2 * SIG_MIN || now >= late))
			break;
		/* The interrupted open, read and close are retried (EINTR is
		 * no answer a device open or close gives, but SA_RESTART
		 * says nothing of what fastpath serves). */
		if ((fd = open("/dev/urandom", O_RDONLY | (n & 1 ? O_CLOEXEC : 0))) < 0) {
			TU_CHECK(errno == EINTR, "main open: %s", strerror(errno));
			continue;
		}
		opens++;
		reads++;
		if (read(fd, b, 16) != 16)
			TU_CHECK(0, "main read: %s", strerror(errno));
		else if (b == &v[k])
			k++;
		if (close(fd) != 0)
			TU_CHECK(0, "main close: %s", strerror(errno));
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	close(t_fd);
	if (sc_held >= 0)
		close(sc_held);
	TU_CHECK(sc_bad == 0, "%d handler cycles failed", (int)sc_bad);
	TU_CHECK(sig_n >= 2 * SIG_MIN, "%d handler reads of %d after %ld s", (int)sig_n,
	         2 * SIG_MIN, (long)(time(NULL) - start));
	for (i = 0; i < (size_t)sig_n; i++)
		v[k++] = sig_v[i];
	TU_CHECK(repeats(v, k) == 0, "repeated blocks between handler and main loop");
	printf("counts: opens %lu reads %lu (handler %d)\n", opens + (unsigned long)sc_opens,
	       reads + (unsigned long)sc_reads, (int)sig_n);
	free(v);
	return tu_finish();
}

static int mode_cycles(long n, const char *how)
{
	const char *path = strcmp(how, "random") == 0 ? "/dev/random" : "/dev/urandom";
	int flags = strcmp(how, "noclo") == 0 ? O_RDONLY : O_RDONLY | O_CLOEXEC;
	block b;
	long i;

	for (i = 0; i < n; i++) {
		if (strcmp(how, "getrandom") == 0) {
			if (getrandom(&b, 16, 0) != 16)
				return 1;
			continue;
		}
		int fd = open(path, flags);

		if (fd < 0 || read(fd, &b, 16) != 16 || close(fd) != 0)
			return 1;
	}
	return 0;
}

static int mode_stream(long bytes)
{
	int fd = dev();
	block b;

	for (; bytes > 0; bytes -= 16)
		if (read(fd, &b, 16) != 16 || fwrite(&b, 1, 16, stdout) != 16)
			return 1;
	return fflush(stdout) != 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "cycles") == 0)
		return mode_cycles(atol(argv[2]), argc > 3 ? argv[3] : "cloexec");
	if (argc >= 3 && strcmp(argv[1], "stream") == 0)
		return mode_stream(atol(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "forks") == 0)
		return mode_forks(atoi(argv[2]), false);
	if (argc >= 3 && strcmp(argv[1], "clones") == 0)
		return mode_forks(atoi(argv[2]), true);
	if (argc >= 4 && strcmp(argv[1], "tcycles") == 0)
		return mode_threads(atoi(argv[2]), atol(argv[3]), cycler);
	if (argc >= 4 && strcmp(argv[1], "threads") == 0)
		return mode_threads(atoi(argv[2]), atol(argv[3]), reader);
	if (argc >= 3 && strcmp(argv[1], "cancel") == 0)
		return mode_cancel(atoi(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "cancel_handle") == 0) {
		/* libpthread's own before glibc 2.34, libc's since. */
		void *lib = dlopen("libpthread.so.0", RTLD_LAZY | RTLD_NOLOAD), *f = NULL;

		if (lib)
			f = dlsym(lib, "pthread_cancel");
		if (!f && (lib = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD)))
			f = dlsym(lib, "pthread_cancel");
		if (!f) {
			fprintf(stderr, "cancel_handle: no libc.so.6 or libpthread.so.0 handle here\n");
			return 77;
		}
		memcpy(&cancel_fn, &f, sizeof f);
		return mode_cancel(atoi(argv[2]));
	}
	if (argc >= 3 && strcmp(argv[1], "forklock") == 0)
		return mode_forklock(atoi(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "signal") == 0)
		return mode_signal(atoi(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "sigcycles") == 0)
		return mode_sigcycles(atoi(argv[2]));
	fprintf(stderr, "usage: prog_urandom_stress cycles N [how] | stream BYTES | forks N | clones N |\n"
	                "       threads T N | tcycles T N | cancel N | cancel_handle N | forklock N | signal SECS | sigcycles SECS\n");
	return 2;
}
