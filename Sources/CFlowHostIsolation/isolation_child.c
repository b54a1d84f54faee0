/* The child side: `flowhost plugin-host`. Loads one flow library, gives it
   a host table that forwards every call to the host, and serves the host's
   calls to the flow. Single-threaded: the flow runs on this process's main
   thread, as it would on the host's loop thread. */
#define _GNU_SOURCE
#include "flowhost_isolation.h"
#include "isolation_library.h"
#include "isolation_sandbox.h"
#include "isolation_wire.h"
#include "flowhost_system.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parent_fd = -1;
static pthread_t loop_thread;
static flowhost_plugin_descriptor_v1 plugin;     /* the bytes the flow's header declared */
static const flowhost_plugin_descriptor_v1 *plugin_self;
static void *instance;
static flowhost_host_v1 table;

/* A callback the flow gave the host, by token: the host names it back. */
enum callback_kind { CB_FREE, CB_RESPONSE, CB_TIMER, CB_TIMER_DONE };
struct callback {
    enum callback_kind kind;
    void *fn;
    void *user_data;
    uint64_t timer_id;
};
static struct callback *callbacks;
static size_t callback_count;

static uint64_t remember(enum callback_kind kind, void *fn, void *user_data) {
    for (size_t i = 0; i < callback_count; i++) {
        if (callbacks[i].kind == CB_FREE) {
            callbacks[i] = (struct callback){kind, fn, user_data, 0};
            return i;
        }
    }
    struct callback *grown = realloc(callbacks, (callback_count + 1) * sizeof *callbacks);
    if (!grown) abort();
    callbacks = grown;
    callbacks[callback_count] = (struct callback){kind, fn, user_data, 0};
    return callback_count++;
}

/* The callback of `token` if it is of `kind`; it is forgotten. */
static int take(uint64_t token, enum callback_kind kind, struct callback *out) {
    if (token >= callback_count || callbacks[token].kind != kind) return 0;
    *out = callbacks[token];
    callbacks[token].kind = CB_FREE;
    return 1;
}

/* A call from another thread is refused, and said so on stderr, which the
   host relays to its log (stamped, as this flow's): the socket belongs to
   the loop thread, so the host itself cannot be told. */
static int on_loop_thread(void) {
    if (pthread_equal(pthread_self(), loop_thread)) return 1;
    dprintf(2, "flow %s called the host from a thread other than the loop; refused (in its own process)\n",
            plugin.name ? plugin.name : "?");
    return 0;
}

static json_t *serve_host_call(json_t *call);

/* Sends a call to the host and serves the host's calls until its answer
   comes. The host gone means this process has nothing left to do. */
static json_t *call_host(json_t *call) {
    if (fhi_send(parent_fd, call) != 0) _exit(0);
    json_decref(call);
    for (;;) {
        int status = 0;
        json_t *message = fhi_receive(parent_fd, 0, &status);
        if (!message) _exit(status == 0 ? 0 : 70);
        if (json_object_get(message, FHI_REPLY)) return message;
        json_t *answer = serve_host_call(message);
        json_decref(message);
        if (fhi_send(parent_fd, answer) != 0) _exit(0);
        json_decref(answer);
    }
}

static json_t *new_call(const char *name) { return json_pack("{s:s}", "c", name); }

static int32_t status_of(json_t *answer) {
    int32_t status = (int32_t)fhi_int(answer, "s", FLOWHOST_ERR_FAILED);
    json_decref(answer);
    return status;
}

static void set_string(json_t *call, const char *key, const char *value) {
    if (value) json_object_set_new(call, key, json_string(value));
}

/* A value the host must take (stolen), or borrowed (copied in). */
static void set_stolen(json_t *call, const char *key, json_t *value) {
    if (value) json_object_set_new(call, key, value);
}

static void set_borrowed(json_t *call, const char *key, json_t *value) {
    if (value) json_object_set(call, key, value);
}

/* --- The host table the flow sees --- */

static int32_t h_emit_event(flowhost_host_context *host, const char *event, json_t *params) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    json_t *call = new_call("emit_event");
    set_string(call, "e", event);
    set_stolen(call, "p", params);
    return status_of(call_host(call));
}

/* Fills the flow's result and error from an answer {s, v?, e?}. */
static int32_t outcome(json_t *answer, json_t **result, flowhost_error_v1 *error) {
    int32_t status = (int32_t)fhi_int(answer, "s", FLOWHOST_ERR_FAILED);
    json_t *value = json_object_get(answer, "v");
    if (result) *result = status == FLOWHOST_OK && value ? json_incref(value) : NULL;
    json_t *failure = json_object_get(answer, "e");
    if (error && failure) fhi_error_from_json(failure, error);
    json_decref(answer);
    return status;
}

static int32_t h_call_service(flowhost_host_context *host, const char *name, json_t *params, json_t **result,
                              flowhost_error_v1 *error) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    json_t *call = new_call("call_service");
    set_string(call, "n", name);
    set_borrowed(call, "p", params);
    return outcome(call_host(call), result, error);
}

static int32_t h_send_request(flowhost_host_context *host, const char *method, json_t *params, uint32_t timeout_ms,
                              flowhost_response_fn on_response, void *user_data) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    if (!on_response) {
        json_decref(params);
        return FLOWHOST_ERR_INVALID_ARGUMENT;
    }
    uint64_t token = remember(CB_RESPONSE, (void *)on_response, user_data);
    json_t *call = new_call("send_request");
    set_string(call, "m", method);
    set_stolen(call, "p", params);
    json_object_set_new(call, "t", json_integer(timeout_ms));
    json_object_set_new(call, "k", json_integer((json_int_t)token));
    int32_t status = status_of(call_host(call));
    struct callback unused;
    if (status != FLOWHOST_OK) take(token, CB_RESPONSE, &unused);
    return status;
}

static void h_log(flowhost_host_context *host, int32_t level, const char *message) {
    (void)host;
    if (!on_loop_thread() || !message) return;
    json_t *call = new_call("log");
    json_object_set_new(call, "l", json_integer(level));
    set_string(call, "m", message);
    json_decref(call_host(call));
}

static uint64_t h_monotonic_ms(flowhost_host_context *host) {
    (void)host;
    if (!on_loop_thread()) return fhi_now_ms();
    json_t *answer = call_host(new_call("monotonic_ms"));
    uint64_t value = (uint64_t)fhi_int(answer, "v", 0);
    json_decref(answer);
    return value;
}

static int64_t h_wall_clock_ms(flowhost_host_context *host) {
    (void)host;
    if (!on_loop_thread()) {
        /* As the host answers a call from another thread: the machine's clock. */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        return (int64_t)now.tv_sec * 1000 + (int64_t)now.tv_nsec / 1000000;
    }
    json_t *answer = call_host(new_call("wall_clock_ms"));
    int64_t value = (int64_t)fhi_int(answer, "v", 0);
    json_decref(answer);
    return value;
}

/* A new reference to the answer's "v" (NULL when the host gave none). */
static json_t *value_of(json_t *answer) {
    json_t *value = json_object_get(answer, "v");
    if (value) json_incref(value);
    json_decref(answer);
    return value;
}

static json_t *h_session_info(flowhost_host_context *host) {
    (void)host;
    if (!on_loop_thread()) return NULL;
    return value_of(call_host(new_call("session_info")));
}

static json_t *h_localize(flowhost_host_context *host, const char *context, const char *msgid, json_t *values) {
    (void)host;
    if (!on_loop_thread() || !context || !msgid) return NULL;
    json_t *call = new_call("localize");
    set_string(call, "x", context);
    set_string(call, "i", msgid);
    set_borrowed(call, "p", values);
    return value_of(call_host(call));
}

static int32_t h_simple(const char *name) {
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    return status_of(call_host(new_call(name)));
}

static int32_t h_cancel_requests(flowhost_host_context *host) { (void)host; return h_simple("cancel_requests"); }
static int32_t h_cancel_calls(flowhost_host_context *host) { (void)host; return h_simple("cancel_calls"); }
static int32_t h_abandon_dialogues(flowhost_host_context *host) { (void)host; return h_simple("abandon_dialogues"); }

static int32_t h_call_service_async(flowhost_host_context *host, const char *name, json_t *params,
                                    flowhost_response_fn on_result, void *user_data, uint64_t *call_id) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    if (!on_result) return FLOWHOST_ERR_INVALID_ARGUMENT;
    uint64_t token = remember(CB_RESPONSE, (void *)on_result, user_data);
    json_t *call = new_call("call_service_async");
    set_string(call, "n", name);
    set_borrowed(call, "p", params);
    json_object_set_new(call, "k", json_integer((json_int_t)token));
    json_t *answer = call_host(call);
    int32_t status = (int32_t)fhi_int(answer, "s", FLOWHOST_ERR_FAILED);
    if (status == FLOWHOST_OK && call_id) *call_id = (uint64_t)fhi_int(answer, "i", 0);
    json_decref(answer);
    struct callback unused;
    if (status != FLOWHOST_OK) take(token, CB_RESPONSE, &unused);
    return status;
}

static int32_t h_complete_call(flowhost_host_context *host, uint64_t call_id, json_t *result, const flowhost_error_v1 *error) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    json_t *call = new_call("complete_call");
    json_object_set_new(call, "i", json_integer((json_int_t)call_id));
    set_stolen(call, "v", result);
    if (error) json_object_set_new(call, "e", fhi_error_json(error));
    return status_of(call_host(call));
}

static int32_t set_timer(const char *name, enum callback_kind kind, uint32_t delay_ms, void *fn, void *user_data,
                         uint64_t *timer_id) {
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    if (!fn) return FLOWHOST_ERR_INVALID_ARGUMENT;
    uint64_t token = remember(kind, fn, user_data);
    json_t *call = new_call(name);
    json_object_set_new(call, "d", json_integer(delay_ms));
    json_object_set_new(call, "k", json_integer((json_int_t)token));
    json_t *answer = call_host(call);
    int32_t status = (int32_t)fhi_int(answer, "s", FLOWHOST_ERR_FAILED);
    uint64_t id = (uint64_t)fhi_int(answer, "i", 0);
    json_decref(answer);
    struct callback unused;
    if (status != FLOWHOST_OK) {
        take(token, kind, &unused);
        return status;
    }
    /* The host fires timers from its loop, never inside set_timer: the
       token is still this timer's. */
    if (token < callback_count && callbacks[token].kind == kind) callbacks[token].timer_id = id;
    if (timer_id) *timer_id = id;
    return status;
}

static int32_t h_set_timer(flowhost_host_context *host, uint32_t delay_ms, flowhost_timer_fn on_fire, void *user_data,
                           uint64_t *timer_id) {
    (void)host;
    return set_timer("set_timer", CB_TIMER, delay_ms, (void *)on_fire, user_data, timer_id);
}

static int32_t h_set_timer_once(flowhost_host_context *host, uint32_t delay_ms, flowhost_timer_done_fn on_done,
                                void *user_data, uint64_t *timer_id) {
    (void)host;
    return set_timer("set_timer_once", CB_TIMER_DONE, delay_ms, (void *)on_done, user_data, timer_id);
}

static int32_t h_cancel_timer(flowhost_host_context *host, uint64_t timer_id) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    json_t *call = new_call("cancel_timer");
    json_object_set_new(call, "i", json_integer((json_int_t)timer_id));
    int32_t status = status_of(call_host(call));
    /* A plain timer that will never fire is forgotten here (a once-timer
       heard of it through its callback, nested in the call). */
    if (status == FLOWHOST_OK) {
        for (size_t i = 0; i < callback_count; i++) {
            if (callbacks[i].kind == CB_TIMER && callbacks[i].timer_id == timer_id) callbacks[i].kind = CB_FREE;
        }
    }
    return status;
}

static json_t *h_session(flowhost_host_context *host) {
    (void)host;
    if (!on_loop_thread()) return NULL;
    return value_of(call_host(new_call("session")));
}

static int32_t h_end_session(flowhost_host_context *host, const char *reason) {
    (void)host;
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    json_t *call = new_call("end_session");
    set_string(call, "r", reason);
    return status_of(call_host(call));
}

static int32_t topic_call(const char *name, const char *topic, json_t *payload) {
    if (!on_loop_thread()) return FLOWHOST_ERR_WRONG_THREAD;
    json_t *call = new_call(name);
    set_string(call, "t", topic);
    set_borrowed(call, "p", payload);
    return status_of(call_host(call));
}

static int32_t h_subscribe(flowhost_host_context *host, const char *topic) {
    (void)host;
    return topic_call("subscribe", topic, NULL);
}
static int32_t h_unsubscribe(flowhost_host_context *host, const char *topic) {
    (void)host;
    return topic_call("unsubscribe", topic, NULL);
}
static int32_t h_publish(flowhost_host_context *host, const char *topic, json_t *payload) {
    (void)host;
    return topic_call("publish", topic, payload);
}

/* --- The host's calls to the flow --- */

static json_t *answer(void) { return json_pack("{s:i}", FHI_REPLY, 1); }

static json_t *serve_host_call(json_t *call) {
    const char *name = fhi_string(call, "c");
    if (!name) return answer();
    json_t *params = json_object_get(call, "p");
    if (strcmp(name, "create") == 0) {
        table.abi_minor = (uint32_t)fhi_int(call, "minor", FLOWHOST_ABI_MINOR);
        flowhost_error_v1 error = {0};
        json_t *config = json_object_get(call, "config");
        json_t *empty = json_object();
        instance = plugin.create(plugin_self, &table, (flowhost_host_context *)&table, config ? config : empty, &error);
        json_decref(empty);
        json_t *reply = answer();
        json_object_set_new(reply, "ok", json_boolean(instance != NULL));
        if (!instance) json_object_set_new(reply, "e", fhi_error_json(&error));
        if (error.data) json_decref(error.data);
        return reply;
    }
    if (strcmp(name, "handle") == 0 || strcmp(name, "call_service") == 0) {
        int handle = name[0] == 'h';
        json_t *result = NULL;
        flowhost_error_v1 error = {0};
        int32_t (*fn)(void *, const char *, json_t *, json_t **, flowhost_error_v1 *) = handle ? plugin.handle : plugin.call_service;
        if (!instance || !fn) {
            flowhost_error_set(&error, -32603, 0, "the flow cannot take this call");
            return fhi_outcome_reply(FLOWHOST_ERR_FAILED, NULL, &error);
        }
        int32_t status = fn(instance, fhi_string(call, "n"), params ? params : json_null(), &result, &error);
        return fhi_outcome_reply(status, result, &error);
    }
    if (strcmp(name, "start") == 0) {
        if (instance && plugin.start) plugin.start(instance);
    } else if (strcmp(name, "serve") == 0) {
        if (instance && plugin.serve) plugin.serve(instance, fhi_string(call, "n"), params, (uint64_t)fhi_int(call, "i", 0));
    } else if (strcmp(name, "cancel_call") == 0) {
        if (instance && plugin.cancel_call) plugin.cancel_call(instance, (uint64_t)fhi_int(call, "i", 0));
    } else if (strcmp(name, "notify") == 0) {
        if (instance && plugin.notify) plugin.notify(instance, fhi_string(call, "n"), params ? params : json_null());
    } else if (strcmp(name, "destroy") == 0) {
        if (instance && plugin.destroy) plugin.destroy(instance);
        instance = NULL;
    } else if (strcmp(name, "response") == 0) {
        struct callback callback;
        if (take((uint64_t)fhi_int(call, "k", -1), CB_RESPONSE, &callback)) {
            flowhost_error_v1 error = {0};
            json_t *failure = json_object_get(call, "e");
            int failed = failure && fhi_error_from_json(failure, &error) == 0;
            json_t *value = json_object_get(call, "v");
            ((flowhost_response_fn)callback.fn)(callback.user_data, failed ? NULL : (value ? value : json_null()),
                                               failed ? &error : NULL);
            if (error.data) json_decref(error.data);
        }
    } else if (strcmp(name, "timer") == 0) {
        struct callback callback;
        if (take((uint64_t)fhi_int(call, "k", -1), CB_TIMER, &callback)) ((flowhost_timer_fn)callback.fn)(callback.user_data);
    } else if (strcmp(name, "timer_done") == 0) {
        struct callback callback;
        if (take((uint64_t)fhi_int(call, "k", -1), CB_TIMER_DONE, &callback)) {
            ((flowhost_timer_done_fn)callback.fn)(callback.user_data, (int32_t)fhi_int(call, "s", FLOWHOST_ERR_CANCELLED));
        }
    }
    return answer();
}

/* --- Loading --- */

static json_t *refusal(const char *reason) { return json_pack("{s:s}", "refused", reason); }

static json_t *load(const char *library, char *confinement, size_t confinement_size) {
    void *handle = fhi_dlopen_library(library);
    if (!handle) {
        /* dlerror clears what it returns: read it once. */
        const char *why = dlerror();
        return refusal(why ? why : "dlopen failed");
    }
    /* Its constructors ran under the first step; the entry symbol and all
       after it run under both. */
    fhi_confine_files(confinement, confinement_size);
    void *symbol = dlsym(handle, FLOWHOST_ENTRY_SYMBOL_V1);
    if (!symbol) return refusal("no entry symbol " FLOWHOST_ENTRY_SYMBOL_V1);
    /* The same check the host makes in process: one shared libjansson. */
    void *ours = dlsym(RTLD_DEFAULT, "json_object"), *theirs = dlsym(handle, "json_object");
    if (ours && theirs && ours != theirs) {
        return refusal("uses its own copy of jansson (linked statically?); it must link the shared libjansson");
    }
    const flowhost_plugin_descriptor_v1 *descriptor = ((flowhost_plugin_entry_v1)symbol)();
    if (!descriptor) return refusal("entry symbol returned no descriptor");
    uint32_t size = descriptor->struct_size;
    memset(&plugin, 0, sizeof plugin);
    memcpy(&plugin, descriptor, size < sizeof plugin ? size : sizeof plugin);
    plugin_self = descriptor;
    int reserved_clear = 1;
    for (size_t i = 0; i < sizeof plugin.reserved / sizeof plugin.reserved[0]; i++) {
        if (plugin.reserved[i]) reserved_clear = 0;
    }
    json_t *hello = json_object();
    json_object_set_new(hello, "size", json_integer(size));
    json_object_set_new(hello, "abi", json_integer(plugin.abi_version));
    json_object_set_new(hello, "minor", json_integer(size > offsetof(flowhost_plugin_descriptor_v1, abi_minor) ? plugin.abi_minor : 0));
    json_object_set_new(hello, "reservedClear", json_boolean(reserved_clear));
    set_string(hello, "name", plugin.name);
    set_string(hello, "version", plugin.version);
    set_string(hello, "manifest", plugin.manifest);
    json_t *has = json_pack("{s:b,s:b,s:b,s:b,s:b,s:b,s:b,s:b}", "create", plugin.create != NULL, "start", plugin.start != NULL,
                            "handle", plugin.handle != NULL, "call_service", plugin.call_service != NULL, "destroy",
                            plugin.destroy != NULL, "serve", plugin.serve != NULL, "cancel_call", plugin.cancel_call != NULL,
                            "notify", plugin.notify != NULL);
    json_object_set_new(hello, "has", has);
    return hello;
}

int flowhost_plugin_host_main(int fd, const char *library, const flowhost_isolation_limits *limits) {
    parent_fd = fd;
    loop_thread = pthread_self();
    /* Passwords pass through this process's jansson too. */
    flowhost_json_wipe_on_free();
    table = (flowhost_host_v1){
        .struct_size = sizeof(flowhost_host_v1),
        .abi_version = FLOWHOST_ABI_VERSION,
        .emit_event = h_emit_event,
        .call_service = h_call_service,
        .send_request = h_send_request,
        .log = h_log,
        .monotonic_ms = h_monotonic_ms,
        .session_info = h_session_info,
        .cancel_requests = h_cancel_requests,
        .abi_minor = FLOWHOST_ABI_MINOR,
        .call_service_async = h_call_service_async,
        .complete_call = h_complete_call,
        .cancel_calls = h_cancel_calls,
        .set_timer = h_set_timer,
        .cancel_timer = h_cancel_timer,
        .session = h_session,
        .end_session = h_end_session,
        .subscribe = h_subscribe,
        .publish = h_publish,
        .unsubscribe = h_unsubscribe,
        .abandon_dialogues = h_abandon_dialogues,
        .set_timer_once = h_set_timer_once,
        .wall_clock_ms = h_wall_clock_ms,
        .localize = h_localize,
    };
    fhi_leave_terminal();
    /* Its hash seed read now, while /dev/urandom can still be opened. */
    json_object_seed(0);
    char problem[256] = "";
    if (fhi_apply_limits(limits, problem, sizeof problem) != 0) {
        json_t *hello = refusal(problem);
        fhi_send(fd, hello);
        json_decref(hello);
        return 71;
    }
    /* Confined in two steps around the dynamic linker, which must read
       files: no library code runs before the first. */
    char confinement[128] = "";
    fhi_confine_calls(confinement, sizeof confinement);
    json_t *hello = load(library, confinement, sizeof confinement);
    if (!json_object_get(hello, "refused")) {
        json_object_set_new(hello, "confinement", json_string(confinement[0] ? confinement : "none"));
    }
    int refused = json_object_get(hello, "refused") != NULL;
    int sent = fhi_send(fd, hello);
    json_decref(hello);
    if (sent != 0 || refused) return refused ? 72 : 0;
    for (;;) {
        int status = 0;
        json_t *call = fhi_receive(fd, 0, &status);
        if (!call) return status == 0 ? 0 : 70;
        json_t *reply = serve_host_call(call);
        json_decref(call);
        if (fhi_send(fd, reply) != 0) return 0;
        json_decref(reply);
    }
}
