/* A library whose constructor leaves a mark: it proves whether the host
   ever opened it (a refused library must never run any code). */
#define NAME "marker"
#define MANIFEST "{\"methods\":[{\"name\":\"marker.ping\",\"params\":[]}]}"
#include "test_plugin.h"

__attribute__((constructor)) static void leave_mark(void) {
    const char *path = getenv("FLOWHOST_TEST_MARKER");
    if (path) {
        FILE *file = fopen(path, "a");
        if (file) { fputs("constructor ran\n", file); fclose(file); }
    }
}
