/* memfig.c: see memfig.h. */
#include "bench/memfig.h"

#include "engine/fit.h"
#include "engine/fitprint.h"
#include "placement/placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The setting an arm asks llama-fit-params for: its device and context
 * flags, every layer offloaded. */
static lvd_params setting_of(const bench_arm *a)
{
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "%s", a->params.device);
    p.ngl = a->gpu ? BENCH_NGL_ALL : -1;
    p.fa = a->params.fa > 0;
    p.ubatch = a->params.ubatch > 0 ? a->params.ubatch : PLACEMENT_UBATCH_DEFAULT;
    snprintf(p.type_k, sizeof p.type_k, "%s", a->params.type_k);
    snprintf(p.type_v, sizeof p.type_v, "%s", a->params.type_v);
    snprintf(p.env, sizeof p.env, "%s", a->params.env);
    return p;
}

static const lvd_probe *probe_of(const bench_memfig_in *in, int64_t engine_id)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->engines[i].id == engine_id)
            return &in->probes[i];
    return NULL;
}

/* The device's figure where there is a device row, else the host's. */
static int64_t dev_or(int64_t dev, int64_t host)
{
    return dev >= 0 ? dev : host;
}

/* The key that makes a request once: engine, device and setting. */
static char *key_of(const bench_arm *a, const lvd_params *q)
{
    return lvd_xasprintf("%lld|%s|%d|%d|%s|%s|%s", (long long)a->engine_id, q->device, q->fa, q->ubatch,
                         q->type_k, q->type_v, q->env);
}

/* The figures of fp for arm a's setting q into a store row. -1 when the
 * device it placed on printed no row. */
static int row_of(const bench_memfig_in *in, const bench_arm *a, const lvd_params *q, const engine_fitprint *fp,
                  store_fitprint *r)
{
    memset(r, 0, sizeof *r);
    const engine_fitprint_row *host = engine_fitprint_row_of(fp, "Host");
    /* the arm's device, else the engine's default: the first it printed */
    const engine_fitprint_row *dev = q->device[0] ? engine_fitprint_row_of(fp, q->device)
                                     : a->gpu && fp->n > 1 ? &fp->rows[0]
                                                          : NULL;
    if (!host || (q->device[0] && !dev))
        return -1;
    r->engine_id = a->engine_id;
    snprintf(r->artifact, sizeof r->artifact, "%s", in->artifact);
    r->ctx = in->ctx;
    r->ubatch = q->ubatch;
    r->fa = q->fa;
    snprintf(r->type_k, sizeof r->type_k, "%s", q->type_k);
    snprintf(r->type_v, sizeof r->type_v, "%s", q->type_v);
    snprintf(r->device, sizeof r->device, "%s", dev ? dev->name : "");
    r->dev_model = dev ? dev->model_mib : -1;
    r->dev_context = dev ? dev->context_mib : -1;
    r->dev_compute = dev ? dev->compute_mib : -1;
    r->host_model = host->model_mib;
    r->host_context = host->context_mib;
    r->host_compute = host->compute_mib;
    const lvd_probe *pr = probe_of(in, a->engine_id);
    r->files = pr ? pr->files : NULL;
    return 0;
}

/* Asks llama-fit-params for arm a's setting q and records it. */
static int ask(bench_plan *p, const bench_memfig_in *in, const bench_arm *a, const lvd_params *q, lvd_err *err)
{
    char *dir = bench_arm_dir(a);
    engine_help help;
    engine_help_load(a->flags, &help);
    engine_fitprint fp;
    lvd_err why = {{0}};
    int failed = engine_fitprint_run(dir, a->flags ? &help : NULL, in->model, q, in->ctx, q->env, &fp, &why);
    engine_help_free(&help);
    free(dir);
    const char *on = q->device[0] ? q->device : "the host";
    store_fitprint r;
    if (failed) {
        bench_plan_note(p, "llama.cpp's memory for %s on %s: %s", a->engine, on, why.msg);
        return 0;
    }
    if (row_of(in, a, q, &fp, &r) != 0) {
        bench_plan_note(p, "llama.cpp's memory for %s: llama-fit-params printed no row for %s", a->engine, on);
        return 0;
    }
    bench_plan_note(p, "llama.cpp's memory for %s on %s at ctx %u, ubatch %d, -fa %s: weights %lld MiB, KV and"
                       " state %lld MiB, compute %lld MiB (llama-fit-params --fit-print; host %lld/%lld/%lld)",
                    a->engine, on, in->ctx, q->ubatch, q->fa ? "on" : "off",
                    (long long)(dev_or(r.dev_model, r.host_model)), (long long)dev_or(r.dev_context, r.host_context),
                    (long long)dev_or(r.dev_compute, r.host_compute), (long long)r.host_model,
                    (long long)r.host_context, (long long)r.host_compute);
    return in->s ? store_fitprint_put(in->s, &r, err) : 0;
}

int bench_memfig_record(bench_plan *p, const bench_memfig_in *in, lvd_err *err)
{
    char **done = NULL;
    size_t n_done = 0;
    int rc = 0;
    for (size_t i = 0; i < p->n_arms && rc == 0; i++) {
        const bench_arm *a = &p->arms[i];
        const lvd_probe *pr = probe_of(in, a->engine_id);
        int lists_devices = pr && pr->n_devices > 0;
        if (a->fit_of || a->rung_of || strchr(a->params.device, '/') || (lists_devices && !a->gpu))
            continue;
        char *dir = bench_arm_dir(a);
        engine_fit_caps caps;
        engine_fit_caps_of(dir, NULL, &caps);
        free(dir);
        int has = caps.fit_params;
        lvd_params q = setting_of(a);
        char *key = key_of(a, &q);
        int seen = 0;
        for (size_t k = 0; k < n_done && !seen; k++)
            seen = !strcmp(done[k], key);
        if (seen || !has) {
            free(key);
            continue;
        }
        lvd_strv_push(&done, &n_done, key);
        rc = ask(p, in, a, &q, err);
    }
    lvd_strv_free(done);
    return rc;
}
