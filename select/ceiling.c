/* ceiling.c: lvd select and the context ceilings lvd fit measured
 * (fit/ceiling.h has the rules): --ctx max serves the ceiling of the pick
 * less its margin, and a -c above a valid ceiling is refused. Not for
 * measuring ceilings (fit/) nor for the launch line (choice.c). */
#include "select/select_internal.h"

#include "common/cli.h"
#include "fit/ceiling.h"
#include "select/choice.h"

#include <stdio.h>
#include <string.h>

/* The context the pick's placement is measured at by lvd fit. */
static uint32_t fit_ctx(const store_artifact *a)
{
    uint32_t train = a->shape.known ? a->shape.n_ctx_train : 0;
    return train && train < PLACEMENT_CTX_DEFAULT ? train : PLACEMENT_CTX_DEFAULT;
}

/* The newest ceiling of the pick at in's parameters: 0 with *cl and the
 * placement key, 1 none, -1 store error. */
static int lookup(ctx *c, const pick *pk, const sel_line_in *in, store_ceiling *cl, char *key, size_t len,
                  lvd_err *err)
{
    sel_line_in d = *in;
    d.engine = NULL; /* the placement only */
    d.ctx = fit_ctx(c->a);
    d.place_ctx = 0;
    sel_choice_lines l;
    if (sel_choice_lines_build(&d, &l, err) != 0)
        return -1;
    fit_placement_key(&l.params, l.cpu_run, key, len);
    const char *dev = l.cpu_run ? FIT_DEVICE_CPU : l.device.selector;
    const char *tk = l.params.type_k[0] ? l.params.type_k : "f16";
    const char *tv = l.params.type_v[0] ? l.params.type_v : "f16";
    int rc = store_ceiling_latest(c->s, c->a->sha256, c->host, pk->eng->e.id, dev, tk, tv, cl, err);
    sel_choice_lines_free(&l);
    return rc;
}

/* The context asked for, as a number (0: the trained one); 0 when none. */
static int64_t asked_ctx(const ctx *c, const sel_line_in *in)
{
    if (in->ctx > 0)
        return in->ctx;
    if (in->ctx == 0 && c->a->shape.known)
        return c->a->shape.n_ctx_train;
    if (in->ctx == -1 && in->profile && in->profile->ctx > 0)
        return in->profile->ctx;
    return 0;
}

int sel_ceiling_apply(ctx *c, const pick *pk, sel_line_in *in, int *exit_code, lvd_err *err)
{
    int max = in->ctx == SEL_CTX_MAX;
    int64_t asked = max ? 0 : asked_ctx(c, in);
    if (!max && asked == 0)
        return 0;
    store_ceiling cl;
    char key[64], why[256] = "";
    int rc = lookup(c, pk, in, &cl, key, sizeof key, err);
    if (rc < 0) {
        *exit_code = LVD_EXIT_STORE;
        return -1;
    }
    const char *name = pk->eng->e.name;
    int fresh = rc == 0 && fit_ceiling_fresh(&cl, &pk->eng->e, &pk->eng->probe, key, why, sizeof why);
    if (rc == 0 && !fresh)
        sel_say(c->out, "ceiling: the one lvd fit measured for %s %s is stale (%s)", name, cl.device, why);
    int ret = 0;
    if (max && !fresh) {
        *exit_code = LVD_EXIT_FAIL;
        ret = lvd_errf(err, "--ctx max: no valid context ceiling of %s%s%s for this model at %s%s%s: run lvd fit -m"
                       " MODEL --engines %s", name, pk->dev ? " " : "", pk->dev ? pk->dev->selector : "", key,
                       *why ? "; " : "", why, name);
    } else if (max) {
        in->ctx = fit_serve_ctx(&cl);
        in->place_ctx = fit_ctx(c->a);
        sel_say(c->out, "ctx: %lld, the context ceiling %s%lld lvd fit measured for %s %s (%s/%s KV at %s,"
                " %lld MiB free) less %d %%, rounded down to %d", (long long)in->ctx, cl.capped ? ">= " : "",
                (long long)cl.ceiling, name, cl.device, cl.type_k, cl.type_v, cl.placement,
                (long long)cl.free_mib, cl.capped ? 0 : FIT_MARGIN_PCT, FIT_SERVE_ROUND);
    } else if (fresh && !cl.capped && asked > cl.ceiling) {
        *exit_code = LVD_EXIT_INPUT;
        ret = lvd_errf(err, "-c %lld is above the context ceiling %lld that lvd fit measured for %s %s (%s/%s KV"
                       " at %s): it does not load; ask for %lld or less, or --ctx max (%u)", (long long)asked,
                       (long long)cl.ceiling, name, cl.device, cl.type_k, cl.type_v, cl.placement,
                       (long long)cl.ceiling, fit_serve_ctx(&cl));
    } else if (fresh) {
        sel_say(c->out, "ctx: %lld is within the context ceiling %s%lld lvd fit measured for %s %s",
                (long long)asked, cl.capped ? ">= " : "", (long long)cl.ceiling, name, cl.device);
    }
    if (rc == 0)
        store_ceiling_free(&cl);
    return ret;
}
