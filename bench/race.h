/* race.h: racing: which arms a bench session stops spending on. An arm is out
 * of contention when it cannot be the verdict any more:
 *   - it is not active: excluded after failing twice, or gpu_ignored (asked
 *     for a GPU, ran on the CPU);
 *   - on the objective's deciding ranking (bench_session_decider) it is not
 *     the leader and its comparison with the leader is decided for the leader
 *     (stats_compare's WIN_B: clearly slower, p and CI both say so).
 * Out arms sit out every later round; they stay shown and ranked with the
 * samples they have. This is the one place the rule lives: the stats layer's
 * racing function ("out of contention", sequentially valid over repeated
 * looks) replaces the second case here when it lands. Not for the stopping
 * rule (bench/runner.h) or the statistics (stats/). */
#ifndef LVD_BENCH_RACE_H
#define LVD_BENCH_RACE_H

#include "bench/runner.h"

#include <stddef.h>

/* 1 when arm of s is out of contention (rules above). */
int bench_race_out(const bench_session *s, size_t arm);

#endif
