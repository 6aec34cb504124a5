/* store_alloc.c: every device allocation row with both sides known (what
 * llama.cpp allocated and what placement predicted), for the margin
 * correction (placement/correction.h). Not for a run's own rows
 * (store_runs.c reads and writes those with the run). */
#include "store/store_internal.h"

#include <stdlib.h>

int store_alloc_rows(store *s, lvd_alloc **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, "SELECT device, model, kv, compute, pred_model, pred_kv, pred_compute"
                         " FROM run_alloc WHERE device <> 'CPU' AND model IS NOT NULL"
                         " AND pred_model IS NOT NULL ORDER BY run_id, device", &st, err))
        return -1;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        *out = lvd_xrealloc(*out, (*n + 1) * sizeof **out);
        lvd_alloc *a = &(*out)[(*n)++];
        store_col_copy(st, 0, a->device, sizeof a->device);
        int64_t *f[] = {&a->model, &a->kv, &a->compute, &a->pred_model, &a->pred_kv, &a->pred_compute};
        for (int k = 0; k < 6; k++)
            *f[k] = store_col_i64_or(st, 1 + k, -1);
    }
    store_finalize(st);
    if (rc != STORE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return store_fail(s, err, "cannot read allocation rows");
    }
    return 0;
}
