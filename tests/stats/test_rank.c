/* test_rank.c: stats/rank.h on synthetic arms with known truth: the ranking
 * and its decision (win, tie, open, undecided, only-arm, none), Bonferroni's
 * m, ineligible and sample-less arms, the reference arm, the weighted
 * objective (transitivity, the weight moving the leader), objective parsing,
 * a ranking big enough to compare on the cores, and the errors a caller can
 * cause. */
#include "tests/support/testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/rank.h"

#define N_MAX 64

typedef struct synth_arm {
    double x[N_MAX], y[N_MAX];
    size_t nx, ny;
} synth_arm;

/* n lognormal samples around center with relative noise. */
static void fill(stats_rng *rng, double *v, size_t n, double center, double noise)
{
    for (size_t i = 0; i < n; i++)
        v[i] = center * exp(noise * stats_rng_normal(rng));
}

static void arm_in(stats_rank_arm *a, synth_arm *s, const char *label, int eligible)
{
    memset(a, 0, sizeof *a);
    a->label = label;
    a->eligible = eligible;
    a->x = s->x;
    a->nx = s->nx;
    a->y = s->y;
    a->ny = s->ny;
}

static void rank_ok(const stats_rank_arm *arms, size_t n, const stats_rank_opts *o, stats_ranking *r)
{
    lvd_err err = {0};
    int rc = stats_rank(arms, n, o, r, &err);
    if (rc)
        fail_msg("stats_rank: %s", err.msg);
}

/* Three arms of true speeds 100, 120 and 50 (1 % noise, 15 samples): the
 * 120 arm leads and wins against both, with m = 2. */
static void test_three_arms_win(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 11);
    synth_arm s[3] = {0};
    double center[3] = {100, 120, 50};
    stats_rank_arm a[3];
    for (int i = 0; i < 3; i++) {
        s[i].nx = 15;
        fill(&rng, s[i].x, 15, center[i], 0.01);
        arm_in(&a[i], &s[i], "arm", 1);
    }
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    rank_ok(a, 3, &o, &r);
    assert_int_equal(r.state, STATS_RANK_WIN);
    assert_string_equal(stats_rank_state_name(r.state), "win");
    assert_int_equal(r.leader, 1);
    assert_int_equal(r.n_ranked, 3);
    assert_int_equal(r.m, 2);
    assert_int_equal(r.v[0].arm, 1);
    assert_int_equal(r.v[1].arm, 0);
    assert_int_equal(r.v[2].arm, 2);
    assert_int_equal(r.v[2].rank, 3);
    assert_false(r.v[0].has_vs_leader);
    for (int i = 1; i < 3; i++) {
        assert_true(r.v[i].has_vs_leader);
        assert_int_equal(r.v[i].vs_leader.outcome, STATS_WIN_B);
        assert_true(r.v[i].vs_leader.p_threshold == 0.01 / 2);
        assert_int_equal(r.v[i].settle, STATS_DECIDED);
    }
    assert_true(fabs(r.v[1].vs_leader.ratio - 100.0 / 120.0) < 0.02);
    assert_true(r.v[1].vs_leader.ci_lo < 100.0 / 120.0 && r.v[1].vs_leader.ci_hi > 100.0 / 120.0);
    assert_false(stats_ranking_open(&r));
    assert_ptr_equal(stats_ranking_entry(&r, 2), &r.v[2]);
    assert_null(stats_ranking_entry(&r, 7));
    stats_ranking_free(&r);
}

/* Two arms of equal true speed and a slower one: a tie, and the tied arm is
 * named; with a 5 % gap the slower arm is still beaten. */
static void test_tie_named(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 5);
    synth_arm s[3] = {0};
    double center[3] = {200, 200, 190};
    stats_rank_arm a[3];
    for (int i = 0; i < 3; i++) {
        s[i].nx = 30;
        fill(&rng, s[i].x, 30, center[i], 0.005);
        arm_in(&a[i], &s[i], "arm", 1);
    }
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    rank_ok(a, 3, &o, &r);
    assert_int_equal(r.state, STATS_RANK_TIE);
    assert_int_equal(r.n_tied, 1);
    assert_true(r.leader == 0 || r.leader == 1);
    const stats_rank_entry *other = stats_ranking_entry(&r, r.leader == 0 ? 1 : 0);
    assert_true(other->tied_with_leader);
    assert_int_equal(other->vs_leader.outcome, STATS_TIE);
    const stats_rank_entry *slow = stats_ranking_entry(&r, 2);
    assert_false(slow->tied_with_leader);
    assert_int_equal(slow->vs_leader.outcome, STATS_WIN_B);
    assert_int_equal(slow->rank, 3);
    stats_ranking_free(&r);
}

/* Two samples per arm: nothing can be decided yet (win_min_samples 3). Issue
 * 13 changed this from three (min_samples 5 gated every outcome): three
 * samples per arm of a 2x gap are now a win at once (below). */
static void test_too_few_is_open(void **state)
{
    (void)state;
    synth_arm s[2] = {{.x = {100, 101, 99}, .nx = 2}, {.x = {50, 51, 49}, .nx = 2}};
    stats_rank_arm a[2];
    arm_in(&a[0], &s[0], "a", 1);
    arm_in(&a[1], &s[1], "b", 1);
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    rank_ok(a, 2, &o, &r);
    assert_int_equal(r.state, STATS_RANK_OPEN);
    assert_true(stats_ranking_open(&r));
    assert_int_equal(r.n_open, 1);
    assert_int_equal(r.leader, 0);
    assert_int_equal(r.v[1].settle, STATS_OPEN);
    assert_false(r.v[1].out_of_contention);
    stats_ranking_free(&r);

    /* the third sample: a 2x gap is obvious, decided at the first look */
    s[0].nx = s[1].nx = 3;
    arm_in(&a[0], &s[0], "a", 1);
    arm_in(&a[1], &s[1], "b", 1);
    rank_ok(a, 2, &o, &r);
    assert_int_equal(r.state, STATS_RANK_WIN);
    assert_int_equal(r.v[1].vs_leader.outcome, STATS_WIN_B);
    assert_true(r.v[1].out_of_contention);
    stats_ranking_free(&r);
}

/* An ineligible arm (GPU flags ignored, failed) is shown and compared but
 * never leads and never counts in m; an eligible arm without samples keeps
 * the ranking open. */
static void test_ineligible_and_empty(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 3);
    synth_arm s[4] = {0};
    double center[4] = {100, 80, 500, 0};
    for (int i = 0; i < 3; i++) {
        s[i].nx = 12;
        fill(&rng, s[i].x, 12, center[i], 0.01);
    }
    stats_rank_arm a[4];
    arm_in(&a[0], &s[0], "a", 1);
    arm_in(&a[1], &s[1], "b", 1);
    arm_in(&a[2], &s[2], "ignored", 0);
    arm_in(&a[3], &s[3], "pending", 1);
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    rank_ok(a, 4, &o, &r);
    assert_int_equal(r.leader, 0);
    assert_int_equal(r.n_ranked, 2);
    assert_int_equal(r.m, 1);
    assert_int_equal(r.state, STATS_RANK_OPEN); /* the pending arm */
    assert_int_equal(r.n_open, 1);
    const stats_rank_entry *ig = stats_ranking_entry(&r, 2);
    assert_int_equal(ig->rank, 0);
    assert_false(ig->eligible);
    assert_true(ig->has_vs_leader);
    assert_int_equal(ig->vs_leader.outcome, STATS_WIN_A); /* faster, but not a candidate */
    const stats_rank_entry *pend = stats_ranking_entry(&r, 3);
    assert_int_equal(pend->rank, 0);
    assert_false(pend->has_vs_leader);
    assert_true(isnan(pend->score));
    stats_ranking_free(&r);

    /* without the pending arm the verdict is decided on the two candidates */
    rank_ok(a, 3, &o, &r);
    assert_int_equal(r.state, STATS_RANK_WIN);
    stats_ranking_free(&r);

    /* nothing eligible with samples */
    a[0].eligible = a[1].eligible = 0;
    rank_ok(a, 3, &o, &r);
    assert_int_equal(r.state, STATS_RANK_NONE);
    assert_int_equal(r.leader, STATS_NO_ARM);
    stats_ranking_free(&r);

    /* one candidate */
    a[0].eligible = 1;
    rank_ok(a, 3, &o, &r);
    assert_int_equal(r.state, STATS_RANK_ONLY);
    assert_string_equal(stats_rank_state_name(r.state), "only-arm");
    assert_int_equal(r.leader, 0);
    stats_ranking_free(&r);
}

/* The reference arm (the CPU): every other arm is compared with it, the
 * comparison is shown and never counts. */
static void test_reference(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 9);
    synth_arm s[3] = {0};
    double center[3] = {54, 995, 811}; /* the H200 captures: CPU, CUDA fa on, fa off (tg128) */
    stats_rank_arm a[3];
    for (int i = 0; i < 3; i++) {
        s[i].nx = 10;
        fill(&rng, s[i].x, 10, center[i], 0.01);
        arm_in(&a[i], &s[i], "arm", 1);
    }
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    o.ref = 0;
    stats_ranking r;
    rank_ok(a, 3, &o, &r);
    assert_int_equal(r.ref, 0);
    assert_int_equal(r.leader, 1);
    assert_int_equal(r.m, 2);
    const stats_rank_entry *cuda = stats_ranking_entry(&r, 1);
    assert_true(cuda->has_vs_ref);
    assert_int_equal(cuda->vs_ref.outcome, STATS_WIN_A);
    assert_true(fabs(cuda->vs_ref.ratio - 995.0 / 54.0) / (995.0 / 54.0) < 0.03);
    assert_false(stats_ranking_entry(&r, 0)->has_vs_ref);
    stats_ranking_free(&r);

    lvd_err err = {0};
    o.ref = 3;
    assert_int_equal(stats_rank(a, 3, &o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "reference"));
    stats_ranking_free(&r);
}

/* A CI that sits across the win threshold with a half-width under 1 %:
 * nothing more to learn, not decided. Leader 100 against 97.04 (ratio just
 * below 1/1.03), 30 samples each on a fixed grid of +-0.3 %. */
static void test_undecided_edge(void **state)
{
    (void)state;
    synth_arm s[2] = {0};
    for (size_t i = 0; i < 30; i++) {
        double d = 0.003 * ((double)(i % 7) - 3.0) / 3.0;
        s[0].x[i] = 100.0 * (1.0 + d);
        s[1].x[i] = 97.04 * (1.0 - d);
    }
    s[0].nx = s[1].nx = 30;
    stats_rank_arm a[2];
    arm_in(&a[0], &s[0], "lead", 1);
    arm_in(&a[1], &s[1], "edge", 1);
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    rank_ok(a, 2, &o, &r);
    const stats_rank_entry *e = stats_ranking_entry(&r, 1);
    assert_true(e->vs_leader.ci_lo < 0.97 && e->vs_leader.ci_hi > 1.0 / 1.03);
    assert_int_equal(e->vs_leader.outcome, STATS_UNKNOWN);
    assert_int_equal(e->settle, STATS_PRECISE);
    assert_int_equal(r.state, STATS_RANK_UNDECIDED);
    assert_int_equal(r.n_undecided, 1);
    assert_int_equal(r.n_open, 0);
    stats_ranking_free(&r);
}

/* The weighted objective: arm A is 10 % faster on tg and 5 % slower on pp.
 * With W = 0.7, S(A, B) = 1.1^0.7 * 0.95^0.3 = 1.052: A leads and wins; with
 * W = 0.2, S = 1.1^0.2 * 0.95^0.8 = 0.978: B leads. */
static void test_weighted(void **state)
{
    (void)state;
    stats_rng rng;
    stats_rng_seed(&rng, 21);
    synth_arm s[2] = {0};
    s[0].nx = s[0].ny = s[1].nx = s[1].ny = 20;
    fill(&rng, s[0].x, 20, 110, 0.005);
    fill(&rng, s[0].y, 20, 950, 0.005);
    fill(&rng, s[1].x, 20, 100, 0.005);
    fill(&rng, s[1].y, 20, 1000, 0.005);
    stats_rank_arm a[2];
    arm_in(&a[0], &s[0], "A", 1);
    arm_in(&a[1], &s[1], "B", 1);
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    o.w = 0.7;
    stats_ranking r;
    rank_ok(a, 2, &o, &r);
    assert_int_equal(r.leader, 0);
    assert_int_equal(r.state, STATS_RANK_WIN);
    const stats_rank_entry *b = stats_ranking_entry(&r, 1);
    assert_true(fabs(b->vs_leader.ratio - 1.0 / (pow(1.1, 0.7) * pow(0.95, 0.3))) < 0.01);
    assert_true(b->vs_leader.p < 0.01);
    assert_true(isnan(b->vs_leader.u));
    /* transitivity: the score difference is the log of the pairwise ratio */
    assert_true(fabs(exp(b->score - r.v[0].score) - b->vs_leader.ratio) < 1e-12);
    stats_ranking_free(&r);

    o.w = 0.2;
    rank_ok(a, 2, &o, &r);
    assert_int_equal(r.leader, 1);
    const stats_rank_entry *ae = stats_ranking_entry(&r, 0);
    assert_true(fabs(ae->vs_leader.ratio - pow(1.1, 0.2) * pow(0.95, 0.8)) < 0.01);
    stats_ranking_free(&r);

    /* a pp series too short keeps the comparison open (2, below
     * win_min_samples; 3 were too few while min_samples 5 gated wins) */
    s[0].ny = 2;
    arm_in(&a[0], &s[0], "A", 1);
    o.w = 0.7;
    rank_ok(a, 2, &o, &r);
    assert_int_equal(r.state, STATS_RANK_OPEN);
    stats_ranking_free(&r);

    /* identical arms: a tie, and a permutation p far from significance */
    synth_arm t[2] = {0};
    t[0].nx = t[0].ny = t[1].nx = t[1].ny = 30;
    fill(&rng, t[0].x, 30, 100, 0.004);
    fill(&rng, t[0].y, 30, 1000, 0.004);
    fill(&rng, t[1].x, 30, 100, 0.004);
    fill(&rng, t[1].y, 30, 1000, 0.004);
    arm_in(&a[0], &t[0], "A", 1);
    arm_in(&a[1], &t[1], "B", 1);
    o.w = 0.5;
    rank_ok(a, 2, &o, &r);
    assert_int_equal(r.state, STATS_RANK_TIE);
    assert_true(r.v[1].vs_leader.p > 0.05);
    stats_ranking_free(&r);
}

/* Same input, same answer: the bootstrap and the permutations are seeded. */
static void test_weighted_deterministic(void **state)
{
    (void)state;
    double ax[] = {10, 11, 10.5, 10.2, 10.8}, ay[] = {100, 101, 99, 100.5, 100.2};
    double bx[] = {9, 9.5, 9.2, 9.1, 9.3}, by[] = {102, 103, 101, 102.5, 101.8};
    stats_rule rule;
    stats_rule_default(&rule);
    stats_comparison c1, c2;
    assert_int_equal(stats_compare_weighted(ax, 5, ay, 5, bx, 5, by, 5, 0.5, &rule, &c1), 0);
    assert_int_equal(stats_compare_weighted(ax, 5, ay, 5, bx, 5, by, 5, 0.5, &rule, &c2), 0);
    assert_true(c1.ci_lo == c2.ci_lo && c1.ci_hi == c2.ci_hi && c1.p == c2.p);
    assert_true(c1.ci_lo <= c1.ratio && c1.ratio <= c1.ci_hi);
    assert_true(c1.p > 0 && c1.p <= 1);
    /* bad inputs */
    double bad[] = {10, NAN, 10, 10, 10};
    assert_int_equal(stats_compare_weighted(bad, 5, ay, 5, bx, 5, by, 5, 0.5, &rule, &c1), -1);
    assert_int_equal(stats_compare_weighted(ax, 5, ay, 5, bx, 5, by, 5, 1.0, &rule, &c1), -1);
    assert_int_equal(stats_compare_weighted(ax, 0, ay, 5, bx, 5, by, 5, 0.5, &rule, &c1), 0);
    assert_int_equal(c1.outcome, STATS_UNKNOWN);
    assert_string_equal(c1.why, "no samples in an arm");
}

static void test_objective(void **state)
{
    (void)state;
    stats_objective o;
    lvd_err err = {0};
    char name[32];
    stats_objective_default(&o);
    assert_int_equal(o.kind, STATS_OBJ_TG);
    assert_int_equal(stats_objective_parse("pp", &o, &err), 0);
    assert_int_equal(o.kind, STATS_OBJ_PP);
    stats_objective_name(&o, name, sizeof name);
    assert_string_equal(name, "pp");
    assert_int_equal(stats_objective_parse("w=0.7", &o, &err), 0);
    assert_int_equal(o.kind, STATS_OBJ_WEIGHTED);
    stats_objective_name(&o, name, sizeof name);
    assert_string_equal(name, "w=0.70");
    assert_int_equal(stats_objective_parse("0.25", &o, &err), 0);
    assert_true(o.kind == STATS_OBJ_WEIGHTED && o.w == 0.25);
    assert_int_equal(stats_objective_parse("1", &o, &err), 0);
    assert_int_equal(o.kind, STATS_OBJ_TG);
    assert_int_equal(stats_objective_parse("w=0", &o, &err), 0);
    assert_int_equal(o.kind, STATS_OBJ_PP);
    assert_int_equal(stats_objective_parse("1.5", &o, &err), -1);
    assert_non_null(strstr(err.msg, "1.5"));
    assert_int_equal(stats_objective_parse("fast", &o, &err), -1);
    assert_int_equal(stats_objective_parse("", &o, &err), -1);

    stats_objective_parse("tg", &o, &err);
    assert_true(stats_objective_uses(&o, 0, 128));
    assert_false(stats_objective_uses(&o, 512, 0));
    assert_false(stats_objective_uses(&o, 512, 128));
    stats_objective_parse("pp", &o, &err);
    assert_true(stats_objective_uses(&o, 512, 0));
    assert_false(stats_objective_uses(&o, 0, 128));
    stats_objective_parse("0.5", &o, &err);
    assert_true(stats_objective_uses(&o, 512, 0) && stats_objective_uses(&o, 0, 128));
    assert_false(stats_objective_uses(&o, 512, 128));
}

static void test_errors_and_json(void **state)
{
    (void)state;
    synth_arm s[2] = {{.x = {1, 2, 3}, .nx = 3}, {.x = {1, -2, 3}, .nx = 3}};
    stats_rank_arm a[2];
    arm_in(&a[0], &s[0], "good", 1);
    arm_in(&a[1], &s[1], "negative", 1);
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    stats_ranking r;
    lvd_err err = {0};
    assert_int_equal(stats_rank(a, 2, &o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "negative"));
    stats_ranking_free(&r);
    o.w = 1.0;
    assert_int_equal(stats_rank(a, 1, &o, &r, &err), -1);
    stats_ranking_free(&r);

    /* an empty list is NONE, not an error */
    stats_rank_opts_init(&o);
    rank_ok(NULL, 0, &o, &r);
    assert_int_equal(r.state, STATS_RANK_NONE);
    stats_ranking_free(&r);

    double x[] = {10, 11, 12, 13, 14}, y[] = {20, 21, 22, 23, 24};
    stats_rule rule;
    stats_rule_default(&rule);
    stats_comparison c;
    stats_compare(x, 5, y, 5, &rule, &c);
    cJSON *j = stats_comparison_json(&c);
    assert_string_equal(cJSON_GetObjectItem(j, "outcome")->valuestring, stats_outcome_name(c.outcome));
    assert_true(fabs(cJSON_GetObjectItem(j, "ratio")->valuedouble - 12.0 / 22.0) < 1e-12);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "ci")), 2);
    assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "seq"), 0)->valuedouble == c.seq.lo);
    assert_true(cJSON_GetObjectItem(j, "look")->valuedouble == 1);
    cJSON_Delete(j);
    stats_compare(x, 0, y, 5, &rule, &c);
    j = stats_comparison_json(&c);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ratio")));
    cJSON_Delete(j);
}

/* Sixteen arms of 30 samples with a reference: enough resamples that the
 * comparisons run on the cores (rank.c, RANK_PARALLEL_WORK). Each entry's
 * comparison against the leader and against the reference is the one
 * stats_compare gives for that pair alone (m = the ranked arms less one),
 * field for field: no slot mixed up, no generator shared between them. */
static void test_many_arms_same_as_pairwise(void **state)
{
    (void)state;
    enum { N = 16, S = 30 };
    stats_rng rng;
    stats_rng_seed(&rng, 16);
    static synth_arm s[N];
    stats_rank_arm a[N];
    for (int i = 0; i < N; i++) {
        s[i].nx = S;
        fill(&rng, s[i].x, S, 100.0 + 3.0 * i, 0.02);
        arm_in(&a[i], &s[i], "arm", 1);
    }
    stats_rank_opts o;
    stats_rank_opts_init(&o);
    o.ref = 0;
    stats_ranking r;
    rank_ok(a, N, &o, &r);
    assert_int_equal(r.leader, N - 1);
    stats_rule rule = o.rule;
    rule.m = N - 1;
    for (size_t k = 0; k < r.n; k++) {
        const stats_rank_entry *e = &r.v[k];
        stats_comparison want;
        assert_int_equal(e->has_vs_leader, e->arm != r.leader);
        if (e->has_vs_leader) {
            assert_int_equal(stats_compare(a[e->arm].x, S, a[r.leader].x, S, &rule, &want), 0);
            assert_true(e->vs_leader.ratio == want.ratio && e->vs_leader.ci_lo == want.ci_lo &&
                        e->vs_leader.ci_hi == want.ci_hi && e->vs_leader.p == want.p &&
                        e->vs_leader.seq.lo == want.seq.lo && e->vs_leader.seq.hi == want.seq.hi);
            assert_int_equal(e->vs_leader.outcome, want.outcome);
        }
        assert_int_equal(e->has_vs_ref, e->arm != 0);
        if (e->has_vs_ref) {
            assert_int_equal(stats_compare(a[e->arm].x, S, a[0].x, S, &rule, &want), 0);
            assert_true(e->vs_ref.ratio == want.ratio && e->vs_ref.ci_lo == want.ci_lo &&
                        e->vs_ref.ci_hi == want.ci_hi && e->vs_ref.p == want.p);
        }
    }
    stats_ranking_free(&r);

    /* a comparison that fails (no resamples: an invalid rule) fails the ranking with its reason */
    o.rule.boot_b = 0;
    lvd_err err = {0};
    assert_int_equal(stats_rank(a, N, &o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "ranking: invalid rule"));
    stats_ranking_free(&r);
}

/* The CPU reference: the first usable cpu arm in the caller's order. */
static void test_cpu_reference(void **state)
{
    (void)state;
    const char *backend[] = {"cuda", "cpu", "vulkan", "cpu", NULL};
    int usable[] = {1, 0, 1, 1, 1};
    assert_int_equal(stats_cpu_reference(backend, NULL, 5), 1);
    assert_int_equal(stats_cpu_reference(backend, usable, 5), 3);
    usable[3] = 0;
    assert_int_equal(stats_cpu_reference(backend, usable, 5), STATS_NO_ARM);
    assert_int_equal(stats_cpu_reference(backend, NULL, 1), STATS_NO_ARM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_reference),
        cmocka_unit_test(test_three_arms_win),
        cmocka_unit_test(test_tie_named),
        cmocka_unit_test(test_too_few_is_open),
        cmocka_unit_test(test_ineligible_and_empty),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_undecided_edge),
        cmocka_unit_test(test_weighted),
        cmocka_unit_test(test_weighted_deterministic),
        cmocka_unit_test(test_objective),
        cmocka_unit_test(test_errors_and_json),
        cmocka_unit_test(test_many_arms_same_as_pairwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
