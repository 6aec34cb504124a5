/* resolve.c: the build `lvd fetch` fetches: given, --latest, or the pin's
 * (see resolve.h). The release API through fetch/release.c. */
#include "fetch/resolve.h"

#include "common/cli.h"
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

int fetch_resolve_build(const fetch_resolve_opts *o, fetch_target *t, int *exit_code, lvd_err *err)
{
    memset(t, 0, sizeof *t);
    *exit_code = LVD_EXIT_OK;
    if (load_pin(o, t, err) != 0) {
        *exit_code = LVD_EXIT_INPUT;
        return -1;
    }
    if (o->build) {
        t->build = lvd_xstrdup(o->build);
        return 0;
    }
    if (o->latest)
        return resolve_latest(o, t, exit_code, err);
    if (!t->have_pin) {
        *exit_code = LVD_EXIT_USAGE;
        return lvd_errf(err, "no BUILD given and no pin file (--pin-file, $LVD_PIN_FILE)");
    }
    t->build = lvd_xstrdup(builds_pin_build(&t->pin));
    return 0;
}

void fetch_target_free(fetch_target *t)
{
    if (!t)
        return;
    free(t->build);
    builds_pin_free(&t->pin);
    memset(t, 0, sizeof *t);
}
