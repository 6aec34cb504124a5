/* store_show.c: what lvd store prints of the store: info (path, schema
 * version, row counts), engines (with their latest probe's backend),
 * artifacts and a model's identity and GGUF shape, as tables or JSON
 * (store_tool.h). Not for the runs (bench/runs_show.c: their medians are
 * statistics) or for writing anything but a model's identity. */
#include "store/store_tool.h"

#include "common/cli.h"
#include "common/gguf.h"
#include "common/json.h"
#include "store/identify.h"
#include "store/schema.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* --- info ------------------------------------------------------------------ */

int store_show_info(const char *tool, store *s, int json)
{
    lvd_err err = {0};
    int64_t version;
    store_counts c;
    if (store_user_version(s, &version, &err) || store_counts_get(s, &c, &err))
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    static const char *const names[] = {"artifacts", "engines", "probes", "runs", "results",
                                        "samples", "checks", "verdicts", "pin_decisions"};
    const int64_t values[] = {c.artifacts, c.engines, c.probes, c.runs, c.results,
                              c.samples, c.checks, c.verdicts, c.pin_decisions};
    if (json) {
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

int store_show_engines(const char *tool, store *s, int json)
{
    lvd_err err = {0};
    lvd_engine *v;
    size_t n;
    if (store_engine_list(s, &v, &n, &err))
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    if (!json && n)
        printf("%-4s %-24s %-10s %-11s %s\n", "ID", "NAME", "BUILD", "BACKEND", "DIR");
    int ret = LVD_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        lvd_probe p;
        int rc = store_probe_latest(s, v[i].id, &p, &err);
        if (rc < 0) {
            ret = lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
            break;
        }
        const char *backend = rc == 0 ? p.backend : "not probed";
        if (json) {
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
    if (json) {
        if (ret == LVD_EXIT_OK)
            lvd_json_emit(stdout, arr);
        else
            cJSON_Delete(arr);
    } else if (n == 0) {
        printf("no engines (register one with: " LVD_REGISTER_HINT ")\n");
    }
    store_engine_list_free(v, n);
    return ret;
}

/* --- artifacts and model ------------------------------------------------------- */

cJSON *store_artifact_json(const store_artifact *a)
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

int store_show_artifacts(const char *tool, store *s, int json)
{
    lvd_err err = {0};
    store_artifact *v;
    size_t n;
    if (store_artifact_list(s, &v, &n, &err))
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    if (json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, store_artifact_json(&v[i]));
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

int store_show_model(const char *tool, store *s, const char *path, int json)
{
    lvd_err err = {0};
    store_artifact a;
    int hashed = 0;
    if (store_identify(s, path, 0, &a, &hashed, &err)) {
        lvd_error(tool, "%s", err.msg);
        return LVD_EXIT_INPUT;
    }
    if (json) {
        cJSON *j = store_artifact_json(&a);
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

