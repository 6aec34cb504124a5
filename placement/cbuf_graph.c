/* cbuf_graph.c: the graph llama.cpp (b9749, b10587) builds for one ubatch
 * of a decoder-only transformer, as the list of tensors the scheduler and
 * ggml-alloc see (cbuf_internal.h), in the order ggml_build_forward_expand
 * visits them, each node with its ggml op and every view, reshape and
 * permute ggml makes (ggml-vulkan's reordering of a split goes by them:
 * the list was compared by hand, node by node, with debug dumps of the
 * real builds on the measured shapes; test_cbuf_vkorder holds the
 * reordering, not this list, to the captures). From src/models/{llama,qwen2,qwen3,qwen2moe,qwen3moe,
 * gemma2,gemma3,deepseek2}.cpp and src/llama-graph.cpp; gpt-oss, glm4moe,
 * llama4 and seed_oss follow the same list (their allocations in b10587's
 * llama-server match it: perf/perf_server_memory), llama4 with its
 * MoE every n_moe_step-th block and the routing weights applied to the
 * input, repeated per expert, before the experts; granitehybrid,
 * nemotron_h and nemotron_h_moe with their recurrent blocks' Mamba2 mixer
 * (below), the Nemotrons with one mixer per block, relu^2 feed-forwards
 * without a gate and no RoPE (nemotron_h_moe's experts routed by sigmoid
 * plus exp_probs_b); deepseek2 without MLA as multi-head attention over
 * attn_kv_b's decompression; qwen3next, qwen35 and qwen35moe with their
 * gated delta-net mixer and gated attention (below), the rows cut to the
 * outputs after the output norm; lfm2 with its short convolutions (below):
 *   build_inp_embd   get_rows(token_embd, inp_tokens) [n_embd, T] on the
 *                    host, beside the inp_embd input (never freed);
 *   per block        build_norm, build_qkv (Q, then V, then K: the order
 *                    build_attn expands them; Gemma's Q, scaled, then K,
 *                    then V), RoPE, the K and V stores
 *                    (set_rows into the cache: views, not allocated),
 *                    build_attn_mha (flash attention: one [head_dim_v,
 *                    n_head, T] result; without: kq [n_kv, T, n_head] f32,
 *                    Gemma2's softcap, soft_max in place, kqv, cont), the
 *                    output projection,
 *                    the residual add, build_norm, build_ffn (gate, up, the
 *                    GLU result, down) or build_moe_ffn (router logits,
 *                    soft_max, argsort, the expert weights, mul_mat_id gate
 *                    and up [n_ff_exp, n_expert_used, T], GLU, down
 *                    [n_embd, n_expert_used, T], weighted, summed), the
 *                    shared expert, the residual add;
 *   the last block   its attention output and residual cut to the output
 *                    rows (get_rows by inp_out_ids);
 *   the head         build_norm (an output: kept) and the logits
 *                    [n_vocab, n_outputs] f32 (an output; Gemma2's
 *                    softcapped in place).
 * Inputs: inp_tokens, inp_pos, the KV indices (k_idxs; v_idxs, one per
 * element without flash attention), the mask [n_kv, T] (f16 with flash
 * attention, else f32), inp_out_ids; a sliding-window model has them twice.
 * Pure arithmetic. Not for replaying the scheduler (cbuf_sched.c). */
#include "placement/cbuf_internal.h"

#include "common/gguf.h"
#include "common/util.h"
#include "placement/placement.h"

#include <stdlib.h>
#include <string.h>

/* The architectures whose graph this file follows, each with the llama.cpp
 * builds its rule was measured against (tests/fixtures/llama.cpp/alloc-sweep-*);
 * anything else is not predicted (cbuf.h). */
static const struct known_arch {
    const char *arch;
    int first, last;
} known_archs[] = {
    {"llama", 9749, 10587},    {"qwen2", 9749, 10587},  {"qwen3", 9749, 10587},
    {"qwen2moe", 9749, 10587}, {"qwen3moe", 9749, 10587}, {"gemma2", 9749, 10587},
    {"gemma3", 9749, 10587},   {"deepseek2", 9749, 10587},
    /* tests/fixtures/llama.cpp/arch-sweep-b10587-cpu: llama-server's own loads */
    {"gpt-oss", 10587, 10587}, {"glm4moe", 10587, 10587}, {"llama4", 10587, 10587},
    {"seed_oss", 10587, 10587}, {"granitehybrid", 10587, 10587}, {"nemotron_h", 10587, 10587},
    {"qwen3next", 10587, 10587}, {"qwen35", 10587, 10587},   {"qwen35moe", 10587, 10587},
    {"lfm2", 10587, 10587},    {"deepseek2 without MLA", 10587, 10587}, {"nemotron_h_moe", 10587, 10587},
};

/* MLA as llama.cpp runs it: the per-head widths of its absorption given. */
static int has_mla(const gguf_shape *s)
{
    return s->kv_lora_rank && s->head_dim_k_mla && s->head_dim_v_mla;
}

const char *placement_cbuf_rule(const gguf_shape *s)
{
    return !strcmp(s->arch, "deepseek2") && !has_mla(s) ? "deepseek2 without MLA" : s->arch;
}

int placement_cbuf_arch_builds(const char *arch, int *first, int *last)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(known_archs); i++)
        if (!strcmp(arch, known_archs[i].arch)) {
            *first = known_archs[i].first;
            *last = known_archs[i].last;
            return 1;
        }
    return 0;
}

int placement_cbuf_arch_known(const char *arch)
{
    int first, last;
    return placement_cbuf_arch_builds(arch, &first, &last);
}

enum { F32 = 4, I32 = 4, I64 = 8 };
#define OP(name) PLACEMENT_CBUF_OP_##name
enum { NONE = -1 };

/* One cache's inputs: created at first use, as ggml's depth-first visit
 * meets them. */
typedef struct cache_inputs {
    int32_t k_idxs, v_idxs, mask;
    uint32_t n_kv;
} cache_inputs;

typedef struct builder {
    const placement_cbuf_spec *sp;
    const gguf_shape *s;
    placement_cbuf_graph *g;
    uint64_t T;                /* rows of the ubatch's hidden state: its tokens, the output
                                  rows once the last block has cut them (cut_to_outputs) */
    int cut;                   /* 1 once cut: a matmul's batch is then the output rows */
    int mla;
    int32_t inp_pos, out_ids, rs_ids;
    cache_inputs full, swa;
    int8_t dev;                /* the current block's backend */
    uint32_t il;               /* the current block */
    int32_t ahead_rows, ahead_cache; /* lfm2: the next block's state rows, expanded early */
} builder;

static int32_t push(builder *b, placement_cbuf_node t)
{
    placement_cbuf_graph *g = b->g;
    t.out_rows |= (uint8_t)b->cut;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        g->v = lvd_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    g->v[g->n] = t;
    return (int32_t)g->n++;
}

static placement_cbuf_node blank(uint64_t bytes)
{
    return (placement_cbuf_node){.bytes = bytes, .src = {NONE, NONE, NONE, NONE, NONE, NONE},
                                 .view_src = NONE, .force = NONE};
}

static int32_t input(builder *b, uint64_t bytes)
{
    placement_cbuf_node t = blank(bytes);
    t.kind = PLACEMENT_CBUF_INPUT;
    return push(b, t);
}

/* A model weight of bytes (what a copy of it costs) in loc's memory; on the
 * host for a CPU-only build. */
static int32_t weight(builder *b, uint64_t bytes, int8_t loc)
{
    placement_cbuf_node t = blank(bytes);
    t.kind = PLACEMENT_CBUF_EXTERNAL;
    t.weight = 1;
    t.loc = b->sp->gpu ? loc : PLACEMENT_CBUF_HOST;
    return push(b, t);
}

/* The bytes of a matrix of elems weights: of the file's type where it is
 * one type throughout (F32, F16, BF16, Q8_0, Q4_0 ...: ggml_row_size),
 * else at the blocks' own density (block_bytes over block_elems: a mix of
 * quantizations, its norms and biases averaged in); f16 when the shape
 * does not say. A copy of a weight takes exactly its size, which decides
 * between equal holes in the allocator. */
static uint64_t elems_bytes(const builder *b, uint64_t elems)
{
    const gguf_shape *s = b->s;
    uint32_t be, bb;
    if (placement_cache_type_size(gguf_file_type_name(s->file_type), &be, &bb, NULL) == 0)
        return (elems + be - 1) / be * bb;
    if (!s->block_elems)
        return elems * 2;
    return (uint64_t)((double)elems * (double)s->block_bytes / (double)s->block_elems + 0.5);
}

/* A block's vector weight (a norm, a bias) of elems elements, where the
 * current block is: f32, as GGUF converters keep every 1-D tensor. */
static int32_t bweight(builder *b, uint64_t elems)
{
    return weight(b, elems * F32, b->dev);
}

/* The KV cache of the current block (bytes: one view of it). */
static int32_t cache(builder *b, uint64_t bytes)
{
    placement_cbuf_node t = blank(bytes);
    t.kind = PLACEMENT_CBUF_EXTERNAL;
    t.loc = b->sp->gpu ? b->dev : PLACEMENT_CBUF_HOST;
    return push(b, t);
}

static int32_t op3(builder *b, placement_cbuf_op op, uint64_t bytes, unsigned inplace, int32_t x,
                   int32_t y, int32_t z)
{
    placement_cbuf_node t = blank(bytes);
    t.kind = PLACEMENT_CBUF_OP;
    t.op = (uint8_t)op;
    t.inplace = (uint8_t)inplace;
    t.src[0] = x;
    t.src[1] = y;
    t.src[2] = z;
    return push(b, t);
}

/* An op that allocates a new tensor of bytes from x (and y). */
static int32_t op(builder *b, placement_cbuf_op o, uint64_t bytes, int32_t x, int32_t y)
{
    return op3(b, o, bytes, 0, x, y, NONE);
}

/* An op ggml may compute in place over x (ggml_op_can_inplace: ADD, MUL,
 * DIV, SCALE, UNARY, ROPE, RMS_NORM, SOFT_MAX; the same layout). */
static int32_t ip(builder *b, placement_cbuf_op o, int32_t x, int32_t y)
{
    return op3(b, o, b->g->v[x].bytes, 1u, x, y, NONE);
}

/* A tensor op o makes over x's memory (ggml_view_tensor: a view with an op,
 * such as SET_ROWS into the cache or CLAMP); sources x, y, z. */
static int32_t over(builder *b, placement_cbuf_op o, int32_t x, int32_t y, int32_t z, int32_t root)
{
    int32_t t = op3(b, o, 0, 0, x, y, z);
    b->g->v[t].kind = PLACEMENT_CBUF_VIEW;
    b->g->v[t].view_src = b->g->v[root].kind == PLACEMENT_CBUF_VIEW ? b->g->v[root].view_src : root;
    return t;
}

/* A view op vo (VIEW, RESHAPE, PERMUTE, TRANSPOSE) of x (bytes: its span,
 * for a copy of it). */
static int32_t view(builder *b, placement_cbuf_op vo, int32_t x, uint64_t bytes)
{
    placement_cbuf_node t = blank(bytes);
    t.kind = PLACEMENT_CBUF_VIEW;
    t.op = (uint8_t)vo;
    t.src[0] = x;
    const placement_cbuf_node *src = &b->g->v[x];
    t.view_src = src->kind == PLACEMENT_CBUF_VIEW ? src->view_src : x;
    return push(b, t);
}

static int32_t same_view(builder *b, placement_cbuf_op vo, int32_t x)
{
    return view(b, vo, x, b->g->v[x].bytes);
}

static int32_t reshape(builder *b, int32_t x)
{
    return same_view(b, OP(RESHAPE), x);
}

/* A view then a permute of x: how build_attn_mha takes Q, K and V. */
static int32_t view_permute(builder *b, int32_t x, uint64_t bytes)
{
    return same_view(b, OP(PERMUTE), view(b, OP(VIEW), x, bytes));
}

/* Where the loader puts a matmul weight of bytes with rows output rows that
 * belongs to the current block's layer: the host when the device would
 * refuse its op (placement_cbuf_dev_takes_weight). */
static int8_t mm_loc(const builder *b, uint64_t bytes, uint64_t rows)
{
    if (b->dev == PLACEMENT_CBUF_DEV && !placement_cbuf_dev_takes_weight(b->sp->dev.max_tensor, bytes, rows))
        return PLACEMENT_CBUF_HOST;
    return b->dev;
}

/* A matmul of a weight of bytes by x: [rows, cols] f32. */
static int32_t mm_sized(builder *b, uint64_t bytes, int32_t x, uint64_t rows, uint64_t cols)
{
    return op(b, OP(MUL_MAT), rows * cols * F32, weight(b, bytes, mm_loc(b, bytes, rows)), x);
}

/* A matmul of weight w (elems elements, of the file's type) by x. */
static int32_t mm(builder *b, uint64_t w_elems, int32_t x, uint64_t rows, uint64_t cols)
{
    return mm_sized(b, elems_bytes(b, w_elems), x, rows, cols);
}

/* build_norm with a weight: rms_norm (named "norm": llama.cpp pins it to the
 * block's device below 32 tokens or at full offload), then the weight in
 * place. in_block: a block's norm (il >= 0), not the head's. */
static int32_t norm(builder *b, int32_t x, uint64_t width, int in_block)
{
    int32_t n = ip(b, OP(RMS_NORM), x, NONE);
    if (in_block && b->sp->gpu && (b->sp->n_tokens < 32 || b->sp->full_offload))
        b->g->v[n].force = b->dev;
    return ip(b, OP(MUL), n, bweight(b, width));
}

static int32_t rope(builder *b, int32_t x)
{
    if (b->s->graph_flags & GGUF_GRAPH_NO_ROPE)
        return x;
    if (b->inp_pos == NONE)
        b->inp_pos = input(b, b->T * I32);
    return op3(b, OP(ROPE), b->g->v[x].bytes, 1u, x, b->inp_pos, NONE);
}

/* Gemma2's softcap of the attention logits and of the output's: scale,
 * tanh, scale, each in place. */
static int32_t softcap(builder *b, int32_t x)
{
    return ip(b, OP(OTHER), ip(b, OP(UNARY), ip(b, OP(OTHER), x, NONE), NONE), NONE);
}

/* --- attention ------------------------------------------------------------ */

static uint64_t row_bytes(uint64_t n, uint32_t block_elems, uint32_t block_bytes)
{
    return (n + block_elems - 1) / block_elems * block_bytes;
}

static cache_inputs *cache_of(builder *b)
{
    const gguf_shape *s = b->s;
    int swa = s->per_layer && b->il < s->n_block && s->layer_swa[b->il] && s->n_swa;
    return swa ? &b->swa : &b->full;
}

static int32_t mask_of(builder *b, cache_inputs *c)
{
    if (c->mask == NONE)
        c->mask = input(b, (uint64_t)c->n_kv * b->T * (b->sp->flash_attn ? 2 : F32));
    return c->mask;
}

/* cpy_k: the K rows stored into the cache (a view of them, then set_rows:
 * a view of the cache). */
static void store_k(builder *b, cache_inputs *c, int32_t k, int32_t kcache)
{
    int32_t kv = same_view(b, OP(VIEW), k);
    if (c->k_idxs == NONE)
        c->k_idxs = input(b, b->T * I64);
    over(b, OP(SET_ROWS), kv, c->k_idxs, kcache, kcache);
}

/* cpy_v: with flash attention rows like K; without, the cache is transposed
 * and indexed per element (v_idxs of T x n_embd_v_gqa): V and the cache
 * reshaped to single elements. */
static void store_v(builder *b, cache_inputs *c, int32_t v, int32_t vcache, uint64_t v_gqa)
{
    int fa = b->sp->flash_attn;
    int32_t vv = fa ? same_view(b, OP(VIEW), v) : reshape(b, reshape(b, v));
    int32_t dst = fa ? vcache : reshape(b, vcache);
    if (c->v_idxs == NONE)
        c->v_idxs = input(b, b->T * I64 * (fa ? 1 : v_gqa));
    over(b, OP(SET_ROWS), vv, c->v_idxs, dst, vcache);
}

/* MLA's V decompression: a weight [kv_lora_rank, hd_v, n_head] times the
 * attention's output, whose fourth dimension is the cache's streams; with
 * more than one stream ggml broadcasts the weight over them. */
static int32_t stream_mm(builder *b, int32_t d)
{
    b->g->v[d].bcast3 = b->sp->n_stream > 1;
    return d;
}

/* build_attn_mha: q [hd_k, n_head, T] against the cache's K and V (each
 * viewed, then permuted: visited Q, K, V for flash attention, V, K, Q
 * without, as kqv = V . soft_max(K . Q) is); the result [v_width x n_head,
 * T] f32 before the output projection. MLA (v_mla: its decompression,
 * kv_lora_rank -> head_dim_v_mla per head): V is a view of K's view
 * (v_span bytes), made contiguous without flash attention. */
static int32_t attend(builder *b, cache_inputs *c, int32_t q, int32_t kcache, int32_t vcache,
                      uint64_t hd_v, uint64_t v_mla, uint64_t v_span)
{
    const gguf_shape *s = b->s;
    uint64_t H = s->n_head, T = b->T, n_kv = c->n_kv;
    uint64_t out_w = v_mla ? v_mla : hd_v, q_bytes = b->g->v[q].bytes;
    uint64_t k_bytes = b->g->v[kcache].bytes;
    if (b->sp->flash_attn) {
        int32_t qp = view_permute(b, q, q_bytes);
        int32_t kv = view(b, OP(VIEW), kcache, k_bytes);
        int32_t kp = same_view(b, OP(PERMUTE), kv);
        int32_t vp = v_mla ? view_permute(b, kv, v_span) : view_permute(b, vcache, b->g->v[vcache].bytes);
        int32_t fa = op3(b, OP(FLASH_ATTN_EXT), hd_v * H * T * F32, 0, qp, kp, vp);
        b->g->v[fa].src[3] = mask_of(b, c);
        if (!v_mla)
            return reshape(b, fa);
        int32_t d = stream_mm(b, mm(b, hd_v * v_mla * H, same_view(b, OP(PERMUTE), fa), v_mla * H, T));
        d = same_view(b, OP(PERMUTE), d);
        return reshape(b, op(b, OP(OTHER), out_w * H * T * F32, d, NONE));
    }
    int32_t kv = NONE, vp;
    if (v_mla) { /* the V view is not transposed: ggml_cont(ggml_transpose(v)), every stream's */
        kv = view(b, OP(VIEW), kcache, k_bytes);
        vp = view_permute(b, kv, v_span);
        vp = op(b, OP(OTHER), n_kv * b->sp->n_stream * row_bytes(hd_v, b->sp->k_block_elems, b->sp->k_block_bytes),
                same_view(b, OP(TRANSPOSE), vp), NONE);
    } else {
        vp = view_permute(b, vcache, b->g->v[vcache].bytes);
        kv = view(b, OP(VIEW), kcache, k_bytes);
    }
    int32_t kp = same_view(b, OP(PERMUTE), kv);
    int32_t qp = view_permute(b, q, q_bytes);
    int32_t kq = op(b, OP(MUL_MAT), n_kv * T * H * F32, kp, qp);
    int32_t mask = mask_of(b, c);
    if (!strcmp(s->arch, "gemma2"))
        kq = softcap(b, kq);
    kq = op3(b, OP(SOFT_MAX), b->g->v[kq].bytes, 1u, kq, mask, NONE);
    int32_t kqv = op(b, OP(MUL_MAT), hd_v * T * H * F32, vp, kq);
    if (v_mla)
        kqv = stream_mm(b, mm(b, hd_v * v_mla * H, kqv, v_mla * H, T));
    return op(b, OP(OTHER), out_w * H * T * F32, same_view(b, OP(PERMUTE), kqv), NONE);
}

/* Qwen3's and Gemma3's per-head norm of Q and K before RoPE. */
static int32_t head_norm(builder *b, int32_t x)
{
    if (!(b->s->graph_flags & GGUF_GRAPH_QK_NORM))
        return x;
    return norm(b, x, b->s->head_dim_k, 0);
}

/* A Q, K or V projection of rows x T, and its bias added in place where the
 * blocks have one (build_qkv). */
static int32_t qkv_proj(builder *b, int32_t x, uint64_t rows)
{
    int32_t p = mm(b, b->s->n_embd * rows, x, rows, b->T);
    return b->s->graph_flags & GGUF_GRAPH_QKV_BIAS ? ip(b, OP(ADD), p, bweight(b, rows)) : p;
}

/* Gemma's blocks project Q (then scale it), K, then V; the others Q, V, K
 * (the order build_attn expands them). */
static int gemma(const gguf_shape *s)
{
    return !strcmp(s->arch, "gemma2") || !strcmp(s->arch, "gemma3");
}

/* K of ek rows: its projection (or its view of the fused one), per-head
 * norm, RoPE. */
static int32_t key(builder *b, int32_t x, int32_t qkv, uint64_t ek)
{
    int32_t k = qkv != NONE ? view(b, OP(VIEW), qkv, ek * b->T * F32) : reshape(b, qkv_proj(b, x, ek));
    return rope(b, head_norm(b, k));
}

static void lookahead(builder *b);
static void mamba2_lookahead(builder *b);

/* The cells a view of cache c spans: every stream's (the cache's views for
 * attention are 4-D, a stream per slot without a unified cache). */
static uint64_t view_cells(const builder *b, const cache_inputs *c)
{
    return (uint64_t)c->n_kv * b->sp->n_stream;
}

/* K (ek wide) and V (ev wide) stored into the block's cache, then
 * attention of q over the cache (attend). */
static int32_t cached_attend(builder *b, cache_inputs *c, int32_t q, int32_t k, int32_t v, uint64_t ek,
                             uint64_t ev, uint64_t hd_v)
{
    uint64_t es_k = row_bytes(ek, b->sp->k_block_elems, b->sp->k_block_bytes);
    uint64_t es_v = row_bytes(ev, b->sp->v_block_elems, b->sp->v_block_bytes);
    int32_t kcache = cache(b, es_k * view_cells(b, c)), vcache = cache(b, es_v * view_cells(b, c));
    store_k(b, c, k, kcache);
    store_v(b, c, v, vcache, ev);
    return attend(b, c, q, kcache, vcache, hd_v, 0, 0);
}

/* Self-attention of a standard block: Q, V, K projections (fused or apart),
 * per-head norms, RoPE, the stores, attention, the output projection. */
static int32_t attention(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    cache_inputs *c = cache_of(b);
    uint64_t E = s->n_embd, T = b->T, hd_k = s->head_dim_k, hd_v = s->head_dim_v;
    uint64_t H = s->n_head, KV = b->il < s->n_block && s->per_layer ? s->layer_head_kv[b->il]
                                                                      : s->n_head_kv;
    uint64_t eq = hd_k * H, ek = hd_k * KV, ev = hd_v * KV;
    int fused = (s->graph_flags & GGUF_GRAPH_FUSED_QKV) != 0;
    int32_t qkv = fused ? qkv_proj(b, x, eq + ek + ev) : NONE;
    int32_t q = fused ? view(b, OP(VIEW), qkv, eq * T * F32) : reshape(b, qkv_proj(b, x, eq));
    q = rope(b, head_norm(b, q));
    if (gemma(s))
        q = ip(b, OP(OTHER), q, NONE);
    int32_t k = gemma(s) ? key(b, x, qkv, ek) : NONE;
    int32_t v = fused ? view(b, OP(VIEW), qkv, ev * T * F32) : reshape(b, qkv_proj(b, x, ev));
    if (!gemma(s))
        k = key(b, x, qkv, ek);
    int32_t out = cached_attend(b, c, q, k, v, ek, ev, hd_v);
    lookahead(b);
    return mm(b, eq * E, out, E, T);
}

/* MLA with the absorption (deepseek2.cpp, is_mla): Q through q_lora_rank,
 * the compressed KV (kv_lora_rank + rope dims, one head) as K, its first
 * kv_lora_rank columns as V, decompressed after attention by wv_b. */
static int32_t attention_mla(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    cache_inputs *c = &b->full;
    uint64_t E = s->n_embd, T = b->T, H = s->n_head, lora = s->kv_lora_rank;
    uint64_t rope_d = s->n_rot, hd_k = s->head_dim_k_mla, nope = hd_k - rope_d;
    /* build_attn expands Q, then V (the normed compressed KV), then K, each
     * depth first, sources in order */
    int32_t q = s->q_lora_rank ? mm(b, E * s->q_lora_rank, x, s->q_lora_rank, T) : x;
    if (s->q_lora_rank)
        q = norm(b, q, s->q_lora_rank, 0);
    q = reshape(b, mm(b, (s->q_lora_rank ? s->q_lora_rank : E) * H * hd_k, q, H * hd_k, T));
    int32_t q_nope = view_permute(b, q, nope * H * T * F32);
    int32_t q_abs = same_view(b, OP(PERMUTE), mm(b, nope * lora * H, q_nope, lora * H, T));
    int32_t q_pe = rope(b, view(b, OP(VIEW), q, rope_d * H * T * F32));
    int32_t qcur = op(b, OP(OTHER), (lora + rope_d) * H * T * F32, q_abs, q_pe);
    int32_t kv = mm(b, E * (lora + rope_d), x, lora + rope_d, T);
    int32_t kv_c = reshape(b, norm(b, view(b, OP(VIEW), kv, lora * T * F32), lora, 0));
    int32_t k_pe = rope(b, view(b, OP(VIEW), kv, rope_d * T * F32));
    int32_t kcur = op(b, OP(OTHER), (lora + rope_d) * T * F32, kv_c, k_pe);
    uint64_t es_k = row_bytes(lora + rope_d, b->sp->k_block_elems, b->sp->k_block_bytes);
    uint64_t cells = view_cells(b, c);
    int32_t kcache = cache(b, es_k * cells);
    store_k(b, c, kcur, kcache);
    /* V: the first kv_lora_rank columns of every cached row; ggml_nbytes of
     * that strided view (what a copy of it takes) spans the rows of every
     * stream: all but the last row whole, and the last row's kv_lora_rank */
    uint64_t v_span = es_k * (cells - 1) + row_bytes(lora, b->sp->k_block_elems, b->sp->k_block_bytes);
    int32_t out = attend(b, c, qcur, kcache, NONE, lora, s->head_dim_v_mla, v_span);
    return mm(b, s->head_dim_v_mla * H * E, out, E, T);
}

/* deepseek2 from a file converted before attn_kv_b was split (no *_mla
 * lengths): no absorption. Q through q_lora_rank, RoPE'd whole (its tail
 * rotated); the compressed KV normed and decompressed by attn_kv_b into
 * K's no-RoPE part and V (made contiguous) per head; K the no-RoPE part and
 * the shared RoPE'd part repeated per head: multi-head attention over a
 * cache of hd_k and hd_v per head. build_attn expands Q, V, K. */
static int32_t attention_kv_b(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    cache_inputs *c = &b->full;
    uint64_t E = s->n_embd, T = b->T, H = s->n_head, lora = s->kv_lora_rank;
    uint64_t rope_d = s->n_rot, hd_k = s->head_dim_k, hd_v = s->head_dim_v, nope = hd_k - rope_d;
    int32_t q = s->q_lora_rank ? mm(b, E * s->q_lora_rank, x, s->q_lora_rank, T) : x;
    if (s->q_lora_rank)
        q = norm(b, q, s->q_lora_rank, 0);
    q = rope(b, reshape(b, mm(b, (s->q_lora_rank ? s->q_lora_rank : E) * H * hd_k, q, H * hd_k, T)));
    int32_t kv = mm(b, E * (lora + rope_d), x, lora + rope_d, T);
    int32_t kv_c = norm(b, view(b, OP(VIEW), kv, lora * T * F32), lora, 0);
    int32_t kv_b = mm(b, lora * H * (nope + hd_v), kv_c, H * (nope + hd_v), T);
    int32_t v = op(b, OP(OTHER), hd_v * H * T * F32, view(b, OP(VIEW), kv_b, b->g->v[kv_b].bytes), NONE);
    int32_t k_nope = view(b, OP(VIEW), kv_b, b->g->v[kv_b].bytes);
    int32_t k_pe = rope(b, view(b, OP(VIEW), kv, rope_d * T * F32));
    int32_t k = op(b, OP(OTHER), hd_k * H * T * F32, k_nope, op(b, OP(OTHER), rope_d * H * T * F32, k_pe, NONE));
    int32_t out = cached_attend(b, c, q, k, v, hd_k * H, hd_v * H, hd_v);
    return mm(b, hd_v * H * E, out, E, T);
}

/* --- feed-forward ------------------------------------------------------- */

/* Nemotron-H (dense and MoE): relu^2 feed-forwards, routed experts
 * without a gate, one mixer per block. */
static int nemotron(const gguf_shape *s)
{
    return !strncmp(s->arch, "nemotron_h", strlen("nemotron_h"));
}

/* build_ffn: gate and up (or up alone), the activation, down. */
static int32_t ffn(builder *b, int32_t x, uint64_t F)
{
    uint64_t E = b->s->n_embd, T = b->T;
    if (b->s->graph_flags & GGUF_GRAPH_FFN_NOGATE) {
        int32_t act = ip(b, OP(UNARY), mm(b, E * F, x, F, T), NONE);
        if (nemotron(b->s)) /* relu^2: relu, then sqr */
            act = ip(b, OP(SQR), act, NONE);
        return mm(b, F * E, act, E, T);
    }
    int32_t gate = mm(b, E * F, x, F, T);
    int32_t up = mm(b, E * F, x, F, T);
    return mm(b, F * E, op(b, OP(OTHER), F * T * F32, gate, up), E, T); /* the GLU */
}

/* An expert tensor of the current block: on the host for the first
 * n_cpu_moe blocks (-ncmoe), else where the block is. */
static int32_t expert_weight(builder *b, uint64_t rows)
{
    const gguf_shape *s = b->s;
    uint64_t bytes = s->max_expert_tensor_bytes
                         ? s->max_expert_tensor_bytes
                         : elems_bytes(b, (uint64_t)s->n_embd * s->n_ff_exp * s->n_expert);
    int8_t loc = b->il < b->sp->n_cpu_moe ? PLACEMENT_CBUF_HOST
                                          : mm_loc(b, bytes, rows * s->n_expert_used);
    return weight(b, bytes, loc);
}

static int delta_net(const gguf_shape *s);

static int32_t mm_id(builder *b, int32_t x, int32_t ids, uint64_t rows)
{
    uint64_t K = b->s->n_expert_used;
    return op3(b, OP(MUL_MAT_ID), rows * K * b->T * F32, 0, expert_weight(b, rows), x, ids);
}

/* build_moe_ffn: routing, the experts' gate/up/down, weighting, the sum.
 * nemotron_h_moe routes by sigmoid, selects by it plus exp_probs_b (a
 * tensor of its own: the weights read the unbiased), scales the normed
 * weights, and its experts have no gate (relu^2 in place over up). */
static int32_t moe(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    uint64_t E = s->n_embd, T = b->T, X = s->n_expert, K = s->n_expert_used, F = s->n_ff_exp;
    int nem = nemotron(s);
    /* the router at its size in the file (converters keep it f32) */
    int32_t logits = s->router_bytes ? mm_sized(b, s->router_bytes, x, X, T) : mm(b, E * X, x, X, T);
    int32_t probs = ip(b, nem ? OP(UNARY) : OP(SOFT_MAX), logits, NONE);
    int32_t probs3 = reshape(b, probs);
    int32_t select = nem ? op(b, OP(ADD), X * T * F32, probs, bweight(b, X)) : probs;
    int32_t topk = view(b, OP(VIEW), op(b, OP(ARGSORT), X * T * I32, select, NONE),
                        K * T * I32);
    int32_t w = op(b, OP(GET_ROWS), K * T * F32, probs3, topk);
    if (!strcmp(s->arch, "qwen3moe") || !strcmp(s->arch, "llama") || delta_net(s) || nem) {
        /* norm_w: the weights over their sum (sum_rows, clamp in place, div) */
        int32_t w2 = reshape(b, w);
        int32_t sum = op(b, OP(SUM_ROWS), T * F32, w2, NONE);
        int32_t clamped = over(b, OP(CLAMP), sum, NONE, NONE, sum);
        w = reshape(b, op(b, OP(DIV), K * T * F32, w2, clamped));
    }
    if (nem) /* expert_weights_scale */
        w = ip(b, OP(OTHER), w, NONE);
    int32_t x3 = reshape(b, x);
    int before = !strcmp(s->arch, "llama4"); /* llama4 weighs the input, repeated per expert */
    if (before)
        x3 = ip(b, OP(MUL), op(b, OP(OTHER), E * K * T * F32, x3, NONE), w);
    int32_t act;
    if (nem) {
        act = ip(b, OP(SQR), ip(b, OP(UNARY), mm_id(b, x3, topk, F), NONE), NONE);
    } else {
        int32_t gate = mm_id(b, x3, topk, F);
        int32_t up = mm_id(b, x3, topk, F);
        act = op(b, OP(OTHER), F * K * T * F32, gate, up);
    }
    int32_t down = mm_id(b, act, topk, E);
    int32_t weighted = before ? down : ip(b, OP(MUL), down, w);
    int32_t parts[64];
    size_t n = K < LVD_ARRAY_LEN(parts) ? (size_t)K : LVD_ARRAY_LEN(parts);
    for (size_t i = 0; i < n; i++)
        parts[i] = view(b, OP(VIEW), weighted, E * T * F32);
    int32_t out = n > 1 ? op(b, OP(ADD), E * T * F32, parts[0], parts[1])
                        : op(b, OP(OTHER), E * T * F32, parts[0], NONE);
    for (size_t i = 2; i < n; i++)
        out = ip(b, OP(ADD), out, parts[i]);
    mamba2_lookahead(b);
    return out;
}

/* The shared expert after the routed ones: qwen2moe gates it by
 * sigmoid(x . ffn_gate_inp_shexp) (silu(g) / g), the delta-net family by
 * a sigmoid itself; deepseek2 adds it as is. */
static int32_t shared_expert(builder *b, int32_t x, int32_t routed)
{
    const gguf_shape *s = b->s;
    int32_t sh = ffn(b, x, s->n_ff_shexp);
    if (s->graph_flags & GGUF_GRAPH_SHEXP_GATE) {
        /* a vector: f32 as converters keep it, unless the file says */
        int32_t g = mm_sized(b, s->shexp_gate_bytes ? s->shexp_gate_bytes : (uint64_t)s->n_embd * F32, x, 1, b->T);
        int32_t gate = ip(b, OP(UNARY), g, NONE);
        if (!delta_net(s))
            gate = ip(b, OP(DIV), gate, g);
        sh = ip(b, OP(MUL), sh, gate);
    }
    return ip(b, OP(ADD), routed, sh);
}

static int32_t feed_forward(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    if (!s->n_expert || b->il < s->n_dense_lead || (s->n_moe_step > 1 && (b->il + 1) % s->n_moe_step))
        return ffn(b, x, s->n_ff);
    int32_t out = moe(b, x);
    return s->n_ff_shexp ? shared_expert(b, x, out) : out;
}

/* --- a recurrent block ------------------------------------------------------ */

static void rs_extra(builder *b, uint64_t n, uint64_t S, int32_t c);

/* build_rs's rows: the recurrent cache of the current block (n elements per
 * sequence, f32), its zeroed state (scale_inplace: in the cache), the rows
 * of the ubatch's S sequences (get_rows by the s_copy input), then the other
 * slots' rows, copied back as they are. get_rows (the sequences' rows) is
 * expanded by the caller's op; the other slots' after it. direct: the
 * caller's op reads the rows from the cache by the ids itself (Mamba2's
 * ssm_scan: get_ssm_rows), no get_rows: the rows are the cache's view. */
static int32_t rs_rows(builder *b, uint64_t n, uint64_t S, int direct, int32_t *cache_out)
{
    if (b->rs_ids == NONE)
        b->rs_ids = input(b, b->sp->n_rs * I32);
    int32_t c = cache(b, n * b->sp->n_rs * F32);
    over(b, OP(OTHER), view(b, OP(VIEW), c, n * F32), NONE, NONE, c);
    *cache_out = c;
    if (direct)
        return c;
    int32_t rows = op(b, OP(GET_ROWS), n * S * F32, reshape(b, c), b->rs_ids);
    rs_extra(b, n, S, c);
    return rows;
}

/* The other slots' rows of cache c, got and copied back: nodes of no size
 * when the ubatch holds every slot, as in the reservation, yet in the graph
 * (they count in ggml-vulkan's reordering window). */
static void rs_extra(builder *b, uint64_t n, uint64_t S, int32_t c)
{
    uint64_t extra = b->sp->n_rs > S ? b->sp->n_rs - S : 0;
    int32_t others = op(b, OP(GET_ROWS), n * extra * F32, reshape(b, c), b->rs_ids);
    over(b, OP(OTHER), others, view(b, OP(VIEW), c, 0), NONE, c);
}

/* A Mamba2 block's convolution rows: [(d_conv - 1) x xBC, S] (build_rs). */
static int32_t mamba2_conv_rows(builder *b, int32_t *cache_out)
{
    const gguf_shape *s = b->s;
    uint64_t S = b->sp->n_rs < b->T ? b->sp->n_rs : b->T;
    uint64_t conv = s->ssm_d_conv ? s->ssm_d_conv : 4, ng = s->ssm_n_group ? s->ssm_n_group : 1;
    return rs_rows(b, (conv - 1) * (s->ssm_d_inner + 2 * ng * s->ssm_d_state), S, 0, cache_out);
}

/* A block whose build expands nodes into the graph itself (ggml_build_forward_expand):
 * a Mamba2 or attention mixer, routed experts; not a dense feed-forward. */
static int block_expands(const gguf_shape *s, uint32_t il)
{
    return s->layer_recr[il] || s->layer_head_kv[il] || s->n_expert;
}

static int8_t block_backend(const placement_cbuf_spec *sp, uint32_t il);

/* Nemotron-H's graph (one mixer per block): build_rs expands a Mamba2
 * block's convolution rows as it builds them, so they land right after the
 * last node an earlier block expanded itself, before that block's tail (its
 * output projection, a dense feed-forward, ...). Granite's hybrids, a
 * mixer and a feed-forward per block, hold them in place (measured). Called
 * at a block's last explicit expansion: the next Mamba2 block's rows, when
 * no block between expands anything. */
static void mamba2_lookahead(builder *b)
{
    const gguf_shape *s = b->s;
    if (!s->per_layer || !nemotron(s) || b->ahead_rows != NONE)
        return;
    for (uint32_t j = b->il + 1; j < s->n_block; j++) {
        if (s->layer_recr[j]) {
            int8_t dev = b->dev;
            b->dev = block_backend(b->sp, j);
            b->ahead_rows = mamba2_conv_rows(b, &b->ahead_cache);
            b->dev = dev;
            return;
        }
        if (block_expands(s, j))
            return;
    }
}

/* build_mamba2_layer (src/models/mamba-base.cpp), in the order b10587's
 * graph holds it: the convolution state's rows, one per sequence of the
 * ubatch (the reservation's ubatch holds a sequence per slot, with a
 * unified cache too), then the block's norm; the input projection
 * [2 d_inner + 2 groups x d_state + heads, T] split into z, xBC and dt;
 * xBC after the state (concat), the last columns stored back; the SSM
 * state's slot zeroed; the convolution, its bias and silu; dt made
 * contiguous plus its bias; the scan over the SSM state's rows (read from
 * the cache by their ids), y and the new states in one tensor, those
 * stored back; y + x D; y gated by z (swiglu_split over z made
 * contiguous); the grouped RMS norm; the output projection. */
static int32_t mamba2(builder *b, int32_t inp)
{
    const gguf_shape *s = b->s;
    uint64_t T = b->T, S = b->sp->n_rs < T ? b->sp->n_rs : T, E = s->n_embd;
    uint64_t conv = s->ssm_d_conv ? s->ssm_d_conv : 4, inner = s->ssm_d_inner, st = s->ssm_d_state;
    uint64_t ng = s->ssm_n_group ? s->ssm_n_group : 1, nh = s->ssm_dt_rank;
    uint64_t xbc = inner + 2 * ng * st, proj = 2 * inner + 2 * ng * st + nh;
    int32_t rcache = b->ahead_cache, scache;
    int32_t cstate = b->ahead_rows != NONE ? b->ahead_rows : mamba2_conv_rows(b, &rcache);
    b->ahead_rows = NONE;
    cstate = reshape(b, cstate);
    int32_t x = norm(b, inp, E, 1); /* expanded after build_rs's rows */
    int32_t zx = mm(b, E * proj, reshape(b, x), proj, T);
    int32_t xbcv = view(b, OP(VIEW), zx, xbc * T * F32);
    int32_t cx = op(b, OP(OTHER), (conv - 1 + T / S) * xbc * S * F32, cstate, same_view(b, OP(TRANSPOSE), xbcv));
    over(b, OP(OTHER), view(b, OP(VIEW), cx, (conv - 1) * xbc * S * F32), view(b, OP(VIEW), rcache, 0), NONE, rcache);
    /* the SSM state's build_rs zeroes its slot at once; the scan, expanded
     * later, visits the states' view, then x (the convolution, its bias,
     * silu), dt (made contiguous, its bias), B and C */
    int32_t states = rs_rows(b, st * inner, S, 1, &scache);
    states = reshape(b, states);
    int32_t xc = op(b, OP(SSM_CONV), xbc * T * F32, cx, weight(b, conv * xbc * F32, b->dev));
    xc = ip(b, OP(UNARY), ip(b, OP(ADD), xc, bweight(b, xbc)), NONE);
    int32_t xv = view(b, OP(VIEW), xc, inner * T * F32);
    int32_t dtv = view(b, OP(VIEW), zx, nh * T * F32);
    int32_t dt = ip(b, OP(ADD), op(b, OP(OTHER), nh * T * F32, dtv, NONE), bweight(b, nh));
    int32_t bc = view(b, OP(VIEW), xc, ng * st * T * F32); /* B and C, beside x */
    int32_t scan = op3(b, OP(OTHER), (inner * T + st * inner * S) * F32, 0, states, xv, dt);
    b->g->v[scan].src[3] = bc;
    rs_extra(b, st * inner, S, scache);
    over(b, OP(OTHER), view(b, OP(VIEW), scan, st * inner * S * F32), view(b, OP(VIEW), scache, 0), NONE, scache);
    mamba2_lookahead(b);
    /* swiglu_split(cont(z), y + x D), its sources in that order */
    int32_t zc = op(b, OP(OTHER), inner * T * F32, view(b, OP(VIEW), zx, inner * T * F32), NONE);
    int32_t y = view(b, OP(VIEW), scan, inner * T * F32);
    y = ip(b, OP(ADD), y, op(b, OP(MUL), inner * T * F32, xv, bweight(b, nh)));
    y = op(b, OP(OTHER), inner * T * F32, zc, y);
    y = reshape(b, norm(b, reshape(b, y), inner, 1));
    return reshape(b, mm(b, inner * E, y, E, T));
}

/* --- the gated delta-net family (qwen3next, qwen35, qwen35moe) ------------- */

static int delta_net(const gguf_shape *s)
{
    return !strcmp(s->arch, "qwen3next") || !strcmp(s->arch, "qwen35") || !strcmp(s->arch, "qwen35moe");
}

/* ggml_nbytes of a strided view: rows of width bytes, stride bytes apart. */
static uint64_t strided(uint64_t rows, uint64_t width, uint64_t stride)
{
    return rows ? (rows - 1) * stride + width : 0;
}

/* The decay gate and beta of a delta-net mixer, [v heads, T] each: alpha
 * plus the dt bias, softplus, times A; beta through a sigmoid (each in
 * place). qwen3next projects beta and alpha in one matmul and makes each
 * half contiguous; qwen35 projects them apart. The gate's chain is visited
 * first (the op's sources in order). */
static void dn_gate_beta(builder *b, int32_t x, int32_t *gate, int32_t *beta)
{
    uint64_t E = b->s->n_embd, T = b->T, Hv = b->s->ssm_dt_rank;
    int fused = !strcmp(b->s->arch, "qwen3next");
    int32_t ba = fused ? reshape(b, mm(b, E * 2 * Hv, x, 2 * Hv, T)) : NONE;
    uint64_t half = strided(T * b->s->ssm_n_group, Hv / b->s->ssm_n_group * F32, 2 * Hv / b->s->ssm_n_group * F32);
    int32_t a = fused ? op(b, OP(OTHER), Hv * T * F32, view(b, OP(VIEW), ba, half), NONE)
                      : reshape(b, mm(b, E * Hv, x, Hv, T));
    a = ip(b, OP(UNARY), ip(b, OP(ADD), a, bweight(b, Hv)), NONE);
    *gate = reshape(b, ip(b, OP(MUL), a, bweight(b, Hv)));
    int32_t bt = fused ? op(b, OP(OTHER), Hv * T * F32, view(b, OP(VIEW), ba, half), NONE)
                       : reshape(b, mm(b, E * Hv, x, Hv, T));
    *beta = ip(b, OP(UNARY), bt, NONE);
    if (fused)
        *beta = reshape(b, *beta);
}

/* Q or K of a delta-net mixer: its columns of the convolution's output,
 * l2-normed; qwen3next repeats the key heads up to the value heads (the
 * qwen35 blocks let the fused op broadcast them). */
static int32_t dn_qk(builder *b, int32_t xc, uint64_t ch)
{
    const gguf_shape *s = b->s;
    uint64_t T = b->T, S = s->ssm_d_state, Hk = s->ssm_n_group, Hv = s->ssm_dt_rank;
    int32_t v = view(b, OP(VIEW), xc, strided(T, S * Hk * F32, ch * F32));
    int32_t n = op(b, OP(OTHER), S * Hk * T * F32, v, NONE);
    if (Hk == Hv || strcmp(s->arch, "qwen3next"))
        return n;
    return reshape(b, op(b, OP(OTHER), S * Hv * T * F32, reshape(b, n), NONE));
}

/* build_layer_attn_linear with the fused GATED_DELTA_NET op, which b10587's
 * CPU backend takes for one token and for many: the convolution state's
 * rows, the QKV projection after them (concat), the last columns stored
 * back; the SSM state's rows; the convolution and silu; Q and K l2-normed,
 * V a view; the gate and beta; the op over the six, its output and the new
 * state in one tensor (the state stored back); the output RMS-normed and
 * gated by silu(z), z projected only then (the depth-first visit reaches it
 * through the gating); the output projection. */
static int32_t delta_net_mixer(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    uint64_t T = b->T, N = b->sp->n_rs < T ? b->sp->n_rs : T, E = s->n_embd;
    uint64_t conv = s->ssm_d_conv ? s->ssm_d_conv : 4, S = s->ssm_d_state, Hv = s->ssm_dt_rank;
    uint64_t inner = s->ssm_d_inner, ch = inner + 2 * s->ssm_n_group * S, dv = inner / Hv;
    int32_t rcache, scache;
    int32_t cstate = reshape(b, rs_rows(b, (conv - 1) * ch, N, 0, &rcache));
    int32_t qkv = reshape(b, mm(b, E * ch, x, ch, T));
    int32_t cx = op(b, OP(OTHER), (conv - 1 + T / N) * ch * N * F32, cstate, same_view(b, OP(TRANSPOSE), qkv));
    over(b, OP(OTHER), view(b, OP(VIEW), cx, (conv - 1) * ch * N * F32), view(b, OP(VIEW), rcache, 0), NONE, rcache);
    int32_t state = reshape(b, rs_rows(b, S * inner, N, 0, &scache));
    int32_t xc = op(b, OP(SSM_CONV), ch * T * F32, cx, weight(b, conv * ch * F32, b->dev));
    xc = ip(b, OP(UNARY), xc, NONE);
    int32_t q = dn_qk(b, xc, ch), k = dn_qk(b, xc, ch);
    int32_t v = view(b, OP(VIEW), xc, strided(T, inner * F32, ch * F32));
    int32_t gate, beta;
    dn_gate_beta(b, x, &gate, &beta);
    int32_t gdn = op3(b, OP(OTHER), (dv * Hv * T + dv * dv * Hv * N) * F32, 0, q, k, v);
    b->g->v[gdn].src[3] = gate;
    b->g->v[gdn].src[4] = beta;
    b->g->v[gdn].src[5] = state;
    over(b, OP(OTHER), view(b, OP(VIEW), gdn, dv * dv * Hv * N * F32), view(b, OP(VIEW), scache, 0), NONE, scache);
    int32_t y = norm(b, view(b, OP(VIEW), gdn, dv * Hv * T * F32), dv, 1);
    int32_t z = ip(b, OP(UNARY), reshape(b, mm(b, E * inner, x, inner, T)), NONE);
    y = reshape(b, ip(b, OP(MUL), y, z));
    return reshape(b, mm(b, inner * E, y, E, T));
}

/* build_layer_attn of the family: one projection for Q and its gate
 * (interleaved per head), Q's half RMS-normed out of place (a strided
 * view), RoPE; V, then K normed and roped; the stores and attention; the
 * gate's half made contiguous, a sigmoid, times the attention; the output
 * projection. */
static int32_t gated_attention(builder *b, int32_t x)
{
    const gguf_shape *s = b->s;
    cache_inputs *c = cache_of(b);
    uint64_t E = s->n_embd, T = b->T, hd = s->head_dim_k, H = s->n_head, KV = s->layer_head_kv[b->il];
    uint64_t eq = hd * H, ekv = hd * KV, half = strided(H * T, hd * F32, 2 * hd * F32);
    int32_t qg = mm(b, E * 2 * eq, x, 2 * eq, T);
    if (!strcmp(s->arch, "qwen3next"))
        qg = reshape(b, qg);
    int32_t q = op(b, OP(RMS_NORM), eq * T * F32, view(b, OP(VIEW), qg, half), NONE);
    q = rope(b, ip(b, OP(MUL), q, bweight(b, hd)));
    int32_t v = reshape(b, mm(b, E * ekv, x, ekv, T));
    int32_t k = rope(b, norm(b, reshape(b, mm(b, E * ekv, x, ekv, T)), hd, 0));
    int32_t out = cached_attend(b, c, q, k, v, ekv, ekv, hd);
    int32_t gate = op(b, OP(OTHER), eq * T * F32, view(b, OP(VIEW), qg, half), NONE);
    out = ip(b, OP(MUL), out, ip(b, OP(UNARY), gate, NONE));
    return mm(b, eq * E, out, E, T);
}

/* The family's block: the mixer or gated attention, the residual, the
 * post-attention norm, the feed-forward, the residual; the rows are cut to
 * the outputs only after the output norm (build_head_rows). */
static int32_t delta_net_block(builder *b, int32_t inp)
{
    const gguf_shape *s = b->s;
    uint64_t E = s->n_embd;
    int32_t x = norm(b, inp, E, 1);
    int32_t cur = s->layer_recr[b->il] ? delta_net_mixer(b, x) : gated_attention(b, x);
    int32_t res = ip(b, OP(ADD), cur, inp);
    b->g->v[res].inplace = 3u;
    cur = feed_forward(b, norm(b, res, E, 1));
    int32_t out = ip(b, OP(ADD), cur, res);
    b->g->v[out].inplace = 3u;
    return out;
}

/* The rows of x kept for the outputs (get_rows by inp_out_ids). */
static int32_t out_rows(builder *b, int32_t x)
{
    if (b->out_ids == NONE)
        b->out_ids = input(b, (uint64_t)b->sp->n_outputs * I32);
    return op3(b, OP(GET_ROWS), (uint64_t)b->s->n_embd * b->sp->n_outputs * F32, 0, x,
               b->out_ids, NONE);
}

/* The last block, once its residual and mixer output are cut to the output
 * rows: what follows (the feed-forward, the head's norm) runs on those rows. */
static void cut_to_outputs(builder *b)
{
    b->T = b->sp->n_outputs;
    b->cut = 1;
}

/* --- lfm2's short convolutions ---------------------------------------------- */

/* lfm2 expands a short-convolution block's state rows (build_rs) when it
 * builds the block, before the block's norm pulls in the tail of the block
 * before it (its output projection, residual and feed-forward): the rows
 * come right after the previous block's last explicit expansion (its
 * attention's result, or its state store). */
static void shortconv_rows(builder *b)
{
    uint64_t N = b->sp->n_rs < b->T ? b->sp->n_rs : b->T;
    b->ahead_rows = rs_rows(b, (uint64_t)(b->s->ssm_d_conv - 1) * b->s->n_embd, N, 0, &b->ahead_cache);
}

static void lookahead(builder *b)
{
    const gguf_shape *s = b->s;
    if (!strcmp(s->arch, "lfm2") && b->il + 1 < s->n_block && s->layer_recr[b->il + 1])
        shortconv_rows(b);
    mamba2_lookahead(b);
}

/* build_shortconv_block up to its last explicit expansion: the input
 * projection [3 E, T] (B, C, x), B x (two strided views: a new tensor),
 * transposed after the state's rows (concat), the last columns stored
 * back. Returns the concat; *bcx the projection (C is read in the tail). */
static int32_t shortconv_head(builder *b, int32_t x, int32_t rows, int32_t rcache, int32_t *bcx)
{
    const gguf_shape *s = b->s;
    uint64_t T = b->T, N = b->sp->n_rs < T ? b->sp->n_rs : T, E = s->n_embd, d = s->ssm_d_conv - 1;
    uint64_t third = strided(T, E * F32, 3 * E * F32);
    *bcx = mm(b, E * 3 * E, reshape(b, x), 3 * E, T);
    int32_t bx = op(b, OP(MUL), E * T * F32, view(b, OP(VIEW), *bcx, third), view(b, OP(VIEW), *bcx, third));
    int32_t cx = op(b, OP(OTHER), (d + T / N) * E * N * F32, reshape(b, rows), same_view(b, OP(TRANSPOSE), bx));
    over(b, OP(OTHER), view(b, OP(VIEW), cx, strided(E * N, d * F32, (d + T / N) * F32)), view(b, OP(VIEW), rcache, 0),
         NONE, rcache);
    lookahead(b);
    return cx;
}

/* Its tail, visited when the next block reads the residual: the
 * convolution, C times it (in place over the convolution's output), the
 * output projection. */
static int32_t shortconv_tail(builder *b, int32_t cx, int32_t bcx)
{
    uint64_t E = b->s->n_embd, T = b->T;
    int32_t co = op(b, OP(SSM_CONV), E * T * F32, cx, weight(b, (uint64_t)b->s->ssm_d_conv * E * F32, b->dev));
    int32_t y = op3(b, OP(MUL), E * T * F32, 2u, view(b, OP(VIEW), bcx, strided(T, E * F32, 3 * E * F32)), co, NONE);
    return reshape(b, mm(b, E * E, y, E, T));
}

/* lfm2's block: the norm, a short convolution or attention (Q, V, K,
 * each normed per head), the residual added to the mixer's output (the
 * last block's rows cut to the outputs, the residual's first), the norm,
 * the feed-forward, the residual. */
static int32_t lfm2_block(builder *b, int32_t inp)
{
    const gguf_shape *s = b->s;
    uint64_t E = s->n_embd;
    int last = b->il + 1 == s->n_block, recr = s->layer_recr[b->il];
    if (recr && b->ahead_rows == NONE) /* the first block: nothing before to follow */
        shortconv_rows(b);
    int32_t rows = b->ahead_rows, rcache = b->ahead_cache, bcx = NONE;
    b->ahead_rows = NONE;
    int32_t x = norm(b, inp, E, 1);
    int32_t cur = recr ? shortconv_head(b, x, rows, rcache, &bcx) : attention(b, x);
    if (last)
        inp = out_rows(b, inp);
    if (recr)
        cur = shortconv_tail(b, cur, bcx);
    if (last) {
        cur = out_rows(b, cur);
        cut_to_outputs(b);
    }
    int32_t res = ip(b, OP(ADD), inp, cur);
    b->g->v[res].inplace = 3u;
    int32_t out = ip(b, OP(ADD), res, ffn(b, norm(b, res, E, 1), s->n_ff));
    b->g->v[out].inplace = 3u;
    return out;
}

/* --- the graph ---------------------------------------------------------- */

/* nemotron_h's block: one of a Mamba2 mixer, attention or a feed-forward
 * (the blocks with neither KV heads nor a state), then the residual. */
static int32_t single_block(builder *b, int32_t inp)
{
    const gguf_shape *s = b->s;
    int recr = s->layer_recr[b->il];
    int32_t x = recr ? NONE : norm(b, inp, s->n_embd, 1); /* a Mamba2 block norms after its rows */
    int32_t cur = recr                      ? mamba2(b, inp)
                  : s->layer_head_kv[b->il] ? attention(b, x)
                  : s->n_expert             ? feed_forward(b, x)
                                            : ffn(b, x, s->n_ff);
    if (b->il + 1 == s->n_block) {
        cur = out_rows(b, cur);
        inp = out_rows(b, inp);
        cut_to_outputs(b);
    }
    int32_t out = ip(b, OP(ADD), cur, inp);
    b->g->v[out].inplace = 3u;
    return out;
}

static int32_t block(builder *b, int32_t inp)
{
    const gguf_shape *s = b->s;
    uint64_t E = s->n_embd;
    if (nemotron(s) && s->per_layer)
        return single_block(b, inp);
    if (delta_net(s))
        return delta_net_block(b, inp);
    if (!strcmp(s->arch, "lfm2"))
        return lfm2_block(b, inp);
    int recr = s->per_layer && s->layer_recr[b->il];
    int32_t x = recr ? NONE : norm(b, inp, E, 1); /* a Mamba2 block norms after its rows */
    int32_t cur = recr                                     ? mamba2(b, inp)
                  : b->mla                                 ? attention_mla(b, x)
                  : !strcmp(s->arch, "deepseek2")          ? attention_kv_b(b, x)
                                                           : attention(b, x);
    int last = b->il + 1 == s->n_block; /* its rows cut to the outputs: the attention's, then
                                           (after Gemma's post-norm) the residual's */
    if (last)
        cur = out_rows(b, cur);
    if (gemma(s))
        cur = norm(b, cur, E, 1);
    if (last) {
        inp = out_rows(b, inp);
        cut_to_outputs(b);
    }
    int32_t ffn_inp = ip(b, OP(ADD), cur, inp);
    b->g->v[ffn_inp].inplace = 3u;
    cur = feed_forward(b, norm(b, ffn_inp, E, 1));
    if (gemma(s))
        cur = norm(b, cur, E, 0);
    int32_t out = ip(b, OP(ADD), cur, ffn_inp);
    b->g->v[out].inplace = 3u;
    return out;
}

static int8_t block_backend(const placement_cbuf_spec *sp, uint32_t il)
{
    return sp->gpu && il >= sp->dev_from ? PLACEMENT_CBUF_DEV : PLACEMENT_CBUF_HOST;
}

int placement_cbuf_build(const placement_cbuf_spec *sp, placement_cbuf_graph *g)
{
    const gguf_shape *s = sp->shape;
    int mla = has_mla(s);
    if (!placement_cbuf_arch_known(placement_cbuf_rule(s)) || (!strcmp(s->arch, "deepseek2") && !s->kv_lora_rank))
        return -1;
    /* the delta-net family's mixer as followed: attn_qkv and attn_gate (not
     * the older files' one ssm_in), widths that divide */
    if (delta_net(s) && (!(s->graph_flags & GGUF_GRAPH_FUSED_QKV) || !s->ssm_dt_rank || !s->ssm_n_group ||
                         !s->ssm_d_state || s->ssm_d_inner % s->ssm_dt_rank || s->ssm_dt_rank % s->ssm_n_group))
        return -1;
    if (!strcmp(s->arch, "lfm2") && (s->ssm_d_conv < 2 || !s->per_layer))
        return -1;
    builder b = {.sp = sp, .s = s, .g = g, .T = sp->n_tokens, .inp_pos = NONE, .out_ids = NONE, .rs_ids = NONE,
                 .dev = PLACEMENT_CBUF_HOST, .ahead_rows = NONE, .ahead_cache = NONE};
    b.mla = mla;
    b.full = (cache_inputs){NONE, NONE, NONE, sp->kv_cells};
    b.swa = (cache_inputs){NONE, NONE, NONE, sp->swa_cells};
    uint64_t E = s->n_embd, T = b.T;
    int32_t tokens = input(&b, T * I32);
    int32_t x = op3(&b, OP(GET_ROWS), E * T * F32, 0,
                    weight(&b, s->embd_bytes, PLACEMENT_CBUF_HOST), tokens, NONE);
    input(&b, E * T * F32); /* inp_embd: the embeddings input, unused here, never freed */
    if (gemma(s))
        x = ip(&b, OP(OTHER), x, NONE); /* the embeddings scaled by sqrt(n_embd) */
    /* the delta-net family's NextN blocks are not run by the main graph */
    uint32_t n_run = delta_net(s) ? s->n_block - s->n_nextn : s->n_block;
    for (b.il = 0; b.il < n_run; b.il++) {
        b.dev = block_backend(sp, b.il);
        x = block(&b, x);
    }
    b.dev = sp->gpu && sp->output_on_dev ? PLACEMENT_CBUF_DEV : PLACEMENT_CBUF_HOST;
    x = norm(&b, x, E, 0);
    g->v[x].output = 1; /* t_embd; the delta-net family's t_h_nextn, then its rows */
    if (delta_net(s)) {
        x = out_rows(&b, x);
        g->v[x].output = 1;
    }
    int32_t logits = op(&b, OP(MUL_MAT), (uint64_t)s->n_vocab * sp->n_outputs * F32,
                        weight(&b, s->output_bytes, mm_loc(&b, s->output_bytes, s->n_vocab)), x);
    g->v[logits].out_rows = 1;
    if (!strcmp(s->arch, "gemma2"))
        logits = softcap(&b, logits);
    g->v[logits].output = 1;
    return 0;
}

void placement_cbuf_graph_free(placement_cbuf_graph *g)
{
    free(g->v);
    memset(g, 0, sizeof *g);
}
