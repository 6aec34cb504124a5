/* cost.h: the price of llama-bench invocations and the repetitions chosen
 * from it. One cost record per process key (one engine's binary with one set
 * of model parameters and environment: what a llama-bench process loads), fed
 * after every invocation that produced samples:
 *   fixed    wall - the kept samples' own ns: process start, model load,
 *            llama-bench's warm-up runs, and the samples dropped as warm-up
 *            (they are paid on every invocation like the load); the largest
 *            seen is what budgets are planned with, the mean what -r is
 *            chosen with;
 *   sample   per arm and repetition: the sum over the session's tests of one
 *            sample's ns (every sample, dropped ones too: they ran), mean and
 *            largest seen.
 * Repetitions per test instance of an invocation (bench_cost_reps), for an
 * invocation of `slots` instances (an arm measured alone has one; arms
 * sharing a process two each, A B B A):
 *   r = max(need, ceil(fixed / (slots x sample)))   so that the fixed cost is
 *       at most what the samples cost (few repetitions when loads are cheap,
 *       many when a load costs a minute), and never fewer than the samples the
 *       decision still needs;
 *   clamped to [lo, hi] (hi: what the arm may still take under max_samples);
 *   unpriced (no invocation seen for the key): need, clamped.
 * Carried over (bench/prices.h): a session starts with the prices of the
 *   last earlier session that ran the key (bench_cost_seed,
 *   bench_arm_cost_seed); they count as priced invocations and repetitions
 *   until the key's (the arm's) first invocation of this session is
 *   observed, which replaces them: tonight's engine, driver and machine
 *   state are what tonight is planned with once measured.
 * Budget (bench_cost_fit): the largest r' <= r whose planned time
 *   fixed_max + instances x r' x sample_max fits the time left (instances:
 *   every test instance the process runs, arms x instances per arm); 0 when not even
 *   one repetition fits (the invocation is not started). Not for running
 *   anything (bench/invoke.h) or the session loop (bench/runner.h). */
#ifndef LVD_BENCH_COST_H
#define LVD_BENCH_COST_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_cost {
    char *key;                     /* the process key (bench_cost_key) */
    size_t invocations;            /* priced ones (they produced samples) */
    double fixed_sum_ms, fixed_max_ms;
    int last_reps;                 /* -r of the last invocation started, 0 when none */
    size_t last_slots;
    size_t seeds;                  /* of invocations: carried over, not measured here */
    int64_t seed_at;               /* the session they came from (its start, epoch s); 0: none */
    double seed_fixed_ms;          /* their mean fixed cost (kept for the report) */
} bench_cost;

/* Per arm: what one repetition (every test once) costs. */
typedef struct bench_arm_cost {
    double rep_sum_ms, rep_max_ms;
    size_t reps;                   /* repetitions priced */
    double sample_max_ms;          /* the longest single sample seen */
    size_t seeds;                  /* of reps: carried over, not measured here */
    double seed_rep_ms;            /* their mean repetition cost (kept for the report) */
    size_t seed_samples;           /* the priced session: repetitions the arm ran there, */
    size_t seed_procs;             /* and in how many llama-bench processes (0: not seeded), */
    size_t seed_dropped;           /* and how many of its samples were dropped as warm-up */
    double seed_obj_ms;            /* there, its mean sample on the objective's one test
                                      (0: unknown; bench/prices.h) */
    size_t seed_obj_dropped;       /* and its samples of that test dropped as warm-up */
} bench_arm_cost;

/* Records one invocation of cost c: its wall time and the ns of its kept
 * samples (all arms, all tests). A negative fixed part (clock granularity)
 * counts as 0. */
void bench_cost_observe(bench_cost *c, double wall_ms, double kept_ms);
/* Records one repetition-priced run of an arm: reps repetitions whose samples
 * (every test) took samples_ms in all; longest_ms the longest single one. */
void bench_arm_cost_observe(bench_arm_cost *a, int reps, double samples_ms, double longest_ms);

/* Carries over one earlier invocation of c's key (fixed_ms) from the session
 * started at `at`, and reps repetitions of an arm that took samples_ms. */
void bench_cost_seed(bench_cost *c, double fixed_ms, int64_t at);
void bench_arm_cost_seed(bench_arm_cost *a, int reps, double samples_ms, double longest_ms);

/* Mean fixed cost, or -1 when unpriced. */
double bench_cost_fixed_ms(const bench_cost *c);
/* Mean cost of one repetition, or -1 when unpriced. */
double bench_arm_cost_rep_ms(const bench_arm_cost *a);

/* The repetitions of one invocation (rule in the header comment); rep_ms is
 * the mean repetition cost of the invocation's arms (-1: unpriced). */
int bench_cost_reps(const bench_cost *c, double rep_ms, size_t slots, int need, int lo, int hi);
/* The repetitions that fit left_ms (rule in the header comment); rep_max_ms
 * the largest repetition cost of the invocation's arms (-1: unpriced, then r
 * is kept: nothing is known to plan with). */
int bench_cost_fit(const bench_cost *c, double rep_max_ms, size_t instances, int reps, int64_t left_ms);

#endif
