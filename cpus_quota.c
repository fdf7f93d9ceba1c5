/* SPDX-License-Identifier: MIT */
/*
 * cpus_quota.c: FASTPATH_CPUS=quota, the count a cgroup CPU quota allows.
 *
 * The quota the scheduler enforces: the process's cgroup from
 * /proc/self/cgroup, where that hierarchy is mounted from
 * /proc/self/mountinfo, then every cgroup from the process's own up to the
 * mount's root, each limit cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us
 * (when a v1 hierarchy carries the cpu controller) or cgroup v2 cpu.max.
 * Bandwidth is enforced at every level, so the smallest limit on the path
 * is the one that holds (a 0.5-CPU slice over a service whose own cpu.max
 * says 2 runs it on 0.5).  N is that limit rounded up (one below a period
 * is 1), and no more than the affinity count; with no quota, the affinity
 * count.
 *
 * What the runtimes read: Rust's std (available_parallelism) and libuv
 * (>= 1.49, uv_available_parallelism) walk the parents too and take the
 * smallest; Go 1.25 (GOMAXPROCS) reads only the process's own cgroup, the
 * leaf, so a limit set on a parent alone is not Go's.  Rust's std rounds
 * down (at least 1): a quota of 1.5 CPUs is 1 there and 2 here, as for
 * Java.
 *
 * Called once, from the settings at start-up (cpus_load), never from a
 * wrapper: static buffers, no allocation.  The files are read through
 * syscall(2) a line at a time, however long (a host's mountinfo with
 * thousands of mounts), and mountinfo's escapes (\040 for a space) are
 * undone; the affinity from the kernel itself: our own open and
 * sched_getaffinity wrappers are not to answer us.
 *
 * FASTPATH_TEST_CGROUP_ROOT (a test aid, through the secure getenv, so
 * ignored in secure-execution mode) puts a directory in front of every
 * path read: a fixture tree with proc/self/cgroup, proc/self/mountinfo and
 * the cgroup files reaches cgroup v2 on a v1 machine (the unit tests,
 * tests/test_cpus.c, build such trees).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fastpath.h"
#include "cpus.h"
#include <stdio.h>

#ifdef FP_LINUX
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define QUOTA_PATH 512
#define QUOTA_LINE 8192 /* a longer line is skipped: no path of ours fits it */

/* FILE (under the fixture root) into buf, NUL-terminated; its length, or
 * -1. */
static long quota_read(const char *root, const char *path, char *buf, size_t size)
{
	char full[QUOTA_PATH];
	long fd, n, got = 0;

	if ((size_t)snprintf(full, sizeof full, "%s%s", root, path) >= sizeof full)
		return -1;
	fd = syscall(SYS_openat, AT_FDCWD, full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1) {
		n = syscall(SYS_read, (int)fd, buf + got, size - 1 - (size_t)got);
		if (n <= 0)
			break;
		got += n;
	}
	(void)syscall(SYS_close, (int)fd);
	buf[got] = '\0';
	return got;
}

/* fn(line, arg) for each line of FILE (NUL-terminated, fn may write in
 * it), until fn returns true; false when FILE could not be opened. */
typedef bool (*quota_line_fn)(char *line, void *arg);

static void quota_lines_of(char *buf, size_t *len, bool *skipping, bool *done, quota_line_fn fn,
                           void *arg)
{
	size_t start = 0;
	char *nl;

	while (!*done && (nl = memchr(buf + start, '\n', *len - start)) != NULL) {
		*nl = '\0';
		if (!*skipping)
			*done = fn(buf + start, arg);
		*skipping = false;
		start = (size_t)(nl - buf) + 1;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
}

static bool quota_lines(const char *root, const char *path, quota_line_fn fn, void *arg)
{
	static char buf[QUOTA_LINE + 1];
	char full[QUOTA_PATH];
	size_t len = 0;
	bool skipping = false, done = false;
	long fd, n;

	if ((size_t)snprintf(full, sizeof full, "%s%s", root, path) >= sizeof full)
		return false;
	fd = syscall(SYS_openat, AT_FDCWD, full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (!done) {
		n = syscall(SYS_read, (int)fd, buf + len, QUOTA_LINE - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		quota_lines_of(buf, &len, &skipping, &done, fn, arg);
		if (len == QUOTA_LINE) { /* one line fills it: not ours, skipped */
			skipping = true;
			len = 0;
		}
	}
	if (!done && len && !skipping) {
		buf[len] = '\0';
		(void)fn(buf, arg);
	}
	(void)syscall(SYS_close, (int)fd);
	return true;
}

/* Each line of the NUL-terminated TEXT (written in), as quota_lines (the
 * unit tests' way in). */
static __attribute__((unused)) void quota_text_lines(char *text, quota_line_fn fn, void *arg)
{
	size_t len = strlen(text);
	bool skipping = false, done = false;

	quota_lines_of(text, &len, &skipping, &done, fn, arg);
	if (!done && len)
		(void)fn(text, arg);
}

/* The CPUs the kernel lets this process run on: its main thread's mask,
 * as cpus_learn's (cpus_shim.c), whichever thread loads the settings. */
static long quota_affinity(void)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))];
	long n = syscall(SYS_sched_getaffinity, (long)getpid(), sizeof mask, mask);

	if (n <= 0)
		n = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
	long i, count = 0;

	if (n <= 0)
		return 1;
	for (i = 0; i < n / (long)sizeof mask[0]; i++)
		count += __builtin_popcountl(mask[i]);
	return count ? count : 1;
}

/* Whether the comma list LIST holds WORD. */
static bool quota_has(const char *list, size_t len, const char *word)
{
	size_t w = strlen(word), i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && list[j] != ',')
			j++;
		if (j - i == w && memcmp(list + i, word, w) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

/* /proc/self/cgroup, a line at a time: the cpu hierarchy's path, and
 * whether it is v1 (a line naming the cpu controller, which wins) or v2
 * ("0::"). */
struct quota_cg {
	char *cg;
	size_t size;
	bool v1, v2, fits;
};

static bool quota_cgroup_line(char *line, void *arg)
{
	struct quota_cg *q = arg;
	char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	if (!c2)
		return false;
	if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) {
		q->v2 = true;
		q->fits = (size_t)snprintf(q->cg, q->size, "%s", c2 + 1) < q->size;
		return false;
	}
	if (!quota_has(c1 + 1, (size_t)(c2 - c1 - 1), "cpu"))
		return false;
	q->v1 = true;
	q->fits = (size_t)snprintf(q->cg, q->size, "%s", c2 + 1) < q->size;
	return true;
}

static bool quota_cgroup_done(const struct quota_cg *q, bool *v1)
{
	*v1 = q->v1;
	return (q->v1 || q->v2) && q->fits;
}

/* mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134
 * backslash: the kernel's show_path), undone in place. */
static void quota_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* Whether the cgroup path CG lies at or under ROOT. */
static bool quota_under(const char *cg, const char *root)
{
	size_t rl = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(cg, root, rl) == 0 && (cg[rl] == '/' || cg[rl] == '\0');
}

/* /proc/self/mountinfo, a line at a time: the mount point of the
 * hierarchy (v1: type cgroup with the cpu option; v2: type cgroup2) into
 * mnt, its root into mroot.  The first whose root holds the process's
 * cgroup, else the first of that type (a cgroup namespace's view). */
struct quota_mnt {
	const char *cg;
	bool v1;
	char *mnt, *mroot;
	size_t msize, rsize;
	bool found, holds;
};

static bool quota_mount_line(char *line, void *arg)
{
	struct quota_mnt *q = arg;
	char *f[5], *sep = strstr(line, " - "), *save = NULL, *type, *opts;
	int i;

	if (!sep)
		return false;
	*sep = '\0';
	for (i = 0; i < 5 && (f[i] = strtok_r(i ? NULL : line, " ", &save)) != NULL; i++)
		;
	if (i < 5)
		return false;
	type = strtok_r(sep + 3, " ", &save);
	(void)strtok_r(NULL, " ", &save); /* the source */
	opts = strtok_r(NULL, " ", &save);
	if (!type || !opts ||
	    !(q->v1 ? strcmp(type, "cgroup") == 0 && quota_has(opts, strlen(opts), "cpu")
	            : strcmp(type, "cgroup2") == 0))
		return false;
	quota_unescape(f[3]);
	quota_unescape(f[4]);
	if (strlen(f[3]) >= q->rsize || strlen(f[4]) >= q->msize)
		return false;
	if (q->found && !quota_under(q->cg, f[3]))
		return false;
	memcpy(q->mroot, f[3], strlen(f[3]) + 1);
	memcpy(q->mnt, f[4], strlen(f[4]) + 1);
	q->found = true;
	q->holds = quota_under(q->cg, f[3]);
	return q->holds;
}

/* The quota of directory DIR in CPUs rounded up (1 below a period); 0 for
 * none, -1 unread. */
static long quota_at(const char *root, const char *dir, bool v1, char *why, size_t whylen)
{
	/* Static for the reason fp_cpus_quota's buffers are. */
	static char path[QUOTA_PATH];
	char buf[64];
	long long q, p;

	if (v1) {
		if ((size_t)snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir) >= sizeof path)
			return -1;
		if (quota_read(root, path, buf, sizeof buf) <= 0 || sscanf(buf, "%lld", &q) != 1)
			return -1;
		if (q <= 0)
			return 0;
		if ((size_t)snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir) >= sizeof path)
			return -1;
		if (quota_read(root, path, buf, sizeof buf) <= 0 || sscanf(buf, "%lld", &p) != 1 || p <= 0)
			return -1;
	} else {
		if ((size_t)snprintf(path, sizeof path, "%s/cpu.max", dir) >= sizeof path)
			return -1;
		if (quota_read(root, path, buf, sizeof buf) <= 0)
			return -1;
		if (strncmp(buf, "max", 3) == 0)
			return 0;
		if (sscanf(buf, "%lld %lld", &q, &p) != 2 || q <= 0 || p <= 0)
			return -1;
	}
	snprintf(why, whylen, "cgroup %s quota %lld/%lld in %s", v1 ? "v1" : "v2", q, p, dir);
	return (long)(q / p + (q % p != 0));
}

/* The smallest quota from DIR up to the mount point (its first ml
 * bytes), with its why; 0 for none. */
static long quota_path_min(const char *root, char *dir, size_t ml, bool v1, char *why,
                           size_t whylen)
{
	static char here[QUOTA_PATH + 64];
	long n, best = 0;

	for (;;) {
		char *slash;

		n = quota_at(root, dir, v1, here, sizeof here);
		if (n > 0 && (best == 0 || n < best)) {
			best = n;
			snprintf(why, whylen, "%s", here);
		}
		if (strlen(dir) <= ml)
			break;
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < ml)
			break;
		*slash = '\0';
	}
	return best;
}

/* N for the tree under ROOT ("" for the machine's own), with the affinity
 * count AFF. */
static long quota_of(const char *root, long aff, char *why, size_t whylen)
{
	/* Off the stack: read once, under initialisation's guard
	 * (cpus_load), so never by two callers at once. */
	static char cg[QUOTA_PATH], mnt[QUOTA_PATH], mroot[QUOTA_PATH], dir[QUOTA_PATH];
	struct quota_cg qc = { cg, sizeof cg, false, false, false };
	struct quota_mnt qm = { cg, false, mnt, mroot, sizeof mnt, sizeof mroot, false, false };
	size_t rl;
	long n;
	bool v1;

	snprintf(why, whylen, "the affinity count: no cgroup quota");
	if (!quota_lines(root, "/proc/self/cgroup", quota_cgroup_line, &qc) ||
	    !quota_cgroup_done(&qc, &v1))
		return aff;
	qm.v1 = v1;
	if (!quota_lines(root, "/proc/self/mountinfo", quota_mount_line, &qm) || !qm.found)
		return aff;
	/* The cgroup's path below the mount's root (a container's namespace
	 * mounts its own cgroup as the root). */
	rl = strlen(mroot);
	if (strcmp(mroot, "/") != 0 && quota_under(cg, mroot))
		memmove(cg, cg + rl, strlen(cg + rl) + 1);
	if ((size_t)snprintf(dir, sizeof dir, "%s%s", mnt,
	                     strcmp(cg, "/") == 0 ? "" : cg) >= sizeof dir)
		return aff;
	n = quota_path_min(root, dir, strlen(mnt), v1, why, whylen);
	if (n <= 0) {
		snprintf(why, whylen, "the affinity count: no cgroup quota");
		return aff;
	}
	if (n > aff) {
		size_t l = strlen(why);

		snprintf(why + l, whylen - l, ", capped at the affinity count");
		n = aff;
	}
	return n;
}

long fp_cpus_quota(fp_getenv_fn get, char *why, size_t whylen)
{
	const char *root = get("FASTPATH_TEST_CGROUP_ROOT");

	return quota_of(root ? root : "", quota_affinity(), why, whylen);
}
#else
long fp_cpus_quota(fp_getenv_fn get, char *why, size_t whylen)
{
	(void)get;
	snprintf(why, whylen, "quota reads Linux cgroups: not supported here");
	return -1;
}
#endif
