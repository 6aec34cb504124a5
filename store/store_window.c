/* store_window.c: the night window of a host's runs (see store.h,
 * store_run_nights_since): where the newest N nights that have runs begin,
 * so a page of N nights reads those nights and not the year behind them.
 * Not for listing runs (store_runs.c). */
#include "store/store_internal.h"

int store_run_nights_since(store *s, const char *artifact, const char *host, size_t nights, int64_t *since,
                           lvd_err *err)
{
    *since = 0;
    if (nights == 0)
        return 0;
    store_stmt *st;
    /* nights are UTC dates that have a run; runs_key (artifact, host, ...) serves the scan */
    if (store_prepare(s,
                      "SELECT min(d) * 86400 FROM (SELECT DISTINCT started_at / 86400 AS d FROM runs"
                      " WHERE (CAST(?1 AS TEXT) IS NULL OR artifact = ?1) AND host = ?2 ORDER BY d DESC LIMIT ?3) AS n",
                      &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, (int64_t)nights);
    int rc = store_step(st);
    if (rc == STORE_ROW)
        *since = store_col_i64_or(st, 0, 0);
    store_finalize(st);
    if (rc != STORE_ROW && rc != STORE_DONE)
        return store_fail(s, err, "cannot read the night window");
    return 0;
}
