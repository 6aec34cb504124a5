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

double placement_correction_compute(const lvd_alloc *rows, size_t n, const char *backend,
                                    placement_correction *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->backend, sizeof out->backend, "%s", backend ? backend : "");
    out->factor = 1;
    double *v = lvd_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        char b[16];
        if (!strcmp(rows[i].device, "CPU"))
            continue;
        engine_backend_of_selector(rows[i].device, b, sizeof b);
        double r = row_ratio(&rows[i]);
        if (r > 0 && !strcmp(b, out->backend))
            v[out->n++] = r;
    }
    if (out->n)
        qsort(v, out->n, sizeof *v, cmp_double);
    if (out->n) {
        out->median = quantile(v, out->n, 0.5);
        out->lo = quantile(v, out->n, 0.1);
        out->hi = quantile(v, out->n, PLACEMENT_CORRECTION_QUANTILE);
    }
    free(v);
    if (out->n < PLACEMENT_CORRECTION_MIN_ROWS) {
        snprintf(out->why, sizeof out->why, "%s: no margin correction (%zu allocation rows in the "
                 "store, %d needed)", out->backend, out->n, PLACEMENT_CORRECTION_MIN_ROWS);
        return out->factor;
    }
    out->factor = out->hi > 1 ? out->hi : 1;
    if (out->factor > PLACEMENT_CORRECTION_MAX)
        out->factor = PLACEMENT_CORRECTION_MAX;
    snprintf(out->why, sizeof out->why, "%s: actual/predicted over %zu rows median %.3f "
             "(p10 %.3f, p90 %.3f): device need x%.3f%s", out->backend, out->n, out->median,
             out->lo, out->hi, out->factor, out->hi > 1 ? "" : " (never below the plain estimate)");
    return out->factor;
}
