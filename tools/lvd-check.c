/* lvd-check.c: the `lvd check` tool. Checks that every device reproduces
 * the CPU's result for a model (llama-perplexity KL divergence against the
 * CPU's logits) and records pass/fail/error per device; lvd-select admits
 * only devices that pass. With --import, records one check from captured
 * llama-perplexity output instead of running anything. Option parsing only;
 * the work is check/check.c. */
#include "check/check.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "common/cli.h"
#include "common/paths.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-check"

typedef struct options {
    lvd_tool_opts t;         /* --store, --json, --host */
    const char *model;
    const char *engines;
    const char *text;
    double kld_max, ppl_tol, top_p_min;
    int64_t timeout_s;
    int64_t wait_s;          /* --wait: how long to wait for the device lock */
    int import;              /* --import: the fields below */
    check_import_opts imp;
    const char *live_only;   /* the first live-only option given (refused with --import) */
    const char *import_only; /* the first --import option given (refused without it) */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd check -m M.gguf [--engines all|NAME,...] [--kld-max X] [--ppl-tol X]\n"
            "                 [--top-p-min PCT] [--text FILE] [--timeout DUR] [--wait DUR] [--json] [--store PATH]\n"
            "       lvd check --import --artifact SHA256 --engine NAME --output OUT [--log ERR]\n"
            "                 [--base-output OUT --base-log ERR [-dev SEL]] [--host NAME] [tolerances]\n\n"
            "Correctness before speed: runs llama-perplexity on a fixed text on the CPU (a CPU-only\n"
            "engine, else a GPU engine at -ngl 0 -dev none) to write its logits, then on every\n"
            "device of every GPU engine with --kl-divergence against them, and records mean KLD,\n"
            "same-top-p %% and the PPL ratio. A device passes when mean KLD <= X and |PPL ratio - 1|\n"
            "<= Y (and same top p >= PCT if set); one that fails or errors is excluded from verdicts.\n\n"
            "options:\n"
            "  -m, --model PATH  the GGUF model (identified by its sha256)\n"
            "  --engines LIST    registered engines by name or id (default all)\n"
            "  --kld-max X       largest mean KL divergence that passes (default %g)\n"
            "  --ppl-tol X       largest |PPL(device)/PPL(CPU) - 1| that passes (default %g)\n"
            "  --top-p-min PCT   smallest same-top-p percentage that passes (default: no floor)\n"
            "  --text FILE       the text to score (default: the shipped perplexity-input.txt)\n"
            "  --timeout DUR     kill a llama-perplexity run after DUR (default %ds)\n"
            "  --wait DUR        wait up to DUR for the device lock a bench, probe or nightly\n"
            "                    holds (default: refuse at once, exit 8)\n"
            "  --json            print JSON instead of a table\n"
            "  --import          record one check from captured llama-perplexity output (run\n"
            "                    elsewhere or earlier) instead of running anything:\n"
            "    --artifact SHA256  the model, as lvd store import recorded it\n"
            "    --engine NAME      the engine that ran it (registered or imported)\n"
            "    --output FILE      its stdout; --log FILE its stderr\n"
            "    --base-output FILE, --base-log FILE  the CPU reference run's; without them the\n"
            "                       capture IS the reference and is recorded as status base\n"
            "    -dev, --device SEL the device it ran on (default: the probe's first device,\n"
            "                       else 'auto', the engine's default device)\n"
            "    --host NAME        where it ran (default this machine)\n"
            "                    A capture without --kl-divergence statistics is judged on its\n"
            "                    PPL ratio alone (KLD recorded as not measured); a log saying\n"
            "                    '--gpu-layers option will be ignored' fails it.\n"
            "  --store PATH      the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                    (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help        this text\n\n"
            "exit: 0 every device passes (or none to check), 5 some device failed or errored or an\n"
            "engine was skipped (recorded), 1 the CPU reference failed or no engine can compute it,\n"
            "2 usage (with --import also: unknown engine or artifact), 3 model, text or capture\n"
            "unreadable, 4 store error, 8 the devices are in use.\n\n"
            "examples:\n"
            "  lvd check --model ~/models/qwen3-8b-q4_k_m.gguf --engines b9749-cpu,cuda-local\n"
            "  lvd check --import --artifact 9739... --engine b9749-cpu --output ppl-cpu.out --log ppl-cpu.err\n"
            "  lvd check --import --artifact 9739... --engine b9749-cuda --output ppl-cuda.out --log ppl-cuda.err \\\n"
            "            --base-output ppl-cpu.out --base-log ppl-cpu.err\n",
            CHECK_KLD_MAX, CHECK_PPL_TOL, CHECK_TIMEOUT_S);
}

static int parse_nonneg(const char *name, const char *s, double max, double *out)
{
    if (lvd_parse_double(s, out) || !(*out >= 0 && *out <= max))
        return lvd_usage_error(TOOL, "%s wants a number in [0, %g], not '%s'", name, max, s);
    return 0;
}

enum { O_ENGINES = 256, O_KLD, O_PPL, O_TOPP, O_TEXT, O_TIMEOUT, O_WAIT, O_IMPORT, O_ARTIFACT, O_ENGINE,
       O_DEVICE, O_OUTPUT, O_LOG, O_BASE_OUTPUT, O_BASE_LOG };

static const struct option longopts[] = {
    {"model", required_argument, NULL, 'm'},     {"engines", required_argument, NULL, O_ENGINES},
    {"kld-max", required_argument, NULL, O_KLD}, {"ppl-tol", required_argument, NULL, O_PPL},
    {"top-p-min", required_argument, NULL, O_TOPP}, {"text", required_argument, NULL, O_TEXT},
    {"timeout", required_argument, NULL, O_TIMEOUT}, {"wait", required_argument, NULL, O_WAIT},
    LVD_TOOL_LONGOPTS,
    {"import", no_argument, NULL, O_IMPORT},     {"artifact", required_argument, NULL, O_ARTIFACT},
    {"engine", required_argument, NULL, O_ENGINE}, {"device", required_argument, NULL, O_DEVICE},
    LVD_TOOL_HOST_LONGOPT,                       {"output", required_argument, NULL, O_OUTPUT},
    {"log", required_argument, NULL, O_LOG},     {"base-output", required_argument, NULL, O_BASE_OUTPUT},
    {"base-log", required_argument, NULL, O_BASE_LOG},
    {NULL, 0, NULL, 0},
};

/* The long name of option c, for the messages about what goes with --import. */
static const char *long_name(int c)
{
    for (const struct option *p = longopts; p->name; p++)
        if (p->val == c)
            return p->name;
    return "?";
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    const char *name = long_name(c);
    if ((c == 'm' || c == O_ENGINES || c == O_TEXT || c == O_TIMEOUT) && !o->live_only)
        o->live_only = name;
    if (c >= O_ARTIFACT && !o->import_only)
        o->import_only = name;
    switch (c) {
    case 'm': o->model = arg; break;
    case O_ENGINES: o->engines = arg; break;
    case O_IMPORT: o->import = 1; break;
    case O_ARTIFACT: o->imp.artifact = arg; break;
    case O_ENGINE: o->imp.engine = arg; break;
    case O_DEVICE: o->imp.device = arg; break;
    case O_OUTPUT: o->imp.output = arg; break;
    case O_LOG: o->imp.log = arg; break;
    case O_BASE_OUTPUT: o->imp.base_output = arg; break;
    case O_BASE_LOG: o->imp.base_log = arg; break;
    case O_KLD:
        if (parse_nonneg("--kld-max", arg, 1e6, &o->kld_max))
            return LVD_EXIT_USAGE;
        break;
    case O_PPL:
        if (parse_nonneg("--ppl-tol", arg, 1e6, &o->ppl_tol))
            return LVD_EXIT_USAGE;
        break;
    case O_TOPP:
        if (parse_nonneg("--top-p-min", arg, 100, &o->top_p_min))
            return LVD_EXIT_USAGE;
        break;
    case O_TEXT: o->text = arg; break;
    case O_TIMEOUT:
        if (lvd_parse_duration(arg, &o->timeout_s) || o->timeout_s < 1 || o->timeout_s > 86400)
            return lvd_usage_error(TOOL, "--timeout wants a duration like 90s or 10m, not '%s'", arg);
        break;
    case O_WAIT:
        if (lvd_parse_wait(TOOL, arg, &o->wait_s))
            return LVD_EXIT_USAGE;
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    int rc = lvd_tool_parse(TOOL, argc, argv, ":hm:", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc != 0)
        return rc;
    if (o->t.host && !o->import_only) /* --host: lvd_tool_parse's, an --import option */
        o->import_only = "host";
    if (o->import && o->live_only)
        return lvd_usage_error(TOOL, "--%s does not go with --import (nothing is run)", o->live_only);
    if (!o->import && o->import_only)
        return lvd_usage_error(TOOL, "--%s needs --import", o->import_only);
    if (!o->import && !o->model)
        return lvd_usage_error(TOOL, "--model is required");
    o->imp.kld_max = o->kld_max;
    o->imp.ppl_tol = o->ppl_tol;
    o->imp.top_p_min = o->top_p_min;
    o->imp.host = o->t.host;
    return 0;
}

/* A check's options with the command line's tolerances. */
static void fill_check_opts(const options *o, check_opts *co)
{
    check_opts_init(co);
    co->kld_max = o->kld_max;
    co->ppl_tol = o->ppl_tol;
    co->top_p_min = o->top_p_min;
}

/* Prints a check report (table or JSON) and returns its exit code. */
static int report(const options *o, const check_report *r, const check_opts *co)
{
    if (o->t.json)
        lvd_json_emit(stdout, check_json(r, co));
    else
        check_print(stdout, r, co);
    return check_exit(r);
}

/* --import: one check from captured output. */
static int run_import(const options *o)
{
    store *s;
    int code = store_tool_open(TOOL, o->t.store, STORE_OPEN_CREATE, &s);
    if (code != LVD_EXIT_OK)
        return code;
    lvd_err err = {0};
    check_report r;
    if (check_import(s, &o->imp, &r, &code, &err)) {
        if (code == LVD_EXIT_USAGE)
            lvd_usage_error(TOOL, "%s", err.msg);
        else
            lvd_error(TOOL, "%s", err.msg);
    } else {
        check_opts co;
        fill_check_opts(o, &co);
        co.artifact = o->imp.artifact;
        co.host = o->imp.host ? o->imp.host : lvd_hostname();
        code = report(o, &r, &co);
    }
    check_report_free(&r);
    store_close(s);
    return code;
}

static int run(const options *o)
{
    lvd_err err = {0};
    char *text = o->text ? lvd_xstrdup(o->text) : lvd_data_file(CHECK_TEXT);
    if (!text || access(text, R_OK) != 0) {
        lvd_error(TOOL, "%s: cannot read the text to score%s", text ? text : CHECK_TEXT,
                  text ? "" : " (not installed; pass --text FILE)");
        free(text);
        return LVD_EXIT_INPUT;
    }
    engine_setup b;
    memset(&b, 0, sizeof b);
    engine_devlock lock;
    int code = engine_devlock_tool(TOOL, o->t.store, o->wait_s * 1000, &lock);
    if (code == LVD_EXIT_OK)
        code = engine_setup_open(TOOL, o->t.store, o->model, o->engines, &b);
    if (code != LVD_EXIT_OK)
        goto out;
    check_opts co;
    fill_check_opts(o, &co);
    co.model = b.model;
    co.text = text;
    co.artifact = b.art.sha256;
    co.host = lvd_hostname();
    co.timeout_ms = (int)(o->timeout_s * 1000);
    check_report r;
    if (check_run(b.s, b.engines, b.probes, b.n, &co, &r, &err)) {
        code = lvd_tool_fail(TOOL, &err, r.n ? LVD_EXIT_STORE : LVD_EXIT_FAIL);
    } else {
        code = report(o, &r, &co);
        if (code == LVD_EXIT_FAIL)
            lvd_error(TOOL, "%s: the CPU reference failed: %s", o->model,
                      r.n && r.items[0].check.reason ? r.items[0].check.reason : "?");
    }
    check_report_free(&r);
out:
    engine_setup_free(&b);
    engine_devlock_release(&lock);
    free(text);
    return code;
}

int main(int argc, char **argv)
{
    options o = {.kld_max = CHECK_KLD_MAX, .ppl_tol = CHECK_PPL_TOL, .top_p_min = -1,
                 .timeout_s = CHECK_TIMEOUT_S};
    int code = parse_options(argc, argv, &o);
    if (code == 0)
        code = o.import ? run_import(&o) : run(&o);
    else if (code < 0)
        code = LVD_EXIT_OK;
    return code;
}
