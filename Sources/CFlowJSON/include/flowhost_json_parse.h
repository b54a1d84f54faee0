#ifndef FLOWHOST_JSON_PARSE_H
#define FLOWHOST_JSON_PARSE_H

#include <stddef.h>
#include <jansson.h>

/* Parses one JSON text of `length` bytes into jansson values, reading it as
   json_loadb does with JSON_DECODE_ANY | JSON_REJECT_DUPLICATES: any
   top-level value, duplicate keys refused, strings valid UTF-8 without NUL,
   integers that fit json_int_t, reals that do not overflow, at most 2048
   levels. NULL when the text is not accepted (the caller asks jansson why):
   it never accepts a text that jansson refuses, nor reads one differently,
   which tests and the fuzzer check against jansson itself. Why it exists:
   jansson's lexer costs about 160 instructions a byte, this about a tenth. */
json_t *flowhost_json_parse(const char *bytes, size_t length);

#endif
