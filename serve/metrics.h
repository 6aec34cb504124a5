/* metrics.h: llama-server's /metrics, Prometheus' text format (version
 * 0.0.4) as b9749 prints it (tools/server/server-context.cpp): `# HELP` and
 * `# TYPE` lines, then `NAME VALUE` or `NAME{LABELS} VALUE [TIMESTAMP]`,
 * e.g. `llamacpp:tokens_predicted_total 4096`. Pure (fuzzed:
 * tests/fuzz/fuzz_metrics.c). Not for fetching it (serve/server.h). */
#ifndef LVD_SERVE_METRICS_H
#define LVD_SERVE_METRICS_H

#include "common/util.h"

#include <stddef.h>

typedef struct serve_metric {
    char *name;      /* the series as written, labels included: "llamacpp:requests_processing" */
    double value;    /* NAN, +-INFINITY as Prometheus spells them (NaN, +Inf, -Inf) */
} serve_metric;

/* Parses text[0..n) into *out (malloc'd, in order; free with
 * serve_metrics_free). A line that is neither a comment, blank nor a
 * sample (name [labels] value [timestamp]) is an error naming it: 0, or -1
 * with err ("line 3: 'garbage' is not a Prometheus sample"). */
int serve_metrics_parse(const char *text, size_t n, serve_metric **out, size_t *n_out, lvd_err *err);
void serve_metrics_free(serve_metric *v, size_t n);
/* The value of series name among v[0..n), or NAN. */
double serve_metric_get(const serve_metric *v, size_t n, const char *name);

#endif
