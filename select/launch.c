/* launch.c: the llama-server launch line of launch.h: argv and env arrays,
 * their POSIX shell quoting and their JSON. Not for running anything. */
#include "select/launch.h"

#include "bench/kvpair.h"
#include "engine/visibility.h"
#include "placement/placement.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

/* A NULL-terminated array of strings (common/util.h: lvd_strv_push). */
typedef struct strv {
    char **v;
    size_t n;
} strv;

static void strv_push(strv *s, char *owned)
{
    lvd_strv_push(&s->v, &s->n, owned);
}

/* The array itself, never NULL (an empty one holds just the terminator). */
static char **strv_finish(strv *s)
{
    if (!s->v)
        s->v = lvd_xcalloc(1, sizeof *s->v);
    return s->v;
}

static void push_flag(strv *a, const char *flag, const char *value)
{
    strv_push(a, lvd_xstrdup(flag));
    strv_push(a, lvd_xstrdup(value));
}

static void push_int(strv *a, const char *flag, long value)
{
    strv_push(a, lvd_xstrdup(flag));
    strv_push(a, lvd_xasprintf("%ld", value));
}

static int is_env_name(const char *s, size_t n)
{
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

/* "K=V K2=V2" (spaces or tabs between) into NAME=VALUE words. */
static int parse_env(const char *spec, strv *env, lvd_err *err)
{
    const char *s = spec;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        size_t n = strcspn(s, " \t");
        const char *eq = memchr(s, '=', n);
        if (!eq || !is_env_name(s, (size_t)(eq - s)))
            return lvd_errf(err, "environment '%.*s' is not NAME=VALUE", (int)n, s);
        strv_push(env, lvd_xstrndup(s, n));
        s += n;
    }
    return 0;
}

/* llama-bench separates devices and split fractions by '/', llama-server by
 * ',' (tests/fixtures/llama.cpp/cpu-build-b9749/{bench,server}-help.stdout):
 * the stored form is llama-bench's, the launch line llama-server's. */
static void push_server_list(strv *a, const char *flag, const char *bench_list)
{
    char *v = lvd_xstrdup(bench_list);
    for (char *c = v; *c; c++)
        if (*c == '/')
            *c = ',';
    push_flag(a, flag, v);
    free(v);
}

static int check_params(const char *engine_dir, const char *model, const lvd_params *p,
                        lvd_err *err)
{
    uint32_t be, bb;
    if (!engine_dir || !*engine_dir)
        return lvd_errf(err, "launch line: no engine directory");
    if (!model || !*model)
        return lvd_errf(err, "%s: launch line without a model", engine_dir);
    if (p->ngl < -1 || p->fa < -1 || p->fa > 1 || p->ubatch < 0 || p->n_cpu_moe < 0 ||
        p->threads < 0 || p->parallel < 0)
        return lvd_errf(err, "%s: launch parameters out of range (ngl %d, fa %d, ubatch %d, "
                             "n_cpu_moe %d, threads %d)", engine_dir, p->ngl, p->fa, p->ubatch,
                        p->n_cpu_moe, p->threads);
    if ((p->type_k[0] && placement_cache_type_size(p->type_k, &be, &bb, err) != 0) ||
        (p->type_v[0] && placement_cache_type_size(p->type_v, &be, &bb, err) != 0))
        return -1;
    return bench_kv_check_fa(p->type_v, p->fa, err); /* llama-server would refuse it */
}

int sel_launch_build(const char *engine_dir, const char *model, const lvd_params *p,
                     uint32_t ctx, int gpu_capable, sel_launch *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_params(engine_dir, model, p, err) != 0)
        return -1;
    strv env = {0};
    if (parse_env(p->env, &env, err) != 0) {
        lvd_strv_free(env.v);
        return -1;
    }
    strv a = {0};
    size_t dl = strlen(engine_dir);
    while (dl > 1 && engine_dir[dl - 1] == '/')
        dl--;
    strv_push(&a, lvd_xasprintf("%.*s/llama-server", (int)dl, engine_dir));
    push_flag(&a, "-m", model);
    if (gpu_capable) {
        if (p->device[0])
            push_server_list(&a, "--device", p->device);
        if (p->split_mode[0])
            push_flag(&a, "-sm", p->split_mode);
        if (p->tensor_split[0])
            push_server_list(&a, "-ts", p->tensor_split);
        if (p->ngl >= 0)
            push_int(&a, "-ngl", p->ngl);
        if (p->n_cpu_moe > 0)
            push_int(&a, "--n-cpu-moe", p->n_cpu_moe);
        if (p->fit_target > 0) { /* llama.cpp's own fit, as the arm measured it */
            push_flag(&a, "--fit", "on");
            push_int(&a, "-fitt", p->fit_target);
        }
        if (p->fit_target > 0 && p->fit_ctx > 0)
            push_int(&a, "-fitc", p->fit_ctx);
    }
    if (p->ubatch > 0)
        push_int(&a, "-ub", p->ubatch);
    if (p->fa >= 0)
        push_flag(&a, "-fa", p->fa ? "on" : "off");
    if (p->type_k[0])
        push_flag(&a, "-ctk", p->type_k);
    if (p->type_v[0])
        push_flag(&a, "-ctv", p->type_v);
    if (p->threads > 0)
        push_int(&a, "-t", p->threads);
    if (ctx > 0)
        push_int(&a, "-c", (long)ctx);
    if (p->parallel > 0) /* a serving verdict's slots (lvd serve measured them) */
        push_int(&a, "-np", p->parallel);
    out->argv = strv_finish(&a);
    out->argc = a.n;
    out->env = strv_finish(&env);
    out->n_env = env.n;
    return 0;
}

int sel_launch_carry_env(sel_launch *l, const char *probe_env, const char *backend)
{
    strv add = {0};
    lvd_err err;
    char *vis = engine_visibility_for_device(probe_env, backend);
    int bad = parse_env(vis, &add, &err);
    free(vis);
    if (bad) {
        lvd_strv_free(add.v);
        return -1;
    }
    for (size_t i = 0; i < add.n; i++) {
        size_t name = strcspn(add.v[i], "=") + 1; /* "NAME=" */
        int have = 0;
        for (size_t k = 0; k < l->n_env && !have; k++)
            have = strncmp(l->env[k], add.v[i], name) == 0;
        if (have) {
            free(add.v[i]);
        } else {
            lvd_strv_push(&l->env, &l->n_env, add.v[i]);
        }
    }
    free(add.v);
    return 0;
}

void sel_launch_free(sel_launch *l)
{
    if (!l)
        return;
    lvd_strv_free(l->argv);
    lvd_strv_free(l->env);
    memset(l, 0, sizeof *l);
}

char *sel_launch_to_shell(const sel_launch *l)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < l->n_env; i++) {
        const char *eq = strchr(l->env[i], '=');
        lvd_sb_add(&sb, l->env[i], (size_t)(eq - l->env[i]) + 1);
        lvd_shell_quote(&sb, eq + 1);
        lvd_sb_addc(&sb, ' ');
    }
    for (size_t i = 0; i < l->argc; i++) {
        if (i)
            lvd_sb_addc(&sb, ' ');
        if (i == 0 && strchr(l->argv[i], '='))
            lvd_shell_quote_always(&sb, l->argv[i]);
        else
            lvd_shell_quote(&sb, l->argv[i]);
    }
    return lvd_sb_detach(&sb);
}

static cJSON *string_array(char **v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
    return arr;
}

struct cJSON *sel_launch_to_json(const sel_launch *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "argv", string_array(l->argv, l->argc));
    cJSON_AddItemToObject(o, "env", string_array(l->env, l->n_env));
    return o;
}
