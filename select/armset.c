/* armset.c: runs grouped into arms with the kept samples of their newest
 * session (see armset.h). */
#include "select/armset.h"

#include "stats/energy.h"
#include "stats/stats.h"
#include "store/store.h"
#include "store/store_newest.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *session_of(const lvd_run *r)
{
    return r->session ? r->session : "";
}

/* Order of runs: artifact, engine, arm key, then start time and id. */
static int cmp_runs(const void *pa, const void *pb)
{
    const lvd_run *a = *(const lvd_run *const *)pa, *b = *(const lvd_run *const *)pb;
    int c = strcmp(a->artifact, b->artifact);
    if (c)
        return c;
    if (a->engine_id != b->engine_id)
        return a->engine_id < b->engine_id ? -1 : 1;
    c = strcmp(a->arm_key ? a->arm_key : "", b->arm_key ? b->arm_key : "");
    if (c)
        return c;
    if (a->started_at != b->started_at)
        return a->started_at < b->started_at ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int same_arm(const lvd_run *a, const lvd_run *b)
{
    return !strcmp(a->artifact, b->artifact) && a->engine_id == b->engine_id &&
           !strcmp(a->arm_key ? a->arm_key : "", b->arm_key ? b->arm_key : "");
}

static sel_series *series_for(sel_arm *a, const lvd_result *r)
{
    for (size_t i = 0; i < a->n_series; i++)
        if (!strcmp(a->series[i].test, r->test))
            return &a->series[i];
    a->series = lvd_xrealloc(a->series, (a->n_series + 1) * sizeof *a->series);
    sel_series *s = &a->series[a->n_series++];
    memset(s, 0, sizeof *s);
    snprintf(s->test, sizeof s->test, "%s", r->test);
    s->n_prompt = r->n_prompt;
    s->n_gen = r->n_gen;
    s->n_depth = r->n_depth;
    return s;
}

static void add_result(sel_arm *a, const lvd_result *r, int ok)
{
    sel_series *s = series_for(a, r);
    double *kept;
    size_t warm;
    size_t n = stats_result_kept(r, &kept, &warm);
    s->n_warmup += warm;
    if (n) {
        s->ts = lvd_xrealloc(s->ts, (s->n + n) * sizeof *s->ts);
        memcpy(s->ts + s->n, kept, n * sizeof *kept);
        s->n += n;
    }
    free(kept);
    for (size_t k = 0; k < r->n; k++) {
        double v = stats_sample_tpj(r, k);
        if (isfinite(v)) {
            s->tpj = lvd_xrealloc(s->tpj, (s->n_tpj + 1) * sizeof *s->tpj);
            s->tpj[s->n_tpj++] = v;
        }
    }
    if (ok && !a->backends[0] && r->backends[0])
        snprintf(a->backends, sizeof a->backends, "%s", r->backends);
}

/* Fills a from the runs g[0..n) of one arm, sorted oldest first. */
static void build_arm(const lvd_run *const *g, size_t n, sel_arm *a)
{
    const lvd_run *newest = g[n - 1];
    memset(a, 0, sizeof *a);
    snprintf(a->artifact, sizeof a->artifact, "%s", newest->artifact);
    a->engine_id = newest->engine_id;
    a->arm_key = lvd_xstrdup(newest->arm_key ? newest->arm_key : "");
    a->params = newest->params;
    a->session = lvd_xstrdup(session_of(newest));
    const lvd_run *newest_bad = NULL;
    int any_ok = 0;
    for (size_t i = 0; i < n; i++) {
        const lvd_run *r = g[i];
        if (strcmp(session_of(r), a->session))
            continue;
        if (!a->n_runs++ || r->started_at < a->started_at)
            a->started_at = r->started_at;
        if (strcmp(r->status, "ok")) {
            a->n_failed++;
            newest_bad = r;
            continue;
        }
        any_ok = 1;
        for (size_t k = 0; k < r->n_results; k++)
            add_result(a, &r->results[k], 1);
    }
    /* nothing ran as asked: show what the runs that ignored the GPU flags measured */
    for (size_t i = 0; !any_ok && i < n; i++)
        if (!strcmp(session_of(g[i]), a->session) && !strcmp(g[i]->status, "gpu_ignored"))
            for (size_t k = 0; k < g[i]->n_results; k++)
                add_result(a, &g[i]->results[k], 0);
    snprintf(a->status, sizeof a->status, "%s", any_ok ? "ok" : newest->status);
    if (newest_bad && newest_bad->reason)
        a->reason = lvd_xstrdup(newest_bad->reason);
}

void sel_armset_build(const lvd_run *runs, size_t n, sel_armset *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return;
    const lvd_run **idx = lvd_xmalloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = &runs[i];
    qsort(idx, n, sizeof *idx, cmp_runs);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && same_arm(idx[i], idx[j]))
            j++;
        out->v = lvd_xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        build_arm(idx + i, j - i, &out->v[out->n++]);
        i = j;
    }
    free(idx);
}

static int same_session(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

/* Appends to *all the runs of v[0..n) (listed for session; NULL: every
 * session) that are of session and of a kept arm whose newest session it is
 * (arms, keep), moving them out of v (left zeroed, freed with v). */
static void take_session_runs(lvd_run *v, size_t n, const char *session, const store_arm_session *arms,
                              size_t na, const unsigned char *keep, lvd_run **all, size_t *n_all, size_t *cap)
{
    for (size_t i = 0; i < n; i++) {
        const store_arm_session *a = store_arm_session_find(arms, na, v[i].artifact, v[i].engine_id, v[i].arm_key);
        if (!a || !keep[a - arms] || !same_session(v[i].session, session) || !same_session(a->session, session))
            continue;
        if (*n_all == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            *all = lvd_xrealloc(*all, *cap * sizeof **all);
        }
        (*all)[(*n_all)++] = v[i];
        memset(&v[i], 0, sizeof v[i]);
    }
}

/* Whether kept arms[i]'s session already came up among the kept arms[0..i). */
static int session_seen(const store_arm_session *arms, const unsigned char *keep, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (keep[k] && same_session(arms[k].session, arms[i].session))
            return 1;
    return 0;
}

/* The runs of the kept arms' newest sessions, with results and samples: one
 * listing per distinct session (usually one: the last night). 0 or -1. */
static int load_sessions(store *s, const store_run_filter *base, const store_arm_session *arms, size_t na,
                         const unsigned char *keep, lvd_run **all, size_t *n_all, lvd_err *err)
{
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < na && rc == 0; i++) {
        if (!keep[i] || session_seen(arms, keep, i))
            continue;
        store_run_filter f = *base;
        f.session = arms[i].session;
        /* a named session is read on runs_night (store_run_list), the engine and
         * arm asked for filtered beside it; take_session_runs keeps the arms picked */
        lvd_run *runs;
        size_t n;
        rc = store_run_list(s, &f, &runs, &n, err);
        if (rc == 0) {
            take_session_runs(runs, n, f.session, arms, na, keep, all, n_all, &cap);
            store_run_list_free(runs, n);
        }
    }
    if (rc)
        return rc;
    return store_run_load_results(s, *all, *n_all, err);
}

/* The kept arms' newest sessions bare (store_arm_session_shape: runs and
 * results without samples or parameters), one query an arm. 0 or -1. */
static int load_shapes(store *s, const char *host, const store_arm_session *arms, size_t na,
                       const unsigned char *keep, lvd_run **all, size_t *n_all, lvd_err *err)
{
    int rc = 0;
    for (size_t i = 0; i < na && rc == 0; i++) {
        if (!keep[i])
            continue;
        lvd_run *runs;
        size_t n;
        rc = store_arm_session_shape(s, &arms[i], host, &runs, &n, err);
        if (rc == 0 && n) {
            *all = lvd_xrealloc(*all, (*n_all + n) * sizeof **all);
            memcpy(*all + *n_all, runs, n * sizeof *runs);
            *n_all += n;
        }
        if (rc == 0)
            free(runs); /* its runs moved into *all */
    }
    return rc;
}

/* sel_armset_load_picked (pick NULL: every arm); shape: without samples. */
static int load_picked(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                       sel_arm_pick_fn pick, void *ctx, int shape, sel_armset *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    host = host ? host : lvd_hostname();
    store_arm_session *arms;
    size_t na;
    if (store_arm_newest_sessions(s, artifact, host, engine_id, arm_key, &arms, &na, err) != 0)
        return -1;
    unsigned char *keep = lvd_xcalloc(na ? na : 1, 1);
    if (pick)
        pick(arms, na, keep, ctx);
    else
        memset(keep, 1, na);
    /* an arm is its newest session's runs (build_arm): only those are read */
    store_run_filter f = {.artifact = artifact, .host = host, .engine_id = engine_id, .arm_key = arm_key};
    lvd_run *all = NULL;
    size_t n_all = 0;
    int rc = shape ? load_shapes(s, host, arms, na, keep, &all, &n_all, err)
                   : load_sessions(s, &f, arms, na, keep, &all, &n_all, err);
    if (rc == 0)
        sel_armset_build(all, n_all, out);
    store_run_list_free(all, n_all);
    free(keep);
    store_arm_sessions_free(arms, na);
    return rc;
}

int sel_armset_load_picked(store *s, const char *artifact, const char *host, int64_t engine_id,
                           const char *arm_key, sel_arm_pick_fn pick, void *ctx, sel_armset *out, lvd_err *err)
{
    return load_picked(s, artifact, host, engine_id, arm_key, pick, ctx, 0, out, err);
}

int sel_armset_load(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                    sel_armset *out, lvd_err *err)
{
    return load_picked(s, artifact, host, engine_id, arm_key, NULL, NULL, 0, out, err);
}

int sel_armset_load_shape(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                          sel_armset *out, lvd_err *err)
{
    return load_picked(s, artifact, host, engine_id, arm_key, NULL, NULL, 1, out, err);
}

void sel_armset_free(sel_armset *set)
{
    for (size_t i = 0; i < set->n; i++) {
        sel_arm *a = &set->v[i];
        free(a->arm_key);
        free(a->session);
        free(a->reason);
        for (size_t k = 0; k < a->n_series; k++) {
            free(a->series[k].ts);
            free(a->series[k].tpj);
        }
        free(a->series);
    }
    free(set->v);
    memset(set, 0, sizeof *set);
}

const sel_series *sel_arm_series(const sel_arm *a, const char *test)
{
    for (size_t i = 0; i < a->n_series; i++)
        if (!strcmp(a->series[i].test, test))
            return &a->series[i];
    return NULL;
}

void sel_backend_label(const lvd_probe *probe, const char *reported, char *out, size_t n)
{
    if (probe && probe->backend[0] && strcmp(probe->backend, LVD_BACKEND_UNKNOWN)) {
        snprintf(out, n, "%s", probe->backend);
        return;
    }
    size_t k = 0;
    for (const char *p = reported ? reported : ""; *p && *p != ',' && k + 1 < n; p++)
        if (!isspace((unsigned char)*p))
            out[k++] = (char)tolower((unsigned char)*p);
    out[k] = '\0';
    if (!k)
        snprintf(out, n, "%s", LVD_BACKEND_UNKNOWN);
}

size_t sel_params_words(const lvd_params *p, char (*words)[256], size_t max)
{
    size_t n = 0;
#define WORD(...)                                              \
    do {                                                       \
        if (n < max)                                           \
            snprintf(words[n++], sizeof words[0], __VA_ARGS__); \
    } while (0)
    if (p->device[0])
        WORD("%s", p->device);
    if (p->split_mode[0])
        WORD("sm %s", p->split_mode);
    if (p->tensor_split[0])
        WORD("ts %s", p->tensor_split);
    if (p->ngl >= 0)
        WORD("ngl %d", p->ngl);
    if (p->fa >= 0)
        WORD("fa %d", p->fa);
    if (p->ubatch > 0)
        WORD("ub %d", p->ubatch);
    if (p->type_k[0])
        WORD("ctk %s", p->type_k);
    if (p->type_v[0])
        WORD("ctv %s", p->type_v);
    if (p->n_cpu_moe > 0)
        WORD("ncmoe %d", p->n_cpu_moe);
    if (p->threads > 0)
        WORD("t %d", p->threads);
    if (p->parallel > 0)
        WORD("np %d", p->parallel);
    if (p->fused_moe >= 0)
        WORD("fmoe %d", p->fused_moe);
    if (p->repack >= 0)
        WORD("rtr %d", p->repack);
    size_t ne;
    char **env = lvd_split(p->env, ' ', &ne);
    for (size_t i = 0; i < ne; i++)
        WORD("%s", env[i]);
    lvd_strv_free(env);
#undef WORD
    return n;
}

char *sel_params_brief(const lvd_params *p)
{
    char words[24][256];
    size_t n = sel_params_words(p, words, LVD_ARRAY_LEN(words));
    if (!n)
        return lvd_xstrdup("defaults");
    lvd_sb sb = {0};
    for (size_t i = 0; i < n; i++)
        lvd_sb_addf(&sb, "%s%s", i ? ", " : "", words[i]);
    return lvd_sb_detach(&sb);
}

char *sel_arm_words(const char *backend, const char *engine, const lvd_params *p)
{
    char words[24][256];
    size_t n = sel_params_words(p, words, LVD_ARRAY_LEN(words));
    lvd_sb sb = {0};
    lvd_sb_adds(&sb, backend && *backend ? backend : LVD_BACKEND_UNKNOWN);
    for (size_t i = 0; i < n; i++)
        lvd_sb_addf(&sb, "%s%s", i ? ", " : " · ", words[i]);
    if (engine)
        lvd_sb_addf(&sb, " on %s", engine);
    return lvd_sb_detach(&sb);
}
