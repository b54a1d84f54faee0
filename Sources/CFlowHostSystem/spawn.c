/* The one way FlowHost starts a program: the isolation's children, the
   delivery command, the demo's host, the inspector's hosts. */
#define _GNU_SOURCE
#include "flowhost_system.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long elapsed_ms(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

static pid_t failed(flowhost_spawn_error *error, flowhost_spawn_step step, int number) {
    if (error) *error = (flowhost_spawn_error){step, number};
    return -1;
}

pid_t flowhost_spawn(const flowhost_spawn_plan *plan, flowhost_spawn_error *error) {
    if (error) *error = (flowhost_spawn_error){FLOWHOST_SPAWN_STARTED, 0};
    int highest = -1;
    for (size_t i = 0; i < plan->descriptor_count; i++) {
        if (plan->descriptors[i].child > highest) highest = plan->descriptors[i].child;
    }
    /* Each parent descriptor is copied above every number the child is
       given first, so that putting one in place never overwrites another
       still to be copied (a parent run with fd 1 or 2 closed has pipes at
       low numbers). The copies are close-on-exec and closed below. */
    int *copies = calloc(plan->descriptor_count ? plan->descriptor_count : 1, sizeof *copies);
    if (!copies) return failed(error, FLOWHOST_SPAWN_FAILED_COPY, ENOMEM);
    int number = 0;
    size_t copied = 0;
    for (; copied < plan->descriptor_count; copied++) {
        int parent = plan->descriptors[copied].parent;
        copies[copied] = parent < 0 ? -1 : fcntl(parent, F_DUPFD_CLOEXEC, highest + 1);
        /* A parent descriptor that is not open (a host started with its
           stderr closed) is /dev/null in the child, never a gap that the
           child's next open would fill. */
        if (parent >= 0 && copies[copied] < 0 && errno != EBADF) {
            number = errno;
            break;
        }
    }
    pid_t pid = -1;
    if (!number) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        for (int fd = 0; fd <= highest; fd++) {
            int given = 0;
            for (size_t i = 0; i < plan->descriptor_count; i++) {
                if (plan->descriptors[i].child != fd) continue;
                if (copies[i] >= 0) posix_spawn_file_actions_adddup2(&actions, copies[i], fd);
                else posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0);
                given = 1;
                break;
            }
            if (!given) posix_spawn_file_actions_addclose(&actions, fd);
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, highest + 1);
        /* A new program starts with every signal at its default and none
           blocked, whatever this process ignores (SIGPIPE) or blocks. */
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t all, none;
        sigfillset(&all);
        sigemptyset(&none);
        posix_spawnattr_setsigdefault(&attributes, &all);
        posix_spawnattr_setsigmask(&attributes, &none);
        short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
        if (plan->new_session) flags |= POSIX_SPAWN_SETSID;
        posix_spawnattr_setflags(&attributes, flags);
        char *const *environment = plan->environment ? plan->environment : environ;
        number = posix_spawnp(&pid, plan->argv[0], &actions, &attributes, plan->argv, environment);
        posix_spawnattr_destroy(&attributes);
        posix_spawn_file_actions_destroy(&actions);
        if (number) pid = -1;
        else if (error) error->step = FLOWHOST_SPAWN_STARTED;
    }
    for (size_t i = 0; i < copied; i++) {
        if (copies[i] >= 0) close(copies[i]);
    }
    free(copies);
    if (pid < 0) return failed(error, copied < plan->descriptor_count ? FLOWHOST_SPAWN_FAILED_COPY : FLOWHOST_SPAWN_FAILED_START, number);
    return pid;
}

int flowhost_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

ssize_t flowhost_read_to_end(int fd, void *buffer, size_t capacity, int timeout_ms, int *cut) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t kept = 0;
    if (cut) *cut = 0;
    char spill[4096];
    for (;;) {
        if (timeout_ms >= 0) {
            long left = timeout_ms - elapsed_ms(&start);
            struct pollfd ready = {fd, POLLIN, 0};
            int polled = left > 0 ? poll(&ready, 1, (int)left) : 0;
            if (polled < 0 && errno == EINTR) continue;
            if (polled < 0) return -1;
            if (polled == 0) {
                errno = ETIMEDOUT;
                return -1;
            }
        }
        /* Past `capacity`, read and drop: a writer is never left blocked on a full pipe. */
        int room = kept < capacity;
        ssize_t count = room ? read(fd, (char *)buffer + kept, capacity - kept) : read(fd, spill, sizeof spill);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return -1;
        if (count == 0) return (ssize_t)kept;
        if (room) kept += (size_t)count;
        else if (cut) *cut = 1;
    }
}

int flowhost_wait_for_end(pid_t pid, int timeout_ms) {
    struct timespec start, pause = {0, 5 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        siginfo_t info = {0};
        int options = WEXITED | WNOWAIT | (timeout_ms >= 0 ? WNOHANG : 0);
        if (waitid(P_PID, (id_t)pid, &info, options) != 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (info.si_pid == pid) return 0;
        if (elapsed_ms(&start) >= timeout_ms) return 1;
        nanosleep(&pause, NULL);
    }
}

int flowhost_reap(pid_t pid, int *status) {
    while (waitpid(pid, status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return 0;
}

int flowhost_exit_code(int status, int *signalled) {
    int by_signal = WIFSIGNALED(status);
    if (signalled) *signalled = by_signal;
    if (by_signal) return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
