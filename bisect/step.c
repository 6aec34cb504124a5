/* step.c: fetching and measuring one build of a bisect (bisect/step.h).
 * Not for the search (bisect/search.c) or the hunt's record (bisect/bisect.c). */
#include "bisect/step.h"

#include "bench/plan.h"
#include "bench/runner.h"
#include "bisect/search.h"
#include "common/cli.h"
#include "common/json.h"
#include "engine/engines.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int bisect_fetch(const bisect_env *e, const char *build, bisect_fetched *f, char **reason,
                 int *exit_code, lvd_err *err)
{
    memset(f, 0, sizeof *f);
    *reason = NULL;
    fetch_opts o = {.build = build, .flavour = e->flavour, .builds_dir = e->builds_dir,
                    .api_base = e->api_base, .download_base = e->download_base,
                    .store_path = e->store_path, .notes = e->notes};
    fetch_result r;
    memset(&r, 0, sizeof r);
    int code = LVD_EXIT_FAIL;
    int rc = fetch_build(&o, &r, &code, err);
    *exit_code = code;
    if (rc == 0 && code == LVD_EXIT_OK) {
        f->engine_id = r.engine_id;
        f->bench_dir = r.bench_dir ? lvd_xstrdup(r.bench_dir) : NULL;
        f->downloaded = !r.reused;
        fetch_result_free(&r);
        lvd_engine eng;
        if (store_engine_get(e->s, f->engine_id, &eng, err) == 0) {
            f->commit = eng.commit ? lvd_xstrdup(eng.commit) : NULL;
            lvd_engine_free(&eng);
        }
        return 0;
    }
    f->downloaded = rc == 0 && !r.reused;
    f->engine_id = rc == 0 ? r.engine_id : 0;
    f->bench_dir = rc == 0 && r.bench_dir ? lvd_xstrdup(r.bench_dir) : NULL;
    fetch_result_free(&r);
    if (code == LVD_EXIT_NETWORK || code == LVD_EXIT_STORE)
        return -1;
    /* unverifiable, mismatching, refused, no such asset, or a probe that could not ask it */
    *reason = rc == 0 ? lvd_xstrdup("landed, but its probe could not ask it")
                      : lvd_xasprintf("not verified: %s", err->msg);
    return 1;
}

void bisect_fetched_free(bisect_fetched *f)
{
    free(f->bench_dir);
    free(f->commit);
    memset(f, 0, sizeof *f);
}

static int arm_matches(const bisect_env *e, const bench_arm *a)
{
    if (!a->gpu && e->device && strcasecmp(e->device, "cpu"))
        return 0;
    return !e->device || !strcmp(a->params.device, e->device) || !strcasecmp(a->backend, e->device) ||
           (!a->gpu && !strcasecmp(e->device, "cpu"));
}

/* The plan's first arm of each of the three engines that is the hunted arm. */
static int pick_arms(const bisect_env *e, const bench_plan *plan, const int64_t ids[3], bench_arm out[3],
                     lvd_err *err)
{
    for (int k = 0; k < 3; k++) {
        size_t i = 0;
        while (i < plan->n_arms && !(plan->arms[i].engine_id == ids[k] && arm_matches(e, &plan->arms[i])))
            i++;
        if (i == plan->n_arms)
            return lvd_errf(err, "engine %lld has no arm on %s", (long long)ids[k],
                            e->device ? e->device : "a device");
        out[k] = plan->arms[i];
    }
    return 0;
}

static void fill(stats_comparison *c, double *r, double *lo, double *hi)
{
    *r = c->ratio;
    *lo = c->ci_lo;
    *hi = c->ci_hi;
}

/* Classifies the session's samples: mid (1) against good (0) and bad (2). */
static int judge(const bench_session *bs, store_bisect_step *out, double endpoints[3], lvd_err *err)
{
    stats_rule rule;
    stats_rule_pin(&rule);
    rule.m = 2;
    rule.look = bs->rounds ? bs->rounds : 1;
    const bench_series *x[3];
    for (int k = 0; k < 3; k++)
        x[k] = &bs->st[k].series[0];
    stats_comparison vg, vb, ends;
    if (stats_compare(x[1]->kept, x[1]->n_kept, x[0]->kept, x[0]->n_kept, &rule, &vg) ||
        stats_compare(x[1]->kept, x[1]->n_kept, x[2]->kept, x[2]->n_kept, &rule, &vb) ||
        stats_compare(x[2]->kept, x[2]->n_kept, x[0]->kept, x[0]->n_kept, &rule, &ends))
        return lvd_errf(err, "cannot compare the step's samples: %s", vg.why ? vg.why : "invalid");
    const char *why;
    bisect_mark m = bisect_classify(&vg, &vb, &why);
    out->verdict = lvd_xstrdup(bisect_mark_name(m));
    out->reason = lvd_xstrdup(why);
    fill(&vg, &out->vs_good, &out->vs_good_lo, &out->vs_good_hi);
    fill(&vb, &out->vs_bad, &out->vs_bad_lo, &out->vs_bad_hi);
    fill(&ends, &endpoints[0], &endpoints[1], &endpoints[2]);
    return 0;
}

/* The build_commit llama-bench reported in a run of each arm. */
static void on_run(const bench_session *s, size_t arm, const lvd_run *run, void *ctx)
{
    (void)s;
    char **commits = ctx;
    for (size_t i = 0; arm < 3 && !commits[arm] && i < run->n_results; i++) {
        cJSON *j = run->results[i].reported_json ? cJSON_Parse(run->results[i].reported_json) : NULL;
        const char *c = lvd_json_string(j, "build_commit");
        if (*c)
            commits[arm] = lvd_xstrdup(c);
        cJSON_Delete(j);
    }
}

static int run_session(const bisect_env *e, const bench_plan *sub, const char *session, store_bisect_step *out,
                       double endpoints[3], char *commits[3], lvd_err *err)
{
    bench_session_opts so = {
        .inv = {.model = e->model, .tests = &e->test, .n_tests = 1,
                .timeout_ms = BENCH_TIMEOUT_S_DEFAULT * 1000},
        .artifact = e->artifact, .host = e->host, .session = session,
        .budget_ms = e->step_budget_ms, .max_samples = BENCH_MAX_SAMPLES_DEFAULT,
        .on_run = on_run, .ctx = commits,
    };
    so.objective.kind = e->test.n_gen > 0 ? STATS_OBJ_TG : STATS_OBJ_PP;
    so.objective.w = e->test.n_gen > 0 ? 1.0 : 0.0;
    stats_rule_pin(&so.rule);
    bench_session bs;
    memset(&bs, 0, sizeof bs);
    int rc = bench_session_check(&so, err) ? -1 : bench_session_run(e->s, sub, &so, &bs, err);
    if (rc == 0)
        rc = judge(&bs, out, endpoints, err);
    if (rc == 0 && bs.stop == BENCH_STOP_BUDGET && !strcmp(out->verdict, "skip") &&
        strncmp(out->reason, "between", 7)) {
        free(out->reason);
        out->reason = lvd_xstrdup("undecided after the step's budget");
    }
    bench_session_free(&bs);
    return rc;
}

int bisect_measure(const bisect_env *e, int64_t good, int64_t mid, int64_t bad, const char *session,
                   store_bisect_step *out, double endpoints[3], char *commits[3], lvd_err *err)
{
    const int64_t ids[3] = {good, mid, bad};
    lvd_engine eng[3];
    memset(eng, 0, sizeof eng);
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++)
        if (store_engine_get(e->s, ids[k], &eng[k], err))
            rc = -1;
    lvd_probe *probes = NULL;
    bench_plan plan;
    memset(&plan, 0, sizeof plan);
    if (rc == 0)
        rc = engine_list_probe(e->s, eng, 3, &probes, err);
    bench_plan_opts po = {.fa = &e->fa, .n_fa = 1, .ngl = &e->ngl, .n_ngl = e->ngl >= 0 ? 1 : 0};
    if (rc == 0)
        rc = bench_plan_build(eng, probes, 3, &po, &plan, err);
    bench_arm arms[3];
    if (rc == 0 && pick_arms(e, &plan, ids, arms, err) == 0) {
        bench_plan sub = {.arms = arms, .n_arms = 3};
        rc = run_session(e, &sub, session, out, endpoints, commits, err);
    } else if (rc == 0) {
        out->verdict = lvd_xstrdup("skip");
        out->reason = lvd_xasprintf("not measured: %s", err->msg);
        endpoints[0] = endpoints[1] = endpoints[2] = NAN;
    }
    bench_plan_free(&plan);
    if (probes)
        engine_probes_free(probes, 3);
    for (int k = 0; k < 3; k++)
        lvd_engine_free(&eng[k]);
    return rc;
}
