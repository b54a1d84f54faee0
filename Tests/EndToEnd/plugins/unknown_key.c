/* Refused: a misspelt manifest key ("startsDialog") would quietly remove the
   one-dialogue guard; the host names it and the key that was meant. */
#define NAME "sloppy"
#define MANIFEST "{\"methods\":[{\"name\":\"sloppy.begin\",\"params\":[],\"startsDialog\":true}]}"
#include "test_plugin.h"
