/* The host side of an isolated flow: a descriptor whose functions forward
   to the child, and the host table's calls the child makes, made for it. */
#define _GNU_SOURCE
#include "flowhost_isolation.h"
#include "isolation_library.h"
#include "isolation_output.h"
#include "isolation_wire.h"
#include "flowhost_errors.h"
#include "flowhost_system.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Something the child asked the host to call it back for, by token. */
enum pending_kind { PENDING_RESPONSE, PENDING_TIMER, PENDING_TIMER_DONE };
struct pending {
    struct flowhost_isolated *isolated;
    uint32_t generation;   /* the child it belongs to: a later child never hears of it */
    uint64_t token;        /* the child's name for it */
    enum pending_kind kind;
    uint64_t timer_id;
    struct pending *next;
};

/* A call the flow serves (`serve`) and has not completed. */
struct served {
    uint64_t call_id;
    struct served *next;
};

struct topic {
    char *name;
    struct topic *next;
};

struct flowhost_isolated {
    /* First: `self` in create is this descriptor, and it finds the rest. */
    flowhost_plugin_descriptor_v1 descriptor;
    char *executable, *library;
    int library_fd;                /* the file the host judged and hashed: every child loads it */
    flowhost_isolation_verify_fn verify;
    void *verify_context;
    flowhost_isolation_limits limits;
    char *name, *version, *manifest;
    char confinement[128];
    uint64_t output;               /* the relay's id of its output pipe */

    pid_t pid;
    int fd;
    int alive;
    uint32_t generation;
    int depth;                     /* calls to the child in flight (nested) */
    uint64_t budget_ends;          /* when the outermost call in flight must have its answer (0: no budget) */

    const flowhost_host_v1 *host;
    flowhost_host_context *context;
    json_t *config;
    int created, started;
    int destroying;                /* the host is ending: its table is not called to clean up */

    unsigned failures;
    uint64_t restart_at, alive_since;
    char failure[FLOWHOST_ERROR_MESSAGE_MAX];
    flowhost_isolation_failure_fn on_failure;
    void *on_failure_context;

    struct pending *pendings;
    struct served *served;
    struct topic *topics;
};

/* --- Starting the child --- */

static int spawn_child(struct flowhost_isolated *isolated, char *why, size_t why_size) {
    int pair[2], out[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(why, why_size, "cannot make a socket pair: %s", strerror(errno));
        return -1;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot make a pipe: %s", strerror(errno));
        close(pair[0]);
        close(pair[1]);
        return -1;
    }
    char as[32], cpu[32], files[32];
    snprintf(as, sizeof as, "%llu", (unsigned long long)isolated->limits.address_space_bytes);
    snprintf(cpu, sizeof cpu, "%u", isolated->limits.cpu_seconds);
    snprintf(files, sizeof files, "%u", isolated->limits.open_files);
    char library[32];
    fhi_descriptor_path(FHI_CHILD_LIBRARY_FD, library, sizeof library);
    char *argv[] = {isolated->executable, "plugin-host", "--address-space", as, "--cpu-seconds", cpu, "--open-files", files,
                    "--", library, NULL};
    /* stdin from nothing; stdout and stderr one pipe, relayed line by line
       to the host's log (isolation_output.c), never the protocol's stdout
       nor the host's stderr, which may be the operator's terminal; the
       socket is fd 3, the library fd 4 (the child closes it once loaded);
       nothing else of the host's is inherited, and of its environment only
       what child_environment.c names. A session of its own from the start:
       no controlling terminal. */
    const flowhost_spawn_descriptor descriptors[] = {
        {0, FLOWHOST_SPAWN_NULL}, {1, out[1]}, {2, out[1]}, {3, pair[1]}, {FHI_CHILD_LIBRARY_FD, isolated->library_fd},
    };
    char **environment = flowhost_child_environment();
    flowhost_spawn_plan plan = {argv, environment, descriptors, sizeof descriptors / sizeof descriptors[0], 1};
    flowhost_spawn_error error = {FLOWHOST_SPAWN_FAILED_START, ENOMEM};
    pid_t pid = environment ? flowhost_spawn(&plan, &error) : -1;
    flowhost_free_environment(environment);
    close(pair[1]);
    close(out[1]);
    if (pid < 0) {
        close(pair[0]);
        close(out[0]);
        snprintf(why, why_size, "cannot start %s: %s", isolated->executable, strerror(error.number));
        return -1;
    }
    isolated->pid = pid;
    isolated->fd = pair[0];
    isolated->output = fhi_output_watch(out[0], isolated->name ? isolated->name : isolated->library);
    return 0;
}

static void reap(struct flowhost_isolated *isolated, int *status) {
    *status = 0;
    if (isolated->pid <= 0) return;
    if (flowhost_reap(isolated->pid, status) != 0) *status = 0;
    isolated->pid = 0;
}

static void stop_child(struct flowhost_isolated *isolated) {
    if (isolated->fd >= 0) close(isolated->fd);
    isolated->fd = -1;
    if (isolated->pid > 0) kill(isolated->pid, SIGKILL);
    int status;
    reap(isolated, &status);
}

static json_t *call_child(struct flowhost_isolated *isolated, json_t *call);

/* Starts a child and reads what it loaded. 0, or -1 with `why`. */
static int start_child(struct flowhost_isolated *isolated, char *why, size_t why_size, json_t **hello_out) {
    if (isolated->verify && isolated->verify(isolated->verify_context, isolated->library_fd, why, why_size) != 0) return -1;
    if (spawn_child(isolated, why, why_size) != 0) return -1;
    int status = 0;
    uint32_t wait = isolated->limits.watchdog_ms ? isolated->limits.watchdog_ms : 10000;
    json_t *hello = fhi_receive(isolated->fd, wait, &status);
    if (!hello || json_object_get(hello, "refused")) {
        const char *reason = hello ? fhi_string(hello, "refused") : NULL;
        snprintf(why, why_size, "%s", reason ? reason
                                     : status == 1 ? "its plugin host did not load it in time"
                                                   : "its plugin host ended before loading it");
        json_decref(hello);
        stop_child(isolated);
        return -1;
    }
    isolated->generation++;
    isolated->alive = 1;
    isolated->alive_since = fhi_now_ms();
    *hello_out = hello;
    return 0;
}

static char *copy_string(json_t *hello, const char *key) {
    const char *value = fhi_string(hello, key);
    return value ? strdup(value) : NULL;
}

/* --- Failures --- */

/* Why the host ended a child: what fail() is told. */
enum failure_kind { FAILED_CLOSED = 0, FAILED_SILENT = 1, FAILED_PROTOCOL = 2, FAILED_BUDGET = 3 };

static void describe_end(int status, enum failure_kind kind, const flowhost_isolation_limits *limits, char *out, size_t size) {
    if (kind == FAILED_SILENT) {
        snprintf(out, size, "did not answer for %u ms (watchdog) and was killed", limits->watchdog_ms);
    } else if (kind == FAILED_BUDGET) {
        snprintf(out, size, "took longer than its call budget of %u ms and was killed", limits->call_budget_ms);
    } else if (WIFSIGNALED(status)) {
        int signal = WTERMSIG(status);
        const char *abbreviation = sigabbrev_np(signal);
        snprintf(out, size, "was killed by signal %d (SIG%s)", signal, abbreviation ? abbreviation : "?");
    } else if (WIFEXITED(status)) {
        snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
    } else {
        snprintf(out, size, "ended");
    }
}

static void fail_pending_work(struct flowhost_isolated *isolated);

/* The child is gone or misbehaved: kill it, clean up what it started, say
   so once. */
static void fail(struct flowhost_isolated *isolated, enum failure_kind kind) {
    if (!isolated->alive) return;
    isolated->alive = 0;
    /* Killed in every case: a child that only closed its socket must not
       keep running; one that died already is a zombie, and its status
       stays what it was. */
    if (isolated->pid > 0) kill(isolated->pid, SIGKILL);
    if (isolated->fd >= 0) close(isolated->fd);
    isolated->fd = -1;
    int status;
    reap(isolated, &status);
    char what[160];
    if (kind == FAILED_PROTOCOL) snprintf(what, sizeof what, "broke the isolation protocol and was killed");
    else describe_end(status, kind, &isolated->limits, what, sizeof what);
    uint64_t now = fhi_now_ms();
    /* A flow that ran a minute without failing starts its back-off afresh. */
    if (now - isolated->alive_since > 60000) isolated->failures = 0;
    isolated->failures++;
    uint64_t pause = 100ull << (isolated->failures > 9 ? 9 : isolated->failures - 1);
    if (pause > 30000) pause = 30000;
    isolated->restart_at = now + pause;
    snprintf(isolated->failure, sizeof isolated->failure, "flow %s failed: its process %s; it restarts on its next use",
             isolated->name, what);
    char line[FLOWHOST_ERROR_MESSAGE_MAX + 64];
    snprintf(line, sizeof line, "%s (in %llu ms at the earliest)", isolated->failure, (unsigned long long)pause);
    if (isolated->on_failure) isolated->on_failure(isolated->on_failure_context, line);
    /* At the host's end (destroy) nothing is left to clean up, and the
       host table may be going: it is not called. */
    if (!isolated->destroying) fail_pending_work(isolated);
}

/* What the dead child had started through the host table ends, through the
   host table: its host requests and service calls are cancelled, its timers
   stopped, the calls it served fail, its feed subscriptions end. Each
   callback that runs finds a dead generation and only frees its token. */
static void fail_pending_work(struct flowhost_isolated *isolated) {
    if (!isolated->host || !isolated->context) return;
    const flowhost_host_v1 *host = isolated->host;
    host->cancel_requests(isolated->context);
    host->cancel_calls(isolated->context);
    for (struct pending **link = &isolated->pendings; *link;) {
        struct pending *pending = *link;
        if (pending->kind == PENDING_TIMER) {
            /* Never fires now: its callback would not run to free it. */
            host->cancel_timer(isolated->context, pending->timer_id);
            *link = pending->next;
            free(pending);
            continue;
        }
        if (pending->kind == PENDING_TIMER_DONE) {
            if (pending->timer_id && host->cancel_timer(isolated->context, pending->timer_id) == FLOWHOST_OK) {
                link = &isolated->pendings; /* its callback ran and freed it: walk again */
            } else {
                *link = pending->next;
                free(pending);
            }
            continue;
        }
        link = &pending->next;
    }
    flowhost_error_v1 error = {0};
    flowhost_error_set(&error, FLOWHOST_ERROR_FLOW_FAILED, 0, isolated->failure);
    while (isolated->served) {
        struct served *served = isolated->served;
        isolated->served = served->next;
        host->complete_call(isolated->context, served->call_id, NULL, &error);
        free(served);
    }
    while (isolated->topics) {
        struct topic *topic = isolated->topics;
        isolated->topics = topic->next;
        host->unsubscribe(isolated->context, topic->name);
        free(topic->name);
        free(topic);
    }
}

static void failed_error(struct flowhost_isolated *isolated, flowhost_error_v1 *error) {
    char message[FLOWHOST_ERROR_MESSAGE_MAX];
    if (isolated->failure[0]) {
        snprintf(message, sizeof message, "%s", isolated->failure);
    } else {
        snprintf(message, sizeof message, "flow %s is not running", isolated->name);
    }
    flowhost_error_set(error, FLOWHOST_ERROR_FLOW_FAILED, 0, message);
    error->data = NULL;
}

/* The child, running: started again after a failure once its back-off has
   passed (never while calls to the dead one are still unwinding). */
static int ensure_alive(struct flowhost_isolated *isolated) {
    if (isolated->alive) return 1;
    if (isolated->depth > 0 || !isolated->created || fhi_now_ms() < isolated->restart_at) return 0;
    char why[256];
    json_t *hello = NULL;
    if (start_child(isolated, why, sizeof why, &hello) != 0) {
        isolated->failures++;
        isolated->restart_at = fhi_now_ms() + 30000;
        snprintf(isolated->failure, sizeof isolated->failure, "flow %s could not be restarted: %s", isolated->name, why);
        if (isolated->on_failure) isolated->on_failure(isolated->on_failure_context, isolated->failure);
        return 0;
    }
    /* The same library must give the same flow. */
    const char *name = fhi_string(hello, "name"), *manifest = fhi_string(hello, "manifest");
    int same = name && manifest && strcmp(name, isolated->name) == 0 && strcmp(manifest, isolated->manifest) == 0;
    json_decref(hello);
    if (!same) {
        stop_child(isolated);
        isolated->alive = 0;
        isolated->restart_at = UINT64_MAX;
        snprintf(isolated->failure, sizeof isolated->failure,
                 "flow %s was not restarted: its library now declares another flow (restart the host)", isolated->name);
        if (isolated->on_failure) isolated->on_failure(isolated->on_failure_context, isolated->failure);
        return 0;
    }
    json_t *call = json_pack("{s:s,s:O,s:i}", "c", "create", "config", isolated->config, "minor", (int)isolated->host->abi_minor);
    json_t *answer = call_child(isolated, call);
    int created = answer && json_is_true(json_object_get(answer, "ok"));
    json_decref(answer);
    if (!created) {
        if (isolated->alive) fail(isolated, FAILED_PROTOCOL);
        return 0;
    }
    if (isolated->started) json_decref(call_child(isolated, json_pack("{s:s}", "c", "start")));
    return isolated->alive;
}

/* --- The child's calls to the host table --- */

static json_t *reply_status(int32_t status) { return fhi_status_reply(status); }

static struct pending *add_pending(struct flowhost_isolated *isolated, enum pending_kind kind, uint64_t token) {
    struct pending *pending = calloc(1, sizeof *pending);
    if (!pending) return NULL;
    *pending = (struct pending){isolated, isolated->generation, token, kind, 0, isolated->pendings};
    isolated->pendings = pending;
    return pending;
}

static void drop_pending(struct pending *pending) {
    for (struct pending **link = &pending->isolated->pendings; *link; link = &(*link)->next) {
        if (*link == pending) {
            *link = pending->next;
            break;
        }
    }
    free(pending);
}

/* The pending's child, if it is still the one running. */
static struct flowhost_isolated *current(struct pending *pending) {
    struct flowhost_isolated *isolated = pending->isolated;
    return isolated->alive && isolated->generation == pending->generation ? isolated : NULL;
}

static void on_response(void *user_data, json_t *result, const flowhost_error_v1 *error) {
    struct pending *pending = user_data;
    struct flowhost_isolated *isolated = current(pending);
    uint64_t token = pending->token;
    drop_pending(pending);
    if (!isolated) return;
    json_t *call = json_pack("{s:s,s:I}", "c", "response", "k", (json_int_t)token);
    if (error) json_object_set_new(call, "e", fhi_error_json(error));
    else if (result) json_object_set(call, "v", result);
    json_decref(call_child(isolated, call));
}

static void on_timer(void *user_data) {
    struct pending *pending = user_data;
    struct flowhost_isolated *isolated = current(pending);
    uint64_t token = pending->token;
    drop_pending(pending);
    if (isolated) json_decref(call_child(isolated, json_pack("{s:s,s:I}", "c", "timer", "k", (json_int_t)token)));
}

static void on_timer_done(void *user_data, int32_t status) {
    struct pending *pending = user_data;
    struct flowhost_isolated *isolated = current(pending);
    uint64_t token = pending->token;
    drop_pending(pending);
    if (isolated) {
        json_decref(call_child(isolated, json_pack("{s:s,s:I,s:i}", "c", "timer_done", "k", (json_int_t)token, "s", (int)status)));
    }
}

static void forget_served(struct flowhost_isolated *isolated, uint64_t call_id) {
    for (struct served **link = &isolated->served; *link; link = &(*link)->next) {
        if ((*link)->call_id == call_id) {
            struct served *served = *link;
            *link = served->next;
            free(served);
            return;
        }
    }
}

static void track_topic(struct flowhost_isolated *isolated, const char *name, int subscribed) {
    for (struct topic **link = &isolated->topics; *link; link = &(*link)->next) {
        if (strcmp((*link)->name, name) == 0) {
            if (!subscribed) {
                struct topic *topic = *link;
                *link = topic->next;
                free(topic->name);
                free(topic);
            }
            return;
        }
    }
    if (!subscribed) return;
    struct topic *topic = calloc(1, sizeof *topic);
    if (!topic) return;
    topic->name = strdup(name);
    topic->next = isolated->topics;
    isolated->topics = topic;
}

/* One host-table call from the child; NULL when it is not one. */
static json_t *serve_child_call(struct flowhost_isolated *isolated, json_t *call) {
    const flowhost_host_v1 *host = isolated->host;
    flowhost_host_context *context = isolated->context;
    const char *name = fhi_string(call, "c");
    if (!name || !host) return NULL;
    json_t *params = json_object_get(call, "p");
    if (strcmp(name, "emit_event") == 0) {
        return reply_status(host->emit_event(context, fhi_string(call, "e"), params ? json_incref(params) : NULL));
    }
    if (strcmp(name, "call_service") == 0) {
        json_t *result = NULL;
        flowhost_error_v1 error = {0};
        int32_t status = host->call_service(context, fhi_string(call, "n"), params, &result, &error);
        return fhi_outcome_reply(status, result, &error);
    }
    if (strcmp(name, "send_request") == 0) {
        struct pending *pending = add_pending(isolated, PENDING_RESPONSE, (uint64_t)fhi_int(call, "k", 0));
        if (!pending) return reply_status(FLOWHOST_ERR_FAILED);
        int32_t status = host->send_request(context, fhi_string(call, "m"), params ? json_incref(params) : NULL,
                                            (uint32_t)fhi_int(call, "t", 0), on_response, pending);
        if (status != FLOWHOST_OK) drop_pending(pending);
        return reply_status(status);
    }
    if (strcmp(name, "log") == 0) {
        const char *message = fhi_string(call, "m");
        if (message) host->log(context, (int32_t)fhi_int(call, "l", FLOWHOST_LOG_INFO), message);
        return reply_status(FLOWHOST_OK);
    }
    if (strcmp(name, "monotonic_ms") == 0) {
        json_t *reply = reply_status(FLOWHOST_OK);
        json_object_set_new(reply, "v", json_integer((json_int_t)host->monotonic_ms(context)));
        return reply;
    }
    if (strcmp(name, "wall_clock_ms") == 0) {
        json_t *reply = reply_status(FLOWHOST_OK);
        json_object_set_new(reply, "v", json_integer((json_int_t)host->wall_clock_ms(context)));
        return reply;
    }
    if (strcmp(name, "localize") == 0) {
        json_t *text = FLOWHOST_HOST_HAS(host, localize) ? host->localize(context, fhi_string(call, "x"), fhi_string(call, "i"), params) : NULL;
        json_t *reply = reply_status(text ? FLOWHOST_OK : FLOWHOST_ERR_FAILED);
        if (text) json_object_set_new(reply, "v", text);
        return reply;
    }
    if (strcmp(name, "session_info") == 0 || strcmp(name, "session") == 0) {
        json_t *value = name[7] == '_' ? host->session_info(context) : host->session(context);
        json_t *reply = reply_status(FLOWHOST_OK);
        if (value) json_object_set_new(reply, "v", value);
        return reply;
    }
    if (strcmp(name, "cancel_requests") == 0) return reply_status(host->cancel_requests(context));
    if (strcmp(name, "cancel_calls") == 0) return reply_status(host->cancel_calls(context));
    if (strcmp(name, "abandon_dialogues") == 0) return reply_status(host->abandon_dialogues(context));
    if (strcmp(name, "call_service_async") == 0) {
        struct pending *pending = add_pending(isolated, PENDING_RESPONSE, (uint64_t)fhi_int(call, "k", 0));
        if (!pending) return reply_status(FLOWHOST_ERR_FAILED);
        uint64_t call_id = 0;
        int32_t status = host->call_service_async(context, fhi_string(call, "n"), params, on_response, pending, &call_id);
        if (status != FLOWHOST_OK) drop_pending(pending);
        json_t *reply = reply_status(status);
        json_object_set_new(reply, "i", json_integer((json_int_t)call_id));
        return reply;
    }
    if (strcmp(name, "complete_call") == 0) {
        uint64_t call_id = (uint64_t)fhi_int(call, "i", 0);
        json_t *value = json_object_get(call, "v");
        flowhost_error_v1 error = {0};
        json_t *failure = json_object_get(call, "e");
        if (failure && fhi_error_from_json(failure, &error) != 0) return NULL;
        int32_t status = host->complete_call(context, call_id, value ? json_incref(value) : NULL, failure ? &error : NULL);
        if (error.data) json_decref(error.data);
        forget_served(isolated, call_id);
        return reply_status(status);
    }
    if (strcmp(name, "set_timer") == 0 || strcmp(name, "set_timer_once") == 0) {
        int once = strcmp(name, "set_timer_once") == 0;
        struct pending *pending = add_pending(isolated, once ? PENDING_TIMER_DONE : PENDING_TIMER, (uint64_t)fhi_int(call, "k", 0));
        if (!pending) return reply_status(FLOWHOST_ERR_FAILED);
        uint64_t timer_id = 0;
        uint32_t delay = (uint32_t)fhi_int(call, "d", 0);
        int32_t status = once ? host->set_timer_once(context, delay, on_timer_done, pending, &timer_id)
                              : host->set_timer(context, delay, on_timer, pending, &timer_id);
        if (status != FLOWHOST_OK) drop_pending(pending);
        else pending->timer_id = timer_id;
        json_t *reply = reply_status(status);
        json_object_set_new(reply, "i", json_integer((json_int_t)timer_id));
        return reply;
    }
    if (strcmp(name, "cancel_timer") == 0) {
        uint64_t timer_id = (uint64_t)fhi_int(call, "i", 0);
        int32_t status = host->cancel_timer(context, timer_id);
        if (status == FLOWHOST_OK) {
            /* A plain timer's callback never runs now: its token goes here
               (a once-timer's callback ran, nested, and freed its own). */
            for (struct pending *pending = isolated->pendings; pending; pending = pending->next) {
                if (pending->kind == PENDING_TIMER && pending->timer_id == timer_id) {
                    drop_pending(pending);
                    break;
                }
            }
        }
        return reply_status(status);
    }
    if (strcmp(name, "end_session") == 0) return reply_status(host->end_session(context, fhi_string(call, "r")));
    if (strcmp(name, "subscribe") == 0 || strcmp(name, "unsubscribe") == 0) {
        const char *topic = fhi_string(call, "t");
        int subscribe = name[0] == 's';
        int32_t status = subscribe ? host->subscribe(context, topic) : host->unsubscribe(context, topic);
        if (status == FLOWHOST_OK && topic) track_topic(isolated, topic, subscribe);
        return reply_status(status);
    }
    if (strcmp(name, "publish") == 0) return reply_status(host->publish(context, fhi_string(call, "t"), params));
    return NULL;
}

/* How long to wait for the child's next message: the watchdog's silence,
   cut short by the call budget. *by_budget says the budget ends first; 0
   with it set means the budget has run out already. */
static uint32_t next_wait_ms(const struct flowhost_isolated *isolated, int *by_budget) {
    uint32_t wait = isolated->limits.watchdog_ms;
    *by_budget = 0;
    if (!isolated->budget_ends) return wait;
    uint64_t now = fhi_now_ms();
    uint64_t left = isolated->budget_ends > now ? isolated->budget_ends - now : 0;
    if (wait == 0 || left < wait) {
        *by_budget = 1;
        wait = (uint32_t)left;
    }
    return wait;
}

/* Sends a call (stolen) to the child and serves its host-table calls until
   the answer comes. NULL when the child failed (it is then dead).

   The budget runs from the outermost call's start and is not reset by the
   child's host-table calls, nor by calls into it nested in them (a flow's
   handle calling a service that notifies the same flow): all of it is the
   host held up for one call. Waiting for the client is never inside it:
   a host request answers through a later call (on_response), which has a
   budget of its own. */
static json_t *call_child(struct flowhost_isolated *isolated, json_t *call) {
    if (!call) return NULL; /* could not be built (a name that is not UTF-8): nothing was sent */
    if (!isolated->alive) {
        json_decref(call);
        return NULL;
    }
    uint32_t generation = isolated->generation;
    int sent = fhi_send(isolated->fd, call);
    json_decref(call);
    if (sent != 0) {
        fail(isolated, FAILED_CLOSED);
        return NULL;
    }
    if (isolated->depth++ == 0 && isolated->limits.call_budget_ms) {
        /* From the next whole millisecond: the clock reads in whole ones,
           and a flow gets all of its budget, never a part of one less. */
        isolated->budget_ends = fhi_now_ms() + 1 + isolated->limits.call_budget_ms;
    }
    json_t *answer = NULL;
    for (;;) {
        int status = 0, by_budget = 0;
        /* The watchdog counts the child's silence: while it serves a call of
           ours or waits on one of its own, it is not silent. */
        uint32_t wait = next_wait_ms(isolated, &by_budget);
        json_t *message = by_budget && wait == 0 ? NULL : fhi_receive(isolated->fd, wait, &status);
        if (!message) {
            fail(isolated, by_budget && (wait == 0 || status == 1) ? FAILED_BUDGET : (enum failure_kind)status);
            break;
        }
        if (json_object_get(message, FHI_REPLY)) {
            answer = message;
            break;
        }
        json_t *reply = serve_child_call(isolated, message);
        json_decref(message);
        if (!isolated->alive || isolated->generation != generation) {
            json_decref(reply);
            break;
        }
        if (!reply) {
            fail(isolated, FAILED_PROTOCOL);
            break;
        }
        sent = fhi_send(isolated->fd, reply);
        json_decref(reply);
        if (sent != 0) {
            fail(isolated, FAILED_CLOSED);
            break;
        }
    }
    if (--isolated->depth == 0) isolated->budget_ends = 0;
    return answer;
}

/* --- The descriptor the engine sees --- */

static struct flowhost_isolated *of(void *instance) { return instance; }

static void *proxy_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                          flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    struct flowhost_isolated *isolated = (struct flowhost_isolated *)self;
    isolated->host = host;
    isolated->context = context;
    isolated->config = config ? json_deep_copy(config) : json_object();
    json_t *call = json_pack("{s:s,s:O,s:i}", "c", "create", "config", isolated->config, "minor", (int)host->abi_minor);
    json_t *answer = call_child(isolated, call);
    if (!answer) {
        failed_error(isolated, error);
        return NULL;
    }
    if (!json_is_true(json_object_get(answer, "ok"))) {
        if (fhi_error_from_json(json_object_get(answer, "e"), error) != 0) {
            flowhost_error_set(error, -32603, 0, "the flow refused to start");
        }
        json_decref(answer);
        return NULL;
    }
    json_decref(answer);
    isolated->created = 1;
    return isolated;
}

static void proxy_start(void *instance) {
    struct flowhost_isolated *isolated = of(instance);
    isolated->started = 1;
    if (ensure_alive(isolated)) json_decref(call_child(isolated, json_pack("{s:s}", "c", "start")));
}

/* handle and call_service: the child's answer {s, v?, e?}, checked. */
static int32_t forward(struct flowhost_isolated *isolated, const char *kind, const char *name, json_t *params, json_t **result,
                       flowhost_error_v1 *error) {
    *result = NULL;
    if (!ensure_alive(isolated)) {
        failed_error(isolated, error);
        return FLOWHOST_ERR_FAILED;
    }
    json_t *call = json_pack("{s:s,s:s,s:O}", "c", kind, "n", name ? name : "", "p", params ? params : json_null());
    json_t *answer = call_child(isolated, call);
    if (!answer) {
        failed_error(isolated, error);
        return FLOWHOST_ERR_FAILED;
    }
    json_t *status = json_object_get(answer, "s");
    json_t *failure = json_object_get(answer, "e");
    if (!json_is_integer(status) || (json_integer_value(status) != FLOWHOST_OK && fhi_error_from_json(failure, error) != 0)) {
        json_decref(answer);
        fail(isolated, FAILED_PROTOCOL);
        failed_error(isolated, error);
        return FLOWHOST_ERR_FAILED;
    }
    int32_t code = (int32_t)json_integer_value(status);
    if (code == FLOWHOST_OK) {
        json_t *value = json_object_get(answer, "v");
        *result = value ? json_incref(value) : NULL;
    }
    json_decref(answer);
    return code;
}

static int32_t proxy_handle(void *instance, const char *method, json_t *params, json_t **result, flowhost_error_v1 *error) {
    return forward(of(instance), "handle", method, params, result, error);
}

static int32_t proxy_call_service(void *instance, const char *name, json_t *params, json_t **result, flowhost_error_v1 *error) {
    return forward(of(instance), "call_service", name, params, result, error);
}

static void proxy_serve(void *instance, const char *name, json_t *params, uint64_t call_id) {
    struct flowhost_isolated *isolated = of(instance);
    if (!ensure_alive(isolated)) {
        flowhost_error_v1 error = {0};
        failed_error(isolated, &error);
        isolated->host->complete_call(isolated->context, call_id, NULL, &error);
        return;
    }
    struct served *served = calloc(1, sizeof *served);
    if (served) {
        served->call_id = call_id;
        served->next = isolated->served;
        isolated->served = served;
    }
    json_t *call = json_pack("{s:s,s:s,s:O,s:I}", "c", "serve", "n", name ? name : "", "p", params ? params : json_null(), "i",
                             (json_int_t)call_id);
    json_decref(call_child(isolated, call));
}

static void proxy_cancel_call(void *instance, uint64_t call_id) {
    struct flowhost_isolated *isolated = of(instance);
    forget_served(isolated, call_id);
    if (isolated->alive) json_decref(call_child(isolated, json_pack("{s:s,s:I}", "c", "cancel_call", "i", (json_int_t)call_id)));
}

static void proxy_notify(void *instance, const char *topic, json_t *payload) {
    struct flowhost_isolated *isolated = of(instance);
    if (!ensure_alive(isolated)) return;
    json_t *call = json_pack("{s:s,s:s,s:O}", "c", "notify", "n", topic ? topic : "", "p", payload ? payload : json_null());
    json_decref(call_child(isolated, call));
}

static void proxy_destroy(void *instance) {
    struct flowhost_isolated *isolated = of(instance);
    isolated->destroying = 1;
    if (isolated->alive) json_decref(call_child(isolated, json_pack("{s:s}", "c", "destroy")));
    isolated->alive = 0;
    /* Closing the socket ends the child's loop. */
    if (isolated->fd >= 0) close(isolated->fd);
    isolated->fd = -1;
    int status;
    reap(isolated, &status);
    isolated->created = 0;
}

const flowhost_plugin_descriptor_v1 *flowhost_isolated_open(const char *executable, const char *library, int library_fd,
                                                            const flowhost_isolation_limits *limits,
                                                            flowhost_isolated **out, char *why, size_t why_size) {
    struct flowhost_isolated *isolated = calloc(1, sizeof *isolated);
    if (!isolated) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    isolated->library_fd = library_fd >= 0 ? fcntl(library_fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (isolated->library_fd < 0) {
        snprintf(why, why_size, "no descriptor of its library: %s", library_fd >= 0 ? strerror(errno) : "none given");
        free(isolated);
        return NULL;
    }
    isolated->fd = -1;
    isolated->executable = strdup(executable);
    isolated->library = strdup(library);
    isolated->limits = *limits;
    json_t *hello = NULL;
    if (start_child(isolated, why, why_size, &hello) != 0) {
        close(isolated->library_fd);
        free(isolated->executable);
        free(isolated->library);
        free(isolated);
        return NULL;
    }
    isolated->name = copy_string(hello, "name");
    fhi_output_rename(isolated->output, isolated->name);
    isolated->version = copy_string(hello, "version");
    isolated->manifest = copy_string(hello, "manifest");
    snprintf(isolated->confinement, sizeof isolated->confinement, "%s", fhi_string(hello, "confinement") ? fhi_string(hello, "confinement") : "none");
    json_t *has = json_object_get(hello, "has");
    flowhost_plugin_descriptor_v1 *d = &isolated->descriptor;
    /* The flow's own header's view: its size, major and minor, its reserved
       words' state, which functions it has; the engine checks them as if
       it had loaded the flow itself. */
    uint32_t size = (uint32_t)fhi_int(hello, "size", 0);
    d->struct_size = size < sizeof *d ? size : sizeof *d;
    d->abi_version = (uint32_t)fhi_int(hello, "abi", 0);
    d->abi_minor = (uint32_t)fhi_int(hello, "minor", 0);
    if (!json_is_true(json_object_get(hello, "reservedClear"))) d->reserved[0] = (void *)1;
    d->name = isolated->name;
    d->version = isolated->version;
    d->manifest = isolated->manifest;
    if (json_is_true(json_object_get(has, "create"))) d->create = proxy_create;
    if (json_is_true(json_object_get(has, "handle"))) d->handle = proxy_handle;
    if (json_is_true(json_object_get(has, "call_service"))) d->call_service = proxy_call_service;
    /* start and destroy also keep the proxy's own state. */
    d->start = proxy_start;
    d->destroy = proxy_destroy;
    if (json_is_true(json_object_get(has, "serve"))) d->serve = proxy_serve;
    if (json_is_true(json_object_get(has, "cancel_call"))) d->cancel_call = proxy_cancel_call;
    if (json_is_true(json_object_get(has, "notify"))) d->notify = proxy_notify;
    json_decref(hello);
    *out = isolated;
    return d;
}

void flowhost_isolated_on_failure(flowhost_isolated *isolated, flowhost_isolation_failure_fn on_failure, void *context) {
    isolated->on_failure = on_failure;
    isolated->on_failure_context = context;
}

void flowhost_isolated_on_restart(flowhost_isolated *isolated, flowhost_isolation_verify_fn verify, void *context) {
    isolated->verify = verify;
    isolated->verify_context = context;
}

int32_t flowhost_isolated_pid(const flowhost_isolated *isolated) { return isolated->alive ? isolated->pid : 0; }

const char *flowhost_isolated_confinement(const flowhost_isolated *isolated) { return isolated->confinement; }

void flowhost_isolated_close(flowhost_isolated *isolated) {
    isolated->alive = 0;
    stop_child(isolated);
    if (isolated->library_fd >= 0) close(isolated->library_fd);
    isolated->library_fd = -1;
}
