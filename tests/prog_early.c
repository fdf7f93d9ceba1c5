/* SPDX-License-Identifier: MIT */
/* Prints what libearly's constructor saw, for tests/t_core.sh. */
#include <stdio.h>

extern long early_ncpus, early_urandom_read;
extern char early_link[];

int main(void)
{
	printf("ncpus=%ld urandom_read=%ld link=%s\n", early_ncpus, early_urandom_read,
	       early_link);
	return 0;
}
