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

size_t rl_format(char *out, size_t cap, const char *prefix, unsigned long ino)
{
	struct fp_buf b = { out, 0, cap };

	fp_buf_str(&b, prefix);
	fp_buf_ulong(&b, ino);
	fp_buf_str(&b, "]");
	return b.len;
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

/*
 * Which device is sockfs's and which pipefs's: learnt from the kernel's
 * own answer for a socket or FIFO of the program's, "socket:[I]" or
 * "pipe:[I]" for the inode I its fstat gave (rl_fs_learnt, after the
 * real call that answers it: the first of each kind is the kernel's).
 * Never from a file of our own, which must have a number somewhere: in
 * the program's table it took the number past a full table and doubled
 * it (fd_fuzz seed 430 case 209843: FDSize 8192 where native has 4096),
 * and in a thread with a table of its own (a clone, which a filter may
 * refuse: the same case under one) that table held the program's files
 * meanwhile (a close not its file's last: seed 431 case 26883).  Nor
 * from the file system's type of the program's descriptor, which
 * another thread may replace between two calls (a cold review: a named
 * FIFO's file system learnt as pipefs); the answer names the inode the
 * fstat saw, so a replacement between the two shows (short of another
 * file system's inode of the same number taking the place).
 */
static _Atomic unsigned long long *rl_fs_known(bool sock)
{
	return sock ? &rl_sockfs_dev : &rl_pipefs_dev;
}

/* Which of the two st names, if either; *learn: 1 + st_dev where its
 * kind is not known yet (NULL: not asked). */
static enum rl_fs rl_fs_of(const struct stat *st, unsigned long long *learn)
{
	unsigned long long dev = (unsigned long long)st->st_dev + 1, k;
	bool sock = S_ISSOCK(st->st_mode);

	if (!sock && !S_ISFIFO(st->st_mode))
		return RL_FS_ANY;
	if (!(k = atomic_load_explicit(rl_fs_known(sock), memory_order_relaxed))) {
		if (learn)
			*learn = dev;
		return RL_FS_ANY;
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

void rl_fs_learnt(bool sock, unsigned long long dev, unsigned long ino, const char *ans, long n)
{
#ifdef FP_LINUX
	char want[48];
	size_t len = rl_format(want, sizeof want, sock ? "socket:[" : "pipe:[", ino);
	unsigned long long none = 0;

	if (n == (long)len && memcmp(ans, want, len) == 0)
		(void)atomic_compare_exchange_strong(rl_fs_known(sock), &none, dev);
#else
	/* rl_linux asks to learn on Linux only. */
	(void)sock, (void)dev, (void)ino, (void)ans, (void)n;
#endif
}

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
enum rl_act rl_linux(const struct rl_path *x, const char *root, unsigned long *ino, mode_t *type,
                     unsigned long long *learn)
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
	return rl_decide(RL_LINUX, x->dir, st.st_mode, rl_fs_of(&st, learn));
#else
	/* Only Linux's /proc/<pid>/fd links name sockets after sockfs. */
	(void)x, (void)root, (void)ino, (void)type, (void)learn;
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

/* On Linux under the test policy: is this FIFO a pipefs pipe?  link
 * (under dirfd; NULL: none): its /proc fd link, asked of the kernel
 * itself where pipefs is not known yet (a test's preload after us may
 * answer the program's call). */
static bool rl_pipefs(const struct stat *st, int dirfd, const char *link)
{
#ifdef FP_LINUX
	unsigned long long learn = 0;
	char ans[48];
	long n;
	int saved = errno;

	if (!S_ISFIFO(st->st_mode))
		return false;
	if (rl_fs_of(st, &learn) == RL_FS_PIPEFS)
		return true;
	if (!learn || !link)
		return false;
	n = (long)fp_raw_readlinkat(dirfd, link, ans, sizeof ans);
	errno = saved;
	rl_fs_learnt(false, learn, (unsigned long)st->st_ino, ans, n);
	return rl_fs_of(st, NULL) == RL_FS_PIPEFS;
#else
	(void)st, (void)dirfd, (void)link;
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
	bool self = x->who == RL_SELF || x->pid == rl_getpid();

	/* "<root>/<pid>/" + "fd/<n>": shorter than the path itself.  A root
	 * too long for a small frame (a test's) is the kernel's. */
	if (x->dir_off + sizeof "fd/-2147483648" <= sizeof fdpath) {
		memcpy(fdpath, path, x->dir_off);
		b.len = x->dir_off;
		fp_buf_str(&b, "fd/");
		fp_buf_long(&b, x->fd);
	} else if (!self) {
		return RL_PASS;
	}
	if (self)
		/* A number fastpath holds is closed, as to the program. */
		r = FP_FD_HELD(x->fd) ? (errno = EBADF, -1) : fp_fstat(x->fd, &st);
	else
		r = fp_stat(fdpath, &st);
	if (r != 0)
		return RL_PASS;
	return rl_illumos_type(&st, rl_pipefs(&st, AT_FDCWD, b.len ? fdpath : NULL), type);
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
	return rl_illumos_type(&st, rl_pipefs(&st, dirfd, rel), type);
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
