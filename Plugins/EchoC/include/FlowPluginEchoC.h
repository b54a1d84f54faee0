/* The echo flow exports only its entry symbol; see echo.c. */
#include "flowhost_plugin.h"
