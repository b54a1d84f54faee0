#ifndef FLOWHOST_SYSTEM_H
#define FLOWHOST_SYSTEM_H

#include <sys/types.h>

/* Starts argv[0] (searched in PATH) with the current environment. When
   to_child is not NULL, the child's stdin is a pipe whose write end is
   stored there; likewise from_child for its stdout. stderr is inherited.
   Both ends are close-on-exec. Returns the pid, or -1 with errno set. */
pid_t flowhost_spawn(char *const argv[], int *to_child, int *from_child);

/* Waits for the child; returns its exit status, or -1. */
int flowhost_wait(pid_t pid);

/* Waits at most timeout_ms for the child; then kills it (SIGKILL), reaps it
   and returns -2. Otherwise as flowhost_wait. */
int flowhost_wait_timeout(pid_t pid, int timeout_ms);

#endif
