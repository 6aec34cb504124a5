/* fit.c: lvd fit's run over engines, devices and KV pairs (see fit.h): the
 * target of each, its search and its record. Not for the bisection
 * (search.c), a load (load.c) or the rules of a ceiling (ceiling.c). */
#include "fit/fit.h"

#include "common/json.h"

#include "fit/ceiling.h"
#include "fit/load.h"
#include "fit/search.h"
#include "placement/placement.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pair_types_valid(const char *t, lvd_err *err)
{
    uint32_t be, bb;
    return placement_cache_type_size(t, &be, &bb, err);
}

int fit_pairs_parse(const char *ctk, const char *ctv, fit_pair **out, size_t *n, lvd_err *err)
{
    size_t nk = 0, nv = 0;
    char **k = lvd_split(ctk ? ctk : "f16", ',', &nk), **v = lvd_split(ctv ? ctv : "f16", ',', &nv);
    int rc = 0;
    *out = NULL;
    *n = 0;
    if (!nk || !nv || (nk != nv && nk != 1 && nv != 1))
        rc = lvd_errf(err, "-ctk has %zu types and -ctv %zu: give matched lists (or one type for all)", nk, nv);
    size_t m = nk > nv ? nk : nv;
    for (size_t i = 0; rc == 0 && i < m; i++) {
        const char *tk = k[nk == 1 ? 0 : i], *tv = v[nv == 1 ? 0 : i];
        if (pair_types_valid(tk, err) || pair_types_valid(tv, err)) {
            rc = -1;
            break;
        }
        *out = lvd_xrealloc(*out, (*n + 1) * sizeof **out);
        snprintf((*out)[*n].type_k, sizeof (*out)[*n].type_k, "%s", tk);
        snprintf((*out)[*n].type_v, sizeof (*out)[*n].type_v, "%s", tv);
        (*n)++;
    }
    lvd_strv_free(k);
    lvd_strv_free(v);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* Records item it of engine e (probe p) for artifact a. */
static int record(store *s, const store_artifact *a, const lvd_engine *e, const lvd_probe *p, const fit_item *it,
                  lvd_err *err)
{
    store_ceiling c;
    memset(&c, 0, sizeof c);
    snprintf(c.artifact, sizeof c.artifact, "%s", a->sha256);
    c.engine_id = e->id;
    c.engine_key = fit_engine_key(e, p);
    snprintf(c.device, sizeof c.device, "%s", it->device);
    snprintf(c.type_k, sizeof c.type_k, "%s", it->pair.type_k);
    snprintf(c.type_v, sizeof c.type_v, "%s", it->pair.type_v);
    c.placement = lvd_xstrdup(it->placement);
    c.ceiling = it->ceiling;
    c.capped = it->capped;
    c.max_ctx = it->max_ctx;
    c.predicted = it->predicted;
    c.free_mib = it->free_mib;
    c.probes = it->probes;
    c.host = lvd_xstrdup(lvd_hostname());
    int rc = store_ceiling_put(s, &c, err);
    store_ceiling_free(&c);
    return rc;
}

/* Searches one device (NULL: the CPU) and pair of engine i into it. */
static void search_one(engine_setup *b, size_t i, const lvd_device *dev, const fit_pair *pr, const fit_opts *o,
                       const char *binary, uint32_t top, fit_item *it)
{
    const gguf_shape *shape = &b->art.shape;
    it->engine = lvd_xstrdup(b->engines[i].name);
    snprintf(it->device, sizeof it->device, "%s", dev ? dev->selector : FIT_DEVICE_CPU);
    it->pair = *pr;
    it->max_ctx = top;
    it->ceiling = -1;
    it->free_mib = dev ? dev->free_mib : -1;
    fit_target t = {.binary = binary, .model = b->model, .flags = b->probes[i].flags, .timeout_ms = o->timeout_ms};
    placement_result pl;
    lvd_err err = {{0}};
    int placed = shape->known ? fit_place(shape, dev, pr->type_k, pr->type_v, &t.params, &pl, &err) : 0;
    if (placed < 0) {
        it->error = lvd_xstrdup(err.msg);
        return;
    }
    if (!placed)
        fit_place(shape, dev, pr->type_k, pr->type_v, &t.params, &pl, &err); /* the flags only */
    fit_placement_key(&t.params, dev == NULL, it->placement, sizeof it->placement);
    it->predicted = placed ? fit_predict_max(shape, &pl, pr->type_k, pr->type_v, it->free_mib) : -1;
    uint32_t start = it->predicted > 0 ? (uint32_t)it->predicted
                     : shape->n_ctx_train && shape->n_ctx_train < PLACEMENT_CTX_DEFAULT ? shape->n_ctx_train
                                                                                         : PLACEMENT_CTX_DEFAULT;
    fit_search_out so;
    if (fit_search(start, top, fit_load, &t, &so, &err) != 0) {
        it->error = lvd_xstrdup(err.msg);
        return;
    }
    it->ceiling = so.ceiling;
    it->capped = so.capped;
    it->probes = so.probes;
    it->left_out = t.left_out[0] ? lvd_xstrdup(t.left_out) : NULL;
    if (!so.capped && t.last_why[0])
        it->last_fail = lvd_xstrdup(t.last_why);
}

/* The engine's reason it cannot be searched, or NULL; *binary its llama-bench. */
static char *unsearchable(const lvd_engine *e, const lvd_probe *p, char **binary)
{
    *binary = lvd_xasprintf("%s/llama-bench", e->dir);
    if (!strcmp(p->backend, LVD_BACKEND_UNKNOWN))
        return lvd_xasprintf("not probed: %s", p->reason ? p->reason : "unknown");
    if (access(*binary, X_OK) != 0)
        return lvd_xasprintf("%s: no executable llama-bench", e->dir);
    return NULL;
}

static void progress(const fit_opts *o, const fit_item *it)
{
    if (!o->progress)
        return;
    char line[512];
    if (it->error)
        snprintf(line, sizeof line, "%s %s %s/%s: %s", it->engine, it->device, it->pair.type_k, it->pair.type_v,
                 it->error);
    else
        snprintf(line, sizeof line, "%s %s %s/%s: ceiling %lld%s in %d loads%s%s%s", it->engine, it->device,
                 it->pair.type_k, it->pair.type_v, (long long)it->ceiling, it->capped ? " (the top loaded)" : "",
                 it->probes, it->left_out ? " (" : "", it->left_out ? it->left_out : "", it->left_out ? ")" : "");
    o->progress(o->progress_arg, line);
}

int fit_run(engine_setup *b, const fit_opts *o, fit_item **items, size_t *n, lvd_err *err)
{
    *items = NULL;
    *n = 0;
    int64_t top = o->max_ctx > 0 ? o->max_ctx : b->art.shape.known ? b->art.shape.n_ctx_train : 0;
    if (top <= 0)
        return lvd_errf(err, "%s: the model's training context is not known: pass --max-ctx N", b->model);
    for (size_t i = 0; i < b->n; i++) {
        const lvd_probe *p = &b->probes[i];
        char *binary, *why = unsearchable(&b->engines[i], p, &binary);
        size_t nd = why || p->n_devices == 0 ? 1 : p->n_devices;
        for (size_t d = 0; d < nd; d++)
            for (size_t k = 0; k < o->n_pairs; k++) {
                *items = lvd_xrealloc(*items, (*n + 1) * sizeof **items);
                fit_item *it = memset(&(*items)[(*n)++], 0, sizeof **items);
                const lvd_device *dev = p->n_devices ? &p->devices[d] : NULL;
                if (why) {
                    it->engine = lvd_xstrdup(b->engines[i].name);
                    snprintf(it->device, sizeof it->device, "%s", "-");
                    it->pair = o->pairs[k];
                    it->ceiling = -1;
                    it->error = lvd_xstrdup(why);
                } else {
                    search_one(b, i, dev, &o->pairs[k], o, binary, (uint32_t)top, it);
                    if (!it->error && o->record && record(b->s, &b->art, &b->engines[i], p, it, err) != 0) {
                        free(binary);
                        return -1;
                    }
                }
                progress(o, it);
                if (why)
                    break;
            }
        free(binary);
        free(why);
    }
    return 0;
}

void fit_items_free(fit_item *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].engine);
        free(v[i].last_fail);
        free(v[i].error);
        free(v[i].left_out);
    }
    free(v);
}

cJSON *fit_items_json(const fit_item *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "engine", v[i].engine);
        cJSON_AddStringToObject(o, "device", v[i].device);
        cJSON_AddStringToObject(o, "ctk", v[i].pair.type_k);
        cJSON_AddStringToObject(o, "ctv", v[i].pair.type_v);
        cJSON_AddItemToObject(o, "ceiling", lvd_json_num_if(v[i].ceiling >= 0, (double)v[i].ceiling));
        cJSON_AddItemToObject(o, "free_mib", lvd_json_num_if(v[i].free_mib >= 0, (double)v[i].free_mib));
        cJSON_AddNumberToObject(o, "probes", v[i].probes);
        cJSON_AddBoolToObject(o, "capped", v[i].capped);
        cJSON_AddNumberToObject(o, "max_ctx", (double)v[i].max_ctx);
        cJSON_AddItemToObject(o, "predicted", lvd_json_num_if(v[i].predicted >= 0, (double)v[i].predicted));
        cJSON_AddStringToObject(o, "placement", v[i].placement);
        cJSON_AddItemToObject(o, "last_fail", lvd_json_str(v[i].last_fail));
        cJSON_AddItemToObject(o, "error", lvd_json_str(v[i].error));
        if (v[i].left_out) /* only then: every other item stays as it was */
            cJSON_AddStringToObject(o, "left_out", v[i].left_out);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}
