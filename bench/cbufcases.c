/* cbufcases.c: see cbufcases.h. */
#include "bench/cbufcases.h"

#include "engine/alloclog.h"
#include "engine/devices.h"
#include "placement/cbuf.h"
#include "placement/placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB 1048576.0

/* --- the shapes of the generated models ---------------------------------- */

/* What gguf_read_shape reads from the files perf/make-alloc-models.py
 * writes (f16 weights, f32 norms): the hyperparameters, then the bytes. */
typedef struct known_shape {
    const char *model, *arch;
    uint32_t n_block, n_embd, n_head, n_head_kv, head_dim_k, head_dim_v;
    uint32_t n_expert, n_expert_used, n_ff, n_ff_exp, n_ff_shexp, n_dense_lead, n_rot;
    uint32_t n_vocab, n_swa, swa_period;
    uint32_t kv_lora_rank, q_lora_rank, head_dim_k_mla, head_dim_v_mla;
    unsigned graph_flags;
    uint64_t block_bytes, block_elems, expert_bytes, max_expert_tensor_bytes;
    uint64_t non_block_bytes, tensor_bytes, embd_bytes, output_bytes;
} known_shape;

static const known_shape known[] = {
    {"alloc-llama.gguf", "llama", 8, 512, 8, 4, 64, 64, 0, 0, 1408, 0, 0, 0, 64, 32000, 0, 0,
     0, 0, 0, 0, 0, 5902336, 2950144, 0, 0, 65538048, 112756736, 32768000, 32768000},
    {"alloc-qwen2.gguf", "qwen2", 6, 512, 8, 2, 64, 64, 0, 0, 1408, 0, 0, 0, 64, 151936, 0, 0,
     0, 0, 0, 0, GGUF_GRAPH_TIED | GGUF_GRAPH_QKV_BIAS, 5643264, 2819840, 0, 0, 155584512, 189444096, 155582464,
     155582464},
    {"alloc-qwen3moe.gguf", "qwen3moe", 6, 512, 8, 4, 64, 64, 16, 8, 1408, 512, 0, 0, 64, 32000,
     0, 0, 0, 0, 0, 0, GGUF_GRAPH_QK_NORM, 26759680, 13378688, 25165824, 8388608, 65538048,
     226096128, 32768000, 32768000},
    {"alloc-gemma3.gguf", "gemma3", 12, 512, 8, 4, 64, 64, 0, 0, 1408, 0, 0, 0, 64, 32000, 512, 6,
     0, 0, 0, 0, GGUF_GRAPH_QK_NORM | GGUF_GRAPH_TIED, 5906944, 2951296, 0, 0, 32770048,
     103653376, 32768000, 32768000},
    {"alloc-deepseek2.gguf", "deepseek2", 4, 512, 8, 1, 160, 128, 16, 4, 1408, 256, 256, 1, 32,
     32000, 0, 0, 128, 192, 96, 64, 0, 14832896, 7415104, 12582912, 4194304, 65538048, 115809280,
     32768000, 32768000},
    {"alloc-heads32.gguf", "llama", 4, 512, 32, 8, 16, 16, 0, 0, 1408, 0, 0, 0, 16, 32000, 0, 0,
     0, 0, 0, 0, 0, 5640192, 2819072, 0, 0, 65538048, 88098816, 32768000, 32768000},
};

int bench_cbuf_known_shape(const char *model, gguf_shape *out)
{
    const known_shape *k = NULL;
    for (size_t i = 0; i < LVD_ARRAY_LEN(known); i++)
        if (!strcmp(model, known[i].model))
            k = &known[i];
    if (!k)
        return -1;
    memset(out, 0, sizeof *out);
    out->known = out->graph = out->per_layer = 1;
    out->version = 3;
    out->file_type = 1;
    snprintf(out->arch, sizeof out->arch, "%s", k->arch);
    snprintf(out->name, sizeof out->name, "%.*s", (int)(strlen(model) - 5), model);
    out->n_block = k->n_block, out->n_embd = k->n_embd, out->n_head = k->n_head;
    out->n_head_kv = k->n_head_kv, out->head_dim_k = k->head_dim_k, out->head_dim_v = k->head_dim_v;
    out->n_ctx_train = 32768, out->n_expert = k->n_expert, out->n_expert_used = k->n_expert_used;
    out->n_ff = k->n_ff, out->n_ff_exp = k->n_ff_exp, out->n_ff_shexp = k->n_ff_shexp;
    out->n_dense_lead = k->n_dense_lead, out->n_rot = k->n_rot, out->n_vocab = k->n_vocab;
    out->n_swa = k->n_swa, out->kv_lora_rank = k->kv_lora_rank, out->q_lora_rank = k->q_lora_rank;
    out->head_dim_k_mla = k->head_dim_k_mla, out->head_dim_v_mla = k->head_dim_v_mla;
    out->kv_mla = k->kv_lora_rank != 0, out->graph_flags = k->graph_flags;
    out->block_bytes = k->block_bytes, out->block_elems = k->block_elems;
    out->expert_bytes = k->expert_bytes, out->max_expert_tensor_bytes = k->max_expert_tensor_bytes;
    out->non_block_bytes = k->non_block_bytes, out->tensor_bytes = k->tensor_bytes;
    out->embd_bytes = k->embd_bytes, out->output_bytes = k->output_bytes;
    for (uint32_t i = 0; i < k->n_block; i++) {
        out->layer_head_kv[i] = (uint16_t)k->n_head_kv;
        out->layer_swa[i] = k->swa_period && i % k->swa_period < k->swa_period - 1;
    }
    return 0;
}

int bench_cbuf_head_shape(const char *dir, const char *model, gguf_shape *out, lvd_err *err)
{
    char *head = lvd_xasprintf("%s/%s.head", dir, model), *size = lvd_xasprintf("%s/%s.size", dir, model);
    lvd_sb h = {0}, z = {0};
    int64_t bytes = 0;
    int rc = lvd_read_file(head, 16u << 20, &h, err) != 0 || lvd_read_file(size, 64, &z, err) != 0 ? -1 : 0;
    if (rc == 0)
        z.buf[strcspn(z.buf, "\n")] = '\0'; /* the size, then a newline */
    if (rc == 0 && (lvd_parse_i64(z.buf, &bytes) != 0 || bytes <= 0))
        rc = lvd_errf(err, "%s: not a file size in bytes", size);
    if (rc == 0)
        rc = gguf_parse_shape(h.buf, h.len, (uint64_t)bytes, head, out, err);
    lvd_sb_free(&h);
    lvd_sb_free(&z);
    free(head);
    free(size);
    return rc;
}

int bench_cbuf_shape(const char *models_dir, const char *model, gguf_shape *out, lvd_err *err)
{
    if (models_dir) {
        char *path = lvd_xasprintf("%s/%s", models_dir, model), *head = lvd_xasprintf("%s.head", path);
        int rc = access(path, R_OK) == 0   ? gguf_read_shape(path, out, err)
                 : access(head, R_OK) == 0 ? bench_cbuf_head_shape(models_dir, model, out, err)
                                           : -1;
        free(path);
        free(head);
        if (rc == 0)
            return 0;
    }
    if (bench_cbuf_known_shape(model, out) == 0)
        return 0;
    return err && err->msg[0] ? -1 : lvd_errf(err, "%s: not in %s, nor one of the generated models", model,
                                               models_dir ? models_dir : "(no models folder)");
}

/* --- reading cases -------------------------------------------------------- */

/* The value after flag in words[0..n), or NULL. */
static const char *flag_value(char **words, size_t n, const char *flag)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (!strcmp(words[i], flag))
            return words[i + 1];
    return NULL;
}

/* The case of one "$ ..." line (its buffer lines not yet read). */
static int parse_command(const char *line, const char *name, size_t lineno, bench_cbuf_case *c,
                         lvd_err *err)
{
    memset(c, 0, sizeof *c);
    size_t n;
    char **w = lvd_split(line + 2, ' ', &n);
    const char *m = flag_value(w, n, "-m"), *ctx = flag_value(w, n, "-c");
    const char *ub = flag_value(w, n, "-ub"), *fa = flag_value(w, n, "-fa");
    const char *ngl = flag_value(w, n, "-ngl"), *ncmoe = flag_value(w, n, "-ncmoe");
    int rc = 0;
    if (!m || !ctx || !ub) {
        rc = lvd_errf(err, "%s:%zu: a case without -m, -c or -ub: %.80s", name, lineno, line);
    } else {
        const char *base = strrchr(m, '/');
        snprintf(c->model, sizeof c->model, "%s", base ? base + 1 : m);
        c->ctx = (uint32_t)strtoul(ctx, NULL, 10);
        c->ubatch = (uint32_t)strtoul(ub, NULL, 10);
        c->fa = fa && (!strcmp(fa, "on") || !strcmp(fa, "1"));
        c->ngl = ngl ? atoi(ngl) : -1;
        c->n_cpu_moe = ncmoe ? atoi(ncmoe) : 0;
        const char *np = flag_value(w, n, "-np");
        c->np = np ? atoi(np) : 0;
        for (size_t i = 0; i < n; i++)
            c->kvu |= !strcmp(w[i], "-kvu") || !strcmp(w[i], "--kv-unified");
        for (size_t i = 0; i < n && w[i][0] != '-'; i++) { /* the environment, then the program */
            /* ggml-vulkan keeps the order when the variable is set at all */
            c->in_graph_order |= lvd_starts_with(w[i], "GGML_VK_DISABLE_GRAPH_OPTIMIZE=");
            if (!strchr(w[i], '='))
                snprintf(c->tool, sizeof c->tool, "%s", w[i]);
        }
    }
    lvd_strv_free(w);
    return rc;
}

/* The limits of the device a case's lines text[0..len) name:
 * "llama_prepare_model_devices: using device Vulkan0 (llvmpipe (...)) ...". */
static placement_cbuf_dev device_limits(const char *text, size_t len)
{
    static const char tag[] = ": using device ";
    char *copy = lvd_xstrndup(text, len);
    const char *at = strstr(copy, tag);
    placement_cbuf_dev max = {0, 0, 0, 0};
    if (at) {
        char sel[64] = "", backend[16];
        const char *name = at + sizeof tag - 1;
        size_t n = strcspn(name, " \n");
        snprintf(sel, sizeof sel, "%.*s", (int)(n < sizeof sel ? n : sizeof sel - 1), name);
        engine_backend_of_selector(sel, backend, sizeof backend);
        const char *desc = name + n;
        max = placement_cbuf_dev_of(backend, desc[0] == ' ' && desc[1] == '(' ? desc + 2 : "");
    }
    free(copy);
    return max;
}

int bench_cbuf_case_read(bench_cbuf_case *c, const char *text, size_t len, lvd_err *err)
{
    if (engine_alloc_parse(text, len, &c->alloc, &c->n_alloc, err) != 0)
        return -1;
    for (size_t i = 0; i < c->n_alloc; i++)
        c->gpu |= strcmp(c->alloc[i].device, "CPU") != 0;
    c->dev = device_limits(text, len);
    if (c->in_graph_order)
        c->dev.reorders = 0;
    if (!strcmp(c->tool, "llama-fit-params")) { /* its rows; a load that failed printed none */
        char *rows = lvd_xstrndup(text, len);
        lvd_err ignored = {{0}};
        c->has_fitprint = engine_fitprint_parse(rows, &c->fitprint, &ignored) == 0;
        free(rows);
    }
    return 0;
}

int bench_cbuf_cases_parse(const char *text, size_t len, const char *name, bench_cbuf_case **out,
                           size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    const char *p = text, *end = text + len, *body = NULL;
    size_t lineno = 0;
    int rc = 0;
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        lineno++;
        if (eol - p > 2 && p[0] == '$' && p[1] == ' ') {
            if (body)
                rc = bench_cbuf_case_read(&(*out)[*n - 1], body, (size_t)(p - body), err);
            char *line = lvd_xstrndup(p, (size_t)(eol - p));
            *out = lvd_xrealloc(*out, (*n + 1) * sizeof **out);
            if (rc == 0)
                rc = parse_command(line, name, lineno, &(*out)[(*n)++], err);
            free(line);
            body = nl ? nl + 1 : end;
        }
        p = nl ? nl + 1 : end;
    }
    if (rc == 0 && body)
        rc = bench_cbuf_case_read(&(*out)[*n - 1], body, (size_t)(end - body), err);
    if (rc != 0) {
        bench_cbuf_cases_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void bench_cbuf_cases_free(bench_cbuf_case *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].alloc);
    free(v);
}

char *bench_cbuf_case_command(const char *model, uint32_t ctx, uint32_t ubatch, int fa, int ngl,
                              int gpu)
{
    return lvd_xasprintf("$ %sllama-perplexity -m %s -c %u -b %u -ub %u -fa %s -ngl %d -f /dev/null "
                         "--no-warmup -fit off -lv 4", gpu ? "GGML_VK_VISIBLE_DEVICES=0 " : "", model,
                         ctx, ctx, ubatch, fa ? "on" : "off", ngl);
}

/* --- the verdict --------------------------------------------------------- */

const lvd_alloc *bench_cbuf_case_row(const bench_cbuf_case *c, int host)
{
    for (size_t i = 0; i < c->n_alloc; i++)
        if ((strcmp(c->alloc[i].device, "CPU") == 0) == (host != 0))
            return &c->alloc[i];
    return NULL;
}

static double mib_of(int64_t b)
{
    return b < 0 ? 0 : (double)b / MIB;
}

static double act_total(const lvd_alloc *a)
{
    return a ? mib_of(a->model) + mib_of(a->kv) + mib_of(a->compute) : -1;
}

double bench_cbuf_ratio(double pred, double act)
{
    return pred >= 0 && act > 0 ? pred / act : -1;
}

/* The ubatch of a case's context: -ub within the context (llama-batched-bench's
 * -b 2048 and llama-perplexity's -b CTX cut no further). */
static uint32_t ubatch_of(const bench_cbuf_case *c)
{
    uint32_t ub = c->ubatch < 2048 ? c->ubatch : 2048;
    return ub < c->ctx ? ub : c->ctx;
}

void bench_cbuf_judge(const bench_cbuf_case *c, const gguf_shape *s, bench_cbuf_verdict *out)
{
    memset(out, 0, sizeof *out);
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = s;
    in.ctx = c->ctx;
    in.ubatch = (int)ubatch_of(c);
    in.flash_attn = c->fa;
    in.reserve_mib = 0;
    in.dev = c->dev;
    const lvd_alloc *dev = bench_cbuf_case_row(c, 0), *host = bench_cbuf_case_row(c, 1);
    out->act_dev = dev ? mib_of(dev->compute) : -1;
    out->act_host = host ? mib_of(host->compute) : -1;
    out->ratio_host = -1;
    /* a device's case priced as it ran; a CPU case's cache as it is whole */
    placement_result pl;
    lvd_err ignored = {{0}};
    int ngl = !c->gpu || c->ngl < 0 || (uint32_t)c->ngl > s->n_block ? -1 : c->ngl;
    if (placement_price(&in, ngl, c->gpu ? c->n_cpu_moe : 0, &pl, &ignored) != 0)
        return;
    if (c->gpu) {
        out->predicted = pl.compute_predicted;
        out->pred_dev = mib_of((int64_t)pl.compute_bytes);
        out->pred_host = mib_of((int64_t)pl.host_compute_bytes);
        out->pred_total = mib_of((int64_t)(pl.weight_bytes + pl.kv_bytes + pl.compute_bytes));
        out->act_total = act_total(dev);
        out->ratio_compute = bench_cbuf_ratio(out->pred_dev, out->act_dev);
        out->ratio_host = bench_cbuf_ratio(out->pred_host, out->act_host);
    } else {
        placement_cbuf_in ci = {.shape = s, .ctx = c->ctx, .ubatch = ubatch_of(c), .flash_attn = c->fa};
        placement_cbuf cb;
        placement_cbuf_predict(&ci, &cb);
        out->predicted = cb.predicted;
        out->pred_dev = -1;
        out->pred_host = mib_of((int64_t)cb.host_bytes);
        out->pred_total = mib_of((int64_t)(s->tensor_bytes + pl.kv_bytes + cb.host_bytes));
        out->act_total = act_total(host);
        out->ratio_compute = bench_cbuf_ratio(out->pred_host, out->act_host);
    }
    out->ratio_total = bench_cbuf_ratio(out->pred_total, out->act_total);
}
