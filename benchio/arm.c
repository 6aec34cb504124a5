/* arm.c: canonical arm keys, written and read back (one table of their
 * fields), and reported parameters (see arm.h). */
#include "benchio/arm.h"

#include "common/util.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields of a key, in its order. */
enum { K_STR, K_INT, K_RAW }; /* K_RAW: an int always written as a number */
static const struct {
    const char *name;
    int kind;
    size_t off, size;
    int unset;        /* K_INT: the value that means "not passed" */
    int when_passed;  /* written only when passed (keys without it stay as they were) */
} fields[] = {
    {"dev", K_STR, offsetof(lvd_params, device), sizeof(((lvd_params *)0)->device), 0, 0},
    {"sm", K_STR, offsetof(lvd_params, split_mode), sizeof(((lvd_params *)0)->split_mode), 0, 1},
    {"ts", K_STR, offsetof(lvd_params, tensor_split), sizeof(((lvd_params *)0)->tensor_split), 0, 1},
    {"ngl", K_INT, offsetof(lvd_params, ngl), sizeof(int), -1, 0},
    {"fa", K_INT, offsetof(lvd_params, fa), sizeof(int), -1, 0},
    {"ub", K_INT, offsetof(lvd_params, ubatch), sizeof(int), 0, 0},
    {"ctk", K_STR, offsetof(lvd_params, type_k), sizeof(((lvd_params *)0)->type_k), 0, 0},
    {"ctv", K_STR, offsetof(lvd_params, type_v), sizeof(((lvd_params *)0)->type_v), 0, 0},
    {"ncmoe", K_INT, offsetof(lvd_params, n_cpu_moe), sizeof(int), 0, 0},
    {"t", K_INT, offsetof(lvd_params, threads), sizeof(int), 0, 0},
    {"fitt", K_INT, offsetof(lvd_params, fit_target), sizeof(int), 0, 1},
    {"fitc", K_RAW, offsetof(lvd_params, fit_ctx), sizeof(int), 0, 1}, /* with fitt only */
    {"np", K_INT, offsetof(lvd_params, parallel), sizeof(int), 0, 1},  /* a serving arm (lvd serve) */
    {"fmoe", K_INT, offsetof(lvd_params, fused_moe), sizeof(int), -1, 1}, /* ik_llama.cpp's knobs */
    {"rtr", K_INT, offsetof(lvd_params, repack), sizeof(int), -1, 1},
};

static int *int_at(lvd_params *p, size_t i)
{
    return (int *)((char *)p + fields[i].off);
}

static char *str_at(lvd_params *p, size_t i)
{
    return (char *)p + fields[i].off;
}

/* Whether field i is passed in p (fitc: when fitt is). */
static int passed(const lvd_params *p, size_t i)
{
    lvd_params *q = (lvd_params *)p;
    if (!strcmp(fields[i].name, "fitc"))
        return p->fit_target > 0;
    return fields[i].kind == K_STR ? *str_at(q, i) != '\0' : *int_at(q, i) != fields[i].unset;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int benchio_arm_key(const lvd_params *p, char *buf, size_t len)
{
    lvd_sb sb = {0};
    lvd_params *q = (lvd_params *)p;
    for (size_t i = 0; i < LVD_ARRAY_LEN(fields); i++) {
        if (fields[i].when_passed && !passed(p, i))
            continue;
        if (!passed(p, i))
            lvd_sb_addf(&sb, "%s=- ", fields[i].name);
        else if (fields[i].kind == K_STR)
            lvd_sb_addf(&sb, "%s=%s ", fields[i].name, str_at(q, i));
        else
            lvd_sb_addf(&sb, "%s=%d ", fields[i].name, *int_at(q, i));
    }
    lvd_sb_adds(&sb, "env=");
    size_t n;
    char **env = lvd_split(p->env, ' ', &n);
    qsort(env, n, sizeof *env, cmp_str);
    for (size_t i = 0; i < n; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", env[i]);
    lvd_strv_free(env);
    int ok = sb.len < len;
    snprintf(buf, len, "%s", ok ? lvd_sb_str(&sb) : "");
    lvd_sb_free(&sb);
    return ok ? 0 : -1;
}

/* Sets field NAME of p from "NAME=VALUE" word w. 0, or -1 with err. */
static int parse_word(const char *key, const char *w, lvd_params *p, lvd_err *err)
{
    const char *eq = strchr(w, '=');
    for (size_t i = 0; eq && i < LVD_ARRAY_LEN(fields); i++) {
        if (strlen(fields[i].name) != (size_t)(eq - w) || strncmp(w, fields[i].name, (size_t)(eq - w)))
            continue;
        const char *v = eq + 1;
        int64_t x;
        if (fields[i].kind == K_STR && !strcmp(v, "-"))
            *str_at(p, i) = '\0';
        else if (fields[i].kind == K_STR && *v && strlen(v) < fields[i].size)
            snprintf(str_at(p, i), fields[i].size, "%s", v);
        else if (fields[i].kind == K_INT && !strcmp(v, "-"))
            *int_at(p, i) = fields[i].unset;
        else if (fields[i].kind != K_STR && lvd_parse_i64(v, &x) == 0 && x >= -1 && x <= INT32_MAX)
            *int_at(p, i) = (int)x;
        else
            break;
        return 0;
    }
    return lvd_errf(err, "arm key '%s': '%s' is not one of its NAME=VALUE fields", key, w);
}

int benchio_arm_key_parse(const char *key, lvd_params *p, lvd_err *err)
{
    lvd_params_init(p);
    const char *env = strstr(key, "env=");
    while (env && env != key && env[-1] != ' ')
        env = strstr(env + 1, "env=");
    if (!env)
        return lvd_errf(err, "arm key '%s': no env= field", key);
    if (strlen(env + 4) >= sizeof p->env)
        return lvd_errf(err, "arm key '%s': its environment is too long", key);
    snprintf(p->env, sizeof p->env, "%s", env + 4);
    char *head = lvd_xstrndup(key, (size_t)(env - key));
    size_t n;
    char **w = lvd_split(head, ' ', &n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = parse_word(key, w[i], p, err);
    lvd_strv_free(w);
    free(head);
    return rc;
}

void benchio_params_from_result(const lvd_result *r, lvd_params *p)
{
    lvd_params_init(p);
    p->ngl = r->rep_ngl < 0 ? -1 : r->rep_ngl;
    p->fa = r->rep_fa < 0 ? -1 : r->rep_fa;
    p->ubatch = r->rep_ubatch > 0 ? r->rep_ubatch : 0;
    p->n_cpu_moe = r->rep_n_cpu_moe > 0 ? r->rep_n_cpu_moe : 0;
    p->threads = r->rep_threads > 0 ? r->rep_threads : 0;
    snprintf(p->type_k, sizeof p->type_k, "%s", r->rep_type_k);
    snprintf(p->type_v, sizeof p->type_v, "%s", r->rep_type_v);
    cJSON *o = r->reported_json ? cJSON_Parse(r->reported_json) : NULL;
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "devices");
    if (cJSON_IsString(dev) && *dev->valuestring && strcmp(dev->valuestring, "auto"))
        snprintf(p->device, sizeof p->device, "%s", dev->valuestring);
    /* llama-bench reports split_mode "layer" and tensor_split "0.00" when not
     * asked: they are parameters only of a run over several devices */
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(o, "split_mode");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "tensor_split");
    if (strchr(p->device, '/') && cJSON_IsString(sm))
        snprintf(p->split_mode, sizeof p->split_mode, "%s", sm->valuestring);
    if (strchr(p->device, '/') && cJSON_IsString(ts) && strspn(ts->valuestring, "0./") !=
                                                             strlen(ts->valuestring))
        snprintf(p->tensor_split, sizeof p->tensor_split, "%s", ts->valuestring);
    /* ik_llama.cpp reports its knobs whether given or not, as it does -ngl */
    const cJSON *fmoe = cJSON_GetObjectItemCaseSensitive(o, "fused_moe");
    const cJSON *rtr = cJSON_GetObjectItemCaseSensitive(o, "repack");
    if (cJSON_IsBool(fmoe))
        p->fused_moe = cJSON_IsTrue(fmoe);
    if (cJSON_IsBool(rtr))
        p->repack = cJSON_IsTrue(rtr);
    cJSON_Delete(o);
}
