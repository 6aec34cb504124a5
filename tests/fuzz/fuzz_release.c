/* fuzz_release.c: libFuzzer harness for the release API answers: one release
 * object (fetch_release_parse) and the release list --latest picks from
 * (fetch_latest_pick), both fed the same bytes. Each must return 0 with a
 * consistent result (a tag; assets with a name, a URL, a digest that is NULL
 * or 64 lowercase hex, a size >= -1; a picked tag that is a build tag) or -1
 * with a message naming the release API, and never crash or leak; read as a
 * SemVer release's nightly-tag.txt, they are one build tag or refused. Seeds:
 * tests/fuzz/seeds/fuzz_release/. */
#include "common/sha256.h"
#include "builds/asset.h"
#include "builds/names.h"
#include "fetch/release.h"
#include "tests/fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_release(const char *json, size_t len)
{
    fetch_release r;
    lvd_err err;
    if (fetch_release_parse(json, len, &r, &err) != 0) {
        FUZZ_CHECK(fuzz_names(&err, "release API") && !r.tag && !r.assets && r.n_assets == 0);
        return;
    }
    FUZZ_CHECK(r.tag != NULL);
    for (size_t i = 0; i < r.n_assets; i++) {
        const fetch_asset *a = &r.assets[i];
        FUZZ_CHECK(a->name && a->url && a->size >= -1);
        FUZZ_CHECK(!a->digest || lvd_sha256_valid(a->digest));
        const fetch_asset *found = fetch_release_asset(&r, a->name);
        FUZZ_CHECK(found && found <= a && !strcmp(found->name, a->name));
    }
    fetch_release_free(&r);
}

static void release_list(const char *json, size_t len)
{
    /* 2026-01-01T00:00:00Z, six hours as lvd-fetch's default minimum age */
    const int64_t now = 1767225600, min_age = 6 * 3600;
    char *tag;
    lvd_err err;
    if (fetch_latest_pick(json, len, min_age, now, &tag, &err) != 0) {
        FUZZ_CHECK(fuzz_names(&err, "release API") && !tag);
        return;
    }
    FUZZ_CHECK(builds_valid(tag));
    free(tag);
}

/* The same bytes as a SemVer release's nightly-tag.txt: a build tag or -1. */
static void nightly_tag(const char *text, size_t len)
{
    char tag[32];
    if (builds_nightly_tag_parse(text, len, tag, sizeof tag) == 0)
        FUZZ_CHECK(builds_valid(tag));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the parsers take a length; give them bytes with no terminator after */
    char *json = lvd_xmalloc(size ? size : 1);
    memcpy(json, data, size);
    one_release(json, size);
    release_list(json, size);
    nightly_tag(json, size);
    free(json);
    return 0;
}
