#include "flowhost_plugin.h"

/* Layout checks: the ABI is what these offsets say; a change here is a break. */
_Static_assert(sizeof(((flowhost_error_v1 *)0)->message) == FLOWHOST_ERROR_MESSAGE_MAX, "message size");
_Static_assert(offsetof(flowhost_plugin_descriptor_v1, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(flowhost_host_v1, struct_size) == 0, "struct_size first");
