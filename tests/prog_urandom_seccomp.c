/* SPDX-License-Identifier: MIT */
/*
 * prog_urandom_seccomp: runs a command where getrandom(2) is refused, as an
 * old container seccomp profile does (the environment where Debian's
 * libuuid opens /dev/urandom per UUID).
 *   prog_urandom_seccomp ENOSYS|EPERM|KILL COMMAND [ARG...]
 *                         installs a filter that answers every getrandom
 *                         system call (the vDSO's too) with that errno,
 *                         or (KILL) kills the process that makes one
 *                         (SECCOMP_RET_KILL_PROCESS, Linux 4.14), then
 *                         execs COMMAND
 *   prog_urandom_seccomp SERVICE COMMAND [ARG...]
 *                         installs a filter that kills the process at
 *                         any call a hardened service's filter denies
 *                         and a preload could reach for: systemd's @debug
 *                         set (SystemCallFilter=~@debug: ptrace,
 *                         process_vm_readv/writev, perf_event_open;
 *                         newer systemd lists process_vm_* in @ipc too),
 *                         and calls @system-service leaves out (@mount's,
 *                         @module's, @raw-io's, @reboot's, @swap's,
 *                         @clock's, @cpu-emulation's, bpf, userfaultfd);
 *                         then execs COMMAND
 *   prog_urandom_seccomp REFUSE COMMAND [ARG...]
 *                         the same calls answered with EPERM, as Docker's
 *                         profile answers process_vm_readv/writev and
 *                         ptrace without CAP_SYS_PTRACE
 *   prog_urandom_seccomp NOMEMFD COMMAND [ARG...]
 *                         memfd_create answered with EPERM, as a
 *                         filter denying systemd's @ipc set of old
 *                         answers it (the CPU cap's served copies then
 *                         need another file)
 *   prog_urandom_seccomp probe
 *                         getrandom(16) and getentropy(16): prints each
 *                         result and errno (run under the filter)
 * Exits 77 where no filter can be installed (another architecture, no
 * seccomp).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define ARCH AUDIT_ARCH_I386
#endif

static int probe(void)
{
	unsigned char b[16];
	long r = (long)getrandom(b, sizeof b, 0);

	printf("getrandom = %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "");
	r = getentropy(b, sizeof b);
	printf("getentropy = %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "");
	return 0;
}

#if defined(ARCH)
/* What SERVICE kills: the numbers this architecture has. */
static const long service_out[] = {
#define N(x) SYS_##x,
#ifdef SYS_ptrace
	N(ptrace)
#endif
#ifdef SYS_process_vm_readv
	N(process_vm_readv) N(process_vm_writev)
#endif
#ifdef SYS_perf_event_open
	N(perf_event_open)
#endif
#ifdef SYS_lookup_dcookie
	N(lookup_dcookie)
#endif
#ifdef SYS_mount
	N(mount) N(umount2) N(pivot_root)
#endif
#ifdef SYS_init_module
	N(init_module) N(finit_module) N(delete_module)
#endif
#ifdef SYS_iopl
	N(iopl)
#endif
#ifdef SYS_ioperm
	N(ioperm)
#endif
#ifdef SYS_reboot
	N(reboot) N(kexec_load)
#endif
#ifdef SYS_swapon
	N(swapon) N(swapoff)
#endif
#ifdef SYS_settimeofday
	N(settimeofday) N(clock_settime) N(adjtimex) N(clock_adjtime)
#endif
#ifdef SYS_modify_ldt
	N(modify_ldt)
#endif
#ifdef SYS_bpf
	N(bpf)
#endif
#ifdef SYS_userfaultfd
	N(userfaultfd)
#endif
#undef N
};
#define SERVICE_OUT (sizeof service_out / sizeof service_out[0])
#endif

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

#if defined(ARCH)
/* A filter that answers the n calls in nrs with act (and lets every other
 * call, and every other architecture's, through), then COMMAND: 77 where
 * no filter can be installed, 127 where COMMAND cannot be run. */
static int filter_exec(const long *nrs, size_t n, unsigned act, char **cmd)
{
	/* arch; nr; one test per number, each jumping to act at the end;
	 * allow */
	struct sock_filter f[4 + SERVICE_OUT + 2];
	struct sock_fprog prog = { .filter = f };
	unsigned i = 0;

	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t k = 0; k < n && k < SERVICE_OUT; k++, i++)
		f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[k],
		                                    (unsigned char)(n - k), 0);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, act);
	prog.len = (unsigned short)(i + 1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("prog_urandom_seccomp: no filter");
		return 77;
	}
	execvp(cmd[0], cmd);
	perror("prog_urandom_seccomp: exec");
	return 127;
}
#endif

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (argc == 2 && strcmp(m, "probe") == 0)
		return probe();
	if (argc < 3 || (strcmp(m, "ENOSYS") != 0 && strcmp(m, "EPERM") != 0 && strcmp(m, "KILL") != 0 &&
	                 strcmp(m, "SERVICE") != 0 && strcmp(m, "REFUSE") != 0 && strcmp(m, "NOMEMFD") != 0)) {
		fprintf(stderr, "usage: prog_urandom_seccomp ENOSYS|EPERM|KILL|SERVICE|REFUSE|NOMEMFD COMMAND [ARG...]\n");
		return 2;
	}
#if defined(ARCH) && defined(SYS_memfd_create)
	if (strcmp(m, "NOMEMFD") == 0) {
		static const long memfd_nr[] = { SYS_memfd_create };

		return filter_exec(memfd_nr, 1, SECCOMP_RET_ERRNO | EPERM, argv + 2);
	}
#endif
#if defined(ARCH)
	if (strcmp(m, "SERVICE") == 0)
		return filter_exec(service_out, SERVICE_OUT, SECCOMP_RET_KILL_PROCESS, argv + 2);
	if (strcmp(m, "REFUSE") == 0)
		return filter_exec(service_out, SERVICE_OUT, SECCOMP_RET_ERRNO | EPERM, argv + 2);
#endif
#if defined(ARCH) && defined(SYS_getrandom)
	{
		static const long getrandom_nr[] = { SYS_getrandom };

		return filter_exec(getrandom_nr, 1,
		                   strcmp(m, "KILL") == 0    ? SECCOMP_RET_KILL_PROCESS
		                   : strcmp(m, "EPERM") == 0 ? SECCOMP_RET_ERRNO | EPERM
		                                             : SECCOMP_RET_ERRNO | ENOSYS,
		                   argv + 2);
	}
#else
	fprintf(stderr, "prog_urandom_seccomp: no filter for this architecture\n");
	return 77;
#endif
}
