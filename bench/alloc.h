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

/* The prediction of a llama-bench process that runs several arms (a group:
 * bench/group.h): one context per arm, and llama.cpp's buffer lines, of
 * which engine/alloclog.c keeps the largest of each kind, so the
 * prediction to set beside them is the largest of the arms' per device and
 * kind (a flash-attention-off arm's compute buffer, a larger cache type's
 * KV). *out: a shallow copy of arms[0] with that pred. */
void bench_alloc_group_pred(const bench_arm *const *arms, size_t n, bench_arm *out);

/* 1 when run->reason marks a placement failure (out of device memory). */
int bench_alloc_is_placement_failure(const lvd_run *run);
/* The same for a failure reason (NULL: 0). */
int bench_alloc_reason_is_placement_failure(const char *reason);

#endif
