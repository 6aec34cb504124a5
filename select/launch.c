/* launch.c: the llama-server launch line of launch.h: its checks, the env
 * array, the argv (engine/argv.h builds its words), their POSIX shell
 * quoting and their JSON. Not for running anything. */
#include "select/launch.h"

#include "bench/kvpair.h"
#include "engine/argv.h"
#include "engine/visibility.h"
#include "placement/placement.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

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
static int parse_env(const char *spec, char ***env, size_t *n_env, lvd_err *err)
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
        lvd_strv_push(env, n_env, lvd_xstrndup(s, n));
        s += n;
    }
    return 0;
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
        p->threads < 0 || p->parallel < 0 || p->fused_moe < -1 || p->fused_moe > 1 || p->repack < -1 ||
        p->repack > 1)
        return lvd_errf(err, "%s: launch parameters out of range (ngl %d, fa %d, ubatch %d, "
                             "n_cpu_moe %d, threads %d, fmoe %d, rtr %d)", engine_dir, p->ngl, p->fa, p->ubatch,
                        p->n_cpu_moe, p->threads, p->fused_moe, p->repack);
    if ((p->type_k[0] && placement_cache_type_size(p->type_k, &be, &bb, err) != 0) ||
        (p->type_v[0] && placement_cache_type_size(p->type_v, &be, &bb, err) != 0))
        return -1;
    return bench_kv_check_fa(p->type_v, p->fa, err); /* llama-server would refuse it */
}

int sel_launch_build(const char *engine_dir, const char *flags, const char *model, const lvd_params *p,
                     uint32_t ctx, int gpu_capable, sel_launch *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_params(engine_dir, model, p, err) != 0)
        return -1;
    if (parse_env(p->env, &out->env, &out->n_env, err) != 0) {
        sel_launch_free(out);
        return -1;
    }
    lvd_strv_finish(&out->env);
    size_t dl = strlen(engine_dir);
    while (dl > 1 && engine_dir[dl - 1] == '/')
        dl--;
    char *binary = lvd_xasprintf("%.*s/llama-server", (int)dl, engine_dir);
    engine_help help;
    engine_help_load(flags, &help);
    engine_run r = {.kind = ENGINE_RUN_SERVER, .binary = binary, .model = model, .params = *p,
                    .help = flags ? &help : NULL, .ctx = ctx, .gpu = gpu_capable};
    engine_argv cmd;
    int rc = engine_argv_build(&r, &cmd, err);
    free(binary);
    engine_help_free(&help);
    if (rc != 0) {
        sel_launch_free(out);
        return -1;
    }
    out->argv = cmd.argv;
    out->argc = cmd.argc;
    out->left_out = cmd.note;
    return 0;
}

int sel_launch_carry_env(sel_launch *l, const char *probe_env, const char *backend)
{
    char **add = NULL;
    size_t n_add = 0;
    lvd_err err;
    char *vis = engine_visibility_for_device(probe_env, backend);
    int bad = parse_env(vis, &add, &n_add, &err);
    free(vis);
    if (bad) {
        lvd_strv_free(add);
        return -1;
    }
    for (size_t i = 0; i < n_add; i++) {
        size_t name = strcspn(add[i], "=") + 1; /* "NAME=" */
        int have = 0;
        for (size_t k = 0; k < l->n_env && !have; k++)
            have = strncmp(l->env[k], add[i], name) == 0;
        if (have) {
            free(add[i]);
        } else {
            lvd_strv_push(&l->env, &l->n_env, add[i]);
        }
    }
    free(add);
    return 0;
}

void sel_launch_free(sel_launch *l)
{
    if (!l)
        return;
    lvd_strv_free(l->argv);
    lvd_strv_free(l->env);
    free(l->left_out);
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

struct cJSON *sel_launch_to_json(const sel_launch *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "argv", cJSON_CreateStringArray((const char *const *)l->argv, (int)l->argc));
    cJSON_AddItemToObject(o, "env", cJSON_CreateStringArray((const char *const *)l->env, (int)l->n_env));
    return o;
}
