/* SPDX-License-Identifier: MIT */
/*
 * fp_mitigation.h: the mitigation API.  What a mitigation's unit gives
 * the core (its descriptor), and the registry's table the core loops over.
 */
#ifndef FP_MITIGATION_H
#define FP_MITIGATION_H

#include "fp_counters.h"
#include "fp_log.h"
#include "fp_real.h"
#include "fp_survey.h"

/* ------------------------------------------------------------------------
 * Mitigations.  Each one is a descriptor in its own unit, listed once in
 * the registry (mitigations.h).  The core knows no mitigation by name: it
 * owns the constructor and pthread_atfork, and loops over fp_mitigations[]
 * for FASTPATH_DISABLE, the settings, the exit summary and fork.
 * ---------------------------------------------------------------------- */
/* A getenv-like lookup: secure_getenv, or nothing in secure-execution mode. */
typedef char *(*fp_getenv_fn)(const char *);

/* A real symbol one unit of a mitigation binds for itself beyond its
 * table: a row of the same shape in that unit (FP_REAL_OWN), bound with
 * the rest, and called through FP_OWN() as FP_REAL() calls the table's.
 * As in a table, a stand-in may ignore its parameters. */
#define FP_REAL_OWN(ret, name, params, unready)                              \
	_Pragma("GCC diagnostic push")                                       \
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")             \
	static ret fp_unready_##name params { unready }                      \
	_Pragma("GCC diagnostic pop")                                        \
	static union { ret (*f) params; void *p; } fp_own_##name = { .f = fp_unready_##name }
#define FP_SYM(name) { #name, &fp_own_##name.p }
/* FP_OWN_BIT: the unit's mitigation, whose binding binds the row. */
#define FP_OWN(name) FP_REAL_LAZY(fp_own_##name, FP_OWN_BIT)

struct fp_mitigation {
	const char *name;   /* in FASTPATH_DISABLE and the summary line */
	unsigned bit;       /* FP_BIT(name) */
	/* Reads its own settings through get, warning (fp_warn) about a bad
	 * one and keeping its safe default; returns whether it is on unless
	 * FASTPATH_DISABLE names it.  NULL: no settings, on. */
	bool (*load)(fp_getenv_fn get);
	/* Its field of the summary line, after "<name> ", when it is on; c
	 * holds its counters, summed. */
	void (*stats)(struct fp_buf *b, const unsigned long *c);
	struct fp_stripe *counters;  /* [FP_STRIPES], ncounters of each used */
	unsigned ncounters;
	unsigned gauges;             /* bit i: counter i is a gauge (kept in a child) */
	/* Once, at the end of initialisation (settings known). */
	void (*init)(void);
	/* Binds its table of real functions (FP_REAL_SYMS), called by the
	 * core with its own; and the rows one unit keeps for itself
	 * (FP_REAL_OWN), if it has any. */
	void (*bind)(fp_lookup_fn look, void *w);
	const struct fp_sym *syms;
	size_t nsyms;
	/* Is fd a number it holds, closed to the program?  Async-signal-safe;
	 * NULL: it holds none (fp_fd_held). */
	bool (*holds)(int fd);
	/* Survey mode (FASTPATH_SURVEY): its counters, written into each
	 * process's record under their keys, and zeroed in a fork child. */
	const struct fp_survey *survey;
	/* Stays in force under survey: it acts only on an explicit operator
	 * setting (the CPU count), which the survey must reproduce. */
	bool survey_keeps;
	/* pthread_atfork hooks, run for every mitigation, on or off. */
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
	/* The process changed its root or its mounts by its own hand
	 * (chroot, mount, setns, unshare...: roots.c): what it learnt about
	 * the files under a path is to be learnt again.  Async-signal-safe. */
	void (*rooted)(void);
	/* Just before the process, or one thread, changes what it may open
	 * (its root, mounts, namespaces, ids, capabilities, a seccomp filter,
	 * a Landlock ruleset: roots.c, fp_roots_seal), while it may still
	 * open what it opened: what is shared through a path is shared no
	 * more.  whole: the change is every thread's and leaves no filter.
	 * sealed, after the call whatever it returned, may make no system
	 * call (after a filter, any may kill). */
	void (*sealing)(bool whole);
	void (*sealed)(void);
	/* Just before the process's own unshare(flags) (roots.c), while the
	 * descriptor table is still shared with its other threads. */
	void (*unsharing)(int flags);
	/* Just before a vfork (vfork.c), in the parent: what a fork's prepare
	 * does for descriptors the child's copy of the table will share.  No
	 * parent or child hook follows: the child must not touch our memory
	 * (fp_vfork_child), and the parent resumes in the C library. */
	void (*vforking)(void);
};

#include "mitigations.h"

/* A mitigation's descriptor: FP_MITIGATION(name, .load = ..., ...); the
 * name and bit come from the registry. */
#define FP_MITIGATION(name_, ...)                                            \
	extern const struct fp_mitigation fp_mit_##name_ FP_HIDDEN;          \
	const struct fp_mitigation fp_mit_##name_ = {                         \
		.name = #name_, .bit = FP_BIT(name_), __VA_ARGS__ }

#define FP_X(name) FP_M_##name,
enum { FP_MITIGATIONS(FP_X) FP_NMITIGATIONS };
#undef FP_X
#define FP_BIT(name) (1u << FP_M_##name)
#define FP_ALL ((1u << FP_NMITIGATIONS) - 1)
_Static_assert(FP_NMITIGATIONS <= 31, "one bit each in an unsigned");

/* The table the core loops over (mitigations.c; a unit test that links
 * only some mitigations defines its own). */
extern const struct fp_mitigation *const fp_mitigations[] FP_HIDDEN;
extern const size_t fp_nmitigations FP_HIDDEN;
/* The count beside the table, in RELRO, whose pages the loader has
 * written and a fork copies: in .rodata, every fork child's handlers read
 * a page of its own (issue 39: a page fault at every fork). */
#define FP_TABLE(...)                                                        \
	const struct fp_mitigation *const fp_mitigations[] = { __VA_ARGS__ }; \
	FP_RELRO const size_t fp_nmitigations = sizeof fp_mitigations / sizeof fp_mitigations[0]

/* Is fd a number a mitigation holds, closed to the program (its .holds)?
 * illumos: fstat is not wrapped there, and a held number looks open to
 * it, from the program or from us. */
#ifdef FP_LINUX
bool fp_fd_held(int fd) FP_HIDDEN;
#  define FP_FD_HELD(fd) fp_fd_held(fd)
#else
#  define FP_FD_HELD(fd) false
#endif

#endif /* FP_MITIGATION_H */
