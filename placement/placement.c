/* placement.c: the placement ladder of placement.h. One cost function
 * (device_need) prices every candidate; the rungs only differ in which
 * candidates they try and in what order. Not for I/O of any kind. */
#include "placement/placement.h"

#include "placement/cbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MIB (1024ull * 1024ull)

static const struct cache_type {
    const char *name;
    uint32_t block_elems;
    uint32_t block_bytes;
} cache_types[] = {
    /* ggml's block sizes: scale (and min) halves plus packed quants. */
    {"f32", 1, 4},     {"f16", 1, 2},     {"bf16", 1, 2},
    {"q8_0", 32, 34},  {"q4_0", 32, 18},  {"q4_1", 32, 20},
    {"q5_0", 32, 22},  {"q5_1", 32, 24},  {"iq4_nl", 32, 18},
};

static const int ubatch_ladder[] = {512, 256, 128};

void placement_place_in_init(placement_place_in *in)
{
    memset(in, 0, sizeof *in);
    in->free_mib = -1;
    in->reserve_mib = PLACEMENT_RESERVE_MIB_DEFAULT;
    in->compute_mib_at_ref = PLACEMENT_COMPUTE_MIB_AT_REF;
    in->flash_attn = -1;
}

const char *placement_rung_name(placement_rung rung)
{
    switch (rung) {
    case PLACEMENT_RUNG_FULL: return "fully resident";
    case PLACEMENT_RUNG_REDUCED_UBATCH: return "reduced ubatch";
    case PLACEMENT_RUNG_EXPERTS_ON_HOST: return "experts on host";
    case PLACEMENT_RUNG_PARTIAL: return "partial offload";
    case PLACEMENT_RUNG_CPU_ONLY: return "cpu only";
    case PLACEMENT_RUNG_NOTHING_FITS: return "nothing fits";
    }
    return "?";
}

int placement_cache_type_size(const char *type, uint32_t *block_elems, uint32_t *block_bytes,
                        lvd_err *err)
{
    if (!type || !*type)
        type = "f16";
    for (size_t i = 0; i < LVD_ARRAY_LEN(cache_types); i++) {
        if (strcasecmp(type, cache_types[i].name) == 0) {
            *block_elems = cache_types[i].block_elems;
            *block_bytes = cache_types[i].block_bytes;
            return 0;
        }
    }
    /* -1 here, not lvd_errf's value: lvd_errf is in another file, so the compiler
     * cannot see that it never returns 0, and 0 would promise the sizes were set. */
    lvd_errf(err, "unknown KV cache type '%s' (allowed: f32, f16, bf16, q8_0, q4_0, "
                  "q4_1, iq4_nl, q5_0, q5_1)", type);
    return -1;
}

/* ggml_row_size: bytes of a row of n elements of the type. */
static int row_bytes(const char *type, uint64_t n, uint64_t *out, lvd_err *err)
{
    uint32_t be = 1, bb = 0;
    if (placement_cache_type_size(type, &be, &bb, err) != 0)
        return -1;
    if (__builtin_mul_overflow((n + be - 1) / be, (uint64_t)bb, out))
        return lvd_errf(err, "KV cache row of %llu elements overflows", (unsigned long long)n);
    return 0;
}

/* The cells of one block's cache over every stream: the context padded to
 * 256 (llama_context), a sliding block's min(that, window + ubatch) padded
 * to 256 (llama_kv_cache_iswa); the window x slots with a unified cache;
 * without one, each of n_seq streams ctx / n_seq cells padded to 256. */
static uint64_t layer_cells(const gguf_shape *s, uint32_t il, uint32_t ctx, uint32_t ubatch, placement_slots sl)
{
    uint64_t streams = sl.n_seq > 1 && !sl.unified ? sl.n_seq : 1;
    uint64_t per = ((uint64_t)ctx / streams + 255) / 256 * 256;
    if (streams == 1)
        per = ((uint64_t)ctx + 255) / 256 * 256;
    if (!s->per_layer || il >= s->n_block || !s->layer_swa[il] || s->n_swa == 0)
        return per * streams;
    uint64_t window = (uint64_t)s->n_swa * (sl.unified && sl.n_seq > 1 ? sl.n_seq : 1);
    uint64_t swa = window + (ubatch ? ubatch : PLACEMENT_UBATCH_DEFAULT);
    return ((swa < per ? swa : per) + 255) / 256 * 256 * streams;
}

int placement_kv_bytes_slots(const gguf_shape *shape, uint32_t n_layers, uint32_t ctx, uint32_t ubatch,
                             placement_slots slots, const char *type_k, const char *type_v, uint64_t *out,
                             lvd_err *err)
{
    uint64_t total = 0, unused;
    if (row_bytes(type_k, 1, &unused, err) != 0 || row_bytes(type_v, 1, &unused, err) != 0)
        return -1;
    /* the last n_layers blocks are priced (with n_layers <= n_block) */
    uint32_t first = n_layers <= shape->n_block ? shape->n_block - n_layers : 0;
    for (uint32_t i = 0; i < n_layers; i++) {
        uint32_t il = first + i;
        uint64_t heads = shape->per_layer && il < shape->n_block ? shape->layer_head_kv[il]
                                                                 : shape->n_head_kv;
        int swa = shape->per_layer && il < shape->n_block && shape->layer_swa[il] && shape->head_dim_k_swa;
        uint64_t hd_k = swa ? shape->head_dim_k_swa : shape->head_dim_k;
        uint64_t hd_v = swa && shape->head_dim_v_swa ? shape->head_dim_v_swa : shape->head_dim_v;
        uint64_t rk, rv = 0, per_token, bytes;
        if (row_bytes(type_k, heads * hd_k, &rk, err) != 0 ||
            (!shape->kv_mla && row_bytes(type_v, heads * hd_v, &rv, err) != 0))
            return -1;
        if (__builtin_add_overflow(rk, rv, &per_token) ||
            __builtin_mul_overflow(per_token, layer_cells(shape, il, ctx, ubatch, slots), &bytes) ||
            __builtin_add_overflow(total, bytes, &total))
            return lvd_errf(err, "%s: KV cache size overflows (%u layers, ctx %u)",
                            shape->name[0] ? shape->name : shape->arch, n_layers, ctx);
    }
    *out = total;
    return 0;
}

int placement_kv_bytes_at(const gguf_shape *shape, uint32_t n_layers, uint32_t ctx,
                          uint32_t ubatch, const char *type_k, const char *type_v, uint64_t *out,
                          lvd_err *err)
{
    return placement_kv_bytes_slots(shape, n_layers, ctx, ubatch, (placement_slots){1, 0}, type_k, type_v, out,
                                    err);
}

int placement_kv_bytes(const gguf_shape *shape, uint32_t n_layers, uint32_t ctx, const char *type_k,
                 const char *type_v, uint64_t *out, lvd_err *err)
{
    return placement_kv_bytes_at(shape, n_layers, ctx, 0, type_k, type_v, out, err);
}

const char *placement_source_name(placement_source src)
{
    switch (src) {
    case PLACEMENT_FROM_SHAPE: return "gguf-shape";
    case PLACEMENT_FROM_ENGINE: return "llama-fit-params";
    case PLACEMENT_FROM_GRAPH: return "estimator-graph";
    case PLACEMENT_FROM_BOUND: return "bound";
    case PLACEMENT_FROM_CONSTANT: return "constant";
    }
    return "?";
}

uint64_t placement_rs_bytes_at(const gguf_shape *shape, uint32_t n_layers, uint32_t n_seq)
{
    if (!shape->per_layer || !shape->rs_bytes)
        return 0;
    uint32_t first = n_layers <= shape->n_block ? shape->n_block - n_layers : 0;
    uint64_t blocks = 0;
    for (uint32_t il = first; il < shape->n_block; il++)
        blocks += shape->layer_recr[il];
    return blocks * shape->rs_bytes * (n_seq ? n_seq : 1);
}

uint64_t placement_compute_bound(const gguf_shape *s, uint32_t ctx, uint32_t ubatch, int flash_attn,
                                 uint32_t n_outputs)
{
    if (!s->graph || !s->n_vocab || !s->n_embd || !s->n_head || !s->head_dim_k)
        return 0;
    uint64_t T = ubatch ? ubatch : PLACEMENT_UBATCH_DEFAULT;
    if (ctx && T > ctx)
        T = ctx;
    uint64_t cells = ((uint64_t)(ctx ? ctx : 1) + 255) / 256 * 256;
    uint64_t outs = n_outputs && n_outputs < T ? n_outputs : T;
    uint64_t ff = s->n_ff;
    if (s->n_expert && (uint64_t)s->n_ff_exp * s->n_expert_used > ff)
        ff = (uint64_t)s->n_ff_exp * s->n_expert_used;
    uint64_t heads = (uint64_t)s->n_head * s->head_dim_k + 2ull * s->n_head_kv * s->head_dim_k;
    uint64_t scores = flash_attn ? (uint64_t)s->n_head * s->head_dim_v * T : (uint64_t)s->n_head * cells * T;
    uint64_t elems = scores + cells * T /* the mask */ + (uint64_t)s->n_vocab * outs /* the logits */ +
                     6 * (uint64_t)s->n_embd * T /* the residual stream, normed, projected */ +
                     3 * ff * T /* gate, up and their product */ + 2 * heads * T /* Q, K, V and roped */;
    return elems * 4;
}

uint64_t placement_compute_allowance(int ubatch, int64_t reserve_mib, int64_t compute_mib_at_ref)
{
    uint64_t ub = ubatch > 0 ? (uint64_t)ubatch : PLACEMENT_UBATCH_DEFAULT;
    uint64_t scaled = (uint64_t)(compute_mib_at_ref > 0 ? compute_mib_at_ref : 0) * MIB * ub /
                      PLACEMENT_COMPUTE_REF_UBATCH;
    uint64_t reserve = (uint64_t)(reserve_mib > 0 ? reserve_mib : 0) * MIB;
    return scaled > reserve ? scaled - reserve : 0;
}

/* What one candidate costs: weights and KV on the device plus the headroom
 * (max(reserve, compute buffer)); the compute buffers themselves and how
 * they were found. */
typedef struct cost {
    uint64_t weights, kv, recurrent, headroom, total;
    uint64_t compute, host_compute;
    int predicted;
    placement_source compute_from;
    char compute_why[224];
} cost;

typedef struct ctx_t {
    const placement_place_in *in;
    const gguf_shape *s;
    uint32_t ctx;
    uint64_t free_bytes;
    uint64_t kv_all;            /* KV and recurrent state of every block (at the configured
                                   ubatch), scaled to the engine's figure */
    int configured_ubatch;
    uint32_t n_seq;             /* sequences a recurrent state is kept for */
    double weights_factor;      /* the engine's weights over the shape's (1: none, or equal
                                   within its print's rounding) */
    double kv_factor;           /* likewise for KV + recurrent state */
    uint64_t kv_engine;         /* the engine's KV + state where the shape prices none */
    int fenced;                 /* the engine's build is outside the graph rule's builds */
    int graph_first, graph_last;/* those builds */
} ctx_t;

/* The seed's headroom at ubatch: the reserve plus the constant's excess
 * (the most any candidate's headroom can be but for a prediction). */
static uint64_t seed_headroom(const ctx_t *c, int ubatch)
{
    return (uint64_t)c->in->reserve_mib * MIB +
           placement_compute_allowance(ubatch, c->in->reserve_mib, c->in->compute_mib_at_ref);
}

/* The engine's compute figures at ubatch: as printed at its own ubatch,
 * scaled linearly to another. */
static void engine_compute(const ctx_t *c, int ubatch, cost *k)
{
    const placement_engine_mem *m = c->in->engine_mem;
    double scale = m->ubatch > 0 ? (double)ubatch / m->ubatch : 1;
    int64_t dev = m->has_device ? m->dev_compute_mib : m->host_compute_mib;
    k->compute = (uint64_t)((double)(dev + 1) * (double)MIB * scale);
    k->host_compute = m->has_device ? (uint64_t)((double)(m->host_compute_mib + 1) * (double)MIB * scale) : 0;
    k->compute_from = PLACEMENT_FROM_ENGINE;
    snprintf(k->compute_why, sizeof k->compute_why, "%.80s's dry run at ubatch %d%s (a full ubatch of outputs)",
             m->from, m->ubatch, m->ubatch != ubatch ? ", scaled" : "");
}

/* Not predicted: the larger of the seed's constant and the generic bound. */
static void unpredicted_compute(const ctx_t *c, int ubatch, const char *why, cost *k)
{
    uint64_t constant = (uint64_t)c->in->compute_mib_at_ref * MIB * (uint64_t)ubatch / PLACEMENT_COMPUTE_REF_UBATCH;
    uint64_t bound = placement_compute_bound(c->s, c->ctx, (uint32_t)ubatch, c->in->flash_attn > 0,
                                             (uint32_t)c->in->n_outputs);
    k->host_compute = 0;
    if (bound > constant) {
        k->compute = bound;
        k->compute_from = PLACEMENT_FROM_BOUND;
        snprintf(k->compute_why, sizeof k->compute_why,
                 "not predicted (%.100s): a bound from its widths, above the seed's constant", why);
    } else {
        k->compute = constant;
        k->compute_from = PLACEMENT_FROM_CONSTANT;
        snprintf(k->compute_why, sizeof k->compute_why, "not predicted (%.100s): the seed's constant, %lld MiB per %d tokens",
                 why, (long long)c->in->compute_mib_at_ref, PLACEMENT_COMPUTE_REF_UBATCH);
    }
}

/* The compute buffers of a candidate into *k: the estimator's graph (cbuf.h)
 * for the program's outputs; the engine's own figure where the graph is not
 * followed, or was measured on other builds than the engine's; else not
 * predicted. */
static void compute_need(const ctx_t *c, int gpu_layers, int n_cpu_moe, int ubatch, cost *k)
{
    placement_cbuf_in ci = {.shape = c->s, .ctx = c->ctx, .ubatch = (uint32_t)ubatch,
                            .flash_attn = c->in->flash_attn > 0, .type_k = c->in->type_k,
                            .type_v = c->in->type_v, .gpu = !c->in->host_only, .n_gpu_layers = gpu_layers,
                            .n_cpu_moe = n_cpu_moe, .dev = c->in->dev,
                            .n_outputs = c->in->n_outputs > 0 ? (uint32_t)c->in->n_outputs : 0,
                            .n_seq = c->n_seq, .kv_unified = c->in->kv_unified};
    placement_cbuf pc;
    placement_cbuf_predict(&ci, &pc);
    int engine = c->in->engine_mem && c->in->engine_mem->known;
    k->predicted = pc.predicted && !(c->fenced && engine);
    if (k->predicted) {
        k->compute = c->in->host_only ? pc.host_bytes : pc.device_bytes;
        k->host_compute = c->in->host_only ? 0 : pc.host_bytes;
        k->compute_from = PLACEMENT_FROM_GRAPH;
        if (c->fenced)
            snprintf(k->compute_why, sizeof k->compute_why, "predicted from the %.120s (measured on b%d-b%d, not on b%d)",
                     pc.why, c->graph_first, c->graph_last, c->in->build);
        else
            snprintf(k->compute_why, sizeof k->compute_why, "predicted from the %.200s", pc.why);
    } else if (engine) {
        engine_compute(c, ubatch, k);
        if (pc.predicted) /* fenced: the engine's own figure wins */
            snprintf(k->compute_why + strlen(k->compute_why), sizeof k->compute_why - strlen(k->compute_why),
                     "; the graph rule was measured on b%d-b%d, not on b%d", c->graph_first, c->graph_last,
                     c->in->build);
    } else {
        unpredicted_compute(c, ubatch, pc.why, k);
    }
}

/* The device's total: the predicted parts times the margin factor, and the
 * reserve where it exceeds the corrected compute buffer. */
static uint64_t corrected_total(const ctx_t *c, const cost *k)
{
    double f = c->in->margin_factor > 0 ? c->in->margin_factor : 1;
    double compute = (double)k->compute * f;
    double reserve = (double)c->in->reserve_mib * (double)MIB;
    double total = (double)(k->weights + k->kv) * f + (compute > reserve ? compute : reserve);
    return (uint64_t)(total + 0.5);
}

/* The output layer's weights: every tensor outside the blocks but the
 * token embeddings (llama.cpp never offloads the input embeddings; they
 * load as CPU_Mapped), and, where the head is tied to them, their copy the
 * output layer loads (TENSOR_DUPLICATED; known from the graph widths); but
 * the head's weight stays on the host where the device would refuse its
 * op (placement_cbuf_dev_takes_weight: a tied head is then not copied). */
static uint64_t head_bytes(const gguf_shape *s, uint64_t max_tensor)
{
    uint64_t head = s->non_block_bytes > s->embd_bytes ? s->non_block_bytes - s->embd_bytes : 0;
    int tied = s->graph && (s->graph_flags & GGUF_GRAPH_TIED);
    if (s->graph && !placement_cbuf_dev_takes_weight(max_tensor, s->output_bytes, s->n_vocab))
        return tied || head < s->output_bytes ? head : head - s->output_bytes;
    return tied ? head + s->output_bytes : head;
}

/* The blocks' weights: last_n of them (the last ones, those -ngl offloads),
 * or all. The shape knows the largest block and the sum of all: a model
 * whose first blocks are smaller (deepseek2's dense lead) holds the sum,
 * and its last blocks are the largest. */
static uint64_t blocks_bytes(const gguf_shape *s, uint32_t last_n)
{
    uint64_t each = s->block_bytes * last_n;
    uint64_t all = s->tensor_bytes > s->non_block_bytes ? s->tensor_bytes - s->non_block_bytes : 0;
    return all && all < each ? all : each;
}

/* KV and recurrent state of the last n blocks as the shape prices them for slots sl. */
static uint64_t shape_kv_for(const ctx_t *c, uint32_t n, placement_slots sl, uint64_t *recurrent)
{
    uint64_t kv;
    /* checked for every block in setup: a part cannot fail */
    if (placement_kv_bytes_slots(c->s, n, c->ctx, (uint32_t)c->configured_ubatch, sl, c->in->type_k, c->in->type_v,
                                 &kv, NULL) != 0)
        kv = 0;
    *recurrent = placement_rs_bytes_at(c->s, n, sl.n_seq);
    return kv + *recurrent;
}

/* The same for the line's slots. */
static uint64_t shape_kv(const ctx_t *c, uint32_t n, uint64_t *recurrent)
{
    return shape_kv_for(c, n, (placement_slots){c->n_seq, c->in->kv_unified}, recurrent);
}

/* The KV and state of the last n blocks, scaled to the engine's figure. */
static uint64_t scaled_kv(const ctx_t *c, uint32_t n, uint64_t *recurrent)
{
    uint64_t kv = shape_kv(c, n, recurrent);
    if (c->kv_engine) { /* the shape prices none: the engine's, spread evenly over the blocks */
        *recurrent = 0;
        return c->kv_engine * n / (c->s->n_block ? c->s->n_block : 1);
    }
    *recurrent = (uint64_t)((double)*recurrent * c->kv_factor + 0.5);
    return (uint64_t)((double)kv * c->kv_factor + 0.5);
}

/* The weights and KV of a candidate (the part that costs no prediction).
 * gpu_layers -1: full residency, every block and the output head, minus the
 * experts of the first n_cpu_moe blocks. gpu_layers N >= 0: -ngl N. */
static cost stored_need(const ctx_t *c, int gpu_layers, int n_cpu_moe)
{
    const gguf_shape *s = c->s;
    cost k = {0};
    uint64_t weights = 0;
    if (gpu_layers < 0) {
        uint64_t experts = s->expert_bytes * (uint64_t)n_cpu_moe;
        uint64_t all = head_bytes(s, c->in->dev.max_tensor) + blocks_bytes(s, s->n_block);
        weights = all > experts ? all - experts : 0;
        k.kv = c->kv_all;
        scaled_kv(c, s->n_block, &k.recurrent);
    } else if (gpu_layers > 0) {
        /* -ngl N: llama_model puts the last N of its n_block + 1 layers on
         * the device, the output layer first: the head and N - 1 blocks */
        uint32_t blocks = (uint32_t)gpu_layers - 1;
        weights = head_bytes(s, c->in->dev.max_tensor) + blocks_bytes(s, blocks);
        k.kv = scaled_kv(c, blocks, &k.recurrent);
    }
    k.weights = (uint64_t)((double)weights * c->weights_factor + 0.5);
    return k;
}

/* What a candidate costs in full: its weights, KV and compute buffers. */
static cost device_need(const ctx_t *c, int gpu_layers, int n_cpu_moe, int ubatch)
{
    cost k = stored_need(c, gpu_layers, n_cpu_moe);
    compute_need(c, gpu_layers, n_cpu_moe, ubatch, &k);
    uint64_t reserve = (uint64_t)c->in->reserve_mib * MIB;
    k.headroom = k.compute > reserve ? k.compute : reserve;
    k.total = corrected_total(c, &k); /* the backend's margin correction (correction.h) */
    return k;
}

static int fits(const ctx_t *c, const cost *k)
{
    return k->total <= c->free_bytes;
}

/* 1 when the candidate could fit at some ubatch: its weights and KV beside
 * the bare reserve (every headroom is at least the reserve) fit. Spares the
 * compute buffer's prediction for the candidates that cannot. */
static int may_fit(const ctx_t *c, int gpu_layers, int n_cpu_moe)
{
    cost k = stored_need(c, gpu_layers, n_cpu_moe);
    return fits(c, &(cost){.total = corrected_total(c, &k)});
}

static void fill(const ctx_t *c, placement_result *out, placement_rung rung, int ngl, int n_cpu_moe,
                 int ubatch, const cost *k)
{
    out->rung = rung;
    out->ngl = ngl;
    out->n_cpu_moe = n_cpu_moe;
    out->ubatch = ubatch;
    out->ctx = c->ctx;
    out->weight_bytes = k->weights;
    out->kv_bytes = k->kv;
    out->headroom_bytes = k->headroom;
    out->compute_bytes = k->compute;
    out->host_compute_bytes = k->host_compute;
    out->compute_predicted = k->predicted;
    memcpy(out->compute_why, k->compute_why, sizeof out->compute_why);
    out->recurrent_bytes = k->recurrent;
    const placement_engine_mem *m = c->in->engine_mem;
    out->weights_from = m && m->known && m->has_device ? PLACEMENT_FROM_ENGINE : PLACEMENT_FROM_SHAPE;
    out->kv_from = m && m->known ? PLACEMENT_FROM_ENGINE : PLACEMENT_FROM_SHAPE;
    out->compute_from = k->compute_from;
    out->bytes = k->total;
    out->margin_bytes = (int64_t)c->free_bytes - (int64_t)k->total;
}

static unsigned long long mib(uint64_t b)
{
    return (unsigned long long)((b + MIB / 2) / MIB);
}

/* The common tail of every reason: what the device holds against what is free. */
static void reason(placement_result *out, const ctx_t *c, const char *head)
{
    char corr[48] = "";
    if (c->in->margin_factor > 0 && c->in->margin_factor != 1)
        snprintf(corr, sizeof corr, ", x%.3f margin correction", c->in->margin_factor);
    char state[48] = "";
    if (out->recurrent_bytes)
        snprintf(state, sizeof state, " (recurrent state %llu)", mib(out->recurrent_bytes));
    snprintf(out->reason, sizeof out->reason,
             "%s; needs %llu MiB (weights %llu, KV %llu%s at ctx %u, from %s; headroom %llu at ubatch %d%s; "
             "compute buffer %llu MiB, %s) of %llu MiB free, margin %lld MiB",
             head, mib(out->bytes), mib(out->weight_bytes), mib(out->kv_bytes), state, c->ctx,
             c->in->engine_mem && c->in->engine_mem->known ? c->in->engine_mem->from : "the GGUF shape",
             mib(out->headroom_bytes), out->ubatch, corr, mib(out->compute_bytes), out->compute_why,
             mib(c->free_bytes), (long long)(out->margin_bytes / (int64_t)MIB));
}

/* The ubatch candidates, best first: the configured one, then the smaller
 * rungs of the ladder. */
static size_t ubatch_candidates(const ctx_t *c, int out[])
{
    size_t n = 0;
    out[n++] = c->configured_ubatch;
    for (size_t i = 0; i < LVD_ARRAY_LEN(ubatch_ladder); i++)
        if (ubatch_ladder[i] < c->configured_ubatch)
            out[n++] = ubatch_ladder[i];
    return n;
}

/* The largest candidate ubatch at which (gpu_layers, n_cpu_moe) fits, from
 * index `from` of the candidates on; 0 when none does. */
static int fit_ubatch(const ctx_t *c, int gpu_layers, int n_cpu_moe, size_t from, cost *k)
{
    int ubs[1 + LVD_ARRAY_LEN(ubatch_ladder)];
    size_t n = ubatch_candidates(c, ubs);
    if (!may_fit(c, gpu_layers, n_cpu_moe))
        return 0;
    for (size_t i = from; i < n; i++) {
        *k = device_need(c, gpu_layers, n_cpu_moe, ubs[i]);
        if (fits(c, k))
            return ubs[i];
    }
    return 0;
}

static int try_full(const ctx_t *c, placement_result *out)
{
    cost k = device_need(c, -1, 0, c->configured_ubatch);
    if (!fits(c, &k))
        return 0;
    fill(c, out, PLACEMENT_RUNG_FULL, -1, 0, c->configured_ubatch, &k);
    char head[96];
    snprintf(head, sizeof head, "all %u blocks and the output head on the device", c->s->n_block);
    reason(out, c, head);
    return 1;
}

/* ubatch costs one axis (prompt speed); experts and layers cost decode speed
 * too, so the cheaper currency is spent first. */
static int try_reduced_ubatch(const ctx_t *c, placement_result *out)
{
    cost k;
    int ub = fit_ubatch(c, -1, 0, 1, &k);
    if (!ub)
        return 0;
    fill(c, out, PLACEMENT_RUNG_REDUCED_UBATCH, -1, 0, ub, &k);
    char head[128];
    snprintf(head, sizeof head, "all %u blocks on the device at ubatch %d (not at %d)",
             c->s->n_block, ub, c->configured_ubatch);
    reason(out, c, head);
    return 1;
}

/* Smallest N first; at each N the ubatch ladder is spent before another
 * block's experts move (the same currency order as the rungs). */
static int try_experts_on_host(const ctx_t *c, placement_result *out)
{
    if (c->s->n_expert == 0 || c->s->expert_bytes == 0)
        return 0;
    for (uint32_t n = 1; n <= c->s->n_block; n++) {
        cost k;
        int ub = fit_ubatch(c, -1, (int)n, 0, &k);
        if (!ub)
            continue;
        fill(c, out, PLACEMENT_RUNG_EXPERTS_ON_HOST, -1, (int)n, ub, &k);
        char head[128];
        snprintf(head, sizeof head, "all layers on the device, experts of the first %u of %u "
                                    "blocks on the host", n, c->s->n_block);
        reason(out, c, head);
        return 1;
    }
    return 0;
}

/* From -ngl n_block (the output head and all blocks but the first) down to
 * -ngl 0, the ubatch ladder spent at each count before a layer moves to the
 * host. */
static int try_partial(const ctx_t *c, placement_result *out)
{
    for (int64_t n = c->s->n_block; n >= 0; n--) {
        cost k;
        int ub = fit_ubatch(c, (int)n, 0, 0, &k);
        if (!ub)
            continue;
        char head[128];
        if (n > 0) {
            fill(c, out, PLACEMENT_RUNG_PARTIAL, (int)n, 0, ub, &k);
            snprintf(head, sizeof head, "the output head and %d of %u blocks on the device (-ngl %d)",
                     (int)n - 1, c->s->n_block, (int)n);
        } else {
            fill(c, out, PLACEMENT_RUNG_CPU_ONLY, 0, 0, ub, &k);
            snprintf(head, sizeof head, "not even the output head fits beside the headroom: "
                                        "-ngl 0");
        }
        reason(out, c, head);
        return 1;
    }
    return 0;
}

/* Priced at the smallest candidate ubatch: the deficit is what is missing
 * for even the least the device could be asked to hold. */
static void nothing_fits(const ctx_t *c, placement_result *out)
{
    int ubs[1 + LVD_ARRAY_LEN(ubatch_ladder)];
    size_t n = ubatch_candidates(c, ubs);
    cost k = device_need(c, 0, 0, ubs[n - 1]);
    fill(c, out, PLACEMENT_RUNG_NOTHING_FITS, 0, 0, ubs[n - 1], &k);
    reason(out, c, "the device cannot hold even the headroom: run on the host");
}

static const char *model_name(const gguf_shape *s)
{
    return s->name[0] ? s->name : s->arch[0] ? s->arch : "model";
}

/* Rejects shapes whose sums would wrap: every product below stays under 2^63. */
static int check_sizes(const ctx_t *c, lvd_err *err)
{
    const gguf_shape *s = c->s;
    uint64_t blocks, total;
    if (__builtin_mul_overflow(s->block_bytes, (uint64_t)s->n_block, &blocks) ||
        __builtin_add_overflow(blocks, c->kv_all, &total) ||
        __builtin_add_overflow(total, s->non_block_bytes, &total) ||
        __builtin_add_overflow(total, seed_headroom(c, c->configured_ubatch), &total) ||
        total > (uint64_t)INT64_MAX || c->free_bytes > (uint64_t)INT64_MAX ||
        (c->in->margin_factor > 1 && total > (uint64_t)INT64_MAX / 4))
        return lvd_errf(err, "%s: model or device sizes out of range", model_name(s));
    return 0;
}

static int setup(const placement_place_in *in, ctx_t *cp, lvd_err *err);

/* MiB as llama.cpp prints them, floored, in bytes: each nonzero figure
 * half a MiB up, the expected value of what the floor dropped. */
static double printed_bytes(int64_t a_mib, int64_t b_mib)
{
    double sum = 0;
    const int64_t v[2] = {a_mib, b_mib};
    for (size_t i = 0; i < 2; i++)
        if (v[i] > 0)
            sum += ((double)v[i] + 0.5) * (double)MIB;
    return sum;
}

/* The ratio the engine's figure sets for the shape's: 1 where they agree
 * within the print's rounding (a floored MiB per row), else theirs. */
static double engine_ratio(double engine, int rows, uint64_t shape_bytes)
{
    if (shape_bytes == 0 || fabs(engine - (double)shape_bytes) <= rows * (double)MIB)
        return 1;
    return engine / (double)shape_bytes;
}

/* The engine's figures at full offload against the shape's: the factors
 * that scale every candidate's weights and KV. The weights only from a
 * device row (the host's model figure leaves out what it maps from the
 * file and counts what it repacks); the KV and state of both rows. */
static void engine_factors(ctx_t *c)
{
    const placement_engine_mem *m = c->in->engine_mem;
    if (!m || !m->known)
        return;
    int rows = m->has_device ? 2 : 1;
    uint64_t recurrent; /* llama-fit-params runs one sequence */
    uint64_t kv = shape_kv_for(c, c->s->n_block, (placement_slots){1, 0}, &recurrent);
    double ctx = printed_bytes(m->host_context_mib, m->has_device ? m->dev_context_mib : 0);
    if (m->has_device) /* the output layer (a tied head copied) and the blocks */
        c->weights_factor = engine_ratio(printed_bytes(m->dev_model_mib, 0), 1,
                                         head_bytes(c->s, c->in->dev.max_tensor) + blocks_bytes(c->s, c->s->n_block));
    if (kv == 0 && ctx > 0)
        c->kv_engine = (uint64_t)ctx;
    else
        c->kv_factor = engine_ratio(ctx, rows, kv);
}

static int check_shape(const gguf_shape *s, lvd_err *err)
{
    if (!s || !s->known)
        return lvd_errf(err, "placement: the model's GGUF shape is unknown");
    if (s->n_block == 0)
        return lvd_errf(err, "%s: the model has no blocks to place", model_name(s));
    return 0;
}

int placement_compute(const placement_place_in *in, placement_result *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const gguf_shape *s = in->shape;
    if (check_shape(s, err) != 0)
        return -1;
    if (in->free_mib < 0)
        return lvd_errf(err, "%s: the device's free memory is unknown (give --free-mib)",
                        model_name(s));
    ctx_t c;
    if (setup(in, &c, err) != 0)
        return -1;
    if (!try_full(&c, out) && !try_reduced_ubatch(&c, out) && !try_experts_on_host(&c, out) &&
        !try_partial(&c, out))
        nothing_fits(&c, out);
    return 0;
}

/* The checks and derived sizes every entry point shares (free_mib -1 = 0 here). */
static int setup(const placement_place_in *in, ctx_t *cp, lvd_err *err)
{
    const gguf_shape *s = in->shape;
    if (in->ubatch < 0 || in->reserve_mib < 0 || in->compute_mib_at_ref < 0 ||
        in->free_mib > INT64_MAX / (int64_t)MIB || in->reserve_mib > INT64_MAX / (int64_t)MIB / 4 ||
        in->compute_mib_at_ref > INT64_MAX / (int64_t)MIB / 4 / (1 << 20) ||
        in->ubatch > (1 << 20) || !(in->margin_factor >= 0 && in->margin_factor < 4))
        return lvd_errf(err, "%s: placement parameters out of range (ubatch %d, reserve %lld MiB, "
                             "compute %lld MiB, margin factor %g)", model_name(s), in->ubatch,
                        (long long)in->reserve_mib, (long long)in->compute_mib_at_ref,
                        in->margin_factor);
    ctx_t c = {.in = in, .s = s};
    c.ctx = in->ctx ? in->ctx : s->n_ctx_train;
    c.free_bytes = in->free_mib > 0 ? (uint64_t)in->free_mib * MIB : 0;
    if (c.ctx == 0)
        return lvd_errf(err, "%s: no context size given and the model records none",
                        model_name(s));
    c.configured_ubatch = in->ubatch > 0 ? in->ubatch : PLACEMENT_UBATCH_DEFAULT;
    c.n_seq = in->n_seq > 0 ? (uint32_t)in->n_seq : 1;
    uint64_t unused;
    if (placement_kv_bytes_at(s, s->n_block, c.ctx, (uint32_t)c.configured_ubatch, in->type_k,
                              in->type_v, &unused, err) != 0)
        return -1;
    c.weights_factor = c.kv_factor = 1;
    engine_factors(&c);
    c.kv_all = scaled_kv(&c, s->n_block, &unused);
    c.fenced = in->build > 0 && placement_cbuf_arch_builds(placement_cbuf_rule(s), &c.graph_first, &c.graph_last) &&
               (in->build < c.graph_first || in->build > c.graph_last);
    if (check_sizes(&c, err) != 0)
        return -1;
    *cp = c;
    return 0;
}

int placement_price(const placement_place_in *in, int ngl, int n_cpu_moe, placement_result *out,
                    lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const gguf_shape *s = in->shape;
    if (check_shape(s, err) != 0)
        return -1;
    ctx_t c;
    if (setup(in, &c, err) != 0)
        return -1;
    if (n_cpu_moe < 0 || (uint32_t)n_cpu_moe > s->n_block)
        n_cpu_moe = (int)s->n_block;
    int all = ngl < 0 || (uint32_t)ngl > s->n_block;
    cost k = device_need(&c, all ? -1 : ngl, all ? n_cpu_moe : 0, c.configured_ubatch);
    fill(&c, out, all ? PLACEMENT_RUNG_FULL : ngl ? PLACEMENT_RUNG_PARTIAL : PLACEMENT_RUNG_CPU_ONLY,
         all ? -1 : ngl, all ? n_cpu_moe : 0, c.configured_ubatch, &k);
    reason(out, &c, "priced as asked");
    return 0;
}

void placement_placement_apply(const placement_result *pl, const gguf_shape *shape, lvd_params *p)
{
    p->ngl = pl->ngl < 0 ? (int)shape->n_block + 1 : pl->ngl;
    p->n_cpu_moe = pl->n_cpu_moe;
    p->ubatch = pl->ubatch == PLACEMENT_UBATCH_DEFAULT ? 0 : pl->ubatch;
}
