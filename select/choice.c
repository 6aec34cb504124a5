/* choice.c: placement and launch line of a choice already made, from
 * stored records alone (see choice.h). Not for choosing. */
#include "select/choice.h"

#include "common/cli.h"
#include "select/armset.h"
#include "select/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The probe's device the parameters name, else its first; NULL when none. */
static const lvd_device *probe_device(const lvd_probe *probe, const lvd_params *p)
{
    for (size_t i = 0; probe && i < probe->n_devices; i++)
        if (p->device[0] ? !strcmp(probe->devices[i].selector, p->device) : i == 0)
            return &probe->devices[i];
    return NULL;
}

/* Places a GPU choice; sets placement_line either way. *p gets the placement applied. */
static void place(sel_choice_lines *c, const lvd_engine *e, const lvd_probe *probe, const store_artifact *a,
                  lvd_params *p)
{
    const lvd_device *dev = probe_device(probe, p);
    if (!a || !a->shape.known) {
        c->placement_line = lvd_xstrdup("shape not recorded (the store knows this model by its sha256 only;"
                                        " `lvd store model FILE` records its GGUF shape)");
        return;
    }
    if (!dev) {
        c->placement_line = lvd_xasprintf("no probe of %s lists %s", e ? e->name : "the engine",
                                          p->device[0] ? p->device : "a device");
        return;
    }
    if (dev->free_mib < 0) {
        c->placement_line = lvd_xasprintf("the free memory of %s is not recorded (its probe did not print it)",
                                          dev->selector);
        return;
    }
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &a->shape;
    in.ctx = c->ctx;
    in.free_mib = dev->free_mib;
    in.type_k = p->type_k;
    in.type_v = p->type_v;
    in.ubatch = p->ubatch;
    lvd_err err = {{0}};
    if (placement_compute(&in, &c->placement, &err) != 0) {
        c->placement_line = lvd_xstrdup(err.msg);
        return;
    }
    c->placed = c->placement_known = 1;
    c->device = *dev;
    c->ctx = c->placement.ctx;
    c->placement_line = lvd_xasprintf("%s on %s (%lld MiB free, context %u): %s", placement_rung_name(c->placement.rung),
                                      dev->selector, (long long)dev->free_mib, c->placement.ctx,
                                      c->placement.reason);
    placement_placement_apply(&c->placement, &a->shape, p);
}

int sel_choice_lines_build(const lvd_engine *e, const lvd_probe *probe, const char *reported,
                           const lvd_params *params, const store_artifact *a, const char *model_hint,
                           sel_choice_lines *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    sel_backend_label(probe, reported, out->backend, sizeof out->backend);
    int gpu = strcmp(out->backend, LVD_BACKEND_CPU) != 0;
    lvd_params p = *params;
    /* lvd select's context (select.c context_of, no --ctx nor profile) */
    if (a && a->shape.known)
        out->ctx = a->shape.n_ctx_train && a->shape.n_ctx_train < SEL_CTX_DEFAULT ? a->shape.n_ctx_train
                                                                                 : SEL_CTX_DEFAULT;
    if (!gpu) {
        out->placement_known = 1;
        out->placement_line = lvd_xstrdup("CPU engine: the whole model in host memory");
    } else {
        place(out, e, probe, a, &p);
    }
    if (a && a->last_path) {
        out->model = lvd_xstrdup(a->last_path);
    } else {
        out->model = lvd_xstrdup(SEL_MODEL_PLACEHOLDER);
        lvd_sb sb = {0};
        lvd_sb_addf(&sb, "%s stands for the model %.12s: its path is not in the store", SEL_MODEL_PLACEHOLDER,
                    a ? a->sha256 : "(unknown)");
        if (model_hint && *model_hint)
            lvd_sb_addf(&sb, " (llama-bench called it %s)", model_hint);
        out->model_note = lvd_sb_detach(&sb);
    }
    if (!e)
        return 0;
    if (sel_launch_build(e->dir, out->model, &p, out->ctx, gpu, &out->launch, err) != 0) {
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

/* The backends llama-bench reported for the arm (engine_id, arm_key) on
 * (artifact, host), from its newest session (out "" when none). 0 or -1. */
static int arm_backends(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                        char *out, size_t len, lvd_err *err)
{
    sel_armset set;
    out[0] = '\0';
    if (sel_armset_load(s, artifact, host, engine_id, &set, err) != 0)
        return -1;
    for (size_t i = 0; i < set.n; i++)
        if (arm_key && !strcmp(set.v[i].arm_key, arm_key))
            snprintf(out, len, "%s", set.v[i].backends);
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
    memset(out, 0, sizeof *out);
    if (engine_id) {
        rc = store_engine_get(s, engine_id, &e, err);
        has_e = rc == 0;
        if (rc >= 0) {
            rc = store_probe_latest(s, engine_id, &probe, err);
            has_p = rc == 0;
        }
        if (rc >= 0)
            rc = arm_backends(s, a->sha256, host, engine_id, arm_key, backends, sizeof backends, err);
    }
    if (rc >= 0)
        rc = sel_choice_lines_build(has_e ? &e : NULL, has_p ? &probe : NULL, backends, params, a, model_hint, out,
                                    err) != 0 ? -2 : 0;
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
