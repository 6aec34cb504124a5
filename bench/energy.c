/* energy.c: energy in a bench session (see energy.h): sources, idle
 * baseline, matching arms, the invocation hook and the tokens-per-joule
 * samples. Not for printing (energy_report.c). */
#include "bench/energy.h"

#include "stats/energy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lvd_device *arm_device(const bench_arm *a, const lvd_probe *probes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (probes[i].engine_id != a->engine_id)
            continue;
        for (size_t d = 0; d < probes[i].n_devices; d++)
            if (!strcmp(probes[i].devices[d].selector, a->params.device))
                return &probes[i].devices[d];
    }
    return NULL;
}

void bench_energy_open(bench_energy *e, const bench_plan *plan, const lvd_probe *probes, size_t n,
                       int64_t idle_ms)
{
    memset(e, 0, sizeof *e);
    energy_open(&e->set);
    e->idle_ms = idle_ms;
    e->idle_w = lvd_xcalloc(e->set.n ? e->set.n : 1, sizeof *e->idle_w);
    e->n_picks = plan->n_arms;
    e->picks = lvd_xcalloc(plan->n_arms ? plan->n_arms : 1, sizeof *e->picks);
    for (size_t i = 0; i < plan->n_arms; i++) {
        const bench_arm *a = &plan->arms[i];
        const lvd_device *d = a->params.device[0] ? arm_device(a, probes, n) : NULL;
        energy_target t = {
            .selector = a->params.device, .backend = a->backend,
            .name = d ? d->name : a->device_name, .mem_mib = d ? d->total_mib : -1,
        };
        energy_match(&e->set, &t, &e->picks[i]);
    }
    if (bench_energy_any(e))
        energy_idle(&e->set, idle_ms, e->idle_w);
}

void bench_energy_close(bench_energy *e)
{
    if (!e)
        return;
    energy_close(&e->set);
    free(e->idle_w);
    free(e->picks);
    memset(e, 0, sizeof *e);
}

int bench_energy_any(const bench_energy *e)
{
    for (size_t i = 0; e && i < e->n_picks; i++)
        if (e->picks[i].n)
            return 1;
    return 0;
}

const char *bench_energy_why_not(const bench_energy *e, char *buf, size_t len)
{
    if (!e || !e->set.n)
        snprintf(buf, len, "no energy source on this box (NVML, hwmon, RAPL)");
    else if (e->n_picks)
        snprintf(buf, len, "no arm matched a source (%s)", e->picks[0].note);
    else
        snprintf(buf, len, "no arm");
    return buf;
}

int bench_energy_begin(bench_energy *e, size_t arm, proc_spec *spec, energy_watch *w)
{
    memset(w, 0, sizeof *w);
    if (!e || arm >= e->n_picks)
        return 0;
    energy_watch_init(w, &e->set, &e->picks[arm], e->idle_w);
    if (!e->picks[arm].n)
        return 0;
    spec->on_err = energy_watch_feed;
    spec->on_err_ctx = w;
    return 1;
}

void bench_energy_end(bench_energy *e, energy_watch *w)
{
    if (e && w->pick)
        energy_watch_end(w);
}

void bench_energy_attach(bench_energy *e, size_t arm, const energy_watch *w, lvd_run *all)
{
    if (!e || arm >= e->n_picks)
        return;
    for (size_t j = 0; j < all->n_results; j++)
        energy_watch_result(w, j, &all->results[j].energy);
}

void bench_joules_absorb(bench_joules *j, const lvd_result *r)
{
    if (!r->energy.measured) {
        snprintf(j->note, sizeof j->note, "%s", r->energy.note);
        return;
    }
    j->note[0] = 0;
    j->last = r->energy;
    for (size_t k = 0; k < r->n; k++) {
        double v = stats_sample_tpj(r, k), g = stats_sample_tpj_gross(r, k);
        if (!isfinite(v) || !isfinite(g))
            continue;
        if (j->n == j->cap) {
            j->cap = j->cap ? 2 * j->cap : 16;
            j->tpj = lvd_xrealloc(j->tpj, j->cap * sizeof *j->tpj);
            j->gross = lvd_xrealloc(j->gross, j->cap * sizeof *j->gross);
        }
        j->gross[j->n] = g;
        j->tpj[j->n++] = v;
    }
}

void bench_joules_free(bench_joules *j)
{
    free(j->tpj);
    free(j->gross);
    memset(j, 0, sizeof *j);
}
