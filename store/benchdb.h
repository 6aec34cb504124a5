/* benchdb.h: llama-bench's SQL as compare-llama-bench.py users keep it,
 * read-only, as JSON rows that benchio/benchout.c parses like `-o json`: the
 * SQLite database (`llama-bench -o sql | sqlite3 llama-bench.sqlite`) and the
 * `-o sql` text itself, which SQLite executes into a private in-memory
 * database. Both are read by one reader, from the table llama-bench names
 * llama_bench, or test as builds before b6066 named it. Not for the
 * llama-verdict store. */
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

/* Reads the rows of the tables test and llama_bench (in that order, each in
 * rowid order) of the database at path (never written) one at a time, each
 * as a JSON object with the columns as keys and SQLite's types kept, and
 * hands each to fn: the database is streamed, never held whole. A database
 * with neither table is an error. 0, fn's non-zero value, or -1 with err
 * naming path. */
int store_llama_bench_db_each(const char *path, store_benchdb_row_fn fn, void *ctx, lvd_err *err);

/* Executes text[0..len) (llama-bench `-o sql`: CREATE TABLE, INSERT INTO,
 * BEGIN/COMMIT and comments; its first line is line first_line of name)
 * into an in-memory database and hands its rows
 * to fn as store_llama_bench_db_each does. Nothing but CREATE TABLE and
 * INSERT into that database runs (no ATTACH, PRAGMA, function, trigger,
 * view, index or read of another table), and limits on lengths, columns,
 * pages and steps bound what hostile text can cost. Text that SQLite
 * refuses, that ends inside a statement or a transaction, or that is
 * refused here is an error naming name and the line. 0 when no table was
 * created (*tables = 0) or fn saw every row, fn's non-zero value, or -1 with
 * err. */
int store_llama_bench_sql_each(const char *text, size_t len, const char *name, int first_line, size_t *tables,
                               store_benchdb_row_fn fn, void *ctx, lvd_err *err);

#endif
