/*
 * readlink_shim.c: answer readlink of /proc socket, door and pipe fds
 * without the slow kernel path, with the answer the kernel would give.
 *
 * illumos (the seed: pfiles on 1000 sockets, 45 s): readlink of
 * /proc/<pid>/path/<n> for a socket or an unnamed door has no v_path, so
 * the kernel scans the whole name cache before failing with ENOENT.  We
 * learn the type from stat("/proc/<pid>/fd/<n>") (fstat(n) for our own
 * process) and give that ENOENT ourselves.  A door fattach()ed on a file
 * has a name, which the kernel answers: that passes through.
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
#ifdef FP_VALGRIND_ANNOTATE
#include <valgrind/helgrind.h>
#endif

#ifdef FP_LINUX
#include <sys/mount.h>
#include <sys/vfs.h>
#endif

/* ------------------------------------------------------------------------
 * The parser: <root>/<who>[/task/<tid>]/<fd|path>/<n>, nothing else.
 * ---------------------------------------------------------------------- */
enum fp_rl_who { FP_RL_PID, FP_RL_SELF, FP_RL_THREAD_SELF };
enum fp_rl_dir { FP_RL_DIR_FD, FP_RL_DIR_PATH };

struct fp_rl_path {
	enum fp_rl_who who;
	int pid;              /* FP_RL_PID only */
	int tid;              /* task/<tid>, 0 when absent */
	enum fp_rl_dir dir;
	int fd;
	size_t dir_off;       /* where "fd" or "path" starts in the string */
};

/* A /proc name number, as the kernel's name_to_int() reads it: digits only,
 * no leading zero (except "0" itself), at most INT_MAX.  Returns the end. */
static const char *fp_rl_num(const char *s, int *out)
{
	unsigned long v = 0;
	const char *p = s;

	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return NULL;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > INT_MAX)
			return NULL;
		p++;
	}
	if (p == s)
		return NULL;
	*out = (int)v;
	return p;
}

/* s starts with word followed by '/'?  Returns what follows.  By hand, not
 * strncmp: every unrelated /proc readlink pays for these, and the library
 * call costs more than the few bytes compared. */
static inline const char *fp_rl_word(const char *s, const char *word, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != word[i])
			return NULL;
	return s[n] == '/' ? s + n + 1 : NULL;
}

/* 0 and *out filled when path is exactly such a name under root (root
 * without a trailing slash); -1 for anything else. */
static int fp_rl_parse(const char *path, const char *root, size_t rootlen,
                       struct fp_rl_path *out)
{
	const char *p, *q;

	if (!path || !(p = fp_rl_word(path, root, rootlen)))
		return -1;
	out->tid = 0;
	out->pid = 0;
	if ((q = fp_rl_word(p, "self", 4)) != NULL) {
		out->who = FP_RL_SELF;
	} else if ((q = fp_rl_word(p, "thread-self", 11)) != NULL) {
		out->who = FP_RL_THREAD_SELF;
	} else {
		out->who = FP_RL_PID;
		if (!(q = fp_rl_num(p, &out->pid)) || out->pid == 0 || *q++ != '/')
			return -1;
	}
	p = q;
	if (out->who != FP_RL_THREAD_SELF && (q = fp_rl_word(p, "task", 4)) != NULL) {
		if (!(p = fp_rl_num(q, &out->tid)) || out->tid == 0 || *p++ != '/')
			return -1;
	}
	out->dir_off = (size_t)(p - path);
	if ((q = fp_rl_word(p, "fd", 2)) != NULL)
		out->dir = FP_RL_DIR_FD;
	else if ((q = fp_rl_word(p, "path", 4)) != NULL)
		out->dir = FP_RL_DIR_PATH;
	else
		return -1;
	if (!(p = fp_rl_num(q, &out->fd)) || *p != '\0')
		return -1;
	/* Only a long root could get here with a name the kernel refuses. */
	if ((size_t)(p - path) >= PATH_MAX)
		return -1;
	return 0;
}

#ifdef FP_RL_TESTING
/* The inverse of fp_rl_parse, for the tests' round-trip property. */
static void fp_rl_unparse(const struct fp_rl_path *x, const char *root, char *buf,
                          size_t len)
{
	char who[16], task[32] = "";

	if (x->who == FP_RL_SELF)
		snprintf(who, sizeof who, "self");
	else if (x->who == FP_RL_THREAD_SELF)
		snprintf(who, sizeof who, "thread-self");
	else
		snprintf(who, sizeof who, "%d", x->pid);
	if (x->tid)
		snprintf(task, sizeof task, "/task/%d", x->tid);
	snprintf(buf, len, "%s/%s%s/%s/%d", root, who, task,
	         x->dir == FP_RL_DIR_FD ? "fd" : "path", x->fd);
}
#endif

/* ------------------------------------------------------------------------
 * The decision: a table, the same code on every platform.
 * ---------------------------------------------------------------------- */
enum fp_rl_policy { FP_RL_LINUX, FP_RL_ILLUMOS };
enum fp_rl_fs { FP_RL_FS_ANY, FP_RL_FS_SOCKFS, FP_RL_FS_PIPEFS, FP_RL_FS_DOORFS };
enum fp_rl_act { FP_RL_PASS, FP_RL_ENOENT, FP_RL_SOCKET, FP_RL_PIPE };

static const struct {
	enum fp_rl_policy policy;
	enum fp_rl_dir dir;
	mode_t type;
	enum fp_rl_fs fs;   /* the file must live there (ANY: anywhere) */
	enum fp_rl_act act;
} fp_rl_rules[] = {
	/* illumos: no v_path, so the kernel would scan, then say ENOENT.  A
	 * door on namefs (fattach()ed on a file) has a name: the kernel's. */
	{ FP_RL_ILLUMOS, FP_RL_DIR_PATH, S_IFSOCK, FP_RL_FS_ANY, FP_RL_ENOENT },
	{ FP_RL_ILLUMOS, FP_RL_DIR_PATH, S_IFDOOR, FP_RL_FS_DOORFS, FP_RL_ENOENT },
	/* Linux: sockfs and pipefs name their dentries "<fs>:[<ino>]".  A
	 * socket or FIFO elsewhere (an O_PATH fd of a socket file, a named
	 * FIFO) is answered with its path: that stays the kernel's job. */
	{ FP_RL_LINUX, FP_RL_DIR_FD, S_IFSOCK, FP_RL_FS_SOCKFS, FP_RL_SOCKET },
	{ FP_RL_LINUX, FP_RL_DIR_FD, S_IFIFO, FP_RL_FS_PIPEFS, FP_RL_PIPE },
};

static enum fp_rl_act fp_rl_decide(enum fp_rl_policy policy, enum fp_rl_dir dir,
                                   mode_t mode, enum fp_rl_fs fs)
{
	size_t i;

	for (i = 0; i < sizeof fp_rl_rules / sizeof fp_rl_rules[0]; i++)
		if (fp_rl_rules[i].policy == policy && fp_rl_rules[i].dir == dir &&
		    fp_rl_rules[i].type == (mode & S_IFMT) &&
		    (fp_rl_rules[i].fs == FP_RL_FS_ANY || fp_rl_rules[i].fs == fs))
			return fp_rl_rules[i].act;
	return FP_RL_PASS;
}

/* readlink's contract for an answer of len bytes: no NUL, at most bufsiz
 * bytes, the count copied; the kernel takes the size as an int and refuses
 * one that is not positive. */
static ssize_t fp_rl_copy(const char *ans, size_t len, char *buf, size_t bufsiz)
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
static size_t fp_rl_format(char *out, size_t cap, const char *prefix, unsigned long ino)
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
static enum fp_rl_policy fp_rl_policy(void)
{
	if (fp_unlikely(fp_cfg.test_policy[0])) {
		if (strcmp(fp_cfg.test_policy, "illumos") == 0)
			return FP_RL_ILLUMOS;
		if (strcmp(fp_cfg.test_policy, "linux") == 0)
			return FP_RL_LINUX;
	}
#ifdef FP_ILLUMOS
	return FP_RL_ILLUMOS;
#else
	return FP_RL_LINUX;
#endif
}

static void fp_rl_root(const char **root, size_t *len)
{
	if (fp_likely(!fp_cfg.test_proc_root[0])) {
		*root = "/proc";
		*len = 5;
		return;
	}
	*root = fp_cfg.test_proc_root;
	*len = strlen(*root);
	while (*len > 0 && (*root)[*len - 1] == '/')
		--*len;
}

/* Our pid for the illumos policy, which asks on every /proc/<pid>/path
 * call: 0 until known, cleared in a fork child. */
static _Atomic int fp_rl_pid_cache;

static int fp_rl_getpid(void)
{
	int pid = atomic_load_explicit(&fp_rl_pid_cache, memory_order_relaxed);

	if (!pid) {
		pid = (int)getpid();
		atomic_store_explicit(&fp_rl_pid_cache, pid, memory_order_relaxed);
	}
	return pid;
}

#ifdef FP_LINUX
#define FP_RL_PROC_MAGIC 0x9fa0
#define FP_RL_SOCKFS_MAGIC 0x534F434B
#define FP_RL_PIPEFS_MAGIC 0x50495045

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
} fp_rl_me;

static void fp_rl_me_load(void)
{
	fp_rl_me.tid = (int)syscall(SYS_gettid);
	/* pid last: a signal handler that interrupts us sees 0 and loads
	 * for itself. */
	atomic_signal_fence(memory_order_release);
	fp_rl_me.pid = (int)getpid();
}


/* Is this name about the caller's own fd table? */
static bool fp_rl_linux_ours(const struct fp_rl_path *x)
{
	int pid;

	if (x->who == FP_RL_THREAD_SELF)
		return true;
	if (x->who == FP_RL_SELF && !x->tid) {
		if (!fp_rl_me.pid)
			fp_rl_me_load();
		return fp_rl_me.pid == fp_rl_me.tid;
	}
	/* Another process's pid costs no system call: the cache can only be
	 * stale in a child made without atfork, and then it names our parent,
	 * which passes through.  A pid that looks like ours is checked. */
	if (!fp_rl_me.pid)
		fp_rl_me_load();
	if (x->who == FP_RL_PID && x->pid != fp_rl_me.pid)
		return false;
	pid = (int)getpid();
	if (fp_rl_me.pid != pid) {
		fp_rl_me_load();
		if (x->who == FP_RL_PID && x->pid != pid)
			return false;
	}
	return x->tid ? x->tid == fp_rl_me.tid : pid == fp_rl_me.tid;
}

/* 0 unknown, else 1 + st_dev of the one sockfs / pipefs superblock, learnt
 * from fstatfs() the first time a socket / FIFO is seen. */
static _Atomic unsigned long long fp_rl_sockfs_dev, fp_rl_pipefs_dev;
/* 0 unknown, 1 the proc root is procfs, 2 it is not (no /proc mounted in
 * this chroot or container: the kernel would say ENOENT, so must we). */
static _Atomic int fp_rl_procfs;

static enum fp_rl_fs fp_rl_fs_of(int fd, const struct stat *st)
{
	_Atomic unsigned long long *known;
	unsigned long long dev = (unsigned long long)st->st_dev + 1, k;
	long magic;
	enum fp_rl_fs fs;
	struct statfs sf;

	if (S_ISSOCK(st->st_mode)) {
		known = &fp_rl_sockfs_dev, magic = FP_RL_SOCKFS_MAGIC, fs = FP_RL_FS_SOCKFS;
	} else if (S_ISFIFO(st->st_mode)) {
		known = &fp_rl_pipefs_dev, magic = FP_RL_PIPEFS_MAGIC, fs = FP_RL_FS_PIPEFS;
	} else {
		return FP_RL_FS_ANY;
	}
	k = atomic_load_explicit(known, memory_order_relaxed);
	if (k)
		return k == dev ? fs : FP_RL_FS_ANY;
	if (fstatfs(fd, &sf) != 0 || (long)sf.f_type != magic)
		return FP_RL_FS_ANY;
	atomic_store_explicit(known, dev, memory_order_relaxed);
	return fs;
}

/*
 * What the proc root is changes under a running program only by its own
 * hand (chroot, a mount or unmount, joining another mount namespace): each
 * of those, once made, forgets what we learnt, and the next readlink asks
 * again.  A change made by another process in a mount namespace we share
 * stays out of sight: that is a documented limit.
 */
#define FP_RL_FORGET(call)                                                   \
	do {                                                                 \
		int r_;                                                      \
		if (fp_unlikely(!fp_ready())) {                              \
			errno = ENOSYS;                                      \
			return -1;                                           \
		}                                                            \
		r_ = (call);                                                 \
		atomic_store(&fp_rl_procfs, 0);                              \
		return r_;                                                   \
	} while (0)

FP_EXPORT int chroot(const char *path)
{
	FP_RL_FORGET(fp_real.r_chroot.f(path));
}

FP_EXPORT int mount(const char *src, const char *dst, const char *type,
                    unsigned long flags, const void *data)
{
	FP_RL_FORGET(fp_real.r_mount.f(src, dst, type, flags, data));
}

FP_EXPORT int umount(const char *dst)
{
	FP_RL_FORGET(fp_real.r_umount.f(dst));
}

FP_EXPORT int umount2(const char *dst, int flags)
{
	FP_RL_FORGET(fp_real.r_umount2.f(dst, flags));
}

FP_EXPORT int setns(int fd, int type)
{
	FP_RL_FORGET(fp_real.r_setns.f(fd, type));
}

static bool fp_rl_root_is_procfs(const char *root)
{
	int v = atomic_load_explicit(&fp_rl_procfs, memory_order_relaxed);
	struct statfs sf;

	if (!v) {
		v = statfs(root, &sf) == 0 && sf.f_type == FP_RL_PROC_MAGIC ? 1 : 2;
		atomic_store_explicit(&fp_rl_procfs, v, memory_order_relaxed);
	}
	return v == 1;
}
#endif /* FP_LINUX */

static void fp_rl_atfork_child(void)
{
	atomic_store_explicit(&fp_rl_pid_cache, 0, memory_order_relaxed);
#ifdef FP_LINUX
	fp_rl_me.pid = 0;
#endif
}

__attribute__((constructor)) static void fp_rl_constructor(void)
{
	pthread_atfork(NULL, NULL, fp_rl_atfork_child);
#ifdef FP_VALGRIND_ANNOTATE
	/* Only for the helgrind/drd build (make check-valgrind): these caches
	 * are relaxed C11 atomics, which the tools see as plain loads and
	 * stores.  Each holds a fact that any thread may learn again. */
	ANNOTATE_BENIGN_RACE_SIZED(&fp_rl_pid_cache, sizeof fp_rl_pid_cache,
	                           "readlink: cached pid, atomic");
#ifdef FP_LINUX
	ANNOTATE_BENIGN_RACE_SIZED(&fp_rl_sockfs_dev, sizeof fp_rl_sockfs_dev,
	                           "readlink: cached sockfs device, atomic");
	ANNOTATE_BENIGN_RACE_SIZED(&fp_rl_pipefs_dev, sizeof fp_rl_pipefs_dev,
	                           "readlink: cached pipefs device, atomic");
	ANNOTATE_BENIGN_RACE_SIZED(&fp_rl_procfs, sizeof fp_rl_procfs,
	                           "readlink: cached proc root answer, atomic");
#endif
#endif
}

/* ------------------------------------------------------------------------
 * The two policies.  Each returns the action, and for an answer the inode.
 * ---------------------------------------------------------------------- */
static enum fp_rl_act fp_rl_linux(const struct fp_rl_path *x, const char *root,
                                  unsigned long *ino)
{
#ifdef FP_LINUX
	struct stat st;

	if (x->dir != FP_RL_DIR_FD || !fp_rl_linux_ours(x) || !fp_rl_root_is_procfs(root) ||
	    fstat(x->fd, &st) != 0)
		return FP_RL_PASS;
	*ino = (unsigned long)st.st_ino;
	return fp_rl_decide(FP_RL_LINUX, x->dir, st.st_mode, fp_rl_fs_of(x->fd, &st));
#else
	/* Only Linux's /proc/<pid>/fd links name sockets after sockfs. */
	(void)x, (void)root, (void)ino;
	return FP_RL_PASS;
#endif
}

/* The unit tests dress fixture files up as doors here: Linux has none. */
#ifndef FP_RL_TEST_DOOR
#define FP_RL_TEST_DOOR(st) ((void)0)
#endif

/*
 * The illumos decision for one stat of the fd.  Which file system a door
 * lives on shows in its node id, at no cost and in every stat we make
 * (fstat, stat, fstatat): an unnamed door (door_create) is a doorfs vnode,
 * whose getattr reports node id 0 (door_vnops.c, door_getattr); a door that
 * fattach() mounted on a file (/var/run/name_service_door) is a namefs
 * vnode, whose node id namenodeno_alloc() takes from an arena that starts
 * at 1 (namevfs.c, nm_mount).  fstatvfs's f_basetype would say the same
 * ("namefs" or a failure on doorfs's empty vfs ops) for one more system
 * call, and only with an open descriptor.
 */
static enum fp_rl_act fp_rl_illumos_type(struct stat *st)
{
	FP_RL_TEST_DOOR(st);
	return fp_rl_decide(FP_RL_ILLUMOS, FP_RL_DIR_PATH, st->st_mode,
	                    FP_S_ISDOOR(st->st_mode) && st->st_ino == 0 ? FP_RL_FS_DOORFS
	                                                                 : FP_RL_FS_ANY);
}

static enum fp_rl_act fp_rl_illumos(const struct fp_rl_path *x, const char *path)
{
	char fdpath[PATH_MAX];
	struct stat st;
	struct fp_buf b = { fdpath, 0, sizeof fdpath };
	int r;

	if (x->dir != FP_RL_DIR_PATH || x->tid || x->who == FP_RL_THREAD_SELF)
		return FP_RL_PASS;
	if (x->who == FP_RL_SELF || x->pid == fp_rl_getpid()) {
		r = fstat(x->fd, &st);
	} else {
		/* "<root>/<pid>/" + "fd/<n>": shorter than the path itself. */
		memcpy(fdpath, path, x->dir_off);
		b.len = x->dir_off;
		fp_buf_str(&b, "fd/");
		fp_buf_long(&b, x->fd);
		r = stat(fdpath, &st);
	}
	if (r != 0)
		return FP_RL_PASS;
	return fp_rl_illumos_type(&st);
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
static enum fp_rl_act fp_rl_illumos_at(int dirfd, const char *name, const char *root,
                                       bool *seen)
{
	struct stat d, e, g, r, st;
	char rel[32];
	struct fp_buf b = { rel, 0, sizeof rel };
	const char *end;
	int fd;

	if (!(end = fp_rl_num(name, &fd)) || *end != '\0')
		return FP_RL_PASS;
	if (fstat(dirfd, &d) != 0 || !S_ISDIR(d.st_mode) ||
	    fstatat(dirfd, "../path", &e, 0) != 0 || e.st_dev != d.st_dev ||
	    e.st_ino != d.st_ino || fstatat(dirfd, "../..", &g, 0) != 0 ||
	    stat(root, &r) != 0 || g.st_dev != r.st_dev || g.st_ino != r.st_ino)
		return FP_RL_PASS;
	*seen = true;
	fp_buf_str(&b, "../fd/");
	fp_buf_long(&b, fd);
	if (fstatat(dirfd, rel, &st, 0) != 0)
		return FP_RL_PASS;
	return fp_rl_illumos_type(&st);
}

static void fp_rl_debug(const char *path, const char *ans)
{
	char what[96];
	struct fp_buf b = { what, 0, sizeof what };

	if (!fp_cfg.debug)
		return;
	fp_buf_str(&b, "answered ");
	if (ans) {
		fp_buf_str(&b, "\"");
		fp_buf_str(&b, ans);  /* NUL-terminated by fp_rl_format */
		fp_buf_str(&b, "\" from fstat");
	} else {
		fp_buf_str(&b, "ENOENT (a socket or unnamed door: no kernel name-cache scan)");
	}
	fp_debug("readlink", path, what);
}

/*
 * 1 when the call was answered here (*ret and errno set as readlink would),
 * 0 when it must go to the real function.  errno is untouched on the way
 * to the real call, whatever our probes did.
 */
static int fp_rl_short(int dirfd, const char *path, char *buf, size_t bufsiz,
                       ssize_t *ret)
{
	struct fp_rl_path x;
	const char *root;
	size_t rootlen;
	enum fp_rl_policy policy;
	enum fp_rl_act act;
	unsigned long ino = 0;
	char ans[48];
	size_t len;
	int saved;

	if (!fp_enabled(FP_F_READLINK) || !path)
		return 0;
	fp_rl_root(&root, &rootlen);
	policy = fp_rl_policy();
	/* Sizes the C library or the kernel refuse, and a NULL buffer, are
	 * theirs to answer (musl, for one, accepts a size of 0). */
	if (path[0] != '/') {
		bool seen = false;

		if (dirfd == AT_FDCWD || policy != FP_RL_ILLUMOS || path[0] < '0' ||
		    path[0] > '9' || !buf || bufsiz == 0 || bufsiz > INT_MAX)
			return 0;
		saved = errno;
		act = fp_rl_illumos_at(dirfd, path, root, &seen);
		if (seen)
			fp_count(FP_C_READLINK_CALLS);
	} else {
		if (fp_rl_parse(path, root, rootlen, &x) != 0)
			return 0;
		fp_count(FP_C_READLINK_CALLS);
		if (!buf || bufsiz == 0 || bufsiz > INT_MAX)
			return 0;
		saved = errno;
		if (policy == FP_RL_ILLUMOS)
			act = fp_rl_illumos(&x, path);
		else
			act = fp_rl_linux(&x, root, &ino);
	}
	errno = saved;
	switch (act) {
	case FP_RL_ENOENT:
		fp_count(FP_C_READLINK_SHORT);
		fp_rl_debug(path, NULL);
		errno = ENOENT;
		*ret = -1;
		return 1;
	case FP_RL_SOCKET:
	case FP_RL_PIPE:
		fp_count(FP_C_READLINK_SHORT);
		len = fp_rl_format(ans, sizeof ans, act == FP_RL_SOCKET ? "socket:[" : "pipe:[", ino);
		fp_rl_debug(path, ans);
		*ret = fp_rl_copy(ans, len, buf, bufsiz);
		return 1;
	case FP_RL_PASS:
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Entry points.
 * ---------------------------------------------------------------------- */
FP_EXPORT ssize_t readlink(const char *path, char *buf, size_t bufsiz)
{
	ssize_t r;

	if (fp_unlikely(!fp_ready()))
		return fp_raw_readlinkat(AT_FDCWD, path, buf, bufsiz);
	if (fp_rl_short(AT_FDCWD, path, buf, bufsiz, &r))
		return r;
	return fp_real.r_readlink.f(path, buf, bufsiz);
}

FP_EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t bufsiz)
{
	ssize_t r;

	if (fp_unlikely(!fp_ready()))
		return fp_raw_readlinkat(dirfd, path, buf, bufsiz);
	if (fp_rl_short(dirfd, path, buf, bufsiz, &r))
		return r;
	return fp_real.r_readlinkat.f(dirfd, path, buf, bufsiz);
}

#ifdef FP_HAVE_GLIBC_CHK
/* A size larger than the buffer is glibc's to abort on, as it would. */
FP_EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	ssize_t r;

	if (fp_unlikely(!fp_ready())) {
		if (len > buflen) {
			errno = ENOSYS;
			return -1;
		}
		return fp_raw_readlinkat(AT_FDCWD, path, buf, len);
	}
	if (len <= buflen && fp_rl_short(AT_FDCWD, path, buf, len, &r))
		return r;
	return fp_real.r___readlink_chk.f(path, buf, len, buflen);
}

FP_EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len,
                                   size_t buflen)
{
	ssize_t r;

	if (fp_unlikely(!fp_ready())) {
		if (len > buflen) {
			errno = ENOSYS;
			return -1;
		}
		return fp_raw_readlinkat(dirfd, path, buf, len);
	}
	if (len <= buflen && fp_rl_short(dirfd, path, buf, len, &r))
		return r;
	return fp_real.r___readlinkat_chk.f(dirfd, path, buf, len, buflen);
}
#endif
