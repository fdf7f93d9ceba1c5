/* SPDX-License-Identifier: MIT */
/*
 * prog_seccomp_exit [errno|fork|probe]: a program that sandboxes itself
 * after its set-up, as OpenSSH's preauth child does: one read of the
 * device, then a seccomp filter under which any open kills the process
 * (with "errno": fails with EPERM), then a line and a normal exit (atexit,
 * destructors).  Natively it exits 0; under the survey too (a cold review:
 * the record written at exit opened a directory, and the filter killed it:
 * 159).  "fork": then a child that reads the descriptor opened before,
 * after 2 s (past a periodic record's interval of 1 s) and exits 0 (cold
 * review 70: the child's periodic write was killed).  "probe": no filter,
 * a probe for one (a NULL program: EFAULT), then 100 more opens, all
 * surveyed (cold review 70: the probe ended the survey).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	unsigned ret = argc > 1 && strcmp(argv[1], "errno") == 0 ? SECCOMP_RET_ERRNO | 1
	                                                          : SECCOMP_RET_KILL_PROCESS;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 3, 0),
#ifdef SYS_open
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 2, 0),
#else
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdirat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, ret),
	};
	struct sock_fprog p = { sizeof f / sizeof f[0], f };

	const char *how = argc > 1 ? argv[1] : "kill";

	if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b)
		return 3;
	if (strcmp(how, "probe") == 0) {
		int r;

		errno = 0;
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0);
		printf("probe %d %s\n", r, errno == EFAULT ? "EFAULT" : "?");
		for (int i = 0; i < 100; i++) {
			int f = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

			if (f < 0 || close(f) != 0)
				return 5;
		}
		return fflush(stdout) == 0 ? 0 : 4;
	}
	if (strcmp(how, "fork") != 0 && close(fd) != 0)
		return 3;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p) != 0) {
		perror("prog_seccomp_exit: seccomp");
		return 77;
	}
	if (strcmp(how, "fork") == 0) {
		int st = 0;
		pid_t c;

		fflush(stdout);
		if ((c = fork()) == 0) {
			sleep(2);
			_exit(read(fd, b, sizeof b) == (ssize_t)sizeof b ? 0 : 6);
		}
		if (c < 0 || waitpid(c, &st, 0) != c)
			return 7;
		printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
	printf("sandboxed, exiting 0\n");
	return fflush(stdout) == 0 ? 0 : 4;
}
