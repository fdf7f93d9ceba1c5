/* SPDX-License-Identifier: MIT */
/*
 * cpus_dirs.c: the machine's directories under the CPU cap (issue 37):
 * which real path a cpuK, node or status path names (fp_cpus_vpath), the
 * listings that are ours, readlink of a cpuK, and the open of such a path.
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The machine's own directories (issue 37): cpuK under the cpu directory
 * and under each node's, a node's cpumap and cpulist, and the affinity
 * lines of this process's status.  cpuK for K < N is the directory of the
 * real CPU K runs on (R[K mod r]), its topology and shared-cache files
 * derived (cf_transform_of), everything else in it that real CPU's own;
 * cpuK for K >= N does not exist.  Only paths under CF_SYS (or /proc/)
 * pay more than the prefix test.
 * ---------------------------------------------------------------------- */
#define CF_SYS "/sys/devices/system/"
#define CF_SYS_LEN (sizeof CF_SYS - 1)

static const struct {
	const char *name;
	enum cf_kind kind;
} cf_cpu_files[] = {
	{ "topology/core_id", CF_T_ID },
	{ "topology/physical_package_id", CF_T_ZERO },
	{ "topology/die_id", CF_T_ZERO },
	{ "topology/thread_siblings", CF_T_SELF_MASK },
	{ "topology/thread_siblings_list", CF_T_SELF_LIST },
	{ "topology/core_cpus", CF_T_SELF_MASK },
	{ "topology/core_cpus_list", CF_T_SELF_LIST },
	{ "topology/cluster_cpus", CF_T_SELF_MASK },
	{ "topology/cluster_cpus_list", CF_T_SELF_LIST },
	{ "topology/core_siblings", CF_T_ALL_MASK },
	{ "topology/core_siblings_list", CF_T_ALL_LIST },
	{ "topology/package_cpus", CF_T_ALL_MASK },
	{ "topology/package_cpus_list", CF_T_ALL_LIST },
	{ "topology/die_cpus", CF_T_ALL_MASK },
	{ "topology/die_cpus_list", CF_T_ALL_LIST },
};

/* A CPU or node number as the kernel names it ("0", or no leading zero),
 * at most 9 digits: past it, or NULL. */
static const char *cf_id(const char *p, long *v)
{
	const char *s = p;
	long x = 0;

	if (*p == '0') {
		*v = 0;
		return p + 1;
	}
	while (*p >= '0' && *p <= '9' && p - s < 9)
		x = x * 10 + (*p++ - '0');
	if (p == s || (*p >= '0' && *p <= '9'))
		return NULL;
	*v = x;
	return p;
}

static bool cf_cat(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n >= cap)
		return false;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
	return true;
}

/* /proc/self/status, /proc/thread-self/status, /proc/<getpid()>/status:
 * whose mask it shows, or 0. */
static pid_t cf_status_of(const char *p)
{
	long pid;
	const char *e;

	if (strcmp(p, "self/status") == 0)
		return getpid();
	if (strcmp(p, "thread-self/status") == 0)
		return (pid_t)syscall(SYS_gettid);
	if ((e = cf_id(p, &pid)) && strcmp(e, "/status") == 0 && pid == (long)getpid())
		return (pid_t)pid;
	return 0;
}

/* The kind of a file under cpuK's directory (tail: past "cpuK/"). */
static bool cf_cpu_file(const char *tail, enum cf_kind *kind)
{
	const char *e;
	long idx;

	for (size_t i = 0; i < sizeof cf_cpu_files / sizeof cf_cpu_files[0]; i++) {
		if (strcmp(tail, cf_cpu_files[i].name) == 0) {
			*kind = cf_cpu_files[i].kind;
			return true;
		}
	}
	if (strncmp(tail, "cache/index", 11) != 0 || !(e = cf_id(tail + 11, &idx)))
		return false;
	if (strcmp(e, "/id") == 0)
		*kind = CF_T_CACHE_ID;
	else if (strcmp(e, "/shared_cpu_map") == 0)
		*kind = CF_T_SHARED_MASK;
	else if (strcmp(e, "/shared_cpu_list") == 0)
		*kind = CF_T_SHARED_LIST;
	else
		return false;
	return true;
}

enum cf_vis fp_cpus_vpath(int dirfd, const char *path, struct cf_vpath *vp)
{
	char joined[CF_VPATH_MAX];
	const char *a = path, *p, *q, *tail = NULL;
	struct cpus_map m;
	size_t len = 0;
	long v, node;
	int d;

	if (!path || !path[0])
		return CF_V_NATIVE;
	if (path[0] == '/') {
		if (strncmp(path, CF_SYS, CF_SYS_LEN) != 0 && strncmp(path, "/proc/", 6) != 0)
			return CF_V_NATIVE;
	} else {
		/* Relative: under a directory noted by its name only. */
		if (dirfd == AT_FDCWD || (d = cf_dir_of_v(dirfd, &v)) < 0)
			return CF_V_NATIVE;
		if (d == CF_CPUK) {
			char num[24];
			struct fp_buf b = { num, 0, sizeof num };

			fp_buf_long(&b, v);
			if (!cf_cat(joined, sizeof joined, &len, CF_SYS "cpu/cpu", CF_SYS_LEN + 7) ||
			    !cf_cat(joined, sizeof joined, &len, num, b.len))
				return CF_V_NATIVE;
		} else if (!cf_cat(joined, sizeof joined, &len, cf_dir_path[d], strlen(cf_dir_path[d]))) {
			return CF_V_NATIVE;
		}
		if (!cf_cat(joined, sizeof joined, &len, "/", 1) ||
		    !cf_cat(joined, sizeof joined, &len, path, strlen(path)))
			return CF_V_NATIVE;
		a = joined;
	}
	vp->v = -1;
	vp->gen = false;
	if (a[1] == 'p') {
		if (!(vp->rc = cf_status_of(a + 6)))
			return CF_V_NATIVE;
		vp->kind = CF_STATUS;
		vp->gen = true;
		p = a + strlen(a);
		tail = p;
	} else {
		p = a + CF_SYS_LEN;
		if (strncmp(p, "cpu/cpu", 7) == 0) {
			p += 7;
		} else if (strncmp(p, "node/node", 9) == 0 && (q = cf_id(p + 9, &node)) && *q == '/') {
			q++;
			if (strcmp(q, "cpumap") == 0 || strcmp(q, "cpulist") == 0) {
				vp->kind = q[3] == 'm' ? CF_NODE_MASK : CF_NODE_LIST;
				vp->gen = true;
				p = tail = q + strlen(q);
			} else if (strncmp(q, "cpu", 3) == 0) {
				p = q + 3;
			} else {
				return CF_V_NATIVE;
			}
		} else {
			return CF_V_NATIVE;
		}
		if (!vp->gen && (!(tail = cf_id(p, &v)) || (*tail != '/' && *tail != '\0')))
			return CF_V_NATIVE;
	}
	fp_cpus_map(&m);
	if (m.identity)
		return CF_V_NATIVE;
	len = 0;
	if (!cf_cat(vp->real, sizeof vp->real, &len, a, (size_t)(p - a)))
		return CF_V_NATIVE;
	vp->at = len;
	if (!vp->gen) {
		char num[24];
		struct fp_buf b = { num, 0, sizeof num };

		if (v >= m.n)
			return CF_V_GONE;
		vp->v = v;
		vp->rc = fp_cpus_real_of(&m, v % m.r);
		fp_buf_long(&b, vp->rc);
		if (!cf_cat(vp->real, sizeof vp->real, &len, num, b.len))
			return CF_V_NATIVE;
		vp->gen = *tail == '/' && cf_cpu_file(tail + 1, &vp->kind);
	}
	if (!cf_cat(vp->real, sizeof vp->real, &len, tail, strlen(tail)))
		return CF_V_NATIVE;
	return CF_V_REAL;
}

int fp_cpus_listing(int dirfd, const char *path)
{
	struct cpus_map m;
	const char *q;
	long node;
	int kind = 0;
	size_t n;

	if (!path) {
		kind = cf_dir_of(dirfd) == CF_CPUDIR ? 1 : 0;
	} else if (strncmp(path, CF_SYS, CF_SYS_LEN) == 0) {
		path += CF_SYS_LEN;
		n = strlen(path);
		if (n && path[n - 1] == '/')
			n--;
		if (n == 3 && strncmp(path, "cpu", 3) == 0)
			kind = 1;
		else if (strncmp(path, "node/node", 9) == 0 && (q = cf_id(path + 9, &node)) &&
		         (size_t)(q - path) == n)
			kind = 2;
	}
	if (kind) {
		fp_cpus_map(&m);
		if (m.identity)
			kind = 0;
	}
	return kind;
}

/* Whether the real cache whose id vp names is shared with another CPU:
 * its shared_cpu_list holds more than one. */
static bool cf_cache_shared(const struct cf_vpath *vp)
{
	char path[CF_VPATH_MAX + 16], buf[64];
	size_t len = strlen(vp->real) - 2; /* less "id" */
	ssize_t n;
	int fd;

	memcpy(path, vp->real, len);
	memcpy(path + len, "shared_cpu_list", 16);
	if ((fd = (int)fp_raw_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0)) < 0)
		return true;
	n = fp_raw_read(fd, buf, sizeof buf);
	fp_raw_close(fd);
	return n <= 0 || memchr(buf, ',', (size_t)n) || memchr(buf, '-', (size_t)n) ||
	       n == (ssize_t)sizeof buf;
}

bool fp_cpus_readlink_slow(int dirfd, const char *path, char *buf, size_t n, ssize_t *ret)
{
	char got[CF_VPATH_MAX], num[24];
	struct fp_buf b = { num, 0, sizeof num };
	struct cf_vpath vp;
	const char *last;
	ssize_t len;
	size_t keep;

	if (!path || (path[0] == '/' ? strncmp(path, CF_SYS, CF_SYS_LEN) != 0 : dirfd == AT_FDCWD))
		return false;
	switch (fp_cpus_vpath(dirfd, path, &vp)) {
	case CF_V_NATIVE:
		return false;
	case CF_V_GONE:
		errno = ENOENT;
		*ret = -1;
		return true;
	case CF_V_REAL:
		break;
	}
	if (vp.v < 0)
		return false;
	if ((len = fp_raw_readlinkat(AT_FDCWD, vp.real, got, sizeof got - 1)) < 0) {
		*ret = -1;
		return true;
	}
	got[len] = '\0';
	/* A node's link to the CPU itself ("../../cpu/cpuR") names cpuK. */
	last = strrchr(got, '/');
	last = last ? last + 1 : got;
	fp_buf_str(&b, "cpu");
	fp_buf_long(&b, vp.rc);
	if (!vp.real[vp.at + strcspn(vp.real + vp.at, "/")] && strcmp(last, num) == 0) {
		b.len = 0;
		fp_buf_str(&b, "cpu");
		fp_buf_long(&b, vp.v);
		keep = (size_t)(last - got);
		if (keep + b.len < sizeof got) {
			memcpy(got + keep, num, b.len);
			len = (ssize_t)(keep + b.len);
		}
	}
	if ((size_t)len > n)
		len = (ssize_t)n;
	memcpy(buf, got, (size_t)len);
	*ret = len;
	return true;
}

/* The last component of a path: the memfd's name. */
static const char *cf_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A cpuK path, a node's cpu set, a status: served, or asked of the real
 * CPU's file with the caller's flags (which the kernel checks). */
__attribute__((noinline)) bool cf_open_vpath(int dirfd, const char *path, int flags, int *fd_out)
{
	struct cf_vpath vp;
	struct cf_what w;
	bool plain = (flags & O_ACCMODE) == O_RDONLY && !(flags & ~(O_ACCMODE | CF_OK_FLAGS));
	int fd, saved = errno;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) /* O_TMPFILE holds O_DIRECTORY */
		return false;
	switch (fp_cpus_vpath(dirfd, path, &vp)) {
	case CF_V_NATIVE:
		return false;
	case CF_V_GONE:
		*fd_out = -1;
		errno = ENOENT;
		return true;
	case CF_V_REAL:
		break;
	}
	if (vp.gen && plain) {
		w.kind = vp.kind;
		w.about.v = vp.v;
		w.about.vmask = NULL;
		w.about.shared = vp.kind == CF_T_CACHE_ID && cf_cache_shared(&vp);
		w.name = cf_base(vp.real);
		w.sysfs = vp.kind != CF_STATUS;
		w.shown = vp.real;
		w.whose = (pid_t)vp.rc;
		return cf_serve(&w, AT_FDCWD, vp.real, flags, fd_out);
	}
	if (vp.v < 0)
		return false; /* a node's or status file the kernel opens as asked */
	fd = (int)fp_raw_openat(AT_FDCWD, vp.real, flags, 0);
	if (fd >= 0) {
		/* Names under it are cpu v's (a program walking with openat). */
		if (!vp.real[strcspn(vp.real + vp.at, "/") + vp.at])
			cf_note(CF_CPUK, vp.v, fd);
		errno = saved;
	}
	*fd_out = fd;
	return true;
}
#endif /* FP_LINUX */
