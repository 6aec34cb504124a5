/* bisect.h: lvd bisect, hunting the first bad release build between a good
 * and a bad one. The hunt:
 *   1. lists the release builds between the two from the release API
 *      (paginated, newest first; drafts, prereleases and builds that publish
 *      no asset of the flavour are left out), oldest first;
 *   2. fetches good and bad (reused when already in the bench dirs);
 *   3. while the search (bisect/search.h) names a build: fetches it exactly
 *      as lvd fetch does (a build that cannot be verified is skipped with its
 *      reason), benches it against good and bad on the hunted arm and test in
 *      one interleaved session within the step's budget (the hunt's budget
 *      over log2(N) + 1 steps), classifies it, and records the step in the
 *      store at once;
 *   4. records the result: the last good and first bad build, their commits,
 *      the compare link and the first bad build's ratio to the good one.
 * A rerun of a hunt (same host, model, flavour, test, arm, good and bad)
 * resumes from the store: steps already decided are not redone. Bench dirs
 * the hunt downloaded are removed at the end unless keep (good and bad stay),
 * and their engines retired (store_engine_retire) either way: no nightly
 * probes, checks or benches them. The sessions are named
 * STORE_HUNT_SESSION_PREFIX..., so their runs stay out of verdicts, pin
 * decisions and the evidence tables (store_run_list leaves them out).
 * Not for option parsing (tools/lvd-bisect.c) or printing (bisect/report.c). */
#ifndef LVD_BISECT_BISECT_H
#define LVD_BISECT_BISECT_H

#include "common/util.h"
#include "store/bisectdb.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BISECT_COMPARE_URL "https://github.com/ggml-org/llama.cpp/compare"
#define BISECT_PER_PAGE 100 /* releases a page of the list asked (the API's most) */

typedef struct bisect_opts {
    const char *good, *bad;    /* release builds bNNNN or SemVer releases vX.Y.Z (each the build its
                                  nightly-tag.txt names), good older than bad by build number */
    const char *model;
    const char *flavour;       /* NULL: FETCH_DEFAULT_FLAVOUR */
    const char *test;          /* "tg128" (default) */
    const char *arm;           /* "DEVICE[,fa=on|off][,ngl=N]"; NULL: the first device, fa on */
    int64_t budget_s;          /* the whole hunt's */
    int keep;
    const char *store_path, *builds_dir, *api_base, *download_base; /* NULL: the defaults */
    FILE *notes;               /* progress and fetch notes (stderr); NULL: none */
} bisect_opts;

typedef struct bisect_result {
    char *good, *bad;          /* as asked */
    char *last_good, *first_bad; /* NULL when no boundary was found */
    char *good_commit, *bad_commit;
    char *compare_url;
    double ratio, ci_lo, ci_hi;/* first bad / good build on the test (NAN: not measured) */
    char *test, *flavour;
    char **between;            /* skipped builds the first bad may be (ambiguous result) */
    size_t n_between;
    store_bisect_step *steps;  /* every step, skipped ones included, in order */
    size_t n_steps;
    size_t n_candidates;       /* builds between good and bad, both excluded */
    size_t downloads;          /* by this run */
    size_t resumed;            /* steps taken from the store */
    int64_t bisect_id;
} bisect_result;

/* Runs the hunt. Returns an exit code (enum lvd_exit): OK with a boundary;
 * FAIL when good and bad do not differ on the test or only skipped builds
 * remain (res says which); USAGE for bad options; VERIFY when good or bad
 * cannot be verified; NETWORK (interrupted: rerun to resume); STORE. err
 * says why whenever it is not OK. */
int bisect_run(const bisect_opts *o, bisect_result *res, lvd_err *err);
void bisect_result_free(bisect_result *r);

/* The result as --json prints it: {last_good, first_bad, ..., steps, skipped}. */
struct cJSON *bisect_result_json(const bisect_result *r);
/* The result for people. */
void bisect_result_print(FILE *f, const bisect_result *r);

/* Builds between good and bad (both included) that publish the flavour's
 * asset, oldest first, from the paginated release list. 0, or -1 with err
 * and *exit_code. */
int bisect_candidates(const char *api_base, const char *good, const char *bad, const char *flavour,
                      int per_page, char ***tags, size_t *n, int *exit_code, lvd_err *err);

#endif
