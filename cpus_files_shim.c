/* SPDX-License-Identifier: MIT */
/*
 * cpus_files_shim.c: the CPU files as a kernel of the machine the cap shows
 * would give them (issues 12, 28), while FASTPATH_CPUS is set.
 *
 *   /proc/cpuinfo                         one block per CPU
 *   /proc/stat                            the "cpu" total and one cpuN line per CPU
 *   /sys/devices/system/cpu/{online,possible,present,kernel_max}
 *   /sys/devices/system/cpu/cpuK/...      the real CPU K runs on, its topology/
 *                                         and cache/ sharing derived (issue 37)
 *   /sys/devices/system/node/nodeX/{cpuK,cpumap,cpulist}
 *   /proc/{self,thread-self,<pid>}/status Cpus_allowed, Cpus_allowed_list
 *
 * libuv (node's os.cpus()) reads the first two, `grep -c ^processor` the
 * first, lscpu all of them: none of it goes through sysconf.  Anchor: LXCFS,
 * which gives a container /proc/cpuinfo and /proc/stat matching its cpuset;
 * we do the same per process, without FUSE and without root.
 *
 * The CPUs shown are those of the machine the cap shows (cpus_map.c),
 * 0..N-1, each the real CPU it maps to (cpus_text.c says which fields are
 * derived).  Every open reads the real file afresh (counters move),
 * transforms it and hands back a read-only descriptor of a memfd (an
 * unlinked O_TMPFILE where memfd_create is missing) holding the result,
 * which lseek and mmap treat as procfs and sysfs do; where the program's
 * RLIMIT_FSIZE leaves the memfd no room, a pipe or the real file
 * (cf_serve, cpus_serve.c).  When the map is the identity the bytes are
 * the kernel's own.
 *
 * Two layers: pure text transforms (cpus_text.c: input text + map ->
 * output text, unit-tested in tests/test_cpus_files.c), and one entry,
 * fp_cpus_open() (cpus.h), which every open wrapper calls (UR_OPEN_BODY in
 * urandom_shim.c): here, which file it is; cpus_serve.c serves its copy,
 * cpus_dirs.c the machine's directories; fopen/fopen64 are cpus_fd.c's.
 * The entry uses raw system calls and
 * a static or mmap'd scratch area only (a frame of a few hundred bytes):
 * no malloc, no lock that waits, none of our own exports.  Linux only:
 * illumos has no such files (psrinfo and kstat are its ways).
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * Which files: one table, checked against the kernel's paths.
 * ---------------------------------------------------------------------- */
const char *const cf_dir_path[CF_NDIRS] = { "/proc", "/sys/devices/system/cpu",
	                                           "/sys/devices/system/node" };

static const struct cf_file {
	const char *path;
	const char *name; /* its last component */
	enum cf_dir dir;  /* its directory */
	enum cf_kind kind;
} cf_files[] = {
	{ "/proc/cpuinfo", "cpuinfo", CF_PROC, CF_CPUINFO },
	{ "/proc/stat", "stat", CF_PROC, CF_STAT },
	{ "/sys/devices/system/cpu/online", "online", CF_CPUDIR, CF_LIST },
	{ "/sys/devices/system/cpu/possible", "possible", CF_CPUDIR, CF_LIST },
	{ "/sys/devices/system/cpu/present", "present", CF_CPUDIR, CF_LIST },
	/* Linux 6.10 (where it is not there, the kernel's ENOENT) */
	{ "/sys/devices/system/cpu/enabled", "enabled", CF_CPUDIR, CF_LIST },
	{ "/sys/devices/system/cpu/kernel_max", "kernel_max", CF_CPUDIR, CF_KMAX },
};
#define CF_NFILES (sizeof cf_files / sizeof cf_files[0])

static const struct cf_file *cf_lookup_abs(const char *path)
{
	size_t i;

	for (i = 0; i < CF_NFILES; i++)
		if (strcmp(path, cf_files[i].path) == 0)
			return &cf_files[i];
	return NULL;
}

/* ------------------------------------------------------------------------
 * Directory descriptors known to be /proc or the cpu directory: those the
 * program opened by that absolute name while the cap or the survey was on
 * (lscpu opens "/sys/devices/system/cpu", then "online" under it).  A
 * relative name is ours only under one of them: any other open, "stat"
 * under a /proc/<pid> descriptor as htop makes it, pays a load and a
 * branch (no readlink).  Lock-free slots, fd + 1 (0: free), checked by
 * fstat when used, since the number may have been closed and reused.
 * ---------------------------------------------------------------------- */
#define CF_NSLOTS 8
static struct cf_slot {
	dev_t dev;
	ino_t ino;
	_Atomic int fd1;
	enum cf_dir dir;
	long v; /* CF_CPUK: the virtual CPU whose directory it is */
} cf_slots[CF_NSLOTS];
static _Atomic int cf_nslots; /* 1 once a slot was taken: 0 skips the walk */

static int cf_dir_named(const char *path)
{
	size_t n;

	for (int d = 0; d < CF_NDIRS; d++) {
		n = strlen(cf_dir_path[d]);
		if (strncmp(path, cf_dir_path[d], n) == 0 &&
		    (path[n] == '\0' || (path[n] == '/' && path[n + 1] == '\0')))
			return d;
	}
	return -1;
}

/* Takes a slot for fd: the one already naming it (stale: the number was
 * closed and reused), else a free one; -1 marks it busy. */
static struct cf_slot *cf_slot_take(int fd)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < CF_NSLOTS; i++) {
			int cur = pass == 0 ? fd + 1 : 0;

			if (atomic_compare_exchange_strong(&cf_slots[i].fd1, &cur, -1))
				return &cf_slots[i];
		}
	}
	return NULL; /* all taken: this one is not known (the kernel's) */
}

void cf_note(int d, long v, int fd)
{
	int saved = errno;
	struct cf_slot *s;
	struct stat st;

	if (d >= 0 && fp_fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (s = cf_slot_take(fd))) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		s->dir = (enum cf_dir)d;
		s->v = v;
		atomic_store_explicit(&s->fd1, fd + 1, memory_order_release);
		atomic_store_explicit(&cf_nslots, 1, memory_order_relaxed);
	}
	errno = saved;
}

void fp_cpus_note_dir(const char *path, int fd)
{
	cf_note(cf_dir_named(path), -1, fd);
}

/* Which directory dirfd is known to be, or -1 (a cpuK's is not one of
 * the files' directories). */
int cf_dir_of(int dirfd)
{
	long v;
	int d = cf_dir_of_v(dirfd, &v);

	return d == CF_CPUK ? -1 : d;
}

/* Which directory dirfd is known to be (CF_CPUK: cpu *v's), or -1. */
int cf_dir_of_v(int dirfd, long *v)
{
	struct stat st;
	int saved;

	if (fp_likely(atomic_load_explicit(&cf_nslots, memory_order_relaxed) == 0) || dirfd < 0)
		return -1;
	for (int i = 0; i < CF_NSLOTS; i++) {
		struct cf_slot *s = &cf_slots[i];

		if (atomic_load_explicit(&s->fd1, memory_order_acquire) != dirfd + 1)
			continue;
		saved = errno;
		if (fp_fstat(dirfd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino) {
			errno = saved;
			*v = s->v;
			return (int)s->dir;
		}
		errno = saved;
		/* Closed and reused for something else: free the slot. */
		int cur = dirfd + 1;
		(void)atomic_compare_exchange_strong(&s->fd1, &cur, 0);
		return -1;
	}
	return -1;
}

/* A relative name: one of ours under a known directory descriptor only (a
 * relative name under the working directory is the kernel's). */
static const struct cf_file *cf_lookup_rel(int dirfd, const char *path)
{
	int d = dirfd == AT_FDCWD ? -1 : cf_dir_of(dirfd);
	size_t i;

	if (fp_likely(d < 0))
		return NULL;
	for (i = 0; i < CF_NFILES; i++)
		if ((int)cf_files[i].dir == d && strcmp(path, cf_files[i].name) == 0)
			return &cf_files[i];
	return NULL;
}

/* Only plain read-only opens are ours (CF_OK_FLAGS, cpus.h). */
static const struct cf_file *cf_match(int dirfd, const char *path, int flags)
{
	if (!path || path[0] == '\0')
		return NULL;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | CF_OK_FLAGS)))
		return NULL;
	if (path[0] == '/') {
		/* The one cheap prefix test every other open pays. */
		if (path[1] != 'p' && path[1] != 's')
			return NULL;
		return cf_lookup_abs(path);
	}
	return cf_lookup_rel(dirfd, path);
}

/* Uncapped, the count is the C library's, which reads a file of the
 * machine's: every signal held, or a handler's siglongjmp out of the
 * program's open leaves that descriptor open (a jump generator: 144 left
 * in 3000 opens of /proc/cpuinfo under FASTPATH_SURVEY). */
void fp_cpus_sv_file(int dirfd, const char *path, int flags)
{
	int saved = errno;
	sigset_t old;
	long n;

	if (cf_match(dirfd, path, flags)) {
		if (fp_enabled(FP_BIT(cpus))) {
			n = fp_cpus_wanted();
		} else {
			fp_hold_all(&old);
			n = CPUS_REAL(sysconf)(_SC_NPROCESSORS_ONLN);
			fp_unhold(&old);
		}
		cpus_sv_query(CPUS_S_Q_files, n);
	}
	errno = saved;
}

/* The path test comes first, in a small frame: it is all that an open of
 * any other file pays. */
bool fp_cpus_open_slow(int dirfd, const char *path, int flags, int *fd_out)
{
	const struct cf_file *f = cf_match(dirfd, path, flags);
	struct cf_what w;

	if (fp_likely(!f)) {
		if (!path || (path[0] == '/' ? path[1] != 's' && path[1] != 'p'
		                             : fp_likely(atomic_load_explicit(&cf_nslots,
		                                                              memory_order_relaxed) == 0)))
			return false;
		return cf_open_vpath(dirfd, path, flags, fd_out);
	}
	w.kind = f->kind;
	w.about.v = -1;
	w.about.vmask = NULL;
	w.about.shared = false;
	w.name = f->name;
	w.sysfs = f->dir == CF_CPUDIR;
	w.shown = f->path;
	w.whose = 0;
	return cf_serve(&w, dirfd, path, flags, fd_out);
}

#endif /* FP_LINUX */
