/* test_voi.c: the value-of-information rule's guards (bench/voi.h) on a
 * session built by hand (two priced arms, one open comparison): a look is
 * bought whatever its price while the comparison is obvious (its CI past a
 * factor of 2), and the need held against max_samples does not trust a
 * lucky first estimate (bench_reps_want_sure); the stop's arithmetic and
 * the predictive power it weighs. No process runs. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cost.h"
#include "bench/group.h"
#include "bench/prices.h"
#include "bench/reps.h"
#include "bench/runner.h"
#include "bench/voi.h"

static bench_test tg1[] = {{"tg128", 0, 128, 0}};

typedef struct vfx {
    bench_arm arms[2];
    bench_plan plan;
    bench_arm_state st[2];
    bench_series series[2];
    stats_rank_entry v[2];
    stats_ranking r;
    bench_session s;
} vfx;

/* Arm 0 leads, arm 1 is open against it at `ratio` (arm 1 over arm 0) with
 * log se `se` at n samples an arm, its CI ratio x exp(-/+ 2.45 se); both
 * arms priced (rep_ms a repetition, a 20 s load), the first look's engine
 * time ref_ms. */
static void vfx_init(vfx *f, double ratio, double se, size_t n, int64_t ref_ms, double rep_ms)
{
    memset(f, 0, sizeof *f);
    static char bin0[] = "/e/a/llama-bench", bin1[] = "/e/b/llama-bench", l0[] = "a", l1[] = "b";
    char *bins[2] = {bin0, bin1}, *labels[2] = {l0, l1};
    for (size_t i = 0; i < 2; i++) {
        f->arms[i].engine_id = (int64_t)i + 1;
        f->arms[i].binary = bins[i];
        f->arms[i].label = labels[i];
        lvd_params_init(&f->arms[i].params);
        f->series[i].n_kept = n;
        f->st[i].series = &f->series[i];
        bench_arm_cost_observe(&f->st[i].cost, (int)n, rep_ms * (double)n, rep_ms);
        f->st[i].runs = f->st[i].runs_ok = 1;
    }
    f->plan = (bench_plan){.arms = f->arms, .n_arms = 2};
    f->v[0] = (stats_rank_entry){.arm = 0, .rank = 1, .eligible = 1};
    f->v[1] = (stats_rank_entry){.arm = 1, .rank = 2, .eligible = 1, .has_vs_leader = 1};
    stats_comparison *c = &f->v[1].vs_leader;
    stats_comparison_clear(c);
    c->seq = (stats_sequential){.look = 1, .n_min = n, .log_ratio = log(ratio), .se = se, .df = 2.0 * (double)(n - 1)};
    c->ratio = ratio;
    c->ci_lo = ratio * exp(-2.45 * se);
    c->ci_hi = ratio * exp(2.45 * se);
    f->r = (stats_ranking){.v = f->v, .n = 2, .n_ranked = 2, .leader = 0, .ref = STATS_NO_ARM, .m = 1,
                           .state = STATS_RANK_OPEN};
    bench_session *s = &f->s;
    s->plan = &f->plan;
    s->st = f->st;
    s->by_test = &f->r;
    s->o.inv.tests = tg1;
    s->o.inv.n_tests = 1;
    s->o.max_samples = 30;
    stats_objective_default(&s->o.objective);
    stats_rule_default(&s->o.rule);
    s->rounds = 1;
    s->voi_ref_ms = ref_ms;
    for (size_t i = 0; i < 2; i++)
        bench_cost_observe(bench_prices_of(s, &f->arms[i]), 20000 + rep_ms * (double)n, rep_ms * (double)n);
}

static void vfx_free(vfx *f)
{
    for (size_t i = 0; i < f->s.n_costs; i++)
        free(f->s.costs[i].key);
    free(f->s.costs);
}

/* The look after the first, over both arms alone. */
static bench_voi plan_look(vfx *f)
{
    bench_group g[2] = {{.arms = (size_t[]){0}, .n = 1, .abba = -1}, {.arms = (size_t[]){1}, .n = 1, .abba = -1}};
    unsigned char need[2] = {1, 1};
    bench_voi v;
    bench_voi_plan(&f->s, g, 2, need, &v);
    return v;
}

/* The rule of an obvious comparison, on its CI alone. */
static void test_obvious_rule(void **state)
{
    (void)state;
    stats_comparison c;
    stats_comparison_clear(&c);
    c.ci_lo = 0.004, c.ci_hi = 0.006;
    assert_true(bench_voi_obvious(&c));   /* 200x slower */
    c.ci_lo = 2.1, c.ci_hi = 3;
    assert_true(bench_voi_obvious(&c));   /* 2.5x faster */
    c.ci_lo = 0.3, c.ci_hi = 0.45;
    assert_true(bench_voi_obvious(&c));   /* wholly below 1/2 */
    c.ci_lo = 0.3, c.ci_hi = 0.55;
    assert_false(bench_voi_obvious(&c));  /* reaches past 1/2 */
    c.ci_lo = 1.9, c.ci_hi = 3;
    assert_false(bench_voi_obvious(&c));
}

/* A second look of two 20 s loads, against a first look that cost 1 s and
 * would decide about once in every session: not worth its price for a
 * comparison 0.6x (3 samples an arm, log se 0.05), bought for one 100x apart
 * (the obvious guard). */
static void test_obvious_guard(void **state)
{
    (void)state;
    vfx f;
    vfx_init(&f, 0.6, 0.05, 3, 1000, 100);
    assert_int_equal(plan_look(&f).decide, 0);
    vfx_free(&f);
    vfx_init(&f, 0.01, 0.05, 3, 1000, 100);
    assert_int_equal(plan_look(&f).decide, 1);
    vfx_free(&f);
}

/* A true 1.05 at 3 % noise read as 1.08 at 10 samples an arm: today's
 * estimate needs about 25 samples an arm, within max_samples 30; from the
 * CI's end nearer to 1 (1.045) it needs over 30, so no look is bought at any
 * price; read as 1.12 the sure need fits and the look is bought. */
static void test_lucky_estimate(void **state)
{
    (void)state;
    vfx f;
    vfx_init(&f, 1.08, 0.0134, 10, 1000000, 100);
    assert_true(bench_reps_want(&f.s, 1) <= 30);
    assert_true(bench_reps_want_sure(&f.s, 1) > 30);
    assert_int_equal(plan_look(&f).decide, 0);
    vfx_free(&f);
    vfx_init(&f, 1.12, 0.0134, 10, 1000000, 100);
    assert_true(bench_reps_want_sure(&f.s, 1) <= 30);
    assert_int_equal(plan_look(&f).decide, 1);
    vfx_free(&f);
}

/* The stop's arithmetic (bench_voi_worth): a look is worth it when its
 * price per expected decision is at most the first look's (T1 / p1). */
static void test_voi_worth(void **state)
{
    (void)state;
    assert_false(bench_voi_worth(60000, 0.8, 67000, 0.95)); /* 75 s against 70.5 s */
    assert_true(bench_voi_worth(60000, 0.9, 67000, 0.95));  /* 66.7 s */
    assert_true(bench_voi_worth(60000, 0.3, 67000, 0.3));   /* 200 s against 223 s: a rare decision */
    assert_true(bench_voi_worth(1e6, 0.01, 67000, 0));      /* a first look that decides nothing */
    assert_false(bench_voi_worth(1, 0, 67000, 0));          /* a look that decides nothing */
}

/* The predictive power (bench_voi_power) of a comparison at n_min samples. */
static double power_of(double ratio, double se, size_t n, size_t n_add)
{
    stats_rule rule;
    stats_rule_default(&rule);
    stats_comparison c;
    stats_comparison_clear(&c);
    c.seq.look = 1;
    c.seq.n_min = n;
    c.seq.log_ratio = log(ratio);
    c.seq.se = se;
    c.seq.df = 2.0 * (double)(n - 1);
    c.ratio = ratio;
    c.ci_lo = ratio * exp(-2.45 * se);
    c.ci_hi = ratio * exp(2.45 * se);
    return n_add ? bench_voi_power(&rule, 1, &c, n_add) : bench_voi_replicate(&rule, 1, &c);
}

/* A clear gap just short of the win threshold's interval is decided by the
 * next look; a ratio on the threshold about half the time at most; more
 * samples buy more power; a tie well inside the band at 1 % noise is called,
 * one at 3 % noise is not by one more sample; a fresh first look decides a
 * clear gap, seldom one near the threshold or a tie at 3 % noise. */
static void test_voi_power(void **state)
{
    (void)state;
    assert_true(power_of(1.06, 0.008, 9, 10) > 0.9);
    assert_true(power_of(1.03, 0.008, 9, 10) < 0.5);
    assert_true(power_of(1.045, 0.008, 9, 20) > power_of(1.045, 0.008, 9, 3));
    assert_true(power_of(1.0, 0.0047, 9, 10) > 0.9);            /* 1 % noise: a tie */
    assert_true(power_of(1.0, 0.014, 9, 1) < 0.2);              /* 3 % noise, one more sample */
    /* n_add 0: the replicate power of a fresh first look */
    assert_true(power_of(1.08, 0.005, 9, 0) > 0.9);
    assert_true(power_of(1.035, 0.008, 9, 0) < 0.2);
    assert_true(power_of(1.0, 0.014, 9, 0) < 0.2);              /* 3 % noise: no tie at 9 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voi_worth),
        cmocka_unit_test(test_voi_power),
        cmocka_unit_test(test_obvious_rule),
        cmocka_unit_test(test_obvious_guard),
        cmocka_unit_test(test_lucky_estimate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
