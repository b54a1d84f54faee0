/*
 * isolation_names.c — `flowhost plugin-host --names`: the flow each library
 * declares, learnt in one child for all of them. With `--isolate NAME` the
 * host must know a library's flow before it decides where the library runs,
 * and none of a library's code may run in the host before that; one child
 * for every library costs one process start instead of one per library.
 */
#include "flowhost_isolation.h"
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
    closefrom(4);
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
    for (size_t i = 0; i < count; i++) handles[i] = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
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
