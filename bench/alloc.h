/* alloc.h: a bench run's allocations: what llama.cpp said it allocated per
 * device (engine/alloclog.h, from llama-bench -v's stderr) merged with what
 * placement predicted for the arm (bench_arm.pred), and a load that failed
 * for memory turned into a placement failure naming the predicted bytes.
 * Not for parsing (engine/alloclog.c) nor for storing (store/store_runs.c). */
#ifndef LVD_BENCH_ALLOC_H
#define LVD_BENCH_ALLOC_H

#include "bench/plan.h"

#include <stddef.h>

/* Fills run->alloc from err[0..len) and arm->pred (one entry per device seen
 * in either). When run failed and the stderr says an allocation failed for
 * memory, run->reason becomes "placement failure: ..." with the predicted
 * bytes and the engine's line, so the next placement rung can be tried. */
void bench_alloc_attach(const bench_arm *arm, const char *err, size_t len, lvd_run *run);

/* 1 when run->reason marks a placement failure (out of device memory). */
int bench_alloc_is_placement_failure(const lvd_run *run);
/* The same for a failure reason (NULL: 0). */
int bench_alloc_reason_is_placement_failure(const char *reason);

#endif
