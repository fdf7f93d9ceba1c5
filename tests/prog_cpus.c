/* SPDX-License-Identifier: MIT */
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
 *   prog_cpus slot       "<get_nprocs()> <sched_getcpu()>"
 *   prog_cpus where      "<get_nprocs()> <affinity as a CPU list>
 *                        <sched_getcpu()>": the machine, the pin, the CPU
 *   prog_cpus inherit K  the main thread pins itself to {K}, then a new
 *                        thread says where, as above: a thread starts
 *                        with its creator's mask
 *   prog_cpus pin        pins worker i to the i-th CPU of its mask (a
 *                        thread each, then the main thread through all):
 *                        "pin <CPUs> ok" or the first that failed
 *   prog_cpus vm         the cross-checks of one machine (see vm()): "vm N
 *                        ok" or the first that failed
 *   prog_cpus file PATH  access mode, a write, lseek of every whence, mmap:
 *                        "acc=r write=9 seek0=3 ... mmap=5"
 *   prog_cpus reread PATH  the file read, the machine moved on (time,
 *                        memory), then read again on the same descriptor
 *                        or stream by each way a program rewinds, and the
 *                        errno each left: "lseek=changed/0 pread=changed/0
 *                        ..." (procfs makes its text afresh; "same" where
 *                        the text did not move)
 *   prog_cpus forkreread N  N fork children, each counting its descriptors,
 *                        while a thread reads /proc/stat again and again
 *                        (a seek back each time): "children alike" or how
 *                        many had another count than the parent's
 *   prog_cpus closereread N [PAD]  N pipes, each write end closed and the
 *                        read end polled at once, while a thread reads
 *                        /proc/stat again and again (PAD descriptors
 *                        opened first): "hang-ups H of N" (natively H = N;
 *                        fastpath(7): the refresh's table holds the end)
 *   prog_cpus kin N      a thread reads /proc/stat again N times while
 *                        another reaps any child (waitpid __WALL): "reaped
 *                        R children's maxrss M" (what the program made:
 *                        none)
 *   prog_cpus leaderexit  the main thread exits; a thread then sets its
 *                        mask {1}: "set 0 pthread 0"
 *   prog_cpus leaderreread  the main thread exits; a thread reads
 *                        /proc/stat, spins 0.3 s, seeks back and reads
 *                        again: "moved" or "frozen"
 *   prog_cpus badenv [learnt]  exec and spawn with an envp the kernel
 *                        cannot read (the array, one entry): their
 *                        results; "learnt": after a first question
 *   prog_cpus maskwindow SECS  sched_setaffinity({0, 11}) in a loop
 *                        while a child sends SIGUSR1 every 200 us: "runs
 *                        N, SIGUSR2 blocked in M" (CPU 11 is SIGUSR2's
 *                        bit: a check that blocked the mask would show)
 *   prog_cpus heapenv    exec "true" with an environment of 300 short
 *                        strings, each its own allocation: "exit 0"
 *   prog_cpus altgen SEED N | altgen SEED show K
 *                        N generated sequences of alternate stacks and
 *                        handlers ending in an exec from a SIGSEGV
 *                        handler: one status each ('.' exit 0, 'S' killed
 *                        by SIGSEGV, a digit: the count a pinned nproc
 *                        printed); show: case K's sequence
 *   prog_cpus altexec SIZE [learnt|pinned|plain] [autodisarm|rearm|rearmjump|efault]
 *                        a SIGSEGV handler on an alternate stack of SIZE
 *                        bytes execs "true": its status; pinned: pinned
 *                        to CPU 0 first, it execs nproc: its count and
 *                        status.  The stack armed with SS_AUTODISARM
 *                        (disarmed inside the handler); rearm: so, and a
 *                        first handler on it arms another and returns
 *                        (the kernel puts it back); rearmjump: a first
 *                        handler arms another of SIZE bytes and jumps out
 *                        (that one stays: the exec is on it); efault: so, by a call
 *                        whose old stack pointer is bad (EFAULT, and
 *                        armed all the same)
 *   prog_cpus rereadjump  /proc/stat seeked back and forth 20000 times
 *                        while a timer's handler siglongjmp()s out of the
 *                        seeks: "descriptors kept" or how many were left
 *   prog_cpus jemalloc   the arenas that served a thread pinned to each
 *                        CPU of the mask: "percpu percpu arenas 2 max 1
 *                        cpus 2"
 *   prog_cpus flags      opens of /proc/cpuinfo and .../cpu/online with
 *                        O_NOATIME, O_DIRECTORY, O_PATH, the write modes:
 *                        "noatime=ok directory=ENOTDIR ..." (as native)
 *   prog_cpus xfsz [block]  /proc/cpuinfo's processor count; with block,
 *                        SIGXFSZ blocked first: "3 pending=0 blocked=1"
 *   prog_cpus xfsz kill  SIGXFSZ blocked, one sent to the process by kill()
 *                        and pending, /proc/cpuinfo read, then unblocked:
 *                        "3 hits=1" (the program's one, none of ours)
 *   prog_cpus xfsz handler  /proc/cpuinfo read for a second while a
 *                        SIGALRM handler every 300 us writes a byte to a
 *                        file past the limit: each of its writes refused
 *                        raises a SIGXFSZ the program sees, inside our
 *                        copy too: "handler ok"
 *   prog_cpus attrfork   two threads set an attribute's affinity in a loop
 *                        while the main thread forks for 4 s; each child
 *                        makes a thread with an attribute: "attrfork ok",
 *                        or "attrfork hung after N forks" (a child stuck
 *                        on a lock another thread held at the fork)
 *   prog_cpus learnt     a worker pins itself to the last CPU with the raw
 *                        system call and asks the count first; then the
 *                        main thread sets {0}: "real=<its real CPUs>"
 *   prog_cpus attrpin    worker i made with an attribute pinning it to
 *                        CPU i (pthread_attr_setaffinity_np), for each i
 *                        below get_nprocs(): each reads back {i} (the
 *                        attribute, sched_ and pthread_getaffinity_np,
 *                        sched_getcpu): "attrpin N ok real=<CPUs>" with
 *                        the real CPUs the workers ran on
 *   prog_cpus mainrec K  the main thread's mask is one record: a worker
 *                        sets it to {K} by its pthread_t (both read {K},
 *                        the main thread runs on K); a worker pinned to
 *                        {K} forks (its child's threads read {K}); an
 *                        ended thread's mask set to {K} (the caller's);
 *                        2000 sets by the main thread against another
 *                        thread's reads; 500 sets by the main thread
 *                        against a worker's by our pid (the mask read
 *                        holds the CPU it runs on); 200 children whose
 *                        worker forks as the main thread first sets its
 *                        mask (the child reads the worker's); an
 *                        attribute's mask of a size past memory; in
 *                        fresh children: a worker made before the main
 *                        thread's first set reads what it inherited; 500
 *                        siglongjmps out of sets, then {K} reads {K}; 200
 *                        fork children setting {K} while a thread sets
 *                        its own: "worker K K main K K;fork ok;ended K
 *                        K;race 0;setrace 0;forkrace 0;unset 0;jumps
 *                        0;forkset 0;nomem 12"
 *   prog_cpus selfpins   each of get_nprocs() workers pins itself to {i}
 *                        at once, 100 rounds: "selfpins B", B the reads
 *                        of the mask or sched_getcpu that were not i
 *   prog_cpus shortmask  a mask of 1 and of 4 bytes at a mapping's end
 *                        given to sched_setaffinity, pthread_setaffinity_np
 *                        and pthread_attr_setaffinity_np: "shortmask 0 0
 *                        0 0 0 0"
 *   prog_cpus vforkset K a vfork child sets {K} and execs "where" (needs
 *                        a path in argv[0])
 *   prog_cpus vforkthreads K  two threads vfork 300 children each at
 *                        once, which set {K} and {0} and read them back:
 *                        "vforkthreads 0"
 *   prog_cpus vforknest K  the main thread sets {0}; a vfork child sets
 *                        {K} and vforks: its child reads {K} and execs
 *                        "where"
 *   prog_cpus attrs K    an attribute's mask {K} travels with it: a copy
 *                        by value (and a thread made with it), the default
 *                        past 20 other attributes, a thread's own
 *                        attributes (pthread_getattr_np) pinned to {K}, and
 *                        to {0} in a destroyed attribute's memory, masks
 *                        of 1008 to 8064 bytes: "copy K K;default
 *                        K;getattr K;reuse 0;1008 K K;2016 K K;4032 K
 *                        K;8064 K K"
 *   prog_cpus MODE raw   MODE after the mask was set to {last CPU} by a raw
 *                        system call (numactl's way), after a first question
 */
#include <dlfcn.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* Linux 4.7: <linux/signal.h> */
#endif

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

/* Another thread reads the main thread's mask by its pthread_t and by
 * the pid: both the main thread's own (a cold review: by pthread_t its
 * real mask, translated). */
static pthread_t main_thread;
static void *main_seen(void *arg)
{
	cpu_set_t *own = arg, by_t, by_pid;

	if (pthread_getaffinity_np(main_thread, sizeof by_t, &by_t) ||
	    sched_getaffinity(getpid(), sizeof by_pid, &by_pid))
		return (void *)"get-failed";
	return (void *)(CPU_EQUAL(&by_t, own) && CPU_EQUAL(&by_pid, own) ? "ok" : "seen-otherwise");
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
	r = (void *)round_trip(0);
	main_thread = pthread_self();
	if (!strcmp(r, "ok") && (sched_getaffinity(0, sizeof before, &before) ||
	                         pthread_create(&t, NULL, main_seen, &before) || pthread_join(t, &r)))
		return 1;
	printf("main %s ", (const char *)r);
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

	/* The cap shows its machine from the first question on.  (The
	 * kernel writes its own mask's bytes only: the rest zeroed here.) */
	CPU_ZERO(&m);
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

static int slot(void)
{
	printf("%d %d\n", get_nprocs(), sched_getcpu());
	return 0;
}

static int where(void)
{
	long n = get_nprocs(), id, end;
	size_t size = CPU_ALLOC_SIZE(n > 1024 ? n : 1024);
	cpu_set_t *s = CPU_ALLOC(size * 8);
	const char *sep = "";

	if (!s || sched_getaffinity(0, size, s) != 0)
		return 1;
	printf("%ld ", n);
	for (id = 0; id < (long)size * 8; id++) {
		if (!CPU_ISSET_S((size_t)id, size, s))
			continue;
		for (end = id; end + 1 < (long)size * 8 && CPU_ISSET_S((size_t)end + 1, size, s); end++)
			;
		printf(end > id ? "%s%ld-%ld" : "%s%ld", sep, id, end);
		sep = ",";
		id = end;
	}
	printf(" %d\n", sched_getcpu());
	CPU_FREE(s);
	return 0;
}

static void *where_thread(void *unused)
{
	(void)unused;
	return (void *)(long)where();
}

static int inherit(int k)
{
	size_t size = CPU_ALLOC_SIZE(k + 1 > 1024 ? k + 1 : 1024);
	cpu_set_t *s = CPU_ALLOC(size * 8);
	pthread_t t;
	void *rc;

	CPU_ZERO_S(size, s);
	CPU_SET_S((size_t)k, size, s);
	if (sched_setaffinity(0, size, s) != 0 || pthread_create(&t, NULL, where_thread, NULL) != 0 ||
	    pthread_join(t, &rc) != 0)
		return 1;
	CPU_FREE(s);
	return (int)(long)rc;
}

/* Sets sized for the machine's count (8192 takes more than a cpu_set_t). */
static size_t pin_size;

/* Pinned to `id`: the set works, reads back as {id}, and the thread is
 * there.  NULL or what failed. */
static const char *pin_to(int id)
{
	cpu_set_t *s = CPU_ALLOC(pin_size * 8), *b = CPU_ALLOC(pin_size * 8);
	const char *r = NULL;

	CPU_ZERO_S(pin_size, s);
	CPU_SET_S((size_t)id, pin_size, s);
	if (pthread_setaffinity_np(pthread_self(), pin_size, s))
		r = "pthread_setaffinity_np failed";
	else if (pthread_getaffinity_np(pthread_self(), pin_size, b) || !CPU_EQUAL_S(pin_size, s, b))
		r = "read back differs";
	else if (sched_getcpu() != id)
		r = "sched_getcpu is another CPU";
	else if (sched_setaffinity(0, pin_size, s) || sched_getaffinity(0, pin_size, b) ||
	         !CPU_EQUAL_S(pin_size, s, b))
		r = "sched_setaffinity round trip differs";
	CPU_FREE(s);
	CPU_FREE(b);
	return r;
}

static void *pin_worker(void *arg)
{
	return (void *)pin_to((int)(long)arg);
}

static int pin(void)
{
	long n = get_nprocs();
	cpu_set_t *m;
	int *ids, k = 0;

	pin_size = CPU_ALLOC_SIZE(n > CPU_SETSIZE ? n : CPU_SETSIZE);
	m = CPU_ALLOC(pin_size * 8);
	ids = calloc(pin_size * 8, sizeof *ids);
	if (pthread_getaffinity_np(pthread_self(), pin_size, m))
		return printf("pin: pthread_getaffinity_np failed\n"), 1;
	for (size_t i = 0; i < pin_size * 8; i++)
		if (CPU_ISSET_S(i, pin_size, m))
			ids[k++] = (int)i;
	for (int i = 0; i < k && i < 64; i++) {
		pthread_t t;
		void *r;

		if (pthread_create(&t, NULL, pin_worker, (void *)(long)ids[i]) || pthread_join(t, &r))
			return printf("pin: no thread\n"), 1;
		if (r)
			return printf("pin: worker %d to cpu %d: %s\n", i, ids[i], (char *)r), 1;
	}
	for (int i = 0; i < k; i++) {
		const char *r = pin_to(ids[i]);

		if (r)
			return printf("pin: main to cpu %d: %s\n", ids[i], r), 1;
	}
	printf("pin %d ok\n", k);
	CPU_FREE(m);
	free(ids);
	return 0;
}

static char text[1 << 25]; /* /proc/cpuinfo of 8192 CPUs: 11 MB */

static size_t slurp(const char *path)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t k;

	if (fd < 0)
		return 0;
	while ((k = read(fd, text + len, sizeof text - 1 - len)) > 0)
		len += (size_t)k;
	close(fd);
	text[len] = '\0';
	return len;
}

/* The value of "key<tabs>: v" in the line at p, or -1. */
static long field(const char *p, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(p, key, n) != 0 || (p[n] != '\t' && p[n] != ' ' && p[n] != ':'))
		return -1;
	p = strchr(p, ':');
	return p ? atol(p + 1) : -1;
}

static pid_t sibling_tid;
static _Atomic int sibling_go;

static void *sibling(void *arg)
{
	(void)arg;
	sibling_tid = (pid_t)syscall(SYS_gettid);
	atomic_store(&sibling_go, 1);
	while (atomic_load(&sibling_go) == 1)
		sched_yield();
	return NULL;
}

#define VM_FAIL(...) return printf("vm: " __VA_ARGS__), printf("\n"), 1

/* Leaves the stack below its caller full of set bits (a cold review: the
 * status file's mask was built from stack leftovers). */
static __attribute__((noinline)) void dirty_stack(void)
{
	volatile unsigned char junk[65536];

	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = 0xff;
}

/* The status file's Cpus_allowed_list read twice, with the stack below
 * clean and then dirty: "stable", or both. */
static int status_stable(void)
{
	static char clean[4096];
	char *p, *e;

	slurp("/proc/self/status");
	p = strstr(text, "Cpus_allowed_list:");
	snprintf(clean, sizeof clean, "%.*s", p && (e = strchr(p, '\n')) ? (int)(e - p) : 0, p ? p : "");
	dirty_stack();
	slurp("/proc/self/status");
	p = strstr(text, "Cpus_allowed_list:");
	if (p && (e = strchr(p, '\n')))
		*e = '\0';
	if (p && *clean && strcmp(p, clean) == 0)
		return printf("stable\n"), 0;
	return printf("clean [%s] dirty [%s]\n", clean, p ? p : ""), 1;
}

/* Whether `key` in a status file lists the CPUs of *a, no more. */
static bool status_list_is(const char *path, const cpu_set_t *a)
{
	cpu_set_t got;
	char *p;

	dirty_stack();
	slurp(path);
	if (!(p = strstr(text, "\nCpus_allowed_list:")))
		return false;
	CPU_ZERO(&got);
	for (p += 20; *p == ' ' || *p == '\t'; p++)
		;
	while (*p >= '0' && *p <= '9') {
		long lo = strtol(p, &p, 10), hi = lo;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		for (long c = lo; c <= hi && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, &got);
		if (*p == ',')
			p++;
	}
	return CPU_EQUAL(&got, a);
}

/*
 * What holds on any real machine of N CPUs, whatever the affinity: the
 * counts agree; online, possible and present are 0..N-1, kernel_max at
 * least N-1; /proc/cpuinfo numbers 0..N-1 once each, apicids distinct,
 * siblings and cpu cores the same in every block and the package count
 * times siblings is N; /proc/stat has cpu0..cpuN-1; the masks (process,
 * thread, another thread by pthread_t and by tid) agree and lie below N;
 * sched_getcpu() is in the mask; a set too small for N is EINVAL and
 * leaves the buffer alone.
 */
static int vm(void)
{
	long n = get_nprocs(), want = 0, sib = -1, cores = -1, packages = 0, v;
	char expect[64];
	cpu_set_t a, b, c;
	pthread_t t;
	unsigned long small[1] = { 0x5a5a5a5aul };
	int cpu;

	if (sysconf(_SC_NPROCESSORS_ONLN) != n || sysconf(_SC_NPROCESSORS_CONF) != n ||
	    get_nprocs_conf() != n)
		VM_FAIL("the counts differ");
	snprintf(expect, sizeof expect, n > 1 ? "0-%ld\n" : "0\n", n - 1);
	slurp("/sys/devices/system/cpu/online");
	if (strcmp(text, expect) != 0)
		VM_FAIL("online is %s", text);
	slurp("/sys/devices/system/cpu/present");
	if (strcmp(text, expect) != 0)
		VM_FAIL("present is %s", text);
	slurp("/sys/devices/system/cpu/possible");
	if (strcmp(text, expect) != 0)
		VM_FAIL("possible is %s", text);
	slurp("/sys/devices/system/cpu/kernel_max");
	if (atol(text) < n - 1)
		VM_FAIL("kernel_max %ld", atol(text));
	slurp("/proc/cpuinfo");
	{
		static char apic[8192];
		long last_pkg = -1;

		for (char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
			if ((v = field(p, "processor")) >= 0 && v != want++)
				VM_FAIL("processor %ld where %ld", v, want - 1);
			if ((v = field(p, "siblings")) >= 0 && sib >= 0 && v != sib)
				VM_FAIL("siblings %ld and %ld", v, sib);
			if (v >= 0)
				sib = v;
			if ((v = field(p, "cpu cores")) >= 0 && cores >= 0 && v != cores)
				VM_FAIL("cpu cores %ld and %ld", v, cores);
			if (v >= 0)
				cores = v;
			if ((v = field(p, "apicid")) >= 0 && v < (long)sizeof apic && apic[v]++)
				VM_FAIL("apicid %ld twice", v);
			if ((v = field(p, "physical id")) >= 0 && v != last_pkg) {
				last_pkg = v;
				packages++;
			}
		}
	}
	if (want != n)
		VM_FAIL("%ld processors in /proc/cpuinfo", want);
	if (sib >= 0 && (sib < cores || packages * sib != n))
		VM_FAIL("siblings %ld, cpu cores %ld, %ld packages for %ld CPUs", sib, cores, packages, n);
	slurp("/proc/stat");
	for (v = 0; v < n; v++) {
		char line[32];

		snprintf(line, sizeof line, "\ncpu%ld ", v);
		if (!strstr(text, line))
			VM_FAIL("no cpu%ld in /proc/stat", v);
	}
	snprintf(expect, sizeof expect, "\ncpu%ld ", n);
	if (strstr(text, expect))
		VM_FAIL("cpu%ld in /proc/stat", n);
	if (n <= CPU_SETSIZE) {
		if (sched_getaffinity(0, sizeof a, &a) || pthread_getaffinity_np(pthread_self(), sizeof b, &b))
			VM_FAIL("get failed");
		if (!CPU_EQUAL(&a, &b) || CPU_COUNT(&a) == 0)
			VM_FAIL("sched and pthread masks differ");
		for (int i = (int)n; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &a))
				VM_FAIL("CPU %d in the mask", i);
		if ((cpu = sched_getcpu()) < 0 || cpu >= n || !CPU_ISSET(cpu, &a))
			VM_FAIL("sched_getcpu() %d", cpu);
		if (!status_list_is("/proc/self/status", &a) ||
		    !status_list_is("/proc/thread-self/status", &a))
			VM_FAIL("Cpus_allowed_list of the status files is not the mask");
		if (pthread_create(&t, NULL, sibling, NULL))
			VM_FAIL("no thread");
		while (!atomic_load(&sibling_go))
			sched_yield();
		if (sched_getaffinity(sibling_tid, sizeof b, &b) || pthread_getaffinity_np(t, sizeof c, &c) ||
		    !CPU_EQUAL(&b, &c) || !CPU_EQUAL(&a, &b))
			VM_FAIL("another thread's mask differs by tid, by pthread_t or from ours");
		atomic_store(&sibling_go, 2);
		pthread_join(t, NULL);
	}
	if (n > 64 && (sched_getaffinity(0, sizeof small, (cpu_set_t *)small) != -1 ||
	               errno != EINVAL || small[0] != 0x5a5a5a5aul))
		VM_FAIL("a set of 64 for %ld CPUs", n);
	printf("vm %ld ok\n", n);
	return 0;
}

/* What a program sees of a file's descriptor: access mode, a write, the
 * seeks and a map, each a result or an errno number. */
static int file_mode(const char *path)
{
	static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE };
	int fd = open(path, O_RDONLY), fl;
	void *p;

	if (fd < 0)
		return printf("open: %d\n", errno), 1;
	fl = fcntl(fd, F_GETFL) & O_ACCMODE;
	printf("acc=%s", fl == O_RDONLY ? "r" : fl == O_WRONLY ? "w" : "rw");
	printf(" write=%d", write(fd, "x", 1) < 0 ? errno : 0);
	for (int i = 0; i < 5; i++) {
		off_t r = lseek(fd, i == 0 ? 3 : 0, whence[i]);

		printf(" seek%d=%s%ld", whence[i], r < 0 ? "errno " : "", r < 0 ? (long)errno : (long)r);
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	printf(" mmap=%d\n", p == MAP_FAILED ? errno : 0);
	return 0;
}

/* The machine moved on: time for /proc/stat's counters, a thread's
 * memory for a status's Vm lines. */
static void reread_move(void)
{
	struct timespec ts = { 0, 40 * 1000 * 1000 };
	char *p = malloc(8 << 20);

	if (p)
		memset(p, 1, 8 << 20); /* kept: the status must show it */
	nanosleep(&ts, NULL);
}

static int reread_mode(const char *path)
{
	static const char *const how[] = { "lseek", "pread", "preadv", "rewind", "fseek", "fsetpos" };
	static char a[1 << 18], b[1 << 18];

	for (size_t i = 0; i < sizeof how / sizeof how[0]; i++) {
		int fd = open(path, O_RDONLY);
		FILE *f = i >= 3 && fd >= 0 ? fdopen(fd, "r") : NULL;
		ssize_t na = -1, nb = -1;
		int e;
		struct iovec v = { b, sizeof b };
		fpos_t pos;

		if (fd < 0 || (i >= 3 && (!f || fgetpos(f, &pos) != 0)))
			return printf("open: %d\n", errno), 1;
		na = f ? (ssize_t)fread(a, 1, sizeof a, f) : read(fd, a, sizeof a);
		reread_move();
		errno = 0; /* what the call leaves there, as natively */
		switch (i) {
		case 0: nb = lseek(fd, 0, SEEK_SET) == 0 ? read(fd, b, sizeof b) : -1; break;
		case 1: nb = pread(fd, b, sizeof b, 0); break;
		case 2: nb = preadv(fd, &v, 1, 0); break;
		case 3: rewind(f); nb = (ssize_t)fread(b, 1, sizeof b, f); break;
		case 4: nb = fseek(f, 0, SEEK_SET) == 0 ? (ssize_t)fread(b, 1, sizeof b, f) : -1; break;
		default: nb = fsetpos(f, &pos) == 0 ? (ssize_t)fread(b, 1, sizeof b, f) : -1; break;
		}
		e = errno;
		printf("%s%s=%s/%d", i ? " " : "", how[i], nb < 0 ? "error" :
		       na == nb && memcmp(a, b, (size_t)na) == 0 ? "same" : "changed", e);
		if (f)
			fclose(f);
		else
			close(fd);
	}
	printf("\n");
	return 0;
}

static sigjmp_buf rj_env;

static volatile sig_atomic_t rj_env_set;

/* Only once rj_env is set: the timer is armed before the first sigsetjmp
 * (mr_jump's crash, the same order). */
static void rj_handler(int sig)
{
	(void)sig;
	if (rj_env_set)
		siglongjmp(rj_env, 1);
}

static int rj_count(void)
{
	int n = 0;

	for (int i = 0; i < 4096; i++)
		n += fcntl(i, F_GETFD) >= 0;
	return n;
}

/* Out of the frame the jumps return into, and the timer's signal held
 * before that frame goes: one arriving after it would jump into a frame
 * that returned (CI's sanitizer run, loaded: the native run printed
 * nothing). */
static __attribute__((noinline)) void rj_seeks(int fd)
{
	static volatile int i;
	struct itimerval off;
	sigset_t alrm;

	for (i = 0; i < 20000; i++) {
		if (sigsetjmp(rj_env, 1))
			continue;
		rj_env_set = 1;
		lseek(fd, 1, SEEK_SET);
		lseek(fd, 0, SEEK_SET);
	}
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	memset(&off, 0, sizeof off);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);  /* a pending one goes */
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
}

static int reread_jump(void)
{
	static char b[4096];
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct sigaction sa;
	int fd = open("/proc/stat", O_RDONLY), before, after;

	if (fd < 0 || read(fd, b, sizeof b) < 0)
		return printf("open: %d\n", errno), 1;
	before = rj_count();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = rj_handler;
	rj_env_set = 0;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	rj_seeks(fd);
	after = rj_count();
	if (after == before)
		printf("descriptors kept\n");
	else
		printf("%d descriptors left\n", after - before);
	return 0;
}

static int fr_fd;
static atomic_bool fr_stop;

static void *fr_reader(void *arg)
{
	char b[256];

	(void)arg;
	while (!atomic_load(&fr_stop)) {
		if (read(fr_fd, b, sizeof b) < 0 || lseek(fr_fd, 0, SEEK_SET) != 0)
			return (void *)"read failed";
	}
	return NULL;
}

/* What a fork child copies of the table while another thread reads a
 * file again: the parent's descriptors, none of anyone's for a moment. */
static int fork_reread(int n)
{
	pthread_t t;
	int want = rj_count(), other = 0;
	void *r = NULL;

	if ((fr_fd = open("/proc/stat", O_RDONLY)) < 0)
		return printf("open: %d\n", errno), 1;
	want++;
	pthread_create(&t, NULL, fr_reader, NULL);
	for (int i = 0; i < n; i++) {
		int st = 0;
		pid_t p = fork();

		if (p == 0)
			_exit(rj_count() & 0xff);
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
			return printf("fork: %d\n", errno), 1;
		other += WEXITSTATUS(st) != (want & 0xff);
	}
	atomic_store(&fr_stop, true);
	pthread_join(t, &r);
	if (r)
		return printf("%s\n", (const char *)r), 1;
	if (other)
		printf("%d of %d children with another count\n", other, n);
	else
		printf("children alike\n");
	return 0;
}

/* Whether a close is its file's last at once while another thread reads
 * /proc/stat again and again. */
static int close_reread(int n, int pad)
{
	pthread_t t;
	int hup = 0;
	void *r = NULL;

	for (int i = 0; i < pad; i++)
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0)
			return printf("open: %d\n", errno), 1;
	if ((fr_fd = open("/proc/stat", O_RDONLY)) < 0)
		return printf("open: %d\n", errno), 1;
	pthread_create(&t, NULL, fr_reader, NULL);
	for (int i = 0; i < n; i++) {
		int p[2];
		struct pollfd q = { .events = POLLIN };

		if (pipe2(p, O_CLOEXEC) != 0)
			return printf("pipe2: %d\n", errno), 1;
		close(p[1]);
		q.fd = p[0];
		hup += poll(&q, 1, 0) == 1 && (q.revents & POLLHUP);
		close(p[0]);
	}
	atomic_store(&fr_stop, true);
	pthread_join(t, &r);
	if (r)
		return printf("%s\n", (const char *)r), 1;
	printf("hang-ups %d of %d\n", hup, n);
	return 0;
}

static atomic_int kin_reaped;

static void *kin_reaper(void *arg)
{
	int st;

	(void)arg;
	while (!atomic_load(&fr_stop))
		if (waitpid(-1, &st, __WALL | WNOHANG) > 0)
			atomic_fetch_add(&kin_reaped, 1);
	return NULL;
}

/* Children the program never made: none for its wait, none in its
 * RUSAGE_CHILDREN (a cold review: a helper process of ours was reaped
 * by the program's __WALL wait, 1467 times in 3000 reads). */
static int kin(int n)
{
	pthread_t t;
	struct rusage ru;
	char b[256];
	int fd = open("/proc/stat", O_RDONLY);

	if (fd < 0)
		return printf("open: %d\n", errno), 1;
	pthread_create(&t, NULL, kin_reaper, NULL);
	for (int i = 0; i < n; i++)
		if (lseek(fd, 0, SEEK_SET) != 0 || read(fd, b, sizeof b) <= 0)
			return printf("read: %d\n", errno), 1;
	atomic_store(&fr_stop, true);
	pthread_join(t, NULL);
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("reaped %d children's maxrss %ld\n", atomic_load(&kin_reaped), ru.ru_maxrss);
	return 0;
}

/* A mask the kernel reads from a process whose main thread has exited (a
 * cold review: EFAULT, the copy asked of the main thread's pid). */
static int leader_gone(void *arg)
{
	cpu_set_t s;
	int r;

	(void)arg;
	CPU_ZERO(&s);
	CPU_SET(1, &s);
	r = sched_setaffinity(0, sizeof s, &s);
	printf("set %d pthread %d\n", r, pthread_setaffinity_np(pthread_self(), sizeof s, &s));
	return 0;
}

/* A copy read again once the main thread has exited (a cold review: its
 * /proc/self was gone, and the copy froze). */
static int leader_reread(void *arg)
{
	char a[256] = { 0 }, b[256] = { 0 };
	struct timespec t0, t1;
	int fd = open("/proc/stat", O_RDONLY);

	(void)arg;
	if (fd < 0 || read(fd, a, sizeof a - 1) <= 0)
		return printf("open: %d\n", errno), 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do /* the counters move with the CPU time spent */
		clock_gettime(CLOCK_MONOTONIC, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 300000000L);
	if (lseek(fd, 0, SEEK_SET) != 0 || read(fd, b, sizeof b - 1) <= 0)
		return printf("read: %d\n", errno), 1;
	printf("%s\n", strcmp(a, b) ? "moved" : "frozen");
	return 0;
}

static int bad_env(bool learnt)
{
	char *args[] = { "true", NULL };
	char *entry[] = { "A=1", (char *)1, NULL };
	char **volatile bad = (char **)1; /* out of the compiler's sight */
	pid_t pid;
	int r;

	if (learnt)
		(void)get_nprocs();
	errno = 0;
	r = execve("/bin/true", args, bad);
	printf("execve(bad array) = %d errno %d\n", r, errno);
	errno = 0;
	r = execve("/bin/true", args, entry);
	printf("execve(bad entry) = %d errno %d\n", r, errno);
	r = posix_spawn(&pid, "/bin/true", NULL, NULL, args, bad);
	printf("posix_spawn(bad array) = %d\n", r);
	if (r == 0)
		waitpid(pid, NULL, 0);
	return 0;
}

static volatile sig_atomic_t mw_runs, mw_usr2;

static void mw_handler(int sig)
{
	sigset_t cur;

	(void)sig;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	mw_runs++;
	if (sigismember(&cur, SIGUSR2))
		mw_usr2++;
}

static int mask_window(int secs)
{
	struct sigaction sa;
	struct timespec pause = { 0, 200000 };
	pid_t me = getpid(), k;
	cpu_set_t m;
	time_t end;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = mw_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGUSR2, SIG_IGN);
	if ((k = fork()) == 0)
		for (;;) {
			if (kill(me, SIGUSR1) != 0)
				_exit(0);
			nanosleep(&pause, NULL);
		}
	CPU_ZERO(&m);
	CPU_SET(0, &m);
	CPU_SET(11, &m);
	for (end = time(NULL) + secs; time(NULL) < end;)
		(void)sched_setaffinity(0, sizeof m, &m);
	kill(k, SIGKILL);
	waitpid(k, NULL, 0);
	printf("runs %s, SIGUSR2 blocked in %d\n", mw_runs > 0 ? "some" : "none", (int)mw_usr2);
	return 0;
}

/* Waits for child p and prints how it ended: "exit N" or "killed by S". */
static void child_status(pid_t p)
{
	int st = 0;

	waitpid(p, &st, 0);
	if (WIFSIGNALED(st))
		printf("killed by %d\n", WTERMSIG(st));
	else
		printf("exit %d\n", WEXITSTATUS(st));
}

/* setenv's strings are allocations of their own length: a check that
 * reads 8 bytes of "A=1" reads past it (memcheck says so). */
static int heap_env(void)
{
	char *env[301], *args[] = { "true", NULL };
	pid_t p;

	for (int i = 0; i < 300; i++) {
		env[i] = malloc(4);
		if (!env[i])
			return 2;
		memcpy(env[i], i ? "B=1" : "A=1", 4);
	}
	env[300] = NULL;
	if ((p = fork()) == 0) {
		execve("/bin/true", args, env);
		_exit(99);
	}
	child_status(p);
	for (int i = 0; i < 300; i++)
		free(env[i]);
	return 0;
}

static char *alt_args[] = { "true", NULL };
static const char *alt_path = "/bin/true";

static void altexec_handler(int sig)
{
	(void)sig;
	execv(alt_path, alt_args);
	_exit(99);
}

/* A crash handler that execs a reporter, on a small alternate stack
 * with a guard page below it. */
static stack_t alt_other;

static sigjmp_buf alt_jump;
static bool alt_jumps;

static void alt_rearm_handler(int sig)
{
	(void)sig;
	if (sigaltstack(&alt_other, NULL) != 0)
		_exit(96);
	if (alt_jumps)
		siglongjmp(alt_jump, 1);
}

/* SIZE bytes of stack with a guard page below, or NULL. */
static void *alt_stack(long size)
{
	char *m = mmap(NULL, (size_t)size + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	               -1, 0);

	return m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) ? NULL : m + 4096;
}

/* The stack a by arm's way; false where it is not armed so. */
static bool alt_arm(stack_t *a, const char *arm)
{
	stack_t now;

	if (!arm || strcmp(arm, "efault") != 0)
		return sigaltstack(a, NULL) == 0;
	/* Linux applies the new stack before it writes the old one. */
	if (sigaltstack(a, (stack_t *)8) != -1 || errno != EFAULT)
		return false;
	return sigaltstack(NULL, &now) == 0 && now.ss_sp == a->ss_sp;
}

static int alt_exec(long size, const char *how, const char *arm)
{
	int flags = arm && (strcmp(arm, "autodisarm") == 0 || strncmp(arm, "rearm", 5) == 0 ||
	                    strcmp(arm, "efault") == 0) ? (int)SS_AUTODISARM : 0;
	bool learnt = how && strcmp(how, "learnt") == 0;
	pid_t p;

	if (how && strcmp(how, "pinned") == 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0)
			return 2;
		alt_path = "/usr/bin/nproc";
		alt_args[0] = "nproc";
		fflush(stdout);
	}
	if ((p = fork()) == 0) {
		stack_t ss = { .ss_sp = alt_stack(size), .ss_flags = flags, .ss_size = (size_t)size };
		struct sigaction sa;

		if (learnt)
			(void)get_nprocs();
		if (!ss.ss_sp || !alt_arm(&ss, arm))
			_exit(98);
		memset(&sa, 0, sizeof sa);
		sa.sa_flags = SA_ONSTACK;
		if (arm && strncmp(arm, "rearm", 5) == 0) {
			alt_jumps = strcmp(arm, "rearmjump") == 0;
			alt_other.ss_size = alt_jumps ? (size_t)size : 65536;
			alt_other.ss_flags = (int)SS_AUTODISARM;
			if ((alt_other.ss_sp = alt_jumps ? alt_stack(size) : malloc(alt_other.ss_size)) == NULL)
				_exit(98);
			sa.sa_handler = alt_rearm_handler;
			sigaction(SIGUSR1, &sa, NULL);
			if (sigsetjmp(alt_jump, 1) == 0)
				raise(SIGUSR1);
		}
		sa.sa_handler = altexec_handler;
		sigaction(SIGSEGV, &sa, NULL);
		raise(SIGSEGV);
		_exit(97);
	}
	child_status(p);
	return 0;
}

/* ---- altgen: generated sequences of alternate stacks and handlers ----
 * Each case, from the seed: a first stack (size, SS_AUTODISARM or not,
 * armed plainly or by a call failing with EFAULT, after up to four arms
 * of a pool of five stacks, itself among them), up to six handlers on the
 * main stack that each arm one of the pool and return, the machine learnt
 * or not, an environment of 0 to 400 more entries, then a chain of up to
 * three handlers (on the alternate stack or not), each of which may arm
 * another stack and then returns, raises the next, or jumps out to the
 * top; a SIGSEGV handler on the alternate stack execs "true" with that
 * environment (or, pinned to CPU 0, nproc), from inside the chain or at
 * the top after it.  Stacks of 3, 4, 8 and 64 KiB.  What the
 * cap's exec copies, and where, is all it can differ in: the statuses
 * must be native's (reviews 33, 35, 36 and 40 found such sequences by
 * hand). */
enum { AG_LEVELS = 3, AG_ENV = 400 };
static uint64_t ag_seed;
static struct ag_level {
	int sig, onstack, arm, end;  /* arm: 0 none, 1 plain, 2 SS_AUTODISARM; end: 0 return, 1 next, 2 jump */
	size_t size;
} ag_lv[AG_LEVELS];
static int ag_depth, ag_loops, ag_loop_pick[6];
static stack_t ag_new[AG_LEVELS], ag_pool[5];
static volatile int ag_loop_at;
static sigjmp_buf ag_top;
static char *ag_env[AG_ENV + 64], ag_fill[AG_ENV][24];

static unsigned ag_draw(unsigned n)
{
	uint64_t z = (ag_seed += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (unsigned)((z ^ (z >> 31)) % n);
}

static void ag_segv(int sig)
{
	(void)sig;
	execve(alt_path, alt_args, ag_env);
	_exit(99);
}

/* A handler on the main stack that arms a stack of the pool and returns:
 * the kernel puts back the one armed when it began. */
static void ag_loop_handler(int sig)
{
	(void)sig;
	if (sigaltstack(&ag_pool[ag_loop_pick[ag_loop_at++ % 6]], NULL) != 0)
		_exit(96);
}

static void ag_handler(int sig)
{
	int i = 0;

	while (i < ag_depth - 1 && ag_lv[i].sig != sig)
		i++;
	if (ag_lv[i].arm && sigaltstack(&ag_new[i], NULL) != 0)
		_exit(96);
	if (ag_lv[i].end == 1)
		raise(i + 1 < ag_depth ? ag_lv[i + 1].sig : SIGSEGV);
	else if (ag_lv[i].end == 2)
		siglongjmp(ag_top, 1);
}

/* Case k of seed: its description (show) or its status in a child. */
static void ag_case(uint64_t seed, int k, bool show)
{
	static const size_t sizes[] = { 3072, 4096, 8192, 65536 };
	size_t size = sizes[0];
	int flags, efault, learnt, extra, inside, prelude, pre_pick[4], pinned, out[2];
	extern char **environ;
	pid_t p;

	ag_seed = seed * 1000003 + (uint64_t)k;
	size = sizes[ag_draw(4)];
	flags = ag_draw(2) ? (int)SS_AUTODISARM : 0;
	efault = ag_draw(4) == 0;
	learnt = ag_draw(2);
	extra = (int)ag_draw(5) * 100;
	ag_depth = (int)ag_draw(AG_LEVELS + 1);
	for (int i = 0; i < ag_depth; i++) {
		ag_lv[i].sig = i == 0 ? SIGUSR1 : i == 1 ? SIGUSR2 : SIGRTMIN;
		ag_lv[i].onstack = ag_draw(2);
		ag_lv[i].arm = (int)ag_draw(3);
		ag_lv[i].size = sizes[ag_draw(4)];
		ag_lv[i].end = (int)ag_draw(3);
	}
	inside = ag_depth > 0 && ag_lv[ag_depth - 1].end == 1;
	/* Before the first stack's arm, arms of a pool of five (the first
	 * among them: armed again last); after it, handlers on the main
	 * stack that each arm one of the pool and return (review 42's rearm
	 * and loop). */
	prelude = (int)ag_draw(5);
	for (int i = 0; i < prelude; i++)
		pre_pick[i] = (int)ag_draw(5);
	ag_loops = (int)ag_draw(7);
	for (int i = 0; i < 6; i++)
		ag_loop_pick[i] = 1 + (int)ag_draw(4);
	for (int i = 1; i < 5; i++) {
		ag_pool[i].ss_size = sizes[ag_draw(4)];
		ag_pool[i].ss_flags = ag_draw(3) ? (int)SS_AUTODISARM : 0;
	}
	/* One in four pinned to CPU 0 and exec'ing nproc: the count it
	 * prints is the status (a map not passed says the cap's count:
	 * review 35). */
	pinned = ag_draw(4) == 0;
	if (show) {
		printf("case %d: pool", k);
		for (int i = 1; i < 5; i++)
			printf(" %d:%zu%s", i, ag_pool[i].ss_size, ag_pool[i].ss_flags ? "a" : "");
		printf("; armed first");
		for (int i = 0; i < prelude; i++)
			printf(" %d", pre_pick[i]);
		printf("; stack %zu%s%s, %s, %d more variables; %d handlers arm",
		       size, flags ? " autodisarm" : "", efault ? " (EFAULT)" : "", learnt ? "learnt" : "plain",
		       extra, ag_loops);
		for (int i = 0; i < ag_loops; i++)
			printf(" %d", ag_loop_pick[i % 6]);
		printf(" and return;");
		for (int i = 0; i < ag_depth; i++)
			printf(" handler %d%s%s%s then %s;", i, ag_lv[i].onstack ? " on the stack" : "",
			       ag_lv[i].arm ? (ag_lv[i].arm == 2 ? " arms autodisarm " : " arms ") : "",
			       ag_lv[i].arm ? (ag_lv[i].size == 4096 ? "4096" : ag_lv[i].size == 8192 ? "8192" : ag_lv[i].size == 16384 ? "16384" : "65536") : "",
			       ag_lv[i].end == 0 ? "returns" : ag_lv[i].end == 1 ? "raises" : "jumps");
		printf(" exec %s%s\n", pinned ? "nproc, pinned, " : "", inside ? "inside" : "at the top");
		return;
	}
	fflush(stdout);
	if (pipe(out) != 0)
		_exit(2);
	if ((p = fork()) == 0) {
		stack_t ss = { .ss_sp = alt_stack((long)size), .ss_flags = flags, .ss_size = size };
		struct sigaction sa;
		int n = 0;

		close(out[0]);
		if (pinned) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(0, &one);
			if (sched_setaffinity(0, sizeof one, &one) != 0 || dup2(out[1], 1) != 1)
				_exit(98);
			alt_path = "/usr/bin/nproc";
			alt_args[0] = "nproc";
		}
		close(out[1]);
		ag_pool[0] = ss;
		for (int i = 1; i < 5; i++)
			if (!(ag_pool[i].ss_sp = alt_stack((long)ag_pool[i].ss_size)))
				_exit(98);

		for (char **e = environ; *e && n < 63; e++)
			ag_env[n++] = *e;
		for (int i = 0; i < extra; i++) {
			snprintf(ag_fill[i], sizeof ag_fill[i], "FILLER%d=1", i);
			ag_env[n++] = ag_fill[i];
		}
		ag_env[n] = NULL;
		for (int i = 0; i < ag_depth; i++) {
			ag_new[i].ss_size = ag_lv[i].size;
			ag_new[i].ss_flags = ag_lv[i].arm == 2 ? (int)SS_AUTODISARM : 0;
			if (ag_lv[i].arm && !(ag_new[i].ss_sp = alt_stack((long)ag_lv[i].size)))
				_exit(98);
		}
		if (learnt)
			(void)get_nprocs();
		for (int i = 0; i < prelude; i++)
			if (sigaltstack(&ag_pool[pre_pick[i]], NULL) != 0)
				_exit(98);
		if (!ss.ss_sp || !alt_arm(&ss, efault ? "efault" : NULL))
			_exit(98);
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = ag_loop_handler;
		sigaction(SIGWINCH, &sa, NULL);
		for (int i = 0; i < ag_loops; i++)
			raise(SIGWINCH);
		for (int i = 0; i < ag_depth; i++) {
			sa.sa_handler = ag_handler;
			sa.sa_flags = ag_lv[i].onstack ? SA_ONSTACK : 0;
			sigaction(ag_lv[i].sig, &sa, NULL);
		}
		sa.sa_handler = ag_segv;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGSEGV, &sa, NULL);
		if (ag_depth > 0 && sigsetjmp(ag_top, 1) == 0)
			raise(ag_lv[0].sig);
		raise(SIGSEGV);
		_exit(97);
	}
	{
		int st = 0;
		char got[8] = "";

		close(out[1]);
		if (read(out[0], got, sizeof got - 1) < 0)
			got[0] = 0;
		close(out[0]);
		waitpid(p, &st, 0);
		if (pinned && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			putchar(got[0] >= '0' && got[0] <= '9' ? got[0] : '?');
			return;
		}
		/* 96: an arm refused (on the alternate stack: EPERM), 97: no
		 * exec (the SIGSEGV handler did not run), 99: exec failed */
		putchar(WIFSIGNALED(st) ? (WTERMSIG(st) == SIGSEGV ? 'S' : 'K') :
		        WEXITSTATUS(st) == 0 ? '.' : WEXITSTATUS(st) >= 96 ? "pRmX"[WEXITSTATUS(st) - 96] : '?');
	}
}

/* altgen SEED N: N cases' statuses ('.' exit 0, 'S' killed by SIGSEGV,
 * 'p' an arm refused, 'R' no exec, 'X' exec failed); altgen SEED show K:
 * case K's description. */
static int alt_gen(uint64_t seed, int argc, char **argv)
{
	if (argc > 3 && strcmp(argv[3], "show") == 0) {
		ag_case(seed, atoi(argv[4 < argc ? 4 : 3]), true);
		return 0;
	}
	for (int k = 0, n = argc > 3 ? atoi(argv[3]) : 100; k < n; k++)
		ag_case(seed, k, false);
	putchar('\n');
	return 0;
}

/* A thread pinned to CPU arg that then allocates: its first allocation
 * picks the arena of the CPU sched_getcpu() says. */
static void *jemalloc_worker(void *arg)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET((int)(long)arg, &one);
	if (sched_setaffinity(0, sizeof one, &one))
		return (void *)"pin failed";
	for (int k = 0; k < 100; k++) {
		void *volatile q = malloc(64); /* volatile: not elided */

		free(q);
	}
	return NULL;
}

/* jemalloc's per-CPU arenas (MALLOC_CONF=percpu_arena:percpu,tcache:false,
 * jemalloc preloaded): it sizes them from the count and picks one by
 * sched_getcpu().  A thread pinned to each CPU of the mask allocates; then
 * the arenas that served them, which must lie below the count (arena N is
 * jemalloc's arena for huge allocations).  "percpu <mode> arenas <how
 * many> max <highest> cpus N", or "no jemalloc". */
static int jemalloc_mode(void)
{
	int (*ctl)(const char *, void *, size_t *, void *, size_t) =
		(int (*)(const char *, void *, size_t *, void *, size_t))dlsym(RTLD_DEFAULT, "mallctl");
	unsigned narenas = 0, used = 0, max = 0;
	size_t len;
	const char *mode = "?";
	uint64_t epoch = 1;
	cpu_set_t m;

	if (!ctl)
		return printf("no jemalloc\n"), 0;
	len = sizeof mode;
	if (ctl("opt.percpu_arena", &mode, &len, NULL, 0) || sched_getaffinity(0, sizeof m, &m))
		return printf("mallctl failed\n"), 1;
	for (int i = 0; i < CPU_SETSIZE && i < 256; i++) {
		pthread_t t;
		void *r;

		if (!CPU_ISSET(i, &m))
			continue;
		if (pthread_create(&t, NULL, jemalloc_worker, (void *)(long)i) || pthread_join(t, &r) || r)
			return printf("worker %d failed\n", i), 1;
	}
	len = sizeof narenas;
	if (ctl("epoch", NULL, NULL, &epoch, sizeof epoch) ||
	    ctl("arenas.narenas", &narenas, &len, NULL, 0))
		return printf("mallctl failed\n"), 1;
	for (unsigned a = 0; a < narenas; a++) {
		char name[64];
		uint64_t n = 0;

		snprintf(name, sizeof name, "stats.arenas.%u.small.nmalloc", a);
		len = sizeof n;
		if (ctl(name, &n, &len, NULL, 0) == 0 && n >= 100) {
			used++;
			max = a;
		}
	}
	printf("percpu %s arenas %u max %u cpus %d\n", mode, used, max, get_nprocs());
	return 0;
}

/* numactl's way: after a first question, the mask {last CPU} set by a
 * raw system call, out of the cap's sight. */
static int raw_mask(void)
{
	cpu_set_t a;
	int last = -1;

	CPU_ZERO(&a);
	(void)get_nprocs();
	if (syscall(SYS_sched_getaffinity, 0, sizeof a, &a) < 0)
		return printf("raw get failed\n"), 1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &a))
			last = i;
	CPU_ZERO(&a);
	CPU_SET(last, &a);
	if (syscall(SYS_sched_setaffinity, 0, sizeof a, &a) != 0)
		return printf("raw set failed\n"), 1;
	return 0;
}

static void *pin_raw_then_ask(void *arg)
{
	cpu_set_t a;
	int last = -1;

	(void)arg;
	CPU_ZERO(&a);
	if (syscall(SYS_sched_getaffinity, 0, sizeof a, &a) < 0)
		return NULL;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &a))
			last = i;
	CPU_ZERO(&a);
	CPU_SET(last, &a);
	(void)syscall(SYS_sched_setaffinity, 0, sizeof a, &a);
	(void)sysconf(_SC_NPROCESSORS_ONLN);
	return NULL;
}

/* Issue 37, defect 4: the map is the process's, not the first asker's. */
static int learnt_mode(void)
{
	pthread_t t;
	cpu_set_t a;

	if (pthread_create(&t, NULL, pin_raw_then_ask, NULL) != 0 || pthread_join(t, NULL) != 0)
		return printf("thread failed\n"), 1;
	CPU_ZERO(&a);
	CPU_SET(0, &a);
	if (sched_setaffinity(0, sizeof a, &a) != 0)
		return printf("set failed\n"), 1;
	CPU_ZERO(&a);
	if (syscall(SYS_sched_getaffinity, 0, sizeof a, &a) < 0)
		return printf("raw get failed\n"), 1;
	printf("real=");
	for (int i = 0, first = 1; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &a)) {
			printf(first ? "%d" : ",%d", i);
			first = 0;
		}
	printf("\n");
	return 0;
}

struct attr_worker {
	int i;
	char why[96];
	int real;
};

static bool only(const cpu_set_t *a, int i)
{
	return CPU_COUNT(a) == 1 && CPU_ISSET(i, a);
}

static void *attr_worker(void *p)
{
	struct attr_worker *w = p;
	cpu_set_t a;

	w->why[0] = '\0';
	if (sched_getaffinity(0, sizeof a, &a) != 0 || !only(&a, w->i))
		snprintf(w->why, sizeof w->why, "worker %d: sched_getaffinity holds %d CPUs", w->i,
		         CPU_COUNT(&a));
	else if (pthread_getaffinity_np(pthread_self(), sizeof a, &a) != 0 || !only(&a, w->i))
		snprintf(w->why, sizeof w->why, "worker %d: pthread_getaffinity_np holds %d CPUs",
		         w->i, CPU_COUNT(&a));
	else if (sched_getcpu() != w->i)
		snprintf(w->why, sizeof w->why, "worker %d: sched_getcpu %d", w->i, sched_getcpu());
	CPU_ZERO(&a);
	w->real = -1;
	if (syscall(SYS_sched_getaffinity, 0, sizeof a, &a) > 0 && CPU_COUNT(&a) == 1)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &a))
				w->real = c;
	return NULL;
}

/* Issue 37, defect 3: OpenMP's OMP_PLACES way of pinning. */
static int attrpin_mode(void)
{
	int n = get_nprocs(), rc;

	printf("attrpin %d ", n);
	for (int i = 0; i < n && i < 64; i++) {
		struct attr_worker w = { i, "", -1 };
		pthread_attr_t at;
		pthread_t t;
		cpu_set_t a, b;

		CPU_ZERO(&a);
		CPU_SET(i, &a);
		pthread_attr_init(&at);
		if ((rc = pthread_attr_setaffinity_np(&at, sizeof a, &a)) != 0)
			return printf("worker %d: setaffinity_np %s\n", i, strerror(rc)), 1;
		if ((rc = pthread_attr_getaffinity_np(&at, sizeof b, &b)) != 0 || !only(&b, i))
			return printf("worker %d: the attribute reads back %d CPUs (%s)\n", i,
			              CPU_COUNT(&b), strerror(rc)), 1;
		if ((rc = pthread_create(&t, &at, attr_worker, &w)) != 0)
			return printf("worker %d: pthread_create %s\n", i, strerror(rc)), 1;
		pthread_join(t, NULL);
		pthread_attr_destroy(&at);
		if (w.why[0])
			return printf("%s\n", w.why), 1;
		printf(i ? ",%d" : "ok real=%d", w.real);
	}
	printf("\n");
	return 0;
}

static const char *errname(int fd)
{
	if (fd >= 0) {
		close(fd);
		return "ok";
	}
	switch (errno) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ELOOP: return "ELOOP";
	default: return "other";
	}
}

/* What the kernel says of each open: the cap's copy must say the same. */
static int flags_mode(void)
{
	static const struct { const char *name; int flags; } f[] = {
		{ "rdonly", O_RDONLY },
		{ "noatime", O_RDONLY | O_NOATIME },
		{ "noatime-cloexec", O_RDONLY | O_NOATIME | O_CLOEXEC },
		{ "nofollow", O_RDONLY | O_NOFOLLOW },
		{ "directory", O_RDONLY | O_DIRECTORY },
		{ "path", O_PATH },
		{ "path-directory", O_PATH | O_DIRECTORY },
		{ "wronly", O_WRONLY },
		{ "rdwr", O_RDWR },
		{ "trunc", O_RDONLY | O_TRUNC },
	};
	static const char *const paths[] = { "/proc/cpuinfo", "/sys/devices/system/cpu/online" };

	for (size_t p = 0; p < 2; p++)
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			printf("%s:%s=%s%s", p ? "online" : "cpuinfo", f[i].name,
			       errname(open(paths[p], f[i].flags)),
			       p == 1 && i + 1 == sizeof f / sizeof f[0] ? "\n" : " ");
	return 0;
}

/* Reads /proc/cpuinfo (under a file-size limit, t_cpus.sh): the program
 * must find no SIGXFSZ of ours pending, and its own mask as it left it. */
static int xfsz_mode(bool block)
{
	sigset_t s, now;
	int n;

	sigemptyset(&s);
	sigaddset(&s, SIGXFSZ);
	if (block)
		pthread_sigmask(SIG_BLOCK, &s, NULL);
	n = count_fd(open("/proc/cpuinfo", O_RDONLY));
	sigpending(&s);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	printf("%d pending=%d blocked=%d\n", n, sigismember(&s, SIGXFSZ),
	       sigismember(&now, SIGXFSZ));
	return 0;
}

static void *attrfork_noop(void *p)
{
	return p;
}

static void *attrfork_spin(void *p)
{
	pthread_attr_t a;
	cpu_set_t s;

	(void)p;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	pthread_attr_init(&a);
	for (;;)
		pthread_attr_setaffinity_np(&a, sizeof s, &s);
	return NULL;
}

static int attrfork_mode(void)
{
	struct timespec t0, t;
	pthread_t sp;
	int forks = 0, st;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&sp, NULL, attrfork_spin, NULL) != 0)
			return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pid_t p = fork();

		if (p == 0) {
			pthread_attr_t a;
			pthread_t x;

			alarm(2);
			pthread_attr_init(&a);
			if (pthread_create(&x, &a, attrfork_noop, NULL) == 0)
				pthread_join(x, NULL);
			_exit(0);
		}
		if (p < 0 || waitpid(p, &st, 0) != p)
			return 2;
		forks++;
		if (WIFSIGNALED(st)) {
			printf("attrfork hung after %d forks\n", forks);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4);
	printf("attrfork ok\n");
	return 0;
}

static volatile sig_atomic_t xfsz_hits;

static void xfsz_count(int sig)
{
	(void)sig;
	xfsz_hits++;
}

static int xfsz_kill_mode(void)
{
	sigset_t s;
	int n;

	signal(SIGXFSZ, xfsz_count);
	sigemptyset(&s);
	sigaddset(&s, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	kill(getpid(), SIGXFSZ); /* the process's queue, not the thread's */
	n = count_fd(open("/proc/cpuinfo", O_RDONLY));
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	printf("%d hits=%d\n", n, (int)xfsz_hits);
	return 0;
}

static volatile sig_atomic_t xfsz_refused;
static int xfsz_out = -1;

static void xfsz_alarm(int sig)
{
	int e = errno;

	(void)sig;
	if (write(xfsz_out, "x", 1) < 0 && errno == EFBIG)
		xfsz_refused++;
	errno = e;
}

static int xfsz_handler_mode(void)
{
	struct itimerval it = { { 0, 300 }, { 0, 300 } };
	char path[] = "/tmp/prog_cpus_xfsz_XXXXXX";
	struct timespec t0, t;

	if ((xfsz_out = mkstemp(path)) < 0)
		return 2;
	unlink(path);
	signal(SIGXFSZ, xfsz_count);
	signal(SIGALRM, xfsz_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		(void)count_fd(open("/proc/cpuinfo", O_RDONLY));
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 1 || (t.tv_sec - t0.tv_sec == 1 && t.tv_nsec < t0.tv_nsec));
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	if (xfsz_refused > 0 && xfsz_refused == xfsz_hits)
		printf("handler ok\n");
	else
		printf("handler refused=%d delivered=%d\n", (int)xfsz_refused, (int)xfsz_hits);
	return 0;
}

/* ---- mainrec: the main thread's mask is one record (a cold review) ---- */
static pthread_t mr_main;
static int mr_k;
static _Atomic int mr_phase; /* 0 read in a loop, 1 quiet, 2 read once, 3 stop */
static cpu_set_t mr_seen;

/* The lowest CPU of the mask by pid (0: the caller), -1 for none or
 * several, -2 for an error. */
static int mr_one(pid_t pid)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	if (sched_getaffinity(pid, sizeof s, &s) != 0)
		return -2;
	if (CPU_COUNT(&s) != 1)
		return -1;
	for (int i = 0;; i++)
		if (CPU_ISSET(i, &s))
			return i;
}

static int mr_set(pid_t pid, int k)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(k, &s);
	return sched_setaffinity(pid, sizeof s, &s);
}

/* A worker sets the main thread's mask through its pthread_t. */
static void *mr_worker(void *unused)
{
	cpu_set_t s, g;

	(void)unused;
	CPU_ZERO(&s);
	CPU_SET(mr_k, &s);
	CPU_ZERO(&g);
	if (pthread_setaffinity_np(mr_main, sizeof s, &s) != 0 ||
	    pthread_getaffinity_np(mr_main, sizeof g, &g) != 0)
		printf("mainrec: the worker's set or get failed\n");
	printf("worker %d %d", mr_one(getpid()), CPU_EQUAL(&s, &g) ? mr_k : -1);
	return NULL;
}

static void *mr_child_thread(void *unused)
{
	(void)unused;
	return (void *)(long)mr_one(getpid());
}

/* A worker pinned to {k} forks: the child's one thread is its main one. */
static void *mr_forker(void *unused)
{
	int st = 0;
	pid_t p;

	(void)unused;
	mr_set(0, mr_k);
	fflush(stdout);
	if ((p = fork()) == 0) {
		pthread_t t;
		void *r = (void *)-3L;
		int own = mr_one(0);

		if (pthread_create(&t, NULL, mr_child_thread, NULL) == 0)
			pthread_join(t, &r);
		_exit(own == mr_k && (long)r == mr_k ? 0 : 1);
	}
	waitpid(p, &st, 0);
	printf(";fork %s", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "differs");
	return NULL;
}

static void *mr_reader(void *unused)
{
	cpu_set_t s;

	(void)unused;
	for (;;) {
		int p = atomic_load(&mr_phase);

		if (p == 3)
			return NULL;
		if (p == 0)
			sched_getaffinity(getpid(), sizeof s, &s);
		if (p == 2) {
			CPU_ZERO(&mr_seen);
			sched_getaffinity(getpid(), sizeof mr_seen, &mr_seen);
			atomic_store(&mr_phase, 1);
		}
	}
}

static void *mr_nothing(void *unused)
{
	return unused;
}

static pthread_barrier_t mr_bar;
static _Atomic int mr_setter_stop;

static void *mr_setter(void *unused)
{
	for (;;) {
		pthread_barrier_wait(&mr_bar);
		if (atomic_load(&mr_setter_stop))
			return unused;
		mr_set(getpid(), mr_k);
		pthread_barrier_wait(&mr_bar);
	}
}

static _Atomic int mr_go;

static void *mr_fork_worker(void *unused)
{
	int st = 0, n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	pid_t p;

	(void)unused;
	while (!atomic_load(&mr_go))
		;
	if ((p = fork()) == 0) {
		cpu_set_t s;

		CPU_ZERO(&s);
		_exit(sched_getaffinity(0, sizeof s, &s) || CPU_COUNT(&s) != n);
	}
	return (void *)(long)(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : 2);
}

/* In a fresh child: a worker forks as the main thread makes the
 * process's first record. */
static int mr_forkrace(void)
{
	pthread_t t;
	void *r = (void *)1L;
	cpu_set_t two;

	if (pthread_create(&t, NULL, mr_fork_worker, NULL))
		return 2;
	CPU_ZERO(&two);
	CPU_SET(0, &two);
	CPU_SET(1, &two);
	atomic_store(&mr_go, 1);
	sched_setaffinity(0, sizeof two, &two);
	pthread_join(t, &r);
	return (int)(long)r;
}

/* A thread made before the main thread's first set reads the mask it
 * inherited, not the one the main thread set after (a cold review: {0,1}
 * of 4 on two CPUs read where it had inherited all 4). */
static _Atomic int mr_unset_go;
static cpu_set_t mr_unset_w;

static void *mr_unset_worker(void *unused)
{
	while (!atomic_load(&mr_unset_go))
		;
	CPU_ZERO(&mr_unset_w);
	sched_getaffinity(0, sizeof mr_unset_w, &mr_unset_w);
	return unused;
}

static int mr_unset(void)
{
	pthread_t t;
	cpu_set_t a, b;

	if (pthread_create(&t, NULL, mr_unset_worker, NULL))
		return 2;
	CPU_ZERO(&a);
	sched_getaffinity(0, sizeof a, &a);
	CPU_ZERO(&b);
	CPU_SET(0, &b);
	CPU_SET(1, &b);
	sched_setaffinity(0, sizeof b, &b);
	atomic_store(&mr_unset_go, 1);
	pthread_join(t, NULL);
	return !CPU_EQUAL(&a, &mr_unset_w);
}

/* A handler's siglongjmp out of sets, 500 times: the next set is read
 * back as it was made (a cold review: every later set read {1,3} for
 * {3} of 4 on two CPUs). */
static sigjmp_buf mr_jb;
static volatile sig_atomic_t mr_jumps, mr_jb_set;

/* Only once the buffer is set: the timer may fire before the loop's first
 * sigsetjmp (CI, loaded: a jump through the zeroed buffer, SIGSEGV, 1 in
 * 300 natively). */
static void mr_jump(int sig)
{
	(void)sig;
	if (!mr_jb_set)
		return;
	mr_jumps++;
	siglongjmp(mr_jb, 1);
}

static int mr_jumpout(int k)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };

	mr_jb_set = 0;
	signal(SIGALRM, mr_jump);
	setitimer(ITIMER_REAL, &it, NULL);
	for (volatile int i = 0; i < 200000 && mr_jumps < 500; i++)
		if (sigsetjmp(mr_jb, 1) == 0) {
			mr_jb_set = 1;
			mr_set(0, i & 1 ? k : 0);
		}
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	mr_set(0, k);
	return mr_one(0) != k;
}

/* A thread sets its own mask in a loop while the main thread forks: each
 * child's set of {k} reads back {k} (a cold review: a set under way at the
 * fork left every later one in the child unremembered). */
static _Atomic int mr_spin_stop;

static void *mr_spinner(void *unused)
{
	while (!atomic_load(&mr_spin_stop))
		mr_set(0, 0);
	return unused;
}

static int mr_forkset(int k)
{
	pthread_t t;
	int bad = 0;

	if (pthread_create(&t, NULL, mr_spinner, NULL))
		return -1;
	for (int i = 0; i < 200; i++) {
		int st = 0;
		pid_t p = fork();

		if (p == 0)
			_exit(mr_set(0, k) != 0 || mr_one(0) != k);
		bad += p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	atomic_store(&mr_spin_stop, 1);
	pthread_join(t, NULL);
	return bad;
}

/* In a fresh child of this process as it started, f's status. */
static int mr_fresh(int (*f)(int), int k)
{
	int st = 0;
	pid_t p = fork();

	if (p == 0)
		_exit(f(k));
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static int mr_unset_k(int k)
{
	(void)k;
	return mr_unset();
}

static int mainrec(int k)
{
	pthread_t t;
	int bad = 0;

	/* First, in children of this process as it started (no record, the
	 * whole machine): a worker forks while the main thread makes the
	 * first record, {0,1} (on two CPUs under a larger N, the whole real
	 * machine): the child's mask is the worker's, 200 times. */
	int forkbad = 0;

	for (int i = 0; i < 200; i++) {
		int st = 0;
		pid_t p = fork();

		if (p == 0)
			_exit(mr_forkrace());
		forkbad += p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	int unset = mr_fresh(mr_unset_k, k), jumps = mr_fresh(mr_jumpout, k);
	int forkset = mr_fresh(mr_forkset, k);

	mr_main = pthread_self();
	mr_k = k;
	mr_set(0, 0);
	if (pthread_create(&t, NULL, mr_worker, NULL) || pthread_join(t, NULL))
		return 1;
	printf(" main %d %d", mr_one(0), sched_getcpu());
	mr_set(0, 0);
	if (pthread_create(&t, NULL, mr_forker, NULL) || pthread_join(t, NULL))
		return 1;
	/* An ended thread not yet joined: the C library acts on the caller. */
	if (pthread_create(&t, NULL, mr_nothing, NULL))
		return 1;
	usleep(100000);
	{
		cpu_set_t s, g;

		CPU_ZERO(&s);
		CPU_SET(k, &s);
		CPU_ZERO(&g);
		if (pthread_setaffinity_np(t, sizeof s, &s) || pthread_getaffinity_np(t, sizeof g, &g))
			printf(";ended failed");
		else
			printf(";ended %d %d", CPU_EQUAL(&s, &g) ? k : -1, mr_one(0));
	}
	pthread_join(t, NULL);
	/* The main thread sets {0} and {k} in turn while another thread reads
	 * the process's mask: each time both read what was set. */
	atomic_store(&mr_phase, 0);
	if (pthread_create(&t, NULL, mr_reader, NULL))
		return 1;
	for (int i = 0; i < 2000; i++) {
		cpu_set_t a;

		atomic_store(&mr_phase, 0);
		mr_set(0, i & 1 ? k : 0);
		atomic_store(&mr_phase, 1);
		CPU_ZERO(&a);
		sched_getaffinity(0, sizeof a, &a);
		atomic_store(&mr_phase, 2);
		while (atomic_load(&mr_phase) == 2)
			;
		bad += !CPU_EQUAL(&a, &mr_seen);
	}
	atomic_store(&mr_phase, 3);
	pthread_join(t, NULL);
	printf(";race %d", bad);
	/* The main thread sets {0} while a worker sets it {k} by our pid:
	 * whichever lands last, the mask read holds the CPU it runs on. */
	bad = 0;
	pthread_barrier_init(&mr_bar, NULL, 2);
	if (pthread_create(&t, NULL, mr_setter, NULL))
		return 1;
	for (int i = 0; i < 500; i++) {
		cpu_set_t got;

		pthread_barrier_wait(&mr_bar);
		mr_set(0, 0);
		pthread_barrier_wait(&mr_bar);
		CPU_ZERO(&got);
		sched_getaffinity(0, sizeof got, &got);
		bad += !CPU_ISSET(sched_getcpu(), &got);
	}
	atomic_store(&mr_setter_stop, 1);
	pthread_barrier_wait(&mr_bar);
	pthread_join(t, NULL);
	printf(";setrace %d;forkrace %d;unset %d;jumps %d;forkset %d", bad, forkbad, unset, jumps,
	       forkset);

	/* glibc copies an attribute's mask as given: ENOMEM where it cannot. */
	{
		pthread_attr_t at;
		cpu_set_t one;

		CPU_ZERO(&one);
		pthread_attr_init(&at);
		printf(";nomem %d\n", pthread_attr_setaffinity_np(&at, SIZE_MAX / 2, &one));
		pthread_attr_destroy(&at);
	}
	return 0;
}

/* ---- the twenty-first cold review's shapes ------------------------------ */
/* Workers pin themselves to {i} at once, 100 rounds: each reads back {i}
 * and runs on i ("selfpins 0": on 6fe1ab4 672 of 800 read {1,3}). */
static pthread_barrier_t sp_bar;
static _Atomic int sp_bad;
static int sp_n;

static void *sp_worker(void *p)
{
	int i = (int)(long)p;

	for (int r = 0; r < 100; r++) {
		pthread_barrier_wait(&sp_bar);
		mr_set(0, i);
		if (mr_one(0) != i || sched_getcpu() != i)
			atomic_fetch_add(&sp_bad, 1);
		pthread_barrier_wait(&sp_bar);
	}
	return NULL;
}

static int selfpins(void)
{
	pthread_t t[64];

	sp_n = get_nprocs() < 64 ? get_nprocs() : 64;
	pthread_barrier_init(&sp_bar, NULL, (unsigned)sp_n);
	for (int i = 0; i < sp_n; i++)
		if (pthread_create(&t[i], NULL, sp_worker, (void *)(long)i))
			return 1;
	for (int i = 0; i < sp_n; i++)
		pthread_join(t[i], NULL);
	printf("selfpins %d\n", atomic_load(&sp_bad));
	return 0;
}

/* A mask of 1 and of 4 bytes at a mapping's end, to each setter: each is
 * 0, as the kernel reads only those bytes (on 6fe1ab4: SIGSEGV). */
static int shortmask(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_attr_t a;

	if (m == MAP_FAILED || mprotect(m + pg, (size_t)pg, PROT_NONE))
		return 1;
	printf("shortmask");
	for (size_t sz = 1; sz <= 4; sz += 3) {
		cpu_set_t *s = (cpu_set_t *)(void *)(m + pg - sz);

		memset(s, 0, sz);
		((unsigned char *)s)[0] = 1;
		pthread_attr_init(&a);
		printf(" %d %d %d", sched_setaffinity(0, sz, s), pthread_setaffinity_np(pthread_self(), sz, s),
		       pthread_attr_setaffinity_np(&a, sz, s));
		pthread_attr_destroy(&a);
	}
	printf("\n");
	return 0;
}

/* A vfork child sets {k} and execs "where": the new program is on k. */
static int vforkset(const char *self, int k)
{
	int st = 0;
	pid_t p;

	fflush(stdout);
	if ((p = vfork()) == 0) {
		mr_set(0, k);
		execl(self, self, "where", (char *)NULL);
		_exit(127);
	}
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

/* Two threads vfork children at once, 300 each: one's children set {k},
 * the other's {0}; each reads back its own ("vforkthreads 0": on 8e63ffc
 * 560 of 2000 read {1,3}, one record for the process's children). */
static int vt_k;

/* One vfork child that sets {want} and reads it back: 0 when it did. */
static __attribute__((noinline)) int vt_one(int want)
{
	int st = 0;
	pid_t c = vfork();

	if (c == 0)
		_exit(mr_set(0, want) != 0 || mr_one(0) != want);
	return c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st);
}

static void *vt_thread(void *p)
{
	long bad = 0;

	for (int i = 0; i < 300; i++)
		bad += vt_one(p ? vt_k : 0);
	return (void *)bad;
}

static int vforkthreads(int k)
{
	pthread_t a, b;
	void *ra = NULL, *rb = NULL;

	vt_k = k;
	if (pthread_create(&a, NULL, vt_thread, &vt_k) || pthread_create(&b, NULL, vt_thread, NULL))
		return 1;
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	printf("vforkthreads %ld\n", (long)ra + (long)rb);
	return 0;
}

/* A vfork child sets {k} and vforks again: its child reads {k} and execs
 * "where" (on 8e63ffc it read the main thread's mask). */
static int vforknest(const char *self, int k)
{
	int st = 0;
	pid_t p;

	mr_set(0, 0);
	fflush(stdout);
	if ((p = vfork()) == 0) {
		pid_t g;

		mr_set(0, k);
		if ((g = vfork()) == 0) {
			if (mr_one(0) != k)
				_exit(3);
			execl(self, self, "where", (char *)NULL);
			_exit(127);
		}
		_exit(g > 0 && waitpid(g, &st, 0) == g && WIFEXITED(st) ? WEXITSTATUS(st) : 2);
	}
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

/* ---- attrs: a thread attribute's mask travels with it (a cold review) -- */
static int at_k;

/* The one CPU of a mask, -1 for none or several. */
static int at_one(const cpu_set_t *s)
{
	if (CPU_COUNT(s) != 1)
		return -1;
	for (int i = 0;; i++)
		if (CPU_ISSET(i, s))
			return i;
}

static int at_attr_one(const pthread_attr_t *a)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	return pthread_attr_getaffinity_np(a, sizeof s, &s) ? -2 : at_one(&s);
}

static void *at_where(void *unused)
{
	(void)unused;
	return (void *)(long)(mr_one(0) == sched_getcpu() ? mr_one(0) : -3);
}

/* The calling thread pinned to {want}: what its own attributes read. */
static void *at_getattr(void *p)
{
	pthread_attr_t a;
	int r;

	mr_set(0, (int)(long)p);
	if (pthread_getattr_np(pthread_self(), &a))
		return (void *)-2L;
	r = at_attr_one(&a);
	pthread_attr_destroy(&a);
	return (void *)(long)r;
}

static int attrs(int k)
{
	pthread_attr_t a, b, *p, def, o[20];
	cpu_set_t one, zero;
	pthread_t t;
	void *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;

	at_k = k;
	CPU_ZERO(&one);
	CPU_SET(k, &one);
	CPU_ZERO(&zero);
	CPU_SET(0, &zero);
	/* A copy by value shares glibc's mask. */
	pthread_attr_init(&a);
	pthread_attr_setaffinity_np(&a, sizeof one, &one);
	b = a;
	if (pthread_create(&t, &b, at_where, NULL) || pthread_join(t, &r1))
		return 1;
	printf("copy %d %ld", at_attr_one(&b), (long)r1);
	pthread_attr_destroy(&a);
	/* The default keeps its mask past other attributes. */
	if (pthread_getattr_default_np(&def) || pthread_attr_setaffinity_np(&def, sizeof one, &one) ||
	    pthread_setattr_default_np(&def))
		return 1;
	for (int i = 0; i < 20; i++) {
		pthread_attr_init(&o[i]);
		pthread_attr_setaffinity_np(&o[i], sizeof zero, &zero);
	}
	if (pthread_create(&t, NULL, at_where, NULL) || pthread_join(t, &r2))
		return 1;
	printf(";default %ld", (long)r2);
	for (int i = 0; i < 20; i++)
		pthread_attr_destroy(&o[i]);
	pthread_attr_destroy(&def);
	/* A thread's own attributes read its mask. */
	if (pthread_create(&t, NULL, at_getattr, (void *)(long)k) || pthread_join(t, &r3))
		return 1;
	printf(";getattr %ld", (long)r3);
	/* An attribute destroyed, its memory a thread's attributes now. */
	p = malloc(sizeof *p);
	pthread_attr_init(p);
	pthread_attr_setaffinity_np(p, sizeof one, &one);
	pthread_attr_destroy(p);
	if (pthread_create(&t, NULL, at_getattr, (void *)0L) || pthread_join(t, &r4))
		return 1;
	printf(";reuse %ld", (long)r4);
	free(p);
	/* Masks of 1008 bytes and more (CPU_ALLOC_SIZE(8192) is 1024): what
	 * glibc holds is longer than a first read asks (a cold review). */
	for (size_t sz = 1008; sz <= 8192; sz *= 2) {
		cpu_set_t *big = CPU_ALLOC(sz * 8), *got = CPU_ALLOC(sz * 8);
		void *r5 = NULL;

		CPU_ZERO_S(sz, big);
		CPU_SET_S((size_t)k, sz, big);
		pthread_attr_init(&a);
		if (pthread_attr_setaffinity_np(&a, sz, big) ||
		    pthread_attr_getaffinity_np(&a, sz, got) ||
		    pthread_create(&t, &a, at_where, NULL) || pthread_join(t, &r5))
			return 1;
		printf(";%zu %d %ld", sz, CPU_EQUAL_S(sz, big, got) ? k : -1, (long)r5);
		pthread_attr_destroy(&a);
		CPU_FREE(big);
		CPU_FREE(got);
	}
	printf("\n");
	return 0;
}

/* readdir_r N ROUNDS: four threads list one stream of the cpu directory
 * with readdir_r, ROUNDS times: every cpuK below N once (a cold review:
 * one twice, another never).  "ok", or the first that was not. */
static DIR *rr_dir;
static int rr_count[8192];
static pthread_barrier_t rr_bar;
static pthread_mutex_t rr_mu = PTHREAD_MUTEX_INITIALIZER;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* readdir_r: the call under test */
static void *rr_thread(void *unused)
{
	struct dirent ent, *res;

	(void)unused;
	pthread_barrier_wait(&rr_bar);
	while (readdir_r(rr_dir, &ent, &res) == 0 && res)
		if (!strncmp(ent.d_name, "cpu", 3) && ent.d_name[3] >= '0' && ent.d_name[3] <= '9' &&
		    atoi(ent.d_name + 3) < 8192) {
			pthread_mutex_lock(&rr_mu);
			rr_count[atoi(ent.d_name + 3)]++;
			pthread_mutex_unlock(&rr_mu);
		}
	return NULL;
}
#pragma GCC diagnostic pop

static int readdir_r_mode(int n, int rounds)
{
	pthread_t t[4];

	for (int r = 0; r < rounds; r++) {
		memset(rr_count, 0, sizeof rr_count);
		if (!(rr_dir = opendir("/sys/devices/system/cpu")))
			return 1;
		pthread_barrier_init(&rr_bar, NULL, 4);
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, rr_thread, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&rr_bar);
		closedir(rr_dir);
		for (int k = 0; k < n && k < 8192; k++)
			if (rr_count[k] != 1) {
				printf("round %d: cpu%d listed %d times\n", r, k, rr_count[k]);
				return 0;
			}
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && strcmp(argv[1], "readdir_r") == 0)
		return readdir_r_mode(atoi(argv[2]), atoi(argv[3]));
	if (argc > 1 && strcmp(argv[1], "attrpin") == 0)
		return attrpin_mode();
	if (argc > 1 && strcmp(argv[1], "learnt") == 0)
		return learnt_mode();
	if (argc > 1 && strcmp(argv[1], "flags") == 0)
		return flags_mode();
	if (argc > 1 && strcmp(argv[1], "attrfork") == 0)
		return attrfork_mode();
	if (argc > 2 && strcmp(argv[1], "xfsz") == 0 && strcmp(argv[2], "handler") == 0)
		return xfsz_handler_mode();
	if (argc > 2 && strcmp(argv[1], "xfsz") == 0 && strcmp(argv[2], "kill") == 0)
		return xfsz_kill_mode();
	if (argc > 1 && strcmp(argv[1], "xfsz") == 0)
		return xfsz_mode(argc > 2 && strcmp(argv[2], "block") == 0);
	if (argc > 2 && strcmp(argv[2], "raw") == 0 && raw_mask())
		return 1;
	if (argc > 1 && strcmp(argv[1], "jemalloc") == 0)
		return jemalloc_mode();
	if (argc > 2 && strcmp(argv[1], "attrs") == 0)
		return attrs(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "mainrec") == 0)
		return mainrec(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "status") == 0)
		return status_stable();
	if (argc > 1 && strcmp(argv[1], "attrback") == 0) {
		/* A thread attribute's mask reads back as set, ids past the
		 * machine's too, by glibc's rules for the sizes (a cold review:
		 * {1,5} read back {1}): the same on any machine. */
		static const int sets[][3] = { { 1, 1, -1 }, { 1, 5, -1 }, { 1, 100, -1 }, { 1, 904, -1 },
		                               { 904, -1, -1 }, { 0, 63, -1 } };
		static const size_t sizes[] = { 8, 16, 128, 256 };

		for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
			for (size_t j = 0; j < 4; j++) {
				pthread_attr_t at;
				cpu_set_t *set = CPU_ALLOC(2048), *back = CPU_ALLOC(2048);
				int rs, rg;

				CPU_ZERO_S(256, set);
				for (int k = 0; k < 3 && sets[i][k] >= 0; k++)
					if ((size_t)sets[i][k] < sizes[j] * 8)
						CPU_SET_S((size_t)sets[i][k], sizes[j], set);
				pthread_attr_init(&at);
				rs = pthread_attr_setaffinity_np(&at, sizes[j], set);
				printf("set %zu/%zu = %d:", i, sizes[j], rs);
				for (size_t g = 0; g < 4; g++) {
					CPU_ZERO_S(256, back);
					rg = pthread_attr_getaffinity_np(&at, sizes[g], back);
					printf(" get %zu = %d {", sizes[g], rg);
					for (size_t c = 0; rg == 0 && c < sizes[g] * 8; c++)
						if (CPU_ISSET_S(c, sizes[g], back))
							printf(" %zu", c);
					printf(" }");
				}
				printf("\n");
				pthread_attr_destroy(&at);
				CPU_FREE(set);
				CPU_FREE(back);
			}
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "attrdefault") == 0) {
		/* The default attribute pinned to {k}: a thread made with no
		 * attribute reads {k} and runs on k, and the default reads
		 * back {k} (a cold review: {0,2} under --cpus 4). */
		pthread_attr_t at;
		cpu_set_t one, back;
		pthread_t t;
		void *r;
		int k = atoi(argv[2]);

		CPU_ZERO(&one);
		CPU_SET(k, &one);
		if (pthread_getattr_default_np(&at) || pthread_attr_setaffinity_np(&at, sizeof one, &one) ||
		    pthread_setattr_default_np(&at) || pthread_create(&t, NULL, where_thread, NULL) ||
		    pthread_join(t, &r))
			return printf("attrdefault failed\n"), 1;
		pthread_attr_destroy(&at);
		CPU_ZERO(&back);
		if (pthread_getattr_default_np(&at) || pthread_attr_getaffinity_np(&at, sizeof back, &back))
			return printf("attrdefault: no default back\n"), 1;
		printf("default reads back %s\n", CPU_EQUAL(&back, &one) ? "the same" : "another");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "errno") == 0) {
		/* Another process's mask: a success leaves errno alone. */
		cpu_set_t s;
		pid_t who[] = { getppid(), 1 };

		for (int i = 0; i < 2; i++) {
			errno = 0;
			int r = sched_getaffinity(who[i], sizeof s, &s);
			printf("%s = %d errno %d\n", i ? "init" : "parent", r, errno);
		}
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "file") == 0)
		return file_mode(argv[2]);
	if (argc > 2 && strcmp(argv[1], "reread") == 0)
		return reread_mode(argv[2]);
	if (argc > 1 && strcmp(argv[1], "rereadjump") == 0)
		return reread_jump();
	if (argc > 2 && strcmp(argv[1], "closereread") == 0)
		return close_reread(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
	if (argc > 2 && strcmp(argv[1], "forkreread") == 0)
		return fork_reread(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "kin") == 0)
		return kin(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "leaderexit") == 0)
		tu_orphan(leader_gone, NULL);
	if (argc > 1 && strcmp(argv[1], "leaderreread") == 0)
		tu_orphan(leader_reread, NULL);
	if (argc > 1 && strcmp(argv[1], "badenv") == 0)
		return bad_env(argc > 2);
	if (argc > 2 && strcmp(argv[1], "maskwindow") == 0)
		return mask_window(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "heapenv") == 0)
		return heap_env();
	if (argc > 2 && strcmp(argv[1], "altgen") == 0)
		return alt_gen(strtoull(argv[2], NULL, 10), argc, argv);
	if (argc > 2 && strcmp(argv[1], "altexec") == 0)
		return alt_exec(atol(argv[2]), argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL);
	if (argc > 1 && strcmp(argv[1], "slot") == 0)
		return slot();
	if (argc > 1 && strcmp(argv[1], "where") == 0)
		return where();
	if (argc > 1 && strcmp(argv[1], "selfpins") == 0)
		return selfpins();
	if (argc > 1 && strcmp(argv[1], "shortmask") == 0)
		return shortmask();
	if (argc > 2 && strcmp(argv[1], "vforkset") == 0)
		return vforkset(argv[0], atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "vforkthreads") == 0)
		return vforkthreads(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "vforknest") == 0)
		return vforknest(argv[0], atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "inherit") == 0)
		return inherit(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "pin") == 0)
		return pin();
	if (argc > 1 && strcmp(argv[1], "vm") == 0)
		return vm();
	if (argc > 1 && strcmp(argv[1], "entries") == 0)
		return entries();
	if (argc > 1 && strcmp(argv[1], "roundtrip") == 0)
		return roundtrip();
	if (argc > 1 && strcmp(argv[1], "getcpu") == 0)
		return getcpu_mode();
	fprintf(stderr, "usage: prog_cpus entries|roundtrip|getcpu|slot|where|pin|vm [raw]\n");
	return 2;
}
