/* plan_internal.h: what bench/plan.c and bench/plan_split.c share: the arm
 * odometer of one device (or one split over several) and the skip list.
 * Not a public interface (bench/plan.h is). */
#ifndef LVD_BENCH_PLAN_INTERNAL_H
#define LVD_BENCH_PLAN_INTERNAL_H

#include "bench/plan.h"
#include "placement/spread.h"

/* One split over several devices, as its arms ask for it. */
typedef struct bench_split {
    const char *split_mode;            /* "layer", "row", "tensor" */
    const char *tensor_split;          /* "0.60/0.40" */
    int ubatch;                        /* the spread's ubatch when reduced; 0 = as configured */
    size_t n;                          /* devices */
    const char *selector[PLACEMENT_SPREAD_MAX];
    int64_t free_mib[PLACEMENT_SPREAD_MAX];
} bench_split;

/* Every combination of the lists for dev (a split's synthetic device when
 * split is not NULL: selector "A/B", free memory the sum); vis: the
 * visibility variables it needs; cover: the devices of a split that holds
 * the model fully when dev alone would get a partial rung ("" / NULL: none),
 * which skips dev. */
void bench_plan_device_arms(bench_plan *p, const lvd_engine *e, const char *binary,
                            const lvd_device *dev, const char *vis, const bench_plan_opts *o,
                            const bench_split *split, const char *cover);
/* The placement input the plan's options give (placement_place_in_init,
 * then the shape, the serving context, the first -ub and the first KV pair);
 * the caller adds the device's free memory and the margin. */
void bench_plan_place_in(const bench_plan_opts *o, placement_place_in *in);
/* Records that e (or one device of it) gets no arm; reason is taken. */
void bench_plan_add_skip(bench_plan *p, const lvd_engine *e, const char *binary, const char *device,
                         char *reason);

/* One set of distinct cards an engine may split across (plan_split.c). */
#define BENCH_SPLIT_SETS_MAX 9
typedef struct bench_split_set {
    lvd_device dev;          /* synthetic: selector "A/B", name "X + Y", backend ("cuda", or
                              * "cuda+vulkan" across backends), total and free the sums */
    size_t idx[PLACEMENT_SPREAD_MAX]; /* the probe's devices */
    size_t n;
    int priced;              /* shape and every free MiB known: spread is set */
    placement_spread_result spread;
} bench_split_set;

/* The split sets of one probe (rules in plan.h): one per backend with two or
 * more devices, and, when no backend has two but the listing holds two or
 * more distinct cards, one of the first listing of each card. Priced with
 * the plan's first ub / ctk / ctv. Returns how many (<= BENCH_SPLIT_SETS_MAX). */
size_t bench_split_sets(const lvd_probe *pr, const bench_plan_opts *o, bench_split_set *out);
/* The selector of the first set holding device d that fits fully; NULL. */
const char *bench_split_cover(const bench_split_set *sets, size_t n, size_t d);
/* The split arms of sets[0..n) (rules in plan.h); accepted: ENGINE_SM_* bits. */
void bench_plan_split_arms(bench_plan *p, const lvd_engine *e, const char *binary,
                           const lvd_probe *pr, const bench_split_set *sets, size_t n,
                           int accepted, const bench_plan_opts *o);
/* Checks opts.sm (layer, row, tensor) and opts.ts (N/N[/N...]). 0 or -1. */
int bench_split_opts_check(const bench_plan_opts *o, lvd_err *err);

#endif
