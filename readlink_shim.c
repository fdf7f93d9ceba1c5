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

enum rl_act rl_decide(enum rl_policy policy, enum rl_dir dir, mode_t mode, enum rl_fs fs)
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

/* ------------------------------------------------------------------------
 * What the decision runs under: the policy and the proc root (the test
 * aids change them).  The rest it needs to know is readlink_classify.c's.
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

/* What one call made by the real function was: filled by rl_short,
 * finished by rl_after (learnt from, surveyed). */
struct rl_sv_call {
	enum rl_act act;
	mode_t type;
	uint64_t t0;
	unsigned long long learn; /* rl_linux's */
	unsigned long ino;
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
 * decide is timed as the sample of our cost).  3: the real call's answer
 * may teach which device is sockfs's or pipefs's.  For 2 and 3 the
 * caller makes the real call and passes its answer to rl_after.
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
	unsigned long long learn = 0;
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
			act = rl_linux(&x, root, &ino, &type, &learn);
	}
	errno = saved;
	sv->learn = learn;
	sv->ino = ino;
	sv->type = type;
	if (survey) {
		uint64_t now = fp_now_ns();

		fp_sv_add(&rl_sv, RL_S_STAT, 1);
		fp_sv_add(&rl_sv, RL_S_STAT_NS, now - t0);
		sv->act = act;
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
	return learn ? 3 : 0;
}

/* After the real call that rl_short's 2 or 3 asked for (r its result,
 * buf its answer). */
static void rl_after(const struct rl_sv_call *sv, int k, const char *buf, ssize_t r)
{
	if (sv->learn)
		rl_fs_learnt(sv->type == S_IFSOCK, sv->learn, sv->ino, buf, (long)r);
	if (k == 2)
		rl_sv_done(sv);
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
			rl_after(&sv_, k_, buf, r);                          \
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
