/* SPDX-License-Identifier: MIT */
/*
 * urandom_loop: the workloads of bench_urandom.sh, one per mode.
 *   seed N [THREADS] [noclo]   seed 001: per "uuid", twice open/read(16)/close
 *                              of /dev/urandom (O_CLOEXEC as libuuid on Linux;
 *                              "noclo": plain O_RDONLY as illumos libuuid).
 *                              THREADS 1 (the default) runs in the main
 *                              thread, the process's only one.
 *   floor N [THREADS] [noclo]  the kernel's part of exact mode alone: per
 *                              "uuid", twice a duplicate of one descriptor of
 *                              the device (F_DUPFD_CLOEXEC, or dup) and its
 *                              close; no read, no fastpath.  Run natively, it
 *                              bounds what exact mode can reach.
 *   floorread N [THREADS] [noclo]  the floor with its read: a duplicate, a
 *                              vDSO getrandom(16) (a state per thread) and a
 *                              close per cycle: what exact mode could cost
 *                              at best with reads served by the vDSO.
 *   floorpt N [THREADS] [noclo]  the same with a descriptor of the device
 *                              per thread: against floor, what the threads'
 *                              sharing of one descriptor costs.
 *   kept N                     read(16) N times on one open descriptor
 *   getrandom N                getrandom(buf, 16, 0) N times
 *   vdso N                     the vDSO's getrandom(buf, 16, 0) N times,
 *                              called directly (the C library may not)
 *   file N PATH                open/read(16)/close of a regular file N times
 *   forkopen N                 a threaded program's N fork children, one
 *                              after the other, each one open/read(16)/close
 *                              of the device and _exit (a server's workers)
 * Prints nothing on success; exits 1 on any failed call, 3 where the vDSO
 * has no getrandom (Linux before 6.11).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the vDSO's getrandom, called directly ---------------------------- */
typedef ssize_t (*vgr_fn)(void *buf, size_t n, unsigned flags, void *state, size_t len);
static struct {
	unsigned size, prot, flags, reserved[13];
} vgr_p;
static vgr_fn vgr;
static _Thread_local void *my_state;

/* A function of the vDSO image, by its dynamic symbols (DT_HASH). */
static void *vdso_sym(const char *name)
{
	const char *img = (const char *)getauxval(AT_SYSINFO_EHDR), *str = NULL, *base = NULL;
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const Elf32_Word *hash = NULL;
	int i;

	if (!img)
		return NULL;
	for (i = 0; i < eh->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(const void *)(img + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD && !base)
			base = img + ph->p_offset - ph->p_vaddr;
		else if (ph->p_type == PT_DYNAMIC)
			dyn = (const void *)(img + ph->p_offset);
	}
	for (; base && dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_STRTAB)
			str = base + dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_SYMTAB)
			sym = (const void *)(base + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(base + dyn->d_un.d_ptr);
	}
	for (i = 0; str && sym && hash && i < (int)hash[1]; i++)
		if (sym[i].st_shndx != SHN_UNDEF && strcmp(str + sym[i].st_name, name) == 0)
			return (void *)(base + sym[i].st_value);
	return NULL;
}

static int vgr_init(void)
{
	vgr = (vgr_fn)vdso_sym("__vdso_getrandom");
	if (!vgr || vgr(NULL, 0, 0, &vgr_p, ~(size_t)0) != 0 || vgr_p.size == 0)
		return -1;
	return 0;
}

/* This thread's state, mapped as the kernel asks. */
static int vgr_read16(unsigned char *buf)
{
	if (!my_state) {
		my_state = mmap(NULL, vgr_p.size, (int)vgr_p.prot, (int)vgr_p.flags, -1, 0);
		if (my_state == MAP_FAILED)
			exit(1);
	}
	return vgr(buf, 16, 0, my_state, vgr_p.size) == 16 ? 0 : -1;
}

static long n_per_thread;
static int open_flags = O_RDONLY | O_CLOEXEC;
static int floor_fd = -1, floor_per_thread, floor_read;
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
		if (fd < 0 || (floor_read && vgr_read16(buf) < 0))
			return -1;
		return close(fd);
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

/* The second thread of forkopen: there, and doing nothing. */
static void *idle(void *unused)
{
	for (;;)
		pause();
	return unused;
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
	if (strcmp(argv[1], "floorread") == 0 || strcmp(argv[1], "vdso") == 0) {
		if (vgr_init() < 0)
			return 3;
		floor_read = 1;
		if (strcmp(argv[1], "vdso") == 0) {
			for (i = 0; i < n; i++)
				if (vgr_read16(buf) < 0)
					return 1;
			return 0;
		}
		argv[1] = "floor";
	}
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
		/* One thread is the process's only one, as in a program that
		 * makes none (fastpath's one-thread paths, fp_one_thread). */
		if (threads == 1) {
			seed_worker(NULL);
			return 0;
		}
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
	} else if (strcmp(argv[1], "forkopen") == 0) {
		pthread_t t;
		int st;

		if (pthread_create(&t, NULL, idle, NULL) != 0)
			return 1;
		for (i = 0; i < n; i++) {
			pid_t p = fork();

			if (p == 0)
				_exit(cycle("/dev/urandom", buf) < 0);
			if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
				return 1;
		}
	} else if (strcmp(argv[1], "file") == 0 && argc > 3) {
		for (i = 0; i < n; i++)
			if (cycle(argv[3], buf) < 0)
				return 1;
	} else {
		return 2;
	}
	return 0;
}
