/* lvd-serve.c: the `lvd serve` tool: the launch line lvd select prints (or
 * the leading bench arms' lines), run as a real llama-server under N
 * concurrent clients, measured and recorded. Option parsing and printing
 * only; the work is serve/serve.c. */
#include "common/cli.h"
#include "engine/devlock.h"
#include "serve/report.h"
#include "serve/serve.h"
#include "serve/server.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-serve"
#define LOAD_DEFAULT "1:128:32,4:128:32"

enum { O_LOAD = 256, O_URL, O_ARMS, O_OBJECTIVE, O_REQUESTS, O_DURATION, O_ROUNDS, O_BUDGET, O_PORT, O_TIMEOUT,
       O_HEALTH, O_SESSION, O_NO_RECORD, O_LOG_DIR, O_WAIT, O_CTX };

typedef struct options {
    lvd_tool_opts t;
    serve_job_opts j;
    const char *load;
    int64_t wait_s;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd serve -m M.gguf [--load N:P:G,...] [--arms select|K] [--objective OBJ] [-c N]\n"
            "                 [--requests R | --duration DUR] [--rounds N] [--budget DUR] [--port P]\n"
            "                 [--timeout SECS] [--health-timeout SECS] [--session ID] [--no-record]\n"
            "                 [--log-dir DIR] [--wait DUR] [--json] [--store PATH]\n"
            "       lvd serve --url http://HOST:PORT [--load N:P:G,...] [--requests R | --duration DUR]\n"
            "                 [--rounds N] [--timeout SECS] [--wait DUR] [--json]\n\n"
            "Measures the llama-server launch line lvd select prints for the model (or each of the\n"
            "K leading arms' lines of its newest llama-bench session) under load: each line runs as\n"
            "a real llama-server on 127.0.0.1 with -np N, and N concurrent clients (libcurl) stream\n"
            "completions of P prompt tokens and G generated tokens, request after request. Per\n"
            "request: time to first token (TTFT), inter-token latency (ITL), tokens per second;\n"
            "per run their p50/p95/p99, the aggregate t/s, errors, the time to /health 200 and the\n"
            "server's /metrics. Arms and loads run interleaved in rounds until the statistics\n"
            "settle; every run is recorded like llama-bench's (tests serve-ttft@ppP+tgG and\n"
            "serve-tps@ppP+tgG of the arm at -np N), for lvd select --objective serve, lvd pin\n"
            "and the evidence page. The server is stopped with its process group on every exit,\n"
            "SIGKILL of lvd serve included.\n\n"
            "options:\n"
            "  -m, --model FILE    the model (GGUF; a split model's first shard)\n"
            "  --load LIST         load shapes N:P:G, comma-separated: N clients (and -np N), P prompt\n"
            "                      tokens, G generated tokens (default " LOAD_DEFAULT ")\n"
            "  --arms select|K     the line lvd select prints (default), or the K leading arms'\n"
            "  --url URL           instead: drive the llama-server already running at URL as it is\n"
            "                      (its own -np; nothing started, nothing recorded)\n"
            "  --objective OBJ     the verdict lvd select's line comes from (default tg)\n"
            "  -c, --ctx N         lvd select's --ctx for the line\n"
            "  --requests R        requests per run (default %d per client, at least %d)\n"
            "  --duration DUR      instead: send requests for DUR per run (30s, 2m)\n"
            "  --rounds N          rounds at most (default %d)\n"
            "  --budget DUR        stop starting runs after DUR\n"
            "  --port P            the server's port (default: a free one); a port in use is an error\n"
            "  --timeout SECS      one request's limit (default %d)\n"
            "  --health-timeout S  how long the server may take to answer /health 200 (default %d)\n"
            "  --session ID        record under this session (the nightly's); default a new one\n"
            "  --no-record         measure and print, record nothing\n"
            "  --log-dir DIR       keep each server's log there (default: a temporary directory)\n"
            "  --wait DUR          wait up to DUR for the device lock (default: refuse at once)\n"
            "  --json              print JSON: {session, arms, cells: [{arm, load, figures}]}\n"
            "  --store PATH        the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                      (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help          this text\n\n"
            "exit: 0 every run ok, 5 some failed (recorded), 1 none did or interrupted, 2 usage,\n"
            "3 model unreadable or the port taken, 4 store error, 8 the devices are in use.\n\n"
            "example:\n"
            "  lvd serve -m ~/models/qwen3-8b-q4_k_m.gguf --load 1:512:128,4:512:128 --arms 2\n",
            SERVE_REQUESTS_PER_CLIENT, SERVE_REQUESTS_MIN, SERVE_MAX_ROUNDS_DEFAULT,
            SERVE_REQUEST_TIMEOUT_MS_DEFAULT / 1000, SERVE_HEALTH_TIMEOUT_MS_DEFAULT / 1000);
}

/* A whole number of lo to hi into *out. 0, or the usage error's code. */
static int int_arg(const char *opt, const char *arg, int64_t lo, int64_t hi, int64_t *out)
{
    if (lvd_parse_i64(arg, out) != 0 || *out < lo || *out > hi)
        return lvd_usage_error(TOOL, "%s wants %lld to %lld, not '%s'", opt, (long long)lo, (long long)hi, arg);
    return 0;
}

/* A duration of 1 s to a day into *ms. 0, or the usage error's code. */
static int dur_arg(const char *opt, const char *arg, int64_t *ms)
{
    int64_t s;
    if (lvd_parse_duration(arg, &s) != 0 || s < 1 || s > 86400)
        return lvd_usage_error(TOOL, "%s wants 1s to 1d, not '%s'", opt, arg);
    *ms = s * 1000;
    return 0;
}

static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    int64_t v;
    lvd_err err;
    int rc = 0;
    switch (c) {
    case 'm': o->j.model = arg; break;
    case O_LOAD: o->load = arg; break;
    case O_URL: o->j.url = arg; break;
    case O_ARMS:
        if (strcmp(arg, "select") && (rc = int_arg("--arms", arg, 1, 64, &v)) == 0)
            o->j.leading = (size_t)v;
        break;
    case O_OBJECTIVE:
        if (stats_objective_parse(arg, &o->j.objective, &err) != 0)
            rc = lvd_usage_error(TOOL, "--objective: %s", err.msg);
        break;
    case O_CTX:
        if ((rc = int_arg("--ctx", arg, 0, 1 << 26, &v)) == 0)
            o->j.ctx = v;
        break;
    case O_REQUESTS:
        if ((rc = int_arg("--requests", arg, 1, 1000000, &v)) == 0)
            o->j.run.requests = (int)v;
        break;
    case O_DURATION:
        if ((rc = dur_arg("--duration", arg, &o->j.run.duration_ms)) == 0)
            o->j.run.requests = 0;
        break;
    case O_ROUNDS:
        if ((rc = int_arg("--rounds", arg, 1, 100, &v)) == 0)
            o->j.max_rounds = (size_t)v;
        break;
    case O_BUDGET: rc = dur_arg("--budget", arg, &o->j.budget_ms); break;
    case O_PORT:
        if ((rc = int_arg("--port", arg, 1, 65535, &v)) == 0)
            o->j.run.port = (int)v;
        break;
    case O_TIMEOUT:
        if ((rc = int_arg("--timeout", arg, 1, 86400, &v)) == 0)
            o->j.run.request_timeout_ms = (int)v * 1000;
        break;
    case O_HEALTH:
        if ((rc = int_arg("--health-timeout", arg, 1, 86400, &v)) == 0)
            o->j.run.health_timeout_ms = (int)v * 1000;
        break;
    case O_SESSION: o->j.session = arg; break;
    case O_NO_RECORD: o->j.record = 0; break;
    case O_LOG_DIR: o->j.run.log_dir = arg; break;
    case O_WAIT: rc = lvd_parse_wait(TOOL, arg, &o->wait_s); break;
    }
    return rc;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},        {"load", required_argument, NULL, O_LOAD},
        {"url", required_argument, NULL, O_URL},
        {"arms", required_argument, NULL, O_ARMS},      {"objective", required_argument, NULL, O_OBJECTIVE},
        {"ctx", required_argument, NULL, O_CTX},        {"requests", required_argument, NULL, O_REQUESTS},
        {"duration", required_argument, NULL, O_DURATION}, {"rounds", required_argument, NULL, O_ROUNDS},
        {"budget", required_argument, NULL, O_BUDGET},  {"port", required_argument, NULL, O_PORT},
        {"timeout", required_argument, NULL, O_TIMEOUT}, {"health-timeout", required_argument, NULL, O_HEALTH},
        {"session", required_argument, NULL, O_SESSION}, {"no-record", no_argument, NULL, O_NO_RECORD},
        {"log-dir", required_argument, NULL, O_LOG_DIR}, {"wait", required_argument, NULL, O_WAIT},
        LVD_TOOL_LONGOPTS, {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":hm:", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc == 0 && !o->j.model && !o->j.url)
        rc = lvd_usage_error(TOOL, "--model FILE is required");
    if (rc == 0 && o->j.model && o->j.url)
        rc = lvd_usage_error(TOOL, "--url measures the server running there: no --model with it");
    return rc;
}

int main(int argc, char **argv)
{
    options o = {.j = {.ctx = -1, .record = 1,
                       .run = {.requests = SERVE_REQUESTS_AUTO, .request_timeout_ms = SERVE_REQUEST_TIMEOUT_MS_DEFAULT,
                               .health_timeout_ms = SERVE_HEALTH_TIMEOUT_MS_DEFAULT}}};
    stats_objective_default(&o.j.objective);
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? LVD_EXIT_OK : rc;
    lvd_err err = {{0}};
    serve_load *loads;
    if (serve_loads_parse(o.load ? o.load : LOAD_DEFAULT, &loads, &o.j.n_loads, &err) != 0)
        return lvd_usage_error(TOOL, "--load: %s", err.msg);
    o.j.loads = loads;
    o.j.store = o.t.store;
    o.j.progress = lvd_progress_enabled() ? stderr : NULL; /* a line per run, on a terminal */
    engine_devlock lock;
    int code = engine_devlock_tool(TOOL, o.t.store, o.wait_s * 1000, &lock);
    if (code == LVD_EXIT_OK) {
        serve_job job;
        code = serve_job_run(&o.j, &job, &err);
        if (job.ran && o.t.json)
            lvd_json_emit(stdout, serve_report_json(&job.session, o.j.url ? o.j.url : o.j.model));
        else if (job.ran)
            serve_report_table(stdout, &job.session, o.j.url ? o.j.url : o.j.model);
        if (code != LVD_EXIT_OK && code != LVD_EXIT_PARTIAL)
            lvd_error(TOOL, "%s", err.msg);
        serve_job_free(&job);
        engine_devlock_release(&lock);
    }
    free(loads);
    return code;
}
