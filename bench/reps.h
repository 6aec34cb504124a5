/* reps.h: how many repetitions (-r) each llama-bench invocation of a bench
 * session asks for, and whether it keeps llama-bench's warm-up run. The
 * session loop (bench/runner.h) calls these once per invocation; the prices
 * they use are bench/cost.h's.
 * Repetitions (-r) per invocation, per test instance:
 *   inv.reps > 0 (given): inv.reps, raised to win_min_samples + 1 on an
 *      arm's first invocation when it is below (a first look that could
 *      decide nothing; o.first_reps, when set, instead), at most what
 *      max_samples leaves; else inv.reps (the protocol before the cost model);
 *   inv.reps 0 (default): the cost model (bench/cost.h) with need = the
 *      first look's samples while an arm has none (first look, below), else
 *      what its open comparisons' sequential intervals say they need (n_min x
 *      (t se / margin)^2 at the next look's level, margin to the win
 *      threshold or the tie band's edge, at least min_samples) less what it
 *      holds, at least 1; as many again as it holds when no interval says
 *      (looks at 5, 10, 20 ...), plus the samples its invocations
 *      drop as warm-up on average; divided over the instances (two per arm
 *      when shared); at most what max_samples leaves.
 *   first look: 2 x min_samples with two active arms; with more, once a
 *      leader holds win_min_samples (an arm measured earlier this session:
 *      the session ranks before each fresh group, and its first round runs
 *      hardware GPU keys first, bench/group.h) the key is raced against it:
 *      win_min_samples, one more for a hardware GPU key (about 2 df at 3
 *      samples race out only gaps far past 0.7x) or while an arm has dropped
 *      a sample of the objective's tests, in a plain list (no A B .. B A:
 *      its arms race a leader in another process); before any leader, a
 *      hardware GPU key's shared pair takes min_samples an arm when its
 *      repetitions for them cost at most one load (its key's, else the
 *      dearest measured this session; unpriced counts as cheap), a tie
 *      between its arms then needing no second load; else win_min_samples
 *      + 1 (a spare for a warm-up drop).
 *   carried over (the arm's prices and record from last night, bench/prices.h):
 *      on an arm's first invocation the need is the first look when one
 *      process decided the arm last night (one less when it dropped no
 *      sample as warm-up then and the first look held a spare for a dropped
 *      sample, at least win_min_samples), else the repetitions it ran then
 *      (at least the first look: tonight asks at once for what last night
 *      needed two loads or more for); and the balance rule (bench/cost.h)
 *      does not raise the first invocation of arms one process each decided
 *      last night: more samples there only pay when they save a load, and
 *      last night's first look saved it (perf_protocol, the night at a 20 s
 *      load, -t 2: the balance rule alone made night 2 cost 179 s per correct
 *      decision against night 1's 162 s: the 54 t/s CPU arm took 7
 *      repetitions of 3.5 s where 4 decided it).
 *   far behind (last night's record, bench/prices.h): an arm whose mean
 *      sample on the objective's one test was over BENCH_FAR_BEHIND times
 *      the fastest arm's last night (out of contention by far: Welch's
 *      interval decides such a gap at its first look) asks for exactly
 *      win_min_samples on its first invocation (no spare sample, unless it
 *      dropped a sample of that test as warm-up then), and a group whose arms
 *      are all far behind (or raced, above) runs its first invocation without A B .. B A
 *      (`-fa 1,0 -r 3`, not `-fa 1,0,0,1 -r 2`: two instances per arm would
 *      round 3 up to 4; the drift the order evens out matters between arms
 *      of one process, and these are compared to a leader in another).
 * llama-bench's warm-up run: kept (no --no-warmup) on an arm's first
 *   invocation, which is also where warm-up ramps are detected (stats_warmup,
 *   per row), unless last night's record says the arm ran without it and
 *   stayed steady: in more than one process (by this rule its later ones
 *   passed --no-warmup) and no sample dropped as warm-up (one process proves
 *   nothing: its warm-up run absorbed a cold start, which the first sample
 *   then shows, e.g. the fake engine's `cold`); later invocations pass --no-warmup only while
 *   none of the arms has ever had a sample dropped as warm-up (the engine is
 *   steady right after the load, so the warm-up run is pure cost: one pp run
 *   per test instance); the first drop brings it back for good.
 * Not for the session loop (bench/runner.h) or the prices (bench/cost.h). */
#ifndef LVD_BENCH_REPS_H
#define LVD_BENCH_REPS_H

#include "bench/cost.h"
#include "bench/group.h"
#include "bench/session.h"

#include <stddef.h>

/* Fewest kept samples of arm over the objective's tests. */
size_t bench_kept_min(const bench_session *s, size_t arm);
/* The samples per arm arm's open comparisons need to be decided, from their
 * sequential intervals now (the most of them; 0 when none says). */
double bench_reps_want(const bench_session *s, size_t arm);
/* The same need with each win's margin taken from the end of its CI nearer
 * to 1 (a tie's from the estimate): what the value-of-information guard
 * holds against max_samples (bench/voi.h), so that a high first estimate
 * does not buy looks the truth cannot decide. */
double bench_reps_want_sure(const bench_session *s, size_t arm);
/* Samples an invocation of the arm drops as warm-up, on average (rounded up). */
size_t bench_reps_dropped(const bench_arm_state *st);
/* -r of one invocation of g whose process key's prices are c (rules above),
 * before the budget; *rep_max: the largest repetition cost of g's arms, -1
 * when one of them is unpriced. */
int bench_reps_group(const bench_session *s, const bench_group *g, const bench_cost *c, double *rep_max);
/* -r of an invocation of g in a later look that adds n_add samples to each
 * arm (the look bench/voi.h sized): enough for the most any arm needs (n_add
 * plus what it drops as warm-up on average) over its slots when A B .. B A,
 * at least win_min_samples (fewer in a row could not show a cold start to
 * stats_warmup). */
int bench_reps_look(const bench_session *s, const bench_group *g, size_t n_add);
/* 1 when the invocation of g passes --no-warmup (rules above). */
int bench_reps_no_warmup(const bench_session *s, const bench_group *g);
/* Far behind: last night's mean objective sample over this many times the
 * leader's (a ratio to the leader below 1/2, far outside any tie band). */
#define BENCH_FAR_BEHIND 2.0
/* 1 when arm was far behind last night (rules above). */
int bench_reps_far_behind(const bench_session *s, size_t arm);
/* 1 when the invocation of g lays its outer list A B .. B A (rules above). */
int bench_reps_abba(const bench_session *s, const bench_group *g);

#endif
