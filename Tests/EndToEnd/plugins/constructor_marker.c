/* A library whose constructor leaves a mark: it proves whether the host
   ever opened it (a refused library must never run any code). With
   FLOWHOST_TEST_MARKER_ABORT=names, the constructor aborts in the child
   that learns every library's flow name (`plugin-host --names`) and only
   there: the host's fallback is then seen at work. */
#define NAME "marker"
#define MANIFEST "{\"methods\":[{\"name\":\"marker.ping\",\"params\":[]}]}"
#include "test_plugin.h"
#include <string.h>

__attribute__((constructor)) static void leave_mark(void) {
    const char *abort_in = getenv("FLOWHOST_TEST_MARKER_ABORT");
    if (abort_in && strcmp(abort_in, "names") == 0) {
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
