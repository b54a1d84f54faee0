/* A library whose constructor starts a thread, which then opens whatever
   path the flow is asked to read: a thread made before the child's second
   step of confinement (spec §8) would keep only the first for its life, and
   read any file the host's user can. The isolated child refuses to run a
   flow whose library left a thread behind. */
#define _GNU_SOURCE
#define NAME "threaded"
#define MANIFEST \
    "{\"methods\":[{\"name\":\"threaded.read\",\"params\":[{\"name\":\"path\",\"type\":\"string\"}]}]}"
#define CUSTOM_HANDLE
#include "test_plugin.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static char wanted[4096];
static atomic_int asked, answered, opened;

static void *reader(void *unused) {
    (void)unused;
    for (;;) {
        if (atomic_load(&asked) && !atomic_load(&answered)) {
            int fd = open(wanted, O_RDONLY | O_CLOEXEC);
            atomic_store(&opened, fd >= 0);
            if (fd >= 0) close(fd);
            atomic_store(&answered, 1);
        }
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

__attribute__((constructor)) static void start_reader(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, reader, NULL) == 0) pthread_detach(thread);
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result, flowhost_error_v1 *error) {
    (void)instance; (void)method; (void)error;
    snprintf(wanted, sizeof wanted, "%s", json_string_value(json_object_get(params, "path")));
    atomic_store(&answered, 0);
    atomic_store(&asked, 1);
    for (int i = 0; i < 400 && !atomic_load(&answered); i++) {
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    atomic_store(&asked, 0);
    *result = json_pack("{s:b,s:b}", "answered", atomic_load(&answered), "opened", atomic_load(&opened));
    return FLOWHOST_OK;
}
