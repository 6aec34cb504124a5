/* config.c: reads the nightly configuration (config.h) and checks every value
 * before anything runs, so a typo fails at once with its line number. */
#include "nightly/config.h"

#include "common/kv.h"
#include "common/paths.h"
#include "serve/load.h"

#include <stdlib.h>
#include <string.h>

static const char *const known_keys[] = {
    "model", "pin_file", "flavour", "candidate", "min_age", "tests", "budget", "max_samples",
    "reps", "objective", "evidence", "log", "builds_dir", "fetch", "promote", "step_timeout",
    "run_timeout", "discover", "ctx", "depth", "device_wait", "resume_within", "bisect", "bisect_budget",
    "fallback_store", "serve", "serve_arms",
};

static char *resolve(const char *base_dir, const char *p)
{
    if (p[0] == '/' || !base_dir)
        return lvd_xstrdup(p);
    return lvd_xasprintf("%s/%s", base_dir, p);
}

static int set_defaults(night_config *c, lvd_err *err)
{
    c->candidate = lvd_xstrdup("latest");
    c->min_age = lvd_xstrdup("6h");
    c->tests = lvd_xstrdup("pp512,tg128");
    c->budget = lvd_xstrdup("15m");
    c->max_samples = 30;
    c->reps = 0; /* unset: lvd bench's cost model */
    c->ctx = -1; /* unset: lvd select's default context, measured at half of it */
    c->objective = lvd_xstrdup("tg");
    c->fetch = 1;
    c->discover = 1;
    c->promote = 1;
    c->bisect = 1;
    c->serve_arms = 2;
    c->bisect_budget = lvd_xstrdup("1h");
    c->step_timeout_s = 1800;
    c->device_wait_s = 1800;
    c->resume_within_s = 86400;
    c->evidence = lvd_state_path("evidence/backend-selection.md");
    c->log = lvd_state_path("nightly.log");
    c->fallback_store = lvd_state_path("store.db");
    char *pin = lvd_data_file("pin.default");
    if (!pin)
        return lvd_errf(err, "%s/pin.default: the shipped pin file is missing (reinstall llama-verdict)",
                        lvd_datadir());
    c->pin_file = pin;
    return 0;
}

static int on_off(const lvd_kvfile *kv, const lvd_kv *e, int *out, lvd_err *err)
{
    if (lvd_parse_onoff(e->value, out))
        return lvd_errf(err, "%s:%d: %s must be on or off, not '%s'", kv->name, e->line, e->key, e->value);
    return 0;
}

static int positive(const lvd_kvfile *kv, const lvd_kv *e, int max, int *out, lvd_err *err)
{
    int64_t v;
    if (lvd_parse_i64(e->value, &v) || v < 1 || v > max)
        return lvd_errf(err, "%s:%d: %s must be a whole number from 1 to %d, not '%s'", kv->name, e->line,
                        e->key, max, e->value);
    *out = (int)v;
    return 0;
}

/* A comma list of depths (whole numbers >= 0), as lvd bench's --depth takes. */
static int check_depths(const lvd_kvfile *kv, const lvd_kv *e, lvd_err *err)
{
    size_t n;
    char **items = lvd_split(e->value, ',', &n);
    int ok = n > 0;
    for (size_t i = 0; i < n && ok; i++) {
        int64_t v;
        ok = !lvd_parse_i64(items[i], &v) && v >= 0 && v <= 16777216;
    }
    lvd_strv_free(items);
    return ok ? 0 : lvd_errf(err, "%s:%d: depth must be a list of depths like 0,4096, not '%s'", kv->name,
                             e->line, e->value);
}

static int check_duration(const lvd_kvfile *kv, const lvd_kv *e, lvd_err *err)
{
    int64_t s;
    if (lvd_parse_duration(e->value, &s))
        return lvd_errf(err, "%s:%d: %s must be a duration like 90s, 15m, 6h, not '%s'", kv->name,
                        e->line, e->key, e->value);
    return 0;
}

static void replace(char **slot, char *v)
{
    free(*slot);
    *slot = v;
}

/* The keys naming files and lists (model, flavour, the paths): 1 when key
 * is one of them, 0 when not. */
static int apply_path(night_config *c, const lvd_kv *e, const char *dir)
{
    const char *key = e->key;
    if (!strcmp(key, "model"))
        lvd_strv_push(&c->models, &c->n_models, resolve(dir, e->value));
    else if (!strcmp(key, "flavour"))
        lvd_strv_push(&c->flavours, &c->n_flavours, lvd_xstrdup(e->value));
    else if (!strcmp(key, "pin_file"))
        replace(&c->pin_file, resolve(dir, e->value));
    else if (!strcmp(key, "evidence"))
        replace(&c->evidence, resolve(dir, e->value));
    else if (!strcmp(key, "fallback_store"))
        replace(&c->fallback_store, resolve(dir, e->value));
    else if (!strcmp(key, "log"))
        replace(&c->log, resolve(dir, e->value));
    else if (!strcmp(key, "builds_dir"))
        replace(&c->builds_dir, resolve(dir, e->value));
    else
        return 0;
    return 1;
}

/* The durations: 1 when key is one of them, 0 when not, -1 with err when
 * its value is no duration. */
static int apply_duration(night_config *c, const lvd_kvfile *kv, const lvd_kv *e, lvd_err *err)
{
    static const char *const durations[] = {"min_age", "budget", "bisect_budget", "run_timeout",
                                            "device_wait", "resume_within", "step_timeout"};
    const char *key = e->key;
    size_t k = 0;
    while (k < LVD_ARRAY_LEN(durations) && strcmp(durations[k], key))
        k++;
    if (k == LVD_ARRAY_LEN(durations))
        return 0;
    if (check_duration(kv, e, err))
        return -1;
    int64_t s;
    lvd_parse_duration(e->value, &s);
    if (!strcmp(key, "min_age") || !strcmp(key, "budget"))
        replace(!strcmp(key, "budget") ? &c->budget : &c->min_age, lvd_xstrdup(e->value));
    else if (!strcmp(key, "bisect_budget"))
        replace(&c->bisect_budget, lvd_xstrdup(e->value));
    else if (!strcmp(key, "run_timeout"))
        replace(&c->run_timeout, lvd_xstrdup(e->value));
    else if (!strcmp(key, "device_wait") || !strcmp(key, "resume_within"))
        *(!strcmp(key, "device_wait") ? &c->device_wait_s : &c->resume_within_s) = s;
    else /* step_timeout */
        c->step_timeout_s = s > 0 && s < 86400 ? (int)s : 1800;
    return 1;
}

/* The numbers: 1 when key is one of them, 0 when not, -1 with err when its
 * value is out of range. */
static int apply_number(night_config *c, const lvd_kvfile *kv, const lvd_kv *e, lvd_err *err)
{
    const char *key = e->key;
    if (!strcmp(key, "max_samples"))
        return positive(kv, e, 1000, &c->max_samples, err) ? -1 : 1;
    if (!strcmp(key, "serve_arms"))
        return positive(kv, e, 16, &c->serve_arms, err) ? -1 : 1;
    if (!strcmp(key, "reps"))
        return positive(kv, e, 100, &c->reps, err) ? -1 : 1;
    if (strcmp(key, "ctx"))
        return 0;
    int64_t v;
    if (lvd_parse_i64(e->value, &v) || v < 0 || v > 16777216)
        return lvd_errf(err, "%s:%d: ctx must be a number of tokens from 0 to 16777216, not '%s'",
                        kv->name, e->line, e->value);
    c->ctx = (int)v;
    return 1;
}

/* Every other key: the candidate, what is measured, and the switches. */
static int apply_setting(night_config *c, const lvd_kvfile *kv, const lvd_kv *e, lvd_err *err)
{
    const char *key = e->key;
    if (!strcmp(key, "candidate")) {
        if (strcmp(e->value, "latest") && strcmp(e->value, "none") &&
            (e->value[0] != 'b' || strspn(e->value + 1, "0123456789") != strlen(e->value + 1) ||
             !e->value[1]))
            return lvd_errf(err, "%s:%d: candidate must be latest, none or a build like b10715, not '%s'",
                            kv->name, e->line, e->value);
        replace(&c->candidate, lvd_xstrdup(e->value));
    } else if (!strcmp(key, "tests"))
        replace(&c->tests, lvd_xstrdup(e->value));
    else if (!strcmp(key, "objective"))
        replace(&c->objective, lvd_xstrdup(e->value));
    else if (!strcmp(key, "depth")) {
        if (check_depths(kv, e, err))
            return -1;
        replace(&c->depth, lvd_xstrdup(e->value));
    } else if (!strcmp(key, "serve")) {
        serve_load *loads;
        size_t n;
        lvd_err why;
        if (serve_loads_parse(e->value, &loads, &n, &why))
            return lvd_errf(err, "%s:%d: serve: %s", kv->name, e->line, why.msg);
        free(loads);
        replace(&c->serve, lvd_xstrdup(e->value));
    } else
        return on_off(kv, e, !strcmp(key, "bisect")     ? &c->bisect
                             : !strcmp(key, "fetch")    ? &c->fetch
                             : !strcmp(key, "discover") ? &c->discover
                                                        : &c->promote, err);
    return 0;
}

static int apply(night_config *c, const lvd_kvfile *kv, const char *dir, lvd_err *err)
{
    for (size_t i = 0; i < kv->n; i++) {
        const lvd_kv *e = &kv->v[i];
        size_t k = 0;
        while (k < LVD_ARRAY_LEN(known_keys) && strcmp(known_keys[k], e->key))
            k++;
        if (k == LVD_ARRAY_LEN(known_keys))
            return lvd_errf(err, "%s:%d: unknown key '%s'", kv->name, e->line, e->key);
        if (!*e->value)
            return lvd_errf(err, "%s:%d: %s has no value", kv->name, e->line, e->key);
        int rc = apply_path(c, e, dir);
        if (!rc)
            rc = apply_duration(c, kv, e, err);
        if (!rc)
            rc = apply_number(c, kv, e, err);
        if (!rc)
            rc = apply_setting(c, kv, e, err);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int night_config_load(const char *path, night_config *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (set_defaults(out, err))
        goto fail;
    if (!path) {
        out->source = lvd_xstrdup("built-in default");
        out->is_default = 1;
        out->promote = 0; /* never rewrite the shipped pin file */
        char *model = lvd_data_file("models/tiny-llama-q4_0.gguf");
        if (!model) {
            lvd_errf(err, "%s/models/tiny-llama-q4_0.gguf: the bundled model is missing", lvd_datadir());
            goto fail;
        }
        lvd_strv_push(&out->models, &out->n_models, model);
        return 0;
    }
    out->source = lvd_xstrdup(path);
    lvd_kvfile kv;
    if (lvd_kv_load(path, &kv, err))
        goto fail;
    char *dir = lvd_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int rc = apply(out, &kv, slash ? dir : NULL, err);
    free(dir);
    if (rc == 0 && out->n_models == 0)
        rc = lvd_errf(err, "%s: no model (add a line 'model = /path/to/model.gguf')", path);
    lvd_kv_free(&kv);
    if (rc)
        goto fail;
    return 0;
fail:
    night_config_free(out);
    return -1;
}

void night_config_free(night_config *c)
{
    if (!c)
        return;
    free(c->source);
    lvd_strv_free(c->models);
    lvd_strv_free(c->flavours);
    free(c->pin_file);
    free(c->candidate);
    free(c->min_age);
    free(c->tests);
    free(c->depth);
    free(c->budget);
    free(c->objective);
    free(c->evidence);
    free(c->log);
    free(c->fallback_store);
    free(c->builds_dir);
    free(c->run_timeout);
    free(c->bisect_budget);
    free(c->serve);
    memset(c, 0, sizeof *c);
}
