/* render.c: the result of a selection and how lvd select prints it (see
 * render.h): the result filled from the decision and its launch line, the
 * shell line with its '# ' comments, and the JSON. Reads nothing and
 * decides nothing. Not for the launch line's own quoting (launch.c). */
#include "select/render.h"

#include "common/cli.h"
#include "common/json.h"
#include "placement/placement.h"
#include "select/heuristic.h"
#include "select/launch.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

void sel_render(const sel_decision *d, sel_choice_lines *l, sel_explain *x, sel_result *out)
{
    memset(out, 0, sizeof *out);
    out->by = d->by;
    out->model = l->model;
    l->model = NULL;
    lvd_engine_copy(&out->engine, &d->pick.eng->e);
    sel_device_label(d->pick.dev, out->backend, sizeof out->backend);
    if (d->pick.dev)
        out->device = *d->pick.dev;
    out->verdict_id = d->verdict ? d->verdict->id : 0;
    out->placed = l->placed;
    out->placement = l->placement;
    out->params = l->params;
    out->ctx = l->ctx;
    out->launch = l->launch;
    memset(&l->launch, 0, sizeof l->launch); /* moved into out */
    out->explain = x->v;
    out->n_explain = x->n;
    memset(x, 0, sizeof *x);
}

/* --- JSON --------------------------------------------------------------- */

static double mib_of(uint64_t bytes)
{
    return (double)((bytes + (1u << 19)) >> 20);
}

/* What the device is predicted to hold, each figure with where it came from. */
static cJSON *placement_predicted_json(const placement_result *pl)
{
    cJSON *o = cJSON_CreateObject();
    const struct {
        const char *name;
        uint64_t bytes;
        placement_source from;
    } figs[] = {
        {"weights", pl->weight_bytes, pl->weights_from},
        {"kv", pl->kv_bytes - pl->recurrent_bytes, pl->kv_from},
        {"recurrent", pl->recurrent_bytes, pl->kv_from},
        {"compute", pl->compute_bytes, pl->compute_from},
        {"host", pl->host_compute_bytes, pl->compute_from},
    };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
        char key[32];
        snprintf(key, sizeof key, "%s_mib", figs[i].name);
        cJSON_AddNumberToObject(o, key, mib_of(figs[i].bytes));
        snprintf(key, sizeof key, "%s_from", figs[i].name);
        cJSON_AddStringToObject(o, key, placement_source_name(figs[i].from));
    }
    cJSON_AddBoolToObject(o, "compute_predicted",
                          pl->compute_from != PLACEMENT_FROM_BOUND && pl->compute_from != PLACEMENT_FROM_CONSTANT);
    cJSON_AddStringToObject(o, "compute_why", pl->compute_why);
    return o;
}

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
    cJSON_AddItemToObject(o, "predicted", placement_predicted_json(pl));
    return o;
}

/* argv and env of a launch line into o. */
static void add_launch(cJSON *o, const sel_launch *launch)
{
    cJSON *l = sel_launch_to_json(launch);
    cJSON_AddItemToObject(o, "argv", cJSON_DetachItemFromObject(l, "argv"));
    cJSON_AddItemToObject(o, "env", cJSON_DetachItemFromObject(l, "env"));
    cJSON_Delete(l);
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
    add_launch(o, &r->launch);
    cJSON_AddItemToObject(o, "explain", lvd_json_strings(r->explain, r->n_explain));
    return o;
}

static cJSON *verdict_json(const lvd_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)v->id);
    cJSON_AddStringToObject(o, "objective", v->objective);
    cJSON_AddStringToObject(o, "rule", v->rule);
    cJSON_AddItemToObject(o, "engine_id", lvd_json_num_if(v->engine_id != 0, (double)v->engine_id));
    cJSON_AddStringToObject(o, "arm_key", v->arm_key ? v->arm_key : "");
    cJSON_AddStringToObject(o, "explain", v->explain ? v->explain : "");
    cJSON *stats = cJSON_Parse(v->stats_json ? v->stats_json : "null");
    cJSON_AddItemToObject(o, "stats", stats ? stats : cJSON_CreateNull());
    return o;
}

cJSON *sel_render_json(const sel_result *r, const lvd_verdict *recorded)
{
    cJSON *j = sel_result_json(r);
    if (recorded)
        cJSON_AddItemToObject(j, "recorded", verdict_json(recorded));
    return j;
}

/* --- text --------------------------------------------------------------- */

/* A '# ' comment line per line of text (the output stays valid shell). */
static void comment(FILE *f, const char *prefix, const char *text)
{
    fprintf(f, "# %s", prefix);
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fputs("# ", f);
    }
    fputc('\n', f);
}

/* "# recorded verdict #ID (RULE, objective O): EXPLAIN". */
static void recorded_comment(FILE *f, const lvd_verdict *v)
{
    char *head = lvd_xasprintf("recorded verdict #%lld (%s, objective %s): ", (long long)v->id, v->rule,
                               v->objective);
    comment(f, head, v->explain ? v->explain : "");
    free(head);
}

void sel_render_text(FILE *f, const sel_result *r, const lvd_verdict *recorded, int explain)
{
    char *line = sel_launch_to_shell(&r->launch);
    fprintf(f, "%s\n", line);
    free(line);
    if (recorded)
        recorded_comment(f, recorded);
    if (explain) {
        fprintf(f, "# decided by rule: %s\n", sel_by_name(r->by));
        for (size_t i = 0; i < r->n_explain; i++)
            comment(f, "", r->explain[i]);
    }
}

void sel_render_artifact(FILE *f, int json, const lvd_verdict *v, const sel_choice_lines *c)
{
    if (json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToObject(j, "recorded", verdict_json(v));
        cJSON_AddStringToObject(j, "engine", c->engine ? c->engine : "");
        cJSON_AddStringToObject(j, "backend", c->backend);
        cJSON_AddStringToObject(j, "model", c->model ? c->model : "");
        cJSON_AddBoolToObject(j, "model_placeholder", c->model_note != NULL);
        cJSON_AddItemToObject(j, "placement", lvd_json_str(c->placement_line));
        cJSON_AddBoolToObject(j, "placement_known", c->placement_known);
        add_launch(j, &c->launch);
        lvd_json_emit(f, j);
        return;
    }
    if (c->launch_line)
        fprintf(f, "%s\n", c->launch_line);
    recorded_comment(f, v);
    if (c->placement_line)
        fprintf(f, "# placement%s: %s\n", c->placement_known ? "" : " unknown", c->placement_line);
    if (c->model_note && c->launch_line)
        comment(f, "", c->model_note);
}
