/* lvd-store.c: `lvd store`: look into the store (info, engines, artifacts,
 * runs), import llama-bench output, record a model, merge another store.
 * Option parsing and printing only; the work is in store/ and bench/import.c. */
#include "bench/import.h"
#include "bench/import_batch.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/gguf.h"
#include "stats/stats.h"
#include "store/identify.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-store"
#define COMMANDS "info, engines, artifacts, runs, import, model, merge"

typedef struct options {
    lvd_tool_opts t;         /* --store, --json, --host */
    const char *command;
    const char *arg;         /* FILE for import, M.gguf for model */
    char **files;            /* import: FILE and the files after it */
    int n_files;
    /* import: each --engine, --model, --artifact given (once: for every file;
     * once per file: the file's, in order) */
    const char **engines, **models, **artifacts;
    int n_engines, n_models, n_artifacts;
    const char *engine, *engine_dir, *build, *model, *artifact, *env, *session;
    const char *select_build, *select_model, *select_backend;
    bench_format format;
    int limit;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd store [--store PATH] [--json] COMMAND [ARGS]\n"
            "\n"
            "Look into the llama-verdict store, import llama-bench results, record a model.\n"
            "\n"
            "commands:\n"
            "  info            the store's path, schema version and row counts\n"
            "  engines         engines: id, name, build, backend (from the latest probe), directory\n"
            "  artifacts       models: sha256, size, architecture, blocks, experts, file type\n"
            "  runs            runs, one line per test: id, engine, test, median t/s, samples,\n"
            "                  status, arm  [--limit N (default 50, 0 = all)] [--engine NAME]\n"
            "                  [--artifact SHA256]\n"
            "  import FILE...  record llama-bench output (-o json, -o jsonl or -o sql, or the\n"
            "                  SQLite database compare-llama-bench.py reads) as runs:\n"
            "                    --engine NAME                an engine in the store, or\n"
            "                    --engine-dir DIR --build ID  register DIR (origin \"imported\")\n"
            "                    -m, --model M.gguf           the model (hashed, shape recorded), or\n"
            "                    --artifact SHA256            its sha256 when the file is elsewhere\n"
            "                    [--host NAME] [--env \"K=V ...\"] [--format auto|json|jsonl|sql]\n"
            "                    [--session NAME]             join this session (default\n"
            "                                                 import:BASENAME); imports that\n"
            "                                                 share one are compared together\n"
            "                    [--select-build COMMIT|bNNNN] [--select-model FILENAME]\n"
            "                    [--select-backend CUDA|CPU|Vulkan|...]\n"
            "                                                 only those rows of a mixed file;\n"
            "                                                 rows of another backend than the\n"
            "                                                 engine's are refused, never filed\n"
            "                  One run per consecutive parameter set, warm-up samples flagged as\n"
            "                  lvd bench flags them; importing again adds nothing. Several\n"
            "                  files take one store open, one transaction each; --engine,\n"
            "                  --model and --artifact given once serve every file, given once\n"
            "                  per file name each file's in order; the first file that fails\n"
            "                  stops the rest (--json: an array of the files' objects).\n"
            "  model M.gguf    record a model file and print its sha256 and GGUF shape\n"
            "                  (or model -m M.gguf)\n"
            "  merge OTHER     add another store's measurements (rows keep their host; idempotent)\n"
            "\n"
            "options:\n"
            "  --store PATH    the store: an SQLite file, or a PostgreSQL URI\n"
            "                  (postgresql://USER@HOST/DB, service=NAME; its password only in\n"
            "                  ~/.pgpass, PGPASSWORD or a service file); default: $LVD_STORE,\n"
            "                  else $XDG_DATA_HOME/llama-verdict/store.db\n"
            "  --json          print JSON instead of a table\n"
            "  -h, --help      this text\n"
            "\n"
            "examples:\n"
            "  lvd store info\n"
            "  llama-bench -m m.gguf -o jsonl > out.jsonl\n"
            "  lvd store import out.jsonl --engine b9749-cpu --model m.gguf\n"
            "  lvd store import old.sql --engine-dir /opt/llama-b9749 --build b9749 --artifact 9739...\n"
            "  lvd store import week/*-cuda.jsonl --engine b9749-cuda --model m.gguf\n"
            "  lvd store import cpu.jsonl cuda.jsonl --engine b9749-cpu --engine b9749-cuda -m m.gguf\n"
            "  lvd store import cuda.jsonl --engine b9749-cuda --artifact 9739... --session h200-nov\n"
            "  lvd store runs --limit 20 --json\n"
            "  lvd store --store postgresql://lvd@db.lab/llama_verdict info\n"
            "  lvd store merge /mnt/usb/gpu-box-3.db\n"
            "\n"
            "exit codes: 0 ok, 1 failed, 2 usage, 3 bad input file (import file, model, OTHER),\n"
            "            4 store cannot be opened (its server unreachable), is newer than\n"
            "            this binary, or failed\n");
}

enum { OPT_ENGINE = 256, OPT_ENGINE_DIR, OPT_BUILD, OPT_MODEL, OPT_ARTIFACT,
       OPT_ENV, OPT_FORMAT, OPT_LIMIT, OPT_SELECT_BUILD, OPT_SELECT_MODEL, OPT_SELECT_BACKEND, OPT_SESSION };

/* Appends arg to the values of a repeatable option; returns arg. */
static const char *add_value(const char ***v, int *n, const char *arg)
{
    *v = lvd_xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[(*n)++] = arg;
    return arg;
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    int64_t n;
    switch (c) {
    case OPT_ENGINE: o->engine = add_value(&o->engines, &o->n_engines, arg); break;
    case OPT_ENGINE_DIR: o->engine_dir = arg; break;
    case OPT_BUILD: o->build = arg; break;
    case OPT_MODEL: o->model = add_value(&o->models, &o->n_models, arg); break;
    case OPT_ARTIFACT: o->artifact = add_value(&o->artifacts, &o->n_artifacts, arg); break;
    case OPT_ENV: o->env = arg; break;
    case OPT_SESSION: o->session = arg; break;
    case OPT_SELECT_BUILD: o->select_build = arg; break;
    case OPT_SELECT_MODEL: o->select_model = arg; break;
    case OPT_SELECT_BACKEND: o->select_backend = arg; break;
    case OPT_FORMAT:
        if (bench_format_parse(arg, &o->format))
            return lvd_usage_error(TOOL, "--format %s: expected auto, json, jsonl or sql", arg);
        break;
    case OPT_LIMIT:
        if (lvd_parse_i64(arg, &n) || n < 0 || n > 1000000000)
            return lvd_usage_error(TOOL, "--limit %s: expected a count (0 = all)", arg);
        o->limit = (int)n;
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        LVD_TOOL_LONGOPTS,
        {"engine", required_argument, NULL, OPT_ENGINE}, {"engine-dir", required_argument, NULL, OPT_ENGINE_DIR},
        {"build", required_argument, NULL, OPT_BUILD},   {"model", required_argument, NULL, OPT_MODEL},
        {"artifact", required_argument, NULL, OPT_ARTIFACT}, LVD_TOOL_HOST_LONGOPT,
        {"env", required_argument, NULL, OPT_ENV},       {"format", required_argument, NULL, OPT_FORMAT},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"select-build", required_argument, NULL, OPT_SELECT_BUILD},
        {"select-model", required_argument, NULL, OPT_SELECT_MODEL},
        {"select-backend", required_argument, NULL, OPT_SELECT_BACKEND},
        {"session", required_argument, NULL, OPT_SESSION},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->limit = 50;
    int rc = lvd_tool_parse(TOOL, argc, argv, ":h", longs, usage, &o->t, option, o);
    if (rc != 0)
        return rc;
    if (optind >= argc)
        return lvd_usage_error(TOOL, "missing COMMAND (" COMMANDS ")");
    o->command = argv[optind++];
    int model_cmd = !strcmp(o->command, "model"), merge = !strcmp(o->command, "merge");
    if (model_cmd && o->model) { /* lvd store model -m M.gguf */
        if (optind < argc)
            return lvd_usage_error(TOOL, "model takes M.gguf or --model M.gguf, not both");
        o->arg = o->model;
    } else if (model_cmd || merge || !strcmp(o->command, "import")) {
        if (optind >= argc)
            return lvd_usage_error(TOOL, "%s needs %s", o->command,
                                   model_cmd ? "a model file" : merge ? "OTHER" : "a FILE");
        o->files = &argv[optind];
        o->arg = argv[optind++];
        o->n_files = 1;
        while (!model_cmd && optind < argc) /* import F1 F2 ...: one store open */
            o->n_files++, optind++;
    }
    return lvd_tool_no_operands(TOOL, argc, argv);
}

/* --- info ------------------------------------------------------------------ */

static int cmd_info(store *s, const options *o)
{
    lvd_err err = {0};
    int64_t version;
    store_counts c;
    if (store_user_version(s, &version, &err) || store_counts_get(s, &c, &err))
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    static const char *const names[] = {"artifacts", "engines", "probes", "runs", "results",
                                        "samples", "checks", "verdicts", "pin_decisions"};
    const int64_t values[] = {c.artifacts, c.engines, c.probes, c.runs, c.results,
                              c.samples, c.checks, c.verdicts, c.pin_decisions};
    if (o->t.json) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "path", store_path(s));
        cJSON_AddNumberToObject(root, "schema_version", (double)version);
        cJSON *counts = cJSON_AddObjectToObject(root, "counts");
        for (size_t i = 0; i < LVD_ARRAY_LEN(names); i++)
            cJSON_AddNumberToObject(counts, names[i], (double)values[i]);
        lvd_json_emit(stdout, root);
        return LVD_EXIT_OK;
    }
    printf("store:          %s\nschema version: %lld\n", store_path(s), (long long)version);
    for (size_t i = 0; i < LVD_ARRAY_LEN(names); i++)
        printf("%-15s %lld\n", names[i], (long long)values[i]);
    return LVD_EXIT_OK;
}

/* --- engines ---------------------------------------------------------------- */

static int cmd_engines(store *s, const options *o)
{
    lvd_err err = {0};
    lvd_engine *v;
    size_t n;
    if (store_engine_list(s, &v, &n, &err))
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    cJSON *arr = o->t.json ? cJSON_CreateArray() : NULL;
    if (!o->t.json && n)
        printf("%-4s %-24s %-10s %-11s %s\n", "ID", "NAME", "BUILD", "BACKEND", "DIR");
    int ret = LVD_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        lvd_probe p;
        int rc = store_probe_latest(s, v[i].id, &p, &err);
        if (rc < 0) {
            ret = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
            break;
        }
        const char *backend = rc == 0 ? p.backend : "not probed";
        if (o->t.json) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "id", (double)v[i].id);
            cJSON_AddStringToObject(e, "name", v[i].name);
            cJSON_AddStringToObject(e, "build", v[i].build);
            cJSON_AddStringToObject(e, "backend", backend);
            cJSON_AddStringToObject(e, "dir", v[i].dir);
            cJSON_AddStringToObject(e, "origin", v[i].origin);
            cJSON_AddItemToObject(e, "commit", lvd_json_str(v[i].commit));
            cJSON_AddItemToObject(e, "flavour", lvd_json_str(v[i].flavour));
            cJSON_AddItemToObject(e, "digest", lvd_json_str(v[i].digest));
            cJSON_AddNumberToObject(e, "created_at", (double)v[i].created_at);
            if (rc == 0) {
                cJSON_AddNumberToObject(e, "probed_at", (double)p.probed_at);
                cJSON *devs = cJSON_AddArrayToObject(e, "devices");
                for (size_t d = 0; d < p.n_devices; d++)
                    cJSON_AddItemToArray(devs, cJSON_CreateString(p.devices[d].selector));
                if (p.reason)
                    cJSON_AddStringToObject(e, "reason", p.reason);
            }
            cJSON_AddItemToArray(arr, e);
        } else {
            printf("%-4lld %-24s %-10s %-11s %s\n", (long long)v[i].id, v[i].name, v[i].build, backend, v[i].dir);
        }
        if (rc == 0)
            lvd_probe_free(&p);
    }
    if (o->t.json) {
        if (ret == LVD_EXIT_OK)
            lvd_json_emit(stdout, arr);
        else
            cJSON_Delete(arr);
    } else if (n == 0) {
        printf("no engines (register one with: lvd fetch --register DIR --build ID)\n");
    }
    store_engine_list_free(v, n);
    return ret;
}

/* --- artifacts and model ------------------------------------------------------- */

static cJSON *artifact_json(const store_artifact *a)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "sha256", a->sha256);
    cJSON_AddItemToObject(o, "size", lvd_json_num(a->size >= 0 ? (double)a->size : NAN));
    cJSON_AddItemToObject(o, "path", lvd_json_str(a->last_path));
    cJSON_AddNumberToObject(o, "created_at", (double)a->created_at);
    const gguf_shape *g = &a->shape;
    if (!g->known) {
        cJSON_AddNullToObject(o, "shape");
        return o;
    }
    cJSON *sh = cJSON_AddObjectToObject(o, "shape");
    cJSON_AddStringToObject(sh, "arch", g->arch);
    cJSON_AddStringToObject(sh, "name", g->name);
    cJSON_AddNumberToObject(sh, "gguf_version", g->version);
    cJSON_AddNumberToObject(sh, "file_type", g->file_type);
    cJSON_AddStringToObject(sh, "file_type_name", gguf_file_type_name(g->file_type));
    const struct {
        const char *key;
        double v;
    } nums[] = {
        {"n_block", g->n_block}, {"n_embd", g->n_embd}, {"n_head", g->n_head}, {"n_head_kv", g->n_head_kv},
        {"head_dim_k", g->head_dim_k}, {"head_dim_v", g->head_dim_v}, {"n_ctx_train", g->n_ctx_train},
        {"n_expert", g->n_expert}, {"n_expert_used", g->n_expert_used},
        {"block_bytes", (double)g->block_bytes}, {"expert_bytes", (double)g->expert_bytes},
        {"non_block_bytes", (double)g->non_block_bytes}, {"tensor_bytes", (double)g->tensor_bytes},
        {"n_tensors", (double)g->n_tensors}, {"n_kv", (double)g->n_kv},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(nums); i++)
        cJSON_AddNumberToObject(sh, nums[i].key, nums[i].v);
    return o;
}

static const char *human_size(int64_t bytes, char *buf, size_t len)
{
    if (bytes < 0)
        snprintf(buf, len, "?");
    else if (bytes >= (int64_t)1 << 30)
        snprintf(buf, len, "%.2f GiB", (double)bytes / (1 << 30));
    else
        snprintf(buf, len, "%.2f MiB", (double)bytes / (1 << 20));
    return buf;
}

static void artifact_row(const store_artifact *a)
{
    char size[32];
    const gguf_shape *g = &a->shape;
    if (g->known)
        printf("%-12.12s %10s  %-10s %6u %7u  %s\n", a->sha256, human_size(a->size, size, sizeof size), g->arch,
               g->n_block, g->n_expert, gguf_file_type_name(g->file_type));
    else
        printf("%-12.12s %10s  %-10s %6s %7s  %s\n", a->sha256, human_size(a->size, size, sizeof size), "?", "?",
               "?", "? (shape unknown)");
}

static void artifact_header(void)
{
    printf("%-12s %10s  %-10s %6s %7s  %s\n", "SHA256", "SIZE", "ARCH", "BLOCKS", "EXPERTS", "TYPE");
}

static int cmd_artifacts(store *s, const options *o)
{
    lvd_err err = {0};
    store_artifact *v;
    size_t n;
    if (store_artifact_list(s, &v, &n, &err))
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    if (o->t.json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, artifact_json(&v[i]));
        lvd_json_emit(stdout, arr);
    } else if (n == 0) {
        printf("no artifacts (record one with: lvd store model M.gguf)\n");
    } else {
        artifact_header();
        for (size_t i = 0; i < n; i++)
            artifact_row(&v[i]);
    }
    store_artifact_list_free(v, n);
    return LVD_EXIT_OK;
}

static int cmd_model(store *s, const options *o)
{
    lvd_err err = {0};
    store_artifact a;
    int hashed = 0;
    if (store_identify(s, o->arg, 0, &a, &hashed, &err)) {
        lvd_error(TOOL, "%s", err.msg);
        return LVD_EXIT_INPUT;
    }
    if (o->t.json) {
        cJSON *j = artifact_json(&a);
        cJSON_AddBoolToObject(j, "hashed", hashed);
        lvd_json_emit(stdout, j);
    } else {
        const gguf_shape *g = &a.shape;
        char size[32];
        printf("sha256:     %s%s\n", a.sha256, hashed ? "" : " (cached)");
        printf("size:       %lld bytes (%s)\n", (long long)a.size, human_size(a.size, size, sizeof size));
        printf("arch:       %s%s%s%s\n", g->arch, g->name[0] ? " (" : "", g->name, g->name[0] ? ")" : "");
        printf("file type:  %s\n", gguf_file_type_name(g->file_type));
        printf("blocks:     %u, n_embd %u, heads %u (kv %u), head dims k %u v %u, ctx %u\n", g->n_block,
               g->n_embd, g->n_head, g->n_head_kv, g->head_dim_k, g->head_dim_v, g->n_ctx_train);
        if (g->n_expert)
            printf("experts:    %u (%u used), %llu expert bytes per block\n", g->n_expert, g->n_expert_used,
                   (unsigned long long)g->expert_bytes);
        else
            printf("experts:    none (dense)\n");
        printf("bytes:      %llu per block, %llu outside blocks, %llu tensor data\n",
               (unsigned long long)g->block_bytes, (unsigned long long)g->non_block_bytes,
               (unsigned long long)g->tensor_bytes);
    }
    store_artifact_free(&a);
    return LVD_EXIT_OK;
}

/* --- runs ----------------------------------------------------------------- */

/* Median t/s of the kept samples (stats_result_kept); NAN when there are none. */
static double median_ts(const lvd_result *r, size_t *used)
{
    double *v;
    *used = stats_result_kept(r, &v, NULL);
    double m = stats_median(v, *used);
    free(v);
    return m;
}

/* llama-bench's own average, for results imported without samples (-o sql). */
static double reported_avg_ts(const lvd_result *r)
{
    cJSON *o = r->reported_json ? cJSON_Parse(r->reported_json) : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "avg_ts");
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    cJSON_Delete(o);
    return d;
}

static const char *engine_name(const lvd_engine *v, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id)
            return v[i].name;
    return "?";
}

static cJSON *result_json(const lvd_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "test", r->test);
    cJSON_AddNumberToObject(o, "n_prompt", r->n_prompt);
    cJSON_AddNumberToObject(o, "n_gen", r->n_gen);
    cJSON_AddNumberToObject(o, "n_depth", r->n_depth);
    cJSON_AddStringToObject(o, "backends", r->backends);
    size_t used;
    double med = median_ts(r, &used);
    cJSON_AddItemToObject(o, "median_ts", lvd_json_num(med));
    double avg = reported_avg_ts(r);
    cJSON_AddItemToObject(o, "reported_avg_ts", lvd_json_num(avg));
    cJSON_AddNumberToObject(o, "n", (double)r->n);
    cJSON *ts = cJSON_AddArrayToObject(o, "samples_ts");
    cJSON *ns = cJSON_AddArrayToObject(o, "samples_ns");
    cJSON *wu = cJSON_AddArrayToObject(o, "warmup");
    for (size_t i = 0; i < r->n; i++) {
        cJSON_AddItemToArray(ts, cJSON_CreateNumber(r->ts[i]));
        cJSON_AddItemToArray(ns, r->ns && r->ns[i] >= 0 ? cJSON_CreateNumber((double)r->ns[i]) : cJSON_CreateNull());
        cJSON_AddItemToArray(wu, cJSON_CreateBool(r->warmup && r->warmup[i]));
    }
    return o;
}

static cJSON *run_json(const lvd_run *r, const char *engine)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)r->id);
    cJSON_AddNumberToObject(o, "engine_id", (double)r->engine_id);
    cJSON_AddStringToObject(o, "engine", engine);
    cJSON_AddStringToObject(o, "artifact", r->artifact);
    cJSON_AddStringToObject(o, "host", r->host);
    cJSON_AddItemToObject(o, "session", lvd_json_str(r->session));
    cJSON_AddStringToObject(o, "arm_key", r->arm_key);
    cJSON_AddStringToObject(o, "binary", r->binary);
    cJSON_AddStringToObject(o, "build", r->build);
    cJSON_AddItemToObject(o, "build_commit", lvd_json_str(r->build_commit));
    cJSON_AddNumberToObject(o, "build_number", (double)r->build_number);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddItemToObject(o, "reason", lvd_json_str(r->reason));
    cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
    cJSON_AddNumberToObject(o, "started_at", (double)r->started_at);
    cJSON_AddNumberToObject(o, "wall_ms", (double)r->wall_ms);
    cJSON_AddStringToObject(o, "source", r->source);
    cJSON *res = cJSON_AddArrayToObject(o, "results");
    for (size_t i = 0; i < r->n_results; i++)
        cJSON_AddItemToArray(res, result_json(&r->results[i]));
    return o;
}

static void run_rows(const lvd_run *r, const char *engine, int *footnote)
{
    if (r->n_results == 0)
        printf("%-5lld %-16s %-14s %12s %4s  %-11s %s\n", (long long)r->id, engine, "-", "-", "0", r->status,
               r->arm_key);
    for (size_t i = 0; i < r->n_results; i++) {
        size_t used;
        double med = median_ts(&r->results[i], &used);
        char ts[32];
        if (!isnan(med)) {
            snprintf(ts, sizeof ts, "%.2f", med);
        } else {
            double avg = reported_avg_ts(&r->results[i]);
            snprintf(ts, sizeof ts, isnan(avg) ? "-" : "%.2f*", avg);
            *footnote |= !isnan(avg);
        }
        printf("%-5lld %-16s %-14s %12s %4zu  %-11s %s\n", (long long)r->id, engine, r->results[i].test, ts, used,
               r->status, r->arm_key);
    }
}

static int cmd_runs(store *s, const options *o)
{
    lvd_err err = {0};
    lvd_engine *engines;
    size_t ne;
    if (store_engine_list(s, &engines, &ne, &err))
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    store_run_filter f = {.artifact = o->artifact, .with_samples = 1, .limit = o->limit};
    int ret = LVD_EXIT_OK;
    if (o->engine) {
        for (size_t i = 0; i < ne; i++)
            if (!strcmp(engines[i].name, o->engine))
                f.engine_id = engines[i].id;
        if (!f.engine_id) {
            lvd_error(TOOL, "no engine named '%s' in %s", o->engine, store_path(s));
            store_engine_list_free(engines, ne);
            return LVD_EXIT_USAGE;
        }
    }
    lvd_run *v;
    size_t n;
    if (store_run_list(s, &f, &v, &n, &err)) {
        store_engine_list_free(engines, ne);
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    }
    if (o->t.json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, run_json(&v[i], engine_name(engines, ne, v[i].engine_id)));
        lvd_json_emit(stdout, arr);
    } else if (n == 0) {
        printf("no runs\n");
    } else {
        int footnote = 0;
        printf("%-5s %-16s %-14s %12s %4s  %-11s %s\n", "ID", "ENGINE", "TEST", "T/S", "N", "STATUS", "ARM");
        for (size_t i = 0; i < n; i++)
            run_rows(&v[i], engine_name(engines, ne, v[i].engine_id), &footnote);
        if (footnote)
            printf("* llama-bench's average: imported without samples (-o sql)\n");
    }
    store_run_list_free(v, n);
    store_engine_list_free(engines, ne);
    return ret;
}

/* --- import ----------------------------------------------------------------- */

static int cmd_import(store *s, const options *o)
{
    bench_import_opts base = {.format = o->format, .engine = o->engine, .engine_dir = o->engine_dir,
                              .build = o->build, .model = o->model, .artifact = o->artifact, .host = o->t.host,
                              .env = o->env, .session = o->session, .select_build = o->select_build,
                              .select_model = o->select_model, .select_backend = o->select_backend};
    bench_import_batch b = {.base = &base, .files = (const char *const *)o->files, .n_files = o->n_files,
                            .engines = o->engines, .models = o->models, .artifacts = o->artifacts,
                            .n_engines = o->n_engines, .n_models = o->n_models, .n_artifacts = o->n_artifacts,
                            .json = o->t.json};
    return bench_import_batch_run(s, &b, TOOL);
}

static int cmd_merge(store *s, const options *o) { return store_tool_merge(TOOL, s, o->arg, o->t.json); }

/* Opens the store as the command needs and runs it. */
static int run_command(const options *o)
{
    static const struct {
        const char *name;
        int (*fn)(store *, const options *);
        int writes;
    } commands[] = {
        {"info", cmd_info, 0},     {"engines", cmd_engines, 0}, {"artifacts", cmd_artifacts, 0},
        {"runs", cmd_runs, 0},     {"import", cmd_import, 1},   {"model", cmd_model, 1}, {"merge", cmd_merge, 1},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(commands); i++) {
        if (strcmp(o->command, commands[i].name))
            continue;
        store *s;
        int flags = commands[i].writes ? STORE_OPEN_CREATE : STORE_OPEN_READONLY;
        int rc = store_tool_open(TOOL, o->t.store, flags, &s);
        if (rc != LVD_EXIT_OK)
            return rc;
        rc = commands[i].fn(s, o);
        store_close(s);
        return rc;
    }
    return lvd_usage_error(TOOL, "unknown command '%s' (" COMMANDS ")", o->command);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc == 0)
        rc = run_command(&o);
    free(o.engines);
    free(o.models);
    free(o.artifacts);
    return rc < 0 ? LVD_EXIT_OK : rc;
}
