/* report.c: lvd serve's table and JSON (see report.h). */
#include "serve/report.h"

#include "common/json.h"
#include "select/armset.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "12.3/15.0/15.2", "-" for none. */
static void fmt_quant(char *buf, size_t len, const serve_quant *q)
{
    if (!q->n)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f/%.1f/%.1f", q->p50, q->p95, q->p99);
}

static char *arm_words(const serve_arm *a, const serve_load *l)
{
    if (a->url)
        return lvd_xasprintf("%s (N %d)", a->url, l->clients);
    lvd_params p = a->params;
    p.parallel = l->clients;
    return sel_arm_words(a->backend, a->engine, &p);
}

void serve_report_run(FILE *f, const serve_session *s, const serve_cell *c, const serve_figures *fig,
                      const char *failure)
{
    const serve_load *l = &s->o.loads[c->load];
    char load[64];
    serve_load_name(l, load, sizeof load);
    char *words = arm_words(&s->o.arms[c->arm], l);
    if (failure)
        fprintf(f, "%s at %s: failed: %s\n", words, load, failure);
    else
        fprintf(f, "%s at %s: %zu requests, %zu failed, TTFT p50 %.1f ms, %.1f t/s aggregate, healthy in %.1f s\n",
                words, load, fig->requests, fig->errors, fig->ttft_ms.p50, fig->aggregate_tps,
                (double)fig->healthy_ms / 1e3);
    free(words);
    fflush(f);
}

void serve_report_table(FILE *f, const serve_session *s, const char *model)
{
    fprintf(f, "model %s, session %s: %zu round%s (%s)%s%s\n", model, s->o.session, s->rounds,
            s->rounds == 1 ? "" : "s", serve_stop_name(s->stop), s->stop_why ? ": " : "",
            s->stop_why ? s->stop_why : "");
    for (size_t i = 0; i < s->o.n_arms; i++)
        fprintf(f, "arm %zu (%s): %s\n", i + 1, s->o.arms[i].from, s->o.arms[i].line);
    fprintf(f, "\n%-40s %-12s %5s %4s %-20s %-17s %-20s %9s %8s %4s\n", "ARM", "N:P:G", "REQS", "ERR",
            "TTFT p50/p95/p99 ms", "ITL p50/p95/p99 ms", "t/s p50/p95/p99 req", "AGG t/s", "HEALTHY", "RANK");
    for (size_t i = 0; i < s->n_cells; i++) {
        const serve_cell *c = &s->cells[i];
        const serve_load *l = &s->o.loads[c->load];
        char load[64], ttft[48], itl[48], tps[48], agg[32], healthy[32], rank[16];
        serve_load_name(l, load, sizeof load);
        char *words = arm_words(&s->o.arms[c->arm], l);
        fmt_quant(ttft, sizeof ttft, &c->fig.ttft_ms);
        fmt_quant(itl, sizeof itl, &c->fig.itl_ms);
        fmt_quant(tps, sizeof tps, &c->fig.request_tps);
        snprintf(agg, sizeof agg, isnan(c->fig.aggregate_tps) ? "-" : "%.1f", c->fig.aggregate_tps);
        snprintf(healthy, sizeof healthy, c->fig.healthy_ms < 0 ? "-" : "%.2f s", (double)c->fig.healthy_ms / 1e3);
        snprintf(rank, sizeof rank, c->rank ? "%zu" : "-", c->rank);
        fprintf(f, "%-40.40s %-12s %5zu %4zu %-20s %-17s %-20s %9s %8s %4s\n", words, load, c->fig.requests,
                c->fig.errors, ttft, itl, tps, agg, healthy, rank);
        if (c->excluded)
            fprintf(f, "  failed: %s\n", c->reason);
        free(words);
    }
}

cJSON *serve_report_json(const serve_session *s, const char *model)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", model);
    cJSON_AddStringToObject(o, "artifact", s->o.artifact);
    cJSON_AddStringToObject(o, "session", s->o.session);
    cJSON_AddNumberToObject(o, "rounds", (double)s->rounds);
    cJSON_AddStringToObject(o, "stop", serve_stop_name(s->stop));
    cJSON_AddItemToObject(o, "stop_why", lvd_json_text(s->stop_why));
    cJSON *arms = cJSON_AddArrayToObject(o, "arms");
    for (size_t i = 0; i < s->o.n_arms; i++) {
        const serve_arm *a = &s->o.arms[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "engine_id", (double)a->engine_id);
        cJSON_AddStringToObject(j, "engine", a->engine);
        cJSON_AddStringToObject(j, "build", a->build);
        cJSON_AddStringToObject(j, "backend", a->backend);
        cJSON_AddStringToObject(j, "from", a->from);
        cJSON_AddItemToObject(j, "argv", lvd_json_strv(a->argv));
        cJSON_AddItemToObject(j, "env", lvd_json_strv(a->env));
        cJSON_AddStringToObject(j, "line", a->line);
        cJSON_AddItemToObject(j, "url", lvd_json_text(a->url));
        cJSON_AddItemToArray(arms, j);
    }
    cJSON *cells = cJSON_AddArrayToObject(o, "cells");
    for (size_t i = 0; i < s->n_cells; i++) {
        const serve_cell *c = &s->cells[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "arm", (double)c->arm + 1);
        char load[64];
        serve_load_name(&s->o.loads[c->load], load, sizeof load);
        cJSON_AddStringToObject(j, "load", load);
        cJSON_AddNumberToObject(j, "runs", (double)c->runs);
        cJSON_AddNumberToObject(j, "runs_ok", (double)c->runs_ok);
        cJSON_AddItemToObject(j, "excluded", lvd_json_text(c->excluded ? c->reason : NULL));
        cJSON_AddNumberToObject(j, "rank", (double)c->rank);
        cJSON_AddItemToObject(j, "figures", serve_figures_json(&c->fig));
        cJSON_AddItemToArray(cells, j);
    }
    return o;
}
