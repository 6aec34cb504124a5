/* summary.c: a serving run's figures and its results (see summary.h). */
#include "serve/summary.h"

#include "common/json.h"
#include "stats/serving.h"
#include "stats/stats.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static serve_quant quant(const lvd_dvec *d)
{
    return (serve_quant){d->n, stats_quantile(d->v, d->n, 0.50), stats_quantile(d->v, d->n, 0.95),
                         stats_quantile(d->v, d->n, 0.99)};
}

/* 1 when r is an ok request with a first token. */
static int counted(const serve_req *r)
{
    return !r->error && r->first_ns > 0;
}

void serve_figures_build(const serve_drive *d, const serve_load *l, int64_t healthy_ms, serve_figures *out)
{
    memset(out, 0, sizeof *out);
    out->load = *l;
    out->healthy_ms = healthy_ms;
    out->requests = d->n;
    out->wall_s = (double)d->wall_ns / 1e9;
    lvd_dvec ttft = {0}, itl = {0}, tps = {0}, prompt = {0};
    double tokens = 0;
    for (size_t i = 0; i < d->n; i++) {
        const serve_req *r = &d->reqs[i];
        if (!counted(r)) {
            out->errors++;
            if (!out->first_error)
                out->first_error = lvd_xstrdup(r->error ? r->error : "no token came");
            continue;
        }
        lvd_dvec_push(&ttft, (double)(r->first_ns - r->start_ns) / 1e6);
        double sum = 0;
        for (size_t k = 0; k < r->n_itl; k++) {
            lvd_dvec_push(&itl, r->itl_ms[k]);
            sum += r->itl_ms[k];
        }
        if (r->n_itl && sum > 0)
            lvd_dvec_push(&tps, (double)r->n_itl / (sum / 1e3));
        if (r->prompt_tokens >= 0)
            lvd_dvec_push(&prompt, r->prompt_tokens);
        tokens += r->tokens;
    }
    out->ttft_ms = quant(&ttft);
    out->itl_ms = quant(&itl);
    out->request_tps = quant(&tps);
    out->aggregate_tps = ttft.n && out->wall_s > 0 ? tokens / out->wall_s : NAN;
    out->prompt_tokens = prompt.n ? (int)stats_median(prompt.v, prompt.n) : -1;
    free(ttft.v);
    free(itl.v);
    free(tps.v);
    free(prompt.v);
}

void serve_figures_free(serve_figures *f)
{
    free(f->first_error);
    serve_metrics_free(f->metrics, f->n_metrics);
    memset(f, 0, sizeof *f);
}

static cJSON *quant_json(const serve_quant *q)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)q->n);
    cJSON_AddItemToObject(o, "p50", lvd_json_num(q->p50));
    cJSON_AddItemToObject(o, "p95", lvd_json_num(q->p95));
    cJSON_AddItemToObject(o, "p99", lvd_json_num(q->p99));
    return o;
}

cJSON *serve_figures_json(const serve_figures *f)
{
    char load[64];
    serve_load_name(&f->load, load, sizeof load);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "load", load);
    cJSON_AddNumberToObject(o, "requests", (double)f->requests);
    cJSON_AddNumberToObject(o, "errors", (double)f->errors);
    cJSON_AddItemToObject(o, "healthy_ms", f->healthy_ms >= 0 ? cJSON_CreateNumber((double)f->healthy_ms)
                                                              : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "wall_s", lvd_json_num(f->wall_s));
    cJSON_AddItemToObject(o, "ttft_ms", quant_json(&f->ttft_ms));
    cJSON_AddItemToObject(o, "itl_ms", quant_json(&f->itl_ms));
    cJSON_AddItemToObject(o, "request_tps", quant_json(&f->request_tps));
    cJSON_AddItemToObject(o, "aggregate_tps", lvd_json_num(f->aggregate_tps));
    cJSON_AddItemToObject(o, "prompt_tokens", f->prompt_tokens >= 0 ? cJSON_CreateNumber(f->prompt_tokens)
                                                                    : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "first_error", lvd_json_text(f->first_error));
    cJSON *m = cJSON_AddObjectToObject(o, "metrics");
    for (size_t i = 0; i < f->n_metrics; i++)
        cJSON_AddItemToObject(m, f->metrics[i].name, lvd_json_num(f->metrics[i].value));
    return o;
}

/* One result of run: test, sizes, room for n samples. */
static lvd_result *add_result(lvd_run *run, stats_serve_kind kind, const serve_load *l, size_t n)
{
    run->results = lvd_xrealloc(run->results, (run->n_results + 1) * sizeof *run->results);
    lvd_result *x = &run->results[run->n_results++];
    memset(x, 0, sizeof *x);
    stats_serve_test_name(kind, l->n_prompt, l->n_gen, x->test, sizeof x->test);
    x->n_prompt = l->n_prompt;
    x->n_gen = l->n_gen;
    x->rep_ngl = x->rep_fa = -1;
    x->ns = lvd_xcalloc(n ? n : 1, sizeof *x->ns);
    x->ts = lvd_xcalloc(n ? n : 1, sizeof *x->ts);
    x->warmup = lvd_xcalloc(n ? n : 1, 1);
    return x;
}

/* Flags each client's leading warm-up samples of x (stats_warmup over the
 * client's own samples in their order). */
static void flag_warmup(lvd_result *x, const int *client, int clients)
{
    double *seq = lvd_xmalloc((x->n ? x->n : 1) * sizeof *seq);
    size_t *at = lvd_xmalloc((x->n ? x->n : 1) * sizeof *at);
    for (int c = 0; c < clients; c++) {
        size_t k = 0;
        for (size_t i = 0; i < x->n; i++)
            if (client[i] == c) {
                seq[k] = x->ts[i];
                at[k++] = i;
            }
        size_t w = stats_warmup(seq, k);
        for (size_t i = 0; i < w; i++)
            x->warmup[at[i]] = 1;
    }
    free(seq);
    free(at);
}

void serve_results_fill(const serve_drive *d, const serve_load *l, const serve_figures *f, lvd_run *run)
{
    lvd_result *ttft = add_result(run, STATS_SERVE_TTFT, l, d->n);
    size_t ti = (size_t)(ttft - run->results);
    lvd_result *tps = add_result(run, STATS_SERVE_TPS, l, d->n);
    ttft = &run->results[ti]; /* moved by the second realloc */
    int *client = lvd_xcalloc(d->n ? d->n : 1, sizeof *client);
    for (size_t i = 0; i < d->n; i++) {
        const serve_req *r = &d->reqs[i];
        if (!counted(r))
            continue;
        int64_t first = r->first_ns - r->start_ns, wall = r->end_ns - r->start_ns;
        client[ttft->n] = r->client;
        ttft->ns[ttft->n] = first;
        ttft->ts[ttft->n++] = (double)l->n_prompt / ((double)first / 1e9);
        tps->ns[tps->n] = wall;
        tps->ts[tps->n++] = (double)l->clients * r->tokens / ((double)wall / 1e9);
    }
    flag_warmup(ttft, client, l->clients);
    flag_warmup(tps, client, l->clients);
    free(client);
    tps->reported_json = lvd_json_compact(serve_figures_json(f));
}
