/* SPDX-License-Identifier: MIT */
/* The benchmark's fd holder, built for the tests too. */
#include "../bench/readlink_hold.c"
