/* The messages between the host and a flow's child process: a 4-byte length
   (this machine's byte order: both ends are on it) and that many bytes of
   compact JSON. A call is an object with "c" (its name); its answer is an
   object with FHI_REPLY. Internal to CFlowHostIsolation. */
#ifndef FLOWHOST_ISOLATION_WIRE_H
#define FLOWHOST_ISOLATION_WIRE_H

#include <jansson.h>
#include <stdint.h>
#include "flowhost_plugin.h"

/* The largest message either side accepts (a flow's params and results are
   far smaller; the host's frame limit is 1 MiB by default). */
#define FHI_MAX_MESSAGE (64u * 1024u * 1024u)

/* The key that marks an answer; no call has it (a call's own keys are
   short: "c", "p", "r" for a reason, ...). */
#define FHI_REPLY "reply"

/* Sends `message` (borrowed). 0, or -1 when the other side is gone. */
int fhi_send(int fd, json_t *message);

/* The next message, or NULL: the other side closed (*status 0), did not
   send one within timeout_ms (*status 1; 0 means wait for ever), or sent
   something that is not one (*status 2). */
json_t *fhi_receive(int fd, uint32_t timeout_ms, int *status);

/* An error struct as JSON: {code, short, message, data?}. data is copied. */
json_t *fhi_error_json(const flowhost_error_v1 *error);

/* Fills `error` from JSON made by fhi_error_json; data becomes a new
   reference. 0, or -1 when the JSON is not one. */
int fhi_error_from_json(json_t *json, flowhost_error_v1 *error);

/* An answer {FHI_REPLY, s}. */
json_t *fhi_status_reply(int32_t status);

/* An answer with a call's outcome, {FHI_REPLY, s, v?, e?}: result (stolen)
   when status is FLOWHOST_OK, else the error; error->data is released. */
json_t *fhi_outcome_reply(int32_t status, json_t *result, flowhost_error_v1 *error);

/* Monotonic milliseconds. */
uint64_t fhi_now_ms(void);

/* obj[key] as an integer, or `fallback` when it is missing or not one. */
json_int_t fhi_int(json_t *object, const char *key, json_int_t fallback);

/* obj[key] as a string, or NULL. */
const char *fhi_string(json_t *object, const char *key);

#endif
