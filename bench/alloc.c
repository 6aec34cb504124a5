/* alloc.c: see alloc.h. */
#include "bench/alloc.h"

#include "engine/alloclog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLACEMENT_FAILURE "placement failure: "

static lvd_alloc *entry(lvd_run *run, const char *device)
{
    for (size_t i = 0; i < run->n_alloc; i++)
        if (!strcmp(run->alloc[i].device, device))
            return &run->alloc[i];
    run->alloc = lvd_xrealloc(run->alloc, (run->n_alloc + 1) * sizeof *run->alloc);
    lvd_alloc *a = &run->alloc[run->n_alloc++];
    snprintf(a->device, sizeof a->device, "%s", device);
    a->model = a->kv = a->compute = -1;
    a->pred_model = a->pred_kv = a->pred_compute = -1;
    return a;
}

static double mib(int64_t b)
{
    return b < 0 ? -1 : (double)b / 1048576.0;
}

void bench_alloc_attach(const bench_arm *arm, const char *err, size_t len, lvd_run *run)
{
    free(run->alloc);
    run->alloc = NULL;
    run->n_alloc = 0;
    for (size_t i = 0; i < arm->n_pred; i++)
        *entry(run, arm->pred[i].device) = arm->pred[i];
    lvd_alloc *seen = NULL;
    size_t n = 0;
    lvd_err ignored = {{0}};
    if (err && engine_alloc_parse(err, len, &seen, &n, &ignored) == 0) {
        for (size_t i = 0; i < n; i++) {
            lvd_alloc *a = entry(run, seen[i].device);
            a->model = seen[i].model;
            a->kv = seen[i].kv;
            a->compute = seen[i].compute;
        }
    }
    free(seen);
    if (strcmp(run->status, "failed") != 0 || !err)
        return;
    char *line = engine_alloc_oom_line(err, len);
    if (!line)
        return;
    const lvd_alloc *p = arm->n_pred ? &arm->pred[0] : NULL;
    char *reason;
    if (p && p->pred_model >= 0)
        reason = lvd_xasprintf(PLACEMENT_FAILURE "out of memory on %s, predicted %.2f MiB "
                               "(weights %.2f, KV %.2f, compute %.2f): %s",
                               p->device, mib(p->pred_model + p->pred_kv +
                                              (p->pred_compute > 0 ? p->pred_compute : 0)),
                               mib(p->pred_model), mib(p->pred_kv), mib(p->pred_compute), line);
    else
        reason = lvd_xasprintf(PLACEMENT_FAILURE "out of memory (no prediction): %s", line);
    free(run->reason);
    run->reason = reason;
    free(line);
}

static void keep_max(int64_t *into, int64_t v)
{
    if (v > *into)
        *into = v;
}

void bench_alloc_group_pred(const bench_arm *const *arms, size_t n, bench_arm *out)
{
    *out = *arms[0];
    for (size_t k = 1; k < n; k++)
        for (size_t i = 0; i < arms[k]->n_pred; i++) {
            const lvd_alloc *p = &arms[k]->pred[i];
            size_t j = 0;
            while (j < out->n_pred && strcmp(out->pred[j].device, p->device))
                j++;
            if (j == out->n_pred) {
                if (j == LVD_ARRAY_LEN(out->pred))
                    continue;
                out->pred[out->n_pred++] = *p;
                continue;
            }
            keep_max(&out->pred[j].pred_model, p->pred_model);
            keep_max(&out->pred[j].pred_kv, p->pred_kv);
            keep_max(&out->pred[j].pred_compute, p->pred_compute);
        }
}

int bench_alloc_is_placement_failure(const lvd_run *run)
{
    return bench_alloc_reason_is_placement_failure(run->reason);
}

int bench_alloc_reason_is_placement_failure(const char *reason)
{
    return reason && !strncmp(reason, PLACEMENT_FAILURE, strlen(PLACEMENT_FAILURE));
}
