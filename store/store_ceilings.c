/* store_ceilings.c: the context ceilings lvd fit measured (fit/fit.h), one
 * row per search. Not for searching or for judging whether a ceiling is
 * still valid (fit_ceiling_fresh). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#define SELECT_CEILING                                                                        \
    "SELECT id, artifact, engine_id, engine_key, device, type_k, type_v, placement, ceiling," \
    " capped, max_ctx, predicted, free_mib, probes, host, measured_at FROM ceilings"

static void col_ceiling(store_stmt *st, void *item)
{
    store_ceiling *c = item;
    memset(c, 0, sizeof *c);
    c->id = store_col_i64(st, 0);
    store_col_copy(st, 1, c->artifact, sizeof c->artifact);
    c->engine_id = store_col_i64(st, 2);
    c->engine_key = store_col_strdup(st, 3);
    store_col_copy(st, 4, c->device, sizeof c->device);
    store_col_copy(st, 5, c->type_k, sizeof c->type_k);
    store_col_copy(st, 6, c->type_v, sizeof c->type_v);
    c->placement = store_col_strdup(st, 7);
    c->ceiling = store_col_i64(st, 8);
    c->capped = store_col_int(st, 9);
    c->max_ctx = store_col_i64(st, 10);
    c->predicted = store_col_i64_or(st, 11, -1);
    c->free_mib = store_col_i64_or(st, 12, -1);
    c->probes = store_col_int(st, 13);
    c->host = store_col_strdup(st, 14);
    c->measured_at = store_col_i64(st, 15);
}

int store_ceiling_put(store *s, store_ceiling *c, lvd_err *err)
{
    if (c->measured_at == 0)
        c->measured_at = lvd_now();
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO ceilings (artifact, engine_id, engine_key, device, type_k, type_v,"
                      " placement, ceiling, capped, max_ctx, predicted, free_mib, probes, host, measured_at)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    store_bind_text(st, 1, c->artifact);
    store_bind_i64(st, 2, c->engine_id);
    store_bind_text(st, 3, c->engine_key ? c->engine_key : "");
    store_bind_text(st, 4, c->device);
    store_bind_text(st, 5, c->type_k);
    store_bind_text(st, 6, c->type_v);
    store_bind_text(st, 7, c->placement ? c->placement : "");
    store_bind_i64(st, 8, c->ceiling);
    store_bind_int(st, 9, c->capped ? 1 : 0);
    store_bind_i64(st, 10, c->max_ctx);
    store_bind_i64_or_null(st, 11, c->predicted, -1);
    store_bind_i64_or_null(st, 12, c->free_mib, -1);
    store_bind_int(st, 13, c->probes);
    store_bind_text(st, 14, c->host);
    store_bind_i64(st, 15, c->measured_at);
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
    if (store_prepare(s,
                      SELECT_CEILING " WHERE artifact = ? AND host = ? AND engine_id = ? AND device = ?"
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
    if (store_prepare(s,
                      SELECT_CEILING " WHERE id IN (SELECT max(id) FROM ceilings WHERE artifact = ?1 AND host = ?2"
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
