/* changepoint.h: change-point detection on a history of nightly medians
 * (one value per session, oldest first), for telling drift from builds.
 *
 * Method: a two-window test on medians. At every split k, the window of up
 * to `window` values before k is compared with the window after it: a step
 * is flagged when (1) the ratio of the windows' medians (after / before) is
 * at least min_step away from 1, and (2) the two windows are separated by a
 * two-sided Mann-Whitney test at alpha (with 5 against 5 values: only full
 * or near-full separation passes). Of the flagged splits the largest step is
 * taken, splits within a window of it are dropped, and the search repeats.
 * The ratio's CI is the percentile bootstrap of the median ratio of the two
 * windows (stats_bootstrap_ratio_ci). False alarms: measured on flat
 * synthetic histories in tests/stats/test_changepoint.c (printed; docs/evidence.md, "Drift the builds did not cause").
 * Pure: no I/O. Not for attributing a step to a build or a driver (that
 * needs the history's labels: evidence/drift.c). */
#ifndef LVD_STATS_CHANGEPOINT_H
#define LVD_STATS_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

typedef struct stats_cp_opts {
    size_t window;       /* values each side (5) */
    size_t min_window;   /* fewest values each side for a split to be tested (4) */
    double min_step;     /* |ratio - 1| at least this (0.03) */
    double alpha;        /* Mann-Whitney level (0.01) */
    size_t boot_b;       /* bootstrap replicates for the CI (2000) */
    double level;        /* CI level (0.95) */
    uint64_t seed;
} stats_cp_opts;

typedef struct stats_changepoint {
    size_t at;           /* the first value after the step */
    double ratio;        /* median(after window) / median(before window) */
    double ci_lo, ci_hi;
    double p;            /* Mann-Whitney p of the windows */
} stats_changepoint;

void stats_cp_default(stats_cp_opts *o);

/* The change points of x[0..n) (values > 0), at most max of them, sorted by
 * at, into out; *n_out their number. 0, or -1 for an invalid value or
 * options (window < min_window, min_window < 2, alpha outside (0, 1)). */
int stats_changepoints(const double *x, size_t n, const stats_cp_opts *o, stats_changepoint *out, size_t max,
                       size_t *n_out);

#endif
