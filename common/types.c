/* types.c: release and copy functions for the records of types.h. */
#include "common/types.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

void lvd_probe_free(lvd_probe *p)
{
    if (!p)
        return;
    free(p->binary);
    free(p->reason);
    free(p->env);
    free(p->devices);
    free(p->files);
    free(p->no_device);
    free(p->changed);
    free(p->flags);
    memset(p, 0, sizeof *p);
}

void lvd_engine_free(lvd_engine *e)
{
    if (!e)
        return;
    free(e->name);
    free(e->dir);
    free(e->build);
    free(e->commit);
    free(e->semver);
    free(e->family);
    free(e->release);
    free(e->flavour);
    free(e->digest);
    free(e->origin);
    free(e->host);
    memset(e, 0, sizeof *e);
}

static char *dup_or_null(const char *s)
{
    return s ? lvd_xstrdup(s) : NULL;
}

void lvd_engine_copy(lvd_engine *dst, const lvd_engine *src)
{
    *dst = *src;
    char **fields[] = {&dst->name,    &dst->dir,     &dst->build,  &dst->commit, &dst->semver,
                       &dst->family,  &dst->release, &dst->flavour, &dst->digest, &dst->origin, &dst->host};
    for (size_t i = 0; i < LVD_ARRAY_LEN(fields); i++)
        *fields[i] = dup_or_null(*fields[i]);
}

const char *lvd_engine_family(const lvd_engine *e)
{
    return e->family && *e->family ? e->family : LVD_FAMILY_MAINLINE;
}

void lvd_result_free(lvd_result *r)
{
    if (!r)
        return;
    free(r->reported_json);
    free(r->ns);
    free(r->ts);
    free(r->warmup);
    memset(r, 0, sizeof *r);
}

void lvd_run_free(lvd_run *r)
{
    if (!r)
        return;
    free(r->binary);
    free(r->build);
    free(r->host);
    free(r->session);
    free(r->arm_key);
    free(r->build_commit);
    free(r->reason);
    free(r->stderr_tail);
    free(r->left_out);
    for (size_t i = 0; i < r->n_results; i++)
        lvd_result_free(&r->results[i]);
    free(r->results);
    free(r->alloc);
    memset(r, 0, sizeof *r);
}

void lvd_check_free(lvd_check *c)
{
    if (!c)
        return;
    free(c->host);
    free(c->reason);
    memset(c, 0, sizeof *c);
}

void lvd_verdict_free(lvd_verdict *v)
{
    if (!v)
        return;
    free(v->host);
    free(v->objective);
    free(v->arm_key);
    free(v->rule);
    free(v->explain);
    free(v->fingerprint);
    free(v->stats_json);
    memset(v, 0, sizeof *v);
}

void lvd_pin_decision_free(lvd_pin_decision *d)
{
    if (!d)
        return;
    free(d->pinned_build);
    free(d->candidate_build);
    free(d->decision);
    free(d->rule);
    free(d->details_json);
    memset(d, 0, sizeof *d);
}

void lvd_params_init(lvd_params *p)
{
    memset(p, 0, sizeof *p);
    p->ngl = -1;
    p->fa = -1;
    p->fused_moe = -1;
    p->repack = -1;
}
