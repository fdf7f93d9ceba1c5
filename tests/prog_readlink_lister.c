/* SPDX-License-Identifier: MIT */
/* The pfiles-like lister of the benchmark, built for the tests too. */
#include "../bench/readlink_lister.c"
