/* A C flow that uses the whole host table: a service of another flow, a
   request to the client with its answer routed back (refused past the cap),
   cancellation of its requests (ABI 1.1), events, logging. */
#define NAME "cfull"
#define MANIFEST \
    "{\"methods\":[{\"name\":\"cfull.upper\",\"params\":[{\"name\":\"text\",\"type\":\"string\"}]}," \
    "{\"name\":\"cfull.ask\",\"params\":[{\"name\":\"question\",\"type\":\"string\"}," \
    "{\"name\":\"timeoutMs\",\"type\":\"integer\",\"required\":false}]}," \
    "{\"name\":\"cfull.cancel\",\"params\":[]}]," \
    "\"events\":[{\"name\":\"onAnswered\"}],\"uses\":[\"echo.upper\"]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#include "test_plugin.h"

typedef struct {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
} cfull;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config; (void)error;
    cfull *flow = calloc(1, sizeof *flow);
    flow->host = host;
    flow->context = context;
    host->log(context, FLOWHOST_LOG_INFO, "cfull created");
    return flow;
}

static void on_answer(void *user_data, json_t *result, const flowhost_error_v1 *error) {
    cfull *flow = user_data;
    json_t *event = result ? json_pack("{sO}", "answer", result)
                           : json_pack("{si sb}", "error", error->code,
                                       "fromClient", error->short_code == FLOWHOST_SHORT_CODE_CLIENT_ANSWER);
    if (!result && error->data) json_object_set(event, "data", error->data);
    flow->host->emit_event(flow->context, "onAnswered", event);
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    cfull *flow = instance;
    if (strcmp(method, "cfull.upper") == 0) {
        return flow->host->call_service(flow->context, "echo.upper", params, result, error);
    }
    if (strcmp(method, "cfull.cancel") == 0) {
        if (!FLOWHOST_HOST_HAS(flow->host, cancel_requests)) {
            flowhost_error_set(error, -32603, 0, "host has no cancel_requests");
            return FLOWHOST_ERR_FAILED;
        }
        *result = json_pack("{si}", "cancelled", flow->host->cancel_requests(flow->context));
        return FLOWHOST_OK;
    }
    json_t *timeout = json_object_get(params, "timeoutMs");
    json_t *question = json_pack("{sO}", "question", json_object_get(params, "question"));
    int32_t sent = flow->host->send_request(flow->context, "platform/confirm", question,
                                            timeout ? (uint32_t)json_integer_value(timeout) : 0, on_answer, flow);
    if (sent == FLOWHOST_ERR_LIMIT) {
        flowhost_error_set(error, -32000, 0, "too many requests in flight");
        return FLOWHOST_ERR_FAILED;
    }
    return sent;
}
