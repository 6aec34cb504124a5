/* test_reps.c: bench/reps.h's night-2 rules on a hand-made session (no
 * engine, no store: last night's record set by hand as bench/prices.c would
 * seed it): an arm far behind last night's leader gets exactly
 * win_min_samples on its first invocation (one more when it dropped a
 * sample of the objective's test then), a group of such arms runs without
 * A B .. B A, and --no-warmup from the first invocation only for arms that
 * ran steady without the warm-up run last night (more than one process, no
 * drop), never after a drop tonight; and the first look of a night with no
 * record: a look's groups GPU keys first, a hardware GPU's shared pair sized
 * for a tie while no leader is measured, later keys raced against the leader
 * once one is. */
#include "tests/support/testutil.h"

#include <stdio.h>
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
    stats_ranking r;
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
    f->r = (stats_ranking){.leader = STATS_NO_ARM, .ref = STATS_NO_ARM, .state = STATS_RANK_OPEN};
    f->s.by_test = &f->r;
}

/* A first night: no record; arms 0 and 1 fa on and off of a hardware GPU,
 * arm 2 the same GPU with an environment variant, arm 3 the CPU, arm 4 a
 * software rasterizer (lavapipe). */
static void fx_first_night(fx *f)
{
    fx_init(f);
    static const char *const dev[ARMS] = {"NVIDIA H200", "NVIDIA H200", "NVIDIA H200", "", "llvmpipe (LLVM 15.0.7, 256 bits)"};
    for (size_t i = 0; i < ARMS; i++) {
        memset(&f->st[i].cost, 0, sizeof f->st[i].cost);
        lvd_params_init(&f->arms[i].params);
        f->arms[i].gpu = i != 3;
        snprintf(f->arms[i].device_name, sizeof f->arms[i].device_name, "%s", dev[i]);
    }
    snprintf(f->arms[2].params.env, sizeof f->arms[2].params.env, "GGML_VK_PREFER_HOST_MEMORY=1");
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

/* A look's groups in the order of bench_groups_order: the hardware GPU's
 * key, its environment variant, then the host's (the CPU, the software
 * device) in plan order. */
static void test_order(void **state)
{
    (void)state;
    fx f;
    fx_first_night(&f);
    size_t cpu = 3, soft = 4, env = 2, pair[] = {0, 1};
    bench_group g[4] = {{.arms = &cpu, .n = 1}, {.arms = &soft, .n = 1}, {.arms = &env, .n = 1},
                        {.arms = pair, .n = 2}};
    bench_groups_order(&f.plan, g, 4);
    assert_ptr_equal(g[0].arms, pair);
    assert_ptr_equal(g[1].arms, &env);
    assert_ptr_equal(g[2].arms, &cpu);
    assert_ptr_equal(g[3].arms, &soft);
    assert_int_equal(bench_group_class(&f.plan, &g[3]), BENCH_CLASS_HOST);
}

/* The first look on a first night: before any leader, the GPU's shared pair
 * takes min_samples an arm (-r 3 x 2: a tie between fa on and off can be
 * called in one load; not when those repetitions cost more than a load) and
 * a lone key win_min_samples + 1; once a leader
 * holds samples, the environment variant and the CPU take win_min_samples
 * (one more once an arm dropped a sample of the objective's test), a GPU
 * key one more, in a plain list (no A B B A: they race a leader in another
 * process). */
static void test_first_look(void **state)
{
    (void)state;
    fx f;
    fx_first_night(&f);
    int win = (int)f.s.o.rule.win_min_samples, min = (int)f.s.o.rule.min_samples;
    size_t pair[] = {0, 1}, env = 2, cpu = 3;
    assert_int_equal(reps_of(&f, pair, 2, BENCH_CTX_FA), 2 * ((min + 1) / 2));
    bench_cost_observe(&f.c, 2000, 1000); /* a 1 s load, 10 s repetitions: a tie is not worth them */
    for (size_t i = 0; i < 2; i++)
        bench_arm_cost_observe(&f.st[i].cost, 1, 10000, 10000);
    assert_int_equal(reps_of(&f, pair, 2, BENCH_CTX_FA), 2 * ((win + 2) / 2));
    memset(&f.c, 0, sizeof f.c);
    assert_int_equal(reps_of(&f, &cpu, 1, -1), win + 1);
    f.series[0].n_kept = f.series[1].n_kept = 6; /* the pair measured: arm 0 leads */
    f.r.leader = 0;
    assert_int_equal(reps_of(&f, &cpu, 1, -1), win);
    assert_int_equal(reps_of(&f, &env, 1, -1), win);
    size_t gpu2[] = {2, 4};
    f.arms[2].params.env[0] = '\0'; /* arm 2 a hardware GPU key now */
    bench_group g = {.arms = gpu2, .n = 2, .abba = BENCH_CTX_FA};
    assert_false(bench_reps_abba(&f.s, &g));
    assert_int_equal(reps_of(&f, &gpu2[0], 1, -1), win + 1);
    f.st[2].cost.seed_procs = 1; /* night 2, no drop then: a GPU key keeps its one more */
    assert_int_equal(reps_of(&f, &gpu2[0], 1, -1), win + 1);
    f.series[1].n_dropped = 1; /* a tg sample dropped as warm-up: the spare is back */
    assert_int_equal(reps_of(&f, &cpu, 1, -1), win + 1);
    f.r.leader = STATS_NO_ARM;
    assert_true(bench_reps_abba(&f.s, &g));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_behind),
        cmocka_unit_test(test_abba),
        cmocka_unit_test(test_no_warmup),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_first_look),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
