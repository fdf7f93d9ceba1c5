/* SPDX-License-Identifier: MIT */
/*
 * cpus_quota.c: FASTPATH_CPUS=quota, the count a cgroup CPU quota allows.
 *
 * Read as the runtimes that follow quotas read it (Java, Rust's std, Go
 * 1.25): the process's cgroup from /proc/self/cgroup, where that hierarchy
 * is mounted from /proc/self/mountinfo, then from the process's own cgroup
 * up to the mount's root the nearest cgroup v1 cpu.cfs_quota_us /
 * cpu.cfs_period_us (when a v1 hierarchy carries the cpu controller) or
 * cgroup v2 cpu.max.  N is the quota rounded up, and no more than the
 * affinity count; with no quota, the affinity count.
 *
 * Called once, from the settings at start-up (cpus_load), never from a
 * wrapper: plain stack buffers, no allocation.  The files are read through
 * syscall(2), and the affinity from the kernel itself: our own open and
 * sched_getaffinity wrappers are not to answer us.
 *
 * FASTPATH_TEST_CGROUP_ROOT (a test aid, through the secure getenv, so
 * ignored in secure-execution mode) puts a directory in front of every
 * path read: a fixture tree with proc/self/cgroup, proc/self/mountinfo and
 * the cgroup files reaches cgroup v2 on a v1 machine.
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
#define QUOTA_FILE 65536 /* enough of /proc/self/mountinfo for its cgroups */

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

/* The CPUs the kernel lets this process run on. */
static long quota_affinity(void)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))];
	long n = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
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

/* From /proc/self/cgroup: the cpu hierarchy's path into cg, and whether it
 * is v1 (a line naming the cpu controller) or v2 ("0::"). */
static bool quota_cgroup(const char *text, char *cg, size_t cgsize, bool *v1)
{
	const char *line = text, *v2 = NULL;

	while (*line) {
		const char *end = strchr(line, '\n'), *c1, *c2;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		c1 = memchr(line, ':', len);
		c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
		if (c2) {
			if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) {
				v2 = c2 + 1;
			} else if (quota_has(c1 + 1, (size_t)(c2 - c1 - 1), "cpu")) {
				*v1 = true;
				return (size_t)snprintf(cg, cgsize, "%.*s", (int)(len - (size_t)(c2 + 1 - line)),
				                        c2 + 1) < cgsize;
			}
		}
		line += len + (end ? 1 : 0);
	}
	if (!v2)
		return false;
	*v1 = false;
	return (size_t)snprintf(cg, cgsize, "%.*s", (int)strcspn(v2, "\n"), v2) < cgsize;
}

/* From /proc/self/mountinfo: the mount point of the hierarchy (v1: type
 * cgroup with the cpu option; v2: type cgroup2) into mnt, its root into
 * mroot. */
static bool quota_mount(char *text, bool v1, char *mnt, size_t msize, char *mroot, size_t rsize)
{
	char *save = NULL, *line;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[6], *sep = strstr(line, " - "), *s2 = NULL, *type, *opts;
		int i;

		if (!sep)
			continue;
		*sep = '\0';
		f[0] = strtok_r(line, " ", &s2);
		for (i = 1; i < 6 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, " ", &s2);
		if (i < 6 || !f[4])
			continue;
		type = strtok_r(sep + 3, " ", &s2);
		(void)strtok_r(NULL, " ", &s2); /* the source */
		opts = strtok_r(NULL, " ", &s2);
		if (!type || !opts)
			continue;
		if (v1 ? strcmp(type, "cgroup") == 0 && quota_has(opts, strlen(opts), "cpu")
		       : strcmp(type, "cgroup2") == 0) {
			return (size_t)snprintf(mroot, rsize, "%s", f[3]) < rsize &&
			       (size_t)snprintf(mnt, msize, "%s", f[4]) < msize;
		}
	}
	return false;
}

/* The quota of directory DIR in CPUs rounded up; 0 for none, -1 unread. */
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
	return (long)((q + p - 1) / p);
}

long fp_cpus_quota(fp_getenv_fn get, char *why, size_t whylen)
{
	/* Static: a container's mountinfo is long, and this runs once. */
	static char text[QUOTA_FILE];
	/* Off the stack, as text is: read once, under initialisation's guard
	 * (cpus_load), so never by two callers at once. */
	static char cg[QUOTA_PATH], mnt[QUOTA_PATH], mroot[QUOTA_PATH], dir[QUOTA_PATH];
	const char *root = get("FASTPATH_TEST_CGROUP_ROOT");
	long aff = quota_affinity(), n = 0;
	size_t ml, rl;
	bool v1 = false;

	if (!root)
		root = "";
	snprintf(why, whylen, "the affinity count: no cgroup quota");
	if (quota_read(root, "/proc/self/cgroup", text, sizeof text) < 0 ||
	    !quota_cgroup(text, cg, sizeof cg, &v1))
		return aff;
	if (quota_read(root, "/proc/self/mountinfo", text, sizeof text) < 0 ||
	    !quota_mount(text, v1, mnt, sizeof mnt, mroot, sizeof mroot))
		return aff;
	/* The cgroup's path below the mount's root (a container's namespace
	 * mounts its own cgroup as the root). */
	rl = strlen(mroot);
	if (strcmp(mroot, "/") != 0 && strncmp(cg, mroot, rl) == 0 && (cg[rl] == '/' || !cg[rl]))
		memmove(cg, cg + rl, strlen(cg + rl) + 1);
	if ((size_t)snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(cg, "/") == 0 ? "" : cg) >= sizeof dir)
		return aff;
	ml = strlen(mnt);
	/* The nearest limit, from the process's cgroup up to the mount. */
	for (;;) {
		char *slash;

		n = quota_at(root, dir, v1, why, whylen);
		if (n > 0)
			break;
		if (strlen(dir) <= ml)
			break;
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < ml)
			break;
		*slash = '\0';
	}
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
#else
long fp_cpus_quota(fp_getenv_fn get, char *why, size_t whylen)
{
	(void)get;
	snprintf(why, whylen, "quota reads Linux cgroups: not supported here");
	return -1;
}
#endif
