/* SPDX-License-Identifier: MIT */
/*
 * prog_sigstart BLOCK IGNORE COMMAND [ARG]...: execs COMMAND with the
 * signals in BLOCK blocked and those in IGNORE ignored (comma-separated
 * numbers, or "-" for none), so that tests can start a command, natively
 * and under interpose, with a signal state a shell cannot set up.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void each(char *list, void (*fn)(int, void *), void *arg)
{
	char *tok, *save = NULL;

	if (strcmp(list, "-") == 0)
		return;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(atoi(tok), arg);
}

static void add(int sig, void *set)
{
	sigaddset(set, sig);
}

static void ignore(int sig, void *unused)
{
	(void)unused;
	signal(sig, SIG_IGN);
}

int main(int argc, char **argv)
{
	sigset_t set;

	if (argc < 4) {
		fprintf(stderr, "usage: prog_sigstart BLOCK IGNORE COMMAND [ARG]...\n");
		return 2;
	}
	sigemptyset(&set);
	each(argv[1], add, &set);
	each(argv[2], ignore, NULL);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return 2;
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
