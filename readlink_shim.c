/* SPDX-License-Identifier: MIT */
/*
 * readlink_shim.c: answer readlink of /proc socket, door, pipe and port
 * fds without the slow kernel path, with the answer the kernel would give.
 *
 * illumos (pfiles on 1000 sockets took 45 s): readlink of
 * /proc/<pid>/path/<n> resolves the fd's own vnode (prvnops.c:
 * pr_lookup_pathdir keeps f_vnode, prreadlink_lookup calls vnodetopath).
 * Before Joyent's 2015 change, vnodetopath_common (fs/lookup.c) gave every
 * non-directory vnode without a usable cached path (v_path) to
 * dnlc_reverse_lookup, a walk of the whole name cache, then ENOENT; since,
 * ENOENT at once.  Sockets, unnamed doors, anonymous pipes and event ports
 * never have a v_path (rl_rules[] says why for each).  We learn the type
 * from stat("/proc/<pid>/fd/<n>") (fstat(n) for our own process) and give
 * that ENOENT ourselves.  A door fattach()ed on a file and a named FIFO have
 * a name, which the kernel answers: those pass through.
 *
 * Linux: the kernel's answer is cheap, so we only take the calls we can
 * make cheaper: our own socket and pipe fds, answered from one fstat() as
 * "socket:[<ino>]" / "pipe:[<ino>]" (what sockfs and pipefs d_dname print).
 *
 * Everything else (odd paths, other processes, unknown types, named FIFOs,
 * O_PATH fds of socket files, NULL, sizes the kernel rejects) goes to the
 * real call, which decides the errno.
 */
#include "fastpath.h"
#include "readlink.h"
#include "cpus.h"

/* The mitigation's table of real functions (readlink.h). */
#define FP_REAL_TAG readlink
FP_REAL_DEFINE(RL_REAL_ALL); // NOLINT(misc-unused-parameters): a stand-in may ignore some
#undef FP_REAL_TAG
#ifdef FP_VALGRIND_ANNOTATE
#include <valgrind/helgrind.h>
#endif

#ifdef FP_LINUX
#include <sys/mount.h>
#include <sys/vfs.h>
#endif

enum { RL_C_CALLS, RL_C_SHORT, RL_NCOUNTERS };
static struct fp_stripe rl_counters[FP_STRIPES];
#define rl_count(c) fp_count(rl_counters, RL_C_##c)

/* Test aids, ignored in secure-execution mode: another /proc root and
 * another readlink policy, to exercise the illumos layout on Linux. */
static char rl_test_proc_root[PATH_MAX];
static char rl_test_policy[16];
static bool rl_test_set FP_STARTUP_DATA;

/* ------------------------------------------------------------------------
 * The decision: a table, the same code on every platform.
 * ---------------------------------------------------------------------- */
enum rl_policy { RL_LINUX, RL_ILLUMOS };
enum rl_fs { RL_FS_ANY, RL_FS_SOCKFS, RL_FS_PIPEFS, RL_FS_DOORFS, RL_FS_FIFOFS };
enum rl_act { RL_PASS, RL_ENOENT, RL_SOCKET, RL_PIPE };

static const struct {
	enum rl_policy policy;
	enum rl_dir dir;
	mode_t type;
	enum rl_fs fs;   /* the file must live there (ANY: anywhere) */
	enum rl_act act;
} rl_rules[] = {
	/*
	 * illumos: no v_path, so the kernel would scan, then say ENOENT.  A
	 * stat of /proc/<pid>/fd/<n> is the fd vnode's own getattr (prvnops.c:
	 * pr_lookup_fddir keeps f_vnode, prgetattr asks it and zeroes only the
	 * permission bits of a non-regular file), as fstat(n) is.
	 *  - Socket: a sockfs node from socket()/accept(), never looked up by
	 *    name (a bound AF_UNIX socket's file is another vnode).
	 *  - Door: node id 0 on doorfs (door_vnops.c, door_getattr); one
	 *    fattach()ed on a file is a named namefs node, node id >= 1
	 *    (namevfs.c, nm_mount): passes.
	 *  - FIFO: a pipe() end shadows no vnode and says nlink 0 (fifosubr.c,
	 *    makepipe; fifovnops.c, fifo_getattr); a named FIFO shows its
	 *    file's attributes (nlink >= 1), a pipe opened by its fattach()
	 *    name is a namefs node of nlink 1: both pass.  A named FIFO
	 *    unlinked says nlink 0 and has no name left: its stale path no
	 *    longer resolves and the name cache holds the file's vnode, not
	 *    the fifonode: ENOENT either way.
	 *  - Event port: S_IFPORT, node id 0 (port_vnops.c, port_getattr);
	 *    nm_mount refuses to fattach a VPORT.
	 * Passed through: an unlinked regular file (nlink 0 is not proven to
	 * mean "no name" on every file system: a device without a shadowed
	 * vnode may say 0 and have one), directories (dirtopath walks ".."),
	 * devices, /proc files.
	 */
	{ RL_ILLUMOS, RL_DIR_PATH, S_IFSOCK, RL_FS_ANY, RL_ENOENT },
	{ RL_ILLUMOS, RL_DIR_PATH, S_IFDOOR, RL_FS_DOORFS, RL_ENOENT },
	{ RL_ILLUMOS, RL_DIR_PATH, S_IFIFO, RL_FS_FIFOFS, RL_ENOENT },
	{ RL_ILLUMOS, RL_DIR_PATH, S_IFPORT, RL_FS_ANY, RL_ENOENT },
	/* Linux: sockfs and pipefs name their dentries "<fs>:[<ino>]".  A
	 * socket or FIFO elsewhere (an O_PATH fd of a socket file, a named
	 * FIFO) is answered with its path: that stays the kernel's job. */
	{ RL_LINUX, RL_DIR_FD, S_IFSOCK, RL_FS_SOCKFS, RL_SOCKET },
	{ RL_LINUX, RL_DIR_FD, S_IFIFO, RL_FS_PIPEFS, RL_PIPE },
};

static enum rl_act rl_decide(enum rl_policy policy, enum rl_dir dir,
                                   mode_t mode, enum rl_fs fs)
{
	size_t i;

	for (i = 0; i < sizeof rl_rules / sizeof rl_rules[0]; i++)
		if (rl_rules[i].policy == policy && rl_rules[i].dir == dir &&
		    rl_rules[i].type == (mode & S_IFMT) &&
		    (rl_rules[i].fs == RL_FS_ANY || rl_rules[i].fs == fs))
			return rl_rules[i].act;
	return RL_PASS;
}

/* readlink's contract for an answer of len bytes: no NUL, at most bufsiz
 * bytes, the count copied; the kernel takes the size as an int and refuses
 * one that is not positive. */
static ssize_t rl_copy(const char *ans, size_t len, char *buf, size_t bufsiz)
{
	int kb = (int)bufsiz;

	if (kb <= 0) {
		errno = EINVAL;
		return -1;
	}
	if (len > (size_t)kb)
		len = (size_t)kb;
	memcpy(buf, ans, len);
	return (ssize_t)len;
}

/* "<prefix><ino>]" without stdio; returns the length. */
static size_t rl_format(char *out, size_t cap, const char *prefix, unsigned long ino)
{
	struct fp_buf b = { out, 0, cap };

	fp_buf_str(&b, prefix);
	fp_buf_ulong(&b, ino);
	fp_buf_str(&b, "]");
	return b.len;
}

/* ------------------------------------------------------------------------
 * What the decision needs to know, learnt as cheaply as possible.
 * ---------------------------------------------------------------------- */
static enum rl_policy rl_policy(void)
{
	if (fp_unlikely(rl_test_policy[0])) {
		if (strcmp(rl_test_policy, "illumos") == 0)
			return RL_ILLUMOS;
		if (strcmp(rl_test_policy, "linux") == 0)
			return RL_LINUX;
	}
#ifdef FP_ILLUMOS
	return RL_ILLUMOS;
#else
	return RL_LINUX;
#endif
}

static void rl_root(const char **root, size_t *len)
{
	if (fp_likely(!rl_test_proc_root[0])) {
		*root = "/proc";
		*len = 5;
		return;
	}
	*root = rl_test_proc_root;
	*len = strlen(*root);
	while (*len > 0 && (*root)[*len - 1] == '/')
		--*len;
}

/* Our pid for the illumos policy, which asks on every /proc/<pid>/path
 * call: 0 until known, cleared in a fork child. */
static _Atomic int rl_pid_cache;

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

/* 0 unknown, else 1 + st_dev of the one sockfs / pipefs superblock, learnt
 * from fstatfs() the first time a socket / FIFO is seen. */
static _Atomic unsigned long long rl_sockfs_dev, rl_pipefs_dev;
/* 0 unknown, 1 the proc root is procfs, 2 it is not (no /proc mounted in
 * this chroot or container: the kernel would say ENOENT, so must we). */
static _Atomic int rl_procfs;

/* By fstatfs(fd), or statfs(path) when path is set; with neither, from
 * what is already known only. */
static enum rl_fs rl_fs_of(int fd, const char *path, const struct stat *st)
{
	_Atomic unsigned long long *known;
	unsigned long long dev = (unsigned long long)st->st_dev + 1, k;
	long magic;
	enum rl_fs fs;
	struct statfs sf;

	if (S_ISSOCK(st->st_mode)) {
		known = &rl_sockfs_dev, magic = SOCKFS_MAGIC, fs = RL_FS_SOCKFS;
	} else if (S_ISFIFO(st->st_mode)) {
		known = &rl_pipefs_dev, magic = PIPEFS_MAGIC, fs = RL_FS_PIPEFS;
	} else {
		return RL_FS_ANY;
	}
	k = atomic_load_explicit(known, memory_order_relaxed);
	if (k)
		return k == dev ? fs : RL_FS_ANY;
	if ((!path && fd < 0) || (path ? statfs(path, &sf) : fstatfs(fd, &sf)) != 0 ||
	    (long)sf.f_type != magic)
		return RL_FS_ANY;
	atomic_store_explicit(known, dev, memory_order_relaxed);
	return fs;
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

static void rl_atfork_child(void)
{
	atomic_store_explicit(&rl_pid_cache, 0, memory_order_relaxed);
#ifdef FP_LINUX
	rl_me.pid = 0;
#endif
}

FP_STARTUP_TEXT static void rl_init(void)
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
static enum rl_act rl_linux(const struct rl_path *x, const char *root,
                                  unsigned long *ino, mode_t *type)
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
	return rl_decide(RL_LINUX, x->dir, st.st_mode, rl_fs_of(x->fd, NULL, &st));
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

/* On Linux under the test policy: is this FIFO a pipefs pipe?  Asked only
 * of FIFOs; by fd, by path, or (neither) from what is known. */
static bool rl_pipefs(const struct stat *st, int fd, const char *path)
{
#ifdef FP_LINUX
	return S_ISFIFO(st->st_mode) && rl_fs_of(fd, path, st) == RL_FS_PIPEFS;
#else
	(void)st, (void)fd, (void)path;
	return false;
#endif
}

static enum rl_act rl_illumos(const struct rl_path *x, const char *path, mode_t *type)
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
	/* fdpath was built (b.len) when the stat was by name. */
	return rl_illumos_type(&st, rl_pipefs(&st, b.len ? -1 : x->fd, b.len ? fdpath : NULL),
	                       type);
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
static enum rl_act rl_illumos_at(int dirfd, const char *name, const char *root,
                                       bool *seen, mode_t *type)
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
	return rl_illumos_type(&st, rl_pipefs(&st, -1, NULL), type);
}

static void rl_debug(const char *path, const char *ans)
{
	char what[96];
	struct fp_buf b = { what, 0, sizeof what };

	if (!fp_cfg.debug)
		return;
	fp_buf_str(&b, "answered ");
	if (ans) {
		fp_buf_str(&b, "\"");
		fp_buf_str(&b, ans);  /* NUL-terminated by rl_format */
		fp_buf_str(&b, "\" from fstat");
	} else {
		fp_buf_str(&b, "ENOENT (no cached path: socket, unnamed door, pipe or port; "
		               "no kernel name-cache scan)");
	}
	fp_debug("readlink", path, what);
}

/* ------------------------------------------------------------------------
 * Survey (FASTPATH_SURVEY): the /proc fd-link readlinks, by what the link
 * names; those we would have answered, with the native time they took; and
 * the time of the stat we would have made instead, so that the saving is
 * estimated on this machine.
 * ---------------------------------------------------------------------- */
enum { RL_S_SOCKET, RL_S_DOOR, RL_S_PIPE, RL_S_OTHER, RL_S_NS, RL_S_SHORT, RL_S_SHORT_NS,
       RL_S_STAT, RL_S_STAT_NS, RL_NSURVEY };
static const char *const rl_sv_keys[RL_NSURVEY] = {
	"readlink.socket", "readlink.door", "readlink.pipe", "readlink.other", "readlink.ns",
	"readlink.short", "readlink.short_ns", "readlink.stat", "readlink.stat_ns",
};
static _Atomic unsigned long rl_sv_c[RL_NSURVEY];
static const struct fp_survey rl_sv = { rl_sv_c, rl_sv_keys, RL_NSURVEY, NULL };

/* What one surveyed call was: filled by rl_short, finished by rl_sv_done. */
struct rl_sv_call {
	enum rl_act act;
	mode_t type;
	uint64_t t0;
};

static void rl_sv_done(const struct rl_sv_call *sv)
{
	uint64_t now = fp_now_ns(), ns = now - sv->t0;
	unsigned k = sv->type == S_IFSOCK ? RL_S_SOCKET : FP_S_ISDOOR(sv->type) ? RL_S_DOOR :
	             sv->type == S_IFIFO ? RL_S_PIPE : RL_S_OTHER;

	fp_sv_add(&rl_sv, k, 1);
	fp_sv_add(&rl_sv, RL_S_NS, ns);
	if (sv->act != RL_PASS) {
		fp_sv_add(&rl_sv, RL_S_SHORT, 1);
		fp_sv_add(&rl_sv, RL_S_SHORT_NS, ns);
	}
	fp_survey_tick(now);
}

/*
 * 1 when the call was answered here (*ret and errno set as readlink would),
 * 0 when it must go to the real function.  errno is untouched on the way
 * to the real call, whatever our probes did.  In survey mode, 2: the call
 * is one to survey; *sv says what we would have done (the stat made to
 * decide is timed as the sample of our cost), and the caller makes the
 * real call and passes sv to rl_sv_done.
 */
static int rl_short(int dirfd, const char *path, char *buf, size_t bufsiz,
                       ssize_t *ret, struct rl_sv_call *sv)
{
	struct rl_path x;
	const char *root;
	size_t rootlen;
	enum rl_policy policy;
	enum rl_act act;
	unsigned long ino = 0;
	mode_t type = 0;
	char ans[48];
	size_t len;
	int saved;
	bool survey = false;
	uint64_t t0 = 0;

	if (!path)
		return 0;
	if (!fp_enabled(FP_BIT(readlink))) {
		if (fp_likely(!fp_surveying()))
			return 0;
		survey = true;
	}
	rl_root(&root, &rootlen);
	policy = rl_policy();
	/* Sizes the C library or the kernel refuse, and a NULL buffer, are
	 * theirs to answer (musl, for one, accepts a size of 0). */
	if (path[0] != '/') {
		bool seen = false;

		if (dirfd == FP_AT_FDCWD || policy != RL_ILLUMOS || path[0] < '0' ||
		    path[0] > '9' || !buf || bufsiz == 0 || bufsiz > INT_MAX)
			return 0;
		saved = errno;
		if (survey)
			t0 = fp_now_ns();
		act = rl_illumos_at(dirfd, path, root, &seen, &type);
		if (!seen)
			survey = false;
		if (seen && !survey)
			rl_count(CALLS);
	} else {
		if (rl_parse(path, root, rootlen, &x) != 0)
			return 0;
		if (!survey)
			rl_count(CALLS);
		if (!buf || bufsiz == 0 || bufsiz > INT_MAX)
			return 0;
		saved = errno;
		if (survey)
			t0 = fp_now_ns();
		if (policy == RL_ILLUMOS)
			act = rl_illumos(&x, path, &type);
		else
			act = rl_linux(&x, root, &ino, &type);
	}
	errno = saved;
	if (survey) {
		uint64_t now = fp_now_ns();

		fp_sv_add(&rl_sv, RL_S_STAT, 1);
		fp_sv_add(&rl_sv, RL_S_STAT_NS, now - t0);
		sv->act = act;
		sv->type = type;
		sv->t0 = now;
		return 2;
	}
	switch (act) {
	case RL_ENOENT:
		rl_count(SHORT);
		rl_debug(path, NULL);
		errno = ENOENT;
		*ret = -1;
		return 1;
	case RL_SOCKET:
	case RL_PIPE:
		rl_count(SHORT);
		len = rl_format(ans, sizeof ans, act == RL_SOCKET ? "socket:[" : "pipe:[", ino);
		rl_debug(path, ans);
		*ret = rl_copy(ans, len, buf, bufsiz);
		return 1;
	case RL_PASS:
		break;
	}
	return 0;
}

/* An absolute path outside the proc root is never ours: told apart before
 * rl_short's frame is set up, so that the common call (a symlink of the
 * program's own) costs a compare and a tail call to libc's. */
static inline bool rl_elsewhere(const char *path)
{
	/* Off: the path is never read (an invalid one is the kernel's
	 * EFAULT); NULL is, on either side. */
	if (!fp_enabled(FP_BIT(readlink)) && fp_likely(!fp_surveying()))
		return true;
	path = fp_opaque(path);
	/* A byte at a time, up to the first that differs (no call; and no
	 * libc symbol newer than the floor's). */
	return fp_likely(path != NULL && path[0] == '/' && !rl_test_proc_root[0]) &&
	       !(path[1] == 'p' && path[2] == 'r' && path[3] == 'o' && path[4] == 'c' &&
	         path[5] == '/');
}

/* ------------------------------------------------------------------------
 * Entry points.  readlink and readlinkat, and their fortified twins, are
 * written once; a size larger than the buffer is glibc's to abort on (the
 * _chk forms pass it on), as it would.
 * ---------------------------------------------------------------------- */
#define RL_WRAP(name, params, dirfd, len, ok, ...)                         \
	FP_EXPORT ssize_t name params                                        \
	{                                                                    \
		struct rl_sv_call sv_;                                       \
		ssize_t r;                                                   \
		int k_;                                                      \
                                                                             \
		if ((ok) && fp_cpus_readlink(dirfd, path, buf, len, &r))    \
			return r;                                            \
		if (!rl_elsewhere(path) && (ok) &&                           \
		    (k_ = rl_short(dirfd, path, buf, len, &r, &sv_)) != 0) { \
			if (fp_likely(k_ == 1))                              \
				return r;                                    \
			r = RL_REAL(name)(__VA_ARGS__);                      \
			int e_ = errno;                                      \
			rl_sv_done(&sv_);                                    \
			errno = e_;                                          \
			return r;                                            \
		}                                                            \
		return RL_REAL(name)(__VA_ARGS__);                           \
	}

RL_WRAP(readlink, (const char *path, char *buf, size_t n), AT_FDCWD, n, true, path, buf, n)
RL_WRAP(readlinkat, (int dirfd, const char *path, char *buf, size_t n), dirfd, n, true,
           dirfd, path, buf, n)
#ifdef FP_HAVE_GLIBC_CHK
RL_WRAP(__readlink_chk, (const char *path, char *buf, size_t n, size_t buflen), AT_FDCWD,
           n, n <= buflen, path, buf, n, buflen)
RL_WRAP(__readlinkat_chk, (int dirfd, const char *path, char *buf, size_t n, size_t buflen),
           dirfd, n, n <= buflen, dirfd, path, buf, n, buflen)
#endif

/* The reset hook: what the proc root is changes under a running program
 * only by its own hand (chroot, a mount or unmount, joining another mount
 * namespace: roots.c), and the next readlink asks again.  A change made by
 * another process in a mount namespace we share stays out of sight: that
 * is a documented limit. */
static void rl_rooted(void)
{
#ifdef FP_LINUX
	atomic_store(&rl_procfs, 0);
	atomic_store(&rl_ns_known, 0);
#endif
}

/* ------------------------------------------------------------------------
 * The descriptor.
 * ---------------------------------------------------------------------- */
FP_STARTUP_TEXT static bool rl_load(fp_getenv_fn get)
{
	const char *v;

	/* Cleared only where a load set them (the unit tests load again): a
	 * page of memory a process that sets neither never touches. */
	if (rl_test_set)
		rl_test_proc_root[0] = rl_test_policy[0] = '\0';
	rl_test_set = false;
	if ((v = get("FASTPATH_TEST_PROC_ROOT")) != NULL) {
		snprintf(rl_test_proc_root, sizeof rl_test_proc_root, "%s", v);
		rl_test_set = true;
	}
	if ((v = get("FASTPATH_TEST_POLICY")) != NULL) {
		snprintf(rl_test_policy, sizeof rl_test_policy, "%s", v);
		rl_test_set = true;
	}
	return true;
}

/* "<n> short-circuited of <n>" */
static void rl_stats(struct fp_buf *b, const unsigned long *c)
{
	fp_buf_ulong(b, c[RL_C_SHORT]);
	fp_buf_str(b, " short-circuited of ");
	fp_buf_ulong(b, c[RL_C_CALLS]);
}

FP_MITIGATION(readlink, FP_REAL_SYMS(readlink), .load = rl_load, .stats = rl_stats, .counters = rl_counters,
              .ncounters = RL_NCOUNTERS, .survey = &rl_sv, .init = rl_init, .child = rl_atfork_child,
              .rooted = rl_rooted);
