/* visibility.c: the device-visibility variables, their canonical record and
 * the rule of which a device needs (see visibility.h). Not for running
 * anything. */
#include "engine/visibility.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What llama.cpp's backends (through their runtimes) read to decide which
 * devices exist and in which order: CUDA's programming guide, ROCm's GPU
 * isolation page, ggml-vulkan.cpp, the Vulkan loader's driver selection,
 * oneAPI's and Level Zero's documentation. */
static const engine_visibility_var vars[] = {
    {"CUDA_VISIBLE_DEVICES", "cuda,rocm",
     "CUDA runtime (and HIP on AMD): device indices or UUIDs exposed, in that order; set and empty hides all"},
    {"CUDA_DEVICE_ORDER", "cuda", "CUDA runtime: FASTEST_FIRST (default) or PCI_BUS_ID: which device is CUDA0"},
    {"HIP_VISIBLE_DEVICES", "rocm", "HIP runtime: device indices exposed to HIP"},
    {"ROCR_VISIBLE_DEVICES", "rocm", "ROCm runtime: device indices or UUIDs exposed to every ROCm program"},
    {"GPU_DEVICE_ORDINAL", "rocm", "ROCclr (HIP and OpenCL): device indices exposed"},
    {"GGML_VK_VISIBLE_DEVICES", "vulkan",
     "llama.cpp's Vulkan backend: Vulkan device indices used, in that order; CPU-type devices "
     "(lavapipe) only when listed"},
    {"VK_DRIVER_FILES", "vulkan", "Vulkan loader: the drivers (ICD manifests) loaded"},
    {"VK_ICD_FILENAMES", "vulkan", "Vulkan loader: the older name of VK_DRIVER_FILES"},
    {"ONEAPI_DEVICE_SELECTOR", "sycl", "oneAPI runtime: backend:device filter (level_zero:0)"},
    {"ZE_AFFINITY_MASK", "sycl", "Level Zero: devices and sub-devices exposed"},
    {"ZES_ENABLE_SYSMAN", "sycl", "Level Zero Sysman: lets the SYCL backend report free memory"},
};

const engine_visibility_var *engine_visibility_vars(size_t *n)
{
    *n = LVD_ARRAY_LEN(vars);
    return vars;
}

static const engine_visibility_var *find_var(const char *name, size_t len)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(vars); i++)
        if (strlen(vars[i].name) == len && strncmp(vars[i].name, name, len) == 0)
            return &vars[i];
    return NULL;
}

char *engine_visibility_current(void)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < LVD_ARRAY_LEN(vars); i++) {
        const char *v = getenv(vars[i].name);
        if (v)
            lvd_sb_addf(&sb, "%s%s=%s", sb.len ? " " : "", vars[i].name, v);
    }
    return lvd_sb_detach(&sb);
}

int engine_visibility_needs(const char *name, const char *backend)
{
    const engine_visibility_var *v = find_var(name, strlen(name));
    if (!v || !backend || !*backend)
        return 0;
    size_t n;
    char **bs = lvd_split(v->backends, ',', &n);
    int needs = 0;
    for (size_t i = 0; i < n && !needs; i++)
        needs = strcmp(bs[i], backend) == 0;
    lvd_strv_free(bs);
    return needs;
}

/* The value record env gives variable var (NULL when unset there). */
static char *value_in(const char *env, const char *var)
{
    size_t n;
    char **w = lvd_split(env ? env : "", ' ', &n);
    char *val = NULL;
    size_t len = strlen(var);
    for (size_t i = 0; i < n && !val; i++)
        if (strncmp(w[i], var, len) == 0 && w[i][len] == '=')
            val = lvd_xstrdup(w[i] + len + 1);
    lvd_strv_free(w);
    return val;
}

char *engine_visibility_for_device(const char *env, const char *backend)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < LVD_ARRAY_LEN(vars); i++) {
        if (!engine_visibility_needs(vars[i].name, backend))
            continue;
        char *val = value_in(env, vars[i].name);
        if (val)
            lvd_sb_addf(&sb, "%s%s=%s", sb.len ? " " : "", vars[i].name, val);
        free(val);
    }
    return lvd_sb_detach(&sb);
}

char *engine_visibility_apply(const char *env, const char *assignments)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < LVD_ARRAY_LEN(vars); i++) {
        char *val = value_in(assignments, vars[i].name);
        if (!val)
            val = value_in(env, vars[i].name);
        if (val)
            lvd_sb_addf(&sb, "%s%s=%s", sb.len ? " " : "", vars[i].name, val);
        free(val);
    }
    return lvd_sb_detach(&sb);
}

/* 1 when words (n of them) hold an assignment to the name of word w. */
static int assigns_same(char **words, size_t n, const char *w)
{
    size_t len = strcspn(w, "=");
    for (size_t i = 0; i < n; i++)
        if (strncmp(words[i], w, len) == 0 && words[i][len] == '=')
            return 1;
    return 0;
}

int engine_env_merge(const char *base, const char *over, char *buf, size_t len)
{
    size_t nb, no;
    char **b = lvd_split(base ? base : "", ' ', &nb), **o = lvd_split(over ? over : "", ' ', &no);
    lvd_sb sb = {0};
    for (size_t i = 0; i < nb; i++)
        if (!assigns_same(o, no, b[i]))
            lvd_sb_addf(&sb, "%s%s", sb.len ? " " : "", b[i]);
    for (size_t i = 0; i < no; i++)
        lvd_sb_addf(&sb, "%s%s", sb.len ? " " : "", o[i]);
    int ok = sb.len < len;
    snprintf(buf, len, "%s", ok ? lvd_sb_str(&sb) : "");
    lvd_sb_free(&sb);
    lvd_strv_free(b);
    lvd_strv_free(o);
    return ok ? 0 : -1;
}

void engine_visibility_describe(const char *env, char *buf, size_t len)
{
    if (!env)
        snprintf(buf, len, "not recorded (probed before environments were recorded)");
    else if (!*env)
        snprintf(buf, len, "no device-visibility variable set");
    else
        snprintf(buf, len, "%s", env);
}

cJSON *engine_visibility_json(const char *env)
{
    if (!env)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    size_t n;
    char **w = lvd_split(env, ' ', &n);
    for (size_t i = 0; i < n; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq)
            continue;
        *eq = '\0';
        cJSON_AddStringToObject(o, w[i], eq + 1);
    }
    lvd_strv_free(w);
    return o;
}
