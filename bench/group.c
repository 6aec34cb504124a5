/* group.c: arms that share one llama-bench process, their comma lists and
 * the rows split back per arm (rules in group.h). */
#include "bench/group.h"

#include "common/util.h"
#include "engine/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bench_process_key(const bench_arm *arm)
{
    const lvd_params *p = &arm->params;
    char fit[48] = ""; /* llama.cpp's own fit loads apart (only then: other keys stay as they were) */
    if (p->fit_target > 0)
        snprintf(fit, sizeof fit, " fitt=%d fitc=%d", p->fit_target, p->fit_ctx);
    char knobs[48] = ""; /* ik_llama.cpp's llama-bench takes one -fmoe and one -rtr per process */
    if (p->fused_moe >= 0 || p->repack >= 0)
        snprintf(knobs, sizeof knobs, " fmoe=%d rtr=%d", p->fused_moe, p->repack);
    return lvd_xasprintf("%lld %s dev=%s sm=%s ts=%s ngl=%d ncmoe=%d%s%s gpu=%d env=%s", (long long)arm->engine_id,
                         arm->binary, p->device, p->split_mode, p->tensor_split, p->ngl, p->n_cpu_moe, fit, knobs,
                         arm->gpu, p->env);
}

/* Context flag d of p as llama-bench prints it in a list; "" when not passed. */
static void ctx_value(const lvd_params *p, int d, char *buf, size_t len)
{
    *buf = '\0';
    if (d == BENCH_CTX_UB && p->ubatch > 0)
        snprintf(buf, len, "%d", p->ubatch);
    else if (d == BENCH_CTX_CTK)
        snprintf(buf, len, "%s", p->type_k);
    else if (d == BENCH_CTX_CTV)
        snprintf(buf, len, "%s", p->type_v);
    else if (d == BENCH_CTX_FA && p->fa >= 0)
        snprintf(buf, len, "%d", p->fa ? 1 : 0);
    else if (d == BENCH_CTX_T && p->threads > 0)
        snprintf(buf, len, "%d", p->threads);
}

/* The reported value of context flag d in r, spelt as ctx_value spells it. */
static void rep_value(const lvd_result *r, int d, char *buf, size_t len)
{
    switch (d) {
    case BENCH_CTX_UB: snprintf(buf, len, "%d", r->rep_ubatch); break;
    case BENCH_CTX_CTK: snprintf(buf, len, "%s", r->rep_type_k); break;
    case BENCH_CTX_CTV: snprintf(buf, len, "%s", r->rep_type_v); break;
    case BENCH_CTX_FA: snprintf(buf, len, "%d", r->rep_fa); break;
    default: snprintf(buf, len, "%d", r->rep_threads); break;
    }
}

/* The bucket key: the process key, which context flags are passed, and the
 * values of every context flag but `except` (-1: none excepted). */
static char *bucket_key(const bench_arm *a, int except, int with_values)
{
    char *pk = bench_process_key(a);
    lvd_sb sb = {0};
    lvd_sb_adds(&sb, pk);
    free(pk);
    for (int d = 0; d < BENCH_CTX_COUNT; d++) {
        char v[32];
        ctx_value(&a->params, d, v, sizeof v);
        lvd_sb_addf(&sb, " %d:%s", *v != '\0', with_values && d != except ? v : "");
    }
    return lvd_sb_detach(&sb);
}

static bench_group *push_group(bench_group **g, size_t *n)
{
    *g = lvd_xrealloc(*g, (*n + 1) * sizeof **g);
    bench_group *x = &(*g)[(*n)++];
    memset(x, 0, sizeof *x);
    x->abba = -1;
    return x;
}

static void group_add(bench_group *g, size_t arm)
{
    g->arms = lvd_xrealloc(g->arms, (g->n + 1) * sizeof *g->arms);
    g->arms[g->n++] = arm;
}

/* Distinct values of flag d over arms[0..n). */
static size_t distinct(const bench_plan *plan, const size_t *arms, size_t n, int d)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        char v[32], w[32];
        ctx_value(&plan->arms[arms[i]].params, d, v, sizeof v);
        size_t k = 0;
        for (; k < i; k++) {
            ctx_value(&plan->arms[arms[k]].params, d, w, sizeof w);
            if (!strcmp(v, w))
                break;
        }
        count += k == i;
    }
    return count;
}

static void finish_group(const bench_plan *plan, bench_group *g)
{
    for (int d = 0; d < BENCH_CTX_COUNT && g->n > 1; d++) {
        g->vary[d] = distinct(plan, g->arms, g->n, d) > 1;
        if (g->vary[d] && g->abba < 0)
            g->abba = d;
    }
}

/* Splits one bucket (arms sharing a process key and passed flags) into full
 * cross products: the bucket itself, or one group per value set of the
 * flags other than the first varying one. */
static void split_bucket(const bench_plan *plan, const size_t *arms, size_t n, bench_group **g, size_t *ng)
{
    size_t product = 1;
    int first = -1;
    for (int d = 0; d < BENCH_CTX_COUNT; d++) {
        size_t k = distinct(plan, arms, n, d);
        product *= k;
        if (k > 1 && first < 0)
            first = d;
    }
    if (product == n || first < 0) {
        bench_group *x = push_group(g, ng);
        for (size_t i = 0; i < n; i++)
            group_add(x, arms[i]);
        finish_group(plan, x);
        return;
    }
    unsigned char *done = lvd_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        bench_group *x = push_group(g, ng);
        char *ki = bucket_key(&plan->arms[arms[i]], first, 1);
        for (size_t k = i; k < n; k++) {
            char *kk = bucket_key(&plan->arms[arms[k]], first, 1);
            if (!done[k] && !strcmp(ki, kk)) {
                done[k] = 1;
                group_add(x, arms[k]);
            }
            free(kk);
        }
        free(ki);
        finish_group(plan, x);
    }
    free(done);
}

size_t bench_groups_make(const bench_plan *plan, const unsigned char *need, const unsigned char *solo,
                         int share, bench_group **out)
{
    size_t n = plan->n_arms, ng = 0;
    bench_group *g = NULL;
    unsigned char *done = lvd_xcalloc(n ? n : 1, 1);
    size_t *bucket = lvd_xcalloc(n ? n : 1, sizeof *bucket);
    for (size_t i = 0; i < n; i++) {
        if (!need[i] || done[i])
            continue;
        size_t nb = 0;
        bucket[nb++] = i;
        done[i] = 1;
        int alone = !share || (solo && solo[i]);
        char *ki = alone ? NULL : bucket_key(&plan->arms[i], -1, 0);
        for (size_t k = i + 1; ki && k < n; k++) {
            if (!need[k] || done[k] || (solo && solo[k]))
                continue;
            char *kk = bucket_key(&plan->arms[k], -1, 0);
            if (!strcmp(ki, kk)) {
                bucket[nb++] = k;
                done[k] = 1;
            }
            free(kk);
        }
        free(ki);
        split_bucket(plan, bucket, nb, &g, &ng);
    }
    free(bucket);
    free(done);
    *out = g;
    return ng;
}

void bench_groups_free(bench_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        free(g[i].arms);
    free(g);
}

size_t bench_group_slots(const bench_group *g)
{
    return g->n > 1 && g->abba >= 0 ? 2 : 1;
}

char *bench_group_list(const bench_plan *plan, const bench_group *g, int d)
{
    char v[32];
    ctx_value(&plan->arms[g->arms[0]].params, d, v, sizeof v);
    if (!*v)
        return NULL;
    char **vals = NULL;
    size_t nv = 0;
    for (size_t i = 0; i < g->n; i++) {
        ctx_value(&plan->arms[g->arms[i]].params, d, v, sizeof v);
        size_t k = 0;
        while (k < nv && strcmp(vals[k], v))
            k++;
        if (k == nv)
            lvd_strv_push(&vals, &nv, lvd_xstrdup(v));
    }
    lvd_sb sb = {0};
    for (size_t k = 0; k < nv; k++)
        lvd_sb_addf(&sb, "%s%s", k ? "," : "", vals[k]);
    for (size_t k = nv; d == g->abba && k > 0; k--)
        lvd_sb_addf(&sb, ",%s", vals[k - 1]);
    lvd_strv_free(vals);
    return lvd_sb_detach(&sb);
}

size_t bench_group_match(const bench_plan *plan, const bench_group *g, const lvd_result *r)
{
    if (g->n == 1)
        return 0;
    for (size_t i = 0; i < g->n; i++) {
        int ok = 1;
        for (int d = 0; d < BENCH_CTX_COUNT && ok; d++) {
            if (!g->vary[d])
                continue;
            char want[32], got[32];
            ctx_value(&plan->arms[g->arms[i]].params, d, want, sizeof want);
            rep_value(r, d, got, sizeof got);
            ok = !strcmp(want, got);
        }
        if (ok)
            return i;
    }
    return (size_t)-1;
}

int bench_group_class(const bench_plan *plan, const bench_group *g)
{
    const bench_arm *a = &plan->arms[g->arms[0]];
    if (!a->gpu || engine_device_is_software(a->device_name))
        return BENCH_CLASS_HOST;
    return *a->params.env ? BENCH_CLASS_GPU_ENV : BENCH_CLASS_GPU;
}

void bench_groups_order(const bench_plan *plan, bench_group *g, size_t n)
{
    for (size_t i = 1; i < n; i++) { /* insertion: stable, and n is a handful */
        bench_group x = g[i];
        int cx = bench_group_class(plan, &x);
        size_t j = i;
        for (; j > 0 && bench_group_class(plan, &g[j - 1]) > cx; j--)
            g[j] = g[j - 1];
        g[j] = x;
    }
}
