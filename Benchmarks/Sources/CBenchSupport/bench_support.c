#define _GNU_SOURCE
#include "bench_support.h"

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int bench_pin_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int bench_unpin(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i < count; i++) CPU_SET((int)i, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

pid_t bench_spawn(char *const argv[], int cpu, int *to_child, int *from_child, int quiet_stderr) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    if (quiet_stderr) posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    /* The child inherits the parent's affinity: pin around the spawn, then
       give the caller back its own affinity (not every CPU: in the one-core
       rounds the caller is pinned too, and must stay so). */
    cpu_set_t saved;
    int restore = cpu >= 0 && sched_getaffinity(0, sizeof saved, &saved) == 0;
    if (cpu >= 0) bench_pin_to_cpu(cpu);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &actions, &attributes, argv, environ);
    if (restore) sched_setaffinity(0, sizeof saved, &saved);
    else if (cpu >= 0) bench_unpin();
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        close(in[1]);
        close(out[0]);
        return -1;
    }
    *to_child = in[1];
    *from_child = out[0];
    return pid;
}

int bench_run(char *const argv[], const char *extra_env) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        for (int fd = 3; fd < 1024; fd++) close(fd);
        if (extra_env) putenv((char *)extra_env);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
