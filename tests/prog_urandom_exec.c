/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_exec: does a closed /dev/urandom descriptor reach a new
 * program?  The program opens the device without O_CLOEXEC, reads, closes
 * (reserve mode keeps it, not close-on-exec), then starts itself through
 * one entry point; the new program prints how many descriptors of the
 * device it inherited (natively 0).
 *   prog_urandom_exec VIA     VIA: execve execv execvp execvpe execl execlp
 *                             execle fexecve execveat posix_spawn
 *                             posix_spawnp system popen raw (a raw execve
 *                             system call: the documented hole)
 *   prog_urandom_exec failed  an exec that fails, in the process and in a
 *                             vfork child: the next plain open's FD_CLOEXEC
 *                             must be 0, as natively, and a later exec
 *                             still guarded
 *   prog_urandom_exec race N  4 threads cycle O_CLOEXEC opens while the
 *                             main one forks and execs itself N times; the
 *                             total the new programs inherited (natively 0,
 *                             and so with F_DUPFD then F_SETFD, whose window
 *                             no fork or exec may fall into)
 *   prog_urandom_exec child   (internal) prints the count
 *   prog_urandom_exec childrc (internal) exits with the count
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int count_dev(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char p[300], t[64];
		ssize_t k;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		k = readlink(p, t, sizeof t - 1);
		if (k > 0) {
			t[k] = 0;
			n += strcmp(t, "/dev/urandom") == 0;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* open (plain), read, close: what reserve mode keeps without FD_CLOEXEC. */
static void cycle(void)
{
	char b[16];
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, b, sizeof b) != 16 || close(fd) != 0)
		abort();
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 99;
	return WEXITSTATUS(st);
}

static int start(const char *via, const char *self)
{
	char *argv[] = { (char *)self, "child", NULL };
	char cmd[4200];
	pid_t pid;
	int r;

	snprintf(cmd, sizeof cmd, "exec %s child", self);
	if (strcmp(via, "system") == 0)
		return system(cmd) == 0 ? 0 : 1;
	if (strcmp(via, "popen") == 0) {
		FILE *f = popen(cmd, "r");
		char line[64];

		if (!f || !fgets(line, sizeof line, f))
			return 1;
		fputs(line, stdout);
		return pclose(f) == 0 ? 0 : 1;
	}
	if (strcmp(via, "posix_spawn") == 0 || strcmp(via, "posix_spawnp") == 0) {
		r = via[11] ? posix_spawnp(&pid, self, NULL, NULL, argv, environ)
		            : posix_spawn(&pid, self, NULL, NULL, argv, environ);
		return r == 0 ? wait_child(pid) : 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid != 0)
		return wait_child(pid);
	if (strcmp(via, "execve") == 0)
		execve(self, argv, environ);
	else if (strcmp(via, "execv") == 0)
		execv(self, argv);
	else if (strcmp(via, "execvp") == 0)
		execvp(self, argv);
	else if (strcmp(via, "execvpe") == 0)
		execvpe(self, argv, environ);
	else if (strcmp(via, "execl") == 0)
		execl(self, self, "child", (char *)NULL);
	else if (strcmp(via, "execlp") == 0)
		execlp(self, self, "child", (char *)NULL);
	else if (strcmp(via, "execle") == 0)
		execle(self, self, "child", (char *)NULL, environ);
	else if (strcmp(via, "fexecve") == 0) {
		int fd = open(self, O_RDONLY | O_CLOEXEC);

		fexecve(fd, argv, environ);
	} else if (strcmp(via, "execveat") == 0)
		execveat(AT_FDCWD, self, argv, environ, 0);
	else if (strcmp(via, "raw") == 0)
		syscall(SYS_execve, self, argv, environ);
	_exit(98);
}

static char *const bad_argv[] = { "nonexistent", NULL };

static volatile int stop_spinning;

static void *spin(void *arg)
{
	char b[16];

	(void)arg;
	while (!stop_spinning) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || read(fd, b, sizeof b) != 16 || close(fd) != 0)
			abort();
	}
	return NULL;
}

static int race(long n, const char *self)
{
	char *argv[] = { (char *)self, "childrc", NULL };
	pthread_t t[4];
	long i, sum = 0;
	int k;

	for (k = 0; k < 4; k++)
		if (pthread_create(&t[k], NULL, spin, NULL) != 0)
			return 2;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execve(self, argv, environ);
			_exit(98);
		}
		sum += wait_child(pid);
	}
	stop_spinning = 1;
	for (k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	printf("inherited %ld\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "child") == 0) {
		printf("inherited %d\n", count_dev());
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "childrc") == 0)
		return count_dev();
	if (argc == 4 && strcmp(argv[1], "race") == 0)
		return race(atol(argv[2]), argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: prog_urandom_exec VIA|failed SELF\n");
		return 2;
	}
	cycle();
	if (strcmp(argv[1], "failed") == 0) {
		pid_t pid;
		int fd;

		/* In this process: the exec fails, the reserve is put back. */
		execve("/nonexistent/prog", bad_argv, environ);
		fd = open("/dev/urandom", O_RDONLY);
		printf("after a failed execve: FD_CLOEXEC %d\n", fcntl(fd, F_GETFD));
		close(fd);
		/* In a vfork child: its failed exec must leave our bookkeeping. */
		pid = vfork();
		if (pid == 0) {
			execve("/nonexistent/prog", bad_argv, environ);
			_exit(0);
		}
		wait_child(pid);
		fd = open("/dev/urandom", O_RDONLY);
		printf("after a vfork child's failed execve: FD_CLOEXEC %d\n", fcntl(fd, F_GETFD));
		close(fd);
		return start("execve", argv[2]);
	}
	return start(argv[1], argv[2]);
}
