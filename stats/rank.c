/* rank.c: the ranking of arms on one criterion, the weighted objective's
 * statistic, and whether a ranking is decided (rules in rank.h). Pure
 * computation; the thresholds themselves live in stats.c. A ranking's
 * comparisons run on the cores when they are many resamples' worth
 * (RANK_PARALLEL_WORK): each seeds its own generator from the rule, so the
 * ranking is the same on any number of cores. */
#include "stats/rank.h"

#include "common/json.h"
#include "common/parallel.h"
#include "common/types.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- objective ---------------------------------------------------------- */

void stats_objective_default(stats_objective *o)
{
    o->kind = STATS_OBJ_TG;
    o->w = 1.0;
    o->per_joule = 0;
    o->ttft_bound_ms = 0;
}

/* "serve" or "serve=BOUND" (rank.h). 1 when s is one (o set or err), 0 when not. */
static int parse_serve(const char *s, stats_objective *o, lvd_err *err, int *rc)
{
    if (strcmp(s, "serve") && !lvd_starts_with(s, "serve="))
        return 0;
    stats_objective_default(o);
    o->kind = STATS_OBJ_SERVE;
    *rc = 0;
    if (!s[5])
        return 1;
    const char *b = s + 6;
    size_t len = strlen(b);
    int ms = lvd_ends_with(b, "ms");
    char num[32];
    double v;
    if ((!ms && !lvd_ends_with(b, "s")) || len - (ms ? 2 : 1) >= sizeof num) {
        *rc = -1;
    } else {
        snprintf(num, sizeof num, "%.*s", (int)(len - (ms ? 2 : 1)), b);
        double bound = lvd_parse_double(num, &v) ? -1 : ms ? v : v * 1000.0;
        *rc = bound > 0 && bound < 1e6 ? 0 : -1; /* under 1000 s: the name fits the verdicts' key */
        o->ttft_bound_ms = *rc ? 0 : bound;
    }
    if (*rc)
        lvd_errf(err, "objective '%s': use serve or serve=BOUND, BOUND the p95 time to first token "
                 "in ms or s (serve=500ms, serve=2s)", s);
    return 1;
}

/* The per-joule forms: tpj, ppj, wj=W (rank.h). 1 when s is one (o set or
 * err), 0 when it is not. */
static int parse_per_joule(const char *s, stats_objective *o, lvd_err *err, int *rc)
{
    if (strcmp(s, "tpj") && strcmp(s, "ppj") && !lvd_starts_with(s, "wj="))
        return 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", !strcmp(s, "tpj") ? "tg" : !strcmp(s, "ppj") ? "pp" : s + 3);
    *rc = lvd_starts_with(s, "wj=") && (!strcmp(buf, "tg") || !strcmp(buf, "pp"))
              ? lvd_errf(err, "objective '%s': use wj=W with W in [0, 1]", s)
              : stats_objective_parse(buf, o, err);
    if (*rc == 0 && o->kind == STATS_OBJ_SERVE)
        *rc = lvd_errf(err, "objective '%s': serving is measured in time, not per joule", s);
    o->per_joule = *rc == 0;
    return 1;
}

int stats_objective_parse(const char *s, stats_objective *o, lvd_err *err)
{
    if (!s || !*s)
        return lvd_errf(err, "objective: empty (use " STATS_OBJECTIVES ")");
    int rc;
    o->per_joule = 0;
    if (parse_per_joule(s, o, err, &rc) || parse_serve(s, o, err, &rc))
        return rc;
    if (!strcmp(s, "tg")) {
        stats_objective_default(o);
        return 0;
    }
    if (!strcmp(s, "pp")) {
        o->kind = STATS_OBJ_PP;
        o->w = 0.0;
        return 0;
    }
    const char *num = lvd_starts_with(s, "w=") ? s + 2 : s;
    double w;
    if (lvd_parse_double(num, &w) || !(w >= 0.0 && w <= 1.0))
        return lvd_errf(err, "objective '%s': use " STATS_OBJECTIVES, s);
    if (w == 1.0) {
        stats_objective_default(o);
    } else if (w == 0.0) {
        o->kind = STATS_OBJ_PP;
        o->w = 0.0;
    } else {
        o->kind = STATS_OBJ_WEIGHTED;
        o->w = w;
    }
    return 0;
}

int stats_objective_opt(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    if (stats_objective_parse(arg, field, err))
        return lvd_errf(err, "wants " STATS_OBJECTIVES ", not '%s'", arg);
    return 0;
}

void stats_objective_name(const stats_objective *o, char *buf, size_t len)
{
    int j = o->per_joule;
    switch (o->kind) {
    case STATS_OBJ_TG: snprintf(buf, len, "%s", j ? "tpj" : "tg"); break;
    case STATS_OBJ_PP: snprintf(buf, len, "%s", j ? "ppj" : "pp"); break;
    case STATS_OBJ_WEIGHTED: snprintf(buf, len, "%s=%.2f", j ? "wj" : "w", o->w); break;
    case STATS_OBJ_SERVE:
        if (o->ttft_bound_ms > 0)
            snprintf(buf, len, "serve=%gms", o->ttft_bound_ms);
        else
            snprintf(buf, len, "serve");
        break;
    }
}

int stats_test_is_tg(int n_prompt, int n_gen)
{
    return n_prompt == 0 && n_gen > 0;
}

int stats_test_is_pp(int n_prompt, int n_gen)
{
    return n_gen == 0 && n_prompt > 0;
}

int stats_objective_uses(const stats_objective *o, int n_prompt, int n_gen)
{
    switch (o->kind) {
    case STATS_OBJ_TG: return stats_test_is_tg(n_prompt, n_gen);
    case STATS_OBJ_PP: return stats_test_is_pp(n_prompt, n_gen);
    case STATS_OBJ_WEIGHTED: return stats_test_is_tg(n_prompt, n_gen) || stats_test_is_pp(n_prompt, n_gen);
    case STATS_OBJ_SERVE: return 0;
    }
    return 0;
}

/* --- the weighted statistic --------------------------------------------- */

static int samples_ok(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || x[i] <= 0)
            return 0;
    return 1;
}

/* Median of scratch[0..n), which it sorts. */
static double median_sorting(double *scratch, size_t n)
{
    qsort(scratch, n, sizeof *scratch, lvd_cmp_double);
    return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2.0;
}

/* Median of a resample of x[0..n) with replacement. */
static double resample_median(const double *x, size_t n, double *scratch, stats_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = x[stats_rng_u64(rng) % n];
    return median_sorting(scratch, n);
}

/* log S from four medians. */
static double log_score(double w, double ax, double ay, double bx, double by)
{
    return w * log(ax / bx) + (1.0 - w) * log(ay / by);
}

/* Mean of the logs of pool[0..na) minus that of pool[na..na+nb) after one
 * random relabelling (Fisher-Yates shuffle of pool); total = sum of pool. */
static double permuted_diff(double *pool, size_t na, size_t nb, double total, stats_rng *rng)
{
    size_t n = na + nb;
    double sa = 0;
    /* a partial shuffle draws the first na positions, all that matters */
    for (size_t i = 0; i < na; i++) {
        size_t j = i + (size_t)(stats_rng_u64(rng) % (n - i));
        double t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        sa += pool[i];
    }
    return sa / (double)na - (total - sa) / (double)nb;
}

/* Pools log(a) and log(b) into a fresh array; *total = their sum, *diff =
 * mean log a - mean log b. */
static double *pool_logs(const double *a, size_t na, const double *b, size_t nb, double *total,
                         double *diff)
{
    double *pool = lvd_xmalloc((na + nb) * sizeof *pool);
    double sa = 0, sb = 0;
    for (size_t i = 0; i < na; i++)
        sa += pool[i] = log(a[i]);
    for (size_t i = 0; i < nb; i++)
        sb += pool[na + i] = log(b[i]);
    *total = sa + sb;
    *diff = sa / (double)na - sb / (double)nb;
    return pool;
}

/* Two-sided permutation p of T = w D_x + (1 - w) D_y, D = difference of mean
 * log throughputs, with enough relabellings that p can reach 1/10 of the
 * threshold it is held against. */
static double permutation_p(const double *ax, size_t nax, const double *ay, size_t nay,
                            const double *bx, size_t nbx, const double *by, size_t nby, double w,
                            const stats_rule *rule, double threshold)
{
    double tx, ty, dx, dy;
    double *px = pool_logs(ax, nax, bx, nbx, &tx, &dx);
    double *py = pool_logs(ay, nay, by, nby, &ty, &dy);
    double obs = fabs(w * dx + (1.0 - w) * dy);
    double tol = 1e-12 * (1.0 + obs);
    size_t perms = rule->boot_b;
    double need = ceil(10.0 / threshold);
    if (need > (double)perms)
        perms = need > 200000.0 ? 200000 : (size_t)need;
    stats_rng rng;
    stats_rng_seed(&rng, rule->seed ^ 0x7065726d75746521ULL);
    size_t extreme = 0;
    for (size_t i = 0; i < perms; i++) {
        double t = w * permuted_diff(px, nax, nbx, tx, &rng) +
                   (1.0 - w) * permuted_diff(py, nay, nby, ty, &rng);
        if (fabs(t) >= obs - tol)
            extreme++;
    }
    free(px);
    free(py);
    return (1.0 + (double)extreme) / (1.0 + (double)perms);
}

static double percentile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, lvd_cmp_double);
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double f = pos - (double)lo;
    return v[lo] * (1.0 - f) + v[hi] * f;
}

/* The sequential interval of log S = W (mean log tg_A - mean log tg_B) +
 * (1 - W) (mean log pp_A - mean log pp_B): a contrast of four series. */
static void weighted_sequential(const double *ax, size_t nax, const double *ay, size_t nay,
                                const double *bx, size_t nbx, const double *by, size_t nby,
                                double w, const stats_rule *rule, stats_sequential *out)
{
    stats_summary s[4];
    stats_summarize(ax, nax, &s[0]);
    stats_summarize(bx, nbx, &s[1]);
    stats_summarize(ay, nay, &s[2]);
    stats_summarize(by, nby, &s[3]);
    const stats_summary *sp[4] = {&s[0], &s[1], &s[2], &s[3]};
    const double coef[4] = {w, -w, 1.0 - w, -(1.0 - w)};
    stats_sequential_contrast(sp, coef, 4, rule, out);
}

int stats_compare_weighted(const double *ax, size_t nax, const double *ay, size_t nay,
                         const double *bx, size_t nbx, const double *by, size_t nby, double w,
                         const stats_rule *rule, stats_comparison *out)
{
    stats_comparison_clear(out);
    stats_summarize(ax, nax, &out->a);
    stats_summarize(bx, nbx, &out->b);
    if (!stats_rule_valid(rule) || !(w > 0.0 && w < 1.0)) {
        out->why = "invalid rule or weight (m, look, win_min_samples, boot_b, level, w out of range)";
        return -1;
    }
    if (!samples_ok(ax, nax) || !samples_ok(ay, nay) || !samples_ok(bx, nbx) ||
        !samples_ok(by, nby)) {
        out->why = "a sample is not a finite positive throughput";
        return -1;
    }
    out->p_threshold = rule->alpha / (double)rule->m;
    weighted_sequential(ax, nax, ay, nay, bx, nbx, by, nby, w, rule, &out->seq);
    if (!nax || !nay || !nbx || !nby) {
        out->why = "no samples in an arm";
        return 0;
    }
    double med_ax = stats_median(ax, nax), med_ay = stats_median(ay, nay);
    double med_bx = stats_median(bx, nbx), med_by = stats_median(by, nby);
    double obs = log_score(w, med_ax, med_ay, med_bx, med_by);
    out->ratio = exp(obs);

    size_t nmax = nax > nay ? nax : nay;
    nmax = nmax > nbx ? nmax : nbx;
    nmax = nmax > nby ? nmax : nby;
    double *scratch = lvd_xmalloc(nmax * sizeof *scratch);
    double *reps = lvd_xmalloc(rule->boot_b * sizeof *reps);
    stats_rng rng;
    stats_rng_seed(&rng, rule->seed);
    for (size_t i = 0; i < rule->boot_b; i++) {
        double a1 = resample_median(ax, nax, scratch, &rng), a2 = resample_median(ay, nay, scratch, &rng);
        double b1 = resample_median(bx, nbx, scratch, &rng), b2 = resample_median(by, nby, scratch, &rng);
        reps[i] = exp(log_score(w, a1, a2, b1, b2));
    }
    double tail = (1.0 - rule->level) / 2.0;
    out->ci_lo = percentile(reps, rule->boot_b, tail);
    out->ci_hi = percentile(reps, rule->boot_b, 1.0 - tail);
    out->half_width = (out->ci_hi - out->ci_lo) / (2.0 * out->ratio);

    out->p = permutation_p(ax, nax, ay, nay, bx, nbx, by, nby, w, rule, out->p_threshold);
    free(reps);
    free(scratch);

    out->no_regression = out->ci_lo >= rule->floor;
    stats_decide(rule, out);
    return 0;
}

/* --- ranking ------------------------------------------------------------ */

size_t stats_cpu_reference(const char *const *backend, const int *usable, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((!usable || usable[i]) && backend[i] && !strcmp(backend[i], LVD_BACKEND_CPU))
            return i;
    return STATS_NO_ARM;
}

void stats_rank_opts_init(stats_rank_opts *o)
{
    stats_rule_default(&o->rule);
    o->w = -1.0;
    o->ref = STATS_NO_ARM;
}

const char *stats_rank_state_name(stats_rank_state s)
{
    switch (s) {
    case STATS_RANK_NONE: return "none";
    case STATS_RANK_ONLY: return "only-arm";
    case STATS_RANK_WIN: return "win";
    case STATS_RANK_TIE: return "tie";
    case STATS_RANK_OPEN: return "open";
    case STATS_RANK_UNDECIDED: return "undecided";
    }
    return "none";
}

static int weighted(const stats_rank_opts *o)
{
    return o->w >= 0.0;
}

static int has_samples(const stats_rank_arm *a, int wtd)
{
    return a->nx > 0 && (!wtd || a->ny > 0);
}

/* Compares arm a against arm b under the ranking's criterion. */
static int compare(const stats_rank_arm *a, const stats_rank_arm *b, const stats_rank_opts *o,
                   const stats_rule *rule, stats_comparison *out)
{
    if (weighted(o))
        return stats_compare_weighted(a->x, a->nx, a->y, a->ny, b->x, b->nx, b->y, b->ny, o->w, rule,
                                    out);
    return stats_compare(a->x, a->nx, b->x, b->nx, rule, out);
}

/* Below this many resampled values over all of a ranking's comparisons
 * (rule.boot_b x the samples of both arms, summed), they run one after
 * another: starting threads costs more than a few small comparisons (the
 * bench ranks after every round, often with a few samples an arm). */
#define RANK_PARALLEL_WORK 200000.0

/* One comparison of a ranking: arm a against arm b into *out, its result into *rc. */
typedef struct rank_job {
    const stats_rank_arm *a, *b;
    stats_comparison *out;
    int *rc;
} rank_job;

typedef struct rank_jobs {
    rank_job *v;
    size_t n;
    const stats_rank_opts *o;
    const stats_rule *rule;
} rank_jobs;

static void rank_job_run(size_t i, void *ctx)
{
    rank_jobs *j = ctx;
    rank_job *k = &j->v[i];
    *k->rc = compare(k->a, k->b, j->o, j->rule, k->out);
}

/* Queues a against b into out and rc. */
static void rank_job_add(rank_jobs *j, const stats_rank_arm *a, const stats_rank_arm *b, stats_comparison *out,
                         int *rc)
{
    j->v[j->n++] = (rank_job){.a = a, .b = b, .out = out, .rc = rc};
}

/* Every entry's comparisons against the leader and the reference, each
 * one made marked (has_vs_leader, has_vs_ref; entry i's results: rc[2 i]
 * and rc[2 i + 1], compare()'s): on the cores when they are
 * RANK_PARALLEL_WORK or more, else in turn. Nothing is counted here:
 * stats_rank reads the results in entry order, as if they had run one
 * after another. Returns rc (the caller frees it). */
static int *run_comparisons(const stats_rank_arm *arms, stats_ranking *out, const stats_rank_opts *o,
                            const stats_rule *rule, int wtd)
{
    int *rc = lvd_xcalloc(2 * out->n + 1, sizeof *rc);
    rank_jobs j = {.v = lvd_xcalloc(2 * out->n + 1, sizeof *j.v), .o = o, .rule = rule};
    for (size_t i = 0; i < out->n; i++) {
        stats_rank_entry *e = &out->v[i];
        const stats_rank_arm *a = &arms[e->arm];
        if (!has_samples(a, wtd))
            continue;
        if ((e->has_vs_leader = out->leader != STATS_NO_ARM && e->arm != out->leader))
            rank_job_add(&j, a, &arms[out->leader], &e->vs_leader, &rc[2 * i]);
        if ((e->has_vs_ref = out->ref != STATS_NO_ARM && e->arm != out->ref))
            rank_job_add(&j, a, &arms[out->ref], &e->vs_ref, &rc[2 * i + 1]);
    }
    double work = 0.0;
    for (size_t k = 0; k < j.n; k++)
        work += (double)rule->boot_b * (double)(j.v[k].a->nx + j.v[k].a->ny + j.v[k].b->nx + j.v[k].b->ny);
    lvd_parallel_for(j.n, work >= RANK_PARALLEL_WORK ? 0 : 1, rank_job_run, &j);
    free(j.v);
    return rc;
}

/* Order: ranked first by score (descending), then by caller index. */
static int cmp_entry(const void *pa, const void *pb)
{
    const stats_rank_entry *a = pa, *b = pb;
    int ra = a->rank != 0, rb = b->rank != 0;
    if (ra != rb)
        return rb - ra;
    if (ra && a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return (a->arm > b->arm) - (a->arm < b->arm);
}

static stats_rank_state final_state(const stats_ranking *r)
{
    if (r->n_ranked == 0)
        return r->n_open ? STATS_RANK_OPEN : STATS_RANK_NONE;
    if (r->n_open)
        return STATS_RANK_OPEN;
    if (r->n_ranked == 1)
        return STATS_RANK_ONLY;
    if (r->n_undecided)
        return STATS_RANK_UNDECIDED;
    return r->n_tied ? STATS_RANK_TIE : STATS_RANK_WIN;
}

int stats_rank(const stats_rank_arm *arms, size_t n, const stats_rank_opts *o, stats_ranking *out,
             lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->leader = out->ref = STATS_NO_ARM;
    int wtd = weighted(o);
    if (wtd && !(o->w > 0.0 && o->w < 1.0))
        return lvd_errf(err, "ranking: weight %g is outside (0, 1)", o->w);
    if (o->ref != STATS_NO_ARM && o->ref >= n)
        return lvd_errf(err, "ranking: reference arm %zu of %zu arms", o->ref, n);
    for (size_t i = 0; i < n; i++)
        if (!samples_ok(arms[i].x, arms[i].nx) || (wtd && !samples_ok(arms[i].y, arms[i].ny)))
            return lvd_errf(err, "ranking: arm %s has a sample that is not a finite positive throughput",
                            arms[i].label ? arms[i].label : "?");

    out->v = lvd_xcalloc(n ? n : 1, sizeof *out->v);
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        stats_rank_entry *e = &out->v[i];
        e->arm = i;
        e->eligible = arms[i].eligible;
        stats_summarize(arms[i].x, arms[i].nx, &e->sx);
        stats_summarize(wtd ? arms[i].y : NULL, wtd ? arms[i].ny : 0, &e->sy);
        e->score = NAN;
        if (!has_samples(&arms[i], wtd)) {
            if (arms[i].eligible)
                out->n_open++; /* its first samples are still to come */
            continue;
        }
        if (arms[i].eligible) {
            e->rank = 1; /* provisional: "ranked" */
            out->n_ranked++;
        }
        e->score = wtd ? o->w * log(e->sx.median) + (1.0 - o->w) * log(e->sy.median) : e->sx.median;
    }
    qsort(out->v, n, sizeof *out->v, cmp_entry);
    for (size_t i = 0; i < out->n_ranked; i++)
        out->v[i].rank = i + 1;
    if (out->n_ranked)
        out->leader = out->v[0].arm;
    if (o->ref != STATS_NO_ARM && has_samples(&arms[o->ref], wtd))
        out->ref = o->ref;

    stats_rule rule = o->rule;
    rule.m = out->n_ranked > 1 ? out->n_ranked - 1 : 1;
    out->m = rule.m;
    int *rc = run_comparisons(arms, out, o, &rule, wtd);
    for (size_t i = 0; i < n; i++) {
        stats_rank_entry *e = &out->v[i];
        if (e->has_vs_leader) {
            if (rc[2 * i]) {
                free(rc);
                return lvd_errf(err, "ranking: %s", e->vs_leader.why);
            }
            if (e->rank) {
                e->settle = stats_settled(&e->vs_leader, &rule);
                e->out_of_contention = stats_out_of_contention(&e->vs_leader.seq);
                stats_outcome oc = e->vs_leader.outcome;
                if (oc == STATS_TIE) {
                    e->tied_with_leader = 1;
                    out->n_tied++;
                } else if (oc != STATS_WIN_B && e->settle == STATS_OPEN) {
                    out->n_open++;
                } else if (oc != STATS_WIN_B) {
                    /* UNKNOWN on a threshold's edge, or an arm "faster" than
                     * the leader by the CI while ranked below it */
                    out->n_undecided++;
                }
            }
        }
        if (e->has_vs_ref && rc[2 * i + 1]) {
            free(rc);
            return lvd_errf(err, "ranking: %s", e->vs_ref.why);
        }
    }
    free(rc);
    out->state = final_state(out);
    return 0;
}

void stats_ranking_free(stats_ranking *r)
{
    if (!r)
        return;
    free(r->v);
    memset(r, 0, sizeof *r);
    r->leader = r->ref = STATS_NO_ARM;
}

const stats_rank_entry *stats_ranking_entry(const stats_ranking *r, size_t arm)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].arm == arm)
            return &r->v[i];
    return NULL;
}

int stats_ranking_open(const stats_ranking *r)
{
    return r->state == STATS_RANK_OPEN;
}

cJSON *stats_comparison_json(const stats_comparison *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "outcome", stats_outcome_name(c->outcome));
    cJSON_AddItemToObject(o, "ratio", lvd_json_num(c->ratio));
    cJSON *ci = cJSON_AddArrayToObject(o, "ci");
    cJSON_AddItemToArray(ci, lvd_json_num(c->ci_lo));
    cJSON_AddItemToArray(ci, lvd_json_num(c->ci_hi));
    cJSON_AddItemToObject(o, "half_width", lvd_json_num(c->half_width));
    cJSON_AddItemToObject(o, "p", lvd_json_num(c->p));
    cJSON_AddItemToObject(o, "p_threshold", lvd_json_num(c->p_threshold));
    cJSON_AddBoolToObject(o, "exact", c->exact);
    cJSON *seq = cJSON_AddArrayToObject(o, "seq");
    cJSON_AddItemToArray(seq, lvd_json_num(c->seq.lo));
    cJSON_AddItemToArray(seq, lvd_json_num(c->seq.hi));
    cJSON_AddNumberToObject(o, "look", (double)c->seq.look);
    cJSON_AddNumberToObject(o, "n_a", (double)c->a.n);
    cJSON_AddNumberToObject(o, "n_b", (double)c->b.n);
    cJSON_AddStringToObject(o, "why", c->why ? c->why : "");
    return o;
}
