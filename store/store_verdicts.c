/* store_verdicts.c: the decisions per (artifact, host, objective), kept as a
 * history. Not for deciding them (select/). */
#include "store/store_cols.h"
#include "store/store_docs.h"

#include <stdlib.h>
#include <string.h>

/* A verdict's columns, in the order of the verdicts table's INSERT and
 * SELECT: the engines' fingerprint is written as the id of its row
 * (fingerprint_id, bound by hand) and read back as its text. */
#define VERDICT_COL(FIELD, KIND, NAME) STORE_COL(lvd_verdict, FIELD, KIND, NAME, STORE_COL_RW)
static const store_col verdict_cols[] = {
    STORE_COL(lvd_verdict, id, STORE_COL_I64, "id", STORE_COL_R),
    VERDICT_COL(artifact, STORE_COL_CHARS, "artifact"),
    VERDICT_COL(host, STORE_COL_TEXT, "host"),
    VERDICT_COL(decided_at, STORE_COL_I64, "decided_at"),
    VERDICT_COL(objective, STORE_COL_TEXT, "objective"),
    {.name = "engine_id", .kind = STORE_COL_I64_NULL, .off = offsetof(lvd_verdict, engine_id),
     .use = STORE_COL_RW, .nul = 0}, /* 0: no winner */
    VERDICT_COL(arm_key, STORE_COL_TEXT, "arm_key"),
    VERDICT_COL(params, STORE_COL_PARAMS,
                "p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, p_threads, p_env"),
    VERDICT_COL(rule, STORE_COL_TEXT, "rule"),
    VERDICT_COL(explain, STORE_COL_TEXT, "explain"),
    {.name = "fingerprint_id", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    {.name = "fingerprint", .read = STORE_FINGERPRINT_SQL, .kind = STORE_COL_TEXT,
     .off = offsetof(lvd_verdict, fingerprint), .use = STORE_COL_R},
    VERDICT_COL(stats_json, STORE_COL_DOC, "stats_json"),
    VERDICT_COL(params, STORE_COL_SPLIT, "p_split_mode, p_tensor_split"),
    VERDICT_COL(params, STORE_COL_FIT, "p_fit_target, p_fit_ctx"),
    {.name = "serving_depth", .kind = STORE_COL_INT_NULL, .off = offsetof(lvd_verdict, depth),
     .use = STORE_COL_RW, .nul = -1}, /* -1: not recorded */
    VERDICT_COL(params, STORE_COL_PARALLEL, "p_parallel"),
    STORE_COL_KNOBS(lvd_verdict),
};
#define N_VERDICT_COLS LVD_ARRAY_LEN(verdict_cols)

/* Prepares "SELECT <a verdict's columns> FROM verdicts" then tail; without
 * stats, its statistics are read as NULL (a warm lvd select needs none). */
static int prepare_select(store *s, int stats, const char *tail, store_stmt **st, lvd_err *err)
{
    store_col cols[N_VERDICT_COLS];
    memcpy(cols, verdict_cols, sizeof cols);
    for (size_t i = 0; i < N_VERDICT_COLS && !stats; i++)
        if (cols[i].kind == STORE_COL_DOC)
            cols[i].read = "NULL";
    return store_cols_select(s, "verdicts", cols, N_VERDICT_COLS, tail, st, err);
}

static void col_verdict(store_stmt *st, void *item)
{
    lvd_verdict *v = item;
    memset(v, 0, sizeof *v);
    store_cols_read(st, 0, verdict_cols, N_VERDICT_COLS, v);
}

int store_verdict_put(store *s, lvd_verdict *v, lvd_err *err)
{
    if (v->decided_at == 0)
        v->decided_at = lvd_now();
    int64_t fingerprint;
    if (store_fingerprint_id(s, v->fingerprint, &fingerprint, err))
        return -1;
    store_stmt *st;
    if (store_cols_insert(s, "verdicts", verdict_cols, N_VERDICT_COLS, v, &st, err))
        return -1;
    store_bind_i64_or_null(st, store_cols_at(verdict_cols, N_VERDICT_COLS, STORE_COL_W, 1, "fingerprint_id"),
                           fingerprint, 0);
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
    if (prepare_select(s, 0,
                       " WHERE artifact = ? AND host = ? AND objective = ?"
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
    if (prepare_select(s, 1, " WHERE artifact = ? AND host = ? ORDER BY decided_at DESC, id DESC LIMIT ?", &st,
                       err))
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
