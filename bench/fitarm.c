/* fitarm.c: see fitarm.h. */
#include "bench/fitarm.h"

#include "benchio/arm.h"
#include "engine/fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the engine of arm a offers, asked once per engine (caps[engine index]). */
typedef struct seen {
    int64_t engine_id;
    engine_fit_caps caps;
} seen;

static const engine_fit_caps *caps_of(seen **v, size_t *n, const bench_arm *a)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].engine_id == a->engine_id)
            return &(*v)[i].caps;
    char *dir = bench_arm_dir(a);
    *v = lvd_xrealloc(*v, (*n + 1) * sizeof **v);
    seen *s = &(*v)[(*n)++];
    s->engine_id = a->engine_id;
    engine_help help;
    engine_help_recorded(dir, a->flags, &help);
    engine_fit_caps_of(dir, &help, &s->caps);
    engine_help_free(&help);
    free(dir);
    return &s->caps;
}

static int has_key(const bench_plan *p, const char *key)
{
    for (size_t i = 0; i < p->n_arms; i++)
        if (!strcmp(p->arms[i].arm_key, key))
            return 1;
    return 0;
}

/* llama-fit-params' plan for the device of arm a beside ours: noted, and recorded. */
static int record_plan(bench_plan *p, size_t i, const bench_plan_opts *o, const bench_fit_in *in, lvd_err *err)
{
    const bench_arm *a = &p->arms[i];
    char *dir = bench_arm_dir(a);
    char *ours = bench_params_text(&a->params);
    engine_fit_plan fp;
    lvd_err why = {{0}};
    int rc = 0;
    engine_help help;
    engine_help_load(a->flags, &help);
    int failed = engine_fit_params_run(dir, a->flags ? &help : NULL, in->model, a->params.device, o->ctx,
                                       ENGINE_FIT_TARGET_DEFAULT, a->params.env, &fp, &why);
    engine_help_free(&help);
    if (failed) {
        bench_plan_note(p, "llama.cpp fit for %s %s: %s", a->engine, a->params.device, why.msg);
    } else {
        char host[64] = "";
        if (fp.host_blocks)
            snprintf(host, sizeof host, ", experts of %d blocks on the host", fp.host_blocks);
        bench_plan_note(p, "llama.cpp fit for %s %s (%lld MiB free): -c %lld -ngl %d%s%s%s; ours: %s",
                        a->engine, a->params.device, (long long)a->free_mib, (long long)fp.ctx, fp.ngl,
                        fp.overrides ? " -ot " : "", fp.overrides ? fp.overrides : "", host, ours);
        store_fit_plan sp;
        memset(&sp, 0, sizeof sp);
        snprintf(sp.artifact, sizeof sp.artifact, "%s", in->artifact ? in->artifact : "");
        sp.engine_id = a->engine_id;
        sp.host = (char *)in->host;
        sp.session = (char *)in->session;
        snprintf(sp.device, sizeof sp.device, "%s", a->params.device);
        sp.free_mib = a->free_mib;
        sp.fit_target = ENGINE_FIT_TARGET_DEFAULT;
        sp.ctx = fp.ctx;
        sp.ngl = fp.ngl;
        sp.overrides = fp.overrides;
        sp.host_blocks = fp.host_blocks;
        sp.ours = ours;
        if (in->s && in->artifact)
            rc = store_fit_plan_put(in->s, &sp, err);
        engine_fit_plan_free(&fp);
    }
    free(ours);
    free(dir);
    return rc;
}

/* The fit arm beside arm i; 1 when added. */
static int add_fit_arm(bench_plan *p, size_t i, const bench_plan_opts *o)
{
    lvd_params q = p->arms[i].params;
    char *ours = bench_params_text(&q);
    q.ngl = -1;
    q.n_cpu_moe = 0;
    q.ubatch = 0;
    q.fit_target = ENGINE_FIT_TARGET_DEFAULT;
    char key[320];
    benchio_arm_key(&q, key, sizeof key);
    int added = 0;
    if (!has_key(p, key)) {
        char *why = lvd_xasprintf("llama.cpp fit: llama.cpp places the model at load (-fitt %d), the rival "
                                  "of our placement (%s)", ENGINE_FIT_TARGET_DEFAULT, ours);
        size_t k = bench_plan_add_variant(p, i, &q, why, o);
        p->arms[k].n_pred = 0; /* llama.cpp chose it: nothing of ours to judge */
        p->arms[k].fit_of = i + 1;
        free(why);
        added = 1;
    }
    free(ours);
    return added;
}

int bench_fit_arms_add(bench_plan *p, const bench_plan_opts *o, const bench_fit_in *in, lvd_err *err)
{
    seen *v = NULL;
    size_t nv = 0, n = p->n_arms;
    char **done = NULL; /* "ENGINE_ID DEVICE" whose plan was asked */
    size_t nd = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const bench_arm *a = &p->arms[i];
        if (!a->gpu || !a->placement || a->rung_of || a->params.fit_target)
            continue;
        const engine_fit_caps *c = caps_of(&v, &nv, a);
        if (!c->bench_fitt)
            continue;
        int fitp = c->fit_params;
        char *dev = lvd_xasprintf("%lld %s", (long long)a->engine_id, a->params.device);
        int asked = 0;
        for (size_t k = 0; k < nd && !asked; k++)
            asked = !strcmp(done[k], dev);
        if (!asked) {
            lvd_strv_push(&done, &nd, dev);
            if (fitp)
                rc = record_plan(p, i, o, in, err);
            else
                bench_plan_note(p, "llama.cpp fit for %s %s: no llama-fit-params beside its llama-bench, "
                                   "so its plan is not printed; its arm measures it (-fitt %d)",
                                p->arms[i].engine, p->arms[i].params.device, ENGINE_FIT_TARGET_DEFAULT);
        } else {
            free(dev);
        }
        if (rc == 0)
            add_fit_arm(p, i, o);
    }
    lvd_strv_free(done);
    free(v);
    return rc;
}
