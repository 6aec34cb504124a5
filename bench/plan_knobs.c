/* plan_knobs.c: ik_llama.cpp's knobs (-fmoe fused MoE, -rtr run-time
 * repacking) as a dimension of the plan: an engine's arms once per value
 * asked, where its llama-bench lists the knob (rules in plan.h). */
#include "bench/plan.h"

#include "benchio/arm.h"
#include "engine/argv.h"
#include "engine/help.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The knobs, in the order their values turn (the last fastest). */
static const struct {
    const char *flag;
    size_t off; /* the lvd_params field */
} knobs[] = {
    {"-fmoe", offsetof(lvd_params, fused_moe)},
    {"-rtr", offsetof(lvd_params, repack)},
};
enum { N_KNOBS = sizeof knobs / sizeof knobs[0] };

/* The values asked of knob k (n: how many; 0 = not asked). */
static const int *asked(const bench_plan_opts *o, size_t k, size_t *n)
{
    *n = k == 0 ? o->n_fmoe : o->n_rtr;
    return k == 0 ? o->fmoe : o->rtr;
}

/* A deep copy of arm a with parameters q (its key and label made anew). */
static void arm_copy(bench_arm *dst, const bench_arm *a, const lvd_params *q)
{
    *dst = *a;
    dst->engine = lvd_xstrdup(a->engine);
    dst->build = lvd_xstrdup(a->build);
    dst->binary = lvd_xstrdup(a->binary);
    dst->flags = a->flags ? lvd_xstrdup(a->flags) : NULL;
    dst->placement = a->placement ? lvd_xstrdup(a->placement) : NULL;
    dst->params = *q;
    benchio_arm_key(q, dst->arm_key, sizeof dst->arm_key);
    dst->label = bench_arm_label(dst->engine, a->gpu ? q->device : NULL, q);
}

void bench_plan_knob_arms(bench_plan *p, size_t first, const bench_plan_opts *o)
{
    if (first >= p->n_arms)
        return;
    engine_help help;
    engine_help_load(p->arms[first].flags, &help);
    size_t size[N_KNOBS], combos = 1, any = 0;
    for (size_t k = 0; k < N_KNOBS; k++) {
        asked(o, k, &size[k]);
        if (size[k] && !engine_argv_listed(&help, ENGINE_TOOL_BENCH, knobs[k].flag)) {
            bench_plan_remark(p, "%s: its llama-bench --help %s %s: its arms run without it",
                              p->arms[first].engine, help.known[ENGINE_TOOL_BENCH] ? "lists no" : "was not read, so no",
                              knobs[k].flag);
            size[k] = 0;
        }
        combos *= size[k] ? size[k] : 1;
        any += size[k];
    }
    engine_help_free(&help);
    if (!any)
        return;
    size_t n_old = p->n_arms - first;
    bench_arm *old = lvd_xcalloc(n_old, sizeof *old);
    memcpy(old, p->arms + first, n_old * sizeof *old);
    p->arms = lvd_xrealloc(p->arms, (first + n_old * combos) * sizeof *p->arms);
    p->n_arms = first;
    for (size_t i = 0; i < n_old; i++) {
        for (size_t c = 0; c < combos; c++) {
            lvd_params q = old[i].params;
            for (size_t k = N_KNOBS, rest = c; k-- > 0;) {
                size_t n;
                const int *v = asked(o, k, &n);
                if (!size[k])
                    continue;
                *(int *)((char *)&q + knobs[k].off) = v[rest % size[k]];
                rest /= size[k];
            }
            arm_copy(&p->arms[p->n_arms++], &old[i], &q);
        }
        bench_arm_free(&old[i]);
    }
    free(old);
}
