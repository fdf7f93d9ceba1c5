/* SPDX-License-Identifier: MIT */
/*
 * The illumos compile checks (tests/h_lint.sh, tests/h_illumos.sh): the
 * sources are built with __sun against glibc's headers.  These are the
 * declarations illumos's own headers give and glibc's do not, and the one
 * glibc definition that would steer the illumos build down Linux's branch.
 * Values and prototypes are illumos-gate's usr/src/uts/common/sys/mman.h.
 */
#include <sys/mman.h>

int issetugid(void);
const char *getexecname(void);  /* <stdlib.h> */

/* illumos has no MADV_WIPEONFORK; it zeroes a child's copy with memcntl. */
#undef MADV_WIPEONFORK
#define MC_INHERIT_ZERO 8
int memcntl(void *, size_t, int, void *, int, int);
