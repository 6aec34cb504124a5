/* fuzz_cudaarch.c: libFuzzer harness for the CUDA archs parser
 * (engine_cuda_archs_parse: "CUDA : ARCHS = 890,900 | ..." in a llama.cpp
 * log) and the flag built on it. The input is a log, then a NUL byte, then
 * a compute capability ("8.9"; none: not a CUDA device's). With buffers of
 * 0, 1, 2, 5 and 64 bytes the parser must return 1 only with a non-empty
 * list of letters, digits and commas starting with a digit that fits the
 * buffer and is what follows the first "CUDA : ARCHS = " (each shorter
 * buffer's list a prefix of the 64-byte one's), else 0 with "". The flag
 * must be "" exactly when the device is not flagged, name the archs when it
 * is, and never flag the capability of an arch in the list. Never crash or
 * leak. Seeded by scripts/fuzz from the llama.cpp logs in tests/fixtures. */
#include "engine/cudaarch.h"
#include "tests/fuzz/fuzzutil.h"

#include <ctype.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_parse(const char *log, size_t len, const char *full, int full_rc)
{
    char buf[64] = "x";
    int rc = engine_cuda_archs_parse(log, buf, len);
    FUZZ_CHECK(rc == 0 || rc == 1);
    if (rc == 0) {
        FUZZ_CHECK(len == 0 ? buf[0] == 'x' : buf[0] == '\0');
        return;
    }
    size_t n = strlen(buf);
    FUZZ_CHECK(n >= 1 && n < len && isdigit((unsigned char)buf[0]));
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(isalnum((unsigned char)buf[i]) || buf[i] == ',');
    const char *at = strstr(log, "CUDA : ARCHS = ");
    FUZZ_CHECK(at && !strncmp(at + 15, buf, n));
    FUZZ_CHECK(full_rc == 1 && !strncmp(full, buf, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *log = fuzz_cstr(data, size);
    const char *cc = fuzz_split(log, size);
    char archs[64];
    int rc = engine_cuda_archs_parse(log, archs, sizeof archs);
    static const size_t lens[] = {0, 1, 2, 5, 64};
    for (size_t i = 0; i < LVD_ARRAY_LEN(lens); i++)
        check_parse(log, lens[i], archs, rc);
    FUZZ_CHECK(engine_cuda_archs_parse(NULL, archs + 0, 0) == 0);

    lvd_device d = {.total_mib = -1, .free_mib = -1};
    snprintf(d.backend, sizeof d.backend, "%s", cc ? "cuda" : "cpu");
    snprintf(d.compute_cap, sizeof d.compute_cap, "%s", cc ? cc : "");
    int missing = engine_cuda_arch_missing(archs, &d);
    char flag[256];
    engine_cuda_arch_flag(archs, &d, flag, sizeof flag);
    FUZZ_CHECK(missing == 0 || missing == 1);
    FUZZ_CHECK(missing ? !strncmp(flag, "cc ", 3) && strstr(flag, archs) : flag[0] == '\0');
    FUZZ_CHECK(!missing || (cc && *archs));
    /* the capability of each plain arch of the list (890 -> 8.9) is served */
    size_t n;
    char **v = lvd_split(archs, ',', &n);
    for (size_t i = 0; i < n; i++) {
        if (strlen(v[i]) > 4 || strspn(v[i], "0123456789") != strlen(v[i]))
            continue;
        int a = atoi(v[i]);
        lvd_device served = {.total_mib = -1, .free_mib = -1, .backend = "cuda"};
        snprintf(served.compute_cap, sizeof served.compute_cap, "%d.%d", a / 100, (a % 100) / 10);
        FUZZ_CHECK(engine_cuda_arch_missing(archs, &served) == 0);
    }
    lvd_strv_free(v);
    free(log);
    return 0;
}
