/* Refused: create reports an error. */
#define NAME "createfails"
#define MANIFEST "{}"
#define CUSTOM_CREATE
#include "test_plugin.h"

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)host; (void)context; (void)config;
    flowhost_error_set(error, -32603, 0, "no database configured");
    return NULL;
}
