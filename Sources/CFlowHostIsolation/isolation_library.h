/* A flow library handed over as an open descriptor. The host opens the
   file once, judges and hashes that descriptor, and the dynamic linker
   loads it by /proc/self/fd/N: the bytes loaded are the bytes hashed,
   whatever the library's name points to by then. Internal to
   CFlowHostIsolation. */
#ifndef FLOWHOST_ISOLATION_LIBRARY_H
#define FLOWHOST_ISOLATION_LIBRARY_H

#include <stddef.h>

/* Where a child finds its flow's library: the host puts it there. */
#define FHI_CHILD_LIBRARY_FD 4

/* The name the dynamic linker opens descriptor `fd` by. */
void fhi_descriptor_path(int fd, char *out, size_t size);

/* The descriptor a library's name stands for (/proc/self/fd/N), or -1. */
int fhi_library_descriptor(const char *library);

/* dlopen(library, RTLD_NOW | RTLD_LOCAL). A library given as a descriptor
   is closed after, loaded or not: the image stays mapped, and the flow
   holds no descriptor of its own file. */
void *fhi_dlopen_library(const char *library);

#endif
