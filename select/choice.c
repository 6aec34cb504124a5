/* choice.c: the launch line of a choice (see choice.h): the one function
 * that assembles it (placement, flags, quoting) for lvd select, lvd select
 * --record --artifact and the evidence page, and its front end over stored
 * records. Not for choosing. */
#include "select/choice.h"

#include "bench/depth.h"
#include "common/cli.h"
#include "engine/devices.h"
#include "placement/cbuf.h"
#include "placement/spread.h"
#include "placement/correction.h"
#include "select/armset.h"
#include "select/fitmem.h"
#include "select/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sel_line_in_init(sel_line_in *in)
{
    memset(in, 0, sizeof *in);
    in->ctx = -1;
    in->free_mib = -1;
}

/* The probe's device with this selector; NULL when none. */
static const lvd_device *probe_device(const lvd_probe *probe, const char *selector)
{
    for (size_t i = 0; probe && selector[0] && i < probe->n_devices; i++)
        if (!strcmp(probe->devices[i].selector, selector))
            return &probe->devices[i];
    return NULL;
}

/* The context to place and launch: --ctx, the profile's, else the measured
 * depth's, else the default (bench_serving_ctx, the rule lvd bench follows). */
static uint32_t context_of(const sel_line_in *in, const char **from)
{
    const store_artifact *a = in->artifact;
    const gguf_shape *shape = a ? &a->shape : NULL;
    int64_t v = -1;
    *from = "default";
    if (in->ctx >= 0) {
        v = in->ctx;
        *from = "--ctx";
    } else if (in->profile && in->profile->ctx >= 0) {
        v = in->profile->ctx;
        *from = "profile";
    } else if (in->depth > 0) {
        *from = "measured depth";
    } else if (!a || !a->shape.known) {
        *from = "no shape";
    }
    return bench_serving_ctx(v, in->depth, shape);
}

int sel_arm_within_placement(const lvd_params *p, const placement_result *pl, const gguf_shape *shape)
{
    int all = (int)shape->n_block + 1;
    int want = p->ngl > all ? all : p->ngl;
    int fits = pl->ngl < 0 || pl->ngl > all ? all : pl->ngl;
    int ub = p->ubatch > 0 ? p->ubatch : PLACEMENT_UBATCH_DEFAULT;
    int pl_ub = pl->ubatch > 0 ? pl->ubatch : PLACEMENT_UBATCH_DEFAULT;
    if (p->ngl < 0 || pl->rung == PLACEMENT_RUNG_CPU_ONLY || pl->rung == PLACEMENT_RUNG_NOTHING_FITS)
        return 0; /* no -ngl: nothing measured to keep, placement says */
    return want <= fits && p->n_cpu_moe >= pl->n_cpu_moe && ub <= pl_ub;
}

/* Places a device run; sets placement_line either way. c->params gets the placement applied. */
static void place(sel_choice_lines *c, const sel_line_in *in, const lvd_device *dev, const char *selector)
{
    const store_artifact *a = in->artifact;
    if (!a || !a->shape.known) {
        c->placement_line = lvd_xstrdup("shape not recorded (the store knows this model by its sha256 only;"
                                        " `lvd store model FILE` records its GGUF shape)");
        return;
    }
    if (!dev) {
        c->placement_line = lvd_xasprintf("no probe of %s lists %s", in->engine ? in->engine->name : "the engine",
                                          selector[0] ? selector : "a device");
        return;
    }
    if (c->free_mib < 0) {
        c->placement_line = lvd_xasprintf("the free memory of %s is not recorded (its probe did not print it)",
                                          dev->selector);
        return;
    }
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = &a->shape;
    pin.ctx = in->place_ctx ? in->place_ctx : c->ctx;
    pin.free_mib = c->free_mib;
    pin.type_k = c->params.type_k;
    pin.type_v = c->params.type_v;
    pin.ubatch = c->params.ubatch;
    pin.flash_attn = c->params.fa;
    pin.dev = placement_cbuf_dev_of(dev->backend, dev->name);
    /* the program the line starts: llama-server, one output row and one
     * recurrent state per slot (-np, else its default) */
    pin.n_outputs = pin.n_seq = c->params.parallel > 0 ? c->params.parallel : PLACEMENT_SERVER_SLOTS_DEFAULT;
    pin.kv_unified = c->params.parallel <= 0; /* -np auto: one cache over its slots; -np N: a stream each */
    pin.build = in->engine ? sel_build_number(in->engine->build) : 0;
    sel_fitmem_find(in->fitprints, in->n_fitprints, in->engine, in->probe, dev->selector, pin.ctx, &c->params,
                    &c->engine_mem, c->engine_mem_why, sizeof c->engine_mem_why);
    if (c->engine_mem.known)
        pin.engine_mem = &c->engine_mem;
    placement_correction corr;
    pin.margin_factor = placement_correction_compute(in->alloc_rows, in->n_alloc_rows, dev->backend,
                                                    in->engine ? in->engine->build : NULL, &corr);
    snprintf(c->margin_why, sizeof c->margin_why, "%s", corr.why);
    lvd_err err = {{0}};
    if (placement_compute(&pin, &c->placement, &err) != 0) {
        c->placement_failed = 1;
        c->placement_line = lvd_xstrdup(err.msg);
        return;
    }
    c->placed = c->placement_known = 1;
    c->kept_arm = sel_arm_within_placement(&c->params, &c->placement, &a->shape);
    c->placement_line = lvd_xasprintf("%s on %s (%lld MiB free, context %u): %s%s",
                                      placement_rung_name(c->placement.rung), dev->selector,
                                      (long long)c->free_mib, c->placement.ctx,
                                      c->placement.reason,
                                      c->kept_arm ? "; the measured arm's flags fit and are kept" : "");
    if (!c->kept_arm)
        placement_placement_apply(&c->placement, &a->shape, &c->params);
    else if (c->params.ngl > (int)a->shape.n_block + 1)
        c->params.ngl = (int)a->shape.n_block + 1; /* every block (-ngl 99 as measured), as placement writes it */
}

/* Places a split over several devices (bench/plan.h's split arms): the
 * arm's own flags stay (-dev A/B, -sm, -ts, every layer, its ubatch), the
 * line says how the spread holds at the launch context (placement/spread.h). */
static void place_split(sel_choice_lines *c, const sel_line_in *in, const lvd_probe *probe)
{
    const store_artifact *a = in->artifact;
    size_t n;
    char **sel = lvd_split(c->params.device, '/', &n);
    int64_t free_mib[PLACEMENT_SPREAD_MAX];
    size_t known = 0;
    for (size_t i = 0; i < n && i < PLACEMENT_SPREAD_MAX; i++) {
        const lvd_device *d = probe_device(probe, sel[i]);
        if (d && d->free_mib > 0)
            free_mib[known++] = d->free_mib;
    }
    lvd_strv_free(sel);
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = a ? &a->shape : NULL;
    pin.ctx = c->ctx;
    pin.type_k = c->params.type_k;
    pin.type_v = c->params.type_v;
    pin.ubatch = c->params.ubatch;
    placement_spread_result sp;
    lvd_err err = {{0}};
    c->placement_known = 1;
    if (known != n || !a || !a->shape.known ||
        placement_spread(&pin, free_mib, known, &sp, &err) != 0)
        c->placement_line = lvd_xasprintf("split -sm %s -ts %s across %s as measured (%s)",
                                          c->params.split_mode, c->params.tensor_split,
                                          c->params.device,
                                          err.msg[0] ? err.msg : "free memory or shape unknown");
    else
        c->placement_line = lvd_xasprintf("split -sm %s -ts %s across %s as measured (context %u): %s",
                                          c->params.split_mode, c->params.tensor_split,
                                          c->params.device, c->ctx, sp.reason);
}

/* A CPU run: no device flags (-ngl 0 on an engine that lists devices). */
static void cpu_run(sel_choice_lines *c)
{
    c->params.device[0] = '\0';
    c->params.n_cpu_moe = 0;
    c->params.ngl = c->gpu_capable ? 0 : -1;
    c->placement_known = 1;
    c->placement_line = lvd_xstrdup(c->gpu_capable ? "CPU run (-ngl 0 on an engine that lists devices):"
                                                     " the whole model in host memory"
                                                   : "CPU engine: the whole model in host memory");
}

/* llama.cpp's own fit (the arm measured it): no placement of ours;
 * llama-server gets --fit on -fitt N and places the model itself. */
static void fit_run(sel_choice_lines *c)
{
    char fitc[32] = "";
    if (c->params.fit_ctx > 0)
        snprintf(fitc, sizeof fitc, " -fitc %d", c->params.fit_ctx);
    c->placement_known = 1;
    c->placement_line = lvd_xasprintf("llama.cpp's own fit (--fit on -fitt %d%s): the placement the "
                                      "measured arm used, chosen by llama.cpp at load", c->params.fit_target,
                                      fitc);
}

/* The model word: the caller's path, the artifact's last known one, else the placeholder (noted). */
static void model_of(sel_choice_lines *c, const sel_line_in *in)
{
    const store_artifact *a = in->artifact;
    if (in->model || (a && a->last_path)) {
        c->model = lvd_xstrdup(in->model ? in->model : a->last_path);
        return;
    }
    c->model = lvd_xstrdup(SEL_MODEL_PLACEHOLDER);
    lvd_sb sb = {0};
    lvd_sb_addf(&sb, "%s stands for the model %.12s: its path is not in the store", SEL_MODEL_PLACEHOLDER,
                a ? a->sha256 : "(unknown)");
    if (in->model_hint && *in->model_hint)
        lvd_sb_addf(&sb, " (llama-bench called it %s)", in->model_hint);
    c->model_note = lvd_sb_detach(&sb);
}

int sel_choice_lines_build(const sel_line_in *in, sel_choice_lines *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const lvd_probe *probe = in->probe;
    sel_backend_label(probe, in->reported, out->backend, sizeof out->backend);
    out->gpu_capable = probe ? probe->n_devices > 0 : strcmp(out->backend, LVD_BACKEND_CPU) != 0;
    out->params = *in->params;
    /* the device the arm's own parameters run on, before the profile's flags */
    char selector[sizeof out->params.device];
    engine_check_device(probe, &out->params, selector, sizeof selector);
    const lvd_device *dev = probe_device(probe, selector);
    out->cpu_run = !out->gpu_capable || (!out->params.device[0] && out->params.ngl == 0);
    if (in->profile)
        sel_profile_apply(in->profile, &out->params);
    out->ctx = context_of(in, &out->ctx_from);
    out->free_from = in->free_mib >= 0 ? "--free-mib" : "the probe";
    out->free_mib = in->free_mib >= 0 ? in->free_mib : dev ? dev->free_mib : -1;
    if (dev && !out->cpu_run)
        out->device = *dev;
    if (out->cpu_run)
        cpu_run(out);
    else if (out->params.split_mode[0])
        place_split(out, in, probe);
    else if (out->params.fit_target > 0)
        fit_run(out);
    else
        place(out, in, dev, selector);
    const sel_profile *pr = in->profile;
    if (out->placed && pr && (pr->ngl >= 0 || pr->n_cpu_moe >= 0 || pr->ubatch > 0)) {
        sel_profile_apply(pr, &out->params);
        out->profile_overrides = 1;
    }
    model_of(out, in);
    if (!in->engine)
        return 0;
    if (sel_launch_build(in->engine->dir, probe ? probe->flags : NULL, out->model, &out->params, out->ctx,
                         out->gpu_capable, &out->launch, err) != 0) {
        sel_choice_lines_free(out);
        return -1;
    }
    out->launch_line = sel_launch_to_shell(&out->launch);
    return 0;
}

void sel_choice_lines_free(sel_choice_lines *c)
{
    if (!c)
        return;
    free(c->engine);
    free(c->placement_line);
    free(c->model);
    free(c->model_note);
    free(c->launch_line);
    sel_launch_free(&c->launch);
    memset(c, 0, sizeof *c);
}

int sel_arm_measured(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                     char *backends, size_t len, int *depth, lvd_err *err)
{
    sel_armset set;
    backends[0] = '\0';
    *depth = 0;
    if (sel_armset_load_shape(s, artifact, host, engine_id, arm_key, &set, err) != 0) /* no statistics here */
        return -1;
    for (size_t i = 0; i < set.n; i++) {
        if (!arm_key || strcmp(set.v[i].arm_key, arm_key))
            continue;
        snprintf(backends, len, "%s", set.v[i].backends);
        for (size_t k = 0; k < set.v[i].n_series; k++)
            if (set.v[i].series[k].n_depth > *depth)
                *depth = set.v[i].series[k].n_depth;
    }
    sel_armset_free(&set);
    return 0;
}

int sel_choice_lines_load(store *s, const store_artifact *a, const char *host, int64_t engine_id,
                          const char *arm_key, const lvd_params *params, const char *model_hint,
                          sel_choice_lines *out, lvd_err *err)
{
    lvd_engine e = {0};
    lvd_probe probe = {0};
    int has_e = 0, has_p = 0, rc = 0;
    char backends[64] = "";
    int depth = 0;
    memset(out, 0, sizeof *out);
    if (engine_id) {
        rc = store_engine_get(s, engine_id, &e, err);
        has_e = rc == 0;
        if (rc >= 0) {
            rc = store_probe_latest(s, engine_id, &probe, err);
            has_p = rc == 0;
        }
        if (rc >= 0)
            rc = sel_arm_measured(s, a->sha256, host, engine_id, arm_key, backends, sizeof backends, &depth, err);
    }
    if (rc >= 0) {
        sel_line_in in;
        sel_line_in_init(&in);
        in.engine = has_e ? &e : NULL;
        in.probe = has_p ? &probe : NULL;
        in.reported = backends;
        in.params = params;
        in.artifact = a;
        in.depth = depth;
        in.model_hint = model_hint;
        rc = sel_choice_lines_build(&in, out, err) != 0 ? -2 : 0;
    }
    if (rc == 0 && has_e)
        out->engine = lvd_xstrdup(e.name);
    if (has_p)
        lvd_probe_free(&probe);
    if (has_e)
        lvd_engine_free(&e);
    return rc;
}

int sel_choice_record_artifact(store *s, const char *sha, const sel_verdict_opts *o, store_artifact *a,
                               lvd_verdict *v, sel_choice_lines *c, int *exit_code, lvd_err *err)
{
    memset(c, 0, sizeof *c);
    int rc = store_artifact_get(s, sha, a, err);
    if (rc != 0) {
        if (rc > 0)
            lvd_errf(err, "%s: no artifact %s in the store (lvd store import --artifact records it)", store_path(s),
                     sha);
        *exit_code = rc > 0 ? LVD_EXIT_INPUT : LVD_EXIT_STORE;
        return -1;
    }
    rc = sel_verdict_record(s, sha, o, v, err);
    if (rc != 0) {
        *exit_code = rc > 0 ? LVD_EXIT_FAIL : LVD_EXIT_STORE;
        store_artifact_free(a);
        return -1;
    }
    if (!v->engine_id)
        return 0; /* no winner: no lines */
    rc = sel_choice_lines_load(s, a, v->host, v->engine_id, v->arm_key, &v->params, NULL, c, err);
    if (rc != 0) {
        *exit_code = rc == -2 ? LVD_EXIT_INPUT : LVD_EXIT_STORE;
        lvd_verdict_free(v);
        store_artifact_free(a);
        return -1;
    }
    return 0;
}
