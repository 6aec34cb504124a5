/* report.c: what lvd evidence prints: the files it wrote (a line, or JSON
 * with each model's leader and verdict) and, with --fleet, the fleet view
 * (render.h). Not for the page itself (markdown.c, svg.c). */
#include "evidence/render.h"

#include "common/cli.h"
#include "common/json.h"
#include "evidence/fleet.h"
#include "store/store.h"

#include <cjson/cJSON.h>

/* {page, files, models: [{sha256, name, arms, leader, verdict}], pin_decisions} */
static cJSON *written_json(const ev_page *p, const ev_file *files, size_t n)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "page", files[n - 1].path);
    cJSON *fs = cJSON_AddArrayToObject(j, "files");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(fs, cJSON_CreateString(files[i].path));
    cJSON *ms = cJSON_AddArrayToObject(j, "models");
    for (size_t i = 0; i < p->n_models; i++) {
        const ev_model *m = &p->models[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "sha256", m->sha256);
        cJSON_AddStringToObject(x, "name", m->name);
        cJSON_AddNumberToObject(x, "arms", (double)m->n_arms);
        cJSON_AddItemToObject(x, "leader", lvd_json_str(m->n_arms && m->arms[0].rank == 1 ? m->arms[0].label : NULL));
        cJSON_AddItemToObject(x, "verdict", lvd_json_str(m->has_verdict ? m->verdict_arm : NULL));
        cJSON_AddItemToArray(ms, x);
    }
    cJSON_AddNumberToObject(j, "pin_decisions", (double)p->pin.n_hist);
    return j;
}

void ev_written_print(FILE *f, const ev_page *p, const ev_file *files, size_t n, int json)
{
    if (json)
        lvd_json_emit(f, written_json(p, files, n));
    else
        fprintf(f, "wrote %s (%zu model%s, %zu chart%s)\n", files[n - 1].path, p->n_models,
                p->n_models == 1 ? "" : "s", n - 1, n == 2 ? "" : "s");
}

int ev_fleet_print(FILE *f, const char *tool, struct store *s, int json)
{
    lvd_err err = {{0}};
    ev_fleet fl;
    if (ev_fleet_load(s, &fl, &err) != 0)
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    int code = LVD_EXIT_OK;
    if (!fl.n_hosts) {
        lvd_error(tool, "%s: nothing measured on any host (lvd bench, or lvd store import)", store_path(s));
        code = LVD_EXIT_FAIL;
    } else if (json) {
        lvd_json_emit(f, ev_fleet_json(&fl));
    } else {
        lvd_sb sb = {0};
        ev_fleet_render_markdown(&fl, &sb);
        fputs(lvd_sb_str(&sb), f);
        lvd_sb_free(&sb);
    }
    ev_fleet_free(&fl);
    return code;
}
