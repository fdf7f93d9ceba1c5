/* SPDX-License-Identifier: MIT */
/*
 * core_units.h: the core's units, for a unit test (or a fuzzer) that
 * #includes the sources it tests to reach their statics.  The registry's
 * table (mitigations.c) is left to each test: most link only the
 * mitigation they test, with a table of their own (FP_TABLE).
 */
#include "../fastpath.c"
#include "../bind.c"
#include "../raw.c"
#include "../log.c"
#include "../survey.c"
#include "../counters.c"
#include "../settings.c"
#include "../outfile.c"
#include "../vfork.c"
#include "../roots.c"
