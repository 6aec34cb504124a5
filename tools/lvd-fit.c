/* lvd-fit.c: the `lvd fit` tool: the context ceiling of every engine,
 * device and KV cache type pair for a model, found by loading. Option
 * parsing and printing only; the work is fit/fit.c. */
#include "common/cli.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "fit/ceiling.h"
#include "fit/fit.h"
#include "fit/search.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-fit"

enum { O_ENGINES = 256, O_CTK, O_CTV, O_MAX_CTX, O_TIMEOUT, O_NO_RECORD, O_WAIT };

typedef struct options {
    lvd_tool_opts t;
    const char *model;
    const char *engines;
    const char *ctk, *ctv;
    int64_t max_ctx;
    int timeout_ms;
    int no_record;
    int64_t wait_s;          /* --wait: how long to wait for the device lock */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd fit -m M.gguf [--engines all|NAME,...] [-ctk T,...] [-ctv T,...] [--max-ctx N]\n"
            "               [--timeout SECS] [--no-record] [--wait DUR] [--json] [--store PATH]\n\n"
            "Finds the context ceiling of each engine x device x KV cache type pair (matched pairs:\n"
            "-ctk f16,q8_0 -ctv f16,q8_0 is two pairs; one type pairs with every other): the largest\n"
            "context that loads and runs one token, at the placement lvd select would use (its\n"
            "-ngl, --n-cpu-moe and -ub at the default context, from the device's free memory).\n"
            "Each load is one child `llama-bench -d N-2 -p 1 -n 1 -r 1` (a KV cache of N cells)\n"
            "with a timeout; a load that dies for memory (failed to allocate, out of memory), exits\n"
            "non-zero, is killed or times out does not fit. The search starts at the context the\n"
            "placement predicts fits, goes up to the model's training context (or --max-ctx), and\n"
            "halves the bracket until it is within %d %%: at most log2(range) + 2 loads.\n"
            "Each ceiling is recorded with the free memory, the placement and the engine's identity;\n"
            "it is stale once the engine, the model or the placement changes. lvd select --ctx max\n"
            "serves it less %d %% (rounded down to %d); lvd select -c above it is refused.\n\n"
            "options:\n"
            "  -m, --model FILE   the model (GGUF; a split model's first shard)\n"
            "  --engines LIST     registered engines by name or id (default all)\n"
            "  -ctk, --cache-type-k, --ctk LIST   K cache types (default f16)\n"
            "  -ctv, --cache-type-v, --ctv LIST   V cache types (default f16)\n"
            "  --max-ctx N        the top of the search (default the model's training context)\n"
            "  --timeout SECS     kill a load after SECS (default %d; 90s, 5m work too)\n"
            "  --no-record        search, print, write nothing\n"
            "  --wait DUR         wait up to DUR for the device lock a bench, check or nightly\n"
            "                     holds (default: refuse at once, naming the holder)\n"
            "  --json             print JSON: [{engine, device, ctk, ctv, ceiling, free_mib, probes, ...}]\n"
            "  --store PATH       the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                     (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help         this text\n\n"
            "exit: 0 every ceiling found, 5 some pair could not be searched (the others are\n"
            "recorded), 1 none could or no such engine, 2 usage, 3 model unreadable, 4 store error,\n"
            "8 the devices are in use (another process holds the device lock).\n\n"
            "example:\n"
            "  lvd fit -m ~/models/qwen3-8b-q4_k_m.gguf -ctk f16,q8_0 -ctv f16,q8_0 --max-ctx 262144\n",
            FIT_PRECISION_PCT, FIT_MARGIN_PCT, FIT_SERVE_ROUND, FIT_TIMEOUT_MS_DEFAULT / 1000);
}

static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    int64_t v;
    switch (c) {
    case 'm': o->model = arg; break;
    case O_ENGINES: o->engines = arg; break;
    case O_CTK: o->ctk = arg; break;
    case O_CTV: o->ctv = arg; break;
    case O_MAX_CTX:
        if (lvd_parse_i64(arg, &v) != 0 || v < FIT_MIN_CTX || v > (1 << 26))
            return lvd_usage_error(TOOL, "--max-ctx wants a context of %d to %d tokens, not '%s'", FIT_MIN_CTX,
                                   1 << 26, arg);
        o->max_ctx = v;
        break;
    case O_TIMEOUT:
        if (lvd_parse_duration(arg, &v) != 0 || v <= 0 || v > 86400)
            return lvd_usage_error(TOOL, "--timeout wants 1 to 86400 seconds, not '%s'", arg);
        o->timeout_ms = (int)(v * 1000);
        break;
    case O_NO_RECORD: o->no_record = 1; break;
    case O_WAIT:
        if (lvd_parse_wait(TOOL, arg, &o->wait_s))
            return LVD_EXIT_USAGE;
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},      {"engines", required_argument, NULL, O_ENGINES},
        {"ctk", required_argument, NULL, O_CTK},      {"ctv", required_argument, NULL, O_CTV},
        {"max-ctx", required_argument, NULL, O_MAX_CTX}, {"timeout", required_argument, NULL, O_TIMEOUT},
        {"no-record", no_argument, NULL, O_NO_RECORD}, {"wait", required_argument, NULL, O_WAIT},
        LVD_TOOL_LONGOPTS, {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":hm:", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc == 0 && !o->model)
        rc = lvd_usage_error(TOOL, "--model FILE is required");
    return rc;
}

static void on_progress(void *arg, const char *line)
{
    (void)arg;
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "%s: %s\n", TOOL, line);
}

static void print_table(const fit_item *v, size_t n)
{
    printf("%-16s %-8s %-11s %9s %9s %8s %-22s %6s\n", "ENGINE", "DEVICE", "KV", "CEILING", "PREDICTED", "FREE MiB",
           "PLACEMENT", "LOADS");
    for (size_t i = 0; i < n; i++) {
        char kv[40], ceil[24], pred[24], free_mib[24];
        snprintf(kv, sizeof kv, "%s/%s", v[i].pair.type_k, v[i].pair.type_v);
        if (v[i].error) {
            printf("%-16s %-8s %-11s %9s  %s\n", v[i].engine, v[i].device, kv, "-", v[i].error);
            continue;
        }
        snprintf(ceil, sizeof ceil, "%s%lld", v[i].capped ? ">=" : "", (long long)v[i].ceiling);
        snprintf(pred, sizeof pred, v[i].predicted < 0 ? "-" : "%lld", (long long)v[i].predicted);
        snprintf(free_mib, sizeof free_mib, v[i].free_mib < 0 ? "-" : "%lld", (long long)v[i].free_mib);
        printf("%-16s %-8s %-11s %9s %9s %8s %-22s %6d\n", v[i].engine, v[i].device, kv, ceil, pred, free_mib,
               v[i].placement, v[i].probes);
        if (v[i].last_fail)
            printf("  above it: %s\n", v[i].last_fail);
        if (v[i].left_out)
            printf("  %s\n", v[i].left_out);
    }
}

/* The exit code of the items: 0 all found, 5 some, 1 none. */
static int items_code(const fit_item *v, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += v[i].error != NULL;
    return bad == 0 ? LVD_EXIT_OK : bad < n ? LVD_EXIT_PARTIAL : LVD_EXIT_FAIL;
}

int main(int argc, char **argv)
{
    options o = {.timeout_ms = FIT_TIMEOUT_MS_DEFAULT};
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? LVD_EXIT_OK : rc;
    lvd_err err = {{0}};
    fit_pair *pairs;
    size_t n_pairs;
    if (fit_pairs_parse(o.ctk, o.ctv, &pairs, &n_pairs, &err) != 0)
        return lvd_usage_error(TOOL, "%s", err.msg);
    engine_setup b;
    memset(&b, 0, sizeof b);
    engine_devlock lock;
    int code = engine_devlock_tool(TOOL, o.t.store, o.wait_s * 1000, &lock);
    if (code != LVD_EXIT_OK) {
        free(pairs);
        return code;
    }
    code = engine_setup_open(TOOL, o.t.store, o.model, o.engines, &b);
    if (code == LVD_EXIT_OK) {
        fit_opts fo = {.pairs = pairs, .n_pairs = n_pairs, .max_ctx = o.max_ctx, .timeout_ms = o.timeout_ms,
                       .record = !o.no_record, .progress = on_progress};
        fit_item *items;
        size_t n;
        if (fit_run(&b, &fo, &items, &n, &err) != 0) {
            code = lvd_tool_fail(TOOL, &err, strstr(err.msg, "--max-ctx") ? LVD_EXIT_INPUT : LVD_EXIT_STORE);
        } else {
            if (o.t.json)
                lvd_json_emit(stdout, fit_items_json(items, n));
            else
                print_table(items, n);
            code = items_code(items, n);
            fit_items_free(items, n);
        }
    }
    engine_setup_free(&b);
    engine_devlock_release(&lock);
    free(pairs);
    return code;
}
