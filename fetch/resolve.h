/* resolve.h: which build `lvd fetch` fetches, decided before anything is
 * downloaded: the BUILD given; else with --latest the newest published
 * build the release API lists (fetch_release_latest); else the pin file's
 * build. A SemVer release (v0.4.1, given or pinned) is the build its
 * nightly-tag.txt names (fetch_release_semver), whose assets and digests are
 * then fetched and verified as any build's. The pin file (when there is one)
 * is loaded first, whatever the choice, since the fetch verifies against it.
 * Not for the fetch itself (fetch/fetch.h) nor for parsing the pin file
 * (builds/pinfile.h). */
#ifndef LVD_FETCH_RESOLVE_H
#define LVD_FETCH_RESOLVE_H

#include "builds/pinfile.h"
#include "common/util.h"

#include <stdint.h>

typedef struct fetch_resolve_opts {
    const char *build;    /* BUILD as given (b<N> or vX.Y.Z); NULL: --latest's, else the pin's */
    int latest;           /* resolve the newest published build (build is NULL) */
    int64_t min_age;      /* with latest: at least this many seconds old */
    int64_t now;          /* epoch seconds, for min_age */
    const char *pin_file; /* NULL: builds_pin_default_path() (which may name none) */
    const char *api_base; /* NULL: fetch_api_base() */
    const char *download_base; /* NULL: fetch_download_base() */
} fetch_resolve_opts;

/* The build to fetch, and the pin it is verified against. */
typedef struct fetch_target {
    char *build;          /* b<number> */
    char *release;        /* the SemVer release it was asked as ("v0.4.1"); NULL */
    char *note;           /* how the SemVer release was resolved, when the API could not
                             say (its nightly-tag.txt read unverified); NULL */
    int from_latest;      /* resolved through the release API (--latest) */
    builds_pin pin;       /* the pin file, when have_pin */
    int have_pin;
} fetch_target;

/* Decides o's build into t (free with fetch_target_free, also after a
 * failure). Returns 0, or -1 with err one line and *exit_code (enum
 * lvd_exit): INPUT when the pin file cannot be read or parsed; for --latest
 * ("--latest: ..."), NETWORK when the API could not be asked or answered an
 * error, FAIL when it answered but no build is old enough; for a SemVer
 * release ("v0.4.1: ..."), NETWORK when neither the API nor the download host
 * could say its build, VERIFY when its nightly-tag.txt is not one build tag
 * or not the bytes the API names; USAGE when no build was given and there is
 * no pin file. */
int fetch_resolve_build(const fetch_resolve_opts *o, fetch_target *t, int *exit_code, lvd_err *err);
void fetch_target_free(fetch_target *t);

#endif
