/* lvd-bench.c: the `lvd bench` tool. Measures every arm (engine x device x
 * parameters) of a model with llama-bench, adaptively, until the statistics
 * decide, and records every run in the store; with --check, checks every
 * device against the CPU first (check/check.h). Option parsing only; the
 * work is bench/plan.c, bench/runner.c, bench/report.c and check/check.c. */
#include "bench/alloc.h"
#include "bench/depth.h"
#include "bench/energy.h"
#include "bench/fitarm.h"
#include "bench/plan.h"
#include "bench/report.h"
#include "bench/runner.h"
#include "check/check.h"
#include "common/cli.h"
#include "common/paths.h"
#include "common/uid.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "engine/hostfacts.h"
#include "placement/correction.h"
#include "store/factsdb.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-bench"

typedef struct int_list {
    int *v;
    size_t n;
} int_list;

typedef struct options {
    lvd_tool_opts t;    /* --store, --json */
    const char *model;
    const char *engines;
    const char *tests;
    const char *n_prompt, *n_gen; /* -p, -n */
    int_list ngl, fa, ub, ncmoe, depth;
    char **ctk, **ctv, **sm;
    size_t n_ctk, n_ctv, n_sm;
    char *ts;           /* -ts in llama-bench's spelling "3/1" */
    int kv_mixed;       /* --kv-mixed */
    int64_t ctx;        /* -c: the serving context; -1 = lvd select's default */
    const char **env;
    size_t n_env;
    int threads;
    int reps;
    int64_t budget_s;
    int64_t max_samples;
    int64_t min_samples;  /* --min-samples: the first look's kept samples; 0 = the rule's */
    int64_t timeout_s;
    const char *session;
    int resume;         /* --resume: the session's runs already recorded count */
    int64_t wait_s;     /* --wait: how long to wait for the device lock */
    stats_objective objective;
    int check;          /* --check: lvd check's run first */
    int64_t energy_idle_ms; /* --energy-idle: the idle baseline's length; -1 = no energy */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd bench -m M.gguf [--engines all|NAME,...] [--tests pp512,tg128 | -p N,... -n N,...]\n"
            "                 [-c CTX] [-d N,...] [-ngl N,...] [-fa on,off] [-ub N,...]\n"
            "                 [-ctk T,...] [-ctv T,...] [--kv-mixed] [-ncmoe N,...]\n"
            "                 [-sm layer,row,tensor] [-ts N/N] [-t N] [--env K=V]... [-r N]\n"
            "                 [--budget 15m] [--max-samples 30] [--min-samples 3] [--timeout 300]\n"
            "                 [--session ID [--resume]] [--wait DUR]"
            "\n"
            "                 [--objective tg|pp|W|tpj|ppj|wj=W] [--energy-idle 3s|off] [--check]\n"
            "                 [--json] [--store PATH]\n\n"
            "Runs llama-bench for every arm (engine x device x parameter set) of the model in\n"
            "interleaved rounds (A B C, C B A, ...) until the statistics decide which arm is\n"
            "fastest, and records every repetition in the store. Only engines whose probe shows\n"
            "devices get GPU arms (device selectors from that engine's own probe); a CPU-only\n"
            "engine gets one CPU arm; engines that cannot be probed are skipped and recorded.\n"
            "An arm that asks for a GPU and runs on the CPU is flagged GPU FLAGS IGNORED.\n"
            "When a device cannot hold the model whole, placement chooses -ngl/-ncmoe/-ub (keeping\n"
            "each backend's margin correction from the allocations in the store), a load that runs\n"
            "out of memory gets the next rung in the same session, and where llama-bench has -fitt a\n"
            "\"llama.cpp fit\" arm runs beside ours (the report says which placement is faster).\n"
            "A device measured without a correctness check (lvd check) cannot win a verdict:\n"
            "the bench warns at the end, naming the lvd check command; --check runs it first.\n\n"
            "options:\n"
            "  -m, --model PATH   the GGUF model (identified by its sha256)\n"
            "  --engines LIST     registered engines by name or id (default all)\n"
            "  --tests LIST       llama-bench tests, ppN and tgN (default pp512,tg128)\n"
            "  -p, --n-prompt LIST, -n, --n-gen LIST\n"
            "                     the tests as llama-bench's -p and -n give them (pp for each\n"
            "                     -p, tg for each -n; defaults 512 and 128, 0 = none)\n"
            "  -c, --ctx-size, --ctx N\n"
            "                     the context the service will run with (default what lvd select\n"
            "                     launches with: min(4096, the trained context); 0 = the trained\n"
            "                     context); placement places for it\n"
            "  -d, --n-depth, --depth LIST\n"
            "                     context depths to measure every test at (default 0 and half of\n"
            "                     -c: pp512, tg128, pp512@dD, tg128@dD); the objective is decided\n"
            "                     at the deepest, the serving depth\n"
            "  -ngl, --n-gpu-layers, --ngl LIST\n"
            "                     -ngl values for GPU arms (default 99, or the placement rung\n"
            "                     when the model does not fit the device's free memory)\n"
            "  -fa, --flash-attn, --fa LIST\n"
            "                     flash attention: on, off, 1, 0 (default on,off)\n"
            "  -ub, --ubatch-size, --ub LIST; -ctk, --cache-type-k, --ctk LIST;\n"
            "  -ctv, --cache-type-v, --ctv LIST; -ncmoe, --n-cpu-moe, --ncmoe LIST\n"
            "                     more GPU parameter lists (default: not passed); cache types go\n"
            "                     in matched pairs (-ctk q8_0 -ctv q8_0); a quantized -ctv needs\n"
            "                     -fa on (refused with -fa off)\n"
            "  --kv-mixed         also mixed K/V cache types (-ctk x -ctv; a known slow path)\n"
            "  -sm, --split-mode, --sm LIST\n"
            "                     split modes of the arms over several GPUs (default layer,row and\n"
            "                     tensor where the engine's llama-bench --help lists it)\n"
            "  -ts, --tensor-split, --ts N/N[/N]\n"
            "                     -ts of those arms (default: each device's free memory)\n"
            "  -t, --threads N    -t for every arm\n"
            "  --env K=V[ K2=V2]  an environment variant measured beside the baseline (repeatable;\n"
            "                     GGML_VK_* reaches Vulkan arms only, GGML_CUDA_* CUDA only)\n"
            "  -r, --repetitions, --reps N\n"
            "                     repetitions per invocation (default: chosen from the measured load\n"
            "                     and sample costs, said in the report)\n"
            "  --budget DUR       stop starting runs after DUR (default 15m; 0 = none)\n"
            "  --max-samples N    kept samples per arm and test before giving up (default 30)\n"
            "  --min-samples N    kept samples per arm at its first look (default 3, the fewest a\n"
            "                     win needs; 5 gives a tie, and lvd pin's no-regression rule,\n"
            "                     samples enough: the nightly passes 5)\n"
            "  --timeout DUR      kill an invocation after DUR (default 300s)\n"
            "  --session ID       session id recorded on every run (default bench-EPOCH-PID)\n"
            "  --resume           continue session ID: its runs already in the store (this model,\n"
            "                     this host) count as measured; nothing is measured again\n"
            "  --wait DUR         wait up to DUR for the device lock another bench, check, probe\n"
            "                     or nightly holds (default: refuse at once, exit 8)\n"
            "  --objective OBJ    tg (default), pp, or a tg weight W in (0, 1) (w=W); per joule:\n"
            "                     tpj (tg tokens per joule), ppj, wj=W (energy measured: README)\n"
            "  --energy-idle DUR  the idle baseline before the session (default 3s); off: no\n"
            "                     energy is measured\n"
            "  --check            first check every device against the CPU, as lvd check does\n"
            "                     (default off: the bench's cost stays what --budget says)\n"
            "  --json             print JSON instead of tables\n"
            "  --store PATH       the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                     (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help         this text\n\n"
            "exit: 0 decided or settled, 5 some arm failed, was excluded or ignored its GPU\n"
            "flags, or an engine was skipped (all recorded), 1 nothing could be measured or no\n"
            "engines, 2 usage, 3 model unreadable, 4 store error, 8 the devices are in use.\n\n"
            "example:\n"
            "  lvd bench --model ~/models/qwen3-8b-q4_k_m.gguf --engines b10715-vulkan,cuda-local \\\n"
            "            --fa on --env GGML_VK_PREFER_HOST_MEMORY=1 --budget 20m\n"
            "  lvd bench -m ~/models/qwen3-8b-q4_k_m.gguf -ngl 99 -fa 0,1 -p 512 -n 128 -r 5\n");
}

/* Parses "a,b,c" of integers (or on/off for fa) into l. 0 or -1. */
static int parse_ints(const char *s, int is_fa, int_list *l)
{
    size_t n;
    char **items = lvd_split(s, ',', &n);
    int ok = n > 0;
    l->v = lvd_xrealloc(l->v, (l->n + n + 1) * sizeof *l->v);
    for (size_t i = 0; i < n && ok; i++) {
        int64_t v;
        int on;
        if (is_fa && !lvd_parse_onoff(items[i], &on))
            v = on;
        else if (is_fa || lvd_parse_i64(items[i], &v) || v < 0 || v > 1000000)
            ok = 0;
        if (ok)
            l->v[l->n++] = (int)v;
    }
    lvd_strv_free(items);
    return ok ? 0 : -1;
}

static int parse_strs(const char *s, char ***v, size_t *n)
{
    lvd_strv_free(*v);
    *v = lvd_split(s, ',', n);
    return *n ? 0 : -1;
}

static int parse_duration_opt(const char *name, const char *s, int64_t min, int64_t *out)
{
    if (lvd_parse_duration(s, out) || *out < min || *out > 7 * 86400)
        return lvd_usage_error(TOOL, "%s wants a duration like 90s, 15m or 2h, not '%s'", name, s);
    return 0;
}

enum { O_NGL = 256, O_FA, O_UB, O_CTK, O_CTV, O_NCMOE, O_THREADS, O_ENV, O_REPS, O_BUDGET,
       O_MAX, O_MIN, O_TIMEOUT, O_SESSION, O_OBJECTIVE, O_TESTS, O_ENGINES, O_NPROMPT, O_NGEN, O_CHECK,
       O_CTX, O_DEPTH, O_KV_MIXED, O_SM, O_TS, O_RESUME, O_WAIT, O_ENERGY_IDLE };

/* --energy-idle: "off" (-1), "NNNms", or a duration (lvd_parse_duration). 0 or -1. */
static int parse_energy_idle(const char *arg, int64_t *ms)
{
    int64_t v;
    if (!strcmp(arg, "off")) {
        *ms = -1;
        return 0;
    }
    if (lvd_ends_with(arg, "ms")) {
        char *num = lvd_xstrndup(arg, strlen(arg) - 2);
        int bad = lvd_parse_i64(num, &v) || v < 1 || v > 600000;
        free(num);
        *ms = v;
        return bad ? -1 : 0;
    }
    if (lvd_parse_duration(arg, &v) || v < 1 || v > 600)
        return -1;
    *ms = v * 1000;
    return 0;
}

/* -c, -d and --kv-mixed: what the service runs with (bench/depth.h, bench/kvpair.h). */
static int serving_option(options *o, int c, const char *arg)
{
    if (c == O_KV_MIXED)
        o->kv_mixed = 1;
    else if (c == O_CTX && (lvd_parse_i64(arg, &o->ctx) || o->ctx < 0 || o->ctx > 16777216))
        return lvd_usage_error(TOOL, "--ctx wants 0 to 16777216 tokens, not '%s'", arg);
    else if (c == O_DEPTH && parse_ints(arg, 0, &o->depth))
        return lvd_usage_error(TOOL, "--depth wants depths like 0,2048, not '%s'", arg);
    return 0;
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    int64_t v;
    lvd_err err = {0};
    switch (c) {
    case 'm': o->model = arg; break;
    case O_ENGINES: o->engines = arg; break;
    case O_TESTS: o->tests = arg; break;
    case O_NPROMPT: o->n_prompt = arg; break;
    case O_NGEN: o->n_gen = arg; break;
    case O_NGL:
        if (parse_ints(arg, 0, &o->ngl))
            return lvd_usage_error(TOOL, "--ngl wants numbers like 99,24, not '%s'", arg);
        break;
    case O_FA:
        if (parse_ints(arg, 1, &o->fa))
            return lvd_usage_error(TOOL, "--fa wants on,off, not '%s'", arg);
        break;
    case O_UB:
        if (parse_ints(arg, 0, &o->ub))
            return lvd_usage_error(TOOL, "--ub wants numbers like 512,256, not '%s'", arg);
        break;
    case O_NCMOE:
        if (parse_ints(arg, 0, &o->ncmoe))
            return lvd_usage_error(TOOL, "--ncmoe wants numbers like 0,4, not '%s'", arg);
        break;
    case O_CTK:
        if (parse_strs(arg, &o->ctk, &o->n_ctk))
            return lvd_usage_error(TOOL, "--ctk wants cache types like f16,q8_0");
        break;
    case O_CTV:
        if (parse_strs(arg, &o->ctv, &o->n_ctv))
            return lvd_usage_error(TOOL, "--ctv wants cache types like f16,q8_0");
        break;
    case O_CTX:
    case O_DEPTH:
    case O_KV_MIXED: return serving_option(o, c, arg);
    case O_THREADS:
        if (lvd_parse_i64(arg, &v) || v < 1 || v > 4096)
            return lvd_usage_error(TOOL, "--threads wants 1 to 4096, not '%s'", arg);
        o->threads = (int)v;
        break;
    case O_ENV:
        o->env = lvd_xrealloc(o->env, (o->n_env + 1) * sizeof *o->env);
        o->env[o->n_env++] = arg;
        break;
    case O_REPS:
        if (lvd_parse_i64(arg, &v) || v < 1 || v > 1000)
            return lvd_usage_error(TOOL, "--reps wants 1 to 1000, not '%s'", arg);
        o->reps = (int)v;
        break;
    case O_BUDGET:
        if (parse_duration_opt("--budget", arg, 0, &o->budget_s))
            return LVD_EXIT_USAGE;
        break;
    case O_MAX:
        if (lvd_parse_i64(arg, &o->max_samples) || o->max_samples < 1 || o->max_samples > 100000)
            return lvd_usage_error(TOOL, "--max-samples wants 1 to 100000, not '%s'", arg);
        break;
    case O_MIN:
        if (lvd_parse_i64(arg, &o->min_samples) || o->min_samples < 2 || o->min_samples > 1000)
            return lvd_usage_error(TOOL, "--min-samples wants 2 to 1000, not '%s'", arg);
        break;
    case O_TIMEOUT:
        if (parse_duration_opt("--timeout", arg, 1, &o->timeout_s) || o->timeout_s > 86400)
            return LVD_EXIT_USAGE;
        break;
    case O_SM:
        if (parse_strs(arg, &o->sm, &o->n_sm))
            return lvd_usage_error(TOOL, "--sm wants split modes like layer,row");
        break;
    case O_TS: /* llama-server's "3,1" or llama-bench's "3/1": kept as llama-bench's */
        free(o->ts);
        o->ts = lvd_xstrdup(arg);
        for (char *c = o->ts; *c; c++)
            if (*c == ',')
                *c = '/';
        break;
    case O_SESSION: o->session = arg; break;
    case O_CHECK: o->check = 1; break;
    case O_RESUME: o->resume = 1; break;
    case O_WAIT:
        if (lvd_parse_wait(TOOL, arg, &o->wait_s))
            return LVD_EXIT_USAGE;
        break;
    case O_ENERGY_IDLE:
        if (parse_energy_idle(arg, &o->energy_idle_ms))
            return lvd_usage_error(TOOL, "--energy-idle wants off, 1..600000ms or 1s..10m, not '%s'", arg);
        break;
    case O_OBJECTIVE:
        if (stats_objective_parse(arg, &o->objective, &err))
            return lvd_usage_error(TOOL, "--objective: %s", err.msg);
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},      {"engines", required_argument, NULL, O_ENGINES},
        {"tests", required_argument, NULL, O_TESTS},  {"ngl", required_argument, NULL, O_NGL},
        {"fa", required_argument, NULL, O_FA},        {"ub", required_argument, NULL, O_UB},
        {"ctk", required_argument, NULL, O_CTK},      {"ctv", required_argument, NULL, O_CTV},
        {"ncmoe", required_argument, NULL, O_NCMOE},  {"threads", required_argument, NULL, O_THREADS},
        {"env", required_argument, NULL, O_ENV},      {"reps", required_argument, NULL, O_REPS},
        {"budget", required_argument, NULL, O_BUDGET}, {"max-samples", required_argument, NULL, O_MAX},
        {"min-samples", required_argument, NULL, O_MIN},
        {"timeout", required_argument, NULL, O_TIMEOUT}, {"session", required_argument, NULL, O_SESSION},
        {"objective", required_argument, NULL, O_OBJECTIVE}, {"n-prompt", required_argument, NULL, O_NPROMPT},
        {"n-gen", required_argument, NULL, O_NGEN},   {"check", no_argument, NULL, O_CHECK},
        {"ctx", required_argument, NULL, O_CTX},      {"depth", required_argument, NULL, O_DEPTH},
        {"kv-mixed", no_argument, NULL, O_KV_MIXED},
        {"sm", required_argument, NULL, O_SM},        {"ts", required_argument, NULL, O_TS},
        {"resume", no_argument, NULL, O_RESUME},      {"wait", required_argument, NULL, O_WAIT},
        {"energy-idle", required_argument, NULL, O_ENERGY_IDLE},
        LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":hm:", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc != 0)
        return rc;
    if (!o->model)
        return lvd_usage_error(TOOL, "--model is required");
    if (o->tests && (o->n_prompt || o->n_gen))
        return lvd_usage_error(TOOL, "--tests and -p/-n exclude each other");
    if (o->resume && !o->session)
        return lvd_usage_error(TOOL, "--resume continues a session: give its --session ID");
    return 0;
}

static void options_free(options *o)
{
    free(o->ngl.v);
    free(o->fa.v);
    free(o->ub.v);
    free(o->ncmoe.v);
    free(o->depth.v);
    lvd_strv_free(o->ctk);
    lvd_strv_free(o->ctv);
    lvd_strv_free(o->sm);
    free(o->ts);
    free(o->env);
}

/* Says at once, on stderr, what went wrong with a run. */
static void on_run(const bench_session *s, size_t arm, const lvd_run *run, void *ctx)
{
    engine_facts_from_log(ctx, run->stderr_tail); /* the Vulkan driver the engine names */
    const bench_arm_state *st = &s->st[arm];
    const char *label = s->plan->arms[arm].label;
    if (!strcmp(run->status, "gpu_ignored"))
        lvd_warn(TOOL, "GPU FLAGS IGNORED: %s: %s", label, run->reason);
    else if (!strcmp(run->status, "failed"))
        lvd_warn(TOOL, "%s: run failed (%s); %s", label, run->reason,
                 st->status == BENCH_ARM_EXCLUDED        ? "arm excluded"
                 : bench_alloc_is_placement_failure(run) ? "the next placement rung follows"
                                                         : "will retry once");
}

/* The KV cells llama-bench allocates: its n_ctx is n_depth + n_prompt + n_gen. */
static uint32_t kv_ctx(const bench_test *t, size_t n)
{
    int ctx = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i].n_depth + t[i].n_prompt + t[i].n_gen > ctx)
            ctx = t[i].n_depth + t[i].n_prompt + t[i].n_gen;
    return (uint32_t)ctx;
}

/* --check: lvd check's run (check_run) before the bench; its table on
 * stdout, or its JSON into *json. A failed reference or no engine with
 * llama-perplexity is warned about and the bench goes on (LVD_EXIT_PARTIAL);
 * a store error stops it (LVD_EXIT_STORE). */
static int run_check(const options *o, const engine_setup *b, cJSON **json)
{
    char *text = lvd_data_file(CHECK_TEXT);
    if (!text) {
        lvd_error(TOOL, "--check: %s is not installed (run lvd check --text FILE instead)", CHECK_TEXT);
        return LVD_EXIT_INPUT;
    }
    check_opts co;
    check_opts_init(&co);
    co.model = b->model; /* the first shard of a split model, as lvd check passes it */
    co.text = text;
    co.artifact = b->art.sha256;
    co.host = lvd_hostname();
    check_report r;
    lvd_err err = {0};
    int code = LVD_EXIT_PARTIAL;
    if (check_run(b->s, b->engines, b->probes, b->n, &co, &r, &err)) {
        if (r.n)
            code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        else
            lvd_warn(TOOL, "--check: %s; benching unchecked", err.msg);
    } else {
        if (o->t.json)
            *json = check_json(&r, &co);
        else
            check_print(stdout, &r, &co);
        code = check_exit(&r);
        if (code == LVD_EXIT_FAIL) {
            lvd_warn(TOOL, "--check: the CPU reference failed; benching unchecked");
            code = LVD_EXIT_PARTIAL;
        }
    }
    check_report_free(&r);
    free(text);
    return code;
}

/* Prints the session (with --check's JSON under "check"), warns about the
 * devices measured unchecked, and returns the exit code. */
static int report(const options *o, const bench_plan *plan, store *s, const bench_session *bs,
                  cJSON *check)
{
    if (o->t.json) {
        cJSON *root = bench_report_json(bs);
        if (check)
            cJSON_AddItemToObject(root, "check", check);
        lvd_json_emit(stdout, root);
    } else {
        bench_report_print(stdout, bs);
    }
    int code = bench_report_exit(bs);
    if (code == LVD_EXIT_FAIL)
        lvd_error(TOOL, "%s: nothing could be measured (%zu arms, %zu engines skipped)", o->model,
                  plan->n_arms, plan->n_skips);
    lvd_err err = {0};
    if (bench_report_unchecked(TOOL, s, bs, &err) < 0)
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    return code;
}

static int run(const options *o)
{
    lvd_err err = {0};
    bench_test *tests = NULL;
    size_t n_tests = 0;
    if (o->tests ? bench_tests_parse(o->tests, &tests, &n_tests, &err)
                 : bench_tests_from_counts(o->n_prompt, o->n_gen, &tests, &n_tests, &err))
        return lvd_usage_error(TOOL, "--%s", err.msg);

    bench_plan plan;
    memset(&plan, 0, sizeof plan);
    engine_facts facts = {0};
    char *session = NULL;
    int *split_modes = NULL;
    lvd_run *seed = NULL;
    size_t n_seed = 0;
    engine_setup b;
    lvd_alloc *alloc_rows = NULL;
    memset(&b, 0, sizeof b);
    engine_devlock lock;
    int code = engine_devlock_tool(TOOL, o->t.store, o->wait_s * 1000, &lock);
    if (code != LVD_EXIT_OK)
        goto out;
    code = engine_setup_open(TOOL, o->t.store, o->model, o->engines, &b);
    if (code != LVD_EXIT_OK)
        goto out;
    uint32_t serving;
    if (bench_tests_for_serving(&tests, &n_tests, o->depth.v, o->depth.n, o->ctx, &b.art.shape, &serving,
                                &err)) {
        code = lvd_usage_error(TOOL, "--%s", err.msg);
        goto out;
    }
    bench_plan_opts po = {
        .ngl = o->ngl.v, .n_ngl = o->ngl.n, .fa = o->fa.v, .n_fa = o->fa.n,
        .ub = o->ub.v, .n_ub = o->ub.n, .ctk = (const char *const *)o->ctk, .n_ctk = o->n_ctk,
        .ctv = (const char *const *)o->ctv, .n_ctv = o->n_ctv, .kv_mixed = o->kv_mixed, .ncmoe = o->ncmoe.v,
        .n_ncmoe = o->ncmoe.n, .threads = o->threads, .env = o->env, .n_env = o->n_env,
        .shape = &b.art.shape, .ctx = kv_ctx(tests, n_tests), .place_ctx = serving,
        .sm = (const char *const *)o->sm, .n_sm = o->n_sm, .ts = o->ts,
    };
    split_modes = bench_split_modes_probe(b.engines, b.probes, b.n);
    po.split_modes = split_modes;
    if (store_alloc_rows(b.s, PLACEMENT_CORRECTION_WINDOW, &alloc_rows, &po.n_alloc_rows, &err)) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        goto out;
    }
    po.alloc_rows = alloc_rows;
    if (bench_plan_build(b.engines, b.probes, b.n, &po, &plan, &err)) {
        lvd_usage_error(TOOL, "%s", err.msg);
        code = LVD_EXIT_USAGE;
        goto out;
    }
    char now[24]; /* a new session's name carries the host and random digits: stores merge */
    snprintf(now, sizeof now, "%lld", (long long)lvd_now());
    session = o->session ? lvd_xstrdup(o->session) : lvd_session_name("bench", now);
    bench_fit_in fi = {.s = b.s, .model = b.model, .artifact = b.art.sha256, .host = lvd_hostname(),
                       .session = session};
    if (bench_fit_arms_add(&plan, &po, &fi, &err)) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        goto out;
    }
    bench_session_opts so = {
        .inv = {.model = b.model, .tests = tests, .n_tests = n_tests, .reps = o->reps,
                .timeout_ms = (int)(o->timeout_s * 1000)},
        .artifact = b.art.sha256, .host = lvd_hostname(), .session = session,
        .budget_ms = o->budget_s * 1000, .max_samples = (size_t)o->max_samples,
        .objective = o->objective, .on_run = on_run, .ctx = &facts,
        .first_reps = o->min_samples ? (int)o->min_samples + 1 : 0, /* + 1 for a warm-up drop */
        .plan_opts = &po,
    };
    if (o->resume && bench_seed_load(b.s, b.art.sha256, lvd_hostname(), session, &seed, &n_seed, &err) == 0)
        fprintf(stderr, "%s: resuming session %s: %zu run(s) recorded earlier count as measured\n", TOOL,
                session, n_seed);
    else if (o->resume) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        goto out;
    }
    so.seed = seed;
    so.n_seed = n_seed;
    stats_rule_default(&so.rule);
    if (bench_session_check(&so, &err)) {
        code = lvd_usage_error(TOOL, "%s", err.msg);
        goto out;
    }
    cJSON *check = NULL;
    int checked = o->check ? run_check(o, &b, &check) : LVD_EXIT_OK;
    if (checked == LVD_EXIT_INPUT || checked == LVD_EXIT_STORE) {
        code = checked;
        goto out;
    }
    bench_energy energy;
    if (o->energy_idle_ms >= 0) {
        bench_energy_open(&energy, &plan, b.probes, b.n, o->energy_idle_ms);
        if (energy.set.notes.len)
            fputs(lvd_sb_str(&energy.set.notes), stderr);
        so.inv.energy = &energy;
    }
    bench_session bs;
    if (bench_session_run(b.s, &plan, &so, &bs, &err)) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        cJSON_Delete(check);
    } else {
        engine_host_facts(&facts); /* what may change under an unchanged build */
        if (store_facts_put(b.s, session, so.host, facts.names, facts.values, facts.n, &err))
            lvd_warn(TOOL, "%s", err.msg);
        code = report(o, &plan, b.s, &bs, check);
        if (code == LVD_EXIT_OK)
            code = checked; /* a device that failed its check: partial */
    }
    bench_session_free(&bs);
    if (so.inv.energy)
        bench_energy_close(&energy);
out:
    store_run_list_free(seed, n_seed);
    engine_facts_free(&facts);
    free(alloc_rows);
    free(session);
    free(split_modes);
    bench_plan_free(&plan);
    engine_setup_free(&b);
    engine_devlock_release(&lock);
    free(tests);
    return code;
}

int main(int argc, char **argv)
{
    options o = {.ctx = -1, .reps = BENCH_REPS_DEFAULT, .budget_s = 15 * 60, .max_samples = BENCH_MAX_SAMPLES_DEFAULT,
                 .timeout_s = BENCH_TIMEOUT_S_DEFAULT, .energy_idle_ms = ENERGY_IDLE_MS_DEFAULT};
    stats_objective_default(&o.objective);
    int code = parse_options(argc, argv, &o);
    if (code == 0)
        code = run(&o);
    else if (code < 0)
        code = LVD_EXIT_OK;
    options_free(&o);
    return code;
}
