/*
 * isolation_filter.c — the seccomp filters of a flow's child: an allow
 * list. Every system call not named here fails (EPERM; ENOSYS where libc
 * then falls back to an older call), so a call a later kernel adds is
 * refused until someone decides it is safe.
 *
 * What a flow needs after its library is loaded is small: memory, threads,
 * its socket and the descriptors it was given, time, randomness, signals
 * to itself, and exit. Calls that could name another process are allowed
 * only naming this one (kill, tgkill, prlimit64, sched_getaffinity), and
 * calls that name a file, or change one's metadata, are not allowed at all
 * (chmod, chown, utimensat, rename, link, unlink, mknod, stat by path,
 * name_to_handle_at): Landlock governs opening files, not those.
 *
 * How it stays right across releases of the Swift runtime, glibc and
 * jansson: the end-to-end suite runs every built flow isolated
 * (FLOWHOST_TEST_ISOLATE=all, scripts/test.sh, on the release build), and
 * test_confinement.py tries each escape this filter closes.
 */
#define _GNU_SOURCE
#include "isolation_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__) && !defined(FHI_SANITIZED)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>

#if defined(__x86_64__)
#define FHI_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FHI_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#endif

#ifdef FHI_AUDIT_ARCH

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif

/* A program built instruction by instruction. Each test of a call number
   is followed by its own short block that ends in a return, so no jump is
   longer than the block it skips. */
struct program {
    struct sock_filter code[512];
    unsigned length;
    int overflow;
};

static void put(struct program *p, struct sock_filter instruction) {
    if (p->length < sizeof p->code / sizeof p->code[0]) p->code[p->length++] = instruction;
    else p->overflow = 1;
}

#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(field))
#define ARG_LOW(i) (offsetof(struct seccomp_data, args) + (i) * sizeof(uint64_t))
#define ARG_HIGH(i) (ARG_LOW(i) + sizeof(uint32_t))
#define ALLOW SECCOMP_RET_ALLOW
#define REFUSE(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static void load_number(struct program *p) { put(p, (struct sock_filter)LOAD(offsetof(struct seccomp_data, nr))); }

/* `nr` returns `action`. */
static void on(struct program *p, long nr, uint32_t action) {
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
    put(p, (struct sock_filter)RET(action));
}

/* `nr` runs `block` (which ends in returns; it may load anything). */
static void on_block(struct program *p, long nr, const struct sock_filter *block, unsigned count) {
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, (uint8_t)count));
    for (unsigned i = 0; i < count; i++) put(p, block[i]);
}
#define ON_BLOCK(p, nr, ...)                                                  \
    do {                                                                      \
        const struct sock_filter block_[] = {__VA_ARGS__};                    \
        on_block(p, nr, block_, sizeof block_ / sizeof block_[0]);            \
    } while (0)

/* Allowed when argument `i` (an int: its low word) is one of two values. */
static void when_argument_is(struct program *p, long nr, unsigned i, uint32_t a, uint32_t b) {
    ON_BLOCK(p, nr, LOAD(ARG_LOW(i)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a, 2, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, b, 1, 0), RET(REFUSE(EPERM)), RET(ALLOW));
}

static int install(struct program *p) {
    if (p->overflow) return -1;
    struct sock_fprog program = {.len = (unsigned short)p->length, .filter = p->code};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 ? 0 : -1;
}

static void check_architecture(struct program *p) {
    put(p, (struct sock_filter)LOAD(offsetof(struct seccomp_data, arch)));
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FHI_AUDIT_ARCH, 1, 0));
    put(p, (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS));
}

static const long plainly_allowed[] = {
    /* Memory. */
    __NR_brk, __NR_mmap, __NR_munmap, __NR_mremap, __NR_mprotect, __NR_madvise, __NR_membarrier,
    /* Threads, and waiting. */
    __NR_futex, __NR_set_robust_list, __NR_get_robust_list, __NR_set_tid_address, __NR_rseq, __NR_sched_yield,
    __NR_gettid, __NR_getpid, __NR_getppid, __NR_exit, __NR_exit_group, __NR_restart_syscall,
    /* Signals to itself (delivery, masks, handlers). */
    __NR_rt_sigaction, __NR_rt_sigprocmask, __NR_rt_sigreturn, __NR_sigaltstack, __NR_rt_sigtimedwait,
    __NR_rt_sigsuspend,
    /* The descriptors it holds: its socket, the pipe to the host's log,
       /dev/null. Opening new ones is another matter (openat, below). */
    __NR_read, __NR_write, __NR_readv, __NR_writev, __NR_pread64, __NR_pwrite64, __NR_close, __NR_close_range,
    __NR_dup, __NR_dup3, __NR_lseek, __NR_fstat, __NR_sendto, __NR_recvfrom, __NR_ppoll, __NR_pselect6,
#ifdef __NR_poll
    __NR_poll,
#endif
#ifdef __NR_select
    __NR_select,
#endif
#ifdef __NR_dup2
    __NR_dup2,
#endif
    /* Time and randomness. */
    __NR_clock_gettime, __NR_clock_getres, __NR_clock_nanosleep, __NR_nanosleep, __NR_gettimeofday, __NR_getrandom,
#ifdef __NR_time
    __NR_time,
#endif
    __NR_getrusage, __NR_times,
    /* Who it is (its own ids, the machine's name and release). */
    __NR_getuid, __NR_geteuid, __NR_getgid, __NR_getegid, __NR_uname,
#ifdef __NR_getrlimit
    __NR_getrlimit,
#endif
    /* Confining itself further is always allowed. */
    __NR_seccomp, __NR_landlock_create_ruleset, __NR_landlock_add_rule, __NR_landlock_restrict_self,
};

int fhi_filter_calls(void) {
    static struct program program;
    struct program *p = &program;
    p->length = 0;
    p->overflow = 0;
    uint32_t self = (uint32_t)getpid();
    check_architecture(p);
    load_number(p);
    for (size_t i = 0; i < sizeof plainly_allowed / sizeof plainly_allowed[0]; i++) on(p, plainly_allowed[i], ALLOW);
    /* Threads only: CLONE_THREAD in clone's flags (its first argument).
       clone3's flags sit in memory a filter cannot read: ENOSYS makes libc
       fall back to clone. */
    ON_BLOCK(p, __NR_clone, LOAD(ARG_LOW(0)), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1), RET(ALLOW),
             RET(REFUSE(EPERM)));
    on(p, __NR_clone3, REFUSE(ENOSYS));
    /* Signals: to this process only (abort and raise use tgkill). tkill
       names a thread of any process; rt_sigqueueinfo, rt_tgsigqueueinfo
       and the pidfd calls are not allowed at all. */
    when_argument_is(p, __NR_kill, 0, self, self);
    when_argument_is(p, __NR_tgkill, 0, self, self);
    /* Limits and CPUs: read, and its own only (0 is itself). prlimit64
       with a new limit is refused: a root child could raise its own. */
    ON_BLOCK(p, __NR_prlimit64, LOAD(ARG_LOW(0)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 1, 0), RET(REFUSE(EPERM)), LOAD(ARG_LOW(2)),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2), LOAD(ARG_HIGH(2)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
             RET(REFUSE(EPERM)), RET(ALLOW));
    when_argument_is(p, __NR_sched_getaffinity, 0, 0, self);
    /* ioctl: the few requests on a descriptor's own state; any other
       (TIOCSTI, a terminal's settings) is "not a terminal". */
    ON_BLOCK(p, __NR_ioctl, LOAD(ARG_LOW(1)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FIONREAD, 4, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FIONBIO, 3, 0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FIOCLEX, 2, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FIONCLEX, 1, 0), RET(REFUSE(ENOTTY)), RET(ALLOW));
    /* fcntl: a descriptor's flags and copies; not F_SETOWN or F_SETSIG
       (they aim SIGIO at a process), leases or notifications. */
    ON_BLOCK(p, __NR_fcntl, LOAD(ARG_LOW(1)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GETFD, 6, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETFD, 5, 0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GETFL, 4, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETFL, 3, 0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_DUPFD, 2, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_DUPFD_CLOEXEC, 1, 0), RET(REFUSE(EPERM)), RET(ALLOW));
    /* prctl: a thread's name, a mapping's name, no-new-privs and seccomp
       (confining itself); not PR_SET_PTRACER, PR_SET_DUMPABLE, PR_SET_MM. */
    ON_BLOCK(p, __NR_prctl, LOAD(ARG_LOW(0)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NAME, 7, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_GET_NAME, 6, 0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_VMA, 5, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NO_NEW_PRIVS, 4, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_GET_NO_NEW_PRIVS, 3, 0),
             BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 2, 0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_GET_SECCOMP, 1, 0),
             RET(REFUSE(EPERM)), RET(ALLOW));
    /* Until the library is loaded the dynamic linker opens and reads files
       (the second filter then closes these): for reading only, so a
       constructor can create, truncate or write no file. */
    const uint32_t writes = O_ACCMODE | O_CREAT | O_TRUNC;
    ON_BLOCK(p, __NR_openat, LOAD(ARG_LOW(2)), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, writes, 0, 1), RET(REFUSE(EPERM)),
             RET(ALLOW));
#ifdef __NR_open
    ON_BLOCK(p, __NR_open, LOAD(ARG_LOW(1)), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, writes, 0, 1), RET(REFUSE(EPERM)),
             RET(ALLOW));
#endif
    on(p, __NR_newfstatat, ALLOW);
    /* Newer calls libc tries first and falls back from. */
    on(p, __NR_openat2, REFUSE(ENOSYS));
    on(p, __NR_statx, REFUSE(ENOSYS));
    put(p, (struct sock_filter)RET(REFUSE(EPERM)));
    return install(p);
}

/* After the libraries are loaded: no call that names a path, whatever
   Landlock (if the kernel has it) would say. openat is refused as Landlock
   refuses it (EACCES), so a missing file and a present one look alike. */
int fhi_filter_files(void) {
    static struct program program;
    struct program *p = &program;
    p->length = 0;
    p->overflow = 0;
    check_architecture(p);
    load_number(p);
    on(p, __NR_openat, REFUSE(EACCES));
#ifdef __NR_open
    on(p, __NR_open, REFUSE(EACCES));
#endif
    on(p, __NR_newfstatat, REFUSE(EPERM));
    put(p, (struct sock_filter)RET(ALLOW));
    return install(p);
}

#else

int fhi_filter_calls(void) { return -1; }
int fhi_filter_files(void) { return -1; }

#endif
