/* test_memsrc.c: where placement's figures come from (placement/placement.h):
 * the compute buffer for the program the launch line starts (llama-server's
 * one output row per slot, not a whole ubatch), llama.cpp's own figures
 * (llama-fit-params --fit-print) scaling weights and KV and standing in for
 * a graph the estimator does not follow or was not measured on, a bound
 * that is never the seed's constant silently, and the recurrent state of a
 * hybrid. Every expected figure is derived in the comment beside it. */
#include "placement/cbuf.h"
#include "placement/placement.h"
#include "tests/support/testutil.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ull * 1024ull)

/* A dense model of arch, hidden size E, n_block blocks, H heads of 64 (4 KV
 * heads), FFN 4E, vocabulary V, f16 weights. */
static gguf_shape model(const char *arch, uint32_t E, uint32_t n_block, uint32_t H, uint32_t V)
{
    gguf_shape s;
    memset(&s, 0, sizeof s);
    s.known = s.graph = s.per_layer = 1;
    s.file_type = 1;
    snprintf(s.arch, sizeof s.arch, "%s", arch);
    s.n_block = n_block;
    s.n_embd = E;
    s.n_head = H;
    s.n_head_kv = 4;
    s.head_dim_k = s.head_dim_v = 64;
    s.n_ff = 4 * E;
    s.n_rot = 64;
    s.n_vocab = V;
    s.n_ctx_train = 131072;
    for (uint32_t i = 0; i < n_block; i++)
        s.layer_head_kv[i] = 4;
    s.block_elems = (uint64_t)E * (H * 64 * 2 + 2 * 4 * 64) + 3ull * E * s.n_ff;
    s.block_bytes = 2 * s.block_elems;
    s.embd_bytes = s.output_bytes = 2ull * E * V;
    s.non_block_bytes = 2 * s.embd_bytes;
    s.tensor_bytes = s.non_block_bytes + s.block_bytes * n_block;
    return s;
}

static placement_result place(const gguf_shape *s, uint32_t ctx, int fa, int n_outputs,
                              const placement_engine_mem *m, int build)
{
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = s;
    in.ctx = ctx;
    in.flash_attn = fa;
    in.free_mib = 1 << 20;
    in.n_outputs = in.n_seq = n_outputs;
    in.kv_unified = 1; /* llama-server's -np auto */
    in.engine_mem = m;
    in.build = build;
    placement_result r;
    lvd_err err = {{0}};
    assert_int_equal(placement_compute(&in, &r, &err), 0);
    assert_int_equal(r.rung, PLACEMENT_RUNG_FULL);
    return r;
}

/* llama-server reserves one output row per slot: with a 100 000-token
 * vocabulary and E 256 the prompt graph's logits are V x 512 f32 = 195.3
 * MiB for llama-bench, V x 4 = 1.5 MiB for four slots; with flash
 * attention nothing else comes near, so the server's buffer is a small
 * fraction of the full ubatch's, and one slot needs no more than four. */
static void test_server_outputs(void **state)
{
    (void)state;
    gguf_shape s = model("llama", 256, 2, 8, 100000);
    placement_result bench = place(&s, 4096, 1, 0, NULL, 0);
    placement_result server = place(&s, 4096, 1, 4, NULL, 0);
    placement_result one = place(&s, 4096, 1, 1, NULL, 0);
    assert_true(bench.compute_bytes >= 100000ull * 512 * 4);
    assert_true(server.compute_bytes < bench.compute_bytes / 8);
    assert_true(server.compute_bytes >= 100000ull * 4 * 4);
    assert_true(one.compute_bytes <= server.compute_bytes);
    assert_int_equal(server.compute_from, PLACEMENT_FROM_GRAPH);
    assert_non_null(strstr(server.compute_why, "4 outputs"));
}

/* llama.cpp's own figures scale the shape's: weights that agree within the
 * print's rounding stay the shape's; a context figure a quarter of the
 * shape's KV (an architecture whose attention blocks the shape over-counts)
 * becomes the KV, and the sources say so. The shape's KV at 4096 cells:
 * 2 blocks x 4096 x 4 heads x 64 x 2 x 2 bytes = 8 MiB; the engine's: 2. */
static void test_engine_scales_kv(void **state)
{
    (void)state;
    gguf_shape s = model("llama", 256, 2, 8, 32000);
    placement_result plain = place(&s, 4096, 1, 4, NULL, 0);
    assert_int_equal(plain.kv_bytes, 8 * MIB);
    placement_engine_mem m = {.known = 1, .has_device = 1, .ubatch = 512};
    m.dev_model_mib = (int64_t)(plain.weight_bytes / MIB);
    m.host_model_mib = (int64_t)(s.embd_bytes / MIB);
    m.dev_context_mib = 2;
    m.dev_compute_mib = 100;
    snprintf(m.from, sizeof m.from, "llama-fit-params of test");
    placement_result r = place(&s, 4096, 1, 4, &m, 10587);
    assert_int_equal(r.weight_bytes, plain.weight_bytes);
    assert_true(r.kv_bytes >= 2 * MIB && r.kv_bytes <= 3 * MIB);
    assert_int_equal(r.weights_from, PLACEMENT_FROM_ENGINE);
    assert_int_equal(r.kv_from, PLACEMENT_FROM_ENGINE);
    /* a followed graph on a build it was measured on: the estimator's */
    assert_int_equal(r.compute_from, PLACEMENT_FROM_GRAPH);
    assert_int_equal(r.compute_bytes, plain.compute_bytes);
    assert_non_null(strstr(r.reason, "llama-fit-params of test"));
}

/* An architecture the estimator does not follow (a dense one named olmo2,
 * with gpt-oss's vocabulary and 64 heads): with llama.cpp's figure,
 * that figure (at its ubatch, plus the MiB its print floors away); without,
 * "not predicted", and the bound where it exceeds the seed's constant: 64
 * heads at 16384 cells and ubatch 512 without flash attention hold kq of
 * 64 x 16384 x 512 x 4 = 2048 MiB, above the constant's 1222. */
static void test_unfollowed_graph(void **state)
{
    (void)state;
    gguf_shape s = model("olmo2", 256, 4, 64, 201088);
    placement_result r = place(&s, 16384, 0, 1, NULL, 0);
    assert_int_equal(r.compute_from, PLACEMENT_FROM_BOUND);
    assert_false(r.compute_predicted);
    assert_true(r.compute_bytes >= 2048 * MIB);
    assert_non_null(strstr(r.compute_why, "not predicted"));
    /* flash attention: no kq, the bound falls below the constant, which is named */
    placement_result fa = place(&s, 4096, 1, 1, NULL, 0);
    assert_int_equal(fa.compute_from, PLACEMENT_FROM_CONSTANT);
    assert_int_equal(fa.compute_bytes, 1222 * MIB);
    assert_non_null(strstr(fa.compute_why, "not predicted"));
    placement_engine_mem m = {.known = 1, .has_device = 1, .ubatch = 512, .dev_compute_mib = 2103,
                              .host_compute_mib = 8};
    snprintf(m.from, sizeof m.from, "llama-fit-params of test");
    placement_result e = place(&s, 16384, 0, 1, &m, 10587);
    assert_int_equal(e.compute_from, PLACEMENT_FROM_ENGINE);
    assert_int_equal(e.compute_bytes, 2104 * MIB);
    assert_int_equal(e.host_compute_bytes, 9 * MIB);
}

/* A graph rule is fenced to the builds it was measured on: on a later
 * build llama.cpp's own figure wins where there is one, and the line says
 * why; without one the estimator still prices it and says it was not
 * measured there. */
static void test_fenced_build(void **state)
{
    (void)state;
    int first, last;
    assert_false(placement_cbuf_arch_builds("gemma4", &first, &last));
    /* the delta-net family's rules: measured on b10587 alone */
    assert_true(placement_cbuf_arch_builds("qwen3next", &first, &last));
    assert_int_equal(first, 10587);
    assert_int_equal(last, 10587);
    /* deepseek2 with MLA since b9749; a file from before attn_kv_b was split
     * (no *_mla lengths) is a rule of its own, measured on b10587 alone */
    gguf_shape d = model("deepseek2", 256, 2, 8, 32000);
    d.kv_lora_rank = 512;
    assert_string_equal(placement_cbuf_rule(&d), "deepseek2 without MLA");
    assert_true(placement_cbuf_arch_builds(placement_cbuf_rule(&d), &first, &last));
    assert_int_equal(first, 10587);
    d.head_dim_k_mla = 192;
    d.head_dim_v_mla = 128;
    assert_string_equal(placement_cbuf_rule(&d), "deepseek2");
    assert_true(placement_cbuf_arch_builds(placement_cbuf_rule(&d), &first, &last));
    assert_int_equal(first, 9749);
    assert_true(placement_cbuf_arch_builds("llama", &first, &last));
    gguf_shape s = model("llama", 256, 2, 8, 32000);
    placement_engine_mem m = {.known = 1, .has_device = 1, .ubatch = 512, .dev_compute_mib = 77};
    snprintf(m.from, sizeof m.from, "llama-fit-params of later");
    placement_result r = place(&s, 4096, 1, 4, &m, last + 1);
    assert_int_equal(r.compute_from, PLACEMENT_FROM_ENGINE);
    assert_int_equal(r.compute_bytes, 78 * MIB);
    assert_non_null(strstr(r.compute_why, "not on b"));
    placement_result g = place(&s, 4096, 1, 4, NULL, last + 1);
    assert_int_equal(g.compute_from, PLACEMENT_FROM_GRAPH);
    assert_non_null(strstr(g.compute_why, "not on b"));
    placement_result in = place(&s, 4096, 1, 4, &m, last);
    assert_int_equal(in.compute_from, PLACEMENT_FROM_GRAPH);
}

/* A hybrid's recurrent blocks hold no KV but a state per sequence: 3 of 4
 * blocks recurrent (every fourth attends, as qwen3next's interval says), a
 * state of 1 MiB each: 3 MiB for one slot, 12 for four, whatever the
 * context; the one attention block's KV at 4096 cells is 4 MiB. */
static void test_recurrent_state(void **state)
{
    (void)state;
    gguf_shape s = model("qwen3next", 256, 4, 8, 32000);
    for (uint32_t i = 0; i < 4; i++) {
        s.layer_recr[i] = (i + 1) % 4 != 0;
        s.layer_head_kv[i] = s.layer_recr[i] ? 0 : 4;
    }
    s.rs_bytes = MIB;
    placement_result one = place(&s, 4096, 1, 1, NULL, 0);
    assert_int_equal(one.recurrent_bytes, 3 * MIB);
    assert_int_equal(one.kv_bytes, 3 * MIB + 4 * MIB);
    placement_result four = place(&s, 4096, 1, 4, NULL, 0);
    assert_int_equal(four.recurrent_bytes, 12 * MIB);
    assert_int_equal(placement_rs_bytes_at(&s, 1, 4), 0); /* the last block attends */
    assert_int_equal(placement_rs_bytes_at(&s, 2, 1), MIB);
}

/* llama-server's slots shape a window's cache (llama_kv_cache_iswa): two
 * blocks of 4 KV heads of 64, f16 (1 KiB per cell each), the first sliding
 * over 1024 tokens, ctx 16384, ubatch 512. One slot: 16384 + min(16384,
 * 1024 + 512 = 1536) cells. Four over a unified cache: the window x 4 +
 * 512 = 4608. Four streams: each ctx / 4 = 4096 cells, its window's
 * min(4096, 1536), x 4: 16384 + 6144. */
static void test_slots_and_windows(void **state)
{
    (void)state;
    gguf_shape s = model("gemma3", 256, 2, 8, 32000);
    s.n_swa = 1024;
    s.layer_swa[0] = 1;
    uint64_t kv;
    lvd_err err = {{0}};
    assert_int_equal(placement_kv_bytes_slots(&s, 2, 16384, 512, (placement_slots){1, 0}, NULL, NULL, &kv, &err), 0);
    assert_int_equal(kv, (16384 + 1536) * 1024ull);
    assert_int_equal(placement_kv_bytes_slots(&s, 2, 16384, 512, (placement_slots){4, 1}, NULL, NULL, &kv, &err), 0);
    assert_int_equal(kv, (16384 + 4608) * 1024ull);
    assert_int_equal(placement_kv_bytes_slots(&s, 2, 16384, 512, (placement_slots){4, 0}, NULL, NULL, &kv, &err), 0);
    assert_int_equal(kv, (16384 + 6144) * 1024ull);
    /* llama.cpp's figures are of one sequence: their factor is taken there
     * (the shape agrees: no scaling) and the line's four streams keep theirs */
    placement_engine_mem m = {.known = 1, .ubatch = 512, .host_context_mib = 17};
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ctx = 16384;
    in.free_mib = 1 << 20;
    in.n_outputs = in.n_seq = 4;
    in.engine_mem = &m;
    placement_result r;
    assert_int_equal(placement_compute(&in, &r, &err), 0);
    assert_int_equal(r.kv_bytes, (16384 + 6144) * 1024ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_outputs),   cmocka_unit_test(test_engine_scales_kv),
        cmocka_unit_test(test_unfollowed_graph), cmocka_unit_test(test_fenced_build),
        cmocka_unit_test(test_recurrent_state),  cmocka_unit_test(test_slots_and_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
