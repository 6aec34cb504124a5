/* gather.c: the selection's gather step (see gather.h): the store reads and
 * file checks the decision and the launch line need, each once, in the
 * order of the rules that weigh them. Words no explain line and chooses
 * nothing: where a verdict stands is recorded as a sel_standing for the
 * decide step to word. Not for the rules (decide.c) nor for computing
 * verdicts (verdict.c). */
#include "select/gather.h"

#include "common/cli.h"
#include "engine/devices.h"
#include "placement/correction.h"
#include "select/ceiling.h"
#include "select/choice.h"
#include "select/profile.h"
#include "select/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The newest check of (engine_id, device) for the model on the host. */
static int read_check(store *s, const sel_facts *f, int64_t engine_id, const char *device, sel_check_seen *out,
                      lvd_err *err)
{
    return sel_check_status(s, f->artifact->sha256, f->host, engine_id, device, out->status, &out->reason, err);
}

static void check_seen_free(sel_check_seen *c)
{
    free(c->reason);
    memset(c, 0, sizeof *c);
}

/* --- rule 1: what the profile names ------------------------------------- */

static int gather_profile(store *s, const sel_profile *p, sel_facts *f, lvd_err *err)
{
    f->profile_decides = 1;
    if (sel_profile_resolve(p, &f->es, &f->profile_pick, err) != 0)
        return LVD_EXIT_INPUT;
    const lvd_device *d = f->profile_pick.dev;
    if (d && read_check(s, f, f->profile_pick.eng->e.id, d->selector, &f->profile_check, err) != 0)
        return LVD_EXIT_STORE;
    return LVD_EXIT_OK;
}

/* --- rule 2: where the verdict stands ----------------------------------- */

/* The engines as a server launched with the verdict's environment (its
 * arm's NAME=VALUE words; the profile's win) sees them: f->es, or the
 * verdict's own ves when that environment differs. NULL on a store error. */
static const sel_engines *verdict_engines(store *s, const sel_profile *p, sel_facts *f, lvd_err *err)
{
    sel_verdict_facts *vf = &f->verdict;
    char *env = sel_env_with(f->es.env, vf->v.params.env, p ? p->env : NULL);
    if (strcmp(env, f->es.env) == 0) {
        free(env);
        return &f->es;
    }
    vf->env = env;
    return sel_engines_load_env(s, env, &vf->ves, err) == 0 ? &vf->ves : NULL;
}

/* Judges the verdict against engines es in the order of sel_standing,
 * reading its device's check last. 0, or -1 when the store failed. */
static int judge_verdict(store *s, sel_facts *f, const sel_engines *es, lvd_err *err)
{
    sel_verdict_facts *vf = &f->verdict;
    const lvd_verdict *v = &vf->v;
    const sel_engine *e = sel_engines_find(es, v->engine_id);
    vf->pick.eng = e;
    if (v->engine_id == 0)
        vf->standing = SEL_STANDING_NO_ARM;
    else if (sel_fingerprint_valid(es, v->fingerprint, vf->why, sizeof vf->why) != 1)
        vf->standing = SEL_STANDING_STALE;
    else if (!e || !sel_engine_usable(e))
        vf->standing = SEL_STANDING_CANNOT_SERVE;
    else if (sel_arm_device(e, &v->params, &vf->pick.dev) != 0)
        vf->standing = SEL_STANDING_DEVICE_GONE;
    else if (!sel_visibility_holds(es, v->params.env, vf->pick.dev, vf->why, sizeof vf->why))
        vf->standing = SEL_STANDING_NOT_VISIBLE;
    else {
        engine_check_device(&e->probe, &v->params, vf->check_device, sizeof vf->check_device);
        if (read_check(s, f, e->e.id, vf->check_device, &vf->check, err) != 0)
            return -1;
        vf->standing = sel_check_admits(vf->check.status) ? SEL_STANDING_HOLDS : SEL_STANDING_UNCHECKED;
    }
    return 0;
}

/* The serving depth of a verdict that decides: recorded with it, else (a
 * verdict from before schema 18) its arm's newest session's. */
static int verdict_depth(store *s, const sel_facts *f, int *depth, lvd_err *err)
{
    const lvd_verdict *v = &f->verdict.v;
    char backends[64];
    *depth = v->depth;
    if (*depth >= 0)
        return 0;
    return sel_arm_measured(s, f->artifact->sha256, v->host, v->engine_id, v->arm_key, backends,
                            sizeof backends, depth, err);
}

static int gather_verdict(store *s, const sel_request *rq, sel_facts *f, lvd_err *err)
{
    sel_verdict_facts *vf = &f->verdict;
    stats_objective_name(&rq->objective, vf->objective, sizeof vf->objective);
    int rc = store_verdict_latest(s, f->artifact->sha256, f->host, vf->objective, &vf->v, err);
    if (rc != 0)
        return rc < 0 ? LVD_EXIT_STORE : LVD_EXIT_OK; /* 1: none (SEL_STANDING_NONE) */
    vf->found = 1;
    const sel_engines *es = verdict_engines(s, rq->profile, f, err);
    if (!es || judge_verdict(s, f, es, err) != 0)
        return LVD_EXIT_STORE;
    if (vf->standing == SEL_STANDING_HOLDS && verdict_depth(s, f, &vf->depth, err) != 0)
        return LVD_EXIT_STORE;
    return LVD_EXIT_OK;
}

/* --- rules 3 and 4: the checks of every device they weigh -------------- */

const sel_check_seen *sel_facts_dev_check(const sel_facts *f, const sel_engine *e, const lvd_device *d)
{
    if (!f->dev_checks)
        return NULL;
    size_t k = (size_t)(d - e->probe.devices);
    for (const sel_engine *o = f->es.v; o < e; o++)
        k += o->probe.n_devices;
    return f->dev_checks[k].status[0] ? &f->dev_checks[k] : NULL;
}

static int gather_dev_checks(store *s, sel_facts *f, lvd_err *err)
{
    size_t k = 0;
    f->dev_checks = lvd_xcalloc(sel_engines_device_count(&f->es) + 1, sizeof *f->dev_checks);
    for (size_t i = 0; i < f->es.n; i++) {
        const sel_engine *e = &f->es.v[i];
        for (size_t j = 0; j < e->probe.n_devices; j++, k++)
            if (sel_engine_usable(e) &&
                read_check(s, f, e->e.id, e->probe.devices[j].selector, &f->dev_checks[k], err) != 0)
                return LVD_EXIT_STORE;
    }
    return LVD_EXIT_OK;
}

/* --- the gather --------------------------------------------------------- */

/* The rules' facts: the profile's, else the verdict's, else the devices'. */
static int gather_rules(store *s, const sel_request *rq, sel_facts *f, lvd_err *err)
{
    if (sel_profile_decides(rq->profile))
        return gather_profile(s, rq->profile, f, err);
    int code = gather_verdict(s, rq, f, err);
    if (code == LVD_EXIT_OK && f->verdict.standing != SEL_STANDING_HOLDS)
        code = gather_dev_checks(s, f, err);
    return code;
}

/* The launch line's facts: the ceilings when a context is asked, the allocation rows. */
static int gather_launch(store *s, const sel_request *rq, sel_facts *f, lvd_err *err)
{
    if (sel_ceiling_weighed(rq->ctx, rq->profile, f->artifact) &&
        store_ceiling_list(s, f->artifact->sha256, f->host, &f->ceilings, &f->n_ceilings, err) != 0)
        return LVD_EXIT_STORE;
    if (store_alloc_rows(s, PLACEMENT_CORRECTION_WINDOW, &f->alloc_rows, &f->n_alloc_rows, err) != 0)
        return LVD_EXIT_STORE;
    if (store_fitprint_list(s, f->artifact->sha256, f->host, &f->fitprints, &f->n_fitprints, err) != 0)
        return LVD_EXIT_STORE;
    return LVD_EXIT_OK;
}

int sel_gather(store *s, const store_artifact *a, const sel_request *rq, sel_facts *f, lvd_err *err)
{
    memset(f, 0, sizeof *f);
    f->artifact = a;
    f->host = rq->host ? rq->host : lvd_hostname();
    f->model = realpath(rq->model, NULL);
    if (!f->model) {
        lvd_errf(err, "%s: %s", rq->model, strerror(errno));
        return LVD_EXIT_INPUT;
    }
    char *env = sel_env_with(NULL, rq->profile ? rq->profile->env : NULL, NULL);
    int loaded = sel_engines_load_env(s, env, &f->es, err);
    free(env);
    if (loaded != 0)
        return LVD_EXIT_STORE;
    int code = gather_rules(s, rq, f, err);
    return code == LVD_EXIT_OK ? gather_launch(s, rq, f, err) : code;
}

void sel_facts_free(sel_facts *f)
{
    size_t nd = sel_engines_device_count(&f->es);
    for (size_t k = 0; f->dev_checks && k < nd; k++)
        check_seen_free(&f->dev_checks[k]);
    free(f->dev_checks);
    sel_verdict_facts *vf = &f->verdict;
    if (vf->found)
        lvd_verdict_free(&vf->v);
    if (vf->env)
        sel_engines_free(&vf->ves);
    free(vf->env);
    check_seen_free(&vf->check);
    check_seen_free(&f->profile_check);
    store_ceiling_list_free(f->ceilings, f->n_ceilings);
    free(f->alloc_rows);
    store_fitprint_list_free(f->fitprints, f->n_fitprints);
    sel_engines_free(&f->es);
    free(f->model);
    memset(f, 0, sizeof *f);
}
