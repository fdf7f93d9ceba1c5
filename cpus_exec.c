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
 * posix_spawn failed with EFAULT).  Each page is checked before its first
 * byte is read (fp_page_readable: a few calls for a whole environment,
 * which lies on one or two pages).  fn(c, s, head) for each entry, head
 * its first CPUS_ENV_HEAD - 1 bytes (all our comparisons read), NUL-padded
 * past what can be read: a string the kernel cannot read goes to it as it
 * is, which says EFAULT.  The count of entries, or -1 when a pointer
 * cannot be read (envp then goes to the kernel as it is).
 */
#define CPUS_ENV_HEAD 32 /* "FASTPATH_CPUS=" and the longest setting */
typedef void (*cpus_env_fn)(void *c, char *s, const char *head);

/* *a into *out where its page is readable; *page: the last page found so. */
static bool cpus_env_byte(const char *a, uintptr_t *page, char *out)
{
	uintptr_t at = (uintptr_t)a & ~(uintptr_t)4095;

	if (at != *page) {
		if (!fp_page_readable(a))
			return false;
		*page = at;
	}
	*out = *a;
	return true;
}

static long cpus_env_walk(char *const envp[], cpus_env_fn fn, void *c)
{
	uintptr_t array = 1, strings = 1; /* no page yet */
	char head[CPUS_ENV_HEAD];
	long count = 0;

	for (size_t i = 0; i <= CPUS_MAP_SLOTS; i++) {
		const char *slot = (const char *)(envp + i);
		char *s;

		/* The slot's bytes, where a page not yet proven holds one:
		 * the array's own (memcheck takes what is read as the
		 * program's read). */
		if (((uintptr_t)slot & ~(uintptr_t)4095) != array ||
		    ((uintptr_t)(slot + sizeof s - 1) & ~(uintptr_t)4095) != array) {
			if (!fp_span_readable(slot, sizeof s))
				return -1; /* a pointer the kernel cannot read */
			array = (uintptr_t)(slot + sizeof s - 1) & ~(uintptr_t)4095;
		}
		if (!(s = envp[i]))
			break;
		memset(head, 0, sizeof head);
		for (size_t k = 0; k + 1 < sizeof head && cpus_env_byte(s + k, &strings, &head[k]) && head[k];
		     k++)
			;
		fn(c, s, head);
		count++;
	}
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
                              size_t room, bool learnt)
{
	struct cpus_env_copy e = { slots, 0, nslots, false, false };

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

/* On an alternate signal stack (a crash handler that execs), small and of
 * the program's size, the copy goes in pages of its own, given back if
 * the exec returns (cold review 33: SIGSEGV on 4 KiB with 300 entries;
 * review 35: with the copy skipped instead, a pinned program's new image
 * lost its pin).  Without them, the environment goes as it is. */
static __attribute__((noinline)) int cpus_exec_apart(char *const envp[], cpus_exec_fn fn, void *ctx,
                                                     size_t n, size_t room, bool learnt)
{
	size_t len = n * sizeof(char *) + room;
	int saved = errno, r;
	char **slots = fp_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	errno = saved;
	if (slots == MAP_FAILED)
		return fn(ctx, envp);
	r = fn(ctx, fp_cpus_exec_env(envp, slots, n, (char *)(slots + n), room, learnt));
	saved = errno;
	munmap(slots, len);
	errno = saved;
	return r;
}

/* The one frame whose size the caller chooses (t_stack.sh): the copy of
 * an environment of n entries is 8 * (n + 2) bytes, 4 KiB at most, as the
 * C library's own exec builds argv copies on the stack, and the map's
 * text as long as it is, 2 KiB at most; on an alternate signal stack,
 * none (cpus_exec_apart). */
int fp_cpus_exec_with(char *const envp[], cpus_exec_fn fn, void *ctx)
{
	size_t n = fp_cpus_exec_slots(envp), room;
	/* Read once: another thread's first question between the room and
	 * the text made a learnt map that did not fit the handed one's room,
	 * and the map was dropped. */
	bool learnt;

	if (!n)
		return fn(ctx, envp);
	learnt = fp_cpus_learnt();
	room = cpus_exec_room(learnt);
	if (fp_on_altstack())
		return cpus_exec_apart(envp, fn, ctx, n, room, learnt);
	char *slots[n], text[room];

	return fn(ctx, fp_cpus_exec_env(envp, slots, n, text, room, learnt));
}
#endif /* FP_HAVE_AFFINITY */
