/* What confines a flow's child process. Internal to CFlowHostIsolation. */
#ifndef FLOWHOST_ISOLATION_SANDBOX_H
#define FLOWHOST_ISOLATION_SANDBOX_H

#include <stddef.h>
#include "flowhost_isolation.h"

/* A sanitizer reserves terabytes of address space and makes system calls
   of its own: its builds keep no address space limit and no filters. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FHI_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FHI_SANITIZED 1
#endif

/* Resource limits, no core files, and death with the host. 0, or -1 with
   the reason in `problem`. */
int fhi_apply_limits(const flowhost_isolation_limits *limits, char *problem, size_t problem_size);

/* A session of its own (no controlling terminal) and no terminal on fds
   0-2. First, before any library is opened. */
void fhi_leave_terminal(void);

/* The first step, before a library is opened: no new privileges and the
   allow list of system calls (isolation_filter.c), under which the dynamic
   linker can still open files for reading. Writes what applied
   ("no-new-privs, seccomp") to `applied`, empty when nothing did. */
void fhi_confine_calls(char *applied, size_t applied_size);

/* The second step, after the libraries are loaded and before any entry
   symbol runs: no file system (Landlock, where the kernel has it) and no
   system call that names a path. Appends what applied to `applied`; when
   the first step applied and this one cannot, the process exits (71). */
void fhi_confine_files(char *applied, size_t applied_size);

/* The two seccomp filters (isolation_filter.c). 0, or -1. */
int fhi_filter_calls(void);
int fhi_filter_files(void);

#endif
