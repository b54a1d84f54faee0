#define _GNU_SOURCE
#include "isolation_sandbox.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FHI_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FHI_SANITIZED 1
#endif

static int limit(int resource, rlim_t value, const char *name, char *problem, size_t problem_size) {
    struct rlimit wanted = {value, value};
    if (setrlimit(resource, &wanted) == 0) return 0;
    snprintf(problem, problem_size, "cannot set %s: %s", name, strerror(errno));
    return -1;
}

int fhi_apply_limits(const flowhost_isolation_limits *limits, char *problem, size_t problem_size) {
#if defined(__linux__)
    /* The host's end is this process's end. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    /* A core file would hold what the flow held: passwords among it. */
    if (limit(RLIMIT_CORE, 0, "RLIMIT_CORE", problem, problem_size) != 0) return -1;
#ifndef FHI_SANITIZED
    /* A sanitizer reserves terabytes of address space for its shadow: the
       limit is left off in those builds (spec: what is enforced). */
    if (limits->address_space_bytes &&
        limit(RLIMIT_AS, (rlim_t)limits->address_space_bytes, "RLIMIT_AS", problem, problem_size) != 0) return -1;
#endif
    if (limits->cpu_seconds && limit(RLIMIT_CPU, (rlim_t)limits->cpu_seconds, "RLIMIT_CPU", problem, problem_size) != 0) return -1;
    if (limits->open_files && limit(RLIMIT_NOFILE, (rlim_t)limits->open_files, "RLIMIT_NOFILE", problem, problem_size) != 0) return -1;
    return 0;
}

#if defined(__linux__) && !defined(FHI_SANITIZED)

/* Landlock, from the kernel's UAPI (linux/landlock.h), declared here so an
   older header does not stop the build: a ruleset that handles every file
   system right this kernel knows and allows none of them. */
struct fhi_landlock_ruleset_attr {
    uint64_t handled_access_fs;
};
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_restrict_self 446
#endif
#define FHI_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

static int deny_file_system(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, FHI_LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return -1;
    /* ABI 1 knows 13 rights, 2 adds REFER, 3 TRUNCATE; later ABIs add
       rights that are not about files (ioctl on devices, networking, scopes)
       and need no more here: with no rule, no file can be opened at all. */
    uint64_t rights = (1ULL << 13) - 1;
    if (abi >= 2) rights |= 1ULL << 13;
    if (abi >= 3) rights |= 1ULL << 14;
    struct fhi_landlock_ruleset_attr attr = {.handled_access_fs = rights};
    long ruleset = syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0) return -1;
    long rc = syscall(__NR_landlock_restrict_self, ruleset, 0);
    close((int)ruleset);
    return rc == 0 ? 0 : -1;
}

#if defined(__x86_64__)
#define FHI_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FHI_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef FHI_AUDIT_ARCH
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

/* A deny list (the Swift runtime and libc need too much for an allow list
   to stay right across releases): no new sockets, no programs, no new
   processes (threads are fine), no signals to anyone but itself, no
   debugging or reading other processes, no kernel administration. */
static int deny_system_calls(void) {
    pid_t self = getpid();
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FHI_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        LOAD_NR,
        /* clone: threads only (CLONE_THREAD in its flags, the first argument). */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        LOAD_NR,
        /* tgkill and tkill: this process only (abort raises with tgkill). */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)self, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        LOAD_NR,
        /* clone3's flags sit in memory a filter cannot read: ENOSYS makes
           glibc fall back to clone for a thread. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 435 /* clone3 */, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        DENY(__NR_socket),
        DENY(__NR_socketpair),
        DENY(__NR_connect),
        DENY(__NR_bind),
        DENY(__NR_listen),
        DENY(__NR_accept),
        DENY(__NR_accept4),
        DENY(__NR_execve),
        DENY(__NR_execveat),
#ifdef __NR_fork
        DENY(__NR_fork),
#endif
#ifdef __NR_vfork
        DENY(__NR_vfork),
#endif
        DENY(__NR_kill),
        DENY(__NR_tkill),
        DENY(__NR_ptrace),
        DENY(__NR_process_vm_readv),
        DENY(__NR_process_vm_writev),
        DENY(__NR_mount),
        DENY(__NR_umount2),
        DENY(__NR_chroot),
        DENY(__NR_pivot_root),
        DENY(__NR_setns),
        DENY(__NR_unshare),
        DENY(__NR_bpf),
        DENY(__NR_perf_event_open),
        DENY(__NR_keyctl),
        DENY(__NR_add_key),
        DENY(__NR_request_key),
        DENY(__NR_init_module),
        DENY(__NR_finit_module),
        DENY(__NR_delete_module),
        DENY(__NR_kexec_load),
        DENY(__NR_reboot),
        DENY(__NR_swapon),
        DENY(__NR_swapoff),
        DENY(__NR_userfaultfd),
        DENY(__NR_io_uring_setup),
        DENY(__NR_personality),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 ? 0 : -1;
}
#endif
#endif

static void append(char *applied, size_t applied_size, const char *what) {
    size_t used = strlen(applied);
    snprintf(applied + used, applied_size - used, "%s%s", used ? ", " : "", what);
}

void fhi_confine(char *applied, size_t applied_size) {
    applied[0] = '\0';
#if defined(__linux__) && !defined(FHI_SANITIZED)
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return;
    append(applied, applied_size, "no-new-privs");
    if (deny_file_system() == 0) append(applied, applied_size, "landlock");
#ifdef FHI_AUDIT_ARCH
    if (deny_system_calls() == 0) append(applied, applied_size, "seccomp");
#endif
#else
    (void)append;
#endif
    if (!applied[0]) snprintf(applied, applied_size, "none");
}
