/* session.h: the state of a bench session: its options, each arm's state
 * (status, runs, kept samples per test, costs), the rankings and why it
 * stopped; what the session's rules (bench/reps.h, bench/race.h, bench/voi.h,
 * bench/prices.h, bench/rung.h) and its reports read and change. Not for
 * running the session (bench/runner.h, whose rules it follows) nor printing
 * it (bench/report.h). */
#ifndef LVD_BENCH_SESSION_H
#define LVD_BENCH_SESSION_H

#include "bench/cost.h"
#include "bench/invoke.h"
#include "bench/plan.h"
#include "common/types.h"
#include "stats/rank.h"

#include <stddef.h>
#include <stdint.h>

#define BENCH_REPS_DEFAULT 0       /* -r chosen per invocation from the measured costs */
#define BENCH_TIMEOUT_S_DEFAULT 300
#define BENCH_MAX_SAMPLES_DEFAULT 30
#define BENCH_MAX_FAILURES 2       /* a failed arm is retried once, then excluded */

/* --- the session -------------------------------------------------------- */

typedef enum bench_arm_status {
    BENCH_ARM_ACTIVE = 0,
    BENCH_ARM_EXCLUDED,            /* failed BENCH_MAX_FAILURES times */
    BENCH_ARM_GPU_IGNORED,         /* asked for a GPU, ran on the CPU */
} bench_arm_status;

/* The kept and dropped samples of one arm on one test, over all its runs. */
typedef struct bench_series {
    double *kept;
    size_t n_kept, cap;
    size_t n_dropped;              /* warm-up */
} bench_series;

typedef struct bench_arm_state {
    bench_arm_status status;
    size_t runs, failures;
    size_t runs_ok, dropped;       /* ok runs; samples dropped as warm-up in them */
    int solo;                      /* never shares a process again (its group failed) */
    int rung_tried;                /* its out-of-memory load got its next rung (bench/rung.h) */
    int budget_cut;                /* needed, but no invocation fit the budget left */
    int one_rep;                   /* its engine's llama-bench prints only means: every
                                      invocation runs one repetition (-r 1), each mean a sample */
    bench_arm_cost cost;           /* what one repetition costs (bench/cost.h) */
    char *reason;                  /* the last failure's reason; NULL when none */
    char *left_out;                /* the flags its engine's --help does not list, left out of
                                      its invocations (lvd_run.left_out); NULL when none */
    bench_series *series;          /* one per test of the session: tokens/s, or tokens per
                                      joule under a per-joule objective (stats/rank.h) */
    struct bench_joules *joules;   /* one per test: tokens per joule (bench/energy.h) */
} bench_arm_state;

typedef enum bench_stop {
    BENCH_STOP_SETTLED = 0,        /* no comparison that matters is open */
    BENCH_STOP_MAX_SAMPLES,        /* every arm still needed holds max_samples kept samples */
    BENCH_STOP_BUDGET,             /* the time budget ran out */
    BENCH_STOP_NOTHING,            /* no arm could be measured */
    BENCH_STOP_MAX_ROUNDS,         /* o.max_rounds rounds ran */
    BENCH_STOP_NOT_WORTH,          /* no further look buys a decision at its price (bench/voi.h) */
} bench_stop;

struct bench_session;

/* Called after each invocation is recorded (for warnings and progress); the
 * run is the one stored. May be NULL. */
typedef void (*bench_run_cb)(const struct bench_session *s, size_t arm, const lvd_run *run, void *ctx);

typedef struct bench_session_opts {
    bench_invoke inv;
    const char *artifact;          /* sha256 of the model */
    const char *host;
    const char *session;           /* id on every run */
    int64_t budget_ms;             /* 0 = no budget */
    size_t max_samples;            /* kept samples per arm per objective test */
    size_t max_rounds;             /* rounds at most; 0 = no limit (1 with inv.reps R and
                                      max_samples R: one -r R invocation per arm, the
                                      fixed protocol perf_protocol compares against) */
    int first_reps;                /* -r of an arm's invocations while it has no kept
                                      sample; 0 = max(inv.reps, rule.win_min_samples + 1),
                                      enough for a win after one round even when the
                                      first repetition is dropped as warm-up */
    stats_objective objective;
    stats_rule rule;                 /* stats_rule_default unless a test needs otherwise */
    bench_run_cb on_run;
    void *ctx;
    int no_share;                  /* every arm in its own process (the pre-issue-13 protocol) */
    int no_voi;                    /* no value-of-information stop or sizing of later looks
                                      (bench/voi.h): each look as bench/reps.h sizes it */
    int no_prices;                 /* price every process key afresh, as on a first night
                                      (else the last night's prices seed them: bench/prices.h) */
    int64_t (*clock_ms)(void *ctx);/* the session's clock; NULL: lvd_mono_ms (benchmarks
                                      on simulated time pass their own) */
    void *clock_ctx;
    const lvd_run *seed;           /* runs recorded earlier under this session (resuming) */
    size_t n_seed;
    const bench_plan_opts *plan_opts; /* what the plan was built with: an arm whose load runs
                                      out of memory gets the next placement rung as a new
                                      arm (bench/rung.h); NULL: no next rung */
} bench_session_opts;

typedef struct bench_session {
    bench_plan *plan;              /* borrowed; next rungs are appended (bench/rung.h) */
    bench_session_opts o;
    bench_arm_state *st;           /* one per plan arm */
    size_t ref;                    /* the plan's CPU arm, or STATS_NO_ARM */
    size_t rounds;
    size_t runs_ok, runs_failed, runs_gpu_ignored, skips_recorded;
    int64_t wall_ms;
    int64_t engine_ms;             /* wall of the llama-bench processes, on the session clock */
    size_t invocations;            /* llama-bench processes run (each run records which: store/prices.h) */
    bench_cost *costs;             /* one per process key run (bench/cost.h) */
    size_t n_costs;
    bench_stop stop;
    int64_t voi_ref_ms;            /* engine_ms at the first look's end (bench/voi.h's lambda) */
    double voi_p1;                 /* the first look's expected decisions (bench/voi.h) */
    size_t voi_n;                  /* samples per arm this look adds (bench/voi.h); 0: other rules */
    stats_ranking *by_test;          /* one per test (display), reference included */
    int weighted;                  /* the objective is w=W */
    size_t w_tg, w_pp;             /* the tests the weighted objective uses */
    stats_ranking weighted_rank;     /* the weighted ranking (when weighted) */
    size_t seeded, seed_ignored;   /* seed runs folded in; seed runs of no arm of the plan */
} bench_session;

/* 1 when test index t is one the objective decides on. */
int bench_session_uses_test(const bench_session *s, size_t t);
/* The ranking that decides the objective for test t: by_test[t], or the
 * weighted ranking for the weighted objective's tests; NULL for a test that
 * is shown only. */
const stats_ranking *bench_session_decider(const bench_session *s, size_t t);

/* An arm's state before its first run: one empty series and one tokens-per-
 * joule tally per test (the session's, and an arm that joins it: bench/rung.h). */
void bench_arm_state_init(bench_arm_state *st, size_t n_tests);

/* "settled", "max-samples", "budget", "nothing-measured", "max-rounds",
 * "not-worth-a-look". */
const char *bench_stop_name(bench_stop stop);
/* "active", "excluded", "gpu_ignored". */
const char *bench_arm_status_name(bench_arm_status st);

#endif
