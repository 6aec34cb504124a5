/* test_placement.c: the placement ladder (placement/placement.h) on synthetic
 * shapes of real models (sizes of llama-3-8B, Qwen3-30B-A3B and a gemma-style
 * 26B-A4B at their usual quantizations) on the free memory of real cards.
 * Every expected rung is derived by hand in the comment beside it. */
#include "placement/placement.h"
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024ull * 1024ull)

/* llama-3-8B Q4_K_M: 32 blocks of ~131 MB, token_embd Q4_K (295501824
 * bytes, on the host at every -ngl) + output Q6_K (128256 x 4096) +
 * output_norm = 726482944 bytes outside the blocks, so an output head of
 * 430981120 bytes (411.02 MiB); 4.92 GB in all. KV per layer per token:
 * 8 x 128 x (2 + 2) = 4 KiB. */
static gguf_shape dense_8b(void)
{
    gguf_shape s = {0};
    s.known = 1;
    strcpy(s.arch, "llama");
    strcpy(s.name, "synthetic llama-3-8B Q4_K_M");
    s.n_block = 32;
    s.n_embd = 4096;
    s.n_head = 32;
    s.n_head_kv = 8;
    s.head_dim_k = s.head_dim_v = 128;
    s.n_ctx_train = 8192;
    s.block_bytes = 131000000;
    s.non_block_bytes = 726482944;
    s.embd_bytes = 295501824;
    s.tensor_bytes = s.non_block_bytes + 32ull * s.block_bytes;
    return s;
}

/* Qwen3-30B-A3B Q4_K_M: 48 blocks, 128 experts (8 used), 4 KV heads of 128;
 * 18.6 GB, of which 48 x 368 MB = 95 % are routed experts. The embeddings'
 * size is not given: all 430 MB outside the blocks are priced as the
 * output head, on the device at every -ngl above 0. */
static gguf_shape moe_30b_a3b(void)
{
    gguf_shape s = {0};
    s.known = 1;
    strcpy(s.arch, "qwen3moe");
    strcpy(s.name, "synthetic Qwen3-30B-A3B Q4_K_M");
    s.n_block = 48;
    s.n_embd = 2048;
    s.n_head = 32;
    s.n_head_kv = 4;
    s.head_dim_k = s.head_dim_v = 128;
    s.n_ctx_train = 40960;
    s.n_expert = 128;
    s.n_expert_used = 8;
    s.block_bytes = 378500000;
    s.expert_bytes = 368000000;
    s.non_block_bytes = 430000000;
    s.tensor_bytes = s.non_block_bytes + 48ull * s.block_bytes;
    return s;
}

/* A gemma-style 26B-A4B at ~2.7 bits per weight (IQ2-class): 30 blocks, 128
 * experts, 8 KV heads of 256, tied 262144 x 2816 Q6_K embeddings; 8.8 GB.
 * The embeddings' size is not given, so their bytes are priced as the
 * output head, which a tied head's device copy is. */
static gguf_shape moe_26b_a4b(void)
{
    gguf_shape s = {0};
    s.known = 1;
    strcpy(s.arch, "gemma-moe");
    strcpy(s.name, "synthetic gemma-style 26B-A4B IQ2");
    s.n_block = 30;
    s.n_embd = 2816;
    s.n_head = 16;
    s.n_head_kv = 8;
    s.head_dim_k = s.head_dim_v = 256;
    s.n_ctx_train = 131072;
    s.n_expert = 128;
    s.n_expert_used = 8;
    s.block_bytes = 273000000;
    s.expert_bytes = 240000000;
    s.non_block_bytes = 605552640;
    s.tensor_bytes = s.non_block_bytes + 30ull * s.block_bytes;
    return s;
}

/* Round numbers for pinning arithmetic: 10 blocks of 10 MiB, 100 MiB outside
 * them (90 MiB of token embeddings, which stay on the host, and a 10 MiB
 * output head), KV exactly 1 MiB per layer at ctx 4096 (1 head of 64, f16:
 * 256 B/token). */
static gguf_shape round_shape(void)
{
    gguf_shape s = {0};
    s.known = 1;
    strcpy(s.arch, "llama");
    s.n_block = 10;
    s.n_head = s.n_head_kv = 1;
    s.head_dim_k = s.head_dim_v = 64;
    s.n_ctx_train = 4096;
    s.block_bytes = 10 * MIB;
    s.non_block_bytes = 100 * MIB;
    s.embd_bytes = 90 * MIB;
    return s;
}

/* A real test model (tu_model) through the GGUF reader. */
static gguf_shape real_shape(const char *file)
{
    char *path = tu_model(file);
    gguf_shape s;
    lvd_err err;
    if (gguf_read_shape(path, &s, &err) != 0)
        fail_msg("%s", err.msg);
    free(path);
    return s;
}

/* A real model's shape without its graph widths (as the store keeps it):
 * placement falls back to the seed's compute constant, whose arithmetic
 * the tests on real tiny models pin. */
static gguf_shape seed_shape(const char *file)
{
    gguf_shape s = real_shape(file);
    s.graph = 0;
    return s;
}

static placement_result place(const gguf_shape *s, uint32_t ctx, int64_t free_mib)
{
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = s;
    in.ctx = ctx;
    in.free_mib = free_mib;
    placement_result pl;
    lvd_err err = {{0}};
    if (placement_compute(&in, &pl, &err) != 0)
        fail_msg("placement_compute: %s", err.msg);
    /* Invariants of every answer. */
    assert_int_equal(pl.bytes, pl.weight_bytes + pl.kv_bytes + pl.headroom_bytes);
    assert_int_equal(pl.margin_bytes, (int64_t)(free_mib * MIB) - (int64_t)pl.bytes);
    if (pl.rung != PLACEMENT_RUNG_NOTHING_FITS)
        assert_true(pl.margin_bytes >= 0);
    else
        assert_true(pl.margin_bytes < 0);
    assert_non_null(strstr(pl.reason, "MiB free"));
    return pl;
}

static void test_compute_allowance(void **state)
{
    (void)state;
    /* Only the excess over the reserve: 1222 - 512 at ubatch 512. */
    assert_int_equal(placement_compute_allowance(512, 512, 1222), 710 * MIB);
    assert_int_equal(placement_compute_allowance(0, 512, 1222), 710 * MIB);
    assert_int_equal(placement_compute_allowance(256, 512, 1222), 99 * MIB);
    /* 305.5 MiB at 128 is inside the reserve: nothing more held back. */
    assert_int_equal(placement_compute_allowance(128, 512, 1222), 0);
    assert_int_equal(placement_compute_allowance(1024, 512, 1222), (2444 - 512) * MIB);
    assert_int_equal(placement_compute_allowance(512, 0, 1222), 1222 * MIB);
    assert_int_equal(placement_compute_allowance(512, 2048, 1222), 0);
}

/* The pinned arithmetic: a placement needs weights + KV + max(reserve,
 * compute), never reserve + compute (both pay for compute buffers) and never
 * the reserve twice (the two defects docs/placement.md names). */
static void test_no_double_count(void **state)
{
    (void)state;
    gguf_shape s = round_shape();
    /* 110 MiB of weights + 10 MiB KV + 1222 MiB = 1342 MiB, exactly. */
    placement_result pl = place(&s, 4096, 1342);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(pl.weight_bytes, 110 * MIB);
    assert_int_equal(pl.kv_bytes, 10 * MIB);
    assert_int_equal(pl.headroom_bytes, 1222 * MIB);
    assert_int_equal(pl.margin_bytes, 0);
    assert_int_equal(pl.ubatch, 512);
    /* One MiB less: 120 + 611 at ubatch 256. */
    pl = place(&s, 4096, 1341);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 256);
    assert_int_equal(pl.headroom_bytes, 611 * MIB);
    assert_int_equal(pl.margin_bytes, (1341 - 731) * (int64_t)MIB);
    pl = place(&s, 4096, 731);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.margin_bytes, 0);
    /* At 128 the 305.5 MiB of compute hide inside the 512 MiB reserve. */
    pl = place(&s, 4096, 730);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 128);
    assert_int_equal(pl.headroom_bytes, 512 * MIB);
    pl = place(&s, 4096, 632);
    assert_int_equal(pl.margin_bytes, 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    /* A bigger reserve absorbs the compute allowance entirely. */
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.free_mib = 2168;
    in.reserve_mib = 2048;
    lvd_err err;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(pl.headroom_bytes, 2048 * MIB);
    assert_int_equal(pl.margin_bytes, 0);
    in.free_mib = 2167;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    /* -ngl 10: the head (10) + 9 x 11 MiB + 2048 = 2157 */
    assert_int_equal(pl.ngl, 10);
    assert_int_equal(pl.bytes, 2157 * MIB);
}

/* Below the full residency at 128 the layers leave one by one, each count
 * tried at every ubatch: no cliff from "fully resident" to "nothing". The
 * blocks here weigh 100 MiB, more than a ubatch step saves, so the ladder
 * has a count that fits at 256 but not at the next count's 128. -ngl N puts
 * the output head and the last N - 1 blocks on the device (llama.cpp
 * offloads the output layer first). */
static void test_partial_ladder_round(void **state)
{
    (void)state;
    gguf_shape s = round_shape();
    s.block_bytes = 100 * MIB;
    /* Whole at 128: 10 + 1000 + 10 KV + 512 = 1532. -ngl 10 (the head and 9
     * blocks): 10 + 900 + 9 KV + 611 at 256 = 1530, preferred over 128. */
    placement_result pl = place(&s, 4096, 1530);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 10);
    assert_int_equal(pl.ubatch, 256);
    assert_int_equal(pl.margin_bytes, 0);
    assert_int_equal(pl.weight_bytes, 910 * MIB); /* the embeddings stay home */
    assert_int_equal(pl.kv_bytes, 9 * MIB);
    assert_non_null(strstr(pl.reason, "the output head and 9 of 10 blocks on the device (-ngl 10)"));
    /* 1529: 919 + 512 at 128. */
    pl = place(&s, 4096, 1529);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 10);
    assert_int_equal(pl.ubatch, 128);
    /* -ngl 5, the head and 4 blocks: 10 + 400 + 4 + 512 = 926. */
    pl = place(&s, 4096, 926);
    assert_int_equal(pl.ngl, 5);
    assert_int_equal(pl.margin_bytes, 0);
    pl = place(&s, 4096, 925);
    assert_int_equal(pl.ngl, 4);
    /* -ngl 1 is the head alone: 522. */
    pl = place(&s, 4096, 522);
    assert_int_equal(pl.ngl, 1);
    assert_int_equal(pl.weight_bytes, 10 * MIB);
    assert_int_equal(pl.kv_bytes, 0);
    /* Not even the head, but the headroom fits: cpu only. */
    pl = place(&s, 4096, 520);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_CPU_ONLY);
    assert_int_equal(pl.ngl, 0);
    assert_int_equal(pl.bytes, 512 * MIB);
    /* Not even the reserve. */
    pl = place(&s, 4096, 500);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_NOTHING_FITS);
    assert_int_equal(pl.ngl, 0);
    assert_int_equal(pl.margin_bytes, -12 * (int64_t)MIB);
    pl = place(&s, 4096, 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_NOTHING_FITS);
}

static void test_dense_8b_rungs(void **state)
{
    (void)state;
    gguf_shape s = dense_8b();
    /* RTX 4090, 23000 MiB free: 4918 MB less the embeddings (4408.82 MiB)
     * + 512 MiB KV (ctx 4096) + 1222. */
    placement_result pl = place(&s, 4096, 23000);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(pl.ngl, -1);
    assert_int_equal(pl.n_cpu_moe, 0);
    assert_int_equal(pl.kv_bytes, 32ull * 4096 * 4096);
    assert_int_equal(pl.weight_bytes, s.tensor_bytes - s.embd_bytes);
    assert_string_equal(placement_rung_name(pl.rung), "fully resident");
    /* GTX 1060 6GB with 5900 MiB free, ctx 4096: needs 6142.8 MiB at 512,
     * 5531.8 at 256. */
    pl = place(&s, 4096, 5900);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 256);
    assert_string_equal(placement_rung_name(pl.rung), "reduced ubatch");
    /* 5500 MiB: only at 128 (5432.8). */
    pl = place(&s, 4096, 5500);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 128);
    /* ctx 8192 on the 1060: 5944.8 MiB even at 128. -ngl N is the 411.02
     * MiB head and N - 1 blocks of 131 MB + 32 MiB KV (156.93 MiB): -ngl 32
     * needs 411.02 + 31 x 156.93 + 1222 = 6497.9 at 512, 5886.9 at 256. */
    pl = place(&s, 8192, 5900);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 32);
    assert_int_equal(pl.ubatch, 256);
    assert_int_equal(pl.weight_bytes, 430981120ull + 31ull * 131000000);
    assert_int_equal(pl.kv_bytes, 31ull * 32 * MIB);
    assert_string_equal(placement_rung_name(pl.rung), "partial offload");
    /* A 4 GiB card with 4000 MiB free: -ngl 21 needs 4061.6 even at 128;
     * -ngl 20 needs 4003.7 at 256 and 3904.7 at 128: the 20th layer is worth
     * the ubatch. */
    pl = place(&s, 8192, 4000);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 20);
    assert_int_equal(pl.ubatch, 128);
    /* 3900: -ngl 20 at 128 no longer fits, -ngl 19 does at 256 (3846.8). */
    pl = place(&s, 8192, 3900);
    assert_int_equal(pl.ngl, 19);
    assert_int_equal(pl.ubatch, 256);
    /* A dense model never takes the experts rung. */
    for (int64_t f = 0; f < 8000; f += 50)
        assert_int_not_equal(place(&s, 8192, f).rung, PLACEMENT_RUNG_EXPERTS_ON_HOST);
    /* 600 MiB: not even the head (411.02 + 512 > 600) but the reserve fits. */
    pl = place(&s, 8192, 600);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_CPU_ONLY);
    assert_string_equal(placement_rung_name(pl.rung), "cpu only");
    pl = place(&s, 8192, 300);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_NOTHING_FITS);
    assert_string_equal(placement_rung_name(pl.rung), "nothing fits");
}

static void test_moe_30b_rungs(void **state)
{
    (void)state;
    gguf_shape s = moe_30b_a3b();
    /* RTX 4090: 18598 MB + 768 MiB KV (ctx 8192) + 1222 = 19726 MiB. */
    placement_result pl = place(&s, 8192, 23000);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    /* RTX 3060 12GB, 11800 MiB free: 19016 MiB even at 128. Each block's
     * experts free 368 MB = 350.95 MiB: (19726 - 11800) / 350.95 = 22.6
     * blocks at 512, (19115 - 11800) / 350.95 = 20.8 at 256: N = 21 at 256
     * beats N = 23 at 512 (the ubatch is spent before experts move). */
    pl = place(&s, 8192, 11800);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_EXPERTS_ON_HOST);
    assert_int_equal(pl.ngl, -1);
    assert_int_equal(pl.n_cpu_moe, 21);
    assert_int_equal(pl.ubatch, 256);
    assert_int_equal(pl.weight_bytes, s.tensor_bytes - 21ull * s.expert_bytes);
    assert_int_equal(pl.kv_bytes, 48ull * 16 * MIB);
    assert_string_equal(placement_rung_name(pl.rung), "experts on host");
    /* One MiB less than that needs: N = 21 still fits at 128 (99 MiB less). */
    int64_t need21 = (int64_t)((pl.bytes + MIB - 1) / MIB);
    pl = place(&s, 8192, need21 - 1);
    assert_int_equal(pl.n_cpu_moe, 21);
    assert_int_equal(pl.ubatch, 128);
    /* An 8 GB card, 7800 MiB: 33.98 at 512, 32.2 at 256, (19016 - 7800) /
     * 350.95 = 31.96 at 128 -> 32. */
    pl = place(&s, 8192, 7800);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_EXPERTS_ON_HOST);
    assert_int_equal(pl.n_cpu_moe, 32);
    assert_int_equal(pl.ubatch, 128);
    /* All 48 blocks' experts on the host still need 2880 MiB at 512 and
     * 2169 at 128; 2100 MiB free: -ngl N is the 410.08 MiB head and N - 1
     * blocks of 378.5 MB + 16 MiB KV at 128: (2100 - 512 - 410.08) MiB /
     * 395277216 = 3.1 blocks, -ngl 4. */
    pl = place(&s, 8192, 2100);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 4);
    assert_int_equal(pl.n_cpu_moe, 0);
}

/* Seed 003: the 26B-A4B at IQ2 comes out fully resident at ubatch 128, where
 * the compute allowance hides inside the reserve. Either defect (reserve +
 * compute, or the reserve twice) would push it to experts on the host. */
static void test_moe_26b_reduced_ubatch(void **state)
{
    (void)state;
    gguf_shape s = moe_26b_a4b();
    /* RTX 3080 10GB, 9900 MiB free, ctx 4096: 8796 MB + 960 MiB KV = 9348
     * MiB; + 1222 = 10570, + 611 = 9959, + 512 = 9860 <= 9900. */
    placement_result pl = place(&s, 4096, 9900);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 128);
    assert_int_equal(pl.ngl, -1);
    assert_int_equal(pl.headroom_bytes, 512 * MIB);
    /* 9348 + 512 + 305.5 = 10166 would not fit: the pinned sum. */
    assert_true(pl.bytes + 305 * MIB > 9900 * MIB);
    assert_true(pl.margin_bytes > 39 * (int64_t)MIB && pl.margin_bytes < 41 * (int64_t)MIB);
    /* At ctx 8192 (1920 MiB KV) on the same card: each block's experts are
     * 228.88 MiB; N = 4 at 128 needs 10820 - 915.5 = 9904.6 > 9900, N = 5
     * at 256 needs 10919 - 1144.4 = 9774.7: N = 5 at 256. */
    pl = place(&s, 8192, 9900);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_EXPERTS_ON_HOST);
    assert_int_equal(pl.n_cpu_moe, 5);
    assert_int_equal(pl.ubatch, 256);
    /* 24 GB: whole at 512. */
    assert_int_equal(place(&s, 8192, 23000).rung, PLACEMENT_RUNG_FULL);
}

/* The real tiny models on the seed's constant: tiny enough that every rung
 * sits within a few MiB of the headroom, which is what these pin. */
static void test_real_small_llama(void **state)
{
    (void)state;
    gguf_shape s = seed_shape("small-llama-q8_0.gguf");
    assert_int_equal(s.n_block, 4);
    assert_int_equal(s.n_head_kv, 4);
    assert_int_equal(s.head_dim_k, 32);
    assert_int_equal(s.tensor_bytes, 20550656);
    /* token_embd: 32000 x 256 Q8_0 = 32000 x 272 bytes, on the host at every
     * -ngl (llama.cpp's CPU_Mapped buffer: 8.30 MiB in alloc-b9749/vk-server). */
    assert_int_equal(s.embd_bytes, 8704000);
    /* ctx 0 = n_ctx_train 4096: KV 4 x 4 x (32 x 2 + 32 x 2) x 4096 = 8 MiB;
     * full at 512: 11.3 (19.6 less the embeddings) + 8 + 1222 = 1241.3 MiB. */
    placement_result pl = place(&s, 0, 1250);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(pl.ctx, 4096);
    assert_int_equal(pl.kv_bytes, 8 * MIB);
    /* the device weights llama.cpp reported for -ngl 5: "Vulkan0 model buffer size = 11.30 MiB" */
    assert_int_equal(pl.weight_bytes, 20550656 - 8704000);
    assert_int_equal((pl.weight_bytes * 100 + MIB / 2) / MIB, 1130);
    assert_int_equal(pl.margin_bytes, (int64_t)(1250 * MIB) - (20550656 - 8704000) -
                                          8 * (int64_t)MIB - 1222 * (int64_t)MIB);
    assert_int_equal(place(&s, 0, 1242).ubatch, 512);
    assert_int_equal(place(&s, 0, 1241).ubatch, 256);
    assert_int_equal(place(&s, 0, 700).rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    pl = place(&s, 0, 600); /* 11.3 + 8 + 512 */
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 128);
    /* 531: whole at 128 needs 531.3; -ngl 4 is the output head (32000 x
     * 256 Q8_0 + output_norm: 8705024 bytes, 8.30 MiB) and the last 3 blocks
     * (0.75 MiB of weights + 2 MiB KV each) on the device, 528.6 MiB. */
    pl = place(&s, 0, 531);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 4);
    assert_int_equal(pl.weight_bytes, 8705024 + 3 * s.block_bytes);
    assert_int_equal(pl.kv_bytes, 6 * MIB);
    assert_int_equal(place(&s, 0, 525).ngl, 2); /* 8.30 + 2.75 + 512 */
    assert_int_equal(place(&s, 0, 521).ngl, 1); /* the head alone */
    assert_int_equal(place(&s, 0, 520).rung, PLACEMENT_RUNG_CPU_ONLY);
    pl = place(&s, 0, 512);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_CPU_ONLY);
    assert_int_equal(pl.margin_bytes, 0);
    assert_int_equal(place(&s, 0, 511).rung, PLACEMENT_RUNG_NOTHING_FITS);
}

/* placement_price: what an arm that asked for its own -ngl is predicted to
 * put on the device (recorded next to what llama.cpp allocated). */
static void test_price(void **state)
{
    (void)state;
    gguf_shape s = real_shape("small-llama-q8_0.gguf");
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ctx = 4096;
    placement_result pl;
    lvd_err err = {{0}};
    assert_int_equal(placement_price(&in, 5, 0, &pl, &err), 0); /* 5 > 4 blocks: all */
    assert_int_equal(pl.ngl, -1);
    assert_int_equal(pl.weight_bytes, 20550656 - 8704000);
    assert_int_equal(pl.kv_bytes, 8 * MIB);
    /* -ngl 2: the output head and the last block */
    assert_int_equal(placement_price(&in, 2, 0, &pl, &err), 0);
    assert_int_equal(pl.weight_bytes, 8705024 + s.block_bytes);
    assert_int_equal(pl.kv_bytes, 2 * MIB);
    assert_int_equal(placement_price(&in, 0, 0, &pl, &err), 0);
    assert_int_equal(pl.weight_bytes, 0);
    assert_int_equal(pl.kv_bytes, 0);
    in.shape = NULL;
    assert_int_equal(placement_price(&in, 2, 0, &pl, &err), -1);
}

static void test_real_tiny_llama(void **state)
{
    (void)state;
    gguf_shape s = seed_shape("tiny-llama-q4_0.gguf");
    /* 2346752 bytes less the embeddings (32000 x 64 Q4_0 = 1152000, on the
     * host) + KV 2 x 2 x (16 x 2 x 2) x 4096 = 1 MiB + 1222. */
    assert_int_equal(s.embd_bytes, 1152000);
    placement_result pl = place(&s, 4096, 1226);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(pl.bytes, 2346752 - 1152000 + 1223 * MIB);
    assert_int_equal(place(&s, 4096, 1225).rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(place(&s, 4096, 1224).rung, PLACEMENT_RUNG_REDUCED_UBATCH);
}

/* tiny-moe: its experts are 27648 bytes a block, 110592 for all four, but
 * llama.cpp sizes the KV cache in steps of 256 cells (131072 bytes here, 512
 * B a token), and free memory comes in MiB (8 such steps): what full
 * residency at ubatch 128 misses by is the same modulo 131072 at every
 * context (116992 bytes over a step boundary), more than every expert on the
 * host saves. So on this model the ladder goes from "reduced ubatch" straight
 * to "partial offload"; the experts rung is exercised on the synthetic MoE
 * shapes above. Full at 128 and ctx 3584: 2448640 - 1152000 (the embeddings
 * stay on the host) + 3584 x 512 + 512 MiB = 515 MiB - 14080 bytes. */
static void test_real_tiny_moe(void **state)
{
    (void)state;
    gguf_shape s = seed_shape("tiny-moe-q4_0.gguf");
    assert_int_equal(s.n_expert, 4);
    assert_int_equal(s.expert_bytes, 27648);
    assert_int_equal(s.tensor_bytes, 2448640);
    placement_result pl = place(&s, 3584, 515);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 128);
    assert_int_equal(pl.ngl, -1);
    assert_int_equal(pl.margin_bytes, 14080);
    /* one 256-cell step more: 116992 bytes short, more than all experts */
    pl = place(&s, 3585, 515);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL);
    assert_int_equal(pl.ngl, 4);
    for (int64_t mib = 513; mib <= 520; mib++)
        for (uint32_t ctx = 256; ctx <= 8192; ctx += 256)
            assert_int_not_equal(place(&s, ctx, mib).rung, PLACEMENT_RUNG_EXPERTS_ON_HOST);
    assert_int_equal(place(&s, 3584, 516).rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(place(&s, 3584, 514).rung, PLACEMENT_RUNG_PARTIAL);
}

/* Rank of a placement, lower is better: rung, then what the rung moved. */
static long rank(const placement_result *pl)
{
    long r = (long)pl->rung * 1000000;
    if (pl->rung == PLACEMENT_RUNG_EXPERTS_ON_HOST)
        r += pl->n_cpu_moe * 1000;
    if (pl->rung == PLACEMENT_RUNG_PARTIAL)
        r += (1000 - pl->ngl) * 1000;
    return r + (1024 - pl->ubatch);
}

/* More free memory never gives a worse placement, on every shape. */
static void test_monotonic(void **state)
{
    (void)state;
    gguf_shape shapes[] = {dense_8b(), moe_30b_a3b(), moe_26b_a4b(), round_shape(),
                           real_shape("small-llama-q8_0.gguf")};
    for (size_t i = 0; i < LVD_ARRAY_LEN(shapes); i++) {
        for (uint32_t ctx = 4096; ctx <= 16384; ctx *= 2) {
            long prev = rank(&(placement_result){.rung = PLACEMENT_RUNG_NOTHING_FITS}) + 1;
            int seen[PLACEMENT_RUNG_NOTHING_FITS + 1] = {0};
            /* MiB by MiB where the tiny models' rungs are, coarser above. */
            int64_t prev_f = -1;
            for (int64_t f = 0; f <= 26000; f += f < 2048 ? 1 : 7) {
                placement_result pl = place(&shapes[i], ctx, f);
                long r = rank(&pl);
                if (r > prev)
                    fail_msg("%s ctx %u: %lld MiB gives %s (rank %ld), worse than %lld MiB's %ld",
                             shapes[i].name, ctx, (long long)f, placement_rung_name(pl.rung), r,
                             (long long)prev_f, prev);
                prev = r;
                prev_f = f;
                seen[pl.rung] = 1;
            }
            /* The sweep crosses every rung but those the shape cannot take. */
            assert_true(seen[PLACEMENT_RUNG_FULL] && seen[PLACEMENT_RUNG_PARTIAL] &&
                        seen[PLACEMENT_RUNG_CPU_ONLY] && seen[PLACEMENT_RUNG_NOTHING_FITS]);
            assert_int_equal(seen[PLACEMENT_RUNG_EXPERTS_ON_HOST], shapes[i].n_expert > 0);
        }
    }
}

static void test_kv_bytes(void **state)
{
    (void)state;
    gguf_shape s = dense_8b();
    lvd_err err;
    uint64_t kv;
    assert_int_equal(placement_kv_bytes(&s, 32, 8192, NULL, "", &kv, &err), 0);
    assert_int_equal(kv, 1024 * MIB); /* the known 1 GiB of llama-3-8B at 8k */
    assert_int_equal(placement_kv_bytes(&s, 32, 8192, "q8_0", "q8_0", &kv, &err), 0);
    assert_int_equal(kv, 32ull * 8192 * 2 * (1024 / 32 * 34));
    assert_int_equal(placement_kv_bytes(&s, 32, 8192, "q4_0", "f16", &kv, &err), 0);
    assert_int_equal(kv, 32ull * 8192 * (1024 / 32 * 18 + 2048));
    /* ctx 1 is 256 cells: llama_context pads n_ctx to 256 */
    assert_int_equal(placement_kv_bytes(&s, 1, 1, "f32", "bf16", &kv, &err), 0);
    assert_int_equal(kv, 256 * (4096 + 2048));
    assert_int_equal(placement_kv_bytes(&s, 1, 256, "q4_1", "q5_0", &kv, &err), 0);
    assert_int_equal(kv, 256 * (32 * 20 + 32 * 22));
    assert_int_equal(placement_kv_bytes(&s, 1, 200, "Q5_1", "iq4_nl", &kv, &err), 0);
    assert_int_equal(kv, 256 * (32 * 24 + 32 * 18));
    assert_int_equal(placement_kv_bytes(&s, 0, 8192, "f16", "f16", &kv, &err), 0);
    assert_int_equal(kv, 0);
    assert_int_equal(placement_kv_bytes(&s, 1, 1, "q2_k", "f16", &kv, &err), -1);
    assert_non_null(strstr(err.msg, "q2_k"));
    /* Different K and V head sizes are priced apart. */
    s.head_dim_k = 192;
    s.head_dim_v = 128;
    assert_int_equal(placement_kv_bytes(&s, 1, 256, "f16", "f32", &kv, &err), 0);
    assert_int_equal(kv, 256 * (8 * 192 * 2 + 8 * 128 * 4));
    /* Hostile dims overflow into an error, not a wrap. */
    s.n_head_kv = UINT32_MAX;
    s.head_dim_k = UINT32_MAX;
    assert_int_equal(placement_kv_bytes(&s, UINT32_MAX, UINT32_MAX, "f32", "f16", &kv, &err), -1);
}

/* The estimate against the KV cache the real CPU build allocated for the
 * tiny models of tests/fixtures/models/kv-*.gguf (made by
 * make-kvarch-models.py). Captured facts, like fixtures: each row's numbers
 * are the "llama_kv_cache: size = X MiB" lines (summed: a sliding-window
 * model has a full and a SWA cache) printed by
 *   ./llama-perplexity -m tests/fixtures/models/kv-ARCH.gguf -c CTX -b CTX \
 *       -f /dev/null -t 2 --no-warmup -fit off -lv 4
 * with /work/shared/engines/llama.cpp-b9749-cpu (version 9749 (d32676d77)),
 * f16 K and V, one sequence, ubatch 512; the lines are kept in
 * tests/fixtures/llama.cpp/kv-b9749/ARCH-CTX.txt. llama.cpp prints MiB with
 * two decimals, so each cache's value is within 0.005 MiB of the bytes. */
static const struct kv_capture {
    const char *file;
    uint32_t ctx;
    uint32_t centi_mib[2];   /* each cache's printed size x 100 */
    const char *cells;       /* what the capture says, for the reader */
} kv_captures[] = {
    {"kv-llama.gguf", 512, {25}, "512 cells x 4 layers"},
    {"kv-llama.gguf", 4096, {200}, "4096 x 4"},
    {"kv-llama.gguf", 32768, {1600}, "32768 x 4"},
    {"kv-qwen2moe.gguf", 512, {12}, "512 x 2"},
    {"kv-qwen2moe.gguf", 4096, {100}, "4096 x 2"},
    {"kv-qwen2moe.gguf", 32768, {800}, "32768 x 2"},
    /* window 128, default period 2: blocks 0, 2 slide (128 + 512 -> 768 cells) */
    {"kv-gemma2.gguf", 512, {12, 12}, "512 x 2 + SWA 512 x 2"},
    {"kv-gemma2.gguf", 4096, {100, 19}, "4096 x 2 + SWA 768 x 2"},
    {"kv-gemma2.gguf", 32768, {800, 19}, "32768 x 2 + SWA 768 x 2"},
    /* window 256, default period 6: blocks 0-4 slide (256 + 512 = 768 cells) */
    {"kv-gemma3.gguf", 512, {6, 31}, "512 x 1 + SWA 512 x 5"},
    {"kv-gemma3.gguf", 4096, {50, 47}, "4096 x 1 + SWA 768 x 5"},
    {"kv-gemma3.gguf", 32768, {400, 47}, "32768 x 1 + SWA 768 x 5"},
    /* MLA: K is kv_lora_rank 32 + rope 16 wide, V 0.00 MiB */
    {"kv-deepseek2.gguf", 512, {9}, "512 x 2, K only"},
    {"kv-deepseek2.gguf", 4096, {75}, "4096 x 2, K only"},
    {"kv-deepseek2.gguf", 32768, {600}, "32768 x 2, K only"},
    /* head_count_kv [0, 2, 0, 2]: two short-convolution blocks hold no KV */
    {"kv-lfm2.gguf", 512, {12}, "512 x 2 (of 4 layers)"},
    {"kv-lfm2.gguf", 4096, {100}, "4096 x 2"},
    {"kv-lfm2.gguf", 32768, {800}, "32768 x 2"},
};

static void test_kv_bytes_real_archs(void **state)
{
    (void)state;
    for (size_t i = 0; i < LVD_ARRAY_LEN(kv_captures); i++) {
        const struct kv_capture *c = &kv_captures[i];
        gguf_shape s = real_shape(c->file);
        uint64_t kv;
        lvd_err err;
        assert_int_equal(placement_kv_bytes(&s, s.n_block, c->ctx, "f16", "f16", &kv, &err), 0);
        /* bytes x 100 / MiB against the printed sum, within 0.5 per cache */
        double est = (double)kv * 100.0 / (double)MIB;
        double real = c->centi_mib[0] + c->centi_mib[1];
        double tol = c->centi_mib[1] ? 1.0 : 0.5;
        if (est < real - tol || est > real + tol)
            fail_msg("%s at ctx %u (%s): estimate %.3f MiB, real %.2f MiB", c->file, c->ctx,
                     c->cells, est / 100, real / 100);
    }
    /* The layout read from the GGUFs. */
    gguf_shape g3 = real_shape("kv-gemma3.gguf");
    assert_int_equal(g3.n_swa, 256);
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(g3.layer_swa[i], i != 5);
    gguf_shape lf = real_shape("kv-lfm2.gguf");
    assert_int_equal(lf.n_head_kv, 2);
    assert_int_equal(lf.layer_head_kv[0], 0);
    assert_int_equal(lf.layer_head_kv[1], 2);
    gguf_shape ds = real_shape("kv-deepseek2.gguf");
    assert_int_equal(ds.kv_mla, 1);
    assert_int_equal(ds.head_dim_k, 48);
    /* -ngl 1 offloads the last block: gemma3's only full-context one */
    uint64_t last, first;
    lvd_err err;
    assert_int_equal(placement_kv_bytes(&g3, 1, 32768, "f16", "f16", &last, &err), 0);
    assert_int_equal(last, 32768ull * 2 * 32 * 2);
    /* a smaller ubatch shrinks the SWA cache: 256 + 128 -> 512 cells */
    assert_int_equal(placement_kv_bytes_at(&g3, 6, 32768, 128, "f16", "f16", &first, &err), 0);
    assert_int_equal(first, last + 5ull * 512 * 2 * 32 * 2);
}

/* Cache types change the rung: q8_0 KV halves it and buys back blocks. */
static void test_cache_types_shift_rung(void **state)
{
    (void)state;
    gguf_shape s = dense_8b();
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ctx = 32768; /* f16 KV: 4 GiB */
    in.free_mib = 9500;
    placement_result f16, q8;
    lvd_err err;
    assert_int_equal(placement_compute(&in, &f16, &err), 0);
    in.type_k = in.type_v = "q8_0";
    assert_int_equal(placement_compute(&in, &q8, &err), 0);
    /* f16: 4409 + 4096 + 1222 = 9727 > 9500 -> reduced ubatch 256;
     * q8_0: KV 2176 MiB -> fully resident. */
    assert_int_equal(f16.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(q8.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(q8.kv_bytes, 2176 * MIB);
}

static void test_errors(void **state)
{
    (void)state;
    gguf_shape s = dense_8b();
    placement_place_in in;
    placement_result pl;
    lvd_err err;
    placement_place_in_init(&in);
    in.free_mib = 8000;
    assert_int_equal(placement_compute(&in, &pl, &err), -1); /* no shape */
    in.shape = &s;
    s.known = 0;
    assert_int_equal(placement_compute(&in, &pl, &err), -1);
    s.known = 1;
    in.free_mib = -1;
    assert_int_equal(placement_compute(&in, &pl, &err), -1);
    assert_non_null(strstr(err.msg, "free memory is unknown"));
    assert_non_null(strstr(err.msg, "llama-3-8B"));
    in.free_mib = 8000;
    in.type_v = "q3";
    assert_int_equal(placement_compute(&in, &pl, &err), -1);
    assert_non_null(strstr(err.msg, "'q3'"));
    in.type_v = NULL;
    in.ubatch = -5;
    assert_int_equal(placement_compute(&in, &pl, &err), -1);
    in.ubatch = 0;
    s.n_ctx_train = 0;
    assert_int_equal(placement_compute(&in, &pl, &err), -1); /* ctx 0 and none recorded */
    in.ctx = 2048;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.ctx, 2048);
    s.n_block = 0;
    assert_int_equal(placement_compute(&in, &pl, &err), -1);
    s = dense_8b();
    s.block_bytes = UINT64_MAX / 8;
    assert_int_equal(placement_compute(&in, &pl, &err), -1);
    assert_non_null(strstr(err.msg, "out of range"));
    /* ctx 0 takes the model's training context. */
    s = dense_8b();
    in.ctx = 0;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.ctx, 8192);
}

/* A configured ubatch above 512 walks 512, 256, 128; one at 128 has no
 * smaller rung. */
static void test_configured_ubatch(void **state)
{
    (void)state;
    gguf_shape s = round_shape();
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ubatch = 1024; /* 2444 MiB compute -> headroom 2444 */
    in.free_mib = 120 + 2444;
    placement_result pl;
    lvd_err err;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_FULL);
    assert_int_equal(pl.ubatch, 1024);
    in.free_mib--;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(pl.ubatch, 512);
    in.ubatch = 128;
    in.free_mib = 631;
    assert_int_equal(placement_compute(&in, &pl, &err), 0);
    assert_int_equal(pl.rung, PLACEMENT_RUNG_PARTIAL); /* 632 needed; no smaller rung */
    assert_int_equal(pl.ubatch, 128);
}

static void test_apply(void **state)
{
    (void)state;
    gguf_shape s = moe_30b_a3b();
    lvd_params p;
    lvd_params_init(&p);
    placement_result pl = place(&s, 8192, 11800);
    placement_placement_apply(&pl, &s, &p);
    assert_int_equal(p.ngl, 49); /* all blocks and the output head */
    assert_int_equal(p.n_cpu_moe, 21);
    assert_int_equal(p.ubatch, 256);
    gguf_shape d = dense_8b();
    pl = place(&d, 4096, 5500);
    placement_placement_apply(&pl, &d, &p);
    assert_int_equal(p.ngl, 33);
    assert_int_equal(p.n_cpu_moe, 0);
    assert_int_equal(p.ubatch, 128);
    pl = place(&d, 8192, 4000);
    placement_placement_apply(&pl, &d, &p);
    assert_int_equal(p.ngl, 20); /* the output head and 19 blocks */
    assert_int_equal(p.ubatch, 128);
    pl = place(&d, 4096, 23000);
    placement_placement_apply(&pl, &d, &p);
    assert_int_equal(p.ngl, 33);
    assert_int_equal(p.ubatch, 0); /* 512 is llama.cpp's default: not passed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute_allowance),
        cmocka_unit_test(test_no_double_count),
        cmocka_unit_test(test_partial_ladder_round),
        cmocka_unit_test(test_dense_8b_rungs),
        cmocka_unit_test(test_moe_30b_rungs),
        cmocka_unit_test(test_moe_26b_reduced_ubatch),
        cmocka_unit_test(test_real_small_llama),
        cmocka_unit_test(test_price),
        cmocka_unit_test(test_real_tiny_llama),
        cmocka_unit_test(test_real_tiny_moe),
        cmocka_unit_test(test_monotonic),
        cmocka_unit_test(test_kv_bytes),
        cmocka_unit_test(test_kv_bytes_real_archs),
        cmocka_unit_test(test_cache_types_shift_rung),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_configured_ubatch),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
