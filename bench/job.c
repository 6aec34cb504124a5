/* job.c: `lvd bench` as one call (see job.h). */
#include "bench/job.h"

#include "bench/alloc.h"
#include "bench/depth.h"
#include "bench/energy.h"
#include "bench/fitarm.h"
#include "bench/memfig.h"
#include "bench/plan.h"
#include "bench/report.h"
#include "bench/runner.h"
#include "check/check.h"
#include "common/cli.h"
#include "common/paths.h"
#include "common/uid.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "engine/hostfacts.h"
#include "placement/correction.h"
#include "store/factsdb.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --energy-idle: "off" (-1), "NNNms", or a duration (lvd_parse_duration). 0 or -1. */
static int idle_ms(const char *arg, int64_t *ms)
{
    int64_t v;
    if (!strcmp(arg, "off")) {
        *ms = -1;
        return 0;
    }
    if (lvd_ends_with(arg, "ms")) {
        char *num = lvd_xstrndup(arg, strlen(arg) - 2);
        int bad = lvd_parse_i64(num, &v) || v < 1 || v > 600000;
        free(num);
        *ms = v;
        return bad ? -1 : 0;
    }
    if (lvd_parse_duration(arg, &v) || v < 1 || v > 600)
        return -1;
    *ms = v * 1000;
    return 0;
}

int bench_job_energy_idle(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    if (idle_ms(arg, field))
        return lvd_errf(err, "wants off, 1..600000ms or 1s..10m, not '%s'", arg);
    return 0;
}

/* What one bench holds, freed together (job_free). */
typedef struct job {
    const bench_job *o;
    engine_devlock lock;
    engine_setup b;
    bench_test *tests;
    size_t n_tests;
    uint32_t serving;      /* the context placement places for */
    bench_plan_opts po;
    int *split_modes;
    lvd_alloc *alloc_rows;
    bench_plan plan;
    char *session;
    lvd_run *seed;         /* --resume: the session's runs recorded earlier */
    size_t n_seed;
    engine_facts facts;    /* what the engines' logs name (the Vulkan driver) */
} job;

/* Says at once, on stderr, what went wrong with a run. */
static void on_run(const bench_session *s, size_t arm, const lvd_run *run, void *ctx)
{
    job *j = ctx;
    engine_facts_from_log(&j->facts, run->stderr_tail); /* the Vulkan driver the engine names */
    const bench_arm_state *st = &s->st[arm];
    const char *label = s->plan->arms[arm].label;
    if (!strcmp(run->status, "gpu_ignored"))
        lvd_warn(j->o->tool, "GPU FLAGS IGNORED: %s: %s", label, run->reason);
    else if (!strcmp(run->status, "failed"))
        lvd_warn(j->o->tool, "%s: run failed (%s); %s", label, run->reason,
                 st->status == BENCH_ARM_EXCLUDED        ? "arm excluded"
                 : bench_alloc_is_placement_failure(run) ? "the next placement rung follows"
                                                         : "will retry once");
}

/* The KV cells llama-bench allocates: its n_ctx is n_depth + n_prompt + n_gen. */
static uint32_t kv_ctx(const bench_test *t, size_t n)
{
    int ctx = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i].n_depth + t[i].n_prompt + t[i].n_gen > ctx)
            ctx = t[i].n_depth + t[i].n_prompt + t[i].n_gen;
    return (uint32_t)ctx;
}

/* --check: lvd check's run (check_run) before the bench; its table on
 * stdout, or its JSON into *json. A failed reference or no engine with
 * llama-perplexity is warned about and the bench goes on (LVD_EXIT_PARTIAL);
 * a store error stops it (LVD_EXIT_STORE). */
static int run_check(const bench_job *o, const engine_setup *b, cJSON **json)
{
    char *text = lvd_data_file(CHECK_TEXT);
    if (!text) {
        lvd_error(o->tool, "--check: %s is not installed (run lvd check --text FILE instead)", CHECK_TEXT);
        return LVD_EXIT_INPUT;
    }
    check_opts co;
    check_opts_init(&co);
    co.model = b->model; /* the first shard of a split model, as lvd check passes it */
    co.text = text;
    co.artifact = b->art.sha256;
    co.host = lvd_hostname();
    check_report r;
    lvd_err err = {0};
    int code = LVD_EXIT_PARTIAL;
    if (check_run(b->s, b->engines, b->probes, b->n, &co, &r, &err)) {
        if (r.n)
            code = lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
        else
            lvd_warn(o->tool, "--check: %s; benching unchecked", err.msg);
    } else {
        if (o->json)
            *json = check_json(&r, &co);
        else
            check_print(stdout, &r, &co);
        code = check_exit(&r);
        if (code == LVD_EXIT_FAIL) {
            lvd_warn(o->tool, "--check: the CPU reference failed; benching unchecked");
            code = LVD_EXIT_PARTIAL;
        }
    }
    check_report_free(&r);
    free(text);
    return code;
}

/* Prints the session (with --check's JSON under "check"), warns about the
 * devices measured unchecked, and returns the exit code. */
static int report(const bench_job *o, const bench_plan *plan, store *s, const bench_session *bs,
                  cJSON *check)
{
    if (o->json) {
        cJSON *root = bench_report_json(bs);
        if (check)
            cJSON_AddItemToObject(root, "check", check);
        lvd_json_emit(stdout, root);
    } else {
        bench_report_print(stdout, bs);
    }
    int code = bench_report_exit(bs);
    if (code == LVD_EXIT_FAIL)
        lvd_error(o->tool, "%s: nothing could be measured (%zu arms, %zu engines skipped)", o->model,
                  plan->n_arms, plan->n_skips);
    lvd_err err = {0};
    if (bench_report_unchecked(o->tool, s, bs, &err) < 0)
        code = lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
    return code;
}

/* The device lock, the engines and the model, the tests at the serving depth. */
static int job_open(job *j)
{
    const bench_job *o = j->o;
    lvd_err err = {0};
    if (o->tests ? bench_tests_parse(o->tests, &j->tests, &j->n_tests, &err)
                 : bench_tests_from_counts(o->n_prompt, o->n_gen, &j->tests, &j->n_tests, &err))
        return lvd_usage_error(o->tool, "--%s", err.msg);
    int code = engine_devlock_tool(o->tool, o->store, o->wait_s * 1000, &j->lock);
    if (code == LVD_EXIT_OK)
        code = engine_setup_open(o->tool, o->store, o->model, o->engines, &j->b);
    if (code == LVD_EXIT_OK && bench_tests_for_serving(&j->tests, &j->n_tests, o->depth.v, o->depth.n, o->ctx,
                                                       &j->b.art.shape, &j->serving, &err))
        code = lvd_usage_error(o->tool, "--%s", err.msg);
    return code;
}

/* The arms: the command line's lists, placement with the store's margin
 * corrections, llama.cpp's fit beside ours; the session's name. */
static int job_plan(job *j)
{
    const bench_job *o = j->o;
    lvd_err err = {0};
    j->po = (bench_plan_opts){
        .ngl = o->ngl.v, .n_ngl = o->ngl.n, .fa = o->fa.v, .n_fa = o->fa.n, .ub = o->ub.v, .n_ub = o->ub.n,
        .ctk = (const char *const *)o->ctk.v, .n_ctk = o->ctk.n, .ctv = (const char *const *)o->ctv.v,
        .n_ctv = o->ctv.n, .kv_mixed = o->kv_mixed, .ncmoe = o->ncmoe.v, .n_ncmoe = o->ncmoe.n,
        .threads = (int)o->threads, .fmoe = o->fmoe.v, .n_fmoe = o->fmoe.n, .rtr = o->rtr.v,
        .n_rtr = o->rtr.n, .env = o->env.v, .n_env = o->env.n, .shape = &j->b.art.shape,
        .ctx = kv_ctx(j->tests, j->n_tests), .place_ctx = j->serving, .sm = (const char *const *)o->sm.v,
        .n_sm = o->sm.n, .ts = o->ts,
    };
    j->po.split_modes = j->split_modes = bench_split_modes_probe(j->b.engines, j->b.probes, j->b.n);
    if (store_alloc_rows(j->b.s, PLACEMENT_CORRECTION_WINDOW, &j->alloc_rows, &j->po.n_alloc_rows, &err))
        return lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
    j->po.alloc_rows = j->alloc_rows;
    if (bench_plan_build(j->b.engines, j->b.probes, j->b.n, &j->po, &j->plan, &err))
        return lvd_usage_error(o->tool, "%s", err.msg);
    char now[24]; /* a new session's name carries the host and random digits: stores merge */
    snprintf(now, sizeof now, "%lld", (long long)lvd_now());
    j->session = o->session ? lvd_xstrdup(o->session) : lvd_session_name("bench", now);
    bench_fit_in fi = {.s = j->b.s, .model = j->b.model, .artifact = j->b.art.sha256, .host = lvd_hostname(),
                       .session = j->session};
    if (bench_fit_arms_add(&j->plan, &j->po, &fi, &err))
        return lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
    bench_memfig_in mi = {.s = j->b.s, .model = j->b.model, .artifact = j->b.art.sha256, .ctx = j->serving,
                          .engines = j->b.engines, .probes = j->b.probes, .n = j->b.n};
    if (j->serving && bench_memfig_record(&j->plan, &mi, &err))
        return lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
    return LVD_EXIT_OK;
}

/* The session's options into *so: budget, samples, objective, and with
 * --resume the runs recorded earlier. */
static int job_session_opts(job *j, bench_session_opts *so)
{
    const bench_job *o = j->o;
    lvd_err err = {0};
    *so = (bench_session_opts){
        .inv = {.model = j->b.model, .tests = j->tests, .n_tests = j->n_tests, .reps = (int)o->reps,
                .timeout_ms = (int)(o->timeout_s * 1000)},
        .artifact = j->b.art.sha256, .host = lvd_hostname(), .session = j->session,
        .budget_ms = o->budget_s * 1000, .max_samples = (size_t)o->max_samples,
        .objective = o->objective, .on_run = on_run, .ctx = j,
        .first_reps = o->min_samples ? (int)o->min_samples + 1 : 0, /* + 1 for a warm-up drop */
        .plan_opts = &j->po,
    };
    if (o->resume) {
        if (bench_seed_load(j->b.s, j->b.art.sha256, lvd_hostname(), j->session, &j->seed, &j->n_seed, &err))
            return lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
        fprintf(stderr, "%s: resuming session %s: %zu run(s) recorded earlier count as measured\n", o->tool,
                j->session, j->n_seed);
    }
    so->seed = j->seed;
    so->n_seed = j->n_seed;
    stats_rule_default(&so->rule);
    if (bench_session_check(so, &err))
        return lvd_usage_error(o->tool, "%s", err.msg);
    return LVD_EXIT_OK;
}

/* --check first, the energy baseline, the session, the host's facts, the
 * report: the exit status. */
static int job_measure(job *j, bench_session_opts *so)
{
    const bench_job *o = j->o;
    lvd_err err = {0};
    cJSON *check = NULL;
    int checked = o->check ? run_check(o, &j->b, &check) : LVD_EXIT_OK, code;
    if (checked == LVD_EXIT_INPUT || checked == LVD_EXIT_STORE)
        return checked;
    bench_energy energy;
    if (o->energy_idle_ms >= 0) {
        bench_energy_open(&energy, &j->plan, j->b.probes, j->b.n, o->energy_idle_ms);
        if (energy.set.notes.len)
            fputs(lvd_sb_str(&energy.set.notes), stderr);
        so->inv.energy = &energy;
    }
    bench_session bs;
    if (bench_session_run(j->b.s, &j->plan, so, &bs, &err)) {
        code = lvd_tool_fail(o->tool, &err, LVD_EXIT_STORE);
        cJSON_Delete(check);
    } else {
        engine_host_facts(&j->facts); /* what may change under an unchanged build */
        if (store_facts_put(j->b.s, j->session, so->host, j->facts.names, j->facts.values, j->facts.n, &err))
            lvd_warn(o->tool, "%s", err.msg);
        code = report(o, &j->plan, j->b.s, &bs, check);
        if (code == LVD_EXIT_OK)
            code = checked; /* a device that failed its check: partial */
    }
    bench_session_free(&bs);
    if (so->inv.energy)
        bench_energy_close(&energy);
    return code;
}

int bench_job_run(const bench_job *o)
{
    job j;
    memset(&j, 0, sizeof j);
    j.o = o;
    j.lock.fd = -1; /* not held */
    bench_session_opts so;
    int code = job_open(&j);
    if (code == LVD_EXIT_OK)
        code = job_plan(&j);
    if (code == LVD_EXIT_OK)
        code = job_session_opts(&j, &so);
    if (code == LVD_EXIT_OK)
        code = job_measure(&j, &so);
    store_run_list_free(j.seed, j.n_seed);
    engine_facts_free(&j.facts);
    free(j.alloc_rows);
    free(j.session);
    free(j.split_modes);
    bench_plan_free(&j.plan);
    engine_setup_free(&j.b);
    engine_devlock_release(&j.lock);
    free(j.tests);
    return code;
}
