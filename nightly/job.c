/* job.c: the nightly job as lvd-nightly runs it (see job.h). */
#include "nightly/job.h"

#include "common/cli.h"
#include "common/json.h"
#include "common/paths.h"
#include "engine/devlock.h"
#include "nightly/lock.h"
#include "nightly/nightly.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

/* Every step opens the same store: created once here, so that a first night
 * on a new machine does not fail its read-only steps for want of a file. A
 * PostgreSQL store that cannot be opened (the server unreachable, ...) is
 * replaced by the local fallback store, said on stderr and in the log:
 * *store becomes it and *fallback_from the shared store as shown. */
static int open_store(const char *tool, const night_config *cfg, char **store, char **fallback_from)
{
    struct store *st;
    lvd_err err = {{0}};
    if (store_open(*store, STORE_OPEN_CREATE, &st, &err) == 0) {
        store_close(st);
        return LVD_EXIT_OK;
    }
    if (!store_is_remote(*store))
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    lvd_warn(tool, "%s", err.msg);
    lvd_warn(tool, "this night records into the local fallback store %s (lvd store merge pushes it later)",
             cfg->fallback_store);
    *fallback_from = store_display(*store);
    free(*store);
    *store = lvd_xstrdup(cfg->fallback_store);
    if (store_tool_open(tool, *store, STORE_OPEN_CREATE, &st) != LVD_EXIT_OK)
        return LVD_EXIT_STORE;
    store_close(st);
    return LVD_EXIT_OK;
}

static void print_json(const night_report *r, const night_config *c, const night_opts *no)
{
    cJSON *root = cJSON_CreateObject();
    char *shown = store_display(no->store);
    cJSON_AddStringToObject(root, "store", shown);
    free(shown);
    cJSON_AddItemToObject(root, "store_fallback_from", lvd_json_str(no->fallback_from));
    cJSON_AddStringToObject(root, "session", r->session);
    cJSON_AddStringToObject(root, "config", c->source);
    cJSON_AddBoolToObject(root, "offline", r->offline);
    cJSON_AddBoolToObject(root, "resumed", r->resumed);
    cJSON_AddItemToObject(root, "interrupted", lvd_json_str(r->note));
    cJSON_AddItemToObject(root, "candidate", lvd_json_str(r->candidate));
    cJSON_AddStringToObject(root, "evidence", c->evidence);
    cJSON_AddStringToObject(root, "log", c->log);
    cJSON_AddNumberToObject(root, "exit", r->exit_code);
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (size_t i = 0; i < r->n_steps; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "step", r->steps[i].name);
        cJSON_AddNumberToObject(s, "exit", r->steps[i].exit_code);
        cJSON_AddStringToObject(s, "outcome", r->steps[i].outcome ? r->steps[i].outcome : "");
        cJSON_AddNumberToObject(s, "ms", (double)r->steps[i].ms);
        cJSON_AddItemToArray(steps, s);
    }
    lvd_json_emit(stdout, root);
}

/* The night with its store and locks taken: the run, its JSON. */
static int run(const night_job_opts *o, const night_config *cfg, const char *store, const char *fallback_from)
{
    char *dir = lvd_exe_dir();
    if (!dir)
        dir = lvd_xstrdup(".");
    night_opts no = {.cfg = cfg, .store = store, .fallback_from = fallback_from, .tools_dir = dir,
                     .console = o->json ? NULL : stdout};
    night_report r;
    lvd_err err = {{0}};
    int rc;
    if (night_run(&no, &r, &err)) {
        rc = lvd_tool_fail(o->tool, &err, LVD_EXIT_FAIL);
    } else {
        if (o->json)
            print_json(&r, cfg, &no);
        rc = r.exit_code;
    }
    night_report_free(&r);
    free(dir);
    return rc;
}

int night_job(const night_job_opts *o)
{
    lvd_err err = {{0}};
    night_config cfg;
    if (night_config_load(o->config, &cfg, &err))
        return lvd_tool_fail(o->tool, &err, LVD_EXIT_INPUT);
    char *store = store_default_path(o->store), *fallback_from = NULL;
    int lock = -1, rc;
    if (night_lock(store, &lock, &err)) {
        lvd_error(o->tool, "%s", err.msg);
        rc = LVD_EXIT_LOCKED;
    } else {
        /* the store before the device lock: the steps' tools take that lock by
           the store they are given, the fallback store when it replaces the shared one */
        engine_devlock devices;
        if ((rc = open_store(o->tool, &cfg, &store, &fallback_from)) == LVD_EXIT_OK &&
            (rc = engine_devlock_tool(o->tool, store, cfg.device_wait_s * 1000, &devices)) == LVD_EXIT_OK) {
            rc = run(o, &cfg, store, fallback_from);
            engine_devlock_release(&devices);
        }
        night_unlock(lock);
    }
    free(store);
    free(fallback_from);
    night_config_free(&cfg);
    return rc;
}
