/* SPDX-License-Identifier: MIT */
/*
 * readv's length check (FP_IOV_TOTAL_FN in fastpath.h, ur_iov_total in
 * urandom_shim.c) with every type iov_len has: size_t (Linux, 64-bit
 * illumos) and a signed long (32-bit illumos <sys/uio.h>), at both widths.
 * A negative length is the kernel's EINVAL there, so readv must leave the
 * call to the kernel: with {100, -50}, the check before took the sum, 50,
 * for a size it serves, and readv returned 100 bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../fastpath.h"
#include "../urandom.h"

struct iov_l { void *iov_base; long iov_len; };        /* 32-bit illumos: long */
struct iov_32 { void *iov_base; int32_t iov_len; };    /* its width, here too */
struct iov_64 { void *iov_base; int64_t iov_len; };    /* a signed 64-bit one */

FP_IOV_TOTAL_FN(total_native, struct iovec)
FP_IOV_TOTAL_FN(total_l, struct iov_l)
FP_IOV_TOTAL_FN(total_32, struct iov_32)
FP_IOV_TOTAL_FN(total_64, struct iov_64)

static char buf[2][UR_SERVE_MAX];

/* Each type, the same cases: (a, b) as lengths; served with sum, or not. */
#define CASES(fn, type)                                                          \
	do {                                                                     \
		type v[2] = { { buf[0], 100 }, { buf[1], -50 } };                \
		size_t t = 7;                                                    \
                                                                                 \
		assert_false(fn(v, 2, UR_SERVE_MAX, &t));                        \
		assert_int_equal(t, 7);                                          \
		v[0].iov_len = -1;                                               \
		v[1].iov_len = 1;                                                \
		assert_false(fn(v, 2, UR_SERVE_MAX, &t));                        \
		v[0].iov_len = 100;                                              \
		v[1].iov_len = 50;                                               \
		assert_true(fn(v, 2, UR_SERVE_MAX, &t));                         \
		assert_int_equal(t, 150);                                        \
		v[0].iov_len = UR_SERVE_MAX;                                     \
		v[1].iov_len = 1;                                                \
		assert_false(fn(v, 2, UR_SERVE_MAX, &t));                        \
		v[1].iov_len = 0;                                                \
		v[1].iov_base = NULL;                                            \
		assert_true(fn(v, 2, UR_SERVE_MAX, &t));                         \
		assert_int_equal(t, UR_SERVE_MAX);                               \
		v[0].iov_base = NULL;                                            \
		assert_false(fn(v, 2, UR_SERVE_MAX, &t));                        \
	} while (0)

static void test_signed_long(void **state)
{
	(void)state;
	CASES(total_l, struct iov_l);
}

static void test_signed_32(void **state)
{
	(void)state;
	CASES(total_32, struct iov_32);
}

static void test_signed_64(void **state)
{
	(void)state;
	CASES(total_64, struct iov_64);
}

/* size_t: -50 is SIZE_MAX - 49, too large to serve, at either width. */
static void test_native(void **state)
{
	(void)state;
	CASES(total_native, struct iovec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signed_long),
		cmocka_unit_test(test_signed_32),
		cmocka_unit_test(test_signed_64),
		cmocka_unit_test(test_native),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
