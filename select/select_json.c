/* select_json.c: a selection result as `lvd select --json` prints it (see
 * sel_result_json in select.h): rule, engine, device, placement, argv, env
 * and the explain lines. Not for making the selection (select.c) or for the
 * launch line itself (launch.c). */
#include "select/select.h"

#include "common/json.h"
#include "select/launch.h"
#include "placement/placement.h"

#include <cjson/cJSON.h>

static cJSON *placement_json(const sel_result *r)
{
    if (!r->placed)
        return cJSON_CreateNull();
    const placement_result *pl = &r->placement;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rung", placement_rung_name(pl->rung));
    cJSON_AddNumberToObject(o, "ngl", r->params.ngl);
    cJSON_AddNumberToObject(o, "n_cpu_moe", r->params.n_cpu_moe);
    cJSON_AddNumberToObject(o, "ubatch", pl->ubatch);
    cJSON_AddNumberToObject(o, "ctx", pl->ctx);
    cJSON_AddNumberToObject(o, "bytes", (double)pl->bytes);
    cJSON_AddNumberToObject(o, "margin", (double)pl->margin_bytes);
    cJSON_AddStringToObject(o, "reason", pl->reason);
    return o;
}

cJSON *sel_result_json(const sel_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rule", sel_by_name(r->by));
    cJSON_AddStringToObject(o, "engine", r->engine.name ? r->engine.name : "");
    cJSON_AddNumberToObject(o, "engine_id", (double)r->engine.id);
    cJSON_AddStringToObject(o, "build", r->engine.build ? r->engine.build : "");
    cJSON_AddStringToObject(o, "backend", r->backend);
    if (r->device.selector[0]) {
        cJSON_AddStringToObject(o, "device", r->device.selector);
        cJSON_AddStringToObject(o, "device_name", r->device.name);
    } else {
        cJSON_AddNullToObject(o, "device");
        cJSON_AddNullToObject(o, "device_name");
    }
    cJSON_AddStringToObject(o, "model", r->model ? r->model : "");
    cJSON_AddNumberToObject(o, "ctx", r->ctx);
    cJSON_AddItemToObject(o, "verdict_id", lvd_json_num_if(r->verdict_id != 0, (double)r->verdict_id));
    cJSON_AddItemToObject(o, "placement", placement_json(r));
    cJSON *l = sel_launch_to_json(&r->launch);
    cJSON_AddItemToObject(o, "argv", cJSON_DetachItemFromObject(l, "argv"));
    cJSON_AddItemToObject(o, "env", cJSON_DetachItemFromObject(l, "env"));
    cJSON_Delete(l);
    cJSON *ex = cJSON_AddArrayToObject(o, "explain");
    for (size_t i = 0; i < r->n_explain; i++)
        cJSON_AddItemToArray(ex, cJSON_CreateString(r->explain[i]));
    return o;
}
