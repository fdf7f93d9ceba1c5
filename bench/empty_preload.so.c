/* SPDX-License-Identifier: MIT */
/*
 * empty_preload.so: the floor of "being preloaded" (bench_startup.sh): an
 * object the loader finds, maps and relocates, with nothing in it.  What
 * fastpath.so costs a process beyond this is what it does at start-up.
 */
void fastpath_bench_empty(void);
void fastpath_bench_empty(void)
{
}
