/* Shared scaffolding for the end-to-end test plugins: each file defines
   NAME, MANIFEST and the hooks it changes, then includes this. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flowhost_plugin.h"

#ifndef ABI_VERSION
#define ABI_VERSION FLOWHOST_ABI_VERSION
#endif
#ifndef STRUCT_SIZE
#define STRUCT_SIZE sizeof(flowhost_plugin_descriptor_v1)
#else
#define STRUCT_SIZE_GIVEN
#endif

static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error);
static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error);

/* Plugins that only need to exist (to be refused) take these defaults. */
#ifndef CUSTOM_CREATE
static void *tp_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                       flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self; (void)host; (void)context; (void)config; (void)error;
    return (void *)1;
}
#endif
#ifndef CUSTOM_HANDLE
static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    (void)instance; (void)method; (void)params; (void)result; (void)error;
    return FLOWHOST_OK;
}
#endif
static void tp_destroy(void *instance) { (void)instance; }
#ifdef CUSTOM_SERVE
static void tp_serve(void *instance, const char *name, json_t *params, uint64_t call_id);
static void tp_cancel(void *instance, uint64_t call_id);
#endif
#ifdef CUSTOM_NOTIFY
static void tp_notify(void *instance, const char *topic, json_t *payload);
#endif

static const flowhost_plugin_descriptor_v1 descriptor = {
    .struct_size = STRUCT_SIZE,
    .abi_version = ABI_VERSION,
    .name = NAME,
    .version = "0.0.1",
    .manifest = MANIFEST,
    .create = tp_create,
    .handle = tp_handle,
    .destroy = tp_destroy,
#if defined(FLOWHOST_ABI_MINOR) && !defined(STRUCT_SIZE_GIVEN)
    .abi_minor = FLOWHOST_ABI_MINOR,
#endif
#ifdef CUSTOM_SERVE
    .serve = tp_serve,
    .cancel_call = tp_cancel,
#endif
#ifdef CUSTOM_NOTIFY
    .notify = tp_notify,
#endif
};

#ifndef NO_ENTRY
FLOWHOST_PLUGIN_EXPORT const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void) { return &descriptor; }
#else
FLOWHOST_PLUGIN_EXPORT const flowhost_plugin_descriptor_v1 *some_other_symbol(void) { return &descriptor; }
#endif
