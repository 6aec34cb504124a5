/* choice.h: the placement and launch line of a choice already made (a
 * recorded verdict, or the measured leader) on an engine that need not be
 * able to serve here (an engine imported from another machine): what
 * `lvd select --record --artifact` prints and what the evidence page shows.
 * Computed as lvd select computes them (context min(SEL_CTX_DEFAULT, the
 * trained context); placement from the artifact's GGUF shape and the free
 * memory the engine's newest probe recorded, applied to -ngl / --n-cpu-moe /
 * -ub; then the launch line), but from stored records alone: no file is
 * stat'ed, no profile applies, nothing is checked for being servable.
 * Not for choosing (select.h, verdict.h). */
#ifndef LVD_SEL_CHOICE_H
#define LVD_SEL_CHOICE_H

#include "common/types.h"
#include "common/util.h"
#include "select/launch.h"
#include "select/placement.h"
#include "store/store.h"

#include <stdint.h>

/* The model word of a launch line whose model path the store does not know
 * (an artifact known by its sha256 only). */
#define SEL_MODEL_PLACEHOLDER "MODEL.gguf"

typedef struct sel_choice_lines {
    char backend[16];       /* "cpu", "cuda", ... (sel_backend_label) */
    int placement_known;    /* 1: placement_line says where the model goes */
    int placed;             /* placement was computed (a GPU choice) */
    sel_placement placement;
    lvd_device device;      /* the device placed on; selector "" when none */
    uint32_t ctx;           /* -c of the launch; 0 when not placed (llama.cpp's default) */
    char *placement_line;   /* known: "fully resident on CUDA0 (142629 MiB free, context
                               4096): ..." or "CPU engine: the whole model in host memory";
                               unknown: why ("shape not recorded (...)") */
    char *model;            /* the model path launched: the artifact's last known path,
                               else SEL_MODEL_PLACEHOLDER */
    char *model_note;       /* with the placeholder: one line saying what it stands for;
                               else NULL */
    sel_launch launch;      /* argc 0 when there is no engine */
    char *launch_line;      /* the shell line; NULL when there is no engine */
} sel_choice_lines;

/* Fills out for engine e (NULL: no longer registered; then no launch line)
 * running with params, whose newest probe is probe (NULL: none), whose runs
 * reported backends reported (NULL: unknown), on artifact a (NULL: not in the
 * store). model_hint (may be NULL) is what llama-bench called the model
 * file, quoted in model_note. 0, or -1 with err when the launch line cannot
 * be built from params (out is then freed). Free with sel_choice_lines_free. */
int sel_choice_lines_build(const lvd_engine *e, const lvd_probe *probe, const char *reported,
                           const lvd_params *params, const store_artifact *a, const char *model_hint,
                           sel_choice_lines *out, lvd_err *err);
void sel_choice_lines_free(sel_choice_lines *c);

#endif
