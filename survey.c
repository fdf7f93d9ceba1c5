/* SPDX-License-Identifier: MIT */
/*
 * survey.c: survey mode's records, one file per process (fastpath(7)).
 */
#include "fastpath.h"

/* ------------------------------------------------------------------------
 * Survey records (FASTPATH_SURVEY=DIR; the format is fastpath(7)'s).  One
 * file per process, DIR/<pid>.rec: the first made under that name and
 * written at once, a later one replacing it whole (fp_sv_write).  Only
 * system calls, from a buffer of its own: it may run in a signal
 * handler (a surveyed read() there, or _exit) or in a fork child.  A
 * record that cannot be written (no DIR, EMFILE, a full disk, the
 * program's RLIMIT_FSIZE: never a SIGXFSZ, see fp_fsz_hold) is simply
 * not there, and the report counts it as missing; errno is kept.
 * The counters are owner's: a vfork, _Fork or clone child (no atfork
 * handler; a vfork child shares them) writes zeros, and counts itself as a
 * vfork child of the owner (fp_sv_exec, _exit).
 * ---------------------------------------------------------------------- */
static struct {
	struct timespec start;      /* this process image's start (or fork) */
	_Atomic long owner;         /* the pid the counters belong to */
	long ppid;                  /* its parent at that start */
	_Atomic unsigned long spawns, vforks;
	/* The last record written, in ticks of 2^30 ns (about 1.07 s): an
	 * unsigned long, because 32-bit builds have neither lock-free 64-bit
	 * atomics nor 64-bit division without libgcc; a shift they have. */
	_Atomic unsigned long last_tick;
	_Atomic int busy;           /* one writer at a time; others skip */
	_Atomic long final_pid;     /* the process whose final record is out */
} fp_sv;

/* The program's name: the last component of the path the kernel was given
 * at exec (AT_EXECFN; illumos' getexecname), copied at the first record,
 * which initialisation writes before main: argv[0] is the program's to
 * rewrite (setproctitle, perl's $0), and the kernel's copy sits beside it
 * on the stack.  Never empty: a record without a name is still a record. */
static char fp_sv_prog[NAME_MAX + 1];

static const char *fp_exec_path(void)
{
#if defined(FP_ILLUMOS)
	return getexecname();  /* <stdlib.h> */
#else
#  ifdef AT_EXECFN
	const char *p = (const char *)getauxval(AT_EXECFN); // NOLINT(performance-no-int-to-ptr)

	if (p && *p)
		return p;
#  endif
	return program_invocation_name;
#endif
}

static const char *fp_progname(void)
{
	const char *p, *q;
	struct fp_buf b = { fp_sv_prog, 0, sizeof fp_sv_prog };

	if (fp_sv_prog[0])
		return fp_sv_prog;
	p = fp_exec_path();
	if (!p)
		p = "";
	q = strrchr(p, '/');
	if (q && q[1])
		p = q + 1;
	fp_buf_str(&b, *p ? p : "?");
	return fp_sv_prog;
}

static unsigned long fp_sv_tick_of(const struct timespec *ts)
{
	return (unsigned long)((((uint64_t)ts->tv_sec * 1000000000u) + (uint64_t)ts->tv_nsec) >> 30);
}

/* A record on its way out: put together in one buffer and written by one
 * write(2) (a short process's is about 150 bytes, one with every counter
 * about 1.5 KB), or in as many as it takes where the buffer is smaller.  The writer that holds fp_sv.busy has the static one;
 * one that could not take it (a final record whose thread interrupted a
 * periodic writer) writes from a small one on the stack, as a signal
 * handler on a small stack can. */
struct fp_sv_out {
	int fd;
	bool ok;
	size_t len, cap;
	char *buf;
};
static char fp_sv_big[4096];

/* With no file yet (fd -1), a record that does not fit the buffer. */
static void fp_sv_flush(struct fp_sv_out *o)
{
	if (o->len && (o->fd < 0 || fp_raw_write(o->fd, o->buf, o->len) != (ssize_t)o->len))
		o->ok = false;
	o->len = 0;
}

static void fp_sv_line(struct fp_sv_out *o, const char *key, const char *sval, unsigned long v)
{
	char line[192];
	struct fp_buf b = { line, 0, sizeof line - 1 };

	fp_buf_str(&b, key);
	fp_buf_str(&b, " ");
	if (sval) {
		/* One token, shown as itself: the report reads "key value",
		 * and a program's file name may hold an escape sequence (C1
		 * too), a newline and a forged line after it. */
		fp_buf_escaped(&b, sval);
	} else {
		fp_buf_ulong(&b, v);
	}
	line[b.len++] = '\n';
	if (o->len + b.len > o->cap)
		fp_sv_flush(o);
	if (b.len > o->cap) {
		if (o->fd < 0 || fp_raw_write(o->fd, line, b.len) != (ssize_t)b.len)
			o->ok = false;
		return;
	}
	memcpy(o->buf + o->len, line, b.len);
	o->len += b.len;
}

/* "<key> <seconds>.<nanoseconds>": no 64-bit arithmetic. */
static void fp_sv_time(struct fp_sv_out *o, const char *key, const struct timespec *ts)
{
	char v[48], *p = v + sizeof v;
	long ns = ts->tv_nsec;
	int i;
	struct fp_buf b = { v, 0, 24 };

	fp_buf_ulong(&b, (unsigned long)ts->tv_sec);
	*--p = '\0';
	for (i = 0; i < 9; i++, ns /= 10)
		*--p = (char)('0' + ns % 10);
	*--p = '.';
	memmove(v + b.len, p, strlen(p) + 1);
	fp_sv_line(o, key, v, 0);
}

static void fp_sv_count(struct fp_sv_out *o, const char *key, unsigned long v)
{
	if (v)
		fp_sv_line(o, key, NULL, v);
}

/* own: the counters are this process's; else none, and now as start.
 * The last lines stay in the buffer (the caller's flush); calfd, any
 * descriptor of ours, is what a calibration duplicates. */
static bool fp_sv_body(struct fp_sv_out *o, long pid, bool final, bool own,
                       const struct timespec *now, int calfd)
{
	size_t i;
	unsigned k;

	fp_sv_line(o, "fastpath-survey", NULL, 1);
	fp_sv_line(o, "pid", NULL, (unsigned long)pid);
	fp_sv_line(o, "ppid", NULL, (unsigned long)(own ? fp_sv.ppid : (long)getppid()));
	fp_sv_line(o, "prog", fp_progname(), 0);
	fp_sv_line(o, "state", final ? "exited" : "running", 0);
	fp_sv_time(o, "start_s", own ? &fp_sv.start : now);
	fp_sv_time(o, "now_s", now);
	/* The counters that are not 0 (the report counts a key a record
	 * lacks as 0): a short process's record is a tenth of the size it
	 * was with every key (issue 40: fork-heavy work writes one per
	 * process; its CPU time per exec did not measurably move).  A
	 * record of someone else's counters (!own) has none. */
	if (own) {
		fp_sv_count(o, "spawns", atomic_load(&fp_sv.spawns));
		fp_sv_count(o, "vforks", atomic_load(&fp_sv.vforks));
	}
	for (i = 0; own && o->ok && i < fp_nmitigations; i++) {
		const struct fp_survey *sv = fp_mitigations[i]->survey;

		if (sv && sv->calibrate)
			sv->calibrate(calfd);
		for (k = 0; sv && k < sv->n; k++)
			fp_sv_count(o, sv->keys[k], atomic_load_explicit(&sv->c[k], memory_order_relaxed));
	}
	fp_sv_line(o, "end", NULL, 0);
	return o->ok;
}

/* The directory this process's records go to: the survey directory when
 * root or this user owns it; in one another user owns (root's, shared by
 * the users of a service: 1733), the subdirectory named after this
 * process's effective uid, made by the first of its processes (0700) and
 * taken only when this user owns it: no user can make another's records
 * land where it chooses, nor write records the report reads as another's. */
static int fp_sv_opendir(bool *shared)
{
	char uid[24];
	struct fp_buf b = { uid, 0, sizeof uid };
	struct stat st;
	int dfd = fp_of_opendir(fp_cfg.survey_dir, strlen(fp_cfg.survey_dir), NULL, 0), sub;

	/* Another user may add names to it (outfile.c: then sticky). */
	*shared = true;
	if (dfd < 0 || !fp_fstat_bound(dfd, &st))
		return dfd;
	if (st.st_uid == geteuid()) {
		*shared = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
		return dfd;
	}
	fp_buf_ulong(&b, (unsigned long)geteuid());
#ifdef FP_LINUX
	/* illumos: mkdirat's version set is not established against the
	 * floor (tests/illumos_libc_symbols.txt); the subdirectory is made
	 * beforehand there. */
	(void)mkdirat(dfd, uid, 0700);
#endif
	sub = (int)fp_raw_openat(dfd, uid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	fp_raw_close(dfd);
	if (sub >= 0 && (!fp_fstat_bound(sub, &st) || st.st_uid != geteuid() ||
	                 (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		fp_raw_close(sub);
		sub = -1;
	}
	*shared = false;
	return sub;
}

/* The record put together in o (o->fd: -1, or the file to flush into as
 * it goes), written into fd; whether all of it is there. */
static bool fp_sv_put(struct fp_sv_out *o, int fd, bool whole, long pid, bool final, bool own,
                      const struct timespec *now)
{
	struct fp_fsz g;
	bool ok;

	/* Past the program's file-size limit the record is not there
	 * (EFBIG), never a SIGXFSZ. */
	fp_fsz_hold(&g);
	if (!whole) {
		*o = (struct fp_sv_out){ fd, true, 0, o->cap, o->buf };
		(void)fp_sv_body(o, pid, final, own, now, fd);
	}
	o->fd = fd;
	fp_sv_flush(o);
	ok = o->ok;
	fp_fsz_release(&g);
	return ok;
}

/* A record made under its own name whose write failed (the program's
 * file-size limit, a full disk): emptied first, so that a report that
 * reads it before it goes takes it as not there yet, never as half a
 * record; then removed, unless the name is another record's by now (a
 * final record's thread that found this one and renamed its own over
 * it). */
static void fp_sv_drop(int dfd, const char *rec, int fd)
{
	struct stat mine, there;

	(void)ftruncate(fd, 0);
	if (fp_fstat(fd, &mine) == 0 && fp_fstatat(dfd, rec, &there, AT_SYMLINK_NOFOLLOW) == 0 &&
	    mine.st_dev == there.st_dev && mine.st_ino == there.st_ino)
		(void)unlinkat(dfd, rec, 0);
	fp_raw_close(fd);
}

/* held: this thread holds fp_sv.busy (the static buffer is its own). */
static void fp_sv_write(bool final, bool held)
{
	char pre[32], tmp[64], rec[32], small[256];
	struct fp_buf t = { pre, 0, sizeof pre }, r = { rec, 0, sizeof rec };
	long pid = (long)getpid();
	struct timespec now = { 0, 0 };  /* a refused clock reads 0, as fp_now_ns */
	int saved = errno, dfd, fd;
	bool shared, own = atomic_load(&fp_sv.owner) == pid, whole;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);

	/* .<pid>.p.<random>.tmp: a name nobody can plant a link at first
	 * (outfile.c), in a directory nobody else can swap. */
	fp_buf_str(&t, ".");
	fp_buf_long(&t, pid);
	fp_buf_str(&t, final ? ".f." : ".p.");
	fp_buf_long(&r, pid);
	fp_buf_str(&r, ".rec");
	dfd = fp_sv_opendir(&shared);
	if (dfd >= 0) {
		struct fp_sv_out o = { -1, true, 0, held ? sizeof fp_sv_big : sizeof small,
			               held ? fp_sv_big : small };

		/* A process's first record, whole in the buffer, is made
		 * under its own name (O_EXCL) and written at once: the
		 * rename of a temporary name was about 15 of the 88 us the
		 * survey cost a short process (issue 40).  A reader that lists it
		 * before the write finds it empty, and takes it as not there
		 * yet (survey.awk).  Any other record replaces the one
		 * there: written under a temporary name and renamed, so that
		 * a reader never sees half of one; over a planted <pid>.rec
		 * link, the rename replaces the link itself, never what it
		 * points at. */
		whole = fp_sv_body(&o, pid, final, own, &now, dfd);
		if (whole && (fd = fp_of_create_named(dfd, rec)) >= 0) {
			if (!fp_sv_put(&o, fd, whole, pid, final, own, &now))
				fp_sv_drop(dfd, rec, fd);
			else
				fp_raw_close(fd);
		} else if (whole && fd == FP_OF_REFUSED) {
			/* Made, but fstat says not ours (an NFS server's
			 * root squash): not ours to remove either, and a
			 * temporary name would be refused alike.  Empty, it
			 * reads as no record. */
		} else if ((fd = fp_of_create(dfd, pre, tmp, sizeof tmp, shared)) >= 0) {
			bool put = fp_sv_put(&o, fd, whole, pid, final, own, &now);

			fp_raw_close(fd);
			if (!put || renameat(dfd, tmp, dfd, rec) != 0)
				(void)unlinkat(dfd, tmp, 0);
		}
		fp_raw_close(dfd);
	}
	atomic_store_explicit(&fp_sv.last_tick, fp_sv_tick_of(&now), memory_order_relaxed);
	errno = saved;
}

void fp_survey_tick(uint64_t now_ns)
{
	unsigned long now = (unsigned long)(now_ns >> 30);
	int idle = 0;

	if (fp_likely(now - atomic_load_explicit(&fp_sv.last_tick, memory_order_relaxed) <
	              fp_cfg.survey_every) ||
	    !fp_cfg.survey)
		return;
	if (atomic_load(&fp_sv.final_pid) == (long)getpid())
		return;
	/* Inside a wrapped call a handler may siglongjmp out of (readlink,
	 * read): every signal held from the flag to its release, or a jump
	 * would strand the flag (no record after) and the directory's and
	 * the record's descriptors (a cold review: one left open per jump). */
	sigset_t old;

	fp_hold_all(&old);
	if (atomic_compare_exchange_strong(&fp_sv.busy, &idle, 1)) {
		/* Checked again under the flag: another thread may just have. */
		if (now - atomic_load(&fp_sv.last_tick) >= fp_cfg.survey_every &&
		    atomic_load(&fp_sv.final_pid) != (long)getpid())
			fp_sv_write(false, true);
		atomic_store(&fp_sv.busy, 0);
	}
	fp_unhold(&old);
}

/* The record as at exit.  Waits for a periodic writer in another thread,
 * but not for ever: it may be this very thread, interrupted by a signal
 * handler.  Beside the start-up code, as its caller at exit. */
FP_STARTUP_TEXT static void fp_sv_write_last(void)
{
	int idle, tries;
	bool held = false;

	for (tries = 0; tries < 1000; tries++) {
		idle = 0;
		if ((held = atomic_compare_exchange_strong(&fp_sv.busy, &idle, 1)))
			break;
		FP_YIELD();
	}
	fp_sv_write(true, held);
	if (held)
		atomic_store(&fp_sv.busy, 0);
}

/* Runs at every exit: beside the start-up code (issue 39's page faults). */
FP_STARTUP_TEXT void fp_survey_final(void)
{
	long pid;

	if (atomic_load(&fp_init_state) != FP_INIT_DONE || !fp_cfg.survey)
		return;
	pid = (long)getpid();
	if (atomic_exchange(&fp_sv.final_pid, pid) == pid)
		return;
	fp_sv_exec(1);
	fp_sv_write_last();
}

bool fp_survey_sandboxing(void)
{
	/* (not a vfork child's: it shares the parent's memory, and a call
	 * of its that fails would end the parent's survey: a cold review) */
	if (atomic_load(&fp_init_state) != FP_INIT_DONE || !fp_cfg.survey ||
	    atomic_load(&fp_sv.owner) != (long)getpid())
		return false;
	/* The record as at exit, but the process may go on surveyed (the
	 * call fails): a later write replaces it, as every write does. */
	fp_sv_write_last();
	return true;
}

void fp_survey_sandboxed(void)
{
	/* (a plain flag every surveyed path reads, the periodic write's
	 * too: set once, never back; inherited by fork children) */
	__atomic_store_n(&fp_cfg.survey, false, __ATOMIC_RELAXED);
}

void fp_sv_spawned(void)
{
	if (atomic_load(&fp_init_state) == FP_INIT_DONE && fp_cfg.survey)
		atomic_fetch_add(&fp_sv.spawns, 1);
}

void fp_sv_exec(int step)
{
	if (atomic_load(&fp_init_state) == FP_INIT_DONE && fp_cfg.survey &&
	    atomic_load(&fp_sv.owner) != (long)getpid())
		atomic_fetch_add(&fp_sv.vforks, (unsigned long)(long)step);
}

bool fp_counters_ours(long pid)
{
	return atomic_load(&fp_sv.owner) == pid;
}

/* Whose counters: asked by the summary and the survey only, so a process
 * with neither pays no getpid or getppid at start-up or fork. */
FP_FORK_TEXT static void fp_sv_own(void)
{
	if (fp_likely(fp_cfg.stats == FP_STATS_NONE && !fp_cfg.survey))
		return;
	atomic_store(&fp_sv.owner, (long)getpid());
	fp_sv.ppid = (long)getppid();
	atomic_store(&fp_sv.spawns, 0);
	atomic_store(&fp_sv.vforks, 0);
}

/* At start: a record only from a process that leads its session (a
 * service's main process, a daemon spawned detached), which says "running"
 * at once: a report made while it runs names it, and one made after the
 * command that started it has ended says it outlived it.  Any other
 * process writes its record at exit, and about once a minute while it
 * runs (fp_survey_tick): a short one (a shell loop's /bin/true) pays one
 * record, not two; one killed before its first leaves none, which its
 * parent's count of children tells (interpose(1), SURVEY).  The name is
 * taken now, before main can touch what it is read from. */
FP_STARTUP_TEXT void fp_survey_start(void)
{
	int idle = 0;

	fp_sv_own();
	if (!fp_cfg.survey)
		return;
	clock_gettime(CLOCK_MONOTONIC, &fp_sv.start);
	atomic_store(&fp_sv.last_tick, fp_sv_tick_of(&fp_sv.start));
	(void)fp_progname();
#ifdef FP_LINUX
	/* The system call: getsid's version set on illumos is not
	 * established against the floor (tests/illumos_libc_symbols.txt),
	 * and there every process writes its first record later. */
	if (syscall(SYS_getsid, 0) != (long)getpid() ||
	    !atomic_compare_exchange_strong(&fp_sv.busy, &idle, 1))
		return;
#else
	(void)idle;
	return;
#endif
	fp_sv_write(false, true);
	atomic_store(&fp_sv.busy, 0);
}

/* A fork child: a process of its own, with no record until it ends. */
FP_FORK_TEXT void fp_survey_child(void)
{
	size_t i;
	unsigned k;

	fp_sv_own();
	/* Not surveyed: none of it is read, or was ever written (a fork of
	 * a process given no setting touches no page of it, issue 39). */
	if (!fp_cfg.survey)
		return;
	clock_gettime(CLOCK_MONOTONIC, &fp_sv.start);
	atomic_store(&fp_sv.last_tick, fp_sv_tick_of(&fp_sv.start));
	atomic_store(&fp_sv.busy, 0);
	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_survey *sv = fp_mitigations[i]->survey;

		for (k = 0; sv && k < sv->n; k++)
			atomic_store_explicit(&sv->c[k], 0, memory_order_relaxed);
	}
}
