/* Refused: the flow name `echo` is taken by the C example flow. */
#define NAME "echo"
#define MANIFEST "{}"
#include "test_plugin.h"

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)host; (void)context; (void)config; (void)error;
    return (void *)1;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    (void)instance; (void)method; (void)params; (void)result; (void)error;
    return FLOWHOST_OK;
}
