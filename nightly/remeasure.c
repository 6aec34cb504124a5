/* remeasure.c: the nightly's lvd bench command lines (see remeasure.h). Not
 * for running them (nightly.c) or deciding anything (select/pin.c). */
#include "nightly/remeasure.h"

#include "benchio/arm.h"
#include "common/json.h"
#include "stats/serving.h"
#include "stats/stats.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **night_bench_argv(const night_config *c, const char *tools_dir, const char *store_path, const char *model,
                        const char *session, int resume, const char *tests, const char *budget,
                        size_t min_samples, size_t *n)
{
    char **v = NULL;
    *n = 0;
    lvd_strv_pushf(&v, n, "%s/lvd-bench", tools_dir);
    const char *words[] = {"--store", store_path, "--model", model, "--session", session};
    for (size_t i = 0; i < LVD_ARRAY_LEN(words); i++)
        lvd_strv_pushf(&v, n, "%s", words[i]);
    if (resume)
        lvd_strv_pushf(&v, n, "--resume");
    lvd_strv_pushf(&v, n, "--tests");
    lvd_strv_pushf(&v, n, "%s", tests);
    if (c->ctx >= 0) { /* measured at the context it serves (bench/depth.h) */
        lvd_strv_pushf(&v, n, "--ctx");
        lvd_strv_pushf(&v, n, "%d", c->ctx);
    }
    if (c->depth) {
        lvd_strv_pushf(&v, n, "--depth");
        lvd_strv_pushf(&v, n, "%s", c->depth);
    }
    lvd_strv_pushf(&v, n, "--budget");
    lvd_strv_pushf(&v, n, "%s", budget);
    lvd_strv_pushf(&v, n, "--max-samples");
    lvd_strv_pushf(&v, n, "%d", c->max_samples);
    lvd_strv_pushf(&v, n, "--min-samples");
    lvd_strv_pushf(&v, n, "%zu", min_samples);
    if (c->reps > 0) { /* unset (0): the bench's cost model chooses -r */
        lvd_strv_pushf(&v, n, "--reps");
        lvd_strv_pushf(&v, n, "%d", c->reps);
    }
    lvd_strv_pushf(&v, n, "--objective");
    lvd_strv_pushf(&v, n, "%s", c->objective);
    if (c->run_timeout) {
        lvd_strv_pushf(&v, n, "--timeout");
        lvd_strv_pushf(&v, n, "%s", c->run_timeout);
    }
    return v;
}

/* v printed into buf when on, else "" (the flag is not passed). */
static const char *num(char buf[16], int v, int on)
{
    snprintf(buf, 16, "%d", v);
    return on ? buf : "";
}

/* lvd bench's flags for the parameters of arm key (benchio/arm.h) in the
 * key's order; the device is the bench's to choose from the probe, and
 * llama.cpp's own fit (fitt, fitc) has no lvd bench flag: the bench adds
 * its fit arm itself where the engine offers -fitt. 0, or -1 when key is
 * not an arm key. */
static int arm_flags(char ***v, size_t *n, const char *key)
{
    lvd_params p;
    lvd_err err;
    if (benchio_arm_key_parse(key, &p, &err) != 0)
        return -1;
    char b[7][16];
    const char *const w[][2] = {
        {"-sm", p.split_mode},
        {"-ts", p.tensor_split},
        {"-ngl", num(b[0], p.ngl, p.ngl >= 0)},
        {"-fa", num(b[1], p.fa, p.fa >= 0)},
        {"-ub", num(b[2], p.ubatch, p.ubatch > 0)},
        {"-ctk", p.type_k},
        {"-ctv", p.type_v},
        {"-ncmoe", num(b[3], p.n_cpu_moe, p.n_cpu_moe > 0)},
        {"-t", num(b[4], p.threads, p.threads > 0)},
        {"-fmoe", num(b[5], p.fused_moe, p.fused_moe >= 0)},
        {"-rtr", num(b[6], p.repack, p.repack >= 0)},
        {"--env", p.env},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(w); i++) {
        if (!*w[i][1])
            continue;
        lvd_strv_pushf(v, n, "%s", w[i][0]);
        lvd_strv_pushf(v, n, "%s", w[i][1]);
    }
    return 0;
}

static size_t side_n(const cJSON *cmp, const char *side)
{
    double v = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cmp, side), "n"));
    return v > 0 ? (size_t)v : 0;
}

/* The config's model the store last saw artifact at, or NULL. */
static const char *model_of(store *s, const night_config *c, const char *artifact)
{
    store_artifact a;
    lvd_err err = {{0}};
    const char *found = NULL;
    if (store_artifact_get(s, artifact, &a, &err) != 0)
        return NULL;
    for (size_t i = 0; a.last_path && i < c->n_models && !found; i++)
        if (!strcmp(c->models[i], a.last_path))
            found = c->models[i];
    store_artifact_free(&a);
    return found;
}

/* One re-measurement of comparison cmp (verdict "inconclusive"). */
static int remeasure_of(store *s, const night_config *c, const char *tools_dir, const char *store_path,
                        const char *session, const cJSON *cmp, night_remeasure *r)
{
    const char *model = model_of(s, c, lvd_json_string(cmp, "artifact"));
    if (!model || stats_serve_test_kind(lvd_json_string(cmp, "test"), NULL, NULL) != STATS_SERVE_NONE)
        return -1; /* a serving test is lvd serve's, measured again by the next night's serve step */
    size_t want = 2 * (side_n(cmp, "pinned") > side_n(cmp, "candidate") ? side_n(cmp, "pinned")
                                                                          : side_n(cmp, "candidate"));
    if (want > (size_t)c->max_samples)
        want = (size_t)c->max_samples;
    stats_rule pin;
    stats_rule_pin(&pin);
    if (want < pin.min_samples)
        want = pin.min_samples;
    memset(r, 0, sizeof *r);
    char *more = lvd_xasprintf("%s-more", session);
    r->argv = night_bench_argv(c, tools_dir, store_path, model, more, 0, lvd_json_string(cmp, "test"), "0", want,
                               &r->n);
    free(more);
    lvd_strv_pushf(&r->argv, &r->n, "--engines");
    lvd_strv_pushf(&r->argv, &r->n, "%.0f,%.0f",
                   cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cmp, "pinned_engine")),
                   cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cmp, "candidate_engine")));
    if (arm_flags(&r->argv, &r->n, lvd_json_string(cmp, "arm_key")) != 0) { /* not an arm we can name */
        lvd_strv_free(r->argv);
        return -1;
    }
    r->what = lvd_xasprintf("%s on %s, %s", lvd_json_string(cmp, "test"), lvd_json_string(cmp, "backend"),
                            lvd_json_string(cmp, "params"));
    return 0;
}

/* Sets each command's --budget to its share of budget_s. */
static void share_budget(night_remeasure *v, size_t n, int64_t budget_s)
{
    int64_t each = n ? budget_s / (int64_t)n : 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k + 1 < v[i].n; k++)
            if (!strcmp(v[i].argv[k], "--budget")) {
                free(v[i].argv[k + 1]);
                v[i].argv[k + 1] = lvd_xasprintf("%llds", (long long)each);
            }
        v[i].timeout_s = (int)each + 600; /* the bench stops itself at its budget */
    }
}

size_t night_remeasures(const night_config *c, const char *tools_dir, const char *store_path, const char *session,
                        int64_t budget_s, night_remeasure **out)
{
    *out = NULL;
    store *s = NULL;
    lvd_err err = {{0}};
    lvd_pin_decision *d = NULL;
    size_t nd = 0, n = 0;
    if (budget_s < 60 || store_open(store_path, STORE_OPEN_READONLY, &s, &err) ||
        store_pin_decision_list(s, 1, &d, &nd, &err)) {
        store_close(s);
        return 0;
    }
    cJSON *j = nd && d[0].rule && !strncmp(d[0].rule, "inconclusive: ", 14) ? cJSON_Parse(d[0].details_json) : NULL;
    const cJSON *cmp;
    cJSON_ArrayForEach(cmp, cJSON_GetObjectItemCaseSensitive(j, "comparisons"))
    {
        if (strcmp(lvd_json_string(cmp, "verdict"), "inconclusive"))
            continue;
        *out = lvd_xrealloc(*out, (n + 1) * sizeof **out);
        if (remeasure_of(s, c, tools_dir, store_path, session, cmp, &(*out)[n]) == 0)
            n++;
    }
    share_budget(*out, n, budget_s);
    cJSON_Delete(j);
    store_pin_decision_list_free(d, nd);
    store_close(s);
    return n;
}

void night_remeasures_free(night_remeasure *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        lvd_strv_free(v[i].argv);
        free(v[i].what);
    }
    free(v);
}
