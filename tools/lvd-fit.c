/* lvd-fit.c: the `lvd fit` tool: the context ceiling of every engine,
 * device and KV cache type pair for a model, found by loading. Option
 * parsing and printing only; the work is fit/fit.c. */
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "fit/ceiling.h"
#include "fit/fit.h"
#include "fit/search.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-fit"

typedef struct options {
    lvd_tool_opts t;
    const char *model;
    const char *engines;
    lvd_opt_list ctk, ctv;
    int64_t max_ctx;
    int64_t timeout_s;
    int no_record;
    int64_t wait_s; /* --wait: how long to wait for the device lock */
} options;

static const lvd_opt table[] = {
    {LVD_OPT_MODEL, LVD_AT(model), .req = LVD_FORM(0), .help = "the model (GGUF; a split model's first shard)"},
    {LVD_OPT_ENGINES, LVD_AT(engines)},
    {LVD_OPT_CTK, LVD_AT(ctk), .help = "K cache types (default f16)"},
    {LVD_OPT_CTV, LVD_AT(ctv), .help = "V cache types (default f16)"},
    {.spell = "--max-ctx", .arg = "N", .kind = LVD_OPT_INT, .lo = FIT_MIN_CTX, .hi = LVD_CTX_MAX, .unit = "tokens",
     LVD_AT(max_ctx), .help = "the top of the search (default the model's training context)"},
    {LVD_OPT_TIMEOUT, LVD_AT(timeout_s), .def = LVD_STRINGIFY(FIT_TIMEOUT_S_DEFAULT) "s",
     .help = "kill a load after DUR"},
    {.spell = "--no-record", .kind = LVD_OPT_FLAG, LVD_AT(no_record), .help = "search, print, write nothing"},
    {LVD_OPT_WAIT, LVD_AT(wait_s)},
    {LVD_OPT_JSON, .help = "print JSON: [{engine, device, ctk, ctv, ceiling, free_mib, probes, ...}]"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Finds the context ceiling of each engine x device x KV cache type pair (matched pairs: -ctk f16,q8_0 "
             "-ctv f16,q8_0 is two pairs; one type pairs with every other): the largest context that loads and runs "
             "one token, at the placement lvd select would use (its -ngl, --n-cpu-moe and -ub at the default "
             "context, from the device's free memory). Each load is one child `llama-bench -d N-2 -p 1 -n 1 -r 1` "
             "(a KV cache of N cells) with a timeout; a load that dies for memory (failed to allocate, out of "
             "memory), exits non-zero, is killed or times out does not fit. The search starts at the context the "
             "placement predicts fits, goes up to the model's training context (or --max-ctx), and halves the "
             "bracket until it is within " LVD_STRINGIFY(FIT_PRECISION_PCT) " %: at most log2(range) + 2 loads. "
             "Each ceiling is recorded with the free memory, the placement and the engine's identity; it is stale "
             "once the engine, the model or the placement changes. lvd select --ctx max serves it less "
             LVD_STRINGIFY(FIT_MARGIN_PCT) " % (rounded down to " LVD_STRINGIFY(FIT_SERVE_ROUND) "); lvd select -c "
             "above it is refused.",
    .opts = table,
    .exits = "0 every ceiling found, 5 some pair could not be searched (the others are recorded), 1 none could or "
             "no such engine, 2 usage, 3 model unreadable, 4 store error, 8 the devices are in use (another process "
             "holds the device lock).",
    .examples = "lvd fit -m ~/models/qwen3-8b-q4_k_m.gguf -ctk f16,q8_0 -ctv f16,q8_0 --max-ctx 262144",
};

static void on_progress(void *arg, const char *line)
{
    (void)arg;
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "%s: %s\n", TOOL, line);
}

/* The ceilings of o's pairs on every engine of the model: printed; the exit status. */
static int run(const options *o, const fit_pair *pairs, size_t n_pairs)
{
    engine_setup b;
    memset(&b, 0, sizeof b);
    engine_devlock lock;
    int code = engine_devlock_tool(TOOL, o->t.store, o->wait_s * 1000, &lock);
    if (code != LVD_EXIT_OK)
        return code;
    code = engine_setup_open(TOOL, o->t.store, o->model, o->engines, &b);
    fit_opts fo = {.pairs = pairs, .n_pairs = n_pairs, .max_ctx = o->max_ctx, .timeout_ms = (int)(o->timeout_s * 1000),
                   .record = !o->no_record, .progress = on_progress};
    fit_item *items;
    size_t n;
    lvd_err err = {{0}};
    if (code == LVD_EXIT_OK && fit_run(&b, &fo, &items, &n, &err) != 0) {
        code = lvd_tool_fail(TOOL, &err, strstr(err.msg, "--max-ctx") ? LVD_EXIT_INPUT : LVD_EXIT_STORE);
    } else if (code == LVD_EXIT_OK) {
        if (o->t.json)
            lvd_json_emit(stdout, fit_items_json(items, n));
        else
            fit_items_print(stdout, items, n);
        code = fit_items_exit(items, n);
        fit_items_free(items, n);
    }
    engine_setup_free(&b);
    engine_devlock_release(&lock);
    return code;
}

int main(int argc, char **argv)
{
    options o = {0};
    lvd_opt_result r;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    lvd_err err = {{0}};
    fit_pair *pairs = NULL;
    size_t n_pairs;
    if (code == 0 && fit_pairs_parse(o.ctk.arg, o.ctv.arg, &pairs, &n_pairs, &err) != 0)
        code = lvd_usage_error(TOOL, "%s", err.msg);
    else if (code == 0)
        code = run(&o, pairs, n_pairs);
    free(pairs);
    lvd_opt_free(&tool, &o);
    return code < 0 ? LVD_EXIT_OK : code;
}
