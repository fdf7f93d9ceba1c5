/* SPDX-License-Identifier: MIT */
/*
 * fp_settings.h: the settings, read once from the environment (settings.c),
 * and the exit summary they shape.
 */
#ifndef FP_SETTINGS_H
#define FP_SETTINGS_H

#include "fp_mitigation.h"

/* ------------------------------------------------------------------------
 * Settings, read once from the environment (secure_getenv).
 * ---------------------------------------------------------------------- */
enum fp_stats_mode { FP_STATS_NONE, FP_STATS_STDERR, FP_STATS_FILE, FP_STATS_DIR };

/* The paths last, each read only when its flag says so: a process that sets
 * neither touches only the first page (fp_load_settings). */
struct fp_settings {
	unsigned enabled;          /* FP_BIT()s of the mitigations that are on */
	bool debug;                /* FASTPATH_DEBUG */
	enum fp_stats_mode stats;  /* FASTPATH_STATS */
	bool survey;               /* FASTPATH_SURVEY */
	unsigned long survey_every; /* record rewrite interval, in 2^30 ns ticks */
	/* PATH_MAX bytes each, elsewhere: the scalars above are what every
	 * start-up writes, and share a page with the other small statics
	 * (issue 39); a path is written only when its variable is set. */
	char *stats_path;          /* absolute; FP_STATS_DIR's ends in '/'; if stats >= FILE */
	char *survey_dir;          /* absolute; if survey */
};
extern struct fp_settings fp_cfg FP_HIDDEN;

/* Is this mitigation on?  Runs initialisation first if nobody has; false
 * inside it (see "Not ready yet" above). */
static inline bool fp_enabled(unsigned bit)
{
	return fp_ready() && (fp_cfg.enabled & bit) != 0;
}

/* In survey mode?  (Runs initialisation first if nobody has.) */
static inline bool fp_surveying(void)
{
	return fp_ready() && fp_cfg.survey;
}

/*
 * Parsers: pure functions, unit-tested on every malformed case.  Each returns
 * 0 when the whole value was understood, or -1 with a one-line reason in
 * `why`; the out-parameter then holds the safe default.
 */
int fp_parse_features(const char *s, unsigned *mask, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_bool(const char *s, bool *out, char *why, size_t whylen) FP_HIDDEN;
/* A whole number from 1 to max; empty means unset (0). */
int fp_parse_count(const char *s, long max, long *out, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_stats(const char *s, const char *cwd, enum fp_stats_mode *mode,
                   char *path, size_t pathlen, char *why, size_t whylen) FP_HIDDEN;
int fp_parse_dir(const char *s, const char *cwd, char *path, size_t pathlen, char *why,
                 size_t whylen) FP_HIDDEN;
/* The one line about a setting that was not understood. */
void fp_warn(const char *var, const char *val, const char *why,
             const char *fallback) FP_HIDDEN;
/* Builds cfg, and each mitigation's own settings, from a getenv-like
 * lookup; warns once per bad variable. */
void fp_load_settings(struct fp_settings *cfg, fp_getenv_fn get) FP_HIDDEN;

/* The exit summary line (see fastpath(7)); returns its length, no newline.
 * c[i] holds the counters of fp_mitigations[i]. */
size_t fp_format_stats(char *buf, size_t len, long pid,
                       const unsigned long (*c)[FP_MAX_COUNTERS], unsigned enabled) FP_HIDDEN;

/* getenv, read from environ (fastpath.c): usable while we bind. */
char *fp_env_get(const char *name) FP_HIDDEN;

#endif /* FP_SETTINGS_H */
