/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_core: what a core dump of this process would hold of the
 * randomness it has not read yet.  Reads 16 bytes three times (read: an
 * open/read/close cycle of /dev/urandom; getrandom: getrandom(16)), then
 * copies every readable mapping of its own, as /proc/self/smaps lists
 * them, to a temporary file (as a core would), then reads 16 bytes more:
 * the next ones the process gets.  Each 8-byte half of those found in the
 * copy is a byte that memory held before it was read; each hit prints
 *   hit dd|nodd START-END NAME VmFlags: ...
 * ("dd": the kernel leaves that mapping out of core dumps), then
 *   hits dd N nodd M
 * Run natively and under fastpath.so by t_urandom.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#define MAXMAPS 4096
static char smaps[4 << 20];
static struct map {
	unsigned long lo, hi;
	off_t off;
	int dd;
	char name[128], flags[256];
} maps[MAXMAPS];
static int nmaps;

static int take16(const char *how, unsigned char *b)
{
	if (strcmp(how, "getrandom") == 0)
		return getrandom(b, 16, 0) == 16 ? 0 : -1;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, b, 16) != 16)
		return -1;
	return close(fd);
}

static int read_smaps(void)
{
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (len < sizeof smaps - 1 && (r = read(fd, smaps + len, sizeof smaps - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	smaps[len] = 0;
	return 0;
}

/* The mappings, with their names and VmFlags. */
static void parse(void)
{
	char *line = smaps, *nl;
	struct map *m = NULL;

	for (; *line; line = nl + 1) {
		unsigned long lo, hi;
		char perms[8];
		int pos = 0;

		if (!(nl = strchr(line, '\n')))
			break;
		*nl = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s%n", &lo, &hi, perms, &pos) == 3 &&
		    strchr(line, '-') && nmaps < MAXMAPS) {
			m = &maps[nmaps++];
			m->lo = lo;
			m->hi = hi;
			m->off = -1;
			while (line[pos] == ' ')
				pos++;
			snprintf(m->name, sizeof m->name, "%s", line[pos] ? line + pos : "[anon]");
			if (perms[0] != 'r')
				m->lo = m->hi = 0;
		} else if (m && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(m->flags, sizeof m->flags, "%.200s", line);
			m->dd = strstr(line, " dd") != NULL;
		}
	}
}

/* Copies each readable mapping (not the kernel's vvar/vsyscall pages,
 * nor the vDSO's code) to fd, as a core file would. */
static int dump(int fd)
{
	off_t at = 0;
	int i;

	for (i = 0; i < nmaps; i++) {
		struct map *m = &maps[i];
		size_t n = m->hi - m->lo;

		/* Nor a sanitizer's shadow (terabytes reserved, never dumped
		 * whole: a core excludes what was never touched). */
		if (!n || n > ((size_t)1 << 30) || strncmp(m->name, "[vvar", 5) == 0 ||
		    strcmp(m->name, "[vsyscall]") == 0 || strcmp(m->name, "[vdso]") == 0)
			continue;
		if (write(fd, (void *)m->lo, n) != (ssize_t)n) {
			/* A mapping we cannot read (a guard page): skipped. */
			if (lseek(fd, at, SEEK_SET) != at)
				return -1;
			continue;
		}
		m->off = at;
		at += (off_t)n;
	}
	return (int)(at > 0);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "read";
	unsigned char b[16], next[16];
	char path[] = "/tmp/prog_urandom_core.XXXXXX";
	int fd, i, h, hits[2] = { 0, 0 };
	off_t size;
	unsigned char *img;

	for (i = 0; i < 3; i++)
		if (take16(how, b) < 0) {
			perror("take16");
			return 1;
		}
	if ((fd = mkstemp(path)) < 0 || read_smaps() < 0)
		return 1;
	unlink(path);
	parse();
	if (dump(fd) <= 0)
		return 1;
	if (take16(how, next) < 0)
		return 1;
	size = lseek(fd, 0, SEEK_END);
	img = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED)
		return 1;
	for (i = 0; i < nmaps; i++) {
		struct map *m = &maps[i];

		if (m->off < 0)
			continue;
		for (h = 0; h < 2; h++)
			if (memmem(img + m->off, m->hi - m->lo, next + 8 * h, 8)) {
				hits[m->dd]++;
				printf("hit %s %lx-%lx %s %s\n", m->dd ? "dd" : "nodd", m->lo, m->hi,
				       m->name, m->flags);
			}
	}
	printf("hits dd %d nodd %d\n", hits[1], hits[0]);
	return 0;
}
