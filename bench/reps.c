/* reps.c: the repetitions (-r) of each invocation and whether it keeps
 * llama-bench's warm-up run (rules in reps.h): the first look's size, what
 * the open comparisons' sequential intervals still need, the cost model's
 * balance. Not for the session loop (runner.c) or the prices (cost.c). */
#include "bench/reps.h"

#include "stats/stats.h"

#include <math.h>

/* Fewest kept samples of arm over the objective's tests. */
size_t bench_kept_min(const bench_session *s, size_t arm)
{
    size_t min = (size_t)-1;
    for (size_t t = 0; t < s->o.inv.n_tests; t++)
        if (bench_session_uses_test(s, t) && s->st[arm].series[t].n_kept < min)
            min = s->st[arm].series[t].n_kept;
    return min == (size_t)-1 ? 0 : min;
}


/* Arms still active in the session. */
static size_t active_arms(const bench_session *s)
{
    size_t arms = 0;
    for (size_t i = 0; i < s->plan->n_arms; i++)
        arms += s->st[i].status == BENCH_ARM_ACTIVE;
    return arms;
}

/* 1 when a deciding ranking has a leader holding win_min_samples: an arm
 * measured earlier in this session (the session ranks before each group's
 * first invocation, bench/runner.h) that later keys are raced against. */
static int leader_known(const bench_session *s)
{
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        const stats_ranking *r = bench_session_decider(s, t);
        if (r && r->leader != STATS_NO_ARM && bench_kept_min(s, r->leader) >= s->o.rule.win_min_samples)
            return 1;
    }
    return 0;
}

/* 1 when fresh keys are raced against a measured leader (reps.h, "first
 * look"): more than two arms, and a leader known. */
static int raced(const bench_session *s)
{
    return active_arms(s) > 2 && leader_known(s);
}

/* 1 when an arm has dropped a sample of the objective's tests as warm-up. */
static int objective_drops(const bench_session *s)
{
    for (size_t i = 0; i < s->plan->n_arms; i++)
        for (size_t t = 0; t < s->o.inv.n_tests; t++)
            if (bench_session_uses_test(s, t) && s->st[i].series[t].n_dropped)
                return 1;
    return 0;
}

/* 1 when g's repetitions for min_samples an arm cost at most one load: its
 * key's fixed cost c, else the dearest one measured this session (borrowed);
 * 1 while either is unpriced (a hardware GPU's samples are its cheapest). */
static int cheap_reps(const bench_session *s, const bench_group *g, const bench_cost *c)
{
    double fixed = c && c->invocations ? bench_cost_fixed_ms(c) : -1, reps = 0;
    for (size_t i = 0; fixed < 0 && i < s->n_costs; i++)
        if (s->costs[i].invocations && bench_cost_fixed_ms(&s->costs[i]) > fixed)
            fixed = bench_cost_fixed_ms(&s->costs[i]);
    size_t slots = bench_group_slots(g), r = (s->o.rule.min_samples + slots - 1) / slots;
    for (size_t i = 0; i < g->n; i++) {
        double rep = bench_arm_cost_rep_ms(&s->st[g->arms[i]].cost);
        if (!(rep > 0))
            return 1;
        reps += (double)(slots * r) * rep;
    }
    return fixed < 0 || reps <= fixed;
}

/* The first look's samples per arm of g (o.first_reps 0; reps.h, "first
 * look"); *spare: it holds one sample for a warm-up drop. With two arms there
 * is one comparison, and a close one (a tie, or a win a few % past the
 * threshold) needs about 2 x min_samples to be decided: that many (one of
 * them lost to warm-up when it is dropped) at once decides it within one
 * load, where a small first look pays a second load. With more: once a
 * leader is measured, what racing g's arms out against it takes
 * (win_min_samples: Welch's interval has no power floor at small n, stats.h,
 * "Sequential wins"; plus one while an arm has dropped a sample of the
 * objective's tests, and for a hardware GPU key: another GPU is seldom far
 * behind, and 3 samples an arm give Welch's interval about 2 df, so t(2) at
 * the first look's level, near 28 with six comparisons, races out only gaps
 * far wider than 0.7x; the environment variants and the host, which the
 * order puts last, are the likeliest to be far behind); before, a shared
 * pair of a hardware GPU key whose repetitions are cheap against a load
 * takes min_samples an arm (a tie between its arms, fa on and off, can then
 * be called without a second load); else win_min_samples + 1. */
static int first_look(const bench_session *s, const bench_group *g, const bench_cost *c, int *spare)
{
    *spare = 1;
    if (active_arms(s) <= 2)
        return 2 * (int)s->o.rule.min_samples;
    if (raced(s)) {
        int gpu = bench_group_class(s->plan, g) == BENCH_CLASS_GPU;
        *spare = !gpu && objective_drops(s); /* a GPU key's one more is for the df, not for a drop */
        return (int)s->o.rule.win_min_samples + (gpu || *spare);
    }
    if (g->n > 1 && bench_group_class(s->plan, g) == BENCH_CLASS_GPU && cheap_reps(s, g, c)) {
        *spare = 0;
        return (int)s->o.rule.min_samples;
    }
    return (int)s->o.rule.win_min_samples + 1;
}

/* The first invocation's -r: an -r the user gave (llama-bench's own
 * meaning), raised to the fewest samples a win needs plus one for warm-up
 * when it is below; else the first look's size (*spare as first_look's; 0
 * for an -r given). */
static int first_reps(const bench_session *s, const bench_group *g, const bench_cost *c, int *spare)
{
    *spare = 0;
    if (s->o.first_reps > 0)
        return s->o.first_reps;
    int least = (int)s->o.rule.win_min_samples + 1;
    if (s->o.inv.reps > 0)
        return s->o.inv.reps > least ? s->o.inv.reps : least;
    return first_look(s, g, c, spare);
}

/* The log ratio a win of c is sized on when the need must not trust a lucky
 * estimate (bench_reps_want_sure): the end of c's CI nearer to 1, as a
 * distance from 0 (0 when the CI spans 1; the estimate's when c has no CI).
 * A session whose first look happened to land high (a true 1.05 at 3 % noise
 * read as 1.08) sees a need today's estimate fits in max_samples and the
 * truth does not. */
static double win_ratio(const stats_comparison *c)
{
    double d = fabs(c->seq.log_ratio);
    if (!(c->ci_lo > 0) || !(c->ci_hi >= c->ci_lo))
        return d;
    double lo = log(c->ci_lo), hi = log(c->ci_hi), near = c->seq.log_ratio >= 0 ? lo : -hi;
    return near > 0 ? (near < d ? near : d) : 0;
}

/* Samples per arm that comparison c needs to be decided, from its sequential
 * interval now (reps.h): Welch's se shrinks as 1/sqrt(n),
 * so n = n_min x (t se / margin)^2, with t at the next look's level and the
 * margin the distance of the log ratio from the win threshold (a win) or
 * from the tie band's edge (a tie, whose bootstrap CI of medians is about
 * 1.96 x 1.25 se wide each side); the nearer outcome's n, at least
 * min_samples; 0 when the interval says nothing (then the need doubles).
 * sure: the win's margin from the CI's end nearer to 1 instead of the
 * estimate (win_ratio). */
static double seq_need(const bench_session *s, const stats_ranking *r, const stats_comparison *c, int sure)
{
    const stats_sequential *q = &c->seq;
    if (!q->look || q->n_min < 2 || !(q->se > 0) || !isfinite(q->log_ratio) || !(q->df > 0))
        return 0;
    double d = fabs(q->log_ratio), var = q->se * q->se * (double)q->n_min; /* se^2 at n = 1 */
    double dw = sure ? win_ratio(c) : d;
    size_t m = r->m ? r->m : 1;
    double alpha = stats_alpha_spend(s->o.rule.alpha, s->rounds + 1) / (double)m;
    double n_win = INFINITY, n_tie = INFINITY;
    double mw = dw - log(s->o.rule.win), mt = log(s->o.rule.tie_hi) - d;
    if (mw > 0) {
        double n = (double)q->n_min;
        for (int k = 0; k < 3; k++) { /* df grows with n: about 2 (n - 1) */
            double t = stats_t_isf(alpha / 2, n > 2 ? 2 * (n - 1) : 2);
            n = var * t * t / (mw * mw);
        }
        n_win = n;
    }
    if (mt > 0)
        n_tie = var * 2.45 * 2.45 / (mt * mt);
    double n = n_win < n_tie ? n_win : n_tie;
    if (n < (double)s->o.rule.min_samples)
        n = (double)s->o.rule.min_samples;
    return n;
}

/* The most samples any open comparison of arm needs (seq_need; reps.h). */
static double want_of(const bench_session *s, size_t arm, int sure)
{
    double want = 0;
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        const stats_ranking *r = bench_session_decider(s, t);
        if (!r || (s->weighted && t != s->w_tg) || r->state != STATS_RANK_OPEN)
            continue;
        for (size_t i = 0; i < r->n; i++) {
            const stats_rank_entry *e = &r->v[i];
            if (!e->rank || !e->has_vs_leader || e->settle != STATS_OPEN)
                continue;
            if (e->arm != arm && r->leader != arm)
                continue;
            double n = seq_need(s, r, &e->vs_leader, sure);
            want = n > want ? n : want;
        }
    }
    return want;
}

double bench_reps_want(const bench_session *s, size_t arm)
{
    return want_of(s, arm, 0);
}

double bench_reps_want_sure(const bench_session *s, size_t arm)
{
    return want_of(s, arm, 1);
}

/* 1 when arm was out of contention by far last night (reps.h, "far
 * behind"): its mean sample on the objective's one test over BENCH_FAR_BEHIND
 * times the fastest arm's of the plan that ran it then. */
int bench_reps_far_behind(const bench_session *s, size_t arm)
{
    double mine = s->st[arm].cost.seed_obj_ms, best = mine;
    if (!(mine > 0))
        return 0;
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        double ms = s->st[i].cost.seed_obj_ms;
        if (ms > 0 && ms < best)
            best = ms;
    }
    return mine > BENCH_FAR_BEHIND * best;
}

/* The first invocation's samples of arm when last night's record is carried
 * over (reps.h, "carried over"): win_min_samples when it was far behind and
 * dropped no sample of the objective's test; the first look when one process
 * decided it then (less the sample kept for warm-up when none was dropped
 * then), else what it took then (at least the first look). */
static size_t carried_need(const bench_session *s, const bench_group *g, const bench_cost *c, size_t arm)
{
    const bench_arm_cost *a = &s->st[arm].cost;
    int spare;
    size_t first = (size_t)first_reps(s, g, c, &spare);
    if (!s->o.first_reps && !a->seed_obj_dropped && bench_reps_far_behind(s, arm))
        return s->o.rule.win_min_samples;
    if (a->seed_procs > 1 && a->seed_samples > first)
        return a->seed_samples;
    if (a->seed_procs && !a->seed_dropped && spare && first > s->o.rule.win_min_samples)
        return first - 1;
    return first;
}

/* 1 when the balance rule sizes g's invocation: not when it is the first of
 * arms that one process each decided last night (reps.h, "carried over"). */
static int balanced(const bench_session *s, const bench_group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        const bench_arm_cost *a = &s->st[g->arms[i]].cost;
        if (bench_kept_min(s, g->arms[i]) || a->seed_procs != 1)
            return 1;
    }
    return 0;
}

/* Samples arm of g (its key's prices c) still needs at this look (reps.h). */
static int arm_need(const bench_session *s, const bench_group *g, const bench_cost *c, size_t arm)
{
    const bench_arm_state *st = &s->st[arm];
    size_t kept = bench_kept_min(s, arm);
    size_t need = kept ? kept : carried_need(s, g, c, arm);
    if (kept) {
        double want = bench_reps_want(s, arm);
        if (want > 0)
            need = want > (double)kept + 1 ? (size_t)ceil(want) - kept : 1;
    }
    need += bench_reps_dropped(st);
    size_t room = s->o.max_samples > kept ? s->o.max_samples - kept : 1;
    return (int)(need < room ? need : room);
}

size_t bench_reps_dropped(const bench_arm_state *st)
{
    return st->runs_ok ? (st->dropped + st->runs_ok - 1) / st->runs_ok : 0;
}

static int clamp_reps(int r, int hi)
{
    return r < hi ? r : hi;
}

/* -r of one invocation of g (reps.h), before the budget. */
int bench_reps_group(const bench_session *s, const bench_group *g, const bench_cost *c, double *rep_max)
{
    size_t slots = bench_group_slots(g);
    int need = 1, hi = 1, priced = 1, fresh = 0, spare;
    double rep_sum = 0;
    *rep_max = 0;
    for (size_t i = 0; i < g->n; i++) {
        const bench_arm_state *st = &s->st[g->arms[i]];
        int n = (arm_need(s, g, c, g->arms[i]) + (int)slots - 1) / (int)slots;
        size_t kept = bench_kept_min(s, g->arms[i]);
        int room = (int)((s->o.max_samples > kept ? s->o.max_samples - kept : 1) + slots - 1) / (int)slots;
        need = n > need ? n : need;
        hi = room > hi ? room : hi;
        fresh |= kept == 0;
        double rep = bench_arm_cost_rep_ms(&st->cost);
        priced &= rep > 0;
        rep_sum += rep;
        if (st->cost.rep_max_ms > *rep_max)
            *rep_max = st->cost.rep_max_ms;
    }
    if (!priced)
        *rep_max = -1;
    if (s->voi_n && !fresh)
        return clamp_reps(bench_reps_look(s, g, s->voi_n), hi); /* bench/voi.h sized this look */
    if (s->o.inv.reps > 0)
        return fresh ? clamp_reps((first_reps(s, g, c, &spare) + (int)slots - 1) / (int)slots, hi) : s->o.inv.reps;
    return bench_cost_reps(c, priced && balanced(s, g) ? rep_sum / (double)g->n : -1, slots, need, 1, hi);
}

/* A later look's -r (reps.h). */
int bench_reps_look(const bench_session *s, const bench_group *g, size_t n_add)
{
    size_t slots = bench_reps_abba(s, g) ? bench_group_slots(g) : 1, most = 0;
    for (size_t i = 0; i < g->n; i++) {
        size_t want = n_add + bench_reps_dropped(&s->st[g->arms[i]]);
        most = want > most ? want : most;
    }
    int r = (int)((most + slots - 1) / slots), least = (int)s->o.rule.win_min_samples;
    return r > least ? r : least; /* fewer samples in a row could not show a cold start (stats_warmup) */
}

/* --no-warmup (reps.h): every arm has run tonight, or ran in more than one
 * process last night (its later processes ran without the warm-up run then),
 * and none dropped a sample then or ever tonight. */
int bench_reps_no_warmup(const bench_session *s, const bench_group *g)
{
    if (s->o.inv.reps > 0)
        return 0;
    for (size_t i = 0; i < g->n; i++) {
        const bench_arm_state *st = &s->st[g->arms[i]];
        int steady_last_night = st->cost.seed_procs > 1 && !st->cost.seed_dropped;
        if (st->dropped || (!st->runs_ok && !steady_last_night))
            return 0;
    }
    return 1;
}

/* A B .. B A (reps.h): not on the first invocation of a group whose arms
 * were all far behind last night (an -r the user gave keeps it). */
int bench_reps_abba(const bench_session *s, const bench_group *g)
{
    if (g->n < 2)
        return 0;
    if (s->o.inv.reps > 0)
        return 1;
    int far = 1;
    for (size_t i = 0; i < g->n; i++) {
        if (bench_kept_min(s, g->arms[i]) || s->st[g->arms[i]].runs || s->o.first_reps)
            return 1;
        far &= bench_reps_far_behind(s, g->arms[i]);
    }
    return !far && !raced(s);
}
