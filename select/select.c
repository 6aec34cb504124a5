/* select.c: the selection order at service start (see select.h): profile,
 * verdict, heuristic, first engine; then the result of the pick (select_finish.c).
 * Reads the store and stats files; spawns nothing and prints nothing (the
 * explain lines go to the caller). Not for computing verdicts (verdict.c)
 * or for the result as JSON (select_json.c), nor for assembling the launch
 * line (choice.c, sel_choice_lines_build). */
#include "select/select.h"
#include "select/select_internal.h"

#include "common/cli.h"
#include "select/choice.h"
#include "select/engines.h"
#include "select/heuristic.h"
#include "select/verdict.h"
#include "store/identify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sel_request_init(sel_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->ctx = -1;
    rq->free_mib = -1;
    stats_objective_default(&rq->objective);
}

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

/* --- opening and identifying ------------------------------------------- */

int sel_open_identify(const char *store_path, const char *model, int writable, store **s,
                      store_artifact *artifact, int *exit_code, lvd_err *err)
{
    *s = NULL;
    memset(artifact, 0, sizeof *artifact);
    *exit_code = LVD_EXIT_STORE;
    if (store_open(store_path, writable ? 0 : STORE_OPEN_READONLY, s, err) != 0)
        return -1;
    int rc = writable ? 1 : store_identify_cached(*s, model, artifact, err);
    if (rc == 1) {
        /* new or changed model: hash it into a writable store */
        if (!writable) {
            store_close(*s);
            if (store_open(store_path, 0, s, err) != 0) {
                *s = NULL;
                return -1;
            }
        }
        rc = store_identify(*s, model, 0, artifact, NULL, err);
    }
    if (rc != 0) {
        *exit_code = LVD_EXIT_INPUT;
        store_close(*s);
        *s = NULL;
        return -1;
    }
    return 0;
}

/* --- rule 1: the profile ------------------------------------------------ */

/* The first device (of e, or of every usable engine when e is NULL) that
 * matches the profile's device and backend, or 0 when none. */
static int profile_match(const sel_engines *es, const sel_engine *only, const sel_profile *p,
                         pick *out)
{
    for (size_t i = 0; i < es->n; i++) {
        const sel_engine *e = &es->v[i];
        if ((only && e != only) || !sel_engine_usable(e))
            continue;
        for (size_t j = 0; j < e->probe.n_devices; j++) {
            const lvd_device *d = &e->probe.devices[j];
            char backend[64];
            sel_device_backend(d, backend, sizeof backend);
            if ((p->device[0] && strcmp(d->selector, p->device) != 0) ||
                (p->backend[0] && strcmp(backend, p->backend) != 0))
                continue;
            *out = (pick){e, d};
            return 1;
        }
    }
    return 0;
}

/* The CPU choice a profile's "backend = cpu" means: the named engine, else
 * the first usable engine whose probe lists no device. */
static int profile_cpu(const sel_engines *es, const sel_engine *only, pick *out)
{
    for (size_t i = 0; i < es->n && !only; i++)
        if (sel_engine_usable(&es->v[i]) && es->v[i].probe.n_devices == 0)
            only = &es->v[i];
    *out = (pick){only, NULL};
    return only != NULL;
}

static int resolve_profile(ctx *c, pick *out, lvd_err *err)
{
    const sel_profile *p = c->rq->profile;
    const sel_engine *only = NULL;
    if (p->engine) {
        only = sel_engines_by_name(&c->es, p->engine);
        if (!only)
            return lvd_errf(err, "%s:%d: engine '%s' is not registered (see lvd store engines)",
                            p->file, p->line_engine, p->engine);
        if (!sel_engine_usable(only))
            return lvd_errf(err, "%s:%d: engine %s cannot serve: %s", p->file, p->line_engine,
                            p->engine, only->why);
    }
    int is_cpu = strcmp(p->backend, LVD_BACKEND_CPU) == 0;
    if (is_cpu && p->device[0])
        return lvd_errf(err, "%s:%d: device %s with backend = cpu: a CPU run has no device",
                        p->file, p->line_device, p->device);
    if (is_cpu) {
        if (!profile_cpu(&c->es, only, out))
            return lvd_errf(err, "%s:%d: backend = cpu, but no usable engine is a CPU build"
                            " (a probe with no devices); name one with engine =",
                            p->file, p->line_backend);
        return 0;
    }
    if (profile_match(&c->es, only, p, out))
        return 0;
    if (only && !p->device[0] && !p->backend[0] && only->probe.n_devices == 0) {
        *out = (pick){only, NULL}; /* engine = a CPU build */
        return 0;
    }
    char shown[512], want[160];
    int line = p->device[0] ? p->line_device : p->line_backend;
    if (p->device[0] && p->backend[0])
        snprintf(want, sizeof want, "device %s under backend %s", p->device, p->backend);
    else if (p->device[0])
        snprintf(want, sizeof want, "device %s", p->device);
    else
        snprintf(want, sizeof want, "%s device", p->backend);
    if (only) {
        sel_engine_selectors(only, shown, sizeof shown);
        return lvd_errf(err, "%s:%d: engine %s's probe shows no %s (it shows: %s)", p->file, line,
                        p->engine, want, shown);
    }
    return lvd_errf(err, "%s:%d: no usable engine's probe shows a %s (run lvd probe; selectors"
                    " are copied from its output)", p->file, line, want);
}

/* The operator wins even over a failed check, but the explanation says so. */
static int profile_check_warning(ctx *c, const pick *pk, lvd_err *err)
{
    char status[8];
    char *reason = NULL;
    if (!pk->dev)
        return 0;
    if (sel_check_status(c->s, c->a->sha256, c->host, pk->eng->e.id, pk->dev->selector, status,
                         &reason, err) != 0)
        return -1;
    if (strcmp(status, "fail") == 0 || strcmp(status, "error") == 0)
        sel_say(c->out, "rule 1 (profile): warning: %s %s's correctness check for this model says"
            " %s%s%s; used because the profile says so", pk->eng->e.name, pk->dev->selector,
            status, reason ? ": " : "", reason ? reason : "");
    free(reason);
    return 0;
}

/* --- rule 2: the verdict ------------------------------------------------ */

static void verdict_label(const lvd_verdict *v, char *buf, size_t len)
{
    snprintf(buf, len, "verdict #%lld (%s, objective %s)", (long long)v->id, v->rule ? v->rule : "?",
             v->objective ? v->objective : "?");
}

/* The newest check of engine e's device for parameters p (dev gets the
 * device it is looked up under: engine_check_device). 0 or -1 (store). */
static int arm_check(const ctx *c, const sel_engine *e, const lvd_params *p, char *dev, size_t len,
                     char status[8], char **reason, lvd_err *err)
{
    engine_check_device(&e->probe, p, dev, len);
    return sel_check_status(c->s, c->a->sha256, c->host, e->e.id, dev, status, reason, err);
}

/* The engines as a server launched with verdict v's environment (its arm's
 * NAME=VALUE words, carried by the line; the profile's win) sees them: c->es,
 * or c->ves when that environment differs. NULL on a store error. */
static const sel_engines *verdict_engines(ctx *c, const lvd_verdict *v, lvd_err *err)
{
    char *env = sel_env_with(c->es.env, v->params.env, c->rq->profile ? c->rq->profile->env : NULL);
    const sel_engines *es = &c->es;
    if (strcmp(env, c->es.env) != 0) {
        es = sel_engines_load_env(c->s, env, &c->ves, err) == 0 ? &c->ves : NULL;
        c->have_ves = es != NULL;
        if (es)
            sel_say(c->out, "rule 2 (verdict): its arm runs with %s: the probes made under it are used", env);
    }
    free(env);
    return es;
}

/* 1 with *out when the newest verdict holds, 0 when not (explained), -1 on a store error. */
static int rule_verdict(ctx *c, pick *out, lvd_err *err)
{
    char obj[16], label[96], why[512];
    stats_objective_name(&c->rq->objective, obj, sizeof obj);
    lvd_verdict *v = &c->verdict;
    int rc = store_verdict_latest(c->s, c->a->sha256, c->host, obj, v, err);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        sel_say(c->out, "rule 2 (verdict): no verdict for this model on %s, objective %s (run lvd"
            " bench, then lvd select --record)", c->host, obj);
        return 0;
    }
    verdict_label(v, label, sizeof label);
    const sel_engines *es = verdict_engines(c, v, err);
    if (!es) {
        lvd_verdict_free(v);
        return -1;
    }
    const sel_engine *e = sel_engines_find(es, v->engine_id);
    const lvd_device *d = NULL;
    char status[8] = "", dev[64] = "";
    char *reason = NULL;
    rc = 0;
    if (v->engine_id == 0) {
        sel_say(c->out, "rule 2 (verdict): %s recommends no arm: %s", label, v->explain ? v->explain : "");
    } else if (sel_fingerprint_valid(es, v->fingerprint, why, sizeof why) != 1) {
        sel_say(c->out, "rule 2 (verdict): %s is stale: %s", label, why);
    } else if (!e || !sel_engine_usable(e)) {
        sel_say(c->out, "rule 2 (verdict): %s chose engine %lld, which cannot serve: %s", label,
            (long long)v->engine_id, e ? e->why : "not registered");
    } else if (sel_arm_device(e, &v->params, &d) != 0) {
        sel_say(c->out, "rule 2 (verdict): %s chose device %s, which %s's probe no longer shows",
            label, v->params.device, e->e.name);
    } else if (!sel_visibility_holds(es, v->params.env, d, why, sizeof why)) {
        sel_say(c->out, "rule 2 (verdict): %s chose %s %s, %s: not used", label, e->e.name, d->selector, why);
    } else if (arm_check(c, e, &v->params, dev, sizeof dev, status, &reason, err) != 0) {
        rc = -1;
    } else if (!sel_check_admits(status)) {
        if (strcmp(status, "none") == 0)
            sel_say(c->out, "rule 2 (verdict): %s chose %s %s, which has no correctness check for"
                " this model: not used", label, e->e.name, dev);
        else
            sel_say(c->out, "rule 2 (verdict): %s chose %s %s, whose newest correctness check says"
                " %s%s%s: not used", label, e->e.name, dev, status, reason ? ": " : "",
                reason ? reason : "");
    } else {
        sel_say(c->out, "rule 2 (verdict): decided: %s, engines unchanged, check %s: %s", label,
            status, v->explain ? v->explain : "");
        *out = (pick){e, d};
        c->have_verdict = 1;
        rc = 1;
    }
    free(reason);
    if (!c->have_verdict)
        lvd_verdict_free(v);
    return rc;
}

/* --- rules 3 and 4: heuristic and first engine ------------------------- */

typedef struct keep_ctx {
    ctx *c;
    int failed;            /* a store error happened (err holds it) */
    lvd_err err;
} keep_ctx;

/* Leaves out devices whose newest check for the model failed or errored. */
static int keep_checked(void *vp, const sel_engine *e, const lvd_device *d)
{
    keep_ctx *k = vp;
    if (!d || k->failed)
        return 1;
    char status[8];
    char *reason = NULL;
    if (sel_check_status(k->c->s, k->c->a->sha256, k->c->host, e->e.id, d->selector, status,
                         &reason, &k->err) != 0) {
        k->failed = 1;
        return 1;
    }
    int keep = strcmp(status, "fail") != 0 && strcmp(status, "error") != 0;
    if (!keep)
        sel_say(k->c->out, "rules 3-4: %s %s left out: its correctness check says %s%s%s", e->e.name,
            d->selector, status, reason ? ": " : "", reason ? reason : "");
    free(reason);
    return keep;
}

/* The engine's own record of a candidate's device. */
static pick pick_of(const ctx *c, const sel_candidate *cand, const char *selector)
{
    const sel_engine *e = sel_engines_find(&c->es, cand->engine_id);
    return (pick){e, selector && *selector ? sel_engine_device(e, selector) : NULL};
}

static int no_engine(ctx *c, lvd_err *err)
{
    if (c->es.n == 0)
        return lvd_errf(err, "no engine is registered (lvd fetch --register DIR --build ID)");
    lvd_sb sb = {0};
    for (size_t i = 0; i < c->es.n; i++)
        lvd_sb_addf(&sb, "%s%s: %s", i ? "; " : "", c->es.v[i].e.name,
                    sel_engine_usable(&c->es.v[i]) ? "every device failed its check"
                                                   : c->es.v[i].why);
    lvd_errf(err, "no engine can serve this model: %s", lvd_sb_str(&sb));
    lvd_sb_free(&sb);
    return -1;
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
 * run on the CPU (-ngl 0, no --device). *by stays SEL_BY_NONE when no engine. */
static void rule_first(ctx *c, const sel_candidate *cands, size_t n, pick *out, sel_by *by)
{
    for (size_t i = 0; i < n && *by == SEL_BY_NONE; i++) {
        const lvd_device *d = first_offload(&cands[i]);
        if (!d)
            continue;
        *out = pick_of(c, &cands[i], d->selector);
        *by = SEL_BY_FIRST;
        sel_say(c->out, "rule 4 (first engine): decided: %s, the first engine listing a device: %s (%s)",
            cands[i].name, out->dev->selector, out->dev->name);
    }
    int software = 0; /* a candidate lists a device: then all of them are software */
    for (size_t i = 0; i < n; i++)
        software |= cands[i].n_devices > 0;
    for (size_t i = 0; i < n && *by == SEL_BY_NONE; i++)
        if (strcmp(cands[i].backend, LVD_BACKEND_CPU) == 0) {
            *out = pick_of(c, &cands[i], NULL);
            *by = SEL_BY_CPU;
            sel_say(c->out, "rule 4 (first engine): decided: no engine lists a device%s; %s, a CPU engine",
                software ? " that is no software rasterizer" : "", cands[i].name);
        }
    for (size_t i = 0; i < n && *by == SEL_BY_NONE; i++)
        if (cands[i].n_devices > 0) {
            char label[32];
            sel_device_label(&cands[i].devices[0], label, sizeof label);
            *out = pick_of(c, &cands[i], NULL);
            *by = SEL_BY_CPU;
            sel_say(c->out, "rule 4 (first engine): decided: %s on the CPU (-ngl 0, no --device): its only"
                " devices are software rasterizers (%s: %s, %s), no accelerator, and no CPU engine is"
                " registered", cands[i].name, cands[i].devices[0].selector, cands[i].devices[0].name, label);
        }
}

/* Rules 3 and 4. 0 with *out and *by, or -1 (no engine at all, or the store failed). */
static int rule_heuristic_first(ctx *c, pick *out, sel_by *by, int *exit_code, lvd_err *err)
{
    sel_candidate *cands = lvd_xcalloc(c->es.n ? c->es.n : 1, sizeof *cands);
    size_t nd = sel_engines_device_count(&c->es);
    lvd_device *devs = lvd_xcalloc(nd ? nd : 1, sizeof *devs);
    keep_ctx k = {.c = c};
    size_t n = sel_engines_candidates(&c->es, 1, keep_checked, &k, cands, devs);
    sel_choice ch;
    int rc = -1;
    *by = SEL_BY_NONE;
    if (k.failed) {
        *err = k.err;
        *exit_code = LVD_EXIT_STORE;
    } else if (sel_heuristic(cands, n, &ch)) {
        sel_say(c->out, "rule 3 (heuristic): decided: %s", ch.reason);
        *out = pick_of(c, &cands[ch.candidate], ch.selector);
        *by = SEL_BY_HEURISTIC;
    } else {
        sel_say(c->out, "rule 3 (heuristic): no answer: %s", ch.reason);
        rule_first(c, cands, n, out, by);
        if (*by == SEL_BY_NONE) {
            *exit_code = LVD_EXIT_FAIL;
            no_engine(c, err);
        }
    }
    if (*by != SEL_BY_NONE)
        rc = 0;
    free(cands);
    free(devs);
    return rc;
}

/* --- the order ---------------------------------------------------------- */

static void skipped_engines(ctx *c)
{
    for (size_t i = 0; i < c->es.n; i++)
        if (!sel_engine_usable(&c->es.v[i]))
            sel_say(c->out, "engine %s is not offered: %s", c->es.v[i].e.name, c->es.v[i].why);
}

static int run_order(ctx *c, int *exit_code, lvd_err *err)
{
    const sel_profile *p = c->rq->profile;
    pick pk = {0};
    sel_by by = SEL_BY_NONE;
    skipped_engines(c);
    if (sel_profile_decides(p)) {
        if (resolve_profile(c, &pk, err) != 0) {
            *exit_code = LVD_EXIT_INPUT;
            return -1;
        }
        by = SEL_BY_PROFILE;
        sel_say(c->out, "rule 1 (profile): decided: %s names %s%s%s%s", p->file,
            p->engine ? "engine " : "", p->engine ? p->engine : "",
            p->backend[0] ? (p->engine ? ", backend " : "backend ") : "", p->backend);
        if (p->device[0])
            sel_say(c->out, "rule 1 (profile): device %s, shown by %s's cached probe", p->device,
                pk.eng->e.name);
        if (profile_check_warning(c, &pk, err) != 0) {
            *exit_code = LVD_EXIT_STORE;
            return -1;
        }
    } else {
        if (p)
            sel_say(c->out, "rule 1 (profile): %s names no engine, backend or device: its flags apply"
                " to the choice below", p->file);
        else
            sel_say(c->out, "rule 1 (profile): no profile");
        int rc = rule_verdict(c, &pk, err);
        if (rc < 0) {
            *exit_code = LVD_EXIT_STORE;
            return -1;
        }
        if (rc == 1)
            by = SEL_BY_VERDICT;
        else if (rule_heuristic_first(c, &pk, &by, exit_code, err) != 0)
            return -1;
    }
    return sel_finish(c, &pk, by, exit_code, err);
}

int sel_select(store *s, const store_artifact *artifact, const sel_request *rq, sel_result *out,
               int *exit_code, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    *exit_code = LVD_EXIT_OK;
    out->model = realpath(rq->model, NULL);
    if (!out->model) {
        *exit_code = LVD_EXIT_INPUT;
        return lvd_errf(err, "%s: %s", rq->model, strerror(errno));
    }
    ctx c = {.s = s, .a = artifact, .rq = rq, .out = out};
    c.host = rq->host ? rq->host : lvd_hostname();
    char *env = sel_env_with(NULL, rq->profile ? rq->profile->env : NULL, NULL);
    int loaded = sel_engines_load_env(s, env, &c.es, err);
    free(env);
    if (loaded != 0) {
        *exit_code = LVD_EXIT_STORE;
        sel_result_free(out);
        return -1;
    }
    int rc = run_order(&c, exit_code, err);
    if (c.have_verdict)
        lvd_verdict_free(&c.verdict);
    sel_engines_free(&c.es);
    if (c.have_ves)
        sel_engines_free(&c.ves);
    if (rc != 0)
        sel_result_free(out);
    return rc;
}

void sel_result_free(sel_result *r)
{
    if (!r)
        return;
    free(r->model);
    lvd_engine_free(&r->engine);
    sel_launch_free(&r->launch);
    for (size_t i = 0; i < r->n_explain; i++)
        free(r->explain[i]);
    free(r->explain);
    memset(r, 0, sizeof *r);
}
