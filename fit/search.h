/* search.h: the bisection lvd fit runs over the context of one engine,
 * device and KV cache type pair (man lvd-fit, THE SEARCH): between a start (the
 * placement's prediction) and a top (the training context or --max-ctx),
 * the largest context that loads, to within FIT_PRECISION_PCT. Pure: the
 * loads are a callback, so the tests count them. Not for running a load
 * (fit/load.h) nor for recording (fit/fit.h). */
#ifndef LVD_FIT_SEARCH_H
#define LVD_FIT_SEARCH_H

#include "common/util.h"

#include <stdint.h>

/* The smallest context tried: llama.cpp pads the KV cache to 256 cells. */
#define FIT_MIN_CTX 256
/* Stop when the bracket (largest that loaded, smallest that did not) is
 * within this percent of the largest that loaded. */
#define FIT_PRECISION_PCT 1

/* One load of n_ctx cells: 0 with *fits (1 loaded and ran, 0 did not: memory,
 * a non-zero exit, a timeout), or -1 with err when it could not be tried. */
typedef int (*fit_load_fn)(void *arg, uint32_t n_ctx, int *fits, lvd_err *err);

typedef struct fit_search_out {
    uint32_t ceiling;   /* the largest context that loaded; 0 = not even FIT_MIN_CTX */
    uint32_t above;     /* the smallest that did not; 0 = none (capped) */
    int capped;         /* the top itself loaded */
    int probes;         /* loads made */
} fit_search_out;

/* The search: load start (clamped to [FIT_MIN_CTX, top]); if it loads, load
 * top (loads: capped, done); if not, load FIT_MIN_CTX (fails: ceiling 0);
 * then halve the bracket until it is within FIT_PRECISION_PCT. So at most
 * log2(bracket) + 2 loads. 0, or -1 with err when a load could not be tried. */
int fit_search(uint32_t start, uint32_t top, fit_load_fn load, void *arg, fit_search_out *out, lvd_err *err);

#endif
