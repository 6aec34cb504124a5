/* lvd-check.c: the `lvd check` tool. Checks that every device reproduces
 * the CPU's result for a model (llama-perplexity KL divergence against the
 * CPU's logits) and records pass/fail/error per device; lvd-select admits
 * only devices that pass. Option parsing only; the work is bench/check.c. */
#include "bench/check.h"
#include "bench/engines.h"
#include "common/cli.h"
#include "common/paths.h"
#include "store/identify.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-check"

typedef struct options {
    const char *store;
    const char *model;
    const char *engines;
    const char *text;
    double kld_max, ppl_tol, top_p_min;
    int64_t timeout_s;
    int json;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd check --model M.gguf [--engines all|NAME,...] [--kld-max X] [--ppl-tol X]\n"
            "                 [--top-p-min PCT] [--text FILE] [--timeout DUR] [--json] [--store PATH]\n\n"
            "Correctness before speed: runs llama-perplexity on a fixed text on the CPU (a CPU-only\n"
            "engine, else a GPU engine at -ngl 0 -dev none) to write its logits, then on every\n"
            "device of every GPU engine with --kl-divergence against them, and records mean KLD,\n"
            "same-top-p %% and the PPL ratio. A device passes when mean KLD <= X and |PPL ratio - 1|\n"
            "<= Y (and same top p >= PCT if set); one that fails or errors is excluded from verdicts.\n\n"
            "options:\n"
            "  --model PATH      the GGUF model (identified by its sha256)\n"
            "  --engines LIST    registered engines by name or id (default all)\n"
            "  --kld-max X       largest mean KL divergence that passes (default %g)\n"
            "  --ppl-tol X       largest |PPL(device)/PPL(CPU) - 1| that passes (default %g)\n"
            "  --top-p-min PCT   smallest same-top-p percentage that passes (default: no floor)\n"
            "  --text FILE       the text to score (default: the shipped perplexity-input.txt)\n"
            "  --timeout DUR     kill a llama-perplexity run after DUR (default %ds)\n"
            "  --json            print JSON instead of a table\n"
            "  --store PATH      the store (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help        this text\n\n"
            "exit: 0 every device passes (or none to check), 5 some device failed or errored or an\n"
            "engine was skipped (recorded), 1 the CPU reference failed or no engine can compute it,\n"
            "2 usage, 3 model or text unreadable, 4 store error.\n\n"
            "example:\n"
            "  lvd check --model ~/models/qwen3-8b-q4_k_m.gguf --engines b9749-cpu,cuda-local\n",
            BENCH_CHECK_KLD_MAX, BENCH_CHECK_PPL_TOL, BENCH_CHECK_TIMEOUT_S);
}

static int parse_nonneg(const char *name, const char *s, double max, double *out)
{
    if (lvd_parse_double(s, out) || !(*out >= 0 && *out <= max))
        return lvd_usage_error(TOOL, "%s wants a number in [0, %g], not '%s'", name, max, s);
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { O_ENGINES = 256, O_KLD, O_PPL, O_TOPP, O_TEXT, O_TIMEOUT };
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},     {"engines", required_argument, NULL, O_ENGINES},
        {"kld-max", required_argument, NULL, O_KLD}, {"ppl-tol", required_argument, NULL, O_PPL},
        {"top-p-min", required_argument, NULL, O_TOPP}, {"text", required_argument, NULL, O_TEXT},
        {"timeout", required_argument, NULL, O_TIMEOUT}, {"json", no_argument, NULL, 'j'},
        {"store", required_argument, NULL, 's'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "hm:", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': o->model = optarg; break;
        case O_ENGINES: o->engines = optarg; break;
        case O_KLD:
            if (parse_nonneg("--kld-max", optarg, 1e6, &o->kld_max))
                return LVD_EXIT_USAGE;
            break;
        case O_PPL:
            if (parse_nonneg("--ppl-tol", optarg, 1e6, &o->ppl_tol))
                return LVD_EXIT_USAGE;
            break;
        case O_TOPP:
            if (parse_nonneg("--top-p-min", optarg, 100, &o->top_p_min))
                return LVD_EXIT_USAGE;
            break;
        case O_TEXT: o->text = optarg; break;
        case O_TIMEOUT:
            if (lvd_parse_duration(optarg, &o->timeout_s) || o->timeout_s < 1 || o->timeout_s > 86400)
                return lvd_usage_error(TOOL, "--timeout wants a duration like 90s or 10m, not '%s'", optarg);
            break;
        case 'j': o->json = 1; break;
        case 's': o->store = optarg; break;
        case 'h': usage(stdout); return -1;
        default: return lvd_usage_error(TOOL, "unknown option");
        }
    }
    if (optind < argc)
        return lvd_usage_error(TOOL, "unexpected argument '%s'", argv[optind]);
    if (!o->model)
        return lvd_usage_error(TOOL, "--model is required");
    return 0;
}

static int run(const options *o)
{
    lvd_err err = {0};
    char *text = o->text ? lvd_xstrdup(o->text) : lvd_data_file(BENCH_CHECK_TEXT);
    if (!text || access(text, R_OK) != 0) {
        lvd_error(TOOL, "%s: cannot read the text to score%s", text ? text : BENCH_CHECK_TEXT,
                  text ? "" : " (not installed; pass --text FILE)");
        free(text);
        return LVD_EXIT_INPUT;
    }
    char *path = store_default_path(o->store);
    store *s = NULL;
    lvd_engine *engines = NULL;
    lvd_probe *probes = NULL;
    size_t n = 0;
    store_artifact art;
    memset(&art, 0, sizeof art);
    int code = LVD_EXIT_OK;
    if (store_open(path, STORE_OPEN_CREATE, &s, &err)) {
        lvd_error(TOOL, "%s", err.msg);
        code = LVD_EXIT_STORE;
        goto out;
    }
    if (store_identify(s, o->model, 0, &art, NULL, &err)) {
        lvd_error(TOOL, "%s", err.msg);
        code = LVD_EXIT_INPUT;
        goto out;
    }
    int rc = bench_engines_select(s, o->engines, &engines, &n, &err);
    if (rc == 0)
        rc = bench_engines_probe(s, engines, n, &probes, &err);
    if (rc) {
        lvd_error(TOOL, "%s", err.msg);
        code = rc == 1 ? LVD_EXIT_FAIL : LVD_EXIT_STORE;
        goto out;
    }
    bench_check_opts co;
    bench_check_opts_init(&co);
    co.model = o->model;
    co.text = text;
    co.artifact = art.sha256;
    co.host = lvd_hostname();
    co.kld_max = o->kld_max;
    co.ppl_tol = o->ppl_tol;
    co.top_p_min = o->top_p_min;
    co.timeout_ms = (int)(o->timeout_s * 1000);
    bench_check_report r;
    if (bench_check_run(s, engines, probes, n, &co, &r, &err)) {
        lvd_error(TOOL, "%s", err.msg);
        code = r.n ? LVD_EXIT_STORE : LVD_EXIT_FAIL;
    } else {
        if (o->json)
            lvd_json_emit(stdout, bench_check_json(&r, &co));
        else
            bench_check_print(stdout, &r, &co);
        code = bench_check_exit(&r);
        if (code == LVD_EXIT_FAIL)
            lvd_error(TOOL, "%s: the CPU reference failed: %s", o->model,
                      r.n && r.items[0].check.reason ? r.items[0].check.reason : "?");
    }
    bench_check_report_free(&r);
out:
    bench_probes_free(probes, n);
    store_engine_list_free(engines, n);
    store_artifact_free(&art);
    store_close(s);
    free(path);
    free(text);
    return code;
}

int main(int argc, char **argv)
{
    options o = {.kld_max = BENCH_CHECK_KLD_MAX, .ppl_tol = BENCH_CHECK_PPL_TOL, .top_p_min = -1,
                 .timeout_s = BENCH_CHECK_TIMEOUT_S};
    int code = parse_options(argc, argv, &o);
    if (code == 0)
        code = run(&o);
    else if (code < 0)
        code = LVD_EXIT_OK;
    return code;
}
