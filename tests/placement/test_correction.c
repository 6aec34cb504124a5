/* test_correction.c: the estimator corrected (placement/correction.h: the
 * margin factor from actual / predicted per backend, applied by the ladder)
 * and the rung after an out-of-memory load (placement/nextrung.h). Every
 * expected figure is derived in the comment beside it. */
#include "placement/correction.h"
#include "placement/nextrung.h"
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024ll * 1024ll)

static lvd_alloc row(const char *device, int64_t actual, int64_t predicted)
{
    lvd_alloc a;
    memset(&a, 0, sizeof a);
    snprintf(a.device, sizeof a.device, "%s", device);
    snprintf(a.build, sizeof a.build, "b9749");
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
    /* vulkan ratios 1.0, 1.1, 1.2, 1.3, 1.4 (Vulkan0 and Vulkan1 alike, build
     * b9749); a CUDA row, a host row and a row of another build at 5x that
     * must not count. p90 of five sorted values: position 0.9 x 4 = 3.6 ->
     * 1.3 + 0.6 x 0.1 = 1.36; median 1.2; p10 1.04. */
    lvd_alloc rows[] = {
        row("Vulkan0", 100 * MIB, 100 * MIB), row("Vulkan1", 110 * MIB, 100 * MIB),
        row("Vulkan0", 120 * MIB, 100 * MIB), row("Vulkan0", 130 * MIB, 100 * MIB),
        row("Vulkan0", 140 * MIB, 100 * MIB), row("CUDA0", 500 * MIB, 100 * MIB),
        row("CPU", 500 * MIB, 100 * MIB), row("Vulkan0", 500 * MIB, 100 * MIB),
    };
    snprintf(rows[7].build, sizeof rows[7].build, "b10587");
    placement_correction c;
    double f = placement_correction_compute(rows, LVD_ARRAY_LEN(rows), "vulkan", "b9749", &c);
    assert_int_equal(c.n, 5);
    assert_true(f > 1.3599 && f < 1.3601);
    assert_true(c.median > 1.1999 && c.median < 1.2001);
    assert_true(c.lo > 1.0399 && c.lo < 1.0401);
    assert_int_equal(c.direction, 1);
    assert_non_null(strstr(c.why, "vulkan b9749:"));
    assert_non_null(strstr(c.why, "x1.360, up"));
    /* every build: the b10587 row counts too (six rows; p90 at 4.5 -> 1.4 +
     * 0.5 x 3.6 = 3.2, capped at 3) */
    f = placement_correction_compute(rows, LVD_ARRAY_LEN(rows), "vulkan", NULL, &c);
    assert_int_equal(c.n, 6);
    assert_true(f == PLACEMENT_CORRECTION_MAX);
    /* CUDA: one row, below the three needed: no correction, said so. */
    f = placement_correction_compute(rows, LVD_ARRAY_LEN(rows), "cuda", "b9749", &c);
    assert_true(f == 1.0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.direction, 0);
    assert_non_null(strstr(c.why, "no margin correction"));
}

/* A backend that allocates less than predicted gets a smaller margin, down
 * to PLACEMENT_CORRECTION_MIN; a wild estimate is capped; exact is no move. */
static void test_both_directions(void **state)
{
    (void)state;
    placement_correction c;
    /* ratios 0.90, 0.92, 0.95: p90 at 1.8 -> 0.92 + 0.8 x 0.03 = 0.944 */
    lvd_alloc less[] = {row("CUDA0", 90 * MIB, 100 * MIB), row("CUDA0", 92 * MIB, 100 * MIB),
                        row("CUDA0", 95 * MIB, 100 * MIB)};
    double f = placement_correction_compute(less, 3, "cuda", "b9749", &c);
    assert_true(f > 0.9439 && f < 0.9441);
    assert_int_equal(c.direction, -1);
    assert_non_null(strstr(c.why, "x0.944, down (llama.cpp allocated less than predicted)"));
    /* ratios 0.1 .. 0.3: bounded below */
    lvd_alloc low[] = {row("CUDA0", 10 * MIB, 100 * MIB), row("CUDA0", 20 * MIB, 100 * MIB),
                       row("CUDA0", 30 * MIB, 100 * MIB)};
    assert_true(placement_correction_compute(low, 3, "cuda", "b9749", &c) == PLACEMENT_CORRECTION_MIN);
    lvd_alloc wild[] = {row("CUDA0", 900 * MIB, 100 * MIB), row("CUDA0", 900 * MIB, 100 * MIB),
                        row("CUDA0", 900 * MIB, 100 * MIB)};
    assert_true(placement_correction_compute(wild, 3, "cuda", "b9749", &c) == PLACEMENT_CORRECTION_MAX);
    assert_int_equal(c.direction, 1);
    lvd_alloc exact[] = {row("CUDA0", 100 * MIB, 100 * MIB), row("CUDA0", 100 * MIB, 100 * MIB),
                         row("CUDA0", 100 * MIB, 100 * MIB)};
    assert_true(placement_correction_compute(exact, 3, "cuda", "b9749", &c) == 1.0);
    assert_int_equal(c.direction, 0);
    assert_non_null(strstr(c.why, "x1.000, unchanged"));
    /* a real build's rows: 2 KiB above the prediction (10002 KiB of
     * 10000, ratio 1.0002): x1.000, which is no move */
    lvd_alloc near[] = {row("CUDA0", 10002 * 1024, 10000 * 1024), row("CUDA0", 10002 * 1024, 10000 * 1024),
                        row("CUDA0", 10002 * 1024, 10000 * 1024)};
    assert_true(placement_correction_compute(near, 3, "cuda", "b9749", &c) == 1.0);
    assert_int_equal(c.direction, 0);
    assert_non_null(strstr(c.why, "x1.000, unchanged"));
    /* rows missing a side are ignored */
    lvd_alloc half[] = {row("CUDA0", -1, 100 * MIB), row("CUDA0", 100 * MIB, -1)};
    placement_correction_compute(half, 2, "cuda", "b9749", &c);
    assert_int_equal(c.n, 0);
}

/* The real small-llama (tests/fixtures/models/, generated by the build): 4
 * blocks, 11.3 MiB of weights on the device (its 8.3 MiB of token embeddings
 * stay on the host), 8 MiB of KV at ctx 4096. No reserve: the compute buffer
 * predicted from its shape is the whole headroom (placement/cbuf.h: 74.5 MiB
 * at ubatch 512 without flash attention, block 0's kq of 4096 x 512 x 8
 * heads x 4 bytes = 64 MiB beside the mask and the activations; 37.3 at
 * 256; 18.6 at 128). */
static placement_place_in small_llama(gguf_shape *s, int64_t free_mib)
{
    char *path = tu_model("small-llama-q8_0.gguf");
    lvd_err err = {{0}};
    if (gguf_read_shape(path, s, &err) != 0)
        fail_msg("%s", err.msg);
    free(path);
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = s;
    in.ctx = 4096;
    in.free_mib = free_mib;
    in.reserve_mib = 0;
    return in;
}

static void test_factor_moves_the_rung(void **state)
{
    (void)state;
    gguf_shape s;
    /* Fully resident: 11.3 + 8 + 74.5 = 93.8 MiB of 95. */
    placement_place_in in = small_llama(&s, 95);
    placement_result plain, corr;
    assert_int_equal(placement_compute(&in, &plain, NULL), 0);
    assert_int_equal(plain.rung, PLACEMENT_RUNG_FULL);
    assert_true(plain.compute_predicted);
    assert_int_equal(plain.bytes, plain.weight_bytes + plain.kv_bytes + plain.compute_bytes);
    /* up, x1.1: 103 MiB > 95 at ubatch 512; at 256: (11.3 + 8 + 37.3) x 1.1
     * = 62.2 fits: the reduced-ubatch rung. */
    in.margin_factor = 1.1;
    assert_int_equal(placement_compute(&in, &corr, NULL), 0);
    assert_int_equal(corr.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(corr.ubatch, 256);
    assert_non_null(strstr(corr.reason, "x1.100 margin correction"));
    /* down, x0.9: with 90 MiB free the plain estimate (93.8) steps down a
     * rung, the corrected one (84.4) stays fully resident. */
    in.margin_factor = 0;
    in.free_mib = 90;
    assert_int_equal(placement_compute(&in, &plain, NULL), 0);
    assert_int_equal(plain.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    in.margin_factor = 0.9;
    assert_int_equal(placement_compute(&in, &corr, NULL), 0);
    assert_int_equal(corr.rung, PLACEMENT_RUNG_FULL);
    assert_true(corr.bytes < plain.weight_bytes + plain.kv_bytes + 75 * MIB);
    assert_non_null(strstr(corr.reason, "x0.900 margin correction"));
    /* the reserve is the operator's: never scaled */
    in.reserve_mib = 512;
    assert_int_equal(placement_price(&in, -1, 0, &corr, NULL), 0);
    assert_int_equal(corr.bytes, (uint64_t)((double)(corr.weight_bytes + corr.kv_bytes) * 0.9 + 0.5) +
                                     512 * MIB);
    in.margin_factor = 9;
    lvd_err err = {{0}};
    assert_int_equal(placement_compute(&in, &corr, &err), -1);
}

static void test_next_rung(void **state)
{
    (void)state;
    gguf_shape s;
    placement_place_in in = small_llama(&s, 200);
    placement_result full, next;
    assert_int_equal(placement_compute(&in, &full, NULL), 0);
    assert_int_equal(full.rung, PLACEMENT_RUNG_FULL);
    /* The full load ran out of memory: the next rung needs strictly less, and
     * is the ladder's next (the same blocks at ubatch 256, then 128). */
    assert_int_equal(placement_next_rung(&in, (int64_t)full.bytes, &next, NULL), 1);
    assert_int_equal(next.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_int_equal(next.ubatch, 256);
    assert_true(next.bytes < full.bytes);
    /* ... and from each rung on, always less, through partial offload
     * (-ngl 3 at ubatch 128: the output head and 2 blocks, 34.4 MiB; -ngl 4
     * needs 37.1, not a whole MiB below the full 37.9 at 128: from 32
     * tokens on the device runs the host's blocks too, their weights copied
     * into its compute buffer; then -ngl 2, 1) until only -ngl 0 is left. */
    int64_t b = (int64_t)next.bytes;
    int partial = 0, steps = 0, rc;
    while ((rc = placement_next_rung(&in, b, &next, NULL)) == 1 && steps++ < 20) {
        assert_true((int64_t)next.bytes < b);
        b = (int64_t)next.bytes;
        partial |= next.rung == PLACEMENT_RUNG_PARTIAL;
    }
    assert_int_equal(rc, 0);
    assert_true(partial);
    assert_int_equal(steps, 4); /* ub 128; -ngl 3, 2, 1 at ub 128 */
    /* a device that failed with only the compute buffer asked: nothing left */
    assert_int_equal(placement_next_rung(&in, 20 * MIB, &next, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor_rule),
        cmocka_unit_test(test_both_directions),
        cmocka_unit_test(test_factor_moves_the_rung),
        cmocka_unit_test(test_next_rung),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
