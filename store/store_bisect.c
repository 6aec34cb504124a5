/* store_bisect.c: the bisects and bisect_steps tables (store/bisectdb.h).
 * Not for deciding a step (bisect/classify.c). */
#include "store/bisectdb.h"
#include "store/store_cols.h"

#include <stdlib.h>
#include <string.h>

/* A hunt's columns, in the order of the bisects table's INSERT and SELECT:
 * no arm (NULL) is written ""; its end is written by store_bisect_finish. */
#define BISECT_COL(FIELD, KIND) STORE_COL(store_bisect, FIELD, KIND, #FIELD, STORE_COL_RW)
#define BISECT_END(FIELD, KIND) STORE_COL(store_bisect, FIELD, KIND, #FIELD, STORE_COL_R)
static const store_col bisect_cols[] = {
    BISECT_END(id, STORE_COL_I64),
    BISECT_COL(key, STORE_COL_TEXT),
    BISECT_COL(host, STORE_COL_TEXT),
    BISECT_COL(artifact, STORE_COL_TEXT),
    BISECT_COL(flavour, STORE_COL_TEXT),
    BISECT_COL(test, STORE_COL_TEXT),
    BISECT_COL(arm, STORE_COL_TEXT_EMPTY),
    BISECT_COL(good, STORE_COL_TEXT),
    BISECT_COL(bad, STORE_COL_TEXT),
    BISECT_COL(started_at, STORE_COL_I64),
    BISECT_END(finished_at, STORE_COL_I64),
    BISECT_END(last_good, STORE_COL_TEXT),
    BISECT_END(first_bad, STORE_COL_TEXT),
    BISECT_END(result_json, STORE_COL_TEXT),
};
#define N_BISECT_COLS LVD_ARRAY_LEN(bisect_cols)

/* A step's columns, in the order of the bisect_steps table's INSERT and
 * SELECT: its hunt bound by hand, no reason (NULL) written "", a ratio not
 * measured (NAN, or not finite) SQL NULL. */
#define STEP_COL(FIELD, KIND, NAME) STORE_COL(store_bisect_step, FIELD, KIND, NAME, STORE_COL_RW)
static const store_col step_cols[] = {
    {.name = "bisect_id", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    STEP_COL(build, STORE_COL_TEXT, "build"),
    STEP_COL(verdict, STORE_COL_TEXT, "verdict"),
    STEP_COL(reason, STORE_COL_TEXT_EMPTY, "reason"),
    STEP_COL(commit, STORE_COL_TEXT, "commit_id"),
    STEP_COL(session, STORE_COL_TEXT, "session"),
    STEP_COL(vs_good, STORE_COL_FINITE, "vs_good"),
    STEP_COL(vs_good_lo, STORE_COL_FINITE, "vs_good_lo"),
    STEP_COL(vs_good_hi, STORE_COL_FINITE, "vs_good_hi"),
    STEP_COL(vs_bad, STORE_COL_FINITE, "vs_bad"),
    STEP_COL(vs_bad_lo, STORE_COL_FINITE, "vs_bad_lo"),
    STEP_COL(vs_bad_hi, STORE_COL_FINITE, "vs_bad_hi"),
    STEP_COL(downloaded, STORE_COL_INT, "downloaded"),
    STEP_COL(at, STORE_COL_I64, "at"),
};
#define N_STEP_COLS LVD_ARRAY_LEN(step_cols)

int store_bisect_open(store *s, store_bisect *b, int *resumed, lvd_err *err)
{
    *resumed = 0;
    store_stmt *st;
    if (store_prepare(s, "SELECT id, started_at FROM bisects WHERE key = ?", &st, err))
        return -1;
    store_bind_text(st, 1, b->key);
    int rc = store_step(st);
    if (rc == STORE_ROW) {
        b->id = store_col_i64(st, 0);
        b->started_at = store_col_i64(st, 1);
        *resumed = 1;
    }
    store_finalize(st);
    if (rc == STORE_ROW)
        return 0;
    if (rc != STORE_DONE)
        return store_fail(s, err, "cannot read bisects");
    b->started_at = b->started_at ? b->started_at : lvd_now();
    if (store_cols_insert(s, "bisects", bisect_cols, N_BISECT_COLS, b, &st, err))
        return -1;
    if (store_step_done(s, st, "cannot record the bisect", err))
        return -1;
    b->id = store_last_id(s);
    return 0;
}

/* A step decided again replaces the first: deleted and inserted anew, so
 * that it lists after the steps decided before it (ORDER BY at, rowid). */
static int step_insert(store *s, int64_t id, const store_bisect_step *x, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "DELETE FROM bisect_steps WHERE bisect_id = ? AND build = ?", &st, err))
        return -1;
    store_bind_i64(st, 1, id);
    store_bind_text(st, 2, x->build);
    if (store_step_done(s, st, "cannot record a bisect step", err))
        return -1;
    store_bisect_step row = *x; /* borrowed */
    row.at = x->at ? x->at : lvd_now();
    if (store_cols_insert(s, "bisect_steps", step_cols, N_STEP_COLS, &row, &st, err))
        return -1;
    store_bind_i64(st, store_cols_at(step_cols, N_STEP_COLS, STORE_COL_W, 1, "bisect_id"), id);
    return store_step_done(s, st, "cannot record a bisect step", err);
}

int store_bisect_step_put(store *s, int64_t id, const store_bisect_step *x, lvd_err *err)
{
    if (store_begin(s, err))
        return -1;
    if (step_insert(s, id, x, err)) {
        store_rollback(s);
        return -1;
    }
    return store_commit(s, err);
}

static void col_step(store_stmt *st, void *item)
{
    store_bisect_step *x = item;
    memset(x, 0, sizeof *x);
    store_cols_read(st, 0, step_cols, N_STEP_COLS, x);
}

static void free_step(void *x)
{
    store_bisect_step_free(x);
}

int store_bisect_steps(store *s, int64_t id, store_bisect_step **v, size_t *n, lvd_err *err)
{
    *v = NULL;
    *n = 0;
    store_stmt *st;
    if (store_cols_select(s, "bisect_steps", step_cols, N_STEP_COLS, " WHERE bisect_id = ? ORDER BY at, rowid", &st,
                          err))
        return -1;
    store_bind_i64(st, 1, id);
    void *out;
    if (store_rows(s, st, sizeof **v, col_step, free_step, "cannot list bisect steps", &out, n, err))
        return -1;
    *v = out;
    return 0;
}

int store_bisect_finish(store *s, int64_t id, const char *last_good, const char *first_bad,
                        const char *result_json, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s,
                      "UPDATE bisects SET finished_at = ?, last_good = ?, first_bad = ?, result_json = ?"
                      " WHERE id = ?",
                      &st, err))
        return -1;
    store_bind_i64(st, 1, lvd_now());
    store_bind_text(st, 2, last_good);
    store_bind_text(st, 3, first_bad);
    store_bind_text(st, 4, result_json);
    store_bind_i64(st, 5, id);
    return store_step_done(s, st, "cannot finish the bisect", err);
}

int store_bisect_latest(store *s, store_bisect *b, lvd_err *err)
{
    memset(b, 0, sizeof *b);
    store_stmt *st;
    if (store_cols_select(s, "bisects", bisect_cols, N_BISECT_COLS,
                          " WHERE finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC LIMIT 1", &st, err))
        return -1;
    int rc = store_step(st);
    if (rc == STORE_ROW)
        store_cols_read(st, 0, bisect_cols, N_BISECT_COLS, b);
    store_finalize(st);
    if (rc == STORE_ROW)
        return 0;
    return rc == STORE_DONE ? 1 : store_fail(s, err, "cannot read bisects");
}

int store_engine_retire(store *s, int64_t id, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "UPDATE engines SET retired_at = ? WHERE id = ?", &st, err))
        return -1;
    store_bind_i64(st, 1, lvd_now());
    store_bind_i64(st, 2, id);
    return store_step_done(s, st, "cannot retire the engine", err);
}

void store_bisect_free(store_bisect *b)
{
    if (!b)
        return;
    char *f[] = {b->key, b->host, b->artifact, b->flavour, b->test, b->arm, b->good, b->bad,
                 b->last_good, b->first_bad, b->result_json};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        free(f[i]);
    memset(b, 0, sizeof *b);
}

void store_bisect_step_free(store_bisect_step *x)
{
    if (!x)
        return;
    free(x->build);
    free(x->verdict);
    free(x->reason);
    free(x->commit);
    free(x->session);
    memset(x, 0, sizeof *x);
}

void store_bisect_steps_free(store_bisect_step *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_bisect_step_free(&v[i]);
    free(v);
}
