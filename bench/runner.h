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
 * The session's state (its arms, stops, rankings) is bench/session.h.
 * Not for printing (bench/report.h) or choosing the verdict (select/). */
#ifndef LVD_BENCH_RUNNER_H
#define LVD_BENCH_RUNNER_H

#include "bench/session.h"
#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

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

/* Folds a recorded run into an arm's state (runner.c's own; cut: killed at
 * the budget's end, not held against the arm). */
typedef void (*bench_absorb_fn)(bench_session *s, size_t arm, const lvd_run *run, int cut);
/* The runs recorded under session for this model and host, with their
 * samples: what --resume passes as o.seed. 0, or -1 with err. */
int bench_seed_load(store *st, const char *artifact, const char *host, const char *session, lvd_run **runs,
                    size_t *n, lvd_err *err);
/* Folds o.seed into the arms (see "Resuming"); called by bench_session_run. */
int bench_seed_apply(bench_session *s, bench_absorb_fn absorb, lvd_err *err);

#endif
