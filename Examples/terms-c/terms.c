/*
 * The `terms` flow of docs/writing-a-flow.md, in C: built with nothing but
 * the installed header and pkg-config (`make`), loaded with
 * `flowhost --plugins <this folder>`.
 *
 *   terms.accept(userID, version)  -> the challenge getTermsConsent, unless
 *                                     this version was accepted already
 *   setTermsConsent(accepted)      -> onTermsAccepted or onTermsDeclined
 *   terms.status(userID)           -> {accepted, version}
 *
 * What was accepted is kept with the host's records.* services.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include <flowhost_plugin.h>

static const char manifest[] =
    "{\"methods\":["
    "{\"name\":\"terms.accept\",\"summary\":\"Asks the user to accept this version of the terms (getTermsConsent), unless they have.\","
    "\"params\":[{\"name\":\"userID\",\"type\":\"string\",\"format\":\"userID\"},{\"name\":\"version\",\"type\":\"string\"}],"
    "\"startsDialogue\":true},"
    "{\"name\":\"setTermsConsent\",\"summary\":\"The user's answer to getTermsConsent.\","
    "\"params\":[{\"name\":\"accepted\",\"type\":\"boolean\"}],\"answers\":\"getTermsConsent\"},"
    "{\"name\":\"terms.status\",\"summary\":\"The version of the terms the user accepted last, if any.\","
    "\"params\":[{\"name\":\"userID\",\"type\":\"string\",\"format\":\"userID\"}]}],"
    "\"events\":[{\"name\":\"getTermsConsent\",\"challenge\":true,\"summary\":\"Show the terms; answer with setTermsConsent.\"},"
    "{\"name\":\"onTermsAccepted\"},{\"name\":\"onTermsDeclined\"}],"
    "\"uses\":[\"records.get\",\"records.apply\"]}";

typedef struct terms_flow {
    const flowhost_host_v1 *host;
    flowhost_host_context *context;
    char *user_id; /* the acceptance being asked for, or NULL */
    char *version;
} terms_flow;

static void forget(terms_flow *flow) {
    free(flow->user_id);
    free(flow->version);
    flow->user_id = flow->version = NULL;
}

static void *terms_create(const flowhost_plugin_descriptor_v1 *self, const flowhost_host_v1 *host,
                          flowhost_host_context *context, json_t *config, flowhost_error_v1 *error) {
    (void)self;
    (void)config;
    terms_flow *flow = calloc(1, sizeof *flow);
    if (!flow) {
        flowhost_error_set(error, FLOWHOST_ERROR_INTERNAL_ERROR, 0, "out of memory");
        return NULL;
    }
    flow->host = host;
    flow->context = context;
    return flow;
}

/* The stored acceptance of user_id (a new reference: {collection, key,
   value, version}), or NULL when there is none. */
static json_t *accepted(terms_flow *flow, const char *user_id, flowhost_error_v1 *error) {
    json_t *params = json_pack("{ss ss}", "collection", "accepted", "key", user_id);
    json_t *record = NULL;
    int32_t rc = flow->host->call_service(flow->context, "records.get", params, &record, error);
    json_decref(params);
    if (rc != FLOWHOST_OK) return NULL;
    if (json_is_null(record)) {
        json_decref(record);
        return NULL;
    }
    return record;
}

static const char *accepted_version(json_t *record) {
    return json_string_value(json_object_get(json_object_get(record, "value"), "version"));
}

static int32_t accept(terms_flow *flow, json_t *params, json_t **result, flowhost_error_v1 *error) {
    /* The host has checked the declared params: both are strings, userID a valid one. */
    const char *user_id = json_string_value(json_object_get(params, "userID"));
    const char *version = json_string_value(json_object_get(params, "version"));
    error->code = 0;
    json_t *record = accepted(flow, user_id, error);
    if (error->code != 0) return FLOWHOST_ERR_FAILED;
    int already = record && accepted_version(record) && strcmp(accepted_version(record), version) == 0;
    json_decref(record);
    if (already) {
        *result = json_pack("{sb sb}", "accepted", 1, "already", 1);
        return FLOWHOST_OK;
    }
    forget(flow);
    flow->user_id = strdup(user_id);
    flow->version = strdup(version);
    flow->host->emit_event(flow->context, "getTermsConsent", json_pack("{ss ss}", "userID", user_id, "version", version));
    return FLOWHOST_OK; /* *result stays NULL: JSON null */
}

static int32_t answer(terms_flow *flow, json_t *params, flowhost_error_v1 *error) {
    if (!flow->user_id) {
        flowhost_error_set(error, FLOWHOST_ERROR_NOT_ALLOWED_NOW, 0, "no terms are being asked for");
        return FLOWHOST_ERR_FAILED;
    }
    if (!json_is_true(json_object_get(params, "accepted"))) {
        flow->host->emit_event(flow->context, "onTermsDeclined", json_pack("{ss ss}", "userID", flow->user_id, "reason", "declined"));
        forget(flow);
        return FLOWHOST_OK;
    }
    json_t *operations = json_pack("{s[{ss ss ss s{ss}}]}", "operations", "op", "put", "collection", "accepted", "key", flow->user_id,
                                   "value", "version", flow->version);
    json_t *stored = NULL;
    int32_t rc = flow->host->call_service(flow->context, "records.apply", operations, &stored, error);
    json_decref(operations);
    json_decref(stored);
    if (rc == FLOWHOST_OK) {
        flow->host->emit_event(flow->context, "onTermsAccepted", json_pack("{ss ss}", "userID", flow->user_id, "version", flow->version));
    }
    forget(flow);
    return rc == FLOWHOST_OK ? FLOWHOST_OK : FLOWHOST_ERR_FAILED;
}

static int32_t status(terms_flow *flow, json_t *params, json_t **result, flowhost_error_v1 *error) {
    error->code = 0;
    json_t *record = accepted(flow, json_string_value(json_object_get(params, "userID")), error);
    if (error->code != 0) return FLOWHOST_ERR_FAILED;
    const char *version = record ? accepted_version(record) : NULL;
    *result = json_pack("{sb so}", "accepted", record != NULL, "version", version ? json_string(version) : json_null());
    json_decref(record);
    return FLOWHOST_OK;
}

static int32_t terms_handle(void *instance, const char *method, json_t *params, json_t **result,
                            flowhost_error_v1 *error) {
    terms_flow *flow = instance;
    if (strcmp(method, "terms.accept") == 0) return accept(flow, params, result, error);
    if (strcmp(method, "setTermsConsent") == 0) return answer(flow, params, error);
    if (strcmp(method, "terms.status") == 0) return status(flow, params, result, error);
    flowhost_error_set(error, FLOWHOST_ERROR_METHOD_NOT_FOUND, 0, "terms: unknown method");
    return FLOWHOST_ERR_FAILED;
}

/* The host closed the challenge unanswered (challengeTimeoutMs). */
static void terms_notify(void *instance, const char *topic, json_t *payload) {
    terms_flow *flow = instance;
    (void)payload;
    if (strcmp(topic, "challenge.expired") != 0 || !flow->user_id) return;
    flow->host->emit_event(flow->context, "onTermsDeclined", json_pack("{ss ss}", "userID", flow->user_id, "reason", "expired"));
    forget(flow);
}

static void terms_destroy(void *instance) {
    forget(instance);
    free(instance);
}

static const flowhost_plugin_descriptor_v1 descriptor = {
    .struct_size = sizeof(flowhost_plugin_descriptor_v1),
    .abi_version = FLOWHOST_ABI_VERSION,
    .abi_minor = FLOWHOST_ABI_MINOR,
    .name = "terms",
    .version = "1.0.0",
    .manifest = manifest,
    .create = terms_create,
    .handle = terms_handle,
    .destroy = terms_destroy,
    .notify = terms_notify,
};

FLOWHOST_PLUGIN_EXPORT const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void) { return &descriptor; }
