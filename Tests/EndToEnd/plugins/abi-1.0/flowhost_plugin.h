/*
 * FROZEN COPY of the ABI 1.0 header as it shipped: test plugins built against
 * it prove that a 1.0 plugin still loads and works in a newer 1.x host.
 * Never edit.
 *
 * flowhost_plugin.h — the FlowHost plugin ABI, version 1.
 *
 * A flow module is a shared library that exports one C symbol,
 *
 *     const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void);
 *
 * returning a descriptor that lives as long as the process (the host never
 * unloads a plugin). Everything that crosses this boundary is a C type: fixed
 * width integers, C strings (UTF-8, NUL-terminated) and jansson `json_t *`
 * values. Ownership of every json_t is stated at each parameter:
 *
 *   borrowed  the callee may read it during the call only; it must
 *             json_incref() it to keep it.
 *   stolen    the callee takes the caller's reference; the caller must not
 *             use or decref it afterwards (even when the call fails).
 *   new       the callee hands the caller a new reference to decref.
 *
 * Threading: the host calls a plugin on its one event-loop thread, and a
 * plugin may call the host table only on that thread, from inside a call the
 * host made (create, start, handle, call_service, a response callback). Calls
 * from another thread are refused with FLOWHOST_ERR_WRONG_THREAD.
 *
 * Growth rules: both tables only ever grow at the end; each starts with its
 * own struct_size so either side can tell which fields the other knows.
 * A change that cannot be made that way gets a new entry symbol
 * (flowhost_plugin_v2) and a new ABI version; v1 stays as it is.
 */
#ifndef FLOWHOST_PLUGIN_H
#define FLOWHOST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLOWHOST_ABI_VERSION 1u
#define FLOWHOST_ENTRY_SYMBOL_V1 "flowhost_plugin_v1"

/* Result codes of host functions and plugin callbacks. */
#define FLOWHOST_OK 0
#define FLOWHOST_ERR_FAILED (-1)        /* the error struct says why */
#define FLOWHOST_ERR_WRONG_THREAD (-2)
#define FLOWHOST_ERR_UNKNOWN_SERVICE (-3)
#define FLOWHOST_ERR_UNDECLARED_EVENT (-4)
#define FLOWHOST_ERR_INVALID_ARGUMENT (-5)

/* Log levels for flowhost_host_v1.log. */
#define FLOWHOST_LOG_DEBUG 0
#define FLOWHOST_LOG_INFO 1
#define FLOWHOST_LOG_WARNING 2
#define FLOWHOST_LOG_ERROR 3

#define FLOWHOST_ERROR_MESSAGE_MAX 256

/*
 * An error as it crosses the boundary.
 *
 * code > 0: an SDK-level refusal (the REL-ID SDK's longErrorCode); the host
 *           sends it as a JSON-RPC error with that code and
 *           data {longErrorCode, shortErrorCode}.
 * code < 0: a JSON-RPC error code (-32602 invalid params, ...).
 * data:     optional, new reference, owned by whoever holds the struct; the
 *           host decrefs it after reading.
 */
typedef struct flowhost_error_v1 {
    int32_t code;
    int32_t short_code;
    char message[FLOWHOST_ERROR_MESSAGE_MAX];
    json_t *data;
} flowhost_error_v1;

/* Opaque: the host's state for one plugin. Passed back on every host call. */
typedef struct flowhost_host_context flowhost_host_context;

/*
 * Called once with the outcome of a request the plugin sent to the client.
 * result: borrowed, NULL when error is set. error: borrowed, NULL on success;
 * a timeout is code -32000 with message "request timed out".
 */
typedef void (*flowhost_response_fn)(void *user_data, json_t *result, const flowhost_error_v1 *error);

/* What the host offers a plugin. Grows at the end only. */
typedef struct flowhost_host_v1 {
    uint32_t struct_size;
    uint32_t abi_version;

    /* Emit an event (a JSON-RPC notification to the client). The event must
       be declared in the plugin's manifest. params: stolen (an object). If the
       event is declared as a challenge, it becomes the open challenge. */
    int32_t (*emit_event)(flowhost_host_context *host, const char *event, json_t *params);

    /* Call a named service ("store.getUser", "stepup.begin", ...) offered by
       the host or by another plugin. params: borrowed. *result: new on
       success. On failure *error is filled. */
    int32_t (*call_service)(flowhost_host_context *host, const char *name, json_t *params,
                            json_t **result, flowhost_error_v1 *error);

    /* Send a request to the client (for example "platform/authenticateLDA").
       params: stolen. on_response is called exactly once, later, on the loop
       thread: with the client's result, its error, or a timeout after
       timeout_ms (0 means the host's default). */
    int32_t (*send_request)(flowhost_host_context *host, const char *method, json_t *params,
                            uint32_t timeout_ms, flowhost_response_fn on_response, void *user_data);

    /* Log one line to stderr through the host's logger. Never log a secret. */
    void (*log)(flowhost_host_context *host, int32_t level, const char *message);

    /* Milliseconds on a monotonic clock. */
    uint64_t (*monotonic_ms)(flowhost_host_context *host);

    /* The session facts from `initialize` (device, clientInfo): new reference. */
    json_t *(*session_info)(flowhost_host_context *host);
} flowhost_host_v1;

/*
 * What a plugin exports. Grows at the end only; `reserved` must be zero.
 *
 * manifest: a JSON text (UTF-8) that declares the flow:
 *   {
 *     "methods":  [{"name", "summary", "params": [{"name", "type", "required",
 *                   "description"}], "result": <JSON Schema>,
 *                   "answers": "<challenge event>"?}],
 *     "events":   [{"name", "summary", "params": <JSON Schema>,
 *                   "challenge": true?}],
 *     "services": [{"name", "summary"}]
 *   }
 * Param types: "string", "integer", "number", "boolean", "object", "array",
 * "any". See Protocol/spec.md, "Flow manifests".
 */
typedef struct flowhost_plugin_descriptor_v1 {
    uint32_t struct_size;
    uint32_t abi_version; /* FLOWHOST_ABI_VERSION */
    const char *name;     /* flow name, unique among loaded plugins */
    const char *version;  /* the flow's own version, free-form */
    const char *manifest; /* JSON text, see above */

    /* Create the flow's instance. self: this descriptor (one library may
       export several descriptors' worth of code and tell them apart by it).
       host and context: valid until destroy. config: borrowed (the flow's
       section of the host config, an object, maybe empty). Returns the
       instance, or NULL with *error filled to refuse loading. */
    void *(*create)(const struct flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                    flowhost_host_context *context, json_t *config, flowhost_error_v1 *error);

    /* Called once after the client's `initialize` succeeded. May emit events. */
    void (*start)(void *instance);

    /* Handle a declared method. params: borrowed, always an object (positional
       params are already mapped to names and type-checked). On success return
       FLOWHOST_OK with *result set to a new reference (NULL means JSON null).
       On failure return FLOWHOST_ERR_FAILED with *error filled. */
    int32_t (*handle)(void *instance, const char *method, json_t *params, json_t **result,
                      flowhost_error_v1 *error);

    /* Serve a declared service for another plugin. Same contract as handle.
       May be NULL when the manifest declares no services. */
    int32_t (*call_service)(void *instance, const char *name, json_t *params, json_t **result,
                            flowhost_error_v1 *error);

    /* Release the instance at host shutdown. The library stays loaded. */
    void (*destroy)(void *instance);

    void *reserved[8];
} flowhost_plugin_descriptor_v1;

typedef const flowhost_plugin_descriptor_v1 *(*flowhost_plugin_entry_v1)(void);

/* Plugins define this (with default visibility); the host looks it up by name. */
#define FLOWHOST_PLUGIN_EXPORT __attribute__((visibility("default")))

/* Conveniences for both sides (header-only; not part of the binary ABI). */

/* Fills an error. message may be NULL; it is truncated to fit. */
static inline void flowhost_error_set(flowhost_error_v1 *error, int32_t code, int32_t short_code,
                                      const char *message) {
    if (!error) return;
    error->code = code;
    error->short_code = short_code;
    size_t i = 0;
    if (message) {
        for (; message[i] && i + 1 < FLOWHOST_ERROR_MESSAGE_MAX; i++) error->message[i] = message[i];
    }
    error->message[i] = '\0';
}

/* The message of an error, always NUL-terminated within the array. */
static inline const char *flowhost_error_message(flowhost_error_v1 *error) {
    error->message[FLOWHOST_ERROR_MESSAGE_MAX - 1] = '\0';
    return error->message;
}

#ifdef __cplusplus
}
#endif

#endif /* FLOWHOST_PLUGIN_H */
