/* test_runner.c: bench/runner.h driving the fake engine (tests/fake-engine/,
 * $LVD_FAKE_ENGINE) through real processes: the test list, the argv, each
 * outcome of one invocation (ok with warm-up flagged, crash, hang, garbage,
 * non-zero exit, truncated output, GPU flags ignored), and whole sessions
 * over a store: the right ranking from known true speeds, a tie called a
 * tie, crashing and hanging arms recorded and excluded while the rest
 * decide, an arm that ignores -ngl flagged, skipped engines recorded, the
 * budget and the sample cap. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/plan.h"
#include "engine/probe.h"
#include "bench/runner.h"
#include "store/identify.h"

typedef tu_session fx;

static void plan_of(fx *f, bench_plan *plan)
{
    static const int fa_on[] = {1};
    bench_plan_opts o = {.fa = fa_on, .n_fa = 1};
    lvd_err err = {0};
    if (bench_plan_build(f->e, f->p, f->n, &o, plan, &err))
        fail_msg("%s", err.msg);
}

static bench_test tests2[] = {{"pp512", 512, 0, 0}, {"tg128", 0, 128, 0}};

static void opts_of(fx *f, bench_session_opts *o)
{
    memset(o, 0, sizeof *o);
    o->inv.model = f->model;
    o->inv.tests = tests2;
    o->inv.n_tests = 2;
    o->inv.reps = 3;
    o->inv.timeout_ms = 10000;
    o->artifact = f->art.sha256;
    o->host = "testhost";
    o->session = "bench-test";
    o->max_samples = 30;
    stats_objective_default(&o->objective);
    stats_rule_default(&o->rule);
}

static void session_ok(fx *f, bench_plan *plan, const bench_session_opts *o, bench_session *s)
{
    lvd_err err = {0};
    if (bench_session_run(f->s, plan, o, s, &err))
        fail_msg("%s", err.msg);
}

/* --- pieces ------------------------------------------------------------- */

static void test_tests_parse(void **state)
{
    (void)state;
    bench_test *t;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(bench_tests_parse("pp512,tg128", &t, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(t[0].name, "pp512");
    assert_int_equal(t[0].n_prompt, 512);
    assert_int_equal(t[1].n_gen, 128);
    free(t);
    assert_int_equal(bench_tests_parse("pp0", &t, &n, &err), -1);
    assert_int_equal(bench_tests_parse("xx12", &t, &n, &err), -1);
    assert_non_null(strstr(err.msg, "xx12"));
    assert_int_equal(bench_tests_parse("tg32,tg32", &t, &n, &err), -1);
    assert_non_null(strstr(err.msg, "twice"));
    assert_int_equal(bench_tests_parse("", &t, &n, &err), -1);
    assert_null(t);
}

static void test_argv(void **state)
{
    (void)state;
    bench_arm a;
    memset(&a, 0, sizeof a);
    a.binary = "/e/llama-bench";
    lvd_params_init(&a.params);
    snprintf(a.params.device, sizeof a.params.device, "Vulkan1");
    a.params.ngl = 99;
    a.params.fa = 0;
    a.params.ubatch = 256;
    snprintf(a.params.type_k, sizeof a.params.type_k, "q8_0");
    snprintf(a.params.type_v, sizeof a.params.type_v, "q8_0");
    a.params.n_cpu_moe = 4;
    a.params.threads = 8;
    bench_test t[] = {{"tg128", 0, 128, 0}, {"pp512", 512, 0, 0}, {"pp1024", 1024, 0, 0}};
    bench_invoke inv = {.model = "m.gguf", .tests = t, .n_tests = 3, .reps = 5, .timeout_ms = 1};
    char **argv = bench_arm_argv(&a, &inv);
    lvd_sb sb = {0};
    for (size_t i = 0; argv[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", argv[i]);
    assert_string_equal(lvd_sb_str(&sb),
                        "/e/llama-bench -m m.gguf -p 512,1024 -n 128 -r 5 -o jsonl -v -dev Vulkan1 -ngl 99"
                        " -fa 0 -ub 256 -ctk q8_0 -ctv q8_0 -ncmoe 4 -t 8");
    lvd_sb_free(&sb);
    lvd_strv_free(argv);

    lvd_params_init(&a.params); /* the CPU arm: no GPU flag */
    inv.n_tests = 1;
    argv = bench_arm_argv(&a, &inv);
    for (size_t i = 0; argv[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", argv[i]);
    assert_string_equal(lvd_sb_str(&sb), "/e/llama-bench -m m.gguf -p 0 -n 128 -r 5 -o jsonl -v");
    lvd_sb_free(&sb);
    lvd_strv_free(argv);
}

/* One invocation per outcome. */
static void test_run_outcomes(void **state)
{
    fx *f = *state;
    static const struct {
        const char *name, *scenario, *status, *reason;
    } cases[] = {
        {"ok", "device = CUDA0|NVIDIA H200|143155|142629\nwarmup = 0.4\n", "ok", NULL},
        {"crash", "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = crash\n", "failed",
         "killed by signal 11"},
        {"hang", "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = hang\nhang_s = 30\n",
         "failed", "timed out after"},
        {"garbage", "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = garbage\n", "failed",
         "unparsable output: "},
        {"exit1", "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = exit1\n", "failed",
         "exit 1: "},
        {"truncated", "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = truncated\n", "failed",
         "unparsable output: "},
        {"ignored", "device = Vulkan0|NVIDIA H200|143771|143139\nignore_ngl = 1\n", "gpu_ignored",
         "GPU flags ignored: asked -dev Vulkan0 -ngl 99, llama-bench reported backends \"CPU\""},
    };
    for (size_t c = 0; c < LVD_ARRAY_LEN(cases); c++) {
        size_t i = tu_session_engine(f, cases[c].name, 0, cases[c].scenario);
        bench_plan plan;
        plan_of(f, &plan);
        const bench_arm *arm = NULL;
        for (size_t k = 0; k < plan.n_arms; k++)
            if (plan.arms[k].engine_id == f->e[i].id)
                arm = &plan.arms[k];
        assert_non_null(arm);
        bench_session_opts o;
        opts_of(f, &o);
        /* only the hang waits for its timeout; the others get room for a loaded,
           sanitized machine so that a slow start is never mistaken for a hang */
        o.inv.timeout_ms = !strcmp(cases[c].name, "hang") ? 1500 : 60000;
        lvd_run run;
        lvd_err err = {0};
        assert_int_equal(bench_run_arm(arm, &o.inv, &run, &err), 0);
        if (strcmp(run.status, cases[c].status))
            fail_msg("%s: status %s (%s), want %s", cases[c].name, run.status,
                     run.reason ? run.reason : "-", cases[c].status);
        if (cases[c].reason && (!run.reason || !strstr(run.reason, cases[c].reason)))
            fail_msg("%s: reason '%s' lacks '%s'", cases[c].name, run.reason ? run.reason : "",
                     cases[c].reason);
        assert_string_equal(run.arm_key, arm->arm_key);
        assert_non_null(run.stderr_tail);
        if (!strcmp(cases[c].name, "ok")) {
            assert_null(run.reason);
            assert_int_equal(run.exit_code, 0);
            assert_int_equal(run.n_results, 2);
            assert_string_equal(run.build_commit, "d32676d77");
            assert_int_equal(run.build_number, 9749);
            for (size_t r = 0; r < 2; r++) {
                assert_int_equal(run.results[r].n, 3);
                assert_int_equal(run.results[r].warmup[0], 1); /* 0.4x: dropped */
                assert_int_equal(run.results[r].warmup[1], 0);
                assert_int_equal(run.results[r].rep_ngl, 99); /* reported back */
                assert_string_equal(run.results[r].backends, "CUDA");
            }
        }
        if (!strcmp(cases[c].name, "hang")) {
            assert_int_equal(run.exit_code, -1);
            assert_true(run.wall_ms >= 1500 && run.wall_ms < 10000);
        }
        lvd_run_free(&run);
        bench_plan_free(&plan);
    }
}

/* --- sessions ----------------------------------------------------------- */

static size_t arm_of(const bench_plan *plan, const char *engine)
{
    for (size_t i = 0; i < plan->n_arms; i++)
        if (!strcmp(plan->arms[i].engine, engine))
            return i;
    fail_msg("no arm for %s", engine);
    return 0;
}

static size_t count_runs(fx *f, const char *status, int64_t engine_id)
{
    store_run_filter flt = {.session = "bench-test", .status = status, .engine_id = engine_id};
    lvd_run *runs;
    size_t n;
    lvd_err err = {0};
    if (store_run_list(f->s, &flt, &runs, &n, &err))
        fail_msg("%s", err.msg);
    store_run_list_free(runs, n);
    return n;
}

/* Three arms of known true tg (CUDA 1000, Vulkan 800, CPU 50 t/s): CUDA
 * leads and wins against both, the run stops settled, and every run is in
 * the store with its samples. */
static void test_session_ranking(void **state)
{
    fx *f = *state;
    tu_session_engine(f, "cuda", 0, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\n"
                                    "dev.CUDA0.pp = 60000\nnoise = 0.02\nwarmup = 0.5\n");
    tu_session_engine(f, "vulkan", 0, "device = Vulkan0|NVIDIA H200|143771|143139\ndev.Vulkan0.tg = 800\n"
                                      "dev.Vulkan0.pp = 17000\nnoise = 0.02\nwarmup = 0.5\n");
    tu_session_engine(f, "cpu", 0, "cpu.tg = 50\ncpu.pp = 400\nnoise = 0.02\nwarmup = 0.5\n");
    bench_plan plan;
    plan_of(f, &plan);
    assert_int_equal(plan.n_arms, 3);
    bench_session_opts o;
    opts_of(f, &o);
    bench_session s;
    session_ok(f, &plan, &o, &s);
    assert_int_equal(s.stop, BENCH_STOP_SETTLED);
    size_t cuda = arm_of(&plan, "cuda"), vk = arm_of(&plan, "vulkan"), cpu = arm_of(&plan, "cpu");
    assert_int_equal(s.ref, cpu);
    const stats_ranking *tg = bench_session_decider(&s, 1);
    assert_non_null(tg);
    assert_null(bench_session_decider(&s, 0)); /* pp is shown, not deciding */
    assert_int_equal(tg->state, STATS_RANK_WIN);
    assert_int_equal(tg->leader, cuda);
    assert_int_equal(stats_ranking_entry(tg, vk)->rank, 2);
    assert_int_equal(stats_ranking_entry(tg, cpu)->rank, 3);
    assert_true(fabs(stats_ranking_entry(tg, vk)->vs_leader.ratio - 0.8) < 0.03);
    assert_int_equal(stats_ranking_entry(tg, cuda)->vs_ref.outcome, STATS_WIN_A);
    /* pp is ranked too (for the table) */
    assert_int_equal(s.by_test[0].leader, cuda);
    /* warm-up was dropped and recorded; kept samples reached a decision */
    assert_true(s.st[cuda].series[1].n_dropped > 0);
    assert_true(s.st[cuda].series[1].n_kept >= o.rule.win_min_samples);
    assert_true(s.st[cuda].series[1].n_kept < o.max_samples);
    size_t runs = s.runs_ok;
    assert_int_equal(count_runs(f, "ok", 0), runs);
    assert_int_equal(runs, s.st[cuda].runs + s.st[vk].runs + s.st[cpu].runs);
    /* an arm's first invocation runs the first look's repetitions, the later ones -r 3 */
    store_run_filter flt = {.session = "bench-test", .engine_id = f->e[0].id, .with_samples = 1};
    lvd_run *rl;
    size_t nrl;
    lvd_err err = {0};
    assert_int_equal(store_run_list(f->s, &flt, &rl, &nrl, &err), 0);
    /* the first look: win_min_samples 3 (what a win needs) + 1 for warm-up */
    size_t first = 0, three = 0;
    for (size_t i = 0; i < nrl; i++) {
        first += rl[i].results[1].n == o.rule.win_min_samples + 1;
        three += rl[i].results[1].n == 3;
    }
    assert_int_equal(first, 1);
    assert_int_equal(three, nrl - 1);
    store_run_list_free(rl, nrl);
    /* the CPU arm, decided early, sat out later rounds */
    assert_true(s.st[cpu].runs <= s.st[cuda].runs);
    bench_session_free(&s);
    bench_plan_free(&plan);
}

/* Two devices of equal true speed: a tie, named. */
static void test_session_tie(void **state)
{
    fx *f = *state;
    tu_session_engine(f, "a", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 900\nnoise = 0.004\n");
    tu_session_engine(f, "b", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 900\nnoise = 0.004\n");
    bench_plan plan;
    plan_of(f, &plan);
    bench_session_opts o;
    opts_of(f, &o);
    o.inv.reps = 5;
    bench_session s;
    session_ok(f, &plan, &o, &s);
    const stats_ranking *tg = bench_session_decider(&s, 1);
    assert_int_equal(s.stop, BENCH_STOP_SETTLED);
    assert_int_equal(tg->state, STATS_RANK_TIE);
    assert_int_equal(tg->n_tied, 1);
    bench_session_free(&s);
    bench_plan_free(&plan);
}

/* A crashing arm and a hanging arm are recorded (failed, with reasons),
 * retried once, excluded; an arm that ignores -ngl is flagged and excluded;
 * the two healthy arms still decide. An engine without a llama-bench is
 * recorded as not run. */
static void test_session_faults(void **state)
{
    fx *f = *state;
    size_t good = tu_session_engine(f, "good", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\n");
    size_t crash = tu_session_engine(f, "crash", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = crash\n");
    size_t hang = tu_session_engine(f, "hang", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\nbench.fault = hang\n"
            "hang_s = 30\n");
    size_t ign = tu_session_engine(f, "ignores-ngl", 0,
            "device = Vulkan0|NVIDIA H200|143771|143139\nignore_ngl = 1\n"
            "cpu.tg = 5000\n");
    tu_session_engine(f, "cpu", 0, "cpu.tg = 50\n");
    bench_plan plan;
    plan_of(f, &plan);
    /* an engine whose llama-bench vanished after the probe */
    size_t gone = tu_session_engine(f, "gone", 0, "cpu.tg = 50\n");
    char *bin = lvd_xasprintf("%s/llama-bench", f->e[gone].dir);
    unlink(bin);
    free(bin);
    bench_plan_free(&plan);
    plan_of(f, &plan);
    assert_int_equal(plan.n_arms, 5);
    assert_int_equal(plan.n_skips, 1);
    bench_session_opts o;
    opts_of(f, &o);
    o.inv.timeout_ms = 4000; /* hangs wait this long; healthy arms need room under ASan */
    bench_session s;
    session_ok(f, &plan, &o, &s);
    size_t a_good = arm_of(&plan, "good"), a_crash = arm_of(&plan, "crash");
    size_t a_hang = arm_of(&plan, "hang"), a_ign = arm_of(&plan, "ignores-ngl");
    assert_int_equal(s.stop, BENCH_STOP_SETTLED);
    assert_int_equal(s.st[a_crash].status, BENCH_ARM_EXCLUDED);
    assert_int_equal(s.st[a_crash].failures, 2);
    assert_non_null(strstr(s.st[a_crash].reason, "killed by signal 11"));
    assert_int_equal(s.st[a_hang].status, BENCH_ARM_EXCLUDED);
    assert_non_null(strstr(s.st[a_hang].reason, "timed out"));
    assert_int_equal(s.st[a_ign].status, BENCH_ARM_GPU_IGNORED);
    assert_int_equal(s.st[a_ign].runs, 1);
    assert_int_equal(s.st[a_good].status, BENCH_ARM_ACTIVE);
    const stats_ranking *tg = bench_session_decider(&s, 1);
    assert_int_equal(tg->state, STATS_RANK_WIN);
    assert_int_equal(tg->leader, a_good); /* never the 5000 t/s CPU-speed "GPU" arm */
    assert_int_equal(stats_ranking_entry(tg, a_ign)->rank, 0);
    /* the store holds every failure with its reason */
    assert_int_equal(count_runs(f, "failed", f->e[crash].id), 2);
    assert_int_equal(count_runs(f, "failed", f->e[hang].id), 2);
    assert_int_equal(count_runs(f, "gpu_ignored", f->e[ign].id), 1);
    assert_int_equal(count_runs(f, "failed", f->e[gone].id), 1);
    assert_int_equal(count_runs(f, "ok", f->e[good].id), s.st[a_good].runs);
    store_run_filter flt = {.session = "bench-test", .engine_id = f->e[gone].id};
    lvd_run *runs;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(store_run_list(f->s, &flt, &runs, &n, &err), 0);
    assert_true(lvd_starts_with(runs[0].reason, "not run: no executable llama-bench"));
    store_run_list_free(runs, n);
    bench_session_free(&s);
    bench_plan_free(&plan);
}

/* The sample cap and the budget end an undecidable session, and say so. */
static void test_session_limits(void **state)
{
    fx *f = *state;
    /* 2 % apart with 3 % noise: not decidable within 6 samples */
    tu_session_engine(f, "x", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\nnoise = 0.03\n");
    tu_session_engine(f, "y", 0,
            "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 980\nnoise = 0.03\n");
    bench_plan plan;
    plan_of(f, &plan);
    bench_session_opts o;
    opts_of(f, &o);
    o.max_samples = 6;
    bench_session s;
    session_ok(f, &plan, &o, &s);
    assert_int_equal(s.stop, BENCH_STOP_MAX_SAMPLES);
    assert_string_equal(bench_stop_name(s.stop), "max-samples");
    assert_int_equal(bench_session_decider(&s, 1)->state, STATS_RANK_OPEN);
    for (size_t i = 0; i < 2; i++)
        assert_true(s.st[i].series[1].n_kept >= 6 && s.st[i].series[1].n_kept < 6 + 3);
    bench_session_free(&s);

    o.max_samples = 30;
    o.budget_ms = 1; /* spent by the time of the second invocation, or killed at its end */
    session_ok(f, &plan, &o, &s);
    assert_int_equal(s.stop, BENCH_STOP_BUDGET);
    assert_true(s.st[0].runs + s.st[1].runs <= 2);
    assert_true(s.wall_ms < 1000);
    bench_session_free(&s);

    /* the objective needs its tests */
    lvd_err err = {0};
    o.inv.tests = tests2;
    o.inv.n_tests = 1; /* pp512 only */
    assert_int_equal(bench_session_run(f->s, &plan, &o, &s, &err), -1);
    assert_non_null(strstr(err.msg, "objective tg needs a tg test"));
    bench_session_free(&s);
    bench_plan_free(&plan);
}

/* The weighted objective decides on the pair of tests: x is 10 % faster on
 * tg and 40 % slower on pp, so with W = 0.2 y leads, with W = 0.9 x leads. */
static void test_session_weighted(void **state)
{
    fx *f = *state;
    tu_session_engine(f, "x", 0, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1100\n"
                                 "dev.CUDA0.pp = 6000\nnoise = 0.01\n");
    tu_session_engine(f, "y", 0, "device = CUDA0|NVIDIA H200|143155|142629\ndev.CUDA0.tg = 1000\n"
                                 "dev.CUDA0.pp = 10000\nnoise = 0.01\n");
    bench_plan plan;
    plan_of(f, &plan);
    bench_session_opts o;
    opts_of(f, &o);
    lvd_err err = {0};
    assert_int_equal(stats_objective_parse("w=0.2", &o.objective, &err), 0);
    bench_session s;
    session_ok(f, &plan, &o, &s);
    assert_true(s.weighted);
    assert_ptr_equal(bench_session_decider(&s, 0), &s.weighted_rank);
    assert_ptr_equal(bench_session_decider(&s, 1), &s.weighted_rank);
    assert_int_equal(s.weighted_rank.state, STATS_RANK_WIN);
    assert_int_equal(s.weighted_rank.leader, arm_of(&plan, "y"));
    bench_session_free(&s);
    assert_int_equal(stats_objective_parse("0.9", &o.objective, &err), 0);
    session_ok(f, &plan, &o, &s);
    assert_int_equal(s.weighted_rank.leader, arm_of(&plan, "x"));
    bench_session_free(&s);
    bench_plan_free(&plan);
}

int main(void)
{
    if (!getenv("LVD_FAKE_ENGINE")) {
        fprintf(stderr, "test_runner: LVD_FAKE_ENGINE is not set\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tests_parse),
        cmocka_unit_test(test_argv),
        cmocka_unit_test_setup_teardown(test_run_outcomes, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_session_ranking, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_session_tie, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_session_faults, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_session_limits, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_session_weighted, tu_session_setup, tu_session_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
