/* SPDX-License-Identifier: MIT */
/*
 * mit_example.c: the example of docs/design.md, "Adding a mitigation".  A
 * mitigation that counts the program's calls of getppid() and answers them
 * as libc does.  Built only into tests/bin/fastpath_example.so, with the
 * one line of the registry (mitigations.h) that names it; tests/t_example.sh
 * preloads it: FASTPATH_DISABLE=example and the summary field "example <n>
 * calls" work with no edit to the core.
 */
#include "../fastpath.h"

/* Its own rows (FP_OWN) are bound with it, at its first call. */
#undef FP_OWN_BIT
#define FP_OWN_BIT FP_BIT(example)

/* Its counters: a striped set of its own. */
enum { EX_C_CALLS, EX_NCOUNTERS };
static struct fp_stripe ex_counters[FP_STRIPES];

/* The real getppid; until initialisation is done (not ready yet), the
 * system call itself. */
FP_REAL_OWN(pid_t, getppid, (void), FP_NR_DO((pid_t)syscall(SYS_getppid)));

/* The entry point: export, policy (count the call when on), real call. */
FP_EXPORT pid_t getppid(void)
{
	if (fp_enabled(FP_BIT(example)))
		fp_count(ex_counters, EX_C_CALLS);
	return FP_OWN(getppid)();
}

/* Its field of the summary line, after "example ": "<n> calls". */
static void ex_stats(struct fp_buf *b, const unsigned long *c)
{
	fp_buf_ulong(b, c[EX_C_CALLS]);
	fp_buf_str(b, " calls");
}

static const struct fp_sym ex_syms[] = { FP_SYM(getppid) };

FP_MITIGATION(example, .stats = ex_stats, .counters = ex_counters,
              .ncounters = EX_NCOUNTERS, .syms = ex_syms, .nsyms = 1);
