/* A C flow that uses the 1.1 engine: an asynchronous call to another flow's
   service and its cancellation, timers, the host's session (read and ended),
   the change feed, and durable records; and 1.5's wall clock. */
#define NAME "ccaller"
#define MANIFEST \
    "{\"methods\":[" \
    "{\"name\":\"ccaller.start\",\"startsDialogue\":true,\"params\":[{\"name\":\"purpose\",\"type\":\"string\"}]}," \
    "{\"name\":\"ccaller.reset\",\"params\":[]}," \
    "{\"name\":\"ccaller.abandonAll\",\"params\":[]}," \
    "{\"name\":\"ccaller.timer\",\"params\":[{\"name\":\"ms\",\"type\":\"integer\"}]}," \
    "{\"name\":\"ccaller.cancelTimer\",\"params\":[{\"name\":\"id\",\"type\":\"integer\"}]}," \
    "{\"name\":\"ccaller.session\",\"params\":[]}," \
    "{\"name\":\"ccaller.clocks\",\"params\":[]}," \
    "{\"name\":\"ccaller.endSession\",\"params\":[{\"name\":\"reason\",\"type\":\"string\"}]}," \
    "{\"name\":\"ccaller.subscribe\",\"params\":[{\"name\":\"topic\",\"type\":\"string\"}]}," \
    "{\"name\":\"ccaller.unsubscribe\",\"params\":[{\"name\":\"topic\",\"type\":\"string\"}]}," \
    "{\"name\":\"ccaller.publish\",\"params\":[{\"name\":\"topic\",\"type\":\"string\"},{\"name\":\"payload\",\"type\":\"object\"}]}," \
    "{\"name\":\"ccaller.call\",\"params\":[{\"name\":\"service\",\"type\":\"string\"},{\"name\":\"params\",\"type\":\"object\"}]}," \
    "{\"name\":\"ccaller.callAsync\",\"params\":[{\"name\":\"service\",\"type\":\"string\"},{\"name\":\"params\",\"type\":\"object\"}]}]," \
    "\"events\":[{\"name\":\"onCallerDone\"},{\"name\":\"onTimer\"},{\"name\":\"onFeed\"},{\"name\":\"onSessionNotice\"}]," \
    "\"uses\":[\"cstep.verify\",\"records.get\",\"records.list\",\"records.apply\",\"notifications.create\"," \
    "\"notifications.list\",\"notifications.answer\",\"authenticators.enableLDA\",\"stepup.authenticate\"," \
    "\"account.sendForgotPasswordCode\",\"account.verifyForgotPasswordCode\",\"account.completeForgotPassword\"]," \
    "\"reads\":[\"sessions.ended\",\"notifications.created\"]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#define CUSTOM_NOTIFY
#include "test_plugin.h"

typedef struct {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
} ccaller;

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config; (void)error;
    ccaller *flow = calloc(1, sizeof *flow);
    flow->host = host;
    flow->context = context;
    return flow;
}

static void on_result(void *user_data, json_t *result, const flowhost_error_v1 *error) {
    ccaller *flow = user_data;
    json_t *event = result ? json_pack("{sO}", "result", result)
                           : json_pack("{si ss}", "error", error->code, "message", error->message);
    flow->host->emit_event(flow->context, "onCallerDone", event);
}

static void on_timer(void *user_data) {
    ccaller *flow = user_data;
    flow->host->emit_event(flow->context, "onTimer", json_pack("{sb}", "fired", 1));
}

static void tp_notify(void *instance, const char *topic, json_t *payload) {
    ccaller *flow = instance;
    const char *event = strcmp(topic, "session") == 0 ? "onSessionNotice" : "onFeed";
    flow->host->emit_event(flow->context, event, json_pack("{ss sO}", "topic", topic, "payload", payload));
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    ccaller *flow = instance;
    const flowhost_host_v1 *h = flow->host;
    if (strcmp(method, "ccaller.start") == 0) {
        uint64_t call = 0;
        json_t *args = json_pack("{sO}", "purpose", json_object_get(params, "purpose"));
        int32_t rc = h->call_service_async(flow->context, "cstep.verify", args, on_result, flow, &call);
        json_decref(args);
        *result = json_pack("{si sI}", "rc", rc, "call", (json_int_t)call);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.abandonAll") == 0) {
        /* ABI 1.2: whatever dialogue is in progress, whichever flow runs it. */
        if (!FLOWHOST_HOST_HAS(h, abandon_dialogues)) return FLOWHOST_ERR_FAILED;
        *result = json_pack("{si}", "abandoned", h->abandon_dialogues(flow->context));
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.reset") == 0) {
        *result = json_pack("{si}", "cancelled", h->cancel_calls(flow->context));
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.timer") == 0) {
        uint64_t id = 0;
        h->set_timer(flow->context, (uint32_t)json_integer_value(json_object_get(params, "ms")), on_timer, flow, &id);
        *result = json_pack("{sI}", "id", (json_int_t)id);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.cancelTimer") == 0) {
        *result = json_pack("{si}", "rc", h->cancel_timer(flow->context, (uint64_t)json_integer_value(json_object_get(params, "id"))));
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.session") == 0) {
        *result = h->session(flow->context);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.clocks") == 0) {
        /* ABI 1.5's wall clock beside the monotonic one, and the minor the host says it speaks. */
        json_t *wall = FLOWHOST_HOST_HAS(h, wall_clock_ms) ? json_integer((json_int_t)h->wall_clock_ms(flow->context)) : json_null();
        *result = json_pack("{so sI si}", "wall", wall, "monotonic", (json_int_t)h->monotonic_ms(flow->context),
                            "minor", (int)h->abi_minor);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.endSession") == 0) {
        *result = json_pack("{si}", "rc", h->end_session(flow->context, json_string_value(json_object_get(params, "reason"))));
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.subscribe") == 0) {
        *result = json_pack("{si}", "rc", h->subscribe(flow->context, json_string_value(json_object_get(params, "topic"))));
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.unsubscribe") == 0) {
        /* -100: a host older than this header (no unsubscribe in its table). */
        *result = json_pack("{si}", "rc", FLOWHOST_HOST_HAS(h, unsubscribe)
            ? h->unsubscribe(flow->context, json_string_value(json_object_get(params, "topic"))) : -100);
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.publish") == 0) {
        *result = json_pack("{si}", "rc", h->publish(flow->context, json_string_value(json_object_get(params, "topic")),
                                                      json_object_get(params, "payload")));
        return FLOWHOST_OK;
    }
    if (strcmp(method, "ccaller.callAsync") == 0) {
        /* Any service it declares, without waiting: onCallerDone reports the
           outcome, and nothing else (the session is the host's to end). */
        uint64_t call = 0;
        int32_t rc = h->call_service_async(flow->context, json_string_value(json_object_get(params, "service")),
                                           json_object_get(params, "params"), on_result, flow, &call);
        *result = json_pack("{si sI}", "rc", rc, "call", (json_int_t)call);
        return FLOWHOST_OK;
    }
    /* ccaller.call: any service it declares, synchronously. */
    return h->call_service(flow->context, json_string_value(json_object_get(params, "service")),
                           json_object_get(params, "params"), result, error);
}
