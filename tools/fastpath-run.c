/* SPDX-License-Identifier: MIT */
/*
 * fastpath-run: how `interpose --survey` starts and waits for the command.
 *
 *   fastpath-run N [THEN...] COMMAND [ARG]...
 *
 * Runs COMMAND as a child that starts as a shell's foreground command
 * would: the standard streams, signal dispositions, signal mask, process
 * group and terminal this process was given (a shell's asynchronous
 * command gets stdin from /dev/null and SIGINT and SIGQUIT ignored, which
 * is why the survey is not started by `&`).  The signals in fp_fwd[] sent
 * to this process are passed on to the command; it is waited for; then
 * the N words THEN are exec'd with three more: the command's pid, its
 * status as a shell's $? (the exit code, or 128 plus the signal number),
 * and the signal number (0 when it exited).  With N = 0 this process ends
 * as the command did: the same exit code, or death by the same signal.
 *
 *   fastpath-run --report FILE N [THEN...] COMMAND [ARG]...
 *
 * The same, and THEN runs with its standard output on FILE (an absolute
 * path), emptied once the command has ended.  FILE is opened before the
 * command starts, as fastpath.so opens its own files (outfile.c, built in
 * here): every directory on the way owned by root or by us and writable
 * by nobody else unless sticky, the file itself not a symbolic link (not
 * followed), a regular file of ours with one link, created if missing;
 * refused, nothing runs (125).  A shell's `>` would follow a link another
 * user planted and empty whatever it names.
 *
 *   fastpath-run --check-report FILE
 *
 * Only opens FILE so (made if missing, left as it was), and says why not.
 *
 *   fastpath-run --pin N COMMAND [ARG]...
 *
 * interpose --pin where there is no taskset(1): sets this process's real
 * affinity to the first N CPUs it may use, then execs COMMAND (same pid).
 *
 *   fastpath-run --reach FILE [OBJECT]...
 *
 * interpose's reach check: what it says of FILE, in one process (reach.c).
 *
 *   fastpath-run --records
 *
 * interpose --survey-report's reader: the record names on stdin, each
 * opened safely and its lines passed on after its name (fp_records).
 *
 *   fastpath-run --die-of SIGNAL
 *
 * interpose --survey's end: dies of SIGNAL, the command's, its default
 * action given back (a shell cannot where it was ignored at its start).
 *
 *   fastpath-run --env-of PID [ARGBYTES]
 *   fastpath-run --exec-args COUNT ENTRY... [NAME=VALUE]... -- COMMAND [ARG]...
 *   fastpath-run --setenv [NAME=VALUE]... -- COMMAND [ARG]...
 *
 * The environment interpose was given, passed on as it was (a cold
 * review: the shell interpose runs in drops the entries whose names are
 * not a shell's, bash's exported functions among them, keeps one of each
 * name, resets PWD, IFS, OPTIND and PPID and exports its own values of
 * names it assigns).  --env-of prints the environment the kernel gave
 * process PID (interpose's shell: /proc/PID/environ), an entry a line
 * (fp_env_escape),
 * for the shell to hand to --exec-args as words (fp_env_of); --exec-args
 * sets interpose's settings in it and execs COMMAND as env(1) does: not
 * found 127, any other failure 126, with the reason.  --setenv does the
 * same on its own environment.  Either, and the survey's start, may
 * follow --close N: that descriptor closed first (interpose's script,
 * which dash leaves open across exec when it opened it at 10 or above,
 * bash at 2 where standard error was closed).
 *
 * Not part of fastpath.so: an ordinary program, built by `make` beside it
 * and installed with it (interpose finds it the same way).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/statfs.h>
#define FP_LINUX 1 /* (outfile.c's test, fp_platform.h's in the object) */
#else
#include <sys/statvfs.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reach.h"
/* outfile.c's checks, on the plain C library: what fastpath.so reaches
 * through its own system-call and formatting helpers. */
#define FP_OUTFILE_ALONE 1
#define FP_OF_REFUSED (-2)
struct fp_buf {
	char *p;
	size_t len, cap;
};

static void fp_buf_str(struct fp_buf *b, const char *s)
{
	while (*s && b->len + 1 < b->cap)
		b->p[b->len++] = *s++;
	if (b->cap)
		b->p[b->len] = '\0';
}

static void fp_buf_long(struct fp_buf *b, long v)
{
	char tmp[32];

	snprintf(tmp, sizeof tmp, "%ld", v);
	fp_buf_str(b, tmp);
}

static long fp_raw_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return openat(dirfd, path, flags, mode);
}

static int fp_raw_close(int fd)
{
	return close(fd);
}

static int fp_fstat(int fd, struct stat *st)
{
	return fstat(fd, st);
}

static int fp_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return fstatat(dirfd, path, st, flags);
}

int fp_of_opendir(const char *dir, size_t dirlen, char *why, size_t whylen);
int fp_of_append(const char *dir, size_t dirlen, const char *name, char *why, size_t whylen);
#include "../outfile.c" // NOLINT(bugprone-suspicious-include): the same checks, built in

/* --report FILE: the file, open; or the reason, and nothing runs. */
static int fp_report_open(const char *path)
{
	const char *slash = strrchr(path, '/');
	char why[512];
	int fd;

	if (path[0] != '/' || !slash) {
		fprintf(stderr, "interpose: --survey=%s: not an absolute path\n", path);
		_exit(125);
	}
	fd = fp_of_append(path, (size_t)(slash - path) + 1, slash + 1, why, sizeof why);
	if (fd < 0) {
		fprintf(stderr, "interpose: --survey=%s: %s\n", path, why);
		_exit(125);
	}
	return fd;
}

/* What `interpose --survey` forwarded as a shell (HUP, INT, TERM), the
 * other signals a supervisor may send to a command's pid (runit's and
 * s6's ALRM, nginx's and apache's WINCH: a cold review), and the
 * realtime ones.  Not the stops nor CONT (this process cannot stop for
 * the command), nor PIPE (this process's own writes would meet EPIPE
 * instead of their death), nor the faults. */
static const int fp_fwd[] = { SIGHUP,  SIGINT,  SIGQUIT,   SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
	                      SIGWINCH, SIGURG, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
#ifdef SIGPWR
	                      SIGPWR,
#endif
};
#define FP_NFWD (sizeof fp_fwd / sizeof fp_fwd[0])

__attribute__((noreturn)) static void fp_die(const char *what, const char *arg, int err, int status)
{
	fprintf(stderr, "interpose: %s%s%s\n", arg ? arg : "", arg ? ": " : "",
	        err ? strerror(err) : what);
	_exit(status); /* also in the fork child: no atexit, no stdio flush */
}

/* Whether a signal this process received should be passed on: not one the
 * terminal sent to the whole foreground process group (the command, in the
 * same group, has it already), nor one the command sent to us. */
static int fp_should_forward(const siginfo_t *si, pid_t child)
{
	if (si->si_code > 0)
		return 0;
	return si->si_pid != child;
}

/* Waits for the child, forwarding; returns its wait status. */
static int fp_wait(pid_t child, const sigset_t *set)
{
	siginfo_t si;
	pid_t pid;
	int st, sig;

	for (;;) {
		sig = sigwaitinfo(set, &si);
		if (sig < 0)
			continue; /* EINTR: a signal outside the set (SIGCONT) */
		if (sig != SIGCHLD) {
			if (!fp_should_forward(&si, child))
				continue;
#if defined(__linux__) && defined(SYS_rt_sigqueueinfo)
			/* sigqueue's value and sender as sent (a cold review:
			 * kill() gave the command 0 and our pid) */
			if (si.si_code < 0 && syscall(SYS_rt_sigqueueinfo, child, sig, &si) == 0)
				continue;
#endif
			(void)kill(child, sig);
			continue;
		}
		pid = waitpid(child, &st, WNOHANG);
		if (pid == child)
			return st;
		/* Reaped by someone else (cannot happen with SIGCHLD at its
		 * default): the status is lost, as a shell's would be. */
		if (pid < 0 && errno == ECHILD)
			return 127 << 8;
	}
}

/* Consumes what arrived for us after the child ended, so that unblocking
 * the set does not kill this process before it reports. */
static void fp_drain(const sigset_t *set)
{
	struct timespec zero = { 0, 0 };

	while (sigtimedwait(set, NULL, &zero) > 0)
		;
}

/* N = 0: end as the command did.  The core, if any, was the command's to
 * dump: ours would only overwrite it. */
static void fp_end_like(int st)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t one;

	if (!WIFSIGNALED(st))
		exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
	(void)setrlimit(RLIMIT_CORE, &no_core);
	signal(WTERMSIG(st), SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, WTERMSIG(st));
	(void)sigprocmask(SIG_UNBLOCK, &one, NULL);
	(void)kill(getpid(), WTERMSIG(st));
	exit(128 + WTERMSIG(st)); /* a signal that does not end a process */
}

/* Execs THEN with the pid, the shell-style status and the signal. */
static void fp_then(char **then, int n, pid_t child, int st)
{
	char **av = calloc((size_t)n + 4, sizeof *av);
	char num[3][24];
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;

	if (!av)
		fp_die("out of memory", NULL, 0, 125);
	memcpy(av, then, (size_t)n * sizeof *av);
	snprintf(num[0], sizeof num[0], "%ld", (long)child);
	snprintf(num[1], sizeof num[1], "%d", sig ? 128 + sig : WIFEXITED(st) ? WEXITSTATUS(st) : 125);
	snprintf(num[2], sizeof num[2], "%d", sig);
	av[n] = num[0];
	av[n + 1] = num[1];
	av[n + 2] = num[2];
	execvp(av[0], av);
	fp_die(NULL, av[0], errno, 125);
}

/* --pin N COMMAND...: the first N allowed CPUs, then exec. */
#ifdef __linux__
static void fp_pin(int argc, char **argv)
{
	cpu_set_t allowed, want;
	char *end;
	long n = argc > 3 ? strtol(argv[2], &end, 10) : 0;
	long have = 0;
	int i;

	if (argc < 4 || *end || n < 1)
		fp_die("usage: fastpath-run --pin N COMMAND [ARG]...", NULL, 0, 125);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		fp_die(NULL, "sched_getaffinity", errno, 125);
	CPU_ZERO(&want);
	for (i = 0; i < CPU_SETSIZE && have < n; i++)
		if (CPU_ISSET(i, &allowed)) {
			CPU_SET(i, &want);
			have++;
		}
	if (have < n)
		fp_die("--pin: more CPUs than this process may use", NULL, 0, 125);
	if (sched_setaffinity(0, sizeof want, &want) != 0)
		fp_die(NULL, "sched_setaffinity", errno, 125);
	execvp(argv[3], argv + 3);
	fp_die(NULL, argv[3], errno, errno == ENOENT ? 127 : 126);
}
#else
static void fp_pin(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fp_die("--pin is not supported here", NULL, 0, 125);
}
#endif

extern char **environ;

/* fp_records: one record's lines, for --records.  A name the find lists
 * of interpose --survey-report named a regular file then; by now another
 * user may have swapped it (their own subdirectory) for a FIFO, whose
 * open would block the report for ever (a cold review: awk's getline did),
 * or the subdirectory for a link.  So: the subdirectory opened without
 * following a link, owned by its user; the record O_NONBLOCK|O_NOFOLLOW, a
 * regular file of at most 64 KiB owned by root or us at the top, by the
 * subdirectory's user below it; else nothing but its name is said.  Only
 * a record's shape is opened, ./NAME.rec or ./UID/NAME.rec (a cold
 * review: "./../x" opened the parent, root's, as uid 0's subdirectory). */
static bool fp_record_shaped(const char *base)
{
	const char *slash = strchr(base, '/'), *p;
	size_t n;

	if (slash) {
		if (slash == base || slash - base > 10)
			return false;
		for (p = base; p < slash; p++)
			if (*p < '0' || *p > '9')
				return false;
		base = slash + 1;
	}
	n = strlen(base);
	return n > 4 && !strchr(base, '/') && strcmp(base + n - 4, ".rec") == 0;
}

static void fp_record_out(const char *name)
{
	static char buf[65537];
	const char *base = name + 2, *slash;
	struct stat st;
	size_t len = 0, i, at;
	ssize_t r = 0;
	long want = -1;
	int dfd = AT_FDCWD, fd;

	if (strncmp(name, "./", 2) != 0 || !fp_record_shaped(base))
		return;
	if ((slash = strchr(base, '/')) != NULL) {
		char sub[32];

		if ((size_t)(slash - base) >= sizeof sub)
			return;
		memcpy(sub, base, (size_t)(slash - base));
		sub[slash - base] = '\0';
		want = strtol(sub, NULL, 10);
		dfd = open(sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0 || fstat(dfd, &st) != 0 || (long)st.st_uid != want) {
			if (dfd >= 0)
				close(dfd);
			return;
		}
		base = slash + 1;
	}
	fd = openat(dfd, base, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (dfd != AT_FDCWD)
		close(dfd);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 65536 ||
	    (want < 0 ? st.st_uid != 0 && st.st_uid != geteuid() : (long)st.st_uid != want)) {
		close(fd);
		return;
	}
	while (len < sizeof buf && ((r = read(fd, buf + len, sizeof buf - len)) > 0 || (r < 0 && errno == EINTR)))
		len += r > 0 ? (size_t)r : 0;
	close(fd);
	if (r < 0 || len > 65536)
		return;
	fputs("\t+\n", stdout);
	for (i = at = 0; i <= len; i++)
		if (i == len ? i > at : buf[i] == '\n') {
			fputs("\t>", stdout);
			fwrite(buf + at, 1, i - at, stdout);
			putchar('\n');
			at = i + 1;
		}
}

/* interpose --survey-report's reader (survey.awk, "--records"): the names
 * on stdin passed on, each record's lines after its name; "//" and the
 * refused names after it as they are. */
static int fp_records(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool refused = false;

	fputs("\t=\n", stdout);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (memchr(line, '\t', (size_t)n))
			continue; /* no name of a record holds one */
		fputs(line, stdout);
		putchar('\n');
		if (strcmp(line, "//") == 0)
			refused = true;
		else if (!refused)
			fp_record_out(line);
	}
	free(line);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
}

/* What one argument of an exec may hold (MAX_ARG_STRLEN, 32 pages of 4
 * KiB on Linux), less room to spare: an entry escaped past it cannot be
 * passed on as one. */
#define FP_ENV_ARG_MAX ((size_t)120 * 1024)
/* fp_env_of's text, after --reach's line where interpose asks for it
 * (FASTPATH_RUN_ENV_OF=PID): one process for both. */
#define FP_ENV_SEP "@@fastpath-env@@"
#define FP_ENV_END "@@end@@"

/* One entry escaped, with \001 (rare in an environment; a backslash, common
 * in one, costs nothing): a newline as \001n, \001 as \001\001, the empty
 * entry as \001e (each entry is one word of the shell's, split at
 * newlines, and an empty one would vanish). */
#define FP_ENV_ESC '\001'
static void fp_env_escape(const char *e, size_t n, FILE *f)
{
	size_t i;

	if (n == 0) {
		putc(FP_ENV_ESC, f);
		putc('e', f);
	}
	for (i = 0; i < n; i++) {
		if (e[i] == '\n' || e[i] == FP_ENV_ESC) {
			putc(FP_ENV_ESC, f);
			putc(e[i] == '\n' ? 'n' : FP_ENV_ESC, f);
		} else
			putc(e[i], f);
	}
	putc('\n', f);
}

/*
 * --env-of PID: the environment the kernel gave PID, as interpose's shell
 * takes it back: a first line "COUNT NAME...", the count of entries and
 * the names this process's own environment has (what that shell exports:
 * it unsets them before it execs us, so that our exec holds the
 * environment once, as an argument an entry), then each entry escaped on
 * a line of its own.  /proc must be this PID namespace's, or PID there is
 * another process (a cold review: unshare -pf without a /proc of its own
 * gave the command another user's environment).  Nothing, and 2, where it
 * cannot be read or an entry escaped would not fit in one argument.
 */
static int fp_env_of(const char *pid, const char *argbytes, bool framed)
{
	char path[64], self[32], mine[32], *buf = NULL;
	size_t len = 0, cap = 0, i, at, count = 0;
	ssize_t r = 0, l = readlink("/proc/self", self, sizeof self - 1);
	int fd, rc = 2;

	snprintf(mine, sizeof mine, "%ld", (long)getpid());
	if (l <= 0 || (self[l] = '\0', strcmp(self, mine) != 0))
		return 2;
	snprintf(path, sizeof path, "/proc/%s/environ", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return 2;
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
			if (!nb)
				goto done;
			buf = nb;
		}
		if ((r = read(fd, buf + len, cap - len)) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (r < 0)
		goto done;
	/* each entry, escaped, one word of an exec; the whole of it beside
	 * the command's words and the pointers to each, one exec, as it was
	 * natively (a cold review: 18 entries of 60,000 newlines, E2BIG) */
	{
		size_t total = 0, esc = 0;
		long max = sysconf(_SC_ARG_MAX);

		for (i = at = 0; i < len; i++) {
			if (buf[i] != '\0') {
				esc += buf[i] == '\n' || buf[i] == FP_ENV_ESC;
				continue;
			}
			if (i - at + esc > FP_ENV_ARG_MAX)
				goto done;
			total += i - at + esc + 1;
			count++;
			esc = 0;
			at = i + 1;
		}
		total += 10 * count + (argbytes ? strtoul(argbytes, NULL, 10) : 0) + 4096;
		if (max > 0 && total > (size_t)max)
			goto done;
	}
	if (framed)
		fputs(FP_ENV_SEP, stdout);
	printf("%zu", count);
	for (char **e = environ; *e; e++)
		printf(" %.*s", (int)strcspn(*e, "="), *e);
	putchar('\n');
	for (i = at = 0; i < len; i++)
		if (buf[i] == '\0') {
			fp_env_escape(buf + at, i - at, stdout);
			at = i + 1;
		}
	if (framed)
		fputs(FP_ENV_END, stdout);
	rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
done:
	close(fd);
	free(buf);
	return rc;
}

/* The first entry of NAME=VALUE's name in env[0..k) replaced by it, any
 * later one dropped (the loader takes the last LD_PRELOAD, getenv the
 * first), else it added; the new count.  NAME+=VALUE adds VALUE to that
 * first entry's value, after a comma where it has one (interpose's --no-*
 * on FASTPATH_DISABLE, which fastpath.so reads from the first entry: cold
 * review 67). */
static size_t fp_env_put(char **env, size_t k, char *nv)
{
	size_t l = strcspn(nv, "="), first = k, i, j;
	bool add = l > 0 && nv[l] == '=' && nv[l - 1] == '+';

	l -= add;
	for (i = j = 0; i < k; i++) {
		if (strncmp(env[i], nv, l) == 0 && env[i][l] == '=') {
			if (first < k)
				continue;
			first = j;
		}
		env[j++] = env[i];
	}
	if (add) {
		const char *had = first < j ? env[first] + l + 1 : "";
		char *e = malloc(l + strlen(had) + strlen(nv + l + 2) + 3);

		if (!e)
			fp_die(NULL, "malloc", errno, 125);
		sprintf(e, "%.*s=%s%s%s", (int)l, nv, had, *had ? "," : "", nv + l + 2);
		nv = e;
	}
	if (first < j)
		env[first] = nv;
	else
		env[j++] = nv;
	return j;
}

__attribute__((noreturn)) static void fp_exec_as(char **env, char **argv)
{
	environ = env;
	execvp(argv[0], argv);
	/* a name looked up along PATH and not found: as interpose always said */
	if (errno == ENOENT && !strchr(argv[0], '/'))
		fp_die("command not found", argv[0], 0, 127);
	fp_die(NULL, argv[0], errno, errno == ENOENT ? 127 : 126);
}

/*
 * --exec-args COUNT ENTRY... [NAME=VALUE]... -- COMMAND [ARG]...: the
 * COUNT entries --env-of wrote, unescaped, ours set in them (fp_env_put),
 * then COMMAND as env(1) runs it.  --setenv [NAME=VALUE]... -- COMMAND
 * [ARG]...: the same on our own environment (the survey's command, from
 * the starter that was given it).
 */
__attribute__((noreturn)) static void fp_exec_env(int argc, char **argv)
{
	bool own = strcmp(argv[1], "--setenv") == 0;
	char *end, **env;
	long count = own ? 0 : strtol(argv[2], &end, 10);
	size_t n = 0, k = 0;
	int a = own ? 2 : 3, i;

	if (own)
		for (char **e = environ; *e; e++)
			n++;
	if ((!own && (*end || count < 0 || count > argc - 3)) || !(env = calloc(n + (size_t)argc + 1, sizeof *env)))
		fp_die("usage: fastpath-run --exec-args COUNT ENTRY... [NAME=VALUE]... -- COMMAND [ARG]...", NULL, 0,
		       125);
	if (own)
		for (char **e = environ; *e; e++)
			env[k++] = *e;
	for (i = 0; i < count; i++, a++) {
		char *w = argv[a], *e = argv[a];

		env[k++] = argv[a];
		if (e[0] == FP_ENV_ESC && e[1] == 'e' && !e[2]) {
			*w = '\0';
			continue;
		}
		while (*e) {
			if (*e == FP_ENV_ESC && (e[1] == 'n' || e[1] == FP_ENV_ESC)) {
				*w++ = e[1] == 'n' ? '\n' : FP_ENV_ESC;
				e += 2;
			} else
				*w++ = *e++;
		}
		*w = '\0';
	}
	for (; a < argc && strcmp(argv[a], "--") != 0; a++)
		k = fp_env_put(env, k, argv[a]);
	if (a + 1 >= argc)
		fp_die("usage: fastpath-run --exec-args COUNT ENTRY... [NAME=VALUE]... -- COMMAND [ARG]...", NULL, 0,
		       125);
	env[k] = NULL;
	fp_exec_as(env, argv + a + 1);
}

int main(int argc, char **argv)
{
	sigset_t set, orig;
	struct sigaction chld;
	char *end;
	long n;
	pid_t child;
#ifdef __linux__
	pid_t self = getpid();
#endif
	size_t i;
	int st;

	int report = -1;

	if (argc == 2 && strcmp(argv[1], "--records") == 0)
		return fp_records();
	/* interpose --survey's end: die of the command's signal, with its
	 * default action given back (a shell cannot, where it was ignored) */
	if (argc == 3 && strcmp(argv[1], "--die-of") == 0) {
		n = strtol(argv[2], &end, 10);
		if (*end || n <= 0 || n >= NSIG)
			fp_die("usage: fastpath-run --die-of SIGNAL", NULL, 0, 125);
		fp_end_like((int)n);
	}
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "--env-of") == 0)
		return fp_env_of(argv[2], argc == 4 ? argv[3] : NULL, false);
	/* --close N: interpose's script, which dash leaves open across exec
	 * where it opened it at 10 or above, bash at 2 (interpose.in,
	 * script_fd). */
	if (argc > 3 && strcmp(argv[1], "--close") == 0) {
		n = strtol(argv[2], &end, 10);
		if (*end == '\0' && n >= 0 && n < INT_MAX)
			close((int)n);
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	if ((argc > 4 && strcmp(argv[1], "--exec-args") == 0) || (argc > 3 && strcmp(argv[1], "--setenv") == 0))
		fp_exec_env(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--pin") == 0)
		fp_pin(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--reach") == 0) {
		const char *of = getenv("FASTPATH_RUN_ENV_OF");
		int r = fp_reach(argc - 2, argv + 2);

		if (of && *of) {
			char pid[32];
			const char *colon = strchr(of, ':');

			snprintf(pid, sizeof pid, "%.*s", (int)(colon ? colon - of : (long)strlen(of)), of);
			(void)fp_env_of(pid, colon ? colon + 1 : NULL, true);
		}
		return r;
	}
	if (argc == 3 && strcmp(argv[1], "--check-report") == 0) {
		(void)fp_report_open(argv[2]);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "--report") == 0) {
		report = fp_report_open(argv[2]);
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	n = argc > 1 ? strtol(argv[1], &end, 10) : -1;
	if (argc < 3 || *end || n < 0 || n > argc - 3)
		fp_die("usage: fastpath-run N [THEN...] COMMAND [ARG]...", NULL, 0, 125);
	/* A SIGCHLD the caller ignores would reap the child before we could
	 * wait for it: ours is the default, the child gets the caller's back. */
	sigaction(SIGCHLD, NULL, &chld);
	if (chld.sa_handler == SIG_IGN)
		signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	/* A signal the caller ignores stays ignored for the command: nothing
	 * to forward. */
	for (i = 0; i < FP_NFWD + (size_t)(SIGRTMAX - SIGRTMIN + 1); i++) {
		int sig = i < FP_NFWD ? fp_fwd[i] : SIGRTMIN + (int)(i - FP_NFWD);
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&set, sig);
	}
	sigprocmask(SIG_BLOCK, &set, &orig);
	child = fork();
	if (child < 0)
		fp_die(NULL, "fork", errno, 125);
	if (child == 0) {
#ifdef __linux__
		/* A SIGKILL sent to our pid (a supervisor's kill -9 of the pid
		 * it started) cannot be forwarded: the command then dies with
		 * us, as it would have, rather than run on as an orphan. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != self)
			_exit(137);
#endif
		if (chld.sa_handler == SIG_IGN)
			signal(SIGCHLD, SIG_IGN);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		execvp(argv[2 + n], argv + 2 + n);
		fp_die(NULL, argv[2 + n], errno, errno == ENOENT ? 127 : 126);
	}
	st = fp_wait(child, &set);
	fp_drain(&set);
	if (chld.sa_handler == SIG_IGN)
		signal(SIGCHLD, SIG_IGN);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	/* Emptied only now, when the report is written, as `>` did then. */
	if (report >= 0) {
		if (ftruncate(report, 0) != 0 ||
		    (report == STDOUT_FILENO ? fcntl(report, F_SETFD, 0)
		                             : dup2(report, STDOUT_FILENO)) < 0)
			fp_die(NULL, "--survey report", errno, 125);
		if (report != STDOUT_FILENO)
			close(report);
	}
	if (n == 0)
		fp_end_like(st);
	fp_then(argv + 2, (int)n, child, st);
	return 125;
}
