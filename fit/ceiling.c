/* ceiling.c: the rules of a context ceiling (see ceiling.h). Not for
 * measuring or storing one. */
#include "fit/ceiling.h"

#include "fit/search.h"
#include "placement/cbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fit_placement_key(const lvd_params *p, int cpu_run, char *buf, size_t len)
{
    if (cpu_run)
        snprintf(buf, len, "cpu");
    else
        snprintf(buf, len, "ngl=%d ncmoe=%d ub=%d", p->ngl, p->n_cpu_moe,
                 p->ubatch > 0 ? p->ubatch : PLACEMENT_UBATCH_DEFAULT);
}

char *fit_engine_key(const lvd_engine *e, const lvd_probe *probe)
{
    return lvd_xasprintf("%s|%s", e->build ? e->build : "", probe && probe->files ? probe->files : "");
}

int fit_ceiling_fresh(const store_ceiling *c, const lvd_engine *e, const lvd_probe *probe,
                      const char *placement, char *why, size_t len)
{
    char *key = fit_engine_key(e, probe);
    int same_engine = c->engine_key && !strcmp(c->engine_key, key);
    free(key);
    if (!same_engine) {
        snprintf(why, len, "%s changed since lvd fit measured it (build or files)", e->name);
        return 0;
    }
    if (!c->placement || strcmp(c->placement, placement)) {
        snprintf(why, len, "measured at %s, the placement is now %s", c->placement ? c->placement : "?",
                 placement);
        return 0;
    }
    if (why && len)
        why[0] = '\0';
    return 1;
}

uint32_t fit_serve_ctx(const store_ceiling *c)
{
    if (c->ceiling <= 0)
        return 0;
    if (c->capped || c->ceiling <= FIT_SERVE_ROUND)
        return (uint32_t)c->ceiling;
    int64_t v = c->ceiling * (100 - FIT_MARGIN_PCT) / 100 / FIT_SERVE_ROUND * FIT_SERVE_ROUND;
    return (uint32_t)(v < FIT_SERVE_ROUND ? FIT_SERVE_ROUND : v);
}

int fit_place(const gguf_shape *shape, const lvd_device *dev, const char *type_k, const char *type_v,
              lvd_params *p, placement_result *pl, lvd_err *err)
{
    lvd_params_init(p);
    snprintf(p->type_k, sizeof p->type_k, "%s", type_k);
    snprintf(p->type_v, sizeof p->type_v, "%s", type_v);
    if (!dev)
        return 0;
    snprintf(p->device, sizeof p->device, "%s", dev->selector);
    if (dev->free_mib < 0)
        return 0;
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = shape;
    in.ctx = shape->n_ctx_train && shape->n_ctx_train < PLACEMENT_CTX_DEFAULT ? shape->n_ctx_train
                                                                               : PLACEMENT_CTX_DEFAULT;
    in.free_mib = dev->free_mib;
    in.dev = placement_cbuf_dev_of(dev->backend, dev->name);
    in.type_k = type_k;
    in.type_v = type_v;
    if (placement_compute(&in, pl, err) != 0)
        return -1;
    placement_placement_apply(pl, shape, p);
    return 1;
}

/* 1 when placement prices ctx within the free memory at pl's flags. */
static int predicted_fits(const placement_place_in *base, const placement_result *pl, uint32_t ctx)
{
    placement_place_in in = *base;
    in.ctx = ctx;
    placement_result r;
    lvd_err err = {{0}};
    return placement_price(&in, pl->ngl, pl->n_cpu_moe, &r, &err) == 0 && r.margin_bytes >= 0;
}

int64_t fit_predict_max(const gguf_shape *shape, const placement_result *pl, const char *type_k,
                        const char *type_v, int64_t free_mib)
{
    if (!pl || free_mib < 0)
        return -1;
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = shape;
    in.free_mib = free_mib;
    in.type_k = type_k;
    in.type_v = type_v;
    in.ubatch = pl->ubatch;
    if (!predicted_fits(&in, pl, FIT_MIN_CTX))
        return 0;
    uint32_t lo = FIT_MIN_CTX, hi = 1u << 26; /* 64 Mi cells: beyond any model */
    if (predicted_fits(&in, pl, hi))
        return hi;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (predicted_fits(&in, pl, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
