/* lvd-check.c: the `lvd check` tool. Checks that every device reproduces
 * the CPU's result for a model (llama-perplexity KL divergence against the
 * CPU's logits) and records pass/fail/error per device; lvd-select admits
 * only devices that pass. With --import, records one check from captured
 * llama-perplexity output instead of running anything. Option parsing only;
 * the work is check/check.c. */
#include "check/check.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "common/paths.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-check"

typedef struct options {
    lvd_tool_opts t; /* --store, --json, --host */
    const char *model;
    const char *engines;
    const char *text;
    int64_t timeout_s;
    int64_t wait_s;         /* --wait: how long to wait for the device lock */
    int import;             /* --import: the fields of imp */
    check_import_opts imp;  /* and the tolerances */
} options;

#define LIVE .form = LVD_FORM(0)
#define IMPORT .form = LVD_FORM(1)
static const lvd_opt table[] = {
    {LVD_OPT_MODEL, LVD_AT(model), LIVE, .req = LVD_FORM(0), .help = "the GGUF model (identified by its sha256)"},
    {LVD_OPT_ENGINES, LVD_AT(engines), LIVE},
    {.spell = "--kld-max", .arg = "X", .kind = LVD_OPT_REAL, .lo = 0, .hi = 1e6, LVD_AT(imp.kld_max),
     .def = LVD_STRINGIFY(CHECK_KLD_MAX), .help = "largest mean KL divergence that passes"},
    {.spell = "--ppl-tol", .arg = "X", .kind = LVD_OPT_REAL, .lo = 0, .hi = 1e6, LVD_AT(imp.ppl_tol),
     .def = LVD_STRINGIFY(CHECK_PPL_TOL), .help = "largest |PPL(device)/PPL(CPU) - 1| that passes"},
    {.spell = "--top-p-min", .arg = "PCT", .kind = LVD_OPT_REAL, .lo = 0, .hi = 100, LVD_AT(imp.top_p_min),
     .help = "smallest same-top-p percentage that passes (default: no floor)"},
    {.spell = "--text", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(text), LIVE,
     .help = "the text to score (default: the shipped " CHECK_TEXT ")"},
    {LVD_OPT_TIMEOUT, LVD_AT(timeout_s), LIVE, .def = LVD_STRINGIFY(CHECK_TIMEOUT_S) "s",
     .help = "kill a llama-perplexity run after DUR"},
    {LVD_OPT_WAIT, LVD_AT(wait_s), LIVE},
    {.spell = "--import", .kind = LVD_OPT_FLAG, LVD_AT(import), IMPORT,
     .help = "record one check from captured llama-perplexity output (run elsewhere or earlier) instead of running "
             "anything. A capture without --kl-divergence statistics is judged on its PPL ratio alone (KLD recorded "
             "as not measured); a log saying '--gpu-layers option will be ignored' fails it"},
    {.spell = "--artifact", .arg = "SHA256", .kind = LVD_OPT_STR, LVD_AT(imp.artifact), IMPORT, .req = LVD_FORM(1),
     .help = "the model, as lvd store import recorded it"},
    {.spell = "--engine", .arg = "NAME", .kind = LVD_OPT_STR, LVD_AT(imp.engine), IMPORT, .req = LVD_FORM(1),
     .help = "the engine whose llama-perplexity wrote the capture (registered or imported)"},
    {.spell = "--output", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(imp.output), IMPORT, .req = LVD_FORM(1),
     .help = "its stdout"},
    {.spell = "--log", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(imp.log), IMPORT, .help = "its stderr"},
    {.spell = "--base-output", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(imp.base_output), IMPORT,
     .help = "the CPU reference run's stdout; without it the capture IS the reference and is recorded as status "
             "base"},
    {.spell = "--base-log", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(imp.base_log), IMPORT,
     .help = "the CPU reference run's stderr"},
    {LVD_OPT_DEV, LVD_AT(imp.device), IMPORT,
     .help = "the device it ran on (default: the probe's first device, else 'auto', the engine's default device)"},
    {LVD_OPT_HOST, IMPORT},
    {LVD_OPT_JSON, .help = "print JSON instead of a table"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Correctness before speed: runs llama-perplexity on a fixed text on the CPU (a CPU-only engine, else a "
             "GPU engine at -ngl 0 -dev none) to write its logits, then on every device of every GPU engine with "
             "--kl-divergence against them, and records mean KLD, same-top-p % and the PPL ratio. A device passes "
             "when mean KLD <= X and |PPL ratio - 1| <= Y (and same top p >= PCT if set); one that fails or errors "
             "is excluded from verdicts.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, NULL}, {"--import", NULL}, {NULL, NULL}},
    .exits = "0 every device passes (or none to check), 5 some device failed or errored or an engine was skipped "
             "(recorded), 1 the CPU reference failed or no engine can compute it, 2 usage (with --import also: "
             "unknown engine or artifact), 3 model, text or capture unreadable, 4 store error, 8 the devices are in "
             "use.",
    .examples = "lvd check --model ~/models/qwen3-8b-q4_k_m.gguf --engines b9749-cpu,cuda-local\n"
                "lvd check --import --artifact 9739... --engine b9749-cpu --output ppl-cpu.out --log ppl-cpu.err\n"
                "lvd check --import --artifact 9739... --engine b9749-cuda --output ppl-cuda.out \\\n"
                "    --log ppl-cuda.err --base-output ppl-cpu.out --base-log ppl-cpu.err",
};

/* A check's options with the command line's tolerances. */
static void fill_check_opts(const options *o, check_opts *co)
{
    check_opts_init(co);
    co->kld_max = o->imp.kld_max;
    co->ppl_tol = o->imp.ppl_tol;
    co->top_p_min = o->imp.top_p_min;
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
    options o = {.imp = {.top_p_min = -1}};
    lvd_opt_result r;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    if (code)
        return code < 0 ? LVD_EXIT_OK : code;
    o.imp.host = o.t.host;
    return o.import ? run_import(&o) : run(&o);
}
