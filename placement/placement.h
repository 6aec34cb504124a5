/* placement.h: how much of a model to put on one device, from the model's
 * GGUF shape and the device's free memory (docs/placement.md). A ladder of rungs, the
 * first that fits wins: fully resident; fully resident at a smaller ubatch;
 * all layers with the MoE experts of the first N blocks on the host
 * (--n-cpu-moe N); the most layers that fit (-ngl N: llama.cpp offloads
 * the output head first, then the last N - 1 blocks); no block at all.
 * Within the last three rungs each candidate is tried at the configured
 * ubatch and then at 256 and 128 before the next block or expert set moves
 * to the host: ubatch costs prompt speed only, a block on the host costs
 * decode speed too, so the cheap currency is spent first (docs/placement.md's order,
 * applied to every rung; it also avoids a cliff where a model that fits whole
 * at ubatch 128 would get no layer at all one MiB lower).
 * Pure arithmetic: no I/O, no process, no store. Not for choosing the engine
 * or device (heuristic.h) nor for writing the command line (launch.h). */
#ifndef LVD_PLACEMENT_PLACEMENT_H
#define LVD_PLACEMENT_PLACEMENT_H

#include "common/gguf.h"
#include "common/types.h"
#include "common/util.h"
#include "placement/cbuf.h"

#include <stdint.h>

/* Headroom the operator leaves free on the device, MiB. */
#define PLACEMENT_RESERVE_MIB_DEFAULT 512
/* Compute (graph/activation) buffers at the reference ubatch, MiB: measured
 * for one gemma-4 E4B MTP context at a 512-token ubatch (README.md,
 * **Placement**); scaled linearly. The conservative fallback: the compute
 * buffer is predicted from the model's shape (cbuf.h) wherever the shape
 * says enough, and this constant is used only where it does not. */
#define PLACEMENT_COMPUTE_MIB_AT_REF 1222
#define PLACEMENT_COMPUTE_REF_UBATCH 512
/* The context placed when none is asked for (lvd select's default, and the
 * placement lvd fit measures ceilings at): min(this, the trained context). */
#define PLACEMENT_CTX_DEFAULT 4096
/* llama.cpp's default -ub. */
#define PLACEMENT_UBATCH_DEFAULT 512

typedef enum placement_rung {
    PLACEMENT_RUNG_FULL = 0,          /* every block, output head and KV on the device */
    PLACEMENT_RUNG_REDUCED_UBATCH,    /* the same at ubatch 256 or 128 */
    PLACEMENT_RUNG_EXPERTS_ON_HOST,   /* every layer on the device, experts of N blocks on the host */
    PLACEMENT_RUNG_PARTIAL,           /* -ngl N: the output head and N - 1 blocks (and their KV)
                                       * on the device */
    PLACEMENT_RUNG_CPU_ONLY,          /* -ngl 0: not even the output head fits, the headroom
                                 * does (llama.cpp still uses the device for compute
                                 * buffers) */
    PLACEMENT_RUNG_NOTHING_FITS,      /* free < the headroom at the smallest ubatch: -ngl 0,
                                 * and the caller should prefer a CPU engine */
} placement_rung;

/* llama-server's slots when its line gives no -np (b9749 and b10587: -np
 * auto, 4 slots over one unified KV cache). */
#define PLACEMENT_SERVER_SLOTS_DEFAULT 4

/* llama.cpp's own figures for the model at one setting (context, ubatch,
 * flash attention, cache types, every layer offloaded): a dry run of its
 * real graph that allocates nothing (llama-fit-params --fit-print on), in
 * MiB as it prints them (floored), for the device it placed the model on
 * and for the host. Its compute figure assumes a full ubatch of outputs
 * (llama-perplexity's, above llama-server's one per slot). */
typedef struct placement_engine_mem {
    int known;                 /* 1: the fields below were printed */
    int has_device;            /* 1: a device row (0: the build listed none, host only) */
    int64_t dev_model_mib, dev_context_mib, dev_compute_mib;
    int64_t host_model_mib, host_context_mib, host_compute_mib;
    int ubatch;                /* the dry run's -ub */
    char from[96];             /* who printed them: "llama-fit-params of b10587" */
} placement_engine_mem;

/* Where a predicted figure came from (placement_source_name). */
typedef enum placement_source {
    PLACEMENT_FROM_SHAPE,      /* the GGUF's tensor sizes and KV widths */
    PLACEMENT_FROM_ENGINE,     /* llama.cpp's own dry run (placement_engine_mem) */
    PLACEMENT_FROM_GRAPH,      /* the estimator's replay of the graph llama.cpp builds */
    PLACEMENT_FROM_BOUND,      /* not predicted: a generic upper bound */
    PLACEMENT_FROM_CONSTANT,   /* not predicted: the seed's constant */
} placement_source;

/* "llama-fit-params", "gguf-shape", "estimator-graph", "bound", "constant". */
const char *placement_source_name(placement_source src);

/* What placement needs to know. Fill with placement_place_in_init, then set
 * shape, free_mib and whatever differs from the defaults. */
typedef struct placement_place_in {
    const gguf_shape *shape;
    uint32_t ctx;               /* context tokens; 0 = shape->n_ctx_train (llama.cpp's -c 0) */
    const char *type_k;         /* KV cache types ("f16", "q8_0", ...); NULL or "" = f16 */
    const char *type_v;
    int ubatch;                 /* configured -ub; 0 = PLACEMENT_UBATCH_DEFAULT */
    int64_t free_mib;           /* the device's free memory (probe or --free-mib) */
    int64_t reserve_mib;        /* PLACEMENT_RESERVE_MIB_DEFAULT */
    int64_t compute_mib_at_ref; /* PLACEMENT_COMPUTE_MIB_AT_REF: the fallback when the shape
                                 * cannot predict the compute buffer */
    int flash_attn;             /* -fa as launched: 1 on, 0 off, -1 auto (priced as off, the
                                 * larger buffer: auto may resolve either way) */
    double margin_factor;       /* the backend's margin correction (correction.h): every
                                 * candidate's predicted weights, KV and compute buffer are
                                 * multiplied by it (below 1 too); 0 = none */
    placement_cbuf_dev dev;     /* what the device's backend limits (placement_cbuf_dev_of);
                                 * zero: nothing */
    int n_outputs;              /* rows of logits the program reserves: llama-server's slots
                                 * (-np); 0: a full ubatch (llama-bench, llama-perplexity) */
    int n_seq;                  /* llama-server's slots: a recurrent state each, and without
                                 * a unified cache a stream each of ctx / n_seq cells (a
                                 * window's cells per stream); 0: 1 */
    int kv_unified;             /* 1: one cache stream over every slot (-kvu, and llama-server's
                                 * default with -np auto), its window's cells n_swa x slots
                                 * + ubatch */
    const placement_engine_mem *engine_mem; /* llama.cpp's own figures at this setting;
                                 * NULL: none. Weights and KV are then scaled to them,
                                 * and they are the compute buffer of a graph the
                                 * estimator does not follow (or may not: fenced) */
    int host_only;              /* a CPU engine: the whole graph in the host's buffer, and
                                 * compute_bytes is that buffer (no device, no limits) */
    int build;                  /* the engine's mainline build number (the estimator's
                                 * graphs are fenced to the builds they were measured
                                 * on); 0: unknown (not fenced) */
} placement_place_in;

/* The chosen rung. bytes = (weight_bytes + kv_bytes + compute_bytes) x
 * margin_factor, plus what the reserve adds above the corrected compute
 * buffer (max(reserve, compute x factor): the reserve is the operator's and
 * never scaled), is what the device is predicted to hold;
 * margin_bytes = free - bytes (negative only for PLACEMENT_RUNG_NOTHING_FITS:
 * the deficit). */
typedef struct placement_result {
    placement_rung rung;
    int ngl;                    /* -ngl: the output head and ngl - 1 blocks on the device;
                                 * -1 = all */
    int n_cpu_moe;              /* blocks whose experts stay on the host; 0 = none */
    int ubatch;                 /* the ubatch the prediction assumed (launch with it) */
    uint32_t ctx;               /* the context the KV was priced for */
    uint64_t weight_bytes;      /* model tensors on the device */
    uint64_t kv_bytes;          /* KV cache on the device */
    uint64_t headroom_bytes;    /* max(reserve, compute_bytes) */
    uint64_t compute_bytes;     /* the device's compute buffer at ubatch: predicted from the
                                 * shape, else the seed's constant scaled to ubatch */
    uint64_t host_compute_bytes;/* the host's compute buffer, predicted; 0 when not */
    int compute_predicted;      /* 1: compute_bytes is the shape's prediction (cbuf.h) */
    char compute_why[224];      /* which: "predicted from the llama graph at ...", or "the
                                 * seed's constant, ... (why the shape did not say)" */
    uint64_t recurrent_bytes;   /* of kv_bytes, the recurrent state on the device */
    placement_source weights_from, kv_from, compute_from;
    uint64_t bytes;             /* predicted device use, headroom included */
    int64_t margin_bytes;       /* free - bytes */
    char reason[640];           /* one line for --explain */
} placement_result;

/* Fills *in with the defaults: ctx 0, f16/f16, ubatch 512, reserve 512 MiB,
 * compute 1222 MiB at ubatch 512 where the shape predicts nothing, flash
 * attention auto, free_mib -1 (unknown), shape NULL. */
void placement_place_in_init(placement_place_in *in);

/* Chooses the first rung that fits (order above) and fills *out. Errors (-1,
 * err set): shape NULL or not known, no blocks, free_mib < 0 (unknown: the
 * caller decides what to assume), ctx 0 with no n_ctx_train, an unknown cache
 * type, ubatch < 0, negative reserve or compute, or sizes that overflow. A
 * device too small for anything is not an error: PLACEMENT_RUNG_NOTHING_FITS. */
int placement_compute(const placement_place_in *in, placement_result *out, lvd_err *err);

/* Prices the placement an arm asked for, as placement_compute prices its
 * candidates (the prediction lvd bench records beside what llama.cpp
 * allocated): ngl -1 or > n_block = every block and the output head (with
 * n_cpu_moe blocks' experts on the host), else -ngl ngl (the head and ngl - 1
 * blocks; 0: nothing); at in's ubatch and ctx. free_mib may be unknown (-1):
 * margin_bytes is then against 0. Errors as placement_compute's, but for
 * free_mib. */
int placement_price(const placement_place_in *in, int ngl, int n_cpu_moe, placement_result *out,
                    lvd_err *err);

/* "fully resident", "reduced ubatch", "experts on host", "partial offload",
 * "cpu only", "nothing fits". */
const char *placement_rung_name(placement_rung rung);

/* Size of a KV cache type as llama.cpp stores it: bytes per block of
 * block_elems elements (f16: 2 per 1; q8_0: 34 per 32). 0, or -1 with err
 * for a type llama-server does not accept for -ctk/-ctv. NULL or "" = f16. */
int placement_cache_type_size(const char *type, uint32_t *block_elems, uint32_t *block_bytes,
                        lvd_err *err);

/* The cache's layout for llama-server's slots: n_seq streams (1: one
 * sequence, or a unified cache over them all). */
typedef struct placement_slots {
    uint32_t n_seq;             /* 0: 1 */
    int unified;
} placement_slots;

/* placement_kv_bytes_at for slots: without a unified cache each of n_seq
 * streams holds ctx / n_seq cells padded to 256 (a window's block min(that,
 * window + ubatch)); with one, a window's block min(ctx, window x n_seq +
 * ubatch) (llama_kv_cache_iswa). */
int placement_kv_bytes_slots(const gguf_shape *shape, uint32_t n_layers, uint32_t ctx, uint32_t ubatch,
                             placement_slots slots, const char *type_k, const char *type_v, uint64_t *out,
                             lvd_err *err);

/* KV bytes of the last n_layers blocks (those -ngl n_layers + 1 offloads;
 * all of them at n_block) at ctx tokens, as llama.cpp b9749 allocates it for one
 * sequence: per block, cells x (row(type_k, n_head_kv(i) x head_dim_k) +
 * row(type_v, n_head_kv(i) x head_dim_v)), where cells is ctx padded to 256,
 * for a sliding-window block min(ctx, window + ubatch) padded to 256; a
 * recurrent block (n_head_kv(i) 0) holds none, and MLA has no V cache (K is
 * kv_lora_rank + rope dims wide). Blocks past the shape's own are priced
 * like the uniform n_head_kv. ubatch 0: PLACEMENT_UBATCH_DEFAULT. */
int placement_kv_bytes_at(const gguf_shape *shape, uint32_t n_layers, uint32_t ctx,
                          uint32_t ubatch, const char *type_k, const char *type_v, uint64_t *out,
                          lvd_err *err);
/* placement_kv_bytes_at at the default ubatch. */
int placement_kv_bytes(const gguf_shape *shape, uint32_t n_layers, uint32_t ctx, const char *type_k,
                 const char *type_v, uint64_t *out, lvd_err *err);

/* Bytes of the recurrent state of the last n_layers blocks for n_seq
 * sequences (0: 1), as llama.cpp allocates it ("RS buffer size": one state
 * per recurrent block and sequence, f32, whatever the context). */
uint64_t placement_rs_bytes_at(const gguf_shape *shape, uint32_t n_layers, uint32_t n_seq);

/* A generic upper bound of the compute buffer of a graph the estimator does
 * not follow, from the widths every decoder has: the attention scores of one
 * block as the largest intermediate without flash attention (f32, heads x
 * cells x ubatch, with its mask), the logits of n_outputs rows, and the
 * hidden and feed-forward activations of a ubatch. 0 when a width is missing. */
uint64_t placement_compute_bound(const gguf_shape *shape, uint32_t ctx, uint32_t ubatch, int flash_attn,
                                 uint32_t n_outputs);

/* The seed's compute allowance held back from the free memory at this
 * ubatch (the fallback when the shape predicts nothing): only its excess
 * over the reserve, which already exists for compute buffers and is charged
 * once (tests/placement/test_placement.c, test_no_double_count). ubatch 0 = 512. */
uint64_t placement_compute_allowance(int ubatch, int64_t reserve_mib, int64_t compute_mib_at_ref);

/* Writes the placement into launch parameters: ngl (all = n_block + 1, which
 * every llama.cpp build reads as "blocks and output head"), n_cpu_moe, and
 * ubatch when it differs from llama.cpp's default. */
void placement_placement_apply(const placement_result *pl, const gguf_shape *shape, lvd_params *p);

#endif
