/* arms.c: the launch lines lvd serve measures (see arms.h). */
#include "serve/arms.h"

#include "common/cli.h"
#include "common/json.h"
#include "select/armset.h"
#include "select/choice.h"
#include "select/verdict.h"
#include "serve/server.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy of a NULL-terminated array of n strings, with -m's value model
 * (when model is not NULL). */
static char **copy_words(char *const *v, size_t n, const char *model)
{
    char **out = NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        lvd_strv_push(&out, &k, lvd_xstrdup(model && i > 0 && !strcmp(v[i - 1], "-m") ? model : v[i]));
    if (!out)
        out = lvd_xcalloc(1, sizeof *out);
    return out;
}

static serve_arm *push_arm(serve_arm **arms, size_t *n)
{
    *arms = lvd_xrealloc(*arms, (*n + 1) * sizeof **arms);
    serve_arm *a = &(*arms)[(*n)++];
    memset(a, 0, sizeof *a);
    return a;
}

/* The parts every arm shares: the line's words, its shell line, --metrics. */
static void arm_line(serve_arm *x, const sel_launch *l, const char *model)
{
    x->argv = copy_words(l->argv, l->argc, model);
    x->env = copy_words(l->env, l->n_env, NULL);
    sel_launch shown = {.argv = x->argv, .argc = l->argc, .env = x->env, .n_env = l->n_env};
    x->line = sel_launch_to_shell(&shown);
    x->metrics = serve_server_has_flag(x->argv[0], "--metrics");
    x->params.parallel = 0;
}

int serve_arms_selected(store *s, const store_artifact *a, const sel_request *rq, serve_arm **arms, size_t *n,
                        int *exit_code, lvd_err *err)
{
    *arms = NULL;
    *n = 0;
    sel_result r = {0};
    if (sel_select(s, a, rq, &r, exit_code, err) != 0) {
        sel_result_free(&r);
        return -1;
    }
    serve_arm *x = push_arm(arms, n);
    x->engine_id = r.engine.id;
    x->engine = lvd_xstrdup(r.engine.name);
    x->build = lvd_xstrdup(r.engine.build);
    snprintf(x->backend, sizeof x->backend, "%s", r.backend);
    x->params = r.params;
    arm_line(x, &r.launch, NULL);
    x->from = lvd_xasprintf("lvd select (rule %s)", sel_by_name(r.by));
    sel_result_free(&r);
    return 0;
}

/* The params of arm (engine_id, arm_key) in its newest session. 0, 1 none, -1 store. */
static int arm_params(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                      lvd_params *p, lvd_err *err)
{
    sel_armset set;
    if (sel_armset_load(s, artifact, host, engine_id, arm_key, &set, err) != 0)
        return -1;
    int rc = set.n ? 0 : 1;
    if (set.n)
        *p = set.v[0].params;
    sel_armset_free(&set);
    return rc;
}

/* Adds the arm of one ranked entry of the verdict's statistics. 0 added,
 * 1 skipped (no line), -1 store. */
static int add_leading(store *s, const store_artifact *a, const char *host, const char *model, const cJSON *j,
                       const char *session, size_t rank, serve_arm **arms, size_t *n, lvd_err *err)
{
    int64_t id = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "engine_id"));
    const char *key = lvd_json_string(j, "arm_key");
    lvd_params p;
    int rc = arm_params(s, a->sha256, host, id, key, &p, err);
    if (rc != 0)
        return rc;
    sel_choice_lines c;
    rc = sel_choice_lines_load(s, a, host, id, key, &p, NULL, &c, err);
    if (rc == -1)
        return -1;
    int added = rc == 0 && c.launch.argc > 0;
    if (added) {
        serve_arm *x = push_arm(arms, n);
        x->engine_id = id;
        x->engine = lvd_xstrdup(c.engine ? c.engine : "");
        lvd_engine e = {0};
        int got = store_engine_get(s, id, &e, err) == 0;
        x->build = lvd_xstrdup(got ? e.build : "");
        if (got)
            lvd_engine_free(&e);
        snprintf(x->backend, sizeof x->backend, "%s", c.backend);
        x->params = c.params;
        arm_line(x, &c.launch, model);
        x->from = lvd_xasprintf("leading arm %zu of session %s", rank, session);
    }
    sel_choice_lines_free(&c);
    return added ? 0 : 1;
}

int serve_arms_leading(store *s, const store_artifact *a, const char *host, const char *model, size_t k,
                       serve_arm **arms, size_t *n, int *exit_code, lvd_err *err)
{
    *arms = NULL;
    *n = 0;
    sel_verdict_opts vo;
    sel_verdict_opts_init(&vo);
    vo.host = host;
    lvd_verdict v;
    int rc = sel_verdict_compute(s, a->sha256, &vo, &v, err);
    if (rc != 0) {
        *exit_code = rc > 0 ? LVD_EXIT_FAIL : LVD_EXIT_STORE;
        return -1;
    }
    cJSON *j = cJSON_Parse(v.stats_json ? v.stats_json : "");
    const char *session = lvd_json_string(j, "session");
    const cJSON *e;
    size_t rank = 0;
    rc = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "arms"))
    {
        if (rc < 0 || *n >= k || cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "rank")) < 1 ||
            !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "eligible")))
            continue;
        rc = add_leading(s, a, host, model, e, *session ? session : "(none)", ++rank, arms, n, err) < 0 ? -1 : 0;
    }
    cJSON_Delete(j);
    lvd_verdict_free(&v);
    if (rc == 0 && *n)
        return 0;
    if (rc == 0)
        lvd_errf(err, "%.12s on %s: no ranked arm of the newest bench session has a launch line (run lvd bench, or "
                 "serve the line lvd select prints: --arms select)", a->sha256, host ? host : lvd_hostname());
    *exit_code = rc == 0 ? LVD_EXIT_FAIL : LVD_EXIT_STORE;
    serve_arms_free(*arms, *n);
    *arms = NULL;
    *n = 0;
    return -1;
}

int serve_arms_url(const char *url, serve_arm **arms, size_t *n, lvd_err *err)
{
    *arms = NULL;
    *n = 0;
    if (!lvd_starts_with(url, "http://") || !url[7] || strlen(url) > 200 || strpbrk(url, " \t\n"))
        return lvd_errf(err, "--url '%s': want http://HOST:PORT of a running llama-server", url);
    serve_arm *x = push_arm(arms, n);
    size_t len = strlen(url);
    while (len > 7 && url[len - 1] == '/')
        len--;
    x->url = lvd_xstrndup(url, len);
    x->engine = lvd_xstrdup("");
    x->build = lvd_xstrdup("");
    lvd_params_init(&x->params);
    x->line = lvd_xstrdup(x->url);
    x->from = lvd_xasprintf("the server running at %s", x->url);
    x->metrics = 1;
    return 0;
}

void serve_arms_free(serve_arm *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].engine);
        free(v[i].build);
        lvd_strv_free(v[i].argv);
        lvd_strv_free(v[i].env);
        free(v[i].line);
        free(v[i].from);
        free(v[i].url);
    }
    free(v);
}
