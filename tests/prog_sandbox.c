/* SPDX-License-Identifier: MIT */
/*
 * prog_sandbox KIND DIR [PATH]: the device (or PATH: a CPU file the cap
 * serves) opened twice (the second from the pool, or the kept copy),
 * then the process gives up its access to it by KIND, then one more open.
 * Natively that open is refused; under the preload it must be too
 * (roots.c: after a change of credentials or sandbox, a pooled open goes
 * through the path again).  One line per step, compared with native by
 * t_urandom.sh.
 *
 * The credential kinds run in a mount namespace of their own, where
 * /dev/urandom is a node of the same device made in DIR, owned by 1234:1234
 * and readable by that group only: root reads it through its capabilities,
 * and loses it by becoming another user (setuid, seteuid, setreuid,
 * setresuid, setfsuid, syscall's setresuid) or by dropping them (capset);
 * the group kinds (setgid, setegid, setregid, setresgid, setfsgid,
 * setgroups) keep CAP_SETGID only, join the group, open, then leave it.
 * The sandbox kinds use the real node: a seccomp filter refusing openat
 * (prctl, syscall's seccomp), a Landlock ruleset that handles reading
 * files and allows none (syscall only); strict mode, and a filter that
 * kills for anything but write and exit, after which the program writes
 * a line and leaves (nothing of ours may make a call then).  chroot and
 * unshare-chroot (CLONE_FS first: the thread's own root): DIR, where
 * there is no dev/.  race-setuid: see race_setuid.  Two opens
 * made before are held, and after the change one is made non-blocking:
 * the other's flags stay its own, and one closed then is not handed out
 * again.  thread-KIND:
 * a second thread gives up its access; the first, which still has it,
 * opens again, then the second.  Exit 77: not permitted here.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>

int capset(cap_user_header_t h, const cap_user_data_t d);
int capget(cap_user_header_t h, cap_user_data_t d);

#define OTHER 65534
#define GROUP 1234

static const char *kind, *path = "/dev/urandom", *dir;

static void try_open(const char *step)
{
	int fd = open(path, O_RDONLY);
	unsigned char b[16];

	if (fd < 0) {
		printf("%s: %s: open -1 %s\n", kind, step, strerrorname_np(errno));
		return;
	}
	printf("%s: %s: open ok, read %zd\n", kind, step, read(fd, b, sizeof b));
	close(fd);
}

/* Two opens held across the change (pooled: a description shared with
 * the pool's until one changes), then one made non-blocking: natively
 * the other's flags are its own (a copy-on-write that needs the access
 * given up came too late, and the change reached both). */
static int held[2] = { -1, -1 };

static void held_open(void)
{
	held[0] = open(path, O_RDONLY);
	held[1] = open(path, O_RDONLY);
}

static void held_check(const char *step)
{
	int r = fcntl(held[0], F_SETFL, O_NONBLOCK);

	printf("%s: %s: F_SETFL %d, flags %#x, the other's %#x\n", kind, step, r, fcntl(held[0], F_GETFL),
	       fcntl(held[1], F_GETFL));
	/* and the other (its flags as opened) closed after the change: not
	 * handed out again (reserve mode kept it, review 56) */
	close(held[1]);
	try_open("after closing one held");
	close(held[0]);
}

static void must(int ok, const char *what)
{
	if (!ok) {
		printf("%s: not permitted here: %s: %s\n", kind, what, strerror(errno));
		exit(77);
	}
}

/* Effective capabilities: keep only those in mask (of the first 32). */
static void caps_keep(unsigned mask)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	must(capget(&h, d) == 0, "capget");
	d[0].effective &= mask;
	d[1].effective = 0;
	must(capset(&h, d) == 0, "capset");
}

/* /dev/urandom, in a mount namespace of our own: 1:9 owned by GROUP,
 * readable by the group only. */
static void private_node(const char *dir, unsigned owner, unsigned mode)
{
	char node[4096];

	snprintf(node, sizeof node, "%s/urandom", dir);
	must(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS)");
	must(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "mount --make-rprivate /");
	unlink(node);
	must(mknod(node, S_IFCHR | mode, makedev(1, 9)) == 0, "mknod");
	must(chown(node, owner, owner) == 0 && chmod(node, mode) == 0, "chown");
	must(mount(node, "/dev/urandom", NULL, MS_BIND, NULL) == 0, "mount --bind");
}

static int no_openat(const char *k)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#ifdef __NR_open
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof f / sizeof f[0], f };

	must(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS");
	if (!strcmp(k, "prctl-seccomp"))
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p);
}

/* A filter that kills for anything but write and leaving. */
static int allow_only_write_exit(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof f / sizeof f[0], f };

	must(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS");
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0);
}

static int landlock(void)
{
	struct landlock_ruleset_attr a = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE };
	int r = (int)syscall(SYS_landlock_create_ruleset, &a, sizeof a, 0);

	must(r >= 0, "landlock_create_ruleset");
	must(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS");
	return (int)syscall(SYS_landlock_restrict_self, r, 0);
}

/* The change by which this thread gives up its access: 0 done. */
static int give_up(const char *k)
{
	int r = 0;

	if (!strcmp(k, "setuid"))
		r = setuid(OTHER);
	else if (!strcmp(k, "seteuid"))
		r = seteuid(OTHER);
	else if (!strcmp(k, "setreuid"))
		r = setreuid(OTHER, OTHER);
	else if (!strcmp(k, "setresuid"))
		r = setresuid(OTHER, OTHER, OTHER);
	else if (!strcmp(k, "setfsuid"))
		(void)setfsuid(OTHER);
	else if (!strcmp(k, "syscall-setfsuid"))
		r = syscall(SYS_setfsuid, 1000) == 2000 ? 0 : -1;
	else if (!strcmp(k, "syscall-setresuid"))
		r = (int)syscall(SYS_setresuid, OTHER, OTHER, OTHER);
	else if (!strcmp(k, "capset"))
		caps_keep(0);
	else if (!strcmp(k, "setgid"))
		r = setgid(0);
	else if (!strcmp(k, "setegid"))
		r = setegid(0);
	else if (!strcmp(k, "setregid"))
		r = setregid((gid_t)-1, 0);
	else if (!strcmp(k, "setresgid"))
		r = setresgid((gid_t)-1, 0, (gid_t)-1);
	else if (!strcmp(k, "setfsgid"))
		(void)setfsgid(0);
	else if (!strcmp(k, "setgroups"))
		r = setgroups(0, NULL);
	else if (!strcmp(k, "prctl-seccomp") || !strcmp(k, "syscall-seccomp"))
		r = no_openat(k);
	else if (!strcmp(k, "strict"))
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	else if (!strcmp(k, "allowlist"))
		r = allow_only_write_exit();
	else if (!strcmp(k, "landlock"))
		r = landlock();
	else if (!strcmp(k, "chroot"))
		r = chroot(dir);
	else if (!strcmp(k, "unshare-chroot"))
		r = unshare(CLONE_FS) == 0 ? chroot(dir) : -1;
	else
		r = -2;
	return r;
}

/* race-setuid: N runs, each a process whose second thread opens the
 * device twice, makes one non-blocking and reads the other's flags, in a
 * loop, while the first calls setuid (the node root's, 0600).  Natively
 * no open succeeds once the thread's own euid is another's, and the two
 * opens' flags are their own (review 56: the pool's access reached the
 * other threads until setuid returned, and their opens made while it ran
 * shared a description).  Prints how many runs saw either. */
static volatile int race_go;

static void *race_thread(void *v)
{
	(void)v;
	while (!race_go)
		;
	for (;;) {
		uid_t u = geteuid();
		int a = open(path, O_RDONLY), b = open(path, O_RDONLY);

		if (u != 0 && (a >= 0 || b >= 0))
			_exit(3);
		if (a < 0 || b < 0)
			break;
		fcntl(a, F_SETFL, O_NONBLOCK);
		if (fcntl(b, F_GETFL) & O_NONBLOCK)
			_exit(3);
		close(a);
		close(b);
	}
	return NULL;
}

static int race_setuid(int n)
{
	int i, seen = 0;

	for (i = 0; i < n; i++) {
		pid_t p = fork();
		int st = 0;

		if (p == 0) {
			pthread_t t;

			close(open(path, O_RDONLY));  /* the pool in use */
			pthread_create(&t, NULL, race_thread, NULL);
			race_go = 1;
			usleep((useconds_t)(i % 50));
			if (setuid(OTHER) != 0)
				_exit(2);
			pthread_join(t, NULL);
			_exit(0);
		}
		if (p < 0 || waitpid(p, &st, 0) < 0)
			return -1;
		seen += WIFEXITED(st) && WEXITSTATUS(st) == 3;
	}
	printf("%s: %d of %d runs: an open after the change, or a flag reaching the other open\n", kind, seen, n);
	return 0;
}

/* first-clone-chroot: a thread made by clone() without CLONE_FS (a
 * root of its own) chroots before the process's first open; the first
 * thread opens, then the second: natively refused (review 58: the pool
 * the first filled served it). */
static volatile int cl_step;
static int cl_r, cl_e;

static int cl_fn(void *a)
{
	(void)a;
	cl_r = chroot(dir);
	__atomic_store_n(&cl_step, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&cl_step, __ATOMIC_SEQ_CST) != 2)
		;
	cl_r = cl_r ? cl_r : open(path, O_RDONLY);
	cl_e = errno;
	__atomic_store_n(&cl_step, 3, __ATOMIC_SEQ_CST);
	return 0;
}

static int clone_chroot(void)
{
	static char stk[1 << 16] __attribute__((aligned(64)));

	if (clone(cl_fn, stk + sizeof stk, CLONE_VM | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
	          NULL) < 0)
		must(0, "clone");
	while (__atomic_load_n(&cl_step, __ATOMIC_SEQ_CST) != 1)
		;
	try_open("main after");
	try_open("main again");
	__atomic_store_n(&cl_step, 2, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&cl_step, __ATOMIC_SEQ_CST) != 3)
		;
	if (cl_r >= 0)
		printf("%s: worker after: open ok\n", kind);
	else
		printf("%s: worker after: open -1 %s\n", kind, strerrorname_np(cl_e));
	fflush(stdout);
	_exit(0);
}

static pthread_barrier_t bar;

/* thread-KIND: a second thread gives up its access, the first opens (it
 * still may: the pool is filled again), then the second opens. */
static int first;

static void *worker(void *v)
{
	int r = give_up((const char *)v);

	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	must(r == 0, "giving up the access");
	try_open("worker after");
	if (first)
		try_open("worker again");
	else
		held_check("worker held");
	return NULL;
}

/* first-allowlist: the filter before any open, allowing the opens, reads
 * and closes the program makes and little else: the pool must never
 * start under it (review 57: it did, and its own calls were killed). */
static int allow_opens_only(void)
{
#define ALLOW(n) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##n, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(openat), ALLOW(read), ALLOW(close), ALLOW(write), ALLOW(exit), ALLOW(exit_group),
		ALLOW(rt_sigreturn),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
#undef ALLOW
	struct sock_fprog p = { sizeof f / sizeof f[0], f };
	char b[16];
	int i, fd;

	must(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS");
	must(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) == 0, "the filter");
	for (i = 0; i < 3; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b)
			syscall(SYS_exit_group, 3);
		close(fd);
	}
	(void)write(1, "first-allowlist: alive after 3 opens\n", 37);
	syscall(SYS_exit_group, 0);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const users[] = { "setuid", "seteuid", "setreuid", "setresuid",
	                                      "setfsuid", "syscall-setresuid", "capset" };
	static const char *const groups[] = { "setgid", "setegid", "setregid", "setresgid",
	                                      "setfsgid", "setgroups" };
	const gid_t g = GROUP;
	int user = 0, group = 0, thread, r = 0;
	const char *base;
	size_t i;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: prog_sandbox KIND DIR [PATH]\n");
		return 2;
	}
	kind = argv[1];
	dir = argv[2];
	if (argc == 4)
		path = argv[3];
	if (!strcmp(kind, "first-allowlist"))
		return allow_opens_only();
	if (!strcmp(kind, "first-clone-chroot"))
		return clone_chroot();
	/* first-thread-KIND: the second thread gives up its access before
	 * any open of the process's; then the first opens twice, and the
	 * second again (review 57: before the pool's first use, only the
	 * use was held off, and the first thread then filled it for both). */
	first = !strncmp(kind, "first-", 6);
	base = first ? kind + 6 : kind;
	thread = !strncmp(base, "thread-", 7);
	base = thread ? base + 7 : base;
	for (i = 0; i < sizeof users / sizeof users[0]; i++)
		user |= !strcmp(base, users[i]);
	for (i = 0; i < sizeof groups / sizeof groups[0]; i++)
		group |= !strcmp(base, groups[i]);
	if (user || group)
		private_node(argv[2], GROUP, 0040);
	if (!strcmp(kind, "race-setuid")) {
		private_node(argv[2], 0, 0600);
		return race_setuid(200) == 0 ? 0 : 1;
	}
	/* A file-system user other than 0 before: setfsuid answers it, not
	 * 0 (review 55: a raw one was taken for a failure, and not seen). */
	if (!strcmp(base, "syscall-setfsuid")) {
		private_node(argv[2], 2000, 0400);
		must(setresuid(1000, 2000, 0) == 0, "setresuid(1000, 2000, 0)");
	}
	/* Joined: the group's read is this process's only way to the node. */
	if (group) {
		caps_keep(1u << CAP_SETGID);
		if (!strcmp(base, "setgid"))
			r = setgid(g);
		else if (!strcmp(base, "setegid"))
			r = setegid(g);
		else if (!strcmp(base, "setregid"))
			r = setregid((gid_t)-1, g);
		else if (!strcmp(base, "setresgid"))
			r = setresgid((gid_t)-1, g, (gid_t)-1);
		else if (!strcmp(base, "setfsgid"))
			(void)setfsgid(g);
		else
			r = setgroups(1, &g);
		must(r == 0, "joining the group");
	}
	if (!first) {
		try_open("before");
		try_open("before again");
	}
	if (!first && strcmp(kind, "strict") && strcmp(kind, "allowlist"))
		held_open();
	if (thread) {
		pthread_t t;

		pthread_barrier_init(&bar, NULL, 2);
		pthread_create(&t, NULL, worker, (void *)base);
		pthread_barrier_wait(&bar);
		try_open("main after");
		if (first)
			try_open("main again");
		pthread_barrier_wait(&bar);
		pthread_join(t, NULL);
		return 0;
	}
	fflush(stdout);
	r = give_up(kind);
	/* Only write and exit are left (strict), or allowed (allowlist):
	 * nothing of ours may make another call. */
	if (r == 0 && (!strcmp(kind, "strict") || !strcmp(kind, "allowlist"))) {
		static const char alive[] = ": alive in the sandbox\n";

		(void)write(1, kind, strlen(kind));
		(void)write(1, alive, sizeof alive - 1);
		syscall(SYS_exit, 0);
	}
	if (r == -2) {
		fprintf(stderr, "prog_sandbox: unknown kind %s\n", kind);
		return 2;
	}
	must(r == 0, "giving up the access");
	try_open("after");
	held_check("held");
	return 0;
}
