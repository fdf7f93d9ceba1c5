/*
 * Run by t_cpus.sh under LD_PRELOAD.
 *
 *   prog_cpus entries    the processor count of /proc/cpuinfo as read
 *                        through every open entry point and fopen
 *   prog_cpus roundtrip  the affinity round trip (get, remove one, set,
 *                        get) in the main thread, a second thread and a
 *                        forked child: "main ok thread ok child ok"
 *   prog_cpus getcpu     asks the CPU count, then has the kernel run it on
 *                        the last CPU it may (a raw system call, out of the
 *                        cap's sight): "<sched_getcpu> <getcpu>"
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);

static int count_fd(int fd)
{
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t n;
	int c = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (char *p = buf; (p = strstr(p, "processor")) != NULL; p++)
		c += p == buf || p[-1] == '\n';
	return c;
}

static int count_file(FILE *f)
{
	char line[4096];
	int c = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		c += strncmp(line, "processor", 9) == 0;
	fclose(f);
	return c;
}

static int entries(void)
{
	const char *p = "/proc/cpuinfo";

	printf("open=%d ", count_fd(open(p, O_RDONLY)));
	printf("openat=%d ", count_fd(openat(AT_FDCWD, p, O_RDONLY | O_CLOEXEC)));
	printf("open64=%d ", count_fd(open64(p, O_RDONLY)));
	printf("openat64=%d ", count_fd(openat64(AT_FDCWD, p, O_RDONLY)));
	printf("__open_2=%d ", count_fd(__open_2(p, O_RDONLY)));
	printf("__open64_2=%d ", count_fd(__open64_2(p, O_RDONLY)));
	printf("__openat_2=%d ", count_fd(__openat_2(AT_FDCWD, p, O_RDONLY)));
	printf("__openat64_2=%d ", count_fd(__openat64_2(AT_FDCWD, p, O_RDONLY)));
	printf("fopen=%d ", count_file(fopen(p, "r")));
	printf("fopen64=%d ", count_file(fopen64(p, "re")));
	{
		int d = open("/proc", O_RDONLY | O_DIRECTORY);

		printf("openat-dirfd=%d\n", count_fd(openat(d, "cpuinfo", O_RDONLY)));
		close(d);
	}
	return 0;
}

/* get, remove one (the last; none when only one), set, get: identical? */
static const char *round_trip(int use_pthread)
{
	cpu_set_t a, b;
	int last = -1, i;

	if (use_pthread ? pthread_getaffinity_np(pthread_self(), sizeof a, &a)
	                : sched_getaffinity(0, sizeof a, &a))
		return "get failed";
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &a))
			last = i;
	if (CPU_COUNT(&a) > 1)
		CPU_CLR(last, &a);
	if (use_pthread ? pthread_setaffinity_np(pthread_self(), sizeof a, &a)
	                : sched_setaffinity(0, sizeof a, &a))
		return "set failed";
	if (use_pthread ? pthread_getaffinity_np(pthread_self(), sizeof b, &b)
	                : sched_getaffinity(0, sizeof b, &b))
		return "get failed";
	if (!CPU_EQUAL(&a, &b))
		return "differs";
	/* The count questions keep the machine's N. */
	if (sysconf(_SC_NPROCESSORS_ONLN) != atol(getenv("WANT") ? getenv("WANT") : "0"))
		return "sysconf moved";
	return "ok";
}

static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)round_trip(1);
}

static int roundtrip(void)
{
	pthread_t t;
	void *r;
	int st, pfd[2];
	char buf[64] = "";
	pid_t pid;
	cpu_set_t before, after;

	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, &r))
		return 1;
	printf("thread %s ", (const char *)r);
	printf("main %s ", round_trip(0));
	/* The child inherits the mask its parent set, and can go on. */
	if (sched_getaffinity(0, sizeof before, &before) || pipe(pfd))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		const char *s = "inherit failed";

		if (sched_getaffinity(0, sizeof after, &after) == 0 && CPU_EQUAL(&before, &after))
			s = round_trip(0);
		(void)!write(pfd[1], s, strlen(s));
		_exit(0);
	}
	close(pfd[1]);
	(void)!read(pfd[0], buf, sizeof buf - 1);
	waitpid(pid, &st, 0);
	printf("child %s\n", buf);
	return 0;
}

static int getcpu_mode(void)
{
	cpu_set_t m;
	unsigned cpu = 0;
	int last = -1;

	/* The cap shows its machine from the first question on. */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 1 ||
	    syscall(SYS_sched_getaffinity, 0, sizeof m, &m) < 0)
		return 1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &m))
			last = i;
	CPU_ZERO(&m);
	CPU_SET(last, &m);
	if (syscall(SYS_sched_setaffinity, 0, sizeof m, &m) != 0 || getcpu(&cpu, NULL) != 0)
		return 1;
	printf("%d %u\n", sched_getcpu(), cpu);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "entries") == 0)
		return entries();
	if (argc > 1 && strcmp(argv[1], "roundtrip") == 0)
		return roundtrip();
	if (argc > 1 && strcmp(argv[1], "getcpu") == 0)
		return getcpu_mode();
	fprintf(stderr, "usage: prog_cpus entries|roundtrip|getcpu\n");
	return 2;
}
