/* test_argv.c: the llama.cpp command line every tool that starts an engine
 * builds from one set of engine parameters (lvd_params): llama-bench for lvd
 * bench (one arm, and a group of arms sharing a process), llama-bench's
 * one-token loads of lvd fit, llama-perplexity for lvd check and the
 * llama-server line lvd select prints. The expected words are what each tool
 * passed before one builder made them all: a build whose --help lists every
 * flag gets the same argv, byte for byte. */
#include "tests/support/testutil.h"

#include "bench/group.h"
#include "bench/invoke.h"
#include "check/check.h"
#include "fit/load.h"
#include "select/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words of v joined by single spaces (v freed). */
static char *joined(char **v)
{
    lvd_sb sb = {0};
    for (size_t i = 0; v && v[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", v[i]);
    lvd_strv_free(v);
    return lvd_sb_detach(&sb);
}

static void assert_words(char **v, const char *want)
{
    char *got = joined(v);
    if (strcmp(got, want))
        fail_msg("argv\n  got:  %s\n  want: %s", got, want);
    free(got);
}

/* Every parameter set: one device or two, fit or not. */
static lvd_params full_params(void)
{
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "CUDA0/CUDA1");
    snprintf(p.split_mode, sizeof p.split_mode, "row");
    snprintf(p.tensor_split, sizeof p.tensor_split, "0.60/0.40");
    p.ngl = 99;
    p.fa = 1;
    p.ubatch = 256;
    snprintf(p.type_k, sizeof p.type_k, "q8_0");
    snprintf(p.type_v, sizeof p.type_v, "q8_0");
    p.n_cpu_moe = 4;
    p.threads = 8;
    snprintf(p.env, sizeof p.env, "GGML_VK_VISIBLE_DEVICES=0");
    p.fit_target = 1024;
    p.fit_ctx = 4096;
    return p;
}

static lvd_params one_device(void)
{
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "Vulkan0");
    p.ngl = 33;
    p.fa = 0;
    snprintf(p.type_k, sizeof p.type_k, "q8_0");
    return p;
}

/* --- llama-bench: lvd bench ---------------------------------------------- */

static char **bench_words(const lvd_params *p, const bench_test *t, size_t n, int no_warmup)
{
    bench_arm a;
    memset(&a, 0, sizeof a);
    a.binary = "/e/llama-bench";
    a.params = *p;
    bench_invoke inv = {.model = "m.gguf", .tests = t, .n_tests = n, .reps = 5, .timeout_ms = 1,
                        .no_warmup = no_warmup};
    return bench_arm_argv(&a, &inv);
}

static void test_bench(void **state)
{
    (void)state;
    bench_test t[] = {{"pp512", 512, 0, 0}, {"tg128", 0, 128, 0}, {"pp512@d2048", 512, 0, 2048},
                      {"tg128@d2048", 0, 128, 2048}};
    lvd_params p = full_params(), q = one_device(), cpu;
    lvd_params_init(&cpu);
    assert_words(bench_words(&p, t, 4, 1),
                 "/e/llama-bench -m m.gguf -p 512 -n 128 -d 0,2048 -r 5 -o jsonl -v -dev CUDA0/CUDA1 -sm row"
                 " -ts 0.60/0.40 -ngl 99 -fa 1 -ub 256 -ctk q8_0 -ctv q8_0 -ncmoe 4 -fitt 1024 -fitc 4096 -t 8"
                 " --no-warmup");
    assert_words(bench_words(&q, t, 2, 0),
                 "/e/llama-bench -m m.gguf -p 512 -n 128 -r 5 -o jsonl -v -dev Vulkan0 -ngl 33 -fa 0 -ctk q8_0");
    assert_words(bench_words(&cpu, t + 1, 1, 0), "/e/llama-bench -m m.gguf -p 0 -n 128 -r 5 -o jsonl -v");
    p.fit_ctx = 0; /* -fitc only beside -fitt */
    assert_words(bench_words(&p, t, 1, 0),
                 "/e/llama-bench -m m.gguf -p 512 -n 0 -r 5 -o jsonl -v -dev CUDA0/CUDA1 -sm row -ts 0.60/0.40"
                 " -ngl 99 -fa 1 -ub 256 -ctk q8_0 -ctv q8_0 -ncmoe 4 -fitt 1024 -t 8");
    p.fit_target = 0;
    p.fit_ctx = 4096;
    assert_words(bench_words(&p, t, 1, 0),
                 "/e/llama-bench -m m.gguf -p 512 -n 0 -r 5 -o jsonl -v -dev CUDA0/CUDA1 -sm row -ts 0.60/0.40"
                 " -ngl 99 -fa 1 -ub 256 -ctk q8_0 -ctv q8_0 -ncmoe 4 -t 8");
}

/* Arms sharing one process: the context flags as comma lists. */
static void test_bench_group(void **state)
{
    (void)state;
    bench_arm arms[2];
    memset(arms, 0, sizeof arms);
    for (size_t i = 0; i < 2; i++) {
        arms[i].binary = "/e/llama-bench";
        arms[i].params = one_device();
        arms[i].params.threads = 4;
    }
    arms[1].params.fa = 1;
    bench_plan plan = {.arms = arms, .n_arms = 2};
    size_t members[] = {0, 1};
    bench_group g = {.arms = members, .n = 2, .abba = -1};
    bench_test t[] = {{"tg128", 0, 128, 0}};
    bench_invoke inv = {.model = "m.gguf", .tests = t, .n_tests = 1, .reps = 3, .timeout_ms = 1};
    assert_words(bench_group_argv(&plan, &g, &inv),
                 "/e/llama-bench -m m.gguf -p 0 -n 128 -r 3 -o jsonl -v -dev Vulkan0 -ngl 33 -fa 0,1 -ctk q8_0"
                 " -t 4");
}

/* --- llama-bench: lvd fit's one-token loads ----------------------------- */

static char **fit_words(const lvd_params *p, uint32_t ctx)
{
    fit_target t = {.binary = "/e/llama-bench", .model = "m.gguf", .timeout_ms = 1, .params = *p};
    return fit_load_argv(&t, ctx);
}

static void test_fit(void **state)
{
    (void)state;
    lvd_params p = full_params(), q = one_device(), cpu;
    lvd_params_init(&cpu);
    assert_words(fit_words(&p, 4096), "/e/llama-bench -m m.gguf -d 4094 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
                                      " -dev CUDA0/CUDA1 -ngl 99 -ncmoe 4 -ub 256 -ctk q8_0 -ctv q8_0");
    assert_words(fit_words(&q, 2), "/e/llama-bench -m m.gguf -d 0 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
                                   " -dev Vulkan0 -ngl 33 -ctk q8_0 -ctv f16");
    assert_words(fit_words(&cpu, 1000), "/e/llama-bench -m m.gguf -d 998 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
                                        " -ctk f16 -ctv f16");
}

/* --- llama-perplexity: lvd check ----------------------------------------- */

static void test_check(void **state)
{
    (void)state;
    check_opts o;
    check_opts_init(&o);
    o.model = "m.gguf";
    o.text = "t.txt";
    const char *bin = "/e/llama-perplexity";
    assert_words(check_argv(bin, &o, "/tmp/b", 0, NULL),
                 "/e/llama-perplexity -m m.gguf -f t.txt -c 128 --chunks 4 --kl-divergence-base /tmp/b");
    assert_words(check_argv(bin, &o, "/tmp/b", 0, "none"),
                 "/e/llama-perplexity -m m.gguf -f t.txt -c 128 --chunks 4 --kl-divergence-base /tmp/b"
                 " -ngl 0 -dev none");
    assert_words(check_argv(bin, &o, "/tmp/b", 1, "Vulkan0"),
                 "/e/llama-perplexity -m m.gguf -f t.txt -c 128 --chunks 4 --kl-divergence-base /tmp/b"
                 " --kl-divergence -ngl 99 -dev Vulkan0");
    assert_words(check_argv(bin, &o, "/tmp/b", 1, NULL),
                 "/e/llama-perplexity -m m.gguf -f t.txt -c 128 --chunks 4 --kl-divergence-base /tmp/b"
                 " --kl-divergence");
}

/* --- llama-server: the line lvd select prints ----------------------------- */

static char **server_words(const lvd_params *p, uint32_t ctx, int gpu)
{
    sel_launch l;
    lvd_err err = {0};
    if (sel_launch_build("/e/", "m.gguf", p, ctx, gpu, &l, &err))
        fail_msg("%s", err.msg);
    char **v = l.argv;
    l.argv = NULL;
    sel_launch_free(&l);
    return v;
}

static void test_server(void **state)
{
    (void)state;
    lvd_params p = full_params(), q = one_device(), cpu;
    lvd_params_init(&cpu);
    assert_words(server_words(&p, 4096, 1),
                 "/e/llama-server -m m.gguf --device CUDA0,CUDA1 -sm row -ts 0.60,0.40 -ngl 99 --n-cpu-moe 4"
                 " --fit on -fitt 1024 -fitc 4096 -ub 256 -fa on -ctk q8_0 -ctv q8_0 -t 8 -c 4096");
    assert_words(server_words(&p, 0, 0), "/e/llama-server -m m.gguf -ub 256 -fa on -ctk q8_0 -ctv q8_0 -t 8");
    q.type_v[0] = '\0';
    assert_words(server_words(&q, 2048, 1),
                 "/e/llama-server -m m.gguf --device Vulkan0 -ngl 33 -fa off -ctk q8_0 -c 2048");
    assert_words(server_words(&cpu, 0, 1), "/e/llama-server -m m.gguf");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench), cmocka_unit_test(test_bench_group), cmocka_unit_test(test_fit),
        cmocka_unit_test(test_check), cmocka_unit_test(test_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
