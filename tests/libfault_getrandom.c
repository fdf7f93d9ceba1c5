/* SPDX-License-Identifier: MIT */
/*
 * libfault_getrandom.so: a getrandom() that fails on demand, for make
 * check-fault.  Preloaded after fastpath.so, it is what fastpath's
 * dlsym(RTLD_NEXT, "getrandom") binds, so the pool's refills meet the fault
 * exactly as the program's own calls do.
 *   FAULT_GETRANDOM=ENOSYS|EINTR   the error (unset: pass everything through)
 *   FAULT_GETRANDOM=SHORT          requests over 256 bytes get 256 (what the
 *                                  kernel does when a signal is pending)
 *   FAULT_GETRANDOM_WHEN=all|big|first:N   which calls (default all; big:
 *                                  over 256 bytes; first:N the first N)
 *   FAULT_GETRANDOM_LOG=FILE       "pid P calls N faults M" appended at exit
 *                                  (each process its own line)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_long calls, faults;

ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	const char *what = getenv("FAULT_GETRANDOM");
	const char *when = getenv("FAULT_GETRANDOM_WHEN");
	long k = atomic_fetch_add(&calls, 1) + 1;
	int hit = what != NULL;

	if (hit && when && strcmp(when, "big") == 0)
		hit = n > 256;
	else if (hit && when && strncmp(when, "first:", 6) == 0)
		hit = k <= atol(when + 6);
	if (hit) {
		atomic_fetch_add(&faults, 1);
		if (strcmp(what, "SHORT") == 0) {
			if (n > 256)
				n = 256;
		} else {
			errno = strcmp(what, "ENOSYS") == 0 ? ENOSYS : EINTR;
			return -1;
		}
	}
	return syscall(SYS_getrandom, buf, n, flags);
}

static void put_num(char **p, long v)
{
	char tmp[24];
	int i = 0;

	do
		tmp[i++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (i)
		*(*p)++ = tmp[--i];
}

__attribute__((destructor)) static void fault_log(void)
{
	const char *path = getenv("FAULT_GETRANDOM_LOG");
	char line[80], *p = line;
	int fd;

	if (!path || (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	memcpy(p, "pid ", 4), p += 4;
	put_num(&p, (long)getpid());
	memcpy(p, " calls ", 7), p += 7;
	put_num(&p, atomic_load(&calls));
	memcpy(p, " faults ", 8), p += 8;
	put_num(&p, atomic_load(&faults));
	*p++ = '\n';
	(void)!write(fd, line, (size_t)(p - line));
	close(fd);
}
