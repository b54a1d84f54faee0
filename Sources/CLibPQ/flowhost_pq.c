#include "flowhost_pq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static flowhost_pq_api api;
static const char *load_error;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define RESOLVE(field, symbol)                                              \
    do {                                                                    \
        api.field = (__typeof__(api.field))dlsym(library, #symbol);        \
        if (!api.field) {                                                   \
            load_error = "libpq.so.5 lacks " #symbol;                       \
            return;                                                         \
        }                                                                   \
    } while (0)

static void load(void) {
    /* Never closed: the table lives as long as the process. */
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_error = "cannot load libpq.so.5 (Debian: apt-get install libpq5)";
        return;
    }
    RESOLVE(connectdb, PQconnectdb);
    RESOLVE(status, PQstatus);
    RESOLVE(errorMessage, PQerrorMessage);
    RESOLVE(finish, PQfinish);
    RESOLVE(exec, PQexec);
    RESOLVE(execParams, PQexecParams);
    RESOLVE(resultStatus, PQresultStatus);
    RESOLVE(resultErrorField, PQresultErrorField);
    RESOLVE(resultErrorMessage, PQresultErrorMessage);
    RESOLVE(ntuples, PQntuples);
    RESOLVE(getvalue, PQgetvalue);
    RESOLVE(getisnull, PQgetisnull);
    RESOLVE(getlength, PQgetlength);
    RESOLVE(cmdTuples, PQcmdTuples);
    RESOLVE(clear, PQclear);
    RESOLVE(socket, PQsocket);
    RESOLVE(consumeInput, PQconsumeInput);
    RESOLVE(notifies, PQnotifies);
    RESOLVE(freemem, PQfreemem);
    RESOLVE(transactionStatus, PQtransactionStatus);
    RESOLVE(enterPipelineMode, PQenterPipelineMode);
    RESOLVE(exitPipelineMode, PQexitPipelineMode);
    RESOLVE(pipelineSync, PQpipelineSync);
    RESOLVE(sendQueryParams, PQsendQueryParams);
    RESOLVE(getResult, PQgetResult);
}

const flowhost_pq_api *flowhost_pq_load(const char **error) {
    pthread_once(&once, load);
    if (load_error) {
        if (error) *error = load_error;
        return NULL;
    }
    return &api;
}
