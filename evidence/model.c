/* model.c: the evidence page as data (see model.h): the pure computation of
 * a model's arms, ranking, deltas and history, and the store reader that
 * feeds it. Not for rendering (markdown.c, svg.c) nor for writing files. */
#include "evidence/model.h"

#include "common/sha256.h"
#include "select/choice.h"
#include "select/engines.h"
#include "select/launch.h"
#include "select/placement.h"
#include "select/rank.h"
#include "select/select.h"
#include "select/stats.h"
#include "store/identify.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EV_TITLE_DEFAULT "Backend selection evidence"
#define EV_NIGHTS_DEFAULT 14

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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --- columns and figures --------------------------------------------------- */

typedef int (*kind_fn)(int n_prompt, int n_gen);

static int series_size(const sel_series *s)
{
    return s->n_prompt + s->n_gen;
}

/* The test of kind most arms measured (ties: the larger, then the name). */
static void choose_column(const ev_arm_in *in, size_t n, kind_fn is_kind, char *out, size_t len)
{
    const sel_series *best = NULL;
    size_t best_count = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < in[i].arm->n_series; k++) {
            const sel_series *s = &in[i].arm->series[k];
            if (!s->n || s->n_depth || !is_kind(s->n_prompt, s->n_gen))
                continue;
            size_t count = 0;
            for (size_t j = 0; j < n; j++) {
                const sel_series *o = sel_arm_series(in[j].arm, s->test);
                count += o && o->n;
            }
            if (!best || count > best_count ||
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

static void fill_stat(ev_stat *st, const sel_series *s, const sel_rule *rule)
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
    st->median = sel_median(s->ts, s->n);
    const double one = 1.0;
    if (sel_bootstrap_ratio_ci(s->ts, s->n, &one, 1, rule->boot_b, rule->level, rule->seed, &st->lo,
                               &st->hi) != 0)
        st->lo = st->hi = st->median;
}

static void fill_delta(ev_delta *d, const sel_series *a, const sel_series *b, size_t other,
                       const sel_rule *rule)
{
    memset(d, 0, sizeof *d);
    if (!a || !b || !a->n || !b->n)
        return;
    sel_comparison c;
    if (sel_compare(a->ts, a->n, b->ts, b->n, rule, &c) != 0 || !isfinite(c.ratio))
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
    a->build = lvd_xstrdup(x->build ? x->build : "?");
    a->arm_key = lvd_xstrdup(s->arm_key);
    a->engine_id = s->engine_id;
    a->run_params = s->params;
    a->is_verdict = x->is_verdict;
    a->check = check_line(x);
    snprintf(a->status, sizeof a->status, "%s", s->status);
    if (!strcmp(s->status, "gpu_ignored")) {
        a->why = lvd_xasprintf("GPU flags ignored: %s", s->reason ? s->reason : "llama-bench ran on the CPU");
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

/* The CPU reference (select/rank.h sel_cpu_reference) among the arms in
 * armset order: an arm is usable when it is eligible and has figures. */
static size_t cpu_reference(const ev_arm *arms, const sel_series *const *pp, const sel_series *const *tg, size_t n)
{
    const char **backend = lvd_xcalloc(n ? n : 1, sizeof *backend);
    int *usable = lvd_xcalloc(n ? n : 1, sizeof *usable);
    for (size_t i = 0; i < n; i++) {
        backend[i] = arms[i].backend;
        usable[i] = !strcmp(arms[i].status, "ok") && (pp[i] || tg[i]);
    }
    size_t ref = sel_cpu_reference(backend, usable, n);
    free(backend);
    free(usable);
    return ref;
}

static void swap_delta_index(ev_delta *d, const size_t *pos)
{
    if (d->has)
        d->other = pos[d->other];
}

int ev_model_compute(ev_model *m, const ev_arm_in *in, size_t n, const char *objective, lvd_err *err)
{
    sel_objective obj;
    if (objective) {
        if (sel_objective_parse(objective, &obj, err) != 0)
            return -1;
    } else {
        sel_objective_default(&obj);
    }
    sel_objective_name(&obj, m->objective, sizeof m->objective);
    choose_column(in, n, sel_test_is_pp, m->pp_test, sizeof m->pp_test);
    choose_column(in, n, sel_test_is_tg, m->tg_test, sizeof m->tg_test);

    sel_rule rule;
    sel_rule_default(&rule);
    ev_arm *arms = lvd_xcalloc(n ? n : 1, sizeof *arms);
    const sel_series **pp = lvd_xcalloc(n ? n : 1, sizeof *pp);
    const sel_series **tg = lvd_xcalloc(n ? n : 1, sizeof *tg);
    sel_rank_arm *ra = lvd_xcalloc(n ? n : 1, sizeof *ra);
    for (size_t i = 0; i < n; i++) {
        fill_arm(&arms[i], &in[i]);
        pp[i] = pick_series(in[i].arm, m->pp_test, sel_test_is_pp);
        tg[i] = pick_series(in[i].arm, m->tg_test, sel_test_is_tg);
        fill_stat(&arms[i].pp, pp[i], &rule);
        fill_stat(&arms[i].tg, tg[i], &rule);
        const sel_series *x = obj.kind == SEL_OBJ_PP ? pp[i] : tg[i];
        ra[i].label = arms[i].engine;
        ra[i].eligible = !strcmp(arms[i].status, "ok");
        ra[i].x = x ? x->ts : NULL;
        ra[i].nx = x ? x->n : 0;
        if (obj.kind == SEL_OBJ_WEIGHTED) {
            ra[i].y = pp[i] ? pp[i]->ts : NULL;
            ra[i].ny = pp[i] ? pp[i]->n : 0;
        }
    }
    label_arms(m, arms, in, n);

    sel_rank_opts ro;
    sel_rank_opts_init(&ro);
    if (obj.kind == SEL_OBJ_WEIGHTED)
        ro.w = obj.w;
    sel_ranking rk;
    if (sel_rank(ra, n, &ro, &rk, err) != 0) {
        m->arms = arms; /* ev_model_free releases them */
        m->n_arms = n;
        free(pp);
        free(tg);
        free(ra);
        return -1;
    }
    m->state = lvd_xstrdup(sel_rank_state_name(rk.state));
    size_t n_ranked = rk.n_ranked;
    size_t *by_rank = lvd_xcalloc(n_ranked + 1, sizeof *by_rank);
    for (size_t k = 0; k < rk.n; k++) {
        if (rk.v[k].rank) {
            arms[rk.v[k].arm].rank = rk.v[k].rank;
            by_rank[rk.v[k].rank - 1] = rk.v[k].arm;
        }
    }
    size_t ref = cpu_reference(arms, pp, tg, n);
    for (size_t i = 0; i < n; i++) {
        if (ref != SIZE_MAX && i != ref) {
            fill_delta(&arms[i].pp_vs_cpu, pp[i], pp[ref], ref, &rule);
            fill_delta(&arms[i].tg_vs_cpu, tg[i], tg[ref], ref, &rule);
        }
    }
    if (ref != SIZE_MAX)
        arms[ref].is_ref = 1;
    for (size_t i = 0; i < n; i++) {
        size_t alt = SIZE_MAX;
        for (size_t k = 0; k < n_ranked && alt == SIZE_MAX; k++)
            if (by_rank[k] != i && strcmp(arms[by_rank[k]].backend, arms[i].backend))
                alt = by_rank[k];
        if (alt != SIZE_MAX) {
            fill_delta(&arms[i].pp_vs_alt, pp[i], pp[alt], alt, &rule);
            fill_delta(&arms[i].tg_vs_alt, tg[i], tg[alt], alt, &rule);
        }
    }
    if (n_ranked >= 2) {
        fill_delta(&m->second_pp, pp[by_rank[0]], pp[by_rank[1]], by_rank[1], &rule);
        fill_delta(&m->second_tg, tg[by_rank[0]], tg[by_rank[1]], by_rank[1], &rule);
    }
    sel_ranking_free(&rk);

    /* order: ranked by rank, then unranked eligible, then excluded, each stable */
    size_t *order = lvd_xcalloc(n ? n : 1, sizeof *order), *pos = lvd_xcalloc(n ? n : 1, sizeof *pos);
    size_t w = 0;
    for (size_t k = 0; k < n_ranked; k++)
        order[w++] = by_rank[k];
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (!arms[i].rank && (!strcmp(arms[i].status, "ok") == !pass))
                order[w++] = i;
    m->arms = lvd_xcalloc(n ? n : 1, sizeof *m->arms);
    m->n_arms = n;
    for (size_t k = 0; k < n; k++) {
        pos[order[k]] = k;
        m->arms[k] = arms[order[k]];
    }
    for (size_t k = 0; k < n; k++) {
        swap_delta_index(&m->arms[k].pp_vs_cpu, pos);
        swap_delta_index(&m->arms[k].tg_vs_cpu, pos);
        swap_delta_index(&m->arms[k].pp_vs_alt, pos);
        swap_delta_index(&m->arms[k].tg_vs_alt, pos);
    }
    swap_delta_index(&m->second_pp, pos);
    swap_delta_index(&m->second_tg, pos);
    free(order);
    free(pos);
    free(by_rank);
    free(arms);
    free(pp);
    free(tg);
    free(ra);
    return 0;
}

/* --- history ------------------------------------------------------------------ */

typedef struct bucket {
    size_t arm;
    char date[11];
    double *v;
    size_t n;
} bucket;

void ev_history_build(ev_model *m, const lvd_run *runs, size_t n, size_t nights)
{
    /* the session's first start gives its date */
    char **sess = lvd_xcalloc(n + 1, sizeof *sess);
    int64_t *first = lvd_xcalloc(n + 1, sizeof *first);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = runs[i].session ? runs[i].session : "";
        size_t k = 0;
        while (k < ns && strcmp(sess[k], s))
            k++;
        if (k == ns) {
            sess[ns] = lvd_xstrdup(s);
            first[ns++] = runs[i].started_at;
        } else if (runs[i].started_at < first[k]) {
            first[k] = runs[i].started_at;
        }
    }
    bucket *b = NULL;
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        const lvd_run *r = &runs[i];
        if (strcmp(r->status, "ok"))
            continue;
        size_t a = 0;
        while (a < m->n_arms && !(m->arms[a].engine_id == r->engine_id && !strcmp(m->arms[a].arm_key, r->arm_key ? r->arm_key : "")))
            a++;
        if (a == m->n_arms || !m->arms[a].tg.test[0])
            continue;
        const char *s = r->session ? r->session : "";
        size_t k = 0;
        while (strcmp(sess[k], s))
            k++;
        char date[11];
        ev_date(first[k], date);
        for (size_t t = 0; t < r->n_results; t++) {
            if (strcmp(r->results[t].test, m->arms[a].tg.test))
                continue;
            double *kept;
            size_t nk = sel_result_kept(&r->results[t], &kept, NULL);
            if (!nk)
                continue;
            size_t j = 0;
            while (j < nb && !(b[j].arm == a && !strcmp(b[j].date, date)))
                j++;
            if (j == nb) {
                b = lvd_xrealloc(b, (nb + 1) * sizeof *b);
                b[nb] = (bucket){.arm = a};
                snprintf(b[nb].date, sizeof b[nb].date, "%s", date);
                nb++;
            }
            b[j].v = lvd_xrealloc(b[j].v, (b[j].n + nk) * sizeof *b[j].v);
            memcpy(b[j].v + b[j].n, kept, nk * sizeof *kept);
            b[j].n += nk;
            free(kept);
        }
    }
    /* the dates, sorted and distinct, the last `nights` of them */
    char **dates = lvd_xcalloc(nb + 1, sizeof *dates);
    size_t nd = 0;
    for (size_t j = 0; j < nb; j++) {
        int seen = 0;
        for (size_t k = 0; k < nd && !seen; k++)
            seen = !strcmp(dates[k], b[j].date);
        if (!seen)
            dates[nd++] = lvd_xstrdup(b[j].date);
    }
    qsort(dates, nd, sizeof *dates, cmp_str);
    size_t skip = nights && nd > nights ? nd - nights : 0;
    for (size_t k = 0; k < skip; k++)
        free(dates[k]);
    memmove(dates, dates + skip, (nd - skip) * sizeof *dates);
    nd -= skip;
    dates[nd] = NULL;
    m->dates = dates;
    m->n_dates = nd;
    for (size_t a = 0; a < m->n_arms; a++) {
        ev_arm *arm = &m->arms[a];
        for (size_t k = 0; k < nd; k++) {
            for (size_t j = 0; j < nb; j++) {
                if (b[j].arm != a || strcmp(b[j].date, dates[k]))
                    continue;
                arm->hist = lvd_xrealloc(arm->hist, (arm->n_hist + 1) * sizeof *arm->hist);
                ev_point *p = &arm->hist[arm->n_hist++];
                snprintf(p->date, sizeof p->date, "%s", dates[k]);
                qsort(b[j].v, b[j].n, sizeof *b[j].v, cmp_double);
                p->median = sel_median(b[j].v, b[j].n);
                p->n = b[j].n;
            }
        }
    }
    for (size_t j = 0; j < nb; j++)
        free(b[j].v);
    free(b);
    for (size_t k = 0; k < ns; k++)
        free(sess[k]);
    free(sess);
    free(first);
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
}

void ev_model_free(ev_model *m)
{
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

void ev_page_free(ev_page *p)
{
    free(p->title);
    free(p->host);
    for (size_t i = 0; i < p->n_models; i++)
        ev_model_free(&p->models[i]);
    free(p->models);
    for (size_t i = 0; i < p->pin.n_hist; i++) {
        ev_pin_entry *e = &p->pin.hist[i];
        free(e->pinned);
        free(e->candidate);
        free(e->decision);
        free(e->rule);
    }
    free(p->pin.hist);
    sel_pin_rows_free(p->pin.rows, p->pin.n_rows);
    lvd_strv_free(p->pin.issues);
    memset(p, 0, sizeof *p);
}

/* --- from the store ------------------------------------------------------------ */

/* What the store knows about engines, fetched once per page. */
typedef struct engines {
    lvd_engine *v;
    size_t n;
    lvd_probe *probe;   /* latest probe per engine; probe[i].engine_id 0 = none */
} engines;

static int engines_load(store *s, engines *e, lvd_err *err)
{
    memset(e, 0, sizeof *e);
    if (store_engine_list(s, &e->v, &e->n, err) != 0)
        return -1;
    e->probe = lvd_xcalloc(e->n ? e->n : 1, sizeof *e->probe);
    for (size_t i = 0; i < e->n; i++) {
        int rc = store_probe_latest(s, e->v[i].id, &e->probe[i], err);
        if (rc < 0)
            return -1;
        if (rc == 1)
            memset(&e->probe[i], 0, sizeof e->probe[i]);
    }
    return 0;
}

static void engines_free(engines *e)
{
    for (size_t i = 0; i < e->n; i++)
        lvd_probe_free(&e->probe[i]);
    free(e->probe);
    store_engine_list_free(e->v, e->n);
}

static size_t engine_index(const engines *e, int64_t id)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].id == id)
            return i;
    return SIZE_MAX;
}

static const lvd_probe *engine_probe(const engines *e, size_t i)
{
    return i != SIZE_MAX && e->probe[i].engine_id ? &e->probe[i] : NULL;
}

/* A string field of the first result's reported JSON that has it. */
static char *reported_field(const lvd_run *runs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < runs[i].n_results; k++) {
            cJSON *j = runs[i].results[k].reported_json ? cJSON_Parse(runs[i].results[k].reported_json) : NULL;
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
            char *out = NULL;
            if (cJSON_IsString(v) && *v->valuestring)
                out = lvd_xstrdup(v->valuestring);
            else if (cJSON_IsNumber(v))
                out = lvd_xasprintf("%.0f", v->valuedouble);
            cJSON_Delete(j);
            if (out)
                return out;
        }
    }
    return NULL;
}

static void describe_model(ev_model *m, const store_artifact *a, const lvd_run *runs, size_t n)
{
    char *file = reported_field(runs, n, "model_filename");
    char *type = reported_field(runs, n, "model_type");
    if (a && a->last_path)
        m->name = lvd_xstrdup(base_name(a->last_path));
    else if (file)
        m->name = lvd_xstrdup(base_name(file));
    else
        m->name = lvd_xasprintf("%.12s", m->sha256);
    lvd_sb sb = {0};
    if (a && a->shape.known)
        lvd_sb_addf(&sb, "%s %s, %u blocks%s", a->shape.arch, gguf_file_type_name(a->shape.file_type),
                    a->shape.n_block, a->shape.n_expert ? ", MoE" : "");
    else if (type)
        lvd_sb_adds(&sb, type);
    if (a && a->size > 1)
        lvd_sb_addf(&sb, "%s%.2f GB", sb.len ? ", " : "", (double)a->size / 1e9);
    m->desc = lvd_sb_detach(&sb);
    free(file);
    free(type);
}

/* "PPL ratio 1.0006, KLD 0.0012, same top 99.2 %" */
static char *check_figures(const lvd_check *c)
{
    lvd_sb sb = {0};
    if (isfinite(c->ppl_ratio) && c->ppl_ratio > 0)
        lvd_sb_addf(&sb, "PPL ratio %.4f", c->ppl_ratio);
    if (isfinite(c->mean_kld))
        lvd_sb_addf(&sb, "%sKLD %.4f", sb.len ? ", " : "", c->mean_kld);
    else if (strcmp(c->status, "base") && strcmp(c->status, "error") && sb.len)
        lvd_sb_adds(&sb, ", KLD not measured");
    if (isfinite(c->same_top_p) && c->same_top_p > 0)
        lvd_sb_addf(&sb, "%ssame top %.1f %%", sb.len ? ", " : "", c->same_top_p);
    if (c->reason && *c->reason && strcmp(c->status, "pass") && strcmp(c->status, "base"))
        lvd_sb_addf(&sb, "%s%s", sb.len ? "; " : "", c->reason);
    return lvd_sb_detach(&sb);
}

/* Placement and launch line of the choice (engine_id, arm_key, params) as
 * lvd select --record --artifact prints them: the same function
 * (sel_choice_lines_load); the page adds what llama-bench called the model
 * to the placeholder's note. 0, or -1 when the store failed. */
static int choice_lines(ev_model *m, store *s, const char *host, const store_artifact *a, int64_t engine_id,
                        const char *arm_key, const lvd_params *params, const lvd_run *runs, size_t nr, lvd_err *err)
{
    char *hint = reported_field(runs, nr, "model_filename");
    sel_choice_lines c;
    lvd_err lerr = {{0}};
    store_artifact stub = {.size = -1};
    if (!a) { /* runs of an artifact the store has no row for */
        snprintf(stub.sha256, sizeof stub.sha256, "%s", m->sha256);
        a = &stub;
    }
    int rc = sel_choice_lines_load(s, a, host, engine_id, arm_key, params, hint, &c, &lerr);
    free(hint);
    if (rc == -1) {
        *err = lerr;
        return -1;
    }
    if (rc == 0) {
        if (c.placement_known)
            m->placement = lvd_xstrdup(c.placement_line);
        else
            m->placement_unknown = lvd_xstrdup(c.placement_line);
        m->launch = c.launch_line ? lvd_xstrdup(c.launch_line) : NULL;
        m->launch_note = c.model_note && c.launch_line ? lvd_xstrdup(c.model_note) : NULL;
        sel_choice_lines_free(&c);
    }
    return 0;
}

/* The newest verdict for the model on host into *out; *has 0 when none. */
static int newest_verdict(store *s, const char *sha, const char *host, lvd_verdict *out, int *has, lvd_err *err)
{
    lvd_verdict *vs;
    size_t n;
    *has = 0;
    if (store_verdict_list(s, sha, host, 1, &vs, &n, err) != 0)
        return -1;
    if (n) {
        *out = vs[0];
        memset(&vs[0], 0, sizeof vs[0]);
        *has = 1;
    }
    store_verdict_list_free(vs, n);
    return 0;
}

/* The verdict's fields, then placement and launch for the verdict's choice
 * or, with no verdict, the measured leader's. 0, or -1 (store; err). */
static int describe_choice(ev_model *m, store *s, const char *host, const lvd_verdict *v,
                           const store_artifact *a, const lvd_run *runs, size_t nr, const engines *es, lvd_err *err)
{
    int64_t engine_id;
    const char *arm_key;
    const lvd_params *params;
    if (v) {
        m->has_verdict = 1;
        m->verdict_rule = lvd_xstrdup(v->rule ? v->rule : "?");
        m->verdict_explain = v->explain && *v->explain ? lvd_xstrdup(v->explain) : NULL;
        ev_datetime(v->decided_at, m->verdict_date);
        for (size_t i = 0; i < m->n_arms && !m->verdict_arm; i++)
            if (m->arms[i].is_verdict)
                m->verdict_arm = lvd_xstrdup(m->arms[i].label);
        if (!m->verdict_arm) {
            size_t ei = engine_index(es, v->engine_id);
            char *brief = sel_params_brief(&v->params);
            m->verdict_arm = v->engine_id ? lvd_xasprintf("%s (%s; not among the arms measured on this host)",
                                                          ei != SIZE_MAX ? es->v[ei].name : "an engine no longer registered",
                                                          brief)
                                          : lvd_xstrdup("no arm");
            free(brief);
        }
        if (!v->engine_id)
            return 0;
        engine_id = v->engine_id;
        arm_key = v->arm_key;
        params = &v->params;
    } else if (m->n_arms && m->arms[0].rank == 1) {
        m->launch_of_leader = 1;
        engine_id = m->arms[0].engine_id;
        arm_key = m->arms[0].arm_key;
        params = &m->arms[0].run_params;
    } else {
        return 0;
    }
    return choice_lines(m, s, host, a, engine_id, arm_key, params, runs, nr, err);
}

/* One model: its runs into arms, checks, verdict, figures and history. */
static int load_model(store *s, const ev_opts *o, const char *host, const char *sha, const engines *es,
                      ev_model *m, int64_t *t_min, int64_t *t_max, lvd_err *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->sha256, sizeof m->sha256, "%s", sha);
    store_artifact a;
    int has_a = store_artifact_get(s, sha, &a, err);
    if (has_a < 0)
        return -1;
    const store_artifact *ap = has_a == 0 ? &a : NULL;
    store_run_filter f = {.artifact = sha, .host = host, .with_samples = 1};
    lvd_run *runs = NULL;
    size_t nr = 0;
    lvd_verdict v;
    int has_v = 0;
    sel_armset set = {0};
    ev_arm_in *in = NULL;
    lvd_check *checks = NULL;
    char **texts = NULL;
    char(*backend)[16] = NULL;
    int rc = store_run_list(s, &f, &runs, &nr, err);
    if (rc == 0)
        rc = newest_verdict(s, sha, host, &v, &has_v, err);
    if (rc != 0)
        goto out;
    for (size_t i = 0; i < nr; i++) {
        if (!*t_min || runs[i].started_at < *t_min)
            *t_min = runs[i].started_at;
        if (runs[i].started_at > *t_max)
            *t_max = runs[i].started_at;
    }
    describe_model(m, ap, runs, nr);
    sel_armset_build(runs, nr, &set);
    size_t cap = set.n ? set.n : 1;
    in = lvd_xcalloc(cap, sizeof *in);
    backend = lvd_xcalloc(cap, sizeof *backend);
    checks = lvd_xcalloc(cap, sizeof *checks);
    texts = lvd_xcalloc(cap, sizeof *texts);
    for (size_t i = 0; i < set.n; i++) {
        const sel_arm *arm = &set.v[i];
        size_t ei = engine_index(es, arm->engine_id);
        sel_backend_label(engine_probe(es, ei), arm->backends, backend[i], sizeof backend[i]);
        in[i].arm = arm;
        in[i].backend = backend[i];
        in[i].engine = ei != SIZE_MAX ? es->v[ei].name : NULL;
        in[i].build = ei != SIZE_MAX ? es->v[ei].build : NULL;
        in[i].is_verdict = has_v && v.engine_id == arm->engine_id && v.arm_key && !strcmp(v.arm_key, arm->arm_key);
        char dev[64];
        sel_check_device(engine_probe(es, ei), &arm->params, dev, sizeof dev);
        int c = store_check_latest(s, sha, host, arm->engine_id, dev, &checks[i], err);
        if (c < 0) {
            rc = -1;
            goto out;
        }
        if (c == 1)
            memset(&checks[i], 0, sizeof checks[i]);
        if (c == 0) {
            in[i].check_status = checks[i].status;
            texts[i] = check_figures(&checks[i]);
            in[i].check_text = texts[i];
        }
    }
    rc = ev_model_compute(m, in, set.n, has_v ? v.objective : NULL, err);
    if (rc == 0) {
        ev_history_build(m, runs, nr, o->nights ? o->nights : EV_NIGHTS_DEFAULT);
        rc = describe_choice(m, s, host, has_v ? &v : NULL, ap, runs, nr, es, err);
    }
out:
    for (size_t i = 0; checks && i < set.n; i++) {
        lvd_check_free(&checks[i]);
        free(texts[i]);
    }
    free(checks);
    free(texts);
    free(backend);
    free(in);
    if (has_v)
        lvd_verdict_free(&v);
    sel_armset_free(&set);
    store_run_list_free(runs, nr);
    if (ap)
        store_artifact_free(&a);
    return rc;
}

static int is_hex(const char *s)
{
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
            return 0;
    return 1;
}

/* The sha256 of the model file at path, without writing to the store: from
 * the path cache when it answers, else by hashing the file; it must be one
 * of the artifacts all[0..na). 0 or -1 (err names the path). */
static int identify_path(store *s, const char *path, const store_artifact *all, size_t na,
                         char sha[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    store_artifact a;
    int rc = store_identify_cached(s, path, &a, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        snprintf(sha, LVD_SHA256_HEX_LEN + 1, "%s", a.sha256);
        store_artifact_free(&a);
        return 0;
    }
    if (lvd_sha256_file(path, sha, NULL, err) != 0)
        return -1;
    for (size_t i = 0; i < na; i++)
        if (!strcmp(all[i].sha256, sha))
            return 0;
    return lvd_errf(err, "%s: model %s (sha256 %.12s) is not in the store", store_path(s), path, sha);
}

/* The sha256s the page covers, sorted later by name. */
static int resolve_models(store *s, const ev_opts *o, const char *host, char ***out, size_t *n, lvd_err *err)
{
    store_artifact *all;
    size_t na;
    *out = NULL;
    *n = 0;
    if (store_artifact_list(s, &all, &na, err) != 0)
        return -1;
    char **v = lvd_xcalloc((o->n_models ? o->n_models : na) + 1, sizeof *v);
    size_t k = 0;
    int rc = 0;
    if (!o->n_models) {
        for (size_t i = 0; i < na && rc == 0; i++) {
            store_run_filter f = {.artifact = all[i].sha256, .host = host, .limit = 1};
            lvd_run *r;
            size_t nr;
            if (store_run_list(s, &f, &r, &nr, err) != 0) {
                rc = -1;
                break;
            }
            if (nr)
                v[k++] = lvd_xstrdup(all[i].sha256);
            store_run_list_free(r, nr);
        }
    }
    for (size_t m = 0; m < o->n_models && rc == 0; m++) {
        const char *arg = o->models[m];
        const char *found = NULL;
        size_t hits = 0;
        if (strlen(arg) >= 8 && strlen(arg) <= LVD_SHA256_HEX_LEN && is_hex(arg)) {
            for (size_t i = 0; i < na; i++)
                if (lvd_starts_with(all[i].sha256, arg)) {
                    found = all[i].sha256;
                    hits++;
                }
            if (hits > 1) {
                lvd_errf(err, "%s: model '%s' matches %zu artifacts; give more of the sha256", store_path(s),
                         arg, hits);
                rc = -2;
                break;
            }
            if (hits == 1) {
                v[k++] = lvd_xstrdup(found);
                continue;
            }
            if (strlen(arg) == LVD_SHA256_HEX_LEN) {
                lvd_errf(err, "%s: no artifact %s in the store", store_path(s), arg);
                rc = -2;
                break;
            }
        }
        char sha[LVD_SHA256_HEX_LEN + 1];
        if (identify_path(s, arg, all, na, sha, err) != 0) {
            rc = -2; /* unreadable, no such file, or not in the store (err names it) */
            break;
        }
        v[k++] = lvd_xstrdup(sha);
    }
    store_artifact_list_free(all, na);
    if (rc != 0) {
        lvd_strv_free(v);
        return rc;
    }
    /* distinct */
    qsort(v, k, sizeof *v, cmp_str);
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        if (w && !strcmp(v[w - 1], v[i]))
            free(v[i]);
        else
            v[w++] = v[i];
    }
    v[w] = NULL;
    *out = v;
    *n = w;
    return 0;
}

static int cmp_model(const void *pa, const void *pb)
{
    const ev_model *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->sha256, b->sha256);
}

static int load_pin(store *s, size_t nights, ev_pin *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lvd_pin_decision *ds;
    size_t n;
    if (store_pin_decision_list(s, (int)nights, &ds, &n, err) != 0)
        return -1;
    out->hist = lvd_xcalloc(n ? n : 1, sizeof *out->hist);
    out->n_hist = n;
    for (size_t i = 0; i < n; i++) {
        ev_pin_entry *e = &out->hist[i];
        ev_datetime(ds[i].decided_at, e->date);
        e->pinned = lvd_xstrdup(ds[i].pinned_build ? ds[i].pinned_build : "?");
        e->candidate = lvd_xstrdup(ds[i].candidate_build ? ds[i].candidate_build : "none");
        e->decision = lvd_xstrdup(ds[i].decision ? ds[i].decision : "?");
        e->rule = lvd_xstrdup(ds[i].rule ? ds[i].rule : "");
        e->applied = ds[i].details_json && strstr(ds[i].details_json, "\"applied\":true") != NULL;
    }
    int rc = 0;
    if (n && ds[0].details_json) {
        lvd_err perr = {{0}};
        if (sel_pin_details_rows(ds[0].details_json, &out->rows, &out->n_rows, &out->issues, &out->n_issues,
                                 &perr) != 0) {
            out->rows = NULL;
            out->n_rows = 0;
        }
    }
    store_pin_decision_list_free(ds, n);
    return rc;
}

int ev_page_load(store *s, const ev_opts *o, ev_page *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const char *host = o->host ? o->host : lvd_hostname();
    out->title = lvd_xstrdup(o->title ? o->title : EV_TITLE_DEFAULT);
    out->host = lvd_xstrdup(host);
    char **shas;
    size_t n;
    int r = resolve_models(s, o, host, &shas, &n, err);
    if (r != 0) {
        ev_page_free(out);
        return r;
    }
    engines es;
    if (engines_load(s, &es, err) != 0) {
        engines_free(&es);
        lvd_strv_free(shas);
        ev_page_free(out);
        return -1;
    }
    out->models = lvd_xcalloc(n ? n : 1, sizeof *out->models);
    int64_t t_min = 0, t_max = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = load_model(s, o, host, shas[i], &es, &out->models[i], &t_min, &t_max, err);
        out->n_models = i + 1;
    }
    engines_free(&es);
    lvd_strv_free(shas);
    if (rc == 0)
        rc = load_pin(s, o->nights ? o->nights : EV_NIGHTS_DEFAULT, &out->pin, err);
    if (rc != 0) {
        ev_page_free(out);
        return -1;
    }
    qsort(out->models, out->n_models, sizeof *out->models, cmp_model);
    if (t_min) {
        ev_date(t_min, out->first_date);
        ev_date(t_max, out->last_date);
    }
    return 0;
}
