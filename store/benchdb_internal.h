/* benchdb_internal.h: the seam between the two sources of llama-bench's SQL
 * rows in store/ (benchdb.c reads a database file, benchsql.c executes -o sql
 * text): the one reader of an open database both use. Nobody outside store/
 * sees it; see store/benchdb.h. */
#ifndef LVD_STORE_BENCHDB_INTERNAL_H
#define LVD_STORE_BENCHDB_INTERNAL_H

#include "store/benchdb.h"

struct sqlite3;

/* Hands the rows of the tables test, then llama_bench, of db to fn (see
 * store_llama_bench_db_each); *tables is how many of the two exist. Errors
 * name name. 0, fn's non-zero value, or -1 with err. */
int store_benchdb_read(struct sqlite3 *db, const char *name, size_t *tables, store_benchdb_row_fn fn, void *ctx,
                       lvd_err *err);

#endif
