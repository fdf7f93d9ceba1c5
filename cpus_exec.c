/* SPDX-License-Identifier: MIT */
/*
 * cpus_exec.c: the machine the CPU cap shows, handed down to the new image
 * of every exec and spawn made through us (FASTPATH_CPUS_MAP, cpus.h).
 */
#include "fastpath.h"
#include "cpus.h"

#ifdef FP_HAVE_AFFINITY
/* ------------------------------------------------------------------------
 * The machine handed down across exec (issue 37, defect 2).  A program
 * exec'd under the cap used to learn its machine from the mask it
 * inherited: after `taskset -c 3 prog` (N = 4 on two CPUs) that is one
 * CPU, and the pin, the machine and sched_getcpu were lost.  So every exec
 * and spawn made through us hands the new image the map (N and the real
 * CPUs under it) and the exec'ing thread's virtual mask, in
 * FASTPATH_CPUS_MAP (cpus.h); where it does not fit the mask the new
 * image has, it is ignored (cpus_handed_fits).
 * ---------------------------------------------------------------------- */
static const char cpus_map_eq[] = CPUS_MAP_VAR "=";
static const char cpus_cpus_eq[] = "FASTPATH_CPUS=";

/*
 * envp as the kernel reads it: an invalid pointer in it is the exec's
 * EFAULT, not a fault of ours (a review: SIGSEGV where native execve and
 * posix_spawn failed with EFAULT).  Its pointers and the first
 * CPUS_ENV_HEAD bytes of each string (all our comparisons read) are
 * copied through process_vm_readv on ourselves, CPUS_ENV_CHUNK entries
 * at a time, a string's head in two parts where a page ends inside it.
 * fn(c, s, head) for each entry, head NUL-padded past what could be read
 * (a string that cannot be read is none of ours: it goes to the kernel,
 * which says EFAULT).  The count of entries, or -1 when the pointers
 * cannot be read (envp then goes to the kernel as it is).  Where the call
 * fails otherwise (a filter's ENOSYS, EPERM or any other), read directly,
 * as before.
 */
#define CPUS_ENV_CHUNK 8
#define CPUS_ENV_HEAD 32 /* "FASTPATH_CPUS=" and the longest setting */
typedef void (*cpus_env_fn)(void *c, char *s, const char *head);

static size_t cpus_to_page_end(const void *p, size_t n)
{
	size_t left = 4096 - ((uintptr_t)p & 4095);

	return left < n ? left : n;
}

/* By this thread's id: the process's is refused once the main thread has
 * exited (a cold review: the map was dropped at every exec then). */
static long cpus_env_read(const struct iovec *l, size_t nl, const struct iovec *r, size_t nr)
{
	return syscall(SYS_process_vm_readv, syscall(SYS_gettid), l, (unsigned long)nl, r,
	               (unsigned long)nr, 0ul);
}

/* The heads of p[0..n) into head[]. */
static __attribute__((noinline)) void cpus_env_heads(char *const *p, size_t n,
                                                      char (*head)[CPUS_ENV_HEAD], bool direct)
{
	struct iovec l[2 * CPUS_ENV_CHUNK], r[2 * CPUS_ENV_CHUNK];
	size_t k = 0, from = 0;

	memset(head, 0, n * CPUS_ENV_HEAD);
	for (size_t i = 0; i < n; i++) {
		size_t first = cpus_to_page_end(p[i], CPUS_ENV_HEAD - 1);

		if (direct) {
			strncpy(head[i], p[i], CPUS_ENV_HEAD - 1);
			continue;
		}
		l[k] = (struct iovec){ head[i], first };
		r[k++] = (struct iovec){ p[i], first };
		if (first < CPUS_ENV_HEAD - 1) {
			l[k] = (struct iovec){ head[i] + first, CPUS_ENV_HEAD - 1 - first };
			r[k++] = (struct iovec){ p[i] + first, CPUS_ENV_HEAD - 1 - first };
		}
	}
	while (from < k) {
		long got = cpus_env_read(l + from, k - from, r + from, k - from);

		if (got < 0)
			got = 0;
		/* Past the iovecs read whole: the one that failed reads as
		 * empty (its string goes to the kernel as it is). */
		while (from < k && (size_t)got >= l[from].iov_len)
			got -= (long)l[from++].iov_len;
		if (from < k) {
			memset(l[from].iov_base, 0, l[from].iov_len);
			from++;
		}
	}
}

static long cpus_env_walk(char *const envp[], cpus_env_fn fn, void *c)
{
	char *p[CPUS_ENV_CHUNK], head[CPUS_ENV_CHUNK][CPUS_ENV_HEAD];
	int saved = errno;
	long count = 0;
	bool direct = false;

	for (size_t at = 0; at <= CPUS_MAP_SLOTS; at += CPUS_ENV_CHUNK) {
		struct iovec l = { p, sizeof p }, r[2];
		size_t n = 0, got;
		long rd;

		/* The pointers, in two parts where a page ends. */
		r[0] = (struct iovec){ (void *)(envp + at), cpus_to_page_end(envp + at, sizeof p) };
		r[1] = (struct iovec){ (char *)(envp + at) + r[0].iov_len, sizeof p - r[0].iov_len };
		rd = direct ? -1 : cpus_env_read(&l, 1, r, r[1].iov_len ? 2 : 1);
		if (rd < 0 && (direct || errno != EFAULT)) {
			direct = true;
			for (n = 0; n < CPUS_ENV_CHUNK && (p[n] = envp[at + n]) != NULL; n++)
				;
			got = n < CPUS_ENV_CHUNK ? n + 1 : n;
		} else {
			got = rd < 0 ? 0 : (size_t)rd / sizeof p[0];
			while (n < got && p[n])
				n++;
		}
		if (n == got && got < CPUS_ENV_CHUNK) {
			count = -1; /* a pointer the kernel cannot read */
			break;
		}
		cpus_env_heads(p, n, head, direct);
		for (size_t i = 0; i < n; i++)
			fn(c, p[i], head[i]);
		count += (long)n;
		if (n < got)
			break; /* the NULL */
	}
	errno = saved;
	return count;
}

static bool cpus_env_is(const char *head, const char *pat)
{
	return strncmp(head, pat, strlen(pat)) == 0;
}

static void cpus_env_capped(void *c, char *s, const char *head)
{
	(void)s;
	*(bool *)c |= cpus_env_is(head, cpus_cpus_eq);
}

size_t fp_cpus_exec_slots(char *const envp[])
{
	bool capped = false;
	long n = envp ? cpus_env_walk(envp, cpus_env_capped, &capped) : 0;

	return n > 0 && n <= CPUS_MAP_SLOTS && capped ? (size_t)n + 2 : 0;
}

/* The map, and this thread's virtual mask where it is remembered (the new
 * image reads its mask through the map, as this thread would): true with
 * the mask. */
static bool cpus_exec_view(struct cpus_map *m, struct cpus_vmask *v)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	fp_cpus_map(m);
	return CPUS_REAL(sched_getaffinity)(0, sizeof now, &now) == 0 &&
	       cpus_recalled(CPUS_THREAD, &now, v);
}

/* The room "FASTPATH_CPUS_MAP=..." needs, at most CPUS_MAP_TEXT: without
 * the mask where it needs more (a review: a 256-CPU machine's mask of
 * every third CPU did not fit 256 bytes, and was dropped).  Out of the
 * copy's frame, which a handler's exec may make on a small stack.  A
 * machine not learnt yet is not learnt here, whose frames (the C
 * library's sysconf) a crash handler's exec on a small alternate stack
 * has no room for (a review: execv on a 4 KiB one, SIGSEGV): the map
 * handed down to us goes on, as it came (the new image checks it as we
 * would). */
static __attribute__((noinline)) size_t cpus_exec_room(bool learnt)
{
	const struct cpus_handed *h = fp_cpus_handed();
	struct cpus_vmask v;
	struct cpus_map m;
	size_t room;

	if (!learnt) {
		room = h ? fp_cpus_handed_room(h) : 0;
	} else {
		bool have_v = cpus_exec_view(&m, &v);

		room = fp_cpus_map_room(&m, have_v ? &v : NULL);
		if (room > CPUS_MAP_TEXT - sizeof cpus_map_eq)
			room = fp_cpus_map_room(&m, NULL);
	}
	room += sizeof cpus_map_eq;
	return room < CPUS_MAP_TEXT ? room : CPUS_MAP_TEXT;
}

/* "FASTPATH_CPUS_MAP=..." into text (room bytes): of this thread, its
 * virtual mask left out where it does not fit, or the one handed down;
 * false when there is none, or it does not fit. */
static bool cpus_exec_text(char *text, size_t room, bool learnt)
{
	const size_t off = sizeof cpus_map_eq - 1;
	const struct cpus_handed *h;
	struct cpus_vmask v;
	struct cpus_map m;
	bool have_v;

	memcpy(text, cpus_map_eq, off);
	if (!learnt)
		return (h = fp_cpus_handed()) != NULL && fp_cpus_format_handed(text + off, room - off, h);
	have_v = cpus_exec_view(&m, &v);
	return (have_v && fp_cpus_format_map(text + off, room - off, &m, &v)) ||
	       fp_cpus_format_map(text + off, room - off, &m, NULL);
}

struct cpus_env_copy {
	char **slots;
	size_t k, nslots;
	bool seen, same;
};

static void cpus_env_keep(void *c, char *s, const char *head)
{
	struct cpus_env_copy *e = c;
	const size_t len = sizeof cpus_cpus_eq - 1;

	if (e->k + 2 >= e->nslots || cpus_env_is(head, cpus_map_eq))
		return; /* the one handed to us, or the program's */
	if (!e->seen && cpus_env_is(head, cpus_cpus_eq)) {
		/* The first, as getenv finds it. */
		e->seen = true;
		e->same = strcmp(head + len, cpus_setting) == 0;
	}
	e->slots[e->k++] = s;
}

char *const *fp_cpus_exec_env(char *const envp[], char **slots, size_t nslots, char *text,
                              size_t room)
{
	struct cpus_env_copy e = { slots, 0, nslots, false, false };
	bool learnt = fp_cpus_learnt();

	/* Read as fp_cpus_exec_slots read it: not NULL, its pointers readable
	 * (a change in between is the program's race). */
	if (cpus_env_walk(envp, cpus_env_keep, &e) < 0)
		return envp;
	/* Capped otherwise (the program set another count for it): a
	 * machine of its own, learnt from its mask. */
	if (e.same && cpus_exec_text(text, room, learnt))
		slots[e.k++] = text;
	slots[e.k] = NULL;
	return slots;
}

/* The one frame whose size the caller chooses (t_stack.sh): the copy of
 * an environment of n entries is 8 * (n + 2) bytes, 4 KiB at most, as the
 * C library's own exec builds argv copies on the stack, and the map's
 * text as long as it is, 2 KiB at most. */
int fp_cpus_exec_with(char *const envp[], cpus_exec_fn fn, void *ctx)
{
	size_t n = fp_cpus_exec_slots(envp), room;

	if (!n)
		return fn(ctx, envp);
	room = cpus_exec_room(fp_cpus_learnt());
	char *slots[n], text[room];

	return fn(ctx, fp_cpus_exec_env(envp, slots, n, text, room));
}
#endif /* FP_HAVE_AFFINITY */
