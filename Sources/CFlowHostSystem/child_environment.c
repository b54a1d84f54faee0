/* The environment an isolated flow's child is started with: only what the
   process itself needs to start (the dynamic linker's search path) and what
   a sanitizer or coverage build reads. Never the host's whole environment:
   it may hold a database password, a token, the operator's paths. */
#define _GNU_SOURCE
#include "flowhost_system.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *const passed[] = {
    "LD_LIBRARY_PATH", "ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "LLVM_PROFILE_FILE",
};

static int is_passed(const char *entry) {
    for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++) {
        size_t length = strlen(passed[i]);
        if (strncmp(entry, passed[i], length) == 0 && entry[length] == '=') return 1;
    }
    return 0;
}

char **flowhost_child_environment(void) {
    size_t count = 0;
    for (char **entry = environ; entry && *entry; entry++) count++;
    char **chosen = calloc(count + 1, sizeof *chosen);
    if (!chosen) return NULL;
    size_t used = 0;
    for (char **entry = environ; entry && *entry; entry++) {
        if (is_passed(*entry)) chosen[used++] = strdup(*entry);
    }
    return chosen;
}

void flowhost_free_environment(char **environment) {
    if (!environment) return;
    for (char **entry = environment; *entry; entry++) free(*entry);
    free(environment);
}
