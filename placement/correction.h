/* correction.h: the estimator judged and corrected. Per engine backend and
 * build, the ratio actual / predicted of a device's allocation (model + KV +
 * compute as llama.cpp reported it, over the weights + KV + compute buffer
 * placement predicted for the arm; store: run_alloc) says how far the
 * estimate misses; its upper quantile becomes the factor the next placement
 * multiplies its predictions by, so a backend that allocates more than
 * predicted keeps a larger margin and one that allocates less gets a
 * smaller one, within bounds. Pure arithmetic over rows the caller read.
 * Not for reading the store (store_alloc_rows) nor for the placement ladder
 * (placement.h, which applies the factor: placement_place_in.margin_factor). */
#ifndef LVD_PLACEMENT_CORRECTION_H
#define LVD_PLACEMENT_CORRECTION_H

#include "common/types.h"

#include <stddef.h>

/* Fewer rows of a backend and build than this: no correction (the spread is unknown). */
#define PLACEMENT_CORRECTION_MIN_ROWS 3
/* The quantile of the ratios the factor is taken from. */
#define PLACEMENT_CORRECTION_QUANTILE 0.9
/* The rows it is computed over: the newest this many of each device
 * (store_alloc_rows), so the margin follows the backend as it is now and the
 * cost of reading them does not grow with the store. */
#define PLACEMENT_CORRECTION_WINDOW 200
/* The largest factor (an estimate 3x off says the rows are wrong, not the margin). */
#define PLACEMENT_CORRECTION_MAX 3.0
/* The smallest: a prediction is never cut by more than a quarter, however
 * generous it was (the cost of a load that dies is higher than of a layer
 * left on the host). */
#define PLACEMENT_CORRECTION_MIN 0.75
/* A factor this close to 1 (one that prints as x1.000) is none: the
 * estimate is right, and the margin neither grew nor shrank. */
#define PLACEMENT_CORRECTION_EXACT 0.0005

typedef struct placement_correction {
    char backend[16];      /* "vulkan", "cuda" (engine_backend_of_selector of the device) */
    char build[32];        /* the engine build the rows were taken from; "" = every build */
    size_t n;              /* rows of this backend and build with both sides known */
    double median;         /* of actual / predicted; 0 when n is 0 */
    double lo, hi;         /* the 10th and 90th percentiles (the spread) */
    double factor;         /* in [PLACEMENT_CORRECTION_MIN, PLACEMENT_CORRECTION_MAX]: what the
                            * predicted device need is multiplied by */
    int direction;         /* +1: the margin grew (factor > 1); -1: it shrank; 0: unchanged */
    char why[240];         /* one line for --explain, the bench report and the evidence page */
} placement_correction;

/* The one rule: over rows[0..n) of devices of backend whose run was of
 * build (NULL or "": any build; host rows "CPU" and rows missing either
 * side are ignored), ratio = actual total / predicted total; factor = the
 * PLACEMENT_CORRECTION_QUANTILE quantile of the ratios, bounded to
 * [PLACEMENT_CORRECTION_MIN, PLACEMENT_CORRECTION_MAX], when at least
 * PLACEMENT_CORRECTION_MIN_ROWS rows, else 1. Fills *out (why and direction
 * included) and returns out->factor. */
double placement_correction_compute(const lvd_alloc *rows, size_t n, const char *backend,
                                    const char *build, placement_correction *out);

/* "up", "down" or "unchanged": the word for a direction. */
const char *placement_correction_direction(int direction);

#endif
