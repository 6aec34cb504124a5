/* fake_bench_out.c: the fake llama-bench's printers: every field as
 * llama-bench's json / jsonl / csv / md / sql printers write it. Not for the
 * simulated samples (fake_bench.c). */
#include "fake_bench_out.h"

#include <inttypes.h>
#include <string.h>

const bfield_info FIELDS[F_COUNT] = {
    { "build_commit", T_STRING, -1 },      { "build_number", T_INT, -1 },
    { "cpu_info", T_STRING, -1 },          { "gpu_info", T_STRING, -1 },
    { "backends", T_STRING, -1 },          { "model_filename", T_STRING, D_MODEL },
    { "model_type", T_STRING, -1 },        { "model_size", T_INT, -1 },
    { "model_n_params", T_INT, -1 },       { "n_batch", T_INT, D_NB },
    { "n_ubatch", T_INT, D_NUB },          { "n_threads", T_INT, D_NT },
    { "cpu_mask", T_STRING, D_CM },        { "cpu_strict", T_BOOL, D_CS },
    { "poll", T_INT, D_POLL },             { "type_k", T_STRING, D_TK },
    { "type_v", T_STRING, D_TV },          { "n_gpu_layers", T_INT, D_NGL },
    { "n_cpu_moe", T_INT, D_NCMOE },       { "split_mode", T_STRING, D_SM },
    { "main_gpu", T_INT, D_MG },           { "no_kv_offload", T_BOOL, D_NKVO },
    { "flash_attn", T_INT, D_FA },         { "devices", T_STRING, D_DEV },
    { "tensor_split", T_STRING, D_TS },    { "tensor_buft_overrides", T_STRING, D_OT },
    { "load_mode", T_STRING, D_LM },       { "embeddings", T_BOOL, D_EMBD },
    { "no_op_offload", T_INT, D_NOPO },    { "no_host", T_BOOL, D_NOH },
    { "fit_target", T_INT, D_FITT },       { "fit_min_ctx", T_INT, D_FITC },
    { "n_prompt", T_INT, -1 },             { "n_gen", T_INT, -1 },
    { "n_depth", T_INT, D_ND },            { "test_time", T_STRING, -1 },
    { "avg_ns", T_INT, -1 },               { "stddev_ns", T_INT, -1 },
    { "avg_ts", T_FLOAT, -1 },             { "stddev_ts", T_FLOAT, -1 },
};

double ts_of(const bres *r, size_t i)
{
    return 1e9 * ((r->gp ? 0 : r->n_prompt) + r->n_gen) / (double)r->ns[i];
}

static void json_escape(lvd_sb *sb, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"')
            lvd_sb_adds(sb, "\\\"");
        else if (*c == '\\')
            lvd_sb_adds(sb, "\\\\");
        else if (*c <= 0x1f)
            lvd_sb_addf(sb, "\\u%04x", *c);
        else
            lvd_sb_addc(sb, (char)*c);
    }
}

static void json_value(lvd_sb *sb, int f, const char *v)
{
    if (FIELDS[f].type == T_STRING) {
        lvd_sb_addc(sb, '"');
        json_escape(sb, v);
        lvd_sb_addc(sb, '"');
    } else if (FIELDS[f].type == T_BOOL) {
        lvd_sb_adds(sb, strcmp(v, "0") == 0 ? "false" : "true");
    } else {
        lvd_sb_adds(sb, v);
    }
}

static void samples_join(lvd_sb *sb, const bres *r, int ts)
{
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            lvd_sb_adds(sb, ", ");
        if (ts)
            lvd_sb_addf(sb, "%g", ts_of(r, i));
        else
            lvd_sb_addf(sb, "%" PRIu64, r->ns[i]);
    }
}


static int field_index(const char *name)
{
    for (int f = 0; f < F_COUNT; f++)
        if (strcmp(FIELDS[f].name, name) == 0)
            return f;
    return -1;
}

static int md_width(const char *field)
{
    static const struct {
        const char *f;
        int w;
    } w[] = { { "model", -30 }, { "t/s", 20 },       { "size", 10 },    { "params", 10 },  { "n_gpu_layers", 3 },
              { "n_threads", 7 }, { "n_batch", 7 },  { "n_ubatch", 8 }, { "type_k", 6 },   { "type_v", 6 },
              { "split_mode", 6 }, { "load_mode", 10 }, { "flash_attn", 3 }, { "devices", -12 }, { "test", 15 },
              { "no_op_offload", 4 }, { "no_host", 4 } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(w); i++)
        if (strcmp(field, w[i].f) == 0)
            return w[i].w;
    int width = (int)strlen(field) > 10 ? (int)strlen(field) : 10;
    int f = field_index(field);
    return (f < 0 || FIELDS[f].type == T_STRING) ? -width : width;
}

static const char *md_display(const char *field)
{
    static const char *const m[][2] = { { "n_gpu_layers", "ngl" }, { "split_mode", "sm" },
                                        { "n_threads", "threads" }, { "no_kv_offload", "nkvo" },
                                        { "flash_attn", "fa" },     { "load_mode", "lm" },
                                        { "embeddings", "embd" },   { "no_op_offload", "nopo" },
                                        { "no_host", "noh" },       { "devices", "dev" },
                                        { "tensor_split", "ts" },   { "tensor_buft_overrides", "ot" },
                                        { "fit_target", "fitt" },   { "fit_min_ctx", "fitc" } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(m); i++)
        if (strcmp(field, m[i][0]) == 0)
            return m[i][1];
    return field;
}

static int dim_nondefault(const bench_opts *o, int d)
{
    return o->dim[d].n > 1 || strcmp(o->dim[d].v[0], bench_default(d)) != 0;
}

void print_header(printer *p, const bench_opts *o, lvd_sb *sb)
{
    p->first = 1;
    if (p->fmt == FMT_CSV) {
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "%s%s", f ? "," : "", FIELDS[f].name);
        lvd_sb_addc(sb, '\n');
    } else if (p->fmt == FMT_JSON) {
        lvd_sb_adds(sb, "[\n");
    } else if (p->fmt == FMT_SQL) {
        static const char *const sqlt[] = { "TEXT", "INTEGER", "INTEGER", "REAL" };
        lvd_sb_adds(sb, "CREATE TABLE IF NOT EXISTS llama_bench (\n");
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "  %s %s%s\n", FIELDS[f].name, sqlt[FIELDS[f].type], f < F_COUNT - 1 ? "," : "");
        lvd_sb_adds(sb, ");\n\n");
    } else if (p->fmt == FMT_MD) {
        lvd_sb be = { 0 };
        backends_str(&be);
        int is_cpu = strstr(be.buf, "CPU") || strstr(be.buf, "BLAS") || strstr(be.buf, "ZenDNN");
        lvd_sb_free(&be);
        p->nmd = 0;
        p->md[p->nmd++] = "model";
        p->md[p->nmd++] = "size";
        p->md[p->nmd++] = "params";
        p->md[p->nmd++] = "backend";
        if (!is_cpu)
            p->md[p->nmd++] = "n_gpu_layers";
        static const int order[] = { D_NCMOE, D_NT, D_CM, D_CS, D_POLL, D_NB, D_NUB, D_TK, D_TV, D_MG, D_SM,
                                     D_NKVO, D_FA, D_DEV, D_TS, D_OT, D_LM, D_EMBD, D_NOPO, D_NOH, D_FITT, D_FITC };
        for (size_t i = 0; i < LVD_ARRAY_LEN(order); i++) {
            int d = order[i];
            if (dim_nondefault(o, d) || (d == D_NT && is_cpu)) {
                for (int f = 0; f < F_COUNT; f++)
                    if (FIELDS[f].dim == d)
                        p->md[p->nmd++] = FIELDS[f].name;
            }
        }
        p->md[p->nmd++] = "test";
        p->md[p->nmd++] = "t/s";
        lvd_sb_addc(sb, '|');
        for (int i = 0; i < p->nmd; i++)
            lvd_sb_addf(sb, " %*s |", md_width(p->md[i]), md_display(p->md[i]));
        lvd_sb_adds(sb, "\n|");
        for (int i = 0; i < p->nmd; i++) {
            int w = md_width(p->md[i]);
            lvd_sb_addc(sb, ' ');
            for (int k = 0; k < abs(w) - 1; k++)
                lvd_sb_addc(sb, '-');
            lvd_sb_adds(sb, w > 0 ? ": |" : "- |");
        }
        lvd_sb_addc(sb, '\n');
    }
}

/* 1 when a declared device is of backend b ("CUDA"): the build has it. */
static int has_backend(const char *b)
{
    for (size_t i = 0; i < G.ndev; i++)
        if (!strcmp(G.dev[i].backend, b))
            return 1;
    return 0;
}

/* The test's name as ik_llama.cpp's JSON prints it: "pp16", "tg4", "pp16+tg4",
 * "tg4@pp16" (-gp 16,4). */
static char *ik_test_name(const bres *r)
{
    return r->gp                    ? lvd_xasprintf("tg%d@pp%d", r->n_gen, r->n_prompt)
           : r->n_prompt && r->n_gen ? lvd_xasprintf("pp%d+tg%d", r->n_prompt, r->n_gen)
           : r->n_prompt           ? lvd_xasprintf("pp%d", r->n_prompt)
                                   : lvd_xasprintf("tg%d", r->n_gen);
}

/* One test as ik_llama.cpp's json printer writes it (cpu-build-ik4840/
 * bench-json-tiny.stdout): its own fields and order, booleans of the
 * backends compiled in, no backends or devices field. */
static void print_ik_json(const bres *r, lvd_sb *sb)
{
    const char *ngl = strcmp(r->val[F_N_GPU_LAYERS], "-1") ? r->val[F_N_GPU_LAYERS] : "999";
    char *test = ik_test_name(r);
    lvd_sb_addf(sb, "  {\n    \"build_commit\": \"%s\",\n    \"build_number\": %s,\n", r->val[F_BUILD_COMMIT],
                r->val[F_BUILD_NUMBER]);
    lvd_sb_addf(sb, "    \"cuda\": %s,\n    \"vulkan\": %s,\n    \"metal\": false,\n    \"sycl\": false,\n"
                    "    \"rpc\": \"0\",\n    \"gpu_blas\": false,\n    \"blas\": false,\n",
                has_backend("CUDA") ? "true" : "false", has_backend("Vulkan") ? "true" : "false");
    lvd_sb_adds(sb, "    \"cpu_info\": ");
    json_value(sb, F_CPU_INFO, r->val[F_CPU_INFO]);
    lvd_sb_adds(sb, ",\n    \"gpu_info\": ");
    json_value(sb, F_GPU_INFO, r->val[F_GPU_INFO]);
    lvd_sb_adds(sb, ",\n    \"model_filename\": ");
    json_value(sb, F_MODEL_FILENAME, r->val[F_MODEL_FILENAME]);
    lvd_sb_addf(sb, ",\n    \"model_type\": \"%s\",\n    \"model_size\": %s,\n    \"model_n_params\": %s,\n"
                    "    \"n_batch\": %s,\n    \"n_ubatch\": %s,\n    \"n_threads\": %s,\n    \"type_k\": \"%s\",\n"
                    "    \"type_v\": \"%s\",\n    \"n_gpu_layers\": %s,\n    \"split_mode\": \"%s\",\n"
                    "    \"main_gpu\": %s,\n    \"no_kv_offload\": %s,\n    \"flash_attn\": %s,\n",
                r->val[F_MODEL_TYPE], r->val[F_MODEL_SIZE], r->val[F_MODEL_N_PARAMS], r->val[F_N_BATCH],
                r->val[F_N_UBATCH], r->val[F_N_THREADS], r->val[F_TYPE_K], r->val[F_TYPE_V], ngl,
                r->val[F_SPLIT_MODE], r->val[F_MAIN_GPU], strcmp(r->val[F_NO_KV_OFFLOAD], "0") ? "true" : "false",
                strcmp(r->val[F_FLASH_ATTN], "0") ? "true" : "false");
    lvd_sb_addf(sb, "    \"mla_attn\": 3,\n    \"attn_max_batch\": 0,\n    \"ser\": \"-1,0\",\n    \"reuse\": true,\n"
                    "    \"tensor_split\": \"%s\",\n    \"use_mmap\": true,\n    \"embeddings\": false,\n"
                    "    \"repack\": %s,\n    \"mqkv\": false,\n    \"muge\": false,\n    \"defer_experts\": false,\n"
                    "    \"fused_moe\": %s,\n    \"grouped_er\": false,\n    \"no_fused_up_gate\": false,\n"
                    "    \"use_thp\": false,\n    \"no_ooae\": false,\n    \"rcache\": false,\n    \"sas\": false,\n"
                    "    \"max_gpu\": 0,\n    \"cuda_params\": \"\",\n    \"override_tensor\": \"\",\n",
                r->val[F_TENSOR_SPLIT], r->rtr ? "true" : "false", r->fmoe ? "true" : "false");
    lvd_sb_addf(sb, "    \"n_prompt\": %s,\n    \"n_gen\": %s,\n    \"test_time\": \"%s\",\n    \"avg_ns\": %s,\n"
                    "    \"stddev_ns\": %s,\n    \"avg_ts\": %s,\n    \"stddev_ts\": %s,\n    \"test\": \"%s\"",
                r->val[F_N_PROMPT], r->val[F_N_GEN], r->val[F_TEST_TIME], r->val[F_AVG_NS], r->val[F_STDDEV_NS],
                r->val[F_AVG_TS], r->val[F_STDDEV_TS], test);
    free(test);
    if (scn_long("means_only", 0)) { /* an ik build from before its samples: means only */
        lvd_sb_adds(sb, "\n  }");
        return;
    }
    lvd_sb_adds(sb, ",\n    \"samples_ns\": [ ");
    samples_join(sb, r, 0);
    lvd_sb_adds(sb, " ],\n    \"samples_ts\": [ ");
    samples_join(sb, r, 1);
    lvd_sb_adds(sb, " ]\n  }");
}

/* One test as the chosen format prints it. Long on purpose: one branch per
 * format (csv, json, jsonl, md, sql), each mirroring its llama-bench printer
 * byte for byte. */
void print_test(printer *p, const bres *r, lvd_sb *sb)
{
    if (p->fmt == FMT_CSV) {
        for (int f = 0; f < F_COUNT; f++) {
            lvd_sb_adds(sb, f ? ",\"" : "\"");
            for (const char *c = r->val[f]; *c; c++) {
                if (*c == '"')
                    lvd_sb_addc(sb, '"');
                lvd_sb_addc(sb, *c);
            }
            lvd_sb_addc(sb, '"');
        }
        lvd_sb_addc(sb, '\n');
    } else if (p->fmt == FMT_JSON && fake_ik()) {
        if (!p->first)
            lvd_sb_adds(sb, ",\n");
        p->first = 0;
        print_ik_json(r, sb);
    } else if (p->fmt == FMT_JSON) {
        if (!p->first)
            lvd_sb_adds(sb, ",\n");
        p->first = 0;
        lvd_sb_adds(sb, "  {\n");
        for (int f = 0; f < F_COUNT; f++) {
            lvd_sb_addf(sb, "    \"%s\": ", FIELDS[f].name);
            json_value(sb, f, r->val[f]);
            lvd_sb_adds(sb, ",\n");
        }
        lvd_sb_adds(sb, "    \"samples_ns\": [ ");
        samples_join(sb, r, 0);
        lvd_sb_adds(sb, " ],\n    \"samples_ts\": [ ");
        samples_join(sb, r, 1);
        lvd_sb_adds(sb, " ]\n  }");
    } else if (p->fmt == FMT_JSONL) {
        lvd_sb_addc(sb, '{');
        for (int f = 0; f < F_COUNT; f++) {
            lvd_sb_addf(sb, "\"%s\": ", FIELDS[f].name);
            json_value(sb, f, r->val[f]);
            lvd_sb_adds(sb, ", ");
        }
        lvd_sb_adds(sb, "\"samples_ns\": [ ");
        samples_join(sb, r, 0);
        lvd_sb_adds(sb, " ],\"samples_ts\": [ ");
        samples_join(sb, r, 1);
        lvd_sb_adds(sb, " ]}\n");
    } else if (p->fmt == FMT_SQL) {
        lvd_sb_adds(sb, "INSERT INTO llama_bench (");
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "%s%s", f ? ", " : "", FIELDS[f].name);
        lvd_sb_adds(sb, ") VALUES (");
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "'%s'%s", r->val[f], f < F_COUNT - 1 ? ", " : "");
        lvd_sb_adds(sb, ");\n");
    } else if (p->fmt == FMT_MD) {
        lvd_sb_addc(sb, '|');
        for (int i = 0; i < p->nmd; i++) {
            const char *field = p->md[i];
            char *v;
            int w = md_width(field);
            if (strcmp(field, "model") == 0) {
                v = lvd_xstrdup(r->val[F_MODEL_TYPE]);
            } else if (strcmp(field, "size") == 0) {
                v = r->model_size < 1024ULL * 1024 * 1024
                        ? lvd_xasprintf("%.2f MiB", (double)r->model_size / 1024.0 / 1024.0)
                        : lvd_xasprintf("%.2f GiB", (double)r->model_size / 1024.0 / 1024.0 / 1024.0);
            } else if (strcmp(field, "params") == 0) {
                v = r->model_n_params < 1000ULL * 1000 * 1000 ? lvd_xasprintf("%.2f M", (double)r->model_n_params / 1e6)
                                                              : lvd_xasprintf("%.2f B", (double)r->model_n_params / 1e9);
            } else if (strcmp(field, "backend") == 0) {
                v = lvd_xstrdup(r->val[F_BACKENDS]);
            } else if (strcmp(field, "test") == 0) {
                if (r->n_prompt > 0 && r->n_gen == 0)
                    v = lvd_xasprintf("pp%d", r->n_prompt);
                else if (r->n_gen > 0 && r->n_prompt == 0)
                    v = lvd_xasprintf("tg%d", r->n_gen);
                else
                    v = lvd_xasprintf("pp%d+tg%d", r->n_prompt, r->n_gen);
                if (r->n_depth > 0) {
                    char *t = lvd_xasprintf("%s @ d%d", v, r->n_depth);
                    free(v);
                    v = t;
                }
            } else if (strcmp(field, "t/s") == 0) {
                v = lvd_xasprintf("%.2f \xc2\xb1 %.2f", r->avg_ts, r->stdev_ts);
                w += 1;
            } else {
                v = lvd_xstrdup(r->val[field_index(field)]);
            }
            lvd_sb_addf(sb, " %*s |", w, v);
            free(v);
        }
        lvd_sb_addc(sb, '\n');
    }
}

void print_footer(printer *p, lvd_sb *sb)
{
    if (p->fmt == FMT_JSON)
        lvd_sb_adds(sb, "\n]\n");
    else if (p->fmt == FMT_MD)
        lvd_sb_addf(sb, "\nbuild: %s (%ld)\n", build_commit(), build_number());
}

void emit(FILE *f, lvd_sb *sb)
{
    fwrite(sb->buf ? sb->buf : "", 1, sb->len, f);
    fflush(f);
    lvd_sb_reset(sb);
}

