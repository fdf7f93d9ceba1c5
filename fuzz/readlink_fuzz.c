/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for readlink_path.c's /proc path parser and
 * readlink_shim.c's copy contract (make fuzz).
 *
 * Properties, on any bytes:
 *   - the parser never reads or writes out of bounds (ASan, UBSan);
 *   - whatever it accepts is exactly the canonical spelling of what it
 *     read (the round trip), so no odd form (leading zeros, doubled or
 *     trailing slashes, signs, overflow, junk) can slip through as another
 *     name: it must pass through to the kernel;
 *   - the fields are in range, and the decision on them is one of the
 *     known actions;
 *   - readlink's copy contract holds for every size up to the answer.
 */
#include <stdint.h>

#define RL_TESTING 1
#include "../tests/core_units.h"
#include "../readlink_path.c"
#include "../readlink_shim.c"
#include "../readlink_classify.c"
FP_TABLE(&fp_mit_readlink);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const roots[] = { "/proc", "/tmp/fixture", "" };
	char path[PATH_MAX + 64], again[PATH_MAX + 64], buf[64];
	const char *root;
	struct rl_path x;
	size_t n, i;

	if (size < 1)
		return 0;
	root = roots[data[0] % 3];
	n = size - 1 < sizeof path - 1 ? size - 1 : sizeof path - 1;
	memcpy(path, data + 1, n);
	path[n] = '\0';
	if (rl_parse(path, root, strlen(root), &x) != 0)
		return 0;
	rl_unparse(&x, root, again, sizeof again);
	if (strcmp(again, path) != 0)
		__builtin_trap();
	if (x.fd < 0 || x.tid < 0 || (x.who == RL_PID) != (x.pid > 0) ||
	    (x.who == RL_THREAD_SELF && x.tid) || x.dir_off >= strlen(path))
		__builtin_trap();
	for (i = 0; i < 16; i++) {
		enum rl_act a = rl_decide(RL_ILLUMOS, x.dir, (mode_t)(i << 12),
		                                RL_FS_ANY);

		if (a != RL_PASS && a != RL_ENOENT)
			__builtin_trap();
	}
	for (i = 1; i <= sizeof buf; i++) {
		char ans[48];
		size_t len = rl_format(ans, sizeof ans, "socket:[", (unsigned long)x.fd);

		if (rl_copy(ans, len, buf, i) != (ssize_t)(i < len ? i : len) ||
		    memcmp(buf, ans, i < len ? i : len) != 0)
			__builtin_trap();
	}
	return 0;
}
