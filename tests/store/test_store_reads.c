/* test_store_reads.c: the bounded reads (a reading command's cost
 * is what it shows, not the history behind it): each arm's newest session
 * (store_newest.h) and an armset read from it (select/armset.h; with and
 * without samples), the night window and the evidence page's window read
 * once, the
 * newest-per-device window of allocation rows, the newest pin decision
 * between two builds, and the indexes migration 13 adds, used
 * by those queries. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "evidence/window.h"
#include "placement/correction.h"
#include "select/armset.h"
#include "store/store.h"
#include "store/store_newest.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define HOST "box"

typedef tu_storefx fx;


static void add_artifacts(store *s)
{
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 1}, b = {.sha256 = SHA_B, .size = 1};
    assert_int_equal(store_artifact_put(s, &a, &err), 0);
    assert_int_equal(store_artifact_put(s, &b, &err), 0);
}

/* Records one ok run of arm on engine eid in session (NULL: none) at
 * started, with one tg128 result of two samples of speed ts; its id. */
static int64_t put_run(store *s, const char *sha, int64_t eid, const char *arm, const char *session,
                       int64_t started, double ts)
{
    lvd_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.artifact, sizeof r.artifact, "%s", sha);
    r.engine_id = eid;
    r.binary = lvd_xstrdup("/e/llama-bench");
    r.build = lvd_xstrdup("b9749");
    r.host = lvd_xstrdup(HOST);
    r.session = session ? lvd_xstrdup(session) : NULL;
    lvd_params_init(&r.params);
    r.arm_key = lvd_xstrdup(arm);
    strcpy(r.status, "ok");
    r.started_at = started;
    strcpy(r.source, "bench");
    r.n_results = 1;
    r.results = lvd_xcalloc(1, sizeof *r.results);
    lvd_result *x = &r.results[0];
    strcpy(x->test, "tg128");
    x->n_gen = 128;
    x->n = 2;
    x->ts = lvd_xcalloc(2, sizeof *x->ts);
    x->ts[0] = x->ts[1] = ts;
    lvd_err err = {0};
    if (store_run_put(s, &r, &err))
        fail_msg("%s", err.msg);
    int64_t id = r.id;
    lvd_run_free(&r);
    return id;
}

static const char *session_of(const store_arm_session *v, size_t n, const char *sha, int64_t eid, const char *arm)
{
    const store_arm_session *a = store_arm_session_find(v, n, sha, eid, arm);
    assert_non_null(a);
    return a->session ? a->session : "(none)";
}

/* --- each arm's newest session ---------------------------------------------- */

static void test_newest_sessions(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    add_artifacts(f->s);
    int64_t e1 = tu_engine_put(f->s, "one", NULL), e2 = tu_engine_put(f->s, "two", NULL);
    put_run(f->s, SHA_A, e1, "fa=1", "night-1", 100, 10);
    put_run(f->s, SHA_A, e1, "fa=1", "night-2", 200, 11);
    put_run(f->s, SHA_A, e1, "fa=1", "bisect-x", 300, 12);  /* a hunt's: not the arm's newest */
    put_run(f->s, SHA_A, e1, "fa=0", "night-1", 150, 13);
    put_run(f->s, SHA_A, e2, "fa=1", "night-3", 400, 14);
    put_run(f->s, SHA_A, e2, "fa=1", "night-4", 400, 15);   /* a tie on start: the higher id */
    put_run(f->s, SHA_B, e1, "fa=1", NULL, 500, 16);        /* no session */
    put_run(f->s, SHA_B, e2, "fa=9", "bisect-y", 600, 17);  /* only a hunt's runs: no arm */
    store_arm_session *v;
    size_t n;
    assert_int_equal(store_arm_newest_sessions(f->s, NULL, HOST, 0, NULL, &v, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(session_of(v, n, SHA_A, e1, "fa=1"), "night-2");
    assert_string_equal(session_of(v, n, SHA_A, e1, "fa=0"), "night-1");
    assert_string_equal(session_of(v, n, SHA_A, e2, "fa=1"), "night-4");
    assert_string_equal(session_of(v, n, SHA_B, e1, "fa=1"), "(none)");
    assert_null(store_arm_session_find(v, n, SHA_B, e2, "fa=9"));
    for (size_t i = 1; i < n; i++) /* ordered for the lookup */
        assert_true(strcmp(v[i - 1].artifact, v[i].artifact) < 0 ||
                    (!strcmp(v[i - 1].artifact, v[i].artifact) && v[i - 1].engine_id <= v[i].engine_id));
    store_arm_sessions_free(v, n);
    /* each filter narrows it */
    assert_int_equal(store_arm_newest_sessions(f->s, SHA_A, HOST, e1, NULL, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    store_arm_sessions_free(v, n);
    assert_int_equal(store_arm_newest_sessions(f->s, SHA_A, HOST, e1, "fa=0", &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(v[0].session, "night-1");
    store_arm_sessions_free(v, n);
    /* one arm named whole (lvd select's read): the newest past a hunt's, a tie to the higher id */
    assert_int_equal(store_arm_newest_sessions(f->s, SHA_A, HOST, e1, "fa=1", &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(v[0].session, "night-2");
    store_arm_sessions_free(v, n);
    assert_int_equal(store_arm_newest_sessions(f->s, SHA_A, HOST, e2, "fa=1", &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(v[0].session, "night-4");
    store_arm_sessions_free(v, n);
    assert_int_equal(store_arm_newest_sessions(f->s, SHA_B, HOST, e2, "fa=9", &v, &n, &err), 0);
    assert_int_equal(n, 0); /* only a hunt's runs */
    store_arm_sessions_free(v, n);
    assert_int_equal(store_arm_newest_sessions(f->s, SHA_A, HOST, e1, "fa=7", &v, &n, &err), 0);
    assert_int_equal(n, 0);
    store_arm_sessions_free(v, n);
    assert_int_equal(store_arm_newest_sessions(f->s, NULL, "other-host", 0, NULL, &v, &n, &err), 0);
    assert_int_equal(n, 0);
    store_arm_sessions_free(v, n);
}

/* sel_armset_load reads each arm's newest session, and from a session that
 * is one arm's newest only that arm's runs (not another arm's older ones). */
static void test_armset_newest(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    add_artifacts(f->s);
    int64_t e1 = tu_engine_put(f->s, "one", NULL);
    put_run(f->s, SHA_A, e1, "fa=1", "night-1", 100, 10);
    put_run(f->s, SHA_A, e1, "fa=1", "night-2", 200, 20);
    put_run(f->s, SHA_A, e1, "fa=1", "night-2", 210, 22);
    put_run(f->s, SHA_A, e1, "fa=0", "night-1", 110, 30);
    put_run(f->s, SHA_A, e1, "fa=0", "night-3", 300, 40);
    put_run(f->s, SHA_B, e1, "fa=1", NULL, 400, 50);
    put_run(f->s, SHA_B, e1, "fa=1", NULL, 410, 52);
    sel_armset set;
    assert_int_equal(sel_armset_load(f->s, NULL, HOST, 0, NULL, &set, &err), 0);
    assert_int_equal(set.n, 3);
    for (size_t i = 0; i < set.n; i++) {
        const sel_arm *a = &set.v[i];
        const sel_series *tg = sel_arm_series(a, "tg128");
        assert_non_null(tg);
        if (!strcmp(a->artifact, SHA_B)) { /* no session: its runs are one session "" */
            assert_string_equal(a->session, "");
            assert_int_equal(a->n_runs, 2);
            assert_int_equal(tg->n, 4);
        } else if (!strcmp(a->arm_key, "fa=1")) {
            assert_string_equal(a->session, "night-2");
            assert_int_equal(a->n_runs, 2);
            assert_int_equal(a->started_at, 200);
            assert_int_equal(tg->n, 4);
            assert_true(tg->ts[0] == 20 && tg->ts[2] == 22);
        } else {
            assert_string_equal(a->session, "night-3"); /* night-1's fa=0 run stays unread */
            assert_int_equal(a->n_runs, 1);
            assert_true(tg->n == 2 && tg->ts[0] == 40);
        }
    }
    /* the same arms without their samples: what ran and how, every series empty */
    sel_armset shape;
    assert_int_equal(sel_armset_load_shape(f->s, NULL, HOST, 0, NULL, &shape, &err), 0);
    assert_int_equal(shape.n, set.n);
    for (size_t i = 0; i < set.n; i++) {
        const sel_arm *a = &set.v[i], *b = &shape.v[i];
        assert_string_equal(b->arm_key, a->arm_key);
        assert_string_equal(b->session, a->session);
        assert_string_equal(b->status, a->status);
        assert_string_equal(b->backends, a->backends);
        assert_int_equal(b->n_runs, a->n_runs);
        assert_int_equal(b->started_at, a->started_at);
        assert_int_equal(b->n_series, a->n_series);
        for (size_t k = 0; k < a->n_series; k++) {
            assert_string_equal(b->series[k].test, a->series[k].test);
            assert_int_equal(b->series[k].n_depth, a->series[k].n_depth);
            assert_int_equal(b->series[k].n, 0);
        }
    }
    sel_armset_free(&shape);
    sel_armset_free(&set);
}

static void keep_fa0(const store_arm_session *arms, size_t n, unsigned char *keep, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        keep[i] = !strcmp(arms[i].arm_key, "fa=0");
}

static void test_armset_picked(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    add_artifacts(f->s);
    int64_t e1 = tu_engine_put(f->s, "one", NULL);
    put_run(f->s, SHA_A, e1, "fa=1", "night-1", 100, 10);
    put_run(f->s, SHA_A, e1, "fa=0", "night-1", 110, 30);
    sel_armset set;
    assert_int_equal(sel_armset_load_picked(f->s, NULL, HOST, 0, NULL, keep_fa0, NULL, &set, &err), 0);
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0].arm_key, "fa=0");
    sel_armset_free(&set);
}

/* --- the night window ------------------------------------------------------------ */

static void test_nights_since(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    add_artifacts(f->s);
    int64_t e1 = tu_engine_put(f->s, "one", NULL);
    const int64_t day = 86400;
    int64_t since = -1;
    assert_int_equal(store_run_nights_since(f->s, NULL, HOST, 3, &since, &err), 0);
    assert_int_equal(since, 0); /* no run: read everything */
    put_run(f->s, SHA_A, e1, "fa=1", "n1", 1 * day + 10, 1);
    put_run(f->s, SHA_A, e1, "fa=1", "n1b", 1 * day + 900, 1); /* a second run that night */
    put_run(f->s, SHA_A, e1, "fa=1", "n3", 3 * day + 5, 1);
    put_run(f->s, SHA_B, e1, "fa=1", "n5", 5 * day + 5, 1);
    put_run(f->s, SHA_A, e1, "fa=1", "n7", 7 * day + 86399, 1);
    assert_int_equal(store_run_nights_since(f->s, NULL, HOST, 2, &since, &err), 0);
    assert_int_equal(since, 5 * day);
    assert_int_equal(store_run_nights_since(f->s, NULL, HOST, 4, &since, &err), 0);
    assert_int_equal(since, 1 * day); /* nights 7, 5, 3, 1: day 1 counts once */
    assert_int_equal(store_run_nights_since(f->s, SHA_A, HOST, 2, &since, &err), 0);
    assert_int_equal(since, 3 * day); /* SHA_A's nights: 7, 3 */
    assert_int_equal(store_run_nights_since(f->s, SHA_A, HOST, 10, &since, &err), 0);
    assert_int_equal(since, 1 * day); /* fewer nights than asked: all of them */
    assert_int_equal(store_run_nights_since(f->s, SHA_A, HOST, 0, &since, &err), 0);
    assert_int_equal(since, 0);
    assert_int_equal(store_run_nights_since(f->s, SHA_A, "other-host", 2, &since, &err), 0);
    assert_int_equal(since, 0);
}

/* The evidence page's window: one listing for every section; a model's
 * nights are a view into it, or read apart when they lie before it. */
static void test_page_window(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    add_artifacts(f->s);
    int64_t e1 = tu_engine_put(f->s, "one", NULL);
    const int64_t day = 86400;
    for (int d = 1; d <= 3; d++)
        put_run(f->s, SHA_A, e1, "fa=1", "a", d * day + 5, d);
    for (int d = 10; d <= 20; d++)
        put_run(f->s, SHA_B, e1, "fa=1", "b", d * day + 5, d);
    ev_window w;
    assert_int_equal(ev_window_load(f->s, HOST, 5, &w, &err), 0);
    assert_int_equal(w.since, 16 * day);
    assert_int_equal(w.n, 5);
    assert_int_equal(w.v[0].results[0].n, 2); /* with samples */
    lvd_run *r;
    size_t n;
    int owned;
    assert_int_equal(ev_window_model(f->s, &w, HOST, SHA_B, 2, &r, &n, &owned, &err), 0);
    assert_int_equal(owned, 0);
    assert_int_equal(n, 2);
    assert_true(r[0].started_at == 19 * day + 5 && r[1].started_at == 20 * day + 5);
    assert_ptr_equal(r[0].results, w.v[3].results); /* the window's own runs */
    free(r);
    assert_int_equal(ev_window_model(f->s, &w, HOST, SHA_A, 2, &r, &n, &owned, &err), 0);
    assert_int_equal(owned, 1); /* not measured lately: read apart */
    assert_int_equal(n, 2);
    assert_true(r[0].started_at == 2 * day + 5 && r[1].results[0].ts[0] == 3);
    store_run_list_free(r, n);
    ev_window_free(&w);
}

/* --- the margin correction's window -------------------------------------------- */

/* One run_alloc row (the store writes them with a bench run; the test adds them behind its back). */
static void put_alloc(store *s, int64_t run_id, const char *device, int64_t model)
{
    char *sql = lvd_xasprintf("INSERT INTO run_alloc (run_id, device, model, kv, compute, pred_model, pred_kv,"
                              " pred_compute) VALUES (%lld, '%s', %lld, 1, 1, 100, 1, 1)",
                              (long long)run_id, device, (long long)model);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(store_path(s), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    free(sql);
}

static void test_alloc_window(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    add_artifacts(f->s);
    int64_t e1 = tu_engine_put(f->s, "one", NULL);
    for (int i = 0; i < 5; i++) {
        int64_t id = put_run(f->s, SHA_A, e1, "fa=1", "night-1", 100 + i, 10);
        put_alloc(f->s, id, "CUDA0", 100 + i);
        put_alloc(f->s, id, "CPU", 7);
        if (i == 0)
            put_alloc(f->s, id, "Vulkan0", 90);
    }
    lvd_alloc *rows;
    size_t n;
    assert_int_equal(store_alloc_rows(f->s, 3, &rows, &n, &err), 0);
    /* the newest 3 of CUDA0, the one of Vulkan0, no host rows */
    assert_int_equal(n, 4);
    int64_t sum = 0;
    size_t vk = 0;
    for (size_t i = 0; i < n; i++) {
        assert_string_not_equal(rows[i].device, "CPU");
        if (!strcmp(rows[i].device, "CUDA0"))
            sum += rows[i].model;
        vk += !strcmp(rows[i].device, "Vulkan0");
    }
    assert_int_equal(sum, 104 + 103 + 102);
    assert_int_equal(vk, 1);
    free(rows);
    assert_int_equal(store_alloc_rows(f->s, PLACEMENT_CORRECTION_WINDOW, &rows, &n, &err), 0);
    assert_int_equal(n, 6);
    free(rows);
}

/* --- the newest pin decision between two builds ---------------------------------- */

static void test_pin_latest(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_pin_decision d[] = {
        {.decided_at = 100, .pinned_build = "b1", .candidate_build = "b2", .decision = "keep", .rule = "r1"},
        {.decided_at = 300, .pinned_build = "b1", .candidate_build = "b2", .decision = "keep", .rule = "r3"},
        {.decided_at = 200, .pinned_build = "b1", .candidate_build = "b2", .decision = "keep", .rule = "r2"},
        {.decided_at = 400, .pinned_build = "b1", .candidate_build = "b3", .decision = "keep", .rule = "r4"},
        {.decided_at = 500, .pinned_build = "b2", .candidate_build = "b1", .decision = "keep", .rule = "r5"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(d); i++)
        assert_int_equal(store_pin_decision_put(f->s, &d[i], &err), 0);
    lvd_pin_decision got;
    assert_int_equal(store_pin_decision_latest(f->s, "b1", "b2", &got, &err), 0);
    assert_string_equal(got.rule, "r3");
    assert_int_equal(got.decided_at, 300);
    lvd_pin_decision_free(&got);
    assert_int_equal(store_pin_decision_latest(f->s, "b3", "b1", &got, &err), 1);
}

/* --- the plans -------------------------------------------------------------------- */

/* The plan SQLite makes for sql names index. */
static void expect_plan(const char *path, const char *sql, const char *index)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *q = lvd_xasprintf("EXPLAIN QUERY PLAN %s", sql);
    assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
    lvd_sb plan = {0};
    while (sqlite3_step(st) == SQLITE_ROW)
        lvd_sb_addf(&plan, "%s\n", (const char *)sqlite3_column_text(st, 3));
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (!strstr(lvd_sb_str(&plan), index))
        fail_msg("%s: plan without %s:\n%s", sql, index, lvd_sb_str(&plan));
    lvd_sb_free(&plan);
    free(q);
}

static void test_plans(void **state)
{
    fx *f = *state;
    expect_plan(f->path, "SELECT id FROM runs WHERE host = 'h' AND artifact = 'a' AND engine_id = 1"
                         " AND arm_key = 'k' ORDER BY started_at DESC, id DESC LIMIT 1", "runs_arm");
    expect_plan(f->path, "SELECT id, session FROM runs WHERE started_at >= 0 AND artifact = 'a' AND host = 'h'"
                         " AND session = 's' ORDER BY started_at, id", "runs_night");
    expect_plan(f->path, "SELECT id, session FROM runs WHERE started_at >= 0 AND host = 'h'"
                         " AND session = 's' ORDER BY started_at, id", "runs_night");
    expect_plan(f->path, "SELECT id, session FROM runs WHERE started_at >= 0 AND artifact = 'a' AND host = 'h'"
                         " ORDER BY started_at DESC, id DESC LIMIT 1", "runs_time");
    expect_plan(f->path, "SELECT id FROM runs WHERE started_at >= 0 AND artifact = 'a' AND host = 'h'"
                         " AND engine_id = 1 AND arm_key = 'k' ORDER BY started_at, id", "runs_arm");
    expect_plan(f->path, "SELECT max(started_at) FROM runs WHERE host = 'h' AND started_at < 5", "runs_host");
    expect_plan(f->path, "SELECT id FROM verdicts WHERE artifact = 'a' AND host = 'h'"
                         " ORDER BY decided_at DESC, id DESC LIMIT 1", "verdicts_newest");
    expect_plan(f->path, "SELECT model FROM run_alloc WHERE device = 'CUDA0' ORDER BY run_id DESC LIMIT 3",
                "run_alloc_device");
    expect_plan(f->path, "SELECT id FROM pin_decisions WHERE pinned_build = 'a' AND candidate_build = 'b'"
                         " ORDER BY decided_at DESC, id DESC LIMIT 1", "pin_decisions_builds");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_newest_sessions, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_armset_newest, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_armset_picked, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_nights_since, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_page_window, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_alloc_window, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_pin_latest, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_plans, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
