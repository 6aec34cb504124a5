/* test_drift.c: evidence/drift.h on synthetic nightly histories: a flat one
 * (no flag), a step while the build stayed the same (flagged as drift, with
 * the driver change that night), a step at a build change (attributed to the
 * build, not drift), a step under the same build with no recorded fact
 * changing (said so). */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "evidence/drift.h"
#include "stats/stats.h"

#define N 20
#define DAY 86400
#define T0 1793491200 /* 2026-11-01 */

typedef struct hist {
    char sessions[N][16];
    ev_drift_point p[N];
    ev_drift_fact f[N];
} hist;

/* N nights at 1 % noise; from night step on, speed x factor; builds and
 * drivers switch at build_at and driver_at. */
static void make(hist *h, size_t step, double factor, size_t build_at, size_t driver_at)
{
    stats_rng rng;
    stats_rng_seed(&rng, 42);
    for (size_t i = 0; i < N; i++) {
        snprintf(h->sessions[i], sizeof h->sessions[i], "night-%02zu", i);
        h->p[i] = (ev_drift_point){.at = T0 + (int64_t)i * DAY, .session = h->sessions[i],
                                   .build = i >= build_at ? "b201" : "b200",
                                   .median = 500 * (i >= step ? factor : 1.0) * exp(0.01 * stats_rng_normal(&rng))};
        h->f[i] = (ev_drift_fact){.session = h->sessions[i], .name = "driver",
                                  .value = i >= driver_at ? "565.57" : "560.35"};
    }
}

static void run(hist *h, ev_drift_flag **v, size_t *n)
{
    *v = NULL;
    *n = 0;
    lvd_err err = {0};
    assert_int_equal(ev_drift_series("tg128 on CUDA0", h->p, N, h->f, N, v, n, &err), 0);
}

static void test_flat(void **state)
{
    (void)state;
    hist h;
    make(&h, N, 1.0, N, 8); /* the driver changed, the speed did not: nothing to say */
    ev_drift_flag *v;
    size_t n;
    run(&h, &v, &n);
    assert_int_equal(n, 0);
    ev_drift_flags_free(v, n);
}

static void test_drift_with_driver(void **state)
{
    (void)state;
    hist h;
    make(&h, 11, 0.92, N, 11);
    ev_drift_flag *v;
    size_t n;
    run(&h, &v, &n);
    assert_int_equal(n, 1);
    assert_false(v[0].by_build);
    assert_string_equal(v[0].date, "2026-11-12");
    assert_true(v[0].ratio > 0.90 && v[0].ratio < 0.94 && v[0].hi < 1);
    assert_non_null(strstr(v[0].line, " since 2026-11-12; engine unchanged (b200); driver 560.35 -> 565.57"));
    assert_int_equal(strncmp(v[0].line, "tg128 on CUDA0 -", 16), 0);
    printf("%s\n", v[0].line);
    ev_drift_flags_free(v, n);
}

static void test_step_at_build(void **state)
{
    (void)state;
    hist h;
    make(&h, 9, 0.90, 9, N);
    ev_drift_flag *v;
    size_t n;
    run(&h, &v, &n);
    assert_int_equal(n, 1);
    assert_true(v[0].by_build);
    assert_non_null(strstr(v[0].line, "build b200 -> b201 (the build's, not drift)"));
    assert_null(strstr(v[0].line, "engine unchanged"));
    ev_drift_flags_free(v, n);
}

static void test_drift_no_fact(void **state)
{
    (void)state;
    hist h;
    make(&h, 10, 1.08, N, N);
    ev_drift_flag *v;
    size_t n;
    run(&h, &v, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(v[0].line, "engine unchanged (b200); no recorded host fact changed"));
    ev_drift_flags_free(v, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_drift_with_driver),
        cmocka_unit_test(test_step_at_build),
        cmocka_unit_test(test_drift_no_fact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
