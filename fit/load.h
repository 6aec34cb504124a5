/* load.h: one load of lvd fit: a one-token llama-bench run at a context
 * (`-d N-1 -p 1 -n 1 -r 1`: llama-bench makes a context per test, of its
 * depth and its own tokens, so pp1 and tg1 at depth N-1 each load N cells)
 * with the placement's flags, as its own child
 * process (common/proc.h: argv, timeout, process group killed). It fits when
 * the child exits 0 with a result line; a load that dies for memory
 * (llama.cpp's "failed to allocate", "out of memory", "failed to create
 * context"), any other non-zero exit, a signal (the kernel's OOM killer) or
 * the timeout is "does not fit", with the reason. Not for the search
 * (fit/search.h). */
#ifndef LVD_FIT_LOAD_H
#define LVD_FIT_LOAD_H

#include "common/types.h"
#include "common/util.h"

#include <stdint.h>

/* What every load of one engine, device and KV type pair shares. */
typedef struct fit_target {
    const char *binary;    /* ENGINE_DIR/llama-bench */
    const char *model;     /* -m, as given */
    lvd_params params;     /* device, ngl, n_cpu_moe, ubatch, type_k, type_v (the placement's) */
    int timeout_ms;        /* per load */
    char last_why[200];    /* why the last load did not fit ("" when it did) */
} fit_target;

/* The argv of one load of n_ctx cells (NULL-terminated; lvd_strv_free). */
char **fit_load_argv(const fit_target *t, uint32_t n_ctx);

/* One load (a fit_load_fn over a fit_target): 0 with *fits (t->last_why
 * set when it did not fit), -1 with err when the child could not start. */
int fit_load(void *target, uint32_t n_ctx, int *fits, lvd_err *err);

#endif
