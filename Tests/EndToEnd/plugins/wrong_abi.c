/* Refused by the loader: wrong abi. */
#define ABI_VERSION 2u
#define NAME "wrongabi"
#define MANIFEST "{}"
#include "test_plugin.h"
