/* serving.h: what the statistics know of serving tests (lvd serve, serve/):
 * their names, the quantiles a serving run reports, and the bound of the
 * serve objective (stats/rank.h). Pure: no I/O, no store, no HTTP.
 *
 * A serving run (a llama-server at --parallel N, N concurrent clients each
 * sending a prompt of P tokens and streaming G generated tokens) records
 * two results, each a test named after its load shape P, G (N is the arm's
 * own -np, lvd_params.parallel):
 *   serve-ttft@ppP+tgG   one sample per request: its time to first token
 *                        in ns, and as throughput P / TTFT (prompt tokens
 *                        per second until the first token);
 *   serve-tps@ppP+tgG    one sample per request: the request's wall time in
 *                        ns, and as throughput N x G / wall, the aggregate
 *                        generation rate N clients reach at that latency.
 * Every sample is a rate where higher is better, as llama-bench's, so the
 * comparisons, their CIs, the sequential decision and pin promotion read a
 * serving test as they read pp512: a doubled TTFT is a ratio of 0.5. */
#ifndef LVD_STATS_SERVING_H
#define LVD_STATS_SERVING_H

#include <stddef.h>

#define STATS_SERVE_TTFT_PREFIX "serve-ttft@"
#define STATS_SERVE_TPS_PREFIX "serve-tps@"

typedef enum stats_serve_kind {
    STATS_SERVE_NONE = 0,      /* not a serving test (llama-bench's) */
    STATS_SERVE_TTFT,          /* time to first token */
    STATS_SERVE_TPS,           /* aggregate generation throughput */
} stats_serve_kind;

/* "serve-ttft@pp128+tg32" / "serve-tps@pp128+tg32" into buf. */
void stats_serve_test_name(stats_serve_kind kind, int n_prompt, int n_gen, char *buf, size_t len);
/* The kind of test name (STATS_SERVE_NONE for any other name, a malformed
 * one included); *n_prompt and *n_gen (either may be NULL) get its P and G. */
stats_serve_kind stats_serve_test_kind(const char *name, int *n_prompt, int *n_gen);

/* The q quantile (0 <= q <= 1) of x[0..n), linear between the two nearest
 * ranks (x is not modified); NAN when n is 0. The p50 / p95 / p99 lvd serve
 * reports and the p95 TTFT the serve objective bounds. */
double stats_quantile(const double *x, size_t n, double q);

/* The percentile of TTFT the serve objective bounds. */
#define STATS_SERVE_BOUND_Q 0.95

#endif
