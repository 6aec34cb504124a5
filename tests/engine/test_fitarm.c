/* test_fitarm.c: llama.cpp's own fit as the engine offers it (engine/fit.h):
 * -fitt in llama-bench's --help (the real b9749 capture), and the plan line
 * llama-fit-params prints. No build at hand ships llama-fit-params, so its
 * output here is reproduced from llama.cpp's tools/fit-params (its
 * fit-params.cpp printf and its README's example; see
 * tests/fixtures/llama.cpp/README.md), not captured. */
#include "engine/fit.h"
#include "tests/support/testutil.h"

#include <stdlib.h>
#include <string.h>

static void test_help(void **state)
{
    (void)state;
    char *path = tu_fixture("llama.cpp/cpu-build-b9749/bench-help.stdout");
    char *text = tu_read(path, NULL);
    engine_help help = {.opts = NULL};
    engine_fit_caps caps;
    engine_help_parse(&help, ENGINE_TOOL_BENCH, text);
    engine_fit_caps_of("/nonexistent", &help, &caps);
    assert_true(caps.bench_fitt);
    assert_false(caps.fit_params);
    engine_help_free(&help);
    engine_help_parse(&help, ENGINE_TOOL_BENCH, "usage: llama-bench [options]\n  -m, --model <f>\n  -ngl, --n-gpu-layers <n>\n");
    engine_fit_caps_of("/nonexistent", &help, &caps);
    assert_false(caps.bench_fitt);
    engine_help_free(&help);
    engine_fit_caps_of("/nonexistent", NULL, &caps);
    assert_false(caps.bench_fitt);
    free(text);
    free(path);
}

/* The README's example: a 30B-A3B on a 24 GB card, experts of blocks 14-47
 * on the host (34 blocks), the stderr log before the line. */
static void test_plan_moe(void **state)
{
    (void)state;
    const char *out =
        "llama_params_fit_impl: projected to use 61807 MiB of device memory vs. 24077 MiB of free device memory\n"
        "Printing fitted CLI arguments to stdout...\n"
        "-c 4096 -ngl 48 -ot \"blk\\.14\\.ffn_(up|down|gate)_(ch|)exps=CPU,blk\\.15\\.ffn_(up|down|gate)_(ch|)exps=CPU,"
        "blk\\.47\\.ffn_(up|down|gate)_(ch|)exps=CPU\"\n";
    engine_fit_plan p;
    assert_int_equal(engine_fit_plan_parse(out, &p, NULL), 0);
    assert_int_equal(p.ctx, 4096);
    assert_int_equal(p.ngl, 48);
    assert_null(p.ts);
    assert_non_null(p.overrides);
    assert_int_equal(p.overrides[0], 'b'); /* the quotes are gone */
    assert_int_equal(p.host_blocks, 3);
    engine_fit_plan_free(&p);
}

static void test_plan_dense_and_split(void **state)
{
    (void)state;
    engine_fit_plan p;
    assert_int_equal(engine_fit_plan_parse("-c 8192 -ngl 20\n", &p, NULL), 0);
    assert_int_equal(p.ngl, 20);
    assert_null(p.overrides);
    assert_int_equal(p.host_blocks, 0);
    engine_fit_plan_free(&p);
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl 33 -ts 20,13\n", &p, NULL), 0);
    assert_string_equal(p.ts, "20,13");
    engine_fit_plan_free(&p);
    /* a flag given twice: the last counts, the first is freed (fuzz_fitplan found it leaking) */
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl 33 -ts 3,1 -ts 1,1 -ot \"a\" -ot \"b\"\n", &p, NULL), 0);
    assert_string_equal(p.ts, "1,1");
    assert_string_equal(p.overrides, "b");
    engine_fit_plan_free(&p);
    /* an entry on a device buffer does not count as on the host */
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl 9 -ot \"blk\\.3\\.ffn_up_exps=CUDA1,blk\\.4\\.ffn_up_exps=CPU\"",
                                           &p, NULL), 0);
    assert_int_equal(p.host_blocks, 1);
    engine_fit_plan_free(&p);
}

static void test_plan_errors(void **state)
{
    (void)state;
    engine_fit_plan p;
    lvd_err err = {{0}};
    assert_int_equal(engine_fit_plan_parse("main: failed to fit CLI arguments to free memory, exiting...\n", &p, &err), -1);
    assert_non_null(strstr(err.msg, "no plan"));
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl\n", &p, &err), -1);
    assert_int_equal(engine_fit_plan_parse("-c many -ngl 3\n", &p, &err), -1);
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ot\n", &p, &err), -1);
    /* an empty value is no value (the fuzzer's find: an empty -ts was kept as a split) */
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl 48 -ts \"\"\n", &p, &err), -1);
    assert_non_null(strstr(err.msg, "-ts without its value"));
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl 48 -ot \"\"\n", &p, &err), -1);
    assert_int_equal(engine_fit_plan_parse("-c -1 -ngl 3\n", &p, &err), -1); /* no context below 0 */
    assert_int_equal(engine_fit_plan_parse("-c 4096 -ngl -1\n", &p, &err), 0); /* -ngl -1: every layer */
    engine_fit_plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_plan_moe),
        cmocka_unit_test(test_plan_dense_and_split),
        cmocka_unit_test(test_plan_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
