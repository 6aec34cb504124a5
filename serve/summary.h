/* summary.h: what one serving run measured, from its requests
 * (serve/client.h): per request the time to first token, the gaps between
 * tokens (inter-token latency), the generation rate after the first token
 * (tokens per second) and errors; per run their p50 / p95 / p99
 * (stats_quantile), the aggregate throughput (generated tokens of the ok
 * requests over the wall time from the first start to the last end) and the
 * server's own /metrics. The run's two results (stats/serving.h: serve-ttft
 * and serve-tps, one sample per ok request) are filled here too, each
 * client's leading samples flagged warm-up by the rule llama-bench's
 * repetitions get (stats_warmup, per client, in its order). Not for
 * running anything (serve/run.h) nor printing (serve/report.h). */
#ifndef LVD_SERVE_SUMMARY_H
#define LVD_SERVE_SUMMARY_H

#include "common/types.h"
#include "serve/client.h"
#include "serve/load.h"
#include "serve/metrics.h"

#include <stddef.h>
#include <stdint.h>

struct cJSON;

typedef struct serve_quant {
    size_t n;
    double p50, p95, p99;      /* NAN when n is 0 */
} serve_quant;

typedef struct serve_figures {
    serve_load load;
    size_t requests, errors;   /* requests that ended; of which failed */
    serve_quant ttft_ms;       /* time to first token of the ok requests */
    serve_quant itl_ms;        /* every gap between tokens of the ok requests */
    serve_quant request_tps;   /* per ok request: tokens after the first / their time */
    double aggregate_tps;      /* generated tokens of the ok requests / wall_s; NAN none */
    double wall_s;             /* the drive's first start to last end */
    int64_t healthy_ms;        /* the server's start to /health 200; -1 unknown */
    int prompt_tokens;         /* the server's tokens_evaluated (median); -1 unknown */
    char *first_error;         /* the first failed request's message; NULL none */
    serve_metric *metrics;     /* the server's /metrics after the load (owned); NULL none */
    size_t n_metrics;
} serve_figures;

/* The figures of drive d under load l (healthy_ms from the server). */
void serve_figures_build(const serve_drive *d, const serve_load *l, int64_t healthy_ms, serve_figures *out);
void serve_figures_free(serve_figures *f);
/* {"load", "requests", "errors", "healthy_ms", "wall_s", "ttft_ms": {"n",
 * "p50", "p95", "p99"}, "itl_ms": {...}, "request_tps": {...},
 * "aggregate_tps", "prompt_tokens", "first_error", "metrics": {NAME: VALUE}}
 * (NAN as null). Caller owns it. */
struct cJSON *serve_figures_json(const serve_figures *f);

/* Appends run's two results for d under l: serve-ttft@ppP+tgG (ns: time to
 * first token; t/s: P / TTFT) and serve-tps@ppP+tgG (ns: the request's wall;
 * t/s: N x tokens / wall), one sample per ok request, warm-up flagged;
 * reported_json of serve-tps is serve_figures_json(f). */
void serve_results_fill(const serve_drive *d, const serve_load *l, const serve_figures *f, lvd_run *run);

#endif
