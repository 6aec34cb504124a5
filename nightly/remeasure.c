/* remeasure.c: the nightly's lvd bench command lines (see remeasure.h). Not
 * for running them (nightly.c) or deciding anything (select/pin.c). */
#include "nightly/remeasure.h"

#include "stats/serving.h"

#include "common/json.h"
#include "stats/stats.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(char ***v, size_t *n, const char *s)
{
    lvd_strv_push(v, n, lvd_xstrdup(s));
}

/* flag and its value */
static void push2(char ***v, size_t *n, const char *flag, char *value)
{
    push(v, n, flag);
    lvd_strv_push(v, n, value);
}

char **night_bench_argv(const night_config *c, const char *tools_dir, const char *store_path, const char *model,
                        const char *session, int resume, const char *tests, const char *budget,
                        size_t min_samples, size_t *n)
{
    char **v = NULL;
    *n = 0;
    lvd_strv_push(&v, n, lvd_xasprintf("%s/lvd-bench", tools_dir));
    const char *words[] = {"--store", store_path, "--model", model, "--session", session};
    for (size_t i = 0; i < LVD_ARRAY_LEN(words); i++)
        push(&v, n, words[i]);
    if (resume)
        push(&v, n, "--resume");
    push2(&v, n, "--tests", lvd_xstrdup(tests));
    if (c->ctx >= 0) { /* measured at the context it serves (bench/depth.h) */
        push2(&v, n, "--ctx", lvd_xasprintf("%d", c->ctx));
    }
    if (c->depth) {
        push2(&v, n, "--depth", lvd_xstrdup(c->depth));
    }
    push2(&v, n, "--budget", lvd_xstrdup(budget));
    push2(&v, n, "--max-samples", lvd_xasprintf("%d", c->max_samples));
    push2(&v, n, "--min-samples", lvd_xasprintf("%zu", min_samples));
    if (c->reps > 0) { /* unset (0): the bench's cost model chooses -r */
        push2(&v, n, "--reps", lvd_xasprintf("%d", c->reps));
    }
    push2(&v, n, "--objective", lvd_xstrdup(c->objective));
    if (c->run_timeout) {
        push2(&v, n, "--timeout", lvd_xstrdup(c->run_timeout));
    }
    return v;
}

/* lvd bench's flags for the parameters of arm key ("dev=- ngl=99 fa=1 ub=-
 * ... env=K=V"); the device is the bench's to choose from the probe. */
static void arm_flags(char ***v, size_t *n, const char *key)
{
    static const char *const flag[][2] = {{"ngl=", "-ngl"}, {"fa=", "-fa"},    {"ub=", "-ub"},
                                          {"ctk=", "-ctk"}, {"ctv=", "-ctv"},  {"ncmoe=", "-ncmoe"},
                                          {"t=", "-t"},     {"sm=", "-sm"},    {"ts=", "-ts"}};
    const char *env = strstr(key, "env=");
    char *head = lvd_xstrndup(key, env ? (size_t)(env - key) : strlen(key));
    size_t nt;
    char **tok = lvd_split(head, ' ', &nt);
    for (size_t i = 0; i < nt; i++)
        for (size_t k = 0; k < LVD_ARRAY_LEN(flag); k++) {
            size_t len = strlen(flag[k][0]);
            if (!strncmp(tok[i], flag[k][0], len) && tok[i][len] && strcmp(tok[i] + len, "-")) {
                push2(v, n, flag[k][1], lvd_xstrdup(tok[i] + len));
            }
        }
    lvd_strv_free(tok);
    free(head);
    if (env && env[4]) {
        push2(v, n, "--env", lvd_xstrdup(env + 4));
    }
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
    push2(&r->argv, &r->n, "--engines",
          lvd_xasprintf("%.0f,%.0f", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cmp, "pinned_engine")),
                        cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cmp, "candidate_engine"))));
    arm_flags(&r->argv, &r->n, lvd_json_string(cmp, "arm_key"));
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
