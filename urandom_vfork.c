/* SPDX-License-Identifier: MIT */
/*
 * urandom_vfork.c: what a vfork child's descriptor table holds of ours.
 *
 * A vfork child runs on its parent's memory, the vforking thread's
 * thread-locals included, with a descriptor table of its own: the records
 * (urandom_fd.c) describe the parent's table, which the parent's other
 * threads go on changing.  The child goes by a note of the reserves taken
 * at the vfork, changed only by its own calls; so do its own vfork
 * children, each on a copy, its fork's child, and a task that shares its
 * table.
 */
#include "fastpath.h"
#include "urandom.h"

#include <string.h>
#include <sys/resource.h>

/* A vfork child's fork under way: the states of its table (prepare). */
FP_TLS const unsigned char *ur_vf_forking;

/* The reserves at this thread's last vfork, or clone of a child with a
 * table of its own (ur_vforking, the clone wrapper; in the parent): what
 * the child's table holds for us.  Its execs flag the plain ones (a path
 * search tries one after another: a cold review's vfork2exec); a number
 * its own call closed or replaced since (its state 0: gone), or one never
 * noted, is its own file to it (ur_state); its give-back at the limit
 * closes each copy once.  The parent's slots, which its other threads
 * change meanwhile, say nothing of the child's table (cold reviews).
 * Read by the child on the parent's memory (its thread's, suspended). */
static FP_TLS int ur_vf_fd[UR_NRES];               /* number + 1; 0: none */
/* The states in the vfork child's table [0] and, each time a vfork child
 * vforks again, in its child's [i + 1], a copy of its own [i] taken at
 * that vfork: a child's own dup2 or give-back changes its table only (a
 * cold review's nestforget: the grandchild's dropped the child's copy,
 * which its exec passed on; nestread: the grandchild's own file there
 * answered EBADF).  pid[i]: the one at [i], once it vforked (its
 * ancestors, suspended, at the [j] before).  Deeper ones only read the
 * last. */
#define UR_VF_DEPTH 4
static FP_TLS unsigned char ur_vf_st[UR_VF_DEPTH][UR_NRES];
static FP_TLS long ur_vf_pid[UR_VF_DEPTH];
/* own: the child's records (its copy of our memory, or ours with our
 * table) are its table's, nothing noted (a cold review's clonesticky: a
 * clone(SIGCHLD) child of a thread with a CLONE_VM child alive is a vfork
 * child by the mark it copied). */
static FP_TLS bool ur_vf_own;

/* This process's level in the note, and whether it is a task that
 * shares the table of the level before (CLONE_FILES): its pid there is -1
 * until it vforks, then minus its own. */
static int ur_vf_level(long me, bool *shares)
{
	for (int i = 0;; i++) {
		long p = ur_vf_pid[i];

		*shares = p < 0 && (p == -1 || p == -me);
		if (*shares || p == 0 || p == me || i == UR_VF_DEPTH - 1)
			return i;
	}
}

void ur_vfork_note(bool own, bool shared)
{
	if (fp_vfork_child()) {
		long me = (long)getpid();
		bool sh;
		int i = ur_vf_level(me, &sh);

		/* Its child starts from a copy of its view; a clone on its
		 * table shares it (one such a task makes gets a copy). */
		ur_vf_pid[i] = sh ? -me : me;
		if (i < UR_VF_DEPTH - 1) {
			ur_vf_pid[i + 1] = shared && !sh ? -1 : 0;
			memcpy(ur_vf_st[i + 1], ur_vf_st[sh ? i - 1 : i], sizeof ur_vf_st[i]);
		}
		return;
	}
	ur_vf_own = own;
	ur_vf_pid[0] = 0;
	for (int d = 0; d < UR_NRES; d++) {
		int fd = ur_slot_number(atomic_load(&ur_reserve[d].fd));
		unsigned st = fd >= 0 ? atomic_load(ur_fd(fd)) : 0;

		ur_vf_fd[d] = !own && (st & UR_RESERVE) ? fd + 1 : 0;
		ur_vf_st[0][d] = (unsigned char)st;
	}
}

/* The states this vfork child's table has; NULL for a change by one too
 * deep to keep its own. */
static unsigned char *ur_vf_view(bool change)
{
	long me = ur_vf_pid[0] ? (long)getpid() : 0;
	bool sh;
	int i = ur_vf_level(me, &sh);

	if (sh)
		return ur_vf_st[i - 1];
	return !change || !ur_vf_pid[i] || ur_vf_pid[i] == me ? ur_vf_st[i] : NULL;
}

/* A vfork child's soft descriptor limit, read now: its own, which no
 * record of ours follows (its memory is its parent's, or a copy, and a
 * task on that memory or its own child sets its own).  Linux: illumos's
 * hidden numbers are below the limit. */
static long ur_vf_soft(void)
{
#ifndef FP_LINUX
	return 0;
#endif
	struct rlimit rl;
	int saved = errno;
	long r = getrlimit(RLIMIT_NOFILE, &rl) != 0 ? 0
	         : rl.rlim_cur == FP_RLIM_INFINITY || rl.rlim_cur > INT_MAX ? INT_MAX
	                                                                 : (long)rl.rlim_cur;

	errno = saved;
	return r;
}

/* A vfork child raised its soft limit past exact mode's hidden numbers:
 * its copies there are closed in its table, where natively nothing is, and
 * the numbers its own (fd_fuzz's vfork raise: its dup2 onto one read EBADF
 * after).  One is left where it no longer holds the device (its own file,
 * after a raise, a dup2 and a lower). */
void ur_vfork_limit(uint64_t soft)
{
	int saved = errno;

	for (int d = 0; d < UR_NDEV; d++) {
		int h = UR_HW_FD(atomic_load(&ur_hidden[d]));

		if (h >= 0 && (uint64_t)h < soft && ur_is_device(h, d))
			(void)UR_REAL(close)(h);
	}
	errno = saved;
}

/* A vfork child's own dup2, close_range or closefrom met numbers in
 * [lo, hi] (a review: dup2 of /dev/null onto a noted one was lost at the
 * exec), or its give-back (close: true) closes its copies. */
bool ur_vfork_forget(unsigned lo, unsigned hi, bool close)
{
	unsigned char *st = ur_vf_view(true);
	bool any = false;

	for (int d = 0; st && d < UR_NRES; d++)
		if (ur_vf_fd[d] && st[d] && (unsigned)ur_vf_fd[d] - 1 - lo <= hi - lo) {
			st[d] = 0;
			any = (close && UR_REAL(close)(ur_vf_fd[d] - 1) == 0) || any;
		}
	return any;
}

/* A vfork child's state of a number the parent's records say st of now:
 * the noted reserve's while it holds that copy, whatever the parent's
 * threads did since (a cold review: another thread's open of it, or a
 * spawn's give-back, and the child's close of it closed the copy); else
 * an open of ours or a reserve is the file its table has there. */
unsigned ur_vfork_state(int fd, unsigned st)
{
	const unsigned char *v = ur_vf_view(false);

	if (fp_unlikely(st & UR_HIDDEN) && fd < ur_vf_soft())
		return 0;  /* its copy closed by its raise (ur_vfork_limit) */

	for (int d = 0; d < UR_NRES; d++)
		if (ur_vf_fd[d] == fd + 1 && v[d])
			return v[d];
	return ur_vf_own || !(st & (UR_OPEN | UR_RESERVE)) ? st : 0;
}

/* A vfork child's exec: its copies of the plain reserves noted, not gone,
 * made close-on-exec; fds[] says which, for ur_exec_unguard to give back
 * their flag if the exec fails. */
void ur_vfork_flag(int *fds)
{
	const unsigned char *v = ur_vf_view(false);

	for (int d = 0; d < UR_NRES; d++) {
		int fd = ur_vf_fd[d] - 1;

		fds[d] = -1;
		if (fd >= 0 && v[d] && !(v[d] & UR_CLOEXEC) &&
		    UR_REAL(fcntl)(fd, F_SETFD, FD_CLOEXEC) == 0)
			fds[d] = fd;
	}
}

/* A vfork child forks: its table, which the child copies, is the note's
 * (a cold review's forkin, forkopen, openfork: the fork child went by
 * our records, and its own file at a reserve's number read as closed,
 * an open landed on it, a number it reopened read as the device). */
void ur_vfork_forking(void)
{
	ur_vf_forking = ur_vf_view(false);
}

/* In that fork's child, first of its steps (a slot another thread of the
 * parent had marked names no number of this table: fd_fuzz seed 344 case
 * 222298, a move a handler jumped out of, and the child's own file there
 * closed as that move's): the copies of reserves its table holds closed (to
 * the program those numbers are), every slot emptied, every record
 * forgotten: to the vfork child an open of ours was a plain file, its
 * description its own since the vfork's copy-on-write (ur_vforking), and
 * so it is to its fork's child (fd_fuzz seed 340: a number the child
 * dup2'd a write-only open of the device onto read the pool's bytes). */
void ur_vfork_forked(void)
{
	const unsigned char *v = ur_vf_forking;
	int fd, end = atomic_load(&ur_hiwater);
	long soft = -1;

	ur_vf_forking = NULL;
	/* A hidden number below the limit is the vfork child's own file (its
	 * raise closed our copy): forgotten, not retired (a cold review: the
	 * fork child closed the child's pipe there). */
	for (int d = 0; d < UR_NDEV; d++) {
		uint64_t w = atomic_load(&ur_hidden[d]);

		if (UR_HW_FD(w) < 0)
			continue;
		if (soft < 0)
			soft = ur_vf_soft();
		if (UR_HW_FD(w) < soft) {
			atomic_store(&ur_hidden[d], UR_HW(UR_HW_GEN(w) + 1, -1));
			ur_set(UR_HW_FD(w), 0);
		}
	}
	for (int d = 0; d < UR_NRES; d++) {
		if (ur_vf_fd[d] && v[d])
			(void)UR_REAL(close)(ur_vf_fd[d] - 1);
		atomic_store(&ur_reserve[d].fd, -1);
	}
	for (fd = 0; fd < end; fd++) {
		unsigned st = atomic_load(ur_fd(fd));

		if (st & (UR_RESERVE | UR_OPEN))
			ur_cell_store(fd, 0);
	}
}
