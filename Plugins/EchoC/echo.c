#include "flowhost_plugin.h"
