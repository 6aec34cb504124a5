/* fuzz_pinfile.c: libFuzzer harness for the pin file parser and its rewrite.
 * Inputs over 64 KiB are skipped (builds_pin_load refuses them before
 * parsing). The parser must return -1 with "PATH:..." or 0 with a valid pin (a
 * build or SemVer release, a known default flavour, digests only for listed flavours) whose text
 * reads back to the same pin; promoting a build onto it must succeed and read
 * back as promoted. Never a crash or a leak. Seeds: share/pin.default and
 * tests/fuzz/seeds/fuzz_pinfile/. */
#include "common/sha256.h"
#include "builds/asset.h"
#include "builds/names.h"
#include "builds/pinfile.h"
#include "tests/fuzz/fuzzutil.h"

#include <stdio.h>

#define PIN_MAX (64 * 1024)
#define NAME "fuzz.pin"
#define SHA "1246c764f630f1cfc7c0921353a9719603c5d9ccfa7ced621bac216ffd9b2d87"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Formats p, parses the text again (it must parse) and returns the text. */
static char *roundtrip(const builds_pin *p, builds_pin *again)
{
    char *text = builds_pin_format(p);
    lvd_err err;
    FUZZ_CHECK(builds_pin_parse(NAME, text, strlen(text), again, &err) == 0);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > PIN_MAX)
        return 0;
    builds_pin p;
    lvd_err err;
    if (builds_pin_parse(NAME, (const char *)data, size, &p, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, NAME ":", strlen(NAME ":")));
        FUZZ_CHECK(!p.lines && p.n_lines == 0 && !p.path);
        return 0;
    }
    FUZZ_CHECK(builds_name_valid(builds_pin_build(&p))); /* b<N> or a SemVer release */
    const char *flavour = builds_pin_flavour(&p, 0);
    FUZZ_CHECK(flavour && !strcmp(builds_flavour_canonical(flavour), flavour));
    for (size_t i = 0; builds_pin_flavour(&p, i); i++) {
        const char *d = builds_pin_sha256(&p, builds_pin_flavour(&p, i));
        FUZZ_CHECK(!d || lvd_sha256_valid(d));
    }

    /* the text it writes is read back as the same pin */
    builds_pin again, third;
    char *text = roundtrip(&p, &again);
    char *text2 = roundtrip(&again, &third);
    FUZZ_CHECK(!strcmp(text, text2));
    FUZZ_CHECK(!strcmp(builds_pin_build(&p), builds_pin_build(&again)));
    free(text);
    free(text2);
    builds_pin_free(&again);
    builds_pin_free(&third);

    /* promotion onto any valid pin succeeds and reads back as promoted */
    char build[32];
    snprintf(build, sizeof build, "b%s", strcmp(builds_pin_build(&p), "b1") ? "1" : "2");
    char *fl = lvd_xstrdup(flavour);
    FUZZ_CHECK(builds_pin_promote(&p, build, fl, SHA, &err) == 0);
    text = roundtrip(&p, &again);
    FUZZ_CHECK(!strcmp(builds_pin_build(&again), build));
    FUZZ_CHECK(!strcmp(builds_pin_flavour(&again, 0), fl));
    FUZZ_CHECK(builds_pin_sha256(&again, fl) && !strcmp(builds_pin_sha256(&again, fl), SHA));
    for (size_t i = 1; builds_pin_flavour(&again, i); i++)
        FUZZ_CHECK(!builds_pin_sha256(&again, builds_pin_flavour(&again, i)));
    free(text);
    free(fl);
    builds_pin_free(&again);
    builds_pin_free(&p);
    return 0;
}
