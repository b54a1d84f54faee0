#ifndef FLOWHOST_CJANSSON_SHIM_H
#define FLOWHOST_CJANSSON_SHIM_H

#include <jansson.h>

/* Swift imports neither function-like macros nor variadic functions, so the
   few that FlowHost needs are re-exposed here as static inline functions. */

/* Flags for every frame FlowHost writes: compact, in insertion order, and reals
   with enough digits to round-trip. */
static inline size_t fh_json_dump_flags(void) {
    return JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17);
}

/* Flags for every frame FlowHost reads: any top-level value (so `1` is an
   invalid request rather than a parse error) and duplicate keys rejected. */
static inline size_t fh_json_load_flags(void) {
    return JSON_DECODE_ANY | JSON_REJECT_DUPLICATES;
}

/* jansson's error text lives in a fixed char array that Swift sees as a tuple. */
static inline const char *fh_json_error_text(const json_error_t *e) { return e->text; }

#endif
