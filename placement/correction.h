/* correction.h: the estimator judged and corrected. Per engine
 * backend, the ratio actual / predicted of a device's allocation (model + KV
 * + compute as llama.cpp reported it, over the weights + KV + headroom
 * placement predicted for the arm; store: run_alloc) says how far the
 * estimate misses; its upper quantile becomes the factor the next placement
 * multiplies its device need by, so a backend that allocates more than
 * predicted keeps a larger margin. Pure arithmetic over rows the caller read.
 * Not for reading the store (store_alloc_rows) nor for the placement ladder
 * (placement.h, which applies the factor: placement_place_in.margin_factor). */
#ifndef LVD_PLACEMENT_CORRECTION_H
#define LVD_PLACEMENT_CORRECTION_H

#include "common/types.h"

#include <stddef.h>

/* Fewer rows of a backend than this: no correction (the spread is unknown). */
#define PLACEMENT_CORRECTION_MIN_ROWS 3
/* The quantile of the ratios the factor is taken from. */
#define PLACEMENT_CORRECTION_QUANTILE 0.9
/* The rows it is computed over: the newest this many of each device
 * (store_alloc_rows), so the margin follows the backend as it is now and the
 * cost of reading them does not grow with the store. */
#define PLACEMENT_CORRECTION_WINDOW 200
/* The largest factor (an estimate 3x off says the rows are wrong, not the margin). */
#define PLACEMENT_CORRECTION_MAX 3.0

typedef struct placement_correction {
    char backend[16];      /* "vulkan", "cuda" (engine_backend_of_selector of the device) */
    size_t n;              /* rows of this backend with both sides known */
    double median;         /* of actual / predicted; 0 when n is 0 */
    double lo, hi;         /* the 10th and 90th percentiles (the spread) */
    double factor;         /* >= 1: what the predicted device need is multiplied by */
    char why[200];         /* one line for --explain and the bench report */
} placement_correction;

/* The one rule: over rows[0..n) of devices of backend (host rows "CPU" and
 * rows missing either side are ignored), ratio = actual total / predicted
 * total; factor = max(1, the PLACEMENT_CORRECTION_QUANTILE quantile of the
 * ratios, at most PLACEMENT_CORRECTION_MAX) when at least PLACEMENT_CORRECTION_MIN_ROWS rows, else 1 (never
 * below the plain estimate: a backend that allocates less keeps the plain
 * margin). Fills *out (why included) and returns out->factor. */
double placement_correction_compute(const lvd_alloc *rows, size_t n, const char *backend,
                                    placement_correction *out);

#endif
