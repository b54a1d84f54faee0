/* A flow that reads every host topic a flow may read and tells its client
   what it heard (onHeard): what reaches it must concern its own host's user
   or a notification its own host created, never another user's. */
#define NAME "reader"
#define MANIFEST \
    "{\"methods\":[{\"name\":\"reader.subscribe\",\"params\":[{\"name\":\"topic\",\"type\":\"string\"}]}]," \
    "\"events\":[{\"name\":\"onHeard\"}]," \
    "\"reads\":[\"sessions.ended\",\"notifications.created\",\"notifications.updated\"]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#define CUSTOM_NOTIFY
#include "test_plugin.h"

typedef struct {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
} reader;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config;
    if (!FLOWHOST_HOST_HAS(host, subscribe)) {
        flowhost_error_set(error, -32603, 0, "needs a 1.1 host");
        return NULL;
    }
    reader *flow = calloc(1, sizeof *flow);
    flow->host = host;
    flow->context = context;
    return flow;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    reader *flow = instance;
    (void)method;
    int32_t rc = flow->host->subscribe(flow->context, json_string_value(json_object_get(params, "topic")));
    if (rc != FLOWHOST_OK) {
        flowhost_error_set(error, FLOWHOST_ERROR_NOT_PERMITTED, 0, "subscribe refused");
        return FLOWHOST_ERR_FAILED;
    }
    *result = json_pack("{sb}", "ok", 1);
    return FLOWHOST_OK;
}

static void tp_notify(void *instance, const char *topic, json_t *payload) {
    reader *flow = instance;
    if (strncmp(topic, "sessions.", 9) != 0 && strncmp(topic, "notifications.", 14) != 0) return;
    flow->host->emit_event(flow->context, "onHeard", json_pack("{ss sO}", "topic", topic, "payload", payload));
}
