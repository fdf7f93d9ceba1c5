/* SPDX-License-Identifier: MIT */
/*
 * tests/h_illumos.sh: illumos headers from before illumos#14418 (2022),
 * which the platform images of the field reports (2013-2015) carry.  There
 * mmap, munmap and memcntl take and give caddr_t (char *), and MAP_FAILED
 * is a caddr_t: code that passes or assigns a typed pointer without a cast
 * is an error for GCC 14 (a warning, and so an error under -Werror, here).
 * Renamed so as not to clash with glibc's declarations; compiled only.
 */
#include "h_illumos_stand_in.h"

#include <sys/types.h>

#undef MAP_FAILED
#define MAP_FAILED ((caddr_t)-1)
caddr_t fp_old_mmap(caddr_t, size_t, int, int, int, off_t);
int fp_old_munmap(caddr_t, size_t);
int fp_old_memcntl(caddr_t, size_t, int, caddr_t, int, int);
#define mmap fp_old_mmap
#define munmap fp_old_munmap
#define memcntl fp_old_memcntl
