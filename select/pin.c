/* pin.c: candidate against pinned, the promotion rule table, the recorded
 * decision and the pin file rewrite (see pin.h). */
#include "select/pin.h"

#include "common/json.h"
#include "fetch/asset.h"
#include "fetch/pinfile.h"
#include "select/armset.h"
#include "select/engines.h"
#include "select/rank.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the evaluation ------------------------------------------------------ */

void sel_pin_eval_init(sel_pin_eval *e, const char *pinned_build, const char *candidate_build,
                       const char *flavour)
{
    memset(e, 0, sizeof *e);
    e->pinned_build = lvd_xstrdup(pinned_build ? pinned_build : "");
    e->candidate_build = candidate_build ? lvd_xstrdup(candidate_build) : NULL;
    e->flavour = flavour ? lvd_xstrdup(flavour) : NULL;
    sel_rule_pin(&e->rule);
}

void sel_pin_eval_free(sel_pin_eval *e)
{
    free(e->pinned_build);
    free(e->candidate_build);
    free(e->flavour);
    free(e->candidate_digest);
    for (size_t i = 0; i < e->n_pairs; i++)
        free(e->pairs[i].arm_key);
    free(e->pairs);
    for (size_t i = 0; i < e->n_issues; i++)
        free(e->issues[i].what);
    free(e->issues);
    lvd_strv_free(e->sessions);
    memset(e, 0, sizeof *e);
}

int sel_pin_add_pair(sel_pin_eval *e, const char *artifact, const char *backend,
                     const char *arm_key, const lvd_params *params, const char *test,
                     int64_t pinned_engine, int64_t candidate_engine, const double *c, size_t nc,
                     const double *p, size_t np, lvd_err *err)
{
    sel_comparison cmp;
    if (sel_compare(c, nc, p, np, &e->rule, &cmp) != 0)
        return lvd_errf(err, "%s on %s (%s): %s", test, backend, artifact, cmp.why);
    e->pairs = lvd_xrealloc(e->pairs, (e->n_pairs + 1) * sizeof *e->pairs);
    sel_pin_pair *x = &e->pairs[e->n_pairs++];
    memset(x, 0, sizeof *x);
    snprintf(x->artifact, sizeof x->artifact, "%s", artifact);
    snprintf(x->backend, sizeof x->backend, "%s", backend);
    x->arm_key = lvd_xstrdup(arm_key ? arm_key : "");
    if (params)
        x->params = *params;
    else
        lvd_params_init(&x->params);
    snprintf(x->test, sizeof x->test, "%s", test);
    x->pinned_engine = pinned_engine;
    x->candidate_engine = candidate_engine;
    x->cmp = cmp;
    return 0;
}

void sel_pin_add_issue(sel_pin_eval *e, const char *artifact, const char *backend,
                       const char *device, const char *kind, const char *status,
                       const char *what)
{
    e->issues = lvd_xrealloc(e->issues, (e->n_issues + 1) * sizeof *e->issues);
    sel_pin_issue *x = &e->issues[e->n_issues++];
    memset(x, 0, sizeof *x);
    snprintf(x->artifact, sizeof x->artifact, "%s", artifact ? artifact : "");
    snprintf(x->backend, sizeof x->backend, "%s", backend ? backend : "");
    snprintf(x->device, sizeof x->device, "%s", device ? device : "");
    snprintf(x->kind, sizeof x->kind, "%s", kind);
    snprintf(x->status, sizeof x->status, "%s", status);
    x->what = what ? lvd_xstrdup(what) : NULL;
}

void sel_pin_add_session(sel_pin_eval *e, const char *session)
{
    if (!session)
        return;
    size_t at = 0;
    while (at < e->n_sessions && strcmp(e->sessions[at], session) < 0)
        at++;
    if (at < e->n_sessions && !strcmp(e->sessions[at], session))
        return;
    e->sessions = lvd_xrealloc(e->sessions, (e->n_sessions + 2) * sizeof *e->sessions);
    memmove(&e->sessions[at + 1], &e->sessions[at], (e->n_sessions - at) * sizeof *e->sessions);
    e->sessions[at] = lvd_xstrdup(session);
    e->sessions[++e->n_sessions] = NULL;
}

/* --- the rule table ------------------------------------------------------ */

const char *sel_pin_hold_name(sel_pin_hold h)
{
    switch (h) {
    case SEL_PIN_PROMOTE: return "promote";
    case SEL_PIN_NO_CANDIDATE: return "no-candidate";
    case SEL_PIN_CORRECTNESS: return "correctness";
    case SEL_PIN_CANDIDATE_FAILED: return "candidate-failed";
    case SEL_PIN_FEW_SAMPLES: return "few-samples";
    case SEL_PIN_REGRESSION: return "regression";
    case SEL_PIN_NO_WIN: return "no-win";
    case SEL_PIN_FIRST_NIGHT: return "first-night";
    case SEL_PIN_NO_DIGEST: return "no-digest";
    }
    return "unknown";
}

void sel_pin_fmt_pct(lvd_sb *sb, double ratio)
{
    double v = (ratio - 1.0) * 100.0;
    if (fabs(v) < 0.05)
        v = 0.0;
    lvd_sb_addf(sb, "%+.1f %%", v);
}

/* "tg128 on vulkan -3.1 % [CI -4.0 %, -2.2 %] (model 973978067daa, Vulkan0, fa 1)" */
static void describe_pair(lvd_sb *sb, const sel_pin_pair *x)
{
    char *brief = sel_params_brief(&x->params);
    lvd_sb_addf(sb, "%s on %s ", x->test, x->backend);
    sel_pin_fmt_pct(sb, x->cmp.ratio);
    lvd_sb_adds(sb, " [CI ");
    sel_pin_fmt_pct(sb, x->cmp.ci_lo);
    lvd_sb_adds(sb, ", ");
    sel_pin_fmt_pct(sb, x->cmp.ci_hi);
    lvd_sb_addf(sb, "] (model %.12s, %s)", x->artifact, brief);
    free(brief);
}

static const char *device_name(const char *device)
{
    return device[0] ? device : "the CPU";
}

static void say(sel_pin_verdict *v, sel_pin_hold hold, lvd_sb *sb)
{
    v->hold = hold;
    snprintf(v->rule, sizeof v->rule, "%s", lvd_sb_str(sb));
    lvd_sb_free(sb);
}

void sel_pin_judge(const sel_pin_eval *e, sel_pin_verdict *v)
{
    memset(v, 0, sizeof *v);
    lvd_sb sb = {0};
    const sel_pin_pair *worst = NULL, *best = NULL, *few = NULL;
    for (size_t i = 0; i < e->n_pairs; i++) {
        const sel_pin_pair *x = &e->pairs[i];
        if (x->cmp.a.n < e->rule.min_samples || x->cmp.b.n < e->rule.min_samples) {
            if (!few)
                few = x;
            continue;
        }
        if (!x->cmp.no_regression) {
            v->n_regressions++;
            if (!worst || x->cmp.ratio < worst->cmp.ratio)
                worst = x;
        }
        if (x->cmp.outcome == SEL_WIN_A)
            v->n_wins++;
        if (!best || (x->cmp.outcome == SEL_WIN_A) > (best->cmp.outcome == SEL_WIN_A) ||
            ((x->cmp.outcome == SEL_WIN_A) == (best->cmp.outcome == SEL_WIN_A) && x->cmp.ci_lo > best->cmp.ci_lo))
            best = x;
    }
    const sel_pin_issue *bad_check = NULL, *bad_run = NULL;
    for (size_t i = 0; i < e->n_issues; i++) {
        const sel_pin_issue *x = &e->issues[i];
        if (!strcmp(x->kind, "check") && !bad_check)
            bad_check = x;
        if (!strcmp(x->kind, "run") && !bad_run)
            bad_run = x;
    }

    if (!e->candidate_build) {
        lvd_sb_addf(&sb, "no candidate measured: no build other than the pinned %s is in the store",
                    e->pinned_build);
        return say(v, SEL_PIN_NO_CANDIDATE, &sb);
    }
    if (!e->n_pairs && !bad_run) {
        lvd_sb_addf(&sb, "no candidate measured: no test ran on both %s and %s on this host",
                    e->pinned_build, e->candidate_build);
        return say(v, SEL_PIN_NO_CANDIDATE, &sb);
    }
    if (bad_check) {
        if (!strcmp(bad_check->status, "missing"))
            lvd_sb_addf(&sb, "candidate not checked on %s (the pinned build was; model %.12s)",
                        device_name(bad_check->device), bad_check->artifact);
        else
            lvd_sb_addf(&sb, "candidate failed correctness on %s (model %.12s%s%s)",
                        device_name(bad_check->device), bad_check->artifact,
                        bad_check->what ? ": " : "", bad_check->what ? bad_check->what : "");
        return say(v, SEL_PIN_CORRECTNESS, &sb);
    }
    if (bad_run) {
        lvd_sb_addf(&sb, "candidate %s on %s %s (model %.12s%s%s)",
                    !strcmp(bad_run->status, "gpu_ignored") ? "ignored the GPU flags" : "failed",
                    bad_run->backend, device_name(bad_run->device), bad_run->artifact,
                    bad_run->what ? ": " : "", bad_run->what ? bad_run->what : "");
        return say(v, SEL_PIN_CANDIDATE_FAILED, &sb);
    }
    if (few) {
        lvd_sb_addf(&sb, "too few samples: %s on %s (%zu candidate, %zu pinned; %zu needed, model %.12s)",
                    few->test, few->backend, few->cmp.a.n, few->cmp.b.n, e->rule.min_samples,
                    few->artifact);
        return say(v, SEL_PIN_FEW_SAMPLES, &sb);
    }
    if (worst) {
        lvd_sb_adds(&sb, "regression: ");
        describe_pair(&sb, worst);
        return say(v, SEL_PIN_REGRESSION, &sb);
    }
    if (!v->n_wins) {
        lvd_sb_adds(&sb, "no significant win");
        if (best) {
            lvd_sb_adds(&sb, " (best: ");
            describe_pair(&sb, best);
            lvd_sb_addf(&sb, ", p %.4f)", best->cmp.p);
        }
        return say(v, SEL_PIN_NO_WIN, &sb);
    }
    v->would_promote = 1;
    if (!e->has_prev || !e->prev_would_promote) {
        lvd_sb_adds(&sb, "first night: needs a second consecutive night");
        return say(v, SEL_PIN_FIRST_NIGHT, &sb);
    }
    if (e->prev_same_sessions) {
        lvd_sb_adds(&sb, "first night: the previous decision saw the same measurements; needs a "
                         "second night's");
        return say(v, SEL_PIN_FIRST_NIGHT, &sb);
    }
    if (!e->candidate_digest) {
        lvd_sb_addf(&sb, "no digest recorded for %s %s: fetch it (lvd fetch %s) so that promotion can record it",
                    e->candidate_build, e->flavour ? e->flavour : "(no flavour)", e->candidate_build);
        return say(v, SEL_PIN_NO_DIGEST, &sb);
    }
    lvd_sb_addf(&sb, "promote %s: no regression in %zu comparisons, %zu significant win%s (best: ",
                e->candidate_build, e->n_pairs, v->n_wins, v->n_wins == 1 ? "" : "s");
    describe_pair(&sb, best);
    lvd_sb_adds(&sb, "), checks passed, second consecutive night");
    v->promote = 1;
    say(v, SEL_PIN_PROMOTE, &sb);
}

/* --- gathering from the store ------------------------------------------- */

/* Build number of "b10715" (0 when it is not of that form). */
static long build_number(const char *b)
{
    if (!b || b[0] != 'b')
        return 0;
    int64_t n;
    return lvd_parse_i64(b + 1, &n) == 0 && n > 0 ? (long)n : 0;
}

/* The newest fetched build other than pinned; NULL when none. */
static const char *newest_candidate(const lvd_engine *v, size_t n, const char *pinned)
{
    const lvd_engine *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const lvd_engine *x = &v[i];
        if (!x->origin || strcmp(x->origin, "fetched") || !strcmp(x->build, pinned))
            continue;
        if (!best || build_number(x->build) > build_number(best->build) ||
            (build_number(x->build) == build_number(best->build) &&
             (x->created_at > best->created_at || (x->created_at == best->created_at && x->id > best->id))))
            best = x;
    }
    return best ? best->build : NULL;
}

/* The fetched engine of build and flavour (canonical), or NULL. */
static const lvd_engine *fetched_engine(const lvd_engine *v, size_t n, const char *build,
                                        const char *flavour)
{
    const char *canon = flavour ? fetch_flavour_canonical(flavour) : NULL;
    if (!canon)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *f = v[i].flavour ? fetch_flavour_canonical(v[i].flavour) : NULL;
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
    char (*device)[64];    /* the device each arm's check is under (sel_check_device) */
} side;

static int load_side(store *s, const lvd_engine *engines, size_t n_engines, const char *build,
                     const char *host, side *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n_engines; i++) {
        if (strcmp(engines[i].build, build))
            continue;
        sel_armset one;
        if (sel_armset_load(s, NULL, host, engines[i].id, &one, err) != 0)
            return -1;
        lvd_probe probe;
        int rc = store_probe_latest(s, engines[i].id, &probe, err);
        if (rc < 0) {
            sel_armset_free(&one);
            return -1;
        }
        size_t base = out->arms.n;
        out->arms.v = lvd_xrealloc(out->arms.v, (base + one.n + 1) * sizeof *out->arms.v);
        out->backend = lvd_xrealloc(out->backend, (base + one.n + 1) * sizeof *out->backend);
        out->device = lvd_xrealloc(out->device, (base + one.n + 1) * sizeof *out->device);
        for (size_t k = 0; k < one.n; k++) {
            out->arms.v[base + k] = one.v[k];
            sel_backend_label(rc == 0 ? &probe : NULL, one.v[k].backends, out->backend[base + k],
                              sizeof out->backend[0]);
            sel_check_device(rc == 0 ? &probe : NULL, &one.v[k].params, out->device[base + k],
                             sizeof out->device[0]);
        }
        out->arms.n += one.n;
        free(one.v);
        if (rc == 0)
            lvd_probe_free(&probe);
    }
    return 0;
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

/* Reads a previous decision's would_promote and sessions. */
static void read_prev(const lvd_pin_decision *d, sel_pin_eval *e)
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

int sel_pin_gather(store *s, const fetch_pin *pin, const sel_pin_opts *o, sel_pin_eval *e,
                   lvd_err *err)
{
    const char *host = o->host ? o->host : lvd_hostname();
    lvd_engine *engines;
    size_t n_engines;
    if (store_engine_list(s, &engines, &n_engines, err) != 0)
        return -1;
    const char *pinned = fetch_pin_build(pin);
    const char *candidate = o->candidate ? o->candidate : newest_candidate(engines, n_engines, pinned);
    sel_pin_eval_init(e, pinned, candidate, fetch_pin_flavour(pin, 0));
    int ret = -1;
    side ps = {0}, cs = {0};
    if (!candidate) {
        ret = 0;
        goto out;
    }
    const lvd_engine *fe = fetched_engine(engines, n_engines, candidate, e->flavour);
    if (fe)
        e->candidate_digest = lvd_xstrdup(fe->digest);
    if (load_side(s, engines, n_engines, pinned, host, &ps, err) != 0 ||
        load_side(s, engines, n_engines, candidate, host, &cs, err) != 0)
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
    lvd_pin_decision *ds;
    size_t nd;
    if (store_pin_decision_list(s, 0, &ds, &nd, err) != 0)
        goto out;
    for (size_t i = 0; i < nd; i++) {
        if (ds[i].pinned_build && ds[i].candidate_build && !strcmp(ds[i].pinned_build, pinned) &&
            !strcmp(ds[i].candidate_build, candidate)) {
            read_prev(&ds[i], e);
            break;
        }
    }
    store_pin_decision_list_free(ds, nd);
    ret = 0;
out:
    side_free(&ps);
    side_free(&cs);
    store_engine_list_free(engines, n_engines);
    if (ret != 0)
        sel_pin_eval_free(e);
    return ret;
}

/* --- the record ----------------------------------------------------------- */

static cJSON *side_json(const sel_summary *s, size_t warmup)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "median", lvd_json_num(s->median));
    cJSON_AddNumberToObject(o, "n", (double)s->n);
    cJSON_AddNumberToObject(o, "warmup", (double)warmup);
    return o;
}

cJSON *sel_pin_details_json(const sel_pin_eval *e, const sel_pin_verdict *v, int applied)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "pinned", e->pinned_build);
    cJSON_AddItemToObject(o, "candidate", lvd_json_str(e->candidate_build));
    cJSON_AddItemToObject(o, "flavour", lvd_json_str(e->flavour));
    cJSON_AddItemToObject(o, "candidate_digest", lvd_json_str(e->candidate_digest));
    cJSON_AddStringToObject(o, "decision", v->promote ? "promote" : "keep");
    cJSON_AddStringToObject(o, "hold", sel_pin_hold_name(v->hold));
    cJSON_AddStringToObject(o, "rule", v->rule);
    cJSON_AddBoolToObject(o, "would_promote", v->would_promote);
    cJSON_AddBoolToObject(o, "applied", applied);
    cJSON *ss = cJSON_AddArrayToObject(o, "sessions");
    for (size_t i = 0; i < e->n_sessions; i++)
        cJSON_AddItemToArray(ss, cJSON_CreateString(e->sessions[i]));
    cJSON *cs = cJSON_AddArrayToObject(o, "comparisons");
    for (size_t i = 0; i < e->n_pairs; i++) {
        const sel_pin_pair *x = &e->pairs[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "artifact", x->artifact);
        cJSON_AddStringToObject(c, "backend", x->backend);
        cJSON_AddStringToObject(c, "arm_key", x->arm_key);
        char *brief = sel_params_brief(&x->params);
        cJSON_AddStringToObject(c, "params", brief);
        free(brief);
        cJSON_AddStringToObject(c, "test", x->test);
        cJSON_AddNumberToObject(c, "pinned_engine", (double)x->pinned_engine);
        cJSON_AddNumberToObject(c, "candidate_engine", (double)x->candidate_engine);
        cJSON_AddItemToObject(c, "pinned", side_json(&x->cmp.b, x->pinned_warmup));
        cJSON_AddItemToObject(c, "candidate", side_json(&x->cmp.a, x->candidate_warmup));
        cJSON_AddItemToObject(c, "stats", sel_comparison_json(&x->cmp));
        cJSON_AddBoolToObject(c, "win", x->cmp.outcome == SEL_WIN_A);
        cJSON_AddBoolToObject(c, "no_regression", x->cmp.no_regression);
        cJSON_AddItemToArray(cs, c);
    }
    cJSON *is = cJSON_AddArrayToObject(o, "issues");
    for (size_t i = 0; i < e->n_issues; i++) {
        const sel_pin_issue *x = &e->issues[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "artifact", x->artifact);
        cJSON_AddStringToObject(c, "backend", x->backend);
        cJSON_AddStringToObject(c, "device", x->device);
        cJSON_AddStringToObject(c, "kind", x->kind);
        cJSON_AddStringToObject(c, "status", x->status);
        cJSON_AddItemToObject(c, "what", lvd_json_str(x->what));
        cJSON_AddItemToArray(is, c);
    }
    return o;
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static size_t jcount(const cJSON *o, const char *key)
{
    double v = jnum(o, key);
    return isfinite(v) && v > 0 ? (size_t)v : 0;
}

int sel_pin_details_rows(const char *details_json, sel_pin_row **rows, size_t *n_rows,
                         char ***issues, size_t *n_issues, lvd_err *err)
{
    *rows = NULL;
    *n_rows = 0;
    *issues = NULL;
    *n_issues = 0;
    cJSON *j = details_json ? cJSON_Parse(details_json) : NULL;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return lvd_errf(err, "pin decision details are not a JSON object");
    }
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(j, "comparisons"), *c;
    size_t n = (size_t)cJSON_GetArraySize(cs);
    sel_pin_row *v = lvd_xcalloc(n ? n : 1, sizeof *v);
    size_t k = 0;
    cJSON_ArrayForEach(c, cs)
    {
        if (!cJSON_IsObject(c))
            continue;
        sel_pin_row *r = &v[k++];
        snprintf(r->artifact, sizeof r->artifact, "%s", lvd_json_string(c, "artifact"));
        snprintf(r->backend, sizeof r->backend, "%s", lvd_json_string(c, "backend"));
        r->params = lvd_xstrdup(lvd_json_string(c, "params"));
        snprintf(r->test, sizeof r->test, "%s", lvd_json_string(c, "test"));
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "pinned");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "candidate");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "stats");
        r->pinned_median = jnum(p, "median");
        r->candidate_median = jnum(a, "median");
        r->pinned_n = jcount(p, "n");
        r->candidate_n = jcount(a, "n");
        r->ratio = jnum(st, "ratio");
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(st, "ci");
        const cJSON *lo = cJSON_GetArrayItem(ci, 0), *hi = cJSON_GetArrayItem(ci, 1);
        r->ci_lo = cJSON_IsNumber(lo) ? lo->valuedouble : NAN;
        r->ci_hi = cJSON_IsNumber(hi) ? hi->valuedouble : NAN;
        r->p = jnum(st, "p");
        r->win = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "win"));
        r->no_regression = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "no_regression"));
    }
    const cJSON *is = cJSON_GetObjectItemCaseSensitive(j, "issues"), *it;
    size_t ni = 0;
    char **lines = lvd_xcalloc((size_t)cJSON_GetArraySize(is) + 1, sizeof *lines);
    cJSON_ArrayForEach(it, is)
    {
        if (!cJSON_IsObject(it))
            continue;
        const char *dev = lvd_json_string(it, "device"), *what = lvd_json_string(it, "what");
        lines[ni++] = lvd_xasprintf("%s %s %s (model %.12s): %s%s%s", lvd_json_string(it, "kind"), lvd_json_string(it, "backend"),
                                    *dev ? dev : "CPU", lvd_json_string(it, "artifact"), lvd_json_string(it, "status"),
                                    *what ? ": " : "", what);
    }
    cJSON_Delete(j);
    *rows = v;
    *n_rows = k;
    *issues = lines;
    *n_issues = ni;
    return 0;
}

void sel_pin_rows_free(sel_pin_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rows[i].params);
    free(rows);
}

int sel_pin_record(store *s, const sel_pin_eval *e, const sel_pin_verdict *v, int applied,
                   lvd_err *err)
{
    char *details = lvd_json_compact(sel_pin_details_json(e, v, applied));
    lvd_pin_decision d = {
        .pinned_build = e->pinned_build,
        .candidate_build = e->candidate_build,
        .decision = v->promote ? "promote" : "keep",
        .rule = (char *)v->rule,
        .details_json = details,
    };
    int rc = -1;
    if (store_begin(s, err) != 0)
        goto out;
    if (store_pin_decision_put(s, &d, err) != 0 ||
        (applied && store_pin_record(s, e->candidate_build, e->flavour, e->candidate_digest,
                                     "lvd pin --promote", err) != 0)) {
        store_rollback(s);
        goto out;
    }
    rc = store_commit(s, err);
out:
    free(details);
    return rc;
}

int sel_pin_apply(store *s, fetch_pin *pin, const char *path, const sel_pin_eval *e, lvd_err *err)
{
    if (!e->candidate_build || !e->candidate_digest || !e->flavour)
        return lvd_errf(err, "%s: no candidate digest to record", path);
    lvd_engine *engines;
    size_t n;
    if (store_engine_list(s, &engines, &n, err) != 0)
        return -1;
    /* the flavours the file lists, copied before the rewrite changes them */
    size_t nf = 0;
    while (fetch_pin_flavour(pin, nf))
        nf++;
    char **flavours = lvd_xcalloc(nf + 1, sizeof *flavours);
    for (size_t i = 0; i < nf; i++)
        flavours[i] = lvd_xstrdup(fetch_pin_flavour(pin, i));
    int rc = fetch_pin_promote(pin, e->candidate_build, e->flavour, e->candidate_digest, err);
    for (size_t i = 0; rc == 0 && i < nf; i++) {
        const lvd_engine *fe = fetched_engine(engines, n, e->candidate_build, flavours[i]);
        if (fe && strcmp(fetch_flavour_canonical(flavours[i]), fetch_flavour_canonical(e->flavour)))
            rc = fetch_pin_promote(pin, e->candidate_build, flavours[i], fe->digest, err);
    }
    if (rc == 0)
        rc = fetch_pin_save(pin, path, err);
    lvd_strv_free(flavours);
    store_engine_list_free(engines, n);
    return rc;
}
