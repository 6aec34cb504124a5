/* hunt.c: loading and rendering the page's regression hunting (evidence/hunt.h).
 * Not for detecting change points (stats/changepoint.c) or attributing them
 * (evidence/drift.c). */
#include "evidence/hunt.h"

#include "common/json.h"
#include "evidence/format.h"
#include "evidence/model.h"
#include "evidence/sessions.h"
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "store/bisectdb.h"
#include "store/factsdb.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_POINTS 8

/* The newest finished bisect as a paragraph. */
static int load_culprit(store *s, ev_hunt *h, lvd_err *err)
{
    store_bisect b;
    int rc = store_bisect_latest(s, &b, err);
    if (rc)
        return rc < 0 ? -1 : 0;
    cJSON *j = b.result_json ? cJSON_Parse(b.result_json) : NULL;
    lvd_sb sb = {0};
    char date[11];
    ev_date(b.finished_at, date);
    lvd_sb_addf(&sb, "Regression hunt (`lvd bisect --good %s --bad %s --test %s`, %s): ", b.good, b.bad, b.test, date);
    const char *first = lvd_json_string(j, "first_bad"), *last = lvd_json_string(j, "last_good");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
    const cJSON *skipped = cJSON_GetObjectItemCaseSensitive(j, "skipped");
    if (*first) {
        const char *gc = lvd_json_string(j, "good_commit"), *bc = lvd_json_string(j, "bad_commit");
        lvd_sb_addf(&sb, "first bad build **%s**%s%s%s, last good %s%s%s%s; %s ", first, *bc ? " (" : "", bc,
                    *bc ? ")" : "", last, *gc ? " (" : "", gc, *gc ? ")" : "", b.test);
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(j, "ci");
        double r = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "ratio"));
        if (cJSON_GetArraySize(ci) == 2)
            ev_fmt_delta(&sb, r, cJSON_GetNumberValue(cJSON_GetArrayItem(ci, 0)),
                         cJSON_GetNumberValue(cJSON_GetArrayItem(ci, 1)));
        else
            lvd_sb_adds(&sb, "–");
        lvd_sb_addf(&sb, " against %s. Compare: [%s...%s](%s).", b.good, last, first, lvd_json_string(j, "compare"));
    } else {
        lvd_sb_adds(&sb, "no boundary: only skipped builds remained between the last good and the first bad.");
    }
    lvd_sb_addf(&sb, " %d step(s), %d skipped", cJSON_GetArraySize(steps), cJSON_GetArraySize(skipped));
    const cJSON *x;
    int k = 0;
    cJSON_ArrayForEach(x, skipped)
    lvd_sb_addf(&sb, "%s%s: %s", k++ ? "; " : " (", lvd_json_string(x, "build"), lvd_json_string(x, "reason"));
    lvd_sb_adds(&sb, k ? ")." : ".");
    h->culprit = lvd_xstrdup(lvd_sb_str(&sb));
    lvd_sb_free(&sb);
    cJSON_Delete(j);
    store_bisect_free(&b);
    return 0;
}

/* One session of one series: the kept samples of its oldest build. */
typedef struct point {
    const char *session;
    int64_t at;
    long build_no;
    const char *build;
    double *v;
    size_t n;
} point;

/* One model's arm's test across sessions; its key (artifact, arm, test)
 * points into the runs. */
typedef struct series {
    const char *artifact, *arm_key, *test;
    char *label;
    point *p;
    size_t n;
    size_t *point_of;      /* by session number (sessions.h): its point's index + 1, 0 none */
} series;

typedef struct all_series {
    series *v;
    size_t n;
    size_t n_sessions;
} all_series;

static long build_no(const lvd_run *r)
{
    if (r->build_number > 0)
        return (long)r->build_number;
    return r->build && r->build[0] == 'b' ? strtol(r->build + 1, NULL, 10) : 0;
}

static series *series_of(all_series *a, const lvd_run *run, const lvd_result *res)
{
    const char *arm = run->arm_key ? run->arm_key : "";
    for (size_t i = a->n; i > 0; i--) { /* a run's series were seen last (its other tests) or a night ago */
        const series *x = &a->v[i - 1];
        if (!strcmp(x->test, res->test) && !strcmp(x->arm_key, arm) && !strcmp(x->artifact, run->artifact))
            return &a->v[i - 1];
    }
    a->v = lvd_xrealloc(a->v, (a->n + 1) * sizeof *a->v);
    series *s = &a->v[a->n++];
    memset(s, 0, sizeof *s);
    s->artifact = run->artifact;
    s->arm_key = arm;
    s->test = res->test;
    s->point_of = lvd_xcalloc(a->n_sessions + 1, sizeof *s->point_of);
    const lvd_params *p = &run->params;
    s->label = lvd_xasprintf("%s on %s%s", res->test, p->device[0] ? p->device : "CPU",
                             p->fa < 0 ? "" : p->fa ? " fa on" : " fa off");
    return s;
}

/* Adds run's kept samples of res to the point of its session (number sid). */
static void add_samples(series *s, const lvd_run *run, size_t sid, const lvd_result *res)
{
    point *pt;
    if (s->point_of[sid]) {
        pt = &s->p[s->point_of[sid] - 1];
    } else {
        s->p = lvd_xrealloc(s->p, (s->n + 1) * sizeof *s->p);
        pt = &s->p[s->n++];
        s->point_of[sid] = s->n;
        *pt = (point){.session = run->session, .at = run->started_at, .build_no = build_no(run), .build = run->build};
    }
    if (build_no(run) > pt->build_no)
        return; /* a candidate measured that night: the series follows the pinned build */
    if (build_no(run) < pt->build_no) {
        pt->n = 0, pt->build_no = build_no(run), pt->build = run->build;
    }
    if (run->started_at < pt->at)
        pt->at = run->started_at;
    double *k = NULL;
    size_t nk = stats_result_kept(res, &k, NULL);
    pt->v = lvd_xrealloc(pt->v, (pt->n + nk + 1) * sizeof *pt->v);
    memcpy(pt->v + pt->n, k, nk * sizeof *k);
    pt->n += nk;
    free(k);
}

static int by_time(const void *a, const void *b)
{
    int64_t x = ((const point *)a)->at, y = ((const point *)b)->at;
    return (x > y) - (x < y);
}

static int by_flag_time(const void *a, const void *b)
{
    int64_t x = ((const ev_drift_flag *)a)->at, y = ((const ev_drift_flag *)b)->at;
    return (x > y) - (x < y);
}

/* The series' change points into h->flags. */
static int flag_series(series *s, const store_fact *facts, size_t nf, ev_hunt *h, lvd_err *err)
{
    qsort(s->p, s->n, sizeof *s->p, by_time);
    ev_drift_point *pts = lvd_xcalloc(s->n + 1, sizeof *pts);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->p[i].n)
            pts[n++] = (ev_drift_point){.at = s->p[i].at, .session = s->p[i].session,
                                        .build = s->p[i].build ? s->p[i].build : "unknown",
                                        .median = stats_median(s->p[i].v, s->p[i].n)};
    ev_drift_fact *f = lvd_xcalloc(nf + 1, sizeof *f);
    for (size_t i = 0; i < nf; i++)
        f[i] = (ev_drift_fact){.session = facts[i].session, .name = facts[i].name, .value = facts[i].value};
    int rc = n >= MIN_POINTS ? ev_drift_series(s->label, pts, n, f, nf, &h->flags, &h->n_flags, err) : 0;
    free(f);
    free(pts);
    return rc;
}

static void series_free(all_series *a)
{
    for (size_t i = 0; i < a->n; i++) {
        for (size_t j = 0; j < a->v[i].n; j++)
            free(a->v[i].p[j].v);
        free(a->v[i].p);
        free(a->v[i].point_of);
        free(a->v[i].label);
    }
    free(a->v);
}

static int64_t session_time(const lvd_run *runs, size_t n, const char *session)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].session && !strcmp(runs[i].status, "ok") && !strcmp(runs[i].session, session) &&
            (!t || runs[i].started_at < t))
            t = runs[i].started_at;
    return t;
}

/* The newest pin decision's sessions against the drift flags. */
static int load_pin_note(store *s, const lvd_run *runs, size_t nr, ev_hunt *h, lvd_err *err)
{
    lvd_pin_decision *d;
    size_t nd;
    if (store_pin_decision_list(s, 1, &d, &nd, err))
        return -1;
    cJSON *j = nd && d[0].details_json ? cJSON_Parse(d[0].details_json) : NULL;
    const cJSON *ss = cJSON_GetObjectItemCaseSensitive(j, "sessions");
    for (size_t i = 0; i < h->n_flags && !h->pin_note; i++) {
        const ev_drift_flag *f = &h->flags[h->n_flags - 1 - i]; /* the newest drift first */
        if (f->by_build)
            continue;
        size_t before = 0, after = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, ss)
        {
            int64_t t = cJSON_IsString(x) ? session_time(runs, nr, x->valuestring) : 0;
            before += t && t < f->at;
            after += t && t >= f->at;
        }
        if (before && after)
            h->pin_note = lvd_xasprintf("The newest pin decision was made across a flagged change point (%s): "
                                        "%zu of its sessions lie before it and %zu after; only sessions on the "
                                        "same side of it compare.", f->line, before, after);
        else if (before + after)
            h->pin_note = lvd_xasprintf("Drift flagged (%s): the newest pin decision compares only sessions %s it.",
                                        f->line, after ? "after" : "before");
    }
    cJSON_Delete(j);
    store_pin_decision_list_free(d, nd);
    return 0;
}

size_t ev_hunt_nights(size_t nights)
{
    stats_cp_opts cp;
    stats_cp_default(&cp);
    return nights + 2 * cp.window;
}

int ev_hunt_load(store *s, const char *host, const lvd_run *runs, size_t nr, ev_hunt *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (load_culprit(s, out, err))
        return -1;
    store_fact *facts = NULL;
    size_t nf = 0;
    if (store_facts_list(s, host, &facts, &nf, err)) {
        ev_hunt_free(out);
        return -1;
    }
    all_series a = {0};
    size_t *sid = lvd_xcalloc(nr + 1, sizeof *sid);
    a.n_sessions = ev_session_ids(runs, nr, sid);
    for (size_t i = 0; i < nr; i++)
        for (size_t k = 0; runs[i].session && !strcmp(runs[i].status, "ok") && k < runs[i].n_results; k++)
            add_samples(series_of(&a, &runs[i], &runs[i].results[k]), &runs[i], sid[i], &runs[i].results[k]);
    free(sid);
    int rc = 0;
    for (size_t i = 0; i < a.n && rc == 0; i++)
        rc = flag_series(&a.v[i], facts, nf, out, err);
    if (out->n_flags)
        qsort(out->flags, out->n_flags, sizeof *out->flags, by_flag_time);
    if (rc == 0)
        rc = load_pin_note(s, runs, nr, out, err);
    series_free(&a);
    store_facts_free(facts, nf);
    if (rc)
        ev_hunt_free(out);
    return rc;
}

void ev_hunt_free(ev_hunt *h)
{
    free(h->culprit);
    free(h->pin_note);
    ev_drift_flags_free(h->flags, h->n_flags);
    memset(h, 0, sizeof *h);
}

void ev_hunt_render_culprit(lvd_sb *sb, const ev_hunt *h)
{
    if (h->culprit)
        lvd_sb_addf(sb, "%s\n\n", h->culprit);
    if (h->pin_note)
        lvd_sb_addf(sb, "%s\n\n", h->pin_note);
}

void ev_hunt_render_drift(lvd_sb *sb, const ev_hunt *h)
{
    if (!h->n_flags)
        return; /* nothing flagged: no section */
    lvd_sb_adds(sb, "\n## Drift\n\nSteps in the nightly medians of each arm and test (two-window test on "
                    "medians, stats/changepoint.h); a step under an unchanged build is drift, named with the "
                    "host facts that changed that night.\n\n");
    for (size_t i = 0; i < h->n_flags; i++) {
        lvd_sb_adds(sb, h->flags[i].by_build ? "- " : "- **drift**: ");
        lvd_sb_adds(sb, h->flags[i].line); /* one line of our own words and host facts, "->" kept */
        lvd_sb_adds(sb, "\n");
    }
}
