/* SPDX-License-Identifier: MIT */
/*
 * The illumos readlink rules (readlink_shim.c, rl_rules[]) against what the
 * illumos kernel answers, per descriptor type, as read in illumos-gate: the
 * stat a caller gets (fstat(n) for its own fd, stat of /proc/<pid>/fd/<n>
 * for another process's) and what readlink of /proc/<pid>/path/<n> returns.
 *
 * Built twice: as a unit test on Linux (make check-core), and by
 * tests/h_illumos.sh compiled as for illumos (__sun, the stand-in
 * declarations), where no Linux translation is compiled in and the rules
 * see exactly these answers (make check-illumos).  No illumos machine ran
 * this: the answers are the sources', cited row by row.
 *
 * Common to every row: readlink of /proc/<pid>/path/<n> is
 * vnodetopath(root, f_vnode) (prvnops.c: pr_lookup_pathdir keeps
 * uf_file->f_vnode as pr_realvp; prreadlink -> prreadlink_lookup ->
 * vnodetopath), which without a v_path gives a non-directory ENOENT
 * (lookup.c, vnodetopath_common; before 2015 after dnlc_reverse_lookup, a
 * walk of the whole name cache).  stat of /proc/<pid>/fd/<n> is the
 * vnode's own getattr with the permission bits zeroed unless it is a
 * regular file or a directory (prvnops.c: pr_lookup_fddir, prgetattr).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_units.h"
#include "../readlink_path.c"
#include "../readlink_shim.c"
#include "../readlink_classify.c"
FP_TABLE(&fp_mit_readlink);

#ifdef FP_ILLUMOS
/* Linked against glibc, not illumos libc: what the units need of libc
 * that glibc lacks.  Not called by these tests' paths except issetugid. */
int issetugid(void)
{
	return 0;
}
const char *getexecname(void)
{
	return "test_readlink_illumos";
}
/* illumos's public name of syscall(2) (fastpath.c, FP_SYSCALL). */
int _syscall(int n, ...)
{
	va_list ap;
	long a[6];
	int i;

	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return (int)syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
int memcntl(void *a, size_t n, int cmd, void *arg, int attr, int mask)
{
	(void)a, (void)n, (void)cmd, (void)arg, (void)attr, (void)mask;
	errno = EINVAL;
	return -1;
}
#endif

enum via { OWN, PROC };  /* fstat(n), or stat of /proc/<pid>/fd/<n> */

struct answer {
	const char *what;
	const char *source;   /* where illumos-gate says so */
	enum via via;
	mode_t mode;          /* st_mode as the caller gets it */
	ino_t ino;
	nlink_t nlink;
	bool named;           /* the kernel's readlink gives a path */
};

#define PERM0 0  /* prgetattr: no permission bits for a non-regular file */

static const struct answer answers[] = {
	{ "socket", "sockfs socket_vop_getattr: VSOCK, mode 0666, uid 0", OWN,
	  S_IFSOCK | 0666, 0x1234, 1, false },
	{ "socket", "socket_vop_getattr via prgetattr", PROC, S_IFSOCK | PERM0, 0x1234, 1, false },
	{ "unnamed door", "doorfs/door_vnops.c door_getattr: node id 0, mode 0777", OWN,
	  S_IFDOOR | 0777, 0, 1, false },
	{ "unnamed door", "door_getattr via prgetattr", PROC, S_IFDOOR | PERM0, 0, 1, false },
	{ "named door", "namefs/namevfs.c nm_mount: namefs node, node id from 1, nlink 1, "
	  "the mount point's mode; a name", OWN, S_IFDOOR | 0644, 1, 1, true },
	{ "named door", "nm_mount via prgetattr", PROC, S_IFDOOR | PERM0, 1, 1, true },
	{ "anonymous pipe", "fifofs/fifosubr.c makepipe (no fn_realvp); fifovnops.c "
	  "fifo_getattr: mode 0, nlink 0, fifodev, fn_ino", OWN, S_IFIFO, 77, 0, false },
	{ "anonymous pipe", "fifo_getattr via prgetattr", PROC, S_IFIFO, 77, 0, false },
	{ "named FIFO", "fifovnops.c fifo_getattr: VOP_GETATTR of fn_realvp, the "
	  "file's own attributes; a name", OWN, S_IFIFO | 0600, 4711, 1, true },
	{ "named FIFO", "fifo_getattr (fn_realvp) via prgetattr", PROC, S_IFIFO | PERM0, 4711, 1,
	  true },
	{ "named FIFO, 2 links", "fifo_getattr (fn_realvp)", OWN, S_IFIFO | 0644, 4712, 2, true },
	{ "pipe opened by its fattach() name", "nm_mount: namefs node, nlink 1", OWN,
	  S_IFIFO | 0644, 3, 1, true },
	{ "named FIFO, unlinked", "fifo_getattr (fn_realvp): nlink 0; no name left "
	  "(the stale v_path no longer resolves)", OWN, S_IFIFO | 0600, 4713, 0, false },
	{ "event port", "portfs/port_vnops.c port_getattr: VPORT, mode 0, node id 0, "
	  "nlink = v_count", OWN, S_IFPORT, 0, 1, false },
	{ "event port", "port_getattr via prgetattr", PROC, S_IFPORT, 0, 2, false },
	{ "regular file", "a name (v_path)", OWN, S_IFREG | 0644, 99, 1, true },
	{ "regular file", "via prgetattr: keeps its mode", PROC, S_IFREG | 0644, 99, 1, true },
	{ "directory", "dirtopath, not the name-cache scan", OWN, S_IFDIR | 0755, 5, 3, true },
	{ "character device", "a name (devfs/specfs)", PROC, S_IFCHR | PERM0, 42, 1, true },
};

/* Every answer with no name is short-circuited (ENOENT), every named one
 * passes through to the kernel, which gives the name. */
static void test_kernel_answers(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof answers / sizeof answers[0]; i++) {
		const struct answer *a = &answers[i];
		struct stat st;
		mode_t type = 0;
		enum rl_act act;

		memset(&st, 0, sizeof st);
		st.st_mode = a->mode;
		st.st_ino = a->ino;
		st.st_nlink = a->nlink;
		act = rl_illumos_type(&st, false, &type);
		if (act != (a->named ? RL_PASS : RL_ENOENT))
			fail_msg("%s (%s, %s): %s, want %s", a->what,
			         a->via == OWN ? "fstat" : "stat of /proc/<pid>/fd/<n>", a->source,
			         act == RL_PASS ? "passed through" : "ENOENT",
			         a->named ? "passed through" : "ENOENT");
		assert_int_equal(type, a->mode & S_IFMT);
	}
}

/* A socket whose sockmod was popped acts as a stream: VCHR, mode 0
 * (socket_vop_getattr, SOV_STREAM); it is a device to the rules and passes. */
static void test_popped_socket_passes(void **state)
{
	struct stat st;
	mode_t type;

	(void)state;
	memset(&st, 0, sizeof st);
	st.st_mode = S_IFCHR;
	st.st_nlink = 1;
	assert_int_equal(rl_illumos_type(&st, false, &type), RL_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_answers),
		cmocka_unit_test(test_popped_socket_passes),
	};

	return cmocka_run_group_tests_name("readlink_illumos", tests, NULL, NULL);
}
