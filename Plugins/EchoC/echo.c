/*
 * The `echo` flow, written in C: proof that a flow needs nothing but
 * flowhost_plugin.h and jansson.
 *
 *   method  echo(text: string, notify?: boolean) -> {text}
 *           with notify = true it also emits the event onEcho {text}.
 *   method  echo.subscribe(topic) / echo.publish(topic, payload): the
 *           store's change feed between hosts (ABI 1.1), on echo's own
 *           topics (echo.…) only (ABI 1.3); every event of a subscribed
 *           topic arrives as onEchoFeed {topic, payload}.
 *
 * An example: built as libFlowExampleEchoC, loaded only with --examples.
 *   service echo.upper({text}) -> {text} in ASCII upper case, for other flows.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "flowhost_plugin.h"

typedef struct echo_flow {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
} echo_flow;

static const char manifest[] =
    "{\"methods\":[{\"name\":\"echo\",\"summary\":\"Returns its text; with notify, also emits onEcho.\","
    "\"params\":[{\"name\":\"text\",\"type\":\"string\",\"description\":\"Any text.\"},"
    "{\"name\":\"notify\",\"type\":\"boolean\",\"required\":false}],"
    "\"result\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}},"
    "{\"name\":\"echo.subscribe\",\"summary\":\"Receive the change feed's events of a topic as onEchoFeed.\","
    "\"params\":[{\"name\":\"topic\",\"type\":\"string\"}]},"
    "{\"name\":\"echo.publish\",\"summary\":\"Publish an event on the change feed (every host on the store).\","
    "\"params\":[{\"name\":\"topic\",\"type\":\"string\"},{\"name\":\"payload\",\"type\":\"object\"}]}],"
    "\"events\":[{\"name\":\"onEcho\",\"summary\":\"The text of an echo call made with notify.\","
    "\"params\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}},"
    "{\"name\":\"onEchoFeed\",\"summary\":\"A change-feed event of a subscribed topic.\","
    "\"params\":{\"type\":\"object\",\"required\":[\"topic\",\"payload\"]}}],"
    "\"services\":[{\"name\":\"echo.upper\",\"summary\":\"Upper-cases {text}.\","
    "\"params\":[{\"name\":\"text\",\"type\":\"string\"}]}]}";

static void *echo_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                         flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self;
    (void)config;
    if (host->struct_size < offsetof(flowhost_host_v1, log) + sizeof(host->log)) {
        flowhost_error_set(error, FLOWHOST_ERROR_INTERNAL_ERROR, 0, "host table too old");
        return NULL;
    }
    echo_flow *flow = calloc(1, sizeof *flow);
    if (!flow) {
        flowhost_error_set(error, FLOWHOST_ERROR_INTERNAL_ERROR, 0, "out of memory");
        return NULL;
    }
    flow->host = host;
    flow->context = context;
    return flow;
}

/* An error whose message is in the language the client set (ABI 1.6:
   the host's catalog, context "echo"); the English text on an older host. */
/* msgctxt: echo (scripts/messages.py: the messages below marked N_ are in the catalogs). */
#define N_(text) text

static void set_error(const echo_flow *flow, flowhost_error_v1 *error, int32_t code, const char *msgid) {
    json_t *text = FLOWHOST_HOST_HAS(flow->host, localize) ? flow->host->localize(flow->context, "echo", msgid, NULL) : NULL;
    flowhost_error_set(error, code, 0, json_is_string(text) ? json_string_value(text) : msgid);
    json_decref(text);
}

/* Reports a host call's result code as the method's result. */
static int32_t feed_result(const echo_flow *flow, int32_t rc, const char *topic, json_t **result, flowhost_error_v1 *error) {
    if (rc == FLOWHOST_OK) {
        *result = json_pack("{sb}", "ok", 1);
        return FLOWHOST_OK;
    }
    if (rc == FLOWHOST_ERR_NOT_PERMITTED) {
        /* The feed's ownership rule (ABI 1.3): echo owns only echo.* topics. */
        set_error(flow, error, FLOWHOST_ERROR_NOT_PERMITTED, N_("not permitted: the echo flow may use only its own topics (echo.…)"));
        error->data = json_pack("{ss ss}", "reason", "topicNotOwned", "topic", topic ? topic : "");
        return FLOWHOST_ERR_FAILED;
    }
    set_error(flow, error, FLOWHOST_ERROR_INVALID_PARAMS, N_("refused by the host (bad topic or payload, or no 1.1 host)"));
    return FLOWHOST_ERR_FAILED;
}

static int32_t echo_handle(void *instance, const char *method, json_t *params, json_t **result,
                           flowhost_error_v1 *error) {
    echo_flow *flow = instance;
    const char *topic = json_string_value(json_object_get(params, "topic"));
    if (strcmp(method, "echo.subscribe") == 0) {
        int32_t rc = FLOWHOST_HOST_HAS(flow->host, subscribe) ? flow->host->subscribe(flow->context, topic) : FLOWHOST_ERR_FAILED;
        return feed_result(flow, rc, topic, result, error);
    }
    if (strcmp(method, "echo.publish") == 0) {
        int32_t rc = FLOWHOST_HOST_HAS(flow->host, publish)
                         ? flow->host->publish(flow->context, topic, json_object_get(params, "payload"))
                         : FLOWHOST_ERR_FAILED;
        return feed_result(flow, rc, topic, result, error);
    }
    if (strcmp(method, "echo") != 0) {
        set_error(flow, error, FLOWHOST_ERROR_METHOD_NOT_FOUND, N_("echo: unknown method"));
        return FLOWHOST_ERR_FAILED;
    }
    /* The host has checked the declared params: text is a string. */
    json_t *text = json_object_get(params, "text");
    *result = json_pack("{sO}", "text", text);
    if (json_is_true(json_object_get(params, "notify"))) {
        flow->host->emit_event(flow->context, "onEcho", json_pack("{sO}", "text", text));
    }
    return FLOWHOST_OK;
}

static int32_t echo_call_service(void *instance, const char *name, json_t *params, json_t **result,
                                 flowhost_error_v1 *error) {
    const echo_flow *flow = instance;
    const char *text = json_string_value(json_object_get(params, "text"));
    if (strcmp(name, "echo.upper") != 0 || !text) {
        set_error(flow, error, FLOWHOST_ERROR_INVALID_PARAMS, N_("echo.upper takes {text: string}"));
        return FLOWHOST_ERR_FAILED;
    }
    size_t length = json_string_length(json_object_get(params, "text"));
    char *upper = malloc(length + 1);
    if (!upper) {
        flowhost_error_set(error, FLOWHOST_ERROR_INTERNAL_ERROR, 0, "out of memory");
        return FLOWHOST_ERR_FAILED;
    }
    for (size_t i = 0; i < length; i++) upper[i] = (char)toupper((unsigned char)text[i]);
    upper[length] = '\0';
    *result = json_pack("{ss%}", "text", upper, length);
    free(upper);
    return FLOWHOST_OK;
}

/* The change feed's events of subscribed topics (and the host's own notices). */
static void echo_notify(void *instance, const char *topic, json_t *payload) {
    echo_flow *flow = instance;
    if (strcmp(topic, "session") == 0 || strcmp(topic, "challenge.expired") == 0) return;
    flow->host->emit_event(flow->context, "onEchoFeed", json_pack("{ss sO}", "topic", topic, "payload", payload));
}

static void echo_destroy(void *instance) { free(instance); }

static const flowhost_plugin_descriptor_v1 descriptor = {
    .struct_size = sizeof(flowhost_plugin_descriptor_v1),
    .abi_version = FLOWHOST_ABI_VERSION,
    .name = "echo",
    .version = "1.0.0",
    .manifest = manifest,
    .create = echo_create,
    .start = NULL,
    .handle = echo_handle,
    .call_service = echo_call_service,
    .destroy = echo_destroy,
    .abi_minor = FLOWHOST_ABI_MINOR,
    .notify = echo_notify,
};

FLOWHOST_PLUGIN_EXPORT const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void) { return &descriptor; }
