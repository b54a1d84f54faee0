#ifndef FLOWHOST_CEPOLL_SHIM_H
#define FLOWHOST_CEPOLL_SHIM_H

/* What Swift's Glibc module leaves out, for the change feed's relay between
   the hosts of one machine (FeedRelay): epoll, so the host's loop waits on
   one descriptor whatever the relay holds, and the peer's uid of a
   Unix-domain socket (struct ucred needs _GNU_SOURCE, which would clash
   with Glibc's module). Linux only; nothing to link. */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

/* 0 and the uid of the process at the other end of `fd`; -1 with errno. */
static inline int fh_peer_uid(int fd, uid_t *uid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
#endif

#endif
