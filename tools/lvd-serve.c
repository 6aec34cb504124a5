/* lvd-serve.c: the `lvd serve` tool: the launch line lvd select prints (or
 * the leading bench arms' lines), run as a real llama-server under N
 * concurrent clients, measured and recorded. Option parsing and printing
 * only; the work is serve/serve.c. */
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "engine/devlock.h"
#include "serve/report.h"
#include "serve/serve.h"
#include "serve/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-serve"
#define LOAD_DEFAULT "1:128:32,4:128:32"
#define ARMS_MAX 64

typedef struct options {
    lvd_tool_opts t;
    serve_job_opts j;
    const char *load;
    int no_record;
    int64_t arms, ctx, requests, duration_s, rounds, budget_s, port, timeout_s, health_s, wait_s;
} options;

/* --arms select: the line lvd select prints (0); else a number of arms. */
static int arms_select(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    (void)err;
    if (strcmp(arg, "select"))
        return 1;
    *(int64_t *)field = 0;
    return 0;
}

#define STARTS .form = LVD_FORM(0) /* the launch lines started here */
static const lvd_opt table[] = {
    {LVD_OPT_MODEL, LVD_AT(j.model), STARTS, .req = LVD_FORM(0), .help = "the model (GGUF; a split model's first shard)"},
    {.spell = "--url", .arg = "URL", .kind = LVD_OPT_STR, LVD_AT(j.url), .form = LVD_FORM(1), .req = LVD_FORM(1),
     .help = "instead: drive the llama-server already running at URL (http://HOST:PORT) as it is (its own -np; "
             "nothing started, nothing recorded)"},
    {.spell = "--load", .arg = "N:P:G,...", .kind = LVD_OPT_STR, LVD_AT(load), .def = LOAD_DEFAULT,
     .help = "load shapes, comma-separated: N clients (and -np N), P prompt tokens, G generated tokens"},
    {.spell = "--arms", .arg = "select|K", .kind = LVD_OPT_INT, .lo = 1, .hi = ARMS_MAX, LVD_AT(arms), STARTS,
     .call = arms_select, .def = "select",
     .help = "the line lvd select prints, or the K leading arms' lines of the model's newest llama-bench session"},
    {STATS_OPT_OBJECTIVE, LVD_AT(j.objective), STARTS},
    {LVD_OPT_CTX, LVD_AT(ctx), STARTS, .help = "lvd select's --ctx for the line (default: lvd select's)"},
    {.spell = "--requests", .arg = "R", .kind = LVD_OPT_INT, .lo = 1, .hi = 1000000, LVD_AT(requests),
     .help = "requests per run (default " LVD_STRINGIFY(SERVE_REQUESTS_PER_CLIENT) " per client, at least "
             LVD_STRINGIFY(SERVE_REQUESTS_MIN) ")"},
    {.spell = "--duration", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 1, .hi = LVD_DAY, LVD_AT(duration_s),
     .help = "instead of --requests: send requests for DUR per run"},
    {.spell = "--rounds", .arg = "N", .kind = LVD_OPT_INT, .lo = 1, .hi = 100, LVD_AT(rounds),
     .def = LVD_STRINGIFY(SERVE_MAX_ROUNDS_DEFAULT), .help = "rounds at most (fewer when the statistics settle)"},
    {LVD_OPT_BUDGET, LVD_AT(budget_s), .help = "stop starting runs after DUR (default 0 = none)"},
    {.spell = "--port", .arg = "P", .kind = LVD_OPT_INT, .lo = 1, .hi = 65535, LVD_AT(port), STARTS,
     .help = "the server's port (default: a free one); a port in use is an error"},
    {LVD_OPT_TIMEOUT, LVD_AT(timeout_s), .def = LVD_STRINGIFY(SERVE_REQUEST_TIMEOUT_S_DEFAULT) "s",
     .help = "one request's limit"},
    {.spell = "--health-timeout", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 1, .hi = LVD_DAY, LVD_AT(health_s),
     STARTS, .def = LVD_STRINGIFY(SERVE_HEALTH_TIMEOUT_S_DEFAULT) "s",
     .help = "how long the server may take to answer /health 200"},
    {.spell = "--session", .arg = "ID", .kind = LVD_OPT_STR, LVD_AT(j.session), STARTS,
     .help = "record under this session (the nightly's); default a new one"},
    {.spell = "--no-record", .kind = LVD_OPT_FLAG, LVD_AT(no_record), STARTS, .help = "measure and print, record nothing"},
    {.spell = "--log-dir", .arg = "DIR", .kind = LVD_OPT_STR, LVD_AT(j.run.log_dir), STARTS,
     .help = "keep each server's log there (default: a temporary directory)"},
    {LVD_OPT_WAIT, LVD_AT(wait_s)},
    {LVD_OPT_JSON, .help = "print JSON: {session, arms, cells: [{arm, load, figures}]}"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Measures the llama-server launch line lvd select prints for the model (or each of the K leading arms' "
             "lines of its newest llama-bench session) under load: each line runs as a real llama-server on "
             "127.0.0.1 with -np N, and N concurrent clients (libcurl) stream completions of P prompt tokens and G "
             "generated tokens, request after request. Per request: time to first token (TTFT), inter-token "
             "latency (ITL), tokens per second; per run their p50/p95/p99, the aggregate t/s, errors, the time to "
             "/health 200 and the server's /metrics. Arms and loads run interleaved in rounds until the statistics "
             "settle; every run is recorded like llama-bench's (tests serve-ttft@ppP+tgG and serve-tps@ppP+tgG of "
             "the arm at -np N), for lvd select --objective serve, lvd pin and the evidence page. The server is "
             "stopped with its process group on every exit, SIGKILL of lvd serve included.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, NULL}, {"--url", NULL}, {NULL, NULL}},
    .exits = "0 every run ok, 5 some failed (recorded), 1 none did or interrupted, 2 usage, 3 model unreadable or "
             "the port taken, 4 store error, 8 the devices are in use.",
    .examples = "lvd serve -m ~/models/qwen3-8b-q4_k_m.gguf --load 1:512:128,4:512:128 --arms 2\n"
                "lvd serve --url http://127.0.0.1:8080 --load 4:512:128 --duration 1m",
};

/* The job's options from the parsed ones. 0, or the usage error's code. */
static int job_opts(options *o)
{
    if (o->requests && o->duration_s)
        return lvd_usage_error(TOOL, "--requests and --duration exclude each other");
    o->j.leading = (size_t)o->arms;
    o->j.ctx = o->ctx;
    o->j.max_rounds = (size_t)o->rounds;
    o->j.budget_ms = o->budget_s * 1000;
    o->j.record = !o->no_record;
    o->j.run.requests = o->duration_s ? 0 : o->requests ? (int)o->requests : SERVE_REQUESTS_AUTO;
    o->j.run.duration_ms = o->duration_s * 1000;
    o->j.run.port = (int)o->port;
    o->j.run.request_timeout_ms = (int)(o->timeout_s * 1000);
    o->j.run.health_timeout_ms = (int)(o->health_s * 1000);
    o->j.store = o->t.store;
    o->j.progress = lvd_progress_enabled() ? stderr : NULL; /* a line per run, on a terminal */
    return 0;
}

/* The job of o run and printed: its exit status. */
static int run(options *o)
{
    engine_devlock lock;
    int code = engine_devlock_tool(TOOL, o->t.store, o->wait_s * 1000, &lock);
    if (code != LVD_EXIT_OK)
        return code;
    lvd_err err = {{0}};
    serve_job job;
    code = serve_job_run(&o->j, &job, &err);
    const char *what = o->j.url ? o->j.url : o->j.model;
    if (job.ran && o->t.json)
        lvd_json_emit(stdout, serve_report_json(&job.session, what));
    else if (job.ran)
        serve_report_table(stdout, &job.session, what);
    if (code != LVD_EXIT_OK && code != LVD_EXIT_PARTIAL)
        lvd_error(TOOL, "%s", err.msg);
    serve_job_free(&job);
    engine_devlock_release(&lock);
    return code;
}

int main(int argc, char **argv)
{
    options o = {.ctx = -1};
    lvd_opt_result r;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    lvd_err err = {{0}};
    serve_load *loads = NULL;
    if (code == 0)
        code = job_opts(&o);
    if (code == 0 && serve_loads_parse(o.load, &loads, &o.j.n_loads, &err) != 0)
        code = lvd_usage_error(TOOL, "--load: %s", err.msg);
    o.j.loads = loads;
    if (code == 0)
        code = run(&o);
    free(loads);
    lvd_opt_free(&tool, &o);
    return code < 0 ? LVD_EXIT_OK : code;
}
