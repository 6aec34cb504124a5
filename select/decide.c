/* decide.c: the selection order (see decide.h) over the gathered facts,
 * and the explain line of each rule it consults. Reads no store and no file:
 * the facts are the gather step's (gather.c). Not for the launch line
 * (place.c) nor for computing verdicts (verdict.c). */
#include "select/decide.h"

#include "common/cli.h"
#include "engine/devices.h"
#include "select/heuristic.h"
#include "select/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sel_by_name(sel_by by)
{
    switch (by) {
    case SEL_BY_PROFILE: return "profile";
    case SEL_BY_VERDICT: return "verdict";
    case SEL_BY_HEURISTIC: return "heuristic";
    case SEL_BY_FIRST: return "first-engine";
    case SEL_BY_CPU: return "cpu-engine";
    case SEL_BY_NONE: break;
    }
    return "none";
}

/* A failed or errored check: the device is left out (rules 3-4) or warned of (rule 1). */
static int check_failed(const sel_check_seen *c)
{
    return !strcmp(c->status, "fail") || !strcmp(c->status, "error");
}

static void skipped_engines(const sel_facts *f, sel_explain *x)
{
    for (size_t i = 0; i < f->es.n; i++)
        if (!sel_engine_usable(&f->es.v[i]))
            sel_say(x, "engine %s is not offered: %s", f->es.v[i].e.name, f->es.v[i].why);
}

/* --- rule 1: the profile ------------------------------------------------ */

/* The operator wins even over a failed check, but the explanation says so. */
static void rule_profile(const sel_facts *f, const sel_profile *p, sel_decision *d, sel_explain *x)
{
    const sel_pick *pk = &f->profile_pick;
    const sel_check_seen *c = &f->profile_check;
    d->by = SEL_BY_PROFILE;
    d->pick = *pk;
    sel_say(x, "rule 1 (profile): decided: %s names %s%s%s%s", p->file, p->engine ? "engine " : "",
            p->engine ? p->engine : "", p->backend[0] ? (p->engine ? ", backend " : "backend ") : "", p->backend);
    if (p->device[0])
        sel_say(x, "rule 1 (profile): device %s, shown by %s's cached probe", p->device, pk->eng->e.name);
    if (pk->dev && check_failed(c))
        sel_say(x, "rule 1 (profile): warning: %s %s's correctness check for this model says %s%s%s; used"
                " because the profile says so", pk->eng->e.name, pk->dev->selector, c->status,
                c->reason ? ": " : "", c->reason ? c->reason : "");
}

/* --- rule 2: the verdict ------------------------------------------------ */

/* The line of a verdict that does not decide: where it stands. */
static void say_standing(const sel_verdict_facts *vf, const char *label, sel_explain *x)
{
    const lvd_verdict *v = &vf->v;
    const sel_engine *e = vf->pick.eng;
    const sel_check_seen *c = &vf->check;
    switch (vf->standing) {
    case SEL_STANDING_NO_ARM:
        sel_say(x, "rule 2 (verdict): %s recommends no arm: %s", label, v->explain ? v->explain : "");
        break;
    case SEL_STANDING_STALE:
        sel_say(x, "rule 2 (verdict): %s is stale: %s", label, vf->why);
        break;
    case SEL_STANDING_CANNOT_SERVE:
        sel_say(x, "rule 2 (verdict): %s chose engine %lld, which cannot serve: %s", label,
                (long long)v->engine_id, e ? e->why : "not registered");
        break;
    case SEL_STANDING_DEVICE_GONE:
        sel_say(x, "rule 2 (verdict): %s chose device %s, which %s's probe no longer shows", label,
                v->params.device, e->e.name);
        break;
    case SEL_STANDING_NOT_VISIBLE:
        sel_say(x, "rule 2 (verdict): %s chose %s %s, %s: not used", label, e->e.name, vf->pick.dev->selector,
                vf->why);
        break;
    case SEL_STANDING_UNCHECKED:
        if (strcmp(c->status, "none") == 0)
            sel_say(x, "rule 2 (verdict): %s chose %s %s, which has no correctness check for this model: not"
                    " used", label, e->e.name, vf->check_device);
        else
            sel_say(x, "rule 2 (verdict): %s chose %s %s, whose newest correctness check says %s%s%s: not"
                    " used", label, e->e.name, vf->check_device, c->status, c->reason ? ": " : "",
                    c->reason ? c->reason : "");
        break;
    case SEL_STANDING_NONE:
    case SEL_STANDING_HOLDS:
        break;
    }
}

/* 1 with d filled when the verdict decides, else 0; either way explained. */
static int rule_verdict(const sel_facts *f, sel_decision *d, sel_explain *x)
{
    const sel_verdict_facts *vf = &f->verdict;
    const lvd_verdict *v = &vf->v;
    char label[96];
    if (!vf->found) {
        sel_say(x, "rule 2 (verdict): no verdict for this model on %s, objective %s (run lvd bench, then lvd"
                " select --record)", f->host, vf->objective);
        return 0;
    }
    snprintf(label, sizeof label, "verdict #%lld (%s, objective %s)", (long long)v->id, v->rule ? v->rule : "?",
             v->objective ? v->objective : "?");
    if (vf->env)
        sel_say(x, "rule 2 (verdict): its arm runs with %s: the probes made under it are used", vf->env);
    if (vf->standing != SEL_STANDING_HOLDS) {
        say_standing(vf, label, x);
        return 0;
    }
    sel_say(x, "rule 2 (verdict): decided: %s, engines unchanged, check %s: %s", label, vf->check.status,
            v->explain ? v->explain : "");
    *d = (sel_decision){.by = SEL_BY_VERDICT, .pick = vf->pick, .verdict = v, .depth = vf->depth};
    return 1;
}

/* --- rules 3 and 4: heuristic and first engine ------------------------- */

typedef struct keep_ctx {
    const sel_facts *f;
    sel_explain *x;
} keep_ctx;

/* Leaves out devices whose newest check for the model failed or errored. */
static int keep_checked(void *vp, const sel_engine *e, const lvd_device *d)
{
    keep_ctx *k = vp;
    const sel_check_seen *c = d ? sel_facts_dev_check(k->f, e, d) : NULL;
    if (!c || !check_failed(c))
        return 1;
    sel_say(k->x, "rules 3-4: %s %s left out: its correctness check says %s%s%s", e->e.name, d->selector,
            c->status, c->reason ? ": " : "", c->reason ? c->reason : "");
    return 0;
}

/* The engine's own record of a candidate's device. */
static sel_pick pick_of(const sel_facts *f, const sel_candidate *cand, const char *selector)
{
    const sel_engine *e = sel_engines_find(&f->es, cand->engine_id);
    return (sel_pick){e, selector && *selector ? sel_engine_device(e, selector) : NULL};
}

static int no_engine(const sel_facts *f, lvd_err *err)
{
    if (f->es.n == 0) {
        lvd_errf(err, "no engine is registered (" LVD_REGISTER_HINT ")");
        return LVD_EXIT_FAIL;
    }
    lvd_sb sb = {0};
    for (size_t i = 0; i < f->es.n; i++)
        lvd_sb_addf(&sb, "%s%s: %s", i ? "; " : "", f->es.v[i].e.name,
                    sel_engine_usable(&f->es.v[i]) ? "every device failed its check" : f->es.v[i].why);
    lvd_errf(err, "no engine can serve this model: %s", lvd_sb_str(&sb));
    lvd_sb_free(&sb);
    return LVD_EXIT_FAIL;
}

/* The first device of a candidate that is not a software rasterizer; NULL when none. */
static const lvd_device *first_offload(const sel_candidate *cand)
{
    for (size_t j = 0; j < cand->n_devices; j++)
        if (!engine_device_is_software(cand->devices[j].name))
            return &cand->devices[j];
    return NULL;
}

/* Rule 4: the first engine listing a device that is no software rasterizer;
 * else the CPU engine; else the first engine listing only software devices,
 * run on the CPU (-ngl 0, no --device). d->by stays SEL_BY_NONE when no engine. */
static void rule_first(const sel_facts *f, const sel_candidate *cands, size_t n, sel_decision *d, sel_explain *x)
{
    for (size_t i = 0; i < n && d->by == SEL_BY_NONE; i++) {
        const lvd_device *dev = first_offload(&cands[i]);
        if (!dev)
            continue;
        *d = (sel_decision){.by = SEL_BY_FIRST, .pick = pick_of(f, &cands[i], dev->selector)};
        sel_say(x, "rule 4 (first engine): decided: %s, the first engine listing a device: %s (%s)", cands[i].name,
                d->pick.dev->selector, d->pick.dev->name);
    }
    int software = 0; /* a candidate lists a device: then all of them are software */
    for (size_t i = 0; i < n; i++)
        software |= cands[i].n_devices > 0;
    for (size_t i = 0; i < n && d->by == SEL_BY_NONE; i++)
        if (strcmp(cands[i].backend, LVD_BACKEND_CPU) == 0) {
            *d = (sel_decision){.by = SEL_BY_CPU, .pick = pick_of(f, &cands[i], NULL)};
            sel_say(x, "rule 4 (first engine): decided: no engine lists a device%s; %s, a CPU engine",
                    software ? " that is no software rasterizer" : "", cands[i].name);
        }
    for (size_t i = 0; i < n && d->by == SEL_BY_NONE; i++)
        if (cands[i].n_devices > 0) {
            char label[32];
            sel_device_label(&cands[i].devices[0], label, sizeof label);
            *d = (sel_decision){.by = SEL_BY_CPU, .pick = pick_of(f, &cands[i], NULL)};
            sel_say(x, "rule 4 (first engine): decided: %s on the CPU (-ngl 0, no --device): its only devices are"
                    " software rasterizers (%s: %s, %s), no accelerator, and no CPU engine is registered",
                    cands[i].name, cands[i].devices[0].selector, cands[i].devices[0].name, label);
        }
}

/* Rules 3 and 4. The exit code: OK with d, or FAIL (no engine at all). */
static int rule_heuristic_first(const sel_facts *f, sel_decision *d, sel_explain *x, lvd_err *err)
{
    sel_candidate *cands = lvd_xcalloc(f->es.n ? f->es.n : 1, sizeof *cands);
    size_t nd = sel_engines_device_count(&f->es);
    lvd_device *devs = lvd_xcalloc(nd ? nd : 1, sizeof *devs);
    keep_ctx k = {.f = f, .x = x};
    size_t n = sel_engines_candidates(&f->es, 1, keep_checked, &k, cands, devs);
    sel_choice ch;
    int code = LVD_EXIT_OK;
    if (sel_heuristic(cands, n, &ch)) {
        sel_say(x, "rule 3 (heuristic): decided: %s", ch.reason);
        *d = (sel_decision){.by = SEL_BY_HEURISTIC, .pick = pick_of(f, &cands[ch.candidate], ch.selector)};
    } else {
        sel_say(x, "rule 3 (heuristic): no answer: %s", ch.reason);
        rule_first(f, cands, n, d, x);
        if (d->by == SEL_BY_NONE)
            code = no_engine(f, err);
    }
    free(cands);
    free(devs);
    return code;
}

/* --- the order ---------------------------------------------------------- */

int sel_decide(const sel_facts *f, const sel_request *rq, sel_decision *d, sel_explain *x, lvd_err *err)
{
    const sel_profile *p = rq->profile;
    memset(d, 0, sizeof *d);
    skipped_engines(f, x);
    if (f->profile_decides) {
        rule_profile(f, p, d, x);
        return LVD_EXIT_OK;
    }
    if (p)
        sel_say(x, "rule 1 (profile): %s names no engine, backend or device: its flags apply to the choice"
                " below", p->file);
    else
        sel_say(x, "rule 1 (profile): no profile");
    if (rule_verdict(f, d, x))
        return LVD_EXIT_OK;
    return rule_heuristic_first(f, d, x, err);
}
