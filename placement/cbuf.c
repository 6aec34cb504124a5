/* cbuf.c: see cbuf.h. Resolves the request into the graph's parameters as
 * llama_context does (the ubatch cut to the context asked for, as n_batch
 * is, the cache of that context padded to 256 cells, a sliding-window cache
 * of min(context, window + ubatch) cells), then
 * takes the larger of the prompt graph (ubatch tokens, as many outputs) and
 * the one-token graph per backend, as sched_reserve's reservations do. */
#include "placement/cbuf.h"

#include "placement/cbuf_internal.h"
#include "placement/placement.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static uint32_t pad256(uint64_t n)
{
    uint64_t p = (n + 255) / 256 * 256;
    return p > UINT32_MAX ? UINT32_MAX / 256 * 256 : (uint32_t)p;
}

/* Mesa's lavapipe (llvmpipe) reports maxStorageBufferRange 2^27 (Mesa
 * 22.3): alloc-llama's 32000 x 1040-token logits (127 MiB) stay on Vulkan0,
 * its 32000 x 1056 ones (129 MiB) go to Vulkan_Host. */
#define CBUF_LAVAPIPE_MAX_TENSOR (1ull << 27)
/* ggml-vulkan's suballocation_block_size: its buffer types' get_max_size. */
#define CBUF_VULKAN_MAX_BUFFER (1ull << 30)

placement_cbuf_dev placement_cbuf_dev_of(const char *backend, const char *name)
{
    placement_cbuf_dev d = {0, 0, 0, 0};
    if (!backend || strcmp(backend, "vulkan"))
        return d;
    d.max_buffer = CBUF_VULKAN_MAX_BUFFER;
    d.reorders = 1;
    d.mm_same_dim3 = 1;
    if (name && strstr(name, "llvmpipe"))
        d.max_tensor = CBUF_LAVAPIPE_MAX_TENSOR;
    return d;
}

int placement_cbuf_dev_takes_weight(uint64_t max_tensor, uint64_t w_bytes, uint64_t rows)
{
    return !max_tensor || (w_bytes <= max_tensor && rows * 512 * 4 <= max_tensor);
}

/* The width the shape lacks for the graph, or NULL when it has them all. */
static const char *missing(const gguf_shape *s)
{
    if (!s->graph)
        return "the shape was read back from the store without its graph widths";
    if (!placement_cbuf_arch_known(s->arch))
        return "its graph is not one the estimator follows";
    static const struct {
        size_t off;
        const char *what;
    } need[] = {
        {offsetof(gguf_shape, n_vocab), "vocabulary"},
        {offsetof(gguf_shape, n_embd), "embedding width"},
        {offsetof(gguf_shape, n_head), "head count"},
        {offsetof(gguf_shape, head_dim_k), "head width"},
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (*(const uint32_t *)((const char *)s + need[i].off) == 0)
            return need[i].what;
    if (!s->n_expert && !s->n_ff)
        return "feed-forward width";
    if (s->n_expert && (!s->n_ff_exp || !s->n_expert_used))
        return "expert width or experts used";
    return NULL;
}

/* The cache streams: one per slot without a unified cache, else one. */
static uint32_t streams_of(const placement_cbuf_in *in)
{
    return in->n_seq > 1 && !in->kv_unified ? in->n_seq : 1;
}

/* The graph's parameters for tokens T (the prompt graph or the one-token one). */
static int spec_of(const placement_cbuf_in *in, uint32_t T, placement_cbuf_spec *sp)
{
    const gguf_shape *s = in->shape;
    memset(sp, 0, sizeof *sp);
    sp->shape = s;
    sp->n_tokens = sp->n_outputs = T;
    if (in->n_outputs > 0 && in->n_outputs < T) /* min(n_tokens, n_outputs_max) */
        sp->n_outputs = in->n_outputs;
    /* a stream's cells: each attention runs over its own stream's (the
     * streams' scores and masks add up to one stream of these cells) */
    uint32_t streams = streams_of(in);
    sp->kv_cells = pad256(in->ctx / streams);
    sp->n_stream = streams;
    sp->n_rs = in->n_seq > 1 ? in->n_seq : 1;
    uint64_t window = (uint64_t)s->n_swa * (in->kv_unified && in->n_seq > 1 ? in->n_seq : 1);
    uint64_t swa = window + (in->ubatch ? in->ubatch : PLACEMENT_UBATCH_DEFAULT);
    sp->swa_cells = pad256(swa < sp->kv_cells ? swa : sp->kv_cells);
    sp->flash_attn = in->flash_attn;
    if (placement_cache_type_size(in->type_k, &sp->k_block_elems, &sp->k_block_bytes, NULL) ||
        placement_cache_type_size(in->type_v, &sp->v_block_elems, &sp->v_block_bytes, NULL))
        return -1;
    sp->gpu = in->gpu;
    /* llama_model's layer devices: of the n_block + 1 layers (the output
     * head last) the last -ngl are on the device: -ngl N puts the head and
     * the last N - 1 blocks there */
    uint32_t ngl = in->n_gpu_layers < 0 ? s->n_block + 1 : (uint32_t)in->n_gpu_layers;
    if (ngl > s->n_block + 1)
        ngl = s->n_block + 1;
    sp->dev_from = s->n_block + 1 - (ngl ? ngl : 1);
    sp->output_on_dev = ngl > 0;
    sp->full_offload = ngl > s->n_block;
    sp->n_cpu_moe = in->n_cpu_moe > 0 ? (uint32_t)in->n_cpu_moe : 0;
    sp->dev = in->dev;
    return 0;
}

/* Each backend's buffer for the graph of T tokens; -1 when the graph
 * cannot be built. */
static int buffers_of(const placement_cbuf_in *in, uint32_t T, placement_cbuf_buffer out[2])
{
    placement_cbuf_spec sp;
    placement_cbuf_graph g = {0};
    if (spec_of(in, T, &sp) != 0 || placement_cbuf_build(&sp, &g) != 0) {
        placement_cbuf_graph_free(&g);
        return -1;
    }
    placement_cbuf_schedule(&sp, &g, out);
    placement_cbuf_graph_free(&g);
    return 0;
}

/* 1 when some chunk of a is larger than the same chunk of b. */
static int outgrows(const placement_cbuf_buffer *a, const placement_cbuf_buffer *b)
{
    for (size_t k = 0; k < a->n; k++)
        if (a->chunk[k] > (k < b->n ? b->chunk[k] : 0))
            return 1;
    return 0;
}

static uint64_t size_of(const placement_cbuf_buffer *b)
{
    uint64_t sum = 0;
    for (size_t k = 0; k < b->n; k++)
        sum += b->chunk[k];
    return sum;
}

/* The buffer sched_reserve leaves after reserving the prompt graph, the
 * one-token graph, then the prompt graph again: ggml_gallocr_reserve_n
 * reallocates when a graph outgrows the buffer in any chunk, and then to
 * that graph's chunks. */
static uint64_t reserved(const placement_cbuf_buffer *pp, const placement_cbuf_buffer *tg)
{
    if (!outgrows(tg, pp) || outgrows(pp, tg))
        return size_of(pp);
    return size_of(tg);
}

void placement_cbuf_predict(const placement_cbuf_in *in, placement_cbuf *out)
{
    memset(out, 0, sizeof *out);
    const gguf_shape *s = in->shape;
    const char *why = !s || !s->known ? "the shape is unknown" : missing(s);
    uint32_t ctx = pad256(in->ctx ? in->ctx : 1);
    uint32_t ub = in->ubatch ? in->ubatch : PLACEMENT_UBATCH_DEFAULT;
    if (ub > (in->ctx ? in->ctx : 1)) /* n_ubatch <= n_batch <= the context asked for */
        ub = in->ctx ? in->ctx : 1;
    placement_cbuf_in r = *in;
    r.ubatch = ub;
    placement_cbuf_buffer pp[2], tg[2];
    if (!why && (buffers_of(&r, ub, pp) != 0 || buffers_of(&r, streams_of(in), tg) != 0))
        why = "an unknown KV cache type";
    if (why) {
        snprintf(out->why, sizeof out->why, "%s: %s", s && s->arch[0] ? s->arch : "model", why);
        return;
    }
    out->predicted = 1;
    out->device_bytes = in->gpu ? reserved(&pp[0], &tg[0]) : 0;
    out->host_bytes = reserved(&pp[1], &tg[1]);
    int n = snprintf(out->why, sizeof out->why, "%s graph at ubatch %u, context %u, flash attention %s, %u output%s",
                     s->arch, ub, ctx, in->flash_attn ? "on" : "off",
                     in->n_outputs && in->n_outputs < ub ? in->n_outputs : ub,
                     in->n_outputs == 1 ? "" : "s");
    if (in->gpu && in->dev.max_tensor && n > 0 && (size_t)n < sizeof out->why)
        snprintf(out->why + n, sizeof out->why - (size_t)n, ", ops on tensors over %llu MiB on the host",
                 (unsigned long long)(in->dev.max_tensor >> 20));
}
