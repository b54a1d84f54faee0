/*
 * flowhost_plugin.h — the FlowHost plugin ABI, version 1.6 (major 1, minor 6).
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
 * host made (create, start, handle, call_service, serve, notify, a response,
 * result or timer callback). A call from another thread does nothing and
 * returns FLOWHOST_ERR_WRONG_THREAD: it fills no error struct, takes no
 * reference (a "stolen" argument stays the caller's to release), and calls
 * no callback.
 *
 * Versions and growth: the ABI has a major and a minor version. Both tables
 * only ever grow at the end, and each starts with its own struct_size, so
 * either side can tell which fields the other knows:
 *   - A field is present when struct_size covers it (FLOWHOST_HOST_HAS for
 *     the host table; the host does the same for descriptors). A plugin
 *     built against 1.0 runs in a 1.1 host: the fields it lacks are absent.
 *     A 1.1 plugin in a 1.0 host finds the host table short, and must not
 *     use what is missing.
 *   - `reserved` must be zero.
 *   - The major (abi_version) changes only for a change that cannot be made
 *     by appending; it then comes with a new entry symbol
 *     (flowhost_plugin_v2), and v1 stays as it is. A host refuses a
 *     descriptor of another major.
 *
 * jansson: a plugin must use the process's one shared libjansson (link with
 * -ljansson, as pkg-config gives it), because json_t values cross the
 * boundary in both directions and are freed by either side. The host
 * refuses a plugin whose jansson symbols resolve to another copy (linked in
 * statically, say).
 *
 * Version history: 1.0 the first release. 1.1 added FLOWHOST_ERR_LIMIT and
 * the 1.1 codes below; cancel_requests and the fields after it in the host
 * table; abi_minor, serve, cancel_call and notify in the descriptor. 1.2
 * appended abandon_dialogues to the host table. 1.3 added
 * FLOWHOST_ERR_NOT_PERMITTED (the change feed's ownership rule: see
 * subscribe and publish) and the manifest's "reads"; no table changed.
 * 1.4 appended set_timer_once to the host table, and added
 * FLOWHOST_ERR_CANCELLED and FLOWHOST_SHORT_CODE_CLIENT_ANSWER (a 1.4 host
 * marks a client's error answer with it; an older host never sets it).
 * 1.5 appended wall_clock_ms to the host table, and added
 * FLOWHOST_CHALLENGE_MODE_FLOW_STEP_UP (no table changed by it).
 * 1.6 appended localize to the host table.
 *
 * Everything appended names the minor it came with, at its definition
 * ("(1.4)", "--- ABI 1.4 ---"); what names none is 1.0's.
 */
#ifndef FLOWHOST_PLUGIN_H
#define FLOWHOST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "flowhost_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLOWHOST_ABI_VERSION 1u  /* the major */
#define FLOWHOST_ABI_MINOR 6u
#define FLOWHOST_ENTRY_SYMBOL_V1 "flowhost_plugin_v1"

/* Result codes of host functions and plugin callbacks. */
#define FLOWHOST_OK 0
#define FLOWHOST_ERR_FAILED (-1)        /* the error struct says why */
#define FLOWHOST_ERR_WRONG_THREAD (-2)
#define FLOWHOST_ERR_UNKNOWN_SERVICE (-3)
#define FLOWHOST_ERR_UNDECLARED_EVENT (-4)
#define FLOWHOST_ERR_INVALID_ARGUMENT (-5)
#define FLOWHOST_ERR_LIMIT (-6)         /* too many host requests in flight (1.1) */
#define FLOWHOST_ERR_UNDECLARED_SERVICE (-7) /* the manifest's "uses" does not name it (1.1) */
#define FLOWHOST_ERR_UNKNOWN_ID (-8)    /* no such pending call or timer: finished, cancelled or never made (1.1) */
#define FLOWHOST_ERR_NOT_PERMITTED (-9) /* the flow's name and manifest do not allow it: a feed topic it does not own (1.3) */
#define FLOWHOST_ERR_CANCELLED (-10)    /* given to a callback that will not run for real: what it waited for was cancelled (1.4) */

/* The challengeMode a flow that is not built in gives stepup.authenticate
   (1.5): FlowHost's own, outside the REL-ID SDK's modes. A host refuses
   any other mode from such a flow (Protocol/spec.md §6, "Challenge modes");
   an older one passes it on as given. */
#define FLOWHOST_CHALLENGE_MODE_FLOW_STEP_UP 1000

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
 * short_code == FLOWHOST_SHORT_CODE_CLIENT_ANSWER (given to on_response, or
 *           passed on by a provider): the client's error answer to a host
 *           request, its code, message and data as the client gave them.
 *           The code is the client's choice, whatever its sign: never an SDK
 *           refusal, a timeout or a cancellation of the host's. A client
 *           cannot set short_code; the host never gives this value to any
 *           other error. (1.4: an older host never sets it, and gives a
 *           client's error answer as it gives its own.)
 * data:     optional, a new reference owned by whoever holds the struct:
 *           - filled by a plugin (handle, call_service): the host reads it
 *             and decrefs it;
 *           - filled by the host after a failed host call (call_service):
 *             the plugin must json_decref(error->data) when it is not NULL;
 *           - passed to a callback (on_response, on_result) as a const
 *             pointer: borrowed for the callback only; the host frees it.
 */
#define FLOWHOST_SHORT_CODE_CLIENT_ANSWER (-2147483647)  /* (1.4) */

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
 * the client's error answer has short_code FLOWHOST_SHORT_CODE_CLIENT_ANSWER
 * (its code, message and data as given: data.reason says why); otherwise the
 * host gave up: a timeout is code -32000 with message "request timed out", a
 * cancellation (cancel_requests) code -32800 "request cancelled". In both
 * cases the client is sent `$/cancelRequest {id}` and a late answer is ignored.
 */
typedef void (*flowhost_response_fn)(void *user_data, json_t *result, const flowhost_error_v1 *error);

/* Called once when a timer set with set_timer fires (1.1). */
typedef void (*flowhost_timer_fn)(void *user_data);

/* Called exactly once for a timer set with set_timer_once (1.4): status
   FLOWHOST_OK when it fired, FLOWHOST_ERR_CANCELLED when it was stopped
   first. Either way the plugin may free user_data here. */
typedef void (*flowhost_timer_done_fn)(void *user_data, int32_t status);

/* What the host offers a plugin. Grows at the end only. */
typedef struct flowhost_host_v1 {
    uint32_t struct_size;
    uint32_t abi_version;

    /* Emit an event (a JSON-RPC notification to the client). The event must
       be declared in the plugin's manifest (else FLOWHOST_ERR_UNDECLARED_EVENT).
       params: stolen (an object). When the event declares a params schema,
       params must fit it: else nothing is sent, the host logs why, and this
       returns FLOWHOST_ERR_INVALID_ARGUMENT. If the event is declared as a
       challenge, it becomes the open challenge. */
    int32_t (*emit_event)(flowhost_host_context *host, const char *event, json_t *params);

    /* Call a named service ("credentials.userState", "stepup.authenticate", ...) offered by
       the host or by another plugin. params: borrowed. *result: new on
       success. On failure *error is filled. */
    int32_t (*call_service)(flowhost_host_context *host, const char *name, json_t *params,
                            json_t **result, flowhost_error_v1 *error);

    /* Send a request to the client (for example "platform/authenticateLDA").
       params: stolen. on_response is called exactly once, later, on the loop
       thread: with the client's result, its error, or a timeout after
       timeout_ms (0 means the host's default). Returns FLOWHOST_ERR_LIMIT,
       and never calls on_response, when the host's cap on requests in
       flight is reached. */
    int32_t (*send_request)(flowhost_host_context *host, const char *method, json_t *params,
                            uint32_t timeout_ms, flowhost_response_fn on_response, void *user_data);

    /* Log one line to stderr through the host's logger. Never log a secret. */
    void (*log)(flowhost_host_context *host, int32_t level, const char *message);

    /* Milliseconds on a monotonic clock: for deadlines and durations. It
       never steps, and means nothing across processes or restarts. */
    uint64_t (*monotonic_ms)(flowhost_host_context *host);

    /* The session facts from `initialize` (device, clientInfo): new reference. */
    json_t *(*session_info)(flowhost_host_context *host);

    /* --- ABI 1.1: fields below exist when struct_size covers them. --- */

    /* Cancels every request this plugin sent to the client and still waits
       on (its dialogue was reset or abandoned). Each on_response is called
       once, before this returns, with error -32800. Returns how many. */
    int32_t (*cancel_requests)(flowhost_host_context *host);

    /* The host's minor version (FLOWHOST_ABI_MINOR it was built with). */
    uint32_t abi_minor;

    /* Call a service without waiting: returns at once (FLOWHOST_OK with
       *call_id set, or an error code and nothing else happens). on_result is
       called exactly once, later, on the loop thread, never from inside this
       call: with the result (borrowed, may be JSON null) or an error. The
       provider may run a dialogue of its own meanwhile (challenges, host
       requests); the client sees one open challenge at a time. The service
       must be named in the manifest's "uses". params: borrowed. */
    int32_t (*call_service_async)(flowhost_host_context *host, const char *name, json_t *params,
                                  flowhost_response_fn on_result, void *user_data, uint64_t *call_id);

    /* A provider finishes a call it was given through `serve`: result
       (stolen, NULL means JSON null) on success, or error (borrowed; its
       data is copied) on failure. Exactly once per call; FLOWHOST_ERR_UNKNOWN_ID
       for a call that was cancelled or already finished (the completion is
       dropped, and `result` is released). When the call ends, a challenge the
       provider opened for it closes, and its host requests and timers for it
       are cancelled. */
    int32_t (*complete_call)(flowhost_host_context *host, uint64_t call_id, json_t *result,
                             const flowhost_error_v1 *error);

    /* Cancels every service call this plugin made and still waits on, and
       everything those calls started in turn, down the chain: each provider
       hears cancel_call, its challenges close, its host requests are
       cancelled (the client gets $/cancelRequest), its timers stop, and each
       caller's on_result runs once, before this returns, with -32800. A late
       completion or a late answer to a closed challenge is refused. Returns
       how many of this plugin's calls were cancelled. */
    int32_t (*cancel_calls)(flowhost_host_context *host);

    /* A one-shot timer: on_fire runs once on the loop thread after about
       delay_ms, unless cancelled first. *timer_id is set. */
    int32_t (*set_timer)(flowhost_host_context *host, uint32_t delay_ms, flowhost_timer_fn on_fire,
                         void *user_data, uint64_t *timer_id);

    /* Cancels a timer; FLOWHOST_ERR_UNKNOWN_ID when it fired or was cancelled already. */
    int32_t (*cancel_timer)(flowhost_host_context *host, uint64_t timer_id);

    /* Who is logged in on this host: a new reference to JSON null, or to
       {userID, sessionID, deviceID, since, lastProvedAt (seconds since the
       epoch), factors: ["password" | "lda"], ldaType?}. */
    json_t *(*session)(flowhost_host_context *host);

    /* Ends this host's session (reason: a short word such as "step-up-failed").
       Every flow hears notify("session", {event: "ended", ...}). FLOWHOST_ERR_FAILED
       when no one is logged in. */
    int32_t (*end_session)(flowhost_host_context *host, const char *reason);

    /* Receive the store's change-feed events of `topic` from now on (events
       published before are never replayed), by notify(topic, payload), once
       each, in order, on the loop thread, whichever host published them.
       A flow may subscribe to its own topics ("<flow name>.…") and to the
       host topics its manifest lists under "reads"; any other topic is
       FLOWHOST_ERR_NOT_PERMITTED (1.3). A host topic's payload is the
       store's, read again before delivery: an event the store does not
       bear out is dropped. A host topic's event reaches only the host whose
       session user it names, or that created the notification it is
       about: never another user's. */
    int32_t (*subscribe)(flowhost_host_context *host, const char *topic);

    /* Appends an event to the store's change feed for every subscribed host,
       this one included. payload: borrowed (an object). A flow publishes
       only on its own topics ("<flow name>.…"): any other topic, the host's
       ("sessions.*", "notifications.*", "devices.*") above all, is
       FLOWHOST_ERR_NOT_PERMITTED (1.3). */
    int32_t (*publish)(flowhost_host_context *host, const char *topic, json_t *payload);

    /* Stops receiving `topic`. A host with no subscription left stops
       watching the feed at all (an idle host then costs nothing, and a busy
       one no extra system call per message): subscribe only while needed. */
    int32_t (*unsubscribe)(flowhost_host_context *host, const char *topic);

    /* --- ABI 1.2 --- */

    /* Ends whatever dialogue is in progress on this host, whichever flow runs
       it (the SDK's resetAuthState, said while a logged-in user is in the
       middle of a step-up, an LDA toggle or a signing): every service call
       in flight is cancelled down the chain (each caller's on_result runs
       with -32800), every host request is cancelled ($/cancelRequest), and a
       challenge other than a resting one closes, its flow told
       ("challenge.cancelled"). The session stays. Returns 1 when something
       was in progress, 0 when nothing was. Only the flow the open session
       was opened for may end what other flows run: any other caller (or a
       call with no session open) gets FLOWHOST_ERR_NOT_PERMITTED and
       nothing changes. */
    int32_t (*abandon_dialogues)(flowhost_host_context *host);

    /* --- ABI 1.4 --- */

    /* A one-shot timer whose callback runs exactly once, on the loop thread:
       with FLOWHOST_OK when it fires after about delay_ms, or with
       FLOWHOST_ERR_CANCELLED when it is stopped first: by cancel_timer
       (before cancel_timer returns), by the end of the service call it was
       set under, or by the host's end (before the plugin's destroy). Use it
       instead of set_timer, whose callback never hears of a cancellation.
       With FLOWHOST_ERR_CANCELLED the callback must not call the host table
       (the host may be ending): it only frees what it owns.
       *timer_id is set; cancel it with cancel_timer. */
    int32_t (*set_timer_once)(flowhost_host_context *host, uint32_t delay_ms, flowhost_timer_done_fn on_done,
                              void *user_data, uint64_t *timer_id);

    /* --- ABI 1.5 --- */

    /* The host's wall clock: milliseconds since the Unix epoch (UTC), the
       clock the host stamps the store's times with. For what is kept, or
       compared across hosts and restarts ("5 tries per hour", kept in
       records). It is not monotonic: it may step back or forward (an NTP
       correction, an operator), so a flow clamps what it computes from two
       readings (a negative age is 0) and measures durations and deadlines
       with monotonic_ms and timers. A plugin that meets an older host
       (FLOWHOST_HOST_HAS false) reads the system's clock itself. */
    int64_t (*wall_clock_ms)(flowhost_host_context *host);

    /* --- ABI 1.6 --- */

    /* A message for the client in the language it set (setSDKLanguage):
       the host's catalog's translation of (context, msgid), or msgid itself,
       the English text and built-in default, when there is none. Each
       {name} in it is replaced by values' member `name` (a string, or a
       number written as JSON writes it); values is borrowed and may be
       NULL. context names the flow or part that says it ("echo"); a
       translator finds the pair in the PO catalogs (docs/translating.md).
       Returns a new JSON string for the caller to release, or NULL (a NULL
       context or msgid, or a call from another thread). A plugin that meets
       an older host (FLOWHOST_HOST_HAS false) sends its English text. */
    json_t *(*localize)(flowhost_host_context *host, const char *context, const char *msgid, json_t *values);
} flowhost_host_v1;

/* True when the host table `t` has the field `f` (a plugin built against a
   newer header may meet an older host). */
#define FLOWHOST_HOST_HAS(t, f) \
    ((t)->struct_size >= offsetof(flowhost_host_v1, f) + sizeof((t)->f) && (t)->f != NULL)

/*
 * What a plugin exports. Grows at the end only; `reserved` must be zero.
 * `abi_version` is the major (FLOWHOST_ABI_VERSION); set struct_size to
 * sizeof(flowhost_plugin_descriptor_v1) of the header you build against.
 *
 * manifest: a JSON text (UTF-8) that declares the flow:
 *   {
 *     "methods":  [{"name", "summary", "params": [{"name", "type", "required",
 *                   "description", "format", "secret": true?}],
 *                   "result": <JSON Schema>,
 *                   "answers": "<challenge event>"?, "startsDialogue": true?,
 *                   "errors": [{"code", "message", "description"?}]?}],
 *     "events":   [{"name", "summary", "params": <JSON Schema>,
 *                   "challenge": true?, "resting": true?}],
 *     "services": [{"name", "summary", "params": [...as for methods]}],
 *     "uses":     ["<service name>", ...],
 *     "reads":    ["<host feed topic>", ...]   (1.3: see subscribe)
 *   }
 * A flow may call only the services its "uses" names (host services
 * included); the host checks a service call's params against the
 * provider's declaration before the provider runs. A string param may
 * carry "format": "userID" (the host checks the user-id rule). A param
 * with "secret": true, and an event's params property whose schema says
 * "secret": true, is masked wherever the host shows traffic (--trace, the
 * inspector), whatever its name. A method that lists "errors" may return
 * only those codes (or FLOWHOST_ERR_FAILED with -32603): another code
 * reaches the client as -32603 with data {reason: "undeclaredError",
 * flow, method, code}, and the host logs it. An event's "params" schema is
 * enforced on each emission (see emit_event) with the keywords the spec
 * lists; a schema with another keyword cannot be enforced, and such an
 * event is never sent.
 * Param types: "string", "integer", "number", "boolean", "object", "array",
 * "any". Any other key, at any level, refuses the plugin: the reason names
 * its path and the nearest known key (Protocol/schemas/manifest.schema.json
 * is the same rule as a JSON Schema). A plugin that is not built in (one
 * found through --plugins or FLOWHOST_PLUGIN_PATH) may not declare a
 * method, event or service a built-in flow declares, nor a name beginning
 * with "rpc."; the operator may pin a library by its SHA-256. See
 * Protocol/spec.md, "Flow manifests" and "Running the host".
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

    /* --- ABI 1.1: present when struct_size covers them; NULL when unused. --- */

    /* The minor version the plugin was built with (FLOWHOST_ABI_MINOR). */
    uint32_t abi_minor;

    /* Serve a declared service that may take a while (a dialogue with the
       client): finish with host->complete_call(call_id, ...) exactly once,
       now or later. params: borrowed. When NULL, call_service serves every
       call at once. */
    void (*serve)(void *instance, const char *name, json_t *params, uint64_t call_id);

    /* A call this plugin serves was cancelled by its caller: stop its
       dialogue. Its challenge, host requests and timers are gone already;
       complete_call for it will be refused. May be NULL. */
    void (*cancel_call)(void *instance, uint64_t call_id);

    /* Something the host tells the flow: topic "session" with {event:
       "opened" | "ended", userID, sessionID, reason?}, "challenge.expired"
       with {event, challengeMode}, or a change-feed topic it subscribed to
       with the publisher's payload. payload: borrowed. May be NULL. */
    void (*notify)(void *instance, const char *topic, json_t *payload);
} flowhost_plugin_descriptor_v1;

/* The size of a 1.0 descriptor: the least a host accepts. */
#define FLOWHOST_DESCRIPTOR_SIZE_1_0 offsetof(flowhost_plugin_descriptor_v1, abi_minor)

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
