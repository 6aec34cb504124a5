/* gguf.h: reads a GGUF file's header, metadata and tensor infos (never the
 * tensor data) and derives the shape that placement needs. Every length and
 * count is bounds-checked against the file; hostile files give an error, never
 * a crash. Not for writing GGUF files. */
#ifndef LVD_GGUF_H
#define LVD_GGUF_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

/* Blocks whose KV layout is kept one by one (layer_head_kv, layer_swa); a
 * model with more blocks is priced as if every block were alike. */
#define GGUF_SHAPE_MAX_LAYERS 1024

typedef struct gguf_shape {
    int known;               /* 1 when the fields below were derived */
    uint32_t version;        /* 2 or 3 */
    uint64_t n_tensors;
    uint64_t n_kv;
    char arch[64];           /* general.architecture, e.g. "llama" */
    char name[128];          /* general.name, "" if absent */
    int32_t file_type;       /* general.file_type, -1 if absent */
    uint32_t n_block;        /* ARCH.block_count */
    uint32_t n_embd;         /* ARCH.embedding_length */
    uint32_t n_head;         /* ARCH.attention.head_count */
    uint32_t n_head_kv;      /* ARCH.attention.head_count_kv (defaults to n_head) */
    uint32_t head_dim_k;     /* ARCH.attention.key_length or n_embd / n_head */
    uint32_t head_dim_v;     /* ARCH.attention.value_length or n_embd / n_head */
    uint32_t head_dim_k_swa; /* ARCH.attention.key_length_swa: a sliding block's widths where
                                they differ (gemma4); 0: head_dim_k */
    uint32_t head_dim_v_swa;
    uint32_t n_kv_shared;    /* ARCH.attention.shared_kv_layers: the last blocks reuse an
                                earlier block's cache and keep none (gemma4) */
    uint32_t n_ctx_train;    /* ARCH.context_length */
    uint32_t n_expert;       /* ARCH.expert_count, 0 for dense */
    uint32_t n_expert_used;  /* ARCH.expert_used_count */
    /* The KV cache's layout, as llama.cpp b9749 builds it (placement_kv_bytes). */
    uint32_t n_swa;          /* the sliding window in tokens where some block uses one, else 0 */
    int kv_mla;              /* MLA (ARCH.attention.key_length_mla): K holds the compressed
                                KV (kv_lora_rank + rope dims) and there is no V cache */
    int per_layer;           /* 1: layer_head_kv and layer_swa hold n_block entries */
    uint16_t layer_head_kv[GGUF_SHAPE_MAX_LAYERS]; /* KV heads of block i; 0: a recurrent
                                                      block (hybrids), no KV */
    uint8_t layer_swa[GGUF_SHAPE_MAX_LAYERS];      /* 1: block i keeps only the window */
    uint8_t layer_recr[GGUF_SHAPE_MAX_LAYERS];     /* 1: block i keeps a recurrent state (a
                                                      hybrid's or a recurrent model's) */
    uint32_t n_nextn;        /* ARCH.nextn_predict_layers: the last blocks are NextN (MTP)
                                heads the main graph never runs */
    uint64_t rs_bytes;       /* one recurrent block's state for one sequence (llama.cpp's
                                (n_embd_r + n_embd_s) x 4: f32 conv and SSM states); 0 when
                                no block is recurrent or the widths are unknown */
    uint64_t block_bytes;    /* bytes of the largest block ("blk.N."), experts included */
    uint64_t expert_bytes;   /* bytes of one block's routed-expert tensors (the largest) */
    uint64_t non_block_bytes;/* every tensor outside blk.N. (embeddings, output head) */
    uint64_t tensor_bytes;   /* all tensor data */
    uint64_t embd_bytes;     /* token_embd.weight: never offloaded by llama.cpp (part of
                              * non_block_bytes); 0 when absent or not recorded */
    uint64_t data_offset;    /* where tensor data starts in the file */
    /* The compute graph's dimensions, for the compute-buffer estimate
     * (placement/cbuf.h): read from the metadata and the tensor infos, never
     * stored (a shape read back from the store has graph 0 until the file's
     * header is read again: store/identify.c). */
    int graph;               /* 1 when the fields below were read from the file */
    uint32_t n_vocab;        /* token_embd.weight's rows (else the token list's length) */
    uint32_t n_ff;           /* ARCH.feed_forward_length (the largest, when per block) */
    uint32_t n_ff_exp;       /* ARCH.expert_feed_forward_length; a MoE without it: n_ff */
    uint32_t n_ff_shexp;     /* the shared experts' FFN width (expert_shared_feed_forward_length,
                                else n_ff_exp x expert_shared_count); 0 = none */
    uint32_t n_dense_lead;   /* ARCH.leading_dense_block_count: blocks with a dense FFN first */
    uint32_t n_moe_step;     /* ARCH.interleave_moe_layer_step (llama4): only every N-th block
                                routes to experts, the others are dense; 0: every block */
    uint32_t n_rot;          /* ARCH.rope.dimension_count (else head_dim_k) */
    uint32_t kv_lora_rank;   /* MLA: ARCH.attention.kv_lora_rank */
    uint32_t q_lora_rank;    /* MLA: ARCH.attention.q_lora_rank (0: Q not low-rank) */
    uint32_t head_dim_k_mla; /* MLA: ARCH.attention.key_length_mla (nope + rope dims per head) */
    uint32_t head_dim_v_mla; /* MLA: ARCH.attention.value_length_mla */
    unsigned graph_flags;    /* GGUF_GRAPH_*: which optional tensors the blocks hold */
    uint64_t output_bytes;   /* the output head: output.weight, else the tied token_embd.weight */
    uint64_t block_elems;    /* the elements of the largest block's tensors (block_bytes /
                                block_elems: the blocks' bytes per weight) */
    uint64_t max_expert_tensor_bytes; /* the largest routed-expert tensor (*_exps) */
    uint64_t router_bytes;   /* blk.N.ffn_gate_inp.weight, the largest (converters keep
                                it f32 whatever the file's type); 0 when absent */
    uint64_t shexp_gate_bytes; /* blk.N.ffn_gate_inp_shexp.weight, the largest; 0 when absent */
    /* A recurrent block's widths (ARCH.ssm.*): the convolution's kernel (lfm2:
     * ARCH.shortconv.l_cache), the inner width, the state's, the groups and
     * the heads (time_step_rank). */
    uint32_t ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_n_group, ssm_dt_rank;
} gguf_shape;

/* gguf_shape.graph_flags */
#define GGUF_GRAPH_QK_NORM    0x01u /* blk.N.attn_q_norm: Q and K normed per head before RoPE */
#define GGUF_GRAPH_FUSED_QKV  0x02u /* blk.N.attn_qkv: one Q/K/V projection */
#define GGUF_GRAPH_FFN_NOGATE 0x04u /* dense (or shared-expert) FFN without a gate (up, activation, down) */
#define GGUF_GRAPH_SHEXP_GATE 0x08u /* ffn_gate_inp_shexp: the shared expert is gated */
#define GGUF_GRAPH_TIED       0x10u /* no output.weight: the output head is token_embd.weight */
#define GGUF_GRAPH_QKV_BIAS   0x20u /* blk.N.attn_q.bias (attn_qkv.bias): Q, K, V biased (qwen2) */
#define GGUF_GRAPH_NO_ROPE    0x40u /* attention without RoPE: Nemotron-H's, a Granite hybrid's with
                                       rope.scaling.finetuned false (llama.cpp's switch for it) */

/* Reads path's header and tensor infos and fills *out. Reads only the header
 * region (a 20 GB model costs a few MB of reads). 0 or -1 with err naming path. */
int gguf_read_shape(const char *path, gguf_shape *out, lvd_err *err);

/* The same over an in-memory prefix of a file: file_size is the full file's
 * size (tensor data offsets are checked against it). For tests and fuzzing. */
int gguf_parse_shape(const void *buf, size_t len, uint64_t file_size, const char *name,
                     gguf_shape *out, lvd_err *err);

/* The llama.cpp name of a general.file_type ("Q4_0", "Q8_0", "F16"), or "?". */
const char *gguf_file_type_name(int32_t file_type);

#endif
