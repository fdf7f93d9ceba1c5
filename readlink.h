/* SPDX-License-Identifier: MIT */
/*
 * readlink.h: what readlink_shim.c (the policy and the entry points) and
 * readlink_path.c (the parser) share.
 */
#ifndef READLINK_H
#define READLINK_H

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

#endif /* READLINK_H */
