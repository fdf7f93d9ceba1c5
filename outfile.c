/* SPDX-License-Identifier: MIT */
/*
 * outfile.c: the files the preload writes from inside a program (the
 * FASTPATH_STATS summary, the FASTPATH_SURVEY records), opened so that
 * nobody but the process's own user and root can choose what they land in.
 * The program is often a root service and the directory may be shared, so:
 *
 *  - the directory is reached one component at a time from "/", and every
 *    directory on the way must be owned by root or by the effective user,
 *    and be writable by nobody else unless it is sticky (as /tmp is); a
 *    symbolic link on the way is followed only when root or the effective
 *    user owns it (fs.protected_symlinks may be off, and it never covers a
 *    directory that is not world-writable);
 *  - the file is opened relative to that directory's descriptor, with
 *    O_NOFOLLOW, so the checked directory cannot be swapped before the
 *    open; a new file is made O_CREAT|O_EXCL under a random name;
 *  - after the open, fstat must say a regular file that the effective
 *    user owns, with one link (no hard link to someone else's file);
 *    otherwise nothing is written.
 *
 * No descriptor is kept between writes: a program may close every
 * descriptor it did not open (closefrom, bash's redirections), and a number
 * it reused would then take our line.  Each write walks the path again; the
 * records are written once a minute and at exit, so the few system calls
 * are not measurable.  Only system calls and small buffers: this runs at
 * exit, in fork children and from signal handlers (_exit, a surveyed
 * read()).  Reasons are told without strerror (not async-signal-safe).
 */
#ifndef FP_OUTFILE_ALONE
#include "fastpath.h"
#endif

/* Reasons, as strerror would give them, for the errors a walk can meet.
 * A switch, not a table of pointers: a table would be relocated at every
 * start, and one page of relocated data more is one fault more in every
 * process (issue 39). */
static const char *fp_of_reason(int e)
{
	switch (e) {
	case ENOENT: return "No such file or directory";
	case EACCES: return "Permission denied";
	case ENOTDIR: return "Not a directory";
	case ELOOP: return "a symbolic link";
	case EISDIR: return "Is a directory";
	case EROFS: return "Read-only file system";
	case ENOSPC: return "No space left on device";
	case EMFILE: return "Too many open files";
	case ENAMETOOLONG: return "File name too long";
	case EPERM: return "Operation not permitted";
	case EIO: return "Input/output error";
	case EDQUOT: return "Disk quota exceeded";
	case ENXIO: return "No such device or address";
	case EFBIG: return "File too large";
	default: return NULL;
	}
}

static void fp_of_errno(struct fp_buf *b, int e)
{
	const char *s = fp_of_reason(e);

	if (s) {
		fp_buf_str(b, s);
		return;
	}
	fp_buf_str(b, "errno ");
	fp_buf_long(b, e);
}

/* "<path up to n>", quoted, at most 95 bytes of it. */
static void fp_of_path(struct fp_buf *b, const char *path, size_t n)
{
	char part[96];

	if (n >= sizeof part)
		n = sizeof part - 1;
	memcpy(part, path, n);
	part[n] = '\0';
	fp_buf_str(b, "\"");
	fp_buf_str(b, n ? part : "/");
	fp_buf_str(b, "\"");
}

/* what "<path up to n>" how[uid, not by root or ...]: why it was refused. */
static void fp_of_why(char *why, size_t whylen, const char *what, const char *path, size_t n,
                      const char *how, long uid)
{
	struct fp_buf b = { why, 0, whylen };

	if (!whylen)
		return;
	fp_buf_str(&b, what);
	fp_buf_str(&b, " ");
	fp_of_path(&b, path, n);
	fp_buf_str(&b, " ");
	fp_buf_str(&b, how);
	if (uid >= 0) {
		fp_buf_long(&b, uid);
		fp_buf_str(&b, ", not by root or this process's user");
	}
}

/* "<path up to n>": <error>. */
static void fp_of_why_errno(char *why, size_t whylen, const char *path, size_t n, int e)
{
	struct fp_buf b = { why, 0, whylen };

	if (!whylen)
		return;
	fp_of_path(&b, path, n);
	fp_buf_str(&b, ": ");
	fp_of_errno(&b, e);
}

static bool fp_of_owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* May another user add, remove or rename entries of this directory?
 * Group-writable counts unless the group is root's (as logrotate). */
static int fp_of_dir_ok(int fd, const char *path, size_t n, char *why, size_t whylen)
{
	struct stat st;

	if (fp_fstat(fd, &st) != 0) {
		fp_of_why_errno(why, whylen, path, n, errno);
		return -1;
	}
	/* O_DIRECTORY's work where the headers or the kernel lack it
	 * (illumos before 2020, fastpath.h). */
	if (!S_ISDIR(st.st_mode)) {
		fp_of_why_errno(why, whylen, path, n, ENOTDIR);
		errno = ENOTDIR;
		return -1;
	}
	if (!fp_of_owner_ok(st.st_uid)) {
		fp_of_why(why, whylen, "directory", path, n, "is owned by uid ", (long)st.st_uid);
		return FP_OF_REFUSED;
	}
	if (((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != 0)) &&
	    !(st.st_mode & S_ISVTX)) {
		fp_of_why(why, whylen, "directory", path, n,
		          "is writable by other users and not sticky (chmod o-w,g-w or +t)", -1);
		return FP_OF_REFUSED;
	}
	return 0;
}

/* One component of a walk: a directory, or a symbolic link that root or
 * we own, followed. */
static int fp_of_step(int fd, const char *name, const char *path, size_t n, char *why,
                      size_t whylen)
{
	struct stat st;
	int nfd = (int)fp_raw_openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);

#ifdef O_PATH
	/* A directory we may search and write but not list (a shared survey
	 * directory, 1733): reached by path only, which the *at calls and
	 * fstat take (Linux 3.6). */
	if (nfd < 0 && errno == EACCES)
		nfd = (int)fp_raw_openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
#endif
	if (nfd >= 0 || (errno != ELOOP && errno != ENOTDIR))
		goto out;
	if (fp_fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(st.st_mode)) {
		errno = ENOTDIR;
		goto out;
	}
	if (!fp_of_owner_ok(st.st_uid)) {
		fp_of_why(why, whylen, "symbolic link", path, n, "is owned by uid ", (long)st.st_uid);
		return FP_OF_REFUSED;
	}
	nfd = (int)fp_raw_openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
out:
	if (nfd < 0)
		fp_of_why_errno(why, whylen, path, n, errno);
	return nfd;
}

int fp_of_opendir(const char *dir, size_t dirlen, char *why, size_t whylen)
{
	char name[NAME_MAX + 1];
	const char *p = dir, *end = dir + dirlen;
	int fd, nfd, rc;

	if (whylen)
		why[0] = '\0';
	if (dirlen == 0 || dir[0] != '/') {
		fp_of_why(why, whylen, "directory", dir, dirlen, "is not absolute", -1);
		errno = EINVAL;
		return -1;
	}
	fd = (int)fp_raw_openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0) {
		fp_of_why_errno(why, whylen, dir, 0, errno);
		return -1;
	}
	for (;;) {
		size_t len;
		int saved;

		if ((rc = fp_of_dir_ok(fd, dir, (size_t)(p - dir), why, whylen)) < 0)
			break;
		while (p < end && *p == '/')
			p++;
		if (p == end)
			return fd;
		for (len = 0; p + len < end && p[len] != '/'; len++)
			;
		if (len > NAME_MAX) {
			fp_of_why_errno(why, whylen, dir, (size_t)(p - dir) + len, ENAMETOOLONG);
			rc = -1;
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		nfd = fp_of_step(fd, name, dir, (size_t)(p - dir), why, whylen);
		saved = errno;
		fp_raw_close(fd);
		errno = saved;
		if (nfd < 0)
			return nfd;
		fd = nfd;
	}
	fp_raw_close(fd);
	if (rc == FP_OF_REFUSED)
		errno = EPERM;
	return rc;
}

/* A file the kernel makes up: /proc/self/mem is regular, has one link and
 * is the user's own, and a write to it returns 0 for ever (a cold review:
 * the survey's report, sent there, spun at full CPU and never exited); a
 * cgroup's, a tracer's or a security module's file acts on what is
 * written.  Told by the file system's type, wherever it is mounted (cold
 * review 67: by the mount points /proc and /sys, a cgroup's file passed). */
#if defined(FP_LINUX)
static bool fp_of_kernel_type(uint32_t type)
{
	/* (numbers, not <linux/magic.h>'s names: headers older than 4.5
	 * lack some) proc, sysfs, cgroup, cgroup2, debugfs, tracefs,
	 * securityfs, selinuxfs, smackfs, bpf, pstore, efivarfs,
	 * binfmt_misc, configfs, fusectl, resctrl, nfsd, rpc_pipefs,
	 * functionfs */
	static const uint32_t kinds[] = {
		0x9fa0,     0x62656572, 0x27e0eb,   0x63677270, 0x64626720, 0x74726163, 0x73636673,
		0xf97cff8c, 0x43415d53, 0xcafe4a11, 0x6165676c, 0xde5e81e4, 0x42494e4d, 0x62656570,
		0x65735543, 0x7655821,  0x6e667364, 0x67596969, 0xa647361,
	};
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (type == kinds[i])
			return true;
	return false;
}
#else
static bool fp_of_kernel_type(const char *type)
{
	static const char *const kinds[] = { "proc", "ctfs", "objfs", "mntfs", "sharefs", "fd", "bootfs" };
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(type, kinds[i]) == 0)
			return true;
	return false;
}
#endif

static bool fp_of_kernels(int fd)
{
#if defined(FP_LINUX) && defined(FP_HAVE_LFS64)
	struct statfs64 sf; /* (a 32-bit fstatfs says EOVERFLOW on a large disk) */

	return fstatfs64(fd, &sf) == 0 && fp_of_kernel_type((uint32_t)sf.f_type);
#elif defined(FP_LINUX)
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && fp_of_kernel_type((uint32_t)sf.f_type);
#else
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && fp_of_kernel_type(sv.f_basetype);
#endif
}

/* The file just opened is ours: regular, not the kernel's, the effective
 * user's, one link. */
static int fp_of_file_ok(int fd, char *why, size_t whylen)
{
	struct fp_buf b = { why, 0, whylen };
	struct stat st;

	if (fp_fstat(fd, &st) != 0) {
		fp_of_errno(&b, errno);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		fp_buf_str(&b, "not a regular file");
	else if (fp_of_kernels(fd))
		fp_buf_str(&b, "a file of the kernel's (/proc, /sys, a cgroup's...), not one to write to");
	else if (st.st_uid != geteuid()) {
		fp_buf_str(&b, "owned by uid ");
		fp_buf_long(&b, (long)st.st_uid);
		fp_buf_str(&b, ", not by this process's user (uid ");
		fp_buf_long(&b, (long)geteuid());
		fp_buf_str(&b, "; a directory, FASTPATH_STATS=DIR/, serves several users)");
	} else if (st.st_nlink != 1)
		fp_buf_str(&b, "has more than one link");
	else
		return 0;
	return FP_OF_REFUSED;
}

int fp_of_append(const char *dir, size_t dirlen, const char *name, char *why, size_t whylen)
{
	int dfd = fp_of_opendir(dir, dirlen, why, whylen), fd, rc;

	if (dfd < 0)
		return dfd;
	/* O_NONBLOCK: a FIFO planted at the name must not hang us (no
	 * reader: ENXIO; a reader: fstat refuses it); on a regular file it
	 * changes nothing. */
	fd = (int)fp_raw_openat(dfd, name,
	                        O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
	                                O_CLOEXEC,
	                        0644);
	if (fd < 0) {
		struct fp_buf b = { why, 0, whylen };

		rc = errno;
		fp_of_errno(&b, rc);
		fp_raw_close(dfd);
		errno = rc;
		return -1;
	}
	fp_raw_close(dfd);
	if ((rc = fp_of_file_ok(fd, why, whylen)) < 0) {
		fp_raw_close(fd);
		errno = EPERM;
		return rc;
	}
	return fd;
}

/* What follows, the preload's own files, is not part of fastpath-run's
 * copy of the checks above (FP_OUTFILE_ALONE: tools/fastpath-run.c opens
 * interpose --survey=FILE with them). */
#ifndef FP_OUTFILE_ALONE
/* A name for a new file, as 12 hex digits.  In a directory another user
 * may write (shared: sticky, as /tmp), 48 bits nobody else can predict,
 * read from /dev/urandom; in one only this user may write, and where the
 * device cannot be read, the clock's, the pid and a count.  O_EXCL is
 * what keeps a planted name from being followed, the randomness only
 * keeps another user from stopping the record.  Never the getrandom
 * system call: a seccomp filter that kills on it (SECCOMP_RET_KILL) would
 * end every surveyed program at its record (issue 36); and a private
 * directory, the usual one, costs no system call for it (issue 40). */
void fp_of_nonce(char *hex, bool shared)
{
	static _Atomic unsigned long seq;
	uint64_t v = 0;
	long got = -1;
	int i, fd;

	if (shared &&
	    (fd = (int)fp_raw_openat(AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY, 0)) >= 0) {
		got = (long)fp_raw_read(fd, &v, sizeof v);
		fp_raw_close(fd);
	}
	if (got != (long)sizeof v) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)getpid() << 20) ^ ((uint64_t)atomic_fetch_add(&seq, 1) << 40);
	}
	for (i = 0; i < 12; i++, v >>= 4)
		hex[i] = "0123456789abcdef"[v & 0xf];
	hex[12] = '\0';
}

int fp_of_create_named(int dfd, const char *name)
{
	int fd = (int)fp_raw_openat(dfd, name,
	                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
	                            0644);

	if (fd >= 0 && fp_of_file_ok(fd, NULL, 0) != 0) {
		/* O_EXCL made it, so this cannot happen; if it does, the
		 * name is not ours to remove. */
		fp_raw_close(fd);
		errno = EPERM;
		return FP_OF_REFUSED;
	}
	return fd;
}

int fp_of_create(int dfd, const char *prefix, char *name, size_t namelen, bool shared)
{
	char hex[13];
	int tries, fd = -1;

	for (tries = 0; tries < 8; tries++) {
		struct fp_buf b = { name, 0, namelen };

		fp_of_nonce(hex, shared);
		fp_buf_str(&b, prefix);
		fp_buf_str(&b, hex);
		fp_buf_str(&b, ".tmp");
		if ((fd = fp_of_create_named(dfd, name)) >= 0 || errno != EEXIST)
			break;
	}
	if (fd == FP_OF_REFUSED)
		name[0] = '\0';
	return fd < 0 ? -1 : fd;
}

/* FASTPATH_STATS=FILE: the file; FASTPATH_STATS=DIR/: DIR/<euid>.log, one
 * file per user, made and owned by that user, so a process that changed
 * user (a server's workers) still leaves its line. */
int fp_of_stats_open(const char *path, char *why, size_t whylen)
{
	const char *slash = strrchr(path, '/');
	char name[32];
	struct fp_buf b = { name, 0, sizeof name };

	if (!slash) { /* cannot be: settings.c made it absolute */
		fp_of_why(why, whylen, "file", path, strlen(path), "is not absolute", -1);
		errno = EINVAL;
		return -1;
	}
	if (slash[1] != '\0')
		return fp_of_append(path, (size_t)(slash - path) + 1, slash + 1, why, whylen);
	fp_buf_ulong(&b, (unsigned long)geteuid());
	fp_buf_str(&b, ".log");
	return fp_of_append(path, strlen(path), name, why, whylen);
}

void fp_of_stats_write(const char *path, const char *line, size_t n)
{
	char why[192];
	int fd = fp_of_stats_open(path, why, sizeof why);

	if (fd >= 0) {
		if (fp_own_write(fd, line, n) == (ssize_t)n) {
			fp_raw_close(fd);
			return;
		}
		/* Opened but not writable now (a full disk, a /proc file). */
		struct fp_buf b = { why, 0, sizeof why };

		why[0] = '\0';
		fp_of_errno(&b, errno);
		fp_raw_close(fd);
	}
	/* The path may be PATH_MAX long: the line is put together off the
	 * stack (fp_log_parts), not in a frame of that size. */
	const char *parts[] = { "FASTPATH_STATS=\"", path, "\": the summary could not be written: ",
		                why };

	fp_log_parts(STDERR_FILENO, parts, sizeof parts / sizeof parts[0]);
}
#endif /* FP_OUTFILE_ALONE */
