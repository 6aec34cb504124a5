/* store_fitplans.c: the plans llama.cpp's own fit chose (table fit_plans,
 * schema 8), beside ours. Not for running llama-fit-params (bench/fitarm.c)
 * nor for parsing what it printed (engine/fit.c). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

int store_fit_plan_put(store *s, store_fit_plan *p, lvd_err *err)
{
    if (p->created_at == 0)
        p->created_at = lvd_now();
    store_stmt *st;
    if (store_prepare(s, "INSERT INTO fit_plans (artifact, engine_id, host, session, device, free_mib,"
                         " fit_target, fit_ctx, ctx, ngl, overrides, host_blocks, ours, created_at)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err))
        return -1;
    store_bind_text(st, 1, p->artifact);
    store_bind_i64(st, 2, p->engine_id);
    store_bind_text(st, 3, p->host);
    store_bind_text(st, 4, p->session);
    store_bind_text(st, 5, p->device);
    store_bind_i64_or_null(st, 6, p->free_mib, -1);
    store_bind_int(st, 7, p->fit_target);
    store_bind_int(st, 8, p->fit_ctx);
    store_bind_i64(st, 9, p->ctx);
    store_bind_int(st, 10, p->ngl);
    store_bind_text(st, 11, p->overrides ? p->overrides : "");
    store_bind_int(st, 12, p->host_blocks);
    store_bind_text(st, 13, p->ours);
    store_bind_i64(st, 14, p->created_at);
    if (store_step_done(s, st, "cannot record a fit plan", err))
        return -1;
    p->id = store_last_id(s);
    return 0;
}

static void col_plan(store_stmt *st, void *item)
{
    store_fit_plan *p = item;
    memset(p, 0, sizeof *p);
    p->id = store_col_i64(st, 0);
    store_col_copy(st, 1, p->artifact, sizeof p->artifact);
    p->engine_id = store_col_i64(st, 2);
    p->host = store_col_strdup(st, 3);
    p->session = store_col_strdup(st, 4);
    store_col_copy(st, 5, p->device, sizeof p->device);
    p->free_mib = store_col_i64_or(st, 6, -1);
    p->fit_target = store_col_int(st, 7);
    p->fit_ctx = store_col_int(st, 8);
    p->ctx = store_col_i64(st, 9);
    p->ngl = store_col_int(st, 10);
    p->overrides = store_col_strdup(st, 11);
    p->host_blocks = store_col_int(st, 12);
    p->ours = store_col_strdup(st, 13);
    p->created_at = store_col_i64(st, 14);
}

void store_fit_plan_free(store_fit_plan *p)
{
    free(p->host);
    free(p->session);
    free(p->overrides);
    free(p->ours);
    memset(p, 0, sizeof *p);
}

static void free_plan(void *p)
{
    store_fit_plan_free(p);
}

int store_fit_plan_list(store *s, const char *artifact, store_fit_plan **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, "SELECT id, artifact, engine_id, host, session, device, free_mib, fit_target,"
                         " fit_ctx, ctx, ngl, overrides, host_blocks, ours, created_at FROM fit_plans"
                         " WHERE CAST(?1 AS TEXT) IS NULL OR artifact = ?1 ORDER BY created_at, id", &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    void *v;
    if (store_rows(s, st, sizeof **out, col_plan, free_plan, "cannot list fit plans", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

void store_fit_plan_list_free(store_fit_plan *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_fit_plan_free(&v[i]);
    free(v);
}
