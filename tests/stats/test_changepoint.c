/* test_changepoint.c: stats/changepoint.h on synthetic histories of nightly
 * medians: a flat one (no change point), a step (found where it is, with its
 * size and CI), two steps, bad input; and the false-alarm rate on flat
 * histories, measured and printed (docs/evidence.md, "Drift the builds did not cause": the figure
 * quoted there). */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>

#include "stats/changepoint.h"
#include "stats/stats.h"

#define N 30

static void history(stats_rng *rng, double *x, size_t n, double noise, size_t step_at, double step)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 100.0 * (i >= step_at ? step : 1.0) * exp(noise * stats_rng_normal(rng));
}

static void test_flat(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 1);
    double x[N];
    history(&rng, x, N, 0.01, N, 1.0);
    stats_cp_opts o;
    stats_cp_default(&o);
    stats_changepoint cp[4];
    size_t n = 9;
    assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), 0);
    assert_int_equal(n, 0);
}

static void test_step(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 2);
    double x[N];
    history(&rng, x, N, 0.01, 18, 0.92);
    stats_cp_opts o;
    stats_cp_default(&o);
    stats_changepoint cp[4];
    size_t n = 0;
    assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].at, 18);
    assert_true(cp[0].ratio > 0.90 && cp[0].ratio < 0.94);
    assert_true(cp[0].ci_lo <= cp[0].ratio && cp[0].ratio <= cp[0].ci_hi && cp[0].ci_hi < 0.97);
    assert_true(cp[0].p < o.alpha);
}

static void test_two_steps(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 3);
    double x[N];
    history(&rng, x, N, 0.01, 10, 0.90);
    for (size_t i = 20; i < N; i++)
        x[i] *= 1.15;
    stats_cp_opts o;
    stats_cp_default(&o);
    stats_changepoint cp[4];
    size_t n = 0;
    assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(cp[0].at, 10);
    assert_int_equal(cp[1].at, 20);
    assert_true(cp[0].ratio < 1 && cp[1].ratio > 1);
}

static void test_small_step_and_errors(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 4);
    double x[N];
    history(&rng, x, N, 0.002, 15, 0.985); /* real but under min_step: not drift worth a flag */
    stats_cp_opts o;
    stats_cp_default(&o);
    stats_changepoint cp[4];
    size_t n = 0;
    assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(stats_changepoints(x, 6, &o, cp, 4, &n), 0); /* too short to test */
    assert_int_equal(n, 0);
    x[3] = -1;
    assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), -1);
    x[3] = 100;
    o.min_window = 1;
    assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), -1);
}

/* The false-alarm rate: flat histories of 30 nights, any change point found
 * is a false alarm. Printed for docs/evidence.md; bounded so a looser rule fails. */
static void test_false_alarm_rate(void **state)
{
    (void)state;
    const double noise[] = {0.005, 0.01, 0.02};
    const size_t runs = 2000;
    stats_cp_opts o;
    stats_cp_default(&o);
    o.boot_b = 200; /* the CI does not decide a flag */
    for (size_t j = 0; j < 3; j++) {
        stats_rng rng;
        stats_rng_seed(&rng, 100 + j);
        size_t alarms = 0;
        for (size_t r = 0; r < runs; r++) {
            double x[N];
            history(&rng, x, N, noise[j], N, 1.0);
            stats_changepoint cp[4];
            size_t n = 0;
            assert_int_equal(stats_changepoints(x, N, &o, cp, 4, &n), 0);
            alarms += n > 0;
        }
        double rate = (double)alarms / (double)runs;
        printf("changepoint false alarms: %zu of %zu flat 30-night histories at %.1f %% noise (%.2f %%)\n",
               alarms, runs, noise[j] * 100, rate * 100);
        if (noise[j] <= 0.01)
            assert_true(rate <= 0.005);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_step),
        cmocka_unit_test(test_two_steps),
        cmocka_unit_test(test_small_step_and_errors),
        cmocka_unit_test(test_false_alarm_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
