/* choice.h: the launch line of a choice: placement on its device and the
 * llama-server line (select/launch.h), assembled in ONE function,
 * sel_choice_lines_build, for every caller: `lvd select --model` (place.c,
 * after the selection order, with the caller's --ctx, --free-mib and
 * profile), `lvd select --record --artifact` and the evidence page (through
 * sel_choice_lines_load, from stored records alone, on an engine that need
 * not be able to serve here). So the page shows by construction the line
 * lvd select prints.
 * The device is the one the parameters run on (engine_check_device: their
 * selector, else the probe's first unless -ngl 0); none, or an engine whose
 * probe lists no device, is a CPU run (no --device / --n-cpu-moe; -ngl 0 on
 * an engine that lists devices, none on a CPU build). The context is --ctx,
 * else the profile's, else the one the arm's measured serving depth D stands
 * for (2 x D: lvd bench measured at half the context it served, bench/depth.h),
 * else min(SEL_CTX_DEFAULT, the trained context), passed as -c on the CPU as
 * on a device, placed or not; with no shape recorded (an artifact known by
 * its sha256 only) and no depth, no -c (llama.cpp's default).
 * Placement from the artifact's GGUF shape and the free memory (the
 * caller's, else the probe's) at that context: when the measured arm's own
 * -ngl / --n-cpu-moe / -ub need no more of the device than the rung that fits
 * (sel_arm_within_placement), the launch keeps them: the line is the arm that
 * was measured (an -ngl above the model's blocks, 99, written as n_block + 1:
 * every block, as placement writes it); else the rung's are applied (the arm would not fit at this
 * context). Then the profile's ngl / n-cpu-moe / ub override it. Not for
 * choosing (select.h, verdict.h). */
#ifndef LVD_SEL_CHOICE_H
#define LVD_SEL_CHOICE_H

#include "common/types.h"
#include "common/util.h"
#include "select/launch.h"
#include "placement/placement.h"
#include "select/profile.h"
#include "select/verdict.h"
#include "store/store.h"

#include <stdint.h>

/* The model word of a launch line whose model path the store does not know
 * (an artifact known by its sha256 only). */
#define SEL_MODEL_PLACEHOLDER "MODEL.gguf"

/* What a launch line is made from; sel_line_in_init gives the defaults. */
typedef struct sel_line_in {
    const lvd_engine *engine;      /* NULL: no longer registered (then no launch line) */
    const lvd_probe *probe;        /* the engine's newest probe; NULL: none */
    const char *reported;          /* the backends llama-bench reported; NULL: unknown */
    const lvd_params *params;      /* the choice's parameters (a verdict's arm, a rule's device) */
    const store_artifact *artifact; /* NULL: not in the store */
    const char *model;             /* the path launched; NULL: the artifact's last known
                                      path, else SEL_MODEL_PLACEHOLDER */
    const char *model_hint;        /* what llama-bench called the model (model_note only) */
    const sel_profile *profile;    /* its flags apply, its ngl / n-cpu-moe / ub override
                                      placement; NULL: none */
    int64_t ctx;                   /* -1: the profile's, else the measured depth's, else the
                                      default; 0: the trained context */
    int depth;                     /* the serving depth the arm was measured at (0: none) */
    uint32_t place_ctx;            /* the context placement prices; 0: ctx (--ctx max places at the
                                      default context, where lvd fit measured the ceiling) */
    int64_t free_mib;              /* -1: the probe's figure */
    const lvd_alloc *alloc_rows;   /* the store's allocation rows (store_alloc_rows): the
                                      margin correction of the device's backend
                                      (placement/correction.h); NULL: none */
    size_t n_alloc_rows;
    const store_fitprint *fitprints; /* llama.cpp's own figures for the model
                                      (store_fitprint_list): the row of the engine, device
                                      and setting placed, made by the engine's files as
                                      probed, scales weights and KV (placement.h); NULL: none */
    size_t n_fitprints;
} sel_line_in;

/* Defaults: everything NULL, ctx -1, free_mib -1. */
void sel_line_in_init(sel_line_in *in);

typedef struct sel_choice_lines {
    char *engine;           /* the engine's name (sel_choice_lines_load); NULL when not registered */
    char backend[32];       /* "cpu", "cuda", ... (sel_backend_label) */
    int gpu_capable;        /* the engine lists devices (no probe: reported a non-CPU backend) */
    int cpu_run;            /* the model runs on the CPU (no device) */
    int placement_known;    /* 1: placement_line says where the model goes */
    int placed;             /* placement was computed (a GPU choice) */
    int placement_failed;   /* placement could not use the shape (placement_line says why) */
    int profile_overrides;  /* the profile's ngl / n-cpu-moe / ub replaced placement's */
    placement_result placement;
    char margin_why[240];   /* the margin correction used (placement/correction.h); "" when not placed */
    placement_engine_mem engine_mem; /* llama.cpp's figures placement used (known 0: none) */
    char engine_mem_why[200]; /* why none was used where the engine has llama-fit-params; "" */
    lvd_device device;      /* the device run on (placed or not); selector "" when none */
    int64_t free_mib;       /* the free MiB placement used (-1 unknown) */
    const char *free_from;  /* static: "--free-mib" or "the probe" */
    uint32_t ctx;           /* -c of the launch; 0 when the shape is not recorded (llama.cpp's default) */
    const char *ctx_from;   /* static: "--ctx", "profile", "measured depth", "default", "no shape" */
    int kept_arm;           /* placement kept the measured arm's offload flags */
    lvd_params params;      /* what the launch passes */
    char *placement_line;   /* known: "fully resident on CUDA0 (142629 MiB free, context
                               4096): ..." or "CPU engine: the whole model in host memory";
                               unknown: why ("shape not recorded (...)") */
    char *model;            /* the model path launched */
    char *model_note;       /* with the placeholder: one line saying what it stands for;
                               else NULL */
    sel_launch launch;      /* argc 0 when there is no engine */
    char *launch_line;      /* the shell line; NULL when there is no engine */
} sel_choice_lines;

/* THE launch line (see the header comment) of in into out. 0, or -1 with err
 * when the launch line cannot be built from the parameters (out is then
 * freed). A placement that fails is not an error here (placement_failed;
 * lvd select makes it one). Free with sel_choice_lines_free. */
int sel_choice_lines_build(const sel_line_in *in, sel_choice_lines *out, lvd_err *err);
void sel_choice_lines_free(sel_choice_lines *c);

/* 1 when the measured parameters p need no more of the device than the
 * placement pl that fits (shape's blocks): an -ngl given and no higher
 * (anything above n_block counts as every block, as pl's -1), --n-cpu-moe no
 * lower, -ub no larger (0 = PLACEMENT_UBATCH_DEFAULT); 0 for no -ngl (-1:
 * nothing measured) and for a rung with nothing on the device. */
int sel_arm_within_placement(const lvd_params *p, const placement_result *pl, const gguf_shape *shape);

/* What the store measured of arm (engine_id, arm_key) on (artifact, host)
 * in its newest session: the backends llama-bench reported (out "" when
 * none) and its serving depth, the deepest n_depth of its tests (*depth 0
 * when none). 0 or -1 (err). */
int sel_arm_measured(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                     char *backends, size_t len, int *depth, lvd_err *err);

/* The lines of the choice (engine_id, arm_key, params) on artifact a and
 * host (NULL = this machine), from the store: the engine's record (none when
 * engine_id is 0 or no longer registered: no launch line), its newest probe,
 * and what llama-bench reported as backends for that arm in its newest
 * session and its serving depth (sel_arm_measured; arm_key NULL: none), into sel_choice_lines_build
 * with no profile, no --ctx and no --free-mib.
 * model_hint only words model_note; the launch line never depends on it.
 * 0; -1 when the store failed, -2 when params make no launch line (err
 * either way; out is then freed). */
int sel_choice_lines_load(store *s, const store_artifact *a, const char *host, int64_t engine_id,
                          const char *arm_key, const lvd_params *params, const char *model_hint,
                          sel_choice_lines *out, lvd_err *err);

/* `lvd select --record --artifact SHA` without the printing: the artifact sha
 * from the store into *a, the verdict computed and recorded under o into *v
 * (sel_verdict_record), then its lines (sel_choice_lines_load) into *c
 * (left empty when the verdict has no winner). 0 with all three filled
 * (free each); else -1 with err and *exit_code
 * (LVD_EXIT_INPUT: no such artifact, or a verdict whose parameters make no
 * launch line; LVD_EXIT_FAIL: no bench run to decide from; LVD_EXIT_STORE)
 * and nothing to free. */
int sel_choice_record_artifact(store *s, const char *sha, const sel_verdict_opts *o, store_artifact *a,
                               lvd_verdict *v, sel_choice_lines *c, int *exit_code, lvd_err *err);

#endif
