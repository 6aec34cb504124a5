/* json.c: the shared cJSON value helpers (see json.h). */
#include "common/json.h"

#include <cjson/cJSON.h>
#include <math.h>

cJSON *lvd_json_num(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *lvd_json_str(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *lvd_json_text(const char *s)
{
    return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}
