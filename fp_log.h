/* SPDX-License-Identifier: MIT */
/*
 * fp_log.h: what the preload says and writes: async-signal-safe
 * formatting, debug lines (log.c), its own writes under the program's
 * file-size limit (raw.c), and the files it writes (outfile.c).
 */
#ifndef FP_LOG_H
#define FP_LOG_H

#include "fp_platform.h"

/* ------------------------------------------------------------------------
 * Async-signal-safe formatting: no stdio, no allocation.  Used for debug
 * lines (a short-circuited call may come from a signal handler) and for the
 * exit summary.
 * ---------------------------------------------------------------------- */
struct fp_buf {
	char *p;
	size_t len, cap;  /* len counts what fitted; output is cut, never overrun */
};
void fp_buf_str(struct fp_buf *b, const char *s) FP_HIDDEN;
void fp_buf_ulong(struct fp_buf *b, unsigned long v) FP_HIDDEN;
void fp_buf_long(struct fp_buf *b, long v) FP_HIDDEN;
/* Bytes at s that show as one character on a terminal; 0: to escape. */
size_t fp_shown_len(const unsigned char *s, size_t n) FP_HIDDEN;
/* s with those bytes, spaces and backslashes as \ooo: one safe token. */
void fp_buf_escaped(struct fp_buf *b, const char *s) FP_HIDDEN;
/* Writes "fastpath[pid]: <text>\n" to fd in one write(2); the _parts
 * form writes the n strings of parts one after another as the text. */
void fp_log_line(int fd, const char *text) FP_HIDDEN;
void fp_log_parts(int fd, const char *const *parts, size_t n) FP_HIDDEN;
/* FASTPATH_DEBUG: one line per short-circuited call, "<feature>: <what>". */
void fp_debug(const char *feature, const char *what, const char *detail) FP_HIDDEN;

/* The kernel can read the page holding p (raw.c): a caller's pointer
 * checked without a fault of ours, and without process_vm_readv. */
bool fp_page_readable(const void *p) FP_HIDDEN;
/* ... every page of the n bytes at p; and can write them all (n >= 4),
 * which it changes. */
bool fp_span_readable(const void *p, size_t n) FP_HIDDEN;
bool fp_span_writable(void *p, size_t n) FP_HIDDEN;

/* Every signal held across a step that a handler's siglongjmp must not
 * cut in two (a flag or lock taken and given back, a descriptor of ours
 * made and closed): the handler runs after it, as natively after the
 * system call (raw.c).  fp_unhold puts the thread's mask back. */
void fp_hold_all(sigset_t *old) FP_HIDDEN;
void fp_unhold(const sigset_t *old) FP_HIDDEN;

/* Our own writes under the program's file-size limit (fastpath.c): past
 * RLIMIT_FSIZE a write to a regular file (a memfd too) raises SIGXFSZ,
 * which kills by default, for a write the program never made.  Between
 * fp_fsz_hold and fp_fsz_release the calling thread has every signal
 * blocked (no handler of the program runs inside), so such a write fails
 * with EFBIG instead, and the signal it left pending is taken back before
 * the thread's mask is restored.  fp_own_write is one write so held where
 * it goes to a regular file (only a file raises SIGXFSZ); elsewhere (a
 * pipe or a terminal, whose reader it may wait for) each chunk that will
 * not wait is written so held, its SIGPIPE taken back the same way, and
 * a wait is made with the program's mask, its handlers free to run. */
struct fp_fsz {
	sigset_t old;
	bool held;
	int sig;  /* what our write may raise: SIGXFSZ, or a pipe's SIGPIPE */
	bool had; /* one was pending before: the program's, not ours */
	bool had_own; /* ... for this thread (else the process's, or none) */
};
void fp_fsz_hold(struct fp_fsz *g) FP_HIDDEN;
void fp_fsz_release(struct fp_fsz *g) FP_HIDDEN;
ssize_t fp_own_write(int fd, const void *buf, size_t n) FP_HIDDEN;

/* ------------------------------------------------------------------------
 * The files the preload writes (outfile.c): reached so that no other user
 * can choose what they land in.  Each returns a descriptor, or -1 (a system
 * call failed; errno) or FP_OF_REFUSED (another user could redirect it),
 * with a one-line reason in why.  No strerror: async-signal-safe.
 * ---------------------------------------------------------------------- */
#define FP_OF_REFUSED (-2)
/* The directory dir[0..dirlen), absolute, every directory on the way safe. */
int fp_of_opendir(const char *dir, size_t dirlen, char *why, size_t whylen) FP_HIDDEN;
/* name in that directory, for appending: a regular file of ours, one link. */
int fp_of_append(const char *dir, size_t dirlen, const char *name, char *why,
                 size_t whylen) FP_HIDDEN;
/* 12 hex digits for a new file's name (13 bytes); shared: another user
 * may write the directory, so they are read from /dev/urandom. */
void fp_of_nonce(char *hex, bool shared) FP_HIDDEN;
/* A new file name in dfd (O_EXCL), checked as ours: the descriptor, -1
 * (errno; EEXIST: the name is taken) or FP_OF_REFUSED. */
int fp_of_create_named(int dfd, const char *name) FP_HIDDEN;
/* A new file in dfd named prefix + 12 random hex digits + ".tmp" (O_EXCL). */
int fp_of_create(int dfd, const char *prefix, char *name, size_t namelen, bool shared) FP_HIDDEN;
/* FASTPATH_STATS's file (a path) or DIR/<euid>.log (a path ending in /). */
int fp_of_stats_open(const char *path, char *why, size_t whylen) FP_HIDDEN;
/* Appends the summary line there; says why in one line on stderr if not. */
void fp_of_stats_write(const char *path, const char *line, size_t n) FP_HIDDEN;

/* The program's descriptor 2 is still the stderr it had at start-up
 * (fastpath.c): only then do we write to it. */
bool fp_stderr_same(void) FP_HIDDEN;

#endif /* FP_LOG_H */
