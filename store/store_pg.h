/* store_pg.h: what store_pg.c (the connection) and store_pg_stmt.c (the
 * statements) share: the PostgreSQL side of store_internal.h's seam. */
#ifndef LVD_STORE_PG_H
#define LVD_STORE_PG_H

#include "store/store_internal.h"

/* Keeps res as s's last failure (for store_fail, store_unique_violation). */
void pg_keep_error(store *s, struct pg_result *res);

int pg_prepare(store *s, const char *sql, store_stmt **st, lvd_err *err);
void pg_bind_i64(store_stmt *st, int idx, int64_t v);
void pg_bind_double(store_stmt *st, int idx, double v);
void pg_bind_text(store_stmt *st, int idx, const char *v);
int pg_step(store_stmt *st);
void pg_reset(store_stmt *st);
void pg_finalize(store_stmt *st);
int64_t pg_col_i64(store_stmt *st, int col);
double pg_col_real(store_stmt *st, int col);
const char *pg_col_text(store_stmt *st, int col);
int pg_col_null(store_stmt *st, int col);

#endif
