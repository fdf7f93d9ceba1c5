/* SPDX-License-Identifier: MIT */
/*
 * cpus_fuzz: the CPU cap's differential fuzzer (issue 37: let the machine
 * find the cases).  Under FASTPATH_CPUS=R, R the real count, a process
 * tree started on every CPU gets a machine whose virtual CPU k is real
 * CPU k: every answer must then be native's, whatever the program does to
 * its masks afterwards.  A generated program of affinity and counting
 * operations (sched_setaffinity and sched_getaffinity by 0, pid, tid, a
 * helper thread's tid, a bad pid and another process; the pthread_ calls
 * on itself and on the helper; an attribute's mask, and the default
 * attribute's, for a new thread; sysconf, get_nprocs, sched_getcpu and
 * getcpu; the CPU files and directories; fork, exec, taskset, posix_spawn
 * and a shell's nproc) runs natively and under fastpath.so, and the two
 * logs must be equal.  Sizes, NULL masks, bits past the machine and past
 * 1023 are drawn too.  Which CPU of its mask a thread runs on is the
 * scheduler's choice: that is logged as whether it lies in the mask.
 *
 *   cpus_fuzz --so PATH [--seed S] [--cases N] [--seconds T]
 *             [--case K [--dump]]
 *   (internal: --run PROGRAM FROM R, --probe)
 *
 * A difference is run again; one that recurs is shrunk (ops taken out one
 * at a time while it still differs) and printed, and the exit status is
 * 1; one that does not is reported as flaky.  Exit 77: the fuzzer itself
 * does not start on every CPU of the machine (its own mask is not the
 * online set), so the identity machine cannot be had.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
	OP_SET, OP_GET, OP_PSET, OP_PGET, OP_ATTR, OP_PLAIN, OP_HELPER, OP_COUNT, OP_GETCPU,
	OP_FILE, OP_DIR, OP_FORK, OP_EXEC, OP_SPAWN, OP_SHELL, OP_TASKSET, OP_OTHER, OP_NOPS
};
static const char *const opname[OP_NOPS] = { "set", "get", "pset", "pget", "attr", "plain", "helper",
	                                     "count", "getcpu", "file", "dir", "fork", "exec", "spawn",
	                                     "shell", "taskset", "other" };
/* How often each is drawn, in 64ths; an exec ends what runs in this
 * process, so it is rarer. */
static const unsigned char weight[OP_NOPS] = { 8, 7, 5, 5, 6, 2, 3, 3, 3, 5, 2, 3, 2, 2, 1, 1, 2 };

#define MAXOPS 24
struct op {
	unsigned k, a, b, c;
};

static const char *self;
static int real;  /* the machine's CPUs: the real count, or --cpus N */
/* --cpus N other than the real count: the same program on two backings
 * must log alike; what fastpath(7) reads through the map, whose answer
 * then names the backing, is not drawn (meta_skip) */
static int meta;
static int hw;    /* the CPUs the fuzzer started on (all online) */

/* ------------------------------------------------------------------------
 * The program's side (--run): each operation logs one line or a few.
 * ---------------------------------------------------------------------- */
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static const char *en(int e)
{
	static char b[16];
	switch (e) {
	case 0: return "";
	case EINVAL: return " EINVAL";
	case EFAULT: return " EFAULT";
	case ESRCH: return " ESRCH";
	case EPERM: return " EPERM";
	case ENOENT: return " ENOENT";
	case EAGAIN: return " EAGAIN";
	case ENOTDIR: return " ENOTDIR";
	default: snprintf(b, sizeof b, " e%d", e); return b;
	}
}

#define BUFSZ 1024
/* A mask drawn: kind a % 8 over bits [0, real + 3), or far up. */
static void draw_mask(unsigned char *m, unsigned a, unsigned b)
{
	int w = real + 3;
	memset(m, 0, BUFSZ);
	switch (a % 8) {
	case 0: break;                                   /* empty */
	case 1: m[(b % w) / 8] |= 1u << (b % w % 8); break; /* one, maybe past */
	case 2:                                          /* the machine */
		for (int i = 0; i < real; i++)
			m[i / 8] |= 1u << (i % 8);
		break;
	case 3:                                          /* any subset of w */
		for (int i = 0; i < w; i++)
			if (b >> (i % 16) & 1)
				m[i / 8] |= 1u << (i % 8);
		break;
	case 4: m[(real + b % 3) / 8] |= 1u << ((real + b % 3) % 8); break; /* past it */
	case 5:                                          /* a non-empty subset */
		for (int i = 0; i < real; i++)
			if (b >> (i % 16) & 1)
				m[i / 8] |= 1u << (i % 8);
		m[(b % real) / 8] |= 1u << (b % real % 8);
		break;
	case 6: {                                        /* far up, maybe with 0 */
		static const int far[] = { 63, 64, 1023, 1024, 5000 };
		int f = far[b % 5];
		m[f / 8] |= 1u << (f % 8);
		if (b & 8)
			m[0] |= 1;
		break;
	}
	case 7: memset(m, 0xff, BUFSZ); break;
	}
}

static size_t draw_size(unsigned c)
{
	static const size_t sz[] = { 8, 128, 1024, 4, 0, 16, 12, 8 };
	return sz[c % 8];
}

/* The set bits among the first n bytes, as a list; and the bytes past the
 * first 16 as a sum (a buffer the call left alone shows its fill). */
static void say_mask(const unsigned char *m, size_t n)
{
	int first = 1;
	uint32_t h = 2166136261u;
	say(" {");
	for (size_t i = 0; i < n && i < 16; i++)
		for (int j = 0; j < 8; j++)
			if (m[i] >> j & 1) {
				say("%s%zu", first ? "" : ",", i * 8 + (size_t)j);
				first = 0;
			}
	for (size_t i = 16; i < n; i++)
		h = (h ^ m[i]) * 16777619u;
	say("}");
	if (n > 16)
		say("+%08x", (unsigned)h);
}

/* sched_setaffinity(t, sz, mp), said: the target, the size, the mask
 * (mp NULL: a NULL pointer) and the result; the result, errno kept. */
static int set_said(pid_t t, size_t sz, cpu_set_t *mp, const char *w, const unsigned char *m)
{
	int r = sched_setaffinity(t, sz, mp), e = errno;

	say(" %s size=%zu%s", w, sz, mp ? "" : " NULL");
	if (mp)
		say_mask(m, sz);
	say(" = %d%s", r, r < 0 ? en(e) : "");
	errno = e;
	return r;
}

/* In the metamorphic mode: an operation whose answer fastpath(7) gives
 * as the virtual CPUs of a real mask (another thread's mask or set, whose
 * record is that thread's own; another process's mask, the /proc status lines, a topology, a shell started with
 * environ as it is), which name the backing.  Said, and not run. */
static int meta_skip(const char *why)
{
	if (!meta)
		return 0;
	say(" not drawn: %s", why);
	return 1;
}

static pthread_t helper;
static int helper_on, helper_pipe[2] = { -1, -1 };
static volatile pid_t helper_tid;

static void *helper_main(void *p)
{
	char c;
	(void)p;
	helper_tid = (pid_t)syscall(SYS_gettid);
	while (read(helper_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void helper_start(void)
{
	if (pipe2(helper_pipe, O_CLOEXEC) != 0) {
		say(" no pipe");
		return;
	}
	helper_tid = 0;
	if (pthread_create(&helper, NULL, helper_main, NULL) != 0) {
		say(" no thread");
		return;
	}
	while (!helper_tid)
		sched_yield();
	helper_on = 1;
}

static void helper_stop(void)
{
	(void)!write(helper_pipe[1], "x", 1);
	pthread_join(helper, NULL);
	close(helper_pipe[0]);
	close(helper_pipe[1]);
	helper_on = 0;
}

/* The calling thread's mask (a size the kernel takes), -1 on failure. */
static int own_mask(unsigned char *m)
{
	memset(m, 0, BUFSZ);
	return sched_getaffinity(0, 128, (cpu_set_t *)m);
}

static int in_mask(const unsigned char *m, int cpu)
{
	return cpu >= 0 && cpu < 1024 && (m[cpu / 8] >> (cpu % 8) & 1);
}

/* Where the calling thread runs, against its own mask. */
static void say_where(void)
{
	unsigned char m[BUFSZ];
	unsigned cpu = 0, node = 0;
	int c = sched_getcpu(), e = errno;
	own_mask(m);
	say(" getcpu=%s", c < 0 ? "-1" : in_mask(m, c) ? "in" : "out model=BAD");
	if (c < 0)
		say("%s", en(e));
	c = getcpu(&cpu, &node);
	say(" getcpu2=%d %s node=%u", c, c == 0 && in_mask(m, (int)cpu) ? "in" : "out", node);
}

static void say_counts(void)
{
	long a = sysconf(_SC_NPROCESSORS_ONLN), b = sysconf(_SC_NPROCESSORS_CONF);
	int c = get_nprocs(), d = get_nprocs_conf();
	say(" onln=%ld conf=%ld nprocs=%d conf=%d", a, b, c, d);
	if (a != real || b != real || c != real || d != real)
		say(" model=BAD");
}

struct th_arg {
	int attr_mask;
};

static void *th_main(void *p)
{
	unsigned char m[BUFSZ];
	int r;
	(void)p;
	r = own_mask(m);
	printf("  thread get=%d", r);
	say_mask(m, 16);
	memset(m, 0, BUFSZ);
	r = pthread_getaffinity_np(pthread_self(), 128, (cpu_set_t *)m);
	say(" pget=%d", r);
	say_mask(m, 16);
	say_where();
	say("\n");
	fflush(stdout);
	return NULL;
}

/* A file of the machine, said whole (trimmed), or counted. */
static void say_file(unsigned which)
{
	static const char *const files[] = { "/sys/devices/system/cpu/online",
		"/sys/devices/system/cpu/possible", "/sys/devices/system/cpu/present",
		"/sys/devices/system/cpu/kernel_max", "/proc/self/status", "/proc/cpuinfo",
		"/proc/stat", "/sys/devices/system/cpu/cpu0/topology/core_cpus_list",
		"/sys/devices/system/cpu/cpu1/topology/thread_siblings_list",
		"/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "helper-status" };
	char path[128], buf[65536];
	unsigned w = which % (sizeof files / sizeof *files);
	const char *f = files[w];
	if (w == 10) {
		if (!helper_on) {
			say(" helper-status none");
			return;
		}
		snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)helper_tid);
		f = path;
	}
	say(" %s", w == 10 ? "helper-status" : f);
	int fd = open(f, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say(" open%s", en(errno));
		return;
	}
	size_t n = 0;
	ssize_t r;
	while (n < sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = 0;
	if (w == 4 || w == 10) {  /* the mask lines */
		char *s = strstr(buf, "Cpus_allowed:");
		char *t = s ? strchr(s, '\n') : NULL;
		char *u = t ? strchr(t + 1, '\n') : NULL;
		if (u)
			*u = 0;
		say(" %s", s ? s : "(none)");
	} else if (w == 5 || w == 6) {
		int procs = 0, cpus = 0;
		for (char *s = buf; (s = strchr(s, '\n')) != NULL; s++) {
			procs += !strncmp(s + 1, "processor", 9);
			cpus += !strncmp(s + 1, "cpu", 3) && s[4] >= '0' && s[4] <= '9';
		}
		procs += !strncmp(buf, "processor", 9);
		say(" processor=%d cpuN=%d", procs, cpus);
	} else {
		for (char *s = buf; *s; s++)
			if (*s == '\n')
				*s = '|';
		say(" [%.200s]", buf);
	}
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void say_dir(unsigned x)
{
	int v[256], n = 0;
	DIR *d = opendir("/sys/devices/system/cpu");
	struct dirent *e;
	if (!d) {
		say(" opendir%s", en(errno));
		return;
	}
	while ((e = readdir(d)) != NULL && n < 256) {
		char *end;
		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		long k = strtol(e->d_name + 3, &end, 10);
		if (!*end)
			v[n++] = (int)k;
	}
	closedir(d);
	qsort(v, (size_t)n, sizeof *v, cmp_int);
	say(" cpuK=");
	for (int i = 0; i < n; i++)
		say("%s%d", i ? "," : "", v[i]);
	for (int k = 0; k <= real + 1; k++) {
		char p[96];
		struct stat st;
		snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d%s", k, x % 2 ? "/topology" : "");
		say(" %d:%s", k, stat(p, &st) == 0 ? "y" : "n");
	}
}

/* The model of one N-CPU machine, checked in the program itself, so that
 * the metamorphic mode cannot pass two runs equally wrong: the main
 * thread's mask (a fresh process holds CPUs 0 to N-1; a set that took
 * holds what it named below N), which its own questions and a fork
 * child's must read back, with nothing past N; the counts are N; the CPU
 * a thread runs on is in its mask.  A line says model=BAD where it does
 * not hold, and any such line fails the case. */
static unsigned char model[BUFSZ];
static int model_known;

static void model_take(const unsigned char *m, size_t sz)
{
	memset(model, 0, sizeof model);
	for (int k = 0; k < real && (size_t)k < sz * 8; k++)
		if (m[k / 8] >> (k % 8) & 1)
			model[k / 8] |= 1u << (k % 8);
}

/* A mask the main thread read back (sz bytes) against the model. */
static void model_check(const unsigned char *m, size_t sz)
{
	int bad = 0;
	if (!model_known)
		return;
	for (size_t k = 0; k < sz * 8 && k < BUFSZ * 8; k++)
		bad |= (int)(k < (size_t)real ? (m[k / 8] ^ model[k / 8]) >> (k % 8) & 1 : m[k / 8] >> (k % 8) & 1);
	say(" model=%s", bad ? "BAD" : "ok");
}

static void probe(void)
{
	unsigned char m[BUFSZ];
	int r = own_mask(m);
	say("  probe get=%d", r);
	say_mask(m, 16);
	if (r == 0)
		model_check(m, 128);
	say_counts();
	say_where();
	say("\n");
}

static void encode(const struct op *p, int n, char *out, size_t sz)
{
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < n && o < sz; i++)
		o += (size_t)snprintf(out + o, sz - o, "%s%u.%u.%u.%u", i ? "," : "", p[i].k, p[i].a, p[i].b,
		                      p[i].c);
}

static int decode(const char *s, struct op *p)
{
	int n = 0;
	while (*s && n < MAXOPS) {
		int used = 0;
		if (sscanf(s, "%u.%u.%u.%u%n", &p[n].k, &p[n].a, &p[n].b, &p[n].c, &used) != 4)
			break;
		if (p[n].k >= OP_NOPS)
			break;
		n++;
		s += used;
		if (*s == ',')
			s++;
	}
	return n;
}

/* A target for the sched_ calls: said as a word (the numbers differ from
 * run to run). */
static pid_t target(unsigned a, const char **word, pid_t other)
{
	switch (a % 7) {
	case 0: *word = "0"; return 0;
	case 1: *word = "pid"; return getpid();
	case 2: *word = "tid"; return (pid_t)syscall(SYS_gettid);
	case 3:
		*word = helper_on ? "helper" : "helper-none";
		return helper_on ? helper_tid : 0;
	case 4: *word = "nopid"; return 0x3fffffff;
	case 5: *word = "minus1"; return -1;
	default:
		*word = other > 0 ? "other" : "other-none";
		return other > 0 ? other : 0;
	}
}

static void run_ops(const struct op *p, int n, int from, const char *prog)
{
	unsigned char m[BUFSZ];

	/* the program's start; after an exec, known again at its next set
	 * (what the exec carried is its own question: the mask as it was) */
	if (from == 0) {
		memset(m, 0xff, BUFSZ);
		model_take(m, BUFSZ);
		model_known = 1;
	}
	for (int i = from; i < n; i++) {
		const struct op *o = &p[i];
		int r, e;
		size_t sz = draw_size(o->c);
		cpu_set_t *mp = (o->c / 8) % 16 == 15 ? NULL : (cpu_set_t *)m;
		const char *w;
		pid_t t;
		say("%d %s", i, opname[o->k]);
		errno = 0;
		switch (o->k) {
		case OP_SET:
			draw_mask(m, o->a, o->b);
			t = target(o->a / 8, &w, 0);
			if ((o->a / 8) % 7 == 3 && helper_on && meta_skip("another thread's set"))
				break;
			r = set_said(t, sz, mp, w, m);
			if (r == 0 && (t == 0 || t == getpid()))
				model_take(m, sz);  /* the main thread's own */
			break;
		case OP_GET:
			memset(m, 0xa5, BUFSZ);
			t = target(o->a / 8, &w, 0);
			if ((o->a / 8) % 7 == 3 && helper_on && meta_skip("another thread's mask"))
				break;
			r = sched_getaffinity(t, sz, mp);
			e = errno;
			say(" %s size=%zu%s = %d%s", w, sz, mp ? "" : " NULL", r, r < 0 ? en(e) : "");
			if (mp)
				say_mask(m, sz);
			if (r == 0 && (t == 0 || t == getpid()))
				model_check(m, sz);
			break;
		case OP_PSET:
			draw_mask(m, o->a, o->b);
			w = (o->a / 8) % 2 && helper_on ? "helper" : "self";
			if (*w == 'h' && meta_skip("another thread's set"))
				break;
			r = pthread_setaffinity_np(*w == 'h' ? helper : pthread_self(), sz, mp);
			say(" %s size=%zu%s", w, sz, mp ? "" : " NULL");
			if (mp)
				say_mask(m, sz);
			say(" = %d%s", r, en(r));
			if (r == 0 && *w == 's')
				model_take(m, sz);
			break;
		case OP_PGET:
			memset(m, 0xa5, BUFSZ);
			w = (o->a / 8) % 2 && helper_on ? "helper" : "self";
			if (*w == 'h' && meta_skip("another thread's mask"))
				break;
			r = pthread_getaffinity_np(*w == 'h' ? helper : pthread_self(), sz, mp);
			say(" %s size=%zu%s = %d%s", w, sz, mp ? "" : " NULL", r, en(r));
			if (mp && !r)
				say_mask(m, sz);
			if (mp && !r && *w == 's')
				model_check(m, sz);
			break;
		case OP_ATTR: {
			pthread_attr_t at;
			pthread_t th;
			int dflt = (o->a / 8) % 4 == 3;
			pthread_attr_init(&at);
			draw_mask(m, o->a, o->b);
			r = pthread_attr_setaffinity_np(&at, sz, mp);
			say(" %s size=%zu%s", dflt ? "default" : "attr", sz, mp ? "" : " NULL");
			if (mp)
				say_mask(m, sz);
			say(" = %d%s", r, en(r));
			memset(m, 0xa5, BUFSZ);
			r = pthread_attr_getaffinity_np(&at, draw_size(o->c / 128), (cpu_set_t *)m);
			say(" back size=%zu = %d%s", draw_size(o->c / 128), r, en(r));
			if (!r)
				say_mask(m, draw_size(o->c / 128));
			if (dflt) {
				r = pthread_setattr_default_np(&at);
				say(" setdefault = %d%s\n", r, en(r));
				fflush(stdout);
				r = pthread_create(&th, NULL, th_main, NULL);
				if (!r)
					pthread_join(th, NULL);
				pthread_attr_t none;
				pthread_attr_init(&none);
				pthread_setattr_default_np(&none);
				pthread_attr_destroy(&none);
			} else {
				say("\n");
				fflush(stdout);
				r = pthread_create(&th, &at, th_main, NULL);
				if (!r)
					pthread_join(th, NULL);
			}
			pthread_attr_destroy(&at);
			say("%d create = %d%s", i, r, en(r));
			break;
		}
		case OP_PLAIN: {
			pthread_t th;
			say("\n");
			fflush(stdout);
			r = pthread_create(&th, NULL, th_main, NULL);
			if (!r)
				pthread_join(th, NULL);
			say("%d create = %d%s", i, r, en(r));
			break;
		}
		case OP_HELPER:
			if (helper_on) {
				helper_stop();
				say(" stopped");
			} else {
				helper_start();
				say(" started");
			}
			break;
		case OP_COUNT:
			say_counts();
			if (o->a % 2) {
				r = own_mask(m);
				say(" count=%d", r == 0 ? CPU_COUNT_S(128, (cpu_set_t *)m) : -1);
			}
			break;
		case OP_GETCPU:
			say_where();
			if (o->a % 4 == 3) {
				r = getcpu(NULL, NULL);
				say(" null=%d", r);
			}
			break;
		case OP_FILE:
			if (o->a % 11 >= 4 && o->a % 11 != 5 && o->a % 11 != 6 &&
			    meta_skip("a status line or a topology"))
				break;
			say_file(o->a);
			break;
		case OP_DIR:
			say_dir(o->a);
			break;
		case OP_FORK: {
			say("\n");
			fflush(stdout);
			pid_t c = fork();
			if (c == 0) {
				if (o->a % 2) {
					draw_mask(m, o->b, o->c);
					r = sched_setaffinity(0, 128, (cpu_set_t *)m);
					say("  child set");
					say_mask(m, 16);
					say(" = %d%s\n", r, r < 0 ? en(errno) : "");
					if (r == 0)
						model_take(m, 128);
				}
				probe();
				fflush(stdout);
				_exit(0);
			}
			int st = 0;
			waitpid(c, &st, 0);
			say("%d fork status=%d", i, c < 0 ? -1 : st);
			break;
		}
		case OP_EXEC:
		case OP_TASKSET: {
			char from_s[16], r_s[16], list[128] = "";
			size_t l = 0;
			snprintf(from_s, sizeof from_s, "%d", i + 1);
			snprintf(r_s, sizeof r_s, "%d", real);
			if (o->k == OP_TASKSET) {
				draw_mask(m, 5, o->b);  /* a non-empty subset of the machine */
				for (int k = 0; k < real; k++)
					if (in_mask(m, k))
						l += (size_t)snprintf(list + l, sizeof list - l, "%s%d", l ? "," : "", k);
				say(" -c %s", list);
			}
			say("\n");
			fflush(stdout);
			if (helper_on)
				helper_stop();  /* (an exec ends it: no stray pipe) */
			if (o->k == OP_TASKSET) {
				char *argv[] = { "taskset", "-c", list, (char *)self, "--run", (char *)prog, from_s, r_s, NULL };
				execvp("taskset", argv);
			} else {
				char *argv[] = { (char *)self, "--run", (char *)prog, from_s, r_s, NULL };
				execv(self, argv);
			}
			say("%d exec failed%s\n", i, en(errno));
			return;
		}
		case OP_SPAWN: {
			char *argv[] = { (char *)self, "--probe", NULL };
			pid_t c;
			int st = 0;
			say("\n");
			fflush(stdout);
			r = posix_spawn(&c, self, NULL, NULL, argv, environ);
			if (!r)
				waitpid(c, &st, 0);
			say("%d spawn = %d status=%d", i, r, st);
			break;
		}
		case OP_SHELL: {
			/* (not nproc: interpose sets OMP_NUM_THREADS, which it
			 * reads first) */
			static const char cmd[] = "echo \"  shell $(grep Cpus_allowed /proc/self/status | tr '\\n\\t' '  ')"
			                          "$(getconf _NPROCESSORS_ONLN)\"; \"$CPUS_FUZZ_SELF\" --probe";
			say(" %s", o->a % 2 ? "popen" : "system");
			if (meta_skip("a shell started with environ as it is"))
				break;
			if (getenv("CPUS_FUZZ_NOMAP")) {
				/* the top of the tree with no map: the shell learns
				 * its machine from its mask (fastpath(7), LIMITS) */
				say(" not run: no map handed down");
				break;
			}
			say("\n");
			fflush(stdout);
			if (o->a % 2) {
				char line[512];
				FILE *f = popen(cmd, "r");
				while (f && fgets(line, sizeof line, f))
					say("%s", line);
				r = f ? pclose(f) : -1;
			} else
				r = system(cmd);
			say("%d shell = %d", i, r);
			break;
		}
		case OP_OTHER: {
			/* another process's mask: set and read from here */
			int pp[2];
			if (meta_skip("another process's mask"))
				break;
			if (pipe2(pp, O_CLOEXEC) != 0) {
				say(" no pipe");
				break;
			}
			pid_t c = fork();
			if (c == 0) {
				char ch;
				while (read(pp[0], &ch, 1) < 0 && errno == EINTR)
					;
				_exit(0);
			}
			draw_mask(m, o->a, o->b);
			t = target((o->a / 8) % 2 ? 6 : 4, &w, c);
			(void)set_said(t, sz, mp, w, m);
			memset(m, 0xa5, BUFSZ);
			r = sched_getaffinity(t, 128, (cpu_set_t *)m);
			say(" get = %d%s", r, r < 0 ? en(errno) : "");
			say_mask(m, 16);
			(void)!write(pp[1], "x", 1);
			close(pp[0]);
			close(pp[1]);
			waitpid(c, NULL, 0);
			break;
		}
		}
		say("\n");
		fflush(stdout);
	}
	if (helper_on)
		helper_stop();
	say("end\n");
	fflush(stdout);
}

/* ------------------------------------------------------------------------
 * The fuzzer's side.
 * ---------------------------------------------------------------------- */
static uint64_t rng_s;
static uint64_t rnd(void)
{
	uint64_t z = (rng_s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int generate(unsigned long seed, unsigned long k, struct op *p)
{
	unsigned total = 0;
	rng_s = seed * 1000003ull + k;
	for (int i = 0; i < OP_NOPS; i++)
		total += weight[i];
	int n = 3 + (int)(rnd() % (MAXOPS - 3));
	for (int i = 0; i < n; i++) {
		unsigned x = (unsigned)(rnd() % total), j = 0;
		while (x >= weight[j])
			x -= weight[j++];
		p[i].k = j;
		p[i].a = (unsigned)rnd() & 0xffff;
		p[i].b = (unsigned)rnd() & 0xffff;
		p[i].c = (unsigned)rnd() & 0xffff;
	}
	return n;
}

static const char *so, *interpose;
/* A negative control: the capped side told another count. */
static const char *lie;

/* One run of the program, native (capped = 0) or capped; its log in out. */
/* Whether the case starts with a machine handed down, as under interpose
 * (even cases), or as the top of the tree with LD_PRELOAD alone (odd). */
static int with_map;

static int run_one(const char *prog, int capped, char *out, size_t sz)
{
	int pp[2];
	if (pipe2(pp, O_CLOEXEC) != 0)
		return -1;
	pid_t c = fork();
	if (c < 0)
		return -1;
	if (c == 0) {
		char real_s[16];
		dup2(pp[1], 1);
		dup2(pp[1], 2);
		for (char **e = environ; *e;) {
			if (!strncmp(*e, "FASTPATH_", 9) || !strncmp(*e, "LD_PRELOAD=", 11)) {
				char name[128];
				size_t l = strcspn(*e, "=");
				snprintf(name, sizeof name, "%.*s", (int)l, *e);
				unsetenv(name);
				e = environ;
				continue;
			}
			e++;
		}
		unsetenv("OMP_NUM_THREADS");
		unsetenv("GOMAXPROCS");
		snprintf(real_s, sizeof real_s, "%d", real);
		if (!with_map)
			setenv("CPUS_FUZZ_NOMAP", "1", 1);
		if (meta)
			setenv("CPUS_FUZZ_META", "1", 1);
		if (capped || meta) {
			char map[64], backing[32];
			/* the metamorphic mode's second side: the tree started on
			 * the last CPU alone (taskset outside the cap) */
			if (meta && capped) {
				cpu_set_t one;
				CPU_ZERO(&one);
				CPU_SET(hw - 1, &one);
				if (sched_setaffinity(0, sizeof one, &one) != 0)
					_exit(126);
				snprintf(backing, sizeof backing, "%d", hw - 1);
			} else if (hw > 1)
				snprintf(backing, sizeof backing, "0-%d", hw - 1);
			else
				snprintf(backing, sizeof backing, "0");
			if (with_map && interpose) {
				/* as an operator starts it: interpose decides the
				 * machine for the whole tree and hands it down */
				char *argv[] = { (char *)interpose, "--quiet", "--cpus", lie ? (char *)lie : real_s, "--",
					         (char *)self, "--run", (char *)prog, "0", real_s, NULL };
				execv(interpose, argv);
				_exit(127);
			}
			setenv("LD_PRELOAD", so, 1);
			setenv("FASTPATH_CPUS", lie ? lie : real_s, 1);
			/* the machine as interpose --cpus N hands it down (the
			 * real CPUs its shell runs on) */
			if (with_map) {
				snprintf(map, sizeof map, "%s:%s", lie ? lie : real_s, backing);
				setenv("FASTPATH_CPUS_MAP", map, 1);
			}
		}
		char *argv[] = { (char *)self, "--run", (char *)prog, "0", real_s, NULL };
		execv(self, argv);
		_exit(127);
	}
	close(pp[1]);
	size_t n = 0;
	int st = 0;
	struct pollfd pf = { pp[0], POLLIN, 0 };
	for (;;) {
		if (poll(&pf, 1, 20000) <= 0) {
			kill(c, SIGKILL);
			snprintf(out + n, sz - n, "(timed out)\n");
			n += strlen(out + n);
			break;
		}
		ssize_t r = read(pp[0], out + n, sz - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n >= sz - 1)
			break;
	}
	out[n] = 0;
	close(pp[0]);
	waitpid(c, &st, 0);
	snprintf(out + n, sz - n, "exit %d\n", st);
	return 0;
}

static char nat[1 << 16], cap[1 << 16];

/* The first line that differs, or -1. */
static int first_diff(const char *a, const char *b, char *la, char *lb, size_t sz)
{
	int line = 0;
	for (;;) {
		size_t x = strcspn(a, "\n"), y = strcspn(b, "\n");
		if (x != y || strncmp(a, b, x) != 0) {
			snprintf(la, sz, "%.*s", (int)x, a);
			snprintf(lb, sz, "%.*s", (int)y, b);
			return line;
		}
		if (!a[x])
			return -1;
		a += x + 1;
		b += y + 1;
		line++;
	}
}

/* The first line that differs, or else the first the model refuses
 * (model=BAD) on either side, into la and lb; whether there is one. */
static int verdict(char *la, char *lb, size_t sz)
{
	const char *bad, *buf = nat;
	if (first_diff(nat, cap, la, lb, sz) >= 0)
		return 1;
	if (!(bad = strstr(buf, "model=BAD")) && !(bad = strstr(buf = cap, "model=BAD")))
		return 0;
	while (bad > buf && bad[-1] != '\n')
		bad--;
	snprintf(la, sz, "%.*s", (int)strcspn(bad, "\n"), bad);
	snprintf(lb, sz, "(the model: one machine of %d CPUs)", real);
	return 1;
}

static int differs(const char *prog)
{
	char la[512], lb[512];
	if (run_one(prog, 0, nat, sizeof nat) || run_one(prog, 1, cap, sizeof cap))
		return 0;
	return verdict(la, lb, sizeof la);
}

static void list_prog(const struct op *p, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(stderr, "    %2d %-8s a=%u b=%u c=%u\n", i, opname[p[i].k], p[i].a, p[i].b, p[i].c);
}

int main(int argc, char **argv)
{
	unsigned long seed = (unsigned long)time(NULL), cases = 0, one = 0;
	double seconds = 0;
	int have_one = 0, dump = 0;
	struct op p[MAXOPS];
	char prog[MAXOPS * 32];

	{
		/* an absolute path: the runs exec it, through taskset too */
		static char exe[4096];
		ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[l > 0 ? l : 0] = 0;
		self = l > 0 ? exe : argv[0];
	}
	if (argc >= 2 && !strcmp(argv[1], "--probe")) {
		/* spawned or started by a shell: the machine's size from the
		 * program that started it */
		real = getenv("CPUS_FUZZ_N") ? atoi(getenv("CPUS_FUZZ_N")) : 0;
		probe();
		return 0;
	}
	{
		cpu_set_t s;
		if (sched_getaffinity(0, sizeof s, &s) != 0)
			return 77;
		hw = real = CPU_COUNT(&s);
	}
	if (argc == 5 && !strcmp(argv[1], "--run")) {
		setenv("CPUS_FUZZ_SELF", self, 1);
		setenv("CPUS_FUZZ_N", argv[4], 1);
		meta = getenv("CPUS_FUZZ_META") != NULL;
		/* the machine's size as the fuzzer saw it, not this process's
		 * mask (a taskset exec narrows it): the same draws on both sides */
		real = atoi(argv[4]);
		if (real < 1 || real > 1024)
			return 2;
		run_ops(p, decode(argv[2], p), atoi(argv[3]), argv[2]);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--so") && i + 1 < argc)
			so = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			cases = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			one = strtoul(argv[++i], NULL, 0), have_one = 1;
		else if (!strcmp(argv[i], "--interpose") && i + 1 < argc)
			interpose = argv[++i];
		else if (!strcmp(argv[i], "--lie-count") && i + 1 < argc)
			lie = argv[++i];
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			real = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dump"))
			dump = 1;
		else {
			fprintf(stderr, "usage: cpus_fuzz --so PATH [--interpose PATH] [--cpus N] [--seed S] "
			                "[--cases N] [--seconds T] [--case K [--dump]] [--lie-count N]\n");
			return 2;
		}
	}
	if (!so) {
		fprintf(stderr, "cpus_fuzz: --so PATH is needed\n");
		return 2;
	}
	if (real < 1 || real > 1024) {
		fprintf(stderr, "cpus_fuzz: --cpus takes 1 to 1024\n");
		return 2;
	}
	meta = real != hw;
	if (hw != get_nprocs()) {
		printf("cpus_fuzz: not run: started on %d CPUs of %d online (the identity machine needs "
		       "all; run it outside taskset)\n", hw, get_nprocs());
		return 77;
	}
	if (!cases && !seconds && !have_one)
		cases = 200;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long k = have_one ? one : 0, ran = 0, bad = 0, flaky = 0;
	for (;; k++) {
		if (have_one && k != one)
			break;
		if (!have_one && cases && ran >= cases)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!have_one && seconds &&
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
		int n = generate(seed, k, p);
		with_map = k % 2 == 0;
		encode(p, n, prog, sizeof prog);
		ran++;
		if (dump) {
			run_one(prog, 0, nat, sizeof nat);
			run_one(prog, 1, cap, sizeof cap);
			printf("==== program\n");
			fflush(stdout);
			list_prog(p, n);
			if (meta)
				printf("==== FASTPATH_CPUS=%d on CPUs 0-%d\n%s==== on CPU %d alone\n%s", real, hw - 1,
				       nat, hw - 1, cap);
			else
				printf("==== native\n%s==== capped (FASTPATH_CPUS=%d)\n%s", nat, real, cap);
		}
		if (!differs(prog))
			continue;
		char la[512], lb[512];
		verdict(la, lb, sizeof la);
		if (!differs(prog)) {
			flaky++;
			printf("flaky - seed %lu case %lu: differed once, not on a rerun\n      %s: %s\n      %s: %s\n",
			       seed, k, meta ? "all" : "native", la, meta ? "one" : "capped", lb);
			continue;
		}
		/* shrink: take out one op at a time while it still differs */
		for (int i = n - 1; i >= 0 && n > 1; i--) {
			struct op q[MAXOPS];
			char qs[sizeof prog];
			int m = 0;
			for (int j = 0; j < n; j++)
				if (j != i)
					q[m++] = p[j];
			encode(q, m, qs, sizeof qs);
			if (differs(qs)) {
				memcpy(p, q, sizeof q);
				n = m;
				memcpy(prog, qs, sizeof qs);
			}
		}
		differs(prog);
		verdict(la, lb, sizeof la);
		bad++;
		if (meta)
			printf("not ok - seed %lu case %lu: the capped machine (FASTPATH_CPUS=%d) on CPUs 0-%d "
			       "and on CPU %d alone differ\n      all: %s\n      one: %s\n",
			       seed, k, real, hw - 1, hw - 1, la, lb);
		else
			printf("not ok - seed %lu case %lu: the capped machine (FASTPATH_CPUS=%d, the real count) "
			       "differs from native\n      native: %s\n      capped: %s\n", seed, k, real, la, lb);
		fflush(stdout);
		fprintf(stderr, "    shrunk to %d ops (--run '%s' 0 %d):\n", n, prog, real);
		list_prog(p, n);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("cpus_fuzz: seed %lu: %lu programs on %d CPUs in %.1f s, %lu differences, %lu flaky\n", seed,
	       ran, real, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, bad,
	       flaky);
	return bad ? 1 : 0;
}
