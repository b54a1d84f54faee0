#define _GNU_SOURCE
#include "flowhost_system.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* posix_spawn with pipes: Swift cannot reach `environ` safely under strict
   concurrency, and the file-action calls are clearer in C. */
pid_t flowhost_spawn(char *const argv[], int *to_child, int *from_child) {
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
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
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
