/* plan.h: which arms a bench session measures, from the registered engines
 * and what their probes saw. An arm is one engine x device x parameter set.
 * Rules:
 *   - an engine whose probe is "unknown" (it could not be asked) or that has
 *     no executable llama-bench is skipped, with the reason (never guessed to
 *     be a CPU build);
 *   - an engine whose probe saw no device (a CPU-only build) gets one CPU arm:
 *     no GPU flag at all (-dev, -ngl, -fa, -ub, -ctk/-ctv, -ncmoe are not
 *     passed; a CPU-only build ignores -ngl silently), only -t when given;
 *   - an engine whose probe saw devices gets, for each device (selector
 *     copied verbatim from that engine's probe, passed as -dev), one arm per
 *     combination of the lists ngl x fa x ub x KV pair x ncmoe x env
 *     variant. Defaults: ngl 99, fa on and off, the rest not passed, and no
 *     environment;
 *   - KV pairs (bench/kvpair.h): -ctk/-ctv in matched pairs unless kv_mixed;
 *     a quantized V with -fa off is refused when -fa was given with off
 *     (an error), and left out of the default fa on,off (fa on only);
 *   - placement (placement/placement.h): when -ngl was not given and the model's
 *     shape and the device's free MiB are known, a model that does not fit
 *     fully resident at the serving context (place_ctx, the -c lvd select
 *     launches with; else ctx) gets the first rung that fits (its ngl, n-cpu-moe and
 *     ubatch, each unless given explicitly); a device that fits no block
 *     (cpu-only / nothing-fits rungs) is skipped with the rung's reason;
 *   - environment variants: the no-environment baseline always, plus one arm
 *     per variant ("K=V" or "K=V K2=V2"). A variable named GGML_VK_* applies
 *     only to Vulkan devices, GGML_CUDA_* only to CUDA, GGML_SYCL_* only to
 *     SYCL, anything else to every device; the CPU arm gets none;
 *   - device visibility: every arm of a device carries, before its variant,
 *     the visibility variables its device needs from the environment its
 *     probe was made under (engine/visibility.h: GGML_VK_VISIBLE_DEVICES=0
 *     on a Vulkan device probed under it), so what ran, was recorded and is
 *     launched sees the same device; a variant naming one of them wins.
 *   - ik_llama.cpp's knobs (bench/plan_knobs.c): with -fmoe or -rtr lists,
 *     every arm of an engine whose llama-bench --help lists the knob (its CPU
 *     arm too) comes once per value, each next to the others (one process
 *     each: its llama-bench takes one value); an engine that does not list
 *     it keeps its arms as they were, and a note says so;
 *   - several GPUs (bench/plan_split.h): an engine whose probe lists two or
 *     more distinct cards (engine/cards.h: CUDA0 and Vulkan0 of one card are
 *     one) also gets split arms over them: -dev A/B as the probe spells the
 *     selectors, -sm layer, row and tensor (those its llama-bench --help
 *     accepts; opts.sm narrows them), -ts proportional to each device's free
 *     memory (placement/spread.h; opts.ts overrides), every layer (-ngl 99),
 *     times the fa x ub x ctk x ctv x env lists; a split that does not fit
 *     fully is skipped with its reason, and a single device whose own rung
 *     would be partial (experts on host, partial, cpu only, nothing fits) is
 *     skipped when a split containing it fits fully.
 * Not for running anything (bench/runner.h) or choosing a winner (select/). */
#ifndef LVD_BENCH_PLAN_H
#define LVD_BENCH_PLAN_H

#include "common/gguf.h"
#include "common/types.h"
#include "placement/spread.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

/* llama-bench's -ngl for "every layer" when placement does not say. */
#define BENCH_NGL_ALL 99

typedef struct bench_arm {
    int64_t engine_id;
    char *engine;          /* the engine's name */
    char *build;           /* the engine's build id ("unknown" when not recorded) */
    char *binary;          /* DIR/llama-bench */
    char *flags;           /* the flags the engine's tools list, as its probe recorded them
                              (engine/help.h); NULL: not known (every flag is passed) */
    char backend[16];      /* "cpu" or the device's backend ("cuda", "vulkan") */
    char device_name[256]; /* "" for the CPU arm */
    int gpu;               /* GPU flags were asked (-dev / -ngl > 0) */
    lvd_params params;     /* what is asked */
    char arm_key[320];     /* benchio_arm_key(params) */
    char *label;           /* "ENGINE DEVICE ngl=99 fa=on ..." for tables */
    char *placement;       /* the placement reason when it set the parameters; else NULL */
    int64_t free_mib;      /* the device's free MiB as probed; -1 unknown (CPU arm) */
    size_t fit_of;         /* a "llama.cpp fit" arm: 1 + the index of our placement's arm
                            * it rivals (bench/fitarm.h); 0 otherwise (so a zeroed arm is
                            * neither) */
    size_t rung_of;        /* 1 + the index of the arm whose load ran out of memory and this
                            * arm is the next rung of (bench/rung.h); 0 for a planned arm */
    lvd_alloc pred[PLACEMENT_SPREAD_MAX + 1];
                           /* placement_price's prediction for the arm's own flags: the
                            * device(s) (GPU arms; each device's share of a split) and
                            * "CPU" (the host); pred_* -1 = none, model/kv/compute -1
                            * (filled from the run's stderr) */
    size_t n_pred;         /* 0 when the model's shape is unknown */
} bench_arm;

/* An engine (or one device of it) that gets no arm, and why. */
typedef struct bench_skip {
    int64_t engine_id;
    char *engine;
    char *build;
    char *binary;          /* what would have run (DIR/llama-bench) */
    char device[64];       /* "" when the whole engine was skipped */
    char *reason;
} bench_skip;

typedef struct bench_plan {
    bench_arm *arms;
    size_t n_arms;
    bench_skip *skips;
    size_t n_skips;
    char **notes;          /* placement lines for the report: the margin correction each
                            * placed device used, the next rungs taken (malloc'd) */
    size_t n_notes;
    char **remarks;        /* the plan's other lines for the report: a knob asked of an
                            * engine whose llama-bench does not list it (malloc'd) */
    size_t n_remarks;
} bench_plan;

/* The parameter lists (NULL / 0 entries = the default). Strings are borrowed. */
typedef struct bench_plan_opts {
    const int *ngl;        /* -ngl values; default BENCH_NGL_ALL or placement */
    size_t n_ngl;
    const int *fa;         /* 0 / 1; default {1, 0} */
    size_t n_fa;
    const int *ub;         /* -ub; default not passed */
    size_t n_ub;
    const char *const *ctk;/* -ctk; default not passed */
    size_t n_ctk;
    const char *const *ctv;
    size_t n_ctv;
    int kv_mixed;          /* --kv-mixed: ctk x ctv; default matched pairs */
    const int *ncmoe;      /* -ncmoe; default not passed */
    size_t n_ncmoe;
    int threads;           /* -t for every arm; 0 = not passed */
    const int *fmoe;       /* ik_llama.cpp's -fmoe 0|1; default not passed */
    size_t n_fmoe;
    const int *rtr;        /* ik_llama.cpp's -rtr 0|1; default not passed */
    size_t n_rtr;
    const char *const *env;/* environment variants; the baseline is implicit */
    size_t n_env;
    const int *split_modes;/* per engine (parallel to engines): the ENGINE_SM_* bits its
                            * llama-bench accepts (engine/splitmodes.h); NULL = assumed */
    const char *const *sm; /* -sm values for split arms; default layer, row, tensor */
    size_t n_sm;
    const char *ts;        /* -ts for split arms ("3/1", or "3,1"); NULL = by free memory */
    const gguf_shape *shape; /* the model's; NULL or !known: no placement */
    uint32_t ctx;          /* tokens of KV llama-bench allocates (max n_depth + n_prompt +
                            * n_gen of the tests): what each arm's prediction prices */
    uint32_t place_ctx;    /* the serving context placement places for (bench/depth.h);
                            * 0 = ctx */
    const lvd_alloc *alloc_rows; /* the store's allocation rows (store_alloc_rows): placement
                            * keeps each device backend's margin correction
                            * (placement/correction.h; predictions stay plain, so the
                            * ratio keeps judging the plain estimate); NULL: none */
    size_t n_alloc_rows;
} bench_plan_opts;

/* The split modes (ENGINE_SM_* bits) each engine's llama-bench accepts, from
 * what its --help lists as its probe recorded it (read now when the probe
 * kept none), for engines whose probe lists two or more distinct cards
 * (ENGINE_SM_ASSUMED for the others): what bench_plan_opts.split_modes
 * takes. Malloc'd, one per engine. */
int *bench_split_modes_probe(const lvd_engine *engines, const lvd_probe *probes, size_t n);

/* Builds the arms of engines[0..n) with probes[i] belonging to engines[i]
 * (rules in the header comment) into out (free with bench_plan_free). Arms
 * come in engine order, then device, then the lists in the order above.
 * Returns 0 (a plan with no arm is not an error: the skips say why), or -1
 * with err for an invalid list value (negative ngl/ub/ncmoe, fa not 0/1, an
 * env variant word that is not NAME=VALUE, or one too long, a quantized V
 * cache with an explicit -fa off). */
int bench_plan_build(const lvd_engine *engines, const lvd_probe *probes, size_t n,
                     const bench_plan_opts *o, bench_plan *out, lvd_err *err);
void bench_plan_free(bench_plan *p);
/* Frees what one arm owns (its strings), not the arm itself. */
void bench_arm_free(bench_arm *a);

/* Appends an arm like arm base of p (engine, binary, device) with params and
 * the placement reason (may be NULL), its label and its prediction as
 * bench_plan_build makes them; returns its index. */
size_t bench_plan_add_variant(bench_plan *p, size_t base, const lvd_params *params,
                              const char *placement, const bench_plan_opts *o);
/* Takes arms [first, n_arms) of p, all of one engine, once per value of the
 * knob lists of o (-fmoe, -rtr) the engine's llama-bench lists (rules in the
 * header comment), each variant right after its arm. */
void bench_plan_knob_arms(bench_plan *p, size_t first, const bench_plan_opts *o);
/* Appends a note (printf format) to p->notes. */
void bench_plan_note(bench_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a remark (printf format) to p->remarks. */
void bench_plan_remark(bench_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The directory of arm a's engine (its llama-bench's), malloc'd. */
char *bench_arm_dir(const bench_arm *a);

/* The parameters as people read them: "ngl=99 fa=on ub=256 ctk=q8_0 ctv=q8_0
 * ncmoe=4 t=8 fmoe=0 rtr=1 K=V", only what is passed ("" for none); malloc'd. */
char *bench_params_text(const lvd_params *p);
/* The arm's label (as in bench_arm.label): "ENGINE DEVICE|cpu PARAMS". */
char *bench_arm_label(const char *engine, const char *device, const lvd_params *p);

/* The CPU reference of the plan (stats/rank.h stats_cpu_reference over the
 * arms' backends; a CPU arm asks no GPU flag), or (size_t)-1. */
size_t bench_plan_cpu_arm(const bench_plan *p);

#endif
