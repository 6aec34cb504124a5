/* voi.h: the value-of-information rule of a bench session's later looks:
 * whether one more look is worth its price, and how many samples per arm it
 * takes. The session loop (bench/runner.h) asks it before every look after
 * the first; the repetitions of each invocation then follow (bench/reps.h).
 * The rule (bench_voi_plan), for a look that adds n samples to every arm
 * still needed:
 *   price   X(n) = sum over the look's invocations of the process key's mean
 *           fixed cost (load + warm-up, bench/cost.h) + slots x r x the sum
 *           of its arms' mean repetition costs, r = ceil((n + the samples an
 *           invocation of the arm drops as warm-up on average) / slots), at
 *           least win_min_samples (fewer in a row could not show a cold
 *           start to stats_warmup; -r 1 after --no-warmup kept one)
 *           (bench_reps_look, bench/reps.h);
 *   power   q(n) = the expected decisions the look buys: over the open
 *           deciding rankings, the product over their open comparisons of
 *           the needed arms of the predictive power (bench_voi_power): the
 *           probability that the comparison is decided at the next look,
 *           averaged over what the samples so far say of its true log ratio
 *           (flat prior: the next estimate is normal around today's, with
 *           variance se^2 n / (n0 + n) for n new samples on n0;
 *           Spiegelhalter, Freedman & Blackburn (1986), "Monitoring clinical
 *           trials: conditional or predictive power?", Controlled Clinical
 *           Trials 7(1); the plain conditional power, which takes today's
 *           estimate for the truth, bought looks that did not decide);
 *   worth   the look is run when its best price per expected decision,
 *           the least X(n)/q(n) over n in [1, what max_samples leaves], is
 *           at most lambda = T1 / p1 (bench_voi_worth), T1 the session's
 *           engine time at its first look's end and p1 the decisions that
 *           first look makes in expectation (settled rankings 1, open ones
 *           the product of their comparisons' replicate power,
 *           bench_voi_replicate: the chance a fresh first look of the same
 *           size would decide it; fixed at the first later look, kept for
 *           every one after it), and the sequential need with each win
 *           sized from its CI's end nearer to 1 (bench_reps_want_sure: a
 *           first estimate that happened to land high is not believed; a
 *           true 1.05 at 3 % noise read as 1.08 at the first look needs 55
 *           samples an arm, not the 25 its estimate says) fits in what
 *           max_samples leaves (while every
 *           needed arm holds min_samples: a need estimated from fewer, e.g.
 *           a night's first look of 4, is not trusted); else the
 *           session stops undecided (BENCH_STOP_NOT_WORTH);
 *   size    the lesser of that best n and the sequential need's (the
 *           predictive power is pessimistic for a comparison whose truth is
 *           clearly past a threshold and the first look just missed, so its
 *           best n is larger than the look needs).
 * Why lambda: a protocol that stops at the first look (fixed -r N) pays T1
 * per session and decides p1 of its comparisons, so T1 / p1 per correct
 * decision; every further look run here buys an expected decision for at
 * most that, so the sessions that go on cannot raise the price per correct
 * decision above the one that stopped (at equal first looks: perf_protocol
 * runs its protocols on common random numbers). A look that costs more per
 * decision than that (a second pair of loads to decide the last few % of a
 * cell that the first look decides 95 % of) is not taken; one that a first
 * look would seldom decide (a true 1.02 at 1 % noise: fixed -r 10 decides a
 * third) is worth several looks. The need within max_samples: a look is
 * not bought for a comparison today's estimate says max_samples cannot
 * decide (a true 1.05 at 3 % noise, about 55 samples an arm). lambda = T1
 * alone (the first look's price as if it always decided) was measured too
 * strict: every later look of the grid was refused and the new protocol
 * became fixed -r 10. The figures of each variant: docs/performance.md,
 * "Through the real runner and the fake engine".
 * No opinion (decide -1: the other rules size the look) while a needed arm
 * or process key is unpriced, no open comparison has an interval, or no room
 * is left. Not for the first look (bench/reps.h) or the loop (runner.h). */
#ifndef LVD_BENCH_VOI_H
#define LVD_BENCH_VOI_H

#include "bench/group.h"
#include "bench/session.h"
#include "stats/stats.h"

#include <stddef.h>

typedef struct bench_voi {
    int decide;                    /* 1: run the look with n_add, 0: not worth it, -1: no opinion */
    size_t n_add;                  /* samples per arm the look adds */
    double price_ms;               /* X(n_add) */
    double q;                      /* q(n_add) */
    double lambda_ms;              /* the reference price of one decision */
} bench_voi;

/* The predictive power of comparison c (its sequential interval at n_min
 * samples per arm) when n_add samples join each arm and the next look is
 * taken at c->seq.look + 1 under rule (m comparisons): the probability that
 * its sequential interval then clears a win threshold (win or 1 / win), or
 * (with n_min + n_add >= min_samples) that its bootstrap CI, its log
 * half-widths shrunk by sqrt(n_min / (n_min + n_add)), lies inside the tie
 * band; the next log ratio is normal around today's with sd = se sqrt(n_add
 * / (n_min + n_add)) (x 1.25 for the ratio of medians the CI is centred on).
 * 0 when c's interval says nothing. */
double bench_voi_power(const stats_rule *rule, size_t m, const stats_comparison *c, size_t n_add);
/* The replicate power of comparison c: the probability that a fresh first
 * look of c's sample sizes would decide it, the log ratio it would see being
 * normal around today's with sd = se sqrt(2) (today's uncertainty of the
 * truth and the fresh look's own). 0 when c's interval says nothing. */
double bench_voi_replicate(const stats_rule *rule, size_t m, const stats_comparison *c);
/* The factor past which a comparison is obvious (the page's rule for a
 * factor, evidence/format.c: a ratio of 2 or more either way). */
#define BENCH_VOI_OBVIOUS 2.0
/* 1 when comparison c is obvious: its CI lies wholly past a factor of
 * BENCH_VOI_OBVIOUS either way. A later look is bought whatever its price
 * while an open comparison is obvious: what it decides is no close call (a
 * CPU build against a software device, 100x apart, was left undecided when
 * its first look held too few samples). */
int bench_voi_obvious(const stats_comparison *c);
/* The stop, in one function: 1 when a look of price price_ms that decides
 * q comparisons in expectation is worth it against a first look that cost
 * t1_ms and decided p1 in expectation (price_ms / q <= t1_ms / p1; p1 0: 1;
 * q 0: 0). */
int bench_voi_worth(double price_ms, double q, double t1_ms, double p1);
/* The rule above over the look's invocations g[0..ng) (need[]: the arms the
 * look runs); T1 is s->voi_ref_ms, p1 s->voi_p1 (set here at the first later
 * look; T1 at least the first look's repetitions at their measured costs, so
 * an engine whose wall clock is not its samples' clock is priced alike on
 * both sides). A look is bought whatever its price when an open comparison's
 * CI lies past a factor of 2: that decision is no close call. */
void bench_voi_plan(bench_session *s, const bench_group *g, size_t ng, const unsigned char *need,
                    bench_voi *out);

#endif
