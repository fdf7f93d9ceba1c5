/* SPDX-License-Identifier: MIT */
/* reach.h: fastpath-run --reach FILE [OBJECT]... (tools/reach.c). */
#ifndef FASTPATH_REACH_H
#define FASTPATH_REACH_H

/* argv: FILE and the objects; prints the one line, returns the exit status. */
int fp_reach(int argc, char **argv);

#endif
