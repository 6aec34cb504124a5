/* test_reps.c: bench/reps.h's night-2 rules on a hand-made session (no
 * engine, no store: last night's record set by hand as bench/prices.c would
 * seed it): an arm far behind last night's leader gets exactly
 * win_min_samples on its first invocation (one more when it dropped a
 * sample of the objective's test then), a group of such arms runs without
 * A B .. B A, and --no-warmup from the first invocation only for arms that
 * ran steady without the warm-up run last night (more than one process, no
 * drop), never after a drop tonight. */
#include "tests/testutil.h"

#include <string.h>

#include "bench/group.h"
#include "bench/reps.h"
#include "bench/runner.h"

#define ARMS 5

typedef struct fx {
    bench_plan plan;
    bench_arm arms[ARMS];
    bench_arm_state st[ARMS];
    bench_series series[ARMS];
    bench_session s;
    bench_cost c;
} fx;

static bench_test tg1[] = {{"tg128", 0, 128, 0}};

/* Five arms, one tg test, nothing run tonight; last night (one process
 * each, a pp sample dropped each): mean tg128 samples of 100 ms (the
 * leader), 130 ms, 4000 ms and 4400 ms (out by far), and one arm unseen. */
static void fx_init(fx *f)
{
    memset(f, 0, sizeof *f);
    f->plan.arms = f->arms;
    f->plan.n_arms = ARMS;
    static const double ms[ARMS] = {100, 130, 4000, 4400, 0};
    for (size_t i = 0; i < ARMS; i++) {
        f->st[i].series = &f->series[i];
        f->st[i].cost.seed_obj_ms = ms[i];
        f->st[i].cost.seed_procs = ms[i] > 0;
        f->st[i].cost.seed_dropped = ms[i] > 0;
    }
    f->s.plan = &f->plan;
    f->s.st = f->st;
    f->s.o.inv.tests = tg1;
    f->s.o.inv.n_tests = 1;
    f->s.o.max_samples = 30;
    stats_objective_default(&f->s.o.objective);
    stats_rule_default(&f->s.o.rule);
}

static int reps_of(fx *f, size_t *arms, size_t n, int abba)
{
    bench_group g = {.arms = arms, .n = n, .abba = abba};
    double rep_max;
    return bench_reps_group(&f->s, &g, &f->c, &rep_max) * (int)bench_group_slots(&g);
}

static void test_far_behind(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    int win = (int)f.s.o.rule.win_min_samples;
    assert_false(bench_reps_far_behind(&f.s, 0));
    assert_false(bench_reps_far_behind(&f.s, 1)); /* 0.77 of the leader: in contention */
    assert_true(bench_reps_far_behind(&f.s, 2));
    assert_true(bench_reps_far_behind(&f.s, 3));
    assert_false(bench_reps_far_behind(&f.s, 4)); /* unseen: nothing known */
    size_t a1 = 1, a2 = 2;
    assert_int_equal(reps_of(&f, &a1, 1, -1), win + 1); /* the first look, its spare kept */
    assert_int_equal(reps_of(&f, &a2, 1, -1), win);     /* no spare */
    f.st[2].cost.seed_obj_dropped = 1;                 /* it dropped a tg sample then */
    assert_int_equal(reps_of(&f, &a2, 1, -1), win + 1);
}

static void test_abba(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    size_t far[] = {2, 3}, mixed[] = {1, 2};
    bench_group g = {.arms = far, .n = 2, .abba = BENCH_CTX_FA};
    assert_false(bench_reps_abba(&f.s, &g));
    g.abba = -1;
    assert_int_equal(bench_group_slots(&g), 1);
    assert_int_equal(reps_of(&f, far, 2, -1), (int)f.s.o.rule.win_min_samples);
    f.s.o.inv.reps = 3; /* an -r the user gave: the order as before */
    assert_true(bench_reps_abba(&f.s, &g));
    f.s.o.inv.reps = 0;
    g.arms = mixed;
    assert_true(bench_reps_abba(&f.s, &g));
    g.arms = far;
    f.st[3].runs = 1; /* a later invocation: A B .. B A again */
    assert_true(bench_reps_abba(&f.s, &g));
}

static void test_no_warmup(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    size_t a = 0;
    bench_group g = {.arms = &a, .n = 1, .abba = -1};
    f.st[0].cost.seed_dropped = 0;
    assert_false(bench_reps_no_warmup(&f.s, &g)); /* one process: its warm-up run hid a cold start */
    f.st[0].cost.seed_procs = 2;
    assert_true(bench_reps_no_warmup(&f.s, &g));  /* steady without it last night */
    f.st[0].cost.seed_dropped = 1;
    assert_false(bench_reps_no_warmup(&f.s, &g));
    f.st[0].cost.seed_dropped = 0;
    f.st[0].runs_ok = 1;
    f.st[0].dropped = 1; /* tonight's first drop brings the warm-up run back */
    assert_false(bench_reps_no_warmup(&f.s, &g));
    f.st[0].dropped = 0;
    f.s.o.inv.reps = 3; /* an -r the user gave: llama-bench's own behaviour */
    assert_false(bench_reps_no_warmup(&f.s, &g));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_behind),
        cmocka_unit_test(test_abba),
        cmocka_unit_test(test_no_warmup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
