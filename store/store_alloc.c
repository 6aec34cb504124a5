/* store_alloc.c: the device allocation rows with both sides known (what
 * llama.cpp allocated and what placement predicted) of runs that finished
 * (a load that died printed part of its buffers), with the build of the run
 * each came from, for the margin correction (placement/correction.h): a
 * window of the newest rows of each device, read by index, so the
 * correction costs the same after a year.
 * Not for a run's own rows (store_runs.c reads and writes those with the run). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

/* The distinct devices of run_alloc other than the host's "CPU" rows, one
 * index seek each (a recursive skip over run_alloc_device). */
static int alloc_devices(store *s, char ***out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, "WITH RECURSIVE d(device) AS (SELECT min(device) FROM run_alloc UNION ALL"
                         " SELECT (SELECT min(a.device) FROM run_alloc a WHERE a.device > d.device) FROM d"
                         " WHERE d.device IS NOT NULL) SELECT device FROM d WHERE device IS NOT NULL",
                      &st, err))
        return -1;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW)
        if (strcmp(store_col_text(st, 0), "CPU") != 0)
            lvd_strv_push(out, n, store_col_strdup(st, 0));
    store_finalize(st);
    if (rc != STORE_DONE) {
        lvd_strv_free(*out);
        *out = NULL;
        *n = 0;
        return store_fail(s, err, "cannot read allocation devices");
    }
    return 0;
}

/* Appends the rows of device (st: the statement of store_alloc_rows, its limit bound) to *out. */
static int device_rows(store_stmt *st, const char *device, lvd_alloc **out, size_t *n, size_t *cap)
{
    store_bind_text(st, 1, device);
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        *out = store_grow(*out, sizeof **out, *n, cap);
        lvd_alloc *a = &(*out)[(*n)++];
        store_col_copy(st, 0, a->device, sizeof a->device);
        int64_t *f[] = {&a->model, &a->kv, &a->compute, &a->pred_model, &a->pred_kv, &a->pred_compute};
        for (int k = 0; k < 6; k++)
            *f[k] = store_col_i64_or(st, 1 + k, -1);
        store_col_copy(st, 7, a->build, sizeof a->build);
    }
    store_reset(st);
    return rc == STORE_DONE ? 0 : -1;
}

int store_alloc_rows(store *s, size_t per_device, lvd_alloc **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    char **devs;
    size_t nd, cap = 0;
    if (alloc_devices(s, &devs, &nd, err))
        return -1;
    store_stmt *st;
    int rc = store_prepare(s, "SELECT a.device, a.model, a.kv, a.compute, a.pred_model, a.pred_kv,"
                              " a.pred_compute, r.build FROM run_alloc a JOIN runs r ON r.id = a.run_id"
                              " WHERE a.device = ?1 AND a.model IS NOT NULL AND a.pred_model IS NOT NULL"
                              " AND r.status = 'ok' ORDER BY a.run_id DESC LIMIT ?2", &st, err);
    if (rc == 0) {
        store_bind_i64(st, 2, (int64_t)per_device);
        for (size_t i = 0; i < nd && rc == 0; i++)
            if (device_rows(st, devs[i], out, n, &cap))
                rc = store_fail(s, err, "cannot read allocation rows");
        store_finalize(st);
    }
    lvd_strv_free(devs);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
