/* SPDX-License-Identifier: MIT */
/*
 * The illumos compile checks (tests/h_lint.sh, tests/h_illumos.sh): the
 * sources are built with __sun against glibc's headers.  These are the
 * declarations illumos's own headers give and glibc's do not, and the
 * glibc definitions that would steer the illumos build down glibc's
 * branches: with them gone it compiles what a real illumos build compiles
 * (no _chk entry points, fcntl64, close_range, nor 64-bit LFS64 twins; the
 * F_DUP2FD branches).  Values and prototypes are illumos-gate's
 * usr/src/uts/common/sys/mman.h and fcntl.h.
 */
#include <sys/mman.h>
#include <fcntl.h>

/* glibc's headers are included once (their guards hold): what they
 * declared stays, but fastpath.h no longer sees glibc. */
#undef __GLIBC__
#undef __GLIBC_MINOR__

int issetugid(void);
const char *getexecname(void);  /* <stdlib.h> */

/* illumos has no MADV_WIPEONFORK; it zeroes a child's copy with memcntl. */
#undef MADV_WIPEONFORK
#define MC_INHERIT_ZERO 8
int memcntl(void *, size_t, int, void *, int, int);

/* fcntl commands glibc lacks (illumos <sys/fcntl.h>). */
#define F_DUP2FD 9
#define F_DUP2FD_CLOEXEC 36

/* illumos's statvfs names the file system's type (f_basetype; outfile.c
 * tells the kernel's own by it); glibc's has no such member.  The same
 * fstatvfs symbol and illumos's member names, for the compile and the
 * link of these checks only: glibc fills in its own layout, so the
 * branch is never run here (the sysroots' headers have the real one). */
#include <sys/statvfs.h>
struct fp_illumos_statvfs {
	unsigned long f_bsize, f_frsize;
	unsigned long long f_blocks, f_bfree, f_bavail, f_files, f_ffree, f_favail;
	unsigned long f_fsid;
	char f_basetype[16];
	unsigned long f_flag, f_namemax;
	char f_fstr[32];
};
#define statvfs fp_illumos_statvfs
#define fstatvfs(fd, sv) (fstatvfs)((fd), (void *)(sv))
