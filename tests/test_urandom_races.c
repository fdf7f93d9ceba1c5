/* SPDX-License-Identifier: MIT */
/*
 * The suspected urandom races of issue 24, each forced deterministically:
 * a stand-in of the real dup() (or a program's own call made at the right
 * moment) does what another thread would have done in between.
 *
 *   test_retire_before_dup   exact mode: a retire (fork, F_SETFL) frees
 *                            the hidden number after an open read it and
 *                            before its dup(); the program's locked file
 *                            takes the number.  The open's recovery close()
 *                            of what it duplicated must not drop the
 *                            process's POSIX lock on that file.
 *   test_cow_all_reopened    exact mode: while a fork's ur_cow_all looks
 *                            at a reader thread's pooled number, the
 *                            reader closes it, /dev/null lands there, and
 *                            a pooled open takes it again, with the same
 *                            state.  The live open must stay tracked (its
 *                            reads counted, its changes copied first).
 *   test_close_of_claimed    exact mode: a fork's ur_cow_all has claimed a
 *                            reader's plain pooled number and is about to
 *                            put a fresh description on it; the reader
 *                            closes it (its state read after the claim).
 *                            The close must wait for the copy: else the
 *                            copy puts the device back on the freed number,
 *                            open, unknown to the program, inherited by
 *                            every exec after (check-stress's execcheck).
 *   test_setfd_during_copy   the same copy has read the number's flag when
 *                            the owner sets FD_CLOEXEC (its check for copies
 *                            under way made just before ur_cow_all began):
 *                            the flag must survive the copy.
 *   test_fork_finishes_owner an owner's own copy (its F_SETFL) is half
 *                            done when another thread forks: the fork does
 *                            not wait, and the child finishes the copy, so
 *                            that its number shares the parent's new
 *                            description and no fresh descriptor is left.
 *   test_ghost               reserve mode: an open finds the reserve shared
 *                            (a fork marked it) and closes it while another
 *                            thread's fork is under way, which may have
 *                            copied the table before that close and copy
 *                            the memory after: the slot stays a ghost until
 *                            no fork is, and a child whose memory shows one
 *                            closes its copy of the number (read-only, the
 *                            device), never the program's own.
 *   test_hidden_ghost        exact mode: the same for the hidden descriptor,
 *                            retired by an open a fork began during.
 *   test_range_over_transit  reserve mode: the program's close_range over a
 *                            reserve in transit (an open adopting it, a close
 *                            keeping it), then /dev/null at that number: the
 *                            mover must leave it alone.
 *   test_unshared_table      a thread that unshares its descriptor table
 *                            (unshare, or close_range's CLOSE_RANGE_UNSHARE)
 *                            and opens the device: the main thread's file
 *                            at that number must still read as the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* A waiting thread's turn, counted (below). */
static void test_yield(void);
#define FP_YIELD() test_yield()
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

/* The open wrappers' hook for the CPU cap's files: never ours here. */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	(void)dirfd, (void)path, (void)flags, (void)fd_out;
	return false;
}

void fp_cpus_sv_file(int dirfd, const char *path, int flags)
{
	(void)dirfd, (void)path, (void)flags;
}

void fp_cpus_note_dir(const char *path, int fd)
{
	(void)path, (void)fd;
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

/* The reservoir is what these tests are about: the source forced, as
 * FASTPATH_URANDOM_SOURCE=reservoir would. */
static void reservoir_source(void)
{
	ur_source_asked = UR_SRC_RESERVOIR;
	ur_source_init();
	ur_key_make();
}

static int setup(void **state)
{
	(void)state;
	assert_true(fp_ready());
	reservoir_source();
	fp_cfg.enabled |= FP_BIT(urandom);
	ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
	return 0;
}

/* Does another process see a write lock on path?  (POSIX locks are the
 * process's: only another one can tell.) */
static bool locked_elsewhere(const char *path)
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(path, O_RDWR);

		_exit(fd >= 0 && fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? 0 : 1);
	}
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static char lock_path[64];
static int lock_fd = -1;
static int (*real_dup)(int);

/* dup(h), with a retire first, and the program trying to put its file on
 * h meanwhile: h is at or above the soft limit, where no open, dup2 or
 * dup3 of the program's can land (EBADF, as natively), so the retired
 * number is never the program's when the dup reads it. */
static int racing_dup(int h)
{
	fp_real_urandom.r_dup.f = real_dup;
	(void)ur_hidden_retire();
	assert_int_equal(dup2(lock_fd, h), -1);
	assert_int_equal(errno, EBADF);
	return real_dup(h);
}

static void test_retire_before_dup(void **state)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, h;

	(void)state;
	/* Issue 24: when the hidden descriptor lived below the limit, the
	 * program's file could land on its number between a retire and an
	 * open's dup of it, and the open's close then dropped the program's
	 * locks.  Impossible since it lives above the limit (issue 36). */
	snprintf(lock_path, sizeof lock_path, "/tmp/fp_race_XXXXXX");
	lock_fd = mkstemp(lock_path);
	assert_true(lock_fd >= 0);
	assert_int_equal(fcntl(lock_fd, F_SETLK, &fl), 0);
	assert_true(locked_elsewhere(lock_path));
	/* The hidden descriptor exists. */
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	if (h < 0) {
		printf("skip: no hidden descriptor here (a descriptor limit below 64?)\n");
		skip();
	}
	real_dup = fp_real_urandom.r_dup.f;
	fp_real_urandom.r_dup.f = racing_dup;
	fd = open("/dev/urandom", O_RDONLY);
	fp_real_urandom.r_dup.f = real_dup;
	assert_true(fd >= 0);
	close(fd);
	/* The program's lock is where it was. */
	assert_true(locked_elsewhere(lock_path));
	close(h);
	close(lock_fd);
	unlink(lock_path);
}

/* A pooled open of the device (a duplicate of the hidden descriptor), or
 * the test is skipped where opens are not pooled. */
static int pooled_open(int flags)
{
	int fd = open("/dev/urandom", O_RDONLY | flags);
	unsigned st;

	assert_true(fd >= 0);
	st = ur_state(fd);
	if (!(st & UR_COW)) {
		printf("skip: the open is not a pooled duplicate here (state %#x)\n", st);
		close(fd);
		skip();
	}
	return fd;
}

/* ---- a number closed and reopened under ur_cow_all -------------------- */
static int aba_fd = -1;
static int (*real_fstat)(int, struct stat *);

/* The fstat of ur_cow_all's "is it still the device?", with what the
 * other threads do in between: the owner closes the number, another
 * thread's /dev/null is what the fstat sees, and then a pooled open lands
 * on the number again. */
static int racing_fstat(int fd, struct stat *st)
{
	int r, n;

	fp_real_core.r_fstat.f = real_fstat;
	assert_int_equal(fd, aba_fd);
	assert_int_equal(close(fd), 0);
	assert_int_equal(open("/dev/null", O_RDONLY | O_CLOEXEC), fd);
	r = real_fstat(fd, st);
	assert_int_equal(close(fd), 0);
	n = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_int_equal(n, fd);
	return r;
}

static void test_cow_all_reopened(void **state)
{
	unsigned st;
	unsigned long reads;
	char b[16];
	int fd;

	(void)state;
	fd = pooled_open(O_CLOEXEC);
	st = ur_state(fd);
	aba_fd = fd;
	real_fstat = fp_real_core.r_fstat.f;
	fp_real_core.r_fstat.f = racing_fstat;
	ur_cow_all();
	fp_real_core.r_fstat.f = real_fstat;
	/* The number holds a pooled open: still ours, as the open left it. */
	assert_int_equal(ur_state(fd), st);
	reads = fp_counter(ur_counters, UR_C_READS);
	assert_int_equal(read(fd, b, sizeof b), (ssize_t)sizeof b);
	assert_int_equal(fp_counter(ur_counters, UR_C_READS), reads + 1);
	close(fd);
}

/* ---- the owner's calls on a number ur_cow_all has claimed ------------- */
/* A turn given up in ur_cow_wait (FP_YIELD), counted for every thread but
 * the copier.  That is how the copy knows, without sleeping, that the
 * owner waits for it (as in test_core.c). */
static _Thread_local int yield_is_copier;
static _Atomic unsigned long owner_yields;

static void test_yield(void)
{
	if (!yield_is_copier)
		atomic_fetch_add(&owner_yields, 1);
	(void)sched_yield();
}

static int claimed_fd = -1;
static _Atomic bool owner_done;
static pthread_t owner_t;
static int (*real_dup3)(int, int, int);

/* Until the owner's call returned, or is seen waiting. */
static void await_owner(void)
{
	while (!atomic_load(&owner_done) && !atomic_load(&owner_yields))
		syscall(SYS_sched_yield);
}

static void *owner_close(void *arg)
{
	intptr_t r;

	(void)arg;
	r = close(claimed_fd);
	atomic_store(&owner_done, true);
	return (void *)r;
}

/* ur_put's dup3, after the claim: the owner closes the number now.  The
 * scan runs with every signal blocked (no handler of this thread may free
 * or fork inside it) and cancellation off (unwound, it would leave its
 * count raised). */
static int dup3_after_claim(int old, int new, int flags)
{
	sigset_t cur;
	int cs;

	fp_real_urandom.r_dup3.f = real_dup3;
	assert_int_equal(new, claimed_fd);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &cur), 0);
	assert_true(sigismember(&cur, SIGUSR1) && sigismember(&cur, SIGALRM));
	assert_int_equal(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs), 0);
	assert_int_equal(cs, PTHREAD_CANCEL_DISABLE);
	assert_int_equal(pthread_create(&owner_t, NULL, owner_close, NULL), 0);
	await_owner();
	return real_dup3(old, new, flags);
}

/* A plain pooled open as ur_cow_all's victim, the counters reset. */
static int claimed_open(int flags)
{
	int fd = pooled_open(flags);

	claimed_fd = fd;
	atomic_store(&owner_yields, 0);
	atomic_store(&owner_done, false);
	yield_is_copier = 1;
	return fd;
}

static void test_close_of_claimed(void **state)
{
	void *r;
	int fd;

	(void)state;
	fd = claimed_open(0);
	real_dup3 = fp_real_urandom.r_dup3.f;
	assert_non_null(real_dup3);
	fp_real_urandom.r_dup3.f = dup3_after_claim;
	ur_cow_all();
	fp_real_urandom.r_dup3.f = real_dup3;
	assert_int_equal(pthread_join(owner_t, &r), 0);
	assert_int_equal((intptr_t)r, 0);
	{
		sigset_t cur;
		int cs;

		/* Both given back as they were. */
		assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &cur), 0);
		assert_false(sigismember(&cur, SIGUSR1));
		assert_int_equal(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &cs), 0);
		assert_int_equal(cs, PTHREAD_CANCEL_ENABLE);
	}
	/* Free, as the program's close left it: no device on the number. */
	errno = 0;
	assert_int_equal(syscall(SYS_fcntl, fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(ur_state(fd), 0);
}

static int (*real_fcntl)(int, int, ...);
/* 1: the owner found no copy under way; 2: the copy read the flag; 3: the
 * owner's flag is in the kernel. */
static _Atomic int setfd_step;

/* The owner's F_SETFD and ur_cow's F_GETFD of the number, interleaved as
 * the defect needs: the owner checked for copies under way just before
 * ur_cow_all began; the copy reads the old flag; the owner's flag lands;
 * its record of the flag is made only after the copy claimed the number
 * (so the claim cannot see it changed), and the copy then puts the old
 * flag back with the fresh description. */
static int fcntl_racing(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;
	int r;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != claimed_fd)
		return real_fcntl(fd, cmd, arg);
	if (cmd == F_SETFD && atomic_load(&setfd_step) == 0) {
		atomic_store(&setfd_step, 1);
		while (atomic_load(&setfd_step) != 2)
			syscall(SYS_sched_yield);
		r = real_fcntl(fd, cmd, arg);
		atomic_store(&setfd_step, 3);
		while (ur_state(fd) & UR_COW)  /* until claimed */
			syscall(SYS_sched_yield);
		return r;
	}
	if (cmd == F_GETFD && atomic_load(&setfd_step) == 1) {
		r = real_fcntl(fd, cmd, arg);
		atomic_store(&setfd_step, 2);
		while (atomic_load(&setfd_step) != 3)
			syscall(SYS_sched_yield);
		return r;
	}
	return real_fcntl(fd, cmd, arg);
}

static void *owner_setfd(void *arg)
{
	intptr_t r;

	(void)arg;
	r = fcntl(claimed_fd, F_SETFD, FD_CLOEXEC);
	atomic_store(&owner_done, true);
	return (void *)r;
}

static void test_setfd_during_copy(void **state)
{
	void *r;
	int fd;

	(void)state;
	fd = claimed_open(0);
	atomic_store(&setfd_step, 0);
	real_fcntl = fp_real_urandom.r_fcntl.f;
	fp_real_urandom.r_fcntl.f = fcntl_racing;
	assert_int_equal(pthread_create(&owner_t, NULL, owner_setfd, NULL), 0);
	while (atomic_load(&setfd_step) == 0)
		syscall(SYS_sched_yield);
	ur_cow_all();
	assert_int_equal(pthread_join(owner_t, &r), 0);
	fp_real_urandom.r_fcntl.f = real_fcntl;
	assert_int_equal((intptr_t)r, 0);
	/* The owner's flag, on the copy's description too. */
	assert_int_equal(syscall(SYS_fcntl, fd, F_GETFD), FD_CLOEXEC);
	assert_true(ur_state(fd) & UR_CLOEXEC);
	assert_false(ur_state(fd) & UR_COW);
	close(fd);
}

static _Atomic int put_step;  /* 1: the owner's put is parked; 2: let go */
static _Atomic int put_src = -1;

/* The owner's ur_put, after its claim: parked until the main thread has
 * forked. */
static int dup3_owner_parked(int old, int new, int flags)
{
	fp_real_urandom.r_dup3.f = real_dup3;
	atomic_store(&put_src, old);
	atomic_store(&put_step, 1);
	while (atomic_load(&put_step) != 2)
		syscall(SYS_sched_yield);
	return real_dup3(old, new, flags);
}

static void *owner_setfl(void *arg)
{
	intptr_t r;

	(void)arg;
	r = fcntl(claimed_fd, F_SETFL, O_NONBLOCK);
	atomic_store(&owner_done, true);
	return (void *)r;
}

/* An owner's copy (its F_SETFL) is half done, its fresh description open
 * and the number claimed, when another thread forks: the fork does not wait
 * for it (docs/design.md, "No waits"), and the child finishes it.  Its
 * number then shares the parent's new description (the F_SETFL the parent
 * makes after the fork shows in the child, as natively), and the fresh
 * descriptor is not left open in it. */
static void test_fork_finishes_owner(void **state)
{
	int fd, src, pfd[2], st;
	char c;
	void *r;
	pid_t pid;

	(void)state;
	fd = claimed_open(0);
	atomic_store(&put_step, 0);
	real_dup3 = fp_real_urandom.r_dup3.f;
	fp_real_urandom.r_dup3.f = dup3_owner_parked;
	assert_int_equal(pthread_create(&owner_t, NULL, owner_setfl, NULL), 0);
	while (atomic_load(&put_step) == 0)
		syscall(SYS_sched_yield);
	src = atomic_load(&put_src);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();  /* the atfork handlers run: no wait for the owner */
	if (pid == 0) {
		if (read(pfd[0], &c, 1) != 1)
			_exit(3);
		if (syscall(SYS_fcntl, src, F_GETFD) != -1)
			_exit(4);  /* the fresh descriptor left open */
		_exit((syscall(SYS_fcntl, fd, F_GETFL) & O_NONBLOCK) ? 0 : 5);
	}
	assert_true(pid > 0);
	atomic_store(&put_step, 2);
	assert_int_equal(pthread_join(owner_t, &r), 0);
	assert_int_equal((intptr_t)r, 0);
	assert_int_equal(write(pfd[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
}

/* ---- a reserve closed during another thread's fork -------------------- */
static int (*real_close)(int);

/* The close, with another thread's fork begun (its prepare done) first. */
static int close_in_fork(int fd)
{
	atomic_fetch_add(&ur_forking, 1);
	atomic_fetch_add(&ur_forks, 1);
	return real_close(fd);
}

/* A ghost's stamp is only raised: a close that lost its mark to the
 * program's call stamps nothing, and one stamping late never lowers the
 * stamp of a ghost made since (whose fork's child would keep its copy). */
static void test_ghost_stamp_raised(void **state)
{
	_Atomic unsigned at;
	unsigned now = atomic_load(&ur_forks);
	int slot = UR_DEV_URANDOM * UR_SLOTS;

	(void)state;
	atomic_fetch_add(&ur_forking, 1);  /* a fork under way */
	atomic_store(&at, now + 5);
	assert_int_equal(ur_ghost_left(&at, 7, now), UR_GHOST(7));
	assert_int_equal(atomic_load(&at), now + 5);
	atomic_store(&at, now - 5);
	assert_int_equal(ur_ghost_left(&at, 7, now), UR_GHOST(7));
	assert_int_equal(atomic_load(&at), now);
	atomic_store(&ur_reserve[slot].fd, UR_GHOST(9));
	atomic_store(&ur_slot_ghost_at[slot], now + 3);
	ur_slot_closed(slot, 8, now - 1);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_GHOST(9));
	assert_int_equal(atomic_load(&ur_slot_ghost_at[slot]), now + 3);
	atomic_store(&ur_reserve[slot].fd, -1);
	atomic_fetch_sub(&ur_forking, 1);
}

static void test_ghost(void **state)
{
	int fd, again, ro, rw, held, before, slot = -1, i, st;
	pid_t pid;

	(void)state;
	ur_mode = UR_MODE_RESERVE;
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd > 2);
	assert_int_equal(close(fd), 0);
	for (i = 0; i < UR_NRES; i++)
		if (atomic_load(&ur_reserve[i].fd) == fd)
			slot = i;
	assert_true(slot >= 0);
	ur_update(fd, 0, UR_SHARED);  /* as an earlier fork marks it */
	/* No fork under way as it is closed: the slot is emptied. */
	again = open("/dev/urandom", O_RDONLY);
	assert_int_equal(again, fd);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_int_equal(close(again), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), fd);
	ur_update(fd, 0, UR_SHARED);
	real_close = fp_real_urandom.r_close.f;
	fp_real_urandom.r_close.f = close_in_fork;
	again = open("/dev/urandom", O_RDONLY);
	fp_real_urandom.r_close.f = real_close;
	assert_int_equal(again, fd);  /* closed, opened afresh: as natively */
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_GHOST(fd));
	/* stamped for the fork under way (its start is at most ur_forks) */
	assert_int_equal(atomic_load(&ur_slot_ghost_at[slot]), atomic_load(&ur_forks));
	assert_int_equal(ur_slot_take(slot), -1);  /* the fork is still under way */
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_GHOST(fd));
	atomic_fetch_add(&ur_forks, 1);
	atomic_fetch_sub(&ur_forking, 1);
	assert_int_equal(ur_slot_take(slot), -1);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_int_equal(close(again), 0);
	(void)ur_give_back(EMFILE);

	/* A reserve taken is in transit: its slot marked until the move ends. */
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(close(fd), 0);
	for (slot = -1, i = 0; i < UR_NRES; i++)
		if (atomic_load(&ur_reserve[i].fd) == fd)
			slot = i;
	assert_true(slot >= 0);
	assert_int_equal(ur_slot_take(slot), fd);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_CLOSING(fd));
	assert_true(ur_slot_done(slot, fd, fd));
	(void)ur_give_back(EMFILE);

	/* Such a fork's child: its table holds the numbers its memory shows
	 * as ghosts.  It closes the device opened read-only (ours) for a
	 * ghost made once it had begun; keeps the device opened read-write
	 * (the program's: a pooled open is never), a number the program
	 * holds (tracked), and one a ghost made before it began names. */
	ro = (int)syscall(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDONLY);
	rw = (int)syscall(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDWR);
	held = open("/dev/urandom", O_RDONLY);
	before = (int)syscall(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDONLY);
	assert_true(ro > 2 && rw > 2 && held > 2 && before > 2);
	assert_true(ur_state(held) & UR_OPEN);
	{
		unsigned next = atomic_load(&ur_forks) + 1;  /* the fork below begins at it */
		int want[4] = { ro, rw, held, before };
		unsigned at[4] = { next, next, next, next - 1 };

		for (i = 0; i < 4; i++) {
			atomic_store(&ur_slot_ghost_at[UR_DEV_URANDOM * UR_SLOTS + i], at[i]);
			atomic_store(&ur_reserve[UR_DEV_URANDOM * UR_SLOTS + i].fd, UR_GHOST(want[i]));
		}
	}
	pid = fork();
	if (pid == 0)
		_exit(syscall(SYS_fcntl, ro, F_GETFD) != -1 ? 1 : syscall(SYS_fcntl, rw, F_GETFD) < 0 ? 2
		      : syscall(SYS_fcntl, held, F_GETFD) < 0 ? 3 : syscall(SYS_fcntl, before, F_GETFD) < 0 ? 4 : 0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	for (i = 0; i < 4; i++)
		atomic_store(&ur_reserve[UR_DEV_URANDOM * UR_SLOTS + i].fd, -1);
	syscall(SYS_close, ro);
	syscall(SYS_close, rw);
	syscall(SYS_close, before);
	close(held);
	ur_mode = UR_MODE_EXACT;
}

/* Reserve mode: the program's close_range over a reserve in transit, then
 * its open of /dev/null at that number, by other threads, while an open
 * adopts it (R3) or a close keeps it (R4): the range takes the transit's
 * mark, and the mover leaves the number alone (a cold review's
 * reproducers: on 43c3034 the open closed /dev/null and put the device
 * there; the close left its slot naming the number, and the next pooled
 * open closed /dev/null). */
static int transit_fd = -1, null_fd = -1;

static void range_then_null(void)
{
	int fd = transit_fd;

	transit_fd = -1;
	assert_int_equal(close_range((unsigned)fd, (unsigned)fd, 0), 0);
	null_fd = open("/dev/null", O_RDONLY);
	assert_int_equal(null_fd, fd);
}

static int reserve_slot(int fd);

static bool is_null(int fd)
{
	struct stat st;

	return syscall(SYS_fstat, fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static void test_range_over_transit(void **state)
{
#ifdef FP_HAVE_CLOSE_RANGE
	int fd, slot, none = -1, again;
	unsigned char was;

	(void)state;
	ur_mode = UR_MODE_RESERVE;
	/* R3: an open's adoption, step by step: the take, the range, the
	 * adoption (no call on the number: test_adoption_no_call), the drop */
	(void)ur_give_back(EMFILE);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(close(fd), 0);
	slot = reserve_slot(fd);
	assert_true(slot >= 0);
	assert_int_equal(ur_slot_take(slot), fd);
	transit_fd = fd;
	range_then_null();
	assert_int_equal(ur_adopt(fd, UR_DEV_URANDOM, O_RDONLY, slot), 0);  /* no longer a reserve */
	assert_false(ur_slot_drop(slot, fd));
	assert_true(is_null(null_fd));
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	close(null_fd);
	/* R4: ur_close's keep, step by step: mark, state, the range, store */
	(void)ur_give_back(EMFILE);
	fd = open("/dev/urandom", O_RDONLY);
	was = (unsigned char)ur_state(fd);
	slot = ur_slot_free(UR_DEV_URANDOM);
	assert_true(slot >= 0);
	assert_true(ur_slot_cas(slot, &none, UR_CLOSING(fd)));
	assert_true(ur_cell_cas(fd, &was, (unsigned char)((was & ~UR_OPEN) | UR_RESERVE)));
	transit_fd = fd;
	range_then_null();
	assert_false(ur_slot_done(slot, fd, fd));
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	again = open("/dev/urandom", O_RDONLY);
	assert_true(is_null(null_fd));
	close(again);
	close(null_fd);
	ur_mode = UR_MODE_EXACT;
#else
	(void)state;
	printf("skip: no close_range in this C library\n");
	skip();
#endif
}

/* Exact mode: the hidden descriptor retired while another thread's fork is
 * under way (ur_forked) leaves its word a ghost: opens are real until no
 * fork is, then the ghost goes and a new one is made; a child whose memory
 * shows the ghost closes its copy. */
static void test_hidden_ghost(void **state)
{
	int fd, h, st;
	uint64_t w;
	pid_t pid;

	(void)state;
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	assert_true(h > 2);
	atomic_fetch_add(&ur_forking, 1);
	atomic_fetch_add(&ur_forks, 1);
	assert_true(ur_hidden_close(UR_DEV_URANDOM, -1));
	w = atomic_load(&ur_hidden[UR_DEV_URANDOM]);
	assert_int_equal(UR_HW_FD(w), UR_GHOST(h));
	fd = open("/dev/urandom", O_RDONLY);  /* real: a fork is under way */
	assert_true(fd >= 0);
	assert_int_equal(ur_state(fd) & UR_COW, 0);
	assert_int_equal(close(fd), 0);
	assert_true(atomic_load(&ur_hidden[UR_DEV_URANDOM]) == w);

	/* that fork's child: its table has the number, its memory the ghost */
	h = (int)syscall(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDONLY);
	assert_true(h > 2);
	atomic_store(&ur_hidden[UR_DEV_URANDOM], UR_HW(UR_HW_GEN(w), UR_GHOST(h)));
	atomic_fetch_add(&ur_forks, 1);
	atomic_fetch_sub(&ur_forking, 1);
	atomic_store(&ur_hidden_ghost_at[UR_DEV_URANDOM], atomic_load(&ur_forks) + 1);
	pid = fork();
	if (pid == 0)
		_exit(syscall(SYS_fcntl, h, F_GETFD) != -1);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	syscall(SYS_close, h);

	/* no fork under way: the next open empties the ghost, pools again */
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0);
	assert_true(UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM])) >= 0);
	assert_true(ur_state(fd) & UR_COW);
	assert_int_equal(close(fd), 0);
}

/* ---- an unshared descriptor table ------------------------------------- */
static int victim = -1;
static bool by_close_range;

static void *unsharer(void *arg)
{
	int fd;

	(void)arg;
#ifdef CLOSE_RANGE_UNSHARE
	if (by_close_range) {
		/* Unshares, then closes the number in this thread's table. */
		if (close_range((unsigned)victim, (unsigned)victim, CLOSE_RANGE_UNSHARE) != 0)
			return (void *)1;
	} else
#endif
	{
		if (unshare(CLONE_FILES) != 0)
			return (void *)1;
		/* In this thread's own table the number is free again. */
		close(victim);
	}
	fd = open("/dev/urandom", O_RDONLY);
	return (void *)(intptr_t)(fd == victim ? 0 : 2);
}

static void unshared_table(bool via_close_range)
{
	static const char text[] = "the main thread's own file\n";
	char path[] = "/tmp/fp_unshare_XXXXXX", buf[sizeof text];
	pthread_t t;
	void *r;
	int w;

	by_close_range = via_close_range;
	w = mkstemp(path);
	assert_true(w >= 0);
	assert_int_equal(write(w, text, sizeof text - 1), (ssize_t)sizeof text - 1);
	close(w);
	victim = open(path, O_RDONLY);
	assert_true(victim >= 0);
	assert_int_equal(pthread_create(&t, NULL, unsharer, NULL), 0);
	assert_int_equal(pthread_join(t, &r), 0);
	if (r == (void *)1) {
		printf("skip: %s is refused here\n",
		       via_close_range ? "close_range(CLOSE_RANGE_UNSHARE)" : "unshare(CLONE_FILES)");
		skip();
	}
	assert_ptr_equal(r, NULL);
	memset(buf, 0, sizeof buf);
	assert_int_equal(read(victim, buf, sizeof buf - 1), (ssize_t)sizeof text - 1);
	assert_string_equal(buf, text);
	close(victim);
	unlink(path);
}

static void test_unshared_table(void **state)
{
	(void)state;
	unshared_table(false);
}

/* A handler's siglongjmp out of a reserve's move (open and close are
 * async-signal-safe) strands its mark: this thread's next reserve-mode
 * call ends the move from its note (ur_move_settle), and a move whose note
 * another call ended finds it so. */
static int (*move_fcntl)(int, int, ...);


__attribute__((noinline)) static int reserve_slot(int fd)
{
	for (int i = 0; i < UR_NRES; i++)
		if (atomic_load(&ur_reserve[i].fd) == fd)
			return i;
	return -1;
}

/* Reserve mode, with one reserve kept: opened with flags and closed. */
static int kept_reserve(int flags, int *slot)
{
	int fd;

	ur_mode = UR_MODE_RESERVE;
	(void)ur_give_back(EMFILE);
	fd = open("/dev/urandom", flags);
	assert_int_equal(close(fd), 0);
	assert_true((*slot = reserve_slot(fd)) >= 0);
	return fd;
}

/* A move noted deeper than any frame here: a jump has unwound past it. */
static void note_unwound(int slot, int fd)
{
	ur_move_begin((char *)__builtin_frame_address(0) - 4096);
	ur_move_name(slot, fd);
}

static int alt_opened = -2, alt_noted;
static uintptr_t alt_at;

static void open_on_altstack(int sig)
{
	(void)sig;
	/* Its frames may lie anywhere: as if above the move, which a call
	 * on the main stack would take for one a jump unwound. */
	ur_move.at = (uintptr_t)__builtin_frame_address(0) - 4096;
	alt_at = ur_move.at;
	alt_opened = open("/dev/urandom", O_RDONLY);
	alt_noted = ur_move.slot1;
}

/* F_SETFD (or, flag -1, F_GETFD) through the real call: a held number is
 * closed to the program's. */
static int move_setfd(int fd, int flag)
{
	return flag < 0 ? fp_real_urandom.r_fcntl.f(fd, F_GETFD) :
			  fp_real_urandom.r_fcntl.f(fd, F_SETFD, flag);
}

static void test_move_stranded(void **state)
{
	int fd, again, other, slot, flags, first;
	stack_t ss = { .ss_size = 1 << 16 }, was_ss;
	struct sigaction sa = { .sa_handler = open_on_altstack, .sa_flags = SA_ONSTACK }, was_sa;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	/* An open's move a handler jumped out of between the take and the
	 * adoption (no call there to jump from: noted as the jump leaves
	 * it, deeper than any frame here). */
	assert_int_equal(ur_slot_take(slot), fd);
	note_unwound(slot, fd);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_CLOSING(fd));
	assert_int_equal(ur_move.slot1, slot + 1);
	/* Ended by the next open, not inside it: the reserve, closed to the
	 * program, is closed, and the open is real, at that lowest number. */
	again = open("/dev/urandom", O_RDONLY);
	assert_int_equal(again, fd);
	assert_int_equal(ur_move.slot1, 0);
	assert_true((flags = fcntl(again, F_GETFD)) >= 0 && !(flags & FD_CLOEXEC));
	assert_int_equal(close(again), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), fd);  /* pooling goes on */

	/* Left after the take: a call that is not the device's leaves it;
	 * at the limit, the give-back ends it and the call gets the number. */
	assert_int_equal(ur_slot_take(slot), fd);
	note_unwound(slot, fd);
	other = open("/dev/null", O_RDONLY);
	assert_true(other > fd);
	assert_int_equal(close(other), 0);
	assert_true(ur_give_back(EMFILE));
	assert_int_equal(ur_move.slot1, 0);
	assert_true(fcntl(fd, F_GETFD) < 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);

	/* The program's number in a stranded move (adopted, or its close not
	 * yet kept) stays its own. */
	again = open("/dev/urandom", O_RDONLY);
	assert_int_equal(ur_slot_cas(slot, &(int){ -1 }, UR_CLOSING(again)), true);
	note_unwound(slot, again);
	other = open("/dev/urandom", O_RDONLY);
	assert_int_equal(ur_move.slot1, 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_true(fcntl(again, F_GETFD) >= 0);
	assert_true(other > again);
	assert_int_equal(close(other), 0);  /* kept */
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), other);

	/* With threads, only the move named: another slot's mark is another
	 * thread's live move.  Unnamed, nothing is ended. */
	atomic_store(&fp_threads, true);
	assert_int_equal(ur_slot_cas(slot, &(int){ other }, UR_CLOSING(other)), true);
	atomic_store(&ur_reserve[slot + 1].fd, UR_CLOSING(again));
	ur_move_begin((char *)__builtin_frame_address(0) - 4096);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(ur_move.slot1, 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_CLOSING(other));
	note_unwound(slot, other);
	flags = open("/dev/urandom", O_RDONLY);
	assert_int_equal(flags, other);  /* closed, and opened afresh */
	assert_int_equal(atomic_load(&ur_reserve[slot + 1].fd), UR_CLOSING(again));
	atomic_store(&ur_reserve[slot + 1].fd, -1);
	atomic_store(&fp_threads, false);
	assert_int_equal(close(fd), 0);
	(void)ur_give_back(EMFILE);
	assert_int_equal(close(flags), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), other);

	/* A call that may run inside the move (a handler's, far below it)
	 * is real and leaves it be: the move resumes on what it left. */
	assert_int_equal(ur_slot_take(slot), other);
	ur_move_begin((char *)__builtin_frame_address(0) + 65536);
	ur_move_name(slot, other);
	fd = open("/dev/urandom", O_RDONLY);
	assert_true(fd >= 0 && fd != other);
	assert_int_equal(close(fd), 0);
	assert_int_equal(reserve_slot(fd), -1);  /* really closed */
	assert_true(fcntl(fd, F_GETFD) < 0);
	assert_false(ur_give_back(EMFILE));  /* nor ended at the limit */
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_CLOSING(other));
	assert_int_equal(ur_move.slot1, slot + 1);
	/* So is one on the alternate stack, wherever its frames lie. */
	ss.ss_sp = malloc(ss.ss_size);
	assert_non_null(ss.ss_sp);
	assert_int_equal(sigaltstack(&ss, &was_ss), 0);
	assert_int_equal(sigaction(SIGUSR1, &sa, &was_sa), 0);
	assert_int_equal(raise(SIGUSR1), 0);
	assert_true(alt_opened >= 0 && alt_opened != other);
	assert_int_equal(alt_noted, slot + 1);
	assert_int_equal(ur_move.at, alt_at);
	/* And on one armed with SS_AUTODISARM, which the kernel disarms
	 * inside its handler, and reports there as none (on 914343e the
	 * handler's open took the move for one stranded, and ended it). */
	first = alt_opened;
	alt_noted = 0;
	ss.ss_flags = (int)SS_AUTODISARM;
	assert_int_equal(sigaltstack(&ss, NULL), 0);
	assert_int_equal(raise(SIGUSR1), 0);
	assert_int_equal(sigaction(SIGUSR1, &was_sa, NULL), 0);
	ss.ss_flags = SS_DISABLE;
	assert_int_equal(sigaltstack(&ss, NULL), 0);
	free(ss.ss_sp);
	assert_true(alt_opened >= 0 && alt_opened != other && alt_opened != first);
	assert_int_equal(alt_noted, slot + 1);
	assert_int_equal(ur_move.at, alt_at);
	ur_move.at = (uintptr_t)__builtin_frame_address(0) + 65536;
	assert_int_equal(close(first), 0);
	assert_int_equal(close(alt_opened), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_CLOSING(other));
	ur_move_set(0);
	assert_true(ur_slot_done(slot, other, other));
	assert_int_equal(close(again), 0);
	(void)ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
}

/* A reserve whose state a split's end cleared (a close kept it as the
 * split gave the reserves back) is still closed by the give-back: on
 * 5a0bc62 its mark stayed, and a fork child closed the program's
 * descriptor at that number (fd_fuzz's jumps and threads). */
static void test_drop_cleared_state(void **state)
{
	int fd, slot;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	atomic_store(ur_fd(fd), 0);
	assert_true(ur_give_back(EMFILE));
	assert_true(fcntl(fd, F_GETFD) < 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	ur_mode = UR_MODE_EXACT;
}

/* An exec's guard makes a reserve in transit close-on-exec whatever its
 * state says (a move a jump left, or a one-thread adoption whose state is
 * written and its F_SETFD not: fd_fuzz's jumps, then a spawn, on 1cafa57),
 * and its unguard puts back the flag its state says. */
static void test_guard_in_transit(void **state)
{
	int fd, slot, fds[UR_NRES];

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);
	assert_int_equal(fcntl(fd, F_SETFD, 0), -1);  /* held: closed to the program */
	ur_exec_guard(fds);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	assert_int_equal(fds[slot], fd);
	ur_exec_unguard(fds);
	assert_int_equal(move_setfd(fd, -1), 0);  /* its state's flag */
	assert_true(ur_slot_drop(slot, fd));

	fd = kept_reserve(O_RDONLY | O_CLOEXEC, &slot);
	assert_int_equal(ur_slot_take(slot), fd);
	assert_int_equal(move_setfd(fd, 0), 0);  /* its state says close-on-exec */
	ur_exec_guard(fds);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	assert_int_equal(fds[slot], fd);
	ur_exec_unguard(fds);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	assert_true(ur_slot_drop(slot, fd));
	ur_mode = UR_MODE_EXACT;
}

/* A close while another thread's exec or spawn is under way (its guard
 * begun, its unguard not ended) is real: the guard may have looked at the
 * slots before the close kept its descriptor, and the new program would
 * get a number the program closed (prog_urandom_stall execjump: 73 of 400
 * spawns got two descriptors of the device on 4464c31).  Kept again once
 * the unguard ended. */
static void test_close_during_guard(void **state)
{
	int fd, fds[UR_NRES], slot;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(open("/dev/urandom", O_RDONLY), fd);  /* adopted */
	atomic_fetch_add(&ur_guards[0], 1);  /* another thread's guard, begun */
	assert_int_equal(close(fd), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_true(move_setfd(fd, -1) < 0);  /* really closed */
	atomic_fetch_add(&ur_guards[1], 1);  /* its unguard, ended */
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(close(fd), 0);
	assert_int_equal(reserve_slot(fd) >= 0, 1);  /* kept again */
	ur_exec_guard(fds);  /* the counts as a real guard leaves them */
	ur_exec_unguard(fds);
	assert_int_equal(atomic_load(&ur_guards[0]), atomic_load(&ur_guards[1]));
	(void)ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
}

/* While another thread's exec or spawn is under way, or after a jump out
 * of one (a guard without its unguard), a plain open adopts nothing: the
 * guard may have made a reserve in transit close-on-exec (a cold review:
 * a jump out of a failed execve, and the next plain open got the reserve
 * with the flag).  The open is real; adoption comes back with the
 * unguard.  A plain reserve at rest the guard gave back. */
static void test_open_during_guard(void **state)
{
	int fd, fds[UR_NRES], slot, other, flags;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	ur_exec_guard(fds);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_true(move_setfd(fd, -1) < 0);  /* given back: closed */
	ur_exec_unguard(fds);
	fd = kept_reserve(O_RDONLY | O_CLOEXEC, &slot);
	ur_exec_guard(fds);  /* the exec it guards jumped out: no unguard yet */
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	other = open("/dev/urandom", O_RDONLY);
	assert_true(other >= 0 && other != fd);
	assert_true((flags = fcntl(other, F_GETFD)) >= 0 && !(flags & FD_CLOEXEC));
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), fd);  /* left as it is */
	assert_int_equal(close(other), 0);
	assert_true(move_setfd(other, -1) < 0);  /* nor kept: really closed */
	ur_exec_unguard(fds);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);  /* as it was */
	(void)ur_give_back(EMFILE);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(close(fd), 0);  /* kept again */
	assert_true(reserve_slot(fd) >= 0);
	assert_int_equal(open("/dev/urandom", O_RDONLY), fd);  /* adopted again */
	assert_int_equal(close(fd), 0);
	(void)ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
}

/* A plain reserve put at rest while a guard is under way, one that may
 * have looked before (ur_kept_settle), is given back, never made
 * close-on-exec (a cold review of 4211bd7: with threads that flag could
 * land on another thread's file, and no plain open took such a reserve
 * again).  And a vfork child's guard acts on the plain reserves of the
 * vfork (ur_vfork_note), in its own table, never on what the parent's
 * slots say since (cold reviews: a reserve dropped meanwhile reached the
 * program; a program's file at a number kept meanwhile lost itself). */
static void test_settle_and_vfork(void **state)
{
	int fd, other, slot, fds[UR_NRES], noted = -1;
	long pid = atomic_load(&ur_table_pid);

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	atomic_fetch_add(&ur_guards[0], 1);  /* another thread's guard, begun */
	ur_kept_settle(slot, fd);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_true(move_setfd(fd, -1) < 0);  /* closed */
	atomic_fetch_add(&ur_guards[1], 1);

	fd = kept_reserve(O_RDONLY, &slot);
	ur_vfork_note(false, false);          /* the parent, at the vfork */
	assert_int_equal(open("/dev/urandom", O_RDONLY), fd);  /* its threads, since */
	other = open("/dev/urandom", O_RDONLY);
	assert_int_equal(close(other), 0);    /* a plain reserve the vfork never saw */
	atomic_store(&ur_table_pid, pid + 1); /* the vfork child's table */
	ur_exec_guard(fds);
	for (int d = 0; d < UR_NRES; d++)
		if (fds[d] >= 0)
			noted = fds[d];
	assert_int_equal(noted, fd);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	assert_int_equal(move_setfd(other, -1), 0);  /* untouched */
	ur_exec_unguard(fds);                 /* the exec failed */
	assert_int_equal(move_setfd(fd, -1), 0);
	ur_exec_guard(fds);                   /* the next one of a path search */
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	ur_exec_unguard(fds);
	assert_int_equal(move_setfd(fd, -1), 0);
	/* A nested vfork (the mark another pid's): the grandchild's dup2
	 * onto it makes it its own file, not its parent's (a cold review's
	 * nestread: EBADF in the grandchild, the reserve in the child). */
	fp_vforking = FP_VFORK_WAITING;
	fp_vfork_pid = pid + 1;
	ur_vfork_note(false, false);          /* the child, vforking again */
	ur_vf_pid[0] = pid + 1;               /* and this, its child */
	(void)ur_vfork_forget((unsigned)fd, (unsigned)fd, false);
	assert_int_equal(ur_vfork_state(fd, UR_RESERVE), 0);
	ur_vf_pid[0] = pid;                   /* the child again */
	assert_int_not_equal(ur_vfork_state(fd, UR_RESERVE), 0);
	fp_vforking = FP_VFORK_NONE;
	/* The child's own dup2 onto it: its file from then on, never
	 * flagged, and every call on it the real one (cold reviews). */
	(void)ur_vfork_forget((unsigned)fd, (unsigned)fd, false);
	assert_int_equal(ur_vfork_state(fd, UR_RESERVE), 0);
	ur_exec_guard(fds);
	assert_int_equal(move_setfd(fd, -1), 0);
	ur_exec_unguard(fds);
	atomic_store(&ur_table_pid, pid);
	assert_int_equal(atomic_load(&ur_guards[0]), atomic_load(&ur_guards[1]));
	assert_int_equal(close(fd), 0);
	(void)ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
}

/* An open asking for flags the reserve does not have makes no call on the
 * reserve's number while other threads may free and reopen it (a cold
 * review's finding 5: the adoption's F_SETFD landed on another thread's
 * /dev/null after its close_range there): with threads the reserve stays
 * in its slot, and the open is real, at another number, with the flag it
 * asked for; an open that asks for the reserve's flags then has it with no
 * call at all. */
static int calls_on = -1, calls_seen;

static int fcntl_counts(int fd, int cmd, ...)
{
	va_list ap;
	int arg;

	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	calls_seen += fd == calls_on;
	return move_fcntl(fd, cmd, arg);
}

static int (*counted_close)(int);

static int close_counts(int fd)
{
	calls_seen += fd == calls_on;
	return counted_close(fd);
}

static void test_adoption_no_call(void **state)
{
	bool had_threads = atomic_load(&fp_threads);
	int fd, slot, other, again;
	unsigned long sys;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	atomic_store(&fp_threads, true);
	move_fcntl = fp_real_urandom.r_fcntl.f;
	counted_close = fp_real_urandom.r_close.f;
	fp_real_urandom.r_fcntl.f = fcntl_counts;
	fp_real_urandom.r_close.f = close_counts;
	calls_on = fd;
	calls_seen = 0;
	other = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0 && other != fd);
	assert_int_equal(calls_seen, 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), fd);  /* at rest again */
	assert_int_equal(move_setfd(other, -1), FD_CLOEXEC);
	assert_int_equal(move_setfd(fd, -1), 0);
	calls_seen = 0;
	sys = fp_counter(ur_counters, UR_C_SYSCALLS);
	again = open("/dev/urandom", O_RDONLY);
	assert_int_equal(again, fd);
	assert_int_equal(fp_counter(ur_counters, UR_C_SYSCALLS), sys);
	assert_int_equal(calls_seen, 0);
	fp_real_urandom.r_fcntl.f = move_fcntl;
	fp_real_urandom.r_close.f = counted_close;
	calls_on = -1;
	assert_int_equal(close(again), 0);
	assert_int_equal(close(other), 0);
	(void)ur_give_back(EMFILE);
	atomic_store(&fp_threads, had_threads);
	ur_mode = UR_MODE_EXACT;
}

/* An exec's unguard claims a reserve at rest before it reads its state
 * and sets its flag: no open adopts it in between (a cold review of
 * 4f4afff: an O_CLOEXEC open adopted it there, and the unguard's F_SETFD
 * 0 then left that open without the flag). */
static int unguard_slot = -1, taken_inside = -2;

static int fcntl_tries_take(int fd, int cmd, ...)
{
	va_list ap;
	int arg;

	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	if (cmd == F_SETFD && unguard_slot >= 0)
		taken_inside = ur_slot_take(unguard_slot);  /* another thread's open */
	return move_fcntl(fd, cmd, arg);
}

static void test_unguard_claims(void **state)
{
	int fd, slot, fds[UR_NRES];

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);  /* in transit at the guard */
	ur_exec_guard(fds);
	assert_int_equal(fds[slot], fd);
	assert_true(ur_slot_done(slot, fd, fd));   /* at rest by the unguard */
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	move_fcntl = fp_real_urandom.r_fcntl.f;
	fp_real_urandom.r_fcntl.f = fcntl_tries_take;
	unguard_slot = slot;
	ur_exec_unguard(fds);
	fp_real_urandom.r_fcntl.f = move_fcntl;
	unguard_slot = -1;
	assert_int_equal(taken_inside, -1);  /* claimed: nothing to take */
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), fd);  /* at rest again */
	assert_int_equal(move_setfd(fd, -1), 0);
	(void)ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
}

/* A split (another thread's lock on the device) while the unguard holds
 * its claim: the claimed reserve is given back once the claim ends, not
 * left open and forgotten; and the claim runs with every signal blocked
 * (a cold review: a jump out would strand the mark, a fork in a handler
 * would see our F_SETFD land on its file). */
static int split_blocked = -1;

static int fcntl_splits(int fd, int cmd, ...)
{
	va_list ap;
	int arg;
	sigset_t now;

	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	if (cmd == F_SETFD && split_blocked < 0) {
		assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
		split_blocked = sigismember(&now, SIGALRM) && sigismember(&now, SIGUSR1);
		ur_split("a test's split inside an unguard");
	}
	return move_fcntl(fd, cmd, arg);
}

static void test_unguard_split(void **state)
{
	int fd, slot, fds[UR_NRES];

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);  /* in transit at the guard */
	ur_exec_guard(fds);
	assert_int_equal(fds[slot], fd);
	assert_true(ur_slot_done(slot, fd, fd));   /* at rest by the unguard */
	move_fcntl = fp_real_urandom.r_fcntl.f;
	fp_real_urandom.r_fcntl.f = fcntl_splits;
	ur_exec_unguard(fds);
	fp_real_urandom.r_fcntl.f = move_fcntl;
	assert_int_equal(split_blocked, 1);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_true(fcntl(fd, F_GETFD) < 0);  /* closed, as the split's others */
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);
	ur_mode = UR_MODE_EXACT;
}

/* A split (a record lock on the device) with a reserve in transit, its
 * mark stranded by a jump (between the mark and the move's naming: no
 * later call of its thread ends it): forgotten, still marked, and every
 * exec's guard makes it close-on-exec for good (on 324fec6 the guard
 * skipped it, and each later spawn got the number: prog_urandom_stall
 * execjump, 67 of 400 spawned programs in CI; a5b9c70 kept it held, and a
 * close-everything loop could not free the number).  An open that took
 * one in transit adopts nothing after the split. */
static void test_split_keeps_marked(void **state)
{
	int fd, slot, n, fds[UR_NRES];

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);  /* its mover jumped out */
	ur_split("a test's split");
	/* Forgotten (a close-everything loop may close it: held, the number
	 * was lost for good, CI on a5b9c70), still marked, and flagged by
	 * the guard for good. */
	assert_int_equal(ur_state(fd), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), UR_CLOSING(fd));
	ur_exec_guard(fds);
	assert_int_equal(fds[slot], fd);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	ur_exec_unguard(fds);
	assert_int_equal(move_setfd(fd, -1), FD_CLOEXEC);
	/* A mover that runs on: no adoption, and its drop closes it. */
	assert_int_equal(ur_adopt(fd, UR_DEV_URANDOM, O_RDONLY, slot), 0);
	assert_true(ur_slot_drop(slot, fd));
	assert_true(fcntl(fd, F_GETFD) < 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);

	/* An open that took one in transit while a fork is under way puts
	 * it back rather than close it (forkrace); after a split it is
	 * given back at once, not left at rest for the next exec's guard to
	 * close, after a lock perhaps (a cold review of 5b6223f). */
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);
	ur_split("a test's split");
	assert_true(ur_slot_done(slot, fd, fd));  /* as the mover left it */
	atomic_store(&ur_forking, 1);
	n = ur_open(UR_DEV_URANDOM, "/dev/urandom", O_RDONLY);
	atomic_store(&ur_forking, 0);
	assert_true(n >= 0);
	assert_int_equal(ur_slot_number(atomic_load(&ur_reserve[slot].fd)), -1);
	if (atomic_load(&ur_reserve[slot].fd) != -1)  /* a ghost: forks under way */
		atomic_store(&ur_reserve[slot].fd, -1);
	assert_int_equal(close(n), 0);
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);
	ur_mode = UR_MODE_EXACT;
}

/* A jump out of an open's adoption after its state change leaves its slot
 * marked on a number the program holds (natively the open's number, lost
 * with the frame; a close-everything loop closes it).  Through a split (a
 * record lock on the device) and the program's close, that mark must not
 * outlive the number: a fork's child took the next read-only open of the
 * device there for a reserve being closed, and closed its copy (the shape
 * of fd_fuzz seed 456 case 199082: a jumps, a lock, a dup, a fork). */
static void test_split_program_mark(void **state)
{
	int fd, slot, other, n, st;
	pid_t p;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);
	assert_int_equal(ur_adopt(fd, UR_DEV_URANDOM, O_RDONLY, slot), 1);  /* the jump */
	ur_split("a test's split");
	/* Forgotten as every other of the program's, its mark off: kept, a
	 * dup of it in a table of its own was served by the pool (cold
	 * review 49 of 2dafb5d). */
	assert_int_equal(ur_state(fd), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	other = open("/dev/urandom", O_RDONLY);  /* real now: the pool ended */
	assert_true(other >= 0 && other != fd);
	assert_int_equal(close(fd), 0);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	n = fcntl(other, F_DUPFD, fd);
	assert_int_equal(n, fd);
	p = fork();
	if (p == 0)
		_exit(fcntl(fd, F_GETFD) >= 0 ? 0 : 1);
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);  /* the child has it, as natively */
	assert_int_equal(close(n), 0);
	assert_int_equal(close(other), 0);
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);

	/* Before any split: the number closed and kept again, in another
	 * slot (a process with threads), and given back: the mark goes with
	 * it, the number being free from then on. */
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);
	assert_int_equal(ur_adopt(fd, UR_DEV_URANDOM, O_RDONLY, slot), 1);  /* the jump */
	n = (slot + 1) % UR_SLOTS + UR_RES_DEV(slot) * UR_SLOTS;
	ur_cell_store(fd, UR_RESERVE);  /* as a close's keep into slot n leaves it */
	atomic_store(&ur_reserve[n].fd, fd);
	assert_true(ur_give_back(EMFILE));
	assert_true(fcntl(fd, F_GETFD) < 0);
	assert_int_equal(atomic_load(&ur_reserve[n].fd), -1);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);

	/* Handed to stdio, which closes it unseen: the mark goes then. */
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(ur_slot_take(slot), fd);
	assert_int_equal(ur_adopt(fd, UR_DEV_URANDOM, O_RDONLY, slot), 1);  /* the jump */
	{
		FILE *f = fdopen(fd, "r");

		assert_non_null(f);
		assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
		assert_int_equal(fclose(f), 0);
	}
	ur_mode = UR_MODE_EXACT;
}

/* A mark a jump left may name the number another slot keeps: a failed
 * close_range closes what it took back once, not once a slot (review 49:
 * the second close could be another thread's new file there). */
static void test_range_once(void **state)
{
	int fd, slot, n, d, seen = 0, taken[UR_NTAKEN];

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	n = (slot + 1) % UR_SLOTS + UR_RES_DEV(slot) * UR_SLOTS;
	atomic_store(&ur_reserve[n].fd, UR_CLOSING(fd));
	ur_untrack_range((unsigned)fd, (unsigned)fd, taken);
	for (d = 0; d < UR_NTAKEN; d++)
		seen += taken[d] == fd;
	assert_int_equal(seen, 1);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);
	assert_int_equal(atomic_load(&ur_reserve[n].fd), -1);
	assert_int_equal(close(fd), 0);  /* the one close, as a failed call's */
	ur_mode = UR_MODE_EXACT;
}

/* A close a handler jumped out of before its state changed leaves the
 * program's number marked; a dup2 onto it takes the mark, and the move's
 * end closes nothing of the program's (a cold review's strand_dup2: on
 * 9059122 the next open closed the /dev/null dup2 put there).  And the
 * program's F_SETFD 0 clears the state's bit before the kernel's flag: a
 * jump out in between never leaves the state close-on-exec over a plain
 * flag (its setfd_jump: an O_CLOEXEC open then got the reserve without
 * the flag). */
static unsigned setfd_state_seen = 99;

static int fcntl_sees_state(int fd, int cmd, ...)
{
	va_list ap;
	int arg;

	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	if (cmd == F_SETFD)
		setfd_state_seen = ur_state(fd) & UR_CLOEXEC;
	return move_fcntl(fd, cmd, arg);
}

static void test_program_mark_and_flag(void **state)
{
	int fd, slot, n, other;

	(void)state;
	fd = kept_reserve(O_RDONLY, &slot);
	assert_int_equal(open("/dev/urandom", O_RDONLY), fd);  /* adopted */
	assert_true(ur_slot_cas(slot, &(int){ -1 }, UR_CLOSING(fd)));
	note_unwound(slot, fd);
	n = open("/dev/null", O_RDONLY);
	assert_int_equal(dup2(n, fd), fd);
	assert_int_equal(atomic_load(&ur_reserve[slot].fd), -1);  /* taken by the dup2 */
	other = open("/dev/urandom", O_RDONLY);
	assert_true(other >= 0);
	assert_true(is_null(fd));
	assert_int_equal(close(other), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(close(n), 0);

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	assert_true(ur_state(fd) & UR_CLOEXEC);
	move_fcntl = fp_real_urandom.r_fcntl.f;
	fp_real_urandom.r_fcntl.f = fcntl_sees_state;
	assert_int_equal(fcntl(fd, F_SETFD, 0), 0);
	fp_real_urandom.r_fcntl.f = move_fcntl;
	assert_int_equal(setfd_state_seen, 0);
	assert_int_equal(close(fd), 0);
	(void)ur_give_back(EMFILE);
	ur_mode = UR_MODE_EXACT;
}

#ifdef FP_HAVE_CLOSE_RANGE
/* A close_range flag a later kernel knows: the range is closed by the
 * call, and another thread may have a number of it at once; ours there
 * are forgotten, never closed again. */
#define FUTURE_FLAG (1U << 30)
static int (*known_close_range)(unsigned, unsigned, int);

static int close_range_future(unsigned lo, unsigned hi, int flags)
{
	int r = known_close_range(lo, hi, flags & ~(int)FUTURE_FLAG);

	/* another thread's, at once: before our wrapper could see it */
	null_fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY);
	return r;
}
#endif

static void test_range_future_flag(void **state)
{
	(void)state;
#ifdef FP_HAVE_CLOSE_RANGE
	int fd;

	ur_mode = UR_MODE_RESERVE;
	(void)ur_give_back(EMFILE);
	fd = open("/dev/urandom", O_RDONLY);
	assert_int_equal(close(fd), 0);
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), fd);
	known_close_range = fp_real_urandom.r_close_range.f;
	fp_real_urandom.r_close_range.f = close_range_future;
	assert_int_equal(close_range((unsigned)fd, ~0U, (int)FUTURE_FLAG), 0);
	fp_real_urandom.r_close_range.f = known_close_range;
	assert_int_equal(null_fd, fd);
	assert_true(is_null(null_fd));
	assert_int_equal(ur_reserve_of(UR_DEV_URANDOM), -1);
	assert_int_equal(close(null_fd), 0);
	ur_mode = UR_MODE_EXACT;
#else
	printf("skip: no close_range in this C library\n");
	skip();
#endif
}

static void test_close_range_unshare(void **state)
{
	(void)state;
#ifdef CLOSE_RANGE_UNSHARE
	/* The first test left tracking off: start from a fresh record. */
	atomic_store(&ur_split_done, false);
	unshared_table(true);
#else
	printf("skip: no CLOSE_RANGE_UNSHARE in this C library's headers\n");
	skip();
#endif
}

/* The note as the split's first close found it. */
static uintptr_t note_at_close;
static bool note_seen;

static int close_noting(int fd)
{
	if (!note_seen) {
		note_seen = true;
		note_at_close = ur_dup_at;
	}
	return real_close(fd);
}

/* A handler's jump out of a pooled open between its duplicate and its
 * record leaves the duplicate unrecorded, sharing the pool's description
 * (fd_fuzz seed 36 case 9: made non-blocking, so was every later open).
 * The window noted by hand as the open leaves it, the duplicate made as it
 * does.  how: the program's next call, a change of the left one's flags
 * by fcntl or ioctl, or an open. */
static void dup_stranded(int how)
{
	char *here = __builtin_frame_address(0);
	int p, left, q, h, on = 1, pp[2];
	long pid;

	/* (the tests before left the pooling ended) */
	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);
	p = open("/dev/urandom", O_RDONLY);
	assert_true(p >= 0);
	h = UR_HW_FD(atomic_load(&ur_hidden[UR_DEV_URANDOM]));
	assert_true(h >= 0);
	left = UR_REAL(dup)(h);
	assert_true(left >= 0 && ur_state(left) == 0);
	/* A handler inside the window (a signal frame below it): its open is
	 * real, the note stays. */
	ur_dup_note((uintptr_t)(here + 4096));
	q = open("/dev/urandom", O_RDONLY);
	assert_true(q >= 0);
	assert_true(ur_dup_at != 0 && !atomic_load(&ur_split_done));
	assert_int_equal(close(q), 0);
	/* The window left by a jump (its frame below this one): the next
	 * call ends the pooling first, and the left one alone shares the
	 * description then. */
	ur_dup_note((uintptr_t)(here - 4096));
	/* A vfork child's change first: its note is the parent's, which
	 * stays (review 41: cleared, with nothing ended). */
	pid = atomic_load(&ur_table_pid);
	atomic_store(&ur_table_pid, pid + 1);
	assert_int_equal(pipe(pp), 0);
	assert_int_equal(fcntl(pp[0], F_SETFL, O_NONBLOCK), 0);
	atomic_store(&ur_table_pid, pid);
	assert_true(ur_dup_at != 0 && !atomic_load(&ur_split_done));
	assert_int_equal(close(pp[0]) | close(pp[1]), 0);
	/* The note stays up until the split is done: a jump out before it
	 * (its getpid, a system call, where a signal lands) finds the note
	 * still there, and the next call splits (seed 447 case 22698: noted
	 * off first, the pooling went on with the left one sharing it). */
	real_close = fp_real_urandom.r_close.f;
	fp_real_urandom.r_close.f = close_noting;
	note_seen = false;
	if (how == 0)
		assert_int_equal(fcntl(left, F_SETFL, O_NONBLOCK), 0);
	else if (how == 1)
		assert_int_equal(ioctl(left, FIONBIO, &on), 0);
	else
		assert_int_equal(close(q = open("/dev/urandom", O_RDONLY)), 0);
	fp_real_urandom.r_close.f = real_close;
	assert_true(note_seen);
	assert_true(note_at_close != 0);
	assert_int_equal(ur_dup_at, 0);
	assert_true(atomic_load(&ur_split_done));
	assert_string_equal(ur_split_reason(), "a jump out of an open or a close");
	if (how < 2)
		assert_true(fcntl(left, F_GETFL) & O_NONBLOCK);
	assert_false(fcntl(p, F_GETFL) & O_NONBLOCK);
	q = open("/dev/urandom", O_RDONLY);
	assert_false(fcntl(q, F_GETFL) & O_NONBLOCK);
	assert_int_equal(close(q), 0);
	assert_int_equal(close(left), 0);
	assert_int_equal(close(p), 0);
}

/* A jump out of a pooled descriptor's close (or a dup2 onto one) between
 * its forgetting and the kernel's freeing leaves it open unrecorded,
 * sharing the pool's description: noted as an open's window, so that the
 * next change of a description ends the pooling first (seed 453 case
 * 42731, flaky: the close-everything loop made what a jump left
 * non-blocking, and so was the next open; on 683e32b no note was up). */
static jmp_buf close_env;
static uintptr_t note_in_close;
static int (*real_dup2)(int, int);

static int close_jumping(int fd)
{
	(void)fd;
	note_in_close = ur_dup_at;
	longjmp(close_env, 1);
}

static int dup2_jumping(int fd, int to)
{
	(void)fd;
	(void)to;
	note_in_close = ur_dup_at;
	longjmp(close_env, 1);
}

static void close_stranded(bool by_dup2)
{
	volatile int left, null_fd = -1;
	int q;

	atomic_store(&ur_split_done, false);
	atomic_store(&ur_split_finished, false);
	atomic_store(&ur_split_why, NULL);
	left = open("/dev/urandom", O_RDONLY);
	assert_true(left >= 0 && (ur_state(left) & UR_COW));
	note_in_close = 0;
	real_close = fp_real_urandom.r_close.f;
	real_dup2 = fp_real_urandom.r_dup2.f;
	if (by_dup2) {
		null_fd = open("/dev/null", O_RDONLY);
		fp_real_urandom.r_dup2.f = dup2_jumping;
	} else {
		fp_real_urandom.r_close.f = close_jumping;
	}
	if (!setjmp(close_env))
		(void)(by_dup2 ? dup2(null_fd, left) : close(left));
	fp_real_urandom.r_close.f = real_close;
	fp_real_urandom.r_dup2.f = real_dup2;
	assert_true(note_in_close != 0);
	assert_true(fcntl(left, F_GETFD) >= 0 && ur_state(left) == 0);  /* left, unrecorded */
	assert_true(ur_dup_at != 0 && !atomic_load(&ur_split_done));
	assert_int_equal(fcntl(left, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(ur_dup_at, 0);
	assert_string_equal(ur_split_reason(), "a jump out of an open or a close");
	q = open("/dev/urandom", O_RDONLY);
	assert_false(fcntl(q, F_GETFL) & O_NONBLOCK);
	assert_int_equal(close(q), 0);
	assert_int_equal(close(left), 0);
	if (null_fd >= 0)
		assert_int_equal(close(null_fd), 0);
}

static void test_close_stranded(void **state)
{
	(void)state;
	close_stranded(false);
	close_stranded(true);
}

static void test_dup_stranded(void **state)
{
	(void)state;
	for (int how = 0; how < 3; how++)
		dup_stranded(how);
}

int main(void)
{
	/* The hidden descriptor sits at the soft descriptor limit, where that
	 * is below the hard one: 1024 here, as on a systemd system. */
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > 1024) {
		rl.rlim_cur = 1024;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_retire_before_dup, setup),
		cmocka_unit_test_setup(test_cow_all_reopened, setup),
		cmocka_unit_test_setup(test_close_of_claimed, setup),
		cmocka_unit_test_setup(test_setfd_during_copy, setup),
		cmocka_unit_test_setup(test_fork_finishes_owner, setup),
		cmocka_unit_test_setup(test_ghost, setup),
		cmocka_unit_test_setup(test_ghost_stamp_raised, setup),
		cmocka_unit_test_setup(test_hidden_ghost, setup),
		cmocka_unit_test_setup(test_range_over_transit, setup),
		cmocka_unit_test_setup(test_move_stranded, setup),
		cmocka_unit_test_setup(test_drop_cleared_state, setup),
		cmocka_unit_test_setup(test_guard_in_transit, setup),
		cmocka_unit_test_setup(test_adoption_no_call, setup),
		cmocka_unit_test_setup(test_close_during_guard, setup),
		cmocka_unit_test_setup(test_open_during_guard, setup),
		cmocka_unit_test_setup(test_settle_and_vfork, setup),
		cmocka_unit_test_setup(test_unguard_claims, setup),
		cmocka_unit_test_setup(test_unguard_split, setup),
		cmocka_unit_test_setup(test_split_keeps_marked, setup),
		cmocka_unit_test_setup(test_split_program_mark, setup),
		cmocka_unit_test_setup(test_range_once, setup),
		cmocka_unit_test_setup(test_program_mark_and_flag, setup),
		cmocka_unit_test_setup(test_range_future_flag, setup),
		cmocka_unit_test_setup(test_unshared_table, setup),
		cmocka_unit_test_setup(test_close_range_unshare, setup),
		cmocka_unit_test_setup(test_dup_stranded, setup),
		cmocka_unit_test_setup(test_close_stranded, setup),
	};

	return cmocka_run_group_tests_name("urandom races", tests, NULL, NULL);
}
