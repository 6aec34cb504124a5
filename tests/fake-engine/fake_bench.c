/* fake_bench.c: the llama-bench persona: per test instance the simulated
 * samples (speeds, noise, warm-up, replay), every field as llama-bench's
 * get_values() renders it, the json / jsonl / csv / md / sql printers, the
 * faults, and bench_main. Not for argument parsing (fake_bench_args.c). */
#include "fake.h"
#include "fake_bench.h"

enum bfield {
    F_BUILD_COMMIT, F_BUILD_NUMBER, F_CPU_INFO, F_GPU_INFO, F_BACKENDS, F_MODEL_FILENAME, F_MODEL_TYPE,
    F_MODEL_SIZE, F_MODEL_N_PARAMS, F_N_BATCH, F_N_UBATCH, F_N_THREADS, F_CPU_MASK, F_CPU_STRICT, F_POLL,
    F_TYPE_K, F_TYPE_V, F_N_GPU_LAYERS, F_N_CPU_MOE, F_SPLIT_MODE, F_MAIN_GPU, F_NO_KV_OFFLOAD, F_FLASH_ATTN,
    F_DEVICES, F_TENSOR_SPLIT, F_TENSOR_BUFT_OVERRIDES, F_LOAD_MODE, F_EMBEDDINGS, F_NO_OP_OFFLOAD,
    F_NO_HOST, F_FIT_TARGET, F_FIT_MIN_CTX, F_N_PROMPT, F_N_GEN, F_N_DEPTH, F_TEST_TIME, F_AVG_NS,
    F_STDDEV_NS, F_AVG_TS, F_STDDEV_TS, F_COUNT
};

enum ftype { T_STRING, T_BOOL, T_INT, T_FLOAT };

static const struct {
    const char *name;
    enum ftype type;
    int dim; /* the bench dimension it echoes, or -1 */
} FIELDS[F_COUNT] = {
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

/* One printed test: every field as llama-bench's get_values() renders it. */
typedef struct bres {
    char *val[F_COUNT];
    uint64_t *ns;
    size_t n;
    int n_prompt, n_gen, n_depth;
    uint64_t model_size, model_n_params;
    double avg_ts, stdev_ts;
} bres;

static void bres_free(bres *r)
{
    for (int f = 0; f < F_COUNT; f++)
        free(r->val[f]);
    free(r->ns);
    memset(r, 0, sizeof *r);
}

static double ts_of(const bres *r, size_t i)
{
    return 1e9 * (r->n_prompt + r->n_gen) / (double)r->ns[i];
}

/* llama-bench's avg/stdev over uint64 ns (integer arithmetic) and over t/s. */
static void bres_stats(bres *r)
{
    uint64_t sum = 0, sq = 0;
    for (size_t i = 0; i < r->n; i++) {
        sum += r->ns[i];
        sq += r->ns[i] * r->ns[i];
    }
    uint64_t avg = r->n ? sum / r->n : 0, sd = 0;
    if (r->n > 1) {
        uint64_t a = sq / (r->n - 1), b = avg * avg * r->n / (r->n - 1);
        sd = a > b ? (uint64_t)sqrt((double)(a - b)) : 0;
    }
    double tsum = 0, tsq = 0;
    for (size_t i = 0; i < r->n; i++) {
        double t = ts_of(r, i);
        tsum += t;
        tsq += t * t;
    }
    double tavg = r->n ? tsum / (double)r->n : 0, tsd = 0;
    if (r->n > 1) {
        double v = tsq / (double)(r->n - 1) - tavg * tavg * (double)r->n / (double)(r->n - 1);
        tsd = v > 0 ? sqrt(v) : 0;
    }
    r->avg_ts = tavg;
    r->stdev_ts = tsd;
    r->val[F_AVG_NS] = lvd_xasprintf("%" PRIu64, avg);
    r->val[F_STDDEV_NS] = lvd_xasprintf("%" PRIu64, sd);
    r->val[F_AVG_TS] = lvd_xasprintf("%f", tavg);
    r->val[F_STDDEV_TS] = lvd_xasprintf("%f", tsd);
}

typedef struct cond_ctx {
    const bench_opts *o;
    const binst *in;
} cond_ctx;

static const char *bench_param(const char *name, void *vctx)
{
    const cond_ctx *c = vctx;
    static const struct {
        const char *n;
        int d;
    } map[] = { { "fa", D_FA },   { "ngl", D_NGL }, { "ncmoe", D_NCMOE }, { "ub", D_NUB },   { "b", D_NB },
                { "ctk", D_TK },  { "ctv", D_TV },  { "t", D_NT },         { "d", D_ND },     { "sm", D_SM },
                { "nkvo", D_NKVO }, { "fitt", D_FITT }, { "mg", D_MG },    { "dev", D_DEV },  { "model", D_MODEL } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(map); i++)
        if (strcmp(name, map[i].n) == 0) {
            const char *v = c->o->dim[map[i].d].v[c->in->ix[map[i].d]];
            return map[i].d == D_MODEL ? lvd_base_name(v) : v;
        }
    return NULL;
}

/* The j-th ';'-separated item of a scenario value (the last repeats), or NULL. */
static char *nth_item(const char *key, size_t j, int *line)
{
    const lvd_kv *e = scn_find(key);
    if (!e)
        return NULL;
    *line = e->line;
    char **items = lvd_split(e->value, ';', NULL);
    size_t n = 0;
    while (items[n])
        n++;
    char *r = n ? lvd_xstrdup(trim(items[j < n ? j : n - 1])) : NULL;
    lvd_strv_free(items);
    return r;
}

/* Fills r->ns for instance j on target T. Returns the simulated time in ns. */
static double bench_samples(const bench_opts *o, const binst *in, size_t j, const char *T, bres *r)
{
    int line = 0;
    char *replay = nth_item("samples_ns", j, &line);
    double total = 0;
    if (replay) {
        char **items = lvd_split(replay, ',', NULL);
        for (size_t i = 0; items[i]; i++) {
            int64_t v;
            if (lvd_parse_i64(trim(items[i]), &v) != 0 || v <= 0)
                die_scn(line, "samples_ns: expected positive integers");
            r->ns = lvd_xrealloc(r->ns, (r->n + 1) * sizeof *r->ns);
            r->ns[r->n++] = (uint64_t)v;
            total += (double)v;
        }
        lvd_strv_free(items);
        free(replay);
        return total;
    }
    cond_ctx cc = { o, in };
    const char *K = in->n_prompt && in->n_gen ? "pg" : in->n_prompt ? "pp" : "tg";
    double mean;
    if (strcmp(K, "pg") == 0) {
        double pp = base_speed(T, "pp") * speed_mult(T, "pp", bench_param, &cc);
        double tg = base_speed(T, "tg") * speed_mult(T, "tg", bench_param, &cc);
        mean = (in->n_prompt + in->n_gen) / (in->n_prompt / pp + in->n_gen / tg);
    } else {
        mean = base_speed(T, K) * speed_mult(T, K, bench_param, &cc);
    }
    mean *= fake_offload_mult(o, in, T, o->dim[D_MODEL].v[in->ix[D_MODEL]], strcmp(K, "pp") ? "tg" : "pp");
    mean *= depth_factor(T, K, atoi(o->dim[D_ND].v[in->ix[D_ND]]));
    const lvd_kv *e = scn_layered(T, K, "noise");
    double noise = e ? ent_dbl(e) : 0.02;
    e = scn_layered(T, K, "run_noise");
    double run_noise = e ? ent_dbl(e) : 0;
    double warm[64];
    e = scn_layered(T, K, "warmup");
    size_t nwarm = e ? dbl_list(e, warm, LVD_ARRAY_LEN(warm)) : 0;
    double level = (1 + run_noise * rng_normal()) * (1 + scn_dbl("drift", 0) * (double)G.idx);
    int tokens = in->n_prompt + in->n_gen;
    e = scn_layered(T, K, "cold");
    double cold = e && o->no_warmup ? ent_dbl(e) : 1;
    for (int i = 0; i < o->reps; i++) {
        double f = level * (1 + noise * rng_normal());
        if ((size_t)i < nwarm)
            f *= warm[i];
        if (i == 0)
            f *= cold;
        double ts = mean * (f > 0.01 ? f : 0.01);
        double ns = llround(tokens * 1e9 / ts);
        r->ns = lvd_xrealloc(r->ns, (r->n + 1) * sizeof *r->ns);
        r->ns[r->n++] = ns >= 1 ? (uint64_t)ns : 1;
        total += ns;
    }
    return total;
}

/* The dimensions llama-bench's equal_mparams compares: a change of any of
 * them between two consecutive instances reloads the model. */
static const int MPARAM_DIMS[] = { D_MODEL, D_FITT, D_FITC, D_NGL, D_NCMOE, D_SM, D_LM, D_MG, D_DEV, D_TS, D_OT, D_NOH };

static int same_mparams(const binst *a, const binst *b)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(MPARAM_DIMS); i++)
        if (a->ix[MPARAM_DIMS[i]] != b->ix[MPARAM_DIMS[i]])
            return 0;
    return 1;
}

/* One model load (llama-bench loads before an instance whose model parameters
 * differ from the previous one's): a line in the load_log, and the simulated
 * load time (load_ms) in ns. */
static double model_loaded(const bench_opts *o, const binst *in)
{
    lvd_sb line = { 0 };
    lvd_sb_addf(&line, "#%ld load", G.idx);
    static const char *const names[] = { "m", "fitt", "fitc", "ngl", "ncmoe", "sm", "lm", "mg", "dev", "ts", "ot", "noh" };
    for (size_t i = 0; i < LVD_ARRAY_LEN(MPARAM_DIMS); i++) {
        const char *v = o->dim[MPARAM_DIMS[i]].v[in->ix[MPARAM_DIMS[i]]];
        lvd_sb_addf(&line, " %s=%s", names[i], MPARAM_DIMS[i] == D_MODEL ? lvd_base_name(v) : v);
    }
    lvd_sb_addc(&line, '\n');
    scn_append("load_log", line.buf, line.len);
    lvd_sb_free(&line);
    return scn_dbl("load_ms", 0) * 1e6;
}

/* Appends the invocation's simulated time (loads, warm-up runs, samples) in ns
 * to the sim_clock file. */
static void sim_clock_add(double ns)
{
    char buf[48];
    int n = snprintf(buf, sizeof buf, "%.0f\n", ns);
    scn_append("sim_clock", buf, (size_t)n);
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

typedef struct printer {
    int fmt;
    int first;
    const char *md[F_COUNT + 8];
    int nmd;
} printer;

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

static void print_header(printer *p, const bench_opts *o, lvd_sb *sb)
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

/* One test as the chosen format prints it. Long on purpose: one branch per
 * format (csv, json, jsonl, md, sql), each mirroring its llama-bench printer
 * byte for byte. */
static void print_test(printer *p, const bres *r, lvd_sb *sb)
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

static void print_footer(printer *p, lvd_sb *sb)
{
    if (p->fmt == FMT_JSON)
        lvd_sb_adds(sb, "\n]\n");
    else if (p->fmt == FMT_MD)
        lvd_sb_addf(sb, "\nbuild: %s (%ld)\n", build_commit(), build_number());
}

static void emit(FILE *f, lvd_sb *sb)
{
    fwrite(sb->buf ? sb->buf : "", 1, sb->len, f);
    fflush(f);
    lvd_sb_reset(sb);
}

/* Fills r for instance j (model meta m, target T) except the statistics. */
static void bench_fill(const bench_opts *o, const binst *in, size_t j, const model_meta *m, bres *r)
{
    lvd_sb sb = { 0 };
    r->val[F_BUILD_COMMIT] = lvd_xstrdup(build_commit());
    r->val[F_BUILD_NUMBER] = lvd_xasprintf("%ld", build_number());
    r->val[F_CPU_INFO] = lvd_xstrdup(scn_str("cpu_info", "AMD EPYC"));
    gpu_info_str(&sb);
    r->val[F_GPU_INFO] = lvd_xstrdup(lvd_sb_str(&sb));
    lvd_sb_reset(&sb);
    backends_str(&sb);
    r->val[F_BACKENDS] = lvd_xstrdup(lvd_sb_str(&sb));
    lvd_sb_free(&sb);
    r->val[F_MODEL_TYPE] = lvd_xstrdup(m->type);
    r->val[F_MODEL_SIZE] = lvd_xasprintf("%" PRIu64, m->size);
    r->val[F_MODEL_N_PARAMS] = lvd_xasprintf("%" PRIu64, m->n_params);
    r->model_size = m->size;
    r->model_n_params = m->n_params;
    for (int f = 0; f < F_COUNT; f++)
        if (FIELDS[f].dim >= 0)
            r->val[f] = lvd_xstrdup(o->dim[FIELDS[f].dim].v[in->ix[FIELDS[f].dim]]);
    r->n_prompt = in->n_prompt;
    r->n_gen = in->n_gen;
    r->n_depth = atoi(r->val[F_N_DEPTH]);
    r->val[F_N_PROMPT] = lvd_xasprintf("%d", in->n_prompt);
    r->val[F_N_GEN] = lvd_xasprintf("%d", in->n_gen);
    int line = 0;
    char *tt = nth_item("test_time", j, &line);
    if (!tt) {
        char buf[64];
        time_t t = time(NULL);
        struct tm tm;
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        tt = lvd_xstrdup(buf);
    }
    r->val[F_TEST_TIME] = tt;
}

static void bench_fault(fault_t f, const bres *r, const char *model)
{
    if (f == F_OOM) {
        fprintf(stderr, "ggml_vulkan: Device memory allocation of size 4294967296 failed.\n"
                        "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: "
                        "ErrorOutOfDeviceMemory\n"
                        "llama_model_load: error loading model: unable to allocate Vulkan0 buffer\n"
                        "llama_bench: error: failed to load model '%s'\n", model);
        flush_all();
        _exit(1);
    }
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stdout);
    if (f == F_EXIT1) {
        fprintf(stderr, "llama_bench: error: failed to create context with model '%s'\n", model);
        flush_all();
        _exit(1);
    }
    if (f == F_CRASH || f == F_TRUNCATED) {
        lvd_sb sb = { 0 };
        printer p = { .fmt = FMT_JSONL };
        print_test(&p, r, &sb);
        partial_now(stdout, sb.buf, f);
    }
}

/* The llama-bench persona. Long on purpose: the invocation in the order the
 * real tool prints it (backend init, models loaded, headers, each instance's
 * samples, fault and line, footers), so the streams interleave as captured. */
int bench_main(int argc, char **argv)
{
    print_backend_init();
    bench_opts o;
    int rc = bench_parse(argc, argv, &o);
    if (rc != 0) {
        bench_opts_free(&o);
        return rc < 0 ? 1 : 0;
    }
    /* load every model once, as the real tool does before its first test */
    size_t nm = o.dim[D_MODEL].n;
    model_meta *meta = lvd_xcalloc(nm, sizeof *meta);
    int *bad = lvd_xcalloc(nm, sizeof *bad), failed = 0;
    for (size_t i = 0; i < nm; i++)
        bad[i] = model_load(o.dim[D_MODEL].v[i], &meta[i]) != 0;

    printer p = { .fmt = o.fmt }, pe = { .fmt = o.fmt_err };
    lvd_sb sb = { 0 };
    print_header(&p, &o, &sb);
    emit(stdout, &sb);
    print_header(&pe, &o, &sb);
    emit(stderr, &sb);

    binst_list il = { 0 };
    bench_instances(&o, &il);
    size_t last_bad = (size_t)-1;
    double sim_total = 0;
    for (size_t j = 0; j < il.n; j++) {
        const binst *in = &il.v[j];
        if (j == 0 || !same_mparams(in, &il.v[j - 1]))
            sim_total += model_loaded(&o, in);
        size_t mi = in->ix[D_MODEL];
        const char *model = o.dim[D_MODEL].v[mi];
        if (o.progress)
            fprintf(stderr, "llama-bench: benchmark %zu/%zu: starting\n", j + 1, il.n);
        if (bad[mi]) {
            if (last_bad != mi)
                fprintf(stderr, "llama_bench: error: failed to load model '%s'\n", model);
            last_bad = mi;
            failed++;
            continue;
        }
        char *T = pick_target(o.dim[D_DEV].v[in->ix[D_DEV]], '/', strcmp(o.dim[D_NGL].v[in->ix[D_NGL]], "0") == 0);
        ctx_limit_check(T, o.dim[D_TK].v[in->ix[D_TK]], o.dim[D_TV].v[in->ix[D_TV]],
                        in->n_prompt + in->n_gen + atol(o.dim[D_ND].v[in->ix[D_ND]]), o.verbose, model);
        bres r = { 0 };
        if (o.verbose)
            print_alloc(T, &o, in, &meta[mi], j == 0 || !same_mparams(in, &il.v[j - 1]));
        bench_fill(&o, in, j, &meta[mi], &r);
        if (o.progress && !o.no_warmup) {
            if (in->n_prompt)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: warmup prompt run\n", j + 1, il.n);
            if (in->n_gen)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: warmup generation run\n", j + 1, il.n);
        }
        double sim = bench_samples(&o, in, j, T, &r);
        sim_total += sim + (o.no_warmup || !r.n ? 0 : in->n_gen && !in->n_prompt ? r.ns[0] / in->n_gen : r.ns[0]);
        for (int k = 0; k < (int)r.n; k++) { /* each repetition: its progress line, then it computes */
            if (o.progress && in->n_prompt)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: prompt run %d/%d\n", j + 1, il.n, k + 1, o.reps);
            if (o.progress && in->n_gen)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: generation run %d/%d\n", j + 1, il.n, k + 1,
                        o.reps);
            flush_all();
            do_work_sleep_rep((double)r.ns[k]);
            energy_compute(T, (double)r.ns[k]); /* what it drew, counted as it ends */
        }
        bres_stats(&r);
        fault_t f = fault_for("bench", T);
        if (f == F_NONE && fake_memory_short(&o, in, T, model))
            f = F_OOM; /* the device has less than its probe line claims */
        if (f != F_NONE)
            bench_fault(f, &r, model);
        if (o.delay > 0)
            sleep_ms(o.delay * 1000.0);
        do_work_sleep(0); /* the repetitions slept their own time above */
        print_test(&p, &r, &sb);
        emit(stdout, &sb);
        print_test(&pe, &r, &sb);
        emit(stderr, &sb);
        bres_free(&r);
        free(T);
    }
    sim_clock_add(sim_total);
    print_footer(&p, &sb);
    emit(stdout, &sb);
    print_footer(&pe, &sb);
    emit(stderr, &sb);
    lvd_sb_free(&sb);
    free(il.v);
    for (size_t i = 0; i < nm; i++)
        free(meta[i].type);
    free(meta);
    free(bad);
    bench_opts_free(&o);
    return failed ? 1 : 0;
}
