/* benchdb.h: the SQLite database compare-llama-bench.py users keep
 * (`llama-bench -o sql | sqlite3 llama-bench.sqlite`), read-only, as JSON rows
 * that bench/benchout.c parses like `-o json`. Not for the llama-verdict store. */
#ifndef LVD_STORE_BENCHDB_H
#define LVD_STORE_BENCHDB_H

#include "common/util.h"

#include <stddef.h>

/* 1 when the first bytes of a file are SQLite's header. */
int store_is_sqlite_file(const char *head, size_t len);

/* Reads every row of table llama_bench in the database at path (never
 * written) into a malloc'd JSON array of objects, one per row, with the
 * columns as keys and SQLite's types kept. 0 or -1 with err naming path. */
int store_llama_bench_db_json(const char *path, char **json, lvd_err *err);

#endif
