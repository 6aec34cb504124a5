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

int store_llama_bench_db_json(const char *path, char **json, lvd_err *err)
{
    *json = NULL;
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
    cJSON *arr = cJSON_CreateArray();
    int rc, ncol = sqlite3_column_count(st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *o = cJSON_CreateObject();
        for (int i = 0; i < ncol; i++) {
            const char *name = sqlite3_column_name(st, i);
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER: cJSON_AddNumberToObject(o, name, (double)sqlite3_column_int64(st, i)); break;
            case SQLITE_FLOAT: cJSON_AddNumberToObject(o, name, sqlite3_column_double(st, i)); break;
            case SQLITE_NULL: cJSON_AddNullToObject(o, name); break;
            default: cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(st, i)); break;
            }
        }
        cJSON_AddItemToArray(arr, o);
    }
    int ok = rc == SQLITE_DONE;
    if (!ok)
        lvd_errf(err, "%s: cannot read table llama_bench: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (ok)
        *json = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    if (ok && !*json)
        return lvd_errf(err, "%s: cannot serialise the rows", path);
    return ok ? 0 : -1;
}
