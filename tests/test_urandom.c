/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the urandom mitigation as a whole (urandom_shim.c with
 * urandom_fd.c, urandom_hidden.c, urandom_open.c and urandom_pool.c):
 * which opens match, re-entry from a
 * signal handler, the refill fallback without getrandom, the reserve's life
 * cycle (reserve mode), the hidden descriptor (exact mode), F_DUP2FD, a
 * fork while the pool lock is held.  The wrappers are compiled
 * into this program, so its own open/read/close go through them.  The
 * reservoir alone is tested by test_urandom_pool.c.
 */
#include <setjmp.h>
/* F_DUP2FD and F_DUP2FD_CLOEXEC (illumos, FreeBSD) are handled by shared
 * code wherever the header defines them; defined here, and served by a
 * stand-in of the real fcntl (test_dup2fd), they take that path on Linux. */
#define F_DUP2FD 0x7d01
#define F_DUP2FD_CLOEXEC 0x7d02
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "core_units.h"
#include "../urandom_pool.c"
#include "../urandom_vdso.c"
#include "../urandom_fd.c"
#include "../urandom_vfork.c"
#include "../urandom_hidden.c"
#include "../urandom_open.c"
#include "../urandom_dup.c"
#include "../urandom_cloexec.c"
#include "../urandom_shim.c"
#include "../urandom_fcntl.c"
#include "../urandom_stdio.c"
#include "../urandom_exec.c"
#include "../urandom_cow.c"
#include "../urandom_seen.c"
#include "../urandom_survey.c"
FP_TABLE(&fp_mit_urandom);

#include <sys/random.h>
#include <sys/syscall.h>
#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

/* The shim decides once, from uname, whether /dev/random is pooled.  This
 * program's own uname (it is linked into the executable, so the shim's call
 * binds to it) reports the real kernel, or fake_release when set, so that
 * the rule is checked against releases written out here, not against
 * itself. */
static const char *fake_release;

int uname(struct utsname *u)
{
	if (syscall(SYS_uname, u) != 0)
		return -1;
	if (fake_release)
		snprintf(u->release, sizeof u->release, "%s", fake_release);
	return 0;
}

/* ur_match("/dev/random") as decided for the release REL (NULL: the real
 * kernel's), from a fresh decision. */
static int random_match(const char *rel)
{
	int dev;

	fake_release = rel;
	atomic_store(&ur_random_ok, -1);
	dev = ur_match("/dev/random", O_RDONLY);
	fake_release = NULL;
	atomic_store(&ur_random_ok, -1);
	return dev;
}

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

/* And the directory note after an open: no cap, nothing to note. */
void fp_cpus_note_dir(const char *path, int fd)
{
	(void)path;
	(void)fd;
}

/* No CPU file is served here: every seek and read is the real one. */
bool fp_cpus_seek(int fd, long long *off, int *whence)
{
	(void)fd, (void)off, (void)whence;
	return true;
}

void fp_cpus_reread(int fd)
{
	(void)fd;
}

/* Its survey hook likewise: no CPU file is opened here. */
void fp_cpus_sv_file(int dirfd, const char *path, int flags)
{
	(void)dirfd;
	(void)path;
	(void)flags;
}

/* The reservoir is what these tests are about: the source forced, as
 * FASTPATH_URANDOM_SOURCE=reservoir would.  The thread's slice lives in
 * memory of urandom_vdso.c's now, taken on first use. */
static void reservoir_source(void)
{
	ur_source_asked = UR_SRC_RESERVOIR;
	ur_source_init();
	ur_key_make();
}

static struct ur_slice *ur_test_slice(void)
{
	if (!ur_tls_slice)
		assert_non_null(ur_thread_slice_new());
	return ur_tls_slice;
}

static int setup(void **state)
{
	(void)state;
	assert_true(fp_ready());
	reservoir_source();
	return 0;
}

static unsigned long counter(unsigned c)
{
	return fp_counter(ur_counters, c);
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
	assert_int_equal(ur_match("/dev/random", O_RDWR), -1);
	fp_cfg.enabled &= ~FP_BIT(urandom);
	assert_int_equal(ur_match("/dev/urandom", O_RDONLY), -1);
	fp_cfg.enabled |= FP_BIT(urandom);
}

/* /dev/random is pooled from Linux 5.6 on (where it became the urandom
 * generator), and passes through before it or when the release cannot be
 * read.  The answers are written out, not computed. */
static void test_random_rule(void **state)
{
	static const struct {
		const char *release;
		bool pooled;
	} cases[] = {
		{ "5.6.0", true },
		{ "5.6", true },
		{ "5.5.19", false },
		{ "5.10.0-28-amd64", true },  /* 10 > 6, not "1" < "6" */
		{ "5.19.0", true },
		{ "6.1.0-18-amd64", true },
		{ "6.0", true },
		{ "10.0.0", true },
		{ "4.19.0-26-amd64", false },
		{ "4.20.0", false },
		{ "3.10.0-1160.el7.x86_64", false },
		{ "2.6.78-fc", false },       /* setarch --uname-2.6 */
		{ "5.05.0", false },          /* read as 5.5 */
		{ "", false },
		{ "linux", false },
		{ "6", false },               /* no minor: not understood */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (random_match(cases[i].release) != (cases[i].pooled ? UR_DEV_RANDOM : -1))
			fail_msg("release \"%s\": /dev/random %s, expected %s", cases[i].release,
			         cases[i].pooled ? "not pooled" : "pooled",
			         cases[i].pooled ? "pooled" : "not pooled");
	assert_int_equal(i, 16);
}

/* On this kernel: the expectation from its behaviour, not its release.
 * Linux 5.6 made /dev/random the urandom generator and added GRND_INSECURE
 * to getrandom in the same series; before it the flag is EINVAL. */
static void test_random_this_kernel(void **state)
{
	char c;
	long r = syscall(SYS_getrandom, &c, 1, GRND_INSECURE);

	(void)state;
	if (r < 0 && errno == ENOSYS) {
		print_message("skip: no getrandom system call: nothing to tell Linux 5.6 by\n");
		skip();
	}
	assert_int_equal(random_match(NULL), r == 1 ? UR_DEV_RANDOM : -1);
}

static void test_reentry_falls_back(void **state)
{
	struct ur_pool *p = ur_pool_get();
	struct ur_slice *t = ur_test_slice(), saved;
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
	sys = counter(UR_C_SYSCALLS);
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(counter(UR_C_SYSCALLS), sys + 1);
	assert_memory_equal(t, &saved, sizeof saved);
	/* Inside the slice only: the pool serves, under its lock. */
	atomic_store(&p->owner, 0);
	pos = p->pos;
	sys = counter(UR_C_SYSCALLS);
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(counter(UR_C_SYSCALLS), sys);
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

/* A holder that does not let go: never waited for; the kernel serves
 * while it holds, the pool once it lets go. */
static void test_lock_holder_never_returns(void **state)
{
	struct ur_pool *p = ur_pool_get();
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	(void)state;
	ur_slice_drop(ur_test_slice());
	atomic_store(&p->owner, (uintptr_t)0x1234);
	assert_int_equal(ur_take(b, sizeof b, fd), 0);
	assert_int_equal(read(fd, b, sizeof b), 16);  /* the kernel's */
	atomic_store(&p->owner, 0);
	assert_int_equal(ur_take(b, sizeof b, fd), 16);
	close(fd);
}

/* Without getrandom (ENOSYS), the refill reads the descriptor itself. */
static void test_refill_without_getrandom(void **state)
{
	struct ur_pool *p = ur_pool_get();
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	void *saved = fp_real_urandom.r_getrandom.p;

	(void)state;
	fp_real_urandom.r_getrandom.p = NULL;
	atomic_store(&ur_no_getrandom, true);
	p->pos = p->len;  /* empty */
	ur_slice_drop(ur_test_slice());
	assert_int_equal(read(fd, b, 16), 16);
	assert_int_equal(p->len, UR_POOL);
	assert_int_equal(p->pos, UR_SLICE);  /* the generation was drawn before */
	/* getrandom pooling has no descriptor: it leaves the caller to the
	 * kernel, untouched by a failed refill. */
	p->pos = p->len;
	ur_slice_drop(ur_test_slice());
	assert_int_equal(ur_take(b, 16, -1), 0);
	assert_int_equal(ur_test_slice()->len, 0);
	fp_real_urandom.r_getrandom.p = saved;
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
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), fd);
	assert_true(ur_state(fd) & UR_RESERVE);
	/* Closed for the program; open for the kernel, FD_CLOEXEC. */
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), FD_CLOEXEC);
	errno = 0;
	assert_int_equal(close(fd), -1);
	assert_int_equal(errno, EBADF);
	sys = counter(UR_C_SYSCALLS);
	fd2 = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(fd2, fd);
	assert_int_equal(counter(UR_C_SYSCALLS), sys);
	/* A second open while the first is held: a real one. */
	fd3 = open("/dev/urandom", O_RDONLY);
	assert_true(fd3 != fd2 && (ur_state(fd3) & UR_OPEN));
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd3, F_GETFD), 0);
	close(fd2);
	/* Reserve taken, one thread (one slot: test_reserve_slots): this one
	 * is really closed. */
	close(fd3);
	assert_int_equal(ur_state(fd3), 0);
	errno = 0;
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd3, F_GETFD), -1);
	/* Non-O_CLOEXEC open of the reserve clears FD_CLOEXEC (one call,
	 * the process having one thread: test_adoption_no_call for more). */
	sys = counter(UR_C_SYSCALLS);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(fd, fd2);
	assert_int_equal(fcntl(fd, F_GETFD), 0);
	assert_int_equal(counter(UR_C_SYSCALLS), sys + 1);
	/* Kept as the close left it: the next plain open makes no call. */
	close(fd);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), 0);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(fd, fd2);
	assert_int_equal(counter(UR_C_SYSCALLS), sys + 1);
	close(fd);
	/* exec guard: a plain reserve at rest is given back (its number is
	 * natively closed), nothing noted for the unguard; a close-on-exec
	 * one stays.  The next plain open is real, at the same number. */
	{
		int g[UR_NRES], i;

		ur_exec_guard(g);
		for (i = 0; i < UR_NRES; i++)
			assert_int_equal(g[i], -1);
		assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), -1);
		assert_int_equal(ur_state(fd), 0);
		assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), -1);
		ur_exec_unguard(g);
		sys = counter(UR_C_SYSCALLS);
		assert_int_equal(open("/dev/urandom", O_RDONLY | O_CLOEXEC), fd);
		assert_int_equal(counter(UR_C_SYSCALLS), sys + 2);  /* open, fstat */
		close(fd);
		ur_exec_guard(g);
		for (i = 0; i < UR_NRES; i++)
			assert_int_equal(g[i], -1);
		assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), fd);
		assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), FD_CLOEXEC);
		ur_exec_unguard(g);
		assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), FD_CLOEXEC);
	}
}

static int reserve_mode(void **state)
{
	(void)state;
	ur_mode = UR_MODE_RESERVE;
	return 0;
}

static int exact_mode(void **state)
{
	(void)state;
	ur_give_back(EMFILE);  /* no reserve left from a test before */
	ur_mode = UR_MODE_EXACT;
	return 0;
}

/* Descriptors of the device this process holds, by readlink. */
static int count_dev(void)
{
	int fd, n = 0;

	for (fd = 0; fd < UR_MAXFD; fd++) {
		char p[64], t[64];
		ssize_t k;

		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		k = fp_raw_readlinkat(AT_FDCWD, p, t, sizeof t - 1);
		if (k > 0) {
			t[k] = 0;
			n += strcmp(t, "/dev/urandom") == 0;
		}
	}
	return n;
}

/* Skips where there is no hidden descriptor (the soft descriptor limit at
 * the hard one: ur_hidden_why). */
#define NEED_HIDDEN(h)                                                        \
	do {                                                                  \
		if ((h) < 0) {                                                \
			printf("skip: no hidden descriptor here: %s\n",      \
			       atomic_load(&ur_hidden_why));                  \
			skip();                                               \
		}                                                             \
	} while (0)

/* Exact mode: one hidden descriptor, high, close-on-exec; opens are its
 * duplicates at the lowest free number; close really closes. */
static void test_exact_hidden(void **state)
{
	int fd, fd2, fd3, h, base;
	struct rlimit rl;
	uint64_t w;

	(void)state;
	base = count_dev();
	fd = open("/dev/urandom", O_RDONLY);
	w = atomic_load(&ur_hidden[UR_DEV_URANDOM]);
	h = UR_HW_FD(w);
	NEED_HIDDEN(h);
	assert_true(h > fd && h >= 64);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(h, (int)rl.rlim_cur);  /* at the limit */
	assert_int_equal(ur_state(h), UR_HIDDEN);
	assert_int_equal(fp_real_urandom.r_fcntl.f(h, F_GETFD), FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFD), 0);
	assert_int_equal(count_dev(), base + 2);
	close(fd);
	assert_int_equal(ur_state(fd), 0);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), -1);  /* really closed */
	/* The lowest free number, close-on-exec as asked, same hidden one. */
	fd2 = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(fd2, fd);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd2, F_GETFD), FD_CLOEXEC);
	assert_int_equal(atomic_load(&ur_hidden[UR_DEV_URANDOM]), w);
	close(fd2);
	assert_int_equal(count_dev(), base + 1);

	/* F_SETFL through a pooled one gives it a description of its own
	 * first (copy-on-write): the hidden one stays, and the other pooled
	 * opens keep the description they share with it. */
	fd = open("/dev/urandom", O_RDONLY);
	fd2 = open("/dev/urandom", O_RDONLY);
	assert_true(ur_state(fd) & UR_COW);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	assert_false(ur_state(fd) & UR_COW);
	assert_true(ur_state(fd2) & UR_COW);
	assert_int_equal(atomic_load(&ur_hidden[UR_DEV_URANDOM]), w);
	assert_int_equal(fcntl(fd2, F_GETFL) & O_NONBLOCK, 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), 0);  /* its flag kept */
	/* flock too: a lock on one pooled open excludes another. */
	assert_int_equal(flock(fd2, LOCK_EX | LOCK_NB), 0);
	assert_false(ur_state(fd2) & UR_COW);
	fd3 = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(flock(fd3, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd3, F_GETFD), FD_CLOEXEC);
	assert_int_equal(atomic_load(&ur_hidden[UR_DEV_URANDOM]), w);
	/* The hidden number is closed to the program's own calls. */
	assert_int_equal(fcntl(h, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(dup(h), -1);
	assert_int_equal(close(h), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(fp_real_urandom.r_fcntl.f(h, F_GETFD), FD_CLOEXEC);
	close(fd);
	close(fd2);
	close(fd3);

	/* It sits at the soft limit, a number the program can never be
	 * given: dup2 onto it is EBADF and F_DUPFD from it EINVAL, as
	 * natively; it stays. */
	fd = open("/dev/urandom", O_RDONLY);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(h, (int)rl.rlim_cur);
	fd2 = open("/dev/null", O_RDONLY);
	errno = 0;
	assert_int_equal(dup2(fd2, h), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), h);
	assert_int_equal(fcntl(fd2, F_DUPFD, h), -1);
	assert_int_equal(errno, EINVAL);
	close(fd2);
	close(fd);
	/* A raised soft limit passes it: it goes, and the next one is made
	 * above the new limit. */
	rl.rlim_cur++;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), -1);
	assert_int_equal(fp_real_urandom.r_fcntl.f(h, F_GETFD), -1);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), h + 1);
	close(fd);
	rl.rlim_cur--;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);  /* lowered: it stays */
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), h + 1);
	fd = open("/dev/urandom", O_RDONLY);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	assert_true(h > fd);
	close(fd);
	/* A range that includes it closes it too. */
	closefrom(h);
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), -1);
	assert_int_equal(fp_real_urandom.r_fcntl.f(h, F_GETFD), -1);
	assert_int_equal(count_dev(), base);
}

/* A change of root, ids or sandbox (roots.c's sealing hooks).  With the
 * pool in use it ends before the call: the hidden descriptor is given
 * back, later opens are real.  Before its first use, a change of every
 * thread's (whole) has that use wait for the call's end: an open
 * meanwhile is real and untracked, the next after it pooled; any other
 * ends it.  errno kept; the gate as before. */
static void test_sealing(void **state)
{
	unsigned g = atomic_load(&ur_gate);
	int fd, h;

	(void)state;
	fd = open("/dev/urandom", O_RDONLY);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	NEED_HIDDEN(h);
	close(fd);
	errno = 1234;
	ur_sealing(true);
	assert_int_equal(errno, 1234);
	assert_true(atomic_load(&ur_split_done));
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), -1);
	assert_int_equal(fp_real_urandom.r_fcntl.f(h, F_GETFD), -1);
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ur_state(fd), 0);
	close(fd);
	ur_sealed();
	assert_int_equal(atomic_load(&ur_gate), g);
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);

	/* Not whole (a thread's own change, a filter): ended all the same. */
	atomic_store(&ur_gate, 0);
	ur_sealing(false);
	assert_true(atomic_load(&ur_split_done));
	assert_int_equal(atomic_load(&ur_gate), 0);
	ur_sealed();
	assert_int_equal(atomic_load(&ur_gate), 0);
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);

	ur_sealing(true);
	assert_int_equal(atomic_load(&ur_gate), UR_FORKING);
	assert_false(atomic_load(&ur_split_done));
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ur_state(fd), 0);
	close(fd);
	ur_sealed();
	assert_int_equal(atomic_load(&ur_gate), 0);
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_not_equal(ur_state(fd), 0);
	close(fd);
	assert_true(atomic_load(&ur_gate) & UR_ARMED);
}

/* F_DUPFD never meets the hidden number: from at or above it EINVAL (it
 * is at the limit), below it a number below, as natively. */
static void test_dupfd_native(void **state)
{
	int fd, h, r, n = open("/dev/null", O_RDONLY);

	(void)state;
	fd = open("/dev/urandom", O_RDONLY);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	NEED_HIDDEN(h);
	errno = 0;
	assert_int_equal(fcntl(n, F_DUPFD, h), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), h);
	r = fcntl(n, F_DUPFD, 10);
	assert_true(r < h);
	assert_int_equal(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])), h);
	close(r);
	close(fd);
	close(n);
}

/* The stand-in of the real fcntl that knows F_DUP2FD, as illumos's does. */
static ur_fcntl_fn real_fcntl_saved;
static int fake_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (cmd == F_DUP2FD)
		return fp_real_urandom.r_dup2.f(fd, (int)(intptr_t)arg);
	if (cmd == F_DUP2FD_CLOEXEC)
		return fp_real_urandom.r_dup3.f(fd, (int)(intptr_t)arg, O_CLOEXEC);
	return real_fcntl_saved(fd, cmd, arg);
}

/* F_DUP2FD onto a pooled number untracks it; from one, tracks the copy. */
static void test_dup2fd(void **state)
{
	int fd, other, c = 40;
	char b[4];

	(void)state;
	real_fcntl_saved = fp_real_urandom.r_fcntl.f;
	fp_real_urandom.r_fcntl.f = fake_fcntl;
	fd = open("/dev/urandom", O_RDONLY);
	other = open("/dev/null", O_RDONLY);
	assert_int_equal(fcntl(other, F_DUP2FD, fd), fd);
	assert_int_equal(ur_state(fd), 0);
	assert_int_equal(read(fd, b, sizeof b), 0);  /* /dev/null now, not the pool */
	close(fd);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(fcntl(fd, F_DUP2FD_CLOEXEC, c), c);
	assert_true(ur_state(c) & UR_OPEN);
	assert_true(ur_state(c) & UR_CLOEXEC);
	assert_int_equal(fcntl(c, F_GETFD), FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_DUP2FD, c), c);
	assert_true(ur_state(c) & UR_OPEN);
	assert_false(ur_state(c) & UR_CLOEXEC);
	close(c);
	close(fd);
	close(other);
	fp_real_urandom.r_fcntl.f = real_fcntl_saved;
}

/* A kernel without F_DUPFD_CLOEXEC (illumos before 2013-2015): EINVAL. */
static int old_kernel_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (cmd == F_DUPFD_CLOEXEC) {
		errno = EINVAL;
		return -1;
	}
	return real_fcntl_saved(fd, cmd, arg);
}

/* ur_dup_cloexec learns the fallback from EINVAL, makes close-on-exec
 * copies with it, is not fooled by a floor out of range (which F_DUPFD
 * refuses too), and makes no copy while an exec or fork is announced. */
static void test_dup_cloexec_fallback(void **state)
{
	struct rlimit rl;
	int fd, d;
	bool in;

	(void)state;
	real_fcntl_saved = fp_real_urandom.r_fcntl.f;
	fp_real_urandom.r_fcntl.f = old_kernel_fcntl;
	atomic_store(&ur_dup_fallback, false);
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	errno = 0;
	assert_int_equal(ur_dup_cloexec(fd, (int)rl.rlim_cur), -1);
	assert_int_equal(errno, EINVAL);
	assert_false(atomic_load(&ur_dup_fallback));  /* the floor, not the command */
	d = ur_dup_cloexec(fd, 0);
	assert_true(d >= 0);
	assert_true(atomic_load(&ur_dup_fallback));   /* learnt */
	assert_int_equal(fcntl(d, F_GETFD), FD_CLOEXEC);
	close(d);
	/* an exec announced: no window opens, the caller opens for real */
	in = ur_exec_enter();
	assert_true(in);
	assert_int_equal(ur_dup_cloexec(fd, 0), UR_DUP_LATER);
	assert_false(ur_cloexec_hold());
	ur_exec_leave(in);
	assert_true(ur_cloexec_hold());
	ur_cloexec_release();
	d = ur_dup_cloexec(fd, 0);
	assert_true(d >= 0);
	close(d);
	/* and an open of the device through it: pooled, close-on-exec */
	d = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_true(d >= 0);
	assert_true(ur_state(d) & UR_OPEN);
	assert_int_equal(fcntl(d, F_GETFD), FD_CLOEXEC);
	close(d);
	close(fd);
	fp_real_urandom.r_fcntl.f = real_fcntl_saved;
	atomic_store(&ur_dup_fallback, false);
}

/* A C library without dup3 (illumos before ILLUMOS_0.4): ENOSYS. */
static void test_dup3_missing(void **state)
{
	void *saved = fp_real_urandom.r_dup3.p;

	(void)state;
	fp_real_urandom.r_dup3.p = NULL;
	errno = 0;
	assert_int_equal(dup3(0, 50, 0), -1);
	assert_int_equal(errno, ENOSYS);
	fp_real_urandom.r_dup3.p = saved;
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
	assert_int_equal(fp_real_urandom.r_fcntl.f(d, F_GETFD), -1);  /* really closed */
	close(fd);  /* still marked: really closed too */
	assert_int_equal(ur_state(fd), 0);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), -1);

	/* A reserve with the other O_NONBLOCK state is closed, not adopted. */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	close(fd);
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), fd);
	fd2 = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd2, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	assert_true(ur_state(fd2) & UR_NONBLOCK);
	if (fd2 != fd)  /* the old reserve was really closed */
		assert_int_equal(fp_real_urandom.r_fcntl.f(fd, F_GETFD), -1);
	close(fd2);
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), fd2);

	/* A fork: the reserve and every open descriptor are shared from then
	 * on (as our handlers mark them around fork()). */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);  /* another one */
	ur_fd_atfork_prepare();
	ur_fd_atfork_parent();
	assert_true(ur_state(fd) & UR_SHARED);
	close(fd);
	assert_int_equal(ur_state(fd), 0);
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	assert_false(ur_state(fd) & UR_SHARED);  /* a fresh open */
	close(fd);
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), fd);

	/* A number made ours while a fork may have run is marked. */
	g = atomic_load(&ur_forks);
	fd = open("/dev/null", O_RDONLY);
	ur_fd_atfork_prepare();
	ur_track_new(fd, UR_OPEN, g);
	ur_fd_atfork_parent();
	assert_true(ur_state(fd) & UR_SHARED);
	(void)ur_untrack(fd);
	close(fd);
}

/* 0, 1 and 2 are never kept: they are really closed. */
/* Threads on other CPUs each cycle a reserve of their own: a close while
 * the home slot is full keeps the descriptor in another, up to UR_SLOTS a
 * device; the next one is really closed.  Opens take them back with no
 * system call, whichever slot holds them.  As a process with threads (the
 * flag pthread_create sets); with one thread, one slot (test_reserve_cycle). */
static void test_reserve_slots(void **state)
{
	int fd[UR_SLOTS + 2], i, kept = 0, got[UR_SLOTS + 2];
	unsigned long sys;

	bool had_threads = atomic_load(&fp_threads);

	(void)state;
	atomic_store(&fp_threads, true);
	for (i = 0; i < UR_SLOTS + 2; i++) {
		fd[i] = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		assert_true(fd[i] > 2);
	}
	sys = counter(UR_C_SYSCALLS);
	for (i = 0; i < UR_SLOTS + 2; i++) {
		assert_int_equal(close(fd[i]), 0);
		if (ur_state(fd[i]) & UR_RESERVE)
			kept++;
		else  /* really closed */
			assert_int_equal(fp_real_urandom.r_fcntl.f(fd[i], F_GETFD), -1);
	}
	assert_int_equal(kept, UR_SLOTS);
	/* The two real closes are the program's own calls: none of ours. */
	assert_int_equal(counter(UR_C_SYSCALLS), sys);
	sys = counter(UR_C_SYSCALLS);
	for (i = 0; i < UR_SLOTS; i++) {
		int j;

		got[i] = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		for (j = 0; j < UR_SLOTS; j++)
			if (got[i] == fd[j])
				break;
		assert_true(j < UR_SLOTS);  /* one of those kept */
	}
	assert_int_equal(counter(UR_C_SYSCALLS), sys);
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), -1);
	for (i = 0; i < UR_SLOTS; i++)
		close(got[i]);
	ur_give_back(EMFILE);
	atomic_store(&fp_threads, had_threads);
	if (!fp_no_threads())
		return;  /* a test before made a thread */
	/* One thread: one kept, the second really closed. */
	fd[0] = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	fd[1] = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	close(fd[0]);
	close(fd[1]);
	assert_true(ur_state(fd[0]) & UR_RESERVE);
	assert_int_equal(ur_state(fd[1]), 0);
	assert_int_equal(fp_real_urandom.r_fcntl.f(fd[1], F_GETFD), -1);
}

static void test_low_fds_never_kept(void **state)
{
	int saved = dup(2), fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	(void)state;
	/* empty the reserve so that 2 would be a candidate */
	if (ur_reserve_of(UR_DEV_URANDOM) >= 0) {
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
	assert_int_equal(fp_real_urandom.r_fcntl.f(2, F_GETFD), -1);
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), -1);
	dup2(saved, 2);
	close(saved);
	close(fd);
}

/* Before the mitigation first keeps a descriptor, a fork runs almost
 * none of its handlers (issue 39), and holds that first keeping off until
 * it is done: an open meanwhile is native and untracked, not a wait
 * (ur_gate).  Forced: this process kept descriptors long ago. */
static void test_fork_gate(void **state)
{
	unsigned forks = atomic_load(&ur_forks);
	unsigned char b[16];
	int fd;
	pid_t pid;
	int st;

	(void)state;
	atomic_store(&ur_gate, 0);
	ur_fd_atfork_prepare();
	assert_int_equal(ur_fork_from, 0);
	assert_int_equal(atomic_load(&ur_gate), UR_FORKING);
	assert_false(ur_arm());  /* a fork under way: not now */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ur_state(fd), 0);  /* native, untracked */
	assert_int_equal(read(fd, b, sizeof b), (ssize_t)sizeof b);
	/* A fork made inside this one (its own handlers run: a signal
	 * handler's fork, or another object's fork handler's).  Its child
	 * keeps the outer fork counted, under way there too: an open there
	 * before the outer fork's system call is native (a review's case:
	 * kept, it missed the outer fork's copy-on-write), and the outer
	 * fork's end there arms nothing but lets the next open arm. */
	pid = fork();
	if (pid == 0) {
		bool counted = atomic_load(&ur_gate) == UR_FORKING;
		int k = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		bool native = k >= 0 && ur_state(k) == 0;

		ur_fd_atfork_parent();  /* the outer fork's end */
		bool over = atomic_load(&ur_gate) == 0 && ur_fork_from == 0;
		int k2 = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		bool kept = k2 >= 0 && ur_state(k2) != 0 && atomic_load(&ur_gate) == UR_ARMED;

		_exit(counted && native && over && kept ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	assert_int_equal(atomic_load(&ur_gate), UR_FORKING);
	assert_int_equal(ur_fork_from, 0);
	/* Another thread's fork under way at a fork: the child cannot tell
	 * it from an outer fork of its own thread, and keeps it counted:
	 * pooling stays off there (native opens), never on too early. */
	atomic_fetch_add(&ur_gate, UR_FORKING);
	pid = fork();
	if (pid == 0) {
		bool counted = atomic_load(&ur_gate) == 2 * UR_FORKING;
		ur_fd_atfork_parent();  /* the outer fork's end */
		int k = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		_exit(counted && atomic_load(&ur_gate) == UR_FORKING && k >= 0 && ur_state(k) == 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	atomic_fetch_sub(&ur_gate, UR_FORKING);  /* the other thread's end */
	ur_fd_atfork_parent();
	assert_int_equal(atomic_load(&ur_gate), 0);
	assert_int_equal(atomic_load(&ur_forks), forks);  /* nothing marked */
	close(fd);
	/* The first keeping arms it, for good; a fork from then on runs the
	 * handlers whole. */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(atomic_load(&ur_gate), UR_ARMED);
	assert_true(ur_state(fd) != 0);
	ur_fd_atfork_prepare();
	assert_int_equal(ur_fork_from, UR_ARMED);
	/* An open inside this thread's fork, after its copy-on-write (a
	 * fork handler's): a real one, or the child's copy would share the
	 * pool's description and a change through it would not reach ours. */
	int k = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_true(ur_mode != UR_MODE_EXACT || (ur_state(k) && !(ur_state(k) & UR_COW)));
	ur_fd_atfork_parent();
	assert_int_equal(ur_fork_depth, 0);
	assert_true(ur_state(fd) & UR_SHARED);
	assert_int_equal(atomic_load(&ur_forks), forks + 2);
	close(k);
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
		alarm(60);  /* bounds a hang only: one read, however loaded the host */
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

/* Source vdso: a thread's state, in memory mapped as the kernel asks,
 * several to a page and none across one; handed to the next thread when
 * its thread ends; kept by a fork child's only thread. */
static void *state_of_thread(void *arg)
{
	unsigned char b[16];

	(void)arg;
	assert_int_equal(ur_vdso_call(b, sizeof b, 0), 16);
	return ur_tls_state;
}

static void *two_states(void *arg)
{
	void **out = arg;

	out[0] = state_of_thread(NULL);
	return NULL;
}

static void test_vdso_states(void **state)
{
	pthread_t t1, t2;
	void *a, *b, *c[1], *mine;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int saved = ur_source;
	pid_t pid;
	int st;

	(void)state;
	ur_vgr_bind();
	if (!ur_vgr) {
		print_message("skip: this kernel's vDSO has no getrandom (Linux < 6.11)\n");
		skip();
	}
	ur_source_asked = UR_SRC_AUTO;
	ur_test_no_vdso = false;
	ur_source_init();
	ur_key_make();
	ur_slots_setup(&ur_states, ur_vgr_p.size_of_opaque_state, (int)ur_vgr_p.mmap_prot,
	               (int)ur_vgr_p.mmap_flags, false);
	assert_int_equal(ur_source, UR_SRC_VDSO);
	assert_true(ur_states.per_page > 1);  /* several to a page */
	assert_int_equal(pthread_create(&t1, NULL, state_of_thread, NULL), 0);
	assert_int_equal(pthread_join(t1, &a), 0);
	assert_non_null(a);
	assert_true((uintptr_t)a / pg == ((uintptr_t)a + ur_vgr_p.size_of_opaque_state - 1) / pg);
	/* Its thread ended: the next thread gets the same state. */
	assert_int_equal(pthread_create(&t1, NULL, state_of_thread, NULL), 0);
	assert_int_equal(pthread_join(t1, &b), 0);
	assert_ptr_equal(a, b);
	/* Two at once: two states. */
	mine = state_of_thread(NULL);
	assert_int_equal(pthread_create(&t2, NULL, two_states, c), 0);
	assert_int_equal(pthread_join(t2, NULL), 0);
	assert_ptr_not_equal(mine, c[0]);
	/* A fork child's only thread keeps its own; the others are free. */
	pid = fork();
	if (pid == 0) {
		ur_source_atfork_child();
		_exit(ur_tls_state == mine && state_of_thread(NULL) == mine &&
		      ur_slot_get(&ur_states) != mine ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	ur_source = saved;
}

static void test_getrandom_pooling(void **state)
{
	unsigned char a[300], b[32];
	unsigned long g = counter(UR_C_GETRANDOM);

	(void)state;
	ur_getrandom = false;
	assert_int_equal(getrandom(a, 16, 0), 16);
	assert_int_equal(counter(UR_C_GETRANDOM), g);
	ur_getrandom = true;
	assert_int_equal(getrandom(a, 32, 0), 32);
	assert_int_equal(getrandom(b, 32, GRND_NONBLOCK), 32);
	assert_memory_not_equal(a, b, 32);
	assert_int_equal(counter(UR_C_GETRANDOM), g + 2);
	assert_int_equal(getrandom(a, 16, GRND_RANDOM), 16);  /* never pooled */
	assert_int_equal(getentropy(a, 32), 0);
	assert_int_equal(counter(UR_C_GETRANDOM), g + 3);
	errno = 0;
	assert_int_equal(getentropy(a, 257), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(getrandom(a, 0, 0), 0);
	ur_getrandom = false;
}

/* The hidden descriptor sits at the soft descriptor limit, where it is
 * below the hard one: here, as on a systemd system, 1024 under a higher
 * hard limit (a container with both equal has none). */
void ur_test_soft_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > 1024) {
		rl.rlim_cur = 1024;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(void)
{
	ur_test_soft_limit();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_random_rule),
		cmocka_unit_test(test_random_this_kernel),
		cmocka_unit_test(test_reentry_falls_back),
		cmocka_unit_test(test_lock_holder_never_returns),
		cmocka_unit_test(test_refill_without_getrandom),
		cmocka_unit_test_setup_teardown(test_reserve_cycle, reserve_mode, exact_mode),
		cmocka_unit_test_setup_teardown(test_reserve_slots, reserve_mode, exact_mode),
		cmocka_unit_test_setup_teardown(test_low_fds_never_kept, reserve_mode, exact_mode),
		cmocka_unit_test_setup_teardown(test_shared_never_kept, reserve_mode, exact_mode),
		cmocka_unit_test_setup_teardown(test_exact_hidden, exact_mode, NULL),
		cmocka_unit_test_setup_teardown(test_sealing, exact_mode, NULL),
		cmocka_unit_test_setup_teardown(test_dupfd_native, exact_mode, NULL),
		cmocka_unit_test_setup_teardown(test_dup2fd, exact_mode, NULL),
		cmocka_unit_test(test_dup3_missing),
		cmocka_unit_test_setup_teardown(test_dup_cloexec_fallback, exact_mode, NULL),
		cmocka_unit_test(test_fork_with_lock_held),
		cmocka_unit_test_setup_teardown(test_fork_gate, exact_mode, NULL),
		cmocka_unit_test(test_heal),
		cmocka_unit_test(test_getrandom_pooling),
		cmocka_unit_test(test_vdso_states),
	};

	return cmocka_run_group_tests_name("urandom", tests, setup, NULL);
}
