/* fitarm.h: llama.cpp's own fit as a rival arm. After the plan
 * is built, every GPU arm whose parameters our placement set (the model
 * does not fit the device fully: bench_arm.placement) gets, when its
 * engine's llama-bench offers -fitt (engine/fit.h), a "llama.cpp fit" arm
 * beside it: the same device, flash attention, cache types, threads and
 * environment, no -ngl / -ncmoe / -ub, and -fitt ENGINE_FIT_TARGET_DEFAULT
 * (llama.cpp's default margin), so llama.cpp places the model itself at load
 * and the session ranks both placements like any other arms (the verdict
 * says which is faster, by how much, with its CI). Where the engine also has
 * llama-fit-params, the plan llama.cpp chooses for that device (-c, -ngl,
 * the -ot overrides and how many blocks' experts they put on the host) is
 * recorded beside ours (store: fit_plans) and noted in the report; without
 * it the report says the plan is not printed. The fit arm carries no
 * prediction (llama.cpp chose its placement). Not for running arms
 * (bench/runner.h) nor for parsing llama.cpp's output (engine/fit.c). */
#ifndef LVD_BENCH_FITARM_H
#define LVD_BENCH_FITARM_H

#include "bench/plan.h"
#include "store/store.h"

typedef struct bench_fit_in {
    store *s;              /* plans are recorded here; NULL: not recorded */
    const char *model;     /* the path llama-fit-params loads */
    const char *artifact, *host, *session;
} bench_fit_in;

/* Adds the fit arms and plans to p (rules above). 0, or -1 with err (a
 * store error only; an engine whose tools fail is noted and goes without). */
int bench_fit_arms_add(bench_plan *p, const bench_plan_opts *o, const bench_fit_in *in, lvd_err *err);

#endif
