/* fuzz_devices.c: libFuzzer harness for the `--list-devices` parser. The input
 * is an engine's stdout, then a NUL byte, then its stderr (no NUL: stdout
 * only). The parser must return 0 with a consistent device list (unique
 * selectors from the text, a backend for each, capability only on CUDA
 * devices, at most 256) or -1 with a message naming --list-devices, and never
 * crash or leak. Seeded by scripts/fuzz from tests/fixtures/llama.cpp/
 * list-devices captures. */
#include "engine/devices.h"
#include "tests/fuzz/fuzzutil.h"

#include <ctype.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    const char *err_text = fuzz_split(text, size);
    lvd_device *devs;
    size_t n;
    lvd_err err;
    if (engine_devices_parse(text, err_text, &devs, &n, &err) != 0) {
        FUZZ_CHECK(fuzz_names(&err, "--list-devices") && !devs && n == 0);
        free(text);
        return 0;
    }
    FUZZ_CHECK(n <= 256 && (n == 0) == (devs == NULL));
    for (size_t i = 0; i < n; i++) {
        const lvd_device *d = &devs[i];
        FUZZ_CHECK(isalpha((unsigned char)d->selector[0]) && strstr(text, d->selector));
        FUZZ_CHECK(d->backend[0] && d->name[0]);
        FUZZ_CHECK(d->total_mib >= -1 && d->free_mib >= -1);
        FUZZ_CHECK(!d->compute_cap[0] || !strcmp(d->backend, "cuda"));
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(devs[j].selector, d->selector) != 0);
    }
    char label[64];
    engine_devices_label(devs, n, label, sizeof label);
    FUZZ_CHECK(n == 0 ? !strcmp(label, "cpu") : label[0] != '\0');
    free(devs);
    free(text);
    return 0;
}
