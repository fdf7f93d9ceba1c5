/* SPDX-License-Identifier: MIT */
/*
 * t_firstcall.sh's early runs: preloaded after fastpath.so, so that the
 * loader initialises it first (it initialises preloads last to first),
 * its constructor makes prog_firstcall's call before fastpath.so's own
 * constructor has run: the call then initialises fastpath from inside
 * itself, as a library constructor's call does (libearly.c).  The
 * program exports fc_early (-rdynamic); any other program has none, and
 * nothing happens.
 */
void fc_early(void) __attribute__((weak));

__attribute__((constructor)) static void fc_early_init(void)
{
	if (fc_early)
		fc_early();
}
