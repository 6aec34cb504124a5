/* release.c: the GitHub releases API over libcurl and cJSON (see release.h).
 * Not for downloads, and nothing here decides whether a digest is trusted. */
#include "fetch/release.h"

#include "common/json.h"
#include "common/sha256.h"
#include "builds/asset.h"
#include "builds/names.h"
#include "fetch/http.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define API_MAX_BODY ((size_t)16 << 20)
#define LATEST_PAGE 50

static char *env_base(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    char *s = lvd_xstrdup(v && *v ? v : fallback);
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '/')
        s[--n] = '\0';
    return s;
}

char *fetch_api_base(void)
{
    return env_base("LVD_RELEASES_API", FETCH_DEFAULT_API);
}

char *fetch_download_base(void)
{
    return env_base("LVD_RELEASES_DOWNLOAD", FETCH_DEFAULT_DOWNLOAD);
}

const char *fetch_api_status_name(fetch_api_status st)
{
    switch (st) {
    case FETCH_API_OK:
        return "ok";
    case FETCH_API_NOT_FOUND:
        return "not found";
    case FETCH_API_RATE_LIMITED:
        return "rate-limited";
    case FETCH_API_UNAVAILABLE:
        return "unavailable";
    }
    return "unavailable";
}

/* --- one GET ------------------------------------------------------------ */

typedef struct api_call {
    lvd_sb body;
    int too_big;
    char ratelimit_remaining[32];
    char ratelimit_reset[32];
} api_call;

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
    api_call *c = user;
    size_t n = size * nmemb;
    if (c->body.len + n > API_MAX_BODY) {
        c->too_big = 1;
        return 0;
    }
    lvd_sb_add(&c->body, data, n);
    return n;
}

static void header_value(const char *line, size_t n, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return;
    const char *v = line + nl + 1;
    const char *end = line + n;
    while (v < end && isspace((unsigned char)*v))
        v++;
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    size_t len = (size_t)(end - v) < cap - 1 ? (size_t)(end - v) : cap - 1;
    memcpy(out, v, len);
    out[len] = '\0';
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *user)
{
    api_call *c = user;
    size_t n = size * nmemb;
    header_value(data, n, "x-ratelimit-remaining", c->ratelimit_remaining,
                 sizeof c->ratelimit_remaining);
    header_value(data, n, "x-ratelimit-reset", c->ratelimit_reset, sizeof c->ratelimit_reset);
    return n;
}

/* The "message" GitHub puts in an error body, when there is one. */
static void api_message(const lvd_sb *body, char *out, size_t cap)
{
    out[0] = '\0';
    cJSON *j = cJSON_ParseWithLength(lvd_sb_str(body), body->len);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
    if (cJSON_IsString(m) && m->valuestring[0])
        snprintf(out, cap, ": %s", m->valuestring);
    cJSON_Delete(j);
}

static void reset_note(const api_call *c, char *out, size_t cap)
{
    out[0] = '\0';
    int64_t reset;
    if (lvd_parse_i64(c->ratelimit_reset, &reset) == 0 && reset > 0) {
        time_t t = (time_t)reset;
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(out, cap, " (the limit resets at %H:%M UTC)", &tm);
    }
}

/* GETs url into c->body, with the API's profile (api: JSON, the token) or
 * the download host's (fetch_http_new). 0 on a 2xx answer; otherwise -1, *st
 * and err set. */
static int http_get(const char *url, int api, api_call *c, fetch_api_status *st, lvd_err *err)
{
    struct curl_slist *headers;
    CURL *h = fetch_http_new(url, api, &headers);
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);

    const char *host = fetch_http_host(url);
    if (rc != CURLE_OK) {
        *st = FETCH_API_UNAVAILABLE;
        if (c->too_big)
            return fetch_errf(err, "release API %s: answer larger than %zu bytes", host,
                              API_MAX_BODY);
        const char *what = fetch_http_classify(rc) == FETCH_NET_TLS ? "TLS failure with"
                                                                    : "cannot reach";
        return fetch_errf(err, "release API: %s %s: %s", what, host,
                          errbuf[0] ? errbuf : curl_easy_strerror(rc));
    }
    if (code >= 200 && code < 300) {
        *st = FETCH_API_OK;
        return 0;
    }
    char msg[256];
    api_message(&c->body, msg, sizeof msg);
    if (code == 404) {
        *st = FETCH_API_NOT_FOUND;
        return fetch_errf(err, "release API %s: HTTP 404 for %s%s", host, url, msg);
    }
    if (code == 403 || code == 429) {
        *st = FETCH_API_RATE_LIMITED;
        char note[64];
        reset_note(c, note, sizeof note);
        const char *hint = getenv("GITHUB_TOKEN") && *getenv("GITHUB_TOKEN")
                               ? ""
                               : "; set GITHUB_TOKEN for a higher limit";
        return fetch_errf(err, "release API %s: rate-limited (HTTP %ld%s)%s%s", host, code, msg,
                          note, hint);
    }
    *st = FETCH_API_UNAVAILABLE;
    if (code == 401 && getenv("GITHUB_TOKEN") && *getenv("GITHUB_TOKEN"))
        return fetch_errf(err, "release API %s: HTTP 401, GITHUB_TOKEN was rejected%s", host, msg);
    return fetch_errf(err, "release API %s: HTTP %ld%s", host, code, msg);
}

static int api_get(const char *url, api_call *c, fetch_api_status *st, lvd_err *err)
{
    return http_get(url, 1, c, st, err);
}

/* --- parsing ------------------------------------------------------------ */

/* The release's time, 0 when absent or not ISO-8601. */
static int64_t parse_time(const char *s)
{
    int64_t t;
    return lvd_parse_utc(s, &t) == 0 ? t : 0;
}

static int jtrue(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* "sha256:<hex>" -> lowercase hex; null/absent -> NULL. */
static int parse_digest(const cJSON *asset, const char *name, char **out, lvd_err *err)
{
    *out = NULL;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(asset, "digest");
    if (!d || cJSON_IsNull(d))
        return 0;
    const char *s = cJSON_IsString(d) ? d->valuestring : NULL;
    if (!s || strncasecmp(s, "sha256:", 7) != 0 || strlen(s + 7) != LVD_SHA256_HEX_LEN)
        return fetch_errf(err, "release API: asset %s has an unrecognised digest '%.80s'", name,
                          s ? s : "(not a string)");
    char *hex = lvd_xstrdup(s + 7);
    for (char *p = hex; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (!lvd_sha256_valid(hex)) {
        free(hex);
        return fetch_errf(err, "release API: asset %s has an unrecognised digest '%.80s'", name, s);
    }
    *out = hex;
    return 0;
}

static int release_from_json(const cJSON *j, fetch_release *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const char *tag = lvd_json_string(j, "tag_name");
    if (!cJSON_IsObject(j) || !*tag)
        return fetch_errf(err, "release API: answer is not a release (no tag_name)");
    out->tag = lvd_xstrdup(tag);
    out->draft = jtrue(j, "draft");
    out->prerelease = jtrue(j, "prerelease");
    out->published_at = parse_time(lvd_json_string(j, "published_at"));
    const cJSON *assets = cJSON_GetObjectItemCaseSensitive(j, "assets");
    int n = cJSON_IsArray(assets) ? cJSON_GetArraySize(assets) : 0;
    out->assets = lvd_xcalloc((size_t)n + 1, sizeof *out->assets);
    const cJSON *a;
    cJSON_ArrayForEach(a, assets)
    {
        const char *name = lvd_json_string(a, "name");
        const char *url = lvd_json_string(a, "browser_download_url");
        if (!*name || !*url)
            continue;
        fetch_asset *fa = &out->assets[out->n_assets];
        if (parse_digest(a, name, &fa->digest, err) != 0) {
            fetch_release_free(out);
            return -1;
        }
        fa->name = lvd_xstrdup(name);
        fa->url = lvd_xstrdup(url);
        const cJSON *size = cJSON_GetObjectItemCaseSensitive(a, "size");
        /* a size no file can have (negative, 1e300) is no size: converting it is undefined */
        fa->size = cJSON_IsNumber(size) && size->valuedouble >= 0 && size->valuedouble < 9.2e18
                       ? (int64_t)size->valuedouble
                       : -1;
        out->n_assets++;
    }
    return 0;
}

int fetch_release_parse(const char *json, size_t len, fetch_release *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    cJSON *j = cJSON_ParseWithLength(json, len);
    if (!j)
        return fetch_errf(err, "release API: answer is not JSON");
    int rc = release_from_json(j, out, err);
    cJSON_Delete(j);
    return rc;
}

void fetch_release_free(fetch_release *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_assets; i++) {
        free(r->assets[i].name);
        free(r->assets[i].url);
        free(r->assets[i].digest);
    }
    free(r->assets);
    free(r->tag);
    memset(r, 0, sizeof *r);
}

const fetch_asset *fetch_release_asset(const fetch_release *r, const char *name)
{
    for (size_t i = 0; i < r->n_assets; i++)
        if (!strcmp(r->assets[i].name, name))
            return &r->assets[i];
    return NULL;
}

/* --- requests ----------------------------------------------------------- */

int fetch_release_get(const char *base, const char *build, fetch_release *out,
                      fetch_api_status *st, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (!builds_name_valid(build)) {
        *st = FETCH_API_NOT_FOUND;
        return fetch_errf(err, "'%s' is not a llama.cpp build (expected b<number> or v<x.y.z>)", build);
    }
    char *url = lvd_xasprintf("%s/releases/tags/%s", base, build);
    api_call c = {0};
    int rc = api_get(url, &c, st, err);
    if (rc == 0 && fetch_release_parse(lvd_sb_str(&c.body), c.body.len, out, err) != 0) {
        *st = FETCH_API_UNAVAILABLE;
        rc = -1;
    }
    if (rc == 0 && strcmp(out->tag, build) != 0) {
        *st = FETCH_API_UNAVAILABLE;
        fetch_errf(err, "release API: asked for %s, answered with %s", build, out->tag);
        fetch_release_free(out);
        rc = -1;
    }
    if (rc != 0 && *st == FETCH_API_NOT_FOUND)
        fetch_errf(err, "release API: no release %s (HTTP 404 from %s)", build,
                   fetch_http_host(url));
    lvd_sb_free(&c.body);
    free(url);
    return rc;
}

int fetch_latest_pick(const char *json, size_t len, int64_t min_age, int64_t now, char **tag,
                      lvd_err *err)
{
    *tag = NULL;
    cJSON *j = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsArray(j)) {
        cJSON_Delete(j);
        return fetch_errf(err, "release API: the release list is not a JSON array");
    }
    int64_t best_at = 0;
    const char *best = NULL;
    int seen = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, j)
    {
        seen++;
        const char *t = lvd_json_string(r, "tag_name");
        int64_t at = parse_time(lvd_json_string(r, "published_at"));
        if (!builds_release_is_build(t, jtrue(r, "draft"), jtrue(r, "prerelease")) || at <= 0)
            continue;
        if (at > now - min_age)
            continue;
        if (!best || at > best_at) {
            best = t;
            best_at = at;
        }
    }
    if (best)
        *tag = lvd_xstrdup(best);
    cJSON_Delete(j);
    if (!best)
        return fetch_errf(err,
                          "release API: no published build release at least %lld s old among "
                          "the newest %d",
                          (long long)min_age, seen);
    return 0;
}

int fetch_release_latest(const char *base, int64_t min_age, int64_t now, char **tag,
                         fetch_api_status *st, lvd_err *err)
{
    *tag = NULL;
    char *url = lvd_xasprintf("%s/releases?per_page=%d", base, LATEST_PAGE);
    api_call c = {0};
    int rc = api_get(url, &c, st, err);
    if (rc == 0 && fetch_latest_pick(lvd_sb_str(&c.body), c.body.len, min_age, now, tag, err) != 0)
        rc = -1;
    lvd_sb_free(&c.body);
    free(url);
    return rc;
}

int fetch_release_list_page(const char *base, int page, int per_page, fetch_release **v, size_t *n,
                            size_t *got, fetch_api_status *st, lvd_err *err)
{
    *got = 0;
    char *url = lvd_xasprintf("%s/releases?per_page=%d&page=%d", base, per_page, page);
    api_call c = {0};
    int rc = api_get(url, &c, st, err);
    cJSON *root = rc == 0 ? cJSON_ParseWithLength(lvd_sb_str(&c.body), c.body.len) : NULL;
    if (rc == 0 && !cJSON_IsArray(root)) {
        *st = FETCH_API_UNAVAILABLE;
        rc = fetch_errf(err, "release API %s: the release list is not a JSON array", fetch_http_host(url));
    }
    const cJSON *item;
    const cJSON *list = rc == 0 ? root : NULL;
    cJSON_ArrayForEach(item, list)
    {
        fetch_release r;
        if (release_from_json(item, &r, err) != 0) {
            *st = FETCH_API_UNAVAILABLE;
            rc = -1;
            break;
        }
        *v = lvd_xrealloc(*v, (*n + 1) * sizeof **v);
        (*v)[(*n)++] = r;
        (*got)++;
    }
    cJSON_Delete(root);
    lvd_sb_free(&c.body);
    free(url);
    return rc;
}

/* The nightly-tag.txt of release tag at url: downloaded (the download
 * host's profile: no token), checked against digest when there is one, read.
 * 0 with build filled, or -1 with *st and err. */
static int read_nightly_tag(const char *url, const char *digest, const char *tag, char *build, size_t len,
                            fetch_api_status *st, lvd_err *err)
{
    api_call c = {0};
    int rc = http_get(url, 0, &c, st, err);
    if (rc == 0 && digest) {
        char hex[LVD_SHA256_HEX_LEN + 1];
        lvd_sha256 *h = lvd_sha256_new();
        lvd_sha256_update(h, c.body.buf ? c.body.buf : "", c.body.len);
        lvd_sha256_final(h, hex);
        if (strcmp(hex, digest)) { /* the API answered: what it names is not what is there */
            *st = FETCH_API_OK;
            rc = fetch_errf(err, "release %s: %s has sha256 %s, the release API publishes %s", tag,
                            BUILDS_NIGHTLY_TAG_ASSET, hex, digest);
        }
    }
    if (rc == 0 && builds_nightly_tag_parse(lvd_sb_str(&c.body), c.body.len, build, len) != 0) {
        *st = FETCH_API_OK;
        rc = fetch_errf(err, "release %s: %s does not hold one build tag (b<number>): '%.40s'", tag,
                        BUILDS_NIGHTLY_TAG_ASSET, lvd_sb_str(&c.body));
    }
    lvd_sb_free(&c.body);
    return rc;
}

int fetch_release_semver(const char *base, const char *tag, char **build, fetch_api_status *st, lvd_err *err)
{
    *build = NULL;
    fetch_release rel;
    if (fetch_release_get(base, tag, &rel, st, err) != 0)
        return -1;
    char b[32];
    const fetch_asset *a = fetch_release_asset(&rel, BUILDS_NIGHTLY_TAG_ASSET);
    int rc = a ? read_nightly_tag(a->url, a->digest, tag, b, sizeof b, st, err) : -1;
    if (!a) {
        *st = FETCH_API_NOT_FOUND;
        fetch_errf(err, "release %s has no asset %s naming its build", tag, BUILDS_NIGHTLY_TAG_ASSET);
    }
    fetch_release_free(&rel);
    if (rc == 0)
        *build = lvd_xstrdup(b);
    return rc;
}

int fetch_nightly_tag_get(const char *download_base, const char *tag, char **build, lvd_err *err)
{
    *build = NULL;
    char *url = lvd_xasprintf("%s/%s/%s", download_base, tag, BUILDS_NIGHTLY_TAG_ASSET);
    char b[32];
    fetch_api_status st;
    int rc = read_nightly_tag(url, NULL, tag, b, sizeof b, &st, err);
    free(url);
    if (rc == 0)
        *build = lvd_xstrdup(b);
    return rc;
}
