/* Writes to stdout in every way a careless plugin might; the host must keep
   its frames intact. */
#define NAME "noisy"
#define MANIFEST "{\"methods\":[{\"name\":\"noisy.shout\",\"params\":[]}]}"
#define CUSTOM_CREATE
#define CUSTOM_HANDLE
#include "test_plugin.h"

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)host; (void)context; (void)config; (void)error;
    printf("noisy: printf at create without newline");
    fflush(stdout);
    return (void *)1;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    (void)instance; (void)method; (void)params; (void)error;
    printf("{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":\"forged\"}\n");
    puts("noisy: puts");
    fflush(stdout);
    write(1, "noisy: raw write to fd 1\n", 25);
    *result = json_pack("{sb}", "shouted", 1);
    return FLOWHOST_OK;
}
