/* SPDX-License-Identifier: MIT */
/*
 * fastpath.h: the core's interface, one header per job; every source file
 * of fastpath.so includes it first, a mitigation's unit then its own
 * header (readlink.h, urandom.h, cpus.h).  No core header includes a
 * mitigation's (tests/t_layout.sh).
 */
#ifndef FASTPATH_H
#define FASTPATH_H

#include "fp_platform.h"   /* the platforms, the attributes */
#include "fp_atomic.h"     /* this thread's own read-modify-writes */
#include "fp_thread.h"     /* threads, errno, rseq, vfork children */
#include "fp_real.h"       /* real functions, "Not ready yet", raw calls */
#include "fp_counters.h"   /* striped counters */
#include "fp_log.h"        /* formatting, debug lines, our own files */
#include "fp_survey.h"     /* survey records */
#include "fp_mitigation.h" /* the descriptor and the registry's table */
#include "fp_settings.h"   /* settings and the exit summary */

#endif /* FASTPATH_H */
