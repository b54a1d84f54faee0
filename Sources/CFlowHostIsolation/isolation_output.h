/* The relay of isolated flows' stdout and stderr to the host's log.
   Internal to CFlowHostIsolation. */
#ifndef FLOWHOST_ISOLATION_OUTPUT_H
#define FLOWHOST_ISOLATION_OUTPUT_H

#include <signal.h>
#include <stdint.h>
#include "flowhost_isolation.h"

/* Reads `fd` (a child's output pipe; it is the relay's now, closed at its
   end) and hands its lines over as `who`'s. Returns an id for
   fhi_output_rename, or 0 when it could not (`fd` is then closed). */
uint64_t fhi_output_watch(int fd, const char *who);

/* The lines of `id` are `who`'s from now on (the flow's name, once known). */
void fhi_output_rename(uint64_t id, const char *who);

#endif
