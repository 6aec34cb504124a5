/* runner.c: the adaptive session loop over a plan (rules in runner.h): the
 * rounds and which arms each one runs, folding every recorded run into its
 * arm's state, the rankings after each round, and the stops. One invocation
 * is bench/invoke.c; the store only through store.h; statistics through
 * stats/. */
#include "bench/runner.h"

#include "benchio/arm.h"
#include "bench/energy.h"
#include "bench/energy_report.h"
#include "bench/depth.h"
#include "bench/group.h"
#include "bench/prices.h"
#include "bench/race.h"
#include "bench/rung.h"
#include "bench/reps.h"
#include "bench/voi.h"
#include "common/cli.h"
#include "stats/energy.h"
#include "stats/stats.h"
#include "store/prices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the session -------------------------------------------------------- */

/* The first test of inv at the serving depth (bench/depth.h) the predicate
 * holds for, or STATS_NO_ARM. */
static size_t first_test(const bench_invoke *inv, int (*is)(int, int))
{
    int depth = bench_tests_serving_depth(inv->tests, inv->n_tests);
    for (size_t i = 0; i < inv->n_tests; i++)
        if (inv->tests[i].n_depth == depth && is(inv->tests[i].n_prompt, inv->tests[i].n_gen))
            return i;
    return STATS_NO_ARM;
}

int bench_session_check(const bench_session_opts *o, lvd_err *err)
{
    char name[32];
    stats_objective_name(&o->objective, name, sizeof name);
    if (o->objective.kind == STATS_OBJ_SERVE)
        return lvd_errf(err, "objective %s is decided by serving runs (lvd serve), not llama-bench's", name);
    int need_tg = o->objective.kind != STATS_OBJ_PP, need_pp = o->objective.kind != STATS_OBJ_TG;
    if (need_tg && first_test(&o->inv, stats_test_is_tg) == STATS_NO_ARM)
        return lvd_errf(err, "objective %s needs a tg test in the tests (e.g. tg128)", name);
    if (need_pp && first_test(&o->inv, stats_test_is_pp) == STATS_NO_ARM)
        return lvd_errf(err, "objective %s needs a pp test in the tests (e.g. pp512)", name);
    if (o->inv.reps < 0 || o->inv.timeout_ms <= 0 || o->max_samples < 1)
        return lvd_errf(err, "bench: timeout and max samples must be positive, reps not negative");
    if (!o->inv.model || !o->artifact || !o->host || !o->session)
        return lvd_errf(err, "bench: model, artifact, host and session are required");
    return 0;
}

int bench_session_rank(bench_session *s, lvd_err *err)
{
    size_t n = s->plan->n_arms;
    stats_rank_arm *arms = lvd_xcalloc(n ? n : 1, sizeof *arms);
    stats_rank_opts ro;
    stats_rank_opts_init(&ro);
    ro.rule = s->o.rule;
    ro.rule.look = s->rounds ? s->rounds : 1; /* each round is one look (stats.h, "Sequential wins") */
    ro.ref = s->ref;
    int rc = 0;
    for (size_t t = 0; t < s->o.inv.n_tests && rc == 0; t++) {
        for (size_t i = 0; i < n; i++) {
            arms[i].label = s->plan->arms[i].label;
            arms[i].eligible = s->st[i].status == BENCH_ARM_ACTIVE && bench_energy_eligible(s, i);
            arms[i].x = s->st[i].series[t].kept;
            arms[i].nx = s->st[i].series[t].n_kept;
        }
        stats_ranking_free(&s->by_test[t]);
        rc = stats_rank(arms, n, &ro, &s->by_test[t], err);
    }
    if (rc == 0 && s->weighted) {
        for (size_t i = 0; i < n; i++) {
            arms[i].x = s->st[i].series[s->w_tg].kept;
            arms[i].nx = s->st[i].series[s->w_tg].n_kept;
            arms[i].y = s->st[i].series[s->w_pp].kept;
            arms[i].ny = s->st[i].series[s->w_pp].n_kept;
        }
        ro.w = s->o.objective.w;
        stats_ranking_free(&s->weighted_rank);
        rc = stats_rank(arms, n, &ro, &s->weighted_rank, err);
    }
    free(arms);
    return rc;
}

/* Marks in need[] the arms an open ranking still needs (runner.h, step 3;
 * racing is applied by the caller). */
static void mark_needed(const stats_ranking *r, unsigned char *need)
{
    if (r->state != STATS_RANK_OPEN)
        return;
    if (r->leader != STATS_NO_ARM)
        need[r->leader] = 1;
    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        if (e->rank && e->has_vs_leader && e->settle == STATS_OPEN)
            need[e->arm] = 1;
        if (!e->rank && e->eligible)
            need[e->arm] = 1; /* eligible, not ranked: no samples yet */
    }
}

/* Fills need[] and returns (open rankings, needed arms below the cap). */
static size_t arms_needed(const bench_session *s, unsigned char *need, size_t *open)
{
    size_t n = s->plan->n_arms;
    memset(need, 0, n ? n : 1);
    *open = 0;
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        const stats_ranking *r = bench_session_decider(s, t);
        if (!r || (s->weighted && t != s->w_tg))
            continue; /* the weighted ranking once */
        if (r->state == STATS_RANK_OPEN)
            (*open)++;
        mark_needed(r, need);
    }
    bench_race_filter(s, need);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (need[i] && bench_kept_min(s, i) >= s->o.max_samples)
            need[i] = 0;
        count += need[i];
    }
    return count;
}

static void series_add(bench_series *se, double v)
{
    if (se->n_kept == se->cap) {
        se->cap = se->cap ? 2 * se->cap : 16;
        se->kept = lvd_xrealloc(se->kept, se->cap * sizeof *se->kept);
    }
    se->kept[se->n_kept++] = v;
}

/* Folds an ok run's samples into the arm's series and its cost. */
static void absorb_samples(bench_session *s, bench_arm_state *st, const lvd_run *run)
{
    int reps = 0;
    double ms = 0, longest = 0;
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        const lvd_result *r = bench_run_result(run, s->o.inv.tests[t].name);
        for (size_t k = 0; r && k < r->n; k++) {
            if (r->warmup && r->warmup[k]) {
                st->series[t].n_dropped++;
                st->dropped++;
            } else if (isfinite(stats_sample_value(r, k, s->o.objective.per_joule))) {
                series_add(&st->series[t], stats_sample_value(r, k, s->o.objective.per_joule));
            }
            double one = (double)r->ns[k] / 1e6;
            ms += one;
            longest = one > longest ? one : longest;
        }
        if (r && (int)r->n > reps)
            reps = (int)r->n;
        if (r)
            bench_joules_absorb(&st->joules[t], r);
    }
    bench_arm_cost_observe(&st->cost, reps, ms, longest);
}

/* Folds a recorded run into the arm's state; a run killed at the budget's
 * end (cut) is not held against the arm, nor one that kept only means
 * (means: measured again at -r 1). */
static void absorb_run(bench_session *s, size_t arm, const lvd_run *run, int cut, int means)
{
    bench_arm_state *st = &s->st[arm];
    st->runs++;
    if (run->left_out && !st->left_out) /* the same for every run of the arm: kept once */
        st->left_out = lvd_xstrdup(run->left_out);
    if (!strcmp(run->status, "ok")) {
        s->runs_ok++;
        st->runs_ok++;
        absorb_samples(s, st, run);
        return;
    }
    free(st->reason);
    st->reason = lvd_xstrdup(run->reason ? run->reason : run->status);
    if (cut || means) {
        st->budget_cut |= cut;
        return;
    }
    if (!strcmp(run->status, "gpu_ignored")) {
        s->runs_gpu_ignored++;
        st->status = BENCH_ARM_GPU_IGNORED;
        return;
    }
    s->runs_failed++;
    if (++st->failures >= BENCH_MAX_FAILURES)
        st->status = BENCH_ARM_EXCLUDED;
}

/* absorb_run of a run that is not means-only (bench_absorb_fn: a resumed
 * session's runs too). */
static void absorb(bench_session *s, size_t arm, const lvd_run *run, int cut)
{
    absorb_run(s, arm, run, cut, 0);
}

static void stamp(const bench_session *s, lvd_run *run)
{
    snprintf(run->artifact, sizeof run->artifact, "%s", s->o.artifact);
    free(run->host);
    run->host = lvd_xstrdup(s->o.host);
    free(run->session);
    run->session = lvd_xstrdup(s->o.session);
}

/* Records the plan's skipped engines and devices as failed runs. */
static int record_skips(store *st, bench_session *s, lvd_err *err)
{
    for (size_t i = 0; i < s->plan->n_skips; i++) {
        const bench_skip *k = &s->plan->skips[i];
        lvd_run run;
        memset(&run, 0, sizeof run);
        run.engine_id = k->engine_id;
        run.binary = lvd_xstrdup(k->binary);
        run.build = lvd_xstrdup(k->build);
        lvd_params_init(&run.params);
        snprintf(run.params.device, sizeof run.params.device, "%s", k->device);
        char key[320];
        benchio_arm_key(&run.params, key, sizeof key);
        run.arm_key = lvd_xstrdup(key);
        snprintf(run.status, sizeof run.status, "failed");
        run.reason = lvd_xasprintf("not run: %s", k->reason);
        run.exit_code = -1;
        run.started_at = lvd_now();
        snprintf(run.source, sizeof run.source, "bench");
        stamp(s, &run);
        int rc = store_run_put(st, &run, err);
        lvd_run_free(&run);
        if (rc)
            return -1;
        s->skips_recorded++;
    }
    return 0;
}

static int64_t now_ms(const bench_session *s)
{
    return s->o.clock_ms ? s->o.clock_ms(s->o.clock_ctx) : lvd_mono_ms();
}

/* The longest single sample the session has seen, in ms (0 when none). */
static int64_t longest_sample(const bench_session *s)
{
    double m = 0;
    for (size_t i = 0; i < s->plan->n_arms; i++)
        m = s->st[i].cost.sample_max_ms > m ? s->st[i].cost.sample_max_ms : m;
    return (int64_t)m + 1;
}

/* The plan for an unpriced invocation: the largest fixed cost of any process
 * key into *prior (kept unpriced when none), and the largest repetition cost
 * of any arm (returned; -1 when none). */
static double session_prior(const bench_session *s, bench_cost *prior)
{
    double rep = -1;
    for (size_t i = 0; i < s->n_costs; i++) {
        if (s->costs[i].invocations && s->costs[i].fixed_max_ms >= prior->fixed_max_ms) {
            prior->fixed_max_ms = s->costs[i].fixed_max_ms;
            prior->invocations = 1;
        }
    }
    for (size_t i = 0; i < s->plan->n_arms; i++)
        rep = s->st[i].cost.rep_max_ms > rep ? s->st[i].cost.rep_max_ms : rep;
    return rep > 0 ? rep : -1;
}

/* Records the runs of one invocation, folds them in, prices the invocation. */
static int record_group(store *st, bench_session *s, const bench_group *g, bench_group_runs *out, bench_cost *c,
                        int64_t wall, int cut, lvd_err *err)
{
    double kept_ms = 0;
    int any_ok = 0, any_failed = 0;
    int64_t invocation = 0; /* the process's first run's id (store/prices.h) */
    s->invocations++;
    for (size_t i = 0; i < out->n; i++) {
        lvd_run *run = &out->runs[i];
        size_t arm = g->arms[out->member[i]];
        stamp(s, run);
        if (store_run_put(st, run, err))
            return -1;
        invocation = invocation ? invocation : run->id;
        if (store_run_set_invocation(st, run->id, invocation, err))
            return -1;
        absorb_run(s, arm, run, cut, out->means_only);
        if (!strcmp(run->status, "ok")) {
            any_ok = 1;
            for (size_t r = 0; r < run->n_results; r++)
                for (size_t k = 0; k < run->results[r].n; k++)
                    if (stats_sample_kept(&run->results[r], k))
                        kept_ms += (double)run->results[r].ns[k] / 1e6;
        } else {
            any_failed = 1;
        }
        if (s->o.on_run)
            s->o.on_run(s, arm, run, s->o.ctx);
    }
    if (any_ok)
        bench_cost_observe(c, (double)wall, kept_ms);
    for (size_t i = 0; any_failed && !cut && g->n > 1 && i < g->n; i++)
        s->st[g->arms[i]].solo = 1;
    return 0;
}

/* Runs group g once (or not, when the budget cannot hold it: *cut set). */
static int run_group(store *st, bench_session *s, const bench_group *grp, int64_t start, int *cut, lvd_err *err)
{
    bench_group one = *grp; /* its outer list plain when bench_reps_abba says so */
    if (!bench_reps_abba(s, grp))
        one.abba = -1;
    const bench_group *g = &one;
    const bench_arm *first = &s->plan->arms[g->arms[0]];
    bench_cost *c = bench_prices_of(s, first);
    double rep_max;
    bench_invoke inv = s->o.inv;
    inv.clock_ms = s->o.clock_ms;
    inv.clock_ctx = s->o.clock_ctx;
    inv.reps = bench_energy_reps(s, g->arms[0], bench_reps_group(s, g, c, &rep_max)); /* bench/energy_report.h */
    if (s->st[g->arms[0]].one_rep) /* means only: one repetition, one sample */
        inv.reps = 1;
    inv.no_warmup = bench_reps_no_warmup(s, g);
    int budget_timeout = 0;
    if (s->o.budget_ms > 0) {
        int64_t left = s->o.budget_ms - (now_ms(s) - start);
        bench_cost prior = *c;
        if (!c->invocations || rep_max <= 0)
            rep_max = session_prior(s, &prior); /* unpriced: the dearest seen so far */
        inv.reps = bench_cost_fit(&prior, rep_max, g->n * bench_group_slots(g), inv.reps, left);
        if (inv.reps < 1) {
            for (size_t i = 0; i < g->n; i++)
                s->st[g->arms[i]].budget_cut = 1;
            *cut = 1;
            return 0;
        }
        int64_t bound = left + longest_sample(s);
        if (bound < inv.timeout_ms) {
            inv.timeout_ms = (int)(bound > 1 ? bound : 1);
            budget_timeout = 1;
        }
    }
    c->last_reps = inv.reps;
    c->last_slots = bench_group_slots(g);
    bench_group_runs out;
    int64_t t0 = now_ms(s);
    if (bench_run_group(s->plan, g, &inv, &out, err))
        return -1;
    int64_t wall = now_ms(s) - t0;
    s->engine_ms += wall;
    int killed = budget_timeout && out.timed_out;
    for (size_t i = 0; killed && i < out.n; i++) {
        free(out.runs[i].reason);
        out.runs[i].reason = lvd_xstrdup("not finished within the budget (killed at its end)");
    }
    *cut |= killed;
    /* means only: forgiven once, then the engine's every arm runs at -r 1 */
    out.means_only = out.means_only && !s->st[g->arms[0]].one_rep;
    for (size_t i = 0; out.means_only && i < s->plan->n_arms; i++)
        s->st[i].one_rep |= s->plan->arms[i].engine_id == first->engine_id;
    int rc = record_group(st, s, g, &out, c, wall, killed, err);
    bench_group_runs_free(&out);
    return rc;
}

/* 1 when an arm of g holds no kept sample yet (its first look is to come). */
static int unmeasured(const bench_session *s, const bench_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (!bench_kept_min(s, g->arms[i]))
            return 1;
    return 0;
}

/* 0 when the value-of-information rule stops the session before this look
 * (bench/voi.h: later looks of the cost model's protocol, -r not given);
 * else 1, with s->voi_n the samples per arm it sizes the look for (0: the
 * other rules of bench/reps.h). */
static int worth_a_look(bench_session *s, const bench_group *g, size_t ng, const unsigned char *need)
{
    s->voi_n = 0;
    if (!s->rounds || s->o.no_voi || s->o.inv.reps > 0 || s->o.first_reps > 0)
        return 1;
    bench_voi v;
    bench_voi_plan(s, g, ng, need, &v);
    if (v.decide == 0)
        return 0;
    s->voi_n = v.decide > 0 ? v.n_add : 0;
    return 1;
}

static void session_init(bench_session *s, bench_plan *plan, const bench_session_opts *o)
{
    memset(s, 0, sizeof *s);
    s->plan = plan;
    s->o = *o;
    size_t n = plan->n_arms, nt = o->inv.n_tests;
    s->st = lvd_xcalloc(n ? n : 1, sizeof *s->st);
    for (size_t i = 0; i < n; i++)
        bench_arm_state_init(&s->st[i], nt);
    s->by_test = lvd_xcalloc(nt ? nt : 1, sizeof *s->by_test);
    s->ref = bench_plan_cpu_arm(plan);
    if (s->ref == (size_t)-1)
        s->ref = STATS_NO_ARM;
    s->weighted = o->objective.kind == STATS_OBJ_WEIGHTED;
    s->w_tg = first_test(&o->inv, stats_test_is_tg);
    s->w_pp = first_test(&o->inv, stats_test_is_pp);
    s->weighted_rank.leader = s->weighted_rank.ref = STATS_NO_ARM;
}

int bench_session_run(store *st, bench_plan *plan, const bench_session_opts *o,
                      bench_session *s, lvd_err *err)
{
    session_init(s, plan, o);
    if (bench_session_check(o, err) || record_skips(st, s, err) || bench_seed_apply(s, absorb, err) ||
        (!o->no_prices && bench_prices_seed(st, s, err)))
        return -1;
    int64_t start = now_ms(s);
    size_t n = plan->n_arms;
    unsigned char *need = lvd_xcalloc(n ? n : 1, 1);
    unsigned char *solo = lvd_xcalloc(n ? n : 1, 1);
    int rc = -1;
    for (;;) {
        if (bench_session_rank(s, err))
            goto out;
        size_t open, n_need = arms_needed(s, need, &open);
        if (!open) {
            s->stop = BENCH_STOP_SETTLED;
            break;
        }
        if (!n_need) {
            s->stop = BENCH_STOP_MAX_SAMPLES;
            break;
        }
        bench_group *groups;
        size_t ng = bench_groups_make(plan, need, solo, !s->o.no_share, &groups);
        if (!s->rounds) /* the first look: the likeliest leader first (bench/group.h); later looks alternate */
            bench_groups_order(plan, groups, ng);
        if (!worth_a_look(s, groups, ng, need)) {
            bench_groups_free(groups, ng);
            s->stop = BENCH_STOP_NOT_WORTH;
            break;
        }
        int spent = 0, failed = 0;
        for (size_t i = 0; i < ng && !failed; i++) {
            const bench_group *g = &groups[s->rounds % 2 ? ng - 1 - i : i];
            lvd_progress("bench: round %zu, %s%s (%zu/%zu)", s->rounds + 1, plan->arms[g->arms[0]].label,
                         g->n > 1 ? " and others" : "", i + 1, ng);
            /* a fresh group's first look is raced against the leader so far (bench/reps.h) */
            failed = (i && unmeasured(s, g) && bench_session_rank(s, err)) || run_group(st, s, g, start, &spent, err);
        }
        bench_groups_free(groups, ng);
        if (failed)
            goto out;
        s->rounds++;
        if (s->rounds == 1)
            s->voi_ref_ms = s->engine_ms;
        n = bench_session_next_rungs(s, &need, &solo); /* arms may join (bench/rung.h) */
        for (size_t i = 0; i < n; i++)
            solo[i] = s->st[i].solo;
        int budget = spent || (s->o.budget_ms > 0 && now_ms(s) - start >= s->o.budget_ms);
        if (budget || (s->o.max_rounds && s->rounds >= s->o.max_rounds)) {
            s->stop = budget ? BENCH_STOP_BUDGET : BENCH_STOP_MAX_ROUNDS;
            if (bench_session_rank(s, err))
                goto out;
            break;
        }
    }
    if (s->runs_ok == 0 && s->stop != BENCH_STOP_BUDGET)
        s->stop = BENCH_STOP_NOTHING;
    rc = 0;
out:
    lvd_progress_done();
    s->wall_ms = now_ms(s) - start;
    free(need);
    free(solo);
    return rc;
}

void bench_session_free(bench_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->st && i < s->plan->n_arms; i++) {
        for (size_t t = 0; t < s->o.inv.n_tests; t++) {
            free(s->st[i].series[t].kept);
            bench_joules_free(&s->st[i].joules[t]);
        }
        free(s->st[i].joules);
        free(s->st[i].series);
        free(s->st[i].reason);
        free(s->st[i].left_out);
    }
    free(s->st);
    for (size_t t = 0; s->by_test && t < s->o.inv.n_tests; t++)
        stats_ranking_free(&s->by_test[t]);
    free(s->by_test);
    stats_ranking_free(&s->weighted_rank);
    for (size_t i = 0; i < s->n_costs; i++)
        free(s->costs[i].key);
    free(s->costs);
    memset(s, 0, sizeof *s);
}
