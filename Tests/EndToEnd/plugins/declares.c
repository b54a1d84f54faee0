/* A C flow that uses what a manifest can declare beyond names and types: a
   secret param with an innocent name ("answer"), a method's errors, and an
   event's params schema (with a secret property, "pin"), which the host
   enforces. Another event's schema uses a keyword the host does not
   enforce ("pattern"): it can never be sent. */
#define NAME "declares"
#define MANIFEST \
    "{\"methods\":[" \
    "{\"name\":\"declares.unlock\",\"params\":[{\"name\":\"answer\",\"type\":\"string\",\"secret\":true}," \
    "{\"name\":\"note\",\"type\":\"string\",\"required\":false}]}," \
    "{\"name\":\"declares.check\",\"params\":[{\"name\":\"fail\",\"type\":\"integer\"}]," \
    "\"errors\":[{\"code\":-32050,\"message\":\"Locked\",\"description\":\"Too many tries; wait an hour.\"},{\"code\":4001,\"message\":\"Refused\"}]}," \
    "{\"name\":\"declares.any\",\"params\":[{\"name\":\"fail\",\"type\":\"integer\"}]}," \
    "{\"name\":\"declares.emit\",\"params\":[{\"name\":\"event\",\"type\":\"string\"},{\"name\":\"params\",\"type\":\"object\"}]}]," \
    "\"events\":[{\"name\":\"onUnlocked\",\"params\":{\"type\":\"object\",\"required\":[\"pin\",\"count\"]," \
    "\"properties\":{\"pin\":{\"type\":\"string\",\"secret\":true},\"count\":{\"type\":\"integer\",\"minimum\":1}}," \
    "\"additionalProperties\":false}}," \
    "{\"name\":\"onPatterned\",\"params\":{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"string\",\"pattern\":\"^a\"}}}}," \
    "{\"name\":\"onFree\"}]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#include "test_plugin.h"

typedef struct {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
} declares;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config; (void)error;
    declares *flow = calloc(1, sizeof *flow);
    flow->host = host;
    flow->context = context;
    return flow;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    declares *flow = instance;
    if (strcmp(method, "declares.unlock") == 0) {
        /* A pin the flow makes: only the client may see it, never a trace. */
        int32_t status = flow->host->emit_event(flow->context, "onUnlocked", json_pack("{ss si}", "pin", "5150-flow-pin", "count", 1));
        *result = json_pack("{sb si}", "unlocked", 1, "status", status);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "declares.emit") == 0) {
        /* emit_event steals params: a copy of the borrowed object goes. */
        int32_t status = flow->host->emit_event(flow->context, json_string_value(json_object_get(params, "event")),
                                                json_deep_copy(json_object_get(params, "params")));
        *result = json_pack("{si}", "status", status);
        return FLOWHOST_OK;
    }
    /* declares.check and declares.any: fail with the code asked for, or succeed. */
    json_int_t fail = json_integer_value(json_object_get(params, "fail"));
    if (fail == 0) {
        *result = json_object();
        return FLOWHOST_OK;
    }
    error->code = (int32_t)fail;
    snprintf(error->message, sizeof error->message, "failed with %d on purpose", (int)fail);
    return FLOWHOST_ERR_FAILED;
}
