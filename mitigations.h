/* SPDX-License-Identifier: MIT */
/*
 * mitigations.h: the registry.  One line per mitigation, in the order of
 * the summary line and of FASTPATH_DISABLE's list; each names the
 * descriptor fp_mit_<name> that its unit defines (see fastpath.h, struct
 * fp_mitigation, and docs/design.md, "Adding a mitigation").
 */
#ifndef MITIGATIONS_H
#define MITIGATIONS_H

/* The test variant of the object (tests/bin/fastpath_example.so) also has
 * docs/design.md's example, tests/mit_example.c. */
#ifdef FP_WITH_EXAMPLE
#define FP_EXAMPLE(X) X(example)
#else
#define FP_EXAMPLE(X)
#endif

#define FP_MITIGATIONS(X)                                                    \
	X(readlink)   /* readlink_shim.c and the readlink_*.c units */        \
	X(urandom)    /* urandom_shim.c and the urandom_*.c units */          \
	X(cpus)       /* cpus_shim.c and the cpus_*.c units */                \
	X(localtime)  /* localtime_shim.c */                                  \
	FP_EXAMPLE(X) /* tests/mit_example.c */

#endif /* MITIGATIONS_H */
