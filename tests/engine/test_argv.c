/* test_argv.c: the llama.cpp command line every tool that starts an engine
 * builds from one set of engine parameters (lvd_params, engine/argv.h):
 * llama-bench for lvd bench (one arm, and a group of arms sharing a
 * process), llama-bench's one-token loads of lvd fit, llama-perplexity for
 * lvd check and the llama-server line lvd select prints. The expected words
 * of the first tests are what each tool passed before one builder made them
 * all: a build whose --help lists every flag gets the same argv, byte for
 * byte. Then what a build's --help lists (engine/help.h, the real b4547,
 * b9749 and b10587 texts): parsed, recorded and read back, nothing lost on
 * today's builds, a missing flag left out and said, llama-server's old -fa
 * switch (b4547's), and a word a run needs refused. */
#include "tests/support/testutil.h"

#include "bench/group.h"
#include "bench/invoke.h"
#include "check/check.h"
#include "engine/argv.h"
#include "engine/help.h"
#include "fit/load.h"
#include "select/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    lvd_params p = tu_params_every(), q = one_device(), cpu;
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
    lvd_params p = tu_params_every(), q = one_device(), cpu;
    lvd_params_init(&cpu);
    assert_words(fit_words(&p, 4096), "/e/llama-bench -m m.gguf -d 4095 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
                                      " -dev CUDA0/CUDA1 -ngl 99 -ncmoe 4 -ub 256 -ctk q8_0 -ctv q8_0");
    assert_words(fit_words(&q, 2), "/e/llama-bench -m m.gguf -d 1 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
                                   " -dev Vulkan0 -ngl 33 -ctk q8_0 -ctv f16");
    assert_words(fit_words(&cpu, 1000), "/e/llama-bench -m m.gguf -d 999 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
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
    if (sel_launch_build("/e/", NULL, "m.gguf", p, ctx, gpu, &l, &err))
        fail_msg("%s", err.msg);
    char **v = l.argv;
    l.argv = NULL;
    sel_launch_free(&l);
    return v;
}

static void test_server(void **state)
{
    (void)state;
    lvd_params p = tu_params_every(), q = one_device(), cpu;
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

/* --- what a build's --help lists (engine/help.h) -------------------------- */

/* The help of a real build's tools (tests/fixtures/llama.cpp/BUILD/TOOL-help.stdout). */
static void read_help(engine_help *h, const char *build)
{
    static const struct {
        engine_tool tool;
        const char *file;
    } tools[] = {{ENGINE_TOOL_BENCH, "bench-help"}, {ENGINE_TOOL_SERVER, "server-help"},
                 {ENGINE_TOOL_PERPLEXITY, "perplexity-help"}};
    memset(h, 0, sizeof *h);
    for (size_t i = 0; i < LVD_ARRAY_LEN(tools); i++) {
        char *rel = lvd_xasprintf("llama.cpp/%s/%s.stdout", build, tools[i].file);
        char *path = tu_fixture(rel);
        size_t n;
        char *text = access(path, R_OK) == 0 ? tu_read(path, &n) : NULL;
        if (text)
            engine_help_parse(h, tools[i].tool, text);
        free(text);
        free(path);
        free(rel);
    }
}

static void assert_arg(const engine_help *h, engine_tool t, const char *name, const char *arg)
{
    const engine_opt *o = engine_help_opt(h, t, name);
    if (!o)
        fail_msg("%s: %s not listed", engine_tool_name(t), name);
    assert_string_equal(o->arg, arg);
}

/* The real help texts of two builds: each option line with its spellings
 * and argument, a switch without one, the description never read as one. */
static void test_help_parse(void **state)
{
    (void)state;
    engine_help h;
    read_help(&h, "cpu-build-b10587");
    for (int t = 0; t < ENGINE_TOOL_FIT_PARAMS; t++)
        assert_true(h.known[t]);
    assert_false(h.known[ENGINE_TOOL_FIT_PARAMS]);
    assert_arg(&h, ENGINE_TOOL_BENCH, "-fa", "<on|off|auto>");
    assert_arg(&h, ENGINE_TOOL_BENCH, "--n-cpu-moe", "<n>");
    assert_arg(&h, ENGINE_TOOL_BENCH, "-sm", "<none|layer|row|tensor>");
    assert_arg(&h, ENGINE_TOOL_BENCH, "--no-warmup", "");
    assert_arg(&h, ENGINE_TOOL_BENCH, "-v", "");
    assert_arg(&h, ENGINE_TOOL_SERVER, "-fa", "[on|off|auto]");
    assert_arg(&h, ENGINE_TOOL_SERVER, "--n-gpu-layers", "N");
    assert_arg(&h, ENGINE_TOOL_SERVER, "-sm", "{none,layer,row,tensor}");
    assert_arg(&h, ENGINE_TOOL_SERVER, "--fit", "[on|off]");
    assert_arg(&h, ENGINE_TOOL_PERPLEXITY, "--kl-divergence-base", "FNAME");
    assert_arg(&h, ENGINE_TOOL_PERPLEXITY, "--save-all-logits", "FNAME");
    assert_arg(&h, ENGINE_TOOL_PERPLEXITY, "--kl-divergence", "");
    assert_null(engine_help_opt(&h, ENGINE_TOOL_BENCH, "-ncmoed"));
    assert_null(engine_help_opt(&h, ENGINE_TOOL_BENCH, "--kl-divergence"));
    engine_help_free(&h);
    read_help(&h, "cpu-build-b9749");
    assert_true(h.known[ENGINE_TOOL_BENCH] && h.known[ENGINE_TOOL_SERVER]);
    assert_false(h.known[ENGINE_TOOL_PERPLEXITY]);
    assert_arg(&h, ENGINE_TOOL_BENCH, "-fitt", "<MiB>");
    assert_arg(&h, ENGINE_TOOL_SERVER, "--device", "<dev1,dev2,..>");
    engine_help_free(&h);
    /* no -m: not a help this reads */
    engine_help_parse(&h, ENGINE_TOOL_BENCH, "error: invalid parameter for argument: --help\n  -ngl N\n");
    assert_false(h.known[ENGINE_TOOL_BENCH]);
    engine_help_free(&h);
}

/* The record a probe keeps reads back as what it was made of, only the
 * flags llama-verdict passes in it; another version is nothing known. */
static void test_help_record(void **state)
{
    (void)state;
    engine_help h, back;
    read_help(&h, "cpu-build-b10587");
    char *rec = engine_help_record(&h);
    assert_true(engine_help_current(rec));
    assert_null(strstr(rec, "--rope-scaling")); /* not ours to pass */
    engine_help_load(rec, &back);
    for (int t = 0; t < ENGINE_TOOL_COUNT; t++)
        assert_int_equal(back.known[t], h.known[t]);
    assert_arg(&back, ENGINE_TOOL_SERVER, "-fa", "[on|off|auto]");
    assert_arg(&back, ENGINE_TOOL_SERVER, "--n-cpu-moe", "N");
    assert_arg(&back, ENGINE_TOOL_SERVER, "-np", "N"); /* a serving verdict's slots */
    assert_arg(&back, ENGINE_TOOL_PERPLEXITY, "--kl-divergence-base", "FNAME");
    char *again = engine_help_record(&back);
    assert_string_equal(again, rec);
    engine_help_free(&back);
    rec[10] = '9'; /* "lvd-flags 9" */
    engine_help_load(rec, &back);
    assert_false(engine_help_current(rec));
    assert_false(back.known[ENGINE_TOOL_BENCH]);
    assert_null(engine_help_opt(&back, ENGINE_TOOL_BENCH, "-m"));
    engine_help_load(NULL, &back);
    assert_false(back.known[ENGINE_TOOL_SERVER]);
    free(again);
    free(rec);
    engine_help_free(&h);
}

/* One run built over a help. */
static char *built(const engine_run *r, char **note)
{
    engine_argv a;
    lvd_err err = {{0}};
    if (engine_argv_build(r, &a, &err) != 0)
        fail_msg("%s", err.msg);
    *note = a.note;
    a.note = NULL;
    char **v = a.argv;
    a.argv = NULL;
    engine_argv_free(&a);
    return joined(v);
}

/* The builds of today list every flag: the same words as with no help at
 * all, and nothing said. */
static void test_real_builds_lose_nothing(void **state)
{
    (void)state;
    static const char *const builds[] = {"cpu-build-b9749", "cpu-build-b10587"};
    for (size_t b = 0; b < LVD_ARRAY_LEN(builds); b++) {
        engine_help h;
        read_help(&h, builds[b]);
        engine_run runs[] = {
            {.kind = ENGINE_RUN_BENCH, .binary = "/e/llama-bench", .model = "m", .params = tu_params_every(),
             .n_prompt = "512", .n_gen = "128", .n_depth = "0,2048", .reps = 5, .no_warmup = 1, .progress = 1},
            {.kind = ENGINE_RUN_SERVER, .binary = "/e/llama-server", .model = "m", .params = tu_params_every(),
             .ctx = 4096, .gpu = 1},
            {.kind = ENGINE_RUN_PERPLEXITY, .binary = "/e/llama-perplexity", .model = "m", .params = one_device(),
             .text = "t", .ctx = 128, .chunks = 4, .kld_base = "b", .kld = 1},
        };
        for (size_t i = 0; i < LVD_ARRAY_LEN(runs); i++) {
            char *note, *plain, *listed;
            plain = built(&runs[i], &note);
            assert_null(note);
            runs[i].help = &h;
            listed = built(&runs[i], &note);
            if (h.known[engine_run_tool(runs[i].kind)]) {
                assert_string_equal(listed, plain);
                assert_null(note);
            }
            free(plain);
            free(listed);
            free(note);
        }
        engine_help_free(&h);
    }
}

/* A help of one tool, from its text. */
static engine_help parsed(engine_tool tool, const char *text)
{
    engine_help h = {.opts = NULL};
    engine_help_parse(&h, tool, text);
    return h;
}

/* A real build's help as its probe's record keeps it, read back. */
static void recorded(engine_help *h, const char *build)
{
    engine_help real;
    read_help(&real, build);
    char *rec = engine_help_record(&real);
    engine_help_load(rec, h);
    free(rec);
    engine_help_free(&real);
}

/* 1 when a and b are the same string, or both NULL. */
static int same(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Runs built over what a build's --help lists: a flag it lacks left out and
 * said (an alias it lists passed in its place), llama-server's -fa switch
 * (b4547's), a serving verdict's slots, and what b4547's tools lack. Each
 * case's words, and its note (NULL: nothing said). */
static void test_runs_over_help(void **state)
{
    (void)state;
    /* a llama-bench without -ncmoe and llama.cpp's fit, -ngl only as --n-gpu-layers */
    engine_help nofit = parsed(ENGINE_TOOL_BENCH,
                               "  -m, --model <filename>\n  -p, --n-prompt <n>\n  -n, --n-gen <n>\n"
                               "  -r, --repetitions <n>\n  -o, --output <csv|json|jsonl|md|sql>\n"
                               "  -v, --verbose       verbose output\n  -dev, --device <dev0/dev1/...>\n"
                               "  --n-gpu-layers <n>\n  -fa, --flash-attn <0|1>\n");
    /* llama-server's -fa before it took a value (a switch, off by default) */
    engine_help fa_switch =
        parsed(ENGINE_TOOL_SERVER,
               "-m,    --model FNAME                    model path (default: models/7B/ggml-model-f16.gguf)\n"
               "-fa,   --flash-attn                     enable Flash Attention (default: disabled)\n"
               "-ngl,  --gpu-layers, --n-gpu-layers N   number of layers to store in VRAM\n");
    /* a llama-server without -np */
    engine_help no_np = parsed(ENGINE_TOOL_SERVER,
                               "-m,    --model FNAME                    model path\n"
                               "-c,    --ctx-size N                     size of the prompt context\n");
    engine_help b10587, b4547;
    recorded(&b10587, "cpu-build-b10587"); /* lists -np */
    read_help(&b4547, "cpu-build-b4547");
    lvd_params moe = one_device(), moe_fa, fa_on, fa_off, slots;
    moe.n_cpu_moe = 4;
    moe_fa = moe;
    moe_fa.fa = 1;
    moe.fit_target = 1024;
    lvd_params_init(&fa_on);
    fa_on.fa = 1;
    fa_off = fa_on;
    fa_off.fa = 0;
    lvd_params_init(&slots);
    slots.parallel = 4;
    const struct {
        const char *what;
        engine_run run;
        const char *words, *note;
    } cases[] = {
        {"no -ncmoe, no fit",
         {.kind = ENGINE_RUN_BENCH, .binary = "/e/llama-bench", .model = "m", .params = moe, .help = &nofit,
          .n_prompt = "512", .n_gen = "0", .reps = 3, .no_warmup = 1},
         "/e/llama-bench -m m -p 512 -n 0 -r 3 -o jsonl -v -dev Vulkan0 --n-gpu-layers 33 -fa 0",
         "left out -ctk q8_0, -ncmoe 4, -fitt 1024, --no-warmup: not in llama-bench's --help"},
        {"-fa switch, on: the bare flag",
         {.kind = ENGINE_RUN_SERVER, .binary = "/e/llama-server", .model = "m", .params = fa_on, .help = &fa_switch,
          .gpu = 1},
         "/e/llama-server -m m -fa", NULL},
        {"-fa switch, off: nothing",
         {.kind = ENGINE_RUN_SERVER, .binary = "/e/llama-server", .model = "m", .params = fa_off, .help = &fa_switch,
          .gpu = 1},
         "/e/llama-server -m m", NULL},
        {"slots: -np N last",
         {.kind = ENGINE_RUN_SERVER, .binary = "/e/llama-server", .model = "m", .params = slots, .help = &b10587,
          .ctx = 4096},
         "/e/llama-server -m m -c 4096 -np 4", NULL},
        {"slots, no -np listed",
         {.kind = ENGINE_RUN_SERVER, .binary = "/e/llama-server", .model = "m", .params = slots, .help = &no_np,
          .ctx = 4096},
         "/e/llama-server -m m -c 4096", "left out -np 4: not in llama-server's --help"},
        {"slots: never a llama-bench word",
         {.kind = ENGINE_RUN_BENCH, .binary = "/e/llama-bench", .model = "m", .params = slots, .n_prompt = "512",
          .n_gen = "0", .reps = 1},
         "/e/llama-bench -m m -p 512 -n 0 -r 1 -o jsonl -v", NULL},
        {"b4547's llama-bench",
         {.kind = ENGINE_RUN_BENCH, .binary = "/e/llama-bench", .model = "m", .params = moe_fa, .help = &b4547,
          .n_prompt = "512", .n_gen = "128", .reps = 5, .no_warmup = 1},
         "/e/llama-bench -m m -p 512 -n 128 -r 5 -o jsonl -v -ngl 33 -fa 1 -ctk q8_0",
         "left out -dev Vulkan0, -ncmoe 4, --no-warmup: not in llama-bench's --help"},
        {"b4547's llama-server",
         {.kind = ENGINE_RUN_SERVER, .binary = "/e/llama-server", .model = "m", .params = tu_params_every(),
          .help = &b4547, .ctx = 4096, .gpu = 1},
         "/e/llama-server -m m --device CUDA0,CUDA1 -sm row -ts 0.60,0.40 -ngl 99 -ub 256 -fa -ctk q8_0 -ctv q8_0"
         " -t 8 -c 4096",
         "left out --n-cpu-moe 4, --fit on, -fitt 1024, -fitc 4096: not in llama-server's --help"},
        {"b4547's llama-perplexity",
         {.kind = ENGINE_RUN_PERPLEXITY, .binary = "/e/llama-perplexity", .model = "m", .params = one_device(),
          .help = &b4547, .text = "t", .ctx = 128, .chunks = 4, .kld_base = "b", .kld = 1},
         "/e/llama-perplexity -m m -f t -c 128 --chunks 4 --kl-divergence-base b --kl-divergence -ngl 33 -dev Vulkan0",
         NULL},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        char *note, *words = built(&cases[i].run, &note);
        if (!same(words, cases[i].words) || !same(note, cases[i].note))
            fail_msg("%s\n  got:  %s\n        note: %s\n  want: %s\n        note: %s", cases[i].what, words,
                     note ? note : "(none)", cases[i].words, cases[i].note ? cases[i].note : "(none)");
        free(words);
        free(note);
    }
    engine_help *helps[] = {&nofit, &fa_switch, &no_np, &b10587, &b4547};
    for (size_t i = 0; i < LVD_ARRAY_LEN(helps); i++)
        engine_help_free(helps[i]);
}

/* lvd fit's loads over a build whose llama-bench lists no -d (a word they
 * need): refused with one line, no argv. */
static void assert_fit_refused(const engine_help *h)
{
    char *rec = engine_help_record(h);
    fit_target t = {.binary = "/e/llama-bench", .model = "m", .flags = rec, .timeout_ms = 1};
    lvd_params_init(&t.params);
    engine_argv a;
    lvd_err err = {{0}};
    assert_int_equal(fit_load_cmd(&t, 4096, &a, &err), -1);
    assert_string_equal(err.msg, "/e/llama-bench: its --help lists no -d, which this run needs");
    assert_null(a.argv);
    assert_null(fit_load_argv(&t, 4096));
    free(rec);
}

/* b4547 (Jan 2025): every tool's help read (what its lines leave out:
 * test_runs_over_help), and lvd fit's loads, which need -d, refused. */
static void test_b4547(void **state)
{
    (void)state;
    engine_help h;
    read_help(&h, "cpu-build-b4547");
    for (int t = 0; t < ENGINE_TOOL_FIT_PARAMS; t++)
        assert_true(h.known[t]);
    assert_fit_refused(&h);
    engine_help_free(&h);
}

/* A word the run cannot do without is an error, not a note: lvd fit's
 * loads on a llama-bench without -d. */
static void test_needed(void **state)
{
    (void)state;
    engine_help h = parsed(ENGINE_TOOL_BENCH, "  -m, --model <filename>\n  -p, --n-prompt <n>\n  -n, --n-gen <n>\n"
                                              "  -r, --repetitions <n>\n  -o, --output <csv|json|jsonl|md|sql>\n");
    assert_fit_refused(&h);
    engine_help_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench),        cmocka_unit_test(test_bench_group),
        cmocka_unit_test(test_fit),          cmocka_unit_test(test_check),
        cmocka_unit_test(test_server),       cmocka_unit_test(test_help_parse),
        cmocka_unit_test(test_help_record),  cmocka_unit_test(test_real_builds_lose_nothing),
        cmocka_unit_test(test_runs_over_help), cmocka_unit_test(test_needed),
        cmocka_unit_test(test_b4547),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
