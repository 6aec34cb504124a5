/* json.c: the shared cJSON value helpers (see json.h). */
#include "common/json.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

cJSON *lvd_json_num(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *lvd_json_num_if(int known, double v)
{
    return known ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *lvd_json_str(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *lvd_json_text(const char *s)
{
    return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *lvd_json_strings(char *const *v, size_t n)
{
    if (n == 0) /* v may be NULL: cJSON_CreateStringArray would give NULL, not [] */
        return cJSON_CreateArray();
    return cJSON_CreateStringArray((const char *const *)v, (int)n);
}

cJSON *lvd_json_strv(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return lvd_json_strings(v, n);
}

const char *lvd_json_string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

char *lvd_json_compact(cJSON *v)
{
    char *text = cJSON_PrintUnformatted(v);
    cJSON_Delete(v);
    if (!text) { /* cJSON's allocation failed */
        fputs("llama-verdict: out of memory printing JSON\n", stderr);
        abort();
    }
    char *out = lvd_xstrdup(text);
    cJSON_free(text);
    return out;
}
