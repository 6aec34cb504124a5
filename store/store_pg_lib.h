/* store_pg_lib.h: libpq, loaded at run time (store_pg_lib.c): the few entry
 * points store_pg.c and store_pg_stmt.c call, resolved once by dlopen of
 * libpq.so.5 when a PostgreSQL store is opened, so that no tool loads libpq
 * (and the twenty libraries it pulls in) to open a SQLite file. The types
 * come from libpq-fe.h; each PQfoo below calls through the table. */
#ifndef LVD_STORE_PG_LIB_H
#define LVD_STORE_PG_LIB_H

#include "common/util.h"

#include <libpq-fe.h>

#define STORE_PG_FUNCS(X)                                                                                    \
    X(PQclear) X(PQconnectdbParams) X(PQconninfoFree) X(PQconninfoParse) X(PQdb) X(PQerrorMessage) X(PQexec) \
    X(PQexecParams) X(PQexecPrepared) X(PQfinish) X(PQfreemem) X(PQgetisnull) X(PQgetvalue) X(PQhost)        \
    X(PQmakeEmptyPGresult) X(PQnfields) X(PQntuples) X(PQport) X(PQprepare) X(PQresultErrorField)            \
    X(PQresultErrorMessage) X(PQresultStatus) X(PQsetNoticeProcessor) X(PQstatus) X(PQtransactionStatus)

typedef struct store_pg_lib {
#define STORE_PG_FIELD(f) __typeof__(f) *p_##f;
    STORE_PG_FUNCS(STORE_PG_FIELD)
#undef STORE_PG_FIELD
} store_pg_lib;

extern store_pg_lib store_pq;

/* Loads libpq ($LVD_LIBPQ_LIBRARY, else libpq.so.5) once; 0, or -1 with err
 * naming shown (the store as displayed) and the package to install. */
int store_pg_load(const char *shown, lvd_err *err);

#define PQclear store_pq.p_PQclear
#define PQconnectdbParams store_pq.p_PQconnectdbParams
#define PQconninfoFree store_pq.p_PQconninfoFree
#define PQconninfoParse store_pq.p_PQconninfoParse
#define PQdb store_pq.p_PQdb
#define PQerrorMessage store_pq.p_PQerrorMessage
#define PQexec store_pq.p_PQexec
#define PQexecParams store_pq.p_PQexecParams
#define PQexecPrepared store_pq.p_PQexecPrepared
#define PQfinish store_pq.p_PQfinish
#define PQfreemem store_pq.p_PQfreemem
#define PQgetisnull store_pq.p_PQgetisnull
#define PQgetvalue store_pq.p_PQgetvalue
#define PQhost store_pq.p_PQhost
#define PQmakeEmptyPGresult store_pq.p_PQmakeEmptyPGresult
#define PQnfields store_pq.p_PQnfields
#define PQntuples store_pq.p_PQntuples
#define PQport store_pq.p_PQport
#define PQprepare store_pq.p_PQprepare
#define PQresultErrorField store_pq.p_PQresultErrorField
#define PQresultErrorMessage store_pq.p_PQresultErrorMessage
#define PQresultStatus store_pq.p_PQresultStatus
#define PQsetNoticeProcessor store_pq.p_PQsetNoticeProcessor
#define PQstatus store_pq.p_PQstatus
#define PQtransactionStatus store_pq.p_PQtransactionStatus

#endif
