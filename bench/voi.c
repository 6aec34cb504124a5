/* voi.c: the value-of-information rule of a session's later looks (rules in
 * voi.h): the conditional power of an open comparison, the price of a look,
 * and the look worth its price. Not for the first look (reps.c) or the
 * session loop (runner.c). */
#include "bench/voi.h"

#include "bench/prices.h"
#include "bench/reps.h"

#include <math.h>

/* The tie interval's half-width in se below min_samples (bench/reps.c,
 * seq_need: a bootstrap CI of medians is about 1.96 x 1.25 se wide). */
#define VOI_TIE_SE 2.45

/* A median's standard error over a mean's, for normal samples (sqrt(pi / 2)). */
#define VOI_MEDIAN_SE 1.2533

static double norm_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

/* P(lo <= X <= hi) for X ~ N(mu, sd^2). */
static double within(double lo, double hi, double mu, double sd)
{
    return hi > lo ? norm_cdf((hi - mu) / sd) - norm_cdf((lo - mu) / sd) : 0;
}

/* The tie part: the bootstrap CI's log half-widths shrunk by `shrink`
 * around the next log ratio of medians (spread sd), inside the tie band. */
static double tie_power(const stats_rule *rule, const stats_comparison *c, double shrink, double sd)
{
    if (!(c->ratio > 0) || !(c->ci_lo > 0) || !(c->ci_hi >= c->ci_lo))
        return 0;
    double lr = log(c->ratio), below = (lr - log(c->ci_lo)) * shrink, above = (log(c->ci_hi) - lr) * shrink;
    if (c->seq.n_min < rule->min_samples) /* a bootstrap of so few is narrow by accident (stats.h) */
        below = above = VOI_TIE_SE * c->seq.se * shrink;
    return within(log(rule->tie_lo) + below, log(rule->tie_hi) - above, lr, VOI_MEDIAN_SE * sd);
}

/* 1 when c's sequential interval can be reasoned on. */
static int has_interval(const stats_comparison *c)
{
    const stats_sequential *q = &c->seq;
    return q->look && q->n_min >= 2 && q->se > 0 && isfinite(q->log_ratio) && q->df > 0;
}

/* P(c is decided at look `look` with n1 samples per arm), its next log ratio
 * normal around today's with spread sd (the rules in voi.h). */
static double decided(const stats_rule *rule, size_t m, const stats_comparison *c, size_t look, double n1, double sd)
{
    const stats_sequential *q = &c->seq;
    double n = (double)q->n_min, shrink = sqrt(n / n1);
    double df1 = isfinite(q->df) && n > 1 ? q->df * (n1 - 1) / (n - 1) : q->df;
    double alpha = stats_alpha_spend(rule->alpha, look) / (double)(m ? m : 1);
    double w = log(rule->win) + stats_t_isf(alpha / 2, df1) * q->se * shrink;
    double p = 1 - within(-w, w, q->log_ratio, sd); /* a win either way */
    if (n1 >= (double)rule->min_samples)
        p += tie_power(rule, c, shrink, sd);
    return p < 1 ? p : 1;
}

double bench_voi_power(const stats_rule *rule, size_t m, const stats_comparison *c, size_t n_add)
{
    if (!has_interval(c) || !n_add)
        return 0;
    double n = (double)c->seq.n_min, n1 = n + (double)n_add;
    return decided(rule, m, c, c->seq.look + 1, n1, c->seq.se * sqrt((double)n_add / n1));
}

double bench_voi_replicate(const stats_rule *rule, size_t m, const stats_comparison *c)
{
    if (!has_interval(c))
        return 0;
    return decided(rule, m, c, 1, (double)c->seq.n_min, c->seq.se * sqrt(2.0));
}

/* X(n_add) over the look's invocations; -1 when one is unpriced. */
static double look_price(bench_session *s, const bench_group *g, size_t ng, size_t n_add)
{
    double x = 0;
    for (size_t k = 0; k < ng; k++) {
        double fixed = bench_cost_fixed_ms(bench_prices_of(s, &s->plan->arms[g[k].arms[0]]));
        size_t slots = bench_reps_abba(s, &g[k]) ? bench_group_slots(&g[k]) : 1;
        double reps = 0;
        for (size_t i = 0; i < g[k].n; i++) {
            double rep = bench_arm_cost_rep_ms(&s->st[g[k].arms[i]].cost);
            if (!(rep > 0))
                return -1;
            reps += rep;
        }
        if (fixed < 0)
            return -1;
        x += fixed + (double)slots * (double)bench_reps_look(s, &g[k], n_add) * reps;
    }
    return x;
}

/* The deciding rankings, one at a time (the weighted one once): the next
 * one from test *t on, *t moved past it; NULL after the last. */
static const stats_ranking *next_decider(const bench_session *s, size_t *t)
{
    while (*t < s->o.inv.n_tests) {
        size_t test = (*t)++;
        const stats_ranking *r = bench_session_decider(s, test);
        if (r && (!s->weighted || test == s->w_tg))
            return r;
    }
    return NULL;
}

/* The open comparison with the leader of entry i of ranking r, when r is
 * open, its leader and entry i's arm are needed; else NULL. With
 * next_decider, the one walk over the open comparisons that the expected
 * decisions and the obvious guard share. */
static const stats_comparison *open_vs_leader(const stats_ranking *r, const unsigned char *need, size_t i)
{
    if (r->state != STATS_RANK_OPEN || r->leader == STATS_NO_ARM || !need[r->leader])
        return NULL;
    const stats_rank_entry *e = &r->v[i];
    if (!e->rank || !e->has_vs_leader || e->settle != STATS_OPEN || !need[e->arm])
        return NULL;
    return &e->vs_leader;
}

/* The expected decisions of the deciding rankings: of a look adding n_add
 * samples to the needed arms (bench_voi_power; n_add 0: of a fresh first
 * look, bench_voi_replicate, a settled ranking counting 1). *any set when an
 * open comparison of a needed arm has an interval. */
static double expected_decisions(const bench_session *s, const unsigned char *need, size_t n_add, int *any)
{
    double sum = 0;
    const stats_ranking *r;
    *any = 0;
    for (size_t t = 0; (r = next_decider(s, &t));) {
        if (r->state != STATS_RANK_OPEN) {
            sum += n_add ? 0 : 1;
            continue;
        }
        double q = 1;
        size_t open = 0;
        for (size_t i = 0; i < r->n; i++) {
            const stats_comparison *c = open_vs_leader(r, need, i);
            if (!c)
                continue;
            *any |= has_interval(c);
            q *= n_add ? bench_voi_power(&s->o.rule, r->m, c, n_add) : bench_voi_replicate(&s->o.rule, r->m, c);
            open++;
        }
        sum += open ? q : 0;
    }
    return sum;
}

int bench_voi_obvious(const stats_comparison *c)
{
    return (c->ci_hi > 0 && c->ci_hi <= 1 / BENCH_VOI_OBVIOUS) || c->ci_lo >= BENCH_VOI_OBVIOUS;
}

/* 1 when an open comparison of a needed arm is obvious (bench_voi_obvious). */
static int obvious_open(const bench_session *s, const unsigned char *need)
{
    const stats_ranking *r;
    for (size_t t = 0; (r = next_decider(s, &t));)
        for (size_t i = 0; i < r->n; i++) {
            const stats_comparison *c = open_vs_leader(r, need, i);
            if (c && bench_voi_obvious(c))
                return 1;
        }
    return 0;
}

/* What max_samples leaves the needed arm with the most samples. */
static size_t look_room(const bench_session *s, const unsigned char *need)
{
    size_t room = s->o.max_samples;
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        size_t kept = bench_kept_min(s, i);
        if (need[i])
            room = kept >= s->o.max_samples ? 0 : s->o.max_samples - kept < room ? s->o.max_samples - kept : room;
    }
    return room;
}

/* The look's samples per arm from the sequential need (bench_reps_want: the
 * most any needed arm's open comparisons need, less what it holds, at least
 * 1; more than room when max_samples cannot hold it); 0 when no interval
 * says. sure: the need that does not trust a lucky estimate
 * (bench_reps_want_sure), which the guard holds against max_samples.
 * *trusted: every needed arm holds min_samples (a need estimated from fewer
 * is not held against the look). */
static size_t sized(const bench_session *s, const unsigned char *need, int sure, int *trusted)
{
    size_t most = 0;
    *trusted = 1;
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        double want = !need[i] ? 0 : sure ? bench_reps_want_sure(s, i) : bench_reps_want(s, i);
        size_t kept = bench_kept_min(s, i);
        if (need[i] && kept < s->o.rule.min_samples)
            *trusted = 0;
        if (want > 0) {
            size_t add = want > (double)kept + 1 ? (size_t)ceil(want) - kept : 1;
            most = add > most ? add : most;
        }
    }
    return most;
}

/* The first look's engine time on the price model of later looks (each
 * arm's repetitions at its measured cost per repetition): where the wall
 * clock is not the samples' clock (a fake or replaying engine, whose wall
 * time is nothing), T1 is not taken for less than what X would charge for
 * the same look. */
static double first_look_priced(const bench_session *s)
{
    double x = 0;
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        double rep = bench_arm_cost_rep_ms(&s->st[i].cost);
        if (rep > 0)
            x += rep * (double)(bench_kept_min(s, i) + bench_reps_dropped(&s->st[i]));
    }
    return x;
}

int bench_voi_worth(double price_ms, double q, double t1_ms, double p1)
{
    if (!(q > 0))
        return 0;          /* it decides nothing: infinite price */
    if (!(p1 > 0))
        return 1;          /* the first look decides nothing: any decision is cheaper */
    return price_ms / q <= t1_ms / p1;
}

void bench_voi_plan(bench_session *s, const bench_group *g, size_t ng, const unsigned char *need, bench_voi *out)
{
    *out = (bench_voi){.decide = -1};
    size_t room = look_room(s, need);
    int any = 0;
    if (s->rounds == 1) { /* the first look's expected decisions and price, kept for every later look */
        s->voi_p1 = expected_decisions(s, need, 0, &any);
        double priced = first_look_priced(s);
        if (priced > (double)s->voi_ref_ms)
            s->voi_ref_ms = (int64_t)priced;
    }
    expected_decisions(s, need, 1, &any);
    if (!room || !any || s->voi_ref_ms <= 0 || look_price(s, g, ng, 1) < 0)
        return;
    out->lambda_ms = s->voi_p1 > 0 ? (double)s->voi_ref_ms / s->voi_p1 : INFINITY; /* shown */
    int trusted;
    size_t n = sized(s, need, 0, &trusted), n_sure = sized(s, need, 1, &trusted);
    double best = INFINITY;
    for (size_t k = 1; k <= room; k++) {
        double q = expected_decisions(s, need, k, &any), x = look_price(s, g, ng, k);
        if (q > 0 && x / q < best) {
            best = x / q;
            out->n_add = k, out->price_ms = x, out->q = q;
        }
    }
    int worth = obvious_open(s, need) || bench_voi_worth(out->price_ms, out->q, (double)s->voi_ref_ms, s->voi_p1);
    out->decide = worth && (n_sure <= room || !trusted);
    if (n && n < out->n_add)
        out->n_add = n;
    if (!out->n_add) /* no look can decide: its price per decision is infinite */
        out->n_add = room;
}
