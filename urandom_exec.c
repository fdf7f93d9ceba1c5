/* SPDX-License-Identifier: MIT */
/*
 * urandom_exec.c: every exported way to start a program, for the reserve
 * mode of the urandom mitigation.
 *
 * In reserve mode the kept descriptor stays in the close-on-exec state the
 * program's last close left it in, so that a loop of plain opens makes no
 * system call.  Natively that number is closed; it must not reach a new
 * program.  Each entry point here gives such a reserve back just before
 * the image is replaced (ur_exec_guard); one in transit, another thread's
 * move, is made close-on-exec and its flag put back if that failed.  A
 * vfork child flags its own copies (urandom_fd.c, ur_vfork_flag).  A raw
 * execve system call is the one way around it
 * (fastpath(7), URANDOM, "Reserve mode").
 *
 * In exact mode nothing is kept; a spawned child or a new program inherits
 * what the program opened without O_CLOEXEC: each pooled one gets its own
 * description first (urandom_cow.c), and the hidden descriptor, which the
 * child holds until it execs, is retired after a spawn (as after fork).
 *
 * On a kernel without F_DUPFD_CLOEXEC, every exec and spawn also waits for
 * the two-call duplicates under way and keeps new ones from starting
 * (ur_exec_enter, urandom_cloexec.c); one relaxed load elsewhere.
 *
 * Under the CPU cap, each exec and spawn hands the new image its machine
 * (cpus_exec.c, fp_cpus_exec_with): the call is made with a copy of the
 * environment that carries it, built in that function's frame; the forms
 * without an environment pass a copy of environ through the form with
 * one, as the C library's own do.  system() and popen() start the shell
 * with environ as it is (fastpath(7), LIMITS).  With the cap off: one
 * branch, and the call as before.
 */
#include "fastpath.h"
#include "urandom.h"
#include "cpus.h"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/resource.h>

#undef FP_OWN_BIT
#define FP_OWN_BIT FP_BIT(urandom) /* its rows are in ur_exec_syms */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* A stand-in may ignore some parameters. */
// NOLINTBEGIN(misc-unused-parameters)
FP_REAL_OWN(int, execve, (const char *path, char *const argv[], char *const envp[]),
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, execv, (const char *path, char *const argv[]), FP_NR_FAIL(-1));
FP_REAL_OWN(int, execvp, (const char *file, char *const argv[]), FP_NR_FAIL(-1));
FP_REAL_OWN(int, execvpe, (const char *file, char *const argv[], char *const envp[]),
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, fexecve, (int fd, char *const argv[], char *const envp[]), FP_NR_FAIL(-1));
FP_REAL_OWN(int, execveat,
            (int dirfd, const char *path, char *const argv[], char *const envp[], int flags),
            FP_NR_FAIL(-1));
FP_REAL_OWN(int, posix_spawn,
            (pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
             const posix_spawnattr_t *attr, char *const argv[], char *const envp[]),
            FP_NR_RET(ENOSYS));
FP_REAL_OWN(int, posix_spawnp,
            (pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
             const posix_spawnattr_t *attr, char *const argv[], char *const envp[]),
            FP_NR_RET(ENOSYS));
FP_REAL_OWN(int, system, (const char *cmd), FP_NR_FAIL(-1));
FP_REAL_OWN(FILE *, popen, (const char *cmd, const char *how), FP_NR_FAIL(NULL));
#ifdef FP_LINUX
#ifdef __GLIBC__
typedef __rlimit_resource_t ur_res_t;
typedef enum __rlimit_resource ur_pres_t;
#else
typedef int ur_res_t;
typedef int ur_pres_t;
#endif
FP_REAL_OWN(int, setrlimit, (ur_res_t res, const struct rlimit *rl), FP_NR_RET(ENOSYS));
FP_REAL_OWN(int, prlimit, (pid_t pid, ur_pres_t res, const struct rlimit *rl, struct rlimit *old),
            FP_NR_RET(ENOSYS));
#ifdef __GLIBC__
FP_REAL_OWN(int, setrlimit64, (ur_res_t res, const struct rlimit64 *rl), FP_NR_RET(ENOSYS));
FP_REAL_OWN(int, prlimit64,
            (pid_t pid, ur_pres_t res, const struct rlimit64 *rl, struct rlimit64 *old),
            FP_NR_RET(ENOSYS));
#endif
#endif
// NOLINTEND(misc-unused-parameters)
#pragma GCC diagnostic pop

const struct fp_sym ur_exec_syms[UR_EXEC_NSYMS] = {
	FP_SYM(execve), FP_SYM(execv), FP_SYM(execvp), FP_SYM(execvpe), FP_SYM(fexecve),
	FP_SYM(execveat), FP_SYM(posix_spawn), FP_SYM(posix_spawnp), FP_SYM(system),
	FP_SYM(popen),
#ifdef FP_LINUX
	FP_SYM(setrlimit), FP_SYM(prlimit),
#ifdef __GLIBC__
	FP_SYM(setrlimit64), FP_SYM(prlimit64),
#endif
#endif
};

/* One branch when there is nothing to guard: exact mode, or nothing of
 * the device ever tracked. */
static inline bool ur_guarding(void)
{
	/* Before the device's first open too: another thread's first open
	 * and close may keep one while the exec is under way (a cold
	 * review: 87 of 200 such execs passed it on).  The guard counts
	 * itself, and a close that keeps one sees it (ur_close). */
	return fp_unlikely(ur_mode == UR_MODE_RESERVE);
}

/* Exact mode, before the new program or the child gets copies of pooled
 * descriptors: each gets a description of its own first (ur_cow). */
static inline bool ur_sharing(void)
{
	return fp_unlikely(ur_mode == UR_MODE_EXACT &&
	                   atomic_load_explicit(&ur_hiwater, memory_order_relaxed) != 0);
}

/* A real function that the C library may lack (execveat, execvpe on an
 * old one): ENOSYS, as for any other missing function. */
#define UR_EXEC_CALL(name, ...)                                              \
	(FP_OWN(name) ? FP_OWN(name)(__VA_ARGS__) : (errno = ENOSYS, -1))

/* exec: guard, call, and unguard if it returned (it failed). */
#define UR_EXEC(call)                                                        \
	do {                                                                 \
		int g_[UR_NRES], r_;                                         \
		bool on_ = ur_guarding(), x_ = ur_exec_enter();              \
                                                                             \
		if (on_)                                                     \
			ur_exec_guard(g_);                                   \
		else if (ur_sharing())                                       \
			ur_cow_exec();                                       \
		fp_sv_exec(1);                                               \
		r_ = (call);                                                 \
		fp_sv_exec(-1);                                              \
		if (on_)                                                     \
			ur_exec_unguard(g_);                                 \
		ur_exec_leave(x_);  /* changes no errno */                   \
		return r_;                                                   \
	} while (0)

/* What an exec or spawn was given, but its environment: the real call is
 * made by a function of (this, envp), with the caller's envp or the copy
 * the cap hands down (fp_cpus_exec_with). */
struct ur_exec_args {
	const char *path;
	char *const *argv;
	int fd, flags;
	pid_t *pid;
	const posix_spawn_file_actions_t *fa;
	const posix_spawnattr_t *attr;
};

/* With the cap on, the call made with the copy; else as it is. */
#define UR_WITH_ENV(envp, fn, a)                                             \
	(fp_unlikely(fp_enabled(FP_BIT(cpus))) ? fp_cpus_exec_with((envp), (fn), (a)) \
	                                       : fn((a), (envp)))

static int ur_execve(void *p, char *const envp[])
{
	const struct ur_exec_args *a = p;

	UR_EXEC(UR_EXEC_CALL(execve, a->path, a->argv, envp));
}

static int ur_execvpe(void *p, char *const envp[])
{
	const struct ur_exec_args *a = p;

	UR_EXEC(UR_EXEC_CALL(execvpe, a->path, a->argv, envp));
}

static int ur_fexecve(void *p, char *const envp[])
{
	const struct ur_exec_args *a = p;

	UR_EXEC(UR_EXEC_CALL(fexecve, a->fd, a->argv, envp));
}

static int ur_execveat(void *p, char *const envp[])
{
	const struct ur_exec_args *a = p;

	UR_EXEC(UR_EXEC_CALL(execveat, a->fd, a->path, a->argv, envp, a->flags));
}

FP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	struct ur_exec_args a = { .path = path, .argv = argv };

	return UR_WITH_ENV(envp, ur_execve, &a);
}

/* The forms without an environment: under the cap, the form with one and
 * a copy of environ (execvp's search is execvpe's). */
#ifdef FP_LINUX
#define UR_HANDING() fp_unlikely(fp_enabled(FP_BIT(cpus)))
#define UR_ENVIRON environ
#else
#define UR_HANDING() false
#define UR_ENVIRON NULL
#endif

FP_EXPORT int execv(const char *path, char *const argv[])
{
	struct ur_exec_args a = { .path = path, .argv = argv };

	if (UR_HANDING())
		return fp_cpus_exec_with(UR_ENVIRON, ur_execve, &a);
	UR_EXEC(UR_EXEC_CALL(execv, path, argv));
}

FP_EXPORT int execvp(const char *file, char *const argv[])
{
	struct ur_exec_args a = { .path = file, .argv = argv };

	if (UR_HANDING() && FP_OWN(execvpe))
		return fp_cpus_exec_with(UR_ENVIRON, ur_execvpe, &a);
	UR_EXEC(UR_EXEC_CALL(execvp, file, argv));
}

FP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct ur_exec_args a = { .path = file, .argv = argv };

	return UR_WITH_ENV(envp, ur_execvpe, &a);
}

FP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	struct ur_exec_args a = { .fd = fd, .argv = argv };

	/* A held number is a closed one, not the device: EBADF, after the
	 * C library's own EINVAL checks (glibc's: fd < 0, no argv or envp;
	 * a negative fd is the C library's to answer, found by fd_fuzz). */
	if (fp_unlikely(fd >= 0 && ur_real_fd(fd, ur_state(fd)) < 0)) {
		errno = fp_opaque(argv) && fp_opaque(envp) ? EBADF : EINVAL;
		return -1;
	}
	return UR_WITH_ENV(envp, ur_fexecve, &a);
}

FP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                       int flags)
{
	struct ur_exec_args a = { .path = path, .argv = argv, .flags = flags };

	a.fd = ur_real_fd(dirfd, ur_state(dirfd));
	return UR_WITH_ENV(envp, ur_execveat, &a);
}

/* The list forms, as the C library writes them: the arguments counted,
 * then an array on the stack (no allocation: exec after vfork). */
#define UR_ARGV(first, ap, argv)                                             \
	size_t n_ = 1;                                                       \
	va_start(ap, first);                                                 \
	while (va_arg(ap, const char *))                                     \
		n_++;                                                        \
	va_end(ap);                                                          \
	const char *argv[n_ + 1];                                            \
	va_start(ap, first);                                                 \
	argv[0] = first;                                                     \
	for (size_t i_ = 1; i_ <= n_; i_++)                                  \
		argv[i_] = va_arg(ap, const char *)

FP_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	UR_ARGV(arg, ap, argv);
	va_end(ap);
	struct ur_exec_args a = { .path = path, .argv = (char *const *)argv };

	if (UR_HANDING())
		return fp_cpus_exec_with(UR_ENVIRON, ur_execve, &a);
	UR_EXEC(UR_EXEC_CALL(execv, path, (char *const *)argv));
}

FP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	UR_ARGV(arg, ap, argv);
	va_end(ap);
	struct ur_exec_args a = { .path = file, .argv = (char *const *)argv };

	if (UR_HANDING() && FP_OWN(execvpe))
		return fp_cpus_exec_with(UR_ENVIRON, ur_execvpe, &a);
	UR_EXEC(UR_EXEC_CALL(execvp, file, (char *const *)argv));
}

FP_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char *const *envp;
	UR_ARGV(arg, ap, argv);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	struct ur_exec_args a = { .path = path, .argv = (char *const *)argv };

	return UR_WITH_ENV(envp, ur_execve, &a);
}

/* What a spawn raised, lowered when it returns or, for system() and
 * popen() (cancellation points, which last as long as the command), when
 * the thread is cancelled inside: nothing is left raised for later calls
 * to find (docs/design.md, "Nothing stranded"). */
struct ur_spawning {
	int g[UR_NRES];
	bool on, entered;
};

static void ur_spawn_done(void *arg)
{
	struct ur_spawning *sp = arg;

	ur_exec_leave(sp->entered);
	if (sp->on)
		ur_exec_unguard(sp->g);
	else if (fp_unlikely(atomic_load_explicit(&ur_hiwater, memory_order_relaxed)))
		ur_hidden_retire();
}

/* glibc's and musl's cleanup handlers run on cancellation.  On illumos
 * the macros end in libc-private symbols (__pthread_cleanup_push), which
 * fastpath may not link (tests/illumos_libc_symbols.txt): there a thread
 * cancelled inside system() still leaves the fallback's exec announcement
 * and the reserve's guard raised (fastpath(7)). */
#ifdef FP_LINUX
#define UR_CLEANUP_PUSH(sp) pthread_cleanup_push(ur_spawn_done, sp)
#define UR_CLEANUP_POP(sp) pthread_cleanup_pop(1)
#else
#define UR_CLEANUP_PUSH(sp) do {
#define UR_CLEANUP_POP(sp) ur_spawn_done(sp); } while (0)
#endif

/* Spawns return to us once the child has exec'd (or failed to).  In exact
 * mode the child may hold duplicates of the hidden descriptor, retired
 * after.  Nothing is held across the call that another thread waits for:
 * a dup or F_SETFL meanwhile does its own copy (urandom_cow.c). */
#define UR_SPAWN(type, call, started)                                        \
	do {                                                                 \
		struct ur_spawning sp_;                                      \
		int saved_;                                                  \
		type r_;                                                     \
                                                                             \
		sp_.on = ur_guarding();                                      \
		sp_.entered = ur_exec_enter();                               \
		if (sp_.on)                                                  \
			ur_exec_guard(sp_.g);                                \
		else if (ur_sharing())                                       \
			ur_cow_all();                                        \
		UR_CLEANUP_PUSH(&sp_);                                       \
		r_ = (call);                                                 \
		saved_ = errno;                                              \
		if (started)                                                 \
			fp_sv_spawned();                                     \
		UR_CLEANUP_POP(&sp_);                                        \
		errno = saved_;                                              \
		return r_;                                                   \
	} while (0)

static int ur_posix_spawn(void *p, char *const envp[])
{
	const struct ur_exec_args *a = p;

	UR_SPAWN(int, FP_OWN(posix_spawn)(a->pid, a->path, a->fa, a->attr, a->argv, envp), r_ == 0);
}

static int ur_posix_spawnp(void *p, char *const envp[])
{
	const struct ur_exec_args *a = p;

	UR_SPAWN(int, FP_OWN(posix_spawnp)(a->pid, a->path, a->fa, a->attr, a->argv, envp),
	         r_ == 0);
}

FP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct ur_exec_args a = { .pid = pid, .path = path, .fa = fa, .attr = attr, .argv = argv };

	return UR_WITH_ENV(envp, ur_posix_spawn, &a);
}

FP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[],
                           char *const envp[])
{
	struct ur_exec_args a = { .pid = pid, .path = file, .fa = fa, .attr = attr, .argv = argv };

	return UR_WITH_ENV(envp, ur_posix_spawnp, &a);
}

FP_EXPORT int system(const char *cmd)
{
	UR_SPAWN(int, FP_OWN(system)(cmd), r_ != -1);
}

FP_EXPORT FILE *popen(const char *cmd, const char *how)
{
	UR_SPAWN(FILE *, FP_OWN(popen)(cmd, how), r_ != NULL);
}
FP_ALIAS(_IO_popen, popen);

#ifdef FP_LINUX
/* ------------------------------------------------------------------------
 * The descriptor limit.  Exact mode's hidden descriptors sit at or above
 * the soft limit (urandom_hidden.c): raised past one, the program could be
 * given that number, so it goes once the real call succeeded.  A raw
 * setrlimit or prlimit system call, or another process's prlimit, is not
 * seen (fastpath(7)).
 * ---------------------------------------------------------------------- */
#define UR_SOFT(rl, inf) ((rl)->rlim_cur == (inf) ? UINT64_MAX : (uint64_t)(rl)->rlim_cur)

/* Limits are the process's: prlimit on any thread of it changes ours. */
static inline bool ur_limit_ours(int r, int res, pid_t pid, bool set)
{
	return fp_unlikely(r == 0 && res == RLIMIT_NOFILE && set) && (pid == 0 || ur_pid_self(pid));
}

/* Reached before our initialisation may run, in a build with ASan's
 * instrumentation: ASan's runtime sets RLIMIT_CORE from its own start,
 * before our instrumented code has its shadow memory (check-sanitize:
 * SIGSEGV in fp_ready).  Then no code of ours is instrumented on the way
 * and there is no hidden descriptor yet to retire: the system call
 * itself where struct rlimit is the kernel's (64-bit), else the C
 * library's function found by dlsym, which clears a pending dlerror()
 * message.  Any other build initialises here as every wrapper does: the
 * dlsym took a library constructor's pending message with its first
 * setrlimit (t_firstcall.sh, the early runs). */
#if defined(__SANITIZE_ADDRESS__)
#  define UR_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define UR_ASAN 1
#  endif
#endif
#if !defined(UR_ASAN)
#  define UR_LIMIT_EARLY(name, type, pid, res, rl, old, ...) ((void)0)
#elif defined(FP_HAVE_SYSCALL_WRAP)
#  define UR_LIMIT_EARLY(name, type, pid, res, rl, old, ...)                 \
	do {                                                                 \
		if (fp_unlikely(atomic_load_explicit(&fp_init_state,          \
		                                     memory_order_acquire) != \
		                FP_INIT_DONE))                               \
			return (int)fp_sys6(SYS_prlimit64, (long)(pid), (long)(res), \
			                    (long)(rl), (long)(old), 0L, 0L);  \
	} while (0)
#else
#  define UR_LIMIT_EARLY(name, type, pid, res, rl, old, ...)                 \
	do {                                                                 \
		if (fp_unlikely(atomic_load_explicit(&fp_init_state,          \
		                                     memory_order_acquire) != \
		                FP_INIT_DONE)) {                             \
			union {                                              \
				void *p;                                     \
				__typeof__(type) f;                          \
			} u_ = { dlsym(RTLD_NEXT, #name) };                  \
			if (!u_.p)                                           \
				return errno = ENOSYS, -1;                   \
			return u_.f(__VA_ARGS__);                            \
		}                                                            \
	} while (0)
#endif

FP_EXPORT __attribute__((no_sanitize_address)) int setrlimit(ur_res_t res, const struct rlimit *rl)
{
	int r;

	UR_LIMIT_EARLY(setrlimit, int (*)(ur_res_t, const struct rlimit *), 0, res, rl, NULL, res, rl);
	r = FP_OWN(setrlimit)(res, rl);

	if (ur_limit_ours(r, (int)res, 0, true))
		ur_limit_set(UR_SOFT(rl, RLIM_INFINITY));
	return r;
}

FP_EXPORT __attribute__((no_sanitize_address)) int prlimit(pid_t pid, ur_pres_t res,
                                                              const struct rlimit *rl, struct rlimit *old)
{
	int r;

	UR_LIMIT_EARLY(prlimit, int (*)(pid_t, ur_pres_t, const struct rlimit *, struct rlimit *),
	               pid, res, rl, old, pid, res, rl, old);
	r = FP_OWN(prlimit)(pid, res, rl, old);

	if (ur_limit_ours(r, (int)res, pid, rl != NULL))
		ur_limit_set(UR_SOFT(rl, RLIM_INFINITY));
	return r;
}

#ifdef __GLIBC__
FP_EXPORT __attribute__((no_sanitize_address)) int setrlimit64(ur_res_t res, const struct rlimit64 *rl)
{
	int r;

	UR_LIMIT_EARLY(setrlimit64, int (*)(ur_res_t, const struct rlimit64 *), 0, res, rl, NULL, res,
	               rl);
	r = FP_OWN(setrlimit64)(res, rl);

	if (ur_limit_ours(r, (int)res, 0, true))
		ur_limit_set(UR_SOFT(rl, RLIM64_INFINITY));
	return r;
}

FP_EXPORT __attribute__((no_sanitize_address)) int prlimit64(pid_t pid, ur_pres_t res,
                                                                const struct rlimit64 *rl,
                                                                struct rlimit64 *old)
{
	int r;

	UR_LIMIT_EARLY(prlimit64,
	               int (*)(pid_t, ur_pres_t, const struct rlimit64 *, struct rlimit64 *), pid,
	               res, rl, old, pid, res, rl, old);
	r = FP_OWN(prlimit64)(pid, res, rl, old);

	if (ur_limit_ours(r, (int)res, pid, rl != NULL))
		ur_limit_set(UR_SOFT(rl, RLIM64_INFINITY));
	return r;
}
#endif
#endif

/* ------------------------------------------------------------------------
 * exec and spawn in reserve mode.  The reserve may be kept without
 * FD_CLOEXEC (as the program's plain open left it): it must not reach the
 * new program.  In a vfork child (which runs on its parent's memory with
 * its own copy of the descriptor table) only its thread's note of the
 * vfork changes: the parent's bookkeeping stays as it was.
 * ---------------------------------------------------------------------- */
/* Guards begun and unguards ended in this table (not a vfork child's,
 * whose table is its own copy), and this thread's under way (what a fork
 * child, whose only thread this is, keeps of them).  While they differ an
 * exec or spawn may be under way whose guard looked at the slots already:
 * a close keeps nothing and an open adopts nothing (ur_close, ur_open);
 * a jump out of an exec or a spawn leaves them differing, and the pool
 * then does every later open and close for real, as natively. */
static _Atomic unsigned ur_guards[2];
static FP_TLS unsigned ur_guards_mine;

bool ur_guards_apart(void)
{
	unsigned ended = atomic_load(&ur_guards[1]);  /* first: see ur_close */

	return atomic_load(&ur_guards[0]) != ended;
}

/* Another thread's guard under way is not a fork child's: its counts are
 * its one thread's own (a handler's fork inside its exec). */
FP_FORK_TEXT void ur_guards_atfork_child(void)
{
	unsigned want = atomic_load(&ur_guards[1]) + ur_guards_mine;

	if (atomic_load(&ur_guards[0]) != want)
		atomic_store(&ur_guards[0], want);
}

void ur_exec_guard(int fds[UR_NRES])
{
	int d, saved = errno;

	if (!ur_table_ours()) {  /* a vfork child's own table */
		ur_vfork_flag(fds);
		errno = saved;
		return;
	}
	/* Counted before the look: a close that changes its state after
	 * the look began sees the count (both sequentially consistent). */
	ur_guards_mine++;
	atomic_fetch_add(&ur_guards[0], 1);
	ur_guard_give_back();
	for (d = 0; d < UR_NRES; d++) {
		/* What the give-back left (every plain one when it ran inside
		 * a move a handler interrupted), and one in transit, its
		 * state still the reserve's: a move
		 * another thread will not finish once the image is replaced,
		 * or this thread's a handler jumped out of or execs from
		 * (ur_move), whose flag may not yet be the one its state says
		 * (a one-thread adoption's state written, its F_SETFD not:
		 * fd_fuzz's jumps, then a spawn, 4 of 10 runs on 1cafa57). */
		int v = atomic_load(&ur_reserve[d].fd), fd = ur_slot_number(v);
		unsigned st;

		fds[d] = -1;
		if (fd < 0 || (!((st = atomic_load(ur_fd(fd))) & UR_RESERVE) &&
		               !(v < 0 && !st && atomic_load(&ur_split_done))) ||
		    (v >= 0 && (st & UR_CLOEXEC)))
			continue;
		/* A marked one is noted whatever its state says: only the
		 * state after the exec tells which flag is the program's. */
		if (UR_REAL(fcntl)(fd, F_SETFD, FD_CLOEXEC) == 0 && (v < 0 || !(st & UR_CLOEXEC)))
			fds[d] = fd;
	}
	errno = saved;
}

/* The exec failed (or the spawn is done): each guarded number gets back the
 * flag its state says, if it is still ours.  A reserve still at rest in its
 * slot is claimed for that (marked, as a move does): no open takes it
 * between our reading its state and our flag (a cold review: an open
 * adopted it there and was left with the wrong flag: its unguard_race,
 * 177,252 of 5.8M cycles on 9059122).  One in transit, or the program's
 * now, gets the flag its state says: the program's own F_SETFD between
 * that state and ours is the window left (fastpath(7)).  Not in a vfork
 * child, whose table is its own: our memory stays untouched there. */
void ur_exec_unguard(const int fds[UR_NRES])
{
	int d, saved = errno, cs = 0;
	bool any = false;
	sigset_t old;

	if (!ur_table_ours()) {  /* a vfork child's own table */
		for (d = 0; d < UR_NRES; d++)
			if (fds[d] >= 0)
				(void)UR_REAL(fcntl)(fds[d], F_SETFD, 0);
		errno = saved;
		return;
	}
	for (d = 0; d < UR_NRES; d++)
		any = any || fds[d] >= 0;
	/* Nothing noted (no reserve, or the device never opened): the
	 * count alone. */
	if (!any) {
		atomic_fetch_add(&ur_guards[1], 1);
		ur_guards_mine--;
		return;
	}

	/* The claims with every signal blocked, as a move's flag change
	 * (ur_adopt_setfd): a handler's jump out would leave a slot marked
	 * for good, and one that forked and opened a file at that number in
	 * the child would have our F_SETFD land on it. */
	ur_block_all(&old, &cs);
	for (d = 0; d < UR_NRES; d++) {
		int fd = fds[d], v = fd, mark = UR_CLOSING(fd);
		bool claimed;
		unsigned st;

		if (fd < 0)
			continue;
		claimed = atomic_compare_exchange_strong(&ur_reserve[d].fd, &v, mark);
		st = ur_state(fd);
		if (st && !(st & UR_CLOEXEC))
			(void)UR_REAL(fcntl)(fd, F_SETFD, 0);
		if (claimed)
			(void)atomic_compare_exchange_strong(&ur_reserve[d].fd, &mark, fd);
	}
	/* A split while a claim was held gave back every reserve but the
	 * claimed ones: given back now, never kept past it (as ur_close
	 * does). */
	if (fp_unlikely(atomic_load(&ur_split_done)))
		(void)ur_give_back(EMFILE);
	ur_unblock_all(&old, cs);
	atomic_fetch_add(&ur_guards[1], 1);
	ur_guards_mine--;
	errno = saved;
}
