/* pin.c: the evaluation lvd-pin judges (pairs, issues, sessions) and the
 * promotion rule table over it (see pin.h), pure: no store, no files. Not
 * for gathering the evaluation from the store (pin_gather.c) or for the
 * recorded decision and the pin-file rewrite (pin_write.c). */
#include "select/pin.h"

#include "select/armset.h"

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
    stats_rule_pin(&e->rule);
}

void sel_pin_eval_free(sel_pin_eval *e)
{
    free(e->pinned_build);
    free(e->candidate_build);
    free(e->flavour);
    free(e->candidate_digest);
    free(e->candidate_local);
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
    stats_comparison cmp;
    if (stats_compare(c, nc, p, np, &e->rule, &cmp) != 0)
        return lvd_errf(err, "%s on %s (%s): %s", test, backend, artifact, cmp.why);
    e->pairs = lvd_xrealloc(e->pairs, (e->n_pairs + 1) * sizeof *e->pairs);
    sel_pin_pair *x = &e->pairs[e->n_pairs++];
    memset(x, 0, sizeof *x);
    x->pinned_tpj = x->candidate_tpj = NAN;
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
    case SEL_PIN_INCONCLUSIVE: return "inconclusive";
    }
    return "unknown";
}

sel_pin_word sel_pin_pair_word(const stats_comparison *c)
{
    if (c->outcome == STATS_WIN_A)
        return SEL_PIN_W_WIN;
    if (c->no_regression)
        return SEL_PIN_W_NONE;
    return c->ci_hi < 1.0 ? SEL_PIN_W_REGRESSION : SEL_PIN_W_INCONCLUSIVE;
}

const char *sel_pin_word_name(sel_pin_word w)
{
    switch (w) {
    case SEL_PIN_W_WIN: return "win";
    case SEL_PIN_W_REGRESSION: return "regression";
    case SEL_PIN_W_INCONCLUSIVE: return "inconclusive";
    case SEL_PIN_W_NONE: break;
    }
    return "";
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

/* What the rule table reads off the pairs and issues: the first pair with too
 * few samples, the worst regression (lowest ratio of the pairs shown slower),
 * the widest inconclusive pair (lowest CI low), the best pair (wins first,
 * then the highest CI low), and the first failed check and failed run. */
typedef struct pin_scan {
    const sel_pin_pair *worst, *unsure, *best, *few;
    const sel_pin_issue *bad_check, *bad_run;
} pin_scan;

/* Fills s and counts v's wins and regressions (pairs with enough samples). */
static void pin_scan_eval(const sel_pin_eval *e, sel_pin_verdict *v, pin_scan *s)
{
    for (size_t i = 0; i < e->n_pairs; i++) {
        const sel_pin_pair *x = &e->pairs[i];
        if (x->cmp.a.n < e->rule.min_samples || x->cmp.b.n < e->rule.min_samples) {
            if (!s->few)
                s->few = x;
            continue;
        }
        sel_pin_word w = sel_pin_pair_word(&x->cmp);
        if (w == SEL_PIN_W_REGRESSION) {
            v->n_regressions++;
            if (!s->worst || x->cmp.ratio < s->worst->cmp.ratio)
                s->worst = x;
        } else if (w == SEL_PIN_W_INCONCLUSIVE) {
            v->n_inconclusive++;
            if (!s->unsure || x->cmp.ci_lo < s->unsure->cmp.ci_lo)
                s->unsure = x;
        }
        if (w == SEL_PIN_W_WIN)
            v->n_wins++;
        const sel_pin_pair *b = s->best;
        if (!b || (x->cmp.outcome == STATS_WIN_A) > (b->cmp.outcome == STATS_WIN_A) ||
            ((x->cmp.outcome == STATS_WIN_A) == (b->cmp.outcome == STATS_WIN_A) && x->cmp.ci_lo > b->cmp.ci_lo))
            s->best = x;
    }
    for (size_t i = 0; i < e->n_issues; i++) {
        const sel_pin_issue *x = &e->issues[i];
        if (!strcmp(x->kind, "check") && !s->bad_check)
            s->bad_check = x;
        if (!strcmp(x->kind, "run") && !s->bad_run)
            s->bad_run = x;
    }
}

/* Rules 1-3: a candidate was measured, passed its checks and ran. The hold
 * that applies, with its line in sb, or SEL_PIN_PROMOTE when they pass. */
static sel_pin_hold pin_rules_candidate(const sel_pin_eval *e, const pin_scan *s, lvd_sb *sb)
{
    const sel_pin_issue *bad_check = s->bad_check, *bad_run = s->bad_run;
    if (!e->candidate_build) {
        lvd_sb_addf(sb, "no candidate measured: no build other than the pinned %s is in the store",
                    e->pinned_build);
        return SEL_PIN_NO_CANDIDATE;
    }
    if (!e->n_pairs && !bad_run) {
        lvd_sb_addf(sb, "no candidate measured: no test ran on both %s and %s on this host",
                    e->pinned_build, e->candidate_build);
        return SEL_PIN_NO_CANDIDATE;
    }
    if (bad_check) {
        if (!strcmp(bad_check->status, "missing"))
            lvd_sb_addf(sb, "candidate not checked on %s (the pinned build was; model %.12s)",
                        device_name(bad_check->device), bad_check->artifact);
        else
            lvd_sb_addf(sb, "candidate failed correctness on %s (model %.12s%s%s)",
                        device_name(bad_check->device), bad_check->artifact,
                        bad_check->what ? ": " : "", bad_check->what ? bad_check->what : "");
        return SEL_PIN_CORRECTNESS;
    }
    if (bad_run) {
        lvd_sb_addf(sb, "candidate %s on %s %s (model %.12s%s%s)",
                    !strcmp(bad_run->status, "gpu_ignored") ? "ignored the GPU flags" : "failed",
                    bad_run->backend, device_name(bad_run->device), bad_run->artifact,
                    bad_run->what ? ": " : "", bad_run->what ? bad_run->what : "");
        return SEL_PIN_CANDIDATE_FAILED;
    }
    return SEL_PIN_PROMOTE;
}

/* Rules 4-6: enough samples, no regression (5: none shown, 5b: none left
 * possible), a significant win. */
static sel_pin_hold pin_rules_speed(const sel_pin_eval *e, const sel_pin_verdict *v, const pin_scan *s,
                                    lvd_sb *sb)
{
    const sel_pin_pair *few = s->few;
    if (few) {
        lvd_sb_addf(sb, "too few samples: %s on %s (%zu candidate, %zu pinned; %zu needed, model %.12s)",
                    few->test, few->backend, few->cmp.a.n, few->cmp.b.n, e->rule.min_samples,
                    few->artifact);
        return SEL_PIN_FEW_SAMPLES;
    }
    if (s->worst) {
        lvd_sb_adds(sb, "regression: ");
        describe_pair(sb, s->worst);
        return SEL_PIN_REGRESSION;
    }
    if (s->unsure) {
        lvd_sb_adds(sb, "inconclusive: ");
        describe_pair(sb, s->unsure);
        lvd_sb_adds(sb, ": CI reaches ");
        sel_pin_fmt_pct(sb, s->unsure->cmp.ci_lo);
        lvd_sb_addf(sb, ", needs more samples (%zu inconclusive comparison%s)", v->n_inconclusive,
                    v->n_inconclusive == 1 ? "" : "s");
        return SEL_PIN_INCONCLUSIVE;
    }
    if (!v->n_wins) {
        lvd_sb_adds(sb, "no significant win");
        if (s->best) {
            lvd_sb_adds(sb, " (best: ");
            describe_pair(sb, s->best);
            lvd_sb_addf(sb, ", p %.4f)", s->best->cmp.p);
        }
        return SEL_PIN_NO_WIN;
    }
    return SEL_PIN_PROMOTE;
}

/* Rules 7-8 for a candidate that would promote: a second night, a digest to
 * record. On passing, sb gets the promotion line. */
static sel_pin_hold pin_rules_night(const sel_pin_eval *e, const sel_pin_verdict *v, const pin_scan *s,
                                    lvd_sb *sb)
{
    if (!e->has_prev || !e->prev_would_promote) {
        lvd_sb_adds(sb, "first night: needs a second consecutive night");
        return SEL_PIN_FIRST_NIGHT;
    }
    if (e->prev_same_sessions) {
        lvd_sb_adds(sb, "first night: the previous decision saw the same measurements; needs a "
                        "second night's");
        return SEL_PIN_FIRST_NIGHT;
    }
    if (!e->candidate_digest) {
        const char *fl = e->flavour ? e->flavour : "(no flavour)";
        lvd_sb_addf(sb, "no digest recorded for %s %s: ", e->candidate_build, fl);
        if (e->candidate_local)
            lvd_sb_addf(sb, "it was measured as a local build (engine %s), and the pin file records the "
                        "release archive's digest that lvd fetch verifies, which a local build has not: "
                        "fetch and measure the release (lvd fetch %s --flavour %s), or move the pin by hand "
                        "(build = %s in the pin file)", e->candidate_local, e->candidate_build, fl,
                        e->candidate_build);
        else
            lvd_sb_addf(sb, "fetch it (lvd fetch %s) so that promotion can record it", e->candidate_build);
        return SEL_PIN_NO_DIGEST;
    }
    lvd_sb_addf(sb, "promote %s: no regression in %zu comparisons, %zu significant win%s (best: ",
                e->candidate_build, e->n_pairs, v->n_wins, v->n_wins == 1 ? "" : "s");
    describe_pair(sb, s->best);
    lvd_sb_adds(sb, "), checks passed, second consecutive night");
    return SEL_PIN_PROMOTE;
}

void sel_pin_judge(const sel_pin_eval *e, sel_pin_verdict *v)
{
    memset(v, 0, sizeof *v);
    lvd_sb sb = {0};
    pin_scan s = {0};
    pin_scan_eval(e, v, &s);
    sel_pin_hold hold = pin_rules_candidate(e, &s, &sb);
    if (hold == SEL_PIN_PROMOTE)
        hold = pin_rules_speed(e, v, &s, &sb);
    if (hold == SEL_PIN_PROMOTE) {
        v->would_promote = 1;
        hold = pin_rules_night(e, v, &s, &sb);
        v->promote = hold == SEL_PIN_PROMOTE;
    }
    say(v, hold, &sb);
}
