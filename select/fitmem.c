/* fitmem.c: the llama-fit-params row a launch line's placement uses (see fitmem.h). */
#include "select/fitmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sel_build_number(const char *build)
{
    if (!build || build[0] != 'b' || build[1] < '0' || build[1] > '9')
        return 0;
    char *end;
    long v = strtol(build + 1, &end, 10);
    return *end || v <= 0 || v > 10000000 ? 0 : (int)v;
}

/* Cache types as llama.cpp reads them: "" is f16, case does not matter. */
static int same_type(const char *a, const char *b)
{
    return !strcasecmp(*a ? a : "f16", *b ? b : "f16");
}

void sel_fitmem_find(const store_fitprint *rows, size_t n, const lvd_engine *e, const lvd_probe *probe,
                     const char *dev, uint32_t ctx, const lvd_params *p, placement_engine_mem *out, char *why,
                     size_t why_len)
{
    memset(out, 0, sizeof *out);
    if (why_len)
        why[0] = '\0';
    int ub = p->ubatch > 0 ? p->ubatch : PLACEMENT_UBATCH_DEFAULT;
    int fa = p->fa > 0; /* auto is priced as off, the larger buffer (placement.h) */
    size_t of_engine = 0;
    for (size_t i = 0; i < n; i++) {
        const store_fitprint *r = &rows[i];
        if (!e || r->engine_id != e->id)
            continue;
        of_engine++;
        if (r->ctx != (int64_t)ctx || r->ubatch != ub || r->fa != fa || !same_type(r->type_k, p->type_k) ||
            !same_type(r->type_v, p->type_v) || strcmp(r->device, dev ? dev : ""))
            continue;
        if (r->files && r->files[0] && probe && probe->files && strcmp(r->files, probe->files)) {
            snprintf(why, why_len, "llama-fit-params' figures of %s were made by other engine files than the"
                                   " newest probe saw (run lvd bench or lvd fit --fit-print again)", e->name);
            return; /* the newest row is stale: an older one is staler */
        }
        out->known = 1;
        out->has_device = r->device[0] != '\0';
        out->dev_model_mib = r->dev_model;
        out->dev_context_mib = r->dev_context;
        out->dev_compute_mib = r->dev_compute;
        out->host_model_mib = r->host_model;
        out->host_context_mib = r->host_context;
        out->host_compute_mib = r->host_compute;
        out->ubatch = r->ubatch;
        snprintf(out->from, sizeof out->from, "llama-fit-params of %s", e->name);
        return;
    }
    if (of_engine)
        snprintf(why, why_len, "llama-fit-params of %s has no figures at ctx %u, ubatch %d, -fa %s, -ctk %s -ctv %s%s%s",
                 e->name, ctx, ub, fa ? "on" : "off", *p->type_k ? p->type_k : "f16",
                 *p->type_v ? p->type_v : "f16", dev && *dev ? " on " : "", dev ? dev : "");
}
