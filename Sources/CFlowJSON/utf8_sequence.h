/* Shared by FlowHost's JSON reader and writer (not a public header). */
#ifndef FLOWHOST_UTF8_SEQUENCE_H
#define FLOWHOST_UTF8_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

/* The length of the UTF-8 sequence at p (1-4), or 0 when it is not one
   jansson accepts: no overlong forms, no surrogates, nothing past U+10FFFF. */
static inline size_t utf8_sequence_length(const unsigned char *p, const unsigned char *end) {
    unsigned char first = p[0];
    size_t count;
    uint32_t value;
    if (first < 0x80) return 1;
    if (first < 0xC2) return 0;
    if (first < 0xE0) {
        count = 2;
        value = first & 0x1F;
    } else if (first < 0xF0) {
        count = 3;
        value = first & 0x0F;
    } else if (first <= 0xF4) {
        count = 4;
        value = first & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < count) return 0;
    for (size_t i = 1; i < count; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        value = (value << 6) | (p[i] & 0x3F);
    }
    if (count == 3 && value < 0x800) return 0;
    if (count == 4 && (value < 0x10000 || value > 0x10FFFF)) return 0;
    if (value >= 0xD800 && value <= 0xDFFF) return 0;
    return count;
}

#endif
