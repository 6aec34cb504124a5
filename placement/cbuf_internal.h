/* cbuf_internal.h: what the compute-buffer estimate (cbuf.h) is made of: the
 * graph llama.cpp builds for one ubatch, written down as a list of tensors in
 * the order ggml visits them (cbuf_graph.c), and ggml's scheduler and graph
 * allocator replayed over that list (cbuf_sched.c), with ggml-vulkan's
 * reordering of each device split (cbuf_vkorder.c). Only the facts the
 * scheduler, the reordering and the allocator act on are kept: each
 * tensor's size, op, sources, whether it is a view, may be computed in
 * place, is a graph output or an input, and where its weights live. Not a
 * public interface: use cbuf.h. */
#ifndef LVD_PLACEMENT_CBUF_INTERNAL_H
#define LVD_PLACEMENT_CBUF_INTERNAL_H

#include "placement/cbuf.h"

#include <stddef.h>
#include <stdint.h>

/* ggml's GATED_DELTA_NET takes six sources (q, k, v, gate, beta, state). */
#define PLACEMENT_CBUF_MAX_SRC 6

/* The two backends of a llama.cpp context on a GPU build, in the
 * scheduler's priority order: the device first, the host (CPU) last. A
 * CPU-only build has the host alone. */
enum { PLACEMENT_CBUF_DEV = 0, PLACEMENT_CBUF_HOST = 1, PLACEMENT_CBUF_NO_BACKEND = -1 };

typedef enum placement_cbuf_kind {
    PLACEMENT_CBUF_OP,       /* a computed tensor: allocated by ggml-alloc */
    PLACEMENT_CBUF_VIEW,     /* a view (ggml_impl_is_view): shares its root's memory */
    PLACEMENT_CBUF_INPUT,    /* a graph input (ggml_set_input): a leaf the host fills */
    PLACEMENT_CBUF_EXTERNAL, /* a weight or the KV cache: in its own buffer, never allocated here */
} placement_cbuf_kind;

/* A node's ggml op, as far as ggml's scheduler (GET_ROWS, ROPE,
 * FLASH_ATTN_EXT and the view ops: ggml_backend_sched_backend_id_from_cur,
 * ggml_is_view_op) and ggml-vulkan's reordering of a split (cbuf_vkorder.c:
 * the ops its fusions pair) tell them apart; every other op is OTHER. */
typedef enum placement_cbuf_op {
    PLACEMENT_CBUF_OP_NONE,     /* a leaf (input, weight, cache) or a scheduler copy */
    PLACEMENT_CBUF_OP_OTHER,    /* an op nothing here tells apart (CONT, GLU, SCALE, CONCAT ...) */
    PLACEMENT_CBUF_OP_GET_ROWS, /* never offloaded (batch size 0) */
    PLACEMENT_CBUF_OP_ROPE,     /* its weight (rope factors) does not choose the backend */
    PLACEMENT_CBUF_OP_FLASH_ATTN_EXT, /* likewise (the sinks) */
    PLACEMENT_CBUF_OP_VIEW,     /* VIEW, RESHAPE, PERMUTE, TRANSPOSE: ggml_is_view_op, */
    PLACEMENT_CBUF_OP_RESHAPE,  /* skipped by the splitter */
    PLACEMENT_CBUF_OP_PERMUTE,
    PLACEMENT_CBUF_OP_TRANSPOSE,
    PLACEMENT_CBUF_OP_ADD,
    PLACEMENT_CBUF_OP_ADD_ID,
    PLACEMENT_CBUF_OP_MUL,
    PLACEMENT_CBUF_OP_DIV,
    PLACEMENT_CBUF_OP_SQR,
    PLACEMENT_CBUF_OP_SQRT,
    PLACEMENT_CBUF_OP_SIN,
    PLACEMENT_CBUF_OP_CLAMP,
    PLACEMENT_CBUF_OP_SUM_ROWS,
    PLACEMENT_CBUF_OP_RMS_NORM,
    PLACEMENT_CBUF_OP_MUL_MAT,
    PLACEMENT_CBUF_OP_MUL_MAT_ID,
    PLACEMENT_CBUF_OP_SET_ROWS,
    PLACEMENT_CBUF_OP_SOFT_MAX,
    PLACEMENT_CBUF_OP_ARGSORT,
    PLACEMENT_CBUF_OP_UNARY,    /* SILU, SIGMOID, TANH, ... */
    PLACEMENT_CBUF_OP_SSM_CONV,
} placement_cbuf_op;

/* ggml_is_view_op: 1 for VIEW, RESHAPE, PERMUTE, TRANSPOSE (cbuf_sched.c). */
int placement_cbuf_is_view_op(uint8_t op);

typedef struct placement_cbuf_node {
    uint64_t bytes;          /* ggml_nbytes */
    int32_t src[PLACEMENT_CBUF_MAX_SRC]; /* indices of the sources, -1 = none */
    int32_t view_src;        /* a view's root tensor (ggml's view_src), else -1 */
    uint8_t kind;            /* placement_cbuf_kind */
    uint8_t op;              /* placement_cbuf_op */
    uint8_t inplace;         /* bit i: the op may overwrite src[i] (ggml_op_can_inplace and the
                                same layout) */
    uint8_t output;          /* GGML_TENSOR_FLAG_OUTPUT: never reused, never freed */
    uint8_t weight;          /* EXTERNAL: a model weight (buffer usage WEIGHTS), else the KV cache */
    int8_t loc;              /* EXTERNAL: the backend whose memory holds it */
    int8_t force;            /* a backend llama.cpp's graph callback sets (the blocks' "norm"), or -1 */
    uint8_t out_rows;        /* a MUL_MAT over the output rows only (the logits): ggml's batch
                                for op offload is then n_outputs, not n_tokens */
    uint8_t bcast3;          /* a MUL_MAT of a weight (one in dim 3) by an input with a dim 3
                                per cache stream: ggml broadcasts the weight, which a device
                                with mm_same_dim3 refuses */
} placement_cbuf_node;

typedef struct placement_cbuf_graph {
    placement_cbuf_node *v;
    size_t n, cap;
} placement_cbuf_graph;

/* The tensor whose memory node i uses: itself, or a view's root (cbuf_sched.c). */
int32_t placement_cbuf_root_of(const placement_cbuf_graph *g, int32_t i);

/* What the graph is built for: placement_cbuf_in resolved (cbuf.c). */
typedef struct placement_cbuf_spec {
    const struct gguf_shape *shape;
    uint32_t n_tokens;       /* the ubatch of the graph */
    uint32_t n_outputs;      /* rows of logits (n_tokens for the prompt graph, 1 for generation) */
    uint32_t kv_cells;       /* the full cache's cells of one stream (the context padded to
                                256; with a stream per slot, the context over the slots) */
    uint32_t n_stream;       /* the cache's streams (1, or a stream per slot) */
    uint32_t n_rs;           /* the recurrent states kept (one per slot) */
    uint32_t swa_cells;      /* a sliding-window block's cells */
    int flash_attn;
    uint32_t k_block_elems, k_block_bytes, v_block_elems, v_block_bytes; /* KV cache types */
    int gpu;                 /* 1: device + host backends; 0: the host alone */
    uint32_t dev_from;       /* blocks dev_from.. are on the device */
    int output_on_dev;       /* the output head is on the device */
    int full_offload;        /* -ngl above the block count (llama.cpp's graph callback pins
                                each block's norm to its device then, and below 32 tokens) */
    uint32_t n_cpu_moe;      /* the first n_cpu_moe blocks keep their experts on the host */
    placement_cbuf_dev dev;  /* the device's backend's limits (cbuf.h) */
} placement_cbuf_spec;

/* Appends the graph of spec's model for one ubatch to *g (cbuf_graph.c).
 * 0, or -1 when the architecture's graph is not one this file follows. */
int placement_cbuf_build(const placement_cbuf_spec *spec, placement_cbuf_graph *g);
/* 1 when placement_cbuf_build follows arch's graph. */
int placement_cbuf_arch_known(const char *arch);
void placement_cbuf_graph_free(placement_cbuf_graph *g);

/* ggml-alloc's GGML_VBUFFER_MAX_CHUNKS. */
#define PLACEMENT_CBUF_MAX_CHUNKS 16

/* One backend's compute buffer for one graph: the high-water mark of each of
 * its chunks (ggml_dyn_tallocr_max_size); the buffer is their sum. */
typedef struct placement_cbuf_buffer {
    uint64_t chunk[PLACEMENT_CBUF_MAX_CHUNKS];
    size_t n;
} placement_cbuf_buffer;

/* Replays ggml_backend_sched's backend assignment, splits and copies and
 * ggml-alloc's allocation over g (cbuf_sched.c): out[b] is the compute
 * buffer of backend b (PLACEMENT_CBUF_DEV, PLACEMENT_CBUF_HOST). g's
 * sources are rewired to the copies. */
void placement_cbuf_schedule(const placement_cbuf_spec *spec, placement_cbuf_graph *g,
                             placement_cbuf_buffer out[2]);

/* ggml-vulkan's graph_optimize (cbuf_vkorder.c): reorders nodes[0..n), one
 * split's tensors of g in graph order, as ggml-vulkan does before ggml-alloc
 * places them. */
void placement_cbuf_vk_reorder(const placement_cbuf_graph *g, int32_t *nodes, size_t n);

#endif
