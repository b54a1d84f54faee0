/* A JSON reader that builds jansson values: see flowhost_json_parse.h. */

#include "flowhost_json_parse.h"
#include "utf8_sequence.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH */
#define SCRATCH 256    /* decoded strings and numbers this short stay on the stack */
#define KEY_SCRATCH 64 /* a key's, kept while its value is read: one per level of nesting */

typedef struct {
    const unsigned char *at;
    const unsigned char *end;
    int depth;
} reader;

static json_t *read_value(reader *r);

static void skip_space(reader *r) {
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r')) r->at++;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int hex4(const unsigned char *p, uint32_t *out) {
    uint32_t value = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p[i];
        value <<= 4;
        if (c >= '0' && c <= '9') value |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') value |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') value |= (uint32_t)(c - 'A' + 10);
        else return -1;
    }
    *out = value;
    return 0;
}

/* Decodes the escaped string text [from, to) into out (room for to - from
   bytes is enough: no escape is shorter than what it stands for); returns
   the decoded length, or -1. */
static long decode(const unsigned char *from, const unsigned char *to, char *out) {
    char *w = out;
    while (from < to) {
        if (*from != '\\') {
            *w++ = (char)*from++;
            continue;
        }
        from++;
        if (from >= to) return -1;
        unsigned char c = *from++;
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            uint32_t value;
            if (to - from < 4 || hex4(from, &value)) return -1;
            from += 4;
            if (value >= 0xDC00 && value <= 0xDFFF) return -1; /* a low surrogate first */
            if (value >= 0xD800 && value <= 0xDBFF) {
                uint32_t low;
                if (to - from < 6 || from[0] != '\\' || from[1] != 'u' || hex4(from + 2, &low)) return -1;
                if (low < 0xDC00 || low > 0xDFFF) return -1;
                from += 6;
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00);
            }
            if (value == 0) return -1; /* no NUL without JSON_ALLOW_NUL */
            if (value < 0x80) {
                *w++ = (char)value;
            } else if (value < 0x800) {
                *w++ = (char)(0xC0 | (value >> 6));
                *w++ = (char)(0x80 | (value & 0x3F));
            } else if (value < 0x10000) {
                *w++ = (char)(0xE0 | (value >> 12));
                *w++ = (char)(0x80 | ((value >> 6) & 0x3F));
                *w++ = (char)(0x80 | (value & 0x3F));
            } else {
                *w++ = (char)(0xF0 | (value >> 18));
                *w++ = (char)(0x80 | ((value >> 12) & 0x3F));
                *w++ = (char)(0x80 | ((value >> 6) & 0x3F));
                *w++ = (char)(0x80 | (value & 0x3F));
            }
            break;
        }
        default: return -1;
        }
    }
    return (long)(w - out);
}

/* Zeroes a buffer that held string text (a password may pass through here). */
static void wipe(void *buffer, size_t length) {
    memset(buffer, 0, length);
    __asm__ __volatile__("" : : "r"(buffer) : "memory");
}

/* A string's text (r->at on its opening quote): where it lies in the input
   and whether it holds escapes; r->at ends past the closing quote. Escapes
   are only stepped over here; `decode` checks them. */
static int scan_string(reader *r, const unsigned char **text, size_t *length, int *escaped) {
    const unsigned char *start = ++r->at;
    *escaped = 0;
    for (;;) {
        if (r->at >= r->end) return -1;
        unsigned char c = *r->at;
        if (c == '"') break;
        if (c < 0x20) return -1;
        if (c == '\\') {
            *escaped = 1;
            r->at += 2;
            continue;
        }
        if (c < 0x80) {
            r->at++;
            continue;
        }
        size_t sequence = utf8_sequence_length(r->at, r->end);
        if (sequence == 0) return -1;
        r->at += sequence;
    }
    *text = start;
    *length = (size_t)(r->at - start);
    r->at++;
    return 0;
}

/* A string's unescaped text: in the input when it has no escapes, else
   decoded into `scratch` (`room` bytes) or a block of its own. */
typedef struct {
    const char *text;
    size_t length;
    char *owned;    /* a malloc'd block to wipe and free, or NULL */
    char *buffer;   /* the block decoded into, wiped when done */
    size_t size;
} string_text;

static int read_string(reader *r, char *scratch, size_t room, string_text *out) {
    const unsigned char *raw;
    size_t length;
    int escaped;
    out->owned = NULL;
    out->buffer = NULL;
    if (scan_string(r, &raw, &length, &escaped)) return -1;
    if (!escaped) {
        out->text = (const char *)raw;
        out->length = length;
        return 0;
    }
    char *buffer = length <= room ? scratch : malloc(length);
    if (buffer == NULL) return -1;
    out->buffer = buffer;
    out->size = length;
    if (buffer != scratch) out->owned = buffer;
    long decoded = decode(raw, raw + length, buffer);
    if (decoded < 0) return -1;
    out->text = buffer;
    out->length = (size_t)decoded;
    return 0;
}

static void release_string(string_text *text) {
    if (text->buffer) wipe(text->buffer, text->size);
    free(text->owned);
}

static json_t *read_number(reader *r) {
    const unsigned char *start = r->at;
    int real = 0;
    if (r->at < r->end && *r->at == '-') r->at++;
    if (r->at >= r->end) return NULL;
    if (*r->at == '0') {
        r->at++;
        if (r->at < r->end && is_digit(*r->at)) return NULL; /* no leading zeros */
    } else if (is_digit(*r->at)) {
        while (r->at < r->end && is_digit(*r->at)) r->at++;
    } else {
        return NULL;
    }
    if (r->at < r->end && *r->at == '.') {
        r->at++;
        if (r->at >= r->end || !is_digit(*r->at)) return NULL;
        while (r->at < r->end && is_digit(*r->at)) r->at++;
        real = 1;
    }
    if (r->at < r->end && (*r->at == 'e' || *r->at == 'E')) {
        r->at++;
        if (r->at < r->end && (*r->at == '+' || *r->at == '-')) r->at++;
        if (r->at >= r->end || !is_digit(*r->at)) return NULL;
        while (r->at < r->end && is_digit(*r->at)) r->at++;
        real = 1;
    }
    size_t length = (size_t)(r->at - start);
    char scratch[SCRATCH];
    char *text = length < SCRATCH ? scratch : malloc(length + 1);
    if (text == NULL) return NULL;
    memcpy(text, start, length);
    text[length] = '\0';
    json_t *value = NULL;
    char *end;
    errno = 0;
    if (real) {
        double number = strtod(text, &end);
        if (!(errno == ERANGE && (number > 1.0 || number < -1.0))) value = json_real(number); /* overflow only is an error */
    } else {
        long long number = strtoll(text, &end, 10);
        if (errno != ERANGE) value = json_integer((json_int_t)number);
    }
    if (text != scratch) free(text);
    return value;
}

static int literal(reader *r, const char *word, size_t length) {
    if ((size_t)(r->end - r->at) < length || memcmp(r->at, word, length) != 0) return -1;
    r->at += length;
    return 0;
}

static json_t *read_array(reader *r) {
    json_t *array = json_array();
    if (array == NULL) return NULL;
    r->at++;
    skip_space(r);
    if (r->at < r->end && *r->at == ']') {
        r->at++;
        return array;
    }
    for (;;) {
        json_t *element = read_value(r);
        if (element == NULL || json_array_append_new(array, element)) break;
        skip_space(r);
        if (r->at >= r->end) break;
        if (*r->at == ']') {
            r->at++;
            return array;
        }
        if (*r->at != ',') break;
        r->at++;
    }
    json_decref(array);
    return NULL;
}

static json_t *read_object(reader *r) {
    json_t *object = json_object();
    if (object == NULL) return NULL;
    r->at++;
    skip_space(r);
    if (r->at < r->end && *r->at == '}') {
        r->at++;
        return object;
    }
    for (;;) {
        if (r->at >= r->end || *r->at != '"') break;
        char scratch[KEY_SCRATCH];
        string_text key;
        if (read_string(r, scratch, sizeof scratch, &key)) {
            release_string(&key);
            break;
        }
        skip_space(r);
        int added = -1;
        if (r->at < r->end && *r->at == ':' && json_object_getn(object, key.text, key.length) == NULL) { /* no duplicate keys */
            r->at++;
            json_t *value = read_value(r);
            if (value != NULL) added = json_object_setn_new_nocheck(object, key.text, key.length, value); /* steals value */
        }
        release_string(&key);
        if (added) break;
        skip_space(r);
        if (r->at >= r->end) break;
        if (*r->at == '}') {
            r->at++;
            return object;
        }
        if (*r->at != ',') break;
        r->at++;
        skip_space(r);
    }
    json_decref(object);
    return NULL;
}

static json_t *read_value(reader *r) {
    skip_space(r);
    if (r->at >= r->end) return NULL;
    /* As jansson counts: every value, not only arrays and objects. */
    if (++r->depth > MAX_DEPTH) return NULL;
    json_t *value = NULL;
    switch (*r->at) {
    case '{': value = read_object(r); break;
    case '[': value = read_array(r); break;
    case '"': {
        char scratch[SCRATCH];
        string_text text;
        if (read_string(r, scratch, sizeof scratch, &text) == 0) value = json_stringn_nocheck(text.text, text.length);
        release_string(&text);
        break;
    }
    case 't': value = literal(r, "true", 4) ? NULL : json_true(); break;
    case 'f': value = literal(r, "false", 5) ? NULL : json_false(); break;
    case 'n': value = literal(r, "null", 4) ? NULL : json_null(); break;
    default: value = read_number(r); break;
    }
    r->depth--;
    return value;
}

json_t *flowhost_json_parse(const char *bytes, size_t length) {
    reader r = {(const unsigned char *)bytes, (const unsigned char *)bytes + length, 0};
    json_t *value = read_value(&r);
    if (value == NULL) return NULL;
    skip_space(&r);
    if (r.at != r.end) {
        json_decref(value);
        return NULL;
    }
    return value;
}
