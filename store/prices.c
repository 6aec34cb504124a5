/* prices.c: the runs' process prices read back for the next night's first
 * invocations (see prices.h). The only SQL about invocation prices. */
#include "store/prices.h"

#include "store/store_internal.h"

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

/* One row (a run and one of its tests) folded into out: a new run starts a
 * new price (the rows come ordered by run). */
static void fold_row(store_stmt *st, const char *const *tests, size_t n_tests, store_prices *out, size_t *cap,
                     int64_t *run)
{
    int64_t id = store_col_i64(st, 0);
    if (!out->n || id != *run) {
        out->v = store_grow(out->v, sizeof *out->v, out->n, cap);
        memset(&out->v[out->n++], 0, sizeof *out->v);
        *run = id;
    }
    store_price *p = &out->v[out->n - 1];
    p->invocation = store_col_i64(st, 1);
    double fixed = store_col_real(st, 7) - (double)store_col_i64(st, 8) / 1e6;
    p->fixed_ms = fixed > 0 ? fixed : 0;
    if (test_asked(store_col_text(st, 2), tests, n_tests)) {
        int n = store_col_int(st, 3);
        p->reps = n > p->reps ? n : p->reps;
        p->samples_ms += (double)store_col_i64(st, 4) / 1e6;
        double longest = (double)store_col_i64(st, 5) / 1e6;
        p->longest_ms = longest > p->longest_ms ? longest : p->longest_ms;
        p->dropped += store_col_int(st, 6);
    }
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
    store_stmt *st;
    if (store_prepare(s,
                      "SELECT r.id, r.invocation, x.test, COUNT(m.idx), COALESCE(SUM(m.ns), 0), COALESCE(MAX(m.ns), 0),"
                      " COALESCE(SUM(m.warmup), 0),"
                      " (SELECT SUM(q.wall_ms) FROM runs q WHERE q.invocation = r.invocation),"
                      " (SELECT COALESCE(SUM(k.ns), 0) FROM runs q JOIN results y ON y.run_id = q.id"
                      "  JOIN samples k ON k.result_id = y.id WHERE q.invocation = r.invocation"
                      "  AND k.warmup = 0 AND k.ts > 0)"
                      " FROM runs r JOIN results x ON x.run_id = r.id LEFT JOIN samples m ON m.result_id = x.id"
                      " WHERE r.id IN (SELECT id FROM runs WHERE session = ? AND artifact = ? AND host = ?"
                      "  AND engine_id = ? AND arm_key = ? AND status = 'ok' AND invocation IS NOT NULL"
                      "  ORDER BY id DESC LIMIT ?)"
                      " GROUP BY r.id, r.invocation, x.id, x.test ORDER BY r.id, x.id",
                      &st, err))
        return -1;
    store_bind_text(st, 1, out->session);
    store_bind_text(st, 2, artifact);
    store_bind_text(st, 3, host);
    store_bind_i64(st, 4, engine_id);
    store_bind_text(st, 5, arm_key);
    store_bind_int(st, 6, STORE_PRICES_MAX_RUNS);
    size_t cap = 0;
    int64_t run = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW)
        fold_row(st, tests, n_tests, out, &cap, &run);
    int ret = rc == STORE_DONE ? 0 : store_fail(s, err, "cannot read the last prices");
    store_finalize(st);
    if (ret)
        store_prices_free(out);
    return ret;
}
