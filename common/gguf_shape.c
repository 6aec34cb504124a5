/* gguf_shape.c: the shape placement needs, derived from what the GGUF reader
 * (gguf.c) kept: hyperparameters from the metadata, the bytes of every
 * block, of its routed experts and of everything outside blocks, summed over
 * the tensor infos given (one file's, or every shard's of a split model),
 * and the compute graph's widths and optional tensors (gguf_shape.graph).
 * Also llama.cpp's file type names. Not for reading files. */
#include "common/gguf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* llama.cpp's enum llama_ftype, named as llama-quantize names them. */
static const char *const ftype_names[] = {
    [0] = "F32",      [1] = "F16",      [2] = "Q4_0",     [3] = "Q4_1",
    [7] = "Q8_0",     [8] = "Q5_0",     [9] = "Q5_1",     [10] = "Q2_K",
    [11] = "Q3_K_S",  [12] = "Q3_K_M",  [13] = "Q3_K_L",  [14] = "Q4_K_S",
    [15] = "Q4_K_M",  [16] = "Q5_K_S",  [17] = "Q5_K_M",  [18] = "Q6_K",
    [19] = "IQ2_XXS", [20] = "IQ2_XS",  [21] = "Q2_K_S",  [22] = "IQ3_XS",
    [23] = "IQ3_XXS", [24] = "IQ1_S",   [25] = "IQ4_NL",  [26] = "IQ3_S",
    [27] = "IQ3_M",   [28] = "IQ2_S",   [29] = "IQ2_M",   [30] = "IQ4_XS",
    [31] = "IQ1_M",   [32] = "BF16",    [36] = "TQ1_0",   [37] = "TQ2_0",
    [38] = "MXFP4_MOE", [39] = "NVFP4", [40] = "Q1_0",
};

const char *gguf_file_type_name(int32_t file_type)
{
    if (file_type < 0 || (size_t)file_type >= LVD_ARRAY_LEN(ftype_names) ||
        !ftype_names[file_type])
        return "?";
    return ftype_names[file_type];
}

/* ARCH.suffix as a uint32; 0 when absent, not an integer, or out of range. */
static uint32_t kv_u32(const gguf_file *f, const char *arch, const char *suffix, int *found)
{
    char key[256];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    const gguf_kv *k = gguf_kv_find(f, key);
    int ok = k && k->has_int && k->u <= UINT32_MAX;
    if (found)
        *found = ok;
    return ok ? (uint32_t)k->u : 0;
}

/* N of a "blk.N." name, or -1. */
static int64_t block_index(const char *name)
{
    if (strncmp(name, "blk.", 4) != 0)
        return -1;
    const char *p = name + 4;
    int64_t n = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (*p - '0');
        if (n > UINT32_MAX)
            return -1;
    }
    return *p == '.' ? n : -1;
}

static int tinfo_by_blk(const void *a, const void *b)
{
    int64_t x = ((const gguf_tinfo *)a)->blk, y = ((const gguf_tinfo *)b)->blk;
    return (x > y) - (x < y);
}

/* The part of a block tensor's name after "blk.N.", or "". */
static const char *block_suffix(const gguf_tinfo *t)
{
    const char *p = t->blk >= 0 ? strchr(t->name + 4, '.') : NULL;
    return p ? p + 1 : "";
}

/* What one tensor tells the compute graph (gguf_shape.graph_flags, the
 * vocabulary, the output head, the largest expert tensor, the routers'
 * sizes); *seen collects which
 * dense FFN projections exist (1 = ffn_up, 2 = ffn_gate). */
static void note_graph_tensor(const gguf_tinfo *t, gguf_shape *out, unsigned *seen)
{
    const char *sfx = block_suffix(t);
    if (!strcmp(t->name, "token_embd.weight") && t->ne[1] <= UINT32_MAX)
        out->n_vocab = (uint32_t)t->ne[1];
    if (!strcmp(t->name, "output.weight"))
        out->output_bytes = t->bytes;
    if (t->blk < 0)
        return;
    if (t->exp_bytes > out->max_expert_tensor_bytes)
        out->max_expert_tensor_bytes = t->exp_bytes;
    if (!strcmp(sfx, "ffn_gate_inp.weight") && t->bytes > out->router_bytes)
        out->router_bytes = t->bytes;
    if (!strcmp(sfx, "ffn_gate_inp_shexp.weight") && t->bytes > out->shexp_gate_bytes)
        out->shexp_gate_bytes = t->bytes;
    static const struct { const char *name; unsigned flag; } flags[] = {
        {"attn_q_norm.weight", GGUF_GRAPH_QK_NORM},
        {"attn_qkv.weight", GGUF_GRAPH_FUSED_QKV},
        {"ffn_gate_inp_shexp.weight", GGUF_GRAPH_SHEXP_GATE},
        {"attn_q.bias", GGUF_GRAPH_QKV_BIAS},
        {"attn_qkv.bias", GGUF_GRAPH_QKV_BIAS},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(flags); i++)
        if (!strcmp(sfx, flags[i].name))
            out->graph_flags |= flags[i].flag;
    /* a dense or shared feed-forward's up and gate (a MoE file's only dense
     * one may be its shared expert) */
    *seen |= !strcmp(sfx, "ffn_up.weight") || !strcmp(sfx, "ffn_up_shexp.weight")       ? 1u
             : !strcmp(sfx, "ffn_gate.weight") || !strcmp(sfx, "ffn_gate_shexp.weight") ? 2u
                                                                                        : 0u;
}

/* Sums tensors per block: the largest block, its largest expert share, and
 * everything outside blocks. */
static void derive_bytes(gguf_tinfo *ts, size_t n, gguf_shape *out)
{
    unsigned seen = 0;
    for (size_t i = 0; i < n; i++) {
        /* the input embeddings: llama.cpp keeps them on the host at every -ngl */
        if (!strcmp(ts[i].name, "token_embd.weight"))
            out->embd_bytes = ts[i].bytes;
        ts[i].blk = block_index(ts[i].name);
        ts[i].exp_bytes = ts[i].blk >= 0 && strstr(ts[i].name, "_exps") ? ts[i].bytes : 0;
        note_graph_tensor(&ts[i], out, &seen);
    }
    if (seen == 1)
        out->graph_flags |= GGUF_GRAPH_FFN_NOGATE;
    if (!out->output_bytes) {
        out->graph_flags |= GGUF_GRAPH_TIED;
        out->output_bytes = out->embd_bytes;
    }
    qsort(ts, n, sizeof *ts, tinfo_by_blk);
    uint64_t in_blocks = 0;
    int64_t n_seen_blocks = 0;
    for (size_t i = 0; i < n;) {
        if (ts[i].blk < 0) {
            i++;
            continue;
        }
        uint64_t sum = 0, exp = 0, elems = 0;
        size_t j = i;
        for (; j < n && ts[j].blk == ts[i].blk; j++) {
            sum += ts[j].bytes;
            exp += ts[j].exp_bytes;
            elems += ts[j].ne[0] * ts[j].ne[1] * ts[j].ne[2] * ts[j].ne[3];
        }
        if (sum > out->block_bytes) {
            out->block_bytes = sum;
            out->block_elems = elems;
        }
        if (exp > out->expert_bytes)
            out->expert_bytes = exp;
        in_blocks += sum;
        n_seen_blocks = ts[i].blk + 1;
        i = j;
    }
    out->non_block_bytes = out->tensor_bytes - in_blocks;
    if (out->n_block == 0 && n_seen_blocks <= UINT32_MAX)
        out->n_block = (uint32_t)n_seen_blocks;
}

/* Sliding-window attention as llama.cpp b9749 sets it per architecture
 * (src/models/ARCH.cpp): the window when the GGUF has none (0: no SWA without
 * the key), the default period of set_swa_pattern (block i slides unless
 * i % period == period - 1, or with dense_first unless i % period == 0), or
 * every attention block sliding (period 0). Architectures not listed are
 * priced without a window (an over-estimate, never an under-estimate). */
static const struct swa_arch {
    const char *arch;
    uint32_t default_window;
    uint32_t default_period;
    int dense_first;
} swa_archs[] = {
    {"gemma2", 4096, 2, 0}, {"gemma3", 0, 6, 0}, {"cohere2", 0, 4, 0},
    {"gpt-oss", 0, 2, 0},   {"lfm2", 0, 0, 0},   {"lfm2moe", 0, 0, 0},
    {"llama4", 8192, 4, 0}, /* chunked attention, 8192 tokens: cached like a window */
    {"gemma4", 0, 0, 0},    /* its pattern an array */
};

/* Architectures whose blocks keep a recurrent state, as llama.cpp b10587
 * marks them (src/models/ARCH.cpp, llm_arch_is_recurrent / _hybrid): every
 * block (all), the blocks with no KV head, those with neither KV heads nor a
 * feed-forward width (nemotron_h: its MLP blocks are neither), or, with
 * ARCH.full_attention_interval, every block but each interval-th (the
 * qwen3next family). Each block's state is (n_embd_r + n_embd_s) f32 per
 * sequence: the short convolution's n_embd x (l_cache - 1) (lfm2), else
 * Mamba's (d_conv - 1) x (d_inner + 2 x n_group x d_state) and d_state x
 * d_inner (llama_hparams::n_embd_r / n_embd_s). */
enum recr_rule { RECR_ALL, RECR_NO_KV, RECR_NO_KV_NO_FF, RECR_INTERVAL };
static const struct recr_arch {
    const char *arch;
    enum recr_rule rule;
} recr_archs[] = {
    {"mamba", RECR_ALL},          {"mamba2", RECR_ALL},         {"falcon-h1", RECR_ALL},
    {"jamba", RECR_NO_KV},        {"plamo2", RECR_NO_KV},       {"granitehybrid", RECR_NO_KV},
    {"lfm2", RECR_NO_KV},         {"lfm2moe", RECR_NO_KV},      {"nemotron_h", RECR_NO_KV_NO_FF},
    {"nemotron_h_moe", RECR_NO_KV_NO_FF}, {"qwen3next", RECR_INTERVAL}, {"qwen35", RECR_INTERVAL},
    {"qwen35moe", RECR_INTERVAL}, {"minimax-01", RECR_INTERVAL},
};

/* One recurrent block's state for one sequence, in bytes (the SSM widths read). */
static uint64_t recurrent_state_bytes(const gguf_file *f, gguf_shape *out)
{
    out->ssm_d_conv = kv_u32(f, out->arch, "ssm.conv_kernel", NULL);
    out->ssm_d_inner = kv_u32(f, out->arch, "ssm.inner_size", NULL);
    out->ssm_d_state = kv_u32(f, out->arch, "ssm.state_size", NULL);
    out->ssm_n_group = kv_u32(f, out->arch, "ssm.group_count", NULL);
    out->ssm_dt_rank = kv_u32(f, out->arch, "ssm.time_step_rank", NULL);
    const char *a = out->arch;
    uint64_t l_cache = kv_u32(f, a, "shortconv.l_cache", NULL);
    uint64_t r, s = 0;
    if (l_cache) {
        out->ssm_d_conv = (uint32_t)l_cache; /* the short convolution's kernel */
        r = (uint64_t)out->n_embd * (l_cache - 1);
    } else {
        uint64_t d_conv = out->ssm_d_conv, d_inner = out->ssm_d_inner, d_state = out->ssm_d_state;
        uint64_t n_group = out->ssm_n_group;
        r = (d_conv ? d_conv - 1 : 0) * (d_inner + 2 * n_group * d_state);
        s = d_state * d_inner;
    }
    return (r + s) * 4;
}

/* Which blocks keep a recurrent state (recr_archs), and the NextN blocks: the
 * qwen3next family's hold neither KV nor state (its memory filters them
 * out). */
static void derive_recurrent(const gguf_file *f, gguf_shape *out)
{
    const char *a = out->arch;
    out->n_nextn = kv_u32(f, a, "nextn_predict_layers", NULL);
    if (out->n_nextn > out->n_block)
        out->n_nextn = 0;
    const struct recr_arch *ra = NULL;
    for (size_t i = 0; i < LVD_ARRAY_LEN(recr_archs); i++)
        if (strcmp(a, recr_archs[i].arch) == 0)
            ra = &recr_archs[i];
    if (!ra)
        return;
    char key[256];
    snprintf(key, sizeof key, "%s.feed_forward_length", a);
    const gguf_kv *ff = gguf_kv_find(f, key);
    int found;
    uint32_t interval = kv_u32(f, a, "full_attention_interval", &found);
    if (ra->rule == RECR_INTERVAL && !found)
        interval = 4; /* llama.cpp's default */
    uint32_t n_main = out->n_block - out->n_nextn;
    for (uint32_t i = 0; i < out->n_block; i++) {
        int recr = 0;
        switch (ra->rule) {
        case RECR_ALL: recr = 1; break;
        case RECR_NO_KV: recr = out->layer_head_kv[i] == 0; break;
        case RECR_NO_KV_NO_FF:
            recr = out->layer_head_kv[i] == 0 && !(ff && ff->arr && ff->n_arr == out->n_block && ff->arr[i]);
            break;
        case RECR_INTERVAL:
            recr = i < n_main && (interval == 0 || (i + 1) % interval != 0);
            if (recr || i >= n_main)
                out->layer_head_kv[i] = 0;
            break;
        }
        out->layer_recr[i] = (uint8_t)recr;
    }
    out->rs_bytes = recurrent_state_bytes(f, out);
}

/* The per-block KV layout: KV heads per block (ARCH.attention.head_count_kv
 * may be an array; 0 marks a block without attention), which blocks keep a
 * recurrent state, which slide, and MLA. */
static void derive_kv_layout(const gguf_file *f, gguf_shape *out)
{
    const char *a = out->arch;
    char key[256];
    int found;
    if (out->n_block == 0 || out->n_block > GGUF_SHAPE_MAX_LAYERS)
        return;
    out->per_layer = 1;
    snprintf(key, sizeof key, "%s.attention.head_count_kv", a);
    const gguf_kv *hk = gguf_kv_find(f, key);
    for (uint32_t i = 0; i < out->n_block; i++) {
        uint32_t h = out->n_head_kv;
        if (hk && hk->arr && hk->n_arr == out->n_block)
            h = hk->arr[i];
        out->layer_head_kv[i] = h > UINT16_MAX ? UINT16_MAX : (uint16_t)h;
    }
    out->head_dim_k_swa = kv_u32(f, a, "attention.key_length_swa", NULL);
    out->head_dim_v_swa = kv_u32(f, a, "attention.value_length_swa", NULL);
    out->n_kv_shared = kv_u32(f, a, "attention.shared_kv_layers", NULL);
    if (out->n_kv_shared < out->n_block) /* llama_model's n_layer_kv_from_start */
        for (uint32_t i = out->n_block - out->n_kv_shared; i < out->n_block; i++)
            out->layer_head_kv[i] = 0;
    derive_recurrent(f, out);
    kv_u32(f, a, "attention.key_length_mla", &found);
    int has_v_mla;
    kv_u32(f, a, "attention.value_length_mla", &has_v_mla);
    out->kv_mla = found && has_v_mla;

    const struct swa_arch *sa = NULL;
    for (size_t i = 0; i < LVD_ARRAY_LEN(swa_archs); i++)
        if (strcmp(a, swa_archs[i].arch) == 0)
            sa = &swa_archs[i];
    if (!sa)
        return;
    uint32_t window = kv_u32(f, a, "attention.sliding_window", &found);
    if (!found)
        window = sa->default_window;
    if (window == 0)
        return;
    out->n_swa = window;
    snprintf(key, sizeof key, "%s.attention.sliding_window_pattern", a);
    const gguf_kv *pk = gguf_kv_find(f, key);
    uint32_t period = sa->default_period;
    if (pk && pk->arr && pk->n_arr == out->n_block) {
        for (uint32_t i = 0; i < out->n_block; i++)
            out->layer_swa[i] = out->layer_head_kv[i] && pk->arr[i];
        return;
    }
    if (pk && pk->has_int && !pk->arr && pk->u <= UINT32_MAX)
        period = (uint32_t)pk->u;
    for (uint32_t i = 0; i < out->n_block; i++) {
        int slides = period == 0 || (sa->dense_first ? i % period != 0 : i % period < period - 1);
        out->layer_swa[i] = out->layer_head_kv[i] && slides;
    }
}

/* The compute graph's widths (gguf_shape.graph): FFN, experts, RoPE, MLA;
 * the vocabulary from ARCH.vocab_size or the token list until the tensor
 * infos give token_embd.weight's rows. */
static void derive_graph_hparams(const gguf_file *f, gguf_shape *out)
{
    const char *a = out->arch;
    int found;
    out->n_ff = kv_u32(f, a, "feed_forward_length", NULL);
    out->n_ff_exp = kv_u32(f, a, "expert_feed_forward_length", &found);
    if (!found && out->n_expert)
        out->n_ff_exp = out->n_ff;
    out->n_ff_shexp = kv_u32(f, a, "expert_shared_feed_forward_length", &found);
    if (!found)
        out->n_ff_shexp = out->n_ff_exp * kv_u32(f, a, "expert_shared_count", NULL);
    out->n_dense_lead = kv_u32(f, a, "leading_dense_block_count", NULL);
    out->n_moe_step = kv_u32(f, a, "interleave_moe_layer_step", NULL);
    out->n_rot = kv_u32(f, a, "rope.dimension_count", &found);
    if (!found)
        out->n_rot = out->head_dim_k;
    out->kv_lora_rank = kv_u32(f, a, "attention.kv_lora_rank", NULL);
    out->q_lora_rank = kv_u32(f, a, "attention.q_lora_rank", NULL);
    out->head_dim_k_mla = kv_u32(f, a, "attention.key_length_mla", NULL);
    out->head_dim_v_mla = kv_u32(f, a, "attention.value_length_mla", NULL);
    out->n_vocab = kv_u32(f, a, "vocab_size", &found);
    const gguf_kv *toks = gguf_kv_find(f, "tokenizer.ggml.tokens");
    if (!found && toks && toks->n_arr <= UINT32_MAX)
        out->n_vocab = (uint32_t)toks->n_arr;
}

static int derive_hparams(const gguf_file *f, const char *name, gguf_shape *out, lvd_err *err)
{
    const gguf_kv *k = gguf_kv_find(f, "general.architecture");
    if (k && k->type == GGUF_VT_STRING) {
        if (!k->str || strlen(k->str) >= sizeof out->arch)
            return lvd_errf(err, "%s: metadata: general.architecture is longer than %zu bytes", name,
                            sizeof out->arch - 1);
        memcpy(out->arch, k->str, strlen(k->str) + 1);
    }
    k = gguf_kv_find(f, "general.name");
    if (k && k->str)
        snprintf(out->name, sizeof out->name, "%s", k->str);
    k = gguf_kv_find(f, "general.file_type");
    out->file_type = k && k->has_int && k->u <= INT32_MAX ? (int32_t)k->u : -1;

    const char *a = out->arch;
    int has_kv_heads, has_k, has_v;
    out->n_block = kv_u32(f, a, "block_count", NULL);
    out->n_embd = kv_u32(f, a, "embedding_length", NULL);
    out->n_head = kv_u32(f, a, "attention.head_count", NULL);
    out->n_head_kv = kv_u32(f, a, "attention.head_count_kv", &has_kv_heads);
    if (!has_kv_heads)
        out->n_head_kv = out->n_head;
    uint32_t fallback = out->n_head ? out->n_embd / out->n_head : 0;
    out->head_dim_k = kv_u32(f, a, "attention.key_length", &has_k);
    out->head_dim_v = kv_u32(f, a, "attention.value_length", &has_v);
    if (!has_k)
        out->head_dim_k = fallback;
    if (!has_v)
        out->head_dim_v = fallback;
    out->n_ctx_train = kv_u32(f, a, "context_length", NULL);
    out->n_expert = kv_u32(f, a, "expert_count", NULL);
    out->n_expert_used = kv_u32(f, a, "expert_used_count", NULL);
    derive_graph_hparams(f, out);
    return 0;
}

/* Attention without RoPE: Nemotron-H's never rotates; Granite's hybrids
 * rotate unless ARCH.rope.scaling.finetuned says false (llama.cpp's switch
 * for them, true when absent). */
static void derive_rope(const gguf_file *f, gguf_shape *out)
{
    char key[256];
    snprintf(key, sizeof key, "%s.rope.scaling.finetuned", out->arch);
    const gguf_kv *k = gguf_kv_find(f, key);
    int granite = !strcmp(out->arch, "granitehybrid") || !strcmp(out->arch, "granite");
    if (!strncmp(out->arch, "nemotron_h", strlen("nemotron_h")) ||
        (granite && k && k->type == GGUF_VT_BOOL && k->u == 0))
        out->graph_flags |= GGUF_GRAPH_NO_ROPE;
}

int gguf_shape_derive(const gguf_file *meta, gguf_tinfo *ts, size_t n, const char *name,
                      gguf_shape *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->file_type = -1;
    out->version = meta->hdr.version;
    out->n_kv = meta->hdr.n_kv;
    out->data_offset = meta->hdr.data_offset;
    out->n_tensors = n;
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(out->tensor_bytes, ts[i].bytes, &out->tensor_bytes))
            return lvd_errf(err, "%s: total tensor size overflows", name);
    if (derive_hparams(meta, name, out, err) != 0) {
        memset(out, 0, sizeof *out);
        out->file_type = -1;
        return -1;
    }
    derive_bytes(ts, n, out);
    derive_kv_layout(meta, out);
    derive_rope(meta, out);
    out->known = out->graph = 1;
    return 0;
}
