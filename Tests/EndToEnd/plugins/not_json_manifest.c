/* Refused: a manifest that is not JSON (a comma left out); the host says
   where, by line and column, within which entry, and quotes the text. */
#define NAME "notjson"
#define MANIFEST "{\"methods\":[{\"name\":\"notjson.begin\" \"params\":[]}]}"
#include "test_plugin.h"
