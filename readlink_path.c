/* SPDX-License-Identifier: MIT */
/*
 * readlink_path.c: the readlink mitigation's /proc name parser.  Every
 * readlink of an absolute path under the proc root passes through it, so
 * it is strict and cheap: what it does not accept goes to the real call.
 */
#include "fastpath.h"
#include "readlink.h"

/* See readlink.h. */
const char *rl_num(const char *s, int *out)
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
static inline const char *rl_word(const char *s, const char *word, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != word[i])
			return NULL;
	return s[n] == '/' ? s + n + 1 : NULL;
}

/* See readlink.h. */
int rl_parse(const char *path, const char *root, size_t rootlen, struct rl_path *out)
{
	const char *p, *q;

	if (!path || !(p = rl_word(path, root, rootlen)))
		return -1;
	out->tid = 0;
	out->pid = 0;
	if ((q = rl_word(p, "self", 4)) != NULL) {
		out->who = RL_SELF;
	} else if ((q = rl_word(p, "thread-self", 11)) != NULL) {
		out->who = RL_THREAD_SELF;
	} else {
		out->who = RL_PID;
		if (!(q = rl_num(p, &out->pid)) || out->pid == 0 || *q++ != '/')
			return -1;
	}
	p = q;
	if (out->who != RL_THREAD_SELF && (q = rl_word(p, "task", 4)) != NULL) {
		if (!(p = rl_num(q, &out->tid)) || out->tid == 0 || *p++ != '/')
			return -1;
	}
	out->dir_off = (size_t)(p - path);
	if ((q = rl_word(p, "fd", 2)) != NULL)
		out->dir = RL_DIR_FD;
	else if ((q = rl_word(p, "path", 4)) != NULL)
		out->dir = RL_DIR_PATH;
	else
		return -1;
	if (!(p = rl_num(q, &out->fd)) || *p != '\0')
		return -1;
	/* Only a long root could get here with a name the kernel refuses. */
	if ((size_t)(p - path) >= PATH_MAX)
		return -1;
	return 0;
}

#ifdef RL_TESTING
/* The inverse of rl_parse, for the tests' round-trip property. */
static void rl_unparse(const struct rl_path *x, const char *root, char *buf, size_t len)
{
	char who[16], task[32] = "";

	if (x->who == RL_SELF)
		snprintf(who, sizeof who, "self");
	else if (x->who == RL_THREAD_SELF)
		snprintf(who, sizeof who, "thread-self");
	else
		snprintf(who, sizeof who, "%d", x->pid);
	if (x->tid)
		snprintf(task, sizeof task, "/task/%d", x->tid);
	snprintf(buf, len, "%s/%s%s/%s/%d", root, who, task,
	         x->dir == RL_DIR_FD ? "fd" : "path", x->fd);
}
#endif
