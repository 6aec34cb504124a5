/* test_correction.c: the estimator corrected (placement/correction.h: the
 * margin factor from actual / predicted per backend, applied by the ladder)
 * and the rung after an out-of-memory load (placement/nextrung.h). Every
 * expected figure is derived in the comment beside it. */
#include "placement/correction.h"
#include "placement/nextrung.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ll * 1024ll)

static lvd_alloc row(const char *device, int64_t actual, int64_t predicted)
{
    lvd_alloc a;
    memset(&a, 0, sizeof a);
    snprintf(a.device, sizeof a.device, "%s", device);
    a.model = actual;     /* the whole actual on "model": the rule sums the three */
    a.kv = a.compute = -1;
    a.pred_model = predicted;
    a.pred_kv = 0;
    a.pred_compute = -1;
    return a;
}

static void test_factor_rule(void **state)
{
    (void)state;
    /* vulkan ratios 1.0, 1.1, 1.2, 1.3, 1.4 (Vulkan0 and Vulkan1 alike); a CUDA
     * row and a host row at 5x that must not count. p90 of five sorted values:
     * position 0.9 x 4 = 3.6 -> 1.3 + 0.6 x 0.1 = 1.36; median 1.2; p10 1.04. */
    lvd_alloc rows[] = {
        row("Vulkan0", 100 * MIB, 100 * MIB), row("Vulkan1", 110 * MIB, 100 * MIB),
        row("Vulkan0", 120 * MIB, 100 * MIB), row("Vulkan0", 130 * MIB, 100 * MIB),
        row("Vulkan0", 140 * MIB, 100 * MIB), row("CUDA0", 500 * MIB, 100 * MIB),
        row("CPU", 500 * MIB, 100 * MIB),
    };
    placement_correction c;
    double f = placement_correction_compute(rows, LVD_ARRAY_LEN(rows), "vulkan", &c);
    assert_int_equal(c.n, 5);
    assert_true(f > 1.3599 && f < 1.3601);
    assert_true(c.median > 1.1999 && c.median < 1.2001);
    assert_true(c.lo > 1.0399 && c.lo < 1.0401);
    assert_non_null(strstr(c.why, "x1.360"));
    /* CUDA: one row, below the three needed: no correction, said so. */
    f = placement_correction_compute(rows, LVD_ARRAY_LEN(rows), "cuda", &c);
    assert_true(f == 1.0);
    assert_int_equal(c.n, 1);
    assert_non_null(strstr(c.why, "no margin correction"));
}

/* A backend that allocates less than predicted keeps the plain estimate
 * (factor 1), and a wild estimate is capped. */
static void test_never_below_plain(void **state)
{
    (void)state;
    lvd_alloc low[] = {row("CUDA0", 10 * MIB, 100 * MIB), row("CUDA0", 20 * MIB, 100 * MIB),
                       row("CUDA0", 30 * MIB, 100 * MIB)};
    placement_correction c;
    assert_true(placement_correction_compute(low, 3, "cuda", &c) == 1.0);
    assert_non_null(strstr(c.why, "never below"));
    lvd_alloc wild[] = {row("CUDA0", 900 * MIB, 100 * MIB), row("CUDA0", 900 * MIB, 100 * MIB),
                        row("CUDA0", 900 * MIB, 100 * MIB)};
    assert_true(placement_correction_compute(wild, 3, "cuda", &c) == PLACEMENT_CORRECTION_MAX);
    /* rows missing a side are ignored */
    lvd_alloc half[] = {row("CUDA0", -1, 100 * MIB), row("CUDA0", 100 * MIB, -1)};
    placement_correction_compute(half, 2, "cuda", &c);
    assert_int_equal(c.n, 0);
}

/* llama-3-8B-like: 32 blocks of 131 MB, 726 MB outside (of it 500 MB token
 * embeddings, on the host), KV 4 KiB per layer per token. */
static gguf_shape dense(void)
{
    gguf_shape s = {0};
    s.known = 1;
    strcpy(s.arch, "llama");
    s.n_block = 32;
    s.n_embd = 4096;
    s.n_head = 32;
    s.n_head_kv = 8;
    s.head_dim_k = s.head_dim_v = 128;
    s.n_ctx_train = 8192;
    s.block_bytes = 131000000;
    s.non_block_bytes = 726482944;
    s.embd_bytes = 500000000;
    s.tensor_bytes = s.non_block_bytes + 32ull * s.block_bytes;
    return s;
}

static void test_factor_moves_the_rung(void **state)
{
    (void)state;
    gguf_shape s = dense();
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ctx = 8192;
    /* Fully resident: 4192000000 + 226482944 bytes = 4214.6 MiB weights, KV
     * 32 x 4 KiB x 8192 = 1024 MiB, headroom 1222 MiB: 6461 MiB of 7000 free. */
    in.free_mib = 7000;
    placement_result plain, corr;
    assert_int_equal(placement_compute(&in, &plain, NULL), 0);
    assert_int_equal(plain.rung, PLACEMENT_RUNG_FULL);
    /* x1.1: 7107 MiB > 7000 at ubatch 512; at 256 (headroom 611): 5850 x 1.1
     * = 6435 fits: the reduced-ubatch rung. */
    in.margin_factor = 1.1;
    assert_int_equal(placement_compute(&in, &corr, NULL), 0);
    assert_int_equal(corr.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(corr.ubatch, 256);
    assert_true(corr.bytes > corr.weight_bytes + corr.kv_bytes + corr.headroom_bytes);
    assert_non_null(strstr(corr.reason, "x1.100 margin correction"));
    /* a factor of 1 (or below) is the plain estimate */
    in.margin_factor = 0.5;
    assert_int_equal(placement_compute(&in, &corr, NULL), 0);
    assert_int_equal(corr.bytes, plain.bytes);
    in.margin_factor = 9;
    lvd_err err = {{0}};
    assert_int_equal(placement_compute(&in, &corr, &err), -1);
}

static void test_next_rung(void **state)
{
    (void)state;
    gguf_shape s = dense();
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &s;
    in.ctx = 8192;
    in.free_mib = 7000;
    placement_result full, next;
    assert_int_equal(placement_compute(&in, &full, NULL), 0);
    /* The full load ran out of memory: the next rung needs strictly less, and
     * is the ladder's next (the same blocks at ubatch 256). */
    assert_int_equal(placement_next_rung(&in, (int64_t)full.bytes, &next, NULL), 1);
    assert_int_equal(next.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_true(next.bytes < full.bytes);
    /* ... and from each rung on, down to partial offload, always less. */
    int64_t b = (int64_t)next.bytes;
    int partial = 0;
    for (int i = 0; i < 60 && placement_next_rung(&in, b, &next, NULL) == 1; i++) {
        assert_true((int64_t)next.bytes < b);
        b = (int64_t)next.bytes;
        partial |= next.rung == PLACEMENT_RUNG_PARTIAL;
    }
    assert_true(partial);
    /* a device that failed with only the headroom asked: nothing left */
    assert_int_equal(placement_next_rung(&in, 300 * MIB, &next, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor_rule),
        cmocka_unit_test(test_never_below_plain),
        cmocka_unit_test(test_factor_moves_the_rung),
        cmocka_unit_test(test_next_rung),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
