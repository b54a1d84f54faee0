#define _GNU_SOURCE
#include "isolation_sandbox.h"

/* Limits, the terminal, and the order of the confinement; the seccomp
   filters themselves are isolation_filter.c's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

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
   system right this kernel knows and allows none of them, and, from ABI 6,
   scopes signals and abstract sockets to this process. */
struct fhi_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_restrict_self 446
#endif
#define FHI_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define FHI_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define FHI_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

static int deny_file_system(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, FHI_LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return -1;
    /* ABI 1 knows 13 rights, 2 adds REFER, 3 TRUNCATE; later ABIs add
       rights that are not about opening files (ioctl on devices opened
       later, networking) and need no more here: with no rule, no file can
       be opened at all. */
    uint64_t rights = (1ULL << 13) - 1;
    if (abi >= 2) rights |= 1ULL << 13;
    if (abi >= 3) rights |= 1ULL << 14;
    struct fhi_landlock_ruleset_attr attr = {.handled_access_fs = rights};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 6) {
        /* The seccomp filter already refuses signals to others; this says
           the same in the kernel's own terms, for whatever call a later
           kernel adds. */
        attr.scoped = FHI_LANDLOCK_SCOPE_SIGNAL | FHI_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
        size = sizeof attr;
    }
    long ruleset = syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return -1;
    long rc = syscall(__NR_landlock_restrict_self, ruleset, 0);
    close((int)ruleset);
    return rc == 0 ? 0 : -1;
}
#endif

static void append(char *applied, size_t applied_size, const char *what) {
    size_t used = strlen(applied);
    snprintf(applied + used, applied_size - used, "%s%s", used ? ", " : "", what);
}

void fhi_leave_terminal(void) {
    /* A session of its own: no controlling terminal, so no terminal's
       input can be faked (TIOCSTI) and no terminal signal reaches it. */
    setsid();
    /* Nor a terminal on its standard descriptors, whoever started it. */
    for (int fd = 0; fd <= 2; fd++) {
        if (!isatty(fd)) continue;
        int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null < 0) _exit(71);
        if (null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
}

void fhi_confine_calls(char *applied, size_t applied_size) {
    applied[0] = '\0';
#if defined(__linux__) && !defined(FHI_SANITIZED)
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return;
    append(applied, applied_size, "no-new-privs");
    if (fhi_filter_calls() == 0) append(applied, applied_size, "seccomp");
#else
    (void)append;
#endif
}

#if defined(__linux__) && !defined(FHI_SANITIZED)
/* The threads of this process, from /proc/self/stat (its 20th field), or
   -1. Read under the first step, which still opens files for reading. */
static long thread_count(void) {
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[1024];
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return -1;
    text[length] = '\0';
    /* The name, field 2, is in parentheses and may hold spaces: count from after it. */
    char *field = strrchr(text, ')');
    if (!field) return -1;
    for (int i = 2; i < 20 && field; i++) field = strchr(field + 1, ' ');
    return field ? strtol(field + 1, NULL, 10) : -1;
}
#endif

void fhi_confine_files(char *applied, size_t applied_size) {
#if defined(__linux__) && !defined(FHI_SANITIZED)
    /* Without no-new-privs neither can be applied. */
    if (!strstr(applied, "no-new-privs")) return;
    /* Landlock and a filter bind the thread that applies them (and the
       threads it starts later), not threads already running: one that a
       library's constructor started would keep the first step for life and
       read any file the host's user can. Such a library runs no flow. */
    if (thread_count() != 1) {
        static const char refusal[] = "flowhost plugin-host: the library started a thread while it was loaded; "
                                      "a thread it made before the confinement would escape it\n";
        (void)!write(STDERR_FILENO, refusal, sizeof refusal - 1);
        _exit(71);
    }
    if (deny_file_system() == 0) append(applied, applied_size, "landlock");
    if (strstr(applied, "seccomp") && fhi_filter_files() != 0) {
        /* Files stay reachable by path: the child must not run a flow. */
        _exit(71);
    }
#else
    (void)applied;
    (void)applied_size;
#endif
}
