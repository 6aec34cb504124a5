/* costreport.c: prices and chosen -r in the report (see costreport.h). */
#include "bench/costreport.h"

#include <cjson/cJSON.h>
#include <time.h>

/* "2026-11-30 02:00 UTC" for the session start at (epoch s). */
static void night_of(int64_t at, char *buf, size_t len)
{
    time_t t = (time_t)at;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, len, "%lld", (long long)at);
}

void bench_costs_print(FILE *f, const bench_session *s)
{
    for (size_t i = 0; i < s->n_costs; i++) {
        const bench_cost *c = &s->costs[i];
        double fixed = bench_cost_fixed_ms(c);
        fprintf(f, "Invocations: %s: ", c->key);
        if (fixed >= 0)
            fprintf(f, "%.1f s fixed (load + warm-up) each", fixed / 1000.0);
        else
            fprintf(f, "not priced (no invocation produced samples)");
        fprintf(f, ", -r %d x %zu instance%s per arm, %zu run", c->last_reps, c->last_slots,
                c->last_slots == 1 ? "" : "s", c->invocations - c->seeds);
        if (c->seed_at) {
            char night[40];
            night_of(c->seed_at, night, sizeof night);
            fprintf(f, "; first -r priced from the night of %s (%.1f s fixed)", night, c->seed_fixed_ms / 1000.0);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        const bench_arm_cost *a = &s->st[i].cost;
        double rep = bench_arm_cost_rep_ms(a);
        if (rep > 0 && a->seed_rep_ms > 0 && !a->seeds)
            fprintf(f, "Per repetition: %s: %.2f s (carried over: %.2f s)\n", s->plan->arms[i].label, rep / 1000.0,
                    a->seed_rep_ms / 1000.0);
        else if (rep > 0)
            fprintf(f, "Per repetition: %s: %.2f s%s\n", s->plan->arms[i].label, rep / 1000.0,
                    a->seeds ? " (carried over, not measured tonight)" : "");
        if (s->st[i].budget_cut)
            fprintf(f, "Not sampled within the budget: %s\n", s->plan->arms[i].label);
    }
}

cJSON *bench_costs_json(const bench_session *s)
{
    cJSON *root = cJSON_CreateObject(), *inv = cJSON_AddArrayToObject(root, "invocations");
    cJSON *arms = cJSON_AddArrayToObject(root, "arms"), *cut = cJSON_AddArrayToObject(root, "not_sampled");
    for (size_t i = 0; i < s->n_costs; i++) {
        const bench_cost *c = &s->costs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "process", c->key);
        cJSON_AddNumberToObject(o, "fixed_ms", bench_cost_fixed_ms(c));
        cJSON_AddNumberToObject(o, "fixed_max_ms", c->fixed_max_ms);
        cJSON_AddNumberToObject(o, "reps", c->last_reps);
        cJSON_AddNumberToObject(o, "instances_per_arm", (double)c->last_slots);
        cJSON_AddNumberToObject(o, "invocations", (double)(c->invocations - c->seeds));
        if (c->seed_at) {
            char night[40];
            night_of(c->seed_at, night, sizeof night);
            cJSON_AddStringToObject(o, "priced_from", night);
            cJSON_AddNumberToObject(o, "priced_from_at", (double)c->seed_at);
            cJSON_AddNumberToObject(o, "seed_fixed_ms", c->seed_fixed_ms);
        } else {
            cJSON_AddNullToObject(o, "priced_from");
        }
        cJSON_AddItemToArray(inv, o);
    }
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "arm", s->plan->arms[i].label);
        cJSON_AddNumberToObject(o, "rep_ms", bench_arm_cost_rep_ms(&s->st[i].cost));
        cJSON_AddNumberToObject(o, "sample_max_ms", s->st[i].cost.sample_max_ms);
        if (s->st[i].cost.seed_rep_ms > 0)
            cJSON_AddNumberToObject(o, "seed_rep_ms", s->st[i].cost.seed_rep_ms);
        cJSON_AddItemToArray(arms, o);
        if (s->st[i].budget_cut)
            cJSON_AddItemToArray(cut, cJSON_CreateString(s->plan->arms[i].label));
    }
    return root;
}
