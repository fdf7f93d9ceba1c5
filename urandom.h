/* SPDX-License-Identifier: MIT */
/*
 * urandom.h: what the units of the urandom mitigation share.
 *
 *   urandom_vdso.c   the source of reads (vdso, kernel, reservoir), the
 *                    vDSO's getrandom, each thread's state and slice.
 *   urandom_pool.c   the reservoir: slices, lock, refill, generation, the
 *                    fork child's wipe.  Links alone (its unit test).
 *   urandom_fd.c     per-descriptor states, reserve slots, track/untrack,
 *                    fork, a table split.
 *   urandom_hidden.c exact mode's hidden descriptors, above the limit.
 *   urandom_open.c   the device's descriptors; both modes' open, close.
 *   urandom_dup.c    dup, dup2, dup3 and F_DUP2FD of tracked descriptors.
 *   urandom_shim.c   the entry points (open, read, close...); ur_match.
 *   urandom_fcntl.c  fcntl and its twins, flock, lockf; record locks.
 *   urandom_stdio.c  fdopen, fclose, freopen, daemon.
 *   urandom_exec.c   exec, spawn, system, popen (exec guards).
 *   urandom_cow.c    a pooled description made its own before it changes
 *                    or is copied (exact mode).
 *   urandom_seen.c   the other calls that see what we hold as closed, or
 *                    that change or copy a description.
 *
 * Internal to fastpath.so: include it after fastpath.h. */
#ifndef URANDOM_H
#define URANDOM_H

#include "urandom_real.h"

enum {
	UR_C_OPENS,     /* opens of the device handed a pooled fd */
	UR_C_READS,     /* reads of pooled fds */
	UR_C_GETRANDOM, /* getrandom/getentropy calls served from the pool */
	UR_C_SYSCALLS,  /* system calls the pool itself had to make */
	UR_C_REFILLS,   /* reservoir refills (a subset of syscalls) */
	UR_C_SLICES,    /* slices the kernel filled while another thread refilled */
	UR_NCOUNTERS
};
extern struct fp_stripe ur_counters[FP_STRIPES] FP_HIDDEN;
#define ur_count(c) fp_count(ur_counters, UR_C_##c)

#define UR_MAXFD 16384       /* higher descriptors are passed through */
#define UR_POOL 65536        /* reservoir size */
#define UR_SERVE_MAX 4096    /* larger reads go straight to the kernel */
#define UR_CHUNK 256         /* bytes copied per lock hold (signal stacks are small) */
#define UR_SLICE 1024        /* bytes a thread takes from the pool at once */
#define UR_SLICE_MAX 64      /* larger reads take from the pool directly */

enum { UR_DEV_URANDOM, UR_DEV_RANDOM, UR_NDEV };

/* Per-descriptor state; 0 means not ours. */
enum {
	UR_OPEN = 1,       /* the program holds it */
	UR_RESERVE = 2,    /* the program closed it; we keep it */
	UR_CLOEXEC = 4,    /* FD_CLOEXEC is set (as far as fcntl told us) */
	UR_NONBLOCK = 8,   /* O_NONBLOCK is set on its open file description */
	UR_RANDOM = 16,    /* /dev/random rather than /dev/urandom */
	/* Its open file description may be shared with another descriptor (a
	 * dup, or a forked child's copy): never kept in reserve, whose next
	 * open must look fresh, with status flags and locks of its own. */
	UR_SHARED = 32,
	/* Exact mode: our own hidden descriptor of the device (ur_hidden),
	 * which the program never opened.  Calls on it are passed through. */
	UR_HIDDEN = 64,
	/* Exact mode: a duplicate of the hidden descriptor, so its open file
	 * description is the hidden one's and every other pooled open's.
	 * Before anything changes that description, or a copy of it leaves
	 * our sight, the number gets a description of its own (ur_cow). */
	UR_COW = 128,
};
/* Descriptors we hold that the program must see as closed. */
#define UR_HELD (UR_RESERVE | UR_HIDDEN)

/* FASTPATH_URANDOM.  exact: every open is a duplicate (F_DUPFD) of one
 * hidden descriptor per device, and close really closes; reserve: close
 * keeps the descriptor, the next open hands it out again (no system call),
 * and the number stays open meanwhile.  Set by the mitigation's .load. */
enum { UR_MODE_EXACT, UR_MODE_RESERVE };
extern int ur_mode FP_HIDDEN;
/* FASTPATH_URANDOM's value: 0 on success, -1 with a reason (mode exact). */
int ur_parse_mode(const char *s, int *mode, char *why, size_t whylen) FP_HIDDEN;

/* The hidden descriptor of each device and a generation, in one word:
 * (generation << 32) | (unsigned)fd, fd -1 when there is none.  Every
 * change bumps the generation before the kernel frees or replaces the
 * number, so an open that duplicated it can tell, by reading the word
 * again, that what it duplicated may have been another file. */
extern _Atomic uint64_t ur_hidden[UR_NDEV] FP_HIDDEN;
#define UR_HW_FD(w) ((int)(uint32_t)(w))
#define UR_HW_GEN(w) ((uint32_t)((w) >> 32))
#define UR_HW(gen, fd) (((uint64_t)(uint32_t)(gen) << 32) | (uint32_t)(fd))
/* Forgets the hidden descriptor of dev if it is fd (any, if fd is -1);
 * returns the number it was, or -1, for the caller or the kernel to close. */
int ur_hidden_forget(int dev, int fd) FP_HIDDEN;
/* Forgets it and closes it; true if it was there. */
bool ur_hidden_close(int dev, int fd) FP_HIDDEN;
/* Forgets and closes every hidden descriptor: its open file description
 * may have been changed through a duplicate (F_SETFL, flock), or shared
 * with another process (fork, spawn).  The next open makes a fresh one.
 * True when there was one. */
bool ur_hidden_retire(void) FP_HIDDEN;

/* The descriptor to pass to the real call: a held one is closed as far as
 * the program knows (-1 gives the kernel's EBADF); any other, itself. */
static inline int ur_real_fd(int fd, unsigned st)
{
	return (st & UR_HELD) ? -1 : fd;
}

/* ------------------------------------------------------------------------
 * The source of the bytes (urandom_vdso.c).  See fastpath(7) for the rule.
 * ---------------------------------------------------------------------- */
enum { UR_SRC_VDSO, UR_SRC_KERNEL, UR_SRC_RESERVOIR, UR_SRC_AUTO };
/* Decided once by ur_source_now, from FASTPATH_URANDOM_SOURCE (asked),
 * the kernel's release and the vDSO; the test aid FASTPATH_TEST_NO_VDSO
 * plays a kernel without the vDSO's getrandom. */
extern int ur_source FP_HIDDEN;
/* ENOSYS or EPERM once getrandom was refused (the vdso source then gave
 * way to kernel), else 0 (urandom_vdso.c). */
extern int ur_refused FP_HIDDEN;
extern int ur_source_asked FP_HIDDEN;
extern bool ur_test_no_vdso FP_HIDDEN;
int ur_parse_source(const char *s, int *src, char *why, size_t whylen) FP_HIDDEN;
const char *ur_source_name(int src) FP_HIDDEN;
/* At initialisation (the mitigation on or surveyed): what deciding the
 * source later may not do itself. */
void ur_source_load(void) FP_HIDDEN;
/* The source, decided at the first call that needs it (kernel while it
 * is being decided): a signal handler may be that first call. */
int ur_source_now(void) FP_HIDDEN;
/* Both, deciding afresh now (the unit tests). */
void ur_source_init(void) FP_HIDDEN;
void ur_source_atfork_child(void) FP_HIDDEN;

#if defined(FP_LINUX) && defined(AT_SYSINFO_EHDR)
#define UR_HAVE_VDSO 1
/* The kernel's getrandom in the vDSO (Linux 6.11 on, where the
 * architecture has it), and the sizes it gave (vgetrandom_opaque_params). */
typedef ssize_t (*ur_vgr_fn)(void *buf, size_t n, unsigned flags, void *state, size_t len);
struct ur_vgr_params {
	uint32_t size_of_opaque_state, mmap_prot, mmap_flags, reserved[13];
};
extern ur_vgr_fn ur_vgr FP_HIDDEN;
extern struct ur_vgr_params ur_vgr_p FP_HIDDEN;
/* The getrandom we bound, where libc's own (no later preload's); or NULL. */
extern void *ur_vgr_libc FP_HIDDEN;
#endif

/* This thread's vDSO state and reservoir slice, NULL until it has one. */
extern FP_TLS void *ur_tls_state FP_HIDDEN, *ur_tls_slice FP_HIDDEN;
/* Takes one for this thread; NULL when none can be had now (a signal
 * handler interrupted a taking, too many threads): the caller goes on
 * without (the kernel, or the pool itself). */
void *ur_thread_state_new(void) FP_HIDDEN;
void *ur_thread_slice_new(void) FP_HIDDEN;
/* The vdso source: one vDSO getrandom on this thread's state; the count,
 * or -errno, as the system call's. */
ssize_t ur_vdso_call(void *buf, size_t n, unsigned flags) FP_HIDDEN;
/* As ur_take, from the vDSO (GRND_NONBLOCK); fewer: the kernel's read ends. */
size_t ur_vdso_take(unsigned char *dst, size_t n) FP_HIDDEN;
/* Pooled getrandom calls: served by the vDSO (source vdso, libc's
 * getrandom bound), else by the getrandom bound. */
bool ur_vdso_serves_getrandom(void) FP_HIDDEN;
ssize_t ur_getrandom_direct(void *buf, size_t n, unsigned flags) FP_HIDDEN;
/* Wipe-on-fork and dont-dump on a private mapping (urandom_pool.c): true
 * when the kernel will zero it in a child. */
bool ur_private_advise(void *p, size_t n) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The reservoir (urandom_pool.c).
 * ---------------------------------------------------------------------- */
/* Copies up to n fresh bytes to dst; returns how many.  Fewer than n means
 * the kernel must supply the rest (no pool, re-entered, refill failed).
 * fd, when not -1, is a descriptor of the device to refill from where
 * getrandom does not exist. */
size_t ur_take(unsigned char *dst, size_t n, int fd) FP_HIDDEN;
/* In a fork child: no byte the parent holds may be served here. */
void ur_pool_atfork_child(void) FP_HIDDEN;

/* A thread's slice of the pool (urandom_pool.c, in memory of
 * urandom_vdso.c's).  Its bytes left the pool when it was cut. */
struct ur_slice {
	uint64_t gen;
	unsigned short pos, len;  /* [pos, len) is fresh; the rest is zero */
	volatile sig_atomic_t busy;
	unsigned char b[UR_SLICE];
};

/* The bytes of a pooled read or getrandom, from the source: fewer than n
 * means the kernel must supply the rest (all of it, source kernel). */
static inline size_t ur_serve(unsigned char *dst, size_t n, int fd)
{
	int src = ur_source_now();

	if (fp_likely(src == UR_SRC_VDSO))
		return ur_vdso_take(dst, n);
	if (src == UR_SRC_RESERVOIR)
		return ur_take(dst, n, fd);
	return 0;
}

/* ------------------------------------------------------------------------
 * The descriptor table (urandom_fd.c).  Read inline on every call; written
 * through the functions and inlines below.
 * ---------------------------------------------------------------------- */
/* Neighbouring numbers, which threads cycling at once hold, sit on different
 * cache lines (fd n in line n % 64): sharing one line tripled the cost of
 * a loop of open/read/close in two threads on two CPUs. */
extern _Atomic unsigned char ur_fd_cells[UR_MAXFD] FP_HIDDEN;
#define UR_LINES (UR_MAXFD / FP_CACHELINE)
_Static_assert(UR_MAXFD % FP_CACHELINE == 0, "whole cache lines");

static inline _Atomic unsigned char *ur_fd(int fd)
{
	return &ur_fd_cells[((unsigned)fd % UR_LINES) * FP_CACHELINE + (unsigned)fd / UR_LINES];
}
/* One past the highest number ever tracked: while it is 0, every call that
 * is not ours costs one compare. */
extern _Atomic int ur_hiwater FP_HIDDEN;
/* Is this process's table the one the records describe (not a vfork
 * child's: ur_table_pid)?  A getpid() each: only off the open/close path. */
bool ur_table_ours(void) FP_HIDDEN;
/* A vfork (urandom_fd.c); the child's view of ours, its fork's (urandom_vfork.c). */
void ur_vforking(void) FP_HIDDEN, ur_vfork_forking(void) FP_HIDDEN, ur_vfork_forked(void) FP_HIDDEN;
void ur_vfork_note(bool own, bool shared) FP_HIDDEN, ur_vfork_flag(int *fds) FP_HIDDEN,
	ur_vfork_limit(uint64_t soft) FP_HIDDEN;
bool ur_vfork_forget(unsigned lo, unsigned hi, bool close) FP_HIDDEN;
unsigned ur_vfork_state(int fd, unsigned st) FP_HIDDEN;
extern FP_TLS const unsigned char *ur_vf_forking FP_HIDDEN;
extern FP_TLS bool ur_pty_forking FP_HIDDEN; /* a forkpty under way: urandom_stdio.c */
/* urandom_cow.c: a fork child waits for no copy another thread made. */
void ur_cow_atfork_child(bool forget) FP_HIDDEN;
/* Reserve mode keeps up to UR_SLOTS closed descriptors per device, a slot
 * each, so that threads on different CPUs cycle their own: a thread takes
 * and gives back at the slot of the CPU it runs on (the rseq cpu_id; slot
 * 0 where there is none), and at another only when that one is empty or
 * full.  While the process has one thread, one slot (ur_slot_free), as
 * before threads: one reserve per device.  Written by every pooled open
 * and close: each slot a line of its own, away from the flags opens read. */
#define UR_SLOTS 4
#define UR_NRES (UR_NDEV * UR_SLOTS)
struct ur_res {
	_Alignas(FP_CACHELINE) _Atomic int fd;
};
extern struct ur_res ur_reserve[UR_NRES] FP_HIDDEN;
#define UR_RES_DEV(i) ((i) / UR_SLOTS)
/* A slot's reserve in transit or being closed (-2 to -1 - UR_MAXFD); one
 * closed while a fork was under way (UR_GHOST, below: ur_slot_closed).
 * Each its own inverse. */
#define UR_CLOSING(fd) (-2 - (fd))
#define UR_GHOST(fd) (UR_CLOSING(UR_MAXFD) - (fd))
/* Moves at a fork's start and end; ur_forking: forks under way.  A number
 * made ours meanwhile may be in the child (ur_track_new, ur_open_exact). */
extern _Atomic unsigned ur_forks FP_HIDDEN;
extern _Atomic unsigned ur_forking FP_HIDDEN;
/* The soft descriptor limit the program last set through us. */
int ur_soft_limit(void) FP_HIDDEN;
/* The states and the reserve slots are changed by locked read-modify-
 * writes where the process has threads.  While it has one, only its own
 * signal handlers can come between two of its instructions: each change
 * is then one instruction without the lock prefix (fp_one_thread and
 * fp_local_*, fastpath.h), which a handler sees wholly done or not begun,
 * exactly as another thread sees a locked one.  What each caller does
 * when its compare fails is the same in both. */
static inline bool ur_cell_cas(int fd, unsigned char *was, unsigned char st)
{
	if (fp_one_thread())
		return fp_local_cas_uchar(ur_fd(fd), was, st);
	return atomic_compare_exchange_strong(ur_fd(fd), was, st);
}

/* A state written whole.  Where it is followed by a load of ur_forks
 * (ur_track_new), the store must come first: across threads that takes
 * the sequentially consistent store (an exchange on x86); on one thread,
 * program order, which the signal fence keeps the compiler to. */
static inline void ur_cell_store(int fd, unsigned char st)
{
	if (fp_one_thread()) {
		atomic_store_explicit(ur_fd(fd), st, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	} else {
		atomic_store(ur_fd(fd), st);
	}
}

void ur_slot_closed(int i, int fd, unsigned g) FP_HIDDEN;
int ur_ghost_left(_Atomic unsigned *at, int fd, unsigned g) FP_HIDDEN;
extern _Atomic unsigned ur_slot_ghost_at[UR_NRES] FP_HIDDEN, ur_hidden_ghost_at[UR_NDEV] FP_HIDDEN;

/* Slot i holds fd's transit mark still: no call of the program's that freed
 * or replaced the number took it off (ur_untrack), nor a fork child's
 * handler. */
static inline bool ur_slot_marked(int i, int fd)
{
	return atomic_load(&ur_reserve[i].fd) == UR_CLOSING(fd);
}

/* The number a slot's word names: its reserve, or one in transit; -1 for
 * none or a ghost (closed). */
static inline int ur_slot_number(int v)
{
	return v >= 0 ? v : v < -1 && v > UR_GHOST(0) ? UR_CLOSING(v) : -1;
}
/* Without an rseq area (musl, illumos, glibc's tunable off): a slot per
 * thread, dealt in turn at its first use. */
int ur_thread_slot(void) FP_HIDDEN; /* urandom_open.c */
/* This thread's move of a reserve a handler's jump left is ended, unless
 * a call at frame may run inside it (urandom_open.c): 0, and the call must
 * not move one; 1 none or ended, 2 ended and its reserve closed. */
int ur_move_settle(const void *frame) FP_HIDDEN;
bool ur_slot_drop(int i, int fd) FP_HIDDEN;
void ur_marks_off(int fd, int except) FP_HIDDEN; /* but slot except's */
/* The slot of dev for the CPU this thread runs on; the first while the
 * process has one thread, which meets nobody at any. */
static inline int ur_slot_home(int dev)
{
	if (fp_no_threads())
		return dev * UR_SLOTS;
#ifdef FP_HAVE_RSEQ_AREA
	{
		int cpu = fp_rseq_cpu();

		if (fp_likely(cpu >= 0))
			return dev * UR_SLOTS + (cpu & (UR_SLOTS - 1));
	}
#endif
	return dev * UR_SLOTS + ur_thread_slot();
}

/* A descriptor of dev kept in reserve, or -1 (the tests, the checks). */
int ur_reserve_of(int dev) FP_HIDDEN;
/* A number's state written whole (0: untracked); the table's high-water
 * mark raised past it if need be (once per new highest number). */
void ur_hiwater_raise(int fd, int hw) FP_HIDDEN;

static inline void ur_set(int fd, unsigned st)
{
	int hw = atomic_load_explicit(&ur_hiwater, memory_order_relaxed);

	if (fd < 0 || fd >= UR_MAXFD)
		return;
	ur_cell_store(fd, (unsigned char)st);
	if (fp_unlikely(st && hw <= fd))
		ur_hiwater_raise(fd, hw);
}

static inline unsigned ur_state(int fd)
{
	unsigned st;

	if (fp_likely((unsigned)fd >= (unsigned)atomic_load_explicit(&ur_hiwater,
	                                                              memory_order_relaxed)))
		return 0;
	st = atomic_load_explicit(ur_fd(fd), memory_order_acquire);
	/* A vfork child's table is its own: its copy of an open we pool is
	 * a plain descriptor of the device to it, a number a reserve only
	 * while it holds the copy of the vfork's (ur_vfork_state). */
	if (fp_vfork_child())
		return ur_vfork_state(fd, st);
	return st;
}

static inline int ur_dev(unsigned st)
{
	return (st & UR_RANDOM) ? UR_DEV_RANDOM : UR_DEV_URANDOM;
}

bool ur_untrack(int fd) FP_HIDDEN;
void ur_update(int fd, unsigned clear, unsigned set) FP_HIDDEN;
void ur_track_new(int fd, unsigned st, unsigned g) FP_HIDDEN;
bool ur_give_back(int err) FP_HIDDEN;
/* A thread is about to get a descriptor table of its own, or the program
 * to take a record lock on the device: tracking stops for the process
 * (ur_split, urandom_fd.c); why, for the stats line. */
void ur_split(const char *why) FP_HIDDEN;
const char *ur_split_reason(void) FP_HIDDEN;
/* This thread's pooled open between its duplicate and its record, or close
 * or dup2 target between its forgetting and freeing (ur_dup_hold, unless one
 * is noted): its frame, 0 for none.  A call that would share or change a
 * description first ends such a window a jump left (ur_dup_stranded). */
extern FP_TLS uintptr_t ur_dup_at FP_HIDDEN;
bool ur_dup_stranded(const void *frame) FP_HIDDEN;
#define ur_dup_note(at) (atomic_signal_fence(memory_order_seq_cst), ur_dup_at = (at), \
                         atomic_signal_fence(memory_order_seq_cst))
#define ur_dup_hold(frame) (!ur_dup_at && (ur_dup_note((uintptr_t)(frame)), true))
#define UR_DUP_SETTLE() \
	(fp_unlikely(ur_dup_at) ? (void)ur_dup_stranded(__builtin_frame_address(0)) : (void)0)
/* A call at frame may run inside what was noted at at: a handler's frames lie a signal
 * frame (over 512 bytes: x86-64, aarch64, i386) or more below, or on the alternate stack. */
#define ur_may_be_inside(frame, at) ((uintptr_t)(frame) + 512 < (at) || fp_on_altstack())

/* A fresh number from the kernel cannot be ours: it was closed in a way we
 * did not see (a raw system call).  Forget the stale state; unless in a vfork
 * child, whose records are its parent's (its give-back closed its copy). */
static inline void ur_heal(int fd)
{
	if (fp_unlikely(ur_state(fd)) && !fp_vfork_child())
		(void)ur_untrack(fd);
}

/* The call, and if it failed for want of a descriptor while we keep a
 * reserve, the call again once the reserve is given back. */
#define UR_RETRY(fd, call)                                                   \
	do {                                                                 \
		fd = (call);                                                 \
		if (fp_unlikely(fd < 0) && ur_give_back(errno))              \
			fd = (call);                                         \
	} while (0)

/* O_LARGEFILE as the C library's plain open() adds it: musl always does;
 * glibc and illumos only in their 64 twins (a 64-bit glibc build has it
 * 0: the kernel sets it for every open of a 64-bit program). */
#if defined(FP_LINUX) && !defined(__GLIBC__)
#define UR_LFS_PLAIN O_LARGEFILE
#else
#define UR_LFS_PLAIN 0
#endif
/* An open with the status flags of the hidden and COW descriptions. */
#define UR_LFS(flags) (((flags) & O_LARGEFILE) == O_LARGEFILE)

/* The device an open is for, or -1 when it is not ours. */
int ur_match(const char *path, int flags) FP_HIDDEN;
/* An open of the device: the reserve when it fits, else a fresh one. */
int ur_open(int dev, const char *path, int flags) FP_HIDDEN;
/* close of a tracked descriptor: kept in reserve, or really closed. */
int ur_close(int fd, unsigned st) FP_HIDDEN;
#define UR_NTAKEN (UR_NRES + UR_NDEV)  /* reserves and hidden descriptors */
#if defined(FP_HAVE_CLOSE_RANGE) || defined(FP_HAVE_CLOSEFROM)
void ur_untrack_range(unsigned lo, unsigned hi, int taken[UR_NTAKEN]) FP_HIDDEN;
#endif
int ur_dup(int old, unsigned so) FP_HIDDEN;
int ur_real_dup3(int old, int new, int flags) FP_HIDDEN;
/* How ur_dup23 duplicates: flags >= 0 is dup3 with those flags. */
#define UR_AS_DUP2 (-1)
#define UR_AS_DUP2FD (-2)          /* fcntl(old, F_DUP2FD, new) */
#define UR_AS_DUP2FD_CLOEXEC (-3)  /* fcntl(old, F_DUP2FD_CLOEXEC, new) */
#if defined(F_DUP2FD) && defined(F_DUP2FD_CLOEXEC)
#define UR_IS_DUP2FD(cmd) ((cmd) == F_DUP2FD || (cmd) == F_DUP2FD_CLOEXEC)
#elif defined(F_DUP2FD)
#define UR_IS_DUP2FD(cmd) ((cmd) == F_DUP2FD)
#else
#define UR_IS_DUP2FD(cmd) ((void)(cmd), 0)
#endif
/* dup2, dup3 and F_DUP2FD with a tracked descriptor on either side. */
int ur_dup23(int old, int new, int flags) FP_HIDDEN;
/* Reserve mode, around an exec or a spawn (urandom_exec.c): plain reserves
 * given back, one in transit made close-on-exec (fds[]), then put back. */
bool ur_guards_apart(void) FP_HIDDEN;
void ur_guards_atfork_child(void) FP_HIDDEN;
void ur_exec_guard(int fds[UR_NRES]) FP_HIDDEN, ur_guard_give_back(void) FP_HIDDEN;
void ur_exec_unguard(const int fds[UR_NRES]) FP_HIDDEN;
void ur_fd_init(void) FP_HIDDEN;
/* The hidden descriptors' part of it (urandom_hidden.c). */
void ur_hidden_init(void) FP_HIDDEN;
/* The program's open, and the hidden descriptor placed from it (urandom_hidden.c). */
bool ur_hidden_make(int dev, const char *path, int flags, unsigned bits, uint64_t w, int *fd,
                    int *hp) FP_HIDDEN;
/* Set by ur_split: every later open is real (ur_match); finished, when
 * the first split's closes are done (ur_split_wait). */
extern _Atomic bool ur_split_done FP_HIDDEN, ur_split_finished FP_HIDDEN;
void ur_split_wait(void) FP_HIDDEN, ur_fd_atfork_prepare(void) FP_HIDDEN;
void ur_fd_atfork_parent(void) FP_HIDDEN, ur_fd_atfork_child(void) FP_HIDDEN;
/* The fork child's whole part (urandom_shim.c): the table's, the source's. */
void ur_atfork_child(void) FP_HIDDEN;
/* Whether the mitigation may keep descriptors from now on (urandom_fd.c,
 * ur_gate): once it has, for good; false only while a fork that began
 * before it first did is under way, when the open is native. */
#define UR_ARMED 1u
#define UR_FORKING 2u
extern _Atomic unsigned ur_gate FP_HIDDEN;
bool ur_arm_slow(void) FP_HIDDEN;
bool ur_locks_begin(void) FP_HIDDEN;  /* first: record locks already taken? */
void ur_locks_atfork_child(void) FP_HIDDEN;
static inline bool ur_arm(void)
{
	return fp_likely(atomic_load_explicit(&ur_gate, memory_order_relaxed) & UR_ARMED) ||
	       ur_arm_slow();
}

/* A fresh open is tracked only if it really is the device. */
int ur_device_of(int fd) FP_HIDDEN;
bool ur_is_device(int fd, int dev) FP_HIDDEN;
/* Set when the device could not be opened as a hidden descriptor (not the
 * device, as in a chroot, or no number above the limit): opens are real. */
extern _Atomic bool ur_hidden_bad[UR_NDEV] FP_HIDDEN;
#ifdef FP_LINUX
/* Why there is no hidden descriptor, for the stats line; NULL: no limit
 * stands in the way (urandom_hidden.c). */
extern _Atomic(const char *) ur_hidden_why FP_HIDDEN;
/* The program changed its RLIMIT_NOFILE, the soft one to soft
 * (UINT64_MAX: unlimited). */
void ur_limit_set(uint64_t soft) FP_HIDDEN;
/* An open of path (the device, close-on-exec) at a number above the soft
 * limit, which no thread of the program sees raised; -1 with EMFILE. */
int ur_open_above(const char *path) FP_HIDDEN;
int ur_dup3_above(int src, int fd, int flags) FP_HIDDEN;
/* A placing child under way; a CLONE_VM child made: a fork child clears both. */
extern _Atomic bool ur_above_busy FP_HIDDEN, ur_vm_kin FP_HIDDEN;
#endif

/* ------------------------------------------------------------------------
 * Copy-on-write of the pooled descriptions (urandom_cow.c).
 * ---------------------------------------------------------------------- */
bool ur_cow(int fd) FP_HIDDEN;
void ur_cow_all(void) FP_HIDDEN;
void ur_cow_forget(int fd, unsigned st) FP_HIDDEN;
/* Copies under way in ur_cow_all; ur_cow_wait waits for them to end. */
extern _Atomic unsigned ur_cowing FP_HIDDEN;
void ur_cow_wait(void) FP_HIDDEN;
/* Setting a tracked number's close-on-exec flag: ur_cow_quiet before (it
 * waits for the copies under way and returns their epoch), and the flag
 * set again while ur_cow_moved says a copy may have read the old one. */
unsigned ur_cow_quiet(void) FP_HIDDEN;
bool ur_cow_moved(unsigned epoch) FP_HIDDEN;

/* A tracked number's state was read, and its owner is about to free it,
 * change its description or rely on it having its own: if another
 * thread's ur_cow_all claimed it meanwhile (state loaded after the claim,
 * UR_COW already cleared), its copy must land first.  One load when no
 * fork is under way; the fence orders it after the state's load. */
static inline void ur_cow_settle(void)
{
	atomic_thread_fence(memory_order_acquire);
	if (fp_unlikely(atomic_load_explicit(&ur_cowing, memory_order_relaxed)))
		ur_cow_wait();
}

/* A tracked number (state st) about to be freed or replaced: forgotten,
 * and if it was claimed after st was read (UR_COW cleared), only once the
 * copy landed. */
static inline void ur_cell_forget(int fd, unsigned st)
{
	if (st & UR_COW) {
		ur_cow_forget(fd, st);
		return;
	}
	ur_cell_store(fd, 0);
	ur_cow_settle();
}
void ur_cow_exec(void) FP_HIDDEN;
#ifdef FP_LINUX
/* F_DUPFD's answer stands: it is below the soft limit, and the hidden
 * numbers at or above it (urandom_hidden.c). */
static inline int ur_dupfd_native(int (*real)(int, int, ...), int fd, int cmd, int lo, int r)
{
	(void)real;
	(void)fd;
	(void)cmd;
	(void)lo;
	return r;
}
#else
/* illumos: the hidden numbers below the limit, which F_DUPFD may meet. */
int ur_dupfd_native(int (*real)(int, int, ...), int fd, int cmd, int lo, int r) FP_HIDDEN;
#endif

#ifdef FP_LINUX
bool ur_pid_self(long pid) FP_HIDDEN;
#endif
#ifdef FP_HAVE_SYSCALL_WRAP
/* The system calls about descriptions (ur_syscall_fd); -1 where the
 * headers lack one, which then matches no call. */
#  ifdef SYS_kcmp
#    define UR_NR_KCMP ((long)SYS_kcmp)
#  else
#    define UR_NR_KCMP (-1L)
#  endif
#  ifdef SYS_pidfd_getfd
#    define UR_NR_PIDFD_GETFD ((long)SYS_pidfd_getfd)
#  else
#    define UR_NR_PIDFD_GETFD (-1L)
#  endif
#  define UR_NR_IS(nr, NR) ((NR) >= 0 && (nr) == (NR))
long ur_syscall_fd(long nr, long a, long b, long c, long d, long e, long f) FP_HIDDEN;
#endif

/* Every signal blocked and cancellation off, around a few system calls no
 * handler may interrupt (nor jump out of) and no cancellation unwind. */
static inline void ur_block_all(sigset_t *old, int *cs)
{
	sigset_t all;

	sigfillset(&all);
	(void)pthread_sigmask(SIG_BLOCK, &all, old);
	(void)pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cs);
}

static inline void ur_unblock_all(const sigset_t *old, int cs)
{
	(void)pthread_setcancelstate(cs, NULL);
	(void)pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Before a call that changes fd's open file description or copies it
 * out of sight: a pooled one gets its own (exact mode); in reserve mode
 * it is never kept (UR_SHARED), since a close must then release what the
 * change took (a lock, an epoll entry) or what the copy shares.  One
 * branch for a descriptor that is not ours. */
static inline void ur_own(int fd, unsigned st)
{
	if (fp_likely(!(st & (UR_COW | UR_OPEN))))
		return;
	if (st & UR_COW)
		(void)ur_cow(fd);
	else if (ur_mode == UR_MODE_RESERVE)
		ur_update(fd, 0, UR_SHARED);
	else
		ur_cow_settle();
}

/* ------------------------------------------------------------------------
 * Duplicating close-on-exec (urandom_cloexec.c), with F_DUPFD_CLOEXEC or,
 * where the kernel lacks it, F_DUPFD then F_SETFD with no exec or fork in
 * between.
 * ---------------------------------------------------------------------- */
/* fcntl(fd, F_DUPFD_CLOEXEC, floor), or its fallback: the number, -1 with
 * errno, or UR_DUP_LATER when an exec, spawn or fork is under way (no
 * descriptor made, errno untouched: open the device for real instead). */
#define UR_DUP_LATER (-2)
int ur_dup_cloexec(int fd, int floor) FP_HIDDEN;
/* True once close-on-exec duplicates take the fallback. */
extern _Atomic bool ur_dup_fallback FP_HIDDEN;
/* The test aid FASTPATH_TEST_NO_DUPFD_CLOEXEC (ur_load): take the fallback
 * from the start, as on a kernel without F_DUPFD_CLOEXEC. */
extern bool ur_dup_forced FP_HIDDEN;
/* With the fallback, a span in which a number made without O_CLOEXEC's
 * atomicity may be open (ur_hidden_make: a kernel without F_DUPFD_CLOEXEC
 * may lack O_CLOEXEC too): false when an exec or fork is under way.  Free
 * without the fallback. */
bool ur_cloexec_hold(void) FP_HIDDEN;
void ur_cloexec_release(void) FP_HIDDEN;
/* Around every exec, spawn and fork: waits for the windows open to close,
 * and keeps new ones shut until ur_exec_leave (given what enter said). */
bool ur_exec_enter(void) FP_HIDDEN;
void ur_exec_leave(bool entered) FP_HIDDEN;
void ur_cloexec_init(long pid) FP_HIDDEN;
/* Around the hidden descriptor's placing: no fork meanwhile, and the end
 * of the pooling waits for it (ur_place_settle). */
bool ur_place_hold(void) FP_HIDDEN;
void ur_place_release(void) FP_HIDDEN;
void ur_place_settle(void) FP_HIDDEN;
void ur_cloexec_atfork_prepare(void) FP_HIDDEN;
void ur_cloexec_atfork_parent(void) FP_HIDDEN;
void ur_cloexec_atfork_child(void) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * Survey (urandom_survey.c): FASTPATH_SURVEY, the pool off, calls timed.
 * ---------------------------------------------------------------------- */
extern const struct fp_survey ur_sv FP_HIDDEN;
/* The descriptors the device gave, while surveying (0/1 per number). */
extern _Atomic unsigned char ur_sv_cells[UR_MAXFD] FP_HIDDEN;
extern _Atomic int ur_sv_hiwater FP_HIDDEN;
/* ur_match's answer for an open of the device to survey. */
#define UR_SURVEY UR_NDEV

static inline bool ur_surveyed(int fd)
{
	if (fp_likely((unsigned)fd >= (unsigned)atomic_load_explicit(&ur_sv_hiwater,
	                                                              memory_order_relaxed)))
		return false;
	return atomic_load_explicit(&ur_sv_cells[fd], memory_order_relaxed) != 0;
}
void ur_sv_opened(uint64_t t0, int fd, int flags) FP_HIDDEN;
void ur_sv_forget(int fd) FP_HIDDEN;
void ur_sv_read(uint64_t t0, size_t n) FP_HIDDEN;
void ur_sv_closed(uint64_t t0) FP_HIDDEN;
void ur_sv_getrandom(uint64_t t0, long r) FP_HIDDEN;

/* The real call, timed, then recorded by done(t0, ...). */
#define UR_SV_TIMED(ret, call, done, ...)                                    \
	do {                                                                 \
		uint64_t t0_ = fp_now_ns();                                  \
		ret = (call);                                                \
		done(t0_, ##__VA_ARGS__);                                      \
	} while (0)

static inline void ur_debug(const char *what)
{
	if (fp_unlikely(fp_cfg.debug))
		fp_debug("urandom", what, NULL);
}

/* ------------------------------------------------------------------------
 * exec and spawn (urandom_exec.c): its real symbols, bound with the
 * mitigation's own (urandom_shim.c).
 * ---------------------------------------------------------------------- */
#if defined(FP_LINUX) && defined(__GLIBC__)
#define UR_EXEC_NSYMS 14  /* and setrlimit, prlimit and their 64 twins */
#elif defined(FP_LINUX)
#define UR_EXEC_NSYMS 12
#else
#define UR_EXEC_NSYMS 10
#endif
extern const struct fp_sym ur_exec_syms[UR_EXEC_NSYMS] FP_HIDDEN;
#ifdef FP_LINUX
/* fd is a number we hold, closed to the program (urandom_seen.c). */
bool ur_fd_held(int fd) FP_HIDDEN;
#endif

#endif /* URANDOM_H */
