/*
 * The reference: a line-delimited JSON-RPC responder in C on jansson, written
 * the way a careful C programmer would. It reads stdin through a large
 * buffer, parses each line, answers `echo` with its params and anything else
 * with {}, buffers its answers and writes them when it has drained its input.
 * The benchmark builds it with cc -O2 and drives it exactly like flowhost.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out[1 << 16];
static size_t out_len;

static void flush_out(void) {
    size_t done = 0;
    while (done < out_len) {
        ssize_t n = write(1, out + done, out_len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            exit(0);
        }
        done += (size_t)n;
    }
    out_len = 0;
}

static int append(const char *buffer, size_t size, void *data) {
    (void)data;
    if (out_len + size > sizeof out) flush_out();
    if (size > sizeof out) return -1;
    memcpy(out + out_len, buffer, size);
    out_len += size;
    return 0;
}

static void answer(const char *line, size_t length) {
    json_error_t error;
    json_t *request = json_loadb(line, length, 0, &error);
    json_t *reply = json_object();
    json_object_set_new(reply, "jsonrpc", json_string("2.0"));
    if (!request) {
        json_object_set_new(reply, "id", json_null());
        json_object_set_new(reply, "error", json_pack("{sis}", "code", -32700, "message", "Parse error"));
    } else {
        json_t *id = json_object_get(request, "id");
        json_object_set(reply, "id", id ? id : json_null());
        const char *method = json_string_value(json_object_get(request, "method"));
        json_t *params = json_object_get(request, "params");
        if (method && strcmp(method, "echo") == 0 && params)
            json_object_set(reply, "result", params);
        else
            json_object_set_new(reply, "result", json_object());
        json_decref(request);
    }
    json_dump_callback(reply, append, NULL, JSON_COMPACT);
    append("\n", 1, NULL);
    json_decref(reply);
}

int main(void) {
    size_t capacity = 1 << 16, used = 0;
    char *buffer = malloc(capacity);
    for (;;) {
        if (used == capacity) {
            capacity *= 2;
            buffer = realloc(buffer, capacity);
        }
        ssize_t n = read(0, buffer + used, capacity - used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        used += (size_t)n;
        size_t start = 0;
        for (;;) {
            char *newline = memchr(buffer + start, '\n', used - start);
            if (!newline) break;
            size_t end = (size_t)(newline - buffer);
            if (end > start) answer(buffer + start, end - start);
            start = end + 1;
        }
        memmove(buffer, buffer + start, used - start);
        used -= start;
        flush_out();
    }
    flush_out();
    free(buffer);
    return 0;
}
