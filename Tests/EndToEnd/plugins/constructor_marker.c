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
#include <dlfcn.h>
#include <string.h>

static int abort_in_names_asked(void) {
    Dl_info self;
    if (!dladdr((void *)abort_in_names_asked, &self) || !self.dli_fname) return 0;
    char flag[4096];
    const char *slash = strrchr(self.dli_fname, '/');
    int length = slash ? (int)(slash - self.dli_fname) : 1;
    snprintf(flag, sizeof flag, "%.*s/abort-in-names", length, slash ? self.dli_fname : ".");
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
