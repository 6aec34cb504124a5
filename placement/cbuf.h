/* cbuf.h: the compute buffers llama.cpp reserves for a model, predicted from
 * its GGUF shape (docs/placement-compute.md has the derivation). llama.cpp
 * sizes them by building the graph of one ubatch at the full context and
 * letting ggml-alloc place it (llama_context::sched_reserve: the prompt
 * graph, the one-token graph, the prompt graph again; each buffer is the
 * largest of them): tensors are allocated as the graph runs and freed after
 * their last use, so a buffer is the peak of what is alive at once, per
 * backend. This module builds the same graph for the shape (cbuf_graph.c)
 * and replays the scheduler and the allocator over it (cbuf_sched.c): the
 * device's buffer for the blocks it holds, the host's for its inputs and
 * whatever stays there. Architectures whose graph it does not follow, and
 * shapes that lack a width it needs, are not predicted: the caller then
 * keeps the seed's constant (placement.h, PLACEMENT_COMPUTE_MIB_AT_REF).
 * Pure arithmetic: no I/O. Not for the weights or the KV cache (placement.h). */
#ifndef LVD_PLACEMENT_CBUF_H
#define LVD_PLACEMENT_CBUF_H

#include "common/gguf.h"

#include <stdint.h>

/* What a device's backend limits, in bytes; 0 = no limit. */
typedef struct placement_cbuf_dev {
    uint64_t max_tensor;      /* the largest tensor the device runs an op on */
    uint64_t max_buffer;      /* the largest buffer its buffer types allocate (the device's
                                 and the host's beside it: ggml_backend_buft_get_max_size):
                                 ggml-alloc splits a compute buffer into chunks of at most
                                 this, a larger tensor in a chunk of its own */
    int reorders;             /* the backend reorders each split's nodes before ggml-alloc
                                 places them (ggml-vulkan's graph_optimize, which
                                 GGML_VK_DISABLE_GRAPH_OPTIMIZE turns off) */
    int mm_same_dim3;         /* the backend refuses a MUL_MAT whose weight and input differ
                                 in their fourth dimension (ggml-vulkan's supports_op:
                                 a->ne[3] != b->ne[3]), which ggml broadcasts elsewhere */
} placement_cbuf_dev;

typedef struct placement_cbuf_in {
    const gguf_shape *shape;
    uint32_t ctx;             /* context tokens as asked for (-c): the cache is padded to 256
                                 cells here, as llama_context does */
    uint32_t ubatch;          /* -ub; llama.cpp cuts it to the context (n_batch = min(n_ctx,
                                 n_batch)), here too; 0 = 512 */
    int flash_attn;           /* 1: -fa on; 0: off */
    const char *type_k;       /* KV cache types (placement_cache_type_size); NULL = f16 */
    const char *type_v;
    int gpu;                  /* 1: an engine with a device (device + host buffers); 0: CPU only */
    int n_gpu_layers;         /* -ngl: of the blocks and the output head, the last N are on
                                 the device (N >= 1: the head and N - 1 blocks); -1 or above
                                 n_block: all */
    int n_cpu_moe;            /* the first N blocks keep their experts on the host */
    placement_cbuf_dev dev;   /* what the device's backend limits (placement_cbuf_dev_of) */
    uint32_t n_outputs;       /* rows of logits the prompt graph keeps: llama-server's slots
                                 (its n_outputs_max, one per -np slot); 0: the whole ubatch
                                 (llama-bench, llama-perplexity, llama-fit-params) */
    uint32_t n_seq;           /* llama-server's slots (0: 1); without a unified cache the
                                 graphs run one stream of ctx / n_seq cells per slot and the
                                 one-token graph is one token per slot */
    int kv_unified;
} placement_cbuf_in;

typedef struct placement_cbuf {
    int predicted;            /* 1: from the shape; 0: not (why says which width is missing) */
    uint64_t device_bytes;    /* "Vulkan0 compute buffer size" (0 for a CPU-only engine) */
    uint64_t host_bytes;      /* "Vulkan_Host compute buffer size", or the CPU engine's
                                 "CPU compute buffer size" */
    char why[224];            /* one line: what the prediction followed, or why there is none */
} placement_cbuf;

/* The llama.cpp builds arch's graph rule was measured against (the
 * captured allocations it is tested on): 1 with *first and *last set, 0
 * when the estimator does not follow arch's graph. */
int placement_cbuf_arch_builds(const char *arch, int *first, int *last);
/* The graph rule that prices shape s: its architecture, or the variant it
 * is ("deepseek2 without MLA": a file converted before attn_kv_b was split,
 * run as multi-head attention), as placement_cbuf_arch_builds and the
 * benchmarks name it. */
const char *placement_cbuf_rule(const gguf_shape *s);

/* Fills *out. Never fails: a shape it cannot follow gives predicted 0. */
void placement_cbuf_predict(const placement_cbuf_in *in, placement_cbuf *out);

/* What a device's backend limits, from its backend and name as llama.cpp
 * lists them ("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)"). ggml-vulkan:
 * its buffer types allocate at most 1 GiB (suballocation_block_size, unless
 * the device allows less); it refuses an op any of whose tensors exceeds
 * the device's maxStorageBufferRange (without 64-bit indexing), which the
 * scheduler then runs on the host, and the model loader keeps a weight
 * whose op it refuses on the host. The range is known for Mesa's software
 * rasterizer (lavapipe: 128 MiB, measured on Mesa 22.3); other Vulkan
 * devices report 4 GiB or more or index in 64 bits, and are taken as
 * unlimited. ggml-vulkan also reorders each split's nodes (reorders).
 * CUDA and the CPU: no limits, no reordering. */
placement_cbuf_dev placement_cbuf_dev_of(const char *backend, const char *name);

/* 1 when llama_model_loader puts a matmul weight of w_bytes with rows output
 * rows on a device whose largest tensor is max_tensor (0: no limit): its
 * weight_buft_supported asks the device for the op at 512 tokens. */
int placement_cbuf_dev_takes_weight(uint64_t max_tensor, uint64_t w_bytes, uint64_t rows);

#endif
