/* SPDX-License-Identifier: MIT */
/*
 * libempty.so: a preloaded object with nothing in it, the floor t_core.sh
 * holds fastpath.so's start-up against: what the loader alone does for a
 * preload (find, map, relocate).
 */
void fastpath_test_empty(void);
void fastpath_test_empty(void)
{
}
