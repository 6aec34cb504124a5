/* lvd-select.c: the `lvd select` tool. Prints the llama-server launch line
 * for a model from the store (profile, verdict, heuristic, first engine),
 * and with --record computes and stores the model's verdict first (the
 * nightly's step after lvd bench). Option parsing and printing only; the
 * work is select/select.c and select/verdict.c. */
#include "common/cli.h"
#include "select/select.h"
#include "select/verdict.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-select"
#define CTX_MAX (INT64_C(1) << 24)

typedef struct options {
    const char *store;
    const char *model;
    const char *profile;
    int64_t ctx;
    int64_t free_mib;
    sel_objective objective;
    int json;
    int explain;
    int record;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd select --model M.gguf [--profile FILE] [--ctx N] [--free-mib N]\n"
            "                  [--objective tg|pp|W] [--record] [--json] [--explain] [--store PATH]\n\n"
            "Prints the llama-server launch line for a model, one shell-quoted line, from the\n"
            "store alone (no engine is run). The engine and device come from, in order:\n"
            "  1. the operator profile (--profile), when it names an engine, backend or device;\n"
            "  2. the model's verdict on this host, while the engines it compared are unchanged\n"
            "     and the winner's correctness check passed;\n"
            "  3. the heuristic over the cached probes (old NVIDIA -> Vulkan, modern -> CUDA,\n"
            "     AMD/Intel -> Vulkan, no accelerator -> CPU);\n"
            "  4. the first engine listing a device, else the CPU engine.\n"
            "Then the placement (-ngl, --n-cpu-moe, -ub) for the device's free memory.\n\n"
            "options:\n"
            "  --model M.gguf     the model (identified by its SHA-256, cached by path)\n"
            "  --profile FILE     operator profile (key = value): backend or engine, device, ctx,\n"
            "                     fa, ctk, ctv, ngl, n-cpu-moe, ub, threads, env.NAME\n"
            "  --ctx N            context to place and launch (default: the profile's, else\n"
            "                     min(4096, the model's); 0 = the model's training context)\n"
            "  --free-mib N       the device's free memory in MiB (default: the probe's figure)\n"
            "  --objective OBJ    the verdict's objective: tg (default), pp, or a tg weight W\n"
            "                     in [0, 1]\n"
            "  --record           first compute the verdict from the newest bench session and\n"
            "                     record it (after lvd bench and lvd check)\n"
            "  --json             print {rule, engine, backend, device, placement, argv, env,\n"
            "                     explain, ...} instead of the line\n"
            "  --explain          after the line, '# ' lines: which rule decided and why each\n"
            "                     rule above it did not\n"
            "  --store PATH       the store (default $LVD_STORE, else the XDG default)\n"
            "  -h, --help         this text\n\n"
            "exit: 0 ok, 1 no engine can serve (or --record found no bench run), 2 usage,\n"
            "3 bad model or profile (or a profile the probes cannot honour), 4 store error.\n\n"
            "example:\n"
            "  lvd select --model ~/models/qwen3-8b-q4_k_m.gguf --explain\n"
            "  eval \"exec $(lvd select --model m.gguf)\"\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { OPT_MODEL = 256, OPT_PROFILE, OPT_CTX, OPT_FREE, OPT_OBJ, OPT_JSON, OPT_EXPLAIN,
           OPT_RECORD, OPT_STORE };
    static const struct option longopts[] = {
        {"model", required_argument, NULL, OPT_MODEL},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"ctx", required_argument, NULL, OPT_CTX},
        {"free-mib", required_argument, NULL, OPT_FREE},
        {"objective", required_argument, NULL, OPT_OBJ},
        {"json", no_argument, NULL, OPT_JSON},
        {"explain", no_argument, NULL, OPT_EXPLAIN},
        {"record", no_argument, NULL, OPT_RECORD},
        {"store", required_argument, NULL, OPT_STORE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    o->ctx = o->free_mib = -1;
    sel_objective_default(&o->objective);
    lvd_err err;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_MODEL: o->model = optarg; break;
        case OPT_PROFILE: o->profile = optarg; break;
        case OPT_CTX:
            if (lvd_parse_i64(optarg, &o->ctx) != 0 || o->ctx < 0 || o->ctx > CTX_MAX)
                return lvd_usage_error(TOOL, "--ctx wants 0 to %lld tokens, not '%s'",
                                       (long long)CTX_MAX, optarg);
            break;
        case OPT_FREE:
            if (lvd_parse_i64(optarg, &o->free_mib) != 0 || o->free_mib < 0)
                return lvd_usage_error(TOOL, "--free-mib wants a number of MiB, not '%s'", optarg);
            break;
        case OPT_OBJ:
            if (sel_objective_parse(optarg, &o->objective, &err) != 0)
                return lvd_usage_error(TOOL, "%s", err.msg);
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_EXPLAIN: o->explain = 1; break;
        case OPT_RECORD: o->record = 1; break;
        case OPT_STORE: o->store = optarg; break;
        case 'h': usage(stdout); return -1;
        default: return lvd_usage_error(TOOL, "unknown option");
        }
    }
    if (optind < argc)
        return lvd_usage_error(TOOL, "unexpected argument '%s'", argv[optind]);
    if (!o->model)
        return lvd_usage_error(TOOL, "--model M.gguf is required");
    return 0;
}

/* --record: computes and stores the verdict; *v receives it. An exit code. */
static int record(store *s, const store_artifact *a, const options *o, lvd_verdict *v)
{
    sel_verdict_opts vo;
    sel_verdict_opts_init(&vo);
    vo.objective = o->objective;
    lvd_err err = {{0}};
    int rc = sel_verdict_record(s, a->sha256, &vo, v, &err);
    if (rc != 0) {
        lvd_error(TOOL, "%s", err.msg);
        return rc > 0 ? LVD_EXIT_FAIL : LVD_EXIT_STORE;
    }
    return LVD_EXIT_OK;
}

static cJSON *verdict_json(const lvd_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)v->id);
    cJSON_AddStringToObject(o, "objective", v->objective);
    cJSON_AddStringToObject(o, "rule", v->rule);
    if (v->engine_id)
        cJSON_AddNumberToObject(o, "engine_id", (double)v->engine_id);
    else
        cJSON_AddNullToObject(o, "engine_id");
    cJSON_AddStringToObject(o, "arm_key", v->arm_key ? v->arm_key : "");
    cJSON_AddStringToObject(o, "explain", v->explain ? v->explain : "");
    cJSON *stats = cJSON_Parse(v->stats_json ? v->stats_json : "null");
    cJSON_AddItemToObject(o, "stats", stats ? stats : cJSON_CreateNull());
    return o;
}

/* A '# ' comment line per line of text (the output stays valid shell). */
static void comment(const char *prefix, const char *text)
{
    printf("# %s", prefix);
    for (const char *p = text; *p; p++) {
        putchar(*p);
        if (*p == '\n')
            fputs("# ", stdout);
    }
    putchar('\n');
}

static void print_result(const options *o, const sel_result *r, const lvd_verdict *v)
{
    if (o->json) {
        cJSON *j = sel_result_json(r);
        if (v)
            cJSON_AddItemToObject(j, "recorded", verdict_json(v));
        lvd_json_emit(stdout, j);
        return;
    }
    char *line = sel_launch_to_shell(&r->launch);
    printf("%s\n", line);
    free(line);
    if (v) {
        char *head = lvd_xasprintf("recorded verdict #%lld (%s, objective %s): ",
                                   (long long)v->id, v->rule, v->objective);
        comment(head, v->explain ? v->explain : "");
        free(head);
    }
    if (o->explain) {
        printf("# decided by rule: %s\n", sel_by_name(r->by));
        for (size_t i = 0; i < r->n_explain; i++)
            comment("", r->explain[i]);
    }
}

int main(int argc, char **argv)
{
    options o = {0};
    int code = parse_options(argc, argv, &o);
    if (code != 0)
        return code < 0 ? LVD_EXIT_OK : code;
    lvd_err err = {{0}};
    sel_profile profile;
    int have_profile = 0;
    if (o.profile) {
        if (sel_profile_load(o.profile, &profile, &err) != 0) {
            lvd_error(TOOL, "%s", err.msg);
            return LVD_EXIT_INPUT;
        }
        have_profile = 1;
    }
    char *path = store_default_path(o.store);
    store *s = NULL;
    store_artifact a;
    lvd_verdict v = {0};
    int recorded = 0;
    sel_result r = {0};
    if (sel_open_identify(path, o.model, o.record, &s, &a, &code, &err) != 0) {
        lvd_error(TOOL, "%s", err.msg);
        goto out;
    }
    if (o.record) {
        code = record(s, &a, &o, &v);
        if (code != LVD_EXIT_OK)
            goto out;
        recorded = 1;
    }
    sel_request rq;
    sel_request_init(&rq);
    rq.model = o.model;
    rq.profile = have_profile ? &profile : NULL;
    rq.ctx = o.ctx;
    rq.free_mib = o.free_mib;
    rq.objective = o.objective;
    if (sel_select(s, &a, &rq, &r, &code, &err) != 0) {
        lvd_error(TOOL, "%s", err.msg);
        goto out;
    }
    print_result(&o, &r, recorded ? &v : NULL);
    code = LVD_EXIT_OK;
out:
    sel_result_free(&r);
    if (recorded)
        lvd_verdict_free(&v);
    store_artifact_free(&a);
    store_close(s);
    if (have_profile)
        sel_profile_free(&profile);
    free(path);
    return code;
}
