/* SPDX-License-Identifier: MIT */
/*
 * urandom_survey.c: the urandom mitigation's survey (FASTPATH_SURVEY).  The
 * pool is off; every call goes to the kernel, and those the pool would have
 * answered are counted and timed: opens of the device (with and without
 * O_CLOEXEC), reads of the descriptors they gave by size, their closes,
 * and small getrandom/getentropy calls.  Which descriptors are the
 * device's is kept in a table of its own, apart from the pool's: nothing
 * here can make a call behave otherwise than natively.  A descriptor that
 * leaves without close() (dup2 over it, close_range) stays in the table
 * until its number is opened again: at worst a few reads of another file
 * are counted, never served.
 */
#include "fastpath.h"
#include "urandom.h"
#include <sys/resource.h>
#include <sys/wait.h>

#define UR_SV_KEYS(X)                                                        \
	X(OPEN_CLOEXEC, "urandom.open_cloexec") X(OPEN_PLAIN, "urandom.open_plain") \
	X(OPEN_NS, "urandom.open_ns")                                        \
	X(READ16, "urandom.read_le16") X(READ64, "urandom.read_le64")        \
	X(READ256, "urandom.read_le256") X(READ4096, "urandom.read_le4096")   \
	X(READBIG, "urandom.read_big") X(READ_NS, "urandom.read_ns")          \
	X(READBIG_NS, "urandom.read_big_ns")                                 \
	X(CLOSE, "urandom.close") X(CLOSE_NS, "urandom.close_ns")             \
	X(GETRANDOM, "getrandom.calls") X(GETRANDOM_NS, "getrandom.ns")    \
	X(DUPCLOSE_NS, "urandom.dup_close_ns") X(DUPFALLBACK, "urandom.dup_fallback") \
	X(SOURCE, "urandom.source")                                          \
	X(GETRANDOM_SC, "getrandom.syscall") X(GETRANDOM_SC_NS, "getrandom.syscall_ns") \
	X(REFUSED, "getrandom.refused")                                      \
	X(POOLS, "urandom.exact_pools") X(NOFILE_SOFT, "urandom.nofile_soft") \
	X(NOFILE_HARD, "urandom.nofile_hard")

enum {
#define UR_X(e, key) UR_S_##e,
	UR_SV_KEYS(UR_X)
#undef UR_X
	UR_NSURVEY
};
static const char *const ur_sv_keys[UR_NSURVEY] = {
#define UR_X(e, key) key,
	UR_SV_KEYS(UR_X)
#undef UR_X
};
static _Atomic unsigned long ur_sv_c[UR_NSURVEY];
static void ur_sv_calibrate(int fd);
const struct fp_survey ur_sv = { ur_sv_c, ur_sv_keys, UR_NSURVEY, ur_sv_calibrate };

/*
 * Is getrandom refused here (a seccomp filter answering ENOSYS, as old
 * container profiles do, or EPERM, or one that kills)?
 * "getrandom.refused": 1 ENOSYS, 2 EPERM, 3 killed (numbers of our own,
 * the same on every system), 0 not refused.  Where it is, the default
 * source is the kernel's read and the report suggests the reservoir, with
 * its caveat (survey.awk, urandom_suggest).
 * Learnt from the program's own small getrandom and getentropy calls, and
 * those made through syscall(2) (their results: ur_sv_answered), never by
 * a call of ours in the program's process: a filter that kills on
 * getrandom (SECCOMP_RET_KILL_PROCESS) would end the program (issue 36).
 * A process that opened the device without ever calling getrandom (the
 * seed-001 loop) is asked in a child: a clone on our memory (CLONE_VM |
 * CLONE_VFORK, as urandom_hidden.c's ur_above, on a stack of its own) makes
 * one non-blocking byte's call, what the mitigation's first read would
 * make; a filter that kills ends that child alone, and its exit signal 0
 * keeps it from the program's SIGCHLD and wait(2).  Asked again at each
 * record until refused: a filter installed later (a sandbox entered
 * after start-up) is seen at the next record.  Linux only: illumos has no
 * filter and fp_raw_getrandom reads the device there.
 */
static _Atomic bool ur_sv_gr_answered;

static void ur_sv_answered(long r, int err)
{
	if (r < 0 && (err == ENOSYS || err == EPERM))
		atomic_store_explicit(&ur_sv_c[UR_S_REFUSED], err == ENOSYS ? 1 : 2,
		                      memory_order_relaxed);
	else if (r >= 0)
		atomic_store_explicit(&ur_sv_gr_answered, true, memory_order_relaxed);
}

#ifdef FP_LINUX
struct ur_sv_probe {
	long r;
	int err;
};
static _Alignas(64) unsigned char ur_sv_probe_stack[8192];
static _Atomic bool ur_sv_probe_busy;

/* System calls only: the child shares this thread's TLS (errno). */
static int ur_sv_probe_child(void *p)
{
	struct ur_sv_probe *q = p;
	unsigned char b;

	q->r = syscall(SYS_getrandom, &b, 1L, (long)GRND_NONBLOCK);
	q->err = q->r < 0 ? errno : 0;
	return 0;
}

static void ur_sv_probe(void)
{
	struct ur_sv_probe q = { 0, 0 };
	sigset_t old;
	int r, status = 0;

	if (fp_under_valgrind || !UR_REAL(clone) || atomic_exchange(&ur_sv_probe_busy, true))
		return;
	fp_hold_all(&old);
	r = fp_apart(UR_REAL(clone), ur_sv_probe_child, &q,
	             ur_sv_probe_stack + sizeof ur_sv_probe_stack, 0, &status);
	fp_unhold(&old);
	atomic_store(&ur_sv_probe_busy, false);
	if (r == 0 && WIFSIGNALED(status))
		atomic_store_explicit(&ur_sv_c[UR_S_REFUSED], 3, memory_order_relaxed);
	else if (r == 0)
		ur_sv_answered(q.r, q.err);
}
#endif

static void ur_sv_refused(void)
{
#ifdef FP_LINUX
	if (atomic_load_explicit(&ur_sv_c[UR_S_REFUSED], memory_order_relaxed) ||
	    atomic_load_explicit(&ur_sv_gr_answered, memory_order_relaxed))
		return;
	ur_sv_probe();
#endif
}

#ifdef FP_LINUX
/* CAP_SYS_RESOURCE in the effective set: capget(2) itself (libcap is no
 * dependency of ours), version 3, this process.  As words: the header is
 * { version, pid }, the data two { effective, permitted, inheritable }
 * (<linux/capability.h>), bits 0 to 31 in the first. */
static bool ur_sv_cap_resource(void)
{
	uint32_t hdr[2] = { 0x20080522u, 0 }, data[6] = { 0, 0, 0, 0, 0, 0 };

	return syscall(SYS_capget, hdr, data) == 0 && (data[0] & (1u << 24));
}
#endif

/*
 * Could exact mode pool here?  Its hidden descriptors sit above the soft
 * descriptor limit, which takes a soft limit below the hard one (or
 * CAP_SYS_RESOURCE to raise the hard one for a moment) and below 16382
 * (urandom_hidden.c, ur_hidden_place); elsewhere its opens are real and save
 * nothing.  "urandom.exact_pools": 1 yes, 2 no: the soft limit is the
 * hard one, 3 no: the soft limit is 16382 or more; with both limits
 * (RLIM_INFINITY as the largest unsigned long), as they stand at the
 * record, so the report can say what to change.  Linux only: illumos has
 * no such placing (its exact mode makes real opens, urandom_hidden.c) and
 * records nothing.
 */
static void ur_sv_limits(void)
{
#ifdef FP_LINUX
	struct rlimit rl;
	unsigned long code;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur != FP_RLIM_INFINITY && rl.rlim_cur >= UR_MAXFD - UR_NDEV)
		code = 3;
	else if (rl.rlim_cur == rl.rlim_max && !ur_sv_cap_resource())
		code = 2;
	else
		code = rl.rlim_cur == FP_RLIM_INFINITY ? 3 : 1;
	atomic_store_explicit(&ur_sv_c[UR_S_POOLS], code, memory_order_relaxed);
	atomic_store_explicit(&ur_sv_c[UR_S_NOFILE_SOFT],
	                      rl.rlim_cur == FP_RLIM_INFINITY || rl.rlim_cur > ULONG_MAX ? ULONG_MAX
	                                                                       : (unsigned long)rl.rlim_cur,
	                      memory_order_relaxed);
	atomic_store_explicit(&ur_sv_c[UR_S_NOFILE_HARD],
	                      rl.rlim_max == FP_RLIM_INFINITY || rl.rlim_max > ULONG_MAX ? ULONG_MAX
	                                                                       : (unsigned long)rl.rlim_max,
	                      memory_order_relaxed);
#endif
}

/*
 * What exact mode would pay per cycle instead of open, read and close: a
 * duplicate (F_DUPFD_CLOEXEC, the dearer of its two ways; on a kernel that
 * lacks it, F_DUPFD then F_SETFD, and "urandom.dup_fallback" 1 says so) and
 * the close of a duplicate, which, unlike the native close, does not
 * release the file.
 * Timed on a descriptor of the survey's own while a record is put
 * together (its directory's; the number taken is one above it, for a
 * moment, like the record's own), and
 * only in a process that opened the device.  The least of 4 pairs, and of
 * every record the process writes: "urandom.dup_close_ns".
 */
static void ur_sv_calibrate(int fd)
{
	unsigned long best = atomic_load_explicit(&ur_sv_c[UR_S_DUPCLOSE_NS], memory_order_relaxed);
	int saved = errno, i, src;

	if (!UR_REAL(fcntl) || !(atomic_load(&ur_sv_c[UR_S_OPEN_CLOEXEC]) +
	                            atomic_load(&ur_sv_c[UR_S_OPEN_PLAIN])))
		return;
	for (i = 0; i < 4; i++) {
		uint64_t t0 = fp_now_ns();
		int d = ur_dup_cloexec(fd, fd + 1);
		unsigned long dt;

		if (d < 0)  /* failed, or an exec or fork under way */
			break;
		fp_raw_close(d);
		dt = (unsigned long)(fp_now_ns() - t0);
		if (dt && (!best || dt < best))
			best = dt;
	}
	atomic_store_explicit(&ur_sv_c[UR_S_DUPCLOSE_NS], best, memory_order_relaxed);
	atomic_store_explicit(&ur_sv_c[UR_S_DUPFALLBACK], atomic_load(&ur_dup_fallback),
	                      memory_order_relaxed);
	ur_sv_limits();
	ur_sv_refused();
	/* What would serve the reads here: 1 vdso, 2 kernel, 3 reservoir
	 * (decided, the mitigation on or not); where getrandom is refused, the
	 * vdso source would give way to the kernel's read at its first read
	 * (urandom_vdso.c, ur_source_refused). */
	src = ur_source_now();
	atomic_store_explicit(&ur_sv_c[UR_S_SOURCE],
	                      (unsigned long)(src == UR_SRC_VDSO && ur_sv_c[UR_S_REFUSED] ? UR_SRC_KERNEL
	                                                                                  : src) + 1,
	                      memory_order_relaxed);
	errno = saved;
}

_Atomic unsigned char ur_sv_cells[UR_MAXFD];
_Atomic int ur_sv_hiwater;

/* errno is the surveyed call's: nothing here changes it (fp_now_ns keeps
 * it where the clock fails, and so does a record written on the way,
 * fp_sv_write). */
static void ur_sv_done(unsigned count, unsigned ns_key, uint64_t t0)
{
	uint64_t now = fp_now_ns();

	fp_sv_add(&ur_sv, count, 1);
	fp_sv_add(&ur_sv, ns_key, now - t0);
	fp_survey_tick(now);
}

void ur_sv_opened(uint64_t t0, int fd, int flags)
{
	int hi;

	ur_sv_done((flags & O_CLOEXEC) ? UR_S_OPEN_CLOEXEC : UR_S_OPEN_PLAIN, UR_S_OPEN_NS, t0);
	if (fd >= 0 && fd < UR_MAXFD) {
		/* Before the mark is raised past it (the exchange releases
		 * it); no later load of ours needs it ordered further. */
		atomic_store_explicit(&ur_sv_cells[fd], 1, memory_order_release);
		hi = atomic_load_explicit(&ur_sv_hiwater, memory_order_relaxed);
		while (hi <= fd && !atomic_compare_exchange_weak(&ur_sv_hiwater, &hi, fd + 1))
			;
	}
}

/* A number the kernel just gave for another file is not the device's. */
void ur_sv_forget(int fd)
{
	if (fd >= 0 && fd < UR_MAXFD)
		atomic_store(&ur_sv_cells[fd], 0);
}

void ur_sv_read(uint64_t t0, size_t n)
{
	unsigned k = n <= 16 ? UR_S_READ16 : n <= 64 ? UR_S_READ64 : n <= 256 ? UR_S_READ256 :
	             n <= UR_SERVE_MAX ? UR_S_READ4096 : UR_S_READBIG;

	ur_sv_done(k, k == UR_S_READBIG ? UR_S_READBIG_NS : UR_S_READ_NS, t0);
}

void ur_sv_closed(uint64_t t0)
{
	ur_sv_done(UR_S_CLOSE, UR_S_CLOSE_NS, t0);
}

void ur_sv_getrandom(uint64_t t0, long r)
{
	ur_sv_answered(r, errno);
	ur_sv_done(UR_S_GETRANDOM, UR_S_GETRANDOM_NS, t0);
}


#ifdef FP_HAVE_SYSCALL_WRAP
static void ur_sv_syscall_getrandom(uint64_t t0, long r)
{
	ur_sv_answered(r, errno);
	ur_sv_done(UR_S_GETRANDOM_SC, UR_S_GETRANDOM_SC_NS, t0);
}

/*
 * syscall(2), for the survey: PHP's random_bytes (8.2) and others call
 * getrandom through it, past our getrandom().  The small calls are
 * counted apart ("getrandom.syscall"), since --getrandom serves only
 * getrandom() and getentropy(), not these.  kcmp and pidfd_getfd, which
 * have no C library function, are the pool's (ur_syscall_fd); a change of
 * root, credentials or sandbox has the core's hooks (roots.c).  Every
 * other call, and every call outside survey mode, is the next syscall()
 * with the six arguments it reads itself (glibc's and musl's read six
 * longs, whatever was passed): its result and errno are the caller's as
 * they come.
 */
#undef syscall
/* Six longs read also past what the caller passed, as libc reads them:
 * not ASan's business (its stack-buffer-underflow in test_urandom). */
FP_EXPORT __attribute__((no_sanitize_address)) long syscall(long nr, ...)
{
	va_list ap;
	long a, b, c, d, e, f, r;
	int k;

	va_start(ap, nr);
	a = va_arg(ap, long);
	b = va_arg(ap, long);
	c = va_arg(ap, long);
	d = va_arg(ap, long);
	e = va_arg(ap, long);
	f = va_arg(ap, long);
	va_end(ap);
	if (fp_unlikely(fp_surveying()) && nr == SYS_getrandom && b > 0 && b <= UR_SERVE_MAX &&
	    !((unsigned long)c & ~(unsigned long)GRND_NONBLOCK)) {
		UR_SV_TIMED(r, UR_REAL(syscall)(nr, a, b, c, d, e, f), ur_sv_syscall_getrandom, r);
		return r;
	}
	if (fp_unlikely(UR_NR_IS(nr, UR_NR_KCMP) || UR_NR_IS(nr, UR_NR_PIDFD_GETFD)))
		return ur_syscall_fd(nr, a, b, c, d, e, f);
	if (fp_unlikely((k = fp_roots_nr(nr, a)) != 0))
		return fp_roots_call(k, UR_REAL(syscall), nr, a, b, c, d, e, f);
	return UR_REAL(syscall)(nr, a, b, c, d, e, f);
}
#endif
