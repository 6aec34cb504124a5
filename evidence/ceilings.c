/* ceilings.c: the context ceilings on the evidence page (see model.h
 * ev_ceiling, render.h): read from the store through store_ceiling_list,
 * judged by fit_ceiling_fresh at the placement lvd fit and lvd select use
 * (fit_place), side by side per backend with the placement's prediction
 * and what choosing a backend costs in window; and the page's engines
 * older than the pin (builds_local_older). Not for measuring (fit/). */
#include "evidence/format.h"
#include "evidence/model.h"
#include "evidence/render.h"

#include "fit/ceiling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t engine_at(const lvd_engine *engines, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (engines[i].id == id)
            return i;
    return SIZE_MAX;
}

static const lvd_device *probe_device(const lvd_probe *p, const char *selector)
{
    for (size_t i = 0; p && i < p->n_devices; i++)
        if (!strcmp(p->devices[i].selector, selector))
            return &p->devices[i];
    return NULL;
}

/* Why c no longer holds for engine e (probe p; NULL none), or NULL. */
static char *stale_of(const store_ceiling *c, const store_artifact *a, const lvd_engine *e, const lvd_probe *p)
{
    if (!e)
        return lvd_xstrdup("its engine is no longer registered");
    if (!p)
        return lvd_xasprintf("%s has no probe", e->name);
    const lvd_device *dev = strcmp(c->device, FIT_DEVICE_CPU) ? probe_device(p, c->device) : NULL;
    if (!dev && strcmp(c->device, FIT_DEVICE_CPU))
        return lvd_xasprintf("%s's probe no longer lists %s", e->name, c->device);
    lvd_params params;
    placement_result pl;
    lvd_err err = {{0}};
    char key[64], why[256];
    static const gguf_shape unknown;
    fit_place(a ? &a->shape : &unknown, dev, c->type_k, c->type_v, &params, &pl, &err);
    fit_placement_key(&params, dev == NULL, key, sizeof key);
    return fit_ceiling_fresh(c, e, p, key, why, sizeof why) ? NULL : lvd_xstrdup(why);
}

int ev_ceilings_load(store *s, const char *host, const store_artifact *a, const lvd_engine *engines,
                     const lvd_probe *probes, size_t n, ev_model *m, lvd_err *err)
{
    store_ceiling *v;
    size_t nv;
    if (store_ceiling_list(s, m->sha256, host, &v, &nv, err) != 0)
        return -1;
    m->ceilings = lvd_xcalloc(nv ? nv : 1, sizeof *m->ceilings);
    for (size_t i = 0; i < nv; i++) {
        ev_ceiling *c = &m->ceilings[m->n_ceilings++];
        size_t k = engine_at(engines, n, v[i].engine_id);
        const lvd_engine *e = k == SIZE_MAX ? NULL : &engines[k];
        const lvd_probe *p = e && probes[k].engine_id ? &probes[k] : NULL;
        const lvd_device *dev = probe_device(p, v[i].device);
        c->engine = e ? lvd_xstrdup(e->name) : lvd_xasprintf("engine %lld", (long long)v[i].engine_id);
        snprintf(c->backend, sizeof c->backend, "%s", dev ? dev->backend : LVD_BACKEND_CPU);
        snprintf(c->device, sizeof c->device, "%s", v[i].device);
        snprintf(c->kv, sizeof c->kv, "%s/%s", v[i].type_k, v[i].type_v);
        c->ceiling = v[i].ceiling;
        c->capped = v[i].capped;
        c->predicted = v[i].predicted;
        c->free_mib = v[i].free_mib;
        c->placement = lvd_xstrdup(v[i].placement ? v[i].placement : "");
        ev_datetime(v[i].measured_at, c->date);
        c->stale = stale_of(&v[i], a, e, p);
    }
    store_ceiling_list_free(v, nv);
    ev_ceilings_cost(m);
    return 0;
}

void ev_ceilings_cost(ev_model *m)
{
    for (size_t i = 0; i < m->n_ceilings; i++) {
        ev_ceiling *c = &m->ceilings[i];
        c->cost_pct = NAN;
        const ev_ceiling *best = NULL;
        size_t peers = 0;
        for (size_t j = 0; j < m->n_ceilings; j++) {
            const ev_ceiling *o = &m->ceilings[j];
            if (o->stale || strcmp(o->kv, c->kv))
                continue;
            peers++;
            if (!best || o->ceiling > best->ceiling)
                best = o;
        }
        if (c->stale || peers < 2 || !best || best->ceiling <= 0)
            continue;
        c->cost_pct = 100.0 * (double)(best->ceiling - c->ceiling) / (double)best->ceiling;
        free(c->best);
        c->best = lvd_xasprintf("%s %s", best->engine, best->device);
    }
}

void ev_ceilings_free(ev_model *m)
{
    for (size_t i = 0; i < m->n_ceilings; i++) {
        free(m->ceilings[i].engine);
        free(m->ceilings[i].placement);
        free(m->ceilings[i].stale);
        free(m->ceilings[i].best);
    }
    free(m->ceilings);
    m->ceilings = NULL;
    m->n_ceilings = 0;
}

static void number_or_dash(lvd_sb *sb, int64_t v, const char *prefix)
{
    if (v < 0)
        lvd_sb_adds(sb, " - |");
    else
        lvd_sb_addf(sb, " %s%lld |", prefix, (long long)v);
}

/* The cost column: "−14.0 % vs b9749-vulkan Vulkan0", "best", "-". */
static void cost_cell(lvd_sb *sb, const ev_ceiling *c)
{
    if (c->stale)
        lvd_sb_adds(sb, " stale: ");
    if (c->stale)
        ev_md_cell(sb, c->stale);
    else if (isnan(c->cost_pct))
        lvd_sb_adds(sb, " -");
    else if (c->cost_pct <= 0)
        lvd_sb_adds(sb, " best");
    else {
        lvd_sb_addf(sb, " %.1f %% less window than ", c->cost_pct);
        ev_md_cell(sb, c->best);
    }
    lvd_sb_adds(sb, " |\n");
}

void ev_ceilings_render_model(lvd_sb *sb, const ev_model *m)
{
    if (!m->n_ceilings)
        return;
    lvd_sb_adds(sb, "\n### Context ceilings\n\n"
                    "The largest context each engine and device loaded and ran one token at (`lvd fit`: "
                    "a one-token llama-bench load per probe, bisected to 1 %), at the placement `lvd select` "
                    "uses, beside the context the placement predicted fits. Cost: the window given up by "
                    "choosing this backend instead of the best of the same KV types. `lvd select --ctx max` "
                    "serves a ceiling less 5 %.\n\n"
                    "| backend | engine | device | KV | ceiling | predicted | free MiB | placement | measured | "
                    "cost in window |\n"
                    "|---|---|---|---|---:|---:|---:|---|---|---|\n");
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const ev_ceiling *c = &m->ceilings[i];
        lvd_sb_addf(sb, "| %s | ", c->backend);
        ev_md_cell(sb, c->engine);
        lvd_sb_addf(sb, " | %s | %s |", c->device, c->kv);
        number_or_dash(sb, c->ceiling, c->capped ? "≥ " : "");
        number_or_dash(sb, c->predicted, "");
        number_or_dash(sb, c->free_mib, "");
        lvd_sb_addf(sb, " %s | %s |", c->placement, c->date);
        cost_cell(sb, c);
    }
}

void ev_older_render(lvd_sb *sb, const ev_page *p)
{
    for (size_t i = 0; i < p->n_older; i++) {
        lvd_sb_adds(sb, "\n> **Warning:** ");
        ev_md_cell(sb, p->older[i]);
        lvd_sb_adds(sb, "; its figures on this page were not measured on the pin.\n");
    }
}
