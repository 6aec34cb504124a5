/* store_verdicts.c: the decisions per (artifact, host, objective), kept as a
 * history. Not for deciding them (select/). */
#include "store/store_docs.h"

#include <stdlib.h>
#include <string.h>

/* The columns of a verdict, its statistics (stats_json) as STATS: the
 * column, or NULL where they are not read. */
#define SELECT_VERDICT_WITH(STATS)                                                        \
    "SELECT id, artifact, host, decided_at, objective, engine_id, arm_key,"                \
    " p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, p_threads, p_env," \
    " rule, explain, " STORE_FINGERPRINT_SQL ", " STATS ", p_split_mode, p_tensor_split, p_fit_target," \
    " p_fit_ctx, serving_depth, p_parallel FROM verdicts"
#define SELECT_VERDICT SELECT_VERDICT_WITH("stats_json")

static void col_verdict(store_stmt *st, void *item)
{
    lvd_verdict *v = item;
    memset(v, 0, sizeof *v);
    v->id = store_col_i64(st, 0);
    store_col_copy(st, 1, v->artifact, sizeof v->artifact);
    v->host = store_col_strdup(st, 2);
    v->decided_at = store_col_i64(st, 3);
    v->objective = store_col_strdup(st, 4);
    v->engine_id = store_col_i64_or(st, 5, 0);
    v->arm_key = store_col_strdup(st, 6);
    store_col_params(st, 7, &v->params);
    store_col_split(st, 20, &v->params);
    v->rule = store_col_strdup(st, 16);
    v->explain = store_col_strdup(st, 17);
    v->fingerprint = store_col_strdup(st, 18);
    v->stats_json = store_col_doc(st, 19);
    store_col_fit(st, 22, &v->params);
    v->depth = (int)store_col_i64_or(st, 24, -1);
    store_col_parallel(st, 25, &v->params);
}

int store_verdict_put(store *s, lvd_verdict *v, lvd_err *err)
{
    if (v->decided_at == 0)
        v->decided_at = lvd_now();
    int64_t fingerprint;
    if (store_fingerprint_id(s, v->fingerprint, &fingerprint, err))
        return -1;
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO verdicts (artifact, host, decided_at, objective, engine_id, arm_key,"
                      " p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, p_threads, p_env,"
                      " rule, explain, fingerprint_id, stats_json, p_split_mode, p_tensor_split, p_fit_target, p_fit_ctx,"
                      " serving_depth, p_parallel)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    store_bind_text(st, 1, v->artifact);
    store_bind_text(st, 2, v->host);
    store_bind_i64(st, 3, v->decided_at);
    store_bind_text(st, 4, v->objective);
    store_bind_i64_or_null(st, 5, v->engine_id, 0); /* 0: no winner */
    store_bind_text(st, 6, v->arm_key);
    store_bind_params(st, 7, &v->params);
    store_bind_text(st, 16, v->rule);
    store_bind_text(st, 17, v->explain);
    store_bind_i64_or_null(st, 18, fingerprint, 0);
    store_bind_doc(st, 19, v->stats_json);
    store_bind_split(st, 20, &v->params);
    store_bind_fit(st, 22, &v->params);
    store_bind_i64_or_null(st, 24, v->depth, -1);
    store_bind_parallel(st, 25, &v->params);
    if (store_step_done(s, st, "cannot record verdict", err))
        return -1;
    v->id = store_last_id(s);
    return 0;
}

static void free_verdict(void *v)
{
    lvd_verdict_free(v);
}

/* Reads every row of a verdict query (parameters bound) into a list. */
static int verdict_rows(store *s, store_stmt *st, lvd_verdict **out, size_t *n, lvd_err *err)
{
    void *v;
    if (store_rows(s, st, sizeof **out, col_verdict, free_verdict, "cannot read verdicts", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

int store_verdict_latest(store *s, const char *artifact, const char *host,
                         const char *objective, lvd_verdict *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_prepare(s,
                      SELECT_VERDICT_WITH("NULL") " WHERE artifact = ? AND host = ? AND objective = ?"
                      " ORDER BY decided_at DESC, id DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_text(st, 3, objective);
    lvd_verdict *v;
    size_t n;
    if (verdict_rows(s, st, &v, &n, err))
        return -1;
    if (n == 0) {
        free(v);
        return 1;
    }
    *out = v[0];
    free(v);
    return 0;
}

int store_verdict_list(store *s, const char *artifact, const char *host, int limit,
                       lvd_verdict **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s,
                      SELECT_VERDICT " WHERE artifact = ? AND host = ?"
                      " ORDER BY decided_at DESC, id DESC LIMIT ?",
                      &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, limit > 0 ? limit : INT64_MAX); /* no LIMIT -1: PostgreSQL refuses it */
    return verdict_rows(s, st, out, n, err);
}

void store_verdict_list_free(lvd_verdict *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvd_verdict_free(&v[i]);
    free(v);
}
