/* SPDX-License-Identifier: MIT */
/*
 * prog_pooln: seed 002 as find_elf ran it, with the pool's size given on
 * the command line, as a shell hands it $(getconf _NPROCESSORS_ONLN):
 * THREADS workers, each forking and exec'ing /bin/true FORKS times while
 * it writes to a heap of HEAP_MIB (tests/t_survey.sh, the pool rule
 * across processes).
 *
 *   prog_pooln THREADS [FORKS [HEAP_MIB]]     defaults: 2 64
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long forks = 2;
static char *heap;
static size_t heap_len;
static pthread_barrier_t all_alive;

static void *worker(void *arg)
{
	long me = (long)arg, i;
	char *const argv[] = { "true", NULL };

	/* Every worker alive before the first fork: the pool as a whole. */
	pthread_barrier_wait(&all_alive);
	for (i = 0; i < forks; i++) {
		pid_t pid = fork();
		int status;
		size_t off;

		if (pid == 0) {
			execv("/bin/true", argv);
			_exit(127);
		}
		for (off = (size_t)(me * 4096 * 7) % heap_len; off < heap_len; off += 16 * 4096)
			heap[off]++;
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, t;
	pthread_t *ts;

	if (n < 1 || n > 1024) {
		fprintf(stderr, "usage: prog_pooln THREADS [FORKS [HEAP_MIB]]\n");
		return 2;
	}
	forks = argc > 2 ? atol(argv[2]) : 2;
	heap_len = (size_t)(argc > 3 ? atol(argv[3]) : 64) << 20;
	if (!(heap = malloc(heap_len)) || !(ts = calloc((size_t)n, sizeof *ts)))
		return 1;
	memset(heap, 1, heap_len);
	pthread_barrier_init(&all_alive, NULL, (unsigned)n);
	for (t = 0; t < n; t++)
		if (pthread_create(&ts[t], NULL, worker, (void *)t) != 0)
			return 1;
	for (t = 0; t < n; t++)
		pthread_join(ts[t], NULL);
	printf("%ld threads, %ld forks\n", n, n * forks);
	return 0;
}
