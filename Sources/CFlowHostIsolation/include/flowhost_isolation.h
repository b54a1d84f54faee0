/*
 * flowhost_isolation.h — a flow run in a child process (`flowhost
 * plugin-host`), behind the same plugin ABI.
 *
 * The host side, flowhost_isolated_open, starts the child, which loads the
 * flow's library, and returns a descriptor whose functions forward each call
 * to it over a socket; the child gives the flow a host table whose functions
 * forward to the host's own table. Neither the flow nor the engine can tell:
 * the engine checks and installs the descriptor like any other.
 *
 * Every call in either direction waits for its answer, serving the other
 * side's calls meanwhile (a flow's handle may call a service that notifies
 * the same flow). When the child dies, stops answering for longer than the
 * watchdog, is still busy with a call when its call budget has run out
 * (host-table calls it makes meanwhile count), or breaks this protocol, the
 * host kills it, cleans up what it
 * had started through the host table (its host requests, service calls,
 * timers, the calls it served, its feed subscriptions), reports one line,
 * and fails the call in flight with FLOWHOST_ERROR_FLOW_FAILED. The flow is
 * started again on its next use, after a back-off.
 *
 * Used on the host's loop thread only, like any plugin (but for the relay
 * of the children's output, flowhost_isolation_on_output).
 */
#ifndef FLOWHOST_ISOLATION_H
#define FLOWHOST_ISOLATION_H

#include <stddef.h>
#include <stdint.h>
#include "flowhost_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the child may use. 0 means no limit. */
typedef struct flowhost_isolation_limits {
    uint64_t address_space_bytes; /* RLIMIT_AS */
    uint32_t cpu_seconds;         /* RLIMIT_CPU, over the child's life */
    uint32_t open_files;          /* RLIMIT_NOFILE */
    uint32_t watchdog_ms;         /* longest silence while the host waits on it */
    uint32_t call_budget_ms;      /* longest a call into it may take, all told */
} flowhost_isolation_limits;

typedef struct flowhost_isolated flowhost_isolated;

/* Called once per failure with one line for the operator's log, naming the
   flow and what happened ("killed by signal 11 (SIGSEGV)"). */
typedef void (*flowhost_isolation_failure_fn)(void *context, const char *line);

/* Starts `executable plugin-host ...` for the library open at `library_fd`
   (read-only; `library` is its name, for messages) and waits for the child
   to load it. The child is given that descriptor, not the name, at this
   start and every restart: it loads the file the host judged and hashed,
   even once another file has taken its name (the proxy keeps a copy of the
   descriptor; the caller keeps its own). Returns the proxy descriptor (it
   lives as long as the process) and sets *isolated; or returns NULL with
   the reason in `why`. */
const flowhost_plugin_descriptor_v1 *flowhost_isolated_open(const char *executable, const char *library, int library_fd,
                                                            const flowhost_isolation_limits *limits,
                                                            flowhost_isolated **isolated, char *why, size_t why_size);

/* Who hears of failures (set it before create). */
void flowhost_isolated_on_failure(flowhost_isolated *isolated, flowhost_isolation_failure_fn on_failure, void *context);

/* Checks the library's descriptor again before each restart (its content
   may have been written in place since): 0 to go on, else -1 with the
   reason in `why`, and the flow is not restarted. */
typedef int (*flowhost_isolation_verify_fn)(void *context, int library_fd, char *why, size_t why_size);

/* Who checks the library before a restart (none: it is not checked). */
void flowhost_isolated_on_restart(flowhost_isolated *isolated, flowhost_isolation_verify_fn verify, void *context);

/* The child's pid while it runs, else 0. */
int32_t flowhost_isolated_pid(const flowhost_isolated *isolated);

/* How the child was confined, as the child reported it at load: a short
   text such as "seccomp, landlock" (for the log and `flowhost plugins`). */
const char *flowhost_isolated_confinement(const flowhost_isolated *isolated);

/* Stops the child of a proxy that was never installed (its library was
   opened only to learn its flow's name). The proxy must not be used after. */
void flowhost_isolated_close(flowhost_isolated *isolated);

/* What an isolated flow writes to its stdout or stderr (one pipe, read by a
   thread of the host): each line, without its newline, at most 1024 bytes
   (`cut` is 1 when it was longer: the rest of it is passed over), as the
   flow wrote it. `who` is the flow's name, or its library's path before the
   name is known. Called on that thread: the function must be safe there
   and must escape what it writes. Set it before the first child starts;
   lines that come while none is set are dropped. */
typedef void (*flowhost_isolation_output_fn)(const char *who, const char *line, size_t length, int cut);
void flowhost_isolation_on_output(flowhost_isolation_output_fn fn);

/* The child: `flowhost plugin-host`. `fd` is its socket to the host.
   Leaves any terminal, applies the limits, confines itself in two steps
   around loading `library` (the host names its descriptor, /proc/self/fd/4,
   closed once loaded; spec §8: its entry symbol runs confined), then serves
   the host until the socket closes. Returns the exit status. */
int flowhost_plugin_host_main(int fd, const char *library, const flowhost_isolation_limits *limits);

/* The child that learns flow names: `flowhost plugin-host --names`.
   Confined as a flow's child: loads every library, then confines itself
   fully, then asks each descriptor; writes one JSON array to stdout, in
   order: each flow's name, or null for a library that cannot tell it.
   Returns the process's exit status. */
int flowhost_plugin_names_main(const char *const *libraries, size_t count, const flowhost_isolation_limits *limits);

/* Starts that child (`executable plugin-host --names`) for the libraries
   open at `libraries` (read-only descriptors, the caller's to close): it
   is given the descriptors, not names, so it loads the files the host
   judged and hashed. Its stdin is /dev/null, its answer comes on
   *output (close it, then reap the pid). The pid, or -1 with errno. */
int32_t flowhost_plugin_names_spawn(const char *executable, const int *libraries, size_t count,
                                    const flowhost_isolation_limits *limits, int *output);

#ifdef __cplusplus
}
#endif

#endif /* FLOWHOST_ISOLATION_H */
