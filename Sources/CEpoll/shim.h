#ifndef FLOWHOST_CEPOLL_SHIM_H
#define FLOWHOST_CEPOLL_SHIM_H

/* What Swift's Glibc module leaves out, for the change feed's relay between
   the hosts of one machine (FeedRelay): epoll, so the host's loop waits on
   one descriptor whatever the relay holds, and the peer's ids of a
   Unix-domain socket (struct ucred needs _GNU_SOURCE, which would clash
   with Glibc's module), which a socket-activated host also checks; and a
   timer descriptor, so a wait the relay chooses wakes the same loop.
   Linux only; nothing to link. */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/types.h>

/* A one-shot timer on the monotonic clock, non-blocking and close-on-exec; -1 with errno. */
static inline int fh_timer_new(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

/* Arms `fd` (from fh_timer_new) to become readable once, `nanoseconds` from now; -1 with errno. */
static inline int fh_timer_after(int fd, unsigned long long nanoseconds) {
    struct itimerspec spec = {{0, 0}, {(time_t)(nanoseconds / 1000000000ULL), (long)(nanoseconds % 1000000000ULL)}};
    return timerfd_settime(fd, 0, &spec, NULL);
}

/* 0, the uid and the primary gid of the process at the other end of `fd`;
   -1 with errno (ENOTSOCK when `fd` is not a socket). */
static inline int fh_peer_ids(int fd, uid_t *uid, gid_t *gid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

/* The number of supplementary groups of the peer at the other end of `fd`,
   up to `capacity` of them written to `groups`; -1 with errno (ERANGE: more
   than `capacity`). */
static inline int fh_peer_groups(int fd, gid_t *groups, int capacity) {
#ifdef SO_PEERGROUPS
    socklen_t length = (socklen_t)(capacity * (int)sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return -1;
    return (int)(length / sizeof(gid_t));
#else
    (void)fd; (void)groups; (void)capacity;
    return 0;
#endif
}
#endif

#endif
