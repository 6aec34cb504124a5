/* store_counts.c: row counts per entity, for `lvd store info` and tests. */
#include "store/store_internal.h"

#include <string.h>

int store_counts_get(store *s, store_counts *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_prepare(s,
                      "SELECT (SELECT count(*) FROM artifacts), (SELECT count(*) FROM engines),"
                      " (SELECT count(*) FROM probes), (SELECT count(*) FROM runs),"
                      " (SELECT count(*) FROM results), (SELECT COALESCE(SUM(n_samples), 0) FROM results),"
                      " (SELECT count(*) FROM checks), (SELECT count(*) FROM verdicts),"
                      " (SELECT count(*) FROM pin_decisions)",
                      &st, err))
        return -1;
    if (store_step(st) != STORE_ROW) {
        store_finalize(st);
        return store_fail(s, err, "cannot count rows");
    }
    int64_t *f[] = {&out->artifacts, &out->engines, &out->probes, &out->runs, &out->results,
                    &out->samples, &out->checks, &out->verdicts, &out->pin_decisions};
    for (size_t i = 0; i < LVD_ARRAY_LEN(f); i++)
        *f[i] = store_col_i64(st, (int)i);
    store_finalize(st);
    return 0;
}
