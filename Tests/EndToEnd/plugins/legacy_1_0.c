/* A flow built against the frozen ABI 1.0 header: its descriptor is the
   1.0 size, it knows nothing of 1.1, and it must still load and work. */
#include <stdlib.h>
#include <string.h>

#include "abi-1.0/flowhost_plugin.h"

static const flowhost_host_v1 *host_table;
static flowhost_host_context *host_context;

static void *create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                    flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)config; (void)error;
    host_table = host;
    host_context = context;
    return (void *)1;
}

static void on_answer(void *user_data, json_t *result, const flowhost_error_v1 *error) {
    (void)user_data;
    host_table->emit_event(host_context, "onLegacy",
                           result ? json_pack("{sO}", "answer", result) : json_pack("{si}", "error", error->code));
}

static int32_t handle(void *instance, const char *method, json_t *params, json_t **result, flowhost_error_v1 *error) {
    (void)instance;
    if (strcmp(method, "legacy.upper") == 0) {
        /* A 1.0 manifest could not say "uses": its calls are not checked. */
        return host_table->call_service(host_context, "echo.upper", params, result, error);
    }
    host_table->log(host_context, FLOWHOST_LOG_INFO, "legacy asks the platform");
    host_table->send_request(host_context, "platform/confirm", json_pack("{ss}", "question", "legacy"), 0, on_answer, NULL);
    *result = json_pack("{si}", "hostTableSize", (int)host_table->struct_size);
    return FLOWHOST_OK;
}

static void destroy(void *instance) { (void)instance; }

static const flowhost_plugin_descriptor_v1 descriptor = {
    .struct_size = sizeof(flowhost_plugin_descriptor_v1),
    .abi_version = FLOWHOST_ABI_VERSION,
    .name = "legacy",
    .version = "1.0.0",
    .manifest = "{\"methods\":[{\"name\":\"legacy.upper\",\"params\":[{\"name\":\"text\",\"type\":\"string\"}]},"
                "{\"name\":\"legacy.ask\",\"params\":[]}],\"events\":[{\"name\":\"onLegacy\"}]}",
    .create = create,
    .handle = handle,
    .destroy = destroy,
};

__attribute__((visibility("default"))) const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void) { return &descriptor; }
