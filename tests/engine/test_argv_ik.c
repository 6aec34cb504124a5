/* test_argv_ik.c: the command lines of engine/argv.c built from ik_llama.cpp's
 * real --help (tests/fixtures/llama.cpp/cpu-build-ik4840/): llama-bench asked
 * for -o json (no jsonl) with tg at depth as -gp and pp at depth left out,
 * and llama-perplexity's long-only options (listed in its long names' column)
 * passed, not refused, --kl-divergence-base too (taken, named only in
 * --kl-divergence's line). */
#include "tests/support/testutil.h"

#include "engine/argv.h"
#include "engine/help.h"

#include <stdlib.h>
#include <string.h>

static void load_help(engine_help *h, engine_tool tool, const char *file)
{
    char *rel = lvd_xasprintf("cpu-build-ik4840/%s", file), *text = tu_capture_text(rel);
    engine_help_parse(h, tool, text);
    free(text);
    free(rel);
}

static char *joined(const engine_argv *a)
{
    lvd_sb sb = {0};
    for (size_t i = 1; i < a->argc; i++)
        lvd_sb_addf(&sb, "%s%s", i > 1 ? " " : "", a->argv[i]);
    return lvd_sb_detach(&sb);
}

static void test_bench_json_and_gp(void **state)
{
    (void)state;
    engine_help h = {0};
    load_help(&h, ENGINE_TOOL_BENCH, "bench-help.stdout");
    engine_run r = {.kind = ENGINE_RUN_BENCH, .binary = "llama-bench", .model = "m.gguf", .help = &h,
                    .n_prompt = "512", .n_gen = "128", .n_depth = "0,2048", .reps = 5, .no_warmup = 1};
    lvd_params_init(&r.params);
    engine_argv a;
    lvd_err err = {{0}};
    assert_int_equal(engine_argv_build(&r, &a, &err), 0);
    char *line = joined(&a);
    assert_string_equal(line, "-m m.gguf -p 512 -n 128 -gp 2048,128 -r 5 -o json -v");
    assert_non_null(a.note);
    assert_non_null(strstr(a.note, "-d 2048"));
    assert_non_null(strstr(a.note, "--no-warmup"));
    free(line);
    engine_argv_free(&a);
    /* no depth 0 asked: the tests at depth alone */
    r.n_depth = "2048";
    assert_int_equal(engine_argv_build(&r, &a, &err), 0);
    line = joined(&a);
    assert_string_equal(line, "-m m.gguf -p 0 -n 0 -gp 2048,128 -r 5 -o json -v");
    free(line);
    engine_argv_free(&a);
    engine_help_free(&h);
}

static void test_perplexity_long_only_options(void **state)
{
    (void)state;
    engine_help h = {0};
    load_help(&h, ENGINE_TOOL_PERPLEXITY, "perplexity-help.stdout");
    assert_non_null(engine_help_opt(&h, ENGINE_TOOL_PERPLEXITY, "--chunks"));
    assert_non_null(engine_help_opt(&h, ENGINE_TOOL_PERPLEXITY, "--kl-divergence"));
    /* taken but not listed: --kl-divergence's line names it */
    assert_null(engine_help_opt(&h, ENGINE_TOOL_PERPLEXITY, "--kl-divergence-base"));
    assert_null(engine_help_opt(&h, ENGINE_TOOL_PERPLEXITY, "-ngl")); /* a CPU build: no GPU offload */
    engine_run r = {.kind = ENGINE_RUN_PERPLEXITY, .binary = "llama-perplexity", .model = "m.gguf", .help = &h,
                    .text = "t.txt", .ctx = 128, .chunks = 4, .kld_base = "k.bin"};
    lvd_params_init(&r.params);
    engine_argv a;
    lvd_err err = {{0}};
    if (engine_argv_build(&r, &a, &err) != 0)
        fail_msg("%s", err.msg);
    char *line = joined(&a);
    assert_string_equal(line, "-m m.gguf -f t.txt -c 128 --chunks 4 --kl-divergence-base k.bin");
    free(line);
    engine_argv_free(&a);
    engine_help_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_json_and_gp),
        cmocka_unit_test(test_perplexity_long_only_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
