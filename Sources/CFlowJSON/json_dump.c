/* A JSON writer for jansson values: see flowhost_json_dump.h. */

#include "flowhost_json_dump.h"
#include "utf8_sequence.h"

#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 2048

typedef struct {
    char *buffer;
    size_t size;
    size_t length; /* of the whole text so far, written or not */
} writer;

static void put(writer *w, const char *bytes, size_t count) {
    if (w->length < w->size) {
        size_t room = w->size - w->length;
        memcpy(w->buffer + w->length, bytes, count < room ? count : room);
    }
    w->length += count;
}

static void put_byte(writer *w, char byte) {
    if (w->length < w->size) w->buffer[w->length] = byte;
    w->length += 1;
}

static void put_integer(writer *w, json_int_t value) {
    char digits[24];
    size_t at = sizeof(digits);
    /* In unsigned arithmetic, so the most negative value has a magnitude too. */
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    do {
        digits[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0) digits[--at] = '-';
    put(w, digits + at, sizeof(digits) - at);
}

/* As jansson's dump_string without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH:
   `"`, `\` and the short escapes by name, other controls as \u00XX (upper-case
   hex), everything else as it is. 0 when the bytes are not UTF-8. */
static int put_string(writer *w, const char *text, size_t count) {
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *at = (const unsigned char *)text;
    const unsigned char *end = at + count;
    const unsigned char *run = at; /* the start of bytes written as they are */
    put_byte(w, '"');
    while (at < end) {
        unsigned char c = *at;
        if (c >= 0x80) {
            size_t sequence = utf8_sequence_length(at, end);
            if (sequence == 0) return 0;
            at += sequence;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\') {
            at++;
            continue;
        }
        put(w, (const char *)run, (size_t)(at - run));
        char escape[6] = {'\\', 0, '0', '0', hex[c >> 4], hex[c & 15]};
        size_t length = 2;
        switch (c) {
        case '"': escape[1] = '"'; break;
        case '\\': escape[1] = '\\'; break;
        case '\b': escape[1] = 'b'; break;
        case '\f': escape[1] = 'f'; break;
        case '\n': escape[1] = 'n'; break;
        case '\r': escape[1] = 'r'; break;
        case '\t': escape[1] = 't'; break;
        default:
            escape[1] = 'u';
            length = 6;
        }
        put(w, escape, length);
        run = ++at;
    }
    put(w, (const char *)run, (size_t)(at - run));
    put_byte(w, '"');
    return 1;
}

static int put_value(writer *w, const json_t *value, int depth) {
    if (depth > MAX_DEPTH) return 0;
    switch (json_typeof(value)) {
    case JSON_OBJECT: {
        put_byte(w, '{');
        int first = 1;
        for (void *iter = json_object_iter((json_t *)value); iter; iter = json_object_iter_next((json_t *)value, iter)) {
            if (!first) put_byte(w, ',');
            first = 0;
            if (!put_string(w, json_object_iter_key(iter), json_object_iter_key_len(iter))) return 0;
            put_byte(w, ':');
            if (!put_value(w, json_object_iter_value(iter), depth + 1)) return 0;
        }
        put_byte(w, '}');
        return 1;
    }
    case JSON_ARRAY: {
        put_byte(w, '[');
        size_t count = json_array_size(value);
        for (size_t index = 0; index < count; index++) {
            if (index > 0) put_byte(w, ',');
            if (!put_value(w, json_array_get(value, index), depth + 1)) return 0;
        }
        put_byte(w, ']');
        return 1;
    }
    case JSON_STRING:
        return put_string(w, json_string_value(value), json_string_length(value));
    case JSON_INTEGER:
        put_integer(w, json_integer_value(value));
        return 1;
    case JSON_TRUE:
        put(w, "true", 4);
        return 1;
    case JSON_FALSE:
        put(w, "false", 5);
        return 1;
    case JSON_NULL:
        put(w, "null", 4);
        return 1;
    default: /* a real: its digits are jansson's to choose */
        return 0;
    }
}

size_t flowhost_json_dumpb(const json_t *value, char *buffer, size_t size) {
    if (!value) return FLOWHOST_JSON_DUMP_DECLINED;
    writer w = {buffer, size, 0};
    return put_value(&w, value, 0) ? w.length : FLOWHOST_JSON_DUMP_DECLINED;
}
