/* energy.h: tokens per joule and joules per token from the energy a result
 * carries (lvd_result.energy, measured by energy/watch.h), with the same
 * statistics as speed. Pure computation, no I/O. Not for reading
 * sources or windows (energy/).
 *
 * The rule (stats_energy_watts): a result's window held its R repetitions;
 *   net joules = gross - idle_watts x window seconds (idle unknown: gross);
 *   net watts  = net joules / the repetitions' own time (the sum of
 *                llama-bench's samples_ns), so the power is that of the timed
 *                work even when the window holds a few ms between runs;
 *   sample k's tokens per joule = its tokens/s / net watts, its joules per
 *                token the inverse. A window's power is one figure, so the
 *                spread of tokens per joule within a run is that of speed and
 *                across runs that of power too.
 * Per arm and test (stats_energy_summary): the median of the kept samples'
 *   tokens per joule with the bootstrap 95 % CI of the median
 *   (stats_bootstrap_ratio_ci against 1), and joules per token as its inverse
 *   (the CI's ends swapped). */
#ifndef LVD_STATS_ENERGY_H
#define LVD_STATS_ENERGY_H

#include "common/types.h"
#include "stats/stats.h"

#include <stddef.h>

/* Net watts of r's timed repetitions; NAN when not measured or not positive. */
double stats_energy_watts(const lvd_result *r);
/* Gross watts (idle included), as above. */
double stats_energy_gross_watts(const lvd_result *r);
/* Sample k as tokens per joule; NAN when it is not kept or r has no energy.
 * _gross: idle included. */
double stats_sample_tpj(const lvd_result *r, size_t k);
double stats_sample_tpj_gross(const lvd_result *r, size_t k);
/* Sample k's value under an objective: tokens per joule when per_joule, else
 * tokens per second; NAN when it does not count. */
double stats_sample_value(const lvd_result *r, size_t k, int per_joule);

typedef struct stats_energy_stat {
    int has;
    size_t n;
    double tpj, tpj_lo, tpj_hi;        /* tokens per joule: median, 95 % CI */
    double jpt, jpt_lo, jpt_hi;        /* joules per token */
} stats_energy_stat;

/* Over tokens-per-joule samples x[0..n). */
void stats_energy_summary(const double *x, size_t n, const stats_rule *rule, stats_energy_stat *out);

#endif
