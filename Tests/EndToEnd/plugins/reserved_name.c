/* Refused: "sessions" is a host namespace of the change feed, no flow's name. */
#define NAME "sessions"
#define MANIFEST "{}"
#include "test_plugin.h"
