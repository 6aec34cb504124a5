/* report.c: lvd-bench's tables, decisions and JSON over a finished session
 * (see report.h). Reads the session; computes nothing new. */
#include "bench/report.h"

#include "bench/costreport.h"
#include "bench/placereport.h"
#include "bench/energy_report.h"

#include "common/cli.h"
#include "common/json.h"
#include "engine/devices.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RED "\033[1;31m"
#define GREEN "\033[1;32m"
#define YELLOW "\033[1;33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

static const char *rank_status(const bench_session *s, const stats_ranking *r, size_t arm)
{
    if (s->st[arm].status == BENCH_ARM_GPU_IGNORED)
        return "GPU FLAGS IGNORED";
    if (s->st[arm].status == BENCH_ARM_EXCLUDED)
        return "excluded";
    const stats_rank_entry *e = stats_ranking_entry(r, arm);
    if (!e || !e->rank)
        return "no samples";
    if (arm == r->leader)
        return "leader";
    if (e->tied_with_leader)
        return "tied";
    if (e->vs_leader.outcome == STATS_WIN_B)
        return "slower";
    return e->settle == STATS_OPEN ? "open" : "undecided";
}

const char *bench_report_status(const bench_session *s, size_t t, size_t arm)
{
    return rank_status(s, &s->by_test[t], arm);
}

static const char *device_of(const bench_arm *a)
{
    return *a->params.device ? a->params.device : "-";
}

/* "0.799 [0.790, 0.808]" or "-". */
static void ci_text(const stats_comparison *c, int has, char *buf, size_t len)
{
    if (!has || !isfinite(c->ratio))
        snprintf(buf, len, "-");
    else if (!isfinite(c->ci_lo))
        snprintf(buf, len, "%.3f", c->ratio);
    else
        snprintf(buf, len, "%.3f [%.3f, %.3f]", c->ratio, c->ci_lo, c->ci_hi);
}

typedef struct widths {
    int engine, backend, device, params;
} widths;

static int maxi(int a, int b)
{
    return a > b ? a : b;
}

static widths column_widths(const bench_session *s)
{
    widths w = {6, 7, 6, 6};
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        const bench_arm *a = &s->plan->arms[i];
        char *p = bench_params_text(&a->params);
        w.engine = maxi(w.engine, (int)strlen(a->engine));
        w.backend = maxi(w.backend, (int)strlen(a->backend));
        w.device = maxi(w.device, (int)strlen(device_of(a)));
        w.params = maxi(w.params, (int)strlen(*p ? p : "-"));
        free(p);
    }
    return w;
}

static const char *status_color(FILE *f, const char *status)
{
    if (!strcmp(status, "GPU FLAGS IGNORED") || !strcmp(status, "excluded"))
        return lvd_ansi(f, RED);
    if (!strcmp(status, "leader"))
        return lvd_ansi(f, GREEN);
    if (!strcmp(status, "open") || !strcmp(status, "undecided") || !strcmp(status, "tied"))
        return lvd_ansi(f, YELLOW);
    return "";
}

static void print_table(FILE *f, const bench_session *s, size_t t)
{
    const stats_ranking *r = &s->by_test[t];
    widths w = column_widths(s);
    fprintf(f, "%s%s%s%s\n", lvd_ansi(f, BOLD), s->o.inv.tests[t].name,
            bench_session_uses_test(s, t) ? "" : "  (shown; the objective does not decide on it)",
            lvd_ansi(f, RESET));
    fprintf(f, "  %-3s %-*s %-*s %-*s %-*s %12s  %-26s %-10s %-9s %s\n", "#", w.engine, "ENGINE",
            w.backend, "BACKEND", w.device, "DEVICE", w.params, "PARAMS",
            s->o.objective.per_joule ? "MEDIAN tok/J" : "MEDIAN t/s",
            "VS LEADER [95% CI]", "VS CPU", "KEPT/DROP", "STATUS");

    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        const bench_arm *a = &s->plan->arms[e->arm];
        const bench_series *se = &s->st[e->arm].series[t];
        char rank[24], median[32], vsl[64], vsc[32], kept[48];
        snprintf(rank, sizeof rank, "%s", "-");
        if (e->rank)
            snprintf(rank, sizeof rank, "%zu", e->rank);
        snprintf(median, sizeof median, "-");
        if (e->sx.n)
            snprintf(median, sizeof median, "%.2f", e->sx.median);
        if (e->arm == r->leader)
            snprintf(vsl, sizeof vsl, "leader");
        else
            ci_text(&e->vs_leader, e->has_vs_leader, vsl, sizeof vsl);
        if (e->arm == r->ref)
            snprintf(vsc, sizeof vsc, "ref");
        else if (e->has_vs_ref && isfinite(e->vs_ref.ratio))
            snprintf(vsc, sizeof vsc, "%.2fx", e->vs_ref.ratio);
        else
            snprintf(vsc, sizeof vsc, "-");
        snprintf(kept, sizeof kept, "%zu/%zu", se->n_kept, se->n_dropped);
        char *params = bench_params_text(&a->params);
        const char *status = rank_status(s, r, e->arm);
        fprintf(f, "  %-3s %-*s %-*s %-*s %-*s %12s  %-26s %-10s %-9s %s%s%s\n", rank, w.engine,
                a->engine, w.backend, a->backend, w.device, device_of(a), w.params,
                *params ? params : "-", median, vsl, vsc, kept, status_color(f, status), status,
                lvd_ansi(f, RESET));
        free(params);
    }
}

static const char *arm_name(const bench_session *s, size_t arm)
{
    return s->plan->arms[arm].label;
}

/* Prints the comparisons of r that are not decided. */
static void print_undecided(FILE *f, const bench_session *s, const stats_ranking *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        if (!e->rank || !e->has_vs_leader || e->vs_leader.outcome == STATS_WIN_B || e->tied_with_leader)
            continue;
        char ci[64];
        ci_text(&e->vs_leader, 1, ci, sizeof ci);
        fprintf(f, "    %s vs %s: ratio %s, sequential [%.4g, %.4g] at look %zu: %s\n",
                arm_name(s, e->arm), arm_name(s, r->leader), ci, e->vs_leader.seq.lo,
                e->vs_leader.seq.hi, e->vs_leader.seq.look, e->vs_leader.why ? e->vs_leader.why : "");
    }
    for (size_t i = 0; i < r->n; i++)
        if (!r->v[i].rank && r->v[i].eligible)
            fprintf(f, "    %s: no samples yet\n", arm_name(s, r->v[i].arm));
}

static void print_decision(FILE *f, const bench_session *s, const char *what, const stats_ranking *r)
{
    fprintf(f, "%sDecision (%s):%s ", lvd_ansi(f, BOLD), what, lvd_ansi(f, RESET));
    switch (r->state) {
    case STATS_RANK_NONE:
        fprintf(f, "nothing measured\n");
        return;
    case STATS_RANK_ONLY:
        fprintf(f, "%s is the only arm measured\n", arm_name(s, r->leader));
        return;
    case STATS_RANK_WIN:
        fprintf(f, "%s%s%s wins against all %zu other arm%s (sequential interval past %.2f, "
                   "error <= %.4g over all looks)\n",
                lvd_ansi(f, GREEN), arm_name(s, r->leader), lvd_ansi(f, RESET), r->m,
                r->m == 1 ? "" : "s", s->o.rule.win, s->o.rule.alpha);
        return;
    case STATS_RANK_TIE:
        fprintf(f, "tie between %s", arm_name(s, r->leader));
        for (size_t i = 0; i < r->n; i++)
            if (r->v[i].tied_with_leader)
                fprintf(f, ", %s", arm_name(s, r->v[i].arm));
        fprintf(f, " (CI inside [%.2f, %.2f])%s\n", s->o.rule.tie_lo, s->o.rule.tie_hi,
                r->n_ranked > r->n_tied + 1 ? "; each wins against the rest" : "");
        return;
    case STATS_RANK_OPEN:
    case STATS_RANK_UNDECIDED:
        fprintf(f, "%sundecided%s, %s leads:\n", lvd_ansi(f, YELLOW), lvd_ansi(f, RESET),
                r->leader != STATS_NO_ARM ? arm_name(s, r->leader) : "nobody");
        print_undecided(f, s, r);
        return;
    }
}

static void print_problems(FILE *f, const bench_session *s)
{
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        const bench_arm_state *st = &s->st[i];
        if (st->status == BENCH_ARM_GPU_IGNORED)
            fprintf(f, "%sGPU FLAGS IGNORED:%s %s: %s; never scored as a GPU arm\n", lvd_ansi(f, RED),
                    lvd_ansi(f, RESET), arm_name(s, i), st->reason);
        else if (st->status == BENCH_ARM_EXCLUDED)
            fprintf(f, "%sexcluded:%s %s after %zu failed runs: %s\n", lvd_ansi(f, RED),
                    lvd_ansi(f, RESET), arm_name(s, i), st->failures, st->reason);
        else if (st->failures)
            fprintf(f, "failed once (retried): %s: %s\n", arm_name(s, i), st->reason);
        if (st->left_out) /* the engine's llama-bench lacks a flag the arm asks */
            fprintf(f, "left out: %s: %s\n", arm_name(s, i), st->left_out);
    }
    for (size_t i = 0; i < s->plan->n_skips; i++) {
        const bench_skip *k = &s->plan->skips[i];
        fprintf(f, "skipped: %s%s%s: %s\n", k->engine, *k->device ? " " : "", k->device, k->reason);
    }
}

void bench_report_print(FILE *f, const bench_session *s)
{
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        print_table(f, s, t);
        fputc('\n', f);
        bench_energy_print(f, s, t);
    }
    char obj[32];
    stats_objective_name(&s->o.objective, obj, sizeof obj);
    if (s->weighted) {
        char what[160];
        snprintf(what, sizeof what, "objective %s: %s and %s", obj, s->o.inv.tests[s->w_tg].name,
                 s->o.inv.tests[s->w_pp].name);
        print_decision(f, s, what, &s->weighted_rank);
    } else {
        for (size_t t = 0; t < s->o.inv.n_tests; t++) {
            if (!bench_session_uses_test(s, t))
                continue;
            char what[160];
            snprintf(what, sizeof what, "objective %s: %s", obj, s->o.inv.tests[t].name);
            print_decision(f, s, what, &s->by_test[t]);
        }
    }
    print_problems(f, s);
    bench_placement_print(f, s);
    for (size_t i = 0; i < s->plan->n_remarks; i++)
        fprintf(f, "plan: %s\n", s->plan->remarks[i]);
    bench_costs_print(f, s);
    fprintf(f, "Stopped: %s after %zu round%s (%zu runs ok, %zu failed, %zu GPU flags ignored) in %.1f s;"
               " session %s\n",
            bench_stop_name(s->stop), s->rounds, s->rounds == 1 ? "" : "s", s->runs_ok, s->runs_failed,
            s->runs_gpu_ignored, (double)s->wall_ms / 1000.0, s->o.session);
}

/* --- JSON --------------------------------------------------------------- */

static cJSON *params_json(const lvd_params *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "device", lvd_json_text(p->device));
    cJSON_AddItemToObject(o, "ngl", lvd_json_num_if(p->ngl >= 0, p->ngl));
    cJSON_AddItemToObject(o, "fa", lvd_json_num_if(p->fa >= 0, p->fa));
    cJSON_AddItemToObject(o, "ubatch", lvd_json_num_if(p->ubatch > 0, p->ubatch));
    cJSON_AddItemToObject(o, "type_k", lvd_json_text(p->type_k));
    cJSON_AddItemToObject(o, "type_v", lvd_json_text(p->type_v));
    cJSON_AddItemToObject(o, "n_cpu_moe", lvd_json_num_if(p->n_cpu_moe > 0, p->n_cpu_moe));
    cJSON_AddItemToObject(o, "threads", lvd_json_num_if(p->threads > 0, p->threads));
    cJSON_AddItemToObject(o, "fused_moe", lvd_json_num_if(p->fused_moe >= 0, p->fused_moe));
    cJSON_AddItemToObject(o, "repack", lvd_json_num_if(p->repack >= 0, p->repack));
    cJSON_AddStringToObject(o, "env", p->env);
    return o;
}

static cJSON *arm_json(const bench_session *s, size_t i)
{
    const bench_arm *a = &s->plan->arms[i];
    const bench_arm_state *st = &s->st[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "arm", (double)i);
    cJSON_AddStringToObject(o, "engine", a->engine);
    cJSON_AddNumberToObject(o, "engine_id", (double)a->engine_id);
    cJSON_AddStringToObject(o, "build", a->build);
    cJSON_AddStringToObject(o, "backend", a->backend);
    cJSON_AddItemToObject(o, "device", lvd_json_text(a->params.device));
    cJSON_AddStringToObject(o, "device_name", a->device_name);
    cJSON_AddItemToObject(o, "params", params_json(&a->params));
    cJSON_AddStringToObject(o, "arm_key", a->arm_key);
    cJSON_AddStringToObject(o, "label", a->label);
    cJSON_AddStringToObject(o, "status", bench_arm_status_name(st->status));
    cJSON_AddItemToObject(o, "reason", lvd_json_str(st->reason));
    cJSON_AddNumberToObject(o, "runs", (double)st->runs);
    cJSON_AddNumberToObject(o, "failures", (double)st->failures);
    cJSON_AddItemToObject(o, "placement", lvd_json_str(a->placement));
    cJSON_AddItemToObject(o, "rung_of", lvd_json_num_if(a->rung_of != 0, (double)a->rung_of - 1));
    cJSON_AddItemToObject(o, "fit_of", lvd_json_num_if(a->fit_of != 0, (double)a->fit_of - 1));
    if (st->left_out) /* only then: every other arm stays as it was */
        cJSON_AddStringToObject(o, "left_out", st->left_out);
    return o;
}

static cJSON *ranking_json(const bench_session *s, const stats_ranking *r, int t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "state", stats_rank_state_name(r->state));
    cJSON_AddItemToObject(o, "leader", lvd_json_num_if(r->leader != STATS_NO_ARM, (double)r->leader));
    cJSON_AddNumberToObject(o, "m", (double)r->m);
    cJSON *rows = cJSON_AddArrayToObject(o, "ranking");
    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "arm", (double)e->arm);
        cJSON_AddItemToObject(row, "rank", lvd_json_num_if(e->rank != 0, (double)e->rank));
        cJSON_AddStringToObject(row, "status", rank_status(s, r, e->arm));
        if (t >= 0) {
            const bench_series *se = &s->st[e->arm].series[t];
            cJSON_AddItemToObject(row, "median", lvd_json_num(e->sx.median));
            cJSON_AddItemToObject(row, "mean", lvd_json_num(e->sx.mean));
            cJSON_AddItemToObject(row, "stddev", lvd_json_num(e->sx.stddev));
            cJSON_AddNumberToObject(row, "kept", (double)se->n_kept);
            cJSON_AddNumberToObject(row, "dropped", (double)se->n_dropped);
            cJSON_AddItemToObject(row, "energy", bench_energy_json(s, e->arm, (size_t)t));
        } else {
            cJSON_AddItemToObject(row, "score", lvd_json_num(e->score));
        }
        cJSON_AddItemToObject(row, "vs_leader",
                              e->has_vs_leader ? stats_comparison_json(&e->vs_leader) : cJSON_CreateNull());
        cJSON_AddItemToObject(row, "vs_cpu",
                              e->has_vs_ref ? stats_comparison_json(&e->vs_ref) : cJSON_CreateNull());
        cJSON_AddItemToArray(rows, row);
    }
    return o;
}

static void add_undecided(cJSON *arr, const bench_session *s, const char *what, const stats_ranking *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        int pending = !e->rank && e->eligible;
        int open = e->rank && e->has_vs_leader && e->vs_leader.outcome != STATS_WIN_B && !e->tied_with_leader;
        if (!pending && !open)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "criterion", what);
        cJSON_AddNumberToObject(o, "arm", (double)e->arm);
        cJSON_AddStringToObject(o, "label", arm_name(s, e->arm));
        cJSON_AddItemToObject(o, "leader", lvd_json_num_if(r->leader != STATS_NO_ARM, (double)r->leader));
        cJSON_AddItemToObject(o, "comparison",
                              e->has_vs_leader ? stats_comparison_json(&e->vs_leader) : cJSON_CreateNull());
        cJSON_AddItemToArray(arr, o);
    }
}

cJSON *bench_report_json(const bench_session *s)
{
    cJSON *o = cJSON_CreateObject();
    char obj[32];
    stats_objective_name(&s->o.objective, obj, sizeof obj);
    cJSON_AddStringToObject(o, "model", s->o.inv.model);
    cJSON_AddStringToObject(o, "artifact", s->o.artifact);
    cJSON_AddStringToObject(o, "session", s->o.session);
    cJSON_AddStringToObject(o, "host", s->o.host);
    cJSON_AddStringToObject(o, "objective", obj);
    cJSON_AddStringToObject(o, "stop", bench_stop_name(s->stop));
    cJSON_AddNumberToObject(o, "rounds", (double)s->rounds);
    cJSON_AddNumberToObject(o, "wall_ms", (double)s->wall_ms);
    cJSON_AddItemToObject(o, "costs", bench_costs_json(s));
    cJSON_AddItemToObject(o, "placement", bench_placement_json(s));
    cJSON_AddItemToObject(o, "plan_remarks", lvd_json_strings(s->plan->remarks, s->plan->n_remarks));
    cJSON *runs = cJSON_AddObjectToObject(o, "runs");
    cJSON_AddNumberToObject(runs, "ok", (double)s->runs_ok);
    cJSON_AddNumberToObject(runs, "failed", (double)s->runs_failed);
    cJSON_AddNumberToObject(runs, "gpu_ignored", (double)s->runs_gpu_ignored);
    cJSON_AddNumberToObject(runs, "skipped", (double)s->skips_recorded);
    cJSON *arms = cJSON_AddArrayToObject(o, "arms");
    for (size_t i = 0; i < s->plan->n_arms; i++)
        cJSON_AddItemToArray(arms, arm_json(s, i));
    cJSON *skipped = cJSON_AddArrayToObject(o, "skipped");
    for (size_t i = 0; i < s->plan->n_skips; i++) {
        const bench_skip *k = &s->plan->skips[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "engine", k->engine);
        cJSON_AddNumberToObject(x, "engine_id", (double)k->engine_id);
        cJSON_AddItemToObject(x, "device", lvd_json_text(k->device));
        cJSON_AddStringToObject(x, "reason", k->reason);
        cJSON_AddItemToArray(skipped, x);
    }
    cJSON *tests = cJSON_AddArrayToObject(o, "tests");
    cJSON *undecided = cJSON_CreateArray();
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        cJSON *x = ranking_json(s, &s->by_test[t], (int)t);
        cJSON_AddStringToObject(x, "test", s->o.inv.tests[t].name);
        cJSON_AddBoolToObject(x, "decides", bench_session_uses_test(s, t));
        cJSON_AddItemToArray(tests, x);
        if (bench_session_uses_test(s, t) && !s->weighted)
            add_undecided(undecided, s, s->o.inv.tests[t].name, &s->by_test[t]);
    }
    if (s->weighted) {
        cJSON *w = ranking_json(s, &s->weighted_rank, -1);
        cJSON_AddNumberToObject(w, "w", s->o.objective.w);
        cJSON_AddStringToObject(w, "tg_test", s->o.inv.tests[s->w_tg].name);
        cJSON_AddStringToObject(w, "pp_test", s->o.inv.tests[s->w_pp].name);
        cJSON_AddItemToObject(o, "weighted", w);
        add_undecided(undecided, s, obj, &s->weighted_rank);
    } else {
        cJSON_AddNullToObject(o, "weighted");
    }
    cJSON_AddItemToObject(o, "undecided", undecided);
    return o;
}

/* --- the end-of-session warning ---------------------------------------- */

/* 1 when arm i is a GPU arm the session measured (active, an ok run); device
 * gets the device its check is looked up under. */
static int measured_device(const bench_session *bs, size_t i, char *device, size_t len)
{
    const bench_arm_state *st = &bs->st[i];
    engine_check_device(NULL, &bs->plan->arms[i].params, device, len);
    return *device && st->status == BENCH_ARM_ACTIVE && st->runs > st->failures;
}

/* 1 when a measured arm before i has i's engine and device. */
static int device_seen(const bench_session *bs, size_t i, const char *device)
{
    for (size_t j = 0; j < i; j++) {
        char other[64];
        if (measured_device(bs, j, other, sizeof other) && !strcmp(other, device) &&
            bs->plan->arms[j].engine_id == bs->plan->arms[i].engine_id)
            return 1;
    }
    return 0;
}

int bench_report_unchecked(const char *tool, store *s, const bench_session *bs, lvd_err *err)
{
    lvd_sb cmd = {0};
    lvd_sb_adds(&cmd, "lvd check --model ");
    lvd_shell_quote(&cmd, bs->o.inv.model);
    int named = 0;
    for (size_t i = 0; i < bs->plan->n_arms; i++) {
        const bench_arm *a = &bs->plan->arms[i];
        char device[64];
        if (!measured_device(bs, i, device, sizeof device) || device_seen(bs, i, device))
            continue;
        lvd_check c;
        int rc = store_check_latest(s, bs->o.artifact, bs->o.host, a->engine_id, device, &c, err);
        if (rc < 0) {
            named = -1;
            break;
        }
        if (rc == 0) {
            lvd_check_free(&c);
            continue;
        }
        named++;
        lvd_warn(tool, "%s %s%s%s%s was measured but has no correctness check for this model: no"
                 " verdict rests on it until it has one (run: %s)", a->engine, device, *a->device_name ? " (" : "",
                 a->device_name, *a->device_name ? ")" : "", lvd_sb_str(&cmd));
    }
    lvd_sb_free(&cmd);
    return named;
}

int bench_report_exit(const bench_session *s)
{
    if (s->stop == BENCH_STOP_NOTHING)
        return LVD_EXIT_FAIL;
    if (s->runs_failed || s->runs_gpu_ignored || s->plan->n_skips)
        return LVD_EXIT_PARTIAL;
    for (size_t i = 0; i < s->plan->n_arms; i++)
        if (s->st[i].status != BENCH_ARM_ACTIVE)
            return LVD_EXIT_PARTIAL;
    return LVD_EXIT_OK;
}
