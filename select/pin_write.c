/* pin_write.c: what a pin decision writes (see pin.h): the details_json
 * record and its reader for the evidence page, the store transaction that
 * records the decision (and a promotion), and the pin-file rewrite on
 * promotion. Not for the rule table (pin.c), for gathering the evaluation
 * (pin_gather.c), or for reading the pin file (builds/pinfile.c). */
#include "select/pin.h"

#include "common/json.h"
#include "builds/asset.h"
#include "builds/pinfile.h"
#include "select/armset.h"
#include "select/pin_fleet.h"
#include "stats/rank.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *side_json(const stats_summary *s, size_t warmup, double tpj)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "median", lvd_json_num(s->median));
    cJSON_AddItemToObject(o, "tokens_per_joule", lvd_json_num(tpj));
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
    cJSON_AddItemToObject(o, "sessions", lvd_json_strings(e->sessions, e->n_sessions));
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
        cJSON_AddItemToObject(c, "pinned", side_json(&x->cmp.b, x->pinned_warmup, x->pinned_tpj));
        cJSON_AddItemToObject(c, "candidate", side_json(&x->cmp.a, x->candidate_warmup, x->candidate_tpj));
        cJSON_AddItemToObject(c, "stats", stats_comparison_json(&x->cmp));
        cJSON_AddBoolToObject(c, "win", x->cmp.outcome == STATS_WIN_A);
        cJSON_AddBoolToObject(c, "no_regression", x->cmp.no_regression);
        cJSON_AddStringToObject(c, "verdict", sel_pin_word_name(sel_pin_pair_word(&x->cmp)));
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
        r->pinned_tpj = jnum(p, "tokens_per_joule");
        r->candidate_tpj = jnum(a, "tokens_per_joule");
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
        /* decisions recorded before "verdict" existed: the same rule on what they kept */
        stats_comparison was = {.outcome = r->win ? STATS_WIN_A : STATS_TIE, .ci_hi = r->ci_hi,
                                .no_regression = r->no_regression};
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "verdict");
        snprintf(r->verdict, sizeof r->verdict, "%s",
                 cJSON_IsString(w) ? w->valuestring : sel_pin_word_name(sel_pin_pair_word(&was)));
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

cJSON *sel_pin_decision_json(const sel_pin_eval *e, const sel_pin_verdict *v, int applied,
                             const sel_pin_fleet *fleet)
{
    cJSON *j = sel_pin_details_json(e, v, applied);
    if (fleet)
        sel_pin_fleet_json(fleet, j);
    return j;
}

int sel_pin_record(store *s, const sel_pin_eval *e, const sel_pin_verdict *v, int applied,
                   const sel_pin_fleet *fleet, lvd_err *err)
{
    char *details = lvd_json_compact(sel_pin_decision_json(e, v, applied, fleet));
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

int sel_pin_apply(store *s, builds_pin *pin, const char *path, const sel_pin_eval *e, lvd_err *err)
{
    if (!e->candidate_build || !e->candidate_digest || !e->flavour)
        return lvd_errf(err, "%s: no candidate digest to record", path);
    lvd_engine *engines;
    size_t n;
    /* every host's: a fetched archive's digest is the release's wherever it
     * was fetched (lvd pin --fleet runs where no engine may be) */
    if (store_engine_list_host(s, "*", &engines, &n, err) != 0)
        return -1;
    /* the flavours the file lists, copied before the rewrite changes them */
    size_t nf = 0;
    while (builds_pin_flavour(pin, nf))
        nf++;
    char **flavours = lvd_xcalloc(nf + 1, sizeof *flavours);
    for (size_t i = 0; i < nf; i++)
        flavours[i] = lvd_xstrdup(builds_pin_flavour(pin, i));
    int rc = builds_pin_promote(pin, e->candidate_build, e->flavour, e->candidate_digest, err);
    for (size_t i = 0; rc == 0 && i < nf; i++) {
        const lvd_engine *fe = sel_pin_fetched_engine(engines, n, e->candidate_build, flavours[i]);
        if (fe && strcmp(builds_flavour_canonical(flavours[i]), builds_flavour_canonical(e->flavour)))
            rc = builds_pin_promote(pin, e->candidate_build, flavours[i], fe->digest, err);
    }
    if (rc == 0)
        rc = builds_pin_save(pin, path, err);
    lvd_strv_free(flavours);
    store_engine_list_free(engines, n);
    return rc;
}
