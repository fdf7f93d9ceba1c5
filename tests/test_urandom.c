/*
 * Unit tests of urandom_shim.c: which opens match, the pool's invariants
 * (bytes zeroed as served, never twice), re-entry from a signal handler,
 * the refill fallback without getrandom, the reserve's life cycle, a
 * fork while the pool lock is held, the per-thread slice, and a fork (as
 * from a signal handler) in the middle of a copy.  The wrappers are
 * compiled into this program, so its own open/read/close go through them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/wait.h>

/* Runs once, in the middle of the next copy out of the pool or a slice:
 * what a signal handler that forks would do to the child's view. */
static void (*midcopy)(void);
#define UR_TEST_MIDCOPY()                                                    \
	do {                                                                 \
		void (*h_)(void) = midcopy;                                  \
		midcopy = NULL;                                              \
		if (h_)                                                      \
			h_();                                                \
	} while (0)

#include "../fastpath.c"
#include "../urandom_shim.c"

/* The open wrappers' hook for the CPU cap's files (cpus_files_shim.c, unit-
 * tested in test_cpus_files.c): never ours here, the cap is unset. */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	(void)dirfd;
	(void)path;
	(void)flags;
	(void)fd_out;
	return false;
}

static int setup(void **state)
{
	(void)state;
	assert_true(fp_ready());
	return 0;
}

static unsigned long counter(enum fp_counter c)
{
	return fp_counter(c);
}

static void test_match(void **state)
{
	static const struct {
		const char *path;
		int flags;
		int dev;
	} cases[] = {
		{ "/dev/urandom", O_RDONLY, UR_DEV_URANDOM },
		{ "/dev/urandom", O_RDONLY | O_CLOEXEC, UR_DEV_URANDOM },
		{ "/dev/urandom", O_RDONLY | O_NONBLOCK | O_NOCTTY, UR_DEV_URANDOM },
		{ "/dev/urandom", O_RDONLY | O_LARGEFILE, UR_DEV_URANDOM },
		{ "/dev/urandom", O_WRONLY, -1 },
		{ "/dev/urandom", O_RDWR, -1 },
		{ "/dev/urandom", O_ACCMODE, -1 },
		{ "/dev/urandom", O_RDONLY | O_PATH, -1 },
		{ "/dev/urandom", O_RDONLY | O_CREAT, -1 },
		{ "/dev/urandom", O_RDONLY | O_DIRECTORY, -1 },
		{ "/dev/urandom", O_RDONLY | O_SYNC, -1 },
		{ "/dev/urandom", O_RDONLY | O_APPEND, -1 },
		{ "/dev/urandom/", O_RDONLY, -1 },
		{ "/dev/urandomx", O_RDONLY, -1 },
		{ "/dev//urandom", O_RDONLY, -1 },
		{ "dev/urandom", O_RDONLY, -1 },
		{ "urandom", O_RDONLY, -1 },
		{ "", O_RDONLY, -1 },
		{ "/", O_RDONLY, -1 },
		{ "/d", O_RDONLY, -1 },
		{ "/dev/null", O_RDONLY, -1 },
		{ "/etc/passwd", O_RDONLY, -1 },
		{ NULL, O_RDONLY, -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(ur_match(cases[i].path, cases[i].flags), cases[i].dev);
	/* /dev/random follows the kernel decision. */
	assert_int_equal(ur_match("/dev/random", O_RDONLY),
	                 ur_random_pooled() ? UR_DEV_RANDOM : -1);
	assert_int_equal(ur_match("/dev/random", O_RDWR), -1);
	fp_cfg.enabled &= ~FP_F_URANDOM;
	assert_int_equal(ur_match("/dev/urandom", O_RDONLY), -1);
	fp_cfg.enabled |= FP_F_URANDOM;
}

/* Served bytes are zero in the pool, never served again, and the pool
 * refills once per 64 KiB. */
static void test_take_zeroes_and_never_repeats(void **state)
{
	struct ur_pool *p;
	unsigned char a[UR_SERVE_MAX], b[16];
	unsigned long refills;
	size_t pos, i;

	(void)state;
	assert_int_equal(ur_take(b, 16, -1), 16);
	p = atomic_load(&ur_pool);
	assert_non_null(p);
	pos = p->pos;
	for (i = 0; i < pos; i++)
		assert_int_equal(p->buf[i], 0);
	assert_true(p->len == UR_POOL);
	refills = counter(FP_C_URANDOM_REFILLS);
	/* Drain the rest and one more: exactly one refill. */
	while (p->len - p->pos >= sizeof a)
		assert_int_equal(ur_take(a, sizeof a, -1), sizeof a);
	assert_int_equal(counter(FP_C_URANDOM_REFILLS), refills);
	assert_int_equal(ur_take(a, sizeof a, -1), sizeof a);
	assert_int_equal(counter(FP_C_URANDOM_REFILLS), refills + 1);
	/* The tail that was too short was discarded as zeros. */
	for (i = 0; i < p->pos; i++)
		assert_int_equal(p->buf[i], 0);
	/* The copy in the caller is the pool's old content: not all zero. */
	for (i = 0; i < sizeof a && a[i] == 0; i++)
		;
	assert_true(i < sizeof a);
}

static void test_reentry_falls_back(void **state)
{
	struct ur_pool *p = ur_pool_get();
	struct ur_slice *t = &ur_slice, saved;
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	unsigned long sys;
	size_t pos;

	(void)state;
	assert_true(ur_state(fd) & UR_OPEN);
	assert_int_equal(read(fd, b, 16), 16);  /* a slice with bytes left */
	/* As if a signal handler interrupted this thread inside its slice,
	 * while it was cutting it from the pool: both are off limits. */
	t->busy = 1;
	atomic_store(&p->owner, (uintptr_t)pthread_self());
	saved = *t;
	assert_int_equal(ur_take(b, 16, fd), 0);
	sys = counter(FP_C_URANDOM_SYSCALLS);
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(counter(FP_C_URANDOM_SYSCALLS), sys + 1);
	assert_memory_equal(t, &saved, sizeof saved);
	/* Inside the slice only: the pool serves, under its lock. */
	atomic_store(&p->owner, 0);
	pos = p->pos;
	sys = counter(FP_C_URANDOM_SYSCALLS);
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(counter(FP_C_URANDOM_SYSCALLS), sys);
	assert_int_equal(p->pos, pos + 16);
	assert_memory_equal(t, &saved, sizeof saved);
	/* Inside the pool only (a large read): the slice still serves. */
	t->busy = 0;
	atomic_store(&p->owner, (uintptr_t)pthread_self());
	assert_int_equal(ur_take(b, 16, fd), 16);
	assert_int_equal(t->pos, saved.pos + 16);
	atomic_store(&p->owner, 0);
	close(fd);
}

/* A thread's slice: cut from the pool whole, served in order, zeroed as
 * served, and dropped (zeroed) when it no longer names the pool's
 * generation or cannot hold the whole request. */
static void test_slice(void **state)
{
	struct ur_pool *p = ur_pool_get();
	struct ur_slice *t = &ur_slice;
	unsigned char b[UR_SLICE_MAX + 1], copy[UR_SLICE];
	size_t pos, i;

	(void)state;
	ur_slice_drop(t);
	pos = p->pos;
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_int_not_equal(t->gen, 0);
	assert_true(t->gen == atomic_load(&p->gen));
	assert_int_equal(t->len, UR_SLICE);
	assert_int_equal(t->pos, 16);
	if (pos + UR_SLICE <= UR_POOL)  /* no refill in between */
		assert_int_equal(p->pos, pos + UR_SLICE);
	for (i = 0; i < 16; i++)
		assert_int_equal(t->b[i], 0);
	for (i = 0; i < p->pos; i++)
		assert_int_equal(p->buf[i], 0);
	/* The next bytes served are the slice's next bytes. */
	memcpy(copy, t->b, sizeof copy);
	assert_int_equal(ur_take(b, 32, -1), 32);
	assert_memory_equal(b, copy + 16, 32);
	assert_int_equal(t->pos, 48);
	/* Larger requests bypass it. */
	pos = p->pos;
	assert_int_equal(ur_take(b, UR_SLICE_MAX + 1, -1), UR_SLICE_MAX + 1);
	assert_int_equal(t->pos, 48);
	if (pos + UR_SLICE_MAX + 1 <= UR_POOL)
		assert_int_equal(p->pos, pos + UR_SLICE_MAX + 1);
	/* Another generation (a child's pool): the rest is dropped unserved. */
	t->gen ^= 1;
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_memory_not_equal(b, copy + 48, 16);
	assert_true(t->gen == atomic_load(&p->gen));
	assert_int_equal(t->pos, 16);
	/* A request that does not fit what is left: dropped, and a new cut. */
	t->pos = (unsigned short)(UR_SLICE - 8);
	memcpy(copy, t->b, sizeof copy);
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_memory_not_equal(b, copy + UR_SLICE - 16, 16);
	assert_int_equal(t->pos, 16);
}

/* Stand-ins for getrandom: a fill cut short (as by a signal), and a
 * generator not ready yet. */
static ssize_t short_getrandom(void *buf, size_t n, unsigned flags)
{
	(void)flags;
	memset(buf, 0xab, n < 100 ? n : 100);
	return n < 100 ? (ssize_t)n : 100;
}

static ssize_t eagain_getrandom(void *buf, size_t n, unsigned flags)
{
	(void)buf, (void)n, (void)flags;
	errno = EAGAIN;
	return -1;
}

/* No slice to be had: a short fill is served under the pool's lock; a
 * failed one leaves the caller to the kernel after one attempt. */
static void test_slice_short_fill(void **state)
{
	struct ur_pool *p = ur_pool_get();
	void *saved = fp_real.r_getrandom.p;
	unsigned char b[16], want[16];
	unsigned long refills;

	(void)state;
	ur_slice_drop(&ur_slice);
	p->pos = p->len;  /* empty */
	fp_real.r_getrandom.f = short_getrandom;
	assert_int_equal(ur_take(b, 16, -1), 16);
	memset(want, 0xab, sizeof want);
	assert_memory_equal(b, want, 16);
	assert_int_equal(p->len, 100);
	assert_int_equal(p->pos, 16);
	assert_int_equal(ur_slice.len, 0);
	/* A read larger than one short fill takes two, and never runs past
	 * the end of what was filled. */
	{
		unsigned char big[UR_SLICE_MAX + 100], ab[UR_SLICE_MAX + 100];

		memset(ab, 0xab, sizeof ab);
		assert_int_equal(ur_take(big, sizeof big, -1), sizeof big);
		assert_memory_equal(big, ab, sizeof big);
		assert_true(p->pos <= p->len);
	}
	p->pos = p->len;
	fp_real.r_getrandom.f = eagain_getrandom;
	refills = counter(FP_C_URANDOM_REFILLS);
	assert_int_equal(ur_take(b, 16, -1), 0);
	assert_int_equal(counter(FP_C_URANDOM_REFILLS), refills + 1);
	fp_real.r_getrandom.p = saved;
	p->pos = p->len;
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_int_equal(ur_slice.len, UR_SLICE);
}

/* The child's view after a fork: the kernel wiped the pool, and (for
 * fork, not a raw clone) the atfork handler ran. */
static void as_raw_clone(void)
{
	memset(atomic_load(&ur_pool), 0, sizeof(struct ur_pool));
}

static void as_fork(void)
{
	as_raw_clone();
	ur_forget_parent_bytes();
}

static bool all_zero(const unsigned char *b, size_t n)
{
	while (n--)
		if (*b++)
			return false;
	return true;
}

/* After the interrupted copy: nothing served (the kernel serves), state
 * sane, and the next take works. */
static void after_midcopy(const unsigned char *b, size_t n, size_t got)
{
	struct ur_pool *p = atomic_load(&ur_pool);
	unsigned char c[16];

	assert_int_equal(got, 0);
	assert_true(all_zero(b, n));
	assert_true(p->pos <= p->len);
	assert_true(ur_slice.pos <= ur_slice.len);
	assert_int_equal(ur_take(c, sizeof c, -1), sizeof c);
	assert_false(all_zero(c, sizeof c));
	assert_true(atomic_load(&p->gen) != 0);
	assert_true(ur_slice.gen == atomic_load(&p->gen));
}

/* A signal handler that forks while this thread copies: the child's copy
 * of the interrupted code must neither serve the parent's bytes nor the
 * zeros of its wiped pool, nor leave pos past len. */
static void test_fork_mid_copy(void **state)
{
	void (*const sims[2])(void) = { as_fork, as_raw_clone };
	unsigned char b[16], big[UR_SLICE_MAX + 36];
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		/* while serving from the slice */
		assert_int_equal(ur_take(b, sizeof b, -1), sizeof b);
		midcopy = sims[i];
		after_midcopy(b, sizeof b, ur_take(b, sizeof b, -1));
		/* while cutting a slice */
		ur_slice_drop(&ur_slice);
		midcopy = sims[i];
		after_midcopy(b, sizeof b, ur_take(b, sizeof b, -1));
		/* while copying a large read out of the pool */
		memset(big, 0, sizeof big);
		midcopy = sims[i];
		after_midcopy(big, sizeof big, ur_take(big, sizeof big, -1));
	}
}

/* A holder that never lets go (a signal handler jumped out of our code):
 * after UR_PATIENCE_NS the pool is given up and the kernel serves. */
static void test_lock_holder_never_returns(void **state)
{
	struct ur_pool *p = ur_pool_get();
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	(void)state;
	ur_slice_drop(&ur_slice);
	atomic_store(&p->owner, (uintptr_t)0x1234);
	assert_int_equal(ur_take(b, sizeof b, fd), 0);
	assert_true(atomic_load(&ur_pool_dead));
	assert_int_equal(read(fd, b, sizeof b), 16);  /* the kernel's */
	atomic_store(&p->owner, 0);
	atomic_store(&ur_pool_dead, false);
	assert_int_equal(ur_take(b, sizeof b, fd), 16);
	close(fd);
}

/* A fork child's copy of the forking thread's slice is wiped. */
static void test_slice_after_fork(void **state)
{
	struct ur_slice *t = &ur_slice;
	unsigned char b[16];
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_true(t->len > t->pos);
	pid = fork();
	if (pid == 0) {
		size_t i;

		if (t->gen != 0 || t->pos != 0 || t->len != 0)
			_exit(3);
		for (i = 0; i < sizeof t->b; i++)
			if (t->b[i] != 0)
				_exit(4);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_true(t->len > t->pos);  /* the parent keeps its own */
}

/* Without getrandom (ENOSYS), the refill reads the descriptor itself. */
static void test_refill_without_getrandom(void **state)
{
	struct ur_pool *p = ur_pool_get();
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	void *saved = fp_real.r_getrandom.p;

	(void)state;
	fp_real.r_getrandom.p = NULL;
	atomic_store(&ur_no_getrandom, true);
	p->pos = p->len;  /* empty */
	ur_slice_drop(&ur_slice);
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(p->len, UR_POOL);
	assert_int_equal(p->pos, UR_SLICE);  /* the generation was drawn before */
	/* getrandom pooling has no descriptor: it leaves the caller to the
	 * kernel, untouched by a failed refill. */
	p->pos = p->len;
	ur_slice_drop(&ur_slice);
	assert_int_equal(ur_take(b, 16, -1), 0);
	assert_int_equal(ur_slice.len, 0);
	fp_real.r_getrandom.p = saved;
	atomic_store(&ur_no_getrandom, false);
	close(fd);
}

static void test_reserve_cycle(void **state)
{
	int fd, fd2, fd3;
	unsigned long sys;

	(void)state;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_true(fd > 2);
	assert_int_equal(close(fd), 0);
	assert_int_equal(atomic_load(&ur_reserve[UR_DEV_URANDOM]), fd);
	assert_true(ur_state(fd) & UR_RESERVE);
	/* Closed for the program; open for the kernel, FD_CLOEXEC. */
	assert_int_equal(fp_real.r_fcntl.f(fd, F_GETFD), FD_CLOEXEC);
	errno = 0;
	assert_int_equal(close(fd), -1);
	assert_int_equal(errno, EBADF);
	sys = counter(FP_C_URANDOM_SYSCALLS);
	fd2 = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(fd2, fd);
	assert_int_equal(counter(FP_C_URANDOM_SYSCALLS), sys);
	/* A second open while the first is held: a real one. */
	fd3 = open("/dev/urandom", O_RDONLY);
	assert_true(fd3 != fd2 && (ur_state(fd3) & UR_OPEN));
	assert_int_equal(fp_real.r_fcntl.f(fd3, F_GETFD), 0);
	close(fd2);
	/* Reserve taken: this one is really closed. */
	close(fd3);
	assert_int_equal(ur_state(fd3), 0);
	errno = 0;
	assert_int_equal(fp_real.r_fcntl.f(fd3, F_GETFD), -1);
	/* Non-O_CLOEXEC open of the reserve clears FD_CLOEXEC. */
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(fd, fd2);
	assert_int_equal(fcntl(fd, F_GETFD), 0);
	close(fd);
	assert_int_equal(fp_real.r_fcntl.f(fd, F_GETFD), FD_CLOEXEC);
}

/* A description shared with another descriptor (a dup, a fork) is never
 * kept; the reserve goes only to an open asking for its O_NONBLOCK state. */
static void test_shared_never_kept(void **state)
{
	int fd, d, fd2;
	unsigned g;

	(void)state;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	d = dup(fd);
	assert_true(ur_state(fd) & UR_SHARED);
	assert_true(ur_state(d) & UR_SHARED);
	close(d);
	assert_int_equal(ur_state(d), 0);
	assert_int_equal(fp_real.r_fcntl.f(d, F_GETFD), -1);  /* really closed */
	close(fd);  /* still marked: really closed too */
	assert_int_equal(ur_state(fd), 0);
	assert_int_equal(fp_real.r_fcntl.f(fd, F_GETFD), -1);

	/* A reserve with the other O_NONBLOCK state is closed, not adopted. */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	close(fd);
	assert_int_equal(atomic_load(&ur_reserve[UR_DEV_URANDOM]), fd);
	fd2 = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	assert_int_equal(fp_real.r_fcntl.f(fd2, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	assert_true(ur_state(fd2) & UR_NONBLOCK);
	if (fd2 != fd)  /* the old reserve was really closed */
		assert_int_equal(fp_real.r_fcntl.f(fd, F_GETFD), -1);
	close(fd2);
	assert_int_equal(atomic_load(&ur_reserve[UR_DEV_URANDOM]), fd2);

	/* A fork: the reserve and every open descriptor are shared from then
	 * on (as our handlers mark them around fork()). */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);  /* another one */
	ur_atfork_prepare();
	ur_atfork_parent();
	assert_true(ur_state(fd) & UR_SHARED);
	close(fd);
	assert_int_equal(ur_state(fd), 0);
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	assert_false(ur_state(fd) & UR_SHARED);  /* a fresh open */
	close(fd);
	assert_int_equal(atomic_load(&ur_reserve[UR_DEV_URANDOM]), fd);

	/* A number made ours while a fork may have run is marked. */
	g = atomic_load(&ur_forks);
	fd = open("/dev/null", O_RDONLY);
	ur_atfork_prepare();
	ur_track_new(fd, UR_OPEN, g);
	ur_atfork_parent();
	assert_true(ur_state(fd) & UR_SHARED);
	(void)ur_untrack(fd);
	close(fd);
}

/* 0, 1 and 2 are never kept: they are really closed. */
static void test_low_fds_never_kept(void **state)
{
	int saved = dup(2), fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	(void)state;
	/* empty the reserve so that 2 would be a candidate */
	if (atomic_load(&ur_reserve[UR_DEV_URANDOM]) >= 0) {
		int r = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		close(fd);
		fd = r;
	}
	assert_int_equal(dup2(fd, 2), 2);
	assert_true(ur_state(2) & UR_OPEN);
	close(fd);
	/* the reserve is full now; take it so that 2 would fit */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(close(2), 0);
	assert_int_equal(ur_state(2), 0);
	assert_int_equal(fp_real.r_fcntl.f(2, F_GETFD), -1);
	assert_int_equal(atomic_load(&ur_reserve[UR_DEV_URANDOM]), -1);
	dup2(saved, 2);
	close(saved);
	close(fd);
}

/* A fork while another thread holds the pool lock: the child's pool is
 * empty and unlocked (wipe-on-fork, or the atfork reset). */
static void test_fork_with_lock_held(void **state)
{
	struct ur_pool *p = ur_pool_get();
	unsigned char b[16], parent_next[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), pipefd[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(pipe(pipefd), 0);
	atomic_store(&p->owner, (uintptr_t)0x1234);  /* another thread */
	pid = fork();
	if (pid == 0) {
		alarm(5);
		if (p->pos != 0 || p->len != 0 || atomic_load(&p->owner) != 0)
			_exit(3);
		if (read(fd, b, 16) != 16 || write(pipefd[1], b, 16) != 16)
			_exit(4);
		_exit(0);
	}
	atomic_store(&p->owner, 0);
	assert_int_equal(read(fd, parent_next, 16), 16);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(read(pipefd[0], b, 16), 16);
	assert_memory_not_equal(b, parent_next, 16);
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
}

/* A number freed behind our back (raw close) heals when reused. */
static void test_heal(void **state)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), p[2];
	char buf[8];

	(void)state;
	fp_raw_close(fd);  /* the kernel forgets; we do not */
	assert_true(ur_state(fd) & UR_OPEN);
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(ur_state(fd), 0);
	close(fd);
	assert_int_equal(pipe(p), 0);
	close(p[1]);
	assert_int_equal(read(p[0], buf, sizeof buf), 0);
	close(p[0]);
}

static void test_getrandom_pooling(void **state)
{
	unsigned char a[300], b[32];
	unsigned long g = counter(FP_C_URANDOM_GETRANDOM);

	(void)state;
	fp_cfg.getrandom = false;
	assert_int_equal(getrandom(a, 16, 0), 16);
	assert_int_equal(counter(FP_C_URANDOM_GETRANDOM), g);
	fp_cfg.getrandom = true;
	assert_int_equal(getrandom(a, 32, 0), 32);
	assert_int_equal(getrandom(b, 32, GRND_NONBLOCK), 32);
	assert_memory_not_equal(a, b, 32);
	assert_int_equal(counter(FP_C_URANDOM_GETRANDOM), g + 2);
	assert_int_equal(getrandom(a, 16, GRND_RANDOM), 16);  /* never pooled */
	assert_int_equal(getentropy(a, 32), 0);
	assert_int_equal(counter(FP_C_URANDOM_GETRANDOM), g + 3);
	errno = 0;
	assert_int_equal(getentropy(a, 257), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(getrandom(a, 0, 0), 0);
	fp_cfg.getrandom = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_take_zeroes_and_never_repeats),
		cmocka_unit_test(test_reentry_falls_back),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_slice_short_fill),
		cmocka_unit_test(test_slice_after_fork),
		cmocka_unit_test(test_fork_mid_copy),
		cmocka_unit_test(test_lock_holder_never_returns),
		cmocka_unit_test(test_refill_without_getrandom),
		cmocka_unit_test(test_reserve_cycle),
		cmocka_unit_test(test_low_fds_never_kept),
		cmocka_unit_test(test_shared_never_kept),
		cmocka_unit_test(test_fork_with_lock_held),
		cmocka_unit_test(test_heal),
		cmocka_unit_test(test_getrandom_pooling),
	};

	return cmocka_run_group_tests_name("urandom", tests, setup, NULL);
}
