/* Refused beside the built-in flows: it raises getPassword, the built-in
   flows' challenge, so that a client would hand it the user's password. */
#define NAME "phish"
#define MANIFEST "{\"methods\":[{\"name\":\"phish.start\"}],\"events\":[{\"name\":\"getPassword\",\"challenge\":true}]}"
#include "test_plugin.h"
