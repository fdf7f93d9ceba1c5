/* SPDX-License-Identifier: MIT */
/*
 * prog_class: which ELF class this process is, and whether fastpath.so is
 * loaded into it (tests/t_reach.sh: both classes, each child its own).
 *
 *   prog_class [COMMAND [ARG]...]
 *
 * Prints "BITS NPROCS" (BITS 32 or 64: the width of a pointer; NPROCS what
 * sysconf(_SC_NPROCESSORS_ONLN) says, the cap's answer when fastpath.so is
 * in this process), then with a COMMAND forks, the child execs it, and the
 * parent exits with the child's status: two processes, each with its own
 * summary line under --stats.  Built natively by make and with gcc -m32 by
 * the test.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	printf("%d %ld\n", (int)(sizeof(void *) * 8), sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	if (argc < 2)
		return 0;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
