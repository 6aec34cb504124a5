/* serving.c: serving test names and quantiles (see serving.h). */
#include "stats/serving.h"

#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stats_serve_test_name(stats_serve_kind kind, int n_prompt, int n_gen, char *buf, size_t len)
{
    snprintf(buf, len, "%spp%d+tg%d", kind == STATS_SERVE_TTFT ? STATS_SERVE_TTFT_PREFIX : STATS_SERVE_TPS_PREFIX,
             n_prompt, n_gen);
}

/* A positive decimal at *s without sign or leading zero, up to 9 digits:
 * its value, *s past it; -1 when there is none. */
static int take_count(const char **s)
{
    const char *p = *s;
    if (*p < '1' || *p > '9')
        return -1;
    int v = 0;
    for (int k = 0; *p >= '0' && *p <= '9'; p++, k++) {
        if (k == 9)
            return -1;
        v = v * 10 + (*p - '0');
    }
    *s = p;
    return v;
}

stats_serve_kind stats_serve_test_kind(const char *name, int *n_prompt, int *n_gen)
{
    stats_serve_kind k = lvd_starts_with(name, STATS_SERVE_TTFT_PREFIX) ? STATS_SERVE_TTFT
                         : lvd_starts_with(name, STATS_SERVE_TPS_PREFIX) ? STATS_SERVE_TPS
                                                                         : STATS_SERVE_NONE;
    if (k == STATS_SERVE_NONE)
        return k;
    const char *s = strchr(name, '@') + 1;
    if (strncmp(s, "pp", 2))
        return STATS_SERVE_NONE;
    s += 2;
    int p = take_count(&s);
    if (p < 0 || strncmp(s, "+tg", 3))
        return STATS_SERVE_NONE;
    s += 3;
    int g = take_count(&s);
    if (g < 0 || *s)
        return STATS_SERVE_NONE;
    if (n_prompt)
        *n_prompt = p;
    if (n_gen)
        *n_gen = g;
    return k;
}

double stats_quantile(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double *v = lvd_xmalloc(n * sizeof *v);
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, lvd_cmp_double);
    double pos = (q < 0 ? 0 : q > 1 ? 1 : q) * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double out = v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
    free(v);
    return out;
}
