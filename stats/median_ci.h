/* median_ci.h: a distribution-free confidence interval of a median from n
 * independent values (one per host in the fleet's backend map): the order
 * statistics [x_(k), x_(n+1-k)], k the largest with binomial coverage
 * 1 - 2 P(B <= k - 1) >= level, B ~ Binomial(n, 1/2). No resampling: exact
 * for any continuous distribution. Pure. */
#ifndef LVD_STATS_MEDIAN_CI_H
#define LVD_STATS_MEDIAN_CI_H

#include <stddef.h>

typedef struct stats_median_ci {
    size_t n;
    double median;
    double lo, hi;        /* NAN when n < 2 */
    double coverage;      /* the interval's exact coverage; NAN when n < 2 */
    int short_of_level;   /* n too small for level: [lo, hi] is the range, coverage below level */
} stats_median_ci;

/* The median of x[0..n) (n >= 1) with its interval at level (0.95): see the
 * header comment. n 0 gives NAN everywhere. */
void stats_median_ci_exact(const double *x, size_t n, double level, stats_median_ci *out);

#endif
