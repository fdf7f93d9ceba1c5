/*
 * urandom.h: what the three units of the urandom mitigation share.
 *
 *   urandom_pool.c   the reservoir: slices, lock, refill, generation, and
 *                    the wipe in a fork child.  Links alone (its unit test
 *                    does not interpose the test program's own calls).
 *   urandom_fd.c     the descriptor table: per-descriptor states, the
 *                    reserve slots, adopt/track/untrack, the close policy.
 *   urandom_shim.c   the entry points: open, read, close, dup, fcntl, stdio,
 *                    getrandom; each unpacks its call and asks the two above.
 *
 * Internal to fastpath.so: include it after fastpath.h, in those three only.
 */
#ifndef URANDOM_H
#define URANDOM_H

enum {
	UR_C_OPENS,     /* opens of the device handed a pooled fd */
	UR_C_READS,     /* reads of pooled fds */
	UR_C_GETRANDOM, /* getrandom/getentropy calls served from the pool */
	UR_C_SYSCALLS,  /* system calls the pool itself had to make */
	UR_C_REFILLS,   /* reservoir refills (a subset of syscalls) */
	UR_NCOUNTERS
};
extern struct fp_stripe ur_counters[FP_STRIPES] FP_HIDDEN;
#define ur_count(c) fp_count(ur_counters, UR_C_##c)

#define UR_MAXFD 4096        /* higher descriptors are passed through */
#define UR_POOL 65536        /* reservoir size */
#define UR_SERVE_MAX 4096    /* larger reads go straight to the kernel */
#define UR_CHUNK 256         /* bytes copied per lock hold (signal stacks are small) */
#define UR_SLICE 256         /* bytes a thread takes from the pool at once */
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
};

/* The compiler may not assume a declared-nonnull argument is non-NULL:
 * libc's contract for NULL (EFAULT) must survive. */
static inline const void *ur_opaque(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

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

/* ------------------------------------------------------------------------
 * The descriptor table (urandom_fd.c).  Read inline on every call; written
 * only by urandom_fd.c.
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
/* Written by every pooled open and close: a line of its own, away from the
 * flags every open reads. */
extern _Atomic int ur_reserve[UR_NDEV] FP_HIDDEN;
/* Odd while a fork is under way (our prepare handler until the parent's or
 * the child's), and counts them: a number made ours meanwhile may have been
 * copied into the child (ur_track_new). */
extern _Atomic unsigned ur_forks FP_HIDDEN;

static inline unsigned ur_state(int fd)
{
	if (fp_likely((unsigned)fd >= (unsigned)atomic_load_explicit(&ur_hiwater,
	                                                              memory_order_relaxed)))
		return 0;
	return atomic_load_explicit(ur_fd(fd), memory_order_acquire);
}

static inline int ur_dev(unsigned st)
{
	return (st & UR_RANDOM) ? UR_DEV_RANDOM : UR_DEV_URANDOM;
}

bool ur_untrack(int fd) FP_HIDDEN;
void ur_set(int fd, unsigned st) FP_HIDDEN;
void ur_update(int fd, unsigned clear, unsigned set) FP_HIDDEN;
void ur_track_new(int fd, unsigned st, unsigned g) FP_HIDDEN;
bool ur_give_back(int err) FP_HIDDEN;

/* A fresh number from the kernel cannot be ours: it was closed in a way we
 * did not see (a raw system call).  Forget the stale state. */
static inline void ur_heal(int fd)
{
	if (fp_unlikely(ur_state(fd)))
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

/* The device an open is for, or -1 when it is not ours. */
int ur_match(const char *path, int flags) FP_HIDDEN;
/* An open of the device: the reserve when it fits, else a fresh one. */
int ur_open(int dev, const char *path, int flags) FP_HIDDEN;
/* close of a tracked descriptor: kept in reserve, or really closed. */
int ur_close(int fd, unsigned st) FP_HIDDEN;
#if defined(FP_HAVE_CLOSE_RANGE) || defined(FP_HAVE_CLOSEFROM)
void ur_untrack_range(unsigned lo, unsigned hi, int taken[UR_NDEV]) FP_HIDDEN;
#endif
int ur_dup(int old, unsigned so) FP_HIDDEN;
int ur_real_dup3(int old, int new, int flags) FP_HIDDEN;
/* dup2 (flags < 0) and dup3 with a tracked descriptor on either side. */
int ur_dup23(int old, int new, int flags) FP_HIDDEN;
void ur_fd_atfork_prepare(void) FP_HIDDEN;
void ur_fd_atfork_parent(void) FP_HIDDEN;
void ur_fd_atfork_child(void) FP_HIDDEN;

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
void ur_sv_read(uint64_t t0, size_t n, ssize_t r) FP_HIDDEN;
void ur_sv_closed(uint64_t t0) FP_HIDDEN;
void ur_sv_getrandom(uint64_t t0) FP_HIDDEN;

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

#endif /* URANDOM_H */
