/* family.c: an engine's family from its words, and its build tag (see
 * family.h). Pure: nothing is run here. */
#include "engine/family.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define IK_TAG "ik"
#define MAINLINE_WORD "--list-devices"

/* ik_llama.cpp's own knobs, as its llama-bench, llama-server and
 * llama-perplexity list them (none of them is mainline's). */
static const char *const ik_flags[] = {"-fmoe", "--fused-moe", "-no-fmoe", "--no-fused-moe", "-rtr",
                                       "--run-time-repack", "-mla", "--mla-use", "-ser",
                                       "--smart-expert-reduction"};

/* ik_llama.cpp llama-bench's JSON fields of its own knobs. */
static const char *const ik_fields[] = {"fused_moe", "rtr", "mla_attn", "ser"};

int engine_family_word(const char *name)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(ik_flags); i++)
        if (!strcmp(name, ik_flags[i]))
            return 1;
    return !strcmp(name, MAINLINE_WORD);
}

const char *engine_family_detect(const engine_help *h, const engine_version *v)
{
    for (int t = 0; h && t < ENGINE_TOOL_COUNT; t++)
        for (size_t i = 0; i < LVD_ARRAY_LEN(ik_flags); i++)
            if (engine_help_opt(h, (engine_tool)t, ik_flags[i]))
                return LVD_FAMILY_IK;
    if (v && v->form)
        return LVD_FAMILY_MAINLINE;
    for (int t = 0; h && t < ENGINE_TOOL_COUNT; t++) /* mainline's llama-bench and llama-server, b6522 on */
        if (engine_help_opt(h, (engine_tool)t, MAINLINE_WORD))
            return LVD_FAMILY_MAINLINE;
    return LVD_FAMILY_UNKNOWN;
}

int engine_family_bench_json_ik(const cJSON *row)
{
    if (!cJSON_IsObject(row) || cJSON_GetObjectItemCaseSensitive(row, "backends"))
        return 0;
    for (size_t i = 0; i < LVD_ARRAY_LEN(ik_fields); i++)
        if (cJSON_GetObjectItemCaseSensitive(row, ik_fields[i]))
            return 1;
    return 0;
}

void engine_family_tag(const char *family, int64_t number, char *buf, size_t len)
{
    if (!strcmp(family, LVD_FAMILY_IK))
        snprintf(buf, len, IK_TAG "%" PRId64, number);
    else if (!strcmp(family, LVD_FAMILY_MAINLINE))
        snprintf(buf, len, "b%" PRId64, number);
    else if (len)
        buf[0] = '\0';
}

void engine_family_describe(const lvd_engine *e, char *buf, size_t len)
{
    const char *family = lvd_engine_family(e), *build = e->build ? e->build : "?";
    if (!strcmp(family, LVD_FAMILY_IK))
        snprintf(buf, len, "%s build %s", family,
                 !strncmp(build, IK_TAG, strlen(IK_TAG)) ? build + strlen(IK_TAG) : build);
    else if (!strcmp(family, LVD_FAMILY_MAINLINE))
        snprintf(buf, len, "%s %s", family, build);
    else
        snprintf(buf, len, "unknown fork, build %s", build);
}
