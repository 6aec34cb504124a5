/* energy_report.c: lvd-bench's energy block, its one "not measured" line and
 * the JSON energy object (see energy_report.h). Reads the session. */
#include "bench/energy_report.h"

#include "bench/energy.h"
#include "common/json.h"
#include "stats/energy.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int has_source(const bench_session *s, size_t arm)
{
    const bench_energy *e = s->o.inv.energy;
    return e && arm < e->n_picks && e->picks[arm].n;
}

int bench_energy_reps(const bench_session *s, size_t arm, int reps)
{
    if (s->o.inv.reps > 0 || !has_source(s, arm))
        return reps;
    double rep_ms = bench_arm_cost_rep_ms(&s->st[arm].cost);
    if (!(rep_ms > 0))
        return reps;
    double need = ceil(1.25 * (double)energy_min_window_ms() / rep_ms);
    if (need > 1000)
        need = 1000; /* llama-bench's -r, sanely */
    return need > reps ? (int)need : reps;
}

int bench_energy_eligible(const bench_session *s, size_t arm)
{
    if (!s->o.objective.per_joule)
        return 1;
    if (!has_source(s, arm))
        return 0;
    if (s->st[arm].runs_ok < 2)
        return 1;
    for (size_t t = 0; t < s->o.inv.n_tests; t++)
        if (s->st[arm].joules[t].n)
            return 1;
    return 0;
}

static int any_measured(const bench_session *s)
{
    for (size_t i = 0; i < s->plan->n_arms; i++)
        for (size_t t = 0; t < s->o.inv.n_tests; t++)
            if (s->st[i].joules[t].n)
                return 1;
    return 0;
}

/* The first arm's reason a window was not measured ("" when none). */
static const char *first_note(const bench_session *s)
{
    for (size_t i = 0; i < s->plan->n_arms; i++)
        for (size_t t = 0; t < s->o.inv.n_tests; t++)
            if (s->st[i].joules[t].note[0])
                return s->st[i].joules[t].note;
    return "no --progress window";
}

static void summary(const bench_session *s, size_t arm, size_t t, stats_energy_stat *st)
{
    const bench_joules *j = &s->st[arm].joules[t];
    stats_energy_summary(j->tpj, j->n, &s->o.rule, st);
}

void bench_energy_print(FILE *f, const bench_session *s, size_t t)
{
    if (!any_measured(s)) {
        if (t == 0) {
            char why[256];
            const bench_energy *e = s->o.inv.energy;
            if (bench_energy_any(e))
                snprintf(why, sizeof why, "no window was measured: %s", first_note(s));
            fprintf(f, "Energy: not measured (%s)\n\n",
                    bench_energy_any(e) ? why : bench_energy_why_not(e, why, sizeof why));
        }
        return;
    }
    fprintf(f, "  energy, net of idle:\n");
    const stats_ranking *r = &s->by_test[t];
    for (size_t i = 0; i < r->n; i++) {
        size_t arm = r->v[i].arm;
        const bench_joules *j = &s->st[arm].joules[t];
        stats_energy_stat st;
        summary(s, arm, t, &st);
        if (!st.has) {
            fprintf(f, "  %-44s not measured%s%s%s\n", s->plan->arms[arm].label, j->note[0] ? " (" : "", j->note,
                    j->note[0] ? ")" : "");
            continue;
        }
        char idle[64] = "idle not measured";
        if (isfinite(j->last.idle_watts))
            snprintf(idle, sizeof idle, "idle %.1f W, gross %.4f J/token", j->last.idle_watts,
                     1.0 / stats_median(j->gross, j->n));
        fprintf(f, "  %-44s %9.4f J/token [%.4f, %.4f]  %8.3f tokens/J  %s %s, %s\n", s->plan->arms[arm].label,
                st.jpt, st.jpt_lo, st.jpt_hi, st.tpj, j->last.source, j->last.device, idle);
    }
    fputc('\n', f);
}

static cJSON *pair(double lo, double hi)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, lvd_json_num(lo));
    cJSON_AddItemToArray(a, lvd_json_num(hi));
    return a;
}

cJSON *bench_energy_json(const bench_session *s, size_t arm, size_t t)
{
    const bench_joules *j = &s->st[arm].joules[t];
    stats_energy_stat st;
    summary(s, arm, t, &st);
    if (!st.has)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "source", j->last.source);
    cJSON_AddStringToObject(o, "device", j->last.device);
    cJSON_AddItemToObject(o, "joules_per_token", lvd_json_num(st.jpt));
    cJSON_AddItemToObject(o, "tokens_per_joule", lvd_json_num(st.tpj));
    cJSON *ci = cJSON_AddObjectToObject(o, "ci");
    cJSON_AddNumberToObject(ci, "level", s->o.rule.level);
    cJSON_AddItemToObject(ci, "joules_per_token", pair(st.jpt_lo, st.jpt_hi));
    cJSON_AddItemToObject(ci, "tokens_per_joule", pair(st.tpj_lo, st.tpj_hi));
    cJSON_AddItemToObject(o, "idle_watts", lvd_json_num(j->last.idle_watts));
    cJSON_AddBoolToObject(o, "net_of_idle", isfinite(j->last.idle_watts));
    double g = stats_median(j->gross, j->n);
    cJSON *gross = cJSON_AddObjectToObject(o, "gross");
    cJSON_AddItemToObject(gross, "joules_per_token", lvd_json_num(1.0 / g));
    cJSON_AddItemToObject(gross, "tokens_per_joule", lvd_json_num(g));
    cJSON_AddNumberToObject(o, "samples", (double)st.n);
    return o;
}
