/* Refused: JSON-RPC 2.0 reserves method names that begin with "rpc.". */
#define NAME "rpc-taker"
#define MANIFEST "{\"methods\":[{\"name\":\"rpc.foo\"}]}"
#include "test_plugin.h"
