/* memfig.h: llama.cpp's own memory figures for the model benched, asked
 * where spawning belongs. For each engine that ships llama-fit-params and
 * each device and setting (flash attention, ubatch, cache types) of the
 * plan's arms, once: llama-fit-params --fit-print on (engine/fitprint.h) at
 * the serving context with every layer offloaded, recorded in the store
 * (store_fitprint, with the engine's files as probed) for lvd select, which
 * spawns nothing, and noted in the report. A split arm, llama.cpp's fit arm
 * and a CPU arm of an engine that lists devices ask nothing. Not for using
 * the figures (placement/placement.h, select/fitmem.h). */
#ifndef LVD_BENCH_MEMFIG_H
#define LVD_BENCH_MEMFIG_H

#include "bench/plan.h"
#include "common/types.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bench_memfig_in {
    store *s;
    const char *model;       /* the path llama-fit-params loads */
    const char *artifact;
    uint32_t ctx;            /* the serving context (lvd select's, bench/depth.h) */
    const lvd_engine *engines; /* the plan's engines and their probes (files key) */
    const lvd_probe *probes;
    size_t n;
} bench_memfig_in;

/* Asks and records (rules above); a run that fails is noted on the plan and
 * its engine goes without. 0, or -1 with err (a store error only). */
int bench_memfig_record(bench_plan *p, const bench_memfig_in *in, lvd_err *err);

#endif
