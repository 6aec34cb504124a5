/* store_ceilings.c: the context ceilings lvd fit measured (fit/fit.h), one
 * row per search. Not for searching or for judging whether a ceiling is
 * still valid (fit_ceiling_fresh). */
#include "store/store_cols.h"

#include <stdlib.h>
#include <string.h>

/* A ceiling's columns, in the order of the ceilings table's INSERT and
 * SELECT: an engine key or placement not given is written "", a predicted
 * context or free memory not known (-1) SQL NULL. */
#define CEILING_COL(FIELD, KIND) STORE_COL(store_ceiling, FIELD, KIND, #FIELD, STORE_COL_RW)
#define CEILING_OR(FIELD) STORE_COL_OR(store_ceiling, FIELD, STORE_COL_I64_NULL, #FIELD, STORE_COL_RW, -1)
static const store_col ceiling_cols[] = {
    STORE_COL(store_ceiling, id, STORE_COL_I64, "id", STORE_COL_R),
    CEILING_COL(artifact, STORE_COL_CHARS),
    CEILING_COL(engine_id, STORE_COL_I64),
    CEILING_COL(engine_key, STORE_COL_TEXT_EMPTY),
    CEILING_COL(device, STORE_COL_CHARS),
    CEILING_COL(type_k, STORE_COL_CHARS),
    CEILING_COL(type_v, STORE_COL_CHARS),
    CEILING_COL(placement, STORE_COL_TEXT_EMPTY),
    CEILING_COL(ceiling, STORE_COL_I64),
    CEILING_COL(capped, STORE_COL_INT),
    CEILING_COL(max_ctx, STORE_COL_I64),
    CEILING_OR(predicted),
    CEILING_OR(free_mib),
    CEILING_COL(probes, STORE_COL_INT),
    CEILING_COL(host, STORE_COL_TEXT),
    CEILING_COL(measured_at, STORE_COL_I64),
};
#define N_CEILING_COLS LVD_ARRAY_LEN(ceiling_cols)

static void col_ceiling(store_stmt *st, void *item)
{
    store_ceiling *c = item;
    memset(c, 0, sizeof *c);
    store_cols_read(st, 0, ceiling_cols, N_CEILING_COLS, c);
}

int store_ceiling_put(store *s, store_ceiling *c, lvd_err *err)
{
    if (c->measured_at == 0)
        c->measured_at = lvd_now();
    store_ceiling row = *c; /* borrowed */
    row.capped = c->capped ? 1 : 0;
    store_stmt *st;
    if (store_cols_insert(s, "ceilings", ceiling_cols, N_CEILING_COLS, &row, &st, err))
        return -1;
    if (store_step_done(s, st, "cannot record context ceiling", err))
        return -1;
    c->id = store_last_id(s);
    return 0;
}

int store_ceiling_latest(store *s, const char *artifact, const char *host, int64_t engine_id,
                         const char *device, const char *type_k, const char *type_v,
                         store_ceiling *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_cols_select(s, "ceilings", ceiling_cols, N_CEILING_COLS,
                          " WHERE artifact = ? AND host = ? AND engine_id = ? AND device = ?"
                          " AND type_k = ? AND type_v = ? ORDER BY id DESC LIMIT 1",
                          &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, engine_id);
    store_bind_text(st, 4, device);
    store_bind_text(st, 5, type_k);
    store_bind_text(st, 6, type_v);
    int rc = store_step(st), ret = 1;
    if (rc == STORE_ROW) {
        col_ceiling(st, out);
        ret = 0;
    } else if (rc != STORE_DONE) {
        ret = store_fail(s, err, "cannot read context ceiling");
    }
    store_finalize(st);
    return ret;
}

static void free_ceiling(void *c)
{
    store_ceiling_free(c);
}

int store_ceiling_list(store *s, const char *artifact, const char *host, store_ceiling **out, size_t *n,
                       lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_cols_select(s, "ceilings", ceiling_cols, N_CEILING_COLS,
                          " WHERE id IN (SELECT max(id) FROM ceilings WHERE artifact = ?1 AND host = ?2"
                          " GROUP BY engine_id, device, type_k, type_v)"
                          " ORDER BY engine_id, device, type_k, type_v",
                          &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    void *v;
    if (store_rows(s, st, sizeof **out, col_ceiling, free_ceiling, "cannot list context ceilings", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

void store_ceiling_free(store_ceiling *c)
{
    if (!c)
        return;
    free(c->engine_key);
    free(c->placement);
    free(c->host);
    memset(c, 0, sizeof *c);
}

void store_ceiling_list_free(store_ceiling *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_ceiling_free(&v[i]);
    free(v);
}
