/* median_ci.c: the order-statistic interval of a median (median_ci.h). */
#include "stats/median_ci.h"

#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* P(B <= j) for B ~ Binomial(n, 1/2), in logs so that large n stays finite. */
static double binom_half_cdf(size_t n, size_t j)
{
    double sum = 0.0;
    for (size_t i = 0; i <= j && i <= n; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
                   (double)n * log(2.0));
    return sum > 1.0 ? 1.0 : sum;
}

void stats_median_ci_exact(const double *x, size_t n, double level, stats_median_ci *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->median = out->lo = out->hi = out->coverage = NAN;
    if (n == 0)
        return;
    out->median = stats_median(x, n);
    if (n < 2)
        return;
    double *v = malloc(n * sizeof *v);
    if (!v)
        abort();
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = 1; /* 1-based: [v[k-1], v[n-k]] */
    double cov = 1.0 - 2.0 * binom_half_cdf(n, 0);
    while (k + 1 <= n / 2) {
        double next = 1.0 - 2.0 * binom_half_cdf(n, k);
        if (next < level)
            break;
        k++;
        cov = next;
    }
    out->lo = v[k - 1];
    out->hi = v[n - k];
    out->coverage = cov;
    out->short_of_level = cov < level;
    free(v);
}
