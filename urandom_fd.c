/* SPDX-License-Identifier: MIT */
/*
 * urandom_fd.c: the descriptors of the device that the urandom mitigation
 * tracks, the hidden one it duplicates (exact mode) and the one it keeps
 * in reserve (reserve mode).
 *
 * The caller always gets a real kernel descriptor of the device (fstat,
 * poll, exec and children all behave).
 *   - exact (the default): an open is fcntl(hidden, F_DUPFD[_CLOEXEC], 0),
 *     the lowest free number as open gives, and close really closes.  The
 *     hidden descriptor sits at a high number, close-on-exec.
 *   - reserve: close() keeps a descriptor of the device in reserve (one
 *     per device while the process has one thread, then up to UR_SLOTS, a
 *     slot per CPU), in the close-on-exec state the program left it, and
 *     the next open() hands it out again; exec and spawn make it
 *     close-on-exec first (ur_exec_guard).
 * Invariants kept here:
 *   - ur_fd() marks only numbers the kernel holds open (ur_untrack comes
 *     before every call that may free a number; ur_heal after every call
 *     that returns a fresh one);
 *   - ur_hidden[] names a number only while it is our hidden descriptor,
 *     and its generation changes before the number is freed or replaced;
 *   - the reserve is never 0, 1 or 2, and its open file description is its
 *     own: never one a dup or a forked child shares (UR_SHARED; ur_close,
 *     ur_adopt).
 */
#include "fastpath.h"
#include "urandom.h"

_Alignas(FP_CACHELINE) _Atomic unsigned char ur_fd_cells[UR_MAXFD];
_Atomic int ur_hiwater;
/* The process whose descriptor table this memory's records describe: set
 * at start-up and in a fork or _Fork child.  A vfork child shares the
 * memory but not the table; what it closes or replaces in its own table
 * must not touch the parent's records (Python's subprocess closes every
 * descriptor with close_range in a vfork child).  Written by every
 * start-up with the mitigation on: on the start-up page, not a page of
 * .bss of its own (issue 39: a page fault of every process). */
static _Atomic long ur_table_pid FP_STARTUP_DATA;

bool ur_table_ours(void)
{
	return (long)getpid() == atomic_load_explicit(&ur_table_pid, memory_order_relaxed);
}
struct ur_res ur_reserve[UR_NRES] = {
	[0 ... UR_NRES - 1] = { -1 },
};

int ur_reserve_of(int dev)
{
	int i, fd;

	for (i = dev * UR_SLOTS; i < (dev + 1) * UR_SLOTS; i++)
		if ((fd = atomic_load(&ur_reserve[i].fd)) >= 0)
			return fd;
	return -1;
}
_Atomic unsigned ur_forks;
_Atomic unsigned ur_forking;
/* Read by every fork child (ur_fd_atfork_child): on the start-up page. */
int ur_mode FP_STARTUP_DATA = UR_MODE_EXACT;
_Alignas(FP_CACHELINE) _Atomic uint64_t ur_hidden[UR_NDEV] = { UR_HW(0, -1), UR_HW(0, -1) };
_Atomic bool ur_hidden_bad[UR_NDEV];

int ur_parse_mode(const char *s, int *mode, char *why, size_t whylen)
{
	*mode = UR_MODE_EXACT;
	if (strcmp(s, "exact") == 0)
		return 0;
	if (strcmp(s, "reserve") == 0) {
		*mode = UR_MODE_RESERVE;
		return 0;
	}
	snprintf(why, whylen, "expected exact or reserve");
	return -1;
}

void ur_hiwater_raise(int fd, int hw)
{
	while (hw <= fd && !atomic_compare_exchange_weak(&ur_hiwater, &hw, fd + 1))
		;
}

/* Changes some bits of a tracked number's state, keeping the others (a
 * fork's UR_SHARED mark may land at any time); an untracked one stays so. */
void ur_update(int fd, unsigned clear, unsigned set)
{
	unsigned char st;

	if (fd < 0 || fd >= UR_MAXFD)
		return;
	st = atomic_load(ur_fd(fd));
	while (st && !atomic_compare_exchange_weak(ur_fd(fd), &st,
	                                           (unsigned char)((st & ~clear) | set)))
		;
}

/* Tracks a number the kernel gave (or left) us during a call that began
 * when ur_forks was g: if a fork may have run since, the child has it. */
void ur_track_new(int fd, unsigned st, unsigned g)
{
	unsigned now;

	ur_set(fd, st);
	now = atomic_load(&ur_forks);
	if (now != g || atomic_load(&ur_forking))
		ur_update(fd, 0, UR_SHARED);
}

/* Every tracked number: shared with the child's copy (clear: in the
 * child, UR_COW, which only an open made after the fork's copy-on-write
 * still has: the pool's description is its own there, as the parent's
 * open keeps it: ur_forked). */
static void ur_mark_all_shared(unsigned clear)
{
	int fd, end = atomic_load(&ur_hiwater);

	for (fd = 0; fd < end; fd++)
		ur_update(fd, clear, UR_SHARED);
}

/* The number is about to be freed (or was, behind our back): forget it,
 * and if it was the reserve, make sure nobody hands it out.  Returns true
 * when it was the reserve and we took it out of the slot. */
bool ur_untrack(int fd)
{
	unsigned st = ur_state(fd);
	int i;

	if (!st)
		return false;
	if (st & UR_HIDDEN)
		return ur_hidden_forget(ur_dev(st), fd) >= 0;
	ur_cell_forget(fd, st);
	for (i = ur_dev(st) * UR_SLOTS; i < (ur_dev(st) + 1) * UR_SLOTS; i++) {
		int expect = fd, moving = UR_CLOSING(fd), v = atomic_load(&ur_reserve[i].fd);

		/* A load first: a locked compare only on a slot that names
		 * it (a real close in reserve mode comes here). */
		if (v != fd && v != moving)
			continue;
		/* Or in transit (an open adopting it, a close keeping it):
		 * its mover, finding the mark gone, leaves it to the caller.
		 * The program's number's too (a close a handler jumped out of
		 * before its state changed): the move's end would otherwise
		 * close what this call puts there (a cold review's
		 * strand_dup2). */
		if (((st & UR_RESERVE) && atomic_compare_exchange_strong(&ur_reserve[i].fd, &expect, -1)) ||
		    atomic_compare_exchange_strong(&ur_reserve[i].fd, &moving, -1))
			return (st & UR_RESERVE) != 0;
	}
	return false;
}

/* At initialisation: this process's table, and the hidden descriptors'
 * (urandom_hidden.c). */
FP_STARTUP_TEXT void ur_fd_init(void)
{
	long pid = (long)getpid();

	ur_cloexec_init(pid);
	atomic_store(&ur_table_pid, pid);
	ur_hidden_init();
}

/* A reserve holds a slot of the descriptor table (and of the system's file
 * table) that the program believes free: natively, an open at the limit
 * would have had it.  Gives every reserve back; true when there was one. */
bool ur_give_back(int err)
{
	bool any = false;
	int d, cs;
	sigset_t old;

	if (fp_likely(err != EMFILE && err != ENFILE))
		return false;
	/* A vfork child: its copies of the reserves noted at the vfork, each
	 * once (a cold review: the parent's slots named the child's own
	 * files, and its open loop at the limit never ended). */
	if (fp_unlikely(fp_vfork_child())) {
		any = ur_vfork_forget(0, UINT_MAX, true);
		errno = err;
		return any;
	}
	/* This thread's move a handler jumped out of holds a number too. */
	any = ur_move_settle(__builtin_frame_address(0)) == 2;
	/* A slot emptied and its close acted on a cancellation instead
	 * (glibc acts before the system call): open for good, and untracked. */
	for (d = 0; d < UR_NRES && atomic_load(&ur_reserve[d].fd) < 0; d++)
		;
	if (d == UR_NRES && err != ENFILE) {
		errno = err;
		return any;
	}
	ur_block_all(&old, &cs);
	for (d = 0; d < UR_NRES; d++) {
		int fd = atomic_load(&ur_reserve[d].fd);

		while (fd >= 0 && !atomic_compare_exchange_weak(&ur_reserve[d].fd, &fd, UR_CLOSING(fd)))
			;
		if (fd >= 0 && ur_slot_drop(d, fd))
			any = true;
	}
	/* The hidden descriptors sit above the limit, where closing them
	 * frees no number; for the system's table, maybe a file. */
	if (err == ENFILE)
		any = ur_hidden_retire() || any;
	ur_unblock_all(&old, cs);
	errno = err;
	return any;
}

/*
 * One record of which numbers are the device's serves one descriptor table.
 * (A record lock on the device ends the pooling the same way: ur_fcntl.)
 * A thread that takes a table of its own (unshare(CLONE_FILES),
 * close_range's CLOSE_RANGE_UNSHARE) leaves the process with two, where a
 * number may be the device in one and the program's file in the other: a
 * read of that file would be served from the pool.  So, just before, while
 * the table is still one: the hidden and reserve descriptors are given
 * back (closed in the one table: no copy keeps them), every number is
 * forgotten (reads of the device go to the kernel), and every later open
 * is real (ur_match).  errno is kept.
 */
_Atomic bool ur_split_done FP_STARTUP_DATA;  /* both read by every fork */
/* Set once the first split's closes are done: a record lock taken before
 * then could be dropped by one of them (ur_split_wait). */
_Atomic bool ur_split_finished FP_STARTUP_DATA;
/* Why (the stats line). */
static const char *_Atomic ur_split_why;

/* Another thread's split has begun: wait for its closes.  Bounded: the
 * splitting thread runs with every signal blocked and cancellation off,
 * a few system calls (docs/design.md).  A fork waits for it too
 * (ur_fd_atfork_prepare); one that begins after that wait is over (the
 * rest of fork() runs before its system call) has its child finish the
 * split (ur_fd_atfork_child): the splitting thread is not there. */
void ur_split_wait(void)
{
	while (atomic_load(&ur_split_done) && !atomic_load(&ur_split_finished) && ur_table_ours())
		FP_YIELD();
}

/* The first split's closes, then every number forgotten.  A hidden
 * descriptor an open is placing lands first, to be retired here.  Pooled
 * opens share one description: forgotten, they would share it for good
 * (fd_fuzz's defect 16), so each gets its own first, as before a fork,
 * those recorded since their open read the end as not yet come too
 * (fd_fuzz's threads, seed 99 case 17102).  Another thread's copies under
 * way (a fork's) land first: a number it claimed is not in our scan, and
 * its dup3 would close a description of the device after we return.
 * Nothing here may reach our own exports: a jump note is still up while
 * it runs (ur_dup_stranded), and UR_DUP_SETTLE would wait on itself. */
static void ur_split_finish(void)
{
	int fd, end;

	ur_place_settle();
	ur_cow_all();
	ur_cow_settle();
	(void)ur_give_back(EMFILE);
	(void)ur_hidden_retire();
	/* Every state forgotten.  A reserve still marked in a slot (in
	 * transit) keeps its mark: its mover ends it (ur_adopt refuses after
	 * a split, ur_kept gives back, ur_open forgets an adoption that came
	 * first); one a jump stranded stays open, the program's to close as
	 * a number it does not know, and every exec's guard flags a marked
	 * slot after a split whatever its state (unflagged, it reached every
	 * later spawn: prog_urandom_stall execjump, CI on 324fec6; held, a
	 * close-everything loop could not free it: CI on a5b9c70).  The
	 * program's marked number (a jump out of an adoption, a close's keep
	 * under way) loses its mark: left, a fork's child took a later open
	 * there for a reserve being closed (ur_closing_close; fd_fuzz seed
	 * 456 case 199082's shape).  Such a keep closes for real (ur_close). */
	end = atomic_load(&ur_hiwater);
	for (fd = 0; fd < end; fd++) {
		unsigned char st = (unsigned char)atomic_load(ur_fd(fd));

		/* A close's keep may change it meanwhile: a compare. */
		while (st && !atomic_compare_exchange_weak(ur_fd(fd), &st, 0))
			;
		/* Only the program's state this loop cleared: a mark over
		 * state 0 may be a drop's, under way (ur_slot_drop). */
		if (st && !(st & UR_RESERVE))
			ur_marks_off(fd, -1);
	}
	atomic_store(&ur_split_finished, true);
}

void ur_split(const char *why)
{
	int cs, saved = errno;
	sigset_t old;

	if (!ur_table_ours())  /* a vfork child: its table is its own already */
		return;
	/* Its closes are cancellation points, and a lock request (F_SETLKW)
	 * brings it there; a handler that jumped out, or took a lock, would
	 * meet the pooling ended with descriptors of ours still open. */
	ur_block_all(&old, &cs);
	{
		const char *none = NULL;

		/* The first reason stays. */
		(void)atomic_compare_exchange_strong(&ur_split_why, &none, why);
	}
	if (!atomic_exchange(&ur_split_done, true)) {
		ur_split_finish();
		ur_debug(why);
	} else {
		ur_split_wait();
	}
	ur_unblock_all(&old, cs);
	errno = saved;
}

/* A handler that jumps out of a pooled open's window (ur_open_exact), or a
 * pooled close's (ur_dup_hold), leaves a duplicate unrecorded that shares the pool's description, where
 * natively the lost open's is its own (fd_fuzz's jumps, with what they
 * left made non-blocking: every later open was too).  This thread's next
 * open, or change of a description it does not record, made where it
 * cannot run inside the window, ends the pooling first: the left duplicate
 * alone holds that description then.  One that may run inside it (a
 * handler's, a signal frame or more below, or on the alternate stack; a
 * vfork child's) leaves the note, and an open there is real.  What stays
 * open (another thread's change first, a call from deeper after the jump)
 * is in docs/design.md. */
FP_TLS uintptr_t ur_dup_at;

bool ur_dup_stranded(const void *frame)
{
	/* A vfork child's note is its parent's (shared memory), and its
	 * split would end nothing (review 41: the parent's note went, and the
	 * left one shared the pool again). */
	if (ur_may_be_inside(frame, ur_dup_at) || !ur_table_ours())
		return false;
	/* The note goes once the split is done: a jump between the two
	 * would otherwise leave neither (fd_fuzz seed 447 case 22698, flaky:
	 * every later open pooled again, sharing the left one's flag). */
	ur_split("a jump out of an open or a close");
	ur_dup_note(0);
	return true;
}

/* Why pooling ended for the process, or NULL. */
const char *ur_split_reason(void)
{
	return atomic_load(&ur_split_done) ? atomic_load(&ur_split_why) : NULL;
}

/*
 * Until the mitigation first keeps a descriptor (an open of the device
 * it answers), it has none a fork must see to, and a fork runs almost
 * none of its handlers (issue 39: a shell paid a dozen page faults and
 * three system calls at each fork for them).  A fork begun so holds that
 * first keeping off until it is done: an open meanwhile is native and
 * untracked (ur_arm), so no thread waits for another, and nothing is
 * kept that the fork's handlers did not see.  ur_gate is UR_ARMED for
 * good once the mitigation may keep descriptors, or counts, in steps of
 * UR_FORKING, the forks under way that began before it.  On the start-up
 * page, as is all a fork reads before then (FP_STARTUP_DATA).
 *
 * So the gate never arms while a fork that began unarmed is under way, in
 * any process: a fork's steps are those its prepare chose, whole, and a
 * fork nested in another (a signal handler's, another object's fork
 * handler's) is unarmed when the outer one is.  Its child keeps the
 * count its prepare found (ur_fork_from): the outer forks of its one
 * thread are still under way there, and end there; the steps of forks
 * other threads had under way stay counted, and pooling stays off in that
 * child (native opens: exact, docs/design.md).
 */
_Atomic unsigned ur_gate FP_STARTUP_DATA;
/* The gate as this thread's fork found it (prepare), less a step for
 * each of this thread's forks ended since: never less than the steps of
 * its forks under way.  Written only when it changes (issue 39: its page,
 * copied at the last fork, is a fault more to write). */
static FP_TLS unsigned ur_fork_from;
/* This thread's armed forks under way (prepare to parent or child): only
 * the outermost counts in ur_forking (a fork made inside another, by a
 * fork handler or a signal handler, is under way with it), and a child
 * keeps its thread's (the forks of threads it does not have are not under
 * way there).  A jump out of a prepare handler leaves it counted: every
 * pooled open is then a real one (exact, unpooled). */
static FP_TLS unsigned ur_fork_depth;
/* ur_forks as this thread's outermost armed fork began (its child reads
 * it: ur_closing_close). */
static FP_TLS unsigned ur_fork_start;

bool ur_arm_slow(void)
{
	unsigned g = 0;

	return ur_locks_begin() &&
	       (atomic_compare_exchange_strong(&ur_gate, &g, UR_ARMED) || (g & UR_ARMED));
}

/* Every descriptor tracked at a fork is shared with the child's copy from
 * then on, in both processes; marked before the fork (racing opens are
 * caught by ur_forks) and again in the child, where only one thread runs. */
FP_FORK_TEXT void ur_fd_atfork_prepare(void)
{
	unsigned g = atomic_load(&ur_gate);

	if (fp_unlikely(fp_vfork_child()))
		ur_vfork_forking();

	while (!(g & UR_ARMED) && !atomic_compare_exchange_weak(&ur_gate, &g, g + UR_FORKING))
		;
	if (ur_fork_from != g)
		ur_fork_from = g;
	if (!(g & UR_ARMED))
		return;
	ur_split_wait();
	ur_cloexec_atfork_prepare();
	/* Counted before the copy-on-write: an open from then on is real,
	 * one under way sees the count move (ur_open_exact). */
	if (ur_fork_depth++ == 0) {
		atomic_fetch_add(&ur_forking, 1);
		ur_fork_start = atomic_fetch_add(&ur_forks, 1) + 1;
	}
	if (ur_mode == UR_MODE_EXACT)
		ur_cow_all();
	ur_mark_all_shared(0);
}

/* An unarmed fork's end, on either side: this thread has one fewer (from
 * is 0 at its outermost fork, and stays so). */
static FP_FORK_TEXT void ur_fork_ended(void)
{
	unsigned from = ur_fork_from;

	if (from >= UR_FORKING)
		ur_fork_from = from - UR_FORKING;
}

/* The hidden descriptor's open file description is now shared with the
 * child, which may change it through an inherited duplicate: each side
 * opens a fresh one for its later opens. */
FP_FORK_TEXT void ur_fd_atfork_parent(void)
{
	if (fp_unlikely(ur_vf_forking))
		ur_vf_forking = NULL;
	if (!(ur_fork_from & UR_ARMED)) {
		atomic_fetch_sub(&ur_gate, UR_FORKING);
		ur_fork_ended();
		return;
	}
	if (--ur_fork_depth == 0) {
		atomic_fetch_add(&ur_forks, 1);
		atomic_fetch_sub(&ur_forking, 1);
	}
	ur_hidden_retire();
	ur_cloexec_atfork_parent();
}

/* Before a vfork: the child's table will share every description with
 * ours until it execs or exits, as after a fork; nothing runs after it
 * (vfork.c), and the child leaves our records alone (fp_vfork_child). */
void ur_vforking(void)
{
	if (fp_unlikely(ur_mode == UR_MODE_RESERVE))
		ur_vfork_note(false, false);
	if (fp_likely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed) == 0) ||
	    fp_vfork_child())
		return;
	/* A fork's prepare and parent steps (the count even again at once):
	 * nothing of ours runs when the parent resumes, and an odd count
	 * would make every later open real.  Opens that began before see the
	 * count move and are marked. */
	atomic_fetch_add(&ur_forking, 1);
	atomic_fetch_add(&ur_forks, 1);
	if (ur_mode == UR_MODE_EXACT)
		ur_cow_all();
	atomic_fetch_add(&ur_forks, 1);
	atomic_fetch_sub(&ur_forking, 1);
	ur_mark_all_shared(0);
}

_Atomic unsigned ur_slot_ghost_at[UR_NRES], ur_hidden_ghost_at[UR_NDEV];

/* The program's number fd (its close, or stdio's from fdopen on), or ours
 * about to be closed: no slot but except keeps a mark of it (a load
 * first, a locked compare only where it names it). */
void ur_marks_off(int fd, int except)
{
	for (int d = 0; d < UR_NRES; d++) {
		int mark = UR_CLOSING(fd);

		if (d != except && atomic_load(&ur_reserve[d].fd) == mark)
			(void)atomic_compare_exchange_strong(&ur_reserve[d].fd, &mark, -1);
	}
}

/* Ends slot i's move of fd, its taker's to end (the open that took it
 * and cannot adopt it, a give-back, or this thread's stranded move), if
 * its mark is there still.  A number the program holds (adopted, or its
 * close not yet kept) stays its own; the reserve is closed, its state
 * cleared first, or found cleared (pooling ended, or the program's call
 * forgot it: on 5a0bc62 such a one, kept as a split gave the reserves
 * back, stayed marked, and a fork's child closed the program's descriptor
 * at its number).  Marked, not emptied, until closed: a fork in between
 * leaves the child a copy ur_closing_atfork_child can find.  A mark of a
 * number held at rest in another slot closes nothing (a jump left it), and
 * a close takes every other mark of its number.  True when it closed one. */
bool ur_slot_drop(int i, int fd)
{
	bool closed = false;
	int saved = errno, cs, mark = UR_CLOSING(fd);
	unsigned char st;
	unsigned g;
	sigset_t old;

	ur_block_all(&old, &cs);
	if (ur_slot_marked(i, fd)) {
		bool elsewhere = false;

		/* Kept at rest in another slot: this mark is one a jump
		 * left (below), and the reserve that slot's. */
		for (int d = 0; d < UR_NRES; d++)
			elsewhere = elsewhere || atomic_load(&ur_reserve[d].fd) == fd;
		g = atomic_load(&ur_forks);
		st = (unsigned char)ur_state(fd);
		while (!elsewhere && (st & UR_RESERVE) && !ur_cell_cas(fd, &st, 0))
			;
		if (elsewhere || (st && !(st & UR_RESERVE))) {
			(void)atomic_compare_exchange_strong(&ur_reserve[i].fd, &mark, -1);
		} else if (ur_slot_marked(i, fd)) {
			/* A mark of fd in another slot is one a jump left
			 * (out of an adoption after its state changed; the
			 * number was closed and kept again since), or another
			 * taker's under way (left open: docs/design.md):
			 * taken off with the number, or a fork's child would
			 * take the next file there for a reserve being closed. */
			ur_marks_off(fd, i);
			ur_count(SYSCALLS);
			UR_REAL(close)(fd);
			ur_slot_closed(i, fd, g);
			closed = true;
		}
	}
	ur_unblock_all(&old, cs);
	errno = saved;
	return closed;
}

/* Slot i's reserve fd, marked before ur_forks read g, is closed.  A fork
 * that began before the close copies the descriptor table before the
 * memory (Linux's copy_process: its files, then its mm), while this thread
 * runs on: its child may hold the number and find the slot empty and the
 * state cleared.  While such a fork may be under way, the slot stays
 * marked, a ghost the child closes its copy by (ur_closing_atfork_child),
 * to be emptied once no fork is (ur_slot_take). */
void ur_slot_closed(int i, int fd, unsigned g)
{
	int mark = UR_CLOSING(fd);

	if (ur_slot_marked(i, fd))
		(void)atomic_compare_exchange_strong(&ur_reserve[i].fd, &mark,
		                                     ur_ghost_left(&ur_slot_ghost_at[i], fd, g));
}

/* What a close of ours made while ur_forks read g leaves: -1, or a ghost of
 * fd for the forks that began by now (*at): a child of a later one, whose
 * table was copied after the close, has nothing of ours there.  The stamp
 * is raised, never lowered: a close that lost its mark meanwhile, stamping
 * late, would otherwise lower the stamp of a ghost made since, and the
 * child of a fork begun before that ghost's close keep its copy. */
int ur_ghost_left(_Atomic unsigned *at, int fd, unsigned g)
{
	unsigned now = atomic_load(&ur_forks), was = atomic_load(at);

	if (now == g && !atomic_load(&ur_forking))
		return -1;
	while ((int)(now - was) > 0 && !atomic_compare_exchange_weak(at, &was, now))
		;
	return UR_GHOST(fd);
}

/* A descriptor of ours another thread was closing or moving at the fork (a
 * reserve given back, or in transit between its slot and the program: an
 * open adopting it, a close keeping it; a hidden one retired: UR_CLOSING
 * in its record; a ghost) is open still in the child's table, unless that
 * close came first; then the number is closed, or another thread's since,
 * which we do not track unless pooled (ours are all read-only: one opened
 * otherwise is the program's).  The one case we cannot tell: another
 * thread's read-only open of the device that the kernel made before the
 * fork copied the table, and recorded after it copied the memory
 * (docs/design.md). */
static void ur_closing_close(int v, int dev, _Atomic unsigned *at)
{
	int fd = v <= UR_GHOST(0) ? UR_GHOST(v) : UR_CLOSING(v), d;
	unsigned st = ur_state(fd);

	/* A ghost made before this fork began is none of its business. */
	if (v <= UR_GHOST(0) && (int)(atomic_load(at) - ur_fork_start) < 0)
		return;

	/* Marked before its record was cleared: held still.  Unless closed,
	 * reopened and kept since, in another slot, which holds it now. */
	for (d = 0; (st & UR_RESERVE) && d < UR_NRES; d++)
		if (atomic_load(&ur_reserve[d].fd) == fd)
			return;
	if ((!st || (st & UR_HELD)) && ur_is_device(fd, dev) &&
	    (UR_REAL(fcntl)(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
		atomic_store(ur_fd(fd), 0);
		UR_REAL(close)(fd);
	}
}

static void ur_closing_atfork_child(bool forget)
{
	int d, v;

	for (d = 0; d < UR_NRES; d++) {
		if ((v = atomic_load(&ur_reserve[d].fd)) < -1) {
			atomic_store(&ur_reserve[d].fd, -1);
			if (!forget)
				ur_closing_close(v, UR_RES_DEV(d), &ur_slot_ghost_at[d]);
		}
	}
	for (d = 0; d < UR_NDEV; d++) {
		uint64_t w = atomic_load(&ur_hidden[d]);

		if ((v = UR_HW_FD(w)) < -1) {
			atomic_store(&ur_hidden[d], UR_HW(UR_HW_GEN(w) + 1, -1));
			if (!forget)
				ur_closing_close(v, d, &ur_hidden_ghost_at[d]);
		}
	}
}

FP_FORK_TEXT void ur_fd_atfork_child(void)
{
	/* Forked while another thread's split was under way: this copy of
	 * its closes is the child's to make (its one thread holds no record
	 * lock: a fork inherits none), as the parent's, with no handler
	 * inside from here (one making a lock request would wait for it for
	 * ever). */
	bool half = atomic_load(&ur_split_done) && !atomic_load(&ur_split_finished);
	bool idle = !(ur_fork_from & UR_ARMED);
	sigset_t old;
	int cs = 0;

	if (fp_unlikely(half))
		ur_block_all(&old, &cs);
	atomic_store(&ur_table_pid, (long)getpid());
#ifdef FP_LINUX
	if (fp_unlikely(ur_pty_forking))
		for (int n = 0; n <= 2; n++)
			(void)ur_untrack(n);  /* forkpty's login_tty replaces them */
#endif
	/* Forked from a vfork child, or a clone child on memory of its own
	 * (its fork, or its first thread: vfork.c): its table was copied
	 * from one that changed since our records, so the steps other
	 * threads had under way there may name numbers of the child's own
	 * now (a cold review's clonerace: its own open of the device closed
	 * as another thread's copy).  Forgotten, not finished. */
	bool vf = ur_vf_forking != NULL;

	if (fp_unlikely(vf))
		ur_vfork_forked();
	if (!idle) {
		ur_closing_atfork_child(vf);
		ur_cow_atfork_child(vf);
	}
	ur_cloexec_atfork_child();
	if (fp_unlikely(ur_mode == UR_MODE_RESERVE))
		ur_guards_atfork_child();
	if (fp_unlikely(half)) {
		ur_split_finish();
		ur_unblock_all(&old, cs);
	}
	if (idle) {
		ur_locks_atfork_child();
		/* What this fork began on: its thread's outer forks end here. */
		atomic_store(&ur_gate, ur_fork_from);
		ur_fork_ended();
		return;
	}
	atomic_store(&ur_forking, --ur_fork_depth);
	atomic_fetch_add(&ur_forks, 1);
	ur_mark_all_shared(UR_COW);
	ur_hidden_retire();
#ifdef FP_LINUX
	/* Another thread's placing child may have been under way. */
	atomic_store(&ur_above_busy, false);
	if (atomic_load(&ur_vm_kin))
		atomic_store(&ur_vm_kin, false);
#endif
}
