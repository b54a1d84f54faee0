/* A library whose constructor leaves a mark: it proves whether the host
   ever opened it (a refused library must never run any code). With a file
   named abort-in-names beside the library, the constructor aborts in the
   child that learns every library's flow name (`plugin-host --names`) and
   only there: the host's fallback is then seen at work. (A file, not a
   variable: that child gets none of the host's environment.) */
#define _GNU_SOURCE
#define NAME "marker"
#define MANIFEST "{\"methods\":[{\"name\":\"marker.ping\",\"params\":[]}]}"
#include "test_plugin.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The folder of the file this library was mapped from, as the kernel
   names it in /proc/self/maps: the host loads a library through its
   descriptor (/proc/self/fd/N), so the name the dynamic linker knows says
   nothing of where the file lies. */
static int library_folder(char *folder, size_t size) {
    uintptr_t self = (uintptr_t)library_folder;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return 0;
    char line[4608];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps)) {
        unsigned long start = 0, end = 0;
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &path_at) < 2 || self < start || self >= end || !path_at) continue;
        char *path = line + path_at;
        path[strcspn(path, "\n")] = '\0';
        char *slash = strrchr(path, '/');
        if (!slash) break;
        snprintf(folder, size, "%.*s", (int)(slash - path), path);
        found = 1;
    }
    fclose(maps);
    return found;
}

static int abort_in_names_asked(void) {
    char folder[4096], flag[4200];
    if (!library_folder(folder, sizeof folder)) return 0;
    snprintf(flag, sizeof flag, "%s/abort-in-names", folder);
    FILE *file = fopen(flag, "r");
    if (file) fclose(file);
    return file != NULL;
}

__attribute__((constructor)) static void leave_mark(void) {
    if (abort_in_names_asked()) {
        char command[4096] = "";
        FILE *file = fopen("/proc/self/cmdline", "r");
        size_t length = file ? fread(command, 1, sizeof command - 1, file) : 0;
        if (file) fclose(file);
        for (size_t i = 0; i + 7 <= length; i++) {
            if (memcmp(command + i, "--names", 7) == 0) abort();
        }
    }
    const char *path = getenv("FLOWHOST_TEST_MARKER");
    if (path) {
        FILE *file = fopen(path, "a");
        if (file) { fputs("constructor ran\n", file); fclose(file); }
    }
}
