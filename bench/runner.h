/* runner.h: the adaptive bench session. Runs each arm of a plan as its own
 * `llama-bench ... -o jsonl` process (one invocation, its argv and outcomes:
 * bench/invoke.h), in rounds with the arms interleaved (A B C, then C B A,
 * ...) so drift hits every arm alike, records every invocation in the
 * store as soon as it ends, and after each round ranks the arms
 * (stats/rank.h) to decide whether another round is needed.
 *
 * The session loop, per round:
 *   1. rank the objective's tests (tg tests for tg, pp tests for pp; the
 *      first tg and first pp test, weighted, for w=W), all at the serving
 *      depth (bench/depth.h: the deepest of the tests; the others are shown),
 *      with the plan's CPU arm as the reference;
 *   2. stop when no ranking is open (every comparison that matters is
 *      decided, or settled on a threshold's edge where more rounds teach
 *      nothing), when every arm still needed holds max_samples kept samples,
 *      when max_rounds rounds ran, when the budget is spent (checked
 *      before each invocation), or (a later look, -r not given) when no
 *      further look buys a decision at its price (bench/voi.h);
 *   3. else run once each arm still needed: the leader of an open ranking,
 *      every arm whose comparison with it is open, every eligible arm with no
 *      samples yet; arms out of contention sit out (bench/race.h). Arms that
 *      can share a llama-bench process do (bench/group.h: `-fa 1,0,0,1`, one
 *      model load); the invocations go in plan order on even rounds and
 *      reversed on odd ones (A B C, C B A), so arms in separate processes
 *      (other engines, devices, environments) keep the ABBA order; the
 *      first round instead runs hardware GPU keys first (bench_groups_order)
 *      and ranks again before each group with an arm not yet measured, so
 *      that group's first look can race the leader measured so far
 *      (bench/reps.h, "first look"; the ranking only sizes it: the look
 *      is still the round's).
 * Repetitions (-r) per invocation and llama-bench's warm-up run: bench/reps.h;
 *   o.max_rounds > 0 stops the session after that many rounds (fixed
 *   protocols: one invocation per arm, -r as given).
 * Prices: the process keys' and arms' costs start from the last earlier
 *   session's in the store (bench/prices.h) unless o.no_prices.
 * Budget: before each invocation the time left is known; a priced process
 *   key (bench/cost.h) gets -r shrunk to what fits, or is not started (its
 *   arms are budget_cut, "not sampled within the budget"); an unpriced one
 *   runs with its timeout cut to the time left plus the longest sample seen,
 *   and a run killed there is recorded but not held against the arm. So a
 *   session ends within the budget plus about one sample.
 * Faults: a failed run is recorded with its reason and the arm is retried in
 * the next round; its second failure excludes it (BENCH_MAX_FAILURES). A load
 * that ran out of device memory excludes the arm at the round's end and
 * brings in the next placement rung as a new arm (bench/rung.h). A
 * gpu_ignored arm is excluded at once (it is deterministic). Excluded arms are
 * shown, never ranked. Other arms go on; runs already recorded stay. Engines
 * the plan skipped are recorded as failed runs ("not run: REASON") without
 * results, so the store says why an engine has no numbers.
 * Resuming (opts seed, bench/seed.c): the runs an interrupted process
 * recorded under the same session (this model and host) are folded into their
 * arms before the first round, as if this process had measured them, and the
 * rounds count on from the most runs an arm holds; runs of arms not in the
 * plan and skip records are ignored. The budget is this process's own.
 * Not for printing (bench/report.h) or choosing the verdict (select/). */
#ifndef LVD_BENCH_RUNNER_H
#define LVD_BENCH_RUNNER_H

#include "bench/cost.h"
#include "bench/invoke.h"
#include "bench/plan.h"
#include "common/types.h"
#include "common/util.h"
#include "stats/rank.h"
#include "store/store.h"

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

/* Checks o against the tests: the objective needs its tests (a tg test for
 * tg, a pp test for pp, both for w=W). 0, or -1 with err. */
int bench_session_check(const bench_session_opts *o, lvd_err *err);

/* Runs the session over plan into out (free with bench_session_free) and
 * records every run in s as it ends. Returns 0 when the session ran to one
 * of its stops (out->stop says which; failures are in the arm states), -1
 * with err when the options are invalid, the store failed (runs recorded
 * before stay), or the process runner failed. */
int bench_session_run(store *s, bench_plan *plan, const bench_session_opts *o,
                      bench_session *out, lvd_err *err);
void bench_session_free(bench_session *s);

/* Recomputes the rankings from the arm states (the loop does it each round). */
int bench_session_rank(bench_session *s, lvd_err *err);

/* 1 when test index t is one the objective decides on. */
int bench_session_uses_test(const bench_session *s, size_t t);
/* The ranking that decides the objective for test t: by_test[t], or the
 * weighted ranking for the weighted objective's tests; NULL for a test that
 * is shown only. */
const stats_ranking *bench_session_decider(const bench_session *s, size_t t);

/* Folds a recorded run into an arm's state (runner.c's own; cut: killed at
 * the budget's end, not held against the arm). */
typedef void (*bench_absorb_fn)(bench_session *s, size_t arm, const lvd_run *run, int cut);
/* The runs recorded under session for this model and host, with their
 * samples: what --resume passes as o.seed. 0, or -1 with err. */
int bench_seed_load(store *st, const char *artifact, const char *host, const char *session, lvd_run **runs,
                    size_t *n, lvd_err *err);
/* Folds o.seed into the arms (see "Resuming"); called by bench_session_run. */
int bench_seed_apply(bench_session *s, bench_absorb_fn absorb, lvd_err *err);

/* An arm's state before its first run: one empty series and one tokens-per-
 * joule tally per test (the session's, and an arm that joins it: bench/rung.h). */
void bench_arm_state_init(bench_arm_state *st, size_t n_tests);

/* "settled", "max-samples", "budget", "nothing-measured", "max-rounds",
 * "not-worth-a-look". */
const char *bench_stop_name(bench_stop stop);
/* "active", "excluded", "gpu_ignored". */
const char *bench_arm_status_name(bench_arm_status st);

#endif
