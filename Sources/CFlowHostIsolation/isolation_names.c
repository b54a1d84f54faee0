/*
 * isolation_names.c — `flowhost plugin-host --names`: the flow each library
 * declares, learnt in one child for all of them. With `--isolate NAME` the
 * host must know a library's flow before it decides where the library runs,
 * and none of a library's code may run in the host before that; one child
 * for every library costs one process start instead of one per library.
 */
#define _GNU_SOURCE
#include "flowhost_isolation.h"
#include "isolation_library.h"
#include "flowhost_system.h"
#include "isolation_sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        text += written;
        length -= (size_t)written;
    }
    return 0;
}

/* The flow's name, or NULL when the library cannot tell it. */
static json_t *name_of(void *handle) {
    if (!handle) return NULL;
    void *symbol = dlsym(handle, FLOWHOST_ENTRY_SYMBOL_V1);
    if (!symbol) return NULL;
    const flowhost_plugin_descriptor_v1 *descriptor = ((flowhost_plugin_entry_v1)symbol)();
    if (!descriptor || !descriptor->name) return NULL;
    return json_string(descriptor->name);
}

int flowhost_plugin_names_main(const char *const *libraries, size_t count, const flowhost_isolation_limits *limits) {
    fhi_leave_terminal();
    json_object_seed(0);
    /* The answer goes to the stdout the host gave, moved to fd 3. */
    int answer = dup(STDOUT_FILENO);
    if (answer < 0) return 71;
    /* As an isolated flow's child: nothing of the host's (not its protocol
       stdin, not its store), before any library is opened. */
    if (answer != 3) {
        if (dup2(answer, 3) < 0) return 71;
        close(answer);
        answer = 3;
    }
    /* The libraries' descriptors the host gave (4 and up) stay until each is loaded. */
    int last = 3;
    for (size_t i = 0; i < count; i++) {
        int fd = fhi_library_descriptor(libraries[i]);
        if (fd > last) last = fd;
    }
    closefrom(last + 1);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0) return 71;
    char problem[256] = "";
    if (fhi_apply_limits(limits, problem, sizeof problem) != 0) {
        fprintf(stderr, "flowhost plugin-host --names: %s\n", problem);
        return 71;
    }
    /* What the libraries write goes nowhere: each is loaded again where it
       runs, and says it there. Not the host's stderr, which may be the
       operator's terminal. */
    if (dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0) return 71;
    char confinement[128] = "";
    fhi_confine_calls(confinement, sizeof confinement);
    /* Every library loaded (constructors, under the first step), then the
       rest of the confinement, then each entry symbol. Never dlclose: a
       Swift image cannot be unloaded. */
    void **handles = calloc(count ? count : 1, sizeof *handles);
    if (!handles) return 70;
    for (size_t i = 0; i < count; i++) handles[i] = fhi_dlopen_library(libraries[i]);
    fhi_confine_files(confinement, sizeof confinement);
    json_t *names = json_array();
    for (size_t i = 0; i < count; i++) {
        json_t *name = name_of(handles[i]);
        json_array_append_new(names, name ? name : json_null());
    }
    free(handles);
    char *text = json_dumps(names, JSON_COMPACT);
    json_decref(names);
    if (!text) return 70;
    int failed = write_all(answer, text, strlen(text)) != 0 || write_all(answer, "\n", 1) != 0;
    free(text);
    close(answer);
    return failed ? 70 : 0;
}

int32_t flowhost_plugin_names_spawn(const char *executable, const int *libraries, size_t count,
                                    const flowhost_isolation_limits *limits, int *output) {
    char as[32], cpu[32], files[32];
    snprintf(as, sizeof as, "%llu", (unsigned long long)limits->address_space_bytes);
    snprintf(cpu, sizeof cpu, "%u", limits->cpu_seconds);
    snprintf(files, sizeof files, "%u", limits->open_files);
    char **argv = calloc(count + 11, sizeof *argv);
    char (*names)[32] = calloc(count ? count : 1, sizeof *names);
    /* stdin from nothing; the answer on a pipe; stderr the host's (the
       child says there why it could not start); each library's descriptor
       at 4 + i; nothing else of the host's. */
    flowhost_spawn_descriptor *descriptors = calloc(count + 3, sizeof *descriptors);
    int pipe_fds[2] = {-1, -1};
    flowhost_spawn_error error = {FLOWHOST_SPAWN_FAILED_START, ENOMEM};
    int failed = !argv || !names || !descriptors;
    if (!failed && pipe2(pipe_fds, O_CLOEXEC) != 0) {
        failed = 1;
        error.number = errno;
    }
    pid_t pid = -1;
    if (!failed) {
        size_t n = 0;
        argv[n++] = (char *)executable;
        argv[n++] = "plugin-host";
        argv[n++] = "--names";
        argv[n++] = "--address-space";
        argv[n++] = as;
        argv[n++] = "--cpu-seconds";
        argv[n++] = cpu;
        argv[n++] = "--open-files";
        argv[n++] = files;
        argv[n++] = "--";
        descriptors[0] = (flowhost_spawn_descriptor){0, FLOWHOST_SPAWN_NULL};
        descriptors[1] = (flowhost_spawn_descriptor){1, pipe_fds[1]};
        descriptors[2] = (flowhost_spawn_descriptor){2, 2};
        for (size_t i = 0; i < count; i++) {
            fhi_descriptor_path(FHI_CHILD_LIBRARY_FD + (int)i, names[i], sizeof names[i]);
            argv[n++] = names[i];
            descriptors[3 + i] = (flowhost_spawn_descriptor){FHI_CHILD_LIBRARY_FD + (int)i, libraries[i]};
        }
        argv[n] = NULL;
        /* Only the variables an isolated flow's child gets (the libraries'
           constructors run there), and a session of its own: no terminal. */
        char **environment = flowhost_child_environment();
        flowhost_spawn_plan plan = {argv, environment, descriptors, count + 3, 1};
        pid = environment ? flowhost_spawn(&plan, &error) : -1;
        flowhost_free_environment(environment);
        close(pipe_fds[1]);
    }
    free(descriptors);
    free(names);
    free(argv);
    if (pid < 0) {
        if (pipe_fds[0] >= 0) close(pipe_fds[0]);
        errno = error.number;
        return -1;
    }
    *output = pipe_fds[0];
    return pid;
}
