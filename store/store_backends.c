/* store_backends.c: the backend an engine's results were measured on (see
 * backenddb.h). Not for probes (store_engines.c) or runs (store_runs.c). */
#include "store/backenddb.h"
#include "store/store_internal.h"

int store_engine_reported_backends(store *s, int64_t engine_id, char *buf, size_t len, lvd_err *err)
{
    if (len)
        buf[0] = '\0';
    store_stmt *st;
    /* the newest run first: runs are read backwards by rowid and the scan stops
       at the engine's newest ok run that reported a backend */
    if (store_prepare(s,
                      "SELECT x.backends FROM runs r JOIN results x ON x.run_id = r.id"
                      " WHERE r.engine_id = ?1 AND r.status = 'ok' AND x.backends IS NOT NULL"
                      " AND x.backends <> '' ORDER BY r.id DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_i64(st, 1, engine_id);
    int rc = store_step(st);
    if (rc == STORE_ROW)
        store_col_copy(st, 0, buf, len);
    store_finalize(st);
    if (rc != STORE_ROW && rc != STORE_DONE)
        return store_fail(s, err, "cannot read the backend of an engine's runs");
    return rc == STORE_ROW ? 0 : 1;
}
