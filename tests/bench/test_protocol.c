/* test_protocol.c: the bench protocol (cost model, shared
 * processes, racing) through real fake-engine
 * processes: the cost model's chosen -r from given timings, arms sharing one
 * llama-bench process (`-fa 1,0,0,1`, one model load in the fake engine's
 * load log, rows split back per arm), racing (an arm 10x slower stops after
 * its first invocation) and the budget as a bound (slow samples on the
 * simulated clock: the session ends within the budget plus one sample), and
 * max_rounds (one -r 10 invocation per arm, the fixed protocol), prices
 * carried over from one night to the next (bench/prices.h), and a first
 * night's first look raced against the leader measured first. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cost.h"
#include "bench/costreport.h"
#include "bench/group.h"
#include "bench/plan.h"
#include "bench/race.h"
#include "bench/runner.h"
#include "bench/voi.h"
#include "store/prices.h"

typedef tu_session fx;

static bench_test tg1[] = {{"tg128", 0, 128, 0}};

static void opts_of(fx *f, bench_session_opts *o)
{
    memset(o, 0, sizeof *o);
    o->inv = (bench_invoke){.model = f->model, .tests = tg1, .n_tests = 1, .reps = 0, .timeout_ms = 20000};
    o->artifact = f->art.sha256;
    o->host = "testhost";
    o->session = "proto-test";
    o->max_samples = 30;
    stats_objective_default(&o->objective);
    stats_rule_default(&o->rule);
}

static void plan_of(fx *f, const int *fa, size_t n_fa, bench_plan *plan)
{
    bench_plan_opts o = {.fa = fa, .n_fa = n_fa};
    lvd_err err = {0};
    if (bench_plan_build(f->e, f->p, f->n, &o, plan, &err))
        fail_msg("%s", err.msg);
}

/* Registers engines named na and nb with scenarios a and b, frees both
 * scenario strings, and builds their plan at fa on. */
static void pair_plan(fx *f, const char *na, char *a, const char *nb, char *b, bench_plan *plan)
{
    tu_session_engine(f, na, 0, a);
    tu_session_engine(f, nb, 0, b);
    free(a);
    free(b);
    static const int fa[] = {1};
    plan_of(f, fa, 1, plan);
}

static size_t lines_of(const char *path, const char *needle)
{
    lvd_sb sb = {0};
    size_t n = 0;
    if (lvd_read_file(path, 1 << 20, &sb, NULL) == 0)
        for (const char *p = lvd_sb_str(&sb); (p = strstr(p, needle)); p++)
            n++;
    lvd_sb_free(&sb);
    return n;
}

/* Given fixed and sample costs, -r follows: few when loads are cheap, many
 * when a load costs a minute, shrunk to the budget left. */
static void test_cost_model(void **state)
{
    (void)state;
    bench_cost c = {0};
    assert_int_equal(bench_cost_reps(&c, -1, 1, 6, 1, 30), 6); /* unpriced: the need */
    bench_cost_observe(&c, 2500, 2000);                        /* 0.5 s load, 1 s a sample */
    assert_true(fabs(bench_cost_fixed_ms(&c) - 500) < 1e-9);
    assert_int_equal(bench_cost_reps(&c, 1000, 1, 3, 1, 30), 3);
    c = (bench_cost){0};
    bench_cost_observe(&c, 62000, 2000);                       /* a minute's load */
    assert_int_equal(bench_cost_reps(&c, 1000, 1, 3, 1, 30), 30);
    assert_int_equal(bench_cost_reps(&c, 1000, 2, 3, 1, 30), 30);
    assert_int_equal(bench_cost_reps(&c, 5000, 2, 3, 1, 30), 6); /* ceil(60 / (2 x 5)) */
    /* the budget: 60 s fixed + 2 x r x 5 s within 100 s left: r 4; under 70 s: none */
    assert_int_equal(bench_cost_fit(&c, 5000, 2, 6, 100000), 4);
    assert_int_equal(bench_cost_fit(&c, 5000, 2, 6, 69000), 0);
    assert_int_equal(bench_cost_fit(NULL, -1, 1, 6, 1000), 6);
    bench_arm_cost a = {0};
    bench_arm_cost_observe(&a, 3, 3000, 1200);
    assert_true(fabs(bench_arm_cost_rep_ms(&a) - 1000) < 1e-9);
    assert_true(fabs(a.sample_max_ms - 1200) < 1e-9);
}

/* fa on and off of one engine: one invocation `-fa 1,0,0,1`, one model load,
 * the rows split back per arm by their flash_attn field. */
static void test_shared_process(void **state)
{
    fx *f = *state;
    size_t e = tu_session_engine(f, "cuda", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\ntg.fa=1 = 1.5\nnoise = 0.01\n"
            "warmup = 1\nload_log = loads.log");
    bench_plan plan;
    static const int fa[] = {1, 0};
    plan_of(f, fa, 2, &plan);
    assert_int_equal(plan.n_arms, 2);
    unsigned char need[2] = {1, 1};
    bench_group *g;
    size_t ng = bench_groups_make(&plan, need, NULL, 1, &g);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].n, 2);
    bench_invoke inv = {.model = f->model, .tests = tg1, .n_tests = 1, .reps = 3, .timeout_ms = 20000};
    char **argv = bench_group_argv(&plan, &g[0], &inv);
    lvd_sb line = {0};
    for (char **a = argv; *a; a++)
        lvd_sb_addf(&line, " %s", *a);
    assert_non_null(strstr(lvd_sb_str(&line), " -fa 1,0,0,1"));
    assert_null(strstr(lvd_sb_str(&line), "--no-warmup"));
    lvd_sb_free(&line);
    lvd_strv_free(argv);
    bench_group_runs out;
    lvd_err err = {0};
    assert_int_equal(bench_run_group(&plan, &g[0], &inv, &out, &err), 0);
    char *loads = lvd_xasprintf("%s/loads.log", f->e[e].dir);
    assert_int_equal(lines_of(loads, " load "), 1);
    assert_int_equal(out.n, 4); /* two arms x two slots */
    for (size_t i = 0; i < out.n; i++) {
        const lvd_run *r = &out.runs[i];
        assert_string_equal(r->status, "ok");
        const lvd_result *res = bench_run_result(r, "tg128");
        assert_non_null(res);
        assert_int_equal(res->n, 3);
        int fa_on = plan.arms[g[0].arms[out.member[i]]].params.fa;
        assert_int_equal(res->rep_fa, fa_on);
        double want = fa_on ? 1500 : 1000;
        assert_true(fabs(res->ts[1] / want - 1) < 0.06);
    }
    bench_group_runs_free(&out);
    bench_groups_free(g, ng);
    /* a whole session: the two arms share every invocation */
    bench_session_opts o;
    opts_of(f, &o);
    bench_session s;
    unlink(loads);
    if (bench_session_run(f->s, &plan, &o, &s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(bench_session_decider(&s, 0)->state, STATS_RANK_WIN);
    assert_int_equal(s.n_costs, 1);
    assert_int_equal(lines_of(loads, " load "), s.costs[0].invocations);
    assert_int_equal(s.st[0].runs, 2 * s.costs[0].invocations);
    bench_session_free(&s);
    free(loads);
    bench_plan_free(&plan);
}

/* An arm 10x slower than the leader is out after its first invocation. */
static void test_racing(void **state)
{
    fx *f = *state;
    const char *dev = "device = CUDA0|NVIDIA H200|143155|142629\nnoise = 0.03\nwarmup = 1\n";
    char *fast = lvd_xasprintf("%sdev.CUDA0.tg = 1000\n", dev), *tie = lvd_xasprintf("%sdev.CUDA0.tg = 990\n", dev),
         *slow = lvd_xasprintf("%sdev.CUDA0.tg = 100\n", dev);
    tu_session_engine(f, "fast", 0, fast);
    tu_session_engine(f, "twin", 0, tie);
    size_t slow_e = tu_session_engine(f, "slow", 0, slow);
    free(fast);
    free(tie);
    free(slow);
    bench_plan plan;
    static const int fa[] = {1};
    plan_of(f, fa, 1, &plan);
    bench_session_opts o;
    opts_of(f, &o);
    o.no_voi = 1; /* the close pair's later looks are racing's subject here (test_voi_stop: without) */
    bench_session s;
    lvd_err err = {0};
    if (bench_session_run(f->s, &plan, &o, &s, &err))
        fail_msg("%s", err.msg);
    size_t slow_arm = 2;
    assert_int_equal(plan.arms[slow_arm].engine_id, f->e[slow_e].id);
    assert_true(s.rounds > 1); /* fast and twin needed more looks */
    assert_int_equal(s.st[slow_arm].runs, 1);
    assert_true(s.st[0].runs > 1);
    bench_session_free(&s);
    bench_plan_free(&plan);
}

/* One ranked arm below the leader, with its sequential interval's high end. */
static void below_leader(stats_rank_entry *e, size_t arm, size_t rank, double hi)
{
    e->arm = arm;
    e->rank = rank;
    e->eligible = 1;
    e->has_vs_leader = 1;
    stats_comparison_clear(&e->vs_leader);
    e->vs_leader.seq.look = 2;
    e->vs_leader.seq.lo = hi * 0.9;
    e->vs_leader.seq.hi = hi; /* UNKNOWN: not past 1 / 1.03 */
}

/* The racing rule on a ranking: an arm out of contention by
 * stats_out_of_contention (high end below 1) but not a win sits out while
 * another contender is open, and is measured again once only out arms are
 * left (bench/race.h). */
static void test_race_rule(void **state)
{
    (void)state;
    bench_plan plan = {.n_arms = 3};
    bench_arm_state st[3] = {{0}};
    stats_rank_entry v[3] = {{0}};
    v[0] = (stats_rank_entry){.arm = 0, .rank = 1, .eligible = 1};
    below_leader(&v[1], 1, 2, 0.99);
    below_leader(&v[2], 2, 3, 1.01);
    stats_ranking r = {.v = v, .n = 3, .n_ranked = 3, .leader = 0, .ref = STATS_NO_ARM, .m = 2,
                       .state = STATS_RANK_OPEN};
    bench_session s = {.plan = &plan, .st = st, .by_test = &r};
    s.o.inv.tests = tg1;
    s.o.inv.n_tests = 1;
    stats_objective_default(&s.o.objective);
    assert_int_equal(bench_race_out(&s, 0), 0);
    assert_int_equal(bench_race_out(&s, 1), 1); /* 0.99: slower than the leader */
    assert_int_equal(bench_race_out(&s, 2), 0);
    unsigned char need[3] = {1, 1, 1};
    bench_race_filter(&s, need);
    assert_int_equal(need[0], 1);
    assert_int_equal(need[1], 0); /* sits out while arm 2 is open */
    assert_int_equal(need[2], 1);
    v[2].vs_leader.seq.hi = 0.995; /* now both below the leader are out */
    memset(need, 1, sizeof need);
    bench_race_filter(&s, need);
    assert_int_equal(need[1] + need[2], 2); /* measured again: win or tie is still open */
    st[2].status = BENCH_ARM_EXCLUDED;
    memset(need, 1, sizeof need);
    bench_race_filter(&s, need);
    assert_int_equal(need[2], 0); /* inactive arms never run again */
}

/* max_rounds 1 with -r 10: each arm runs once, as one -r 10 invocation, even
 * when the comparison is left open (a true 1 % gap at 3 % noise). */
static void test_max_rounds(void **state)
{
    fx *f = *state;
    size_t e = tu_session_engine(f, "a", 0, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 101\n"
                                            "noise = 0.03\nload_log = loads.log");
    tu_session_engine(f, "b", 0, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 100\nnoise = 0.03\n");
    bench_plan plan;
    static const int fa[] = {1};
    plan_of(f, fa, 1, &plan);
    bench_session_opts o;
    opts_of(f, &o);
    o.inv.reps = 10;
    o.max_samples = 10;
    o.max_rounds = 1;
    bench_session s;
    lvd_err err = {0};
    if (bench_session_run(f->s, &plan, &o, &s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.stop, BENCH_STOP_MAX_ROUNDS);
    assert_int_equal(s.rounds, 1);
    char *loads = lvd_xasprintf("%s/loads.log", f->e[e].dir);
    assert_int_equal(lines_of(loads, " load "), 1);
    free(loads);
    for (size_t i = 0; i < plan.n_arms; i++) {
        assert_int_equal(s.st[i].runs, 1);
        assert_int_equal(s.st[i].series[0].n_kept + s.st[i].series[0].n_dropped, 10);
    }
    assert_int_equal(s.n_costs, 2);
    assert_int_equal(s.costs[0].last_reps, 10);
    bench_session_free(&s);
    bench_plan_free(&plan);
}

typedef struct simclock {
    char *path;
    double ns;
    long off;
} simclock;

static int64_t sim_ms(void *ctx)
{
    simclock *c = ctx;
    FILE *fp = fopen(c->path, "r");
    if (fp) {
        fseek(fp, c->off, SEEK_SET);
        double v;
        while (fscanf(fp, "%lf", &v) == 1)
            c->ns += v;
        c->off = ftell(fp);
        fclose(fp);
    }
    return lvd_mono_ms() + (int64_t)(c->ns / 1e6);
}

/* A scenario: body on the simulated clock c with a load_ms load. malloc'd. */
static char *on_clock(const simclock *c, const char *body, int load_ms)
{
    return lvd_xasprintf("%s\nsim_clock = %s\nload_ms = %d\n", body, c->path, load_ms);
}

/* One session of plan on the simulated clock c (budget_ms 0: none) into s. */
static void sim_session(fx *f, bench_plan *plan, simclock *c, int64_t budget_ms, bench_session *s)
{
    bench_session_opts o;
    opts_of(f, &o);
    o.budget_ms = budget_ms;
    o.clock_ms = sim_ms;
    o.clock_ctx = c;
    lvd_err err = {0};
    if (bench_session_run(f->s, plan, &o, s, &err))
        fail_msg("%s", err.msg);
}

/* Slow samples (tg128 at 20 t/s: 6.4 s each on the simulated clock) and a
 * 2 s load under a 60 s budget: the session ends within 60 s + one sample
 * and says which arms it could not sample. */
static void test_budget_bound(void **state)
{
    fx *f = *state;
    simclock c = {.path = lvd_xasprintf("%s/sim", f->tmp)};
    char *a = on_clock(&c, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 20\nnoise = 0.03", 2000);
    char *b = on_clock(&c, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 20.2\nnoise = 0.03", 2000);
    bench_plan plan;
    pair_plan(f, "a", a, "b", b, &plan);
    bench_session s;
    sim_session(f, &plan, &c, 60000, &s);
    assert_int_equal(s.stop, BENCH_STOP_BUDGET);
    double sample_ms = 128 / 20.0 * 1000 * 1.2;
    assert_true((double)s.wall_ms <= 60000 + sample_ms);
    assert_true(s.st[0].budget_cut || s.st[1].budget_cut);
    bench_session_free(&s);
    bench_plan_free(&plan);
    free(c.path);
}

/* The budget counts every instance of a shared process: fa on and off of
 * one engine in one llama-bench (-r 2 given, slow 6.4 s samples, a 2 s
 * load) under 70 s: the first invocation takes about 53 s, and the second,
 * planned for both arms' instances, does not fit the 17 s left, so it is
 * not started (planned for one arm's, one repetition would have seemed to
 * fit and the session would have run to about 81 s). */
static void test_budget_shared(void **state)
{
    fx *f = *state;
    simclock c = {.path = lvd_xasprintf("%s/sim", f->tmp)};
    char *a = on_clock(&c, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 20\nnoise = 0.03", 2000);
    tu_session_engine(f, "cuda", 0, a);
    free(a);
    bench_plan plan;
    static const int fa[] = {1, 0};
    plan_of(f, fa, 2, &plan);
    assert_int_equal(plan.n_arms, 2);
    bench_session_opts o;
    opts_of(f, &o);
    o.inv.reps = 2;
    o.budget_ms = 70000;
    o.clock_ms = sim_ms;
    o.clock_ctx = &c;
    bench_session s;
    lvd_err err = {0};
    if (bench_session_run(f->s, &plan, &o, &s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.stop, BENCH_STOP_BUDGET);
    assert_true((double)s.wall_ms <= 70000);
    assert_true(s.st[0].budget_cut && s.st[1].budget_cut);
    bench_session_free(&s);
    bench_plan_free(&plan);
    free(c.path);
}

/* A first night of five arms (CUDA fa on/off, a second GPU's fa on/off, the
 * CPU; a 3 s load on the simulated clock): the CUDA pair runs first, sized
 * for a tie (`-fa 1,0,0,1 -r 3`, 6 samples an arm); the session ranks before
 * the next keys, so the second GPU's pair races that leader in a plain list
 * (`-fa 1,0 -r 4`) and the CPU takes win_min_samples (`-r 3`); one round
 * decides. The plain list's runs share its fixed cost (the store's price of
 * that process is one load, not one per arm). */
static void test_raced_first_look(void **state)
{
    fx *f = *state;
    simclock c = {.path = lvd_xasprintf("%s/sim", f->tmp)};
    char *gpu = on_clock(&c, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\ntg.fa=1 = 1.05\n"
                             "noise = 0.01", 3000);
    char *vk = on_clock(&c, "device = Vulkan0|NVIDIA H200 (NVIDIA)|143155|142629\ndev.Vulkan0.tg = 700\nnoise = 0.01",
                        3000);
    char *cpu = on_clock(&c, "cpu.tg = 50\nnoise = 0.01", 3000);
    size_t ec = tu_session_engine(f, "cpu", 0, cpu), eg = tu_session_engine(f, "cuda", 0, gpu);
    size_t ev = tu_session_engine(f, "vk", 0, vk);
    free(gpu), free(vk), free(cpu);
    bench_plan plan;
    static const int fa[] = {1, 0};
    plan_of(f, fa, 2, &plan);
    assert_int_equal(plan.n_arms, 5);
    bench_session s;
    sim_session(f, &plan, &c, 0, &s);
    assert_int_equal(s.rounds, 1);
    lvd_err err = {0};
    char *log_g = lvd_xasprintf("%s/calls.log", f->e[eg].dir), *log_v = lvd_xasprintf("%s/calls.log", f->e[ev].dir);
    char *log_c = lvd_xasprintf("%s/calls.log", f->e[ec].dir);
    assert_int_equal(lines_of(log_g, "-r 3 -o jsonl"), 1);
    assert_int_equal(lines_of(log_g, "-fa 1,0,0,1"), 1);
    assert_int_equal(lines_of(log_v, "-r 4 -o jsonl"), 1);
    assert_int_equal(lines_of(log_v, "-fa 1,0\n"), 1);
    assert_int_equal(lines_of(log_c, "-r 3 -o jsonl"), 1);
    for (size_t i = 0; i < plan.n_arms; i++) {
        const bench_arm *a = &plan.arms[i];
        if (strcmp(a->backend, "vulkan"))
            continue;
        const char *test = "tg128";
        store_prices got;
        if (store_prices_last(f->s, f->art.sha256, "testhost", a->engine_id, a->arm_key, NULL, &test, 1, &got, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(got.n, 1);
        assert_true(got.v[0].fixed_ms >= 3000 && got.v[0].fixed_ms < 4500);
        store_prices_free(&got);
    }
    free(log_g), free(log_v), free(log_c);
    bench_session_free(&s);
    bench_plan_free(&plan);
    free(c.path);
}

/* The first run's samples per arm (an on_run callback's record). */
typedef struct first_reps {
    int n[4];
} first_reps;

static void note_first(const bench_session *s, size_t arm, const lvd_run *run, void *ctx)
{
    (void)s;
    first_reps *f = ctx;
    const lvd_result *r = bench_run_result(run, "tg128");
    if (arm < 4 && !f->n[arm] && r)
        f->n[arm] = (int)r->n;
}

/* Two nights of fa on and off of one engine in one store (they share a
 * process; a 3 s load on the simulated clock, 0.1 s samples): night 1's
 * first invocation is the first look (-r 5 per instance, two instances) and
 * nothing is carried over; night 2 carries night 1's fixed cost per process
 * (all four runs of a shared process priced as one) and the report says
 * which night priced it. *procs1: processes arm 0 ran in on night 1; *first2:
 * night 2's first -r of arm 0 (checked equal for arm 1). */
static void two_nights(fx *f, double fa_ratio, double noise, int no_voi, size_t *procs1, int *first2)
{
    simclock c = {.path = lvd_xasprintf("%s/sim", f->tmp)};
    char *scn = lvd_xasprintf("device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\ntg.fa=1 = %g\n"
                              "noise = %g\nsim_clock = %s\nload_ms = 3000\n", fa_ratio, noise, c.path);
    tu_session_engine(f, "cuda", 0, scn);
    free(scn);
    bench_plan plan;
    static const int fa[] = {1, 0};
    plan_of(f, fa, 2, &plan);
    bench_session_opts o;
    opts_of(f, &o);
    o.clock_ms = sim_ms;
    o.clock_ctx = &c;
    o.on_run = note_first;
    o.no_voi = no_voi;
    first_reps n1 = {{0}}, n2 = {{0}};
    o.ctx = &n1;
    bench_session s1, s2;
    lvd_err err = {0};
    if (bench_session_run(f->s, &plan, &o, &s1, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s1.n_costs, 1);
    assert_int_equal(s1.costs[0].seed_at, 0); /* an empty store: nothing carried over */
    assert_int_equal(n1.n[0], 5);
    *procs1 = s1.costs[0].invocations;
    double fixed1 = bench_cost_fixed_ms(&s1.costs[0]);
    assert_true(fixed1 >= 3000);
    o.session = "proto-test-2";
    o.ctx = &n2;
    if (bench_session_run(f->s, &plan, &o, &s2, &err))
        fail_msg("%s", err.msg);
    const bench_cost *k = &s2.costs[0];
    assert_true(k->seed_at > 0);
    assert_int_equal(k->seeds, 0); /* replaced by tonight's first measurement */
    assert_true(fabs(k->seed_fixed_ms / fixed1 - 1) < 0.01);
    assert_int_equal(s2.st[0].cost.seed_procs, *procs1);
    assert_int_equal(n2.n[0], n2.n[1]);
    *first2 = n2.n[0];
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    bench_costs_print(mem, &s2);
    fclose(mem);
    assert_non_null(strstr(text, "first -r priced from the night of "));
    free(text);
    bench_session_free(&s1);
    bench_session_free(&s2);
    bench_plan_free(&plan);
    free(c.path);
}

/* A pair night 1 decided in one process: night 2 asks for the first look
 * again, not for the balance rule's 14 (bench/reps.h, "carried over"). */
static void test_prices_first_look(void **state)
{
    size_t procs1;
    int first2;
    two_nights(*state, 1.5, 0.01, 0, &procs1, &first2);
    assert_int_equal(procs1, 1);
    assert_int_equal(first2, 5);
}

/* A close pair (1 % apart at 3 % noise) night 1 needed several processes
 * for (without the value-of-information stop, which would end night 1 after
 * its first look: test_voi_stop): night 2's first invocation is sized by the
 * balance rule (3 s fixed / (2 x 0.1 s): -r 14 or more, at most
 * max_samples' 15). */
static void test_prices_balance(void **state)
{
    size_t procs1;
    int first2;
    two_nights(*state, 1.01, 0.03, 1, &procs1, &first2);
    assert_true(procs1 > 1);
    assert_true(first2 >= 14 && first2 <= 15);
}

/* One session of the racing test's close pair (1 % apart at 3 % noise:
 * its first look of 10 decides neither a win nor a tie) at most max_samples
 * samples an arm; no_voi: without the value-of-information rule. Returns
 * the rounds run, *stop how it ended. */
static size_t close_pair(fx *f, size_t max_samples, int no_voi, bench_stop *stop)
{
    const char *dev = "device = CUDA0|NVIDIA H200|143155|142629\nnoise = 0.03\nwarmup = 1\n";
    bench_plan plan;
    pair_plan(f, "fast", lvd_xasprintf("%sdev.CUDA0.tg = 1000\n", dev), "twin",
              lvd_xasprintf("%sdev.CUDA0.tg = 990\n", dev), &plan);
    bench_session_opts o;
    opts_of(f, &o);
    o.max_samples = max_samples;
    o.no_voi = no_voi;
    bench_session s;
    lvd_err err = {0};
    if (bench_session_run(f->s, &plan, &o, &s, &err))
        fail_msg("%s", err.msg);
    size_t rounds = s.rounds;
    *stop = s.stop;
    bench_session_free(&s);
    bench_plan_free(&plan);
    return rounds;
}

/* The value-of-information stop (bench/voi.h): with 12 samples at most, the
 * close pair's second look could add 2 an arm, which cannot narrow its tie
 * interval into the band nor its win interval past 1.03: no decision at any
 * price, so the session stops after its first look (not-worth-a-look);
 * without the rule it takes that look and stops at max-samples. */
static void test_voi_stop(void **state)
{
    bench_stop stop;
    assert_int_equal(close_pair(*state, 12, 0, &stop), 1);
    assert_int_equal(stop, BENCH_STOP_NOT_WORTH);
    assert_string_equal(bench_stop_name(stop), "not-worth-a-look");
}

static void test_voi_stop_off(void **state)
{
    bench_stop stop;
    assert_true(close_pair(*state, 12, 1, &stop) > 1);
    assert_int_equal(stop, BENCH_STOP_MAX_SAMPLES);
}

int main(void)
{
    if (!getenv("LVD_FAKE_ENGINE")) {
        fprintf(stderr, "test_protocol: LVD_FAKE_ENGINE is not set\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost_model),
        cmocka_unit_test(test_race_rule),
        cmocka_unit_test_setup_teardown(test_voi_stop, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_voi_stop_off, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_shared_process, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_racing, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_budget_bound, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_budget_shared, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_raced_first_look, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_max_rounds, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_prices_first_look, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_prices_balance, tu_session_setup, tu_session_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
