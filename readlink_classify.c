/* SPDX-License-Identifier: MIT */
/*
 * readlink_classify.c: what a /proc link names, for the rule table
 * (rl_rules[], readlink_shim.c): whether the name is about this process's
 * own descriptors (pid, thread, pid namespace), which file system the
 * descriptor lives on (sockfs, pipefs; doorfs and fifofs on illumos), and
 * the two policies that ask it, each learnt as cheaply as possible.
 */
#include "fastpath.h"
#include "readlink.h"

#ifdef FP_VALGRIND_ANNOTATE
#include <valgrind/helgrind.h>
#endif

#ifdef FP_LINUX
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#endif

/* Our pid for the illumos policy, which asks on every /proc/<pid>/path
 * call: 0 until known, cleared in a fork child (which reads it: on the
 * start-up page). */
static _Atomic int rl_pid_cache FP_STARTUP_DATA;

static int rl_getpid(void)
{
	int pid = atomic_load_explicit(&rl_pid_cache, memory_order_relaxed);

	if (!pid) {
		pid = (int)getpid();
		atomic_store_explicit(&rl_pid_cache, pid, memory_order_relaxed);
	}
	return pid;
}

#ifdef FP_LINUX

/*
 * Our pid and tid, per thread, so that /proc/self costs no system call.
 * /proc/self/fd shows the thread-group leader's fd table, which is the
 * caller's only when the caller is the leader (another thread may have
 * unshared its table, and a leader that exited has none): so /proc/self/fd
 * is ours to answer only in the leader.  Filled on first use; cleared in a
 * fork child, where the forking thread becomes a leader with new ids.
 * Stale ids (a child made by raw clone or _Fork, which skip atfork) can only
 * say "not the leader" for /proc/self, which passes through; numeric pids
 * are checked against getpid() every time.  Initial-exec: no allocation,
 * safe in a signal handler.
 */
static FP_TLS struct {
	int pid, tid;
} rl_me;

static void rl_me_load(void)
{
	rl_me.tid = (int)syscall(SYS_gettid);
	/* pid last: a signal handler that interrupts us sees 0 and loads
	 * for itself. */
	atomic_signal_fence(memory_order_release);
	rl_me.pid = (int)getpid();
}

/*
 * Which process the proc root's numbers are about.  A pid is a number in
 * one pid namespace: after `unshare -p -f` without a /proc of its own, a
 * process is pid 1 in its namespace while /proc, the parent's, has its
 * pid 1 be someone else, and /proc/<getpid()> is not us.  The proc root
 * itself says which of its numbers is us: its "self" link.  When that
 * number is our getpid(), /proc/<getpid()> is us by its own account;
 * otherwise our numeric names are another process's, and when "self"
 * does not resolve (a /proc of a namespace we are not in) even /proc/self
 * is not ours to answer.  Learnt once per process, with the pid it was
 * learnt for: a fork or clone child, which may be in a new namespace,
 * learns again, and so does a process that mounts, chroots or joins a
 * namespace (RL_FORGET).
 */
enum { RL_NS_SAME = 1, RL_NS_OTHER = 2, RL_NS_NONE = 3 };
static _Atomic long rl_ns_known; /* 4 * pid + RL_NS_*, 0 before */

static int rl_ns_learn(const char *root, int pid)
{
	char path[96], link[24];
	struct fp_buf b = { path, 0, sizeof path };
	ssize_t n;
	long self = 0;
	int v = RL_NS_NONE;

	fp_buf_str(&b, root);
	fp_buf_str(&b, "/self");
	if (b.len + 1 < sizeof path &&
	    (n = fp_raw_readlinkat(AT_FDCWD, path, link, sizeof link - 1)) > 0) {
		link[n] = '\0';
		for (char *p = link; *p >= '0' && *p <= '9' && self < INT_MAX; p++)
			self = self * 10 + (*p - '0');
		v = self == pid ? RL_NS_SAME : RL_NS_OTHER;
	}
	atomic_store_explicit(&rl_ns_known, 4L * pid + v, memory_order_relaxed);
	return v;
}

static int rl_ns(const char *root, int pid)
{
	long k = atomic_load_explicit(&rl_ns_known, memory_order_relaxed);

	if (fp_likely(k / 4 == pid && k))
		return (int)(k % 4);
	return rl_ns_learn(root, pid);
}

/* Is this name about the caller's own fd table? */
static bool rl_linux_ours(const struct rl_path *x, const char *root)
{
	int pid;

	if (x->who == RL_THREAD_SELF) {
		if (!rl_me.pid)
			rl_me_load();
		return rl_ns(root, rl_me.pid) != RL_NS_NONE;
	}
	if (x->who == RL_SELF && !x->tid) {
		if (!rl_me.pid)
			rl_me_load();
		return rl_me.pid == rl_me.tid && rl_ns(root, rl_me.pid) != RL_NS_NONE;
	}
	/* Another process's pid costs no system call: the cache can only be
	 * stale in a child made without atfork, and then it names our parent,
	 * which passes through.  A pid that looks like ours is checked. */
	if (!rl_me.pid)
		rl_me_load();
	if (x->who == RL_PID && x->pid != rl_me.pid)
		return false;
	pid = (int)getpid();
	if (rl_me.pid != pid) {
		rl_me_load();
		if (x->who == RL_PID && x->pid != pid)
			return false;
	}
	/* A number, pid or tid, is ours only in our own namespace. */
	if (rl_ns(root, pid) != RL_NS_SAME)
		return false;
	return x->tid ? x->tid == rl_me.tid : pid == rl_me.tid;
}

/* 0 unknown, else 1 + st_dev of the one sockfs / pipefs superblock. */
static _Atomic unsigned long long rl_sockfs_dev, rl_pipefs_dev;
/* 0 unknown, 1 the proc root is procfs, 2 it is not (no /proc mounted in
 * this chroot or container: the kernel would say ENOENT, so must we). */
static _Atomic int rl_procfs;

/* 1 + the st_dev of a socket or a pipe of our own, made and closed at
 * once, or 0.  Learnt from the program's descriptor, a close and an open
 * in another thread between its fstat and its fstatfs made a named FIFO's
 * file system pipefs for the process (a cold review: its path read back
 * "pipe:[...]" from then on); ours no other thread can swap.  Made in a
 * thread of ours with a descriptor table of its own (fp_apart, as the
 * cap's refresh): in the program's, the pipe's second end took the number
 * past a full table and doubled it (fd_fuzz seed 430 case 209843: FDSize
 * 8192 where native has 4096).  Where no such thread can be made
 * (valgrind, a filter refusing clone), here, as before; while another
 * thread learns, not now (0: this call is the kernel's). */
struct rl_learn {
	bool sock, alone_failed;
	unsigned long long dev;
};

/* System calls only (fp_apart): the thread shares the caller's TLS. */
static int rl_learn_in(void *p)
{
	struct rl_learn *l = p;
	int fd[2] = { -1, -1 };
	struct stat st;

#ifdef SYS_socket
	if (l->sock)
		fd[0] = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
#else
	if (l->sock)
		fd[0] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
#endif
	else if (syscall(SYS_pipe2, fd, O_CLOEXEC) != 0)
		fd[0] = fd[1] = -1;
	if (fd[0] >= 0 && fp_fstat(fd[0], &st) == 0)
		l->dev = (unsigned long long)st.st_dev + 1;
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			fp_raw_close(fd[i]);
	return 0;
}

/* The thread's table: made on the caller's, it leaves it empty with
 * close_range(CLOSE_RANGE_UNSHARE) (Linux 5.9), which copies the table's
 * first 64 slots at least and closes the copies before it returns: for
 * that moment another thread's close of one of them is not its file's
 * last (6.18: clone and this call alone, over and over, beside a thread
 * closing a pipe's end and polling the other at once: 217 late hang-ups
 * in 50,000 at numbers 4 and 5, none at 104 and 105).  A copy made at the
 * clone (no CLONE_FILES) held each of the program's files until the
 * thread's exit closed it, after the caller resumed (CLONE_VFORK wakes it
 * at the memory's release): the caller's own close right after did not
 * end its file at once (fd_fuzz seed 431 case 26883: a pipe's write end
 * polled no POLLERR after the read end's close).  On a kernel without
 * it, a copy (unshare); neither, nothing (alone_failed: the caller learns
 * in place). */
static int rl_learn_alone(void *p)
{
	struct rl_learn *l = p;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0U, ~0U, 2U /* CLOSE_RANGE_UNSHARE */) == 0)
		return rl_learn_in(l);
#endif
	if (syscall(SYS_unshare, (long)CLONE_FILES) == 0)
		return rl_learn_in(l);
	l->alone_failed = true;
	return 0;
}

static _Alignas(64) unsigned char rl_learn_stack[8192];
static _Atomic bool rl_learn_busy;

static unsigned long long rl_fs_learn(bool sock)
{
	struct rl_learn l = { sock, false, 0 };
	int saved = errno;
	sigset_t old;

	/* Every signal held, so that a siglongjmp out of the readlink leaves
	 * neither open nor the stack taken; system calls, not the C
	 * library's functions, which a program or another preload may wrap
	 * (a cold review). */
	fp_hold_all(&old);
	if (!atomic_exchange(&rl_learn_busy, true)) {
		if (fp_apart(RL_REAL(clone), rl_learn_alone, &l, rl_learn_stack + sizeof rl_learn_stack,
		             CLONE_THREAD | CLONE_SIGHAND | CLONE_FILES, NULL) != 0 ||
		    l.alone_failed)
			(void)rl_learn_in(&l);
		atomic_store(&rl_learn_busy, false);
	}
	fp_unhold(&old);
	errno = saved;
	return l.dev;
}

/* Which of the two st names, if either. */
static enum rl_fs rl_fs_of(const struct stat *st)
{
	_Atomic unsigned long long *known;
	unsigned long long dev = (unsigned long long)st->st_dev + 1, k;
	bool sock = S_ISSOCK(st->st_mode);

	if (!sock && !S_ISFIFO(st->st_mode))
		return RL_FS_ANY;
	known = sock ? &rl_sockfs_dev : &rl_pipefs_dev;
	if (!(k = atomic_load_explicit(known, memory_order_relaxed))) {
		if (!(k = rl_fs_learn(sock)))
			return RL_FS_ANY;
		atomic_store_explicit(known, k, memory_order_relaxed);
	}
	return k != dev ? RL_FS_ANY : sock ? RL_FS_SOCKFS : RL_FS_PIPEFS;
}

static bool rl_root_is_procfs(const char *root)
{
	int v = atomic_load_explicit(&rl_procfs, memory_order_relaxed);
	struct statfs sf;

	if (!v) {
		v = statfs(root, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC ? 1 : 2;
		atomic_store_explicit(&rl_procfs, v, memory_order_relaxed);
	}
	return v == 1;
}
#endif /* FP_LINUX */

/* Written only where learnt: a fork of a process that never asked
 * leaves their page alone (issue 39). */
FP_FORK_TEXT void rl_atfork_child(void)
{
	if (atomic_load_explicit(&rl_pid_cache, memory_order_relaxed))
		atomic_store_explicit(&rl_pid_cache, 0, memory_order_relaxed);
#ifdef FP_LINUX
	if (rl_me.pid)
		rl_me.pid = 0;
#endif
}

FP_STARTUP_TEXT void rl_init(void)
{
#ifdef FP_VALGRIND_ANNOTATE
	/* Only for the helgrind/drd build (make check-valgrind): these caches
	 * are relaxed C11 atomics, which the tools see as plain loads and
	 * stores.  Each holds a fact that any thread may learn again. */
	ANNOTATE_BENIGN_RACE_SIZED(&rl_pid_cache, sizeof rl_pid_cache,
	                           "readlink: cached pid, atomic");
#ifdef FP_LINUX
	ANNOTATE_BENIGN_RACE_SIZED(&rl_sockfs_dev, sizeof rl_sockfs_dev,
	                           "readlink: cached sockfs device, atomic");
	ANNOTATE_BENIGN_RACE_SIZED(&rl_pipefs_dev, sizeof rl_pipefs_dev,
	                           "readlink: cached pipefs device, atomic");
	ANNOTATE_BENIGN_RACE_SIZED(&rl_procfs, sizeof rl_procfs,
	                           "readlink: cached proc root answer, atomic");
	ANNOTATE_BENIGN_RACE_SIZED(&rl_ns_known, sizeof rl_ns_known,
	                           "readlink: cached pid namespace answer, atomic");
#endif
#endif
}

/* ------------------------------------------------------------------------
 * The two policies.  Each returns the action, and for an answer the inode.
 * ---------------------------------------------------------------------- */
enum rl_act rl_linux(const struct rl_path *x, const char *root, unsigned long *ino, mode_t *type)
{
#ifdef FP_LINUX
	struct stat st;

	if (x->dir != RL_DIR_FD || !rl_root_is_procfs(root) || !rl_linux_ours(x, root))
		return RL_PASS;
	/* A descriptor fastpath holds (fp_fd_held) is closed to the program:
	 * no link, as for any closed number.  A really closed one passes, as
	 * before. */
	if (FP_FD_HELD(x->fd))
		return RL_ENOENT;
	if (fp_fstat(x->fd, &st) != 0)
		return RL_PASS;
	*ino = (unsigned long)st.st_ino;
	*type = st.st_mode & S_IFMT;
	return rl_decide(RL_LINUX, x->dir, st.st_mode, rl_fs_of(&st));
#else
	/* Only Linux's /proc/<pid>/fd links name sockets after sockfs. */
	(void)x, (void)root, (void)ino, (void)type;
	return RL_PASS;
#endif
}

/* The unit tests dress fixture files up as illumos nodes here. */
#ifndef RL_TEST_DRESS
#define RL_TEST_DRESS(st) ((void)0)
#endif

#ifdef FP_LINUX
/*
 * The illumos policy run on Linux (FASTPATH_TEST_POLICY=illumos: the demo
 * and the tests) sees Linux's counterparts of the illumos nodes that have
 * no name as illumos shows them: a pipefs pipe as a fifonode of no links
 * (fifo_getattr), and an anonymous inode (epoll, eventfd, timerfd: no file
 * type at all) as an event port, node id 0 (port_getattr).  Sockets need
 * nothing; a named FIFO is one on both.
 */
static void rl_linux_as_illumos(struct stat *st, bool pipefs)
{
	if (S_ISFIFO(st->st_mode) && pipefs) {
		st->st_nlink = 0;
		st->st_mode = S_IFIFO;
	} else if ((st->st_mode & S_IFMT) == 0) {
		st->st_mode = S_IFPORT;
		st->st_ino = 0;
	}
}
#endif

/*
 * The illumos decision for one stat of the fd (rl_rules[] cites the
 * kernel for each row).  Which file system a door or a FIFO lives on
 * shows in what every stat we make returns (fstat, stat, fstatat), at no
 * cost: a door's node id (0 on doorfs, from 1 up on namefs), a FIFO's link
 * count (0 for a pipe on fifofs).  fstatvfs's f_basetype would say the
 * same for one more system call, and only with an open descriptor.
 */
static enum rl_act rl_illumos_type(struct stat *st, bool pipefs, mode_t *type)
{
	enum rl_fs fs = RL_FS_ANY;

#ifdef FP_LINUX
	rl_linux_as_illumos(st, pipefs);
#else
	(void)pipefs;
#endif
	RL_TEST_DRESS(st);
	*type = st->st_mode & S_IFMT;
	if (FP_S_ISDOOR(st->st_mode) && st->st_ino == 0)
		fs = RL_FS_DOORFS;
	else if (S_ISFIFO(st->st_mode) && st->st_nlink == 0)
		fs = RL_FS_FIFOFS;
	return rl_decide(RL_ILLUMOS, RL_DIR_PATH, st->st_mode, fs);
}

/* On Linux under the test policy: is this FIFO a pipefs pipe? */
static bool rl_pipefs(const struct stat *st)
{
#ifdef FP_LINUX
	return S_ISFIFO(st->st_mode) && rl_fs_of(st) == RL_FS_PIPEFS;
#else
	(void)st;
	return false;
#endif
}

enum rl_act rl_illumos(const struct rl_path *x, const char *path, mode_t *type)
{
	char fdpath[128];
	struct stat st;
	struct fp_buf b = { fdpath, 0, sizeof fdpath };
	int r;

	if (x->dir != RL_DIR_PATH || x->tid || x->who == RL_THREAD_SELF)
		return RL_PASS;
	if (x->who == RL_SELF || x->pid == rl_getpid()) {
		/* A number fastpath holds is closed, as to the program. */
		r = FP_FD_HELD(x->fd) ? (errno = EBADF, -1) : fp_fstat(x->fd, &st);
	} else {
		/* "<root>/<pid>/" + "fd/<n>": shorter than the path itself.  A
		 * root too long for a small frame (a test's) is the kernel's. */
		if (x->dir_off + sizeof "fd/-2147483648" > sizeof fdpath)
			return RL_PASS;
		memcpy(fdpath, path, x->dir_off);
		b.len = x->dir_off;
		fp_buf_str(&b, "fd/");
		fp_buf_long(&b, x->fd);
		r = fp_stat(fdpath, &st);
	}
	if (r != 0)
		return RL_PASS;
	return rl_illumos_type(&st, rl_pipefs(&st), type);
}

/*
 * A readlinkat() relative to a directory fd: on illumos the name "<n>" in
 * an open /proc/<pid>/path.  We recognise that directory without knowing
 * its pid: it is a directory that is its parent's "path" entry, and its
 * grandparent is the proc root.  Four cheap stats, against one name-cache
 * scan; names that are not a plain number cost nothing.  On Linux this case
 * passes through: the kernel's lookup of one name under an fd directory is
 * already cheaper than telling which directory it is.
 */
enum rl_act rl_illumos_at(int dirfd, const char *name, const char *root, bool *seen,
                          mode_t *type)
{
	struct stat d, e, g, r, st;
	char rel[32];
	struct fp_buf b = { rel, 0, sizeof rel };
	const char *end;
	int fd;

	if (!(end = rl_num(name, &fd)) || *end != '\0')
		return RL_PASS;
	if (fp_fstat(dirfd, &d) != 0 || !S_ISDIR(d.st_mode) ||
	    fp_fstatat(dirfd, "../path", &e, 0) != 0 || e.st_dev != d.st_dev ||
	    e.st_ino != d.st_ino || fp_fstatat(dirfd, "../..", &g, 0) != 0 ||
	    fp_stat(root, &r) != 0 || g.st_dev != r.st_dev || g.st_ino != r.st_ino)
		return RL_PASS;
	*seen = true;
	fp_buf_str(&b, "../fd/");
	fp_buf_long(&b, fd);
	if (fp_fstatat(dirfd, rel, &st, 0) != 0)
		return RL_PASS;
	return rl_illumos_type(&st, rl_pipefs(&st), type);
}

/* The reset hook: what the proc root is changes under a running program
 * only by its own hand (chroot, a mount or unmount, joining another mount
 * namespace: roots.c), and the next readlink asks again.  A change made by
 * another process in a mount namespace we share stays out of sight: that
 * is a documented limit. */
void rl_rooted(void)
{
#ifdef FP_LINUX
	atomic_store(&rl_procfs, 0);
	atomic_store(&rl_ns_known, 0);
#endif
}
