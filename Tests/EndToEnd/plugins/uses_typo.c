/* Loads, but its "uses" names a service nothing offers (records.gte for
   records.get): `flowhost plugins` names the slip. */
#define NAME "typo"
#define MANIFEST "{\"methods\":[{\"name\":\"typo.run\"}],\"uses\":[\"records.get\",\"records.gte\"]}"
#include "test_plugin.h"
