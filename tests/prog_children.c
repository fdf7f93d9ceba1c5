/* SPDX-License-Identifier: MIT */
/*
 * prog_children: starts children in each of the ways the survey must count
 * (tests/t_survey.sh, the report's process line and the records' counts).
 *
 *   prog_children NPROCS [MODE N]...
 *
 * First NPROCS calls of get_nprocs() (the parent's own counts), then for
 * each MODE, N children:
 *   spawn     posix_spawn of /bin/true (a record each, counted as spawned)
 *   killfork  fork; the child waits, the parent SIGKILLs it (no record)
 *   vfork     vfork; the child's execve fails, it _exits (a record of
 *             zeros: it ran on its parent's counters)
 *   Fork      _Fork (no atfork handler); the child _exits (likewise);
 *             exit 77 where the C library has no _Fork
 * Exit 0 when every child was started and reaped as planned.
 */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int reap(pid_t pid, int want_signal)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	if (want_signal)
		return !(WIFSIGNALED(status) && WTERMSIG(status) == want_signal);
	return !WIFEXITED(status);
}

static int start(const char *mode)
{
	pid_t pid;

	if (strcmp(mode, "spawn") == 0) {
		char *argv[] = { "true", NULL };

		return posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) != 0 || reap(pid, 0);
	}
	if (strcmp(mode, "killfork") == 0) {
		int p[2];
		char c;

		if (pipe(p) != 0 || (pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			close(p[0]);
			(void)write(p[1], "x", 1);
			pause();
			_exit(0);
		}
		close(p[1]);
		/* Started for sure (its own image, past fork) before the kill. */
		if (read(p[0], &c, 1) != 1)
			return 1;
		close(p[0]);
		kill(pid, SIGKILL);
		return reap(pid, SIGKILL);
	}
	if (strcmp(mode, "vfork") == 0) {
		char *argv[] = { "nonexistent", NULL };

		pid = vfork();
		if (pid == 0) {
			execve("/nonexistent/prog_children", argv, environ);
			_exit(127);
		}
		return reap(pid, 0);
	}
	if (strcmp(mode, "Fork") == 0) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
		pid = _Fork();
		if (pid == 0)
			_exit(0);
		return reap(pid, 0);
#else
		printf("skip: no _Fork in this C library\n");
		exit(77);
#endif
	}
	fprintf(stderr, "prog_children: unknown mode %s\n", mode);
	exit(2);
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 0;
	int a, bad = 0;

	for (i = 0; i < n; i++)
		bad |= get_nprocs() < 1;
	for (a = 2; a + 1 < argc; a += 2)
		for (i = 0, n = atol(argv[a + 1]); i < n; i++)
			bad |= start(argv[a]);
	return bad;
}
