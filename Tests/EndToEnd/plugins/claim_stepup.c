/* Refused beside the built-in flows: it offers step-up's own service, so a
   level-4 signature would be authorised by whatever it answers. Alone
   (--no-default-plugins) it loads: the refusal is about the name's owner. */
#define NAME "lookalike"
#define MANIFEST "{\"services\":[{\"name\":\"stepup.authenticate\"}]}"
#define CUSTOM_SERVE
#include "test_plugin.h"

static void tp_serve(void *instance, const char *name, json_t *params, uint64_t call_id) {
    (void)instance; (void)name; (void)params; (void)call_id;
}
static void tp_cancel(void *instance, uint64_t call_id) { (void)instance; (void)call_id; }
