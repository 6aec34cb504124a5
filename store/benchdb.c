/* benchdb.c: reads the SQLite database that compare-llama-bench.py users keep
 * (`llama-bench -o sql | sqlite3 llama-bench.sqlite`) so that lvd store import
 * can take it as it is. Lives in store/ because only store/ speaks SQL; it
 * never writes that database. Not for the llama-verdict store itself. */
#include "store/benchdb.h"

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

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

int store_llama_bench_db_each(const char *path, store_benchdb_row_fn fn, void *ctx, lvd_err *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        lvd_errf(err, "%s: cannot open the SQLite database: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT * FROM llama_bench ORDER BY rowid", -1, &st, NULL) != SQLITE_OK) {
        lvd_errf(err, "%s: not a llama-bench database (%s)", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    int rc, ret = 0, ncol = sqlite3_column_count(st);
    size_t i = 0;
    while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *o = row_object(st, ncol);
        if (!o) {
            ret = lvd_errf(err, "%s: out of memory reading row %zu", path, i + 1);
            break;
        }
        ret = fn(o, i++, ctx);
        cJSON_Delete(o);
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = lvd_errf(err, "%s: cannot read table llama_bench: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ret;
}
