#include "flowhost_system.h"

#include <jansson.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void flowhost_wipe_allocation(void *block) {
    if (block == NULL) return;
    /* The usable size covers what the caller asked for and any slack. */
    explicit_bzero(block, malloc_usable_size(block));
}

static void wiping_free(void *block) {
    flowhost_wipe_allocation(block);
    free(block);
}

void flowhost_json_wipe_on_free(void) { json_set_alloc_funcs(malloc, wiping_free); }

int flowhost_json_wipes_on_free(void) {
    json_malloc_t allocate = NULL;
    json_free_t release = NULL;
    json_get_alloc_funcs(&allocate, &release);
    return release == wiping_free;
}
