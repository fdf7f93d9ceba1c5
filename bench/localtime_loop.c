/* SPDX-License-Identifier: MIT */
/*
 * localtime_loop: the localtime mitigation's workloads (make demo, make
 * bench), run with TZ unset.
 *   localtime N   N localtime() calls
 *   log N         N log lines stamped as a logger does: time(), localtime(),
 *                 strftime() of the local time, formatted into a buffer
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, i;
	unsigned long sum = 0;
	char line[128], stamp[64];

	if (argc < 3 || n <= 0 || (strcmp(argv[1], "localtime") != 0 && strcmp(argv[1], "log") != 0)) {
		fprintf(stderr, "usage: localtime_loop localtime|log N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		time_t t = argv[1][1] == 'o' && argv[1][2] == 'g' ? time(NULL) : (time_t)(1700000000 + i);
		struct tm *tm = localtime(&t);

		if (!tm)
			return 1;
		if (argv[1][1] == 'o' && argv[1][2] == 'g') {
			strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S %z", tm);
			snprintf(line, sizeof line, "%s worker[%ld]: request served\n", stamp, i);
			sum += (unsigned char)line[0];
		} else {
			sum += (unsigned long)tm->tm_sec;
		}
	}
	printf("%lu\n", sum);
	return 0;
}
