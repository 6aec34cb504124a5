/* correction.c: see correction.h. */
#include "placement/correction.h"

#include "engine/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n) (n > 0), linear between order statistics. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

static int64_t part(int64_t b)
{
    return b > 0 ? b : 0;
}

/* actual / predicted device total of one row; -1 when a side is missing. */
static double row_ratio(const lvd_alloc *a)
{
    int64_t act = part(a->model) + part(a->kv) + part(a->compute);
    int64_t pred = part(a->pred_model) + part(a->pred_kv) + part(a->pred_compute);
    if (a->model < 0 || a->pred_model < 0 || pred <= 0 || act <= 0)
        return -1;
    return (double)act / (double)pred;
}

const char *placement_correction_direction(int direction)
{
    return direction > 0 ? "up" : direction < 0 ? "down" : "unchanged";
}

/* The ratios of the rows of out's backend and build into v; their count. */
static size_t select_ratios(const lvd_alloc *rows, size_t n, const placement_correction *out,
                            double *v)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char b[16];
        if (!strcmp(rows[i].device, "CPU") || (out->build[0] && strcmp(rows[i].build, out->build)))
            continue;
        engine_backend_of_selector(rows[i].device, b, sizeof b);
        double r = row_ratio(&rows[i]);
        if (r > 0 && !strcmp(b, out->backend))
            v[k++] = r;
    }
    return k;
}

/* x within PLACEMENT_CORRECTION_MIN..MAX; 1 where it is within
 * PLACEMENT_CORRECTION_EXACT of it. */
static double bounded(double x)
{
    if (x > 1 - PLACEMENT_CORRECTION_EXACT && x < 1 + PLACEMENT_CORRECTION_EXACT)
        return 1;
    return x < PLACEMENT_CORRECTION_MIN ? PLACEMENT_CORRECTION_MIN
         : x > PLACEMENT_CORRECTION_MAX ? PLACEMENT_CORRECTION_MAX
                                        : x;
}

double placement_correction_compute(const lvd_alloc *rows, size_t n, const char *backend,
                                    const char *build, placement_correction *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->backend, sizeof out->backend, "%s", backend ? backend : "");
    snprintf(out->build, sizeof out->build, "%s", build ? build : "");
    out->factor = 1;
    char who[64];
    snprintf(who, sizeof who, "%s%s%s", out->backend, out->build[0] ? " " : "", out->build);
    double *v = lvd_xcalloc(n ? n : 1, sizeof *v);
    out->n = select_ratios(rows, n, out, v);
    if (out->n) {
        qsort(v, out->n, sizeof *v, cmp_double);
        out->median = quantile(v, out->n, 0.5);
        out->lo = quantile(v, out->n, 0.1);
        out->hi = quantile(v, out->n, PLACEMENT_CORRECTION_QUANTILE);
    }
    free(v);
    if (out->n < PLACEMENT_CORRECTION_MIN_ROWS) {
        snprintf(out->why, sizeof out->why, "%s: no margin correction (%zu allocation rows in the "
                 "store, %d needed)", who, out->n, PLACEMENT_CORRECTION_MIN_ROWS);
        return out->factor;
    }
    out->factor = bounded(out->hi);
    out->direction = out->factor > 1 ? 1 : out->factor < 1 ? -1 : 0;
    snprintf(out->why, sizeof out->why, "%s: actual/predicted over %zu rows median %.3f "
             "(p10 %.3f, p90 %.3f): device need x%.3f, %s%s", who, out->n, out->median, out->lo,
             out->hi, out->factor, placement_correction_direction(out->direction),
             out->direction > 0   ? " (llama.cpp allocated more than predicted)"
             : out->direction < 0 ? " (llama.cpp allocated less than predicted)"
                                  : "");
    return out->factor;
}
