/* fuzz_version.c: libFuzzer harness for the version-line parser
 * (engine/version.c). The input is a tool's output. The parser must return 0
 * with a consistent version (a build number >= 0, a commit without blanks or
 * parentheses that occurs in the text, a SemVer version "N.N.N[-tag]" that
 * occurs in it, a form name) or -1 with one line saying "no version line" or
 * quoting the unrecognised one, and never crash or leak. Seeded by
 * scripts/fuzz from the *version.stderr captures and tests/fuzz/seeds/fuzz_version/. */
#include "engine/version.h"
#include "tests/fuzz/fuzzutil.h"

#include <ctype.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    engine_version v;
    lvd_err err;
    if (engine_version_parse(text, &v, &err) != 0) {
        FUZZ_CHECK(!strcmp(err.msg, "no version line") || !strncmp(err.msg, "unrecognised version line '", 27));
        FUZZ_CHECK(!strchr(err.msg, '\n') && v.number == 0 && !v.commit[0] && !v.semver[0]);
        free(text);
        return 0;
    }
    FUZZ_CHECK(v.number >= 0 && v.form && v.form[0]);
    FUZZ_CHECK(!v.commit[0] || strstr(text, v.commit));
    for (const char *c = v.commit; *c; c++)
        FUZZ_CHECK(!isspace((unsigned char)*c) && *c != '(' && *c != ')' && *c != ',');
    FUZZ_CHECK(!v.semver[0] || (strstr(text, v.semver) && isdigit((unsigned char)v.semver[0])));
    char build[32];
    engine_version_build(&v, build, sizeof build);
    FUZZ_CHECK(build[0] == 'b' && isdigit((unsigned char)build[1]));
    free(text);
    return 0;
}
