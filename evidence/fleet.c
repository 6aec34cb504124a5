/* fleet.c: reads the fleet view from the store (evidence/fleet.h): per host
 * its arms on cards, its GPUs and its winners, then the map. Not for the
 * map's arithmetic (fleet_map.c) or for printing (fleet_render.c). */
#include "evidence/fleet.h"

#include "engine/devices.h"
#include "select/armset.h"
#include "store/fleetdb.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device of probe whose selector is sel, or NULL. */
static const lvd_device *probe_device(const lvd_probe *p, const char *sel)
{
    for (size_t i = 0; p && sel[0] && i < p->n_devices; i++)
        if (!strcmp(p->devices[i].selector, sel))
            return &p->devices[i];
    return NULL;
}

/* The engines' latest probes, read once each. */
typedef struct probes {
    int64_t *ids;
    lvd_probe *v;
    int *have;
    size_t n;
} probes;

static const lvd_probe *probe_of(store *s, probes *ps, int64_t engine_id, lvd_err *err, int *failed)
{
    for (size_t i = 0; i < ps->n; i++)
        if (ps->ids[i] == engine_id)
            return ps->have[i] ? &ps->v[i] : NULL;
    ps->ids = lvd_xrealloc(ps->ids, (ps->n + 1) * sizeof *ps->ids);
    ps->v = lvd_xrealloc(ps->v, (ps->n + 1) * sizeof *ps->v);
    ps->have = lvd_xrealloc(ps->have, (ps->n + 1) * sizeof *ps->have);
    ps->ids[ps->n] = engine_id;
    int rc = store_probe_latest(s, engine_id, &ps->v[ps->n], err);
    if (rc < 0)
        *failed = 1;
    ps->have[ps->n] = rc == 0;
    return rc == 0 ? &ps->v[ps->n++] : (ps->n++, NULL);
}

static void probes_free(probes *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        if (ps->have[i])
            lvd_probe_free(&ps->v[i]);
    free(ps->ids);
    free(ps->v);
    free(ps->have);
}

/* The card arm a ran on, and its backend; NULL when not on a listed device. */
static const lvd_device *arm_card(const sel_arm *a, const lvd_probe *p)
{
    char dev[64];
    engine_check_device(p, &a->params, dev, sizeof dev);
    return probe_device(p, dev);
}

/* The arms of h's runs from the day before its newest run's UTC date on (a
 * night that runs past midnight stays whole), each arm its newest session
 * there: read through the host's index, so a year of history costs nothing. */
static int load_arms(store *s, const char *host, sel_armset *set, lvd_err *err)
{
    store_run_filter f = {.host = host};
    if (store_run_nights_since(s, NULL, host, 1, &f.since, err) != 0)
        return -1;
    if (f.since > 86400)
        f.since -= 86400;
    lvd_run *runs;
    size_t n;
    if (store_run_list(s, &f, &runs, &n, err) != 0)
        return -1;
    int rc = store_run_load_results(s, runs, n, err);
    if (rc == 0)
        sel_armset_build(runs, n, set);
    store_run_list_free(runs, n);
    return rc;
}

/* h's arms on cards and its GPUs from its armset; the models it measured
 * into the sorted vector *models. */
static int read_arms(store *s, ev_fleet_host *h, probes *ps, char ***models, size_t *n_models, lvd_err *err)
{
    sel_armset set = {0};
    if (load_arms(s, h->host, &set, err) != 0)
        return -1;
    int failed = 0;
    for (size_t i = 0; i < set.n && !failed; i++) {
        const sel_arm *a = &set.v[i];
        ev_fleet_sorted_add(models, n_models, a->artifact);
        const lvd_device *d = arm_card(a, probe_of(s, ps, a->engine_id, err, &failed));
        if (!d || strcmp(a->status, "ok") || engine_device_is_software(d->name))
            continue; /* not on a card (the CPU, llvmpipe), or no figures to compare */
        ev_fleet_sorted_add(&h->gpus, &h->n_gpus, d->name);
        for (size_t t = 0; t < a->n_series; t++) {
            const sel_series *x = &a->series[t];
            int tg = x->n_gen > 0 && x->n_prompt == 0, pp = x->n_prompt > 0 && x->n_gen == 0;
            if ((tg || pp) && x->n)
                ev_fleet_add_arm(h, a->artifact, d->name, d->backend, x->test, tg, x->ts, x->n);
        }
    }
    sel_armset_free(&set);
    return failed ? -1 : 0;
}

/* The model's name: its last path's file name, else the sha256's first 12 digits. */
static char *model_name(store *s, const char *sha256)
{
    store_artifact a;
    lvd_err ignored = {{0}};
    char *name = NULL;
    if (store_artifact_get(s, sha256, &a, &ignored) == 0) {
        if (a.last_path) {
            const char *slash = strrchr(a.last_path, '/');
            name = lvd_xstrdup(slash ? slash + 1 : a.last_path);
        }
        store_artifact_free(&a);
    }
    return name ? name : lvd_xasprintf("%.12s", sha256);
}

/* The winner of model on h from its newest verdict; 1 when there is none. */
static int read_winner(store *s, ev_fleet_host *h, const char *model, probes *ps, lvd_err *err)
{
    lvd_verdict *v;
    size_t n;
    if (store_verdict_list(s, model, h->host, 1, &v, &n, err) != 0)
        return -1;
    if (!n)
        return 1;
    h->winners = lvd_xrealloc(h->winners, (h->n_winners + 1) * sizeof *h->winners);
    ev_fleet_winner *w = &h->winners[h->n_winners++];
    memset(w, 0, sizeof *w);
    snprintf(w->artifact, sizeof w->artifact, "%s", model);
    w->model = model_name(s, model);
    w->objective = lvd_xstrdup(v->objective ? v->objective : "");
    w->rule = lvd_xstrdup(v->rule ? v->rule : "");
    int failed = 0;
    lvd_engine e;
    int rc = v->engine_id ? store_engine_get(s, v->engine_id, &e, err) : 1;
    if (rc == 0) {
        w->engine = lvd_xstrdup(e.name);
        const lvd_probe *p = probe_of(s, ps, v->engine_id, err, &failed);
        engine_check_device(p, &v->params, w->device, sizeof w->device);
        const lvd_device *d = probe_device(p, w->device);
        if (d) {
            snprintf(w->backend, sizeof w->backend, "%s", d->backend);
            w->card = lvd_xstrdup(d->name);
        } else {
            sel_backend_label(p, NULL, w->backend, sizeof w->backend);
        }
        lvd_engine_free(&e);
    }
    store_verdict_list_free(v, n);
    return rc < 0 || failed ? -1 : 0;
}

/* Everything of one host. */
static int read_host(store *s, ev_fleet_host *h, probes *ps, lvd_err *err)
{
    char **models = NULL;
    size_t n_models = 0;
    int ret = read_arms(s, h, ps, &models, &n_models, err);
    for (size_t i = 0; ret == 0 && i < n_models; i++)
        if (read_winner(s, h, models[i], ps, err) < 0)
            ret = -1;
    lvd_strv_free(models);
    return ret == 0 ? ev_fleet_host_ratios(h, err) : -1;
}

int ev_fleet_load(store *s, ev_fleet *f, lvd_err *err)
{
    memset(f, 0, sizeof *f);
    char **hosts;
    size_t n;
    if (store_fleet_hosts(s, &hosts, &n, err) != 0)
        return -1;
    f->hosts = lvd_xcalloc(n ? n : 1, sizeof *f->hosts);
    probes ps = {0};
    int ret = 0;
    for (size_t i = 0; i < n && ret == 0; i++) {
        f->hosts[i].host = lvd_xstrdup(hosts[i]);
        f->n_hosts++;
        ret = read_host(s, &f->hosts[i], &ps, err);
    }
    probes_free(&ps);
    lvd_strv_free(hosts);
    if (ret != 0) {
        ev_fleet_free(f);
        return -1;
    }
    ev_fleet_map(f);
    return 0;
}

static void host_free(ev_fleet_host *h)
{
    free(h->host);
    lvd_strv_free(h->gpus);
    for (size_t i = 0; i < h->n_winners; i++) {
        ev_fleet_winner *w = &h->winners[i];
        free(w->model);
        free(w->objective);
        free(w->engine);
        free(w->card);
        free(w->rule);
    }
    free(h->winners);
    for (size_t i = 0; i < h->n_arms; i++)
        free(h->arms[i].ts);
    free(h->arms);
    free(h->ratios);
}

void ev_fleet_free(ev_fleet *f)
{
    for (size_t i = 0; i < f->n_hosts; i++)
        host_free(&f->hosts[i]);
    free(f->hosts);
    lvd_strv_free(f->cards);
    lvd_strv_free(f->backends);
    for (size_t i = 0; i < f->n_cells; i++)
        lvd_strv_free(f->cells[i].hosts);
    free(f->cells);
    memset(f, 0, sizeof *f);
}
