/* SPDX-License-Identifier: MIT */
/*
 * prog_watchdog.c: the concurrency harness with a watchdog (issue 36).
 * Short-lived threads open /dev/urandom, read, dup, change flags, lock,
 * close, fork, vfork, spawn, run system() and exec; a timer per thread
 * signals it at random, and the handler either siglongjmps out of the
 * read, open or close it interrupted (each is async-signal-safe, so the
 * jump is allowed) or opens, reads and closes the device itself; another
 * thread cancels threads inside system() and inside a blocking read.
 * Natively nothing here can wait for another thread for long; so the
 * watchdog fails the run when any operation (a sleeping command aside)
 * stays in progress longer than STALL_MS, when a thread does not come
 * back from pthread_join within STALL_MS, or when no thread finishes
 * within it.  It names the thread, the operation and how long.
 *
 *   prog_watchdog SECONDS [STALL_MS [SEED]]
 *
 * Exit 0 and "N passed, 0 failed" when every thread made progress; 1 and
 * "STALL: ..." lines otherwise (the stalled threads are left, the process
 * exits).  Run natively and under fastpath.so by tests/t_watchdog.sh.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define NSLOTS 6      /* worker threads alive at once */
#define OPS_PER_THREAD 40

enum op {
	OP_IDLE, OP_OPEN, OP_READ, OP_DUP, OP_SETFL, OP_FLOCK, OP_CLOSE,
	OP_FORK, OP_VFORK, OP_SPAWN, OP_SYSTEM, OP_EXEC, OP_SLEEPER, OP_JOIN,
	OP_NOPS
};
static const char *const op_name[OP_NOPS] = {
	"idle", "open", "read", "dup", "F_SETFL", "flock", "close", "fork",
	"vfork", "posix_spawn", "system(true)", "fork+exec", "system(sleep)", "join",
};

struct slot {
	_Atomic int op;            /* what the thread is doing now */
	_Atomic int64_t since_ms;  /* since when */
	_Atomic int busy;          /* a thread runs in this slot */
	pthread_t tid;
};
static struct slot slots[NSLOTS];
static _Atomic long finished_threads, done_ops, jumps, handler_cycles;
static _Atomic int stop;
static long stall_ms = 3000;
static unsigned seed0 = 1;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static __thread unsigned rng;
static __thread sigjmp_buf jump_to;
static __thread volatile sig_atomic_t jumpable;
static __thread struct slot *me;

static unsigned rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void set_op(enum op o)
{
	if (!me)
		return;
	atomic_store(&me->since_ms, now_ms());
	atomic_store(&me->op, o);
}

/* The handler: jump out of a jumpable call, or use the device itself. */
static void on_timer(int sig)
{
	int saved = errno;
	char b[16];

	(void)sig;
	if (jumpable && (rng & 1)) {
		jumpable = 0;
		atomic_fetch_add(&jumps, 1);
		siglongjmp(jump_to, 1);
	}
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, b, sizeof b) == (ssize_t)sizeof b)
			atomic_fetch_add(&handler_cycles, 1);
		close(fd);
	}
	rng ^= (unsigned)(uintptr_t)&b;
	errno = saved;
}

static timer_t arm_timer(void)
{
	struct sigevent ev;
	timer_t t;

	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0)
		return NULL;
	struct itimerspec its = { { 0, 0 }, { 0, (long)(20 + rnd(400)) * 1000 } };
	timer_settime(t, 0, &its, NULL);
	return t;
}

static void rearm(timer_t t)
{
	struct itimerspec its = { { 0, 0 }, { 0, (long)(20 + rnd(400)) * 1000 } };

	if (t)
		timer_settime(t, 0, &its, NULL);
}

/* One jumpable call: the handler may siglongjmp out of it (fd then stays
 * as the call left it: open or not, which close below handles). */
#define JUMPABLE(expr, result)                                                 \
	do {                                                                   \
		if (sigsetjmp(jump_to, 1) == 0) {                              \
			jumpable = 1;                                          \
			result = (expr);                                       \
			jumpable = 0;                                          \
		} else {                                                       \
			result = -2;                                           \
		}                                                              \
	} while (0)

static void child_use_device(void)
{
	char b[16];
	int fd = open("/dev/urandom", O_RDONLY);

	_exit(fd >= 0 && read(fd, b, sizeof b) == (ssize_t)sizeof b ? 0 : 1);
}

static void one_op(int *fds, int *nfds)
{
	char b[16];
	long r;
	unsigned k = rnd(100);

	if (k < 25 || *nfds == 0) {
		set_op(OP_OPEN);
		JUMPABLE(open("/dev/urandom", rnd(2) ? O_RDONLY | O_CLOEXEC : O_RDONLY), r);
		if (r >= 0 && *nfds < 8)
			fds[(*nfds)++] = (int)r;
		else if (r >= 0)
			close((int)r);
	} else if (k < 50) {
		set_op(OP_READ);
		JUMPABLE(read(fds[rnd((unsigned)*nfds)], b, sizeof b), r);
	} else if (k < 58) {
		set_op(OP_DUP);
		r = rnd(2) ? dup(fds[rnd((unsigned)*nfds)])
			   : fcntl(fds[rnd((unsigned)*nfds)], F_DUPFD_CLOEXEC, 100);
		if (r >= 0 && *nfds < 8)
			fds[(*nfds)++] = (int)r;
		else if (r >= 0)
			close((int)r);
	} else if (k < 64) {
		set_op(OP_SETFL);
		fcntl(fds[rnd((unsigned)*nfds)], F_SETFL, rnd(2) ? O_NONBLOCK : 0);
	} else if (k < 68) {
		set_op(OP_FLOCK);
		int fd = fds[rnd((unsigned)*nfds)];
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			flock(fd, LOCK_UN);
	} else if (k < 84) {
		set_op(OP_CLOSE);
		unsigned i = rnd((unsigned)*nfds);
		int fd = fds[i];
		fds[i] = fds[--*nfds];
		JUMPABLE(close(fd), r);
	} else if (k < 88) {
		set_op(OP_FORK);
		pid_t p = fork();
		if (p == 0)
			child_use_device();
		if (p > 0)
			waitpid(p, NULL, 0);
	} else if (k < 91) {
		set_op(OP_VFORK);
		pid_t p = vfork();
		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
	} else if (k < 94) {
		set_op(OP_SPAWN);
		pid_t p;
		char *argv[] = { (char *)"true", NULL };
		if (posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ) == 0)
			waitpid(p, NULL, 0);
	} else if (k < 97) {
		set_op(OP_SYSTEM);
		if (system("true") < 0)
			(void)0;
	} else {
		set_op(OP_EXEC);
		pid_t p = fork();
		if (p == 0) {
			execl("/bin/sh", "sh", "-c", "exec 9</dev/urandom && head -c 16 <&9 >/dev/null", (char *)NULL);
			_exit(127);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	atomic_fetch_add(&done_ops, 1);
}

static void *worker(void *arg)
{
	int fds[8], nfds = 0;

	me = arg;
	rng = seed0 ^ (unsigned)(uintptr_t)arg ^ (unsigned)now_ms();
	timer_t t = arm_timer();
	/* The thread's first read (where a per-thread state is set up) with
	 * the timer due within it, half the time: a jump out of that. */
	if (rnd(2)) {
		char b[16];
		long r;
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			struct itimerspec its = { { 0, 0 }, { 0, (long)(1 + rnd(15)) * 1000 } };
			set_op(OP_READ);
			if (t)
				timer_settime(t, 0, &its, NULL);
			JUMPABLE(read(fd, b, sizeof b), r);
			(void)r;
			close(fd);
		}
	}
	for (int i = 0; i < OPS_PER_THREAD && !atomic_load(&stop); i++) {
		one_op(fds, &nfds);
		rearm(t);
	}
	if (t)
		timer_delete(t);
	set_op(OP_CLOSE);
	while (nfds > 0)
		close(fds[--nfds]);
	set_op(OP_IDLE);
	return NULL;
}

static void close_fd(void *fd)
{
	close(*(int *)fd);
}

/* A thread that runs a sleeping command, or blocks in a read, and is
 * cancelled meanwhile (system() and read() are cancellation points). */
static void *sleeper(void *arg)
{
	me = arg;
	rng = seed0 ^ (unsigned)now_ms() ^ (unsigned)(uintptr_t)&arg;
	set_op(OP_SLEEPER);
	if (rnd(2)) {
		if (system("sleep 1") < 0)
			(void)0;
	} else {
		int p[2];
		char c;
		if (pipe(p) == 0) {
			pthread_cleanup_push(close_fd, &p[0]);
			if (read(p[0], &c, 1) < 0)
				(void)0;
			pthread_cleanup_pop(1);
			close(p[1]);
		}
	}
	set_op(OP_IDLE);
	return NULL;
}

/* Join with a bound: a thread that does not come back is a stall. */
static int join_bounded(struct slot *s, const char *who)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += stall_ms / 1000;
	ts.tv_nsec += (stall_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (pthread_timedjoin_np(s->tid, NULL, &ts) != 0) {
		printf("STALL: %s thread did not return from pthread_join within %ld ms (last in %s)\n",
		       who, stall_ms, op_name[atomic_load(&s->op)]);
		return -1;
	}
	atomic_store(&s->busy, 0);
	return 0;
}

static struct slot sleeper_slot;

static void *canceller(void *arg)
{
	(void)arg;
	rng = seed0 * 7 + 3;
	while (!atomic_load(&stop)) {
		if (pthread_create(&sleeper_slot.tid, NULL, sleeper, &sleeper_slot) != 0)
			break;
		atomic_store(&sleeper_slot.busy, 1);
		usleep(20000 + rnd(200) * 1000);
		pthread_cancel(sleeper_slot.tid);
		if (join_bounded(&sleeper_slot, "a cancelled") != 0) {
			fflush(stdout);
			_exit(1);
		}
		usleep(50000);
	}
	return NULL;
}

/* The watchdog: any operation in progress for longer than stall_ms (the
 * cancelled sleeper's own aside) is a stall. */
static int stalled(void)
{
	int64_t t = now_ms();
	int bad = 0;

	for (int i = 0; i < NSLOTS; i++) {
		struct slot *s = &slots[i];
		int o = atomic_load(&s->op);
		if (!atomic_load(&s->busy) || o == OP_IDLE || o == OP_SLEEPER)
			continue;
		int64_t for_ms = t - atomic_load(&s->since_ms);
		if (for_ms > stall_ms) {
			printf("STALL: worker %d in %s for %lld ms\n", i, op_name[o], (long long)for_ms);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 5;

	if (argc > 2)
		stall_ms = atol(argv[2]);
	if (argc > 3)
		seed0 = (unsigned)strtoul(argv[3], NULL, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_timer;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGRTMIN, &sa, NULL);
	/* system()'s children die with the process if the run is cut. */
	signal(SIGPIPE, SIG_IGN);

	pthread_t canc;
	pthread_create(&canc, NULL, canceller, NULL);
	int64_t end = now_ms() + secs * 1000L, last_finish = now_ms();
	long last_finished = 0;
	int bad = 0;
	while (!bad && now_ms() < end) {
		for (int i = 0; i < NSLOTS && !bad; i++) {
			struct slot *s = &slots[i];
			if (atomic_load(&s->busy) && atomic_load(&s->op) == OP_IDLE) {
				set_op(OP_JOIN);
				bad = join_bounded(s, "a finished worker") != 0;
				if (!bad)
					atomic_fetch_add(&finished_threads, 1);
			}
			if (!bad && !atomic_load(&s->busy)) {
				atomic_store(&s->op, OP_OPEN);
				atomic_store(&s->since_ms, now_ms());
				atomic_store(&s->busy, 1);
				if (pthread_create(&s->tid, NULL, worker, s) != 0)
					atomic_store(&s->busy, 0);
			}
		}
		if (!bad)
			bad = stalled();
		if (atomic_load(&finished_threads) != last_finished) {
			last_finished = atomic_load(&finished_threads);
			last_finish = now_ms();
		} else if (now_ms() - last_finish > 2 * stall_ms) {
			printf("STALL: no worker finished for %lld ms\n", (long long)(now_ms() - last_finish));
			bad = 1;
		}
		usleep(10000);
	}
	atomic_store(&stop, 1);
	if (bad) {
		fflush(stdout);
		_exit(1);
	}
	for (int i = 0; i < NSLOTS && !bad; i++)
		if (atomic_load(&slots[i].busy))
			bad = join_bounded(&slots[i], "a worker at the end") != 0;
	if (bad) {
		fflush(stdout);
		_exit(1);
	}
	pthread_join(canc, NULL);
	TU_CHECK(atomic_load(&finished_threads) > 0, "no worker finished");
	TU_CHECK(atomic_load(&done_ops) > 0, "no operation done");
	fprintf(stderr, "watchdog: %ld threads, %ld operations, %ld jumps out of a call, %ld handler cycles, 0 stalls\n",
		(long)atomic_load(&finished_threads), (long)atomic_load(&done_ops),
		(long)atomic_load(&jumps), (long)atomic_load(&handler_cycles));
	return tu_finish();
}
