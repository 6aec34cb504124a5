/* fuzzutil.h: what the libFuzzer harnesses in tests/fuzz/ share: turning the
 * fuzzer's bytes into the C strings the parsers take, splitting one input into
 * a tool's stdout and stderr, and the check that an error names its input.
 * Header-only (static inline) so that each harness stays one file; not for
 * the unit tests (tests/support/testutil.h). */
#ifndef LVD_FUZZUTIL_H
#define LVD_FUZZUTIL_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Stops the run so libFuzzer records the input as a finding. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* A NUL-terminated malloc'd copy of the input (interior NULs kept). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = lvd_xmalloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Splits a fuzz_cstr copy at its first NUL byte: the text before is a tool's
 * stdout, the text after its stderr (NULL when the input has no NUL). The
 * parsers take C strings, so a NUL can never be part of either stream. */
static inline const char *fuzz_split(char *s, size_t size)
{
    size_t n = strlen(s);
    return n < size ? s + n + 1 : NULL;
}

/* 1 when err's message starts with "prefix: " (the input's name). */
static inline int fuzz_names(const lvd_err *err, const char *prefix)
{
    size_t n = strlen(prefix);
    return !strncmp(err->msg, prefix, n) && err->msg[n] == ':' && err->msg[n + 1] == ' ';
}

#endif
