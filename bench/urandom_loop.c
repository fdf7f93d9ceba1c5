/*
 * urandom_loop: the workloads of bench_urandom.sh, one per mode.
 *   seed N [THREADS] [noclo]   seed 001: per "uuid", twice open/read(16)/close
 *                              of /dev/urandom (O_CLOEXEC as libuuid on Linux;
 *                              "noclo": plain O_RDONLY as illumos libuuid)
 *   floor N [THREADS] [noclo]  the kernel's part of exact mode alone: per
 *                              "uuid", twice a duplicate of one descriptor of
 *                              the device (F_DUPFD_CLOEXEC, or dup) and its
 *                              close; no read, no fastpath.  Run natively, it
 *                              bounds what exact mode can reach.
 *   floorpt N [THREADS] [noclo]  the same with a descriptor of the device
 *                              per thread: against floor, what the threads'
 *                              sharing of one descriptor costs.
 *   kept N                     read(16) N times on one open descriptor
 *   getrandom N                getrandom(buf, 16, 0) N times
 *   vdso N                     the vDSO's getrandom(buf, 16, 0) N times on one
 *                              state mapped as the kernel asks (Linux 6.11+;
 *                              exits 77 where the vDSO has none): the floor
 *                              of a read served by the vDSO
 *   file N PATH                open/read(16)/close of a regular file N times
 * Prints nothing on success; exits 1 on any failed call.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

static long n_per_thread;
static int open_flags = O_RDONLY | O_CLOEXEC;
static int floor_fd = -1, floor_per_thread;
static _Thread_local int my_floor = -1;

/* A descriptor of the device at a high number (where exact mode keeps
 * its hidden one), at or above min. */
static int high_descriptor(int min)
{
	int d = open("/dev/urandom", O_RDONLY | O_CLOEXEC), h;

	if (d < 0)
		return -1;
	h = fcntl(d, F_DUPFD_CLOEXEC, min);
	close(d);
	return h;
}

static int cycle(const char *path, unsigned char *buf)
{
	int fd;

	if (my_floor >= 0) {
		fd = (open_flags & O_CLOEXEC) ? fcntl(my_floor, F_DUPFD_CLOEXEC, 0) : dup(my_floor);
		return fd < 0 ? -1 : close(fd);
	}
	fd = open(path, open_flags);

	if (fd < 0 || read(fd, buf, 16) != 16)
		return -1;
	return close(fd);
}

static void *seed_worker(void *arg)
{
	unsigned char uuid[16], tmp[16];
	long i;

	my_floor = floor_fd;
	if (floor_per_thread && (my_floor = high_descriptor(1000 + (int)(long)arg)) < 0)
		exit(1);
	for (i = 0; i < n_per_thread; i++) {
		/* libuuid: one read for the node part, one for the random part */
		if (cycle("/dev/urandom", uuid) < 0 || cycle("/dev/urandom", tmp) < 0)
			exit(1);
		uuid[0] ^= tmp[0];
	}
	return NULL;
}

/* The vDSO's getrandom, through the dynamic linker's own handle of the
 * image; 77 where there is none. */
static int vdso_loop(long n)
{
	typedef ssize_t (*vgr_fn)(void *, size_t, unsigned, void *, size_t);
	struct { uint32_t size, prot, flags, reserved[13]; } p;
	void *h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD), *st;
	vgr_fn f = h ? (vgr_fn)dlsym(h, "__vdso_getrandom") : NULL;
	unsigned char buf[16];
	long i;

	if (!f || f(NULL, 0, 0, &p, ~(size_t)0) != 0)
		return 77;
	st = mmap(NULL, 4096, (int)p.prot, (int)p.flags, -1, 0);
	if (st == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++)
		if (f(buf, 16, 0, st, p.size) != 16)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char buf[16];
	long n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: urandom_loop seed|kept|getrandom|file N [...]\n");
		return 2;
	}
	n = atol(argv[2]);
	if (strcmp(argv[1], "floor") == 0) {
		if ((floor_fd = high_descriptor(1000)) < 0)
			return 1;
		argv[1] = "seed";
	} else if (strcmp(argv[1], "floorpt") == 0) {
		floor_per_thread = 1;
		argv[1] = "seed";
	}
	if (strcmp(argv[1], "seed") == 0) {
		int t, threads = argc > 3 ? atoi(argv[3]) : 1;
		pthread_t tid[64];

		if (argc > 4 && strcmp(argv[4], "noclo") == 0)
			open_flags = O_RDONLY;
		if (threads < 1 || threads > 64)
			return 2;
		n_per_thread = n / threads;
		for (t = 0; t < threads; t++)
			pthread_create(&tid[t], NULL, seed_worker, (void *)(long)t);
		for (t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
	} else if (strcmp(argv[1], "kept") == 0) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		for (i = 0; i < n; i++)
			if (read(fd, buf, 16) != 16)
				return 1;
		close(fd);
	} else if (strcmp(argv[1], "getrandom") == 0) {
		for (i = 0; i < n; i++)
			if (getrandom(buf, 16, 0) != 16)
				return 1;
	} else if (strcmp(argv[1], "vdso") == 0) {
		return vdso_loop(n);
	} else if (strcmp(argv[1], "file") == 0 && argc > 3) {
		for (i = 0; i < n; i++)
			if (cycle(argv[3], buf) < 0)
				return 1;
	} else {
		return 2;
	}
	return 0;
}
