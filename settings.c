/* SPDX-License-Identifier: MIT */
/*
 * settings.c: the environment, read once at start-up (fp_init_slow).  The
 * core's own variables (FASTPATH_DISABLE, FASTPATH_DEBUG, FASTPATH_STATS)
 * and the parsers every mitigation's own .load uses; pure functions, each
 * malformed value one warning line and a safe default.
 */
#include "fastpath.h"

static void fp_why(char *why, size_t whylen, const char *a, const char *b,
                   const char *c)
{
	struct fp_buf w = { why, 0, whylen };

	if (!whylen)
		return;
	fp_buf_str(&w, a);
	fp_buf_str(&w, b ? b : "");
	fp_buf_str(&w, c ? c : "");
}

/* name, in any case, is exactly the n bytes at s.  By hand, as the
 * item's length below: FASTPATH_DISABLE is read at every start, and the C
 * library's strncasecmp and strcspn are pages of its text (and tables) a
 * program that never calls them would not touch (issue 39). */
static bool fp_name_is(const char *name, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (name[i] == '\0' || name[i] != c)
			return false;
	}
	return name[n] == '\0';
}

/* The names FASTPATH_DISABLE accepts: every mitigation's, then "all". */
FP_STARTUP_TEXT static bool fp_feature_bit(const char *s, size_t n, unsigned *bit)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++) {
		if (fp_name_is(fp_mitigations[i]->name, s, n)) {
			*bit = fp_mitigations[i]->bit;
			return true;
		}
	}
	*bit = FP_ALL;
	return fp_name_is("all", s, n);
}

/* " (accepted: a, b, all)", from the table. */
static void fp_feature_list(struct fp_buf *b)
{
	size_t i;

	fp_buf_str(b, "\" (accepted: ");
	for (i = 0; i < fp_nmitigations; i++) {
		fp_buf_str(b, fp_mitigations[i]->name);
		fp_buf_str(b, ", ");
	}
	fp_buf_str(b, "all)");
}

/*
 * A comma list of feature names.  Empty items (",,", a trailing comma) are
 * tolerated; an unknown name makes the value malformed, but the names that
 * were understood still count: the operator clearly meant those.
 */
FP_STARTUP_TEXT int fp_parse_features(const char *s, unsigned *mask, char *why, size_t whylen)
{
	int rc = 0;

	*mask = 0;
	while (*s) {
		size_t n = 0;
		unsigned bit;

		while (s[n] && s[n] != ',')
			n++;
		if (n && fp_feature_bit(s, n, &bit)) {
			*mask |= bit;
		} else if (n && rc == 0) {
			char item[32];
			struct fp_buf w = { why, 0, whylen };

			snprintf(item, sizeof item, "%.*s", (int)(n < 31 ? n : 31), s);
			fp_buf_str(&w, "unknown feature \"");
			fp_buf_str(&w, item);
			fp_feature_list(&w);
			rc = -1;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return rc;
}

FP_STARTUP_TEXT int fp_parse_bool(const char *s, bool *out, char *why, size_t whylen)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off", "" };
	size_t i;

	*out = false;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	fp_why(why, whylen, "not a boolean (accepted: 1, 0, yes, no, true, false, on, off)",
	       NULL, NULL);
	return -1;
}

/* Decimal digits only: no sign, no spaces, no leading zero, no overflow.
 * Empty means unset (systemd's "Environment=FASTPATH_X="). */
int fp_parse_count(const char *s, long max, long *out, char *why, size_t whylen)
{
	long v = 0;
	const char *p;

	*out = 0;
	if (*s == '\0')
		return 0;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9' || (p == s && *p == '0'))
			goto bad;
		v = v * 10 + (*p - '0');
		if (v > max)
			goto bad;
	}
	if (p == s)
		goto bad;
	*out = v;
	return 0;
bad:
	if (whylen) {
		struct fp_buf w = { why, 0, whylen };

		fp_buf_str(&w, "not a whole number from 1 to ");
		fp_buf_long(&w, max);
	}
	return -1;
}

/*
 * "1" or "stderr" means standard error; a path ending in "/" is a directory
 * each user appends to a file of its own in (outfile.c); anything else is a
 * file the line is appended to.  A relative path is made absolute against the start-up
 * directory now, so a program that later chdir()s still writes where the
 * operator asked.  A path that cannot name a file is rejected here; whether
 * it can be opened is the caller's concern.
 */
int fp_parse_stats(const char *s, const char *cwd, enum fp_stats_mode *mode,
                   char *path, size_t pathlen, char *why, size_t whylen)
{
	size_t n = strlen(s);

	*mode = FP_STATS_NONE;
	if (pathlen)
		path[0] = '\0';
	if (n == 0 || strcmp(s, "0") == 0)
		return 0;
	if (strcmp(s, "1") == 0 || strcmp(s, "stderr") == 0) {
		*mode = FP_STATS_STDERR;
		return 0;
	}
	if (s[0] != '/') {
		if (!cwd || cwd[0] != '/') {
			fp_why(why, whylen, "relative path and no working directory", NULL, NULL);
			return -1;
		}
		if ((size_t)snprintf(path, pathlen, "%s%s%s", cwd,
		                     cwd[strlen(cwd) - 1] == '/' ? "" : "/", s) >= pathlen)
			goto toolong;
	} else if ((size_t)snprintf(path, pathlen, "%s", s) >= pathlen) {
		goto toolong;
	}
	*mode = s[n - 1] == '/' ? FP_STATS_DIR : FP_STATS_FILE;
	return 0;
toolong:
	path[0] = '\0';
	fp_why(why, whylen, "path too long", NULL, NULL);
	return -1;
}

/* A directory, made absolute against the start-up directory now (the
 * program may chdir).  Whether it exists is found at each write. */
int fp_parse_dir(const char *s, const char *cwd, char *path, size_t pathlen, char *why,
                 size_t whylen)
{
	/* By hand, not snprintf: a surveyed process of a fork-heavy run
	 * would fault in the printf machinery's pages at each start, for one
	 * concatenation (issue 40). */
	size_t c = 0, n = strlen(s);

	if (s[0] != '/') {
		if (!cwd || cwd[0] != '/') {
			fp_why(why, whylen, "relative path and no working directory", NULL, NULL);
			return -1;
		}
		c = strlen(cwd) + 1;
	}
	if (c + n + 32 >= pathlen) {
		path[0] = '\0';
		fp_why(why, whylen, "path too long", NULL, NULL);
		return -1;
	}
	if (c) {
		memcpy(path, cwd, c - 1);
		path[c - 1] = '/';
	}
	memcpy(path + c, s, n + 1);
	return 0;
}

void fp_warn(const char *var, const char *val, const char *why, const char *fallback)
{
	const char *parts[] = { "ignoring ", var, "=\"", val, "\": ", why, "; ", fallback };

	fp_log_parts(STDERR_FILENO, parts, sizeof parts / sizeof parts[0]);
}

/* Is the summary file writable, and ours (outfile.c)?  Asked once at
 * start-up so that a bad path is reported while the operator is still
 * watching, not at exit. */
static int fp_stats_file_ok(const char *path, char *why, size_t whylen)
{
	int fd = fp_of_stats_open(path, why, whylen);

	if (fd < 0)
		return -1;
	fp_raw_close(fd);
	return 0;
}

/* A survey directory another user could swap or fill is refused now, with
 * its reason; one that is not there yet is found at each write. */
static bool fp_survey_dir_refused(const char *dir, char *why, size_t whylen)
{
	int fd = fp_of_opendir(dir, strlen(dir), why, whylen);

	if (fd >= 0)
		fp_raw_close(fd);
	return fd == FP_OF_REFUSED;
}
/* The working directory a relative setting is taken from: off the stack
 * (PATH_MAX), and used only here, once, under initialisation's guard. */
static char fp_cwd[PATH_MAX];

FP_STARTUP_TEXT void fp_load_settings(struct fp_settings *cfg, fp_getenv_fn get)
{
	char why[256];
	const char *v;
	unsigned off = 0;
	size_t i;

	/* The paths are not touched: 8 KiB that a process setting neither
	 * would fault in at every start; each is read only once its flag is
	 * set (its parser writes it whole). */
	cfg->enabled = 0;
	cfg->debug = false;
	cfg->stats = FP_STATS_NONE;
	cfg->survey = false;
	cfg->survey_every = 0;

	if ((v = get("FASTPATH_DISABLE")) != NULL &&
	    fp_parse_features(v, &off, why, sizeof why) < 0)
		fp_warn("FASTPATH_DISABLE", v, why,
		        off ? "disabling only the names understood" : "nothing disabled");

	/* Each mitigation reads its own; FASTPATH_DISABLE still wins. */
	for (i = 0; i < fp_nmitigations; i++) {
		const struct fp_mitigation *m = fp_mitigations[i];

		if (!m->load || m->load(get))
			cfg->enabled |= m->bit;
	}
	cfg->enabled &= ~off;

	if ((v = get("FASTPATH_SURVEY")) != NULL && *v) {

		/* The working directory only where it is needed: an absolute
		 * directory (interpose's) costs no getcwd and no fault of
		 * fp_cwd's pages at each start (issue 40). */
		if (fp_parse_dir(v, v[0] == '/' ? NULL : getcwd(fp_cwd, sizeof fp_cwd), cfg->survey_dir,
		                 PATH_MAX, why, sizeof why) < 0 ||
		    fp_survey_dir_refused(cfg->survey_dir, why, sizeof why)) {
			fp_warn("FASTPATH_SURVEY", v, why, "no survey");
		} else {
			long every = 0;

			/* Observe only: what the operator set explicitly stays. */
			cfg->survey = true;
			cfg->survey_every = FP_SURVEY_EVERY_TICKS;
			/* Test aid: the rewrite interval, in ticks (~1 s). */
			if ((v = get("FASTPATH_TEST_SURVEY_EVERY")) != NULL &&
			    fp_parse_count(v, 3600, &every, why, sizeof why) == 0 && every)
				cfg->survey_every = (unsigned long)every;
			for (i = 0; i < fp_nmitigations; i++)
				if (!fp_mitigations[i]->survey_keeps)
					cfg->enabled &= ~fp_mitigations[i]->bit;
		}
	}

	if ((v = get("FASTPATH_DEBUG")) != NULL &&
	    fp_parse_bool(v, &cfg->debug, why, sizeof why) < 0)
		fp_warn("FASTPATH_DEBUG", v, why, "debug output off");

	if ((v = get("FASTPATH_STATS")) != NULL) {

		if (fp_parse_stats(v, getcwd(fp_cwd, sizeof fp_cwd), &cfg->stats,
		                   cfg->stats_path, PATH_MAX, why,
		                   sizeof why) < 0) {
			fp_warn("FASTPATH_STATS", v, why, "no summary is written");
		} else if (cfg->stats >= FP_STATS_FILE &&
		           fp_stats_file_ok(cfg->stats_path, why, sizeof why) < 0) {
			fp_warn("FASTPATH_STATS", v, why, "no summary is written");
			cfg->stats = FP_STATS_NONE;
		}
	}
}
