/* model.c: the evidence page as data (see model.h), the pure part: a
 * model's arms, columns, ranking and deltas from what the caller hands in,
 * and freeing (the history across nights is history.c). Not for reading the
 * store (load.c), rendering (markdown.c, svg.c) nor writing files (write.c). */
#include "evidence/model.h"

#include "common/parallel.h"
#include "evidence/energy.h"
#include "stats/rank.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- small helpers --------------------------------------------------------- */

void ev_date(int64_t t, char out[11])
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || strftime(out, 11, "%Y-%m-%d", &tm) == 0)
        snprintf(out, 11, "?");
}

void ev_datetime(int64_t t, char out[24])
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || strftime(out, 24, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(out, 24, "?");
}

/* --- columns and figures --------------------------------------------------- */

typedef int (*kind_fn)(int n_prompt, int n_gen);

static int series_size(const sel_series *s)
{
    return s->n_prompt + s->n_gen;
}

/* The test of kind at the serving depth (the deepest measured, as the
 * verdict decides: bench/depth.h) most arms measured (ties: the larger,
 * then the name). */
static void choose_column(const ev_arm_in *in, size_t n, kind_fn is_kind, char *out, size_t len)
{
    const sel_series *best = NULL;
    size_t best_count = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < in[i].arm->n_series; k++) {
            const sel_series *s = &in[i].arm->series[k];
            if (!s->n || !is_kind(s->n_prompt, s->n_gen) || (best && s->n_depth < best->n_depth))
                continue;
            size_t count = 0;
            for (size_t j = 0; j < n; j++) {
                const sel_series *o = sel_arm_series(in[j].arm, s->test);
                count += o && o->n;
            }
            if (!best || s->n_depth > best->n_depth || count > best_count ||
                (count == best_count && (series_size(s) > series_size(best) ||
                                         (series_size(s) == series_size(best) && strcmp(s->test, best->test) < 0)))) {
                best = s;
                best_count = count;
            }
        }
    }
    if (best)
        snprintf(out, len, "%s", best->test);
}

/* The arm's series for a column: the column's test, else its own largest
 * test of the kind (depth 0 preferred), else NULL. */
static const sel_series *pick_series(const sel_arm *a, const char *column, kind_fn is_kind)
{
    const sel_series *s = column[0] ? sel_arm_series(a, column) : NULL;
    if (s && s->n)
        return s;
    const sel_series *best = NULL;
    for (size_t k = 0; k < a->n_series; k++) {
        const sel_series *x = &a->series[k];
        if (!x->n || !is_kind(x->n_prompt, x->n_gen))
            continue;
        if (!best || (x->n_depth == 0) > (best->n_depth == 0) ||
            ((x->n_depth == 0) == (best->n_depth == 0) && series_size(x) > series_size(best)))
            best = x;
    }
    return best;
}

static void fill_stat(ev_stat *st, const sel_series *s, const stats_rule *rule)
{
    memset(st, 0, sizeof *st);
    if (!s)
        return;
    snprintf(st->test, sizeof st->test, "%s", s->test);
    st->n = s->n;
    st->n_warmup = s->n_warmup;
    if (!s->n)
        return;
    st->has = 1;
    st->median = stats_median(s->ts, s->n);
    const double one = 1.0;
    if (stats_bootstrap_ratio_ci(s->ts, s->n, &one, 1, rule->boot_b, rule->level, rule->seed, &st->lo,
                               &st->hi) != 0)
        st->lo = st->hi = st->median;
}

static void fill_delta(ev_delta *d, const sel_series *a, const sel_series *b, size_t other,
                       const stats_rule *rule)
{
    memset(d, 0, sizeof *d);
    if (!a || !b || !a->n || !b->n)
        return;
    stats_comparison c;
    if (stats_compare(a->ts, a->n, b->ts, b->n, rule, &c) != 0 || !isfinite(c.ratio))
        return;
    d->has = 1;
    d->ratio = c.ratio;
    d->lo = c.ci_lo;
    d->hi = c.ci_hi;
    d->p = c.p;
    d->other = other;
}

/* --- labels ------------------------------------------------------------------ */

typedef char word[256];

static int has_word(const word *w, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(w[i], s))
            return 1;
    return 0;
}

static char *join_words(const word *w, size_t n, const word *skip, size_t n_skip)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < n; i++)
        if (!skip || !has_word(skip, n_skip, w[i]))
            lvd_sb_addf(&sb, "%s%s", sb.len ? ", " : "", w[i]);
    return lvd_sb_detach(&sb);
}

/* Sets m->common and every arm's params and label. */
static void label_arms(ev_model *m, ev_arm *arms, const ev_arm_in *in, size_t n)
{
    enum { MAXW = 24 };
    word *w = lvd_xcalloc(n ? n * MAXW : 1, sizeof *w);
    size_t *nw = lvd_xcalloc(n ? n : 1, sizeof *nw);
    for (size_t i = 0; i < n; i++)
        nw[i] = sel_params_words(&in[i].arm->params, w + i * MAXW, MAXW);
    word common[MAXW];
    size_t nc = 0;
    for (size_t k = 0; n && k < nw[0]; k++) {
        int everywhere = 1;
        for (size_t i = 1; i < n && everywhere; i++)
            everywhere = has_word(w + i * MAXW, nw[i], w[k]);
        if (everywhere)
            snprintf(common[nc++], sizeof common[0], "%s", w[k]);
    }
    m->common = n > 1 ? join_words(common, nc, NULL, 0) : lvd_xstrdup("");
    for (size_t i = 0; i < n; i++) {
        ev_arm *a = &arms[i];
        a->params = n > 1 ? join_words(w + i * MAXW, nw[i], common, nc) : join_words(w, nw[0], NULL, 0);
        int shared = 0;
        for (size_t j = 0; j < n; j++)
            shared |= j != i && in[j].arm->engine_id != in[i].arm->engine_id && !strcmp(in[j].backend, in[i].backend);
        lvd_sb sb = {0};
        lvd_sb_adds(&sb, a->backend);
        if (shared)
            lvd_sb_addf(&sb, " %s", a->engine);
        if (a->params[0])
            lvd_sb_addf(&sb, " · %s", a->params);
        a->label = lvd_sb_detach(&sb);
    }
    free(w);
    free(nw);
}

/* --- one arm ----------------------------------------------------------------- */

static char *check_line(const ev_arm_in *x)
{
    if (!x->check_status)
        return lvd_xstrdup("not checked");
    if (!strcmp(x->check_status, "base"))
        return lvd_xstrdup("base (CPU reference)");
    if (x->check_text && *x->check_text)
        return lvd_xasprintf("%s (%s)", x->check_status, x->check_text);
    return lvd_xstrdup(x->check_status);
}

static int check_failed(const char *status)
{
    return status && (!strcmp(status, "fail") || !strcmp(status, "error"));
}

static void fill_arm(ev_arm *a, const ev_arm_in *x)
{
    const sel_arm *s = x->arm;
    memset(a, 0, sizeof *a);
    a->backend = lvd_xstrdup(x->backend ? x->backend : LVD_BACKEND_UNKNOWN);
    a->engine = x->engine ? lvd_xstrdup(x->engine) : lvd_xasprintf("engine %lld", (long long)s->engine_id);
    /* the build, and since llama.cpp's SemVer releases the version beside
     * it; an engine of another family says which ("ik4840, ik_llama.cpp") */
    const char *family = x->family && strcmp(x->family, LVD_FAMILY_MAINLINE) ? x->family : NULL;
    a->build = x->semver ? lvd_xasprintf("%s, %s", x->build ? x->build : "?", x->semver)
               : family  ? lvd_xasprintf("%s, %s", x->build ? x->build : "?", family)
                         : lvd_xstrdup(x->build ? x->build : "?");
    a->arm_key = lvd_xstrdup(s->arm_key);
    a->engine_id = s->engine_id;
    a->run_params = s->params;
    a->is_verdict = x->is_verdict;
    a->check = check_line(x);
    snprintf(a->status, sizeof a->status, "%s", s->status);
    if (!strcmp(s->status, "gpu_ignored")) {
        const char *r = s->reason ? s->reason : "llama-bench ran on the CPU";
        static const char tag[] = "GPU flags ignored: "; /* the runner's reasons carry it already */
        a->why = strncmp(r, tag, sizeof tag - 1) ? lvd_xasprintf("%s%s", tag, r) : lvd_xstrdup(r);
    } else if (strcmp(s->status, "ok")) {
        a->why = lvd_xasprintf("%s: %s", s->status, s->reason ? s->reason : "no run of its newest session succeeded");
    } else if (check_failed(x->check_status)) {
        snprintf(a->status, sizeof a->status, "excluded");
        a->why = lvd_xasprintf("failed its correctness check: %s", a->check);
    } else if (s->n_failed) {
        a->why = lvd_xasprintf("%zu of %zu runs of its newest session failed%s%s", s->n_failed, s->n_runs,
                               s->reason ? ": " : "", s->reason ? s->reason : "");
    }
}

/* --- the model ----------------------------------------------------------------- */

/* The CPU reference (stats/rank.h stats_cpu_reference) among the arms in
 * armset order: an arm is usable when it is eligible and has figures. */
static size_t cpu_reference(const ev_arm *arms, const sel_series *const *pp, const sel_series *const *tg, size_t n)
{
    const char **backend = lvd_xcalloc(n ? n : 1, sizeof *backend);
    int *usable = lvd_xcalloc(n ? n : 1, sizeof *usable);
    for (size_t i = 0; i < n; i++) {
        backend[i] = arms[i].backend;
        usable[i] = !strcmp(arms[i].status, "ok") && (pp[i] || tg[i]);
    }
    size_t ref = stats_cpu_reference(backend, usable, n);
    free(backend);
    free(usable);
    return ref;
}

static void swap_delta_index(ev_delta *d, const size_t *pos)
{
    if (d->has)
        d->other = pos[d->other];
}

/* One delta to compute: fill_delta's arguments. */
typedef struct delta_job {
    ev_delta *d;
    const sel_series *a, *b;
    size_t other;
} delta_job;

typedef struct delta_jobs {
    delta_job *v;
    size_t n, cap;
    const stats_rule *rule;
} delta_jobs;

/* Queues one delta (fill_delta clears *d when it runs). */
static void delta_add(delta_jobs *j, ev_delta *d, const sel_series *a, const sel_series *b, size_t other)
{
    if (j->n == j->cap) {
        j->cap = j->cap ? 2 * j->cap : 32;
        j->v = lvd_xrealloc(j->v, j->cap * sizeof *j->v);
    }
    j->v[j->n++] = (delta_job){d, a, b, other};
}

static void delta_run(size_t i, void *ctx)
{
    const delta_jobs *j = ctx;
    fill_delta(j->v[i].d, j->v[i].a, j->v[i].b, j->v[i].other, j->rule);
}

/* One figure to compute: fill_stat's arguments. */
typedef struct stat_job {
    ev_stat *st;
    const sel_series *s;
} stat_job;

typedef struct stat_jobs {
    stat_job *v;
    size_t n;
    const stats_rule *rule;
} stat_jobs;

static void stat_run(size_t i, void *ctx)
{
    const stat_jobs *j = ctx;
    fill_stat(j->v[i].st, j->v[i].s, j->rule);
}

/* The work arrays of one computation. */
typedef struct work {
    ev_arm *arms;                 /* in the caller's (armset) order */
    const sel_series **pp, **tg;  /* each arm's series of the columns */
    stats_rank_arm *ra;
    size_t *by_rank;              /* arm index by rank - 1 */
    size_t n, n_ranked;
} work;

/* Fills the arms, their series and figures, and the ranking input. */
static void fill_arms(ev_model *m, work *w, const ev_arm_in *in, const stats_objective *obj, const stats_rule *rule)
{
    stat_jobs j = {.v = lvd_xcalloc(2 * w->n + 1, sizeof *j.v), .rule = rule};
    for (size_t i = 0; i < w->n; i++) {
        fill_arm(&w->arms[i], &in[i]);
        w->pp[i] = pick_series(in[i].arm, m->pp_test, stats_test_is_pp);
        w->tg[i] = pick_series(in[i].arm, m->tg_test, stats_test_is_tg);
        j.v[j.n++] = (stat_job){&w->arms[i].pp, w->pp[i]};
        j.v[j.n++] = (stat_job){&w->arms[i].tg, w->tg[i]};
        ev_energy_fill(&w->arms[i].pp_j, w->pp[i], rule);
        ev_energy_fill(&w->arms[i].tg_j, w->tg[i], rule);
        const sel_series *x = obj->kind == STATS_OBJ_PP ? w->pp[i] : w->tg[i];
        stats_rank_arm *r = &w->ra[i];
        r->label = w->arms[i].engine;
        r->eligible = !strcmp(w->arms[i].status, "ok");
        r->x = x ? x->ts : NULL;
        r->nx = x ? x->n : 0;
        if (obj->kind == STATS_OBJ_WEIGHTED) {
            r->y = w->pp[i] ? w->pp[i]->ts : NULL;
            r->ny = w->pp[i] ? w->pp[i]->n : 0;
        }
    }
    /* each figure's interval is its own bootstrap: on the cores, the same on any number of them */
    lvd_parallel_for(j.n, 0, stat_run, &j);
    free(j.v);
    label_arms(m, w->arms, in, w->n);
}

/* The deltas: against the CPU reference, the best-ranked arm of another
 * backend, and the leader against the arm ranked second. */
static void fill_deltas(ev_model *m, const work *w, const stats_rule *rule)
{
    ev_arm *arms = w->arms;
    delta_jobs j = {.rule = rule};
    size_t ref = cpu_reference(arms, w->pp, w->tg, w->n);
    for (size_t i = 0; i < w->n; i++) {
        if (ref != SIZE_MAX && i != ref) {
            delta_add(&j, &arms[i].pp_vs_cpu, w->pp[i], w->pp[ref], ref);
            delta_add(&j, &arms[i].tg_vs_cpu, w->tg[i], w->tg[ref], ref);
        }
    }
    if (ref != SIZE_MAX)
        arms[ref].is_ref = 1;
    for (size_t i = 0; i < w->n; i++) {
        size_t alt = SIZE_MAX;
        for (size_t k = 0; k < w->n_ranked && alt == SIZE_MAX; k++)
            if (w->by_rank[k] != i && strcmp(arms[w->by_rank[k]].backend, arms[i].backend))
                alt = w->by_rank[k];
        if (alt != SIZE_MAX) {
            delta_add(&j, &arms[i].pp_vs_alt, w->pp[i], w->pp[alt], alt);
            delta_add(&j, &arms[i].tg_vs_alt, w->tg[i], w->tg[alt], alt);
        }
    }
    if (w->n_ranked >= 2) {
        size_t a = w->by_rank[0], b = w->by_rank[1];
        delta_add(&j, &m->second_pp, w->pp[a], w->pp[b], b);
        delta_add(&j, &m->second_tg, w->tg[a], w->tg[b], b);
    }
    /* each delta is its own bootstrap (seeded by the rule): the cores share
       them, the figures are the same on any number of them */
    lvd_parallel_for(j.n, 0, delta_run, &j);
    free(j.v);
}

/* Moves the arms into m: ranked by rank, then unranked eligible, then
 * excluded, each stable; the deltas' indices follow. */
static void order_arms(ev_model *m, const work *w)
{
    size_t n = w->n;
    size_t *order = lvd_xcalloc(n ? n : 1, sizeof *order), *pos = lvd_xcalloc(n ? n : 1, sizeof *pos);
    size_t k = 0;
    for (size_t r = 0; r < w->n_ranked; r++)
        order[k++] = w->by_rank[r];
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (!w->arms[i].rank && (!strcmp(w->arms[i].status, "ok") == !pass))
                order[k++] = i;
    m->arms = lvd_xcalloc(n ? n : 1, sizeof *m->arms);
    m->n_arms = n;
    for (size_t j = 0; j < n; j++) {
        pos[order[j]] = j;
        m->arms[j] = w->arms[order[j]];
    }
    for (size_t j = 0; j < n; j++) {
        swap_delta_index(&m->arms[j].pp_vs_cpu, pos);
        swap_delta_index(&m->arms[j].tg_vs_cpu, pos);
        swap_delta_index(&m->arms[j].pp_vs_alt, pos);
        swap_delta_index(&m->arms[j].tg_vs_alt, pos);
    }
    swap_delta_index(&m->second_pp, pos);
    swap_delta_index(&m->second_tg, pos);
    free(order);
    free(pos);
}

static void work_free(work *w)
{
    free(w->pp);
    free(w->tg);
    free(w->ra);
    free(w->by_rank);
}

int ev_model_compute(ev_model *m, const ev_arm_in *in, size_t n, const char *objective, lvd_err *err)
{
    stats_objective obj;
    if (objective) {
        if (stats_objective_parse(objective, &obj, err) != 0)
            return -1;
    } else {
        stats_objective_default(&obj);
    }
    stats_objective_name(&obj, m->objective, sizeof m->objective);
    choose_column(in, n, stats_test_is_pp, m->pp_test, sizeof m->pp_test);
    choose_column(in, n, stats_test_is_tg, m->tg_test, sizeof m->tg_test);

    stats_rule rule;
    stats_rule_default(&rule);
    size_t cap = n ? n : 1;
    work w = {.arms = lvd_xcalloc(cap, sizeof *w.arms), .pp = lvd_xcalloc(cap, sizeof *w.pp),
              .tg = lvd_xcalloc(cap, sizeof *w.tg), .ra = lvd_xcalloc(cap, sizeof *w.ra), .n = n};
    fill_arms(m, &w, in, &obj, &rule);

    stats_rank_opts ro;
    stats_rank_opts_init(&ro);
    if (obj.kind == STATS_OBJ_WEIGHTED)
        ro.w = obj.w;
    stats_ranking rk;
    if (stats_rank(w.ra, n, &ro, &rk, err) != 0) {
        m->arms = w.arms; /* ev_model_free releases them */
        m->n_arms = n;
        work_free(&w);
        return -1;
    }
    m->state = lvd_xstrdup(stats_rank_state_name(rk.state));
    w.n_ranked = rk.n_ranked;
    w.by_rank = lvd_xcalloc(w.n_ranked + 1, sizeof *w.by_rank);
    for (size_t k = 0; k < rk.n; k++) {
        if (rk.v[k].rank) {
            w.arms[rk.v[k].arm].rank = rk.v[k].rank;
            w.by_rank[rk.v[k].rank - 1] = rk.v[k].arm;
        }
    }
    stats_ranking_free(&rk);
    fill_deltas(m, &w, &rule);
    order_arms(m, &w);
    free(w.arms);
    work_free(&w);
    return 0;
}

/* --- freeing ------------------------------------------------------------------ */

static void arm_free(ev_arm *a)
{
    free(a->label);
    free(a->backend);
    free(a->engine);
    free(a->build);
    free(a->params);
    free(a->arm_key);
    free(a->why);
    free(a->check);
    free(a->hist);
    free(a->hist_pp);
}

void ev_model_free(ev_model *m)
{
    ev_alloc_free(m);
    ev_depth_free(m);
    ev_ceilings_free(m);
    store_fit_plan_list_free(m->fit_plans, m->n_fit_plans);
    ev_serve_free(m);
    free(m->name);
    free(m->desc);
    free(m->common);
    free(m->state);
    free(m->verdict_arm);
    free(m->verdict_rule);
    free(m->verdict_explain);
    free(m->placement);
    free(m->placement_unknown);
    free(m->launch);
    free(m->launch_note);
    for (size_t i = 0; i < m->n_arms; i++)
        arm_free(&m->arms[i]);
    free(m->arms);
    lvd_strv_free(m->dates);
    memset(m, 0, sizeof *m);
}
