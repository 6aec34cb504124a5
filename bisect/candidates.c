/* candidates.c: the release builds a bisect searches (bisect/bisect.h,
 * bisect_candidates): the paginated release list, filtered to published
 * builds between good and bad that carry the flavour's asset. Not for
 * fetching them (bisect/step.c). */
#include "bisect/bisect.h"

#include "builds/asset.h"
#include "builds/names.h"
#include "common/cli.h"
#include "fetch/release.h"

#include <stdlib.h>
#include <string.h>

static int has_asset(const fetch_release *r, const char *flavour)
{
    char *names[BUILDS_MAX_ASSET_NAMES];
    size_t n = 0;
    lvd_err e = {0};
    if (builds_asset_names(r->tag, flavour, names, &n, &e))
        return 0;
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        found = fetch_release_asset(r, names[i]) != NULL;
    builds_asset_names_free(names, n);
    return found;
}

static int by_number(const void *a, const void *b)
{
    long x = builds_number(*(char *const *)a), y = builds_number(*(char *const *)b);
    return (x > y) - (x < y);
}

int bisect_candidates(const char *api_base, const char *good, const char *bad, const char *flavour,
                      int per_page, char ***tags, size_t *n, int *exit_code, lvd_err *err)
{
    *tags = NULL;
    *n = 0;
    long lo = builds_number(good), hi = builds_number(bad);
    fetch_release *v = NULL;
    size_t nv = 0, got = 0;
    fetch_api_status st = FETCH_API_OK;
    int rc = 0, page = 1, older = 0;
    /* newest first: stop at a page shorter than asked or one reaching past good */
    do {
        size_t first = nv;
        rc = fetch_release_list_page(api_base, page++, per_page, &v, &nv, &got, &st, err);
        for (size_t i = first; i < nv && rc == 0; i++)
            older |= builds_number(v[i].tag) >= 0 && builds_number(v[i].tag) < lo;
    } while (rc == 0 && got == (size_t)per_page && !older && page <= 1000);
    for (size_t i = 0; i < nv && rc == 0; i++) {
        long k = builds_number(v[i].tag);
        if (k >= lo && k <= hi && builds_release_is_build(v[i].tag, v[i].draft, v[i].prerelease) &&
            has_asset(&v[i], flavour))
            lvd_strv_push(tags, n, lvd_xstrdup(v[i].tag));
    }
    for (size_t i = 0; i < nv; i++)
        fetch_release_free(&v[i]);
    free(v);
    if (rc) {
        *exit_code = LVD_EXIT_NETWORK;
        return -1;
    }
    qsort(*tags, *n, sizeof **tags, by_number);
    if (*n < 2 || strcmp((*tags)[0], good) || strcmp((*tags)[*n - 1], bad)) {
        lvd_strv_free(*tags);
        *tags = NULL;
        *n = 0;
        *exit_code = LVD_EXIT_USAGE;
        return lvd_errf(err, "%s and %s must both be published releases with a %s asset", good, bad,
                        flavour);
    }
    return 0;
}
