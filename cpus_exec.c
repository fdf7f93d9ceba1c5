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

size_t fp_cpus_exec_slots(char *const envp[])
{
	bool capped = false;
	size_t i;

	if (!envp)
		return 0;
	for (i = 0; envp[i]; i++) {
		if (i >= CPUS_MAP_SLOTS)
			return 0;
		capped |= strncmp(envp[i], cpus_cpus_eq, sizeof cpus_cpus_eq - 1) == 0;
	}
	return capped ? i + 2 : 0;
}

/* "FASTPATH_CPUS_MAP=..." of this thread into text (CPUS_MAP_TEXT
 * bytes), its virtual mask left out where it is not remembered (the new
 * image reads its mask through the map, as this thread would) or where it
 * does not fit; false when even the map does not. */
static bool cpus_exec_text(char *text)
{
	const size_t off = sizeof cpus_map_eq - 1;
	struct cpus_vmask v;
	struct cpus_map m;
	cpu_set_t now;
	bool have_v;
	int (*getaff)(pid_t, size_t, cpu_set_t *) = CPUS_REAL(sched_getaffinity);

	memcpy(text, cpus_map_eq, off);
	fp_cpus_map(&m);
	have_v = getaff(0, sizeof now, &now) == 0 &&
	         cpus_recalled(CPUS_THREAD, &now, &v);
	return (have_v && fp_cpus_format_map(text + off, CPUS_MAP_TEXT - off, &m, &v)) ||
	       fp_cpus_format_map(text + off, CPUS_MAP_TEXT - off, &m, NULL);
}

char *const *fp_cpus_exec_env(char *const envp[], char **slots, size_t nslots, char *text)
{
	const size_t len = sizeof cpus_cpus_eq - 1;
	bool seen = false, same = false;
	size_t i, k = 0;

	for (i = 0; envp[i] && k + 2 < nslots; i++) {
		if (strncmp(envp[i], cpus_map_eq, sizeof cpus_map_eq - 1) == 0)
			continue; /* the one handed to us, or the program's */
		if (!seen && strncmp(envp[i], cpus_cpus_eq, len) == 0) {
			/* The first, as getenv finds it. */
			seen = true;
			same = strcmp(envp[i] + len, cpus_setting) == 0;
		}
		slots[k++] = envp[i];
	}
	/* Capped otherwise (the program set another count for it): a
	 * machine of its own, learnt from its mask. */
	if (same && cpus_exec_text(text))
		slots[k++] = text;
	slots[k] = NULL;
	return slots;
}

/* The one frame whose size the caller chooses (t_stack.sh): the copy of
 * an environment of n entries is 8 * (n + 2) bytes, 4 KiB at most, as the
 * C library's own exec builds argv copies on the stack. */
int fp_cpus_exec_with(char *const envp[], cpus_exec_fn fn, void *ctx)
{
	size_t n = fp_cpus_exec_slots(envp);

	if (!n)
		return fn(ctx, envp);
	char *slots[n], text[CPUS_MAP_TEXT];

	return fn(ctx, fp_cpus_exec_env(envp, slots, n, text));
}
#endif /* FP_HAVE_AFFINITY */
