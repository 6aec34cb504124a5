/* voi.h: the value-of-information rule of a bench session's later looks:
 * whether one more look is worth its price, and how many samples per arm it
 * takes. The session loop (bench/runner.h) asks it before every look after
 * the first; the repetitions of each invocation then follow (bench/reps.h).
 * The rule (bench_voi_plan), for a look that adds n samples to every arm
 * still needed:
 *   price   X(n) = sum over the look's invocations of the process key's mean
 *           fixed cost (load + warm-up, bench/cost.h) + slots x r x the sum
 *           of its arms' mean repetition costs, r = ceil((n + the samples an
 *           invocation of the arm drops as warm-up on average) / slots)
 *           (bench_voi_reps);
 *   power   q(n) = the product over the open comparisons of the needed arms
 *           of their predictive power (bench_voi_power): the probability
 *           that the comparison is decided at the next look, averaged over
 *           what the samples so far say of its true log ratio (flat prior:
 *           the next estimate is normal around today's, with variance se^2
 *           n / (n0 + n) for n new samples on n0; Spiegelhalter, Freedman &
 *           Blackburn (1986), "Monitoring clinical trials: conditional or
 *           predictive power?", Controlled Clinical Trials 7(1); the plain
 *           conditional power, which takes today's estimate for the truth,
 *           bought looks that did not decide: perf_protocol's grid 1.00 /
 *           3 % at L = 20 s cost 384 s per correct decision against 367);
 *   worth   the n in [1, what max_samples leaves] with the least X(n)/q(n),
 *           the expected price of one decision bought by the look; the look
 *           is run when that price is at most lambda = the session's engine
 *           time at its first look's end / its deciding rankings (what one
 *           decision cost if the session had stopped there, as a fixed
 *           protocol does), else the session stops undecided
 *           (BENCH_STOP_NOT_WORTH).
 * Why lambda: a protocol that stops at the first look (fixed -r N) pays T1
 * per session and decides a share p1 of them, so T1 / p1 per correct
 * decision; every further look run here buys an expected decision for at
 * most T1 <= T1 / p1, so the sessions that go on can only lower the price
 * per correct decision below the one that stopped (at equal first looks:
 * perf_protocol). A look whose decisions cost more than that (a second pair
 * of loads to decide the last few % of a cell) is not taken.
 * No opinion (decide -1: the other rules size the look) while a needed arm
 * or process key is unpriced, no open comparison has an interval, or no room
 * is left. Not for the first look (bench/reps.h) or the loop (runner.h). */
#ifndef LVD_BENCH_VOI_H
#define LVD_BENCH_VOI_H

#include "bench/group.h"
#include "bench/runner.h"
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
/* -r of an invocation of g that adds n_add samples to each arm (rule above). */
int bench_voi_reps(const bench_session *s, const bench_group *g, size_t n_add);
/* The rule above over the look's invocations g[0..ng) (need[]: the arms the
 * look runs); lambda from s->voi_ref_ms. */
void bench_voi_plan(bench_session *s, const bench_group *g, size_t ng, const unsigned char *need,
                    bench_voi *out);

#endif
