/* SPDX-License-Identifier: MIT */
/*
 * readlink.h: what readlink_shim.c (the rule table and the entry points),
 * readlink_classify.c (what a link names, learnt) and readlink_path.c (the
 * parser) share.
 */
#ifndef READLINK_H
#define READLINK_H

/* S_IFDOOR exists only on illumos; the readlink policy is table-driven and
 * unit-tested on Linux too, so the constant is known everywhere. */
#ifndef S_IFDOOR
#  define S_IFDOOR 0xD000
#endif
#define FP_S_ISDOOR(m) (((m) & S_IFMT) == S_IFDOOR)
/* An illumos event port (port_create(3C)): S_IFPORT, 0xE000 in illumos's
 * <sys/stat.h>; known everywhere for the same reason. */
#ifndef S_IFPORT
#  define S_IFPORT 0xE000
#endif

/* ------------------------------------------------------------------------
 * The C library functions the readlink mitigation wraps (the core binds
 * them: fp_real.h, FP_REAL_DECLARE), reached through RL_REAL() as the
 * core's through FP_REAL().  A call the C library makes while we bind is
 * the system call ("Not ready yet", fp_real.h).
 * ---------------------------------------------------------------------- */
#define RL_REAL_COMMON(X)                                                                     \
	X(ssize_t, readlink, (const char *path, char *buf, size_t n),                            \
	  FP_NR_DO(fp_raw_readlinkat(AT_FDCWD, path, buf, n)))                                   \
	X(ssize_t, readlinkat, (int dirfd, const char *path, char *buf, size_t n),               \
	  FP_NR_DO(fp_raw_readlinkat(dirfd, path, buf, n)))
#ifdef FP_HAVE_GLIBC_CHK
#define RL_REAL_CHK(X)                                                                        \
	X(ssize_t, __readlink_chk, (const char *path, char *buf, size_t len, size_t buflen),     \
	  FP_NR_READLINK_CHK(AT_FDCWD))                                                          \
	X(ssize_t, __readlinkat_chk,                                                             \
	  (int dirfd, const char *path, char *buf, size_t len, size_t buflen),                   \
	  FP_NR_READLINK_CHK(dirfd))
#else
#define RL_REAL_CHK(X)
#endif
#define RL_REAL_ALL(X) RL_REAL_COMMON(X) RL_REAL_CHK(X)
FP_REAL_DECLARE(readlink, RL_REAL_ALL);
#define RL_REAL(name) FP_REAL_LAZY(fp_real_readlink.r_##name, FP_BIT(readlink))
#define RL_REALP(name) FP_REAL_LAZY_P(fp_real_readlink.r_##name, FP_BIT(readlink))

/* ------------------------------------------------------------------------
 * A parsed name: <root>/<who>[/task/<tid>]/<fd|path>/<n>, nothing else.
 * ---------------------------------------------------------------------- */
enum rl_who { RL_PID, RL_SELF, RL_THREAD_SELF };
enum rl_dir { RL_DIR_FD, RL_DIR_PATH };

struct rl_path {
	enum rl_who who;
	int pid;              /* RL_PID only */
	int tid;              /* task/<tid>, 0 when absent */
	enum rl_dir dir;
	int fd;
	size_t dir_off;       /* where "fd" or "path" starts in the string */
};

/* 0 and *out filled when path is exactly such a name under root (root
 * without a trailing slash); -1 for anything else, NULL included.  A pure
 * function, fuzzed on its own (fuzz/readlink_fuzz.c). */
int rl_parse(const char *path, const char *root, size_t rootlen, struct rl_path *out) FP_HIDDEN;

/* A /proc name number, as the kernel's name_to_int() reads it: digits only,
 * no leading zero (except "0" itself), at most INT_MAX.  Returns the end,
 * or NULL. */
const char *rl_num(const char *s, int *out) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The decision (readlink_shim.c: the rule table, rl_rules[]) and what it
 * needs to know (readlink_classify.c).
 * ---------------------------------------------------------------------- */
enum rl_policy { RL_LINUX, RL_ILLUMOS };
enum rl_fs { RL_FS_ANY, RL_FS_SOCKFS, RL_FS_PIPEFS, RL_FS_DOORFS, RL_FS_FIFOFS };
enum rl_act { RL_PASS, RL_ENOENT, RL_SOCKET, RL_PIPE };
/* The first rule that matches, or RL_PASS. */
enum rl_act rl_decide(enum rl_policy policy, enum rl_dir dir, mode_t mode, enum rl_fs fs) FP_HIDDEN;
/* The two policies: the action, and for an answer the inode; *type the
 * descriptor's file type, for the survey.  rl_illumos_at: a readlinkat of
 * "<n>" under a directory descriptor, *seen when it is a /proc/<pid>/path. */
enum rl_act rl_linux(const struct rl_path *x, const char *root, unsigned long *ino,
                     mode_t *type, unsigned long long *learn) FP_HIDDEN;
/* rl_linux's *learn (1 + the device of a socket or FIFO whose kind is
 * not known yet): the kind's device where the kernel's answer (ans, n
 * bytes, its real call's) names inode ino as it names that kind's. */
void rl_fs_learnt(bool sock, unsigned long long learn, unsigned long ino, const char *ans, long n)
	FP_HIDDEN;
/* "<prefix><ino>]" without stdio; its length. */
size_t rl_format(char *out, size_t cap, const char *prefix, unsigned long ino) FP_HIDDEN;
enum rl_act rl_illumos(const struct rl_path *x, const char *path, mode_t *type) FP_HIDDEN;
enum rl_act rl_illumos_at(int dirfd, const char *name, const char *root, bool *seen,
                          mode_t *type) FP_HIDDEN;
/* The descriptor's hooks for what is learnt: valgrind's annotations at
 * start-up, a fork child's ids forgotten, a changed proc root asked again. */
void rl_init(void) FP_HIDDEN;
void rl_atfork_child(void) FP_HIDDEN;
void rl_rooted(void) FP_HIDDEN;

#endif /* READLINK_H */
