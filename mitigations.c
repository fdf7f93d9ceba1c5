/* SPDX-License-Identifier: MIT */
/*
 * mitigations.c: the table the core loops over, made from the registry
 * (mitigations.h).  Kept out of fastpath.c so that a unit test can link the
 * core with only the mitigations it tests, and a table of its own.
 */
#include "fastpath.h"

#define FP_X(name) extern const struct fp_mitigation fp_mit_##name FP_HIDDEN;
FP_MITIGATIONS(FP_X)
#undef FP_X

#define FP_X(name) &fp_mit_##name,
FP_TABLE(FP_MITIGATIONS(FP_X));
#undef FP_X
