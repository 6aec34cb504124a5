/* fitmem.h: which of llama.cpp's own memory figures (llama-fit-params
 * --fit-print, cached in the store: store_fitprint) a launch line's
 * placement uses: the row of the chosen engine, run by the files its
 * newest probe saw, on the chosen device, at the line's context, ubatch,
 * flash attention and cache types. Spawns nothing. Not for running
 * llama-fit-params (engine/fitprint.h) nor for pricing (placement.h). */
#ifndef LVD_SEL_FITMEM_H
#define LVD_SEL_FITMEM_H

#include "common/types.h"
#include "placement/placement.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* The row of rows (n) for engine e (probe: its newest, NULL: none) on
 * device selector dev at ctx with parameters p into *out (known 0 when none
 * fits; why then says so when the engine has rows for the model at all,
 * else ""). */
void sel_fitmem_find(const store_fitprint *rows, size_t n, const lvd_engine *e, const lvd_probe *probe,
                     const char *dev, uint32_t ctx, const lvd_params *p, placement_engine_mem *out, char *why,
                     size_t why_len);

/* The mainline build number of a build name ("b10587" -> 10587); 0 when it is not one. */
int sel_build_number(const char *build);

#endif
