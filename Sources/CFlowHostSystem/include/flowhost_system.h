#ifndef FLOWHOST_SYSTEM_H
#define FLOWHOST_SYSTEM_H

#include <sys/types.h>

/* Starts argv[0] (searched in PATH) with the current environment. When
   to_child is not NULL, the child's stdin is a pipe whose write end is
   stored there; likewise from_child for its stdout. stderr is inherited.
   Both ends are close-on-exec. Returns the pid, or -1 with errno set. */
pid_t flowhost_spawn(char *const argv[], int *to_child, int *from_child);

/* As flowhost_spawn, with `environment` (NULL-terminated "NAME=value")
   instead of the current one. */
pid_t flowhost_spawn_with_environment(char *const argv[], char *const environment[], int *to_child, int *from_child);

/* The few variables of the current environment an isolated flow's child is
   given (child_environment.c says which), as a new NULL-terminated array:
   free it with flowhost_free_environment. NULL when out of memory. */
char **flowhost_child_environment(void);
void flowhost_free_environment(char **environment);

/* Waits for the child; returns its exit status, or -1. */
int flowhost_wait(pid_t pid);

/* Waits at most timeout_ms for the child; then kills it (SIGKILL), reaps it
   and returns -2. Otherwise as flowhost_wait. */
int flowhost_wait_timeout(pid_t pid, int timeout_ms);

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
