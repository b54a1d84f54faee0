/* Refused: the flow name `echo` is taken by the C example flow. */
#define NAME "echo"
#define MANIFEST "{}"
#include "test_plugin.h"
