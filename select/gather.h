/* gather.h: the selection's second step (select.h): every store read the
 * decision and the launch line need, once, into one plain struct, so that
 * the steps after it (decide.h, place.h) read no store. What it reads, in
 * this order:
 *   - the model's absolute path (the launch line names it);
 *   - the registered engines with their newest probes under the environment
 *     a server started here sees (select/engines.h);
 *   - with a profile that names an engine, backend or device: what it names
 *     (sel_profile_resolve) and that device's newest correctness check;
 *   - else the newest verdict for the objective, the probes under its arm's
 *     environment when that differs, and where the verdict stands: whether
 *     it still holds for the engines on disk (the order of the reasons in
 *     sel_standing), the check of its arm's device read only when nothing
 *     before it failed;
 *   - when neither holds: the newest check of every device the heuristic and
 *     the first-engine rule weigh (the usable engines' devices);
 *   - for the verdict's launch, the serving depth of its arm when the
 *     verdict predates the depth column;
 *   - the context ceilings of the model on this host, when the request asks
 *     for a context (select/ceiling.h);
 *   - the store's allocation rows (the margin correction, placement/correction.h).
 * So a warm start that its verdict decides reads the engines, the verdict,
 * one check and the allocation rows. Not for choosing (decide.h) nor for
 * wording any explain line. */
#ifndef LVD_SEL_GATHER_H
#define LVD_SEL_GATHER_H

#include "common/types.h"
#include "common/util.h"
#include "select/engines.h"
#include "select/select.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* A device's newest check for the model (sel_check_status). */
typedef struct sel_check_seen {
    char status[8];        /* "pass", "fail", "error", "base", "none" */
    char *reason;          /* NULL when none */
} sel_check_seen;

/* Where the newest verdict stands, in the order it is judged: the first
 * reason found is the one kept. */
typedef enum sel_standing {
    SEL_STANDING_NONE = 0,     /* no verdict for the objective on this host */
    SEL_STANDING_NO_ARM,       /* it recommends no arm (engine 0) */
    SEL_STANDING_STALE,        /* its fingerprint no longer holds (why) */
    SEL_STANDING_CANNOT_SERVE, /* its engine is gone or cannot serve */
    SEL_STANDING_DEVICE_GONE,  /* its engine's probe no longer shows its device */
    SEL_STANDING_NOT_VISIBLE,  /* a server started here would not see that device (why) */
    SEL_STANDING_UNCHECKED,    /* its device's check does not admit it (check) */
    SEL_STANDING_HOLDS,        /* it decides */
} sel_standing;

typedef struct sel_verdict_facts {
    int found;             /* v holds the newest verdict */
    lvd_verdict v;
    char objective[16];
    char *env;             /* its arm's environment when it differs from the server's (its
                              probes are ves); NULL when the same */
    sel_engines ves;       /* the engines under env; loaded only when env is set */
    sel_standing standing;
    char why[512];         /* STALE, NOT_VISIBLE: why */
    sel_pick pick;         /* its engine (NULL when not registered) and device, of es or ves */
    char check_device[64]; /* the device its check is looked up under (engine_check_device) */
    sel_check_seen check;  /* read at UNCHECKED and HOLDS only */
    int depth;             /* HOLDS: its arm's serving depth (llama-bench -d) */
} sel_verdict_facts;

typedef struct sel_facts {
    const store_artifact *artifact;
    const char *host;      /* the request's, else this machine */
    char *model;           /* the model's absolute path */
    sel_engines es;        /* under the environment a server started here sees */
    int profile_decides;   /* the profile names an engine, backend or device */
    sel_pick profile_pick; /* what it names (profile_decides) */
    sel_check_seen profile_check; /* the newest check of its device; status "" when it names the CPU */
    sel_verdict_facts verdict; /* looked for when no profile decides */
    sel_check_seen *dev_checks; /* when neither decides: one per device of every engine of es,
                                   in order (sel_facts_dev_check); read for the usable engines */
    store_ceiling *ceilings; /* when the request weighs a ceiling (sel_ceiling_weighed) */
    size_t n_ceilings;
    lvd_alloc *alloc_rows; /* the margin correction's rows (store_alloc_rows) */
    size_t n_alloc_rows;
    store_fitprint *fitprints; /* llama.cpp's own figures for the model (store_fitprint_list) */
    size_t n_fitprints;
} sel_facts;

/* Gathers the facts of request rq for artifact a from s (list in the header
 * comment) into f (free with sel_facts_free, also after a failure). Returns
 * the exit code: LVD_EXIT_OK; LVD_EXIT_INPUT (with err) for a model path
 * that cannot be resolved or a profile the probes cannot honour;
 * LVD_EXIT_STORE when the store failed. */
int sel_gather(store *s, const store_artifact *a, const sel_request *rq, sel_facts *f, lvd_err *err);
void sel_facts_free(sel_facts *f);

/* The newest check gathered for device d of engine e (both of f->es);
 * NULL when it was not read. */
const sel_check_seen *sel_facts_dev_check(const sel_facts *f, const sel_engine *e, const lvd_device *d);

#endif
