/* runner.h: the adaptive bench session. Runs each arm of a plan as its own
 * `llama-bench ... -o jsonl` process (one invocation, its argv and outcomes:
 * bench/invoke.h), in rounds with the arms interleaved (A B C, then C B A,
 * ...) so drift hits every arm alike, records every invocation in the
 * store as soon as it ends, and after each round ranks the arms
 * (stats/rank.h) to decide whether another round is needed.
 *
 * The session loop, per round:
 *   1. rank the objective's tests (tg tests for tg, pp tests for pp; the
 *      first tg and first pp test, weighted, for w=W), with the plan's CPU arm
 *      as the reference;
 *   2. stop when no ranking is open (every comparison that matters is
 *      decided, or settled on a threshold's edge where more rounds teach
 *      nothing), when every arm still needed holds max_samples kept samples,
 *      or when the budget is spent (checked before each invocation);
 *   3. else run once each arm still needed (with first_reps repetitions
 *      while it has no kept sample, else inv.reps): the leader of an open ranking,
 *      every arm whose comparison with it is open, every eligible arm with no
 *      samples yet (arms already decided sit out), in plan order on even
 *      rounds and reversed on odd ones.
 * Faults: a failed run is recorded with its reason and the arm is retried in
 * the next round; its second failure excludes it (BENCH_MAX_FAILURES). A
 * gpu_ignored arm is excluded at once (it is deterministic). Excluded arms are
 * shown, never ranked. Other arms go on; runs already recorded stay. Engines
 * the plan skipped are recorded as failed runs ("not run: REASON") without
 * results, so the store says why an engine has no numbers.
 * Not for printing (bench/report.h) or choosing the verdict (select/). */
#ifndef LVD_BENCH_RUNNER_H
#define LVD_BENCH_RUNNER_H

#include "bench/invoke.h"
#include "bench/plan.h"
#include "common/types.h"
#include "common/util.h"
#include "stats/rank.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

#define BENCH_REPS_DEFAULT 3
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
    char *reason;                  /* the last failure's reason; NULL when none */
    bench_series *series;          /* one per test of the session */
} bench_arm_state;

typedef enum bench_stop {
    BENCH_STOP_SETTLED = 0,        /* no comparison that matters is open */
    BENCH_STOP_MAX_SAMPLES,        /* every arm still needed holds max_samples kept samples */
    BENCH_STOP_BUDGET,             /* the time budget ran out */
    BENCH_STOP_NOTHING,            /* no arm could be measured */
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
    int first_reps;                /* -r of an arm's invocations while it has no kept
                                      sample; 0 = max(inv.reps, rule.min_samples + 1),
                                      enough for a decision after one round even when
                                      the first repetition is dropped as warm-up */
    stats_objective objective;
    stats_rule rule;                 /* stats_rule_default unless a test needs otherwise */
    bench_run_cb on_run;
    void *ctx;
} bench_session_opts;

typedef struct bench_session {
    const bench_plan *plan;        /* borrowed */
    bench_session_opts o;
    bench_arm_state *st;           /* one per plan arm */
    size_t ref;                    /* the plan's CPU arm, or STATS_NO_ARM */
    size_t rounds;
    size_t runs_ok, runs_failed, runs_gpu_ignored, skips_recorded;
    int64_t wall_ms;
    bench_stop stop;
    stats_ranking *by_test;          /* one per test (display), reference included */
    int weighted;                  /* the objective is w=W */
    size_t w_tg, w_pp;             /* the tests the weighted objective uses */
    stats_ranking weighted_rank;     /* the weighted ranking (when weighted) */
} bench_session;

/* Checks o against the tests: the objective needs its tests (a tg test for
 * tg, a pp test for pp, both for w=W). 0, or -1 with err. */
int bench_session_check(const bench_session_opts *o, lvd_err *err);

/* Runs the session over plan into out (free with bench_session_free) and
 * records every run in s as it ends. Returns 0 when the session ran to one
 * of its stops (out->stop says which; failures are in the arm states), -1
 * with err when the options are invalid, the store failed (runs recorded
 * before stay), or the process runner failed. */
int bench_session_run(store *s, const bench_plan *plan, const bench_session_opts *o,
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

/* "settled", "max-samples", "budget", "nothing-measured". */
const char *bench_stop_name(bench_stop stop);
/* "active", "excluded", "gpu_ignored". */
const char *bench_arm_status_name(bench_arm_status st);

#endif
