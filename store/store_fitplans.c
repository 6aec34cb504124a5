/* store_fitplans.c: the plans llama.cpp's own fit chose (table fit_plans,
 * schema 8), beside ours. Not for running llama-fit-params (bench/fitarm.c)
 * nor for parsing what it printed (engine/fit.c). */
#include "store/store_cols.h"

#include <stdlib.h>
#include <string.h>

/* A fit plan's columns, in the order of the fit_plans table's INSERT and
 * SELECT: free memory not known (-1) is SQL NULL, no overrides (NULL) "". */
#define PLAN_COL(FIELD, KIND) STORE_COL(store_fit_plan, FIELD, KIND, #FIELD, STORE_COL_RW)
static const store_col plan_cols[] = {
    STORE_COL(store_fit_plan, id, STORE_COL_I64, "id", STORE_COL_R),
    PLAN_COL(artifact, STORE_COL_CHARS),
    PLAN_COL(engine_id, STORE_COL_I64),
    PLAN_COL(host, STORE_COL_TEXT),
    PLAN_COL(session, STORE_COL_TEXT),
    PLAN_COL(device, STORE_COL_CHARS),
    STORE_COL_OR(store_fit_plan, free_mib, STORE_COL_I64_NULL, "free_mib", STORE_COL_RW, -1),
    PLAN_COL(fit_target, STORE_COL_INT),
    PLAN_COL(fit_ctx, STORE_COL_INT),
    PLAN_COL(ctx, STORE_COL_I64),
    PLAN_COL(ngl, STORE_COL_INT),
    PLAN_COL(overrides, STORE_COL_TEXT_EMPTY),
    PLAN_COL(host_blocks, STORE_COL_INT),
    PLAN_COL(ours, STORE_COL_TEXT),
    PLAN_COL(created_at, STORE_COL_I64),
};
#define N_PLAN_COLS LVD_ARRAY_LEN(plan_cols)

int store_fit_plan_put(store *s, store_fit_plan *p, lvd_err *err)
{
    if (p->created_at == 0)
        p->created_at = lvd_now();
    store_stmt *st;
    if (store_cols_insert(s, "fit_plans", plan_cols, N_PLAN_COLS, p, &st, err))
        return -1;
    if (store_step_done(s, st, "cannot record a fit plan", err))
        return -1;
    p->id = store_last_id(s);
    return 0;
}

static void col_plan(store_stmt *st, void *item)
{
    store_fit_plan *p = item;
    memset(p, 0, sizeof *p);
    store_cols_read(st, 0, plan_cols, N_PLAN_COLS, p);
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
    if (store_cols_select(s, "fit_plans", plan_cols, N_PLAN_COLS,
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
