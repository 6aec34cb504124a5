/* test_argv_ik.c: the command lines of engine/argv.c built from ik_llama.cpp's
 * real --help (tests/fixtures/llama.cpp/cpu-build-ik4840/): llama-bench asked
 * for -o json (no jsonl) with tg at depth as -gp and pp at depth left out,
 * and llama-perplexity's long-only options (listed in its long names' column)
 * passed, not refused, --kl-divergence-base too (taken, named only in
 * --kl-divergence's line); its knobs: llama-bench's -fmoe 0|1 and -rtr 0|1,
 * llama-server's -no-fmoe and -rtr switches (fused MoE on is its default:
 * nothing passed), and mainline's tools, which list neither, never given them. */
#include "tests/support/testutil.h"

#include "engine/argv.h"
#include "engine/help.h"

#include <stdlib.h>
#include <string.h>

static void load_help_of(engine_help *h, engine_tool tool, const char *build, const char *file)
{
    char *rel = lvd_xasprintf("%s/%s", build, file), *text = tu_capture_text(rel);
    engine_help_parse(h, tool, text);
    free(text);
    free(rel);
}

static void load_help(engine_help *h, engine_tool tool, const char *file)
{
    load_help_of(h, tool, "cpu-build-ik4840", file);
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

/* The line r builds with fused MoE fmoe and repacking rtr (-1: not passed). */
static char *knob_line(engine_run *r, int fmoe, int rtr)
{
    r->params.fused_moe = fmoe;
    r->params.repack = rtr;
    engine_argv a;
    lvd_err err = {{0}};
    if (engine_argv_build(r, &a, &err) != 0)
        fail_msg("%s", err.msg);
    char *line = joined(&a);
    if (a.note) {
        char *with = lvd_xasprintf("%s [%s]", line, a.note);
        free(line);
        line = with;
    }
    engine_argv_free(&a);
    return line;
}

static void test_knobs(void **state)
{
    (void)state;
    engine_help h = {0};
    load_help(&h, ENGINE_TOOL_BENCH, "bench-help.stdout");
    load_help(&h, ENGINE_TOOL_SERVER, "server-help.stdout");
    assert_true(engine_argv_listed(&h, ENGINE_TOOL_BENCH, "-fmoe"));
    assert_true(engine_argv_listed(&h, ENGINE_TOOL_BENCH, "--run-time-repack"));
    assert_false(engine_argv_listed(&h, ENGINE_TOOL_SERVER, "-fmoe"));
    assert_true(engine_argv_listed(&h, ENGINE_TOOL_SERVER, "-no-fmoe"));
    assert_false(engine_argv_listed(&h, ENGINE_TOOL_PERPLEXITY, "-rtr")); /* not read: not known */
    engine_run b = {.kind = ENGINE_RUN_BENCH, .binary = "llama-bench", .model = "m.gguf", .help = &h,
                    .n_prompt = "512", .n_gen = "0", .reps = 3};
    lvd_params_init(&b.params);
    char *line = knob_line(&b, 0, 1);
    assert_string_equal(line, "-m m.gguf -p 512 -n 0 -r 3 -o json -v -fmoe 0 -rtr 1");
    free(line);
    line = knob_line(&b, -1, -1);
    assert_string_equal(line, "-m m.gguf -p 512 -n 0 -r 3 -o json -v");
    free(line);
    engine_run s = {.kind = ENGINE_RUN_SERVER, .binary = "llama-server", .model = "m.gguf", .help = &h, .ctx = 4096};
    lvd_params_init(&s.params);
    const struct {
        int fmoe, rtr;
        const char *want;
    } server[] = {
        {0, 0, "-m m.gguf -c 4096 -no-fmoe"},
        {1, 1, "-m m.gguf -c 4096 -rtr"}, /* fused MoE on: its default, nothing to say */
        {0, 1, "-m m.gguf -c 4096 -no-fmoe -rtr"},
        {-1, -1, "-m m.gguf -c 4096"},
    };
    for (size_t i = 0; i < sizeof server / sizeof server[0]; i++) {
        line = knob_line(&s, server[i].fmoe, server[i].rtr);
        assert_string_equal(line, server[i].want);
        free(line);
    }
    engine_help_free(&h);
    /* mainline lists neither: a knob that reached its line is left out, and said */
    load_help_of(&h, ENGINE_TOOL_BENCH, "cpu-build-b10587", "bench-help.stdout");
    assert_false(engine_argv_listed(&h, ENGINE_TOOL_BENCH, "-fmoe"));
    line = knob_line(&b, 1, 1);
    assert_string_equal(line, "-m m.gguf -p 512 -n 0 -r 3 -o jsonl -v [left out -fmoe 1, -rtr 1: not in "
                              "llama-bench's --help]");
    free(line);
    engine_help_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_json_and_gp),
        cmocka_unit_test(test_perplexity_long_only_options),
        cmocka_unit_test(test_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
