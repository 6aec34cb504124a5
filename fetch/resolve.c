/* resolve.c: the build `lvd fetch` fetches: given, --latest, or the pin's
 * (see resolve.h). The release API through fetch/release.c. */
#include "fetch/resolve.h"

#include "builds/names.h"
#include "common/cli.h"
#include "fetch/http.h"
#include "fetch/release.h"

#include <stdlib.h>
#include <string.h>

/* Loads the pin file o names (or the default one, when there is one). */
static int load_pin(const fetch_resolve_opts *o, fetch_target *t, lvd_err *err)
{
    char *path = o->pin_file ? lvd_xstrdup(o->pin_file) : builds_pin_default_path();
    int rc = 0;
    if (path) {
        rc = builds_pin_load(path, &t->pin, err);
        t->have_pin = rc == 0;
    }
    free(path);
    return rc;
}

/* The newest published build at least o->min_age old, into t->build. */
static int resolve_latest(const fetch_resolve_opts *o, fetch_target *t, int *exit_code, lvd_err *err)
{
    char *base = o->api_base ? lvd_xstrdup(o->api_base) : fetch_api_base();
    fetch_api_status st;
    lvd_err why = {""};
    int rc = fetch_release_latest(base, o->min_age, o->now, &t->build, &st, &why);
    free(base);
    if (rc != 0) {
        *exit_code = st == FETCH_API_OK ? LVD_EXIT_FAIL : LVD_EXIT_NETWORK;
        return lvd_errf(err, "--latest: %s", why.msg);
    }
    t->from_latest = 1;
    return 0;
}

/* The build SemVer release name stands for (fetch_release_semver), into
 * t->build with t->release; with the API unable to answer, the release's
 * nightly-tag.txt from the download host, unverified (t->note says so: the
 * archive's recorded digest, if any, is what then stands). */
static int resolve_semver(const fetch_resolve_opts *o, const char *name, fetch_target *t, int *exit_code,
                          lvd_err *err)
{
    char *base = o->api_base ? lvd_xstrdup(o->api_base) : fetch_api_base();
    fetch_api_status st;
    lvd_err why = {""};
    int rc = fetch_release_semver(base, name, &t->build, &st, &why);
    free(base);
    if (rc != 0 && (st == FETCH_API_RATE_LIMITED || st == FETCH_API_UNAVAILABLE)) {
        char *dl = o->download_base ? lvd_xstrdup(o->download_base) : fetch_download_base();
        lvd_err dl_why = {""};
        if (fetch_nightly_tag_get(dl, name, &t->build, &dl_why) == 0) {
            t->note = lvd_xasprintf("%s; %s is %s by its %s, read unverified from %s", why.msg, name, t->build,
                                    BUILDS_NIGHTLY_TAG_ASSET, fetch_http_host(dl));
            rc = 0;
        }
        free(dl);
    }
    if (rc != 0) {
        *exit_code = st == FETCH_API_OK ? LVD_EXIT_VERIFY : LVD_EXIT_NETWORK;
        return lvd_errf(err, "%s: %s", name, why.msg);
    }
    t->release = lvd_xstrdup(name);
    return 0;
}

int fetch_resolve_build(const fetch_resolve_opts *o, fetch_target *t, int *exit_code, lvd_err *err)
{
    memset(t, 0, sizeof *t);
    *exit_code = LVD_EXIT_OK;
    if (load_pin(o, t, err) != 0) {
        *exit_code = LVD_EXIT_INPUT;
        return -1;
    }
    if (o->latest && !o->build)
        return resolve_latest(o, t, exit_code, err);
    if (!o->build && !t->have_pin) {
        *exit_code = LVD_EXIT_USAGE;
        return lvd_errf(err, "no BUILD given and no pin file (--pin-file, $LVD_PIN_FILE)");
    }
    const char *name = o->build ? o->build : builds_pin_build(&t->pin);
    if (builds_semver_valid(name))
        return resolve_semver(o, name, t, exit_code, err);
    t->build = lvd_xstrdup(name);
    return 0;
}

void fetch_target_free(fetch_target *t)
{
    if (!t)
        return;
    free(t->build);
    free(t->release);
    free(t->note);
    builds_pin_free(&t->pin);
    memset(t, 0, sizeof *t);
}
