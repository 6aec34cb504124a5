/* fit.h: llama.cpp's own fit: whether an engine offers it
 * (llama-bench's -fitt / -fitc in its --help; a llama-fit-params beside it)
 * and the plan llama-fit-params prints. llama-fit-params (tools/fit-params in
 * llama.cpp) logs its reasoning on stderr and prints one line of CLI
 * arguments on stdout:
 *   -c 4096 -ngl 48 -ot "blk\.14\.ffn_(up|down|gate)_(ch|)exps=CPU,blk\.15\...=CPU"
 * with " -ts A,B" after -ngl on several devices (format from llama.cpp's
 * tools/fit-params/fit-params.cpp and README; see
 * tests/fixtures/llama.cpp/README.md). Not for measuring the plan
 * (bench/fitarm.h) nor for comparing it with ours. */
#ifndef LVD_ENGINE_FIT_H
#define LVD_ENGINE_FIT_H

#include "common/util.h"
#include "engine/help.h"

#include <stdint.h>

#define ENGINE_FIT_TARGET_DEFAULT 1024 /* llama.cpp's --fit-target default, MiB */

typedef struct engine_fit_caps {
    int bench_fitt;        /* its llama-bench --help lists -fitt */
    int fit_params;        /* DIR/llama-fit-params is executable */
} engine_fit_caps;

typedef struct engine_fit_plan {
    int64_t ctx;           /* -c */
    int ngl;               /* -ngl */
    char *ts;              /* -ts list, NULL when none */
    char *overrides;       /* the -ot list without its quotes, NULL when none */
    int host_blocks;       /* distinct blocks (blk\.N\.) of -ot entries on a CPU buffer */
} engine_fit_plan;

/* Parses llama-fit-params' stdout (its last line that starts with "-c ")
 * into *p (free with engine_fit_plan_free; a flag given twice: the last one
 * counts). 0, or -1 with err (no such line, a flag without its value, a
 * number out of range: -c below 0, -ngl below -1). */
int engine_fit_plan_parse(const char *out, engine_fit_plan *p, lvd_err *err);
void engine_fit_plan_free(engine_fit_plan *p);

/* What the engine in dir offers, its tools' flags being help (engine/help.h,
 * as its probe recorded them; NULL or a llama-bench not read: no -fitt). */
void engine_fit_caps_of(const char *dir, const engine_help *help, engine_fit_caps *out);

/* Runs DIR/llama-fit-params -m MODEL [-dev DEVICE] -c CTX -fitt TARGET
 * (engine/argv.h over help; timeout 120 s) with env ("K=V K2=V2", the
 * device's visibility; may be NULL) and parses its plan. 0, or -1 with err
 * (it failed: its reason; its --help lacks -c or -fitt). */
int engine_fit_params_run(const char *dir, const engine_help *help, const char *model, const char *device,
                          uint32_t ctx, int fit_target, const char *env, engine_fit_plan *out, lvd_err *err);

#endif
