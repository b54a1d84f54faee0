#define _GNU_SOURCE
#include "isolation_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DESCRIPTOR_PREFIX "/proc/self/fd/"

void fhi_descriptor_path(int fd, char *out, size_t size) { snprintf(out, size, DESCRIPTOR_PREFIX "%d", fd); }

int fhi_library_descriptor(const char *library) {
    size_t prefix = strlen(DESCRIPTOR_PREFIX);
    if (!library || strncmp(library, DESCRIPTOR_PREFIX, prefix) != 0 || library[prefix] == '\0') return -1;
    char *end = NULL;
    long fd = strtol(library + prefix, &end, 10);
    return *end == '\0' && fd >= 0 && fd <= 1 << 20 ? (int)fd : -1;
}

void *fhi_dlopen_library(const char *library) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    int fd = fhi_library_descriptor(library);
    if (fd > 2) close(fd);
    return handle;
}
