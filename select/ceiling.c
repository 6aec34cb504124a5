/* ceiling.c: lvd select and the context ceilings lvd fit measured (see
 * ceiling.h). Reads nothing: the ceilings are the gather step's. Not for
 * measuring ceilings (fit/) nor for the launch line (choice.c). */
#include "select/ceiling.h"

#include "common/cli.h"
#include "fit/ceiling.h"
#include "select/select.h"

#include <stdio.h>
#include <string.h>

/* The context the pick's placement is measured at by lvd fit. */
static uint32_t fit_ctx(const store_artifact *a)
{
    uint32_t train = a->shape.known ? a->shape.n_ctx_train : 0;
    return train && train < PLACEMENT_CTX_DEFAULT ? train : PLACEMENT_CTX_DEFAULT;
}

/* The context asked for, as a number (0: the trained one); 0 when none. */
static int64_t asked_ctx(int64_t ctx, const sel_profile *p, const store_artifact *a)
{
    if (ctx > 0)
        return ctx;
    if (ctx == 0 && a->shape.known)
        return a->shape.n_ctx_train;
    if (ctx == -1 && p && p->ctx > 0)
        return p->ctx;
    return 0;
}

int sel_ceiling_weighed(int64_t ctx, const sel_profile *p, const store_artifact *a)
{
    return ctx == SEL_CTX_MAX || asked_ctx(ctx, p, a) != 0;
}

/* The newest ceiling of the pick at in's parameters, found in cl[0..n): 0
 * with *out and the placement key, 1 none, -1 when the parameters make no
 * line (err). */
static int lookup(const store_ceiling *cl, size_t n, const sel_pick *pk, const sel_line_in *in,
                  const store_ceiling **out, char *key, size_t len, lvd_err *err)
{
    sel_line_in d = *in;
    d.engine = NULL; /* the placement only */
    d.ctx = fit_ctx(in->artifact);
    d.place_ctx = 0;
    sel_choice_lines l;
    if (sel_choice_lines_build(&d, &l, err) != 0)
        return -1;
    fit_placement_key(&l.params, l.cpu_run, key, len);
    const char *dev = l.cpu_run ? FIT_DEVICE_CPU : l.device.selector;
    const char *tk = l.params.type_k[0] ? l.params.type_k : "f16";
    const char *tv = l.params.type_v[0] ? l.params.type_v : "f16";
    *out = NULL;
    for (size_t i = 0; i < n && !*out; i++)
        if (cl[i].engine_id == pk->eng->e.id && !strcmp(cl[i].device, dev) && !strcmp(cl[i].type_k, tk) &&
            !strcmp(cl[i].type_v, tv))
            *out = &cl[i];
    sel_choice_lines_free(&l);
    return *out ? 0 : 1;
}

int sel_ceiling_apply(const store_ceiling *list, size_t n, const sel_pick *pk, sel_line_in *in, sel_explain *x,
                      lvd_err *err)
{
    int max = in->ctx == SEL_CTX_MAX;
    int64_t asked = max ? 0 : asked_ctx(in->ctx, in->profile, in->artifact);
    if (!max && asked == 0)
        return LVD_EXIT_OK;
    const store_ceiling *cl;
    char key[64], why[256] = "";
    int rc = lookup(list, n, pk, in, &cl, key, sizeof key, err);
    if (rc < 0)
        return LVD_EXIT_STORE;
    const char *name = pk->eng->e.name;
    int fresh = rc == 0 && fit_ceiling_fresh(cl, &pk->eng->e, &pk->eng->probe, key, why, sizeof why);
    if (rc == 0 && !fresh)
        sel_say(x, "ceiling: the one lvd fit measured for %s %s is stale (%s)", name, cl->device, why);
    if (max && !fresh) {
        lvd_errf(err, "--ctx max: no valid context ceiling of %s%s%s for this model at %s%s%s: run lvd fit -m"
                 " MODEL --engines %s", name, pk->dev ? " " : "", pk->dev ? pk->dev->selector : "", key,
                 *why ? "; " : "", why, name);
        return LVD_EXIT_FAIL;
    }
    if (max) {
        in->ctx = fit_serve_ctx(cl);
        in->place_ctx = fit_ctx(in->artifact);
        sel_say(x, "ctx: %lld, the context ceiling %s%lld lvd fit measured for %s %s (%s/%s KV at %s,"
                " %lld MiB free) less %d %%, rounded down to %d", (long long)in->ctx, cl->capped ? ">= " : "",
                (long long)cl->ceiling, name, cl->device, cl->type_k, cl->type_v, cl->placement,
                (long long)cl->free_mib, cl->capped ? 0 : FIT_MARGIN_PCT, FIT_SERVE_ROUND);
    } else if (fresh && !cl->capped && asked > cl->ceiling) {
        lvd_errf(err, "-c %lld is above the context ceiling %lld that lvd fit measured for %s %s (%s/%s KV"
                 " at %s): it does not load; ask for %lld or less, or --ctx max (%u)", (long long)asked,
                 (long long)cl->ceiling, name, cl->device, cl->type_k, cl->type_v, cl->placement,
                 (long long)cl->ceiling, fit_serve_ctx(cl));
        return LVD_EXIT_INPUT;
    } else if (fresh) {
        sel_say(x, "ctx: %lld is within the context ceiling %s%lld lvd fit measured for %s %s", (long long)asked,
                cl->capped ? ">= " : "", (long long)cl->ceiling, name, cl->device);
    }
    return LVD_EXIT_OK;
}
