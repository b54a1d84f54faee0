/* A C provider of an asynchronous service with a dialogue of its own:
   serving "cstep.verify", it opens the challenge getSecret (challengeMode 3),
   asks the client's platform to confirm, and answers its caller only when the
   right secret arrives. Its challenge and requests belong to the call. */
#define NAME "cstep"
#define MANIFEST \
    "{\"methods\":[{\"name\":\"setSecret\",\"params\":[{\"name\":\"secret\",\"type\":\"string\"}," \
    "{\"name\":\"challengeMode\",\"type\":\"integer\"}],\"answers\":\"getSecret\"}]," \
    "\"events\":[{\"name\":\"getSecret\",\"challenge\":true},{\"name\":\"onStepCancelled\"}]," \
    "\"services\":[{\"name\":\"cstep.verify\",\"params\":[{\"name\":\"purpose\",\"type\":\"string\"}]}]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#define CUSTOM_SERVE
#include "test_plugin.h"

typedef struct {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
    uint64_t call;   /* the call being served, 0 when none */
    int attempts;
} cstep;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config;
    if (!FLOWHOST_HOST_HAS(host, complete_call)) {
        flowhost_error_set(error, -32603, 0, "needs a 1.1 host");
        return NULL;
    }
    cstep *flow = calloc(1, sizeof *flow);
    flow->host = host;
    flow->context = context;
    return flow;
}

static void on_confirm(void *user_data, json_t *result, const flowhost_error_v1 *error) {
    (void)user_data; (void)result; (void)error;  /* the test only needs it pending */
}

static void ask(cstep *flow, int status) {
    flow->host->emit_event(flow->context, "getSecret",
                           json_pack("{si si si}", "challengeMode", 3, "attemptsLeft", 3 - flow->attempts, "status", status));
}

static void tp_serve(void *instance, const char *name, json_t *params, uint64_t call_id) {
    cstep *flow = instance;
    (void)name;
    flow->call = call_id;
    flow->attempts = 0;
    flow->host->send_request(flow->context, "platform/confirm",
                             json_pack("{sO}", "purpose", json_object_get(params, "purpose")), 0, on_confirm, flow);
    ask(flow, FLOWHOST_SDK_SUCCESS);
}

static void tp_cancel(void *instance, uint64_t call_id) {
    cstep *flow = instance;
    if (flow->call == call_id) flow->call = 0;
    flow->host->emit_event(flow->context, "onStepCancelled", json_pack("{sI}", "call", (json_int_t)call_id));
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    cstep *flow = instance;
    (void)method;
    if (!flow->call) {
        flowhost_error_set(error, -32006, 0, "no verification in progress");
        return FLOWHOST_ERR_FAILED;
    }
    const char *secret = json_string_value(json_object_get(params, "secret"));
    uint64_t call = flow->call;
    if (strcmp(secret, "right") == 0) {
        flow->call = 0;
        flow->host->complete_call(flow->context, call, json_pack("{sb}", "verified", 1), NULL);
    } else if (++flow->attempts >= 3) {
        flowhost_error_v1 failure = {0};
        flowhost_error_set(&failure, FLOWHOST_SDK_ATTEMPTS_EXHAUSTED, FLOWHOST_SDK_ATTEMPTS_EXHAUSTED, "attempts exhausted");
        flow->call = 0;
        flow->host->complete_call(flow->context, call, NULL, &failure);
    } else {
        ask(flow, FLOWHOST_SDK_AUTHENTICATION_FAILED);
    }
    *result = json_null();
    return FLOWHOST_OK;
}
