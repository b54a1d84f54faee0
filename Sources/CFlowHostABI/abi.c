#include "flowhost_plugin.h"

/* Layout checks: the ABI is what these offsets say; a change here is a break. */
_Static_assert(sizeof(((flowhost_error_v1 *)0)->message) == FLOWHOST_ERROR_MESSAGE_MAX, "message size");
_Static_assert(offsetof(flowhost_plugin_descriptor_v1, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(flowhost_host_v1, struct_size) == 0, "struct_size first");
_Static_assert(FLOWHOST_DESCRIPTOR_SIZE_1_0 == 8 + 3 * sizeof(void *) + 5 * sizeof(void *) + 8 * sizeof(void *), "1.0 descriptor layout");
_Static_assert(offsetof(flowhost_host_v1, cancel_requests) == 8 + 6 * sizeof(void *), "1.0 host table ends before cancel_requests");
