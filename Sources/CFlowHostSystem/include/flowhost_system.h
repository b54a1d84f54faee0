#ifndef FLOWHOST_SYSTEM_H
#define FLOWHOST_SYSTEM_H

#include <stddef.h>
#include <sys/types.h>

/* One descriptor a child is given: `child` is its number in the child;
   `parent` the descriptor of this process copied there, or
   FLOWHOST_SPAWN_NULL for /dev/null (read and write). */
#define FLOWHOST_SPAWN_NULL (-1)
typedef struct flowhost_spawn_descriptor {
    int child;
    int parent;
} flowhost_spawn_descriptor;

/* What to start, and with what. */
typedef struct flowhost_spawn_plan {
    char *const *argv;                /* NULL-terminated; argv[0] is searched in PATH when it has no slash */
    char *const *environment;         /* NULL-terminated "NAME=value"; NULL: this process's own */
    const flowhost_spawn_descriptor *descriptors;
    size_t descriptor_count;
    int new_session;                  /* 1: a session (and process group) of its own, no controlling terminal */
} flowhost_spawn_plan;

typedef enum flowhost_spawn_step {
    FLOWHOST_SPAWN_STARTED = 0,
    FLOWHOST_SPAWN_FAILED_COPY,       /* a parent descriptor could not be copied */
    FLOWHOST_SPAWN_FAILED_START,      /* posix_spawn refused: no such program, not executable, … */
} flowhost_spawn_step;

/* Why a start failed: the step, and its errno value. */
typedef struct flowhost_spawn_error {
    flowhost_spawn_step step;
    int number;
} flowhost_spawn_error;

/* Starts plan->argv. The child has exactly the descriptors the plan names
   (a parent descriptor that is not open is /dev/null there), every other
   one closed, every signal at its default and none blocked. The caller
   keeps and closes its own descriptors. Returns the pid, or -1 with
   *error set (error may be NULL). */
pid_t flowhost_spawn(const flowhost_spawn_plan *plan, flowhost_spawn_error *error);

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so that
   no child started meanwhile by another thread inherits either. */
int flowhost_pipe(int fds[2]);

/* Reads `fd` to its end, keeping the first `capacity` bytes in `buffer`;
   what comes after is read and dropped (*cut is then 1; cut may be NULL).
   With timeout_ms >= 0, gives up after that long: -1 with errno
   ETIMEDOUT. Returns the bytes kept, or -1 with errno. */
ssize_t flowhost_read_to_end(int fd, void *buffer, size_t capacity, int timeout_ms, int *cut);

/* Waits for the child to end, at most timeout_ms (-1: no limit), without
   reaping it (it can still be signalled safely meanwhile): 0 when it has
   ended, 1 when the time ran out, -1 with errno. */
int flowhost_wait_for_end(pid_t pid, int timeout_ms);

/* Waits for the child and reaps it: 0 with its wait status, or -1. */
int flowhost_reap(pid_t pid, int *status);

/* A wait status as a shell shows it: the exit status, or 128 + the signal
   (*signalled is then 1; signalled may be NULL). */
int flowhost_exit_code(int status, int *signalled);

/* The few variables of the current environment an isolated flow's child is
   given (child_environment.c says which), as a new NULL-terminated array:
   free it with flowhost_free_environment. NULL when out of memory. */
char **flowhost_child_environment(void);
void flowhost_free_environment(char **environment);

/* Makes jansson wipe every block it frees (passwords pass through its
   strings; plugins share the process's one jansson). Call once, first thing,
   in the host process only. */
void flowhost_json_wipe_on_free(void);

/* 1 when jansson's free is the wiping one. */
int flowhost_json_wipes_on_free(void);

/* The process's command line, as the C runtime handed it to the program's
   initialisers: argc is 0 when it was not captured. The host reads its
   arguments here rather than through Swift's CommandLine, whose one-time
   initialisers write a page of libswiftCore's data that then stays in
   every host (docs/performance.md, "The start path"). */
int flowhost_process_argc(void);
char **flowhost_process_argv(void);

/* Overwrites the whole of a malloc'd block with zeros (what the wiping free
   does before it frees). NULL is ignored. */
void flowhost_wipe_allocation(void *block);

#endif
