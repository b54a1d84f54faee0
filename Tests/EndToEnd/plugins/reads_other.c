/* Refused: "reads" may list only the host topics a flow may read, never
   another flow's topics. */
#define NAME "nosy"
#define MANIFEST "{\"reads\":[\"echo.secrets\"]}"
#include "test_plugin.h"
