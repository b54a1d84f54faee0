/* Refused by the loader: no entry. */
#define NO_ENTRY
#define NAME "noentry"
#define MANIFEST "{}"
#include "test_plugin.h"
