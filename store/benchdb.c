/* benchdb.c: reads llama-bench's rows out of an SQLite database: the file
 * compare-llama-bench.py users keep (`llama-bench -o sql | sqlite3
 * llama-bench.sqlite`), and (through store_benchdb_read) the in-memory
 * database store/benchsql.c executes `-o sql` text into, so that lvd store
 * import takes either as it is. Lives in store/ because only store/ speaks
 * SQL; it never writes the file. Not for executing SQL text (benchsql.c) or
 * for the llama-verdict store itself. */
#include "store/benchdb_internal.h"

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The tables llama-bench's CREATE TABLE names, oldest first: "test" until
 * build b6066 (Aug 2025), "llama_bench" since. */
static const char *const bench_tables[] = {"test", "llama_bench"};

int store_is_sqlite_file(const char *head, size_t len)
{
    return len >= 16 && !memcmp(head, "SQLite format 3", 16);
}

static cJSON *row_object(sqlite3_stmt *st, int ncol)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < ncol; i++) {
        const char *name = sqlite3_column_name(st, i);
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER: cJSON_AddNumberToObject(o, name, (double)sqlite3_column_int64(st, i)); break;
        case SQLITE_FLOAT: cJSON_AddNumberToObject(o, name, sqlite3_column_double(st, i)); break;
        case SQLITE_NULL: cJSON_AddNullToObject(o, name); break;
        default: cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(st, i)); break;
        }
    }
    return o;
}

/* 1 when db has a table called table, 0 when not, -1 with err. */
static int has_table(sqlite3 *db, const char *table, const char *name, lvd_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        lvd_errf(err, "%s: not a llama-bench database (%s)", name, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return rc == SQLITE_ROW;
    return lvd_errf(err, "%s: cannot read the database's tables: %s", name, sqlite3_errmsg(db));
}

/* Hands the rows of table to fn, counting them in *i. */
static int read_table(sqlite3 *db, const char *table, const char *name, size_t *i, store_benchdb_row_fn fn,
                      void *ctx, lvd_err *err)
{
    char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY rowid", table);
    sqlite3_stmt *st = NULL;
    int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return lvd_errf(err, "%s: cannot read table %s: %s", name, table, sqlite3_errmsg(db));
    }
    int ret = 0, ncol = sqlite3_column_count(st);
    while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *o = row_object(st, ncol);
        if (!o) {
            ret = lvd_errf(err, "%s: out of memory reading row %zu", name, *i + 1);
            break;
        }
        ret = fn(o, (*i)++, ctx);
        cJSON_Delete(o);
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = lvd_errf(err, "%s: cannot read table %s: %s", name, table, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return ret;
}

int store_benchdb_read(sqlite3 *db, const char *name, size_t *tables, store_benchdb_row_fn fn, void *ctx,
                       lvd_err *err)
{
    size_t i = 0;
    *tables = 0;
    for (size_t t = 0; t < LVD_ARRAY_LEN(bench_tables); t++) {
        int has = has_table(db, bench_tables[t], name, err);
        if (has < 0)
            return -1;
        if (!has)
            continue;
        ++*tables;
        int rc = read_table(db, bench_tables[t], name, &i, fn, ctx, err);
        if (rc)
            return rc;
    }
    return 0;
}

int store_llama_bench_db_each(const char *path, store_benchdb_row_fn fn, void *ctx, lvd_err *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        lvd_errf(err, "%s: cannot open the SQLite database: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    size_t tables;
    int rc = store_benchdb_read(db, path, &tables, fn, ctx, err);
    if (rc == 0 && tables == 0)
        rc = lvd_errf(err, "%s: not a llama-bench database (no table llama_bench, nor test as builds before "
                      "b6066 named it)", path);
    sqlite3_close(db);
    return rc;
}
