/*
 * The `echo` flow, written in C: proof that a flow needs nothing but
 * flowhost_plugin.h and jansson.
 *
 *   method  echo(text: string, notify?: boolean) -> {text}
 *           with notify = true it also emits the event onEcho {text}.
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
    "\"result\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}],"
    "\"events\":[{\"name\":\"onEcho\",\"summary\":\"The text of an echo call made with notify.\","
    "\"params\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}],"
    "\"services\":[{\"name\":\"echo.upper\",\"summary\":\"Upper-cases {text}.\"}]}";

static void *echo_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                         flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self;
    (void)config;
    if (host->struct_size < offsetof(flowhost_host_v1, log) + sizeof(host->log)) {
        flowhost_error_set(error, -32603, 0, "host table too old");
        return NULL;
    }
    echo_flow *flow = calloc(1, sizeof *flow);
    if (!flow) {
        flowhost_error_set(error, -32603, 0, "out of memory");
        return NULL;
    }
    flow->host = host;
    flow->context = context;
    return flow;
}

static int32_t echo_handle(void *instance, const char *method, json_t *params, json_t **result,
                           flowhost_error_v1 *error) {
    echo_flow *flow = instance;
    if (strcmp(method, "echo") != 0) {
        flowhost_error_set(error, -32601, 0, "echo: unknown method");
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
    (void)instance;
    const char *text = json_string_value(json_object_get(params, "text"));
    if (strcmp(name, "echo.upper") != 0 || !text) {
        flowhost_error_set(error, -32602, 0, "echo.upper takes {text: string}");
        return FLOWHOST_ERR_FAILED;
    }
    size_t length = json_string_length(json_object_get(params, "text"));
    char *upper = malloc(length + 1);
    if (!upper) {
        flowhost_error_set(error, -32603, 0, "out of memory");
        return FLOWHOST_ERR_FAILED;
    }
    for (size_t i = 0; i < length; i++) upper[i] = (char)toupper((unsigned char)text[i]);
    upper[length] = '\0';
    *result = json_pack("{ss%}", "text", upper, length);
    free(upper);
    return FLOWHOST_OK;
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
};

FLOWHOST_PLUGIN_EXPORT const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void) { return &descriptor; }
