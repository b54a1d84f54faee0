/* Refused beside the built-in flows: it declares the step-up flow's
   updateNotification, to answer notification actions itself. */
#define NAME "approver"
#define MANIFEST "{\"methods\":[{\"name\":\"updateNotification\",\"params\":[{\"name\":\"uuid\",\"type\":\"string\"}]}]}"
#include "test_plugin.h"
