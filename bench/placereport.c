/* placereport.c: see placereport.h. */
#include "bench/placereport.h"

#include "common/json.h"
#include "stats/stats.h"

#include <math.h>

/* Our arm against the fit arm on test t; 0 when both have samples. */
static int versus(const bench_session *s, size_t fit, size_t t, stats_comparison *c)
{
    size_t ours = s->plan->arms[fit].fit_of - 1;
    const bench_series *a = &s->st[ours].series[t], *b = &s->st[fit].series[t];
    if (!a->n_kept || !b->n_kept)
        return -1;
    return stats_compare(a->kept, a->n_kept, b->kept, b->n_kept, &s->o.rule, c);
}

static const char *faster(const stats_comparison *c)
{
    switch (c->outcome) {
    case STATS_WIN_A: return "ours";
    case STATS_WIN_B: return "llama.cpp fit";
    case STATS_TIE: return "tie";
    case STATS_UNKNOWN: break;
    }
    return "undecided";
}

typedef void (*pair_fn)(const bench_session *s, size_t fit, size_t t, const stats_comparison *c, void *ctx);

/* Calls fn for every "llama.cpp fit" arm and objective test where both it and
 * our arm have samples. */
static void each_pair(const bench_session *s, pair_fn fn, void *ctx)
{
    for (size_t i = 0; i < s->plan->n_arms; i++) {
        if (!s->plan->arms[i].fit_of)
            continue;
        for (size_t t = 0; t < s->o.inv.n_tests; t++) {
            stats_comparison c;
            if (bench_session_uses_test(s, t) && versus(s, i, t, &c) == 0)
                fn(s, i, t, &c, ctx);
        }
    }
}

static void print_pair(const bench_session *s, size_t fit, size_t t, const stats_comparison *c, void *ctx)
{
    fprintf((FILE *)ctx, "placement vs llama.cpp fit, %s: ours (%s) / llama.cpp fit (%s) = %.3f (CI %.3f-%.3f): "
                         "faster: %s\n", s->o.inv.tests[t].name, s->plan->arms[s->plan->arms[fit].fit_of - 1].label,
            s->plan->arms[fit].label, c->ratio, c->ci_lo, c->ci_hi, faster(c));
}

static void json_pair(const bench_session *s, size_t fit, size_t t, const stats_comparison *c, void *ctx)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "test", s->o.inv.tests[t].name);
    cJSON_AddNumberToObject(x, "ours", (double)(s->plan->arms[fit].fit_of - 1));
    cJSON_AddNumberToObject(x, "fit", (double)fit);
    cJSON_AddItemToObject(x, "ratio", lvd_json_num(c->ratio));
    cJSON_AddItemToObject(x, "ci_lo", lvd_json_num(c->ci_lo));
    cJSON_AddItemToObject(x, "ci_hi", lvd_json_num(c->ci_hi));
    cJSON_AddStringToObject(x, "faster", faster(c));
    cJSON_AddItemToArray((cJSON *)ctx, x);
}

void bench_placement_print(FILE *f, const bench_session *s)
{
    for (size_t i = 0; i < s->plan->n_notes; i++)
        fprintf(f, "placement: %s\n", s->plan->notes[i]);
    each_pair(s, print_pair, f);
}

cJSON *bench_placement_json(const bench_session *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "notes", lvd_json_strings(s->plan->notes, s->plan->n_notes));
    each_pair(s, json_pair, cJSON_AddArrayToObject(o, "fit_vs_ours"));
    return o;
}
