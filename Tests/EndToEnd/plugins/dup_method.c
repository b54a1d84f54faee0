/* Refused: the method `echo` is taken by the C example flow. */
#define NAME "zz-dupmethod"
#define MANIFEST "{\"methods\":[{\"name\":\"echo\"}]}"
#include "test_plugin.h"
