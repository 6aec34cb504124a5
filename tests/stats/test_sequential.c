/* test_sequential.c: the sequential statistics of stats/stats.h:
 * Student's t against closed forms and tables, the alpha-spending schedule's
 * values, Welch's interval against hand-computed figures, the obvious case
 * (357x, 4 samples against 6) decided at the first look, the error over 30
 * looks at true ratios 1.00 and 1.03 on seeded arms, and the racing rule
 * (stats_out_of_contention), also through stats_rank. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "stats/rank.h"
#include "stats/stats.h"

/* x[i] = center * exp(noise * N(0,1)): lognormal throughput noise. */
static void synth(stats_rng *rng, double *x, size_t n, double center, double noise)
{
    for (size_t i = 0; i < n; i++)
        x[i] = center * exp(noise * stats_rng_normal(rng));
}

static int rel_close(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fabs(want);
}

/* --- Student's t -------------------------------------------------------- */

static void test_t_distribution(void **state)
{
    (void)state;
    /* df 1 (Cauchy): P(T > t) = 1/2 - atan(t)/pi; far in the tail too */
    double ts[] = {0.3, 1.0, 12.7062, 1e3, 1e6};
    for (size_t i = 0; i < LVD_ARRAY_LEN(ts); i++) {
        double want = atan(1.0 / ts[i]) / M_PI; /* = 1/2 - atan(t)/pi, without cancellation */
        if (!rel_close(stats_t_sf(ts[i], 1.0), want, 1e-10))
            fail_msg("df 1, t %g: %.17g, want %.17g", ts[i], stats_t_sf(ts[i], 1.0), want);
    }
    /* df 2: P(T > t) = (1 - t / sqrt(2 + t^2)) / 2 */
    for (size_t i = 0; i < 4; i++) {
        double t = ts[i], want = (1.0 / (2.0 + t * t)) / (1.0 + t / sqrt(2.0 + t * t));
        assert_true(rel_close(stats_t_sf(t, 2.0), want, 1e-10));
    }
    /* textbook quantiles: t(10, 0.975) = 2.228139, t(4, 0.995) = 4.604095,
     * t(30, 0.9995) = 3.645959 */
    assert_true(fabs(stats_t_isf(0.025, 10) - 2.2281388520) < 1e-8);
    assert_true(fabs(stats_t_isf(0.005, 4) - 4.6040948714) < 1e-8);
    assert_true(fabs(stats_t_isf(0.0005, 30) - 3.6459586350) < 1e-8);
    /* symmetric, normal at infinite df, round trips at fractional df */
    assert_true(fabs(stats_t_sf(-2.0, 7) - (1.0 - stats_t_sf(2.0, 7))) < 1e-15);
    assert_true(fabs(stats_t_sf(1.959963984540054, INFINITY) - 0.025) < 1e-12);
    assert_true(stats_t_sf(0.0, 3.3) == 0.5);
    double qs[] = {0.4, 0.01, 1e-5, 1e-12};
    double dfs[] = {1.0, 2.7, 8.4, 57.9};
    for (size_t i = 0; i < LVD_ARRAY_LEN(qs); i++)
        for (size_t j = 0; j < LVD_ARRAY_LEN(dfs); j++)
            assert_true(rel_close(stats_t_sf(stats_t_isf(qs[i], dfs[j]), dfs[j]), qs[i], 1e-9));
    assert_true(stats_t_isf(0.9, 5) < 0);
    assert_true(isnan(stats_t_isf(0.0, 5)) && isnan(stats_t_isf(0.1, 0)) && isnan(stats_t_sf(1, -1)));
}

/* --- spending ----------------------------------------------------------- */

static void test_alpha_spend(void **state)
{
    (void)state;
    /* alpha_1 = 0.75 alpha, alpha_k = 0.25 alpha * 6 / (pi^2 (k - 1)^2) for k >= 2 */
    assert_true(rel_close(stats_alpha_spend(0.01, 1), 0.0075, 1e-14));
    assert_true(rel_close(stats_alpha_spend(0.01, 2), 0.0015198177546350666, 1e-14));
    assert_true(rel_close(stats_alpha_spend(0.01, 3), 0.00037995443865876665, 1e-14));
    assert_true(rel_close(stats_alpha_spend(0.01, 10), 1.8763182155988477e-05, 1e-14));
    assert_true(stats_alpha_spend(0.01, 0) == 0.0);
    /* never more than alpha in all, however many looks: sum_{k <= N} = alpha
     * (1 - 0.25 x 6 / (pi^2 (N - 1)) + O(1 / N^2)) */
    double sum = 0;
    for (size_t k = 1; k <= 100000; k++)
        sum += stats_alpha_spend(0.01, k);
    assert_true(sum < 0.01);
    assert_true(fabs(sum - 0.01 * (1.0 - 0.25 * 6.0 / (M_PI * M_PI * 99999.0))) < 1e-11);
    /* the level a comparison spends: the look's share over m */
    stats_rule rule;
    stats_rule_default(&rule);
    assert_int_equal(rule.look, 1);
    assert_int_equal(rule.win_min_samples, 3);
    rule.m = 4;
    rule.look = 3;
    double a[] = {100, 101, 99}, b[] = {50, 51, 49};
    stats_summary sa, sb;
    stats_summarize(a, 3, &sa);
    stats_summarize(b, 3, &sb);
    stats_sequential q;
    stats_sequential_interval(&sa, &sb, &rule, &q);
    assert_int_equal(q.look, 3);
    assert_true(q.alpha_look == stats_alpha_spend(0.01, 3) / 4);
}

/* --- the interval ------------------------------------------------------- */

/* Equal spreads and sizes: Welch's df is 2n - 2 and se = sd sqrt(2 / n). */
static void test_interval_hand_computed(void **state)
{
    (void)state;
    double d[] = {-0.01, 0.004, 0.0, 0.012, -0.006};
    double a[5], b[5];
    for (size_t i = 0; i < 5; i++) {
        a[i] = 200.0 * exp(d[i]);
        b[i] = 100.0 * exp(d[i]);
    }
    stats_summary sa, sb;
    stats_summarize(a, 5, &sa);
    stats_summarize(b, 5, &sb);
    double mean = 0, ss = 0;
    for (size_t i = 0; i < 5; i++)
        mean += d[i] / 5;
    for (size_t i = 0; i < 5; i++)
        ss += (d[i] - mean) * (d[i] - mean);
    double sd = sqrt(ss / 4);
    assert_true(fabs(sa.log_mean - (log(200.0) + mean)) < 1e-12);
    assert_true(fabs(sa.log_sd - sd) < 1e-12 && fabs(sb.log_sd - sd) < 1e-12);

    stats_rule rule;
    stats_rule_default(&rule);
    stats_sequential q;
    stats_sequential_interval(&sa, &sb, &rule, &q);
    assert_true(fabs(q.log_ratio - log(2.0)) < 1e-12);
    assert_true(fabs(q.df - 8.0) < 1e-9);
    assert_true(fabs(q.se - sd * sqrt(2.0 / 5.0)) < 1e-12);
    double t = stats_t_isf(stats_alpha_spend(0.01, 1) / 2, 8.0);
    assert_true(fabs(log(q.lo) - (log(2.0) - t * q.se)) < 1e-9);
    assert_true(fabs(log(q.hi) - (log(2.0) + t * q.se)) < 1e-9);
    assert_int_equal(q.n_min, 5);

    /* the contrast with coefficients 1, -1 is the same interval */
    const stats_summary *s[2] = {&sa, &sb};
    double coef[2] = {1, -1};
    stats_sequential c;
    stats_sequential_contrast(s, coef, 2, &rule, &c);
    assert_true(c.lo == q.lo && c.hi == q.hi && c.df == q.df);

    /* below win_min_samples: no interval, no win */
    stats_summarize(a, 2, &sa);
    stats_sequential_interval(&sa, &sb, &rule, &q);
    assert_true(isnan(q.lo) && isnan(q.hi));
    assert_int_equal(q.n_min, 2);
    /* constant arms: the ratio is known exactly */
    double ca[] = {80, 80, 80}, cb[] = {40, 40, 40};
    stats_summarize(ca, 3, &sa);
    stats_summarize(cb, 3, &sb);
    stats_sequential_interval(&sa, &sb, &rule, &q);
    assert_true(fabs(q.lo - 2.0) < 1e-12 && fabs(q.hi - 2.0) < 1e-12);
}

/* --- the obvious case --------------------------------------------------- */

/* A real capture: tg128 at ~2069 t/s on the CPU and ~5.8 t/s on Vulkan
 * (lavapipe), 6 kept samples against 4, with m = 2 (p needed < 0.005). The
 * exact Mann-Whitney p cannot go below 2/210 at this size, and the former
 * rule (min_samples 5) left it undecided; it is a win at the first look. */
static void test_357x_first_look(void **state)
{
    (void)state;
    double cpu[] = {2069.4, 2071.8, 2066.1, 2070.3, 2067.9, 2069.0};
    double vk[] = {5.79, 5.82, 5.80, 5.78};
    stats_rule rule;
    stats_rule_default(&rule);
    rule.m = 2;
    stats_comparison c;
    assert_int_equal(stats_compare(cpu, 6, vk, 4, &rule, &c), 0);
    assert_true(c.ratio > 350 && c.ratio < 360);
    assert_true(fabs(c.p - 2.0 / 210.0) < 1e-12 && c.p > c.p_threshold);
    assert_int_equal(c.outcome, STATS_WIN_A);
    assert_true(c.seq.lo > 300);
    assert_int_equal(stats_settled(&c, &rule), STATS_DECIDED);
    /* the other way round, B wins */
    assert_int_equal(stats_compare(vk, 4, cpu, 6, &rule, &c), 0);
    assert_int_equal(c.outcome, STATS_WIN_B);
    assert_true(c.seq.hi < 1.0 / 300);
    /* and through the ranking the bench makes after its first round */
    stats_rank_arm arms[2] = {{.label = "cpu", .eligible = 1, .x = cpu, .nx = 6},
                              {.label = "vulkan", .eligible = 1, .x = vk, .nx = 4}};
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    lvd_err err = {0};
    assert_int_equal(stats_rank(arms, 2, &o, &r, &err), 0);
    assert_int_equal(r.state, STATS_RANK_WIN);
    assert_int_equal(r.leader, 0);
    stats_ranking_free(&r);
}

/* --- error over repeated looks ------------------------------------------ */

/* Runs trials of two arms at a true ratio, looks 1..30 with k + 2 samples per
 * arm at look k (noise cycling 1, 2, 3 %), and counts the trials in which any
 * look called a win for A (or, for B, any win for B); no stopping, so every
 * look counts (the worst a protocol can do). */
static void wins_over_looks(double ratio, int trials, int *win_a, int *win_b)
{
    enum { LOOKS = 30, N = LOOKS + 2 };
    stats_rule rule;
    stats_rule_default(&rule);
    rule.boot_b = 200; /* the bootstrap decides ties only; wins do not read it */
    *win_a = *win_b = 0;
    for (int t = 0; t < trials; t++) {
        stats_rng rng;
        stats_rng_seed(&rng, 1300 + (uint64_t)t);
        double noise = 0.01 * (double)(1 + t % 3), a[N], b[N];
        synth(&rng, a, N, 100.0 * ratio, noise);
        synth(&rng, b, N, 100.0, noise);
        int wa = 0, wb = 0;
        for (size_t k = 1; k <= LOOKS; k++) {
            rule.look = k;
            stats_comparison c;
            assert_int_equal(stats_compare(a, k + 2, b, k + 2, &rule, &c), 0);
            wa |= c.outcome == STATS_WIN_A;
            wb |= c.outcome == STATS_WIN_B;
        }
        *win_a += wa;
        *win_b += wb;
    }
}

static void test_error_over_looks(void **state)
{
    (void)state;
    int wa, wb;
    /* true 1.00: never a win, at any of 30 looks, in 150 trials */
    wins_over_looks(1.00, 150, &wa, &wb);
    assert_int_equal(wa + wb, 0);
    /* true 1.03, the win threshold: the bound is alpha / 2 = 0.5 % of trials
     * for A; here none of 150 (a fixed-level 95 % CI re-tested every look
     * calls far more, perf/perf_decision) */
    wins_over_looks(1.03, 150, &wa, &wb);
    assert_true(wa <= 1);
    assert_int_equal(wb, 0);
    /* and a real 20 % gap is found within the 30 looks every time */
    wins_over_looks(1.20, 30, &wa, &wb);
    assert_int_equal(wa, 30);
}

/* --- racing ------------------------------------------------------------- */

static void test_out_of_contention(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 4242);
    double leader[8], slow[8], near[8], fast[8];
    synth(&rng, leader, 8, 100, 0.01);
    synth(&rng, slow, 8, 90, 0.01);  /* 10 % slower */
    synth(&rng, near, 8, 99.5, 0.01); /* inside the tie band */
    synth(&rng, fast, 8, 101, 0.01); /* not slower at all */
    stats_rule rule;
    stats_rule_default(&rule);
    stats_summary sl, ss, sn, sf;
    stats_summarize(leader, 8, &sl);
    stats_summarize(slow, 8, &ss);
    stats_summarize(near, 8, &sn);
    stats_summarize(fast, 8, &sf);
    stats_sequential q;
    stats_sequential_interval(&ss, &sl, &rule, &q);
    assert_true(stats_out_of_contention(&q));
    stats_sequential_interval(&sn, &sl, &rule, &q);
    assert_false(stats_out_of_contention(&q));
    stats_sequential_interval(&sf, &sl, &rule, &q);
    assert_false(stats_out_of_contention(&q));
    /* slower, but 3 % with 3 samples is not clear at look 1; 10 % is,
     * and the same 10 % at a far later look (a tiny spent level) is not */
    stats_summarize(slow, 3, &ss);
    stats_summarize(leader, 3, &sl);
    stats_sequential_interval(&ss, &sl, &rule, &q);
    assert_true(stats_out_of_contention(&q));
    rule.look = 1000000;
    stats_sequential_interval(&ss, &sl, &rule, &q);
    assert_false(stats_out_of_contention(&q));
    /* never computed (too few samples, or never filled): never out */
    rule.look = 1;
    stats_summarize(slow, 2, &ss);
    stats_sequential_interval(&ss, &sl, &rule, &q);
    assert_false(stats_out_of_contention(&q));
    stats_sequential none;
    memset(&none, 0, sizeof none);
    assert_false(stats_out_of_contention(&none));

    /* its error: an arm as fast as the leader is put out of contention at no
     * look of 30, in 150 seeded trials (bound alpha / 2 = 0.5 %) */
    int dropped = 0;
    for (int t = 0; t < 150; t++) {
        stats_rng_seed(&rng, 9000 + (uint64_t)t);
        double a[32], b[32];
        synth(&rng, a, 32, 100, 0.02);
        synth(&rng, b, 32, 100, 0.02);
        int out = 0;
        for (size_t k = 1; k <= 30; k++) {
            rule.look = k;
            stats_summarize(a, k + 2, &ss);
            stats_summarize(b, k + 2, &sl);
            stats_sequential_interval(&ss, &sl, &rule, &q);
            out |= stats_out_of_contention(&q);
        }
        dropped += out;
    }
    assert_true(dropped <= 1);

    /* through the ranking: the slow arm is flagged, the near one is not */
    rule.look = 1;
    stats_rank_arm arms[3] = {{.label = "leader", .eligible = 1, .x = leader, .nx = 8},
                              {.label = "slow", .eligible = 1, .x = slow, .nx = 8},
                              {.label = "near", .eligible = 1, .x = near, .nx = 8}};
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    lvd_err err = {0};
    assert_int_equal(stats_rank(arms, 3, &o, &r, &err), 0);
    assert_int_equal(r.leader, 0);
    assert_true(stats_ranking_entry(&r, 1)->out_of_contention);
    assert_false(stats_ranking_entry(&r, 2)->out_of_contention);
    assert_false(stats_ranking_entry(&r, 0)->out_of_contention);
    stats_ranking_free(&r);
}

/* Weighted: the contrast over four series; a pp series of 2 samples calls no
 * win, however large the gap. */
static void test_weighted_sequential(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 77);
    double ax[6], ay[6], bx[6], by[6];
    synth(&rng, ax, 6, 200, 0.01);
    synth(&rng, ay, 6, 2000, 0.01);
    synth(&rng, bx, 6, 100, 0.01);
    synth(&rng, by, 6, 1000, 0.01);
    stats_rule rule;
    stats_rule_default(&rule);
    stats_comparison c;
    assert_int_equal(stats_compare_weighted(ax, 6, ay, 6, bx, 6, by, 6, 0.5, &rule, &c), 0);
    assert_int_equal(c.outcome, STATS_WIN_A);
    assert_true(c.seq.lo > 1.8 && c.seq.hi < 2.2 && c.seq.n_min == 6);
    assert_int_equal(stats_compare_weighted(ax, 6, ay, 2, bx, 6, by, 6, 0.5, &rule, &c), 0);
    assert_int_equal(c.outcome, STATS_UNKNOWN);
    assert_int_equal(c.seq.n_min, 2);
    rule.look = 0;
    assert_int_equal(stats_compare_weighted(ax, 6, ay, 6, bx, 6, by, 6, 0.5, &rule, &c), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_distribution),
        cmocka_unit_test(test_alpha_spend),
        cmocka_unit_test(test_interval_hand_computed),
        cmocka_unit_test(test_357x_first_look),
        cmocka_unit_test(test_error_over_looks),
        cmocka_unit_test(test_out_of_contention),
        cmocka_unit_test(test_weighted_sequential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
