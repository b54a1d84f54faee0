/* A flow that carries its own copy of jansson's entry points. A real static
   link would look like this to the host; Debian's libjansson.a is not
   position-independent, so the copy here is a stand-in that defines and
   exports json_object itself. json_t values made by another copy would be
   freed by the wrong allocator, so the host must refuse the plugin. */
#define NAME "staticjansson"
#define MANIFEST "{\"methods\":[{\"name\":\"staticjansson.make\",\"params\":[]}]}"
#include "test_plugin.h"

__attribute__((visibility("default"))) json_t *json_object(void) { return NULL; }
