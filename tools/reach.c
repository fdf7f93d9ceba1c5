/* SPDX-License-Identifier: MIT */
/*
 * reach.c: fastpath-run --reach, what interpose's reach check (interpose(1),
 * "when the preload cannot act") needs to know of a program, in one
 * process instead of od, awk, grep and getcap per run.  Linked into
 * fastpath-run, whose main hands it "--reach"'s arguments.
 *
 *   fastpath-run --reach FILE [OBJECT]...
 *
 * One line on stdout, words separated by spaces:
 *   script                 FILE starts with "#!" (interpose reads the line)
 *   none                   FILE cannot be read, or is not ELF
 *   elf CLASS MACHINE DYN GO SECURE [OC OM]...
 *       CLASS 32 or 64; MACHINE its e_machine; DYN 1 when it has a
 *       PT_INTERP (the dynamic loader runs it), else 0; GO 1 for a Go
 *       program (a section Go's linker always writes, fp_elf_go), else 0;
 *       SECURE why the loader would run it in secure-execution mode
 *       (setuid:UID, setgid:GID, caps) or "-"; then each OBJECT's class
 *       and machine, "- -" for one that cannot be read as ELF.
 * Always exit 0: a question this cannot answer is answered "none" or "-",
 * and interpose then says nothing, as it did when od could not read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "reach.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#endif

struct fp_elf {
	unsigned char h[64];
	bool little;
	int class;        /* 32 or 64 */
	unsigned machine; /* e_machine */
};

static uint64_t fp_num(const struct fp_elf *e, const unsigned char *p, int len)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < len; i++)
		v = v << 8 | p[e->little ? len - 1 - i : i];
	return v;
}

static bool fp_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	/* An offset off_t cannot hold (a 32-bit build) is not read. */
	return (off_t)off >= 0 && (uint64_t)(off_t)off == off &&
	       pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* 1: ELF, e filled; 0: not ELF (or too short); 2: starts with "#!". */
static int fp_elf_open(int fd, struct fp_elf *e)
{
	ssize_t got = pread(fd, e->h, sizeof e->h, 0);

	if (got >= 2 && e->h[0] == '#' && e->h[1] == '!')
		return 2;
	if (got < (ssize_t)sizeof e->h || memcmp(e->h, "\177ELF", 4) != 0 ||
	    (e->h[4] != 1 && e->h[4] != 2))
		return 0;
	e->little = e->h[5] == 1;
	e->class = e->h[4] == 1 ? 32 : 64;
	e->machine = (unsigned)fp_num(e, e->h + 18, 2);
	return 1;
}

/* A PT_INTERP among the program headers. */
static bool fp_elf_dynamic(int fd, const struct fp_elf *e)
{
	uint64_t off = e->class == 64 ? fp_num(e, e->h + 32, 8) : fp_num(e, e->h + 28, 4);
	unsigned ent = (unsigned)fp_num(e, e->h + (e->class == 64 ? 54 : 42), 2);
	unsigned n = (unsigned)fp_num(e, e->h + (e->class == 64 ? 56 : 44), 2);
	unsigned char ph[8];
	unsigned i;

	if (ent < 8 || n == 0 || n >= 4096)
		return false;
	for (i = 0; i < n; i++)
		if (fp_pread_all(fd, ph, 4, off + (uint64_t)i * ent) && fp_num(e, ph, 4) == 3)
			return true;
	return false;
}

/* memmem, which older illumos lacks. */
static bool fp_mem_has(const char *p, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	const char *q = p, *end = p + len;

	while (n && (size_t)(end - q) >= n && (q = memchr(q, needle[0], (size_t)(end - q - (ptrdiff_t)n + 1))))
		if (memcmp(q++, needle, n) == 0)
			return true;
	return false;
}

/* A needle anywhere in the file, read a block at a time. */
static bool fp_file_has(int fd, const char *const *needles, size_t nn)
{
	static char buf[1 << 16];
	size_t keep = 0, i;
	uint64_t off = 0;
	ssize_t got;

	while ((got = pread(fd, buf + keep, sizeof buf - keep, (off_t)off)) > 0) {
		size_t len = keep + (size_t)got;

		for (i = 0; i < nn; i++)
			if (fp_mem_has(buf, len, needles[i]))
				return true;
		off += (uint64_t)got;
		/* The tail a needle may straddle, into the next block. */
		keep = len < 32 ? len : 32;
		memmove(buf, buf + len - keep, keep);
	}
	return false;
}

/* A Go program, by what Go's linker writes into every ELF program it
 * makes: the .note.go.buildid note (every Go since 1.5), .gopclntab (the
 * runtime's own table, which stripping keeps: the runtime needs it), or
 * .go.buildinfo (1.13 and later; esbuild's Go 1.26 build has no such
 * section, nor its magic).  Where there is no section table, the build-id
 * note's or the build info's text anywhere in the file. */
static bool fp_elf_go(int fd, const struct fp_elf *e)
{
	static const char *const names[] = { ".note.go.buildid", ".gopclntab", ".go.buildinfo" };
	static const char *const magic[] = { ".note.go.buildid", " Go buildinf:" };
	bool is64 = e->class == 64;
	uint64_t shoff = is64 ? fp_num(e, e->h + 40, 8) : fp_num(e, e->h + 32, 4);
	unsigned ent = (unsigned)fp_num(e, e->h + (is64 ? 58 : 46), 2);
	unsigned n = (unsigned)fp_num(e, e->h + (is64 ? 60 : 48), 2);
	unsigned stri = (unsigned)fp_num(e, e->h + (is64 ? 62 : 50), 2);
	unsigned char sh[64];
	uint64_t stroff, strsize, name;
	char got[sizeof ".note.go.buildid"];
	unsigned i, k;

	if (shoff == 0 || n == 0 || n >= 65280 || stri >= n || ent < (is64 ? 64u : 40u))
		return fp_file_has(fd, magic, 2);
	if (!fp_pread_all(fd, sh, is64 ? 64 : 40, shoff + (uint64_t)stri * ent))
		return false;
	stroff = is64 ? fp_num(e, sh + 24, 8) : fp_num(e, sh + 16, 4);
	strsize = is64 ? fp_num(e, sh + 32, 8) : fp_num(e, sh + 20, 4);
	for (i = 0; i < n; i++) {
		if (!fp_pread_all(fd, sh, 4, shoff + (uint64_t)i * ent))
			return false;
		name = fp_num(e, sh, 4);
		if (name >= strsize)
			continue;
		memset(got, 0, sizeof got);
		/* The name and its NUL, as far as the table and got hold. */
		if (!fp_pread_all(fd, got, (size_t)(strsize - name < sizeof got ? strsize - name : sizeof got),
		                  stroff + name))
			continue;
		for (k = 0; k < sizeof names / sizeof names[0]; k++)
			if (memcmp(got, names[k], strlen(names[k]) + 1) == 0)
				return true;
	}
	return false;
}

/* Why the loader would ignore LD_PRELOAD for it (secure-execution mode), in
 * the words interpose says, or NULL; buf holds a number's text.  As the
 * kernel decides at exec (AT_SECURE): the ids the program would run with
 * differ from the real ones (a setuid file of another owner than our real
 * user; a setgid file, group-executable, of another group than our real
 * group, whatever our supplementary groups), or its file capabilities
 * raise a user other than root; neither on a nosuid mount, nor under
 * no_new_privs, where the kernel ignores both. */
static const char *fp_secure(int fd, const struct stat *st, char *buf, size_t len)
{
#ifdef __linux__
	struct statvfs sv;

	if ((fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_NOSUID)) || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		return NULL;
#endif
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid()) {
		snprintf(buf, len, "setuid:%ld", (long)st->st_uid);
		return buf;
	}
	if ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid()) {
		snprintf(buf, len, "setgid:%ld", (long)st->st_gid);
		return buf;
	}
#ifdef __linux__
	if (getuid() != 0 && fgetxattr(fd, "security.capability", NULL, 0) >= 0)
		return "caps";
#else
	(void)fd;
#endif
	return NULL;
}

/* "CLASS MACHINE" of an object, or "- -". */
static void fp_reach_object(const char *path)
{
	struct fp_elf e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && fp_elf_open(fd, &e) == 1)
		printf(" %d %u", e.class, e.machine);
	else
		printf(" - -");
	if (fd >= 0)
		close(fd);
}

int fp_reach(int argc, char **argv)
{
	struct fp_elf e;
	struct stat st;
	char num[32];
	const char *why;
	int fd, kind, i;

	fd = argc > 0 ? open(argv[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		puts("none");
		return 0;
	}
	kind = fp_elf_open(fd, &e);
	if (kind != 1) {
		puts(kind == 2 ? "script" : "none");
		return 0;
	}
	why = fp_secure(fd, &st, num, sizeof num);
	printf("elf %d %u %d %d %s", e.class, e.machine, fp_elf_dynamic(fd, &e),
	       fp_elf_go(fd, &e), why ? why : "-");
	close(fd);
	for (i = 1; i < argc; i++)
		fp_reach_object(argv[i]);
	putchar('\n');
	(void)fflush(stdout);
	return 0;
}
