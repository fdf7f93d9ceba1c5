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

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "probe") == 0)
		return probe();
	if (argc < 3 || (strcmp(argv[1], "ENOSYS") != 0 && strcmp(argv[1], "EPERM") != 0 &&
	                 strcmp(argv[1], "KILL") != 0 && strcmp(argv[1], "SERVICE") != 0 &&
	                 strcmp(argv[1], "REFUSE") != 0)) {
		fprintf(stderr, "usage: prog_urandom_seccomp ENOSYS|EPERM|KILL|SERVICE|REFUSE COMMAND [ARG...]\n");
		return 2;
	}
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#if defined(ARCH)
	if (strcmp(argv[1], "SERVICE") == 0 || strcmp(argv[1], "REFUSE") == 0) {
		unsigned act = argv[1][0] == 'S' ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | EPERM;
		/* arch; nr; one test per number, each jumping to the action
		 * at the end; allow */
		struct sock_filter f[4 + SERVICE_OUT + 2];
		struct sock_fprog prog = { .len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f };
		unsigned i = 0;

		f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
		f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
		f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
		for (unsigned k = 0; k < SERVICE_OUT; k++, i++)
			f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)service_out[k],
			                                    (unsigned char)(SERVICE_OUT - k), 0);
		f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		f[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, act);
		prog.len = (unsigned short)(i + 1);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
			perror("prog_urandom_seccomp: no filter");
			return 77;
		}
		execvp(argv[2], argv + 2);
		perror("prog_urandom_seccomp: exec");
		return 127;
	}
#endif
#if defined(ARCH) && defined(SYS_getrandom)
	{
		unsigned err = strcmp(argv[1], "EPERM") == 0 ? EPERM : ENOSYS;
		unsigned act = strcmp(argv[1], "KILL") == 0 ? SECCOMP_RET_KILL_PROCESS
		                                            : SECCOMP_RET_ERRNO | err;
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, act),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = sizeof f / sizeof f[0], .filter = f };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
			perror("prog_urandom_seccomp: no filter");
			return 77;
		}
	}
	execvp(argv[2], argv + 2);
	perror("prog_urandom_seccomp: exec");
	return 127;
#else
	fprintf(stderr, "prog_urandom_seccomp: no filter for this architecture\n");
	return 77;
#endif
}
