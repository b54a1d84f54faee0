/* Refused by the loader: small struct. */
#define STRUCT_SIZE 16
#define NAME "smallstruct"
#define MANIFEST "{}"
#include "test_plugin.h"
