/* profile.c: reading and validating the operator profile (see profile.h),
 * and what it names among the engines' cached probes. Not for the rule that
 * lets it win (select/decide.c). */
#include "select/profile.h"

#include "select/engines.h"
#include "select/heuristic.h"

#include "common/kv.h"
#include "common/opt_vocab.h"
#include "placement/placement.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* An integer value in [lo, hi] into *out; else an error naming the line. */
static int int_value(const lvd_kvfile *kv, const lvd_kv *e, int64_t lo, int64_t hi, int64_t *out,
                     lvd_err *err)
{
    if (lvd_parse_i64(e->value, out) != 0 || *out < lo || *out > hi)
        return lvd_errf(err, "%s:%d: %s = '%s': expected a whole number from %lld to %lld", kv->name,
                        e->line, e->key, e->value, (long long)lo, (long long)hi);
    return 0;
}

/* Copies a word into buf (len bytes) when it is non-empty, fits and has no
 * blank or comma (one selector, one backend, one type). */
static int word_value(const lvd_kvfile *kv, const lvd_kv *e, char *buf, size_t len, lvd_err *err)
{
    size_t n = strlen(e->value);
    if (n == 0 || n >= len || strpbrk(e->value, " \t,"))
        return lvd_errf(err, "%s:%d: %s = '%s': expected one word of at most %zu characters",
                        kv->name, e->line, e->key, e->value, len - 1);
    memcpy(buf, e->value, n + 1);
    return 0;
}

static int backend_value(const lvd_kvfile *kv, const lvd_kv *e, sel_profile *p, lvd_err *err)
{
    if (word_value(kv, e, p->backend, sizeof p->backend, err) != 0)
        return -1;
    for (char *c = p->backend; *c; c++) {
        *c = (char)tolower((unsigned char)*c);
        if (!isalnum((unsigned char)*c))
            return lvd_errf(err, "%s:%d: backend = '%s': expected a backend name such as cpu, cuda,"
                            " vulkan, rocm, metal or sycl", kv->name, e->line, e->value);
    }
    p->line_backend = e->line;
    return 0;
}

static int fa_value(const lvd_kvfile *kv, const lvd_kv *e, int *fa, lvd_err *err)
{
    if (strcmp(e->value, "auto") == 0) {
        *fa = SEL_PROFILE_FA_AUTO;
        return 0;
    }
    if (lvd_parse_onoff(e->value, fa) == 0)
        return 0;
    return lvd_errf(err, "%s:%d: fa = '%s': expected on, off or auto", kv->name, e->line, e->value);
}

static int cache_type_value(const lvd_kvfile *kv, const lvd_kv *e, char *buf, size_t len,
                            lvd_err *err)
{
    uint32_t elems, bytes;
    lvd_err why;
    if (word_value(kv, e, buf, len, err) != 0)
        return -1;
    if (placement_cache_type_size(buf, &elems, &bytes, &why) != 0)
        return lvd_errf(err, "%s:%d: %s = '%s': %s", kv->name, e->line, e->key, e->value, why.msg);
    return 0;
}

/* env.NAME = VALUE appended to p->env as NAME=VALUE. */
static int env_value(const lvd_kvfile *kv, const lvd_kv *e, sel_profile *p, lvd_err *err)
{
    const char *name = e->key + strlen("env.");
    int ok = isalpha((unsigned char)*name) || *name == '_';
    for (const char *c = name; *c && ok; c++)
        ok = isalnum((unsigned char)*c) || *c == '_';
    if (!ok)
        return lvd_errf(err, "%s:%d: %s: an environment variable name is [A-Za-z_][A-Za-z0-9_]*",
                        kv->name, e->line, e->key);
    if (strpbrk(e->value, " \t"))
        return lvd_errf(err, "%s:%d: %s = '%s': a value with blanks cannot be passed", kv->name,
                        e->line, e->key, e->value);
    size_t have = strlen(p->env);
    int n = snprintf(p->env + have, sizeof p->env - have, "%s%s=%s", have ? " " : "", name,
                     e->value);
    if (n < 0 || (size_t)n >= sizeof p->env - have) {
        p->env[have] = '\0';
        return lvd_errf(err, "%s:%d: %s: the environment assignments exceed %zu characters",
                        kv->name, e->line, e->key, sizeof p->env - 1);
    }
    return 0;
}

/* One entry into p; 0 or -1 with err naming the line. */
static int entry(const lvd_kvfile *kv, const lvd_kv *e, sel_profile *p, lvd_err *err)
{
    const char *k = e->key;
    int64_t v;
    if (strcmp(k, "backend") == 0)
        return backend_value(kv, e, p, err);
    if (strcmp(k, "engine") == 0) {
        if (!*e->value)
            return lvd_errf(err, "%s:%d: engine: expected an engine name", kv->name, e->line);
        free(p->engine);
        p->engine = lvd_xstrdup(e->value);
        p->line_engine = e->line;
        return 0;
    }
    if (strcmp(k, "device") == 0) {
        p->line_device = e->line;
        return word_value(kv, e, p->device, sizeof p->device, err);
    }
    if (strcmp(k, "fa") == 0)
        return fa_value(kv, e, &p->fa, err);
    if (strcmp(k, "ctk") == 0)
        return cache_type_value(kv, e, p->type_k, sizeof p->type_k, err);
    if (strcmp(k, "ctv") == 0)
        return cache_type_value(kv, e, p->type_v, sizeof p->type_v, err);
    if (lvd_starts_with(k, "env."))
        return env_value(kv, e, p, err);
    static const struct { const char *key; int64_t lo, hi; } ints[] = {
        {"ctx", 0, LVD_CTX_MAX},   {"ngl", 0, LVD_LAYERS_MAX}, {"n-cpu-moe", 0, LVD_LAYERS_MAX},
        {"ub", 1, LVD_UBATCH_MAX}, {"threads", 1, LVD_THREADS_MAX}, /* the command line's ranges */
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(ints); i++) {
        if (strcmp(k, ints[i].key) != 0)
            continue;
        if (int_value(kv, e, ints[i].lo, ints[i].hi, &v, err) != 0)
            return -1;
        switch (i) {
        case 0: p->ctx = v; break;
        case 1: p->ngl = (int)v; break;
        case 2: p->n_cpu_moe = (int)v; break;
        case 3: p->ubatch = (int)v; break;
        default: p->threads = (int)v; break;
        }
        return 0;
    }
    return lvd_errf(err, "%s:%d: unknown key '%s' (known: backend, engine, device, ctx, fa, ctk, ctv,"
                    " ngl, n-cpu-moe, ub, threads, env.NAME)", kv->name, e->line, k);
}

static void profile_init(sel_profile *p, const char *name)
{
    memset(p, 0, sizeof *p);
    p->file = lvd_xstrdup(name);
    p->ctx = -1;
    p->ngl = p->n_cpu_moe = p->ubatch = p->fa = -1;
}

/* Parses the entries of kv into out (initialised here). */
static int from_kv(const lvd_kvfile *kv, sel_profile *out, lvd_err *err)
{
    profile_init(out, kv->name);
    for (size_t i = 0; i < kv->n; i++) {
        /* a repeated env.NAME replaces the earlier one: only the last is applied */
        if (lvd_starts_with(kv->v[i].key, "env.") && lvd_kv_find(kv, kv->v[i].key) != &kv->v[i])
            continue;
        if (entry(kv, &kv->v[i], out, err) != 0) {
            sel_profile_free(out);
            return -1;
        }
    }
    return 0;
}

int sel_profile_parse(const char *text, size_t len, const char *name, sel_profile *out,
                      lvd_err *err)
{
    lvd_kvfile kv;
    memset(out, 0, sizeof *out);
    if (lvd_kv_parse(text, len, name, &kv, err) != 0)
        return -1;
    int rc = from_kv(&kv, out, err);
    lvd_kv_free(&kv);
    return rc;
}

int sel_profile_load(const char *path, sel_profile *out, lvd_err *err)
{
    lvd_kvfile kv;
    memset(out, 0, sizeof *out);
    if (lvd_kv_load(path, &kv, err) != 0)
        return -1;
    int rc = from_kv(&kv, out, err);
    lvd_kv_free(&kv);
    return rc;
}

void sel_profile_free(sel_profile *p)
{
    if (!p)
        return;
    free(p->file);
    free(p->engine);
    memset(p, 0, sizeof *p);
}

int sel_profile_decides(const sel_profile *p)
{
    return p && (p->backend[0] || p->engine || p->device[0]);
}

void sel_profile_apply(const sel_profile *p, lvd_params *params)
{
    if (p->ngl >= 0)
        params->ngl = p->ngl;
    if (p->n_cpu_moe >= 0)
        params->n_cpu_moe = p->n_cpu_moe;
    if (p->ubatch > 0)
        params->ubatch = p->ubatch;
    if (p->fa >= 0)
        params->fa = p->fa == SEL_PROFILE_FA_AUTO ? -1 : p->fa;
    if (p->type_k[0])
        snprintf(params->type_k, sizeof params->type_k, "%s", p->type_k);
    if (p->type_v[0])
        snprintf(params->type_v, sizeof params->type_v, "%s", p->type_v);
    if (p->threads > 0)
        params->threads = p->threads;
    if (p->env[0])
        snprintf(params->env, sizeof params->env, "%s", p->env);
}

/* --- what a profile names among the engines ----------------------------- */

/* The first device (of only, or of every usable engine when only is NULL)
 * that matches the profile's device and backend, or 0 when none. */
static int profile_match(const sel_engines *es, const sel_engine *only, const sel_profile *p, sel_pick *out)
{
    for (size_t i = 0; i < es->n; i++) {
        const sel_engine *e = &es->v[i];
        if ((only && e != only) || !sel_engine_usable(e))
            continue;
        for (size_t j = 0; j < e->probe.n_devices; j++) {
            const lvd_device *d = &e->probe.devices[j];
            char backend[64];
            sel_device_backend(d, backend, sizeof backend);
            if ((p->device[0] && strcmp(d->selector, p->device) != 0) ||
                (p->backend[0] && strcmp(backend, p->backend) != 0))
                continue;
            *out = (sel_pick){e, d};
            return 1;
        }
    }
    return 0;
}

/* The CPU choice a profile's "backend = cpu" means: the named engine, else
 * the first usable engine whose probe lists no device. */
static int profile_cpu(const sel_engines *es, const sel_engine *only, sel_pick *out)
{
    for (size_t i = 0; i < es->n && !only; i++)
        if (sel_engine_usable(&es->v[i]) && es->v[i].probe.n_devices == 0)
            only = &es->v[i];
    *out = (sel_pick){only, NULL};
    return only != NULL;
}

/* The error of a profile whose device or backend no probe shows. */
static int profile_unshown(const sel_profile *p, const sel_engine *only, lvd_err *err)
{
    char shown[512], want[160];
    int line = p->device[0] ? p->line_device : p->line_backend;
    if (p->device[0] && p->backend[0])
        snprintf(want, sizeof want, "device %s under backend %s", p->device, p->backend);
    else if (p->device[0])
        snprintf(want, sizeof want, "device %s", p->device);
    else
        snprintf(want, sizeof want, "%s device", p->backend);
    if (only) {
        sel_engine_selectors(only, shown, sizeof shown);
        return lvd_errf(err, "%s:%d: engine %s's probe shows no %s (it shows: %s)", p->file, line,
                        p->engine, want, shown);
    }
    return lvd_errf(err, "%s:%d: no usable engine's probe shows a %s (run lvd probe; selectors"
                    " are copied from its output)", p->file, line, want);
}

int sel_profile_resolve(const sel_profile *p, const sel_engines *es, sel_pick *out, lvd_err *err)
{
    const sel_engine *only = NULL;
    if (p->engine) {
        only = sel_engines_by_name(es, p->engine);
        if (!only)
            return lvd_errf(err, "%s:%d: engine '%s' is not registered (see lvd store engines)",
                            p->file, p->line_engine, p->engine);
        if (!sel_engine_usable(only))
            return lvd_errf(err, "%s:%d: engine %s cannot serve: %s", p->file, p->line_engine,
                            p->engine, only->why);
    }
    int is_cpu = strcmp(p->backend, LVD_BACKEND_CPU) == 0;
    if (is_cpu && p->device[0])
        return lvd_errf(err, "%s:%d: device %s with backend = cpu: a CPU run has no device",
                        p->file, p->line_device, p->device);
    if (is_cpu) {
        if (!profile_cpu(es, only, out))
            return lvd_errf(err, "%s:%d: backend = cpu, but no usable engine is a CPU build"
                            " (a probe with no devices); name one with engine =",
                            p->file, p->line_backend);
        return 0;
    }
    if (profile_match(es, only, p, out))
        return 0;
    if (only && !p->device[0] && !p->backend[0] && only->probe.n_devices == 0) {
        *out = (sel_pick){only, NULL}; /* engine = a CPU build */
        return 0;
    }
    return profile_unshown(p, only, err);
}
