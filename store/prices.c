/* prices.c: the runs' process prices read back for the next night's first
 * invocations (see prices.h). The only SQL about invocation prices. */
#include "store/prices.h"

#include "store/store_internal.h"
#include "store/store_samples.h"

#include <stdlib.h>
#include <string.h>

int store_run_set_invocation(store *s, int64_t run_id, int64_t invocation, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "UPDATE runs SET invocation = ? WHERE id = ?", &st, err))
        return -1;
    store_bind_i64(st, 1, invocation);
    store_bind_i64(st, 2, run_id);
    return store_step_done(s, st, "cannot record the run's invocation", err);
}

void store_prices_free(store_prices *p)
{
    if (!p)
        return;
    free(p->session);
    free(p->v);
    memset(p, 0, sizeof *p);
}

/* The newest other session with ok bench runs of the arm: 0 with out->session
 * set or left NULL, -1 with err. */
static int last_session(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                        const char *not_session, store_prices *out, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s,
                      "SELECT session, MIN(started_at) FROM runs WHERE artifact = ? AND host = ? AND engine_id = ?"
                      " AND arm_key = ? AND status = 'ok' AND source = 'bench' AND invocation IS NOT NULL"
                      " AND session IS NOT NULL AND session <> ? GROUP BY session ORDER BY MAX(id) DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, engine_id);
    store_bind_text(st, 4, arm_key);
    store_bind_text(st, 5, not_session ? not_session : "");
    int rc = store_step(st), ret = 0;
    if (rc == STORE_ROW) {
        out->session = store_col_strdup(st, 0);
        out->started_at = store_col_i64(st, 1);
    } else if (rc != STORE_DONE) {
        ret = store_fail(s, err, "cannot read the last prices");
    }
    store_finalize(st);
    return ret;
}

static int test_asked(const char *test, const char *const *tests, size_t n_tests)
{
    for (size_t i = 0; test && i < n_tests; i++)
        if (!strcmp(tests[i], test))
            return 1;
    return 0;
}

/* The ns of the kept samples of every run of invocation (inv_st's ?1). */
static int invocation_kept_ns(store *s, store_stmt *inv_st, int64_t invocation, int64_t *out, lvd_err *err)
{
    *out = 0;
    store_bind_i64(inv_st, 1, invocation);
    int rc, ret = 0;
    while (!ret && (rc = store_step(inv_st)) == STORE_ROW) {
        store_sample_totals t;
        ret = store_samples_totals(s->path, store_col_text(inv_st, 0), store_col_int(inv_st, 1), &t, err);
        *out += t.kept_ns;
    }
    store_reset(inv_st);
    if (!ret && rc != STORE_DONE)
        ret = store_fail(s, err, "cannot read the last prices");
    return ret;
}

/* One row (a run and one of its tests) folded into out: a new run starts a
 * new price (the rows come ordered by run). The invocation's kept ns are
 * read once per run. */
static int fold_row(store *s, store_stmt *st, store_stmt *inv_st, const char *const *tests, size_t n_tests,
                    store_prices *out, size_t *cap, int64_t *run, lvd_err *err)
{
    int64_t id = store_col_i64(st, 0);
    store_price *p = out->n ? &out->v[out->n - 1] : NULL;
    if (!p || id != *run) {
        out->v = store_grow(out->v, sizeof *out->v, out->n, cap);
        p = memset(&out->v[out->n++], 0, sizeof *out->v);
        *run = id;
        p->invocation = store_col_i64(st, 1);
        int64_t kept;
        if (invocation_kept_ns(s, inv_st, p->invocation, &kept, err))
            return -1;
        double fixed = store_col_real(st, 5) - (double)kept / 1e6;
        p->fixed_ms = fixed > 0 ? fixed : 0;
    }
    if (!test_asked(store_col_text(st, 2), tests, n_tests))
        return 0;
    store_sample_totals t;
    if (store_samples_totals(s->path, store_col_text(st, 3), store_col_int(st, 4), &t, err))
        return -1;
    p->reps = t.n > p->reps ? t.n : p->reps;
    p->samples_ms += (double)t.ns_sum / 1e6;
    double longest = (double)t.ns_max / 1e6;
    p->longest_ms = longest > p->longest_ms ? longest : p->longest_ms;
    p->dropped += t.warmups;
    return 0;
}

int store_prices_last(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                      const char *not_session, const char *const *tests, size_t n_tests, store_prices *out,
                      lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (last_session(s, artifact, host, engine_id, arm_key, not_session, out, err))
        return -1;
    if (!out->session)
        return 0;
    store_stmt *st = NULL, *inv_st = NULL;
    if (store_prepare(s,
                      "SELECT r.id, r.invocation, x.test, x.samples, x.n_prompt + x.n_gen,"
                      " (SELECT SUM(q.wall_ms) FROM runs q WHERE q.invocation = r.invocation)"
                      " FROM runs r JOIN results x ON x.run_id = r.id"
                      " WHERE r.id IN (SELECT id FROM runs WHERE session = ?1 AND artifact = ?2 AND host = ?3"
                      "  AND engine_id = ?4 AND arm_key = ?5 AND status = 'ok' AND invocation IS NOT NULL"
                      "  ORDER BY id DESC LIMIT ?6)"
                      " ORDER BY r.id, x.id",
                      &st, err) ||
        store_prepare(s,
                      "SELECT x.samples, x.n_prompt + x.n_gen FROM runs q JOIN results x ON x.run_id = q.id"
                      " WHERE q.invocation = ?1",
                      &inv_st, err)) {
        store_finalize(st);
        return -1;
    }
    store_bind_text(st, 1, out->session);
    store_bind_text(st, 2, artifact);
    store_bind_text(st, 3, host);
    store_bind_i64(st, 4, engine_id);
    store_bind_text(st, 5, arm_key);
    store_bind_int(st, 6, STORE_PRICES_MAX_RUNS);
    size_t cap = 0;
    int64_t run = 0;
    int rc = STORE_DONE, ret = 0;
    while (!ret && (rc = store_step(st)) == STORE_ROW)
        ret = fold_row(s, st, inv_st, tests, n_tests, out, &cap, &run, err);
    if (!ret && rc != STORE_DONE)
        ret = store_fail(s, err, "cannot read the last prices");
    store_finalize(inv_st);
    store_finalize(st);
    if (ret)
        store_prices_free(out);
    return ret;
}
