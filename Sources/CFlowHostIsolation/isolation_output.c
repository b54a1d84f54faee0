/*
 * isolation_output.c — what isolated flows write to their stdout and
 * stderr. Each child's fds 1 and 2 are one pipe; a thread of the host reads
 * every such pipe and hands each line to the host's logger (which escapes
 * control characters and limits how many lines a second get through), cut
 * at FHI_OUTPUT_LINE_MAX bytes. No byte a flow writes reaches the host's
 * stderr as it was written: not an escape sequence, not a line that looks
 * like the host's own.
 *
 * A thread, not the loop: a child writes when it likes (from its own
 * threads too), and a full pipe must not stop it while the host is busy.
 */
#define _GNU_SOURCE
#include "isolation_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FHI_OUTPUT_LINE_MAX 1024

struct watched {
    int fd;
    uint64_t id;
    char who[128];
    char line[FHI_OUTPUT_LINE_MAX];
    size_t length;
    int cutting; /* the rest of an over-long line is being passed over */
    struct watched *next;
};

/* The list and the callback are shared with the loop thread (which adds
   pipes and names them); only the relay thread removes and frees. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct watched *watching;
static uint64_t last_id;
static int wake[2] = {-1, -1};
static int running;
static flowhost_isolation_output_fn output;

void flowhost_isolation_on_output(flowhost_isolation_output_fn fn) {
    pthread_mutex_lock(&lock);
    output = fn;
    pthread_mutex_unlock(&lock);
}

static void deliver(const char *who, const char *line, size_t length, int cut) {
    pthread_mutex_lock(&lock);
    flowhost_isolation_output_fn fn = output;
    pthread_mutex_unlock(&lock);
    if (fn) fn(who, line, length, cut);
}

/* Takes `count` bytes read from `w`; lines are delivered as they end. */
static void take(struct watched *w, const char *bytes, size_t count, char *who) {
    for (size_t i = 0; i < count; i++) {
        char c = bytes[i];
        if (c == '\n') {
            if (!w->cutting) deliver(who, w->line, w->length, 0);
            w->length = 0;
            w->cutting = 0;
            continue;
        }
        if (w->cutting) continue;
        if (w->length == sizeof w->line) {
            deliver(who, w->line, w->length, 1);
            w->length = 0;
            w->cutting = 1;
            continue;
        }
        w->line[w->length++] = c;
    }
}

static void *relay(void *unused) {
    (void)unused;
    struct pollfd *polled = NULL;
    size_t capacity = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        size_t count = 1;
        for (struct watched *w = watching; w; w = w->next) count++;
        if (count > capacity) {
            struct pollfd *grown = realloc(polled, count * sizeof *polled);
            if (grown) {
                polled = grown;
                capacity = count;
            }
        }
        size_t used = 0;
        if (polled) {
            polled[used++] = (struct pollfd){.fd = wake[0], .events = POLLIN};
            for (struct watched *w = watching; w && used < capacity; w = w->next) {
                polled[used++] = (struct pollfd){.fd = w->fd, .events = POLLIN};
            }
        }
        pthread_mutex_unlock(&lock);
        if (!used) {
            sleep(1);
            continue;
        }
        if (poll(polled, used, -1) < 0) continue;
        if (polled[0].revents) {
            char drain[64];
            while (read(wake[0], drain, sizeof drain) > 0) {}
        }
        for (size_t i = 1; i < used; i++) {
            if (!polled[i].revents) continue;
            struct watched *w = NULL;
            char who[sizeof w->who];
            pthread_mutex_lock(&lock);
            for (w = watching; w && w->fd != polled[i].fd; w = w->next) {}
            if (w) memcpy(who, w->who, sizeof who);
            pthread_mutex_unlock(&lock);
            if (!w) continue;
            char bytes[4096];
            ssize_t got = read(w->fd, bytes, sizeof bytes);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got > 0) {
                take(w, bytes, (size_t)got, who);
                continue;
            }
            /* The child is gone: its last words, then its pipe. */
            if (w->length && !w->cutting) deliver(who, w->line, w->length, 0);
            pthread_mutex_lock(&lock);
            for (struct watched **link = &watching; *link; link = &(*link)->next) {
                if (*link == w) {
                    *link = w->next;
                    break;
                }
            }
            pthread_mutex_unlock(&lock);
            close(w->fd);
            free(w);
        }
    }
    return NULL;
}

/* Under the lock. */
static int start_relay(void) {
    if (running) return 0;
    if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    /* The host's signals are the loop's to handle, never this thread's. */
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pthread_t thread;
    int rc = pthread_create(&thread, &attributes, relay, NULL);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_attr_destroy(&attributes);
    if (rc != 0) {
        close(wake[0]);
        close(wake[1]);
        wake[0] = wake[1] = -1;
        return -1;
    }
    running = 1;
    return 0;
}

uint64_t fhi_output_watch(int fd, const char *who) {
    struct watched *w = calloc(1, sizeof *w);
    if (!w) {
        close(fd);
        return 0;
    }
    w->fd = fd;
    snprintf(w->who, sizeof w->who, "%s", who ? who : "?");
    pthread_mutex_lock(&lock);
    if (start_relay() != 0) {
        pthread_mutex_unlock(&lock);
        close(fd);
        free(w);
        return 0;
    }
    w->id = ++last_id;
    w->next = watching;
    watching = w;
    uint64_t id = w->id;
    pthread_mutex_unlock(&lock);
    ssize_t ignored = write(wake[1], "", 1);
    (void)ignored;
    return id;
}

void fhi_output_rename(uint64_t id, const char *who) {
    if (!id || !who) return;
    pthread_mutex_lock(&lock);
    for (struct watched *w = watching; w; w = w->next) {
        if (w->id == id) snprintf(w->who, sizeof w->who, "%s", who);
    }
    pthread_mutex_unlock(&lock);
}
