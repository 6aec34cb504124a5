/* fitprint.h: llama.cpp's own memory figures for a model at one setting.
 * llama-fit-params --fit-print on (b9749, b10587 and the releases since late
 * 2025; llama.cpp's common_fit_print) makes a dry run of the real graph
 * that allocates nothing and prints on stdout, per device and then for the
 * host, "NAME model context compute" in MiB (floored):
 *   Vulkan0 11 8 63
 *   Host 8 0 5
 * model: the weights; context: the KV cache and any recurrent state;
 * compute: the compute buffer at the run's ubatch with a full ubatch of
 * outputs (llama-perplexity's, not llama-server's one per slot). This file
 * runs it and reads its lines; the store caches them (store.h,
 * store_fitprint), placement uses them (placement.h, placement_engine_mem).
 * Not for llama.cpp's fit plan (fit.h). */
#ifndef LVD_ENGINE_FITPRINT_H
#define LVD_ENGINE_FITPRINT_H

#include "common/types.h"
#include "common/util.h"
#include "engine/argv.h"
#include "engine/help.h"

#include <stdint.h>

#define ENGINE_FITPRINT_MAX_ROWS 16
#define ENGINE_FITPRINT_TIMEOUT_MS 120000

typedef struct engine_fitprint_row {
    char name[64];         /* "CUDA0", "Vulkan0", "Host" */
    int64_t model_mib, context_mib, compute_mib;
} engine_fitprint_row;

typedef struct engine_fitprint {
    engine_fitprint_row rows[ENGINE_FITPRINT_MAX_ROWS]; /* the devices in order, the host last */
    size_t n;
} engine_fitprint;

/* Parses llama-fit-params --fit-print's stdout into *out. 0, or -1 with err
 * quoting the line that is not "NAME MiB MiB MiB", or saying that no Host
 * line (always its last) was printed. */
int engine_fitprint_parse(const char *stdout_text, engine_fitprint *out, lvd_err *err);

/* The row named name (a device's, or "Host"); NULL when there is none. */
const engine_fitprint_row *engine_fitprint_row_of(const engine_fitprint *fp, const char *name);

/* Runs the llama-fit-params line r (engine/argv.h) with env ("K=V K2=V2";
 * NULL: none), timeout ENGINE_FITPRINT_TIMEOUT_MS, and hands its stdout to
 * parse(text, arg, err). 0, or -1 with err (the line cannot be built, it
 * failed: its reason, or parse's error). */
int engine_fit_params_exec(const engine_run *r, const char *env, int (*parse)(const char *, void *, lvd_err *),
                           void *arg, lvd_err *err);

/* Runs DIR/llama-fit-params -m MODEL [-dev D] -c CTX [-ub U -b U] [-fa on|off]
 * [-ctk T] [-ctv T] [-ngl N] --fit-print on (engine/argv.h over help: a flag
 * its --help lacks is left out) with env ("K=V K2=V2"; NULL: none) and
 * parses it. p: the setting (device, ngl, fa, ubatch, cache types). 0, or -1
 * with err (no llama-fit-params beside the engine, it failed, or printed no
 * figures). */
int engine_fitprint_run(const char *dir, const engine_help *help, const char *model, const lvd_params *p,
                        uint32_t ctx, const char *env, engine_fitprint *out, lvd_err *err);

#endif
