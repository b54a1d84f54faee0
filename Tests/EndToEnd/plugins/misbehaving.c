/* A flow that breaks the rules in the ways a C plugin can without crashing
   the process: undeclared and malformed events, malformed errors and
   results, and calls into the host from a thread of its own. The host must
   say so clearly and go on serving the other flows. */
#include <pthread.h>

#define NAME "misbehaving"
#define MANIFEST "{\"methods\":[" \
    "{\"name\":\"bad.undeclaredEvent\",\"params\":[]}," \
    "{\"name\":\"bad.eventNotObject\",\"params\":[]}," \
    "{\"name\":\"bad.errorWithoutMessage\",\"params\":[]}," \
    "{\"name\":\"bad.errorUnterminated\",\"params\":[]}," \
    "{\"name\":\"bad.failWithoutError\",\"params\":[]}," \
 \
    "{\"name\":\"bad.fromAnotherThread\",\"params\":[]}]," \
    "\"events\":[{\"name\":\"onBad\"}]," \
    "\"uses\":[\"audit.record\"]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#include "test_plugin.h"

static const flowhost_host_v1 *host_table;
static flowhost_host_context *host_context;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config; (void)error;
    host_table = host;
    host_context = context;
    return (void *)1;
}

struct thread_results { int32_t emit_rc, call_rc, log_rc_set; };

static void *other_thread(void *arg) {
    struct thread_results *out = arg;
    out->emit_rc = host_table->emit_event(host_context, "onBad", json_pack("{ss}", "from", "thread"));
    json_t *result = NULL;
    flowhost_error_v1 error = {0};
    json_t *params = json_pack("{ssss}", "action", "x", "outcome", "y");
    out->call_rc = host_table->call_service(host_context, "audit.record", params, &result, &error);
    json_decref(params);
    if (result) json_decref(result);
    if (error.data) json_decref(error.data);
    return NULL;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    (void)instance; (void)params;
    if (strcmp(method, "bad.undeclaredEvent") == 0) {
        int32_t rc = host_table->emit_event(host_context, "onNeverDeclared", json_object());
        *result = json_pack("{si}", "rc", rc);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "bad.eventNotObject") == 0) {
        int32_t rc = host_table->emit_event(host_context, "onBad", json_pack("[i]", 1));
        *result = json_pack("{si}", "rc", rc);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "bad.errorWithoutMessage") == 0) {
        error->code = 7;
        error->message[0] = '\0';
        return FLOWHOST_ERR_FAILED;
    }
    if (strcmp(method, "bad.errorUnterminated") == 0) {
        error->code = 8;
        memset(error->message, 'x', sizeof error->message); /* no NUL anywhere */
        return FLOWHOST_ERR_FAILED;
    }
    if (strcmp(method, "bad.failWithoutError") == 0) {
        return -99; /* no such code, nothing filled in */
    }
    if (strcmp(method, "bad.fromAnotherThread") == 0) {
        struct thread_results out = {0};
        pthread_t thread;
        pthread_create(&thread, NULL, other_thread, &out);
        pthread_join(thread, NULL);
        *result = json_pack("{sisi}", "emit", out.emit_rc, "call", out.call_rc);
        return FLOWHOST_OK;
    }
    return FLOWHOST_OK;
}
