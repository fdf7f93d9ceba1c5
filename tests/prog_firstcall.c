/* SPDX-License-Identifier: MIT */
/*
 * prog_firstcall: one harmless call of every function fastpath.so
 * exports, each the FIRST call of that function in a fresh process, and
 * what it did to the state the program owns behind the C library and the
 * dynamic linker: a pending dlerror() message, errno, the environment.
 * t_firstcall.sh runs it natively and under fastpath.so (with each opt-in
 * mitigation on) and wants every line as natively; it also fails when
 * the object exports a name that `list` does not print.
 *
 *   list      the table's names, one a line (skipped entries too)
 *   all       every entry, each in a process of its own (this program
 *             re-executed as "one NAME"), one line each, in table order
 *   all early the same, each call made before main: from the constructor
 *             of tests/libfirstcall_early.so, preloaded after fastpath.so
 *             so that it runs before fastpath.so's own (the loader
 *             initialises the later preload first); the lines then end
 *             in " early"
 *   all preinit
 *             the same from this program's .preinit_array, before any
 *             object's initialisation, the C library's too (environ is
 *             still NULL); the lines end in " early"
 *   one NAME  that entry alone, in this process
 *   exit      nothing (what the spawn entries start)
 *
 * A line: "NAME ret=R errno=E dlerror=D env=S", where R is the entry's
 * result (pointers, descriptors and counts that vary between runs are
 * folded to 0, a failure is -1), E the errno name after a failure and,
 * after a success, "kept" (the sentinel set before the call is still
 * there) or "changed" (libc promises nothing then, so no value is
 * shown), D "kept", "lost" (dlerror() returned NULL) or "changed"
 * (another message), and S "same" or "changed" (environ, its pointers or
 * its strings).  An entry that cannot be looked at after its call
 * prints "NAME skipped: WHY".
 *
 * Before the call and after any set-up, the process has failed a dlopen
 * (a message is pending), taken a snapshot of environ and set errno to
 * ENOTRECOVERABLE.  The set-up uses functions fastpath does not wrap
 * where it can (pipe2, memfd_create, socketpair, tmpfile); where it
 * cannot (closedir needs a DIR), the entry says so in its comment.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef __linux__
#include <stdio.h>
int main(void)
{
	puts("prog_firstcall: Linux only");
	return 2;
}
#else
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <utmp.h>
#include <pty.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#define FC_GLIBC(maj, min) __GLIBC_PREREQ(maj, min)
#else
#define FC_GLIBC(maj, min) 0
#endif

extern char **environ;

#define FC_SENTINEL ENOTRECOVERABLE
#define FC_MISSING "libfp-firstcall-none.so"
/* Paths that exist nowhere, and files the cpus mitigation serves. */
#define FC_NOWHERE "/nonexistent/fp-firstcall"
#define FC_CPUFILE "/sys/devices/system/cpu/online"
#define FC_CPUDIR "/sys/devices/system/cpu"

/* The kernel's structures, which no C library header declares. */
int capset(void *h, const void *d);

/* ---- the state before the call ----------------------------------------- */

#define FC_ENVMAX 4096
static char **env_was;
static char *env_ptrs[FC_ENVMAX];
static size_t env_n;
static uint64_t env_hash;

static uint64_t env_digest(size_t *n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i = 0;

	for (char **e = environ; e && *e; e++, i++) {
		for (const unsigned char *c = (const unsigned char *)*e; *c; c++)
			h = (h ^ *c) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	*n = i;
	return h;
}

/* fc_arm: the state the call must leave as it finds it; called by each
 * entry after its set-up, right before its call.  errno is set last. */
static void fc_arm(void)
{
	size_t i;

	if (dlopen(FC_MISSING, RTLD_NOW)) {
		fprintf(stderr, "prog_firstcall: %s loaded?\n", FC_MISSING);
		_exit(3);
	}
	env_was = environ;
	env_hash = env_digest(&env_n);
	for (i = 0; i < env_n && i < FC_ENVMAX; i++)
		env_ptrs[i] = environ[i];
	errno = FC_SENTINEL;
}

static const char *env_state(void)
{
	size_t n, i;

	if (environ != env_was || env_digest(&n) != env_hash || n != env_n)
		return "changed";
	for (i = 0; i < n && i < FC_ENVMAX; i++)
		if (environ[i] != env_ptrs[i])
			return "changed";
	return "same";
}

/* ---- set-up that goes through nothing of fastpath's ------------------- */

/* A pipe holding "abc". */
static void pipe_abc(int p[2])
{
	if (pipe2(p, O_CLOEXEC) != 0 || write(p[1], "abc", 3) != 3)
		_exit(3);
}

/* A memory file holding "abc", its offset at the end. */
static int memfd_abc(void)
{
	int fd = memfd_create("fp-firstcall", MFD_CLOEXEC);

	if (fd < 0 || write(fd, "abc", 3) != 3)
		_exit(3);
	return fd;
}

static int sock_one(void)
{
	int s[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) != 0)
		_exit(3);
	return s[0];
}

/* A stream on a file of its own (tmpfile opens inside the C library). */
static FILE *memfile(void)
{
	FILE *f = tmpfile();

	if (!f)
		_exit(3);
	return f;
}

/* A stream over a file the cpus mitigation serves, where there is one
 * (no /proc: a file of its own, for the natively-runs check). */
static FILE *seekfile(void)
{
	FILE *f = fopen("/proc/stat", "r");

	return f ? f : memfile();
}

/* "/proc/self/fd/N" of a socket: the readlink mitigation's case. */
static const char *sock_link(void)
{
	static char path[64];

	snprintf(path, sizeof path, "/proc/self/fd/%d", sock_one());
	return path;
}

static cpu_set_t *cpu0(void)
{
	static cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return &set;
}

/* What the exec family fails to run, and the spawns run: this program,
 * which exits at once (itself, so that a build for another ABI or C
 * library starts its own kind, not the system's shell): the path the
 * kernel was given at exec, which needs no /proc (t_firstcall runs it
 * with /proc hidden too); /proc/self/exe where that is not absolute. */
static char *const fc_argv[] = { "prog_firstcall", "exit", NULL };
static const char *fc_self(void)
{
	const char *p = (const char *)getauxval(AT_EXECFN); // NOLINT(performance-no-int-to-ptr)

	return p && p[0] == '/' ? p : "/proc/self/exe";
}
#define FC_SELF fc_self()

/* Results whose value varies between runs fold to 0; a failure is -1. */
#define FD(x) ((x) >= 0 ? 0L : -1L)
#define PTR(p) ((p) ? 0L : -1L)

/* A child: waited for with errno kept as the call left it. */
static long reaped(pid_t pid)
{
	int e = errno, st;

	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	errno = e;
	return FD(pid);
}

/* ---- the entries: one function each ------------------------------------ */

#define ENTRY(sym) static long fc_##sym(void)

ENTRY(access)
{
	fc_arm();
	return access(FC_CPUFILE, R_OK);
}

ENTRY(faccessat)
{
	fc_arm();
	return faccessat(AT_FDCWD, FC_CPUFILE, R_OK, 0);
}

/* access with the effective ids (glibc and musl both have it). */
ENTRY(euidaccess)
{
	fc_arm();
	return euidaccess(FC_CPUFILE, R_OK);
}

ENTRY(eaccess)
{
	fc_arm();
	return eaccess(FC_CPUFILE, R_OK);
}

ENTRY(chroot)
{
	fc_arm();
	return chroot(FC_NOWHERE);
}

ENTRY(mount)
{
	fc_arm();
	return mount("none", FC_NOWHERE, "tmpfs", 0, NULL);
}

ENTRY(umount)
{
	fc_arm();
	return umount(FC_NOWHERE);
}

ENTRY(umount2)
{
	fc_arm();
	return umount2(FC_NOWHERE, 0);
}

ENTRY(setns)
{
	fc_arm();
	return setns(-1, 0);
}

/* unshare(0) unshares nothing: a success. */
ENTRY(unshare)
{
	fc_arm();
	return unshare(0);
}

/* Who the process is, set to what it is: no change, the hooks run. */
ENTRY(setuid)
{
	uid_t u = getuid();

	fc_arm();
	return setuid(u);
}

ENTRY(setgid)
{
	gid_t g = getgid();

	fc_arm();
	return setgid(g);
}

ENTRY(seteuid)
{
	uid_t u = geteuid();

	fc_arm();
	return seteuid(u);
}

ENTRY(setegid)
{
	gid_t g = getegid();

	fc_arm();
	return setegid(g);
}

ENTRY(setreuid)
{
	fc_arm();
	return setreuid((uid_t)-1, (uid_t)-1);
}

ENTRY(setregid)
{
	fc_arm();
	return setregid((gid_t)-1, (gid_t)-1);
}

ENTRY(setresuid)
{
	fc_arm();
	return setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1);
}

ENTRY(setresgid)
{
	fc_arm();
	return setresgid((gid_t)-1, (gid_t)-1, (gid_t)-1);
}

ENTRY(setgroups)
{
	gid_t g[64];
	int n = getgroups(64, g);

	fc_arm();
	return setgroups(n > 0 ? (size_t)n : 0, g);
}

/* -1 is no id: the current one is answered, nothing changed. */
ENTRY(setfsuid)
{
	fc_arm();
	return setfsuid((uid_t)-1);
}

ENTRY(setfsgid)
{
	fc_arm();
	return setfsgid((gid_t)-1);
}

/* Version 0: EINVAL, the kernel's version written back. */
ENTRY(capset)
{
	static struct { uint32_t version; int pid; } h;

	fc_arm();
	return capset(&h, NULL);
}

/* No such seccomp mode: EINVAL, after the hooks. */
ENTRY(prctl)
{
	fc_arm();
	return prctl(PR_SET_SECCOMP, 99, 0, 0, 0);
}

/* The child returns: the C library's clone ends it with the exit system
 * call, on the small stack below, calling nothing (an _exit of an
 * ASan-built preload there warns of the unknown stack). */
static int clone_child(void *arg)
{
	(void)arg;
	return 0;
}

ENTRY(clone)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));

	fc_arm();
	return reaped(clone(clone_child, stack + sizeof stack, SIGCHLD, NULL));
}

ENTRY(fork)
{
	pid_t pid;

	fc_arm();
	pid = fork();
	if (pid == 0)
		_exit(0);
	return reaped(pid);
}

ENTRY(forkpty)
{
	pid_t pid;
	int m = -1;

	fc_arm();
	pid = forkpty(&m, NULL, NULL, NULL);
	if (pid == 0)
		_exit(0);
	if (m >= 0)
		(void)syscall(SYS_close, m); /* not close(): the entry's own call is forkpty */
	return reaped(pid);
}

/* On no descriptor: the call fails (EBADF) after its setsid, which makes
 * this throwaway process a session leader. */
ENTRY(login_tty)
{
	fc_arm();
	return login_tty(-1);
}

ENTRY(vfork)
{
	pid_t pid;

	fc_arm();
	pid = vfork(); /* NOLINT(clang-analyzer-security.insecureAPI.vfork): under test */
	if (pid == 0)
		_exit(0);
	return reaped(pid);
}

/* An alternate stack armed with SS_AUTODISARM, whose span fastpath keeps
 * for the thread (vfork.c). */
ENTRY(sigaltstack)
{
	static char stack[16384];
	stack_t ss = { .ss_sp = stack, .ss_flags = (int)(1U << 31) /* SS_AUTODISARM */,
	               .ss_size = sizeof stack };

	fc_arm();
	return sigaltstack(&ss, NULL);
}

/* daemon(1, 1): the parent exits inside it (status 0); what prints the
 * line is its child, which keeps this process's output (t_firstcall
 * reads to its end). */
ENTRY(daemon)
{
	fc_arm();
	return daemon(1, 1);
}

ENTRY(close)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return close(p[1]);
}

ENTRY(dup)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return FD(dup(p[0]));
}

ENTRY(dup2)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return dup2(p[0], 100);
}

ENTRY(dup3)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return dup3(p[0], 101, O_CLOEXEC);
}

ENTRY(epoll_ctl)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2], ep = epoll_create1(EPOLL_CLOEXEC);

	pipe_abc(p);
	fc_arm();
	return epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
}

ENTRY(epoll_wait)
{
	struct epoll_event ev;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	fc_arm();
	return epoll_wait(ep, &ev, 1, 0);
}

ENTRY(epoll_pwait)
{
	struct epoll_event ev;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	fc_arm();
	return epoll_pwait(ep, &ev, 1, 0, NULL);
}

/* The exec family, with a program that is nowhere: it fails and returns. */
ENTRY(execve)
{
	fc_arm();
	return execve(FC_NOWHERE, fc_argv, environ);
}

ENTRY(execv)
{
	fc_arm();
	return execv(FC_NOWHERE, fc_argv);
}

ENTRY(execvp)
{
	fc_arm();
	return execvp("fp-firstcall-no-such-command", fc_argv);
}

ENTRY(execvpe)
{
	fc_arm();
	return execvpe("fp-firstcall-no-such-command", fc_argv, environ);
}

ENTRY(execl)
{
	fc_arm();
	return execl(FC_NOWHERE, "sh", (char *)NULL);
}

ENTRY(execlp)
{
	fc_arm();
	return execlp("fp-firstcall-no-such-command", "sh", (char *)NULL);
}

ENTRY(execle)
{
	fc_arm();
	return execle(FC_NOWHERE, "sh", (char *)NULL, environ);
}

ENTRY(fexecve)
{
	fc_arm();
	return fexecve(-1, fc_argv, environ);
}

ENTRY(posix_spawn)
{
	pid_t pid = -1;
	int r;

	fc_arm();
	r = posix_spawn(&pid, FC_SELF, NULL, NULL, fc_argv, environ);
	reaped(pid);
	return r;
}

ENTRY(posix_spawnp)
{
	pid_t pid = -1;
	int r;

	fc_arm();
	r = posix_spawnp(&pid, FC_SELF, NULL, NULL, fc_argv, environ);
	reaped(pid);
	return r;
}

ENTRY(posix_spawn_file_actions_adddup2)
{
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	fc_arm();
	return posix_spawn_file_actions_adddup2(&fa, 0, 1);
}

ENTRY(system)
{
	fc_arm();
	return system("exit 3"); /* NOLINT(cert-env33-c): under test */
}

ENTRY(popen)
{
	fc_arm();
	return PTR(popen("exit 0", "r")); /* NOLINT(cert-env33-c): under test */
}

/* The open family on /dev/urandom: the urandom mitigation's case. */
ENTRY(open)
{
	fc_arm();
	return FD(open("/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(openat)
{
	fc_arm();
	return FD(openat(AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(read)
{
	char buf[8];
	int p[2];

	pipe_abc(p);
	fc_arm();
	return read(p[0], buf, sizeof buf);
}

ENTRY(readv)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	int p[2];

	pipe_abc(p);
	fc_arm();
	return readv(p[0], &iov, 1);
}

ENTRY(pread)
{
	char buf[8];
	int fd = memfd_abc();

	fc_arm();
	return pread(fd, buf, sizeof buf, 0);
}

ENTRY(preadv)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	int fd = memfd_abc();

	fc_arm();
	return preadv(fd, &iov, 1, 0);
}

ENTRY(lseek)
{
	int fd = memfd_abc();

	fc_arm();
	return lseek(fd, 0, SEEK_SET);
}

ENTRY(fcntl)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return fcntl(p[0], F_GETFD);
}

ENTRY(flock)
{
	int fd = memfd_abc();

	fc_arm();
	return flock(fd, LOCK_SH);
}

ENTRY(lockf)
{
	int fd = memfd_abc();

	fc_arm();
	return lockf(fd, F_TEST, 0);
}

ENTRY(ioctl)
{
	int p[2], n = 0;

	pipe_abc(p);
	fc_arm();
	return ioctl(p[0], FIONREAD, &n);
}

ENTRY(fstat)
{
	struct stat st;
	int fd = memfd_abc();

	fc_arm();
	return fstat(fd, &st);
}

ENTRY(stat)
{
	struct stat st;

	fc_arm();
	return stat(FC_CPUFILE, &st);
}

ENTRY(lstat)
{
	struct stat st;

	fc_arm();
	return lstat(FC_CPUFILE, &st);
}

ENTRY(fstatat)
{
	struct stat st;

	fc_arm();
	return fstatat(AT_FDCWD, FC_CPUFILE, &st, 0);
}

ENTRY(realpath)
{
	char out[4096];

	fc_arm();
	return PTR(realpath(FC_CPUFILE, out));
}

ENTRY(mmap)
{
	fc_arm();
	return mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? -1 : 0;
}

ENTRY(sendfile)
{
	off_t off = 0;
	int p[2], fd = memfd_abc();

	pipe_abc(p);
	fc_arm();
	return sendfile(p[1], fd, &off, 3);
}

ENTRY(splice)
{
	loff_t off = 0;
	int p[2], fd = memfd_abc();

	pipe_abc(p);
	fc_arm();
	return splice(fd, &off, p[1], NULL, 3, 0);
}

ENTRY(tee)
{
	int p[2], q[2];

	pipe_abc(p);
	pipe_abc(q);
	fc_arm();
	return tee(p[0], q[1], 3, SPLICE_F_NONBLOCK);
}

ENTRY(sendmsg)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr m;
	int s = sock_one();

	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	fc_arm();
	return sendmsg(s, &m, 0);
}

ENTRY(sendmmsg)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct mmsghdr m;
	int s = sock_one();

	memset(&m, 0, sizeof m);
	m.msg_hdr.msg_iov = &iov;
	m.msg_hdr.msg_iovlen = 1;
	fc_arm();
	return sendmmsg(s, &m, 1, 0);
}

/* The readlink mitigation's case: a socket's link. */
ENTRY(readlink)
{
	const char *path = sock_link();
	char buf[64];

	fc_arm();
	return FD(readlink(path, buf, sizeof buf));
}

ENTRY(readlinkat)
{
	const char *path = sock_link();
	char buf[64];

	fc_arm();
	return FD(readlinkat(AT_FDCWD, path, buf, sizeof buf));
}

/* The stdio streams: fopen of a file the cpus mitigation serves. */
ENTRY(fopen)
{
	fc_arm();
	return PTR(fopen("/proc/cpuinfo", "r"));
}

/* The stream seeks, over a file the cpus mitigation serves. */
ENTRY(rewind)
{
	FILE *f = seekfile();

	fc_arm();
	rewind(f);
	return 0;
}

ENTRY(fseek)
{
	FILE *f = seekfile();

	fc_arm();
	return fseek(f, 0, SEEK_SET);
}

ENTRY(fseeko)
{
	FILE *f = seekfile();

	fc_arm();
	return fseeko(f, 0, SEEK_SET);
}

ENTRY(fsetpos)
{
	FILE *f = seekfile();
	fpos_t pos;

	if (fgetpos(f, &pos) != 0)
		_exit(3);
	fc_arm();
	return fsetpos(f, &pos);
}

ENTRY(freopen)
{
	FILE *f = memfile();

	fc_arm();
	return PTR(freopen("/proc/cpuinfo", "r", f));
}

ENTRY(fdopen)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return PTR(fdopen(p[0], "r"));
}

ENTRY(fclose)
{
	FILE *f = memfile();

	fc_arm();
	return fclose(f);
}

/* The directory calls; closedir, readdir and rewinddir need a DIR, which
 * only opendir (wrapped) gives, and fdopendir a directory's descriptor
 * (open, wrapped): that is their set-up, before the snapshot. */
ENTRY(opendir)
{
	fc_arm();
	return PTR(opendir(FC_CPUDIR));
}

ENTRY(fdopendir)
{
	int fd = open(FC_CPUDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	fc_arm();
	return PTR(fdopendir(fd));
}

ENTRY(readdir)
{
	DIR *d = opendir(FC_CPUDIR);

	fc_arm();
	return PTR(readdir(d));
}

/* Deprecated by glibc 2.24, still called. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
ENTRY(readdir_r)
{
	DIR *d = opendir(FC_CPUDIR);
	struct dirent e, *res;

	fc_arm();
	return readdir_r(d, &e, &res) == 0 && res ? 0 : -1;
}
#pragma GCC diagnostic pop

ENTRY(rewinddir)
{
	DIR *d = opendir(FC_CPUDIR);

	fc_arm();
	rewinddir(d);
	return 0;
}

ENTRY(closedir)
{
	DIR *d = opendir(FC_CPUDIR);

	fc_arm();
	return closedir(d);
}

/* The cpus mitigation's queries. */
ENTRY(sysconf)
{
	fc_arm();
	return FD(sysconf(_SC_NPROCESSORS_ONLN));
}

ENTRY(get_nprocs)
{
	fc_arm();
	return FD(get_nprocs());
}

ENTRY(get_nprocs_conf)
{
	fc_arm();
	return FD(get_nprocs_conf());
}

ENTRY(sched_getaffinity)
{
	cpu_set_t set;

	fc_arm();
	return sched_getaffinity(0, sizeof set, &set);
}

ENTRY(sched_setaffinity)
{
	cpu_set_t *set = cpu0();

	fc_arm();
	return sched_setaffinity(0, sizeof *set, set);
}

ENTRY(pthread_getaffinity_np)
{
	cpu_set_t set;

	fc_arm();
	return pthread_getaffinity_np(pthread_self(), sizeof set, &set);
}

ENTRY(pthread_setaffinity_np)
{
	cpu_set_t *set = cpu0();

	fc_arm();
	return pthread_setaffinity_np(pthread_self(), sizeof *set, set);
}

static void *thread_fn(void *arg)
{
	return arg;
}

ENTRY(pthread_create)
{
	pthread_t t;
	int r, e;

	fc_arm();
	r = pthread_create(&t, NULL, thread_fn, NULL);
	e = errno;
	if (r == 0)
		pthread_join(t, NULL);
	errno = e;
	return r;
}

ENTRY(sched_getcpu)
{
	fc_arm();
	return FD(sched_getcpu());
}

/* The resource limits: set to what they are (read with getrlimit). */
ENTRY(setrlimit)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	fc_arm();
	return setrlimit(RLIMIT_NOFILE, &rl);
}

ENTRY(prlimit)
{
	struct rlimit rl;

	fc_arm();
	return prlimit(0, RLIMIT_NOFILE, NULL, &rl);
}

/* The localtime mitigation's calls. */
ENTRY(localtime)
{
	time_t t = 1700000000;

	fc_arm();
	return PTR(localtime(&t));
}

ENTRY(ctime)
{
	time_t t = 1700000000;

	fc_arm();
	return PTR(ctime(&t));
}

static struct tm *tm_2023(void)
{
	static struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = 123;
	tm.tm_mon = 10;
	tm.tm_mday = 14;
	tm.tm_isdst = -1;
	return &tm;
}

ENTRY(mktime)
{
	struct tm *tm = tm_2023();

	fc_arm();
	return mktime(tm) == (time_t)-1 ? -1 : 0;
}

ENTRY(tzset)
{
	fc_arm();
	tzset();
	return 0;
}

ENTRY(getrandom)
{
	char buf[16];

	fc_arm();
	return getrandom(buf, sizeof buf, GRND_NONBLOCK);
}

ENTRY(getentropy)
{
	char buf[16];

	fc_arm();
	return getentropy(buf, sizeof buf);
}

/* ---- what only some C libraries, versions or ABIs have ----------------- */

/* glibc's alone: its large-file twins (musl has none since 1.2.4), a
 * thread attribute's CPU mask, timelocal. */
#if defined(__GLIBC__)
#define FC_GLIBC_ONLY 1
/* The default thread attribute, read and set back as it is. */
ENTRY(pthread_getattr_default_np)
{
	pthread_attr_t a;

	fc_arm();
	return pthread_getattr_default_np(&a);
}

/* The calling thread's attributes (left to the process's end). */
ENTRY(pthread_getattr_np)
{
	static pthread_attr_t a;

	fc_arm();
	return pthread_getattr_np(pthread_self(), &a);
}

ENTRY(pthread_setattr_default_np)
{
	pthread_attr_t a;

	if (pthread_getattr_default_np(&a) != 0)
		return -1;
	fc_arm();
	return pthread_setattr_default_np(&a);
}

/* glibc's other public names of wrapped functions (fastpath's FP_ALIAS),
 * each called as its first name's entry calls it. */
int __close(int fd);
int __dup2(int fd, int to);
int __fcntl(int fd, int cmd, ...);
pid_t __fork(void);
off_t __lseek(int fd, off_t off, int whence);
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);
ssize_t __pread64(int fd, void *buf, size_t n, off64_t off);
ssize_t __read(int fd, void *buf, size_t n);
long __sysconf(int name);
int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
FILE *_IO_fopen(const char *path, const char *mode);
int _IO_fsetpos(FILE *f, const fpos_t *pos);
int _IO_fsetpos64(FILE *f, const fpos64_t *pos);
FILE *_IO_fdopen(int fd, const char *mode);
int _IO_fclose(FILE *f);
FILE *_IO_popen(const char *cmd, const char *mode);

ENTRY(__close)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return __close(p[1]);
}

ENTRY(__dup2)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return __dup2(p[0], 100);
}

ENTRY(__fcntl)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return __fcntl(p[0], F_GETFD);
}

ENTRY(__fork)
{
	pid_t pid;

	fc_arm();
	pid = __fork();
	if (pid == 0)
		_exit(0);
	return reaped(pid);
}

ENTRY(__lseek)
{
	int fd = memfd_abc();

	fc_arm();
	return __lseek(fd, 0, SEEK_SET);
}

ENTRY(__open)
{
	fc_arm();
	return FD(__open("/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(__open64)
{
	fc_arm();
	return FD(__open64("/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(__pread64)
{
	char buf[8];
	int fd = memfd_abc();

	fc_arm();
	return __pread64(fd, buf, sizeof buf, 0);
}

ENTRY(__read)
{
	char buf[8];
	int p[2];

	pipe_abc(p);
	fc_arm();
	return __read(p[0], buf, sizeof buf);
}

ENTRY(__sysconf)
{
	fc_arm();
	return FD(__sysconf(_SC_NPROCESSORS_ONLN));
}

ENTRY(__clone)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));

	fc_arm();
	return reaped(__clone(clone_child, stack + sizeof stack, SIGCHLD, NULL));
}

ENTRY(_IO_fsetpos)
{
	FILE *f = seekfile();
	fpos_t pos;

	if (fgetpos(f, &pos) != 0)
		_exit(3);
	fc_arm();
	return _IO_fsetpos(f, &pos);
}

ENTRY(_IO_fsetpos64)
{
	FILE *f = seekfile();
	fpos64_t pos;

	if (fgetpos64(f, &pos) != 0)
		_exit(3);
	fc_arm();
	return _IO_fsetpos64(f, &pos);
}

ENTRY(_IO_fopen)
{
	fc_arm();
	return PTR(_IO_fopen("/proc/cpuinfo", "r"));
}

ENTRY(_IO_fdopen)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return PTR(_IO_fdopen(p[0], "r"));
}

ENTRY(_IO_fclose)
{
	FILE *f = memfile();

	fc_arm();
	return _IO_fclose(f);
}

ENTRY(_IO_popen)
{
	fc_arm();
	return PTR(_IO_popen("exit 0", "r")); /* NOLINT(cert-env33-c): under test */
}

ENTRY(pthread_attr_getaffinity_np)
{
	pthread_attr_t a;
	cpu_set_t set;

	pthread_attr_init(&a);
	fc_arm();
	return pthread_attr_getaffinity_np(&a, sizeof set, &set);
}

ENTRY(pthread_attr_setaffinity_np)
{
	pthread_attr_t a;
	cpu_set_t *set = cpu0();

	pthread_attr_init(&a);
	fc_arm();
	return pthread_attr_setaffinity_np(&a, sizeof *set, set);
}

ENTRY(timelocal)
{
	struct tm *tm = tm_2023();

	fc_arm();
	return timelocal(tm) == (time_t)-1 ? -1 : 0;
}

ENTRY(open64)
{
	fc_arm();
	return FD(open64("/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(openat64)
{
	fc_arm();
	return FD(openat64(AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(pread64)
{
	char buf[8];
	int fd = memfd_abc();

	fc_arm();
	return pread64(fd, buf, sizeof buf, 0);
}

ENTRY(lockf64)
{
	int fd = memfd_abc();

	fc_arm();
	return lockf64(fd, F_TEST, 0);
}

ENTRY(preadv64)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	int fd = memfd_abc();

	fc_arm();
	return preadv64(fd, &iov, 1, 0);
}

ENTRY(lseek64)
{
	int fd = memfd_abc();

	fc_arm();
	return lseek64(fd, 0, SEEK_SET);
}

ENTRY(fstat64)
{
	struct stat64 st;
	int fd = memfd_abc();

	fc_arm();
	return fstat64(fd, &st);
}

ENTRY(stat64)
{
	struct stat64 st;

	fc_arm();
	return stat64(FC_CPUFILE, &st);
}

ENTRY(lstat64)
{
	struct stat64 st;

	fc_arm();
	return lstat64(FC_CPUFILE, &st);
}

ENTRY(fstatat64)
{
	struct stat64 st;

	fc_arm();
	return fstatat64(AT_FDCWD, FC_CPUFILE, &st, 0);
}

ENTRY(mmap64)
{
	fc_arm();
	return mmap64(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? -1 : 0;
}

ENTRY(sendfile64)
{
	off64_t off = 0;
	int p[2], fd = memfd_abc();

	pipe_abc(p);
	fc_arm();
	return sendfile64(p[1], fd, &off, 3);
}

ENTRY(fopen64)
{
	fc_arm();
	return PTR(fopen64("/proc/cpuinfo", "r"));
}

ENTRY(fseeko64)
{
	FILE *f = seekfile();

	fc_arm();
	return fseeko64(f, 0, SEEK_SET);
}

ENTRY(fsetpos64)
{
	FILE *f = seekfile();
	fpos64_t pos;

	if (fgetpos64(f, &pos) != 0)
		_exit(3);
	fc_arm();
	return fsetpos64(f, &pos);
}

ENTRY(freopen64)
{
	FILE *f = memfile();

	fc_arm();
	return PTR(freopen64("/proc/cpuinfo", "r", f));
}

ENTRY(readdir64)
{
	DIR *d = opendir(FC_CPUDIR);

	fc_arm();
	return PTR(readdir64(d));
}

ENTRY(setrlimit64)
{
	struct rlimit64 rl;

	getrlimit64(RLIMIT_NOFILE, &rl);
	fc_arm();
	return setrlimit64(RLIMIT_NOFILE, &rl);
}

ENTRY(prlimit64)
{
	struct rlimit64 rl;

	fc_arm();
	return prlimit64(0, RLIMIT_NOFILE, NULL, &rl);
}

/* What -D_FORTIFY_SOURCE builds call; glibc's headers declare them only
 * then. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
/* off_t as libc has it (a long), whatever _FILE_OFFSET_BITS says here. */
ssize_t __pread_chk(int fd, void *buf, size_t n, long off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n, size_t buflen);
/* What programs built before glibc 2.33 call for fstat (no header has
 * it now); the version number is the kernel's struct stat's. */
int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
/* And for stat, lstat and fstatat. */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
/* realpath into a buffer of known size, fortified. */
char *__realpath_chk(const char *path, char *out, size_t outlen);
pid_t __vfork(void);
#if defined(__x86_64__)
#define FC_STAT_VER 1
#else
#define FC_STAT_VER 3
#endif

ENTRY(__open_2)
{
	fc_arm();
	return FD(__open_2("/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(__open64_2)
{
	fc_arm();
	return FD(__open64_2("/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(__openat_2)
{
	fc_arm();
	return FD(__openat_2(AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(__openat64_2)
{
	fc_arm();
	return FD(__openat64_2(AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC));
}

ENTRY(__read_chk)
{
	char buf[8];
	int p[2];

	pipe_abc(p);
	fc_arm();
	return __read_chk(p[0], buf, sizeof buf, sizeof buf);
}

ENTRY(__pread_chk)
{
	char buf[8];
	int fd = memfd_abc();

	fc_arm();
	return __pread_chk(fd, buf, sizeof buf, 0, sizeof buf);
}

ENTRY(__pread64_chk)
{
	char buf[8];
	int fd = memfd_abc();

	fc_arm();
	return __pread64_chk(fd, buf, sizeof buf, 0, sizeof buf);
}

ENTRY(__readlink_chk)
{
	const char *path = sock_link();
	char buf[64];

	fc_arm();
	return FD(__readlink_chk(path, buf, sizeof buf, sizeof buf));
}

ENTRY(__readlinkat_chk)
{
	const char *path = sock_link();
	char buf[64];

	fc_arm();
	return FD(__readlinkat_chk(AT_FDCWD, path, buf, sizeof buf, sizeof buf));
}

ENTRY(__fxstat)
{
	struct stat st;
	int fd = memfd_abc();

	fc_arm();
	return __fxstat(FC_STAT_VER, fd, &st);
}

ENTRY(__fxstat64)
{
	struct stat64 st;
	int fd = memfd_abc();

	fc_arm();
	return __fxstat64(FC_STAT_VER, fd, &st);
}

/* The stat family's and realpath's other names: of a CPU file, as stat's
 * and realpath's entries. */
#define FC_XSTAT(sym, st_type)                                               \
	ENTRY(sym)                                                           \
	{                                                                    \
		st_type st;                                                  \
                                                                             \
		fc_arm();                                                    \
		return sym(FC_STAT_VER, FC_CPUFILE, &st);                    \
	}
FC_XSTAT(__xstat, struct stat)
FC_XSTAT(__xstat64, struct stat64)
FC_XSTAT(__lxstat, struct stat)
FC_XSTAT(__lxstat64, struct stat64)

ENTRY(__fxstatat)
{
	struct stat st;

	fc_arm();
	return __fxstatat(FC_STAT_VER, AT_FDCWD, FC_CPUFILE, &st, 0);
}

ENTRY(__fxstatat64)
{
	struct stat64 st;

	fc_arm();
	return __fxstatat64(FC_STAT_VER, AT_FDCWD, FC_CPUFILE, &st, 0);
}

ENTRY(__realpath_chk)
{
	char out[4096];

	fc_arm();
	return PTR(__realpath_chk(FC_CPUFILE, out, sizeof out));
}

/* The answer kept to the process's exit (still reachable): a free()
 * would be a call after the one looked at. */
static char *fc_canonical;

ENTRY(canonicalize_file_name)
{
	fc_arm();
	fc_canonical = canonicalize_file_name(FC_CPUFILE);
	return PTR(fc_canonical);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
ENTRY(readdir64_r)
{
	DIR *d = opendir(FC_CPUDIR);
	struct dirent64 e, *res;

	fc_arm();
	return readdir64_r(d, &e, &res) == 0 && res ? 0 : -1;
}
#pragma GCC diagnostic pop

ENTRY(__vfork)
{
	pid_t pid;

	fc_arm();
	pid = __vfork();
	if (pid == 0)
		_exit(0);
	return reaped(pid);
}
#endif /* __GLIBC__ */

#if FC_GLIBC(2, 26)
#define FC_PREADV2 1
ENTRY(preadv2)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	int fd = memfd_abc();

	fc_arm();
	return preadv2(fd, &iov, 1, 0, 0);
}

ENTRY(preadv64v2)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	int fd = memfd_abc();

	fc_arm();
	return preadv64v2(fd, &iov, 1, 0, 0);
}
#endif

#if FC_GLIBC(2, 27)
#define FC_COPY_FILE_RANGE 1
ENTRY(copy_file_range)
{
	loff_t in = 0;
	int from = memfd_abc(), to = memfd_abc();

	fc_arm();
	return copy_file_range(from, &in, to, NULL, 3, 0);
}
#endif

#if FC_GLIBC(2, 28)
#define FC_GLIBC_2_28 1
ENTRY(fcntl64)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return fcntl64(p[0], F_GETFD);
}

ENTRY(statx)
{
	struct statx st;

	fc_arm();
	return statx(AT_FDCWD, FC_CPUFILE, 0, STATX_BASIC_STATS, &st);
}
#endif

#if FC_GLIBC(2, 29)
#define FC_GLIBC_2_29 1
ENTRY(getcpu)
{
	unsigned cpu, node;

	fc_arm();
	return getcpu(&cpu, &node);
}

ENTRY(posix_spawn_file_actions_addfchdir_np)
{
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	fc_arm();
	return posix_spawn_file_actions_addfchdir_np(&fa, 0);
}
#endif

#if FC_GLIBC(2, 34)
#define FC_GLIBC_2_34 1
ENTRY(_Fork)
{
	pid_t pid;

	fc_arm();
	pid = _Fork();
	if (pid == 0)
		_exit(0);
	return reaped(pid);
}

ENTRY(close_range)
{
	fc_arm();
	return close_range(900, 910, 0);
}

ENTRY(closefrom)
{
	fc_arm();
	closefrom(900);
	return 0;
}

ENTRY(execveat)
{
	fc_arm();
	return execveat(AT_FDCWD, FC_NOWHERE, fc_argv, environ, 0);
}
#endif

#if FC_GLIBC(2, 36)
#define FC_GLIBC_2_36 1
/* The new mount API on paths that do not exist: each fails. */
ENTRY(move_mount)
{
	fc_arm();
	return move_mount(-1, FC_NOWHERE, -1, FC_NOWHERE "2", 0);
}

ENTRY(fsmount)
{
	fc_arm();
	return fsmount(-1, 0, 0);
}

ENTRY(open_tree)
{
	fc_arm();
	return open_tree(-1, FC_NOWHERE, 0);
}

ENTRY(mount_setattr)
{
	struct mount_attr a;

	memset(&a, 0, sizeof a);
	fc_arm();
	return mount_setattr(-1, FC_NOWHERE, 0, &a, sizeof a);
}
#endif

/* The raw system call, of the call the urandom mitigation counts. */
#if defined(SYS_getrandom)
#define FC_SYSCALL 1
ENTRY(syscall)
{
	char buf[16];

	fc_arm();
	return syscall(SYS_getrandom, buf, sizeof buf, GRND_NONBLOCK);
}
#endif

/* The i386 symbols of programs built with 64-bit time_t (glibc 2.34):
 * what their localtime, fstat, fcntl, ioctl and sendmsg call. */
#if FC_GLIBC(2, 34) && defined(__i386__)
#define FC_TIME64 1
struct tm *__localtime64(const int64_t *t);
char *__ctime64(const int64_t *t);
int64_t __mktime64(struct tm *tm);
int __fcntl_time64(int fd, int cmd, ...);
int __ioctl_time64(int fd, unsigned long req, ...);
int __fstat64_time64(int fd, void *st);
ssize_t __sendmsg64(int fd, const struct msghdr *m, int flags);
int __sendmmsg64(int fd, struct mmsghdr *v, unsigned n, int flags);

ENTRY(__localtime64)
{
	int64_t t = 1700000000;

	fc_arm();
	return PTR(__localtime64(&t));
}

ENTRY(__ctime64)
{
	int64_t t = 1700000000;

	fc_arm();
	return PTR(__ctime64(&t));
}

ENTRY(__mktime64)
{
	struct tm *tm = tm_2023();

	fc_arm();
	return __mktime64(tm) == -1 ? -1 : 0;
}

ENTRY(__fcntl_time64)
{
	int p[2];

	pipe_abc(p);
	fc_arm();
	return __fcntl_time64(p[0], F_GETFD);
}

ENTRY(__ioctl_time64)
{
	int p[2], n = 0;

	pipe_abc(p);
	fc_arm();
	return __ioctl_time64(p[0], FIONREAD, &n);
}

ENTRY(__fstat64_time64)
{
	/* struct __stat64_t64: 96 bytes on i386; room to spare. */
	static char st[256] __attribute__((aligned(16)));
	int fd = memfd_abc();

	fc_arm();
	return __fstat64_time64(fd, st);
}

ENTRY(__sendmsg64)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr m;
	int s = sock_one();

	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	fc_arm();
	return __sendmsg64(s, &m, 0);
}

ENTRY(__sendmmsg64)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct mmsghdr m;
	int s = sock_one();

	memset(&m, 0, sizeof m);
	m.msg_hdr.msg_iov = &iov;
	m.msg_hdr.msg_iovlen = 1;
	fc_arm();
	return __sendmmsg64(s, &m, 1, 0);
}
#endif

/* ---- the table ----------------------------------------------------------- */

struct fc_entry {
	const char *name;
	long (*call)(void);
	const char *skip; /* why it is not run here */
};

#define RUN(sym) { #sym, fc_##sym, NULL }
#define SKIP(sym, why) { #sym, NULL, why }
/* RUN where the guard above defined it, else SKIP: not in this C
 * library (a name fastpath.so exports elsewhere). */
#define NOLIB "not in this C library, version or ABI"
#ifdef FC_GLIBC_ONLY
#define GLIBC(sym) RUN(sym)
#else
#define GLIBC(sym) SKIP(sym, NOLIB)
#endif

static const struct fc_entry table[] = {
	SKIP(_exit, "does not return: nothing left to look at"),
	SKIP(_Exit, "does not return: nothing left to look at"),
	SKIP(fastpath_object_marker, "fastpath's own marker, not a wrapper (no C library has it)"),
	SKIP(_init, "the C runtime's (a musl build exports it), not a wrapper"),
	SKIP(_fini, "the C runtime's (a musl build exports it), not a wrapper"),
	SKIP(__sysconf_xpg5, "illumos only"),
	RUN(access),
	RUN(faccessat),
	RUN(euidaccess),
	RUN(eaccess),
	RUN(chroot),
	RUN(mount),
	RUN(umount),
	RUN(umount2),
	RUN(setns),
	RUN(unshare),
	RUN(setuid),
	RUN(setgid),
	RUN(seteuid),
	RUN(setegid),
	RUN(setreuid),
	RUN(setregid),
	RUN(setresuid),
	RUN(setresgid),
	RUN(setgroups),
	RUN(setfsuid),
	RUN(setfsgid),
	RUN(capset),
	RUN(prctl),
	RUN(clone),
	RUN(fork),
	RUN(vfork),
	RUN(sigaltstack),
	RUN(daemon),
	RUN(forkpty),
	RUN(login_tty),
	RUN(close),
	RUN(dup),
	RUN(dup2),
	RUN(dup3),
	RUN(epoll_ctl),
	RUN(epoll_wait),
	RUN(epoll_pwait),
	RUN(execve),
	RUN(execv),
	RUN(execvp),
	RUN(execvpe),
	RUN(execl),
	RUN(execlp),
	RUN(execle),
	RUN(fexecve),
	RUN(posix_spawn),
	RUN(posix_spawnp),
	RUN(posix_spawn_file_actions_adddup2),
	RUN(system),
	RUN(popen),
	RUN(open),
	RUN(openat),
	RUN(read),
	RUN(readv),
	RUN(pread),
	RUN(preadv),
	RUN(lseek),
	RUN(fcntl),
	RUN(flock),
	RUN(lockf),
	RUN(ioctl),
	RUN(fstat),
	RUN(stat),
	RUN(lstat),
	RUN(fstatat),
	RUN(realpath),
	RUN(mmap),
	RUN(sendfile),
	RUN(splice),
	RUN(tee),
	RUN(sendmsg),
	RUN(sendmmsg),
	RUN(readlink),
	RUN(readlinkat),
	RUN(fopen),
	RUN(rewind),
	RUN(fseek),
	RUN(fseeko),
	RUN(fsetpos),
	RUN(freopen),
	RUN(fdopen),
	RUN(fclose),
	RUN(opendir),
	RUN(fdopendir),
	RUN(readdir),
	RUN(readdir_r),
	RUN(rewinddir),
	RUN(closedir),
	RUN(sysconf),
	RUN(get_nprocs),
	RUN(get_nprocs_conf),
	RUN(sched_getaffinity),
	RUN(sched_setaffinity),
	RUN(pthread_getaffinity_np),
	RUN(pthread_setaffinity_np),
	RUN(pthread_create),
	RUN(sched_getcpu),
	RUN(setrlimit),
	RUN(prlimit),
	RUN(localtime),
	RUN(ctime),
	RUN(mktime),
	RUN(tzset),
	RUN(getrandom),
	RUN(getentropy),
	GLIBC(pthread_attr_getaffinity_np),
	GLIBC(pthread_getattr_default_np),
	GLIBC(pthread_getattr_np),
	GLIBC(pthread_setattr_default_np),
	GLIBC(__close),
	GLIBC(__dup2),
	GLIBC(__fcntl),
	GLIBC(__fork),
	GLIBC(__lseek),
	GLIBC(__open),
	GLIBC(__open64),
	GLIBC(__pread64),
	GLIBC(__read),
	GLIBC(__sysconf),
	GLIBC(__clone),
	GLIBC(_IO_fopen),
	GLIBC(_IO_fsetpos),
	GLIBC(_IO_fsetpos64),
	GLIBC(_IO_fdopen),
	GLIBC(_IO_fclose),
	GLIBC(_IO_popen),
	GLIBC(pthread_attr_setaffinity_np),
	GLIBC(timelocal),
	GLIBC(open64),
	GLIBC(openat64),
	GLIBC(pread64),
	GLIBC(lockf64),
	GLIBC(preadv64),
	GLIBC(lseek64),
	GLIBC(fstat64),
	GLIBC(stat64),
	GLIBC(lstat64),
	GLIBC(fstatat64),
	GLIBC(mmap64),
	GLIBC(sendfile64),
	GLIBC(fopen64),
	GLIBC(fseeko64),
	GLIBC(fsetpos64),
	GLIBC(freopen64),
	GLIBC(readdir64),
	GLIBC(setrlimit64),
	GLIBC(prlimit64),
	GLIBC(__open_2),
	GLIBC(__open64_2),
	GLIBC(__openat_2),
	GLIBC(__openat64_2),
	GLIBC(__read_chk),
	GLIBC(__pread_chk),
	GLIBC(__pread64_chk),
	GLIBC(__readlink_chk),
	GLIBC(__readlinkat_chk),
	GLIBC(__fxstat),
	GLIBC(__fxstat64),
	GLIBC(__xstat),
	GLIBC(__xstat64),
	GLIBC(__lxstat),
	GLIBC(__lxstat64),
	GLIBC(__fxstatat),
	GLIBC(__fxstatat64),
	GLIBC(__realpath_chk),
	GLIBC(canonicalize_file_name),
	GLIBC(readdir64_r),
	GLIBC(__vfork),
#ifdef FC_PREADV2
	RUN(preadv2),
	RUN(preadv64v2),
#else
	SKIP(preadv2, NOLIB),
	SKIP(preadv64v2, NOLIB),
#endif
#ifdef FC_COPY_FILE_RANGE
	RUN(copy_file_range),
#else
	SKIP(copy_file_range, NOLIB),
#endif
#ifdef FC_GLIBC_2_28
	RUN(fcntl64),
	RUN(statx),
#else
	SKIP(fcntl64, NOLIB),
	SKIP(statx, NOLIB),
#endif
#ifdef FC_GLIBC_2_29
	RUN(getcpu),
	RUN(posix_spawn_file_actions_addfchdir_np),
#else
	SKIP(getcpu, NOLIB),
	SKIP(posix_spawn_file_actions_addfchdir_np, NOLIB),
#endif
#ifdef FC_GLIBC_2_34
	RUN(_Fork),
	RUN(close_range),
	RUN(closefrom),
	RUN(execveat),
#else
	SKIP(_Fork, NOLIB),
	SKIP(close_range, NOLIB),
	SKIP(closefrom, NOLIB),
	SKIP(execveat, NOLIB),
#endif
#ifdef FC_GLIBC_2_36
	RUN(move_mount),
	RUN(fsmount),
	RUN(open_tree),
	RUN(mount_setattr),
#else
	SKIP(move_mount, NOLIB),
	SKIP(fsmount, NOLIB),
	SKIP(open_tree, NOLIB),
	SKIP(mount_setattr, NOLIB),
#endif
#ifdef FC_SYSCALL
	RUN(syscall),
#else
	SKIP(syscall, NOLIB),
#endif
#ifdef FC_TIME64
	RUN(__localtime64),
	RUN(__ctime64),
	RUN(__mktime64),
	RUN(__fcntl_time64),
	RUN(__ioctl_time64),
	RUN(__fstat64_time64),
	RUN(__sendmsg64),
	RUN(__sendmmsg64),
#else
	SKIP(__localtime64, NOLIB),
	SKIP(__ctime64, NOLIB),
	SKIP(__mktime64, NOLIB),
	SKIP(__fcntl_time64, NOLIB),
	SKIP(__ioctl_time64, NOLIB),
	SKIP(__fstat64_time64, NOLIB),
	SKIP(__sendmsg64, NOLIB),
	SKIP(__sendmmsg64, NOLIB),
#endif
};
#define NTABLE (sizeof table / sizeof table[0])

/* ---- running them ------------------------------------------------------ */

static const char *errname(int e, char *buf, size_t n)
{
#if FC_GLIBC(2, 32)
	const char *s = strerrorname_np(e);

	if (s)
		return s;
#endif
	snprintf(buf, n, "%d", e);
	return buf;
}

static int fc_in_ctor, fc_early_done;

static int one(const struct fc_entry *e)
{
	char eb[16];
	long r;
	int err;
	const char *d;

	if (!e->call) {
		printf("%s skipped: %s\n", e->name, e->skip);
		return 0;
	}
	r = e->call();
	err = errno;
	d = dlerror();
	d = !d ? "lost" : strstr(d, FC_MISSING) ? "kept" : "changed";
	printf("%s ret=%ld errno=%s dlerror=%s env=%s%s\n", e->name, r,
	       r == -1 ? errname(err, eb, sizeof eb) : err == FC_SENTINEL ? "kept" : "changed", d,
	       env_state(), fc_in_ctor ? " early" : "");
	return 0;
}

/* The entry V ("NAME:PID") names, made here if PID is this process: the
 * children the spawn entries start inherit the variable and must not
 * make the call again. */
static void fc_named(const char *v)
{
	const char *colon;
	size_t i, n;

	if (!v || !(colon = strrchr(v, ':')) || atol(colon + 1) != (long)getpid())
		return;
	n = (size_t)(colon - v);
	for (i = 0; i < NTABLE; i++)
		if (strlen(table[i].name) == n && strncmp(table[i].name, v, n) == 0) {
			fc_in_ctor = 1;
			fc_early_done = 1;
			(void)one(&table[i]);
			fc_in_ctor = 0;
			fflush(stdout);
			return;
		}
}

/* "all early": called by tests/libfirstcall_early.so's constructor,
 * before main and before fastpath.so's constructor; FC_EARLY=NAME:PID. */
__attribute__((visibility("default"))) void fc_early(void);
void fc_early(void)
{
	fc_named(getenv("FC_EARLY"));
}

/* "all preinit": from this program's .preinit_array, which glibc runs
 * before any object's initialisation, the C library's own included:
 * environ is still NULL, so FC_PREINIT=NAME:PID is read from the envp
 * glibc passes (ASan's runtime starts from there). */
static void fc_preinit(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	for (; envp && *envp; envp++)
		if (strncmp(*envp, "FC_PREINIT=", 11) == 0) {
			fc_named(*envp + 11);
			return;
		}
}
__attribute__((section(".preinit_array"), used)) static void (*const fc_preinit_at)(int, char **, char **) =
	fc_preinit;

/* The environment this process was started with, for the entries'
 * processes: the kernel's array, which follows argv on the stack and
 * which no setenv changes (a preload that changes environ at start-up,
 * FASTPATH_TZ=1 setting TZ, makes a new array): each of them must make
 * its own change again, not find it done by this one.  Read from there,
 * not /proc/self/environ: the runs with /proc hidden need it too. */
static char **fc_env0;

/* Each entry in a process of its own, this program re-executed: its
 * output is read to the end (a daemon's child writes it), then its
 * status is looked at.  Nothing of the table is called here first. */
static int all(const char *early)
{
	static char *envx[4096 + 2], var[256];
	char **env = fc_env0;
	size_t i, nenv = 0;

	/* early: the environment and FC_EARLY=NAME:PID, made in the child */
	while (env[nenv] && nenv < 4096)
		nenv++;
	memcpy(envx, env, nenv * sizeof *env);
	envx[nenv + 1] = NULL;

	for (i = 0; i < NTABLE; i++) {
		char buf[512];
		size_t got = 0;
		ssize_t n;
		int p[2], st;
		pid_t pid;

		fflush(stdout);
		if (pipe2(p, O_CLOEXEC) != 0)
			return 2;
		pid = fork();
		if (pid == 0) {
			char *args[] = { "prog_firstcall", "one", (char *)table[i].name, NULL };

			dup2(p[1], 1);
			if (early) {
				snprintf(var, sizeof var, "%s=%s:%ld", early, table[i].name, (long)getpid());
				envx[nenv] = var;
				env = envx;
			}
			execve(FC_SELF, args, env);
			_exit(127);
		}
		close(p[1]);
		while (got < sizeof buf - 1 && (n = read(p[0], buf + got, sizeof buf - 1 - got)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			got += (size_t)n;
		}
		close(p[0]);
		buf[got] = 0;
		if (pid < 0 || waitpid(pid, &st, 0) != pid)
			return 2;
		fputs(buf, stdout);
		if (got == 0 || buf[got - 1] != '\n')
			putchar('\n');
		if (WIFSIGNALED(st))
			printf("%s died: signal %d\n", table[i].name, WTERMSIG(st));
		else if (WEXITSTATUS(st) != 0)
			printf("%s exit %d\n", table[i].name, WEXITSTATUS(st));
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	fc_env0 = &argv[argc + 1];

	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		for (i = 0; i < NTABLE; i++)
			puts(table[i].name);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "all") == 0)
		return all(NULL);
	if (argc == 3 && strcmp(argv[1], "all") == 0 && strcmp(argv[2], "early") == 0)
		return all("FC_EARLY");
	if (argc == 3 && strcmp(argv[1], "all") == 0 && strcmp(argv[2], "preinit") == 0)
		return all("FC_PREINIT");
	if (argc == 2 && strcmp(argv[1], "exit") == 0)
		return 0;
	if (argc == 3 && strcmp(argv[1], "one") == 0) {
		if (fc_early_done)
			return 0; /* its line came from the constructor */
		for (i = 0; i < NTABLE; i++)
			if (strcmp(table[i].name, argv[2]) == 0)
				return one(&table[i]);
		fprintf(stderr, "prog_firstcall: no entry %s\n", argv[2]);
		return 2;
	}
	fprintf(stderr, "usage: prog_firstcall list | all [early|preinit] | one NAME\n");
	return 2;
}
#endif /* __linux__ */
