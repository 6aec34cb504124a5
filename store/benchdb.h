/* benchdb.h: the SQLite database compare-llama-bench.py users keep
 * (`llama-bench -o sql | sqlite3 llama-bench.sqlite`), read-only, as JSON rows
 * that bench/benchout.c parses like `-o json`. Not for the llama-verdict store. */
#ifndef LVD_STORE_BENCHDB_H
#define LVD_STORE_BENCHDB_H

#include "common/util.h"

#include <stddef.h>

/* 1 when the first bytes of a file are SQLite's header. */
int store_is_sqlite_file(const char *head, size_t len);

struct cJSON;

/* Called with each row in turn (i from 0); the object is freed after the
 * call. Non-zero stops the reading and is returned. */
typedef int (*store_benchdb_row_fn)(const struct cJSON *row, size_t i, void *ctx);

/* Reads the rows of table llama_bench in the database at path (never
 * written) one at a time, in rowid order, each as a JSON object with the
 * columns as keys and SQLite's types kept, and hands each to fn: the
 * database is streamed, never held whole. 0, fn's non-zero value, or -1
 * with err naming path. */
int store_llama_bench_db_each(const char *path, store_benchdb_row_fn fn, void *ctx, lvd_err *err);

#endif
