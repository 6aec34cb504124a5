/* test_depth.c: the depth and cache-type rules: the serving context
 * and depth (bench/depth.h), the tests at depths and llama-bench's -d in the
 * argv, the real b9749 capture of `-d 0,256` parsed into depth-named tests,
 * and the KV cache pairs with the quantized-V refusal (bench/kvpair.h). */
#include "tests/support/testutil.h"

#include "benchio/benchout.h"
#include "bench/depth.h"
#include "bench/invoke.h"
#include "bench/kvpair.h"
#include "bench/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_serving_rules(void **state)
{
    (void)state;
    gguf_shape shape = {0};
    shape.known = 1;
    shape.n_ctx_train = 131072;
    assert_int_equal(bench_serving_ctx(-1, 0, &shape), BENCH_CTX_DEFAULT);
    shape.n_ctx_train = 2048;
    assert_int_equal(bench_serving_ctx(-1, 0, &shape), 2048); /* capped by training */
    assert_int_equal(bench_serving_ctx(0, 0, &shape), 2048);
    assert_int_equal(bench_serving_ctx(8192, 1024, &shape), 8192); /* -c wins */
    assert_int_equal(bench_serving_ctx(-1, 1024, &shape), 2048);   /* a measured depth's */
    assert_int_equal(bench_serving_ctx(-1, 3000, NULL), 6000);
    assert_int_equal(bench_serving_ctx(-1, 0, NULL), 0);          /* unknown: llama.cpp's */
    assert_int_equal(bench_depth_of_ctx(4096, 640), 2048);
    assert_int_equal(bench_depth_of_ctx(8192, 640), 4096);
    assert_int_equal(bench_depth_of_ctx(1000, 640), 0); /* pp512+tg128 would not fit on top */
    assert_int_equal(bench_depth_of_ctx(100, 16), 0);   /* under BENCH_DEPTH_MIN */
    assert_int_equal(bench_ctx_of_depth(bench_depth_of_ctx(4096, 640)), 4096);
}

static void test_tests_at_depths(void **state)
{
    (void)state;
    bench_test *t;
    size_t n;
    lvd_err err = {{0}};
    assert_int_equal(bench_tests_from_counts(NULL, NULL, &t, &n, &err), 0);
    uint32_t serving;
    assert_int_equal(bench_tests_for_serving(&t, &n, NULL, 0, -1, NULL, &serving, &err), 0);
    assert_int_equal(n, 2); /* no shape, no -c: no depth to derive */
    assert_int_equal(bench_tests_for_serving(&t, &n, NULL, 0, 4096, NULL, &serving, &err), 0);
    assert_int_equal(serving, 4096);
    assert_int_equal(n, 4);
    const char *names[] = {"pp512", "tg128", "pp512@d2048", "tg128@d2048"};
    for (size_t i = 0; i < n; i++)
        assert_string_equal(t[i].name, names[i]);
    assert_int_equal(bench_tests_serving_depth(t, n), 2048);
    bench_invoke inv = {.model = "m.gguf", .tests = t, .n_tests = n, .reps = 3};
    bench_arm arm = {.binary = "/e/llama-bench"};
    lvd_params_init(&arm.params);
    char **argv = bench_arm_argv(&arm, &inv);
    lvd_sb sb = {0};
    for (char **a = argv; *a; a++)
        lvd_sb_addf(&sb, " %s", *a);
    assert_non_null(strstr(lvd_sb_str(&sb), " -p 512 -n 128 -d 0,2048 -r 3 "));
    lvd_sb_free(&sb);
    lvd_strv_free(argv);
    free(t);

    assert_int_equal(bench_tests_from_counts("512", "128", &t, &n, &err), 0);
    static const int deep[] = {0, 8192};
    assert_int_equal(bench_tests_for_serving(&t, &n, deep, 2, 4096, NULL, &serving, &err), -1);
    assert_string_equal(err.msg, "depth: pp512@d8192 needs 8704 tokens of context, more than -c 4096");
    free(t);
    /* a test named at a depth (what lvd bisect passes back): measured as named */
    assert_int_equal(bench_tests_parse("tg128@d2048", &t, &n, &err), 0);
    assert_int_equal(t[0].n_depth, 2048);
    assert_string_equal(t[0].name, "tg128@d2048");
    assert_int_equal(bench_tests_for_serving(&t, &n, NULL, 0, -1, NULL, &serving, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(serving, 4096);
    free(t);
    assert_int_equal(bench_tests_parse("tg128@dx", &t, &n, &err), -1);
    assert_string_equal(err.msg, "tests: 'tg128@dx' is not ppN or tgN (N in 1..1000000), optionally @dD");
    assert_int_equal(bench_tests_from_counts("512", "128", &t, &n, &err), 0);
    static const int twice[] = {256, 256};
    assert_int_equal(bench_tests_at_depths(&t, &n, twice, 2, &err), -1);
    assert_string_equal(err.msg, "depth: 256 is given twice");
    free(t);
}

/* The real capture: every test at depth 0, then at 256, named pp16@d256. */
static void test_real_capture(void **state)
{
    (void)state;
    char *path = tu_fixture("llama.cpp/depth-b9749/bench-depth.stdout");
    size_t n;
    char *text = tu_read(path, &n);
    benchio_rows rows;
    lvd_err err = {{0}};
    if (benchio_parse_rows(text, n, BENCHIO_FMT_AUTO, path, &rows, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rows.n, 4);
    const char *names[] = {"pp16", "tg4", "pp16@d256", "tg4@d256"};
    for (size_t i = 0; i < rows.n; i++) {
        assert_string_equal(rows.v[i].result.test, names[i]);
        assert_int_equal(rows.v[i].result.n_depth, i < 2 ? 0 : 256);
    }
    benchio_rows_free(&rows);
    free(text);
    free(path);
}

static void test_kv_pairs(void **state)
{
    (void)state;
    static const char *const k[] = {"f16", "q8_0"}, *const v[] = {"q8_0", "q4_0"};
    bench_kv_pair *p;
    assert_int_equal(bench_kv_pairs(k, 2, NULL, 0, 0, &p), 2);
    assert_string_equal(p[1].k, "q8_0");
    assert_string_equal(p[1].v, "q8_0");
    free(p);
    assert_int_equal(bench_kv_pairs(k, 2, v, 2, 0, &p), 3); /* f16, q8_0, q4_0: each matched */
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(p[i].k, p[i].v);
    assert_string_equal(p[2].k, "q4_0");
    free(p);
    assert_int_equal(bench_kv_pairs(k, 2, v, 2, 1, &p), 4); /* --kv-mixed: the cross product */
    assert_string_equal(p[0].k, "f16");
    assert_string_equal(p[0].v, "q8_0");
    free(p);
    assert_int_equal(bench_kv_pairs(NULL, 0, NULL, 0, 0, &p), 0);
    assert_true(bench_kv_quantized("q8_0"));
    assert_false(bench_kv_quantized("bf16"));
    assert_false(bench_kv_quantized(""));
    lvd_err err = {{0}};
    assert_int_equal(bench_kv_check_fa("q4_0", 0, &err), -1);
    assert_string_equal(err.msg, "-ctv q4_0 with -fa off: llama.cpp needs flash attention for a quantized V"
                                 " cache (use -fa on, or -ctv f16)");
    assert_int_equal(bench_kv_check_fa("q4_0", -1, &err), 0);
    assert_int_equal(bench_kv_check_fa("f16", 0, &err), 0);
}

/* Through the plan: default fa on,off leaves out fa off for q8_0 V; an
 * explicit -fa off with it is refused. */
static void test_plan_pairs(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *bench = lvd_xasprintf("%s/llama-bench", dir);
    tu_write_str(bench, "#!/bin/sh\nexit 0\n");
    tu_copy(bench, bench, 0755);
    lvd_engine e = {.id = 1, .name = "cuda", .dir = dir, .build = "b9749"};
    lvd_device d = {0};
    snprintf(d.selector, sizeof d.selector, "CUDA0");
    snprintf(d.name, sizeof d.name, "CUDA0");
    snprintf(d.backend, sizeof d.backend, "cuda");
    d.free_mib = -1;
    lvd_probe pr = {.devices = &d, .n_devices = 1};
    snprintf(pr.backend, sizeof pr.backend, "cuda");
    static const char *const ctk[] = {"f16", "q8_0"};
    bench_plan_opts o = {.ctk = ctk, .n_ctk = 2};
    bench_plan plan;
    lvd_err err = {{0}};
    assert_int_equal(bench_plan_build(&e, &pr, 1, &o, &plan, &err), 0);
    assert_int_equal(plan.n_arms, 3); /* f16 fa on/off, q8_0 fa on */
    assert_string_equal(plan.arms[0].label, "cuda CUDA0 ngl=99 fa=on ctk=f16 ctv=f16");
    assert_string_equal(plan.arms[1].label, "cuda CUDA0 ngl=99 fa=on ctk=q8_0 ctv=q8_0");
    assert_string_equal(plan.arms[2].label, "cuda CUDA0 ngl=99 fa=off ctk=f16 ctv=f16");
    bench_plan_free(&plan);
    static const int off[] = {0};
    o.fa = off;
    o.n_fa = 1;
    assert_int_equal(bench_plan_build(&e, &pr, 1, &o, &plan, &err), -1);
    assert_string_equal(err.msg, "plan: -ctv q8_0 with -fa off: llama.cpp needs flash attention for a"
                                 " quantized V cache (use -fa on, or -ctv f16)");
    free(bench);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serving_rules),
        cmocka_unit_test(test_tests_at_depths),
        cmocka_unit_test(test_real_capture),
        cmocka_unit_test(test_kv_pairs),
        cmocka_unit_test(test_plan_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
