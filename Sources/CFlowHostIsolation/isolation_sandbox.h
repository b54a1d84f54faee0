/* What confines a flow's child process. Internal to CFlowHostIsolation. */
#ifndef FLOWHOST_ISOLATION_SANDBOX_H
#define FLOWHOST_ISOLATION_SANDBOX_H

#include <stddef.h>
#include "flowhost_isolation.h"

/* Resource limits, no core files, and death with the host. 0, or -1 with
   the reason in `problem`. */
int fhi_apply_limits(const flowhost_isolation_limits *limits, char *problem, size_t problem_size);

/* No new privileges, no file system (Landlock), no new sockets, processes,
   programs or signals to others (seccomp), where the kernel offers them.
   Writes what applied ("landlock, seccomp") to `applied`. */
void fhi_confine(char *applied, size_t applied_size);

#endif
