/* store_bisect.c: the bisects and bisect_steps tables (store/bisectdb.h).
 * Not for deciding a step (bisect/classify.c). */
#include "store/bisectdb.h"
#include "store/store_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void bind_real(store_stmt *st, int idx, double v)
{
    if (isfinite(v))
        store_bind_double(st, idx, v);
    else
        store_bind_null(st, idx);
}

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
    if (store_prepare(s,
                      "INSERT INTO bisects (key, host, artifact, flavour, test, arm, good, bad, started_at)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    const char *v[] = {b->key, b->host, b->artifact, b->flavour, b->test, b->arm ? b->arm : "",
                       b->good, b->bad};
    for (int i = 0; i < 8; i++)
        store_bind_text(st, i + 1, v[i]);
    b->started_at = b->started_at ? b->started_at : lvd_now();
    store_bind_i64(st, 9, b->started_at);
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
    if (store_prepare(s,
                      "INSERT INTO bisect_steps (bisect_id, build, verdict, reason, commit_id,"
                      " session, vs_good, vs_good_lo, vs_good_hi, vs_bad, vs_bad_lo, vs_bad_hi,"
                      " downloaded, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    store_bind_i64(st, 1, id);
    store_bind_text(st, 2, x->build);
    store_bind_text(st, 3, x->verdict);
    store_bind_text(st, 4, x->reason ? x->reason : "");
    store_bind_text(st, 5, x->commit);
    store_bind_text(st, 6, x->session);
    const double r[] = {x->vs_good, x->vs_good_lo, x->vs_good_hi, x->vs_bad, x->vs_bad_lo, x->vs_bad_hi};
    for (int i = 0; i < 6; i++)
        bind_real(st, 7 + i, r[i]);
    store_bind_int(st, 13, x->downloaded);
    store_bind_i64(st, 14, x->at ? x->at : lvd_now());
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
    x->build = store_col_strdup(st, 0);
    x->verdict = store_col_strdup(st, 1);
    x->reason = store_col_strdup(st, 2);
    x->commit = store_col_strdup(st, 3);
    x->session = store_col_strdup(st, 4);
    double *r[] = {&x->vs_good, &x->vs_good_lo, &x->vs_good_hi, &x->vs_bad, &x->vs_bad_lo, &x->vs_bad_hi};
    for (int i = 0; i < 6; i++)
        *r[i] = store_col_double(st, 5 + i);
    x->downloaded = store_col_int(st, 11);
    x->at = store_col_i64(st, 12);
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
    if (store_prepare(s,
                      "SELECT build, verdict, reason, commit_id, session, vs_good, vs_good_lo, vs_good_hi,"
                      " vs_bad, vs_bad_lo, vs_bad_hi, downloaded, at FROM bisect_steps"
                      " WHERE bisect_id = ? ORDER BY at, rowid",
                      &st, err))
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
    if (store_prepare(s,
                      "SELECT id, key, host, artifact, flavour, test, arm, good, bad, started_at,"
                      " finished_at, last_good, first_bad, result_json FROM bisects"
                      " WHERE finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC LIMIT 1",
                      &st, err))
        return -1;
    int rc = store_step(st);
    if (rc == STORE_ROW) {
        b->id = store_col_i64(st, 0);
        char **f[] = {&b->key, &b->host, &b->artifact, &b->flavour, &b->test, &b->arm, &b->good, &b->bad};
        for (int i = 0; i < 8; i++)
            *f[i] = store_col_strdup(st, 1 + i);
        b->started_at = store_col_i64(st, 9);
        b->finished_at = store_col_i64(st, 10);
        b->last_good = store_col_strdup(st, 11);
        b->first_bad = store_col_strdup(st, 12);
        b->result_json = store_col_strdup(st, 13);
    }
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
