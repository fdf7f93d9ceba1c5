/* SPDX-License-Identifier: MIT */
/*
 * A find_elf-like workload (seed 002): size a worker pool by
 * sysconf(_SC_NPROCESSORS_ONLN), hold a few hundred MiB of touched heap as a
 * build tool does, and have each worker fork+exec a small program for each
 * of its items.  Prints: threads items seconds forks_per_second.
 *
 *   findelf [ITEMS [HEAP_MIB [PROGRAM]]]     defaults: 200 256 /bin/true
 *
 * Every fork copies the page tables of the whole heap while holding the
 * address space's lock, and every parent thread that writes to the heap
 * meanwhile takes copy-on-write faults: the more threads, the more of them
 * queue on that lock.  That is the cost seed 002 measured on illumos.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static _Atomic long next_item;
static long items;
static char *heap;
static size_t heap_len;
static const char *prog;

static void *worker(void *arg)
{
	long me = (long)arg;
	char *const argv[] = { (char *)prog, NULL };

	for (;;) {
		long i = atomic_fetch_add(&next_item, 1);
		pid_t pid;
		int status;
		size_t off;

		if (i >= items)
			return NULL;
		pid = fork();
		if (pid == 0) {
			execv(prog, argv);
			_exit(127);
		}
		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		/* Work on this worker's part of the heap while the child runs:
		 * a build tool parses and writes between spawns. */
		for (off = (size_t)(me * 4096 * 7) % heap_len; off < heap_len; off += 16 * 4096)
			heap[off]++;
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "findelf: %s failed\n", prog);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), t;
	struct timespec a, b;
	pthread_t *tid;
	double secs;

	items = argc > 1 ? atol(argv[1]) : 200;
	heap_len = (size_t)(argc > 2 ? atol(argv[2]) : 256) << 20;
	prog = argc > 3 ? argv[3] : "/bin/true";
	if (ncpu < 1 || items < 1 || heap_len < 4096) {
		fprintf(stderr, "usage: findelf [ITEMS [HEAP_MIB [PROGRAM]]]\n");
		return 2;
	}
	heap = malloc(heap_len);
	if (!heap || !(tid = calloc((size_t)ncpu, sizeof *tid))) {
		perror("malloc");
		return 1;
	}
	memset(heap, 1, heap_len);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (t = 0; t < ncpu; t++)
		if (pthread_create(&tid[t], NULL, worker, (void *)t) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (t = 0; t < ncpu; t++)
		pthread_join(tid[t], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%ld %ld %.3f %.1f\n", ncpu, items, secs, (double)items / secs);
	return 0;
}
