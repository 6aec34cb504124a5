/* verdict.c: computing and recording the verdict of one model on one host
 * from the newest bench session in the store (rules in verdict.h). Not for
 * the fingerprint of the engines it compared (fingerprint.c), choosing at
 * service start (select.h's pipeline) nor the statistics themselves
 * (stats.c, rank.c). */
#include "select/verdict.h"

#include "stats/energy.h"
#include "stats/serving.h"
#include "common/json.h"
#include "select/heuristic.h"
#include "select/armset.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One arm of the session: (engine, arm key) and what its runs say. */
typedef struct varm {
    int64_t engine_id;
    const sel_engine *eng;     /* NULL when the engine is not registered any more */
    const char *arm_key;       /* borrowed from the first run */
    lvd_params params;
    char device[64];           /* the device its check is looked up under; "" = CPU */
    size_t runs, ok_runs;
    const lvd_run *bad;        /* the first run that was not ok, or NULL */
    char check[8];
    char *check_reason;
    int eligible;
    int unchecked;             /* excluded only because its device has no check */
    double ttft_p95_ms;        /* serve objective: p95 time to first token of its kept samples; NAN none */
    char excluded[400];
    char label[400];
    lvd_dvec x, y;             /* kept samples of the chosen tests */
} varm;

/* One test name of the session and how many arms have kept samples of it. */
typedef struct vtest {
    char name[48];
    int tg;                    /* 1 tg, 0 pp, 2 serve-tps (test_kind) */
    int n_depth;               /* llama-bench's -d of the test */
    size_t arms;
    size_t last_arm;           /* +1 of the last arm counted */
} vtest;

typedef struct vsession {
    lvd_run *runs;
    size_t n_runs;
    size_t *run_arm;           /* the arm of each run */
    varm *arms;
    size_t n_arms;
    vtest *tests;
    size_t n_tests;
    const char *test_tg, *test_pp; /* the chosen tests; NULL when not used or none */
    const char *test_serve;    /* the serve objective's serve-tps test; NULL when not used or none */
} vsession;

/* The test the ranking is on: serve-tps, else tg, else pp (NULL: none). */
static const char *primary_test(const vsession *vs)
{
    return vs->test_serve ? vs->test_serve : vs->test_tg ? vs->test_tg : vs->test_pp;
}

void sel_verdict_opts_init(sel_verdict_opts *o)
{
    memset(o, 0, sizeof *o);
    stats_objective_default(&o->objective);
}

static void vsession_free(vsession *vs)
{
    for (size_t i = 0; i < vs->n_arms; i++) {
        free(vs->arms[i].check_reason);
        free(vs->arms[i].x.v);
        free(vs->arms[i].y.v);
    }
    free(vs->arms);
    free(vs->run_arm);
    free(vs->tests);
    store_run_list_free(vs->runs, vs->n_runs);
    memset(vs, 0, sizeof *vs);
}

/* --- loading the session ------------------------------------------------ */

/* The index of r's arm, added when new. */
static size_t arm_of(vsession *vs, const lvd_run *r, const sel_engines *es)
{
    const char *key = r->arm_key ? r->arm_key : "";
    for (size_t i = 0; i < vs->n_arms; i++)
        if (vs->arms[i].engine_id == r->engine_id && strcmp(vs->arms[i].arm_key, key) == 0)
            return i;
    varm *a = &vs->arms[vs->n_arms++];
    memset(a, 0, sizeof *a);
    a->engine_id = r->engine_id;
    a->eng = sel_engines_find(es, r->engine_id);
    a->arm_key = key;
    a->params = r->params;
    engine_check_device(a->eng ? &a->eng->probe : NULL, &r->params, a->device, sizeof a->device);
    char backend[16];
    sel_backend_label(a->eng ? &a->eng->probe : NULL,
                      !strcmp(r->status, "ok") && r->n_results ? r->results[0].backends : NULL, backend,
                      sizeof backend);
    char *words = sel_arm_words(backend, a->eng && a->eng->e.name ? a->eng->e.name : "(unregistered engine)",
                                &r->params);
    snprintf(a->label, sizeof a->label, "%s", words);
    free(words);
    return vs->n_arms - 1;
}

static int load_session(store *s, const char *artifact, const char *host, const char *session, int serving,
                        const sel_engines *es, vsession *vs, lvd_err *err)
{
    memset(vs, 0, sizeof *vs);
    char *newest = NULL;
    if (!session) {
        store_run_filter f = {.artifact = artifact, .host = host, .serving = serving, .limit = 1};
        lvd_run *one;
        size_t n;
        if (store_run_list(s, &f, &one, &n, err) != 0)
            return -1;
        if (n == 0) {
            store_run_list_free(one, n);
            lvd_errf(err, "%s: no %s run of artifact %.12s on host %s (run lvd %s)", store_path(s),
                     serving > 0 ? "serving" : "bench", artifact, host, serving > 0 ? "serve" : "bench");
            return 1;
        }
        newest = one[0].session ? lvd_xstrdup(one[0].session) : NULL;
        store_run_list_free(one, n);
        session = newest;
    }
    store_run_filter f = {.artifact = artifact, .host = host, .session = session, .serving = serving,
                          .with_samples = 1};
    int rc = store_run_list(s, &f, &vs->runs, &vs->n_runs, err);
    free(newest);
    if (rc != 0)
        return -1;
    if (vs->n_runs == 0) {
        lvd_errf(err, "%s: no run of artifact %.12s on host %s in session %s", store_path(s),
                 artifact, host, session ? session : "(none)");
        return 1;
    }
    vs->arms = lvd_xcalloc(vs->n_runs, sizeof *vs->arms);
    vs->run_arm = lvd_xcalloc(vs->n_runs, sizeof *vs->run_arm);
    for (size_t i = 0; i < vs->n_runs; i++) {
        const lvd_run *r = &vs->runs[i];
        vs->run_arm[i] = arm_of(vs, r, es);
        varm *a = &vs->arms[vs->run_arm[i]];
        a->runs++;
        if (strcmp(r->status, "ok") == 0)
            a->ok_runs++;
        else if (!a->bad)
            a->bad = r;
    }
    return 0;
}

/* --- eligibility -------------------------------------------------------- */

static int judge_arms(store *s, const char *artifact, const char *host, vsession *vs, lvd_err *err)
{
    for (size_t i = 0; i < vs->n_arms; i++) {
        varm *a = &vs->arms[i];
        if (sel_check_status(s, artifact, host, a->engine_id, a->device, a->check,
                             &a->check_reason, err) != 0)
            return -1;
        if (a->bad) {
            snprintf(a->excluded, sizeof a->excluded, "%s run%s%s", a->bad->status,
                     a->bad->reason ? ": " : "", a->bad->reason ? a->bad->reason : "");
        } else if (!sel_check_admits(a->check)) {
            a->unchecked = strcmp(a->check, "none") == 0;
            if (a->unchecked)
                snprintf(a->excluded, sizeof a->excluded,
                         "unchecked: no correctness check of %s (run lvd check)", a->device);
            else
                snprintf(a->excluded, sizeof a->excluded, "check %s on %s%s%s", a->check,
                         a->device, a->check_reason ? ": " : "",
                         a->check_reason ? a->check_reason : "");
        } else {
            a->eligible = 1;
        }
    }
    return 0;
}

/* --- tests and samples -------------------------------------------------- */

/* 1 tg, 0 pp, 2 a serving run's serve-tps test, -1 another. */
static int test_kind(const lvd_result *r)
{
    if (stats_serve_test_kind(r->test, NULL, NULL) == STATS_SERVE_TPS)
        return 2;
    if (stats_test_is_tg(r->n_prompt, r->n_gen))
        return 1;
    return stats_test_is_pp(r->n_prompt, r->n_gen) ? 0 : -1;
}

static size_t kept(const lvd_result *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        k += (size_t)stats_sample_kept(r, i);
    return k;
}

/* Counts, per test name, the arms with kept samples of it. */
static void count_tests(vsession *vs)
{
    vs->tests = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < vs->n_runs; i++) {
        const lvd_run *r = &vs->runs[i];
        if (strcmp(r->status, "ok") != 0)
            continue;
        size_t arm = vs->run_arm[i];
        for (size_t j = 0; j < r->n_results; j++) {
            const lvd_result *res = &r->results[j];
            int kind = test_kind(res);
            if (kind < 0 || kept(res) == 0)
                continue;
            size_t t = 0;
            while (t < vs->n_tests && strcmp(vs->tests[t].name, res->test) != 0)
                t++;
            if (t == vs->n_tests) {
                if (vs->n_tests == cap) {
                    cap = cap ? cap * 2 : 8;
                    vs->tests = lvd_xrealloc(vs->tests, cap * sizeof *vs->tests);
                }
                memset(&vs->tests[t], 0, sizeof vs->tests[t]);
                snprintf(vs->tests[t].name, sizeof vs->tests[t].name, "%s", res->test);
                vs->tests[t].tg = kind;
                vs->tests[t].n_depth = res->n_depth;
                vs->n_tests++;
            }
            if (vs->tests[t].last_arm != arm + 1) {
                vs->tests[t].last_arm = arm + 1;
                vs->tests[t].arms++;
            }
        }
    }
}

/* The test of a kind at the serving depth (the deepest measured: lvd bench
 * measures depth 0 beside it for comparison, bench/depth.h) that most arms
 * measured (first seen on a tie), or NULL. */
static const char *choose_test(const vsession *vs, int tg)
{
    const vtest *best = NULL;
    for (size_t t = 0; t < vs->n_tests; t++) {
        const vtest *x = &vs->tests[t];
        if (x->tg == tg && (!best || x->n_depth > best->n_depth ||
                            (x->n_depth == best->n_depth && x->arms > best->arms)))
            best = x;
    }
    return best ? best->name : NULL;
}

/* The depth of the tests the verdict decides on (the deepest of tg's and
 * pp's): the context a launch of its winner serves (select/place.c). */
static int tests_depth(const vsession *vs)
{
    int depth = 0;
    for (size_t t = 0; t < vs->n_tests; t++) {
        const char *name = vs->tests[t].name;
        if (((vs->test_tg && !strcmp(name, vs->test_tg)) || (vs->test_pp && !strcmp(name, vs->test_pp))) &&
            vs->tests[t].n_depth > depth)
            depth = vs->tests[t].n_depth;
    }
    return depth;
}

/* The kept samples of test into each arm's x (or y): tokens/s, or tokens per
 * joule for a per-joule objective (stats/energy.h). */
static void gather(vsession *vs, const char *test, int into_y, int per_joule)
{
    for (size_t i = 0; i < vs->n_runs; i++) {
        const lvd_run *r = &vs->runs[i];
        if (strcmp(r->status, "ok") != 0)
            continue;
        varm *a = &vs->arms[vs->run_arm[i]];
        for (size_t j = 0; j < r->n_results; j++) {
            const lvd_result *res = &r->results[j];
            if (strcmp(res->test, test) != 0)
                continue;
            for (size_t k = 0; k < res->n; k++)
                if (isfinite(stats_sample_value(res, k, per_joule)))
                    lvd_dvec_push(into_y ? &a->y : &a->x, stats_sample_value(res, k, per_joule));
        }
    }
}

/* The serve objective's bound: each eligible arm's p95 time to first token
 * on the serve-tps test's load shape (its serve-ttft test's kept samples, in
 * ms); an arm above bound_ms (> 0) is excluded and says so. */
static void bound_ttft(vsession *vs, double bound_ms, const char *objective)
{
    int p = 0, g = 0;
    stats_serve_test_kind(vs->test_serve, &p, &g);
    char ttft[48];
    stats_serve_test_name(STATS_SERVE_TTFT, p, g, ttft, sizeof ttft);
    for (size_t a = 0; a < vs->n_arms; a++) {
        lvd_dvec ms = {0};
        for (size_t i = 0; i < vs->n_runs; i++) {
            const lvd_run *r = &vs->runs[i];
            if (vs->run_arm[i] != a || strcmp(r->status, "ok") != 0)
                continue;
            for (size_t j = 0; j < r->n_results; j++)
                for (size_t k = 0; !strcmp(r->results[j].test, ttft) && k < r->results[j].n; k++)
                    if (stats_sample_kept(&r->results[j], k))
                        lvd_dvec_push(&ms, (double)r->results[j].ns[k] / 1e6);
        }
        varm *x = &vs->arms[a];
        x->ttft_p95_ms = stats_quantile(ms.v, ms.n, STATS_SERVE_BOUND_Q);
        free(ms.v);
        if (x->eligible && bound_ms > 0 && !(x->ttft_p95_ms <= bound_ms)) {
            x->eligible = 0;
            if (isnan(x->ttft_p95_ms))
                snprintf(x->excluded, sizeof x->excluded, "no %s samples to bound (objective %s)", ttft,
                         objective);
            else
                snprintf(x->excluded, sizeof x->excluded, "p95 time to first token %.1f ms above the bound %g ms "
                         "(objective %s)", x->ttft_p95_ms, bound_ms, objective);
        }
    }
}

/* --- the decision ------------------------------------------------------- */

typedef struct contenders {
    const vsession *vs;
    const size_t *idx;         /* arm indices, best ranked first */
    size_t n;
} contenders;

static int contender_keeps(void *ctx, const sel_engine *e, const lvd_device *d)
{
    const contenders *c = ctx;
    for (size_t i = 0; i < c->n; i++) {
        const varm *a = &c->vs->arms[c->idx[i]];
        if (a->engine_id == e->e.id && strcmp(a->device, d ? d->selector : "") == 0)
            return 1;
    }
    return 0;
}

/* The contender the heuristic would choose, or STATS_NO_ARM; why gets its reason. */
static size_t heuristic_pick(const sel_engines *es, const contenders *c, char *why, size_t len)
{
    sel_candidate *cands = lvd_xcalloc(es->n ? es->n : 1, sizeof *cands);
    size_t nd = sel_engines_device_count(es);
    lvd_device *devs = lvd_xcalloc(nd ? nd : 1, sizeof *devs);
    size_t n = sel_engines_candidates(es, 0, contender_keeps, (void *)c, cands, devs);
    sel_choice ch;
    size_t pick = STATS_NO_ARM;
    if (n == 0) {
        /* e.g. engines imported from another machine: nothing probed here */
        snprintf(why, len, "the heuristic has nothing to go on: no contender's engine has a current probe here");
        free(cands);
        free(devs);
        return pick;
    }
    if (sel_heuristic(cands, n, &ch)) {
        for (size_t i = 0; i < c->n && pick == STATS_NO_ARM; i++) {
            const varm *a = &c->vs->arms[c->idx[i]];
            if (a->engine_id == ch.engine_id && strcmp(a->device, ch.selector) == 0)
                pick = c->idx[i];
        }
    }
    snprintf(why, len, "%s", ch.reason);
    free(cands);
    free(devs);
    return pick;
}

typedef struct decision {
    size_t winner;             /* arm index or STATS_NO_ARM */
    char rule[64];
    char why[600];
} decision;

static void decide(const vsession *vs, const stats_ranking *rk, const lvd_verdict *prev,
                   const sel_engines *es, decision *d)
{
    d->winner = STATS_NO_ARM;
    d->why[0] = '\0';
    if (rk->n_ranked == 0) {
        snprintf(d->rule, sizeof d->rule, "no-arm");
        return;
    }
    if (rk->n_ranked == 1 || rk->state == STATS_RANK_WIN) {
        d->winner = rk->leader;
        snprintf(d->rule, sizeof d->rule, "%s", rk->n_ranked == 1 ? "only-arm" : "win");
        return;
    }
    /* tie or undecided: the leader and the ranked arms it did not beat */
    int tie = rk->state == STATS_RANK_TIE;
    size_t *idx = lvd_xcalloc(rk->n_ranked, sizeof *idx);
    size_t n = 0;
    for (size_t i = 0; i < rk->n_ranked; i++) {
        const stats_rank_entry *e = &rk->v[i];
        if (e->arm == rk->leader || (tie ? e->tied_with_leader
                                         : e->has_vs_leader && e->vs_leader.outcome != STATS_WIN_B))
            idx[n++] = e->arm;
    }
    contenders c = {vs, idx, n};
    const char *kind = tie ? "tie" : "undecided";
    for (size_t i = 0; i < n && prev && prev->engine_id; i++) {
        const varm *a = &vs->arms[idx[i]];
        if (a->engine_id == prev->engine_id && prev->arm_key && !strcmp(a->arm_key, prev->arm_key)) {
            d->winner = idx[i];
            snprintf(d->rule, sizeof d->rule, "%s: kept previous verdict", kind);
            snprintf(d->why, sizeof d->why, "verdict #%lld chose it", (long long)prev->id);
        }
    }
    if (d->winner == STATS_NO_ARM) {
        d->winner = heuristic_pick(es, &c, d->why, sizeof d->why);
        snprintf(d->rule, sizeof d->rule, "%s: %s", kind,
                 d->winner != STATS_NO_ARM ? "kept heuristic choice" : "leader");
        if (d->winner == STATS_NO_ARM)
            d->winner = rk->leader;
    }
    free(idx);
}

/* Unchecked is not failed: when an arm excluded only for want of a check
 * scored above the decided winner (or nothing checked could win), the
 * verdict records no winner (rule SEL_VERDICT_UNCHECKED) instead of a win
 * for a slower arm; selection then falls through to its heuristic. */
static void faster_unchecked(const vsession *vs, const stats_ranking *rk, decision *d)
{
    const stats_rank_entry *w = d->winner != STATS_NO_ARM ? stats_ranking_entry(rk, d->winner) : NULL;
    const stats_rank_entry *best = NULL;
    size_t n = 0;
    for (size_t i = 0; i < rk->n; i++) {
        const stats_rank_entry *e = &rk->v[i];
        if (!vs->arms[e->arm].unchecked || !isfinite(e->score) || (w && !(e->score > w->score)))
            continue;
        n++;
        if (!best || e->score > best->score)
            best = e;
    }
    if (!best)
        return;
    const char *test = primary_test(vs);
    int len = snprintf(d->why, sizeof d->why, "%s has no correctness check and measured %.2f t/s on %s",
                       vs->arms[best->arm].label, best->sx.median, test);
    if (n > 1 && len > 0 && (size_t)len < sizeof d->why)
        len += snprintf(d->why + len, sizeof d->why - (size_t)len, " (%zu faster arms unchecked)", n);
    if (len > 0 && (size_t)len < sizeof d->why)
        snprintf(d->why + len, sizeof d->why - (size_t)len, w ? ", faster than the best checked arm,"
                 " %s (%.2f t/s): no win is recorded for a slower arm" : "; no checked arm was measured",
                 w ? vs->arms[d->winner].label : "", w ? w->sx.median : 0.0);
    snprintf(d->rule, sizeof d->rule, "%s", SEL_VERDICT_UNCHECKED);
    d->winner = STATS_NO_ARM;
}

/* --- output ------------------------------------------------------------- */

/* The looks the bench session took at these arms: its rounds, each arm run
 * at most once a round, so the most runs of any arm (the leader runs every
 * round while a ranking is open); at least 1. The verdict ranks at this look,
 * so its error bound is the one the session's repeated looks spent
 * (stats.h, "Sequential wins"). */
static size_t session_looks(const vsession *vs)
{
    size_t looks = 1;
    for (size_t i = 0; i < vs->n_arms; i++)
        looks = vs->arms[i].runs > looks ? vs->arms[i].runs : looks;
    return looks;
}

static char *stats_json(const vsession *vs, const stats_ranking *rk, const char *objective,
                        const decision *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "objective", objective);
    cJSON_AddItemToObject(o, "session", lvd_json_text(vs->n_runs ? vs->runs[0].session : NULL));
    cJSON *tests = cJSON_AddObjectToObject(o, "tests");
    cJSON_AddItemToObject(tests, "tg", lvd_json_text(vs->test_tg));
    cJSON_AddItemToObject(tests, "pp", lvd_json_text(vs->test_pp));
    if (vs->test_serve)
        cJSON_AddStringToObject(tests, "serve", vs->test_serve);
    cJSON_AddStringToObject(o, "state", stats_rank_state_name(rk->state));
    cJSON_AddNumberToObject(o, "m", (double)rk->m);
    cJSON_AddNumberToObject(o, "look", (double)session_looks(vs));
    cJSON_AddStringToObject(o, "rule", d->rule);
    cJSON_AddItemToObject(o, "why", lvd_json_text(d->why));
    cJSON *arms = cJSON_AddArrayToObject(o, "arms");
    for (size_t i = 0; i < rk->n; i++) {
        const stats_rank_entry *e = &rk->v[i];
        const varm *a = &vs->arms[e->arm];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "engine_id", (double)a->engine_id);
        cJSON_AddItemToObject(j, "engine", lvd_json_text(a->eng ? a->eng->e.name : NULL));
        cJSON_AddStringToObject(j, "arm_key", a->arm_key);
        cJSON_AddStringToObject(j, "device", a->device);
        cJSON_AddNumberToObject(j, "runs", (double)a->runs);
        cJSON_AddNumberToObject(j, "ok_runs", (double)a->ok_runs);
        cJSON_AddStringToObject(j, "check", a->check);
        cJSON_AddBoolToObject(j, "eligible", a->eligible);
        cJSON_AddItemToObject(j, "excluded", lvd_json_text(a->excluded));
        cJSON_AddBoolToObject(j, "winner", e->arm == d->winner);
        cJSON_AddNumberToObject(j, "rank", (double)e->rank);
        cJSON_AddNumberToObject(j, "n", (double)e->sx.n);
        cJSON_AddItemToObject(j, "median", lvd_json_num(e->sx.median));
        if (vs->test_tg && vs->test_pp) {
            cJSON_AddNumberToObject(j, "n_pp", (double)e->sy.n);
            cJSON_AddItemToObject(j, "median_pp", lvd_json_num(e->sy.median));
        }
        cJSON_AddItemToObject(j, "score", lvd_json_num(e->score));
        if (vs->test_serve)
            cJSON_AddItemToObject(j, "ttft_p95_ms", lvd_json_num(a->ttft_p95_ms));
        cJSON_AddItemToObject(j, "vs_leader",
                              e->has_vs_leader ? stats_comparison_json(&e->vs_leader) : cJSON_CreateNull());
        cJSON_AddItemToArray(arms, j);
    }
    return lvd_json_compact(o);
}

/* One paragraph: what decided, on what, and who could not win and why. */
static char *explain(const vsession *vs, const stats_ranking *rk, const char *objective,
                     const decision *d)
{
    lvd_sb sb = {0};
    const char *tests = vs->test_tg && vs->test_pp ? "tg and pp" : primary_test(vs);
    if (d->winner == STATS_NO_ARM && d->why[0]) {
        lvd_sb_addf(&sb, "%s: %s", d->rule, d->why);
    } else if (d->winner == STATS_NO_ARM) {
        lvd_sb_addf(&sb, "no arm can win on %s (objective %s)", tests ? tests : "any test",
                    objective);
    } else {
        const varm *w = &vs->arms[d->winner];
        const stats_rank_entry *e = stats_ranking_entry(rk, d->winner);
        const char *unit = strchr(objective, 'j') ? "tokens/J" : "t/s"; /* tpj ppj wj=W: per joule */
        lvd_sb_addf(&sb, "%s: %s, median %.2f %s on %s over %zu kept samples", d->rule, w->label,
                    e->sx.median, unit, primary_test(vs), e->sx.n);
        if (vs->test_tg && vs->test_pp)
            lvd_sb_addf(&sb, " (%.2f %s on %s)", e->sy.median, unit, vs->test_pp);
        if (vs->test_serve)
            lvd_sb_addf(&sb, " (objective %s: p95 time to first token %.1f ms)", objective, w->ttft_p95_ms);
        lvd_sb_addf(&sb, "; %zu ranked arm%s, state %s", rk->n_ranked, rk->n_ranked == 1 ? "" : "s",
                    stats_rank_state_name(rk->state));
        if (d->why[0])
            lvd_sb_addf(&sb, "; %s", d->why);
    }
    for (size_t i = 0; i < vs->n_arms; i++)
        if (!vs->arms[i].eligible)
            lvd_sb_addf(&sb, "; excluded %s: %s", vs->arms[i].label, vs->arms[i].excluded);
    return lvd_sb_detach(&sb);
}

/* --- entry points ------------------------------------------------------- */

/* The tests the objective ranks by (tg, pp, serving, or tg and pp
 * weighted), chosen among the session's, and each arm's samples of them
 * gathered (x the primary test, y pp when weighted). */
static void choose_tests(vsession *vs, const stats_objective *ob, const char *objective)
{
    int serve = ob->kind == STATS_OBJ_SERVE;
    count_tests(vs);
    if (serve)
        vs->test_serve = choose_test(vs, 2);
    if (!serve && ob->kind != STATS_OBJ_PP)
        vs->test_tg = choose_test(vs, 1);
    if (!serve && ob->kind != STATS_OBJ_TG)
        vs->test_pp = choose_test(vs, 0);
    if (vs->test_serve)
        bound_ttft(vs, ob->ttft_bound_ms, objective);
    int wtd = ob->kind == STATS_OBJ_WEIGHTED;
    const char *primary = serve ? vs->test_serve : ob->kind == STATS_OBJ_PP ? vs->test_pp : vs->test_tg;
    if (primary && (!wtd || vs->test_pp)) {
        gather(vs, primary, 0, ob->per_joule);
        if (wtd)
            gather(vs, vs->test_pp, 1, ob->per_joule);
    }
}

/* The arms ranked on their gathered samples (stats_rank). 0, or -1 with
 * err. */
static int rank_arms(const vsession *vs, const stats_objective *ob, stats_ranking *rk, lvd_err *err)
{
    stats_rank_arm *ra = lvd_xcalloc(vs->n_arms, sizeof *ra);
    for (size_t i = 0; i < vs->n_arms; i++)
        ra[i] = (stats_rank_arm){.label = vs->arms[i].label, /* per joule: only arms with energy */
                               .eligible = vs->arms[i].eligible && (!ob->per_joule || vs->arms[i].x.n),
                               .x = vs->arms[i].x.v, .nx = vs->arms[i].x.n,
                               .y = vs->arms[i].y.v, .ny = vs->arms[i].y.n};
    stats_rank_opts ro;
    stats_rank_opts_init(&ro);
    ro.w = ob->kind == STATS_OBJ_WEIGHTED ? ob->w : -1.0;
    ro.rule.look = session_looks(vs);
    int rc = stats_rank(ra, vs->n_arms, &ro, rk, err);
    free(ra);
    return rc;
}

/* What the decision d says, into out: the winner's arm, the rule, the
 * explain line, the fingerprint, the statistics and the depth. */
static void fill_verdict(const vsession *vs, const stats_ranking *rk, const sel_engines *es, const char *objective,
                         const decision *d, lvd_verdict *out)
{
    lvd_params_init(&out->params);
    if (d->winner != STATS_NO_ARM) {
        out->engine_id = vs->arms[d->winner].engine_id;
        out->params = vs->arms[d->winner].params;
        out->arm_key = lvd_xstrdup(vs->arms[d->winner].arm_key);
    }
    out->rule = lvd_xstrdup(d->rule);
    out->explain = explain(vs, rk, objective, d);
    out->fingerprint = sel_fingerprint_make(vs->runs, vs->n_runs, es);
    out->stats_json = stats_json(vs, rk, objective, d);
    out->depth = tests_depth(vs);
}

int sel_verdict_compute(store *s, const char *artifact, const sel_verdict_opts *o,
                        lvd_verdict *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const char *host = o->host ? o->host : lvd_hostname();
    char objective[16];
    stats_objective_name(&o->objective, objective, sizeof objective);
    sel_engines es;
    if (sel_engines_load(s, &es, err) != 0)
        return -1;
    vsession vs;
    int serve = o->objective.kind == STATS_OBJ_SERVE;
    int rc = load_session(s, artifact, host, o->session, serve ? 1 : -1, &es, &vs, err);
    if (rc != 0 || judge_arms(s, artifact, host, &vs, err) != 0) {
        vsession_free(&vs);
        sel_engines_free(&es);
        return rc > 0 ? 1 : -1;
    }
    choose_tests(&vs, &o->objective, objective);
    stats_ranking rk;
    lvd_verdict prev;
    int have_prev = 0;
    rc = rank_arms(&vs, &o->objective, &rk, err);
    if (rc == 0) {
        have_prev = store_verdict_latest(s, artifact, host, objective, &prev, err);
        rc = have_prev < 0 ? -1 : 0;
        have_prev = have_prev == 0;
    }
    if (rc != 0) {
        vsession_free(&vs);
        sel_engines_free(&es);
        return -1;
    }

    decision d;
    decide(&vs, &rk, have_prev ? &prev : NULL, &es, &d);
    faster_unchecked(&vs, &rk, &d);
    memcpy(out->artifact, artifact, sizeof out->artifact);
    out->host = lvd_xstrdup(host);
    out->decided_at = lvd_now();
    out->objective = lvd_xstrdup(objective);
    fill_verdict(&vs, &rk, &es, objective, &d, out);
    if (have_prev)
        lvd_verdict_free(&prev);
    stats_ranking_free(&rk);
    vsession_free(&vs);
    sel_engines_free(&es);
    return 0;
}

int sel_verdict_record(store *s, const char *artifact, const sel_verdict_opts *o,
                       lvd_verdict *out, lvd_err *err)
{
    int rc = sel_verdict_compute(s, artifact, o, out, err);
    if (rc != 0)
        return rc;
    if (store_verdict_put(s, out, err) != 0) {
        lvd_verdict_free(out);
        return -1;
    }
    return 0;
}
