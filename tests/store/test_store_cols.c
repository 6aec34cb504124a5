/* test_store_cols.c: a row type's columns written once (store/store_cols.h):
 * the lists, placeholders and positions a table gives, and runs and
 * verdicts written and read back through theirs with every column set to
 * a value of its own, NULLs included (the sentinels a column stores as
 * NULL), so that a column the INSERT binds but the SELECT drops, or reads
 * at another place, shows. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/store.h"
#include "store/store_cols.h"

#include <stdlib.h>
#include <string.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

typedef tu_storefx fx;

typedef struct row {
    int64_t id;
    char *name;
    lvd_params p;
    char uid[33];
} row;

static const store_col row_cols[] = {
    STORE_COL(row, id, STORE_COL_I64, "id", STORE_COL_R),
    STORE_COL(row, name, STORE_COL_TEXT, "name", STORE_COL_RW),
    STORE_COL(row, p, STORE_COL_PARAMS,
              "p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, p_threads, p_env", STORE_COL_RW),
    STORE_COL(row, uid, STORE_COL_UID, "uid", STORE_COL_W),
    {.name = "stats", .read = "NULL", .kind = STORE_COL_DOC, .use = STORE_COL_RW},
    STORE_COL(row, p, STORE_COL_PARALLEL, "p_parallel", STORE_COL_RW),
};
#define N LVD_ARRAY_LEN(row_cols)

static void test_lists(void **state)
{
    (void)state;
    lvd_sb sb = {0};
    store_cols_names(&sb, row_cols, N, STORE_COL_W, NULL);
    assert_string_equal(lvd_sb_str(&sb), "name, p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, "
                                         "p_threads, p_env, uid, stats, p_parallel");
    sb.len = 0;
    store_cols_names(&sb, row_cols, N, STORE_COL_R, NULL);
    assert_string_equal(lvd_sb_str(&sb), "id, name, p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, "
                                         "p_threads, p_env, NULL, p_parallel");
    sb.len = 0;
    store_cols_marks(&sb, row_cols, N);
    assert_string_equal(lvd_sb_str(&sb), "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"); /* 1 + 9 + 1 + 1 + 1 */
    lvd_sb_free(&sb);
    /* the params group is nine wide either way */
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_W, 1, "name"), 1);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_W, 1, "uid"), 11);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_W, 1, "p_parallel"), 13);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_R, 0, "stats"), 11);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_R, 0, "p_parallel"), 12);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_R, 0, "uid"), -1); /* written only */
}

static int64_t deps(store *s)
{
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 1};
    assert_int_equal(store_artifact_put(s, &a, &err), 0);
    return tu_engine_put(s, "cuda", "/e/cuda");
}

/* A run with every column of its own set to a value no other column has. */
static void every_run(lvd_run *r, int64_t eid)
{
    *r = (lvd_run){
        .artifact = SHA_A, .engine_id = eid, .status = "failed", .source = "import",
        .binary = lvd_xstrdup("/e/cuda/llama-bench"), .build = lvd_xstrdup("b9749"),
        .host = lvd_xstrdup("gpu-box"), .session = lvd_xstrdup("night-7"), .params = tu_params_every(),
        .arm_key = lvd_xstrdup("arm-every"), .build_commit = lvd_xstrdup("abc1234"), .build_number = 9749,
        .reason = lvd_xstrdup("out of memory"), .exit_code = 137,
        .stderr_tail = lvd_xstrdup("ggml_vulkan: allocation failed"), .left_out = lvd_xstrdup("-fitt"),
        .started_at = 1700000000, .wall_ms = 4321,
    };
    r->params.parallel = 3;
    r->params.fused_moe = 0; /* ik_llama.cpp's knobs */
    r->params.repack = 1;
}

static void test_run_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_run r;
    every_run(&r, deps(f->s));
    assert_int_equal(store_run_put(f->s, &r, &err), 0);
    store_run_filter flt = {0};
    lvd_run *v;
    size_t n;
    assert_int_equal(store_run_list(f->s, &flt, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    const lvd_run *g = &v[0];
    assert_int_equal(g->id, r.id);
    assert_string_equal(g->artifact, r.artifact);
    assert_int_equal(g->engine_id, r.engine_id);
    assert_string_equal(g->binary, r.binary);
    assert_string_equal(g->build, r.build);
    assert_string_equal(g->host, r.host);
    assert_string_equal(g->session, r.session);
    assert_memory_equal(&g->params, &r.params, sizeof r.params); /* params, split, fit, parallel, knobs */
    assert_string_equal(g->arm_key, r.arm_key);
    assert_string_equal(g->build_commit, r.build_commit);
    assert_int_equal(g->build_number, r.build_number);
    assert_string_equal(g->status, r.status);
    assert_string_equal(g->reason, r.reason);
    assert_int_equal(g->exit_code, r.exit_code);
    assert_string_equal(g->stderr_tail, r.stderr_tail);
    assert_string_equal(g->left_out, r.left_out);
    assert_int_equal(g->started_at, r.started_at);
    assert_int_equal(g->wall_ms, r.wall_ms);
    assert_string_equal(g->source, r.source);
    store_run_list_free(v, n);
    /* the uid column got a fresh uid: 32 hex characters */
    assert_int_equal(tu_raw_int(f->path, "SELECT length(uid) FROM runs"), 32);
    lvd_run_free(&r);
}

/* A verdict with every column set, or (none) with the ones that store NULL
 * at their sentinels: no winner (engine 0), no depth (-1). */
static void verdict(lvd_verdict *v, int64_t eid, int none)
{
    memset(v, 0, sizeof *v);
    strcpy(v->artifact, SHA_A);
    v->host = lvd_xstrdup("gpu-box");
    v->decided_at = none ? 1700000100 : 1700000200;
    v->objective = lvd_xstrdup("tg");
    v->engine_id = none ? 0 : eid;
    v->params = tu_params_every();
    v->params.parallel = 2;
    v->params.fused_moe = 1;
    v->params.repack = 0;
    v->arm_key = lvd_xstrdup("arm-every");
    v->rule = lvd_xstrdup(none ? "undecided" : "win");
    v->explain = lvd_xstrdup("because");
    v->fingerprint = lvd_xstrdup("1:/e/cuda:b9749:123");
    v->stats_json = lvd_xstrdup("{\"arms\":[]}");
    v->depth = none ? -1 : 4096;
}

static void same_verdict(const lvd_verdict *g, const lvd_verdict *v, int stats)
{
    assert_int_equal(g->id, v->id);
    assert_string_equal(g->artifact, v->artifact);
    assert_string_equal(g->host, v->host);
    assert_int_equal(g->decided_at, v->decided_at);
    assert_string_equal(g->objective, v->objective);
    assert_int_equal(g->engine_id, v->engine_id);
    assert_memory_equal(&g->params, &v->params, sizeof v->params);
    assert_string_equal(g->arm_key, v->arm_key);
    assert_string_equal(g->rule, v->rule);
    assert_string_equal(g->explain, v->explain);
    assert_string_equal(g->fingerprint, v->fingerprint);
    if (stats)
        assert_string_equal(g->stats_json, v->stats_json);
    else
        assert_null(g->stats_json); /* the latest verdict is read without them */
    assert_int_equal(g->depth, v->depth);
}

static void test_verdict_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = deps(f->s);
    lvd_verdict a, b;
    verdict(&a, eid, 1);
    verdict(&b, eid, 0);
    assert_int_equal(store_verdict_put(f->s, &a, &err), 0);
    assert_int_equal(store_verdict_put(f->s, &b, &err), 0);
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM verdicts WHERE engine_id IS NULL"
                                         " AND serving_depth IS NULL"), 1);
    lvd_verdict *v;
    size_t n;
    assert_int_equal(store_verdict_list(f->s, SHA_A, "gpu-box", 0, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    same_verdict(&v[0], &b, 1); /* newest first */
    same_verdict(&v[1], &a, 1);
    store_verdict_list_free(v, n);
    lvd_verdict latest;
    assert_int_equal(store_verdict_latest(f->s, SHA_A, "gpu-box", "tg", &latest, &err), 0);
    same_verdict(&latest, &b, 0);
    lvd_verdict_free(&latest);
    lvd_verdict_free(&a);
    lvd_verdict_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test_setup_teardown(test_run_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_verdict_every_column, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
