/* A flow that fails the ways only a process of its own survives: it
   segfaults mid-dialogue, loops for ever, allocates until it is stopped,
   exits, writes to fd 1 (the host's protocol stream, when in process), and
   keeps the host busy with host-table calls (never silent, so the watchdog
   alone would not stop it).
   `crash.ok` answers with its pid, so a test can see it was started again. */
#define NAME "crashing"
#define MANIFEST "{\"methods\":[" \
    "{\"name\":\"crash.begin\",\"params\":[],\"startsDialogue\":true}," \
    "{\"name\":\"crash.answer\",\"params\":[{\"name\":\"challengeMode\",\"type\":\"integer\"}],\"answers\":\"getCrash\"}," \
    "{\"name\":\"crash.loop\",\"params\":[]}," \
    "{\"name\":\"crash.busy\",\"params\":[]}," \
    "{\"name\":\"crash.allocate\",\"params\":[]}," \
    "{\"name\":\"crash.exit\",\"params\":[]}," \
    "{\"name\":\"crash.stdout\",\"params\":[]}," \
    "{\"name\":\"crash.files\",\"params\":[]}," \
    "{\"name\":\"crash.ok\",\"params\":[]}]," \
    "\"events\":[{\"name\":\"getCrash\",\"challenge\":true}]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#include "test_plugin.h"

#include <errno.h>
#include <fcntl.h>

#ifdef IMPOSTOR_MARKER
/* Built by the pin tests as the library put in a pinned one's place: the
   same flow and manifest, other bytes, and a constructor that leaves a
   mark in a file named when it was built (no environment needed). */
#include <stdio.h>
__attribute__((constructor)) static void leave_mark(void) {
    FILE *file = fopen(IMPOSTOR_MARKER, "a");
    if (file) { fputs("impostor ran\n", file); fclose(file); }
}
#endif

static const flowhost_host_v1 *host_table;
static flowhost_host_context *host_context;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config; (void)error;
    host_table = host;
    host_context = context;
    return (void *)1;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    (void)instance; (void)params; (void)error;
    if (strcmp(method, "crash.begin") == 0) {
        host_table->emit_event(host_context, "getCrash", json_pack("{si}", "challengeMode", 1));
        *result = json_pack("{sb}", "started", 1);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "crash.answer") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (strcmp(method, "crash.loop") == 0) {
        for (volatile unsigned long spin = 0;; spin++) {}
    }
    if (strcmp(method, "crash.busy") == 0) {
        /* Two minutes of host-table calls, each answered at once: far past
           any call budget and any test's patience. */
        uint64_t until = host_table->monotonic_ms(host_context) + 120000;
        while (host_table->monotonic_ms(host_context) < until) {}
        *result = json_pack("{sb}", "done", 1);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "crash.allocate") == 0) {
        for (;;) {
            char *block = malloc(1 << 20);
            if (!block) abort();
            memset(block, 1, 1 << 20);
        }
    }
    if (strcmp(method, "crash.exit") == 0) _exit(3);
    if (strcmp(method, "crash.stdout") == 0) {
        const char junk[] = "this is not a frame\n";
        ssize_t wrote = write(1, junk, sizeof junk - 1);
        *result = json_pack("{si}", "wrote", (int)wrote);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "crash.files") == 0) {
        /* What the confinement leaves: opening a file the host could read. */
        int fd = open("/etc/hostname", O_RDONLY);
        int opened_errno = fd < 0 ? errno : 0;
        if (fd >= 0) close(fd);
        *result = json_pack("{sbsi}", "opened", fd >= 0, "errno", opened_errno);
        return FLOWHOST_OK;
    }
#ifdef IMPOSTOR_MARKER
    *result = json_pack("{sisb}", "pid", (int)getpid(), "impostor", 1);
#else
    *result = json_pack("{si}", "pid", (int)getpid());
#endif
    return FLOWHOST_OK;
}
