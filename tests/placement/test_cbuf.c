/* test_cbuf.c: the compute-buffer estimate (placement/cbuf.h) by what
 * llama.cpp's graph and ggml-alloc guarantee, on shapes where one term
 * dominates and the bound is plain from the source: the logits and the
 * normed embeddings are graph outputs (never reused, never freed), the
 * embeddings input is never freed, kq without flash attention is n_kv x T x
 * heads f32, a host weight the device takes over (op offload, 32 tokens and
 * more) is copied whole into the device's buffer, and so on. The real
 * builds' figures are held against captured logs in tests/bench/test_cbufcases.c.
 * Every expected figure is derived in the comment beside it. */
#include "placement/cbuf.h"
#include "placement/placement.h"
#include "tests/support/testutil.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ull * 1024ull)

/* A dense llama of hidden size E, n_block blocks, 8 heads of 64 (4 KV
 * heads), FFN 4E, vocabulary V, f16 weights (2 bytes each). */
static gguf_shape llama(uint32_t E, uint32_t n_block, uint32_t V)
{
    gguf_shape s;
    memset(&s, 0, sizeof s);
    s.known = s.graph = 1;
    s.file_type = 1; /* F16 */
    snprintf(s.arch, sizeof s.arch, "llama");
    s.n_block = n_block;
    s.n_embd = E;
    s.n_head = 8;
    s.n_head_kv = 4;
    s.head_dim_k = s.head_dim_v = 64;
    s.n_ff = 4 * E;
    s.n_rot = 64;
    s.n_vocab = V;
    s.n_ctx_train = 32768;
    s.block_elems = (uint64_t)E * (512 + 256 + 256 + 512) + 3ull * E * s.n_ff;
    s.block_bytes = 2 * s.block_elems;
    s.embd_bytes = s.output_bytes = 2ull * E * V;
    s.non_block_bytes = 2 * s.embd_bytes;
    s.tensor_bytes = s.non_block_bytes + s.block_bytes * n_block;
    return s;
}

static placement_cbuf predict(const gguf_shape *s, uint32_t ctx, uint32_t ub, int fa, int gpu,
                              int ngl)
{
    placement_cbuf_in in = {.shape = s, .ctx = ctx, .ubatch = ub, .flash_attn = fa, .gpu = gpu,
                            .n_gpu_layers = ngl};
    placement_cbuf c;
    placement_cbuf_predict(&in, &c);
    assert_true(c.predicted);
    return c;
}

/* The vocabulary dominates: at the output the host (a CPU engine) holds the
 * logits (V x T f32), the normed embeddings (E x T, an output too) and the
 * embeddings input (E x T, never freed); the buffer is that and the little
 * the allocator left below it. V 100000, E 256, T 512: 195.3 + 0.5 + 0.5 =
 * 196.3 MiB. */
static void test_logits_dominate(void **state)
{
    (void)state;
    gguf_shape s = llama(256, 2, 100000);
    placement_cbuf c = predict(&s, 1024, 512, 1, 0, -1);
    uint64_t floor = (100000ull + 256 + 256) * 512 * 4;
    assert_true(c.host_bytes >= floor);
    assert_true(c.host_bytes < floor + 4 * MIB);
    assert_int_equal(c.device_bytes, 0);
    assert_non_null(strstr(c.why, "llama graph at ubatch 512, context 1024, flash attention on"));
    /* one token: the one-token graph is far below the prompt's */
    placement_cbuf one = predict(&s, 1024, 1, 1, 0, -1);
    assert_true(one.host_bytes < 2 * MIB);
}

/* Without flash attention each block's kq is n_kv x T x heads f32, soft_max
 * in place over it, beside the f32 mask (n_kv x T): at 32768 cells and T
 * 512, 8 heads: 512 + 64 MiB. Flash attention keeps neither (its mask is
 * f16 and its result T x heads x 64 f32). */
static void test_kq_without_flash_attention(void **state)
{
    (void)state;
    gguf_shape s = llama(256, 2, 1000);
    placement_cbuf off = predict(&s, 32768, 512, 0, 0, -1);
    placement_cbuf on = predict(&s, 32768, 512, 1, 0, -1);
    uint64_t kq = 32768ull * 512 * 8 * 4, mask = 32768ull * 512 * 4;
    assert_true(off.host_bytes >= kq + mask);
    assert_true(off.host_bytes < kq + mask + 8 * MIB);
    assert_true(on.host_bytes < 48 * MIB); /* the f16 mask 32 MiB, and a few MiB */
    /* the cache's cells are the context padded to 256: 32600 -> 32768 */
    assert_int_equal(predict(&s, 32600, 512, 0, 0, -1).host_bytes, off.host_bytes);
}

/* Fully offloaded, the device holds the blocks' intermediates and the head;
 * the host (Vulkan_Host, CUDA_Host) only the inputs and the embeddings
 * (get_rows of token_embd, which never leaves the host) and their input:
 * E x T twice, the f16 mask (n_kv x T), the token, position, KV-index and
 * output-row inputs. E 256, T 512, 4096 cells: 0.5 + 0.5 + 4 MiB and 14 KiB. */
static void test_device_and_host(void **state)
{
    (void)state;
    gguf_shape s = llama(256, 4, 32000);
    placement_cbuf c = predict(&s, 4096, 512, 1, 1, -1);
    uint64_t host = 2ull * 256 * 512 * 4 + 4096ull * 512 * 2 + 512 * (4 + 4 + 8 + 8 + 4);
    assert_int_equal(c.host_bytes, host);
    /* the device: the logits 32000 x 512 x 4 = 62.5 MiB and the normed output */
    assert_true(c.device_bytes >= (32000ull + 256) * 512 * 4);
    assert_true(c.device_bytes < (32000ull + 256) * 512 * 4 + 8 * MIB);
}

/* -ngl N puts the output head and the last N - 1 blocks on the device
 * (llama_model counts the head as the last of n_block + 1 layers): with
 * -ngl 2 of 4 the device holds the logits beside its blocks. At 32 tokens
 * and more llama.cpp's scheduler lets the device run the host's ops too (op
 * offload), copying each host weight into its compute buffer: at -ngl 0 the
 * head's 64 MiB weight (32000 x 1024 f16) sits beside the logits on the
 * device. Below 32 tokens the host runs its own layers: at -ngl 0 the
 * logits are in the host's buffer. */
static void test_op_offload_copies_weights(void **state)
{
    (void)state;
    gguf_shape s = llama(1024, 4, 32000);
    uint64_t head = 2ull * 1024 * 32000, logits = 32000ull * 512 * 4;
    placement_cbuf full = predict(&s, 4096, 512, 1, 1, -1);
    placement_cbuf half = predict(&s, 4096, 512, 1, 1, 2);
    placement_cbuf none = predict(&s, 4096, 512, 1, 1, 0);
    assert_true(full.device_bytes < logits + 16 * MIB);
    assert_true(half.device_bytes >= logits && half.device_bytes < head + logits);
    assert_true(none.device_bytes >= head + logits);
    placement_cbuf few = predict(&s, 4096, 16, 1, 1, 0);
    assert_true(few.host_bytes >= 32000ull * 16 * 4);
    assert_true(few.device_bytes < 32000ull * 16 * 4);
}

/* What the shape cannot say is not guessed: an architecture whose graph the
 * estimator does not follow, a shape read back from the store without its
 * widths, a missing feed-forward width. */
static void test_not_predicted(void **state)
{
    (void)state;
    gguf_shape s = llama(256, 2, 1000);
    placement_cbuf_in in = {.shape = &s, .ctx = 4096, .ubatch = 512};
    placement_cbuf c;
    snprintf(s.arch, sizeof s.arch, "rwkv7");
    placement_cbuf_predict(&in, &c);
    assert_false(c.predicted);
    assert_non_null(strstr(c.why, "rwkv7: its graph is not one the estimator follows"));
    s = llama(256, 2, 1000);
    s.graph = 0;
    placement_cbuf_predict(&in, &c);
    assert_false(c.predicted);
    assert_non_null(strstr(c.why, "without its graph widths"));
    s = llama(256, 2, 1000);
    s.n_ff = 0;
    placement_cbuf_predict(&in, &c);
    assert_false(c.predicted);
    assert_non_null(strstr(c.why, "feed-forward width"));
    in.type_k = "q3_k";
    s = llama(256, 2, 1000);
    placement_cbuf_predict(&in, &c);
    assert_false(c.predicted);
}

/* Placement takes the prediction for its headroom (max(reserve, compute))
 * and says so; without one, the seed's 1222 MiB per 512 tokens. */
static void test_placement_uses_it(void **state)
{
    (void)state;
    gguf_shape s = llama(256, 4, 32000);
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ctx = 4096;
    in.flash_attn = 1;
    in.free_mib = 4096;
    placement_result pl;
    assert_int_equal(placement_compute(&in, &pl, NULL), 0);
    placement_cbuf c = predict(&s, 4096, 512, 1, 1, -1);
    assert_true(pl.compute_predicted);
    assert_int_equal(pl.compute_bytes, c.device_bytes);
    assert_int_equal(pl.host_compute_bytes, c.host_bytes);
    assert_int_equal(pl.headroom_bytes, 512 * MIB); /* 63 MiB of compute: the reserve covers it */
    assert_non_null(strstr(pl.reason, "predicted from the llama graph"));
    s.graph = 0;
    assert_int_equal(placement_compute(&in, &pl, NULL), 0);
    assert_false(pl.compute_predicted);
    assert_int_equal(pl.compute_bytes, 1222 * MIB);
    assert_int_equal(pl.headroom_bytes, 1222 * MIB);
    assert_non_null(strstr(pl.reason, "the seed's constant, 1222 MiB per 512 tokens"));
}

/* A device with a largest tensor (Vulkan: maxStorageBufferRange; Mesa's
 * lavapipe 128 MiB) refuses an op on anything larger: the scheduler runs it
 * on the host, and the loader keeps a weight whose op it refuses there.
 * E 256, V 32000, fully offloaded, 4096 cells, flash attention: at ubatch
 * 1024 the logits are 32000 x 1024 x 4 = 125 MiB and stay on the device; at
 * 2048 they are 250 MiB: the host computes them from a copy of the head's
 * weight (32000 x 256 f16 = 15.6 MiB, on the device: the loader asks at 512
 * tokens, 62.5 MiB of result) and of the normed embeddings (E x T f32, 2 MiB):
 * at least 250 + 15.6 + 2 MiB on the host, the device's buffer far below the
 * logits. A tied head whose logits at 512 tokens exceed the limit stays on the
 * host and is not copied to the device (placement's weights): V 151936 gives
 * 297 MiB of them. */
static void test_device_largest_tensor(void **state)
{
    (void)state;
    placement_cbuf_dev llvmpipe = placement_cbuf_dev_of("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)");
    uint64_t lim = llvmpipe.max_tensor;
    assert_int_equal(llvmpipe.max_buffer, 1024 * MIB); /* every Vulkan device: 1 GiB chunks */
    assert_int_equal(lim, 128 * MIB);
    assert_int_equal(placement_cbuf_dev_of("vulkan", "NVIDIA GeForce RTX 4090").max_tensor, 0);
    assert_int_equal(placement_cbuf_dev_of("cuda", "llvmpipe").max_tensor, 0);
    gguf_shape s = llama(256, 4, 32000);
    placement_cbuf_in in = {.shape = &s, .ctx = 4096, .ubatch = 1024, .flash_attn = 1, .gpu = 1,
                            .n_gpu_layers = -1, .dev = {.max_tensor = lim}};
    placement_cbuf c;
    placement_cbuf_predict(&in, &c);
    assert_true(c.device_bytes >= 32000ull * 1024 * 4);
    assert_true(c.host_bytes < 16 * MIB);
    assert_non_null(strstr(c.why, "ops on tensors over 128 MiB on the host"));
    in.ubatch = 2048;
    placement_cbuf_predict(&in, &c);
    uint64_t logits = 32000ull * 2048 * 4, head = 2ull * 256 * 32000, normed = 256ull * 2048 * 4;
    assert_true(c.host_bytes >= logits + head + normed);
    assert_true(c.host_bytes < logits + head + normed + 16 * MIB);
    assert_true(c.device_bytes < 64 * MIB); /* a block: FFN 3 x 1024 x 2048 x 4, residuals */
    in.dev.max_tensor = 0;
    placement_cbuf_predict(&in, &c);
    assert_true(c.device_bytes >= logits);

    gguf_shape q = llama(256, 4, 151936);
    q.graph_flags = GGUF_GRAPH_TIED;
    q.non_block_bytes = q.embd_bytes; /* no output tensor: the head is token_embd */
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = &q;
    pin.ctx = 4096;
    pin.flash_attn = 1;
    placement_result any, lava;
    assert_int_equal(placement_price(&pin, -1, 0, &any, NULL), 0);
    pin.dev.max_tensor = lim;
    assert_int_equal(placement_price(&pin, -1, 0, &lava, NULL), 0);
    assert_int_equal(any.weight_bytes, q.block_bytes * 4 + q.output_bytes);
    assert_int_equal(lava.weight_bytes, q.block_bytes * 4);
}

/* sched_reserve reserves the prompt graph, the one-token graph, then the
 * prompt graph again, and a buffer is reallocated when a graph outgrows it:
 * the host's buffer is the one-token graph's where that is larger. 64
 * heads of 16, three of four blocks on the host, 32768 cells, ubatch 32,
 * no flash attention: at 32 tokens the device takes the host blocks' work
 * (op offload) and the host holds little more than the f32 mask (32768 x
 * 32 x 4 = 4 MiB); at one token the host runs its blocks, each kq 32768 x
 * 64 heads x 4 = 8 MiB. */
static void test_one_token_graph_larger(void **state)
{
    (void)state;
    gguf_shape s = llama(1024, 4, 1000);
    s.n_head = 64;
    s.n_head_kv = 16;
    s.head_dim_k = s.head_dim_v = s.n_rot = 16;
    placement_cbuf c = predict(&s, 32768, 32, 0, 1, 2);
    assert_true(c.host_bytes >= 8 * MIB);
    assert_true(c.host_bytes < 8 * MIB + 4 * MIB);
}

/* A gated delta-net hybrid (arch: qwen35, or qwen3next): E 256, block 0 a
 * delta-net mixer, block 1 gated attention (8 heads of 64, 4 KV heads); the
 * mixer's conv kernel 4, 16 key heads and 32 value heads of 128 (d_inner
 * 4096): its convolution runs over Q, K and V, 2 x 16 x 128 + 4096 = 8192
 * channels. */
static gguf_shape delta_net(const char *arch)
{
    gguf_shape s = llama(256, 2, 1000);
    snprintf(s.arch, sizeof s.arch, "%s", arch);
    s.per_layer = 1;
    s.layer_recr[0] = 1;
    s.layer_head_kv[0] = 0;
    s.layer_head_kv[1] = 4;
    s.graph_flags = GGUF_GRAPH_FUSED_QKV | GGUF_GRAPH_QK_NORM; /* attn_qkv: the mixer's Q, K, V */
    s.ssm_d_conv = 4;
    s.ssm_d_state = 128;
    s.ssm_n_group = 16;
    s.ssm_dt_rank = 32;
    s.ssm_d_inner = 4096;
    return s;
}

/* The fused GATED_DELTA_NET op of a delta-net block, 16 slots (-np 16: 16
 * sequences of 32 tokens in the ubatch of 512): when it runs, live at once
 * are the convolution's output (silu in place; V is a view of it), 8192 x
 * T f32; Q and K l2-normed, 16 heads x 128 x T each; the slots' SSM state
 * rows, 128 x 4096 x 16; and its result, the output (32 x 128 x T) and the
 * new states (128 x 128 x 32 x 16) in one tensor; beside them the gate and
 * beta (32 x T each), the normed input (z's projection, 4096 x T, comes
 * only after the op: the gating visits it), the residual and the
 * embeddings input (E x T each). T 512: 16 + 4 + 4 + 32 + 40 MiB, 128 KiB,
 * 1.5 MiB. Idle below them at most the convolution state's rows (3 x 8192
 * x 16 f32, 1.5 MiB) and the concat of those rows and the projection
 * ((3 + 32) x 8192 x 16, 17.5 MiB), both freed before the op. qwen3next
 * repeats Q and K up to the 32 value heads: 8 MiB more at the op. The file
 * with the older single ssm_in projection (no attn_qkv) is not predicted. */
static void test_delta_net_op(void **state)
{
    (void)state;
    placement_cbuf c;
    uint64_t T = 512, N = 16;
    uint64_t at_op = (8192 * T + 2 * 16 * 128 * T + 128 * 4096 * N + 32 * 128 * (T + 128 * N)) * 4;
    uint64_t beside = 2 * 32 * T * 4 + 3 * 256 * T * 4, idle = (3 + (3 + T / N)) * 8192 * N * 4;
    gguf_shape s = delta_net("qwen35");
    placement_cbuf_in in = {.shape = &s, .ctx = 4096, .ubatch = 512, .flash_attn = 1, .n_seq = 16};
    placement_cbuf_predict(&in, &c);
    assert_true(c.predicted);
    assert_true(c.host_bytes >= at_op + beside);
    assert_true(c.host_bytes <= at_op + beside + idle);
    uint64_t qwen35 = c.host_bytes;
    gguf_shape n = delta_net("qwen3next");
    in.shape = &n;
    placement_cbuf_predict(&in, &c);
    assert_true(c.host_bytes >= qwen35 + 8 * MIB);
    assert_true(c.host_bytes < qwen35 + 9 * MIB);
    n.graph_flags &= ~GGUF_GRAPH_FUSED_QKV;
    placement_cbuf_predict(&in, &c);
    assert_false(c.predicted);
}

/* lfm2's short convolution, every block one (no attention): E 4096, FFN
 * 256, kernel 3 (a state of 2 columns), T 512, one slot. The input
 * projection (B, C, x: 3E x T, 24 MiB) stays until C multiplies the
 * convolution's output at the end; B x (E x T) is made, transposed after
 * the state (the concat, (2 + T) x E) and freed, and the convolution's
 * output (E x T) takes its place. Live at the convolution: the embeddings
 * input (never freed) and the residual (E x T each), the projection, the
 * concat and the output: 8 + 8 + 24 + 8 + 8 MiB and 32 KiB, and the
 * little inputs beside. */
static void test_short_convolution(void **state)
{
    (void)state;
    gguf_shape s = llama(4096, 2, 1000);
    snprintf(s.arch, sizeof s.arch, "lfm2");
    s.n_ff = 256;
    s.per_layer = 1;
    s.layer_recr[0] = s.layer_recr[1] = 1;
    s.layer_head_kv[0] = s.layer_head_kv[1] = 0;
    s.ssm_d_conv = 3;
    uint64_t E = 4096, T = 512, floor = (E * T * (1 + 1 + 3 + 1) + (2 + T) * E) * 4;
    placement_cbuf c = predict(&s, 4096, 512, 1, 0, -1);
    assert_true(c.host_bytes >= floor);
    assert_true(c.host_bytes < floor + MIB);
    s.ssm_d_conv = 0; /* a kernel the file does not give */
    placement_cbuf_in in = {.shape = &s, .ctx = 4096, .ubatch = 512};
    placement_cbuf_predict(&in, &c);
    assert_false(c.predicted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logits_dominate),
        cmocka_unit_test(test_kq_without_flash_attention),
        cmocka_unit_test(test_device_and_host),
        cmocka_unit_test(test_op_offload_copies_weights),
        cmocka_unit_test(test_not_predicted),
        cmocka_unit_test(test_placement_uses_it),
        cmocka_unit_test(test_device_largest_tensor),
        cmocka_unit_test(test_one_token_graph_larger),
        cmocka_unit_test(test_delta_net_op),
        cmocka_unit_test(test_short_convolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
