/* fetch.c: one build from release to registered engine: asset lookup, the
 * verification rules, one streaming download, safe unpacking into place, and
 * the store entry (see fetch.h). Not for option parsing or printing. */
#include "fetch/fetch.h"

#include "common/cli.h"
#include "common/json.h"
#include "common/paths.h"
#include "common/sha256.h"
#include "builds/asset.h"
#include "fetch/download.h"
#include "fetch/http.h"
#include "engine/probe.h"
#include "engine/register.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- the rules ---------------------------------------------------------- */

fetch_decision fetch_decide(const char *recorded, const char *api_digest, fetch_api_status st)
{
    fetch_decision d = {FETCH_STOP_UNVERIFIABLE, NULL, NULL};
    if (st == FETCH_API_NOT_FOUND) {
        d.verdict = FETCH_STOP_NOT_FOUND;
        d.note = "the release API has no such release or asset";
        return d;
    }
    if (st == FETCH_API_OK && api_digest) {
        if (!recorded) {
            d.verdict = FETCH_TRUST_API;
            d.expect = api_digest;
            d.note = "not pinned: verified against the digest the release API publishes";
        } else if (!strcmp(recorded, api_digest)) {
            d.verdict = FETCH_TRUST_BOTH;
            d.expect = recorded;
            d.note = "verified against the recorded digest and the release API's, which agree";
        } else {
            d.verdict = FETCH_STOP_DISAGREE;
            d.note = "the recorded digest and the release API's disagree: the asset behind the "
                     "tag was replaced";
        }
        return d;
    }
    if (recorded) {
        d.verdict = FETCH_TRUST_RECORDED;
        d.expect = recorded;
        d.note = st == FETCH_API_OK ? "the release API publishes no digest for this asset: the "
                                      "recorded digest stands alone"
                 : st == FETCH_API_RATE_LIMITED
                     ? "the release API is rate-limited: the recorded digest stands alone"
                     : "the release API is unavailable: the recorded digest stands alone";
        return d;
    }
    d.note = st == FETCH_API_OK
                 ? "the release API publishes no digest for this asset and none is recorded: "
                   "refusing an unverified build"
             : st == FETCH_API_RATE_LIMITED
                 ? "the release API is rate-limited and no digest is recorded: refusing an "
                   "unverified build"
                 : "the release API is unavailable and no digest is recorded: refusing an "
                   "unverified build";
    return d;
}

const char *fetch_verdict_name(fetch_verdict v)
{
    switch (v) {
    case FETCH_TRUST_BOTH:
        return "both";
    case FETCH_TRUST_RECORDED:
        return "recorded";
    case FETCH_TRUST_API:
        return "api";
    case FETCH_STOP_DISAGREE:
        return "disagree";
    case FETCH_STOP_UNVERIFIABLE:
        return "unverifiable";
    case FETCH_STOP_NOT_FOUND:
        return "not-found";
    }
    return "unverifiable";
}

/* --- paths -------------------------------------------------------------- */

char *fetch_builds_dir_default(void)
{
    const char *env = getenv("LVD_BUILDS_DIR");
    if (env && *env)
        return lvd_xstrdup(env);
    return lvd_state_path("builds");
}

/* --- helpers ------------------------------------------------------------ */

static void note(const fetch_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(const fetch_opts *o, const char *fmt, ...)
{
    if (!o->notes)
        return;
    lvd_progress_done();
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fetch_scrub_token(buf);
    fprintf(o->notes, "lvd-fetch: %s\n", buf);
    fflush(o->notes);
}

/* A digest as the user typed it: optional "sha256:", any case. NULL if invalid. */
static char *normalise_digest(const char *s)
{
    if (lvd_starts_with(s, "sha256:"))
        s += 7;
    char *d = lvd_xstrdup(s);
    for (char *p = d; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (!lvd_sha256_valid(d)) {
        free(d);
        return NULL;
    }
    return d;
}

static int fail(int *exit_code, int code)
{
    *exit_code = code;
    return -1;
}

static char *manifest_json(const fetch_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "build", r->build);
    cJSON_AddStringToObject(j, "flavour", r->flavour);
    cJSON_AddStringToObject(j, "asset", r->asset);
    cJSON_AddStringToObject(j, "url", r->url ? r->url : "");
    cJSON_AddStringToObject(j, "sha256", r->sha256);
    cJSON_AddStringToObject(j, "verified", fetch_verdict_name(r->verdict));
    cJSON_AddNumberToObject(j, "fetched_at", (double)lvd_now());
    char *s = cJSON_Print(j);
    cJSON_Delete(j);
    char *out = lvd_xasprintf("%s\n", s);
    free(s);
    return out;
}

/* The bench dir is already there: it counts only if its manifest records the
 * digest we expect. 0 = reuse it; -1 = error (exit code set). */
static int check_existing(const char *dir, const char *expect, fetch_result *res, int *exit_code,
                          lvd_err *err)
{
    char *mpath = lvd_xasprintf("%s/%s", dir, FETCH_MANIFEST);
    lvd_sb sb = {0};
    lvd_err rerr;
    int rc = lvd_read_file(mpath, 1 << 16, &sb, &rerr);
    free(mpath);
    cJSON *j = rc == 0 ? cJSON_ParseWithLength(lvd_sb_str(&sb), sb.len) : NULL;
    lvd_sb_free(&sb);
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(j, "sha256");
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(j, "asset");
    if (!cJSON_IsString(sha)) {
        cJSON_Delete(j);
        fetch_errf(err, "%s exists but was not placed by lvd fetch (no readable %s); remove it "
                        "to fetch again",
                   dir, FETCH_MANIFEST);
        return fail(exit_code, LVD_EXIT_FAIL);
    }
    if (strcmp(sha->valuestring, expect) != 0) {
        fetch_errf(err, "%s holds bytes with sha256 %s, expected %s; remove it to fetch again", dir,
                   sha->valuestring, expect);
        cJSON_Delete(j);
        return fail(exit_code, LVD_EXIT_VERIFY);
    }
    if (cJSON_IsString(asset)) {
        free(res->asset);
        res->asset = lvd_xstrdup(asset->valuestring);
    }
    cJSON_Delete(j);
    char *rel = NULL;
    if (fetch_find_engine_dir(dir, &rel) != 0) {
        fetch_errf(err, "%s holds no llama-server or llama-bench; remove it to fetch again", dir);
        return fail(exit_code, LVD_EXIT_FAIL);
    }
    res->engine_dir = rel[0] ? lvd_xasprintf("%s/%s", dir, rel) : lvd_xstrdup(dir);
    free(rel);
    res->sha256 = lvd_xstrdup(expect);
    res->reused = 1;
    return 0;
}

/* Downloads one URL into a fresh temporary file in dir. On success *tmp is its
 * path (the caller unlinks it); on failure nothing remains. */
static int download_to_temp(const char *url, const char *dir, const char *asset, int64_t size,
                            char **tmp, fetch_dl *dl, lvd_err *err)
{
    *tmp = lvd_xasprintf("%s/.download-%s-XXXXXX", dir, asset);
    int fd = mkostemp(*tmp, O_CLOEXEC);
    if (fd < 0) {
        fetch_errf(err, "%s: cannot create a temporary file: %s", dir, strerror(errno));
        dl->kind = FETCH_NET_WRITE;
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    int rc = fetch_download(url, fd, *tmp, size, dl, err);
    if (close(fd) != 0 && rc == 0) {
        fetch_errf(err, "%s: write failed: %s", *tmp, strerror(errno));
        dl->kind = FETCH_NET_WRITE;
        rc = -1;
    }
    if (rc != 0) {
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
    }
    return rc;
}

/* What the placed engine says it is: commit and SemVer version into res
 * (left NULL when it cannot tell); a note when it names another build. */
static void ask_version(const fetch_opts *o, fetch_result *res)
{
    engine_version v;
    lvd_err err = {{0}};
    if (engine_ask_version(res->engine_dir, o->probe_timeout_ms, &v, &err) != 0)
        return;
    res->commit = v.commit[0] ? lvd_xstrdup(v.commit) : NULL;
    res->semver = v.semver[0] ? lvd_xstrdup(v.semver) : NULL;
    char said[32];
    engine_version_build(&v, said, sizeof said);
    if (v.number > 0 && strcmp(said, res->build))
        note(o, "%s: its --version says build %s", res->engine_name, said);
}

/* Records the engine in the store and asks it for its devices. */
static int register_and_probe(const fetch_opts *o, fetch_result *res, int *exit_code, lvd_err *err)
{
    char *path = store_default_path(o->store_path);
    store *s = NULL;
    int rc = store_open(path, STORE_OPEN_CREATE, &s, err);
    free(path);
    if (rc != 0)
        return fail(exit_code, LVD_EXIT_STORE);
    ask_version(o, res);
    lvd_engine e = {
        .name = res->engine_name,
        .dir = res->engine_dir,
        .build = res->build,
        .commit = res->commit,
        .semver = res->semver,
        .release = res->release,
        .flavour = res->flavour,
        .digest = res->sha256,
        .origin = "fetched",
    };
    rc = store_engine_put(s, &e, err);
    if (rc == 0) {
        res->engine_id = e.id;
        if (!o->no_probe) {
            lvd_probe p = {0};
            rc = engine_probe_engine(s, &e, !res->reused, o->probe_timeout_ms, &p, err);
            if (rc == 0) {
                res->probed = 1;
                snprintf(res->backend, sizeof res->backend, "%s", p.backend);
                res->probe_reason = p.reason ? lvd_xstrdup(p.reason) : NULL;
                res->n_devices = p.n_devices;
            }
            lvd_probe_free(&p);
        }
    }
    store_close(s);
    if (rc != 0)
        return fail(exit_code, LVD_EXIT_STORE);
    return 0;
}

/* Steps 5 and 6 of fetch_build: one pass from the network into SHA-256 and a
 * temporary file beside the bench dirs, the digest compared with what the
 * rules expect, then the archive unpacked into place. The temporary file is
 * gone whatever happens. */
static int download_and_place(const fetch_opts *o, fetch_result *res, fetch_decision d,
                              char **names, size_t n_names, const char *dl_base,
                              const char *builds, int64_t size, int *exit_code, lvd_err *err)
{
    if (lvd_mkdir_p(builds, err) != 0)
        return fail(exit_code, LVD_EXIT_FAIL);
    char *tmp = NULL;
    fetch_dl dl = {.kind = FETCH_NET_OTHER};
    int got = -1;
    if (res->url) {
        got = download_to_temp(res->url, builds, res->asset, size, &tmp, &dl, err);
    } else {
        /* no API answer: the asset's name follows from the build; try each spelling */
        size_t tried = 0;
        for (size_t i = 0; i < n_names; i++, tried++) {
            free(res->url);
            res->url = lvd_xasprintf("%s/%s/%s", dl_base, res->build, names[i]);
            got = download_to_temp(res->url, builds, names[i], -1, &tmp, &dl, err);
            if (got == 0)
                res->asset = lvd_xstrdup(names[i]);
            if (got == 0 || !(dl.kind == FETCH_NET_HTTP && dl.http_code == 404))
                break;
        }
        if (got != 0 && tried == n_names && n_names > 1)
            fetch_errf(err, "download: neither %s nor %s is at %s/%s (HTTP 404)", names[0],
                       names[1], dl_base, res->build);
    }
    if (got != 0) {
        return fail(exit_code, dl.kind == FETCH_NET_WRITE || dl.kind == FETCH_NET_INTERRUPTED
                                   ? LVD_EXIT_FAIL
                                   : LVD_EXIT_NETWORK);
    }
    int rc = 0;
    res->bytes = dl.bytes;
    if (strcmp(dl.sha256, d.expect) != 0) {
        fetch_errf(err, "%s: the downloaded bytes have sha256 %s, expected %s (%s); nothing was "
                        "kept",
                   res->asset, dl.sha256, d.expect,
                   d.verdict == FETCH_TRUST_BOTH       ? "recorded and published"
                   : d.verdict == FETCH_TRUST_RECORDED ? "recorded"
                                                       : "published by the release API");
        rc = fail(exit_code, LVD_EXIT_VERIFY);
    } else {
        res->sha256 = lvd_xstrdup(dl.sha256);
        char *manifest = manifest_json(res);
        char *rel = NULL;
        if (fetch_unpack(tmp, res->asset, res->bench_dir, o->limits, FETCH_MANIFEST, manifest,
                         &rel, err) != 0) {
            rc = fail(exit_code, LVD_EXIT_FAIL);
        } else {
            res->engine_dir = rel[0] ? lvd_xasprintf("%s/%s", res->bench_dir, rel)
                                     : lvd_xstrdup(res->bench_dir);
            free(rel);
        }
        free(manifest);
    }
    unlink(tmp);
    free(tmp);
    return rc;
}

/* --- the whole fetch ---------------------------------------------------- */

/* Asks the API for the release and picks the asset among names. Fills res
 * (api_status, api_digest, asset, url) and *size; api_err gets the reason the
 * API could not answer. */
static void lookup(const char *api_base, char **names, size_t n_names,
                   fetch_result *res, int64_t *size, lvd_err *api_err)
{
    fetch_release rel;
    *size = -1;
    if (fetch_release_get(api_base, res->build, &rel, &res->api_status, api_err) != 0)
        return;
    const fetch_asset *a = NULL;
    for (size_t i = 0; i < n_names && !a; i++)
        a = fetch_release_asset(&rel, names[i]);
    if (!a) {
        lvd_sb have = {0};
        char *prefix = lvd_xasprintf("llama-%s-bin-", res->build);
        for (size_t i = 0; i < rel.n_assets; i++)
            if (lvd_starts_with(rel.assets[i].name, prefix))
                lvd_sb_addf(&have, "%s%s", have.len ? ", " : "", rel.assets[i].name);
        fetch_errf(api_err, "release %s has no asset %s%s%s", res->build, names[0],
                   have.len ? "; it has: " : "", lvd_sb_str(&have));
        free(prefix);
        lvd_sb_free(&have);
        res->api_status = FETCH_API_NOT_FOUND;
    } else {
        res->asset = lvd_xstrdup(a->name);
        res->url = lvd_xstrdup(a->url);
        res->api_digest = a->digest ? lvd_xstrdup(a->digest) : NULL;
        *size = a->size;
    }
    fetch_release_free(&rel);
}

/* Step 1: the recorded digest, from the pin file (when the build is the
 * pinned one) and/or --expect, into res->recorded; *from_pin gets the pin
 * file's. 0, or -1 when --expect is not a digest or disagrees with the pin. */
static int recorded_digest(const fetch_opts *o, int pinned, fetch_result *res, const char **from_pin,
                           int *exit_code, lvd_err *err)
{
    *from_pin = pinned ? builds_pin_sha256(o->pin, res->flavour) : NULL;
    char *expect = NULL;
    if (o->expect && !(expect = normalise_digest(o->expect))) {
        fetch_errf(err, "--expect '%s' is not a sha256 (64 hex characters)", o->expect);
        return fail(exit_code, LVD_EXIT_USAGE);
    }
    if (expect && *from_pin && strcmp(expect, *from_pin) != 0) {
        fetch_errf(err, "--expect %s disagrees with the digest %s records for %s %s", expect,
                   o->pin->path, res->build, res->flavour);
        free(expect);
        return fail(exit_code, LVD_EXIT_VERIFY);
    }
    res->recorded = expect ? expect : *from_pin ? lvd_xstrdup(*from_pin) : NULL;
    return 0;
}

/* Step 3: the rules (fetch_decide) over the recorded digest and the API's
 * answer (api_err: why it could not answer). Sets *d, res->verdict and
 * res->note; 0 to go on, -1 when the rules stop the fetch. */
static int apply_rules(const fetch_opts *o, fetch_result *res, const char *from_pin,
                       const lvd_err *api_err, fetch_decision *d, int *exit_code, lvd_err *err)
{
    *d = fetch_decide(res->recorded, res->api_digest, res->api_status);
    res->verdict = d->verdict;
    res->note = d->note;
    switch (d->verdict) {
    case FETCH_STOP_NOT_FOUND:
        fetch_errf(err, "%s", api_err->msg);
        return fail(exit_code, LVD_EXIT_NETWORK);
    case FETCH_STOP_DISAGREE:
        fetch_errf(err, "%s %s: recorded sha256 %s%s%s, the release API publishes %s: the asset "
                        "behind the tag was replaced; not fetching",
                   res->build, res->flavour, res->recorded, from_pin ? " in " : "",
                   from_pin ? o->pin->path : "", res->api_digest);
        return fail(exit_code, LVD_EXIT_VERIFY);
    case FETCH_STOP_UNVERIFIABLE:
        fetch_errf(err, "%s %s: %s", res->build, res->flavour, d->note);
        return fail(exit_code, LVD_EXIT_VERIFY);
    default:
        break;
    }
    if (d->verdict == FETCH_TRUST_RECORDED)
        note(o, "%s %s: %s", res->build, res->flavour, d->note);
    return 0;
}

/* Steps 4-6: reuses the bench dir when it is already there with the bytes
 * the rules want, else downloads, verifies and unpacks it into builds; then
 * makes res->engine_dir and res->bench_dir absolute for the store. */
static int place_build(const fetch_opts *o, fetch_result *res, fetch_decision d, char **names,
                       size_t n_names, const char *dl_base, const char *builds, int64_t size,
                       int *exit_code, lvd_err *err)
{
    const char *want = d.expect;
    res->bench_dir = lvd_xasprintf("%s/%s-%s", builds, res->build, res->flavour);
    res->engine_name = lvd_xasprintf("%s-%s", res->build, res->flavour + strlen("bin-"));
    struct stat st;
    if (lstat(res->bench_dir, &st) == 0) {
        if (check_existing(res->bench_dir, want, res, exit_code, err) != 0)
            return -1;
        note(o, "%s is already in place with sha256 %s", res->bench_dir, want);
    } else if (download_and_place(o, res, d, names, n_names, dl_base, builds, size, exit_code,
                                  err) != 0) {
        return -1;
    }
    /* absolute paths for the store */
    char abs[PATH_MAX];
    if (realpath(res->engine_dir, abs)) {
        free(res->engine_dir);
        res->engine_dir = lvd_xstrdup(abs);
    }
    if (realpath(res->bench_dir, abs)) {
        free(res->bench_dir);
        res->bench_dir = lvd_xstrdup(abs);
    }
    return 0;
}

int fetch_build(const fetch_opts *o, fetch_result *res, int *exit_code, lvd_err *err)
{
    memset(res, 0, sizeof *res);
    *exit_code = LVD_EXIT_OK;
    const char *pin_build = o->pin ? builds_pin_build(o->pin) : NULL;
    int pinned = pin_build && o->build &&
                 (!strcmp(pin_build, o->build) || (o->release && !strcmp(pin_build, o->release)));
    const char *flavour = o->flavour             ? o->flavour
                          : o->pin && pinned     ? builds_pin_flavour(o->pin, 0)
                                                 : FETCH_DEFAULT_FLAVOUR;
    char *names[BUILDS_MAX_ASSET_NAMES];
    size_t n_names = 0;
    if (builds_asset_names(o->build, flavour, names, &n_names, err) != 0)
        return fail(exit_code, LVD_EXIT_USAGE);
    res->build = lvd_xstrdup(o->build);
    res->release = o->release ? lvd_xstrdup(o->release) : NULL;
    res->flavour = lvd_xstrdup(builds_flavour_canonical(flavour));

    char *api_base = o->api_base ? lvd_xstrdup(o->api_base) : fetch_api_base();
    char *dl_base = o->download_base ? lvd_xstrdup(o->download_base) : fetch_download_base();
    char *builds = o->builds_dir ? lvd_xstrdup(o->builds_dir) : fetch_builds_dir_default();
    int rc = -1;

    /* 1. the recorded digest: pin file and/or --expect */
    const char *from_pin;
    if (recorded_digest(o, pinned, res, &from_pin, exit_code, err) != 0)
        goto out;

    /* 2. what the release API says */
    lvd_err api_err = {""};
    int64_t size = -1;
    lookup(api_base, names, n_names, res, &size, &api_err);
    if (res->api_status == FETCH_API_RATE_LIMITED || res->api_status == FETCH_API_UNAVAILABLE)
        note(o, "%s", api_err.msg);

    /* 3. the rules; 4-6. in place, or downloaded, verified and unpacked */
    fetch_decision d;
    if (apply_rules(o, res, from_pin, &api_err, &d, exit_code, err) != 0 ||
        place_build(o, res, d, names, n_names, dl_base, builds, size, exit_code, err) != 0)
        goto out;

    /* 5. register the engine and probe it */
    if (!o->no_store && register_and_probe(o, res, exit_code, err) != 0)
        goto out;
    if (res->probed && !strcmp(res->backend, LVD_BACKEND_UNKNOWN)) {
        note(o, "%s: the probe could not ask it for its devices: %s", res->engine_name,
             res->probe_reason ? res->probe_reason : "no reason given");
        *exit_code = LVD_EXIT_PARTIAL;
    }
    rc = 0;
out:
    builds_asset_names_free(names, n_names);
    free(api_base);
    free(dl_base);
    free(builds);
    return rc;
}

void fetch_result_free(fetch_result *r)
{
    if (!r)
        return;
    free(r->build);
    free(r->release);
    free(r->commit);
    free(r->semver);
    free(r->flavour);
    free(r->asset);
    free(r->url);
    free(r->recorded);
    free(r->api_digest);
    free(r->sha256);
    free(r->bench_dir);
    free(r->engine_dir);
    free(r->engine_name);
    free(r->probe_reason);
    memset(r, 0, sizeof *r);
}

cJSON *fetch_result_json(const fetch_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "build", lvd_json_str(r->build));
    cJSON_AddItemToObject(j, "release", lvd_json_str(r->release));
    cJSON_AddItemToObject(j, "commit", lvd_json_str(r->commit));
    cJSON_AddItemToObject(j, "semver", lvd_json_str(r->semver));
    cJSON_AddItemToObject(j, "flavour", lvd_json_str(r->flavour));
    cJSON_AddItemToObject(j, "asset", lvd_json_str(r->asset));
    cJSON_AddItemToObject(j, "url", lvd_json_str(r->url));
    cJSON_AddItemToObject(j, "sha256", lvd_json_str(r->sha256));
    cJSON_AddItemToObject(j, "recorded_sha256", lvd_json_str(r->recorded));
    cJSON_AddItemToObject(j, "api_sha256", lvd_json_str(r->api_digest));
    cJSON_AddItemToObject(j, "api", lvd_json_str(fetch_api_status_name(r->api_status)));
    cJSON_AddItemToObject(j, "verified", lvd_json_str(fetch_verdict_name(r->verdict)));
    cJSON_AddItemToObject(j, "note", lvd_json_str(r->note));
    cJSON_AddNumberToObject(j, "bytes", (double)r->bytes);
    cJSON_AddBoolToObject(j, "reused", r->reused);
    cJSON_AddItemToObject(j, "bench_dir", lvd_json_str(r->bench_dir));
    cJSON_AddItemToObject(j, "engine_dir", lvd_json_str(r->engine_dir));
    cJSON_AddItemToObject(j, "engine", lvd_json_str(r->engine_name));
    cJSON_AddItemToObject(j, "engine_id", lvd_json_num_if(r->engine_id != 0, (double)r->engine_id));
    cJSON_AddItemToObject(j, "backend", lvd_json_str(r->probed ? r->backend : NULL));
    cJSON_AddItemToObject(j, "probe_reason", lvd_json_str(r->probe_reason));
    cJSON_AddItemToObject(j, "devices", lvd_json_num_if(r->probed, (double)r->n_devices));
    return j;
}
