/* race.h: racing: which arms a bench session stops spending on. An arm is out
 * of contention when it cannot be the verdict any more:
 *   - it is not active: excluded after failing twice, or gpu_ignored (asked
 *     for a GPU, ran on the CPU);
 *   - on the objective's deciding ranking (bench_session_decider) it is
 *     ranked below the leader and stats_out_of_contention holds for its
 *     sequential interval against the leader (its high end is below 1: slower
 *     than the leader at the level of the look, sequentially valid over all
 *     rounds; an arm as fast as the leader is put out with probability
 *     <= alpha / 2m over all looks).
 * Out arms sit out the rounds while some other arm in contention (not a
 * leader) is still needed; they stay shown and ranked with the samples they
 * have. When only the leader and out arms are left with open comparisons,
 * the out arms are measured again: an out arm is known slower than the
 * leader, but not yet by how much, and its comparison is what says whether
 * the verdict is a win (WIN_B) or a tie; stopping there would leave it
 * undecided (perf_protocol measured it: a true 1.05 at 1 % noise, two
 * engines, fell from 100 % to 15 % decided). Inactive arms never run again.
 * This is the one place the bench applies the rule; the statistics are the
 * stats layer's. Not for the stopping rule (bench/runner.h) or the
 * statistics (stats/). */
#ifndef LVD_BENCH_RACE_H
#define LVD_BENCH_RACE_H

#include "bench/session.h"

#include <stddef.h>

/* 1 when arm of s is out of contention (rules above). */
int bench_race_out(const bench_session *s, size_t arm);
/* Clears in need[] (one flag per plan arm: needed by an open ranking) the
 * arms that sit out the next round (rules above). */
void bench_race_filter(const bench_session *s, unsigned char *need);

#endif
