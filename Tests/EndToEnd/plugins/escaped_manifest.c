/* Loads: \u escapes (one a surrogate pair) in a summary are read as the
   characters they spell. */
#define NAME "escaped"
#define MANIFEST "{\"methods\":[{\"name\":\"escaped.begin\",\"summary\":\"caf\\u00e9 \\ud83d\\udd11\",\"params\":[]}]}"
#include "test_plugin.h"
