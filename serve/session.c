/* session.c: the serving session's rounds, records and stopping rule (see
 * session.h). */
#include "serve/session.h"

#include "stats/serving.h"
#include "stats/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *serve_stop_name(serve_stop s)
{
    switch (s) {
    case SERVE_STOP_SETTLED: return "settled";
    case SERVE_STOP_MAX_ROUNDS: return "max-rounds";
    case SERVE_STOP_BUDGET: return "budget";
    case SERVE_STOP_NOTHING: return "nothing-measured";
    case SERVE_STOP_PORT: return "port-taken";
    case SERVE_STOP_SIGNAL: return "interrupted";
    }
    return "unknown";
}

/* Appends the kept samples of run's serving test of kind to *v. */
static void keep_samples(const lvd_run *run, stats_serve_kind kind, double **v, size_t *n)
{
    for (size_t i = 0; i < run->n_results; i++) {
        if (stats_serve_test_kind(run->results[i].test, NULL, NULL) != kind)
            continue;
        double *kept;
        size_t k = stats_result_kept(&run->results[i], &kept, NULL);
        *v = lvd_xrealloc(*v, (*n + k + 1) * sizeof **v);
        if (k)
            memcpy(*v + *n, kept, k * sizeof *kept);
        *n += k;
        free(kept);
    }
}

/* Moves drive d's requests into the cell's pool. */
static void pool(serve_cell *c, serve_drive *d)
{
    c->all.reqs = lvd_xrealloc(c->all.reqs, (c->all.n + d->n + 1) * sizeof *c->all.reqs);
    memcpy(c->all.reqs + c->all.n, d->reqs, d->n * sizeof *d->reqs);
    c->all.n += d->n;
    c->all.wall_ns += d->wall_ns;
    free(d->reqs);
    free(d->fatal);
    memset(d, 0, sizeof *d);
}

/* A seed for run number k of cell i: different prompts every run. */
static unsigned run_seed(const serve_session *s, size_t i)
{
    unsigned h = 2166136261u;
    for (const char *p = s->o.session ? s->o.session : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h ^ (unsigned)(s->rounds * 7919u + i * 104729u + s->cells[i].runs);
}

/* One run of cell i, recorded. 0, or -1 (store; err). */
static int run_cell(store *st, serve_session *s, size_t i, lvd_err *err)
{
    serve_cell *c = &s->cells[i];
    const serve_arm *arm = &s->o.arms[c->arm];
    const serve_load *l = &s->o.loads[c->load];
    lvd_run run;
    serve_figures fig;
    serve_drive reqs;
    lvd_err why;
    serve_run_end end = serve_run_once(arm, l, &s->o.run, run_seed(s, i), &run, &fig, &reqs, &why);
    int rc = 0;
    if (end == SERVE_RUN_DONE) {
        snprintf(run.artifact, sizeof run.artifact, "%s", s->o.artifact);
        run.host = lvd_xstrdup(s->o.host);
        run.session = lvd_xstrdup(s->o.session);
        c->runs++;
        if (s->o.record && store_run_put(st, &run, err) != 0)
            rc = -1;
        int ok = !strcmp(run.status, "ok");
        if (ok) {
            c->runs_ok++;
            s->runs_ok++;
            keep_samples(&run, STATS_SERVE_TPS, &c->tps, &c->n_tps);
            keep_samples(&run, STATS_SERVE_TTFT, &c->ttft, &c->n_ttft);
            pool(c, &reqs);
            c->healthy_ms = fig.healthy_ms;
            serve_metrics_free(c->metrics, c->n_metrics);
            c->metrics = fig.metrics; /* the newest run's */
            c->n_metrics = fig.n_metrics;
            fig.metrics = NULL;
            fig.n_metrics = 0;
        } else {
            s->runs_failed++;
            c->excluded = 1;
            c->reason = lvd_xstrdup(why.msg);
        }
        if (s->o.on_run)
            s->o.on_run(s, c, &run, &fig, ok ? NULL : why.msg, s->o.ctx);
    } else {
        s->stop = end == SERVE_RUN_PORT ? SERVE_STOP_PORT : SERVE_STOP_SIGNAL;
        s->stop_why = lvd_xstrdup(end == SERVE_RUN_PORT ? why.msg : "interrupted by a signal");
    }
    serve_drive_free(&reqs);
    serve_figures_free(&fig);
    lvd_run_free(&run);
    return rc;
}

/* Ranks the cells of prompt shape (P, G) of load k; sets their ranks.
 * 1 when the ranking is open, 0 not, -1 with err. */
static int rank_shape(serve_session *s, size_t k, lvd_err *err)
{
    const serve_load *shape = &s->o.loads[k];
    stats_rank_arm *ra = lvd_xcalloc(s->n_cells, sizeof *ra);
    size_t *cell = lvd_xcalloc(s->n_cells, sizeof *cell), n = 0;
    for (size_t i = 0; i < s->n_cells; i++) {
        const serve_load *l = &s->o.loads[s->cells[i].load];
        if (l->n_prompt != shape->n_prompt || l->n_gen != shape->n_gen)
            continue;
        cell[n] = i;
        ra[n++] = (stats_rank_arm){.eligible = !s->cells[i].excluded, .x = s->cells[i].tps, .nx = s->cells[i].n_tps};
    }
    stats_rank_opts ro;
    stats_rank_opts_init(&ro);
    ro.rule.look = s->rounds ? s->rounds : 1; /* the rounds taken so far: this look */
    stats_ranking rk;
    int rc = stats_rank(ra, n, &ro, &rk, err);
    if (rc == 0) {
        for (size_t j = 0; j < n; j++) {
            const stats_rank_entry *e = stats_ranking_entry(&rk, j);
            s->cells[cell[j]].rank = e ? e->rank : 0;
        }
        rc = stats_ranking_open(&rk);
        stats_ranking_free(&rk);
    }
    free(ra);
    free(cell);
    return rc;
}

/* 1 when another round is needed: a ranking open, or a cell short of samples. -1 err. */
static int another_round(serve_session *s, lvd_err *err)
{
    stats_rule rule;
    stats_rule_default(&rule);
    int open = 0, any = 0;
    for (size_t i = 0; i < s->n_cells; i++) {
        const serve_cell *c = &s->cells[i];
        any |= !c->excluded;
        open |= !c->excluded && (c->n_tps < rule.min_samples || c->n_ttft < rule.min_samples);
    }
    if (!any)
        return 0;
    for (size_t k = 0; k < s->o.n_loads; k++) {
        int first = 1; /* each prompt shape once */
        for (size_t j = 0; j < k && first; j++)
            first = s->o.loads[j].n_prompt != s->o.loads[k].n_prompt || s->o.loads[j].n_gen != s->o.loads[k].n_gen;
        int r = first ? rank_shape(s, k, err) : 0;
        if (r < 0)
            return -1;
        open |= r;
    }
    return open;
}

static int check_opts(const serve_session_opts *o, lvd_err *err)
{
    if (!o->n_arms || !o->n_loads)
        return lvd_errf(err, "serve: a session needs an arm and a load shape");
    if (!o->artifact || !o->host || !o->session)
        return lvd_errf(err, "serve: artifact, host and session are required");
    if ((o->run.requests < 0 && o->run.requests != SERVE_REQUESTS_AUTO) ||
        (o->run.requests == 0 && o->run.duration_ms <= 0))
        return lvd_errf(err, "serve: a run needs a count of requests or a duration");
    return 0;
}

/* The end of a session: each cell's figures over its pooled requests. */
static void finish(serve_session *s, int64_t t0)
{
    for (size_t i = 0; i < s->n_cells; i++) {
        serve_cell *c = &s->cells[i];
        serve_figures_build(&c->all, &s->o.loads[c->load], c->runs_ok ? c->healthy_ms : -1, &c->fig);
        c->fig.metrics = c->metrics; /* moved */
        c->fig.n_metrics = c->n_metrics;
        c->metrics = NULL;
        c->n_metrics = 0;
    }
    s->wall_ms = lvd_mono_ms() - t0;
}

int serve_session_run(store *st, const serve_session_opts *o, serve_session *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_opts(o, err))
        return -1;
    out->o = *o;
    if (!out->o.max_rounds)
        out->o.max_rounds = SERVE_MAX_ROUNDS_DEFAULT;
    out->n_cells = o->n_arms * o->n_loads;
    out->cells = lvd_xcalloc(out->n_cells, sizeof *out->cells);
    for (size_t i = 0; i < out->n_cells; i++)
        out->cells[i] = (serve_cell){.arm = i / o->n_loads, .load = i % o->n_loads};
    int64_t t0 = lvd_mono_ms();
    out->stop = SERVE_STOP_MAX_ROUNDS;
    while (out->rounds < out->o.max_rounds) {
        for (size_t k = 0; k < out->n_cells && out->stop == SERVE_STOP_MAX_ROUNDS; k++) {
            size_t i = out->rounds % 2 ? out->n_cells - 1 - k : k; /* A B C, then C B A */
            if (out->cells[i].excluded)
                continue;
            if (o->budget_ms > 0 && lvd_mono_ms() - t0 >= o->budget_ms) {
                out->stop = SERVE_STOP_BUDGET;
                break;
            }
            if (run_cell(st, out, i, err) != 0) {
                finish(out, t0);
                return -1;
            }
        }
        out->rounds++;
        if (out->stop != SERVE_STOP_MAX_ROUNDS)
            break;
        int more = another_round(out, err);
        if (more < 0) {
            finish(out, t0);
            return -1;
        }
        if (!more) {
            int any = 0;
            for (size_t i = 0; i < out->n_cells; i++)
                any |= !out->cells[i].excluded;
            out->stop = any ? SERVE_STOP_SETTLED : SERVE_STOP_NOTHING;
            break;
        }
    }
    finish(out, t0);
    return 0;
}

void serve_session_free(serve_session *s)
{
    for (size_t i = 0; i < s->n_cells; i++) {
        serve_cell *c = &s->cells[i];
        free(c->reason);
        serve_drive_free(&c->all);
        free(c->tps);
        free(c->ttft);
        serve_metrics_free(c->metrics, c->n_metrics);
        serve_figures_free(&c->fig);
    }
    free(s->cells);
    free(s->stop_why);
    memset(s, 0, sizeof *s);
}
