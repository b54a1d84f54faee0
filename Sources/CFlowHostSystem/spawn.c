#define _GNU_SOURCE
#include "flowhost_system.h"

#include <errno.h>
#include <signal.h>
#include <time.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* posix_spawn with pipes: Swift cannot reach `environ` safely under strict
   concurrency, and the file-action calls are clearer in C. */
pid_t flowhost_spawn(char *const argv[], int *to_child, int *from_child) {
    return flowhost_spawn_with_environment(argv, environ, to_child, from_child);
}

pid_t flowhost_spawn_with_environment(char *const argv[], char *const environment[], int *to_child, int *from_child) {
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (to_child && pipe2(in, O_CLOEXEC) != 0) return -1;
    if (from_child && pipe2(out, O_CLOEXEC) != 0) {
        if (to_child) { close(in[0]); close(in[1]); }
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (to_child) posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    if (from_child) posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    if (to_child) close(in[0]);
    if (from_child) close(out[1]);
    if (rc != 0) {
        if (to_child) close(in[1]);
        if (from_child) close(out[0]);
        errno = rc;
        return -1;
    }
    if (to_child) *to_child = in[1];
    if (from_child) *from_child = out[0];
    return pid;
}

int flowhost_wait(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int flowhost_wait_timeout(pid_t pid, int timeout_ms) {
    struct timespec start, now, pause = {0, 5 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int status;
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (done < 0 && errno != EINTR) return -1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= timeout_ms) {
            kill(pid, SIGKILL);
            flowhost_wait(pid);
            return -2;
        }
        nanosleep(&pause, NULL);
    }
}
