/* select.h: lvd select at service start: for one model, which registered
 * engine and device serve it, how much of it goes on the device, and the
 * llama-server launch line. From the store alone: nothing is spawned,
 * binaries are only stat'ed. A pipeline, one step per file, each handing a
 * plain struct to the next (docs/architecture.md draws it):
 *
 *   request  sel_request          the options (select_cli.c's table), the model
 *                                 identified in the store (request.c)
 *   gather   -> sel_facts         every store read the rest needs, once:
 *                                 engines and probes, the profile's device, the
 *                                 verdict and where it stands, checks, ceilings,
 *                                 allocation rows (gather.h)
 *   decide   -> sel_decision      profile > verdict > heuristic > first, pure
 *                                 over the facts (decide.h)
 *   place    -> sel_choice_lines  the launch line of the choice, placement on
 *                                 its device (place.h, choice.h)
 *   render   -> sel_result        engine, device, placement, argv, env and the
 *                                 explain lines; printed as a shell line or
 *                                 JSON (render.h)
 *
 * Every step appends its explain lines to one list (explain.h), which the
 * result carries. The selection order:
 *   1. profile   an operator profile (select/profile.h) naming an engine,
 *                backend or device wins outright; a device selector the
 *                engine's cached probe does not show is an error, not a guess;
 *   2. verdict   the newest verdict for (artifact, host, objective)
 *                (select/verdict.h), valid only while the engines it compared
 *                are unchanged (fingerprint: ids, builds, dirs, binary mtimes
 *                and sizes), its engine can serve and still lists its device,
 *                and that device's newest check passed;
 *   3. heuristic select/heuristic.h over the engines' cached probes;
 *   4. first     the first engine (store order) whose probe lists a device
 *                that is no software rasterizer (engine_device_is_software), that
 *                device; else the first CPU engine (probe with no devices);
 *                else the first engine listing only software devices, on the
 *                CPU (-ngl 0, no --device).
 * Engines are offered only when their newest probe is of the binary as it is
 * on disk now (mtime and size), is not "unknown", and DIR/llama-server is
 * executable. Rules 3 and 4 skip devices whose newest check for the model
 * failed (or errored); unchecked devices stay (a guess is no worse for it).
 * An engine is always chosen by id from the store: the launch line's argv[0]
 * is ENGINE_DIR/llama-server of a registered engine, never a caller's path.
 *
 * Then the launch line of the choice, made by the one function that makes
 * every launch line, sel_choice_lines_build (select/choice.h): placement
 * (placement/placement.h) on the chosen device for the context (--ctx, else
 * the profile's, else min(4096, the model's training context)), with the
 * device's free MiB from the probe or the caller; the profile's ngl /
 * n-cpu-moe / ub override what placement says. A CPU choice gets no
 * placement; on an engine whose probe lists devices it runs with -ngl 0. */
#ifndef LVD_SEL_SELECT_H
#define LVD_SEL_SELECT_H

#include "common/types.h"
#include "common/util.h"
#include "select/launch.h"
#include "placement/placement.h"
#include "select/profile.h"
#include "stats/rank.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

struct cJSON;

/* Default context when neither the caller nor the profile gives one. */
#define SEL_CTX_DEFAULT PLACEMENT_CTX_DEFAULT
/* sel_request.ctx for --ctx max: the measured ceiling less its margin
 * (fit/ceiling.h, fit_serve_ctx). */
#define SEL_CTX_MAX (-2)

typedef enum sel_by {
    SEL_BY_NONE = 0,
    SEL_BY_PROFILE,        /* rule 1 */
    SEL_BY_VERDICT,        /* rule 2 */
    SEL_BY_HEURISTIC,      /* rule 3 */
    SEL_BY_FIRST,          /* rule 4: the first engine listing a device */
    SEL_BY_CPU,            /* rule 4: the CPU engine */
} sel_by;

typedef struct sel_request {
    const char *model;     /* the model's path as the caller gave it */
    const sel_profile *profile; /* NULL = none */
    int64_t ctx;           /* -1 = default; 0 = the model's training context; SEL_CTX_MAX */
    int64_t free_mib;      /* -1 = the probe's figure */
    stats_objective objective; /* which verdict rule 2 reads (default tg) */
    const char *host;      /* NULL = lvd_hostname() */
} sel_request;

typedef struct sel_result {
    sel_by by;
    char *model;           /* absolute path, as launched */
    lvd_engine engine;     /* the chosen engine (a copy) */
    char backend[32];      /* "cpu" or the device's label (sel_device_label: "cuda",
                              "vulkan (software)") */
    lvd_device device;     /* the device placed on; selector "" for the CPU */
    int64_t verdict_id;    /* the verdict used (rule 2), else 0 */
    int placed;            /* 1 when placement ran */
    placement_result placement;
    lvd_params params;     /* what the launch passes */
    uint32_t ctx;
    sel_launch launch;
    char **explain;        /* one line per rule consulted, then placement (explain.h) */
    size_t n_explain;
} sel_result;

/* Defaults: no profile, ctx -1, free_mib -1, objective tg, this host. */
void sel_request_init(sel_request *rq);

/* "profile", "verdict", "heuristic", "first-engine", "cpu-engine", "none". */
const char *sel_by_name(sel_by by);

/* The request step (request.c). Opens the store at store_path and identifies model: read-only and from
 * the hash cache when it can answer (a stat, no read of the model); else
 * (or with writable) read-write, hashing the model when it is new or
 * changed. *s is the open store (close with store_close). 0, or -1 with err
 * and *exit_code (LVD_EXIT_STORE: no store, or it failed to open;
 * LVD_EXIT_INPUT: the model is missing or not a GGUF). */
int sel_open_identify(const char *store_path, const char *model, int writable, store **s,
                      store_artifact *artifact, int *exit_code, lvd_err *err);

/* The pipeline (header comment) for the identified artifact into out (free with sel_result_free). 0, or -1 with err and
 * *exit_code: LVD_EXIT_INPUT for a profile that cannot be honoured (unknown
 * engine, selector not in the probe, backend no engine has) or a model whose
 * shape placement cannot use; LVD_EXIT_FAIL when no engine can serve at
 * all (err lists each engine's reason); LVD_EXIT_STORE when the store failed. */
int sel_select(store *s, const store_artifact *artifact, const sel_request *rq, sel_result *out,
               int *exit_code, lvd_err *err);
void sel_result_free(sel_result *r);

/* {rule, engine, engine_id, build, backend, device, device_name, model, ctx,
 * verdict_id, placement {rung, ngl, n_cpu_moe, ubatch, ctx, bytes, margin,
 * reason} | null, argv [], env [], explain []}. Caller owns it. */
struct cJSON *sel_result_json(const sel_result *r);

#endif
