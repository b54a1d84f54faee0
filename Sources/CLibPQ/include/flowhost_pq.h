#ifndef FLOWHOST_PQ_H
#define FLOWHOST_PQ_H

/* libpq, loaded on first use. The host links no PostgreSQL code: a host on
 * the default SQLite store never maps libpq, so its start-up time and memory
 * do not change; `--store postgresql://…` loads libpq.so.5 with dlopen and
 * reaches it through this table. The types come from Debian's libpq-dev
 * header, so each pointer has libpq's own signature. */
#include <postgresql/libpq-fe.h>

typedef struct flowhost_pq_api {
    __typeof__(PQconnectdb) *connectdb;
    __typeof__(PQstatus) *status;
    __typeof__(PQerrorMessage) *errorMessage;
    __typeof__(PQfinish) *finish;
    __typeof__(PQexec) *exec;
    __typeof__(PQexecParams) *execParams;
    __typeof__(PQresultStatus) *resultStatus;
    __typeof__(PQresultErrorField) *resultErrorField;
    __typeof__(PQresultErrorMessage) *resultErrorMessage;
    __typeof__(PQntuples) *ntuples;
    __typeof__(PQgetvalue) *getvalue;
    __typeof__(PQgetisnull) *getisnull;
    __typeof__(PQgetlength) *getlength;
    __typeof__(PQcmdTuples) *cmdTuples;
    __typeof__(PQclear) *clear;
    __typeof__(PQsocket) *socket;
    __typeof__(PQconsumeInput) *consumeInput;
    __typeof__(PQnotifies) *notifies;
    __typeof__(PQfreemem) *freemem;
    __typeof__(PQtransactionStatus) *transactionStatus;
    /* Pipeline mode: a transaction's BEGIN travels with its first statement. */
    __typeof__(PQenterPipelineMode) *enterPipelineMode;
    __typeof__(PQexitPipelineMode) *exitPipelineMode;
    __typeof__(PQpipelineSync) *pipelineSync;
    __typeof__(PQsendQueryParams) *sendQueryParams;
    __typeof__(PQgetResult) *getResult;
} flowhost_pq_api;

/* The table, loading libpq.so.5 the first time (thread-safe). NULL when it
 * cannot be loaded; *error then says why (a static string). */
const flowhost_pq_api *flowhost_pq_load(const char **error);

#endif
