/* SPDX-License-Identifier: MIT */
/*
 * prog_localtime: what a program sees of its local time (tests/t_localtime.sh
 * runs it natively and under fastpath and compares).
 *   loop N   N localtime() calls of successive hours; the last one printed
 *   all      every wrapped function on chosen times, with results and errno
 *   env      TZ as getenv sees it
 *   watch    localtime's zone, then again after a line on stdin (the zone
 *            file may have changed in between)
 *   dlerror  a failed dlopen's message, read after a first call of each
 *            wrapped function: no lookup of ours may clear it
 *   late OBJ TZ as getenv sees it after OBJ is dlopen()ed while a second
 *            thread runs (fastpath initialised late: environ is not ours
 *            to swap then)
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void show_tm(const char *what, const struct tm *tm, int e)
{
	if (!tm) {
		printf("%s: NULL errno %s\n", what, strerror(e));
		return;
	}
	printf("%s: %04d-%02d-%02d %02d:%02d:%02d wday %d yday %d dst %d off %ld zone %s\n", what,
	       tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec,
	       tm->tm_wday, tm->tm_yday, tm->tm_isdst, (long)tm->tm_gmtoff,
	       tm->tm_zone ? tm->tm_zone : "(null)");
}

static int mode_all(void)
{
	static const time_t times[] = { 0, 1, -1, 86399, 951782400, 1000000000, 1700000000,
	                                1710054000, 1730000000, 2147483647, -2147483647 - 1 };
	size_t i;

	for (i = 0; i < sizeof times / sizeof times[0]; i++) {
		time_t t = times[i], back;
		struct tm *tm, copy;
		char *c;
		int e;

		errno = 0;
		tm = localtime(&t);
		e = errno;
		show_tm("localtime", tm, e);
		if (!tm)
			continue;
		copy = *tm;
		copy.tm_isdst = -1;
		errno = 0;
		back = mktime(&copy);
		printf("mktime: %lld errno %d\n", (long long)back, errno);
		copy.tm_hour += 1000;  /* normalised by mktime */
#ifdef __GLIBC__
		back = timelocal(&copy);
#else
		back = mktime(&copy);  /* musl has no timelocal */
#endif
		show_tm("timelocal normalised", &copy, 0);
		printf("timelocal: %lld\n", (long long)back);
		c = ctime(&t);
		printf("ctime: %s", c ? c : "NULL\n");
	}
	/* Out of struct tm's range: NULL and EOVERFLOW, as natively. */
	{
		time_t big = (time_t)(sizeof(time_t) > 4 ? INT64_MAX : INT32_MAX);
		struct tm huge;
		time_t r;

		struct tm *tm;
		char *c;
		int e;

		errno = 0;
		tm = localtime(&big);
		e = errno;
		show_tm("localtime of the largest time_t", tm, e);
		memset(&huge, 0, sizeof huge);
		huge.tm_year = INT_MAX - 1900;
		huge.tm_mon = 11;
		errno = 0;
		r = mktime(&huge);
		printf("mktime out of range: %lld errno %s\n", (long long)r, strerror(errno));
		errno = 0;
		c = ctime(&big);
		e = errno;
		printf("ctime of the largest time_t: %s errno %s\n", c ? "text" : "NULL", strerror(e));
	}
	tzset();
	printf("tzname %s %s daylight %d timezone %ld\n", tzname[0], tzname[1], daylight, timezone);
	return 0;
}

static void zone_now(const char *what)
{
	time_t t = 1700000000;
	struct tm *tm = localtime(&t);

	printf("%s: %s %ld\n", what, tm ? tm->tm_zone : "NULL", tm ? (long)tm->tm_gmtoff : 0L);
	fflush(stdout);
}

static int late_pipe[2];

static void *late_thread(void *arg)
{
	char c;

	(void)arg;
	return read(late_pipe[0], &c, 1) == 1 ? NULL : arg;
}

static int mode_late(const char *obj)
{
	pthread_t t;
	const char *tz;

	if (pipe(late_pipe) != 0 || pthread_create(&t, NULL, late_thread, NULL) != 0)
		return 1;
	if (!dlopen(obj, RTLD_NOW)) {
		fprintf(stderr, "prog_localtime: %s\n", dlerror());
		return 1;
	}
	tz = getenv("TZ");
	printf("TZ %s\n", tz ? (*tz ? tz : "(empty)") : "(unset)");
	if (write(late_pipe[1], "x", 1) != 1 || pthread_join(t, NULL) != 0)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "loop") == 0) {
		long n = atol(argv[2]), i;
		time_t t = 1700000000;
		struct tm *tm = NULL;
		char b[64];

		for (i = 0; i < n; i++, t += 3600)
			tm = localtime(&t);
		if (!tm || !strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S %Z", tm))
			return 1;
		printf("%s\n", b);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "all") == 0)
		return mode_all();
	if (argc >= 2 && strcmp(argv[1], "env") == 0) {
		const char *tz = getenv("TZ");

		printf("TZ %s\n", tz ? (*tz ? tz : "(empty)") : "(unset)");
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "watch") == 0) {
		char line[16];

		zone_now("before");
		if (!fgets(line, sizeof line, stdin))
			return 1;
		zone_now("after");
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "dlerror") == 0) {
		time_t t = 0;
		struct tm tm;
		const char *e;

		if (dlopen("libfastpath-no-such-object.so", RTLD_NOW))
			return 1;
		(void)localtime(&t);
		memset(&tm, 0, sizeof tm);
		tm.tm_mday = 1;
		(void)mktime(&tm);
		(void)ctime(&t);
		tzset();
		e = dlerror();
		printf("dlerror: %s\n", e ? (strstr(e, "libfastpath-no-such-object.so") ? "kept" : e) : "(null)");
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "late") == 0)
		return mode_late(argv[2]);
	fprintf(stderr, "usage: prog_localtime loop N | all | env | watch | dlerror | late OBJ\n");
	return 2;
}
