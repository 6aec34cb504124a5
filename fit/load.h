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
#include "engine/argv.h"

#include <stdint.h>

/* What every load of one engine, device and KV type pair shares. */
typedef struct fit_target {
    const char *binary;    /* ENGINE_DIR/llama-bench */
    const char *model;     /* -m, as given */
    lvd_params params;     /* device, ngl, n_cpu_moe, ubatch, type_k, type_v (the placement's) */
    const char *flags;     /* what the engine's tools list (its probe's record, engine/help.h);
                              NULL: not known */
    int timeout_ms;        /* per load */
    char last_why[200];    /* why the last load did not fit ("" when it did) */
    char left_out[200];    /* the flags the build's --help does not list, left out of every
                              load (engine/argv.h note); "" when none */
} fit_target;

/* The command of one load of n_ctx cells (engine/argv.h: the placement's
 * device, -ngl, -ncmoe and -ub, the cache types, f16 where not given):
 * 0, or -1 with err when the build lacks a flag a load needs (-d). */
int fit_load_cmd(const fit_target *t, uint32_t n_ctx, engine_argv *out, lvd_err *err);
/* Its argv alone (NULL-terminated; lvd_strv_free); NULL when it cannot be built. */
char **fit_load_argv(const fit_target *t, uint32_t n_ctx);

/* One load (a fit_load_fn over a fit_target): 0 with *fits (t->last_why
 * set when it did not fit; t->left_out when the build lacks a flag), -1
 * with err when the child could not start or the command not be built. */
int fit_load(void *target, uint32_t n_ctx, int *fits, lvd_err *err);

#endif
