/* SPDX-License-Identifier: MIT */
/*
 * urandom_stdio.c: the C library calls that take, close or replace a
 * descriptor the urandom mitigation tracks through calls of their own we
 * never see (fdopen, fclose, freopen, daemon, login_tty, forkpty).
 */
#include "fastpath.h"
#include "urandom.h"

#ifdef FP_LINUX
#include <pty.h>
#include <utmp.h>
#endif

/* ------------------------------------------------------------------------
 * stdio.  glibc's fopen, fread and fclose use internal calls we never see,
 * so a stream never holds a tracked descriptor:
 *   - fopen of the device is not wrapped: stdio opens and reads its own
 *     descriptor; pooling only its open would save one call in four;
 *   - fdopen of a tracked descriptor hands it to stdio, untracked (reads
 *     through it go to the kernel, and stdio may close it when it likes);
 *   - fclose and freopen untrack a stream's descriptor that became
 *     tracked later (dup2 of a device descriptor onto it) before stdio
 *     closes or replaces it; daemon untracks 0, 1 and 2 likewise.
 * ---------------------------------------------------------------------- */
FP_EXPORT FILE *fdopen(int fd, const char *mode)
{
	unsigned st = ur_state(fd), g;
	FILE *f;

	if (fp_likely(!st) || (st & UR_HELD))
		return UR_REAL(fdopen)(ur_real_fd(fd, st), mode);
	/* stdio's own calls on it are out of our sight from now on. */
	ur_own(fd, st);
	st &= ~UR_COW;
	g = atomic_load(&ur_forks);
	atomic_store(ur_fd(fd), 0);
	f = UR_REAL(fdopen)(fd, mode);
	if (!f)
		ur_track_new(fd, st, g);
	else if (fp_unlikely(ur_mode == UR_MODE_RESERVE))
		ur_marks_off(fd, -1);  /* stdio closes it unseen (cold review 49) */
	return f;
}
FP_ALIAS(_IO_fdopen, fdopen);

/* A stream's descriptor that became tracked after the stream took it (dup2
 * of a device descriptor onto it) is forgotten before stdio closes or
 * replaces it through its internal calls. */
static void ur_forget_stream(FILE *f)
{
	if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)) && fp_opaque(f)) {
		int saved = errno;
		int fd = fileno(f);

		errno = saved;
		if (fd >= 0 && ur_state(fd)) {
			(void)ur_untrack(fd);
			ur_debug("a stream's descriptor was tracked: forgotten");
		}
	}
}

FP_EXPORT int fclose(FILE *f)
{
	ur_forget_stream(f);
	return UR_REAL(fclose)(f);
}
FP_ALIAS(_IO_fclose, fclose);

/* freopen closes the stream's descriptor and puts the new file on the same
 * number, both through glibc's internal calls.  freopen and freopen64,
 * written once. */
#define UR_WRAP_FREOPEN(name)                                                \
	FP_EXPORT FILE *name(const char *path, const char *mode, FILE *f)    \
	{                                                                    \
		ur_forget_stream(f);                                         \
		return UR_REAL(name)(path, mode, f);                         \
	}

UR_WRAP_FREOPEN(freopen)
#ifdef FP_HAVE_LFS64
UR_WRAP_FREOPEN(freopen64)
#endif

/* 0, 1 and 2 about to be replaced through the C library's own dup2 (daemon's
 * /dev/null, login_tty's terminal; a cold review: a device descriptor on 0,
 * then forkpty: the child's read(0) was served random bytes, natively its
 * terminal's input).  Each descriptor of ours there gets a description of
 * its own first, as fdopen gives it, then is forgotten: where the call
 * fails (daemon's fork, login_tty of no terminal) it is a plain
 * descriptor of the device, not one that shares the pool's (a cold review
 * of login_tty's first form: its F_SETFL reached every pooled open). */
static void ur_std_forget(void)
{
	int n;

	for (n = 0; n <= 2; n++) {
		unsigned st = ur_state(n);

		if (fp_likely(!st))
			continue;
		if (!(st & UR_HELD))
			ur_own(n, st);
		(void)ur_untrack(n);
	}
}

FP_EXPORT int daemon(int nochdir, int noclose)
{
	if (!noclose)
		ur_std_forget();
	return UR_REAL(daemon)(nochdir, noclose);
}

#ifdef FP_LINUX
FP_EXPORT int login_tty(int fd)
{
	ur_std_forget();
	return UR_REAL(login_tty)(fd);
}

/* forkpty's child calls login_tty inside: that child forgets 0, 1 and 2
 * in its fork handler (ur_fd_atfork_child), before it returns to it. */
FP_TLS bool ur_pty_forking;

FP_EXPORT pid_t forkpty(int *pty, char *name, const struct termios *tio, const struct winsize *ws)
{
	pid_t p;
	int e;

	ur_pty_forking = true;
	p = UR_REAL(forkpty)(pty, name, tio, ws);
	e = errno;
	ur_pty_forking = false;
	errno = e;
	return p;
}
#endif
