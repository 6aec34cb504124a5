/* spread.h: one model across several devices (llama.cpp's -sm layer|row|
 * tensor with -ts): the split proportional to each device's free memory, and
 * whether every block, the output head and the KV then fit, each device
 * keeping its own headroom. The rule, in one function (placement_spread):
 *   - the split: f_i = free_i / sum(free), written for -ts with two decimals
 *     ("0.60/0.40", llama-bench's own spelling: it prints %.2f per device);
 *   - device i holds f_i of the full-residency weights (token embeddings stay
 *     on the host, as on one device) and f_i of the KV cache, plus its own
 *     reserve and f_i of the compute allowance's excess over the reserve;
 *   - it fits when every device's need is within its free memory, at the
 *     configured ubatch or else at 256 then 128 (the single-device ladder's
 *     cheap currency); else nothing is offered (no partial split here).
 * So a model that fits two cards but not one gets a full-offload split, not
 * a partial-offload rung on one card (bench/plan.h). Pure arithmetic, no I/O.
 * Not for one device (placement.h). */
#ifndef LVD_PLACEMENT_SPREAD_H
#define LVD_PLACEMENT_SPREAD_H

#include "placement/placement.h"

#include <stddef.h>
#include <stdint.h>

/* The most devices one split names (llama.cpp's GGML_CUDA_MAX_DEVICES is 16;
 * no box here has more than 8). */
#define PLACEMENT_SPREAD_MAX 8

typedef struct placement_spread_result {
    int fits;                   /* 1: every device holds its share */
    int ubatch;                 /* the ubatch priced (the first that fits, else the smallest) */
    size_t n;                   /* devices */
    double frac[PLACEMENT_SPREAD_MAX];           /* the split, summing to 1 */
    char tensor_split[64];                       /* "0.60/0.40" */
    uint64_t weight_bytes[PLACEMENT_SPREAD_MAX]; /* per device */
    uint64_t kv_bytes[PLACEMENT_SPREAD_MAX];
    uint64_t headroom_bytes[PLACEMENT_SPREAD_MAX];
    int64_t margin_bytes[PLACEMENT_SPREAD_MAX];  /* free_i - need_i */
    char reason[320];           /* one line for the plan's placement column */
} placement_spread_result;

/* Spreads in's model (shape, ctx, cache types, ubatch, reserve, compute; its
 * free_mib is not read) over n devices with free_mib[0..n). Errors (-1, err):
 * n < 2 or > PLACEMENT_SPREAD_MAX, a free_mib that is unknown or 0, and
 * placement_price's errors. Not fitting is not an error: fits = 0. */
int placement_spread(const placement_place_in *in, const int64_t *free_mib, size_t n,
                     placement_spread_result *out, lvd_err *err);

#endif
