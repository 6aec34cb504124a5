/* choice.h: the placement and launch line of a choice already made (a
 * recorded verdict, or the measured leader) on an engine that need not be
 * able to serve here (an engine imported from another machine): what
 * `lvd select --record --artifact` prints and what the evidence page shows.
 * Computed as lvd select computes them (context min(SEL_CTX_DEFAULT, the
 * trained context); placement from the artifact's GGUF shape and the free
 * memory the engine's newest probe recorded, applied to -ngl / --n-cpu-moe /
 * -ub; then the launch line), but from stored records alone: no file is
 * stat'ed, no profile applies, nothing is checked for being servable.
 * The context is that of lvd select (min(SEL_CTX_DEFAULT, the trained
 * context), passed as -c) whenever the artifact's shape is recorded, on the
 * CPU as on a device, placed or not; with no shape, no -c (llama.cpp's
 * default): the trained context is not known.
 * sel_choice_lines_load is the one function that makes the line from the
 * store for a verdict or the measured leader: `lvd select --record
 * --artifact` and the evidence page both call it, so the page shows what
 * lvd select prints. Not for choosing (select.h, verdict.h). */
#ifndef LVD_SEL_CHOICE_H
#define LVD_SEL_CHOICE_H

#include "common/types.h"
#include "common/util.h"
#include "select/launch.h"
#include "placement/placement.h"
#include "select/verdict.h"
#include "store/store.h"

#include <stdint.h>

/* The model word of a launch line whose model path the store does not know
 * (an artifact known by its sha256 only). */
#define SEL_MODEL_PLACEHOLDER "MODEL.gguf"

typedef struct sel_choice_lines {
    char *engine;           /* the engine's name (sel_choice_lines_load); NULL when not registered */
    char backend[16];       /* "cpu", "cuda", ... (sel_backend_label) */
    int placement_known;    /* 1: placement_line says where the model goes */
    int placed;             /* placement was computed (a GPU choice) */
    placement_result placement;
    lvd_device device;      /* the device placed on; selector "" when none */
    uint32_t ctx;           /* -c of the launch; 0 when the shape is not recorded (llama.cpp's default) */
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

/* The lines of the choice (engine_id, arm_key, params) on artifact a and
 * host (NULL = this machine), from the store: the engine's record (none when
 * engine_id is 0 or no longer registered: no launch line), its newest probe,
 * and what llama-bench reported as backends for that arm in its newest
 * session (sel_armset_load; arm_key NULL: none), into sel_choice_lines_build.
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
