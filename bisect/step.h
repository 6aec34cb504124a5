/* step.h: one step of a bisect: fetch a build into a bench dir (verified
 * exactly as lvd fetch verifies: fetch/fetch.h), then bench it against the
 * good and the bad build in one interleaved session (bench/runner.h) on the
 * regressed arm and test only, and classify it (bisect/search.h). Not for
 * choosing which build (bisect/search.c) or recording (bisect/bisect.c). */
#ifndef LVD_BISECT_STEP_H
#define LVD_BISECT_STEP_H

#include "bench/invoke.h"
#include "common/types.h"
#include "fetch/fetch.h"
#include "store/bisectdb.h"
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>

/* What every step shares. */
typedef struct bisect_env {
    store *s;
    const char *store_path;
    const char *model;          /* the path engines load */
    const char *artifact;       /* its sha256 */
    const char *host;
    bench_test test;            /* the regressed test */
    const char *device;         /* the arm: a device selector or backend; NULL: the first device */
    int fa;                     /* -fa of the arm: 1 or 0 */
    int ngl;                    /* -ngl; -1: the plan's */
    const char *flavour;
    const char *builds_dir, *api_base, *download_base;
    int64_t step_budget_ms;
    FILE *notes;
} bisect_env;

/* One fetched build. */
typedef struct bisect_fetched {
    int64_t engine_id;
    char *bench_dir;            /* NULL when nothing landed */
    char *commit;               /* the engine's commit, NULL when unknown */
    int downloaded;             /* bytes came over the network */
} bisect_fetched;

/* Fetches build as lvd fetch does. 0 with *f filled; 1 when the build must
 * be skipped (its digest cannot be verified or mismatches, its archive is
 * refused, or it lacks the asset): *reason says why; -1 with err and
 * *exit_code when the hunt must stop (network, store, local I/O). */
int bisect_fetch(const bisect_env *e, const char *build, bisect_fetched *f, char **reason,
                 int *exit_code, lvd_err *err);
void bisect_fetched_free(bisect_fetched *f);

/* Benches mid against good and bad (engine ids) in one session and fills
 * out's verdict, reason and figures (out->build is the caller's); also the
 * bad/good ratio of that session into endpoints (ratio, CI; NAN when not
 * measured) and, where a commits[k] is NULL, the build_commit llama-bench
 * reported for good, mid and bad (malloc'd). 0, or -1 with err when the
 * store or the runner failed. */
int bisect_measure(const bisect_env *e, int64_t good, int64_t mid, int64_t bad, const char *session,
                   store_bisect_step *out, double endpoints[3], char *commits[3], lvd_err *err);

#endif
