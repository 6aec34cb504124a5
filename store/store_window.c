/* store_window.c: the night window of a host's runs (see store.h,
 * store_run_nights_since): where the newest N nights that have runs begin,
 * so a page of N nights reads those nights and not the year behind them.
 * Not for listing runs (store_runs.c). */
#include "store/store_internal.h"

#include <stdlib.h>

int store_run_nights_since(store *s, const char *artifact, const char *host, size_t nights, int64_t *since,
                           lvd_err *err)
{
    *since = 0;
    if (nights == 0)
        return 0;
    /* nights are UTC dates that have a run, walked from the newest: one
     * index seek per night shown (runs_time, or runs_host without an
     * artifact), never a scan of the year behind them. Only the filters that
     * are set appear (a "?1 IS NULL OR" term keeps the planner off the index). */
    const char *of = artifact ? " AND artifact = ?1" : "";
    char *sql = lvd_xasprintf("WITH RECURSIVE n(d, k) AS (SELECT (SELECT max(started_at) FROM runs WHERE host = ?2%s)"
                              " / 86400, 1 UNION ALL SELECT (SELECT max(started_at) FROM runs WHERE host = ?2%s"
                              " AND started_at < n.d * 86400) / 86400, n.k + 1 FROM n WHERE n.d IS NOT NULL AND"
                              " n.k < ?3) SELECT min(d) * 86400 FROM n",
                              of, of);
    store_stmt *st;
    int rc = store_prepare(s, sql, &st, err);
    free(sql);
    if (rc)
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, (int64_t)nights);
    rc = store_step(st);
    if (rc == STORE_ROW)
        *since = store_col_i64_or(st, 0, 0);
    store_finalize(st);
    if (rc != STORE_ROW && rc != STORE_DONE)
        return store_fail(s, err, "cannot read the night window");
    return 0;
}
