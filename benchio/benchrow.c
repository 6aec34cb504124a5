/* benchrow.c: one llama-bench result, of any era, as a benchio_row (see
 * benchout.h): the cJSON object `-o json` prints (jsonl's lines and the rows
 * of -o sql, read through SQLite, have the same shape), its fields read,
 * checked, and where absent given the value their era meant. Not for
 * finding or reading the formats (benchfind.c, benchout.c).
 *
 * llama-bench's fields over the years, from its source at each upstream
 * build tag (a fork numbers its own builds: its build number does not date
 * its fields):
 *   field              since           absent, a result meant
 *   backends           b4080, Nov 2024 the booleans cuda, opencl (until b3183),
 *                                      vulkan, kompute, metal, sycl, rpc, gpu_blas,
 *                                      blas, named as llama-bench then named them
 *   type_k, type_v     Dec 2023        "f16", or "f32" where the bool f16_kv says false
 *   n_ubatch           b2431, Mar 2024 n_batch: one batch size
 *   flash_attn         b2786, Apr 2024 0: no flash attention. A bool (false, true;
 *                                      0, 1 in sql and csv) until b9439 (May 2026),
 *                                      an int since: -1 auto, 0, 1
 *   n_depth            b5212, Apr 2025 0: the test ran on an empty context
 *   n_cpu_moe          b6490, Sep 2025 0: no expert weights kept on the CPU
 *   devices            b6522, Sep 2025 "auto": every device, the default then and now
 *   build_commit       always          git's short hash: 7 or 8 characters until the
 *                                      SemVer releases, 9 since ("unknown" without git)
 * n_gpu_layers is always there, but its default was 99 until b9439 (May
 * 2026; -1 since): a result of that era reports 99 whether -ngl was given or
 * not, and is read as not given (-1), as a later build reports it; else every
 * CPU build's results of that era would read as "asked for GPU layers,
 * ignored". A result is of that era when its flash_attn is a bool (json,
 * jsonl) or it has no "devices" (b6522); sql rows between b6522 and b9439
 * print flash_attn as 0 or 1 and cannot be told apart, and keep their 99.
 * Kept as printed (reported_json) and read by nobody: use_mmap (b2104,
 * Feb 2024) and use_direct_io (b7728, Jan 2026), which load_mode (b10108,
 * Jul 2026; "auto" by default since b10587) replaced; embeddings (b2361),
 * cpu_mask, cpu_strict, poll (b3644), tensor_buft_overrides (b5200),
 * no_op_offload (b5346), defrag_thold (b5361 to b6246), no_host (b6700),
 * fit_target, fit_min_ctx (b8684). The SQL table's name changed too
 * (store/benchdb.c).
 * ik_llama.cpp's llama-bench (engine/family.h; cpu-build-ik4840/) prints
 * the booleans, not backends, flash_attn a bool, its own knobs (fused_moe,
 * repack, mla_attn, ...), n_gpu_layers 999 by default (read as not given),
 * no n_depth: its -gp D,N test "tgN@ppD" (n_prompt D, n_gen N, timing the
 * N tokens after the prompt) is read as the tg test at depth D. */
#include "benchio/benchout.h"

#include "engine/family.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 1 when key holds an integer (number, numeric string, or bool), 0 when absent
 * or null, -1 when it holds something else. */
static int obj_i64(const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v) ? 1 : 0;
        return 1;
    }
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d) || d < -9.2e18 || d > 9.2e18)
            return -1;
        *out = (int64_t)d;
        return 1;
    }
    if (cJSON_IsString(v) && lvd_parse_i64(v->valuestring, out) == 0)
        return 1;
    return -1;
}

static int obj_double(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return 1;
    }
    if (cJSON_IsString(v) && lvd_parse_double(v->valuestring, out) == 0)
        return 1;
    return -1;
}

static const char *obj_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A string field into buf; dflt when absent. */
static void copy_str(char *buf, size_t len, const char *s, const char *dflt)
{
    snprintf(buf, len, "%s", s ? s : dflt);
}

/* An int field that must fit an int; absent leaves *out at dflt. */
static int field_int(const cJSON *o, const char *key, int dflt, int *out, const char *name,
                     const char *where, lvd_err *err)
{
    int64_t v;
    int rc = obj_i64(o, key, &v);
    if (rc < 0 || (rc == 1 && (v < -2147483647 || v > 2147483647)))
        return lvd_errf(err, "%s: %s: \"%s\" is not an integer", name, where, key);
    *out = rc == 1 ? (int)v : dflt;
    return 0;
}

static int64_t parse_test_time(const char *s)
{
    int64_t t;
    return lvd_parse_utc(s, &t) == 0 && t > 0 ? t : 0;
}

/* The backend a result of a build before b4080 ran on, from the booleans it
 * printed instead of "backends", in the order llama-bench's get_backend()
 * tried them; "CPU" when none is set. */
static const char *backend_before_b4080(const cJSON *o)
{
    static const char *const flags[][2] = {
        {"cuda", "CUDA"}, {"opencl", "OpenCL"}, {"vulkan", "Vulkan"}, {"kompute", "Kompute"}, {"metal", "Metal"},
        {"sycl", "SYCL"}, {"rpc", "RPC"},       {"gpu_blas", "GPU BLAS"}, {"blas", "BLAS"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(flags); i++) {
        int64_t on;
        if (obj_i64(o, flags[i][0], &on) == 1 && on)
            return flags[i][1];
    }
    return "CPU";
}

/* The KV cache type of a result from before type_k and type_v (Dec 2023):
 * f16, unless the bool f16_kv says false (-f32_kv 1 ran the cache in f32). */
static const char *kv_type_before_dec2023(const cJSON *o)
{
    int64_t f16;
    return obj_i64(o, "f16_kv", &f16) == 1 && !f16 ? "f32" : "f16";
}

/* Reads samples_ns / samples_ts (both, or samples_ts alone) into r. */
static int read_samples(const cJSON *o, lvd_result *r, const char *name, const char *where, lvd_err *err)
{
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "samples_ts");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(o, "samples_ns");
    if (!ts && !ns)
        return 0;
    if (!cJSON_IsArray(ts) || (ns && !cJSON_IsArray(ns)))
        return lvd_errf(err, "%s: %s: samples_ts/samples_ns are not arrays of numbers", name, where);
    size_t n = (size_t)cJSON_GetArraySize(ts);
    if (ns && (size_t)cJSON_GetArraySize(ns) != n)
        return lvd_errf(err, "%s: %s: %zu samples_ts but %d samples_ns", name, where, n,
                        cJSON_GetArraySize(ns));
    if (n == 0)
        return 0;
    r->ts = lvd_xcalloc(n, sizeof *r->ts);
    r->warmup = lvd_xcalloc(n, sizeof *r->warmup);
    if (ns)
        r->ns = lvd_xcalloc(n, sizeof *r->ns);
    r->n = n;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ts) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
            return lvd_errf(err, "%s: %s: samples_ts[%zu] is not a throughput", name, where, i);
        r->ts[i++] = e->valuedouble;
    }
    i = 0;
    cJSON_ArrayForEach(e, ns) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > 9.2e18)
            return lvd_errf(err, "%s: %s: samples_ns[%zu] is not a duration in ns", name, where, i);
        r->ns[i++] = (int64_t)e->valuedouble;
    }
    return 0;
}

/* 1 when a result's n_gpu_layers of ngl is llama-bench's default of its
 * era, not a -ngl given (the top of this file says how the era is told). */
static int ngl_default_99(const cJSON *o, int ngl)
{
    if (ngl == 999 && engine_family_bench_json_ik(o)) /* ik_llama.cpp's default */
        return 1;
    return ngl == 99 && (cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(o, "flash_attn")) || !obj_str(o, "devices"));
}

/* The parameters llama-bench reported, with the meaning of absent fields
 * (the table at the top of this file). */
static int read_params(const cJSON *o, lvd_result *r, const char *name, const char *where, lvd_err *err)
{
    int n_batch = 0;
    if (field_int(o, "n_depth", 0, &r->n_depth, name, where, err) ||
        field_int(o, "n_gpu_layers", -1, &r->rep_ngl, name, where, err) ||
        field_int(o, "flash_attn", 0, &r->rep_fa, name, where, err) ||
        field_int(o, "n_batch", 0, &n_batch, name, where, err) ||
        field_int(o, "n_ubatch", n_batch, &r->rep_ubatch, name, where, err) ||
        field_int(o, "n_cpu_moe", 0, &r->rep_n_cpu_moe, name, where, err) ||
        field_int(o, "n_threads", 0, &r->rep_threads, name, where, err))
        return -1;
    if (ngl_default_99(o, r->rep_ngl))
        r->rep_ngl = -1;
    const char *backends = obj_str(o, "backends");
    copy_str(r->backends, sizeof r->backends, backends ? backends : backend_before_b4080(o), "");
    copy_str(r->rep_type_k, sizeof r->rep_type_k, obj_str(o, "type_k"), kv_type_before_dec2023(o));
    copy_str(r->rep_type_v, sizeof r->rep_type_v, obj_str(o, "type_v"), kv_type_before_dec2023(o));
    return 0;
}

/* What llama-bench said about itself and the model. */
static int read_build_and_model(const cJSON *o, benchio_row *row, const char *name, const char *where, lvd_err *err)
{
    copy_str(row->devices, sizeof row->devices, obj_str(o, "devices"), "auto");
    copy_str(row->gpu_info, sizeof row->gpu_info, obj_str(o, "gpu_info"), "");
    copy_str(row->test_time, sizeof row->test_time, obj_str(o, "test_time"), "");
    row->test_epoch = row->test_time[0] ? parse_test_time(row->test_time) : 0;
    const char *s;
    if ((s = obj_str(o, "build_commit")))
        row->build_commit = lvd_xstrdup(s);
    if ((s = obj_str(o, "model_filename")))
        row->model_filename = lvd_xstrdup(s);
    if ((s = obj_str(o, "model_type")))
        row->model_type = lvd_xstrdup(s);
    if (obj_i64(o, "build_number", &row->build_number) < 0)
        return lvd_errf(err, "%s: %s: \"build_number\" is not an integer", name, where);
    if (obj_i64(o, "model_size", &row->model_size) < 0)
        return lvd_errf(err, "%s: %s: \"model_size\" is not an integer", name, where);
    if (obj_double(o, "avg_ts", &row->avg_ts) < 0 || obj_double(o, "stddev_ts", &row->stddev_ts) < 0)
        return lvd_errf(err, "%s: %s: \"avg_ts\"/\"stddev_ts\" are not numbers", name, where);
    return 0;
}

/* ik_llama.cpp's -gp D,N prints its test "tgN@ppD" with n_prompt D and
 * n_gen N, timing the N tokens generated after a prompt of D: the tg test
 * at depth D (n_prompt 0, n_depth D) as mainline's -d D -n N prints it. */
static void gp_depth(const cJSON *o, lvd_result *r)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "test");
    int gen, depth, end = 0;
    if (cJSON_IsString(t) && sscanf(t->valuestring, "tg%d@pp%d%n", &gen, &depth, &end) == 2 &&
        !t->valuestring[end] && gen == r->n_gen && depth == r->n_prompt && r->n_depth == 0) {
        r->n_prompt = 0;
        r->n_depth = depth;
    }
}

/* Maps one llama-bench object (as `-o json` prints it) to row. */
static int row_from_object(const cJSON *o, const char *name, const char *where, benchio_row *row,
                           lvd_err *err)
{
    memset(row, 0, sizeof *row);
    row->model_size = -1;
    row->avg_ts = row->stddev_ts = NAN;
    lvd_result *r = &row->result;
    if (!cJSON_IsObject(o))
        return lvd_errf(err, "%s: %s: not a JSON object (not llama-bench output?)", name, where);
    int64_t np, ng;
    if (obj_i64(o, "n_prompt", &np) != 1 || obj_i64(o, "n_gen", &ng) != 1 || np < 0 || ng < 0 ||
        np > 2147483647 || ng > 2147483647)
        return lvd_errf(err, "%s: %s: no valid n_prompt and n_gen (not llama-bench output?)", name, where);
    r->n_prompt = (int)np;
    r->n_gen = (int)ng;
    if (read_params(o, r, name, where, err) || read_build_and_model(o, row, name, where, err))
        return -1;
    gp_depth(o, r);
    benchio_test_name(r->n_prompt, r->n_gen, r->n_depth, r->test, sizeof r->test);
    if (read_samples(o, r, name, where, err))
        return -1;
    if (r->n == 0 && !isfinite(row->avg_ts))
        return lvd_errf(err, "%s: %s: %s has neither samples_ts nor avg_ts", name, where, r->test);
    /* the sample arrays are the result's samples (stored once, in samples);
     * the rest of the object is kept as llama-bench printed it */
    cJSON *kept = cJSON_Duplicate(o, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(kept, "samples_ns");
    cJSON_DeleteItemFromObjectCaseSensitive(kept, "samples_ts");
    r->reported_json = kept ? cJSON_PrintUnformatted(kept) : NULL;
    cJSON_Delete(kept);
    if (!r->reported_json)
        return lvd_errf(err, "%s: %s: cannot serialise the result", name, where);
    return 0;
}

static benchio_row *rows_add(benchio_rows *out, size_t *cap)
{
    if (out->n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        out->v = lvd_xrealloc(out->v, *cap * sizeof *out->v);
    }
    return &out->v[out->n++];
}

int benchio_rows_add_object(benchio_rows *out, size_t *cap, const cJSON *o, const char *name,
                          const char *where, lvd_err *err)
{
    benchio_row *row = rows_add(out, cap);
    if (row_from_object(o, name, where, row, err)) {
        benchio_row_free(row);
        out->n--;
        return -1;
    }
    return 0;
}

void benchio_row_free(benchio_row *row)
{
    if (!row)
        return;
    lvd_result_free(&row->result);
    free(row->build_commit);
    free(row->model_filename);
    free(row->model_type);
    memset(row, 0, sizeof *row);
}

/* git's shortest hash. */
#define COMMIT_MIN 7

static int is_hex(const char *s)
{
    return *s && strspn(s, "0123456789abcdefABCDEF") == strlen(s);
}

int benchio_commit_matches(const char *printed, const char *given)
{
    size_t a = strlen(printed), b = strlen(given), n = a < b ? a : b;
    if (n < COMMIT_MIN || !is_hex(printed) || !is_hex(given))
        return !strcmp(printed, given);
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)printed[i]) != tolower((unsigned char)given[i]))
            return 0;
    return 1;
}
