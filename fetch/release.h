/* release.h: the GitHub releases API client: which assets a build's release
 * carries, where they download from and the digest GitHub publishes for each
 * (`"digest": "sha256:<hex>"`, null for old assets); and, for --latest only,
 * which published release is newest. Not for downloading (download.h) or for
 * deciding what to trust (fetch.h). */
#ifndef LVD_FETCH_RELEASE_H
#define LVD_FETCH_RELEASE_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

#define FETCH_DEFAULT_API "https://api.github.com/repos/ggml-org/llama.cpp"
#define FETCH_DEFAULT_DOWNLOAD "https://github.com/ggml-org/llama.cpp/releases/download"

/* How the API answered. The verification rules treat RATE_LIMITED and
 * UNAVAILABLE alike (a recorded digest then stands alone); NOT_FOUND is an
 * answer, not an outage. */
typedef enum fetch_api_status {
    FETCH_API_OK = 0,
    FETCH_API_NOT_FOUND,    /* 404: no such release */
    FETCH_API_RATE_LIMITED, /* 403 or 429 */
    FETCH_API_UNAVAILABLE,  /* unreachable, TLS failure, 5xx, 401, malformed answer */
} fetch_api_status;

typedef struct fetch_asset {
    char *name;
    char *url;      /* browser_download_url */
    char *digest;   /* 64 lowercase hex chars, or NULL when the API publishes none */
    int64_t size;   /* -1 when not given */
} fetch_asset;

typedef struct fetch_release {
    char *tag;
    int draft, prerelease;
    int64_t published_at;   /* epoch seconds; 0 when not published */
    fetch_asset *assets;
    size_t n_assets;
} fetch_release;

/* $LVD_RELEASES_API or FETCH_DEFAULT_API, without a trailing slash; malloc'd. */
char *fetch_api_base(void);
/* $LVD_RELEASES_DOWNLOAD or FETCH_DEFAULT_DOWNLOAD (used when the API cannot be
 * asked for browser_download_url), without a trailing slash; malloc'd. */
char *fetch_download_base(void);

/* "ok", "not found", "rate-limited", "unavailable". */
const char *fetch_api_status_name(fetch_api_status st);

/* Parses one release object. A digest that is neither null nor "sha256:<hex>"
 * is an error (naming the asset). */
int fetch_release_parse(const char *json, size_t len, fetch_release *out, lvd_err *err);
void fetch_release_free(fetch_release *r);
/* The asset called name, or NULL. */
const fetch_asset *fetch_release_asset(const fetch_release *r, const char *name);

/* GET BASE/releases/tags/BUILD (a build tag or a SemVer release tag). 0 with
 * *st = OK and out filled; otherwise -1 with *st saying which kind of failure
 * and err one line (no token in it). */
int fetch_release_get(const char *base, const char *build, fetch_release *out,
                      fetch_api_status *st, lvd_err *err);

/* The build a SemVer release (v0.4.1) stands for. llama.cpp's
 * make-release.yml tags a commit release.yml has already built as b<N> and
 * publishes the release with one asset, nightly-tag.txt, whose text is that
 * b<N> (builds/names.h); the archives are the b<N> release's
 * (llama-b<N>-bin-<flavour>.tar.gz). The file is read from the download host
 * and checked against the digest the API publishes for it (where it
 * publishes one). 0 with *build malloc'd ("b10991"); otherwise -1 with *st
 * (NOT_FOUND: no such release or no nightly-tag.txt; OK: the API answered,
 * but the file is not one build tag or not the bytes it names; else how the
 * API or the download host failed) and err one line. */
int fetch_release_semver(const char *base, const char *tag, char **build, fetch_api_status *st, lvd_err *err);

/* The same file of release tag straight from the download host
 * (DOWNLOAD/TAG/nightly-tag.txt), with no digest to check it against: for
 * when the API cannot be asked. 0 with *build malloc'd, or -1 with err. */
int fetch_nightly_tag_get(const char *download_base, const char *tag, char **build, lvd_err *err);

/* From a JSON array of releases, the tag of the newest (by published_at) that
 * is a build (builds_release_is_build: a build tag, not a draft, and not a
 * prerelease from before llama.cpp published every build as one) and was
 * published at least min_age seconds before now. malloc'd into *tag. */
int fetch_latest_pick(const char *json, size_t len, int64_t min_age, int64_t now, char **tag,
                      lvd_err *err);

/* GET BASE/releases?per_page=N and fetch_latest_pick on it. */
int fetch_release_latest(const char *base, int64_t min_age, int64_t now, char **tag,
                         fetch_api_status *st, lvd_err *err);

/* GET BASE/releases?per_page=N&page=P (P from 1): the releases of that page,
 * newest first, appended to *v (grown; free each with fetch_release_free).
 * 0 with *got the number appended (fewer than per_page: the last page), or
 * -1 with *st and err as fetch_release_get. */
int fetch_release_list_page(const char *base, int page, int per_page, fetch_release **v, size_t *n,
                            size_t *got, fetch_api_status *st, lvd_err *err);

#endif
