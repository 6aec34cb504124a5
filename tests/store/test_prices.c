/* test_prices.c: store/prices.h on hand-made runs: the newest other session
 * of an arm is the one priced (the current session and other arms' sessions
 * left out), a shared process's runs are priced as one process (its fixed
 * cost is the sum over all its runs, other arms' included), warm-up samples
 * are not kept, and failed or imported runs (no invocation) are not read. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/prices.h"

typedef tu_session fx;

/* Records one ok run of arm_key in session: wall_ms, one tg128 result of
 * samples of ns_ms each (the first dropped as warm-up when warm), marked as
 * coming from process `invocation` (0: its own first run). Returns its id. */
static int64_t put_run(fx *f, size_t e, const char *session, const char *arm_key, int64_t wall_ms, int n,
                       double ns_ms, int warm, int64_t invocation, const char *status)
{
    lvd_run run;
    memset(&run, 0, sizeof run);
    snprintf(run.artifact, sizeof run.artifact, "%s", f->art.sha256);
    run.engine_id = f->e[e].id;
    run.binary = lvd_xstrdup("/x/llama-bench");
    run.build = lvd_xstrdup("b9749");
    run.host = lvd_xstrdup("h");
    run.session = lvd_xstrdup(session);
    lvd_params_init(&run.params);
    run.arm_key = lvd_xstrdup(arm_key);
    snprintf(run.status, sizeof run.status, "%s", status);
    snprintf(run.source, sizeof run.source, "bench");
    run.started_at = 1764547200;
    run.wall_ms = wall_ms;
    run.results = lvd_xcalloc(1, sizeof *run.results);
    run.n_results = 1;
    lvd_result *r = &run.results[0];
    snprintf(r->test, sizeof r->test, "tg128");
    r->n_gen = 128;
    r->n = (size_t)n;
    r->ns = lvd_xcalloc((size_t)n, sizeof *r->ns);
    r->ts = lvd_xcalloc((size_t)n, sizeof *r->ts);
    r->warmup = lvd_xcalloc((size_t)n, 1);
    for (int i = 0; i < n; i++) {
        r->ns[i] = (int64_t)(ns_ms * 1e6);
        r->ts[i] = 100;
        r->warmup[i] = warm && i == 0;
    }
    lvd_err err = {0};
    if (store_run_put(f->s, &run, &err))
        fail_msg("%s", err.msg);
    int64_t id = run.id;
    if (store_run_set_invocation(f->s, id, invocation ? invocation : id, &err))
        fail_msg("%s", err.msg);
    lvd_run_free(&run);
    return id;
}

static void test_prices_last(void **state)
{
    fx *f = *state;
    size_t e = tu_session_engine(f, "a", 0, "cpu.tg = 100\n");
    const char *tests[] = {"tg128"};
    /* night 1: a shared process of arms k1 and k2 (2 runs each), 2 s load */
    int64_t p1 = put_run(f, e, "n1", "k1", 1500, 4, 100, 1, 0, "ok");
    put_run(f, e, "n1", "k1", 1400, 4, 100, 0, p1, "ok");
    put_run(f, e, "n1", "k2", 1450, 4, 100, 1, p1, "ok");
    put_run(f, e, "n1", "k2", 1350, 4, 100, 0, p1, "ok");
    /* night 2: k1 alone, twice (one failed), and an imported-looking run */
    put_run(f, e, "n2", "k1", 3000, 5, 200, 0, 0, "ok");
    put_run(f, e, "n2", "k1", 900, 0, 0, 0, 0, "failed");
    /* tonight's session: never priced from */
    put_run(f, e, "now", "k1", 99000, 3, 100, 0, 0, "ok");
    store_prices p;
    lvd_err err = {0};
    assert_int_equal(store_prices_last(f->s, f->art.sha256, "h", f->e[e].id, "k1", "now", tests, 1, &p, &err), 0);
    assert_string_equal(p.session, "n2");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].reps, 5);
    assert_true(fabs(p.v[0].samples_ms - 1000) < 1e-6);
    assert_true(fabs(p.v[0].fixed_ms - 2000) < 1e-6); /* 3000 - 5 x 200 */
    assert_true(fabs(p.v[0].longest_ms - 200) < 1e-6);
    store_prices_free(&p);
    /* k2's newest is night 1: its process's fixed cost is the whole
     * process's: 5700 ms of wall less the 14 kept 100 ms samples */
    assert_int_equal(store_prices_last(f->s, f->art.sha256, "h", f->e[e].id, "k2", "now", tests, 1, &p, &err), 0);
    assert_string_equal(p.session, "n1");
    assert_int_equal(p.n, 2);
    for (size_t i = 0; i < p.n; i++) {
        assert_int_equal(p.v[i].invocation, p1);
        assert_true(fabs(p.v[i].fixed_ms - (5700 - 1400)) < 1e-6);
    }
    assert_int_equal(p.v[0].dropped + p.v[1].dropped, 1);
    store_prices_free(&p);
    /* a test not asked is not counted; another host has no prices */
    const char *other[] = {"pp512"};
    assert_int_equal(store_prices_last(f->s, f->art.sha256, "h", f->e[e].id, "k1", "now", other, 1, &p, &err), 0);
    assert_int_equal(p.v[0].reps, 0);
    store_prices_free(&p);
    assert_int_equal(store_prices_last(f->s, f->art.sha256, "elsewhere", f->e[e].id, "k1", NULL, tests, 1, &p, &err), 0);
    assert_null(p.session);
    store_prices_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prices_last, tu_session_setup, tu_session_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
