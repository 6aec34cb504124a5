/* arm.c: canonical arm keys and reported parameters (see arm.h). */
#include "bench/arm.h"

#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_int(lvd_sb *sb, const char *flag, int v, int not_passed)
{
    if (v == not_passed)
        lvd_sb_addf(sb, "%s=- ", flag);
    else
        lvd_sb_addf(sb, "%s=%d ", flag, v);
}

static void add_str(lvd_sb *sb, const char *flag, const char *v)
{
    lvd_sb_addf(sb, "%s=%s ", flag, *v ? v : "-");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int bench_arm_key(const lvd_params *p, char *buf, size_t len)
{
    lvd_sb sb = {0};
    add_str(&sb, "dev", p->device);
    /* only when passed: the keys of single-device arms stay what they were */
    if (*p->split_mode)
        add_str(&sb, "sm", p->split_mode);
    if (*p->tensor_split)
        add_str(&sb, "ts", p->tensor_split);
    add_int(&sb, "ngl", p->ngl, -1);
    add_int(&sb, "fa", p->fa, -1);
    add_int(&sb, "ub", p->ubatch, 0);
    add_str(&sb, "ctk", p->type_k);
    add_str(&sb, "ctv", p->type_v);
    add_int(&sb, "ncmoe", p->n_cpu_moe, 0);
    add_int(&sb, "t", p->threads, 0);
    if (p->fit_target > 0) /* only then: keys of every other arm stay as they were */
        lvd_sb_addf(&sb, "fitt=%d fitc=%d ", p->fit_target, p->fit_ctx);
    if (p->parallel > 0) /* a serving arm (lvd serve): llama-bench arms' keys stay as they were */
        lvd_sb_addf(&sb, "np=%d ", p->parallel);
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

void bench_params_from_result(const lvd_result *r, lvd_params *p)
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
    cJSON_Delete(o);
}
