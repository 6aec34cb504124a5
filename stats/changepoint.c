/* changepoint.c: the two-window test on medians (stats/changepoint.h).
 * Not for labels, dates or attribution (evidence/drift.c). */
#include "stats/changepoint.h"

#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

void stats_cp_default(stats_cp_opts *o)
{
    o->window = 5;
    o->min_window = 4;
    o->min_step = 0.03;
    o->alpha = 0.01;
    o->boot_b = 2000;
    o->level = 0.95;
    o->seed = 0x19c4a2e5u;
}

/* The windows around split k; 0 when a side is shorter than min_window. */
static int windows(size_t n, size_t k, const stats_cp_opts *o, size_t *b0, size_t *a1)
{
    *b0 = k > o->window ? k - o->window : 0;
    *a1 = k + o->window < n ? k + o->window : n;
    return k - *b0 >= o->min_window && *a1 - k >= o->min_window;
}

/* Tests split k: 1 with *c filled when it is a step. */
static int test_split(const double *x, size_t n, size_t k, const stats_cp_opts *o, stats_changepoint *c)
{
    size_t b0, a1;
    if (!windows(n, k, o, &b0, &a1))
        return 0;
    const double *before = x + b0, *after = x + k;
    size_t nb = k - b0, na = a1 - k;
    double ratio = stats_median(after, na) / stats_median(before, nb);
    if (!(fabs(ratio - 1) >= o->min_step))
        return 0;
    double p = stats_mann_whitney(after, na, before, nb, NULL, NULL);
    if (!(p < o->alpha))
        return 0;
    c->at = k;
    c->ratio = ratio;
    c->p = p;
    if (stats_bootstrap_ratio_ci(after, na, before, nb, o->boot_b, o->level, o->seed + k, &c->ci_lo, &c->ci_hi))
        c->ci_lo = c->ci_hi = NAN;
    return 1;
}

static int by_at(const void *a, const void *b)
{
    size_t x = ((const stats_changepoint *)a)->at, y = ((const stats_changepoint *)b)->at;
    return (x > y) - (x < y);
}

int stats_changepoints(const double *x, size_t n, const stats_cp_opts *o, stats_changepoint *out, size_t max,
                       size_t *n_out)
{
    *n_out = 0;
    if (o->min_window < 2 || o->window < o->min_window || !(o->alpha > 0 && o->alpha < 1))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(x[i]) && x[i] > 0))
            return -1;
    char *taken = calloc(n + 1, 1); /* splits too close to a step already found */
    if (!taken)
        return -1;
    while (*n_out < max) {
        stats_changepoint best = {0}, c;
        int found = 0;
        for (size_t k = 1; k < n; k++)
            if (!taken[k] && test_split(x, n, k, o, &c) &&
                (!found || fabs(log(c.ratio)) > fabs(log(best.ratio))))
                best = c, found = 1;
        if (!found)
            break;
        out[(*n_out)++] = best;
        for (size_t k = best.at > o->window ? best.at - o->window : 0; k <= best.at + o->window && k <= n; k++)
            taken[k] = 1;
    }
    free(taken);
    qsort(out, *n_out, sizeof *out, by_at);
    return 0;
}
