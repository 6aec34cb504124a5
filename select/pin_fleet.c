/* pin_fleet.c: `lvd pin --fleet` (select/pin_fleet.h): every host judged by
 * the single-host rule table, then the fleet's rule over their outcomes.
 * Not for the single-host rules themselves (pin.c, called, never copied). */
#include "select/pin_fleet.h"

#include "builds/pinfile.h"
#include "store/fleetdb.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a deep copy of pair x to e (its comparison is not recomputed). */
static void copy_pair(sel_pin_eval *e, const sel_pin_pair *x)
{
    e->pairs = lvd_xrealloc(e->pairs, (e->n_pairs + 1) * sizeof *e->pairs);
    e->pairs[e->n_pairs] = *x;
    e->pairs[e->n_pairs].arm_key = lvd_xstrdup(x->arm_key ? x->arm_key : "");
    e->n_pairs++;
}

void sel_pin_fleet_add(sel_pin_fleet *f, const char *host, sel_pin_eval *e)
{
    if (!f->n_hosts) {
        sel_pin_eval_init(&f->all, e->pinned_build, e->candidate_build, e->flavour);
        f->all.candidate_digest = e->candidate_digest ? lvd_xstrdup(e->candidate_digest) : NULL;
    }
    f->hosts = lvd_xrealloc(f->hosts, (f->n_hosts + 1) * sizeof *f->hosts);
    sel_pin_fleet_host *h = &f->hosts[f->n_hosts++];
    memset(h, 0, sizeof *h);
    h->host = lvd_xstrdup(host);
    h->e = *e;
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < h->e.n_pairs; i++)
        copy_pair(&f->all, &h->e.pairs[i]);
    for (size_t i = 0; i < h->e.n_issues; i++) {
        const sel_pin_issue *x = &h->e.issues[i];
        sel_pin_add_issue(&f->all, x->artifact, x->backend, x->device, x->kind, x->status, x->what);
    }
    for (size_t i = 0; i < h->e.n_sessions; i++)
        sel_pin_add_session(&f->all, h->e.sessions[i]);
}

int sel_pin_fleet_gather(store *s, const builds_pin *pin, const sel_pin_opts *o, sel_pin_fleet *f,
                         lvd_err *err)
{
    memset(f, 0, sizeof *f);
    char **hosts;
    size_t n;
    if (store_fleet_hosts(s, &hosts, &n, err) != 0)
        return -1;
    int ret = 0;
    for (size_t i = 0; i < n && ret == 0; i++) {
        sel_pin_opts ho = *o;
        ho.host = hosts[i];
        sel_pin_eval e;
        if ((ret = sel_pin_gather(s, pin, &ho, &e, err)) == 0)
            sel_pin_fleet_add(f, hosts[i], &e);
    }
    lvd_strv_free(hosts);
    if (ret == 0 && !f->n_hosts)
        sel_pin_eval_init(&f->all, builds_pin_build(pin), o->candidate, builds_pin_flavour(pin, 0));
    lvd_pin_decision *ds = NULL;
    size_t nd = 0;
    if (ret == 0 && f->all.candidate_build && (ret = store_pin_decision_list(s, 0, &ds, &nd, err)) == 0) {
        for (size_t i = 0; i < nd; i++)
            if (ds[i].pinned_build && ds[i].candidate_build && !strcmp(ds[i].pinned_build, f->all.pinned_build) &&
                !strcmp(ds[i].candidate_build, f->all.candidate_build)) {
                sel_pin_read_prev(&ds[i], &f->all);
                break;
            }
        store_pin_decision_list_free(ds, nd);
    }
    if (ret != 0)
        sel_pin_fleet_free(f);
    return ret;
}

/* Rule 2's holds: what a host's measurements say against the candidate. */
static int host_holds(sel_pin_hold h)
{
    return h == SEL_PIN_CORRECTNESS || h == SEL_PIN_CANDIDATE_FAILED || h == SEL_PIN_FEW_SAMPLES ||
           h == SEL_PIN_REGRESSION;
}

/* Rule 2's line: "regression on HOST: DETAIL (and N other hosts)", the
 * detail being the host's own rule line less a leading "regression: ". */
static void say_held(sel_pin_fleet *f, const sel_pin_fleet_host *h, size_t others)
{
    char word[32];
    snprintf(word, sizeof word, "%s", sel_pin_hold_name(h->v.hold));
    for (char *p = word; *p; p++)
        if (*p == '-')
            *p = ' ';
    const char *detail = h->v.rule;
    size_t wl = strlen(word);
    if (!strncmp(detail, word, wl) && detail[wl] == ':' && detail[wl + 1] == ' ')
        detail += wl + 2;
    int len = snprintf(f->v.rule, sizeof f->v.rule, "%s on %s: %s", word, h->host, detail);
    if (others && len > 0 && (size_t)len < sizeof f->v.rule)
        snprintf(f->v.rule + len, sizeof f->v.rule - (size_t)len, " (and %zu other host%s)", others,
                 others == 1 ? "" : "s");
    f->v.hold = h->v.hold;
    f->held_by = h->host;
}

void sel_pin_fleet_judge(sel_pin_fleet *f)
{
    const sel_pin_fleet_host *held = NULL;
    size_t measured = 0, n_held = 0, wins = 0;
    for (size_t i = 0; i < f->n_hosts; i++) {
        sel_pin_fleet_host *h = &f->hosts[i];
        sel_pin_judge(&h->e, &h->v);
        if (h->v.hold == SEL_PIN_NO_CANDIDATE)
            continue;
        measured++;
        wins += h->v.n_wins;
        if (host_holds(h->v.hold)) {
            n_held++;
            if (!held || h->v.hold < held->v.hold)
                held = h;
        }
    }
    sel_pin_judge(&f->all, &f->v); /* counts; rules 7-8 when the fleet gets that far */
    f->held_by = NULL;
    if (!f->all.candidate_build)
        return; /* the single-host rule 1 line: no build other than the pin */
    if (!measured) {
        f->v.hold = SEL_PIN_NO_CANDIDATE;
        f->v.would_promote = f->v.promote = 0;
        snprintf(f->v.rule, sizeof f->v.rule, "no candidate measured: none of the %zu hosts measured both %s and %s",
                 f->n_hosts, f->all.pinned_build, f->all.candidate_build);
        return;
    }
    if (held) {
        f->v.would_promote = f->v.promote = 0;
        say_held(f, held, n_held - 1);
        return;
    }
    if (!wins) {
        f->v.hold = SEL_PIN_NO_WIN;
        f->v.would_promote = f->v.promote = 0;
        snprintf(f->v.rule, sizeof f->v.rule, "no significant win on any of the %zu hosts that measured both builds",
                 measured);
        return;
    }
    size_t len = strlen(f->v.rule);
    snprintf(f->v.rule + len, sizeof f->v.rule - len, "; %zu host%s measured both builds", measured,
             measured == 1 ? "" : "s");
}

void sel_pin_fleet_free(sel_pin_fleet *f)
{
    for (size_t i = 0; i < f->n_hosts; i++) {
        free(f->hosts[i].host);
        sel_pin_eval_free(&f->hosts[i].e);
    }
    free(f->hosts);
    sel_pin_eval_free(&f->all);
    memset(f, 0, sizeof *f);
}

/* The host of the fleet evaluation's pair (issues: 1) number i. */
static const char *host_of(const sel_pin_fleet *f, size_t i, int issues)
{
    for (size_t k = 0; k < f->n_hosts; k++) {
        size_t n = issues ? f->hosts[k].e.n_issues : f->hosts[k].e.n_pairs;
        if (i < n)
            return f->hosts[k].host;
        i -= n;
    }
    return "";
}

/* Adds "host" to each element of details' array name (comparisons or issues). */
static void name_hosts(const sel_pin_fleet *f, cJSON *details, const char *name, int issues)
{
    cJSON *it;
    size_t i = 0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(details, name))
        cJSON_AddStringToObject(it, "host", host_of(f, i++, issues));
}

void sel_pin_fleet_json(const sel_pin_fleet *f, cJSON *details)
{
    name_hosts(f, details, "comparisons", 0);
    name_hosts(f, details, "issues", 1);
    cJSON *a = cJSON_AddArrayToObject(details, "hosts");
    for (size_t i = 0; i < f->n_hosts; i++) {
        const sel_pin_fleet_host *h = &f->hosts[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "host", h->host);
        cJSON_AddStringToObject(o, "decision", h->v.promote ? "promote" : "keep");
        cJSON_AddStringToObject(o, "hold", sel_pin_hold_name(h->v.hold));
        cJSON_AddStringToObject(o, "rule", h->v.rule);
        cJSON_AddBoolToObject(o, "measured", h->v.hold != SEL_PIN_NO_CANDIDATE);
        cJSON_AddBoolToObject(o, "held_the_fleet", f->held_by && !strcmp(f->held_by, h->host));
        cJSON_AddNumberToObject(o, "wins", (double)h->v.n_wins);
        cJSON_AddNumberToObject(o, "regressions", (double)h->v.n_regressions);
        cJSON_AddNumberToObject(o, "comparisons", (double)h->e.n_pairs);
        cJSON_AddItemToArray(a, o);
    }
}
