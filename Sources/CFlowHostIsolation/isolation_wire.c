#define _GNU_SOURCE
#include "isolation_wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

uint64_t fhi_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static int send_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        /* MSG_NOSIGNAL: a child that died must not take the host with SIGPIPE. */
        ssize_t sent = send(fd, bytes, length, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += sent;
        length -= (size_t)sent;
    }
    return 0;
}

int fhi_send(int fd, json_t *message) {
    /* JSON_ENCODE_ANY: a value may be a scalar; NULs in strings survive. */
    char *text = json_dumps(message, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text) return -1;
    size_t length = strlen(text);
    uint32_t header = (uint32_t)length;
    int rc = length > FHI_MAX_MESSAGE ? -1 : send_all(fd, (const char *)&header, sizeof header);
    if (rc == 0) rc = send_all(fd, text, length);
    /* Passwords cross here: wiped before the block goes back to malloc. */
    explicit_bzero(text, length);
    free(text);
    return rc;
}

/* Reads exactly `length` bytes by `deadline` (0: none). 0, -1 closed or
   failed, -2 timed out. */
static int receive_all(int fd, char *bytes, size_t length, uint64_t deadline) {
    while (length > 0) {
        if (deadline) {
            uint64_t now = fhi_now_ms();
            if (now >= deadline) return -2;
            struct pollfd ready = {.fd = fd, .events = POLLIN};
            int polled = poll(&ready, 1, (int)(deadline - now));
            if (polled < 0) {
                if (errno == EINTR) continue;
                return -1;
            }
            if (polled == 0) return -2;
        }
        ssize_t got = recv(fd, bytes, length, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) return -1;
        bytes += got;
        length -= (size_t)got;
    }
    return 0;
}

json_t *fhi_receive(int fd, uint32_t timeout_ms, int *status) {
    uint64_t deadline = timeout_ms ? fhi_now_ms() + timeout_ms : 0;
    uint32_t length = 0;
    int rc = receive_all(fd, (char *)&length, sizeof length, deadline);
    if (rc != 0) {
        *status = rc == -2 ? 1 : 0;
        return NULL;
    }
    if (length == 0 || length > FHI_MAX_MESSAGE) {
        *status = 2;
        return NULL;
    }
    char *text = malloc(length);
    if (!text) {
        *status = 2;
        return NULL;
    }
    rc = receive_all(fd, text, length, deadline);
    json_t *message = NULL;
    if (rc == 0) {
        json_error_t error;
        message = json_loadb(text, length, JSON_ALLOW_NUL | JSON_DECODE_ANY, &error);
    }
    explicit_bzero(text, length);
    free(text);
    if (rc != 0) {
        *status = rc == -2 ? 1 : 0;
        return NULL;
    }
    if (!json_is_object(message)) {
        json_decref(message);
        *status = 2;
        return NULL;
    }
    return message;
}

json_t *fhi_error_json(const flowhost_error_v1 *error) {
    char message[FLOWHOST_ERROR_MESSAGE_MAX];
    memcpy(message, error->message, sizeof message);
    message[sizeof message - 1] = '\0';
    json_t *json = json_pack("{s:i,s:i,s:s}", "code", (int)error->code, "short", (int)error->short_code, "message", message);
    if (json && error->data) json_object_set(json, "data", error->data);
    return json;
}

int fhi_error_from_json(json_t *json, flowhost_error_v1 *error) {
    if (!json_is_object(json)) return -1;
    json_t *code = json_object_get(json, "code"), *short_code = json_object_get(json, "short");
    json_t *message = json_object_get(json, "message");
    if (!json_is_integer(code) || !json_is_integer(short_code) || !json_is_string(message)) return -1;
    flowhost_error_set(error, (int32_t)json_integer_value(code), (int32_t)json_integer_value(short_code),
                       json_string_value(message));
    json_t *data = json_object_get(json, "data");
    error->data = data ? json_incref(data) : NULL;
    return 0;
}

json_int_t fhi_int(json_t *object, const char *key, json_int_t fallback) {
    json_t *value = json_object_get(object, key);
    return json_is_integer(value) ? json_integer_value(value) : fallback;
}

const char *fhi_string(json_t *object, const char *key) {
    return json_string_value(json_object_get(object, key));
}

json_t *fhi_status_reply(int32_t status) { return json_pack("{s:i,s:i}", FHI_REPLY, 1, "s", (int)status); }

json_t *fhi_outcome_reply(int32_t status, json_t *result, flowhost_error_v1 *error) {
    json_t *reply = fhi_status_reply(status);
    if (status == FLOWHOST_OK) {
        if (result) json_object_set_new(reply, "v", result);
    } else {
        if (result) json_decref(result);
        json_object_set_new(reply, "e", fhi_error_json(error));
    }
    if (error->data) json_decref(error->data);
    return reply;
}
