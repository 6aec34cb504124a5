/* test_launch_arm.c: the "the verdict's launch line equals a measured
 * arm's configuration". For several stores, each made by a real bench session
 * over fake-engine processes (CPU only; a GPU whose fa on wins; a placement
 * rung's -ngl/-ub; --n-cpu-moe arms of a MoE model; matched cache-type pairs;
 * explicit depths; a split mode over two cards), the verdict is recorded, `lvd select`'s launch line
 * (sel_select) is parsed back, and every word of it is compared with the
 * winning arm's recorded parameters: devices, -sm, -ts, -ngl (every block however
 * spelled), --n-cpu-moe, -ub, -fa, -ctk, -ctv, -t, and -c the context the
 * measured serving depth stands for (bench/depth.h). The evidence page's line
 * (sel_choice_lines_load) must be the same argv. */
#include "tests/support/testutil.h"

#include "bench/depth.h"
#include "engine/probe.h"
#include "bench/plan.h"
#include "bench/runner.h"
#include "select/armset.h"
#include "select/choice.h"
#include "select/select.h"
#include "select/verdict.h"
#include "store/identify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST "testhost"

typedef tu_session fx;

#define H200 "device = CUDA0|NVIDIA H200|143155|142629|9.0\nnoise = 0.005\n"

/* A launch line read back into the parameters it passes. */
typedef struct launched {
    lvd_params p;
    uint32_t ctx;
} launched;

/* llama-server's "A,B" list in llama-bench's spelling "A/B", as arms record it. */
static void bench_list(char *out, size_t len, const char *v)
{
    snprintf(out, len, "%s", v);
    for (char *c = out; *c; c++)
        if (*c == ',')
            *c = '/';
}

static void parse_launch(char **argv, launched *l)
{
    lvd_params_init(&l->p);
    l->ctx = 0;
    assert_non_null(argv[0]);
    assert_true(lvd_ends_with(argv[0], "/llama-server"));
    for (size_t i = 1; argv[i]; i += 2) {
        const char *f = argv[i], *v = argv[i + 1];
        if (!v)
            fail_msg("launch flag %s has no value", f);
        if (!strcmp(f, "-m"))
            continue;
        else if (!strcmp(f, "--device"))
            bench_list(l->p.device, sizeof l->p.device, v);
        else if (!strcmp(f, "-sm"))
            snprintf(l->p.split_mode, sizeof l->p.split_mode, "%s", v);
        else if (!strcmp(f, "-ts"))
            bench_list(l->p.tensor_split, sizeof l->p.tensor_split, v);
        else if (!strcmp(f, "-ngl"))
            l->p.ngl = atoi(v);
        else if (!strcmp(f, "--n-cpu-moe"))
            l->p.n_cpu_moe = atoi(v);
        else if (!strcmp(f, "-ub"))
            l->p.ubatch = atoi(v);
        else if (!strcmp(f, "-fa"))
            l->p.fa = !strcmp(v, "on");
        else if (!strcmp(f, "-ctk"))
            snprintf(l->p.type_k, sizeof l->p.type_k, "%s", v);
        else if (!strcmp(f, "-ctv"))
            snprintf(l->p.type_v, sizeof l->p.type_v, "%s", v);
        else if (!strcmp(f, "-t"))
            l->p.threads = atoi(v);
        else if (!strcmp(f, "-c"))
            l->ctx = (uint32_t)atoi(v);
        else
            fail_msg("launch flag %s is not one a bench arm measures", f);
    }
}

/* -ngl as a configuration: anything above the model's blocks is every block. */
static int ngl_of(int ngl, const gguf_shape *shape)
{
    int all = (int)shape->n_block + 1;
    return ngl > all ? all : ngl;
}

static void check_pass(fx *f, const store_artifact *a, const bench_plan *plan)
{
    for (size_t i = 0; i < plan->n_arms; i++) {
        if (!plan->arms[i].gpu)
            continue;
        lvd_check c = {.engine_id = plan->arms[i].engine_id, .host = HOST, .ran_at = 1, .mean_kld = NAN,
                       .same_top_p = NAN, .ppl = NAN, .ppl_base = NAN, .ppl_ratio = NAN};
        memcpy(c.artifact, a->sha256, sizeof c.artifact);
        snprintf(c.device, sizeof c.device, "%s", plan->arms[i].params.device);
        snprintf(c.status, sizeof c.status, "pass");
        lvd_err err = {{0}};
        if (store_check_put(f->s, &c, &err))
            fail_msg("%s", err.msg);
    }
}

/* The winning arm as the store recorded it, and its serving depth. */
static void recorded_arm(fx *f, const store_artifact *a, const lvd_verdict *v, lvd_params *p, int *depth)
{
    sel_armset set;
    lvd_err err = {{0}};
    if (sel_armset_load(f->s, a->sha256, HOST, v->engine_id, NULL, &set, &err))
        fail_msg("%s", err.msg);
    int found = 0;
    for (size_t i = 0; i < set.n; i++) {
        if (strcmp(set.v[i].arm_key, v->arm_key))
            continue;
        found = 1;
        *p = set.v[i].params;
        *depth = 0;
        for (size_t k = 0; k < set.v[i].n_series; k++)
            *depth = set.v[i].series[k].n_depth > *depth ? set.v[i].series[k].n_depth : *depth;
    }
    sel_armset_free(&set);
    if (!found)
        fail_msg("the verdict's arm %s is not in the store", v->arm_key);
}

/* Every word of the launch equals the arm; -c is the context its depth stands for. */
static void assert_launch_is_arm(const launched *l, const lvd_params *arm, int depth, uint32_t serving,
                                 const gguf_shape *shape)
{
    assert_string_equal(l->p.device, arm->device);
    assert_string_equal(l->p.split_mode, arm->split_mode);
    assert_string_equal(l->p.tensor_split, arm->tensor_split);
    assert_int_equal(ngl_of(l->p.ngl, shape), ngl_of(arm->ngl, shape));
    assert_int_equal(l->p.n_cpu_moe, arm->n_cpu_moe);
    assert_int_equal(l->p.ubatch, arm->ubatch);
    assert_int_equal(l->p.fa, arm->fa);
    assert_string_equal(l->p.type_k, arm->type_k);
    assert_string_equal(l->p.type_v, arm->type_v);
    assert_int_equal(l->p.threads, arm->threads);
    assert_true(depth > 0);
    assert_int_equal(l->ctx, bench_ctx_of_depth(depth));
    assert_int_equal(l->ctx, serving);
}

/* Engine NAME (tu_session_engine) that can serve too: the fake engine as its llama-server. */
static void engine(fx *f, const char *name, const char *scenario)
{
    size_t i = tu_session_engine(f, name, 0, scenario);
    char *server = lvd_xasprintf("%s/llama-server", f->e[i].dir);
    const char *fake = getenv("LVD_FAKE_ENGINE");
    assert_non_null(fake);
    assert_int_equal(symlink(fake, server), 0);
    free(server);
    lvd_probe_free(&f->p[i]); /* probed again: the probe records llama-server's presence */
    lvd_err err = {{0}};
    if (engine_probe_engine(f->s, &f->e[i], 1, 0, &f->p[i], &err))
        fail_msg("%s", err.msg);
}

/* The evidence page's line of verdict v (sel_choice_lines_load) is the same argv. */
static void assert_page_line(fx *f, const store_artifact *a, const lvd_verdict *v, const sel_launch *l)
{
    sel_choice_lines c;
    lvd_err err = {{0}};
    assert_int_equal(sel_choice_lines_load(f->s, a, HOST, v->engine_id, v->arm_key, &v->params, NULL, &c, &err), 0);
    for (size_t i = 1; i < l->argc; i++) /* argv[2] is the model: the page uses its last known path */
        if (i != 2)
            assert_string_equal(c.launch.argv[i], l->argv[i]);
    assert_int_equal(c.launch.argc, l->argc);
    sel_choice_lines_free(&c);
}

typedef struct world {
    const char *session;
    const char *model;         /* NULL: the session's tiny-llama */
    bench_plan_opts po;        /* the lists; shape and contexts are filled in */
    const int *depths;         /* --depth; NULL: derived */
    size_t n_depths;
    int64_t ctx;               /* -c; -1: not given */
} world;

/* lvd bench's session over the registered engines, the verdict recorded,
 * then lvd select's line checked against the winning arm; the line and the
 * winning arm's recorded parameters are returned. */
static void measure(fx *f, const world *w, launched *l, lvd_params *arm)
{
    lvd_err err = {{0}};
    store_artifact own, *a = &f->art;
    const char *model = f->model;
    char *path = w->model ? tu_model(w->model) : NULL;
    if (path) {
        assert_int_equal(store_identify(f->s, path, 0, &own, NULL, &err), 0);
        a = &own;
        model = path;
    }
    bench_test *tests;
    size_t nt;
    uint32_t serving;
    assert_int_equal(bench_tests_from_counts("64", "16", &tests, &nt, &err), 0);
    if (bench_tests_for_serving(&tests, &nt, w->depths, w->n_depths, w->ctx, &a->shape, &serving, &err))
        fail_msg("%s", err.msg);
    bench_plan_opts po = w->po;
    po.shape = &a->shape;
    po.ctx = (uint32_t)(bench_tests_serving_depth(tests, nt) + 64);
    po.place_ctx = serving;
    bench_plan plan;
    if (bench_plan_build(f->e, f->p, f->n, &po, &plan, &err))
        fail_msg("%s", err.msg);
    check_pass(f, a, &plan);
    bench_session_opts so;
    memset(&so, 0, sizeof so);
    so.inv = (bench_invoke){.model = model, .tests = tests, .n_tests = nt, .reps = 3, .timeout_ms = 20000};
    so.artifact = a->sha256;
    so.host = HOST;
    so.session = w->session;
    so.max_samples = 12;
    stats_objective_default(&so.objective);
    stats_rule_default(&so.rule);
    bench_session bs;
    if (bench_session_run(f->s, &plan, &so, &bs, &err))
        fail_msg("%s", err.msg);
    bench_session_free(&bs);

    sel_verdict_opts vo;
    sel_verdict_opts_init(&vo);
    vo.host = HOST;
    lvd_verdict v;
    if (sel_verdict_record(f->s, a->sha256, &vo, &v, &err))
        fail_msg("%s", err.msg);
    if (!v.engine_id)
        fail_msg("%s: no winner: %s", w->session, v.explain);
    sel_request rq;
    sel_request_init(&rq);
    rq.model = model;
    rq.host = HOST;
    sel_result r;
    int code;
    if (sel_select(f->s, a, &rq, &r, &code, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(r.by, SEL_BY_VERDICT);
    char *line = sel_launch_to_shell(&r.launch);
    print_message("%s: %s (arm %s)\n", w->session, line, v.arm_key);
    free(line);
    parse_launch(r.launch.argv, l);
    int depth = 0;
    recorded_arm(f, a, &v, arm, &depth);
    char on[64]; /* the objective names its depth: decided at the serving one */
    snprintf(on, sizeof on, " on tg16@d%d ", depth);
    if (!strstr(v.explain, on))
        fail_msg("verdict not decided%s: %s", on, v.explain);
    assert_launch_is_arm(l, arm, depth, serving, &a->shape);
    assert_int_equal(v.depth, depth); /* the verdict keeps the depth it decided at */

    assert_page_line(f, a, &v, &r.launch);
    /* a verdict from before it kept its depth (schema 18): the line is the same,
     * from the depth of the arm's newest session */
    tu_raw_exec(store_path(f->s), "UPDATE verdicts SET serving_depth = NULL");
    sel_result old;
    if (sel_select(f->s, a, &rq, &old, &code, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(old.launch.argc, r.launch.argc);
    for (size_t i = 0; i < r.launch.argc; i++)
        assert_string_equal(old.launch.argv[i], r.launch.argv[i]);
    sel_result_free(&old);
    sel_result_free(&r);
    lvd_verdict_free(&v);
    bench_plan_free(&plan);
    free(tests);
    if (path) {
        store_artifact_free(&own);
        free(path);
    }
}

static void test_cpu_only(void **state)
{
    fx *f = *state;
    engine(f, "cpu", "cpu.tg = 50\ncpu.pp = 400\nnoise = 0.005\n");
    launched l;
    lvd_params arm;
    world w = {.session = "cpu", .ctx = -1};
    measure(f, &w, &l, &arm);
    assert_string_equal(arm.device, "");
    assert_int_equal(l.p.ngl, -1); /* a CPU build gets no GPU flag */
}

static void test_gpu_fa_on_wins(void **state)
{
    fx *f = *state;
    engine(f, "cpu", "cpu.tg = 50\nnoise = 0.005\n");
    engine(f, "cuda", H200 "dev.CUDA0.tg = 900\ntg.fa=1 = 1.5\n");
    launched l;
    lvd_params arm;
    world w = {.session = "gpu", .ctx = -1};
    measure(f, &w, &l, &arm);
    assert_string_equal(l.p.device, "CUDA0");
    assert_int_equal(l.p.fa, 1);
}

/* Free memory for a partial-offload rung of tiny-llama at its serving
 * context (514 MiB: its 1.1 MiB of weights and 1 of KV beside the 512 MiB
 * reserve do not all fit: -ngl 2, its output head and last block): the bench arm
 * carries the rung's -ngl, and so does the line. */
static void test_placement_rung(void **state)
{
    fx *f = *state;
    engine(f, "cuda", "device = CUDA0|NVIDIA GeForce GTX 1060 3GB|3072|514|6.1\ndev.CUDA0.tg = 400\n"
                      "noise = 0.005\n");
    launched l;
    lvd_params arm;
    static const int fa[] = {1};
    world w = {.session = "rung", .ctx = -1, .po = {.fa = fa, .n_fa = 1}};
    measure(f, &w, &l, &arm);
    assert_int_equal(arm.ngl, 2); /* placement set it, the line kept it */
    assert_int_equal(l.p.ngl, arm.ngl);
}

/* --n-cpu-moe arms of a MoE model: the faster one is the line. */
static void test_ncmoe_arm(void **state)
{
    fx *f = *state;
    engine(f, "cuda", H200 "dev.CUDA0.tg = 900\ntg.ncmoe=2 = 1.6\n");
    launched l;
    lvd_params arm;
    static const int fa[] = {1}, ncmoe[] = {0, 2};
    world w = {.session = "moe", .model = "tiny-moe-q4_0.gguf", .ctx = -1,
               .po = {.fa = fa, .n_fa = 1, .ncmoe = ncmoe, .n_ncmoe = 2}};
    measure(f, &w, &l, &arm);
    assert_int_equal(l.p.n_cpu_moe, 2);
}

/* -ctk f16,q8_0: matched pairs; q8_0/q8_0 wins and is launched as a pair. */
static void test_cache_type_pair(void **state)
{
    fx *f = *state;
    engine(f, "cuda", H200 "dev.CUDA0.tg = 900\ntg.ctk=q8_0 = 1.4\n");
    launched l;
    lvd_params arm;
    static const int fa[] = {1};
    static const char *const ctk[] = {"f16", "q8_0"};
    world w = {.session = "kv", .ctx = -1, .po = {.fa = fa, .n_fa = 1, .ctk = ctk, .n_ctk = 2}};
    measure(f, &w, &l, &arm);
    assert_string_equal(l.p.type_k, "q8_0");
    assert_string_equal(l.p.type_v, "q8_0");
}

/* --depth 0,1024 with no -c: the line serves the context 1024 stands for. */
static void test_explicit_depth(void **state)
{
    fx *f = *state;
    engine(f, "cuda", H200 "dev.CUDA0.tg = 900\n");
    launched l;
    lvd_params arm;
    static const int fa[] = {1}, depths[] = {0, 1024};
    world w = {.session = "depth", .ctx = -1, .depths = depths, .n_depths = 2, .po = {.fa = fa, .n_fa = 1}};
    measure(f, &w, &l, &arm);
    assert_int_equal(l.ctx, 2048);
}

/* Two cards: split arms over CUDA0/CUDA1; -sm row wins and is the line,
 * devices and -ts as measured. */
static void test_split_mode(void **state)
{
    fx *f = *state;
    engine(f, "cuda", H200 "device = CUDA1|NVIDIA H200|143155|142629|9.0\ndev.CUDA0.tg = 900\n"
                      "dev.CUDA1.tg = 900\ntg.sm=row = 1.8\n");
    launched l;
    lvd_params arm;
    static const int fa[] = {1};
    world w = {.session = "split", .ctx = -1, .po = {.fa = fa, .n_fa = 1}};
    measure(f, &w, &l, &arm);
    assert_string_equal(l.p.split_mode, "row");
    assert_string_equal(l.p.device, "CUDA0/CUDA1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cpu_only, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_gpu_fa_on_wins, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_placement_rung, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_ncmoe_arm, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_cache_type_pair, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_explicit_depth, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_split_mode, tu_session_setup, tu_session_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
