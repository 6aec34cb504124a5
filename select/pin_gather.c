/* pin_gather.c: fills lvd-pin's evaluation from the store (see pin.h): the
 * candidate build, both builds' arms on this host paired by artifact,
 * backend, arm key and test, the candidate's checks and failed runs, its
 * digest, and the previous decision for the same two builds. Not for the
 * rule table (pin.c) or for writing anything (pin_write.c). */
#include "select/pin.h"

#include "builds/asset.h"
#include "builds/names.h"
#include "builds/pinfile.h"
#include "select/armset.h"
#include "select/engines.h"
#include "store/store.h"
#include "store/store_newest.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The newest fetched build other than pinned; NULL when none. */
static const char *newest_candidate(const lvd_engine *v, size_t n, const char *pinned)
{
    const lvd_engine *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const lvd_engine *x = &v[i];
        if (!x->origin || strcmp(x->origin, "fetched") || !strcmp(x->build, pinned))
            continue;
        if (!best || builds_number(x->build) > builds_number(best->build) ||
            (builds_number(x->build) == builds_number(best->build) &&
             (x->created_at > best->created_at || (x->created_at == best->created_at && x->id > best->id))))
            best = x;
    }
    return best ? best->build : NULL;
}

const lvd_engine *sel_pin_fetched_engine(const lvd_engine *v, size_t n, const char *build,
                                         const char *flavour)
{
    const char *canon = flavour ? builds_flavour_canonical(flavour) : NULL;
    if (!canon)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *f = v[i].flavour ? builds_flavour_canonical(v[i].flavour) : NULL;
        if (v[i].origin && !strcmp(v[i].origin, "fetched") && !strcmp(v[i].build, build) && f &&
            !strcmp(f, canon) && v[i].digest && *v[i].digest)
            return &v[i];
    }
    return NULL;
}

/* An engine's arms on host with the backend label each arm gets. */
typedef struct side {
    sel_armset arms;
    char (*backend)[16];
    char (*device)[64];    /* the device each arm's check is under (engine_check_device) */
} side;

/* The two builds' engines, for choosing the arms that pair before reading any. */
typedef struct pair_pick {
    const lvd_engine *engines;
    size_t n;
    const char *pinned, *candidate;
} pair_pick;

/* 1: an engine of the pinned build, 2: of the candidate, 0: another. */
static int side_of(const pair_pick *p, int64_t engine_id)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->engines[i].id == engine_id)
            return !strcmp(p->engines[i].build, p->pinned) ? 1 : !strcmp(p->engines[i].build, p->candidate) ? 2 : 0;
    return 0;
}

/* Keeps the arms of either build that an arm of the other build has the
 * artifact and arm key of (the pairs, by backend too, are made from what is
 * read): an arm without a counterpart is never compared, so never read. */
static void pick_pairs(const store_arm_session *arms, size_t n, unsigned char *keep, void *ctx)
{
    const pair_pick *p = ctx;
    int *side = lvd_xcalloc(n ? n : 1, sizeof *side);
    for (size_t i = 0; i < n; i++)
        side[i] = side_of(p, arms[i].engine_id);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; side[i] && j < n && !keep[i]; j++)
            keep[i] = side[j] && side[j] != side[i] && !strcmp(arms[i].artifact, arms[j].artifact) &&
                      !strcmp(arms[i].arm_key, arms[j].arm_key);
    free(side);
}

/* Moves the arms of the engines of build out of all (left zeroed) into
 * out, each with its backend label and check device from its engine's
 * latest probe. 0 or -1 (store). */
static int take_side(store *s, const lvd_engine *engines, size_t n_engines, const char *build, sel_armset *all,
                     side *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = all->n ? all->n : 1;
    out->arms.v = lvd_xcalloc(cap, sizeof *out->arms.v);
    out->backend = lvd_xcalloc(cap, sizeof *out->backend);
    out->device = lvd_xcalloc(cap, sizeof *out->device);
    for (size_t i = 0; i < n_engines; i++) {
        if (strcmp(engines[i].build, build))
            continue;
        lvd_probe probe;
        int rc = store_probe_latest(s, engines[i].id, &probe, err);
        if (rc < 0)
            return -1;
        for (size_t k = 0; k < all->n; k++) {
            sel_arm *a = &all->v[k];
            if (a->engine_id != engines[i].id || !a->arm_key)
                continue;
            size_t w = out->arms.n++;
            out->arms.v[w] = *a;
            memset(a, 0, sizeof *a);
            sel_backend_label(rc == 0 ? &probe : NULL, out->arms.v[w].backends, out->backend[w],
                              sizeof out->backend[0]);
            engine_check_device(rc == 0 ? &probe : NULL, &out->arms.v[w].params, out->device[w],
                                sizeof out->device[0]);
        }
        if (rc == 0)
            lvd_probe_free(&probe);
    }
    return 0;
}

/* Both builds' arms on host that may pair, read in one pass. 0 or -1. */
static int load_sides(store *s, const lvd_engine *engines, size_t n_engines, const char *pinned,
                      const char *candidate, const char *host, side *ps, side *cs, lvd_err *err)
{
    pair_pick pp = {engines, n_engines, pinned, candidate};
    sel_armset all;
    if (sel_armset_load_picked(s, NULL, host, 0, NULL, pick_pairs, &pp, &all, err) != 0)
        return -1;
    int rc = take_side(s, engines, n_engines, pinned, &all, ps, err);
    if (rc == 0)
        rc = take_side(s, engines, n_engines, candidate, &all, cs, err);
    sel_armset_free(&all);
    return rc;
}

static void side_free(side *x)
{
    sel_armset_free(&x->arms);
    free(x->backend);
    free(x->device);
}

static int pair_tests(sel_pin_eval *e, const sel_arm *p, const sel_arm *c, const char *backend,
                      lvd_err *err)
{
    for (size_t t = 0; t < p->n_series; t++) {
        const sel_series *ps = &p->series[t];
        const sel_series *cs = sel_arm_series(c, ps->test);
        if (!cs || !ps->n || !cs->n)
            continue;
        if (sel_pin_add_pair(e, p->artifact, backend, p->arm_key, &c->params, ps->test, p->engine_id,
                             c->engine_id, cs->ts, cs->n, ps->ts, ps->n, err) != 0)
            return -1;
        e->pairs[e->n_pairs - 1].pinned_warmup = ps->n_warmup;
        e->pairs[e->n_pairs - 1].candidate_warmup = cs->n_warmup;
        e->pairs[e->n_pairs - 1].pinned_tpj = ps->n_tpj ? stats_median(ps->tpj, ps->n_tpj) : NAN;
        e->pairs[e->n_pairs - 1].candidate_tpj = cs->n_tpj ? stats_median(cs->tpj, cs->n_tpj) : NAN;
    }
    return 0;
}

/* "PPL ratio 1.3100, KLD 0.520000" or the check's reason. */
static char *check_what(const lvd_check *c)
{
    lvd_sb sb = {0};
    if (isfinite(c->ppl_ratio))
        lvd_sb_addf(&sb, "PPL ratio %.4f", c->ppl_ratio);
    if (isfinite(c->mean_kld))
        lvd_sb_addf(&sb, "%sKLD %.6f", sb.len ? ", " : "", c->mean_kld);
    if (c->reason && *c->reason)
        lvd_sb_addf(&sb, "%s%s", sb.len ? ", " : "", c->reason);
    return lvd_sb_detach(&sb);
}

static int check_ok(const char *status)
{
    return !strcmp(status, "pass") || !strcmp(status, "base");
}

/* Rule 2 for one pair of arms, whose checks are under devices pdev and cdev. */
static int check_pair(store *s, sel_pin_eval *e, const sel_arm *p, const char *pdev, const sel_arm *c,
                      const char *cdev, const char *backend, const char *host, lvd_err *err)
{
    for (size_t i = 0; i < e->n_issues; i++)
        if (!strcmp(e->issues[i].kind, "check") && !strcmp(e->issues[i].artifact, c->artifact) &&
            !strcmp(e->issues[i].device, c->params.device) && !strcmp(e->issues[i].backend, backend))
            return 0;
    lvd_check cc, pc;
    int rc = store_check_latest(s, c->artifact, host, c->engine_id, cdev, &cc, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (!check_ok(cc.status)) {
            char *what = check_what(&cc);
            sel_pin_add_issue(e, c->artifact, backend, c->params.device, "check", cc.status, what);
            free(what);
        }
        lvd_check_free(&cc);
        return 0;
    }
    rc = store_check_latest(s, p->artifact, host, p->engine_id, pdev, &pc, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (check_ok(pc.status))
            sel_pin_add_issue(e, c->artifact, backend, c->params.device, "check", "missing",
                              "no check of the candidate");
        lvd_check_free(&pc);
    }
    return 0;
}

/* Reads a previous decision's would_promote and sessions (pin.h). */
void sel_pin_read_prev(const lvd_pin_decision *d, sel_pin_eval *e)
{
    e->has_prev = 1;
    e->prev_decided_at = d->decided_at;
    cJSON *j = d->details_json ? cJSON_Parse(d->details_json) : NULL;
    e->prev_would_promote = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "would_promote")) ||
                            (d->decision && !strcmp(d->decision, "promote"));
    const cJSON *ss = cJSON_GetObjectItemCaseSensitive(j, "sessions");
    size_t n = 0;
    int same = cJSON_IsArray(ss) && e->n_sessions > 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, ss)
    {
        if (!cJSON_IsString(it) || n >= e->n_sessions || strcmp(it->valuestring, e->sessions[n]))
            same = 0;
        n++;
    }
    e->prev_same_sessions = same && n == e->n_sessions;
    cJSON_Delete(j);
}

int sel_pin_gather(store *s, const builds_pin *pin, const sel_pin_opts *o, sel_pin_eval *e,
                   lvd_err *err)
{
    const char *host = o->host ? o->host : lvd_hostname();
    lvd_engine *engines;
    size_t n_engines;
    if (store_engine_list_host(s, host, &engines, &n_engines, err) != 0)
        return -1;
    /* a pin naming a SemVer release (v0.4.1) is the build fetched as it */
    char resolved[64];
    const char *pinned = builds_resolve(builds_pin_build(pin), engines, n_engines, resolved, sizeof resolved)
                             ? resolved
                             : builds_pin_build(pin);
    const char *candidate = o->candidate ? o->candidate : newest_candidate(engines, n_engines, pinned);
    sel_pin_eval_init(e, pinned, candidate, builds_pin_flavour(pin, 0));
    int ret = -1;
    side ps = {0}, cs = {0};
    if (!candidate) {
        ret = 0;
        goto out;
    }
    const lvd_engine *fe = sel_pin_fetched_engine(engines, n_engines, candidate, e->flavour);
    if (fe)
        e->candidate_digest = lvd_xstrdup(fe->digest);
    for (size_t i = 0; i < n_engines && !e->candidate_local; i++)
        if (!strcmp(engines[i].build, candidate) && (!engines[i].origin || strcmp(engines[i].origin, "fetched")))
            e->candidate_local = lvd_xstrdup(engines[i].name);
    if (load_sides(s, engines, n_engines, pinned, candidate, host, &ps, &cs, err) != 0)
        goto out;
    for (size_t i = 0; i < ps.arms.n; i++) {
        const sel_arm *p = &ps.arms.v[i];
        if (strcmp(p->status, "ok"))
            continue; /* nothing to hold the candidate against */
        for (size_t k = 0; k < cs.arms.n; k++) {
            const sel_arm *c = &cs.arms.v[k];
            if (strcmp(p->artifact, c->artifact) || strcmp(ps.backend[i], cs.backend[k]) ||
                strcmp(p->arm_key, c->arm_key))
                continue;
            if (check_pair(s, e, p, ps.device[i], c, cs.device[k], cs.backend[k], host, err) != 0)
                goto out;
            sel_pin_add_session(e, p->session);
            sel_pin_add_session(e, c->session);
            if (strcmp(c->status, "ok")) {
                sel_pin_add_issue(e, c->artifact, cs.backend[k], c->params.device, "run", c->status,
                                  c->reason);
                continue;
            }
            if (pair_tests(e, p, c, cs.backend[k], err) != 0)
                goto out;
        }
    }
    lvd_pin_decision prev;
    int has_prev = store_pin_decision_latest(s, pinned, candidate, &prev, err);
    if (has_prev < 0)
        goto out;
    if (has_prev == 0) {
        sel_pin_read_prev(&prev, e);
        lvd_pin_decision_free(&prev);
    }
    ret = 0;
out:
    side_free(&ps);
    side_free(&cs);
    store_engine_list_free(engines, n_engines);
    if (ret != 0)
        sel_pin_eval_free(e);
    return ret;
}
