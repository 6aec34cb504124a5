/* prices.c: the session's price records and their seeds from earlier nights
 * (rules in prices.h). */
#include "bench/prices.h"

#include "bench/group.h"
#include "store/prices.h"

#include <stdlib.h>
#include <string.h>

bench_cost *bench_prices_of(bench_session *s, const bench_arm *arm)
{
    char *key = bench_process_key(arm);
    for (size_t i = 0; i < s->n_costs; i++) {
        if (!strcmp(s->costs[i].key, key)) {
            free(key);
            return &s->costs[i];
        }
    }
    s->costs = lvd_xrealloc(s->costs, (s->n_costs + 1) * sizeof *s->costs);
    bench_cost *c = &s->costs[s->n_costs++];
    memset(c, 0, sizeof *c);
    c->key = key;
    return c;
}

/* One llama-bench process seen while seeding: (key, invocation). */
typedef struct seen_proc {
    size_t cost;                   /* index in s->costs (it moves as it grows) */
    int64_t invocation;            /* unique in the store (store/prices.h) */
} seen_proc;

/* 1 when the process was seeded already; else remembers it and returns 0. */
static int seen_before(seen_proc **seen, size_t *n, size_t c, int64_t invocation)
{
    for (size_t i = 0; i < *n; i++)
        if ((*seen)[i].cost == c && (*seen)[i].invocation == invocation)
            return 1;
    *seen = lvd_xrealloc(*seen, (*n + 1) * sizeof **seen);
    (*seen)[(*n)++] = (seen_proc){c, invocation};
    return 0;
}

/* The objective's one test (a throughput objective deciding on one test):
 * its index, or -1 (weighted, per joule, or several tests). */
static long objective_test(const bench_session *s)
{
    long one = -1;
    if (s->weighted || s->o.objective.per_joule)
        return -1;
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        if (!bench_session_uses_test(s, t))
            continue;
        if (one >= 0)
            return -1;
        one = (long)t;
    }
    return one;
}

/* Seeds arm i's last night on the objective's one test (prices.h): its mean
 * sample there and how many of those samples it dropped as warm-up. */
static int seed_objective(store *st, bench_session *s, size_t i, lvd_err *err)
{
    long t = objective_test(s);
    if (t < 0)
        return 0;
    const bench_arm *arm = &s->plan->arms[i];
    const char *test = s->o.inv.tests[t].name;
    store_prices got;
    if (store_prices_last(st, s->o.artifact, s->o.host, arm->engine_id, arm->arm_key, s->o.session, &test, 1, &got,
                          err))
        return -1;
    double ms = 0;
    size_t n = 0, dropped = 0;
    for (size_t k = 0; k < got.n; k++) {
        ms += got.v[k].samples_ms;
        n += (size_t)(got.v[k].reps > 0 ? got.v[k].reps : 0);
        dropped += (size_t)(got.v[k].dropped > 0 ? got.v[k].dropped : 0);
    }
    s->st[i].cost.seed_obj_ms = n ? ms / (double)n : 0;
    s->st[i].cost.seed_obj_dropped = dropped;
    store_prices_free(&got);
    return 0;
}

int bench_prices_seed(store *st, bench_session *s, lvd_err *err)
{
    size_t nt = s->o.inv.n_tests, n = s->plan->n_arms, n_seen = 0;
    const char **tests = lvd_xcalloc(nt ? nt : 1, sizeof *tests);
    for (size_t t = 0; t < nt; t++)
        tests[t] = s->o.inv.tests[t].name;
    store_prices *got = lvd_xcalloc(n ? n : 1, sizeof *got);
    seen_proc *seen = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const bench_arm *arm = &s->plan->arms[i];
        rc = store_prices_last(st, s->o.artifact, s->o.host, arm->engine_id, arm->arm_key, s->o.session, tests,
                               nt, &got[i], err);
        if (rc || !got[i].session || (rc = seed_objective(st, s, i, err)))
            continue;
        bench_cost *c = bench_prices_of(s, arm);
        bench_arm_cost *a = &s->st[i].cost;
        for (size_t k = 0; k < got[i].n; k++) {
            const store_price *p = &got[i].v[k];
            bench_arm_cost_seed(a, p->reps, p->samples_ms, p->longest_ms);
            a->seed_samples += (size_t)(p->reps > 0 ? p->reps : 0);
            a->seed_dropped += (size_t)(p->dropped > 0 ? p->dropped : 0);
            a->seed_procs += k == 0 || p->invocation != got[i].v[k - 1].invocation;
            if (!seen_before(&seen, &n_seen, (size_t)(c - s->costs), p->invocation))
                bench_cost_seed(c, p->fixed_ms, got[i].started_at);
        }
    }
    free(seen);
    for (size_t i = 0; i < n; i++)
        store_prices_free(&got[i]);
    free(got);
    free(tests);
    return rc;
}
