/* Loads: a \u escape in a summary is valid JSON the one-pass manifest
   reader leaves to the JSON tree (ManifestReader); the flow must load all
   the same. */
#define NAME "escaped"
#define MANIFEST "{\"methods\":[{\"name\":\"escaped.begin\",\"summary\":\"caf\\u00e9\",\"params\":[]}]}"
#include "test_plugin.h"
