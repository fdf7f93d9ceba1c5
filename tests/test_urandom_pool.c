/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the reservoir alone (urandom_pool.c, linked with the core
 * and nothing else: this program's own open, read and close are libc's).
 * Bytes are zeroed as served and never served twice, the per-thread slice,
 * a fill cut short, and a fork (as from a signal handler) in the middle of
 * a copy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/syscall.h>
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

/* Wipe-on-fork as the kernel gives it, or (no_wipe) as on one that has
 * neither MADV_WIPEONFORK nor MC_INHERIT_ZERO: illumos before the latter,
 * Linux before 4.14.  The pid check must then keep a child's bytes apart. */
#include <stdbool.h>
#include <sys/mman.h>
static bool no_wipe;
static bool test_wipe(void *p, size_t n)
{
	return !no_wipe && madvise(p, n, MADV_WIPEONFORK) == 0;
}
#define UR_TEST_WIPE(p, n) test_wipe(p, n)

#include "core_units.h"
#include "../urandom_pool.c"
#include "../urandom_vdso.c"

/* The core's table: the pool alone, with its own fork hook (the urandom
 * mitigation's descriptor lives with the entry points, not linked here). */
static const struct fp_mitigation pool_alone = { .name = "pool", FP_REAL_SYMS(urandom),
	                                         .child = ur_pool_atfork_child };
FP_TABLE(&pool_alone);

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
	refills = counter(UR_C_REFILLS);
	/* Drain the rest and one more: exactly one refill. */
	while (p->len - p->pos >= sizeof a)
		assert_int_equal(ur_take(a, sizeof a, -1), sizeof a);
	assert_int_equal(counter(UR_C_REFILLS), refills);
	assert_int_equal(ur_take(a, sizeof a, -1), sizeof a);
	assert_int_equal(counter(UR_C_REFILLS), refills + 1);
	/* The tail that was too short was discarded as zeros. */
	for (i = 0; i < p->pos; i++)
		assert_int_equal(p->buf[i], 0);
	/* The copy in the caller is the pool's old content: not all zero. */
	for (i = 0; i < sizeof a && a[i] == 0; i++)
		;
	assert_true(i < sizeof a);
}

/* A thread's slice: cut from the pool whole, served in order, zeroed as
 * served, and dropped (zeroed) when it no longer names the pool's
 * generation or cannot hold the whole request. */
static void test_slice(void **state)
{
	struct ur_pool *p = ur_pool_get();
	struct ur_slice *t = ur_test_slice();
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
	void *saved = fp_real_urandom.r_getrandom.p;
	unsigned char b[16], want[16];
	unsigned long refills;

	(void)state;
	ur_slice_drop(ur_test_slice());
	p->pos = p->len;  /* empty */
	fp_real_urandom.r_getrandom.f = short_getrandom;
	assert_int_equal(ur_take(b, 16, -1), 16);
	memset(want, 0xab, sizeof want);
	assert_memory_equal(b, want, 16);
	assert_int_equal(p->len, 100);
	assert_int_equal(p->pos, 16);
	assert_int_equal(ur_test_slice()->len, 0);
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
	fp_real_urandom.r_getrandom.f = eagain_getrandom;
	refills = counter(UR_C_REFILLS);
	assert_int_equal(ur_take(b, 16, -1), 0);
	assert_int_equal(counter(UR_C_REFILLS), refills + 1);
	fp_real_urandom.r_getrandom.p = saved;
	p->pos = p->len;
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_int_equal(ur_test_slice()->len, UR_SLICE);
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
	ur_pool_atfork_child();
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
	assert_true(ur_test_slice()->pos <= ur_test_slice()->len);
	assert_int_equal(ur_take(c, sizeof c, -1), sizeof c);
	assert_false(all_zero(c, sizeof c));
	assert_true(atomic_load(&p->gen) != 0);
	assert_true(ur_test_slice()->gen == atomic_load(&p->gen));
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
		ur_slice_drop(ur_test_slice());
		midcopy = sims[i];
		after_midcopy(b, sizeof b, ur_take(b, sizeof b, -1));
		/* while copying a large read out of the pool */
		memset(big, 0, sizeof big);
		midcopy = sims[i];
		after_midcopy(big, sizeof big, ur_take(big, sizeof big, -1));
	}
}

/* A fork child's copy of the forking thread's slice is wiped. */
static void test_slice_after_fork(void **state)
{
	struct ur_slice *t = ur_test_slice();
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


/* Empties the pool and this thread's slice: the next take refills. */
static struct ur_pool *emptied(void)
{
	struct ur_pool *p = ur_pool_get();

	assert_non_null(p);
	explicit_bzero(p->buf + p->pos, ur_fresh(p));
	p->pos = p->len;
	ur_slice_drop(ur_test_slice());
	return p;
}

/* Refills through the vDSO's getrandom where the kernel has one and the
 * getrandom bound is libc's: a refill, and no system call counted.  Where
 * it is missing (forced: ur_vgr NULL, as on Linux < 6.11), or something
 * else stands in for getrandom, the refill is a system call through it. */
#ifdef UR_HAVE_VDSO
static int counting_calls;
static ssize_t counting_getrandom(void *buf, size_t n, unsigned flags)
{
	counting_calls++;
	return syscall(SYS_getrandom, buf, n, flags);
}

/* A stand-in for getrandom sees every refill, vDSO or not. */
static void stand_in_sees_refill(void)
{
	void *saved = fp_real_urandom.r_getrandom.p;
	unsigned char b[16];

	fp_real_urandom.r_getrandom.f = counting_getrandom;
	counting_calls = 0;
	emptied();
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_int_equal(counting_calls, 1);
	fp_real_urandom.r_getrandom.p = saved;
}

/* Is the getrandom we bound the C library's own? */
static bool libc_getrandom_bound(void)
{
	Dl_info a, b;

	return fp_real_urandom.r_getrandom.f && dladdr((void *)fp_real_urandom.r_getrandom.f, &a) &&
	       dladdr((void *)&getpid, &b) && strcmp(a.dli_fname, b.dli_fname) == 0;
}

static void test_refill_vdso(void **state)
{
	unsigned long sys, refills;
	unsigned char b[16];

	(void)state;
	assert_null(ur_vdso_sym("no_such_symbol"));
	ur_vgr_bind();
	if (!libc_getrandom_bound()) {
		/* As under ASan, whose interceptor is what we bound: left to it. */
		assert_null(ur_vgr_libc);
		print_message("skip: the getrandom bound here is not libc's (a sanitizer's "
		              "interceptor), so the vDSO is rightly not used; the stand-in "
		              "check below still ran\n");
		stand_in_sees_refill();
		skip();
	}
	if (!ur_vdso_sym("__vdso_getrandom")) {
		assert_null(ur_vgr);
		print_message("skip: this kernel's vDSO has no getrandom (Linux < 6.11); "
		              "test_refill_no_vdso takes the other branch\n");
		skip();
	}
	assert_non_null(ur_vgr);
	/* The pool, made before the bind here, maps its state now. */
	ur_vgr_map();
	assert_non_null(atomic_load(&ur_vgr_state));
	emptied();
	sys = counter(UR_C_SYSCALLS);
	refills = counter(UR_C_REFILLS);
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_false(all_zero(b, 16));
	assert_int_equal(counter(UR_C_REFILLS), refills + 1);
	assert_int_equal(counter(UR_C_SYSCALLS), sys);
	stand_in_sees_refill();
}

static void test_refill_no_vdso(void **state)
{
	ur_vgr_fn was = ur_vgr;
	unsigned long sys;
	unsigned char b[16];

	(void)state;
	ur_vgr = NULL;  /* as on a kernel without it */
	emptied();
	sys = counter(UR_C_SYSCALLS);
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_int_equal(counter(UR_C_SYSCALLS), sys + 1);
	ur_vgr = was;
}
#endif

/* Another thread is refilling: a thread that needs a slice has the kernel
 * fill it (one system call) instead of waiting; with no getrandom to do so
 * the kernel serves the read. */
static void test_slice_direct_while_filling(void **state)
{
	struct ur_pool *p;
	unsigned char b[16];
	unsigned long sys, refills, slices;
	void *saved = fp_real_urandom.r_getrandom.p;
	size_t pos;
	
	(void)state;
	assert_int_equal(ur_take(b, 16, -1), 16);  /* a generation */
	p = ur_pool_get();
	ur_slice_drop(ur_test_slice());
	atomic_store(&p->owner, (uintptr_t)1);  /* held by "another thread" */
	atomic_store(&p->filling, true);
	pos = p->pos;
	sys = counter(UR_C_SYSCALLS);
	slices = counter(UR_C_SLICES);
	assert_int_equal(ur_take(b, 16, -1), 16);
	assert_false(all_zero(b, 16));
	assert_int_equal(counter(UR_C_SYSCALLS), sys + 1);
	assert_int_equal(counter(UR_C_SLICES), slices + 1);
	assert_int_equal(ur_test_slice()->len, UR_SLICE);
	assert_int_equal(ur_test_slice()->pos, 16);
	assert_true(ur_test_slice()->gen == atomic_load(&p->gen));
	assert_int_equal(p->pos, pos);  /* the pool untouched */
	/* No getrandom: no wait for the holder either (docs/design.md, "No
	 * waits"); the kernel serves this read, and the next, once the lock
	 * is free, is cut from the pool. */
	ur_slice_drop(ur_test_slice());
	fp_real_urandom.r_getrandom.p = NULL;
	refills = counter(UR_C_REFILLS);
	assert_int_equal(ur_take(b, 16, -1), 0);
	atomic_store(&p->filling, false);
	atomic_store(&p->owner, 0);
	assert_int_equal(ur_take(b, 16, -1), 16);
	fp_real_urandom.r_getrandom.p = saved;
	assert_int_equal(atomic_load(&p->owner), 0);
	assert_true(p->pos == pos + UR_SLICE || counter(UR_C_REFILLS) == refills + 1);
}

/* No wipe-on-fork (forced): a child made without atfork handlers (a raw
 * clone, _Fork) has a byte-for-byte copy of the pool and of this thread's
 * slice; ur_check_pid must see the new pid and start over, so that the
 * child never serves a byte the parent serves. */
static void test_pid_check_without_wipe(void **state)
{
	unsigned char a[32], b[32];
	int pfd[2], status;
	long pid;

	(void)state;
	no_wipe = true;
	ur_slice_drop(ur_test_slice());
	atomic_store(&ur_pool, NULL);  /* the old mapping is left: a test */
	atomic_store(&ur_wipe, false);
	assert_int_equal(ur_take(a, 16, -1), 16);
	assert_false(atomic_load(&ur_wipe));
	assert_true(ur_test_slice()->len > ur_test_slice()->pos);  /* bytes left to copy */
	assert_int_equal(pipe(pfd), 0);
	pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		if (ur_take(b, sizeof b, -1) != sizeof b || write(pfd[1], b, sizeof b) != sizeof b)
			syscall(SYS_exit, 3);
		syscall(SYS_exit, 0);
	}
	assert_true(pid > 0);
	assert_int_equal(ur_take(a, sizeof a, -1), sizeof a);
	assert_int_equal(read(pfd[0], b, sizeof b), sizeof b);
	assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_memory_not_equal(a, b, sizeof a);
	close(pfd[0]);
	close(pfd[1]);
	no_wipe = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_zeroes_and_never_repeats),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_slice_short_fill),
		cmocka_unit_test(test_slice_after_fork),
		cmocka_unit_test(test_fork_mid_copy),
#ifdef UR_HAVE_VDSO
		cmocka_unit_test(test_refill_vdso),
		cmocka_unit_test(test_refill_no_vdso),
#endif
		cmocka_unit_test(test_slice_direct_while_filling),
		cmocka_unit_test(test_pid_check_without_wipe),
	};

	return cmocka_run_group_tests_name("urandom_pool", tests, setup, NULL);
}
