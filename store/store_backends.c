/* store_backends.c: the backend an engine's results were measured on (see
 * backenddb.h). Not for probes (store_engines.c) or runs (store_runs.c). */
#include "store/backenddb.h"
#include "store/store_internal.h"

int store_engine_reported_backends(store *s, int64_t engine_id, char *buf, size_t len, lvd_err *err)
{
    if (len)
        buf[0] = '\0';
    sqlite3_stmt *st;
    /* the newest run first: runs are read backwards by rowid and the scan stops
       at the engine's newest ok run that reported a backend */
    if (store_prepare(s,
                      "SELECT x.backends FROM runs r JOIN results x ON x.run_id = r.id"
                      " WHERE r.engine_id = ?1 AND r.status = 'ok' AND x.backends IS NOT NULL"
                      " AND x.backends <> '' ORDER BY r.id DESC LIMIT 1",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)engine_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        store_col_copy(st, 0, buf, len);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_fail(s, err, "cannot read the backend of an engine's runs");
    return rc == SQLITE_ROW ? 0 : 1;
}
