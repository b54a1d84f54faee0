#ifndef FLOWHOST_JSON_DUMP_H
#define FLOWHOST_JSON_DUMP_H

#include <stddef.h>
#include <jansson.h>

/* What flowhost_json_dumpb returns for a value it leaves to jansson. */
#define FLOWHOST_JSON_DUMP_DECLINED ((size_t)-1)

/* Writes the compact text of `value` as json_dumpb does with JSON_COMPACT |
   JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY, byte for
   byte (which tests and the fuzzer check against jansson itself): keys in
   insertion order, no spaces, `"`, `\` and control characters escaped as
   jansson escapes them, nothing else. Returns the text's whole length, of
   which it wrote at most `size` bytes (call again with room for all of it),
   or FLOWHOST_JSON_DUMP_DECLINED for what it leaves to jansson: a real, a
   string that is not UTF-8, nesting deeper than 2048. Why it exists:
   jansson's writer costs about 80 instructions a byte, this about a tenth. */
size_t flowhost_json_dumpb(const json_t *value, char *buffer, size_t size);

#endif
