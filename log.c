/* SPDX-License-Identifier: MIT */
/*
 * log.c: async-signal-safe formatting and the lines the preload writes
 * on stderr (debug lines, warnings).
 */
#include "fastpath.h"

/* ------------------------------------------------------------------------
 * Formatting without stdio.
 * ---------------------------------------------------------------------- */
void fp_buf_str(struct fp_buf *b, const char *s)
{
	while (*s && b->len + 1 < b->cap)
		b->p[b->len++] = *s++;
	if (b->cap)
		b->p[b->len] = '\0';
}

void fp_buf_ulong(struct fp_buf *b, unsigned long v)
{
	char tmp[3 * sizeof v + 1];
	char *q = tmp + sizeof tmp - 1;

	*q = '\0';
	do
		*--q = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	fp_buf_str(b, q);
}

void fp_buf_long(struct fp_buf *b, long v)
{
	if (v < 0) {
		fp_buf_str(b, "-");
		fp_buf_ulong(b, -(unsigned long)v);
	} else {
		fp_buf_ulong(b, (unsigned long)v);
	}
}

/* How many bytes at s (n of them) make one character a terminal shows as
 * itself: printable ASCII, or a whole UTF-8 sequence that is not a C1
 * control (U+0080-U+009F, which C2 80-9F encode), overlong, a surrogate or
 * past U+10FFFF.  0: the byte is to be escaped (C0, DEL, a raw 0x80-0xff
 * that starts no such sequence). */
size_t fp_shown_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xc2 || c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* s, each byte fp_shown_len refuses, and each space and backslash, as
 * \ooo: one token, shown as itself, that still tells every byte. */
void fp_buf_escaped(struct fp_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		k = fp_shown_len(u + i, n - i);
		if (k && u[i] != ' ' && u[i] != '\\') {
			if (b->len + k >= b->cap)
				break;  /* a character whole, or not at all */
			while (k--)
				b->p[b->len++] = (char)u[i++];
			continue;
		}
		if (b->len + 5 > b->cap)
			break;
		b->p[b->len++] = '\\';
		b->p[b->len++] = (char)('0' + (u[i] >> 6));
		b->p[b->len++] = (char)('0' + ((u[i] >> 3) & 7));
		b->p[b->len++] = (char)('0' + (u[i] & 7));
		i++;
	}
	if (b->cap)
		b->p[b->len] = '\0';
}

/*
 * One line "fastpath[pid]: <parts...>\n", written in one write(2): lines
 * from many processes sharing a file or a terminal do not interleave;
 * errors have nowhere to go.  The line is built on the stack when it is
 * short, else in a mapping made for it: a debug line about a long path
 * may come from a signal handler on a small alternate stack, where a
 * PATH_MAX buffer does not fit.  Cut at FP_LOG_MAX, never overrun.
 */
#define FP_LOG_SHORT 256
#define FP_LOG_MAX (PATH_MAX + 256)


void fp_log_parts(int fd, const char *const *parts, size_t n)
{
	char small[FP_LOG_SHORT], *line = small;
	size_t i, need = 40, cap = sizeof small;
	struct fp_buf b;

	/* Every line for stderr, the summary's, a warning's or a debug
	 * line: only to the file fd 2 was at start (fp_stderr_same). */
	if (fd == STDERR_FILENO && !fp_stderr_same())
		return;

	for (i = 0; i < n; i++)
		need += strlen(parts[i]);
	if (need > sizeof small) {
		void *q;

		cap = need < FP_LOG_MAX ? need : FP_LOG_MAX;
		q = fp_mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q != MAP_FAILED)
			line = q;
		else
			cap = sizeof small;
	}
	b = (struct fp_buf){ line, 0, cap - 1 };
	fp_buf_str(&b, "fastpath[");
	fp_buf_long(&b, (long)getpid());
	fp_buf_str(&b, "]: ");
	for (i = 0; i < n; i++)
		fp_buf_str(&b, parts[i]);
	/* One line, whatever a setting's value or a path held: a newline in
	 * a setting must not split a warning in two, nor an escape sequence
	 * (C1 ones too) reach the terminal of whoever reads it. */
	for (i = 0; i < b.len;) {
		size_t k = fp_shown_len((const unsigned char *)line + i, b.len - i);

		if (k)
			i += k;
		else
			line[i++] = '?';
	}
	line[b.len++] = '\n';
	(void)fp_own_write(fd, line, b.len);
	if (line != small)
		munmap(line, cap);
}

void fp_log_line(int fd, const char *text)
{
	fp_log_parts(fd, &text, 1);
}

/* errno is kept: the hot paths that may say something need not save it. */
void fp_debug(const char *feature, const char *what, const char *detail)
{
	const char *parts[] = { feature, ": ", what, ": ", detail };
	int saved = errno;

	fp_log_parts(STDERR_FILENO, parts, detail ? 5 : 3);
	errno = saved;
}
